"""The learned index classifier: a small CNN run in plain numpy (no training framework at run time).

Why a CNN: the shipped MLP (:class:`vision.reader.IndexModel`) sees the 24 x 40 index patch as
960 unrelated numbers, so a glyph one pixel to the left, or drawn in a font it never saw, is a
new input to it.  Convolutions share their weights over the patch, so a stroke is a stroke
wherever it lies and whatever font drew it; trained on many designs and synthetic font decks
(:mod:`vision.models.index_data`), it is meant to read decks it never saw.  The recipe is
:mod:`vision.models.train_cnn` (torch, training only); the weights are exported to
``vision/models/index_cnn.npz`` and run here with im2col + one matrix product per layer.

Input: the reader's own index features (:func:`vision.reader.patch_feature`): the ink patch
(40 rows x 24 columns, scaled by the glyph's height) and three numbers (glyph height in
8 mm units, aspect ratio, redness).  Output: the same 28 classes as the MLP (13 ranks x
{spade/heart, club/diamond}, joker, "not an index"), so it is a drop-in ``probs(x)`` model.

Architecture (fixed here, the weights file only holds numbers):
conv 3x3 (1 -> c1) + ReLU, max-pool 2 -> 20 x 12;
conv 3x3 (c1 -> c2) + ReLU, max-pool 2 -> 10 x 6;
conv 3x3 (c2 -> c3) + ReLU, max-pool 2 -> 5 x 3;
flatten, concatenated with the three extras; fc -> hidden + ReLU; fc -> 28; softmax / temperature.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

PATCH_W, PATCH_H = 24, 40
CNN_PATH = Path(__file__).with_name("models") / "index_cnn.npz"


def _flush(a: np.ndarray) -> np.ndarray:
    """float32 with |values| < 1e-20 set to zero (subnormal products take a slow path; see deck_model)."""
    a = np.array(a, np.float32)
    a[np.abs(a) < 1e-20] = 0.0
    return a


def _conv3x3_relu(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """'same' 3x3 convolution + ReLU of ``x`` (N, H, W, C) with ``w`` (9*C, K) laid out (dy, dx, c).

    im2col by nine shifted views of the zero-padded input, then one matrix product.
    """
    n, h, wd, c = x.shape
    xp = np.zeros((n, h + 2, wd + 2, c), np.float32)
    xp[:, 1:-1, 1:-1] = x
    cols = np.empty((n, h, wd, 9, c), np.float32)
    k = 0
    for dy in range(3):
        for dx in range(3):
            cols[:, :, :, k] = xp[:, dy:dy + h, dx:dx + wd]
            k += 1
    out = cols.reshape(n * h * wd, 9 * c) @ w
    out += b
    np.maximum(out, 0.0, out=out)
    return out.reshape(n, h, wd, -1)


def _conv3x3_relu_fast(x: np.ndarray, w: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The same as :func:`_conv3x3_relu`, faster on one core (measured 2026-12-01, 60 candidates,
    one thread: the three layers 5.2 + 3.1 + 2.0 ms by im2col, 3.2 + 2.0 + 1.2 ms so).

    One input channel (the first layer): every patch, zero-bordered, stacked into one tall image
    and each filter run over it by ``cv2.filter2D`` (a correlation, as torch's conv2d).  More
    channels: the sum over the nine taps of a shifted view times that tap's (C, K) weights, which
    skips building the 9-times larger im2col matrix.
    """
    n, h, wd, c = x.shape
    k = w.shape[1]
    if c == 1:
        tall = np.zeros((n, h + 2, wd + 2), np.float32)
        tall[:, 1:-1, 1:-1] = x[..., 0]
        tall2 = tall.reshape(n * (h + 2), wd + 2)
        w9 = w.reshape(3, 3, k)
        out_cf = np.empty((k, n, h, wd), np.float32)
        for j in range(k):
            r = cv2.filter2D(tall2, -1, np.ascontiguousarray(w9[:, :, j]), borderType=cv2.BORDER_CONSTANT)
            out_cf[j] = r.reshape(n, h + 2, wd + 2)[:, 1:-1, 1:-1]
        out = np.ascontiguousarray(out_cf.transpose(1, 2, 3, 0))
    else:
        xp = np.zeros((n, h + 2, wd + 2, c), np.float32)
        xp[:, 1:-1, 1:-1] = x
        w9 = w.reshape(9, c, k)
        out = np.zeros((n * h * wd, k), np.float32)
        i = 0
        for dy in range(3):
            for dx in range(3):
                out += np.ascontiguousarray(xp[:, dy:dy + h, dx:dx + wd]).reshape(-1, c) @ w9[i]
                i += 1
        out = out.reshape(n, h, wd, k)
    out += b
    np.maximum(out, 0.0, out=out)
    return out


def _pool2(x: np.ndarray) -> np.ndarray:
    """2x2 max-pool (N, H, W, C) -> (N, H//2, W//2, C)."""
    # Four strided views and np.maximum: 10x faster than a max over reshaped axes (measured).
    n, h, w, c = x.shape
    h2, w2 = h // 2 * 2, w // 2 * 2
    return np.maximum(np.maximum(x[:, 0:h2:2, 0:w2:2], x[:, 0:h2:2, 1:w2:2]),
                      np.maximum(x[:, 1:h2:2, 0:w2:2], x[:, 1:h2:2, 1:w2:2]))


class IndexCNN:
    """``probs(features)`` over the reader's 963-number index features, 28 classes."""

    def __init__(self, path: Path = CNN_PATH) -> None:
        try:
            with np.load(path) as z:
                self.convs = []
                k = 1
                while f"conv{k}_w" in z:
                    self.convs.append((_flush(z[f"conv{k}_w"]), _flush(z[f"conv{k}_b"])))
                    k += 1
                self.fc1_w, self.fc1_b = _flush(z["fc1_w"]), _flush(z["fc1_b"])
                self.fc2_w, self.fc2_b = _flush(z["fc2_w"]), _flush(z["fc2_b"])
                self.extra_mean = z["extra_mean"].astype(np.float32)
                self.extra_std = z["extra_std"].astype(np.float32)
                self.temperature = float(z["temperature"]) if "temperature" in z else 1.0
        except FileNotFoundError as exc:
            raise FileNotFoundError(f"缺少识别模型 / index model missing: {path} "
                                    "(run python -m vision.models.train_cnn)") from exc

    def logits(self, x: np.ndarray) -> np.ndarray:
        """Raw logits (before the temperature) of features ``x`` (N, 963)."""
        x = np.asarray(x, np.float32)
        n = len(x)
        h = x[:, : PATCH_W * PATCH_H].reshape(n, PATCH_H, PATCH_W, 1)
        for w, b in self.convs:
            h = _pool2(_conv3x3_relu_fast(h, w, b))
        extra = (x[:, PATCH_W * PATCH_H:] - self.extra_mean) / self.extra_std
        # Flattened in (channel, row, column) order, as torch's flatten of an NCHW tensor.
        flat = np.concatenate([h.transpose(0, 3, 1, 2).reshape(n, -1), extra], axis=1)
        f = flat @ self.fc1_w + self.fc1_b
        np.maximum(f, 0.0, out=f)
        return f @ self.fc2_w + self.fc2_b

    def probs(self, x: np.ndarray) -> np.ndarray:
        if len(x) == 0:
            return np.zeros((0, self.fc2_b.size), np.float64)
        lo = self.logits(x).astype(np.float64) / self.temperature
        lo -= lo.max(axis=1, keepdims=True)
        e = np.exp(lo)
        return e / e.sum(axis=1, keepdims=True)


class ProductOfExperts:
    """Two (or more) classifiers over the same features and classes, combined as a product of
    their probabilities (renormalised): they must agree to be sure, and one expert's confident
    mistake is tempered by the other's doubt."""

    def __init__(self, *models: object) -> None:
        self.models = models

    def probs(self, x: np.ndarray) -> np.ndarray:
        out = None
        for m in self.models:
            p = np.asarray(m.probs(x), np.float64)  # type: ignore[attr-defined]
            out = p if out is None else out * p
        assert out is not None
        return out / np.maximum(out.sum(axis=1, keepdims=True), 1e-300)


_cnn: IndexCNN | None = None


def get_cnn() -> IndexCNN:
    global _cnn
    if _cnn is None:
        _cnn = IndexCNN()
    return _cnn
