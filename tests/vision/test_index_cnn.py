"""The numpy index CNN: its convolution is a convolution, its weights file loads, and it is a
drop-in ``probs`` model for the reader's features (torch is needed only to train it)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.index_cnn import CNN_PATH, PATCH_H, PATCH_W, IndexCNN, _conv3x3_relu, _conv3x3_relu_fast, _pool2


def test_conv_and_pool_match_a_direct_loop():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 6, 5, 3)).astype(np.float32)
    w = rng.normal(size=(3, 3, 3, 4)).astype(np.float32)  # (dy, dx, c, k)
    b = rng.normal(size=4).astype(np.float32)
    out = _conv3x3_relu(x, w.reshape(27, 4), b)
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    ref = np.zeros((2, 6, 5, 4), np.float32)
    for i in range(6):
        for j in range(5):
            ref[:, i, j] = np.einsum("nyxc,yxck->nk", xp[:, i:i + 3, j:j + 3], w) + b
    np.testing.assert_allclose(out, np.maximum(ref, 0), rtol=1e-5, atol=1e-5)
    for c in (1, 3):  # the fast path (filter2D for one channel, shifted products for more) agrees
        xc = np.ascontiguousarray(x[..., :c])
        wc = w[:, :, :c].reshape(9 * c, 4)
        np.testing.assert_allclose(_conv3x3_relu_fast(xc, wc, b), _conv3x3_relu(xc, wc, b), rtol=1e-5, atol=1e-5)
    pooled = _pool2(out)
    assert pooled.shape == (2, 3, 2, 4)
    np.testing.assert_allclose(pooled[:, 1, 1], out[:, 2:4, 2:4].max(axis=(1, 2)))


def _random_model(path, rng) -> None:
    chans = (1, 8, 16, 32)
    w = {}
    for k in range(3):
        w[f"conv{k + 1}_w"] = rng.normal(0, 0.3, (9 * chans[k], chans[k + 1])).astype(np.float32)
        w[f"conv{k + 1}_b"] = rng.normal(0, 0.1, chans[k + 1]).astype(np.float32)
    flat = 32 * (PATCH_H // 8) * (PATCH_W // 8) + 3
    w.update(fc1_w=rng.normal(0, 0.1, (flat, 16)).astype(np.float32), fc1_b=np.zeros(16, np.float32),
             fc2_w=rng.normal(0, 0.1, (16, 28)).astype(np.float32), fc2_b=np.zeros(28, np.float32),
             extra_mean=np.zeros(3, np.float32), extra_std=np.ones(3, np.float32), temperature=np.array(1.5))
    np.savez(path, **w)


def test_probs_are_a_distribution_and_missing_file_is_clear(tmp_path):
    rng = np.random.default_rng(1)
    _random_model(tmp_path / "m.npz", rng)
    m = IndexCNN(tmp_path / "m.npz")
    x = rng.random((7, PATCH_W * PATCH_H + 3)).astype(np.float32)
    p = m.probs(x)
    assert p.shape == (7, 28) and np.allclose(p.sum(1), 1.0) and (p >= 0).all()
    # One candidate's probabilities do not depend on the others in the batch.
    np.testing.assert_allclose(m.probs(x[2:3])[0], p[2], rtol=1e-5, atol=1e-7)
    assert m.probs(x[:0]).shape == (0, 28)
    with pytest.raises(FileNotFoundError, match="index model missing"):
        IndexCNN(tmp_path / "absent.npz")


@pytest.mark.skipif(not CNN_PATH.exists(), reason="no trained CNN shipped")
def test_shipped_cnn_is_small_and_loads():
    assert CNN_PATH.stat().st_size < 5 * 1024 * 1024
    m = IndexCNN()
    assert 0.3 <= m.temperature <= 5.0
    assert m.probs(np.zeros((1, PATCH_W * PATCH_H + 3), np.float32)).shape == (1, 28)


@pytest.mark.skipif(not CNN_PATH.exists(), reason="no trained CNN shipped")
def test_the_shipped_cnn_reads_a_clean_row_as_the_zero_shot_model():
    """Wired in as the zero-shot classifier, the CNN reads a clean ten-card row of a design it was
    trained on left to right (accuracy on designs it never saw is benchmarks/vision_lodo.py's)."""
    from vision import reader
    from vision.synth import Realism, render_zone

    cards = ["3s", "4h", "5d", "6c", "7s", "8h", "9d", "Tc", "Js", "Qh"]
    zr = render_zone(cards, "anglo", 3.0, seed=5, realism=Realism.clean())
    reader.set_zero_shot_model(IndexCNN())
    try:
        r = reader.read_play(zr.image)
    finally:
        reader.set_zero_shot_model(None)
    assert r.cards == cards or r.uncertain, (r.cards, r.reasons)
    assert r.cards == cards, (r.cards, r.reasons)
