"""A card still in doubt read again from crops around its corner (vision.cardnet.read._look_around):
when it runs, what it replaces, what it keeps, and what it does on a design it never saw.

Accuracy is the benchmark's; these bounds hold on any render seed (``VISION_SEED_SHIFT``).
"""

from __future__ import annotations

import numpy as np
import pytest
from vision_kit import SHIFT, face_probs

from vision import read_play
from vision.cardnet import read
from vision.cardnet.body import LOOK_BELOW
from vision.cardnet.read import LOOK_AROUND_MM, LOOK_AROUND_SCALES, _look_around, default_head
from vision.cardnet.spec import FEATURE_DIM, NONE_CLASS
from vision.cards import ALL_CARDS, CARD_INDEX
from vision.synth import Realism, render_zone


def test_sure_cards_are_not_read_again(monkeypatch):
    """Cards at LOOK_BELOW or surer cost nothing: a sure zone reads as fast as before."""
    def refuse(*_a, **_k):
        raise AssertionError("a crop was read again")

    monkeypatch.setattr(read, "embed", refuse)
    faces = np.stack([face_probs(1e-6, **{"9c": 1.0}), face_probs(1e-6, BJ=1.0)])
    assert (faces.max(axis=1) >= LOOK_BELOW * faces.sum(axis=1)).all()
    zone = np.zeros((100, 100, 3), np.uint8)
    assert _look_around(zone, 3.0, default_head(), [(10.0, 10.0), (50.0, 10.0)], faces, faces) is faces


def test_a_doubted_cards_read_is_the_geometric_mean_of_seven_and_keeps_what_was_weighed(monkeypatch):
    """The doubted card's one read is swapped for the geometric mean of it, four crops 0.6 mm right,
    left, below and above its corner and two cut at 0.9 and 1.1 times the scale about it; the factor
    another witness (the index's suit network) multiplied in stays; the sure card is untouched."""
    assert LOOK_AROUND_SCALES == (0.9, 1.1)
    seen: list[tuple[list[tuple[float, float]], float]] = []
    shifted = [face_probs(1e-6, **{"8h": 0.9, "3h": 0.1}), face_probs(1e-6, **{"8h": 0.8, "3h": 0.2}),
               face_probs(1e-6, **{"8h": 0.6, "3h": 0.4}), face_probs(1e-6, **{"8h": 0.95, "3h": 0.05})]
    scaled = [face_probs(1e-6, **{"8h": 0.7, "3h": 0.3}), face_probs(1e-6, **{"8h": 0.5, "3h": 0.5})]
    answers = iter([np.stack(shifted), scaled[0][None], scaled[1][None]])

    def fake_embed(_zone, corners, ppm):
        seen.append((list(corners), ppm))
        return np.zeros((len(corners), FEATURE_DIM), np.float32)

    def fake_probs(_head, emb):
        out = np.zeros((len(emb), NONE_CLASS + 1))
        out[:, :NONE_CLASS] = next(answers)
        return out

    monkeypatch.setattr(read, "embed", fake_embed)
    monkeypatch.setattr(read, "face_probs", fake_probs)
    ppm = 3.0
    raw = np.stack([face_probs(1e-6, Kd=1.0), face_probs(1e-6, **{"8h": 0.3, "3h": 0.7})])
    witness = face_probs(1e-6, **{"8h": 2.0, "3h": 1.0})  # what a suit witness multiplied into the doubted card
    faces_p = raw.copy()
    faces_p[1] *= witness
    out = _look_around(np.zeros((10, 10, 3), np.uint8), ppm, default_head(), [(10.0, 20.0), (70.0, 22.0)],
                       raw, faces_p)
    d = LOOK_AROUND_MM * ppm
    assert seen == [([(70.0 + d, 22.0), (70.0 - d, 22.0), (70.0, 22.0 + d), (70.0, 22.0 - d)], ppm),
                    ([(70.0, 22.0)], pytest.approx(ppm * 0.9)), ([(70.0, 22.0)], pytest.approx(ppm * 1.1))]
    np.testing.assert_array_equal(out[0], faces_p[0])
    views = np.stack(shifted + scaled)
    seven = np.vstack([raw[1] / raw[1].sum(), views / views.sum(axis=1, keepdims=True)])
    mean = np.exp(np.log(seven).mean(axis=0))
    expect = witness * mean
    got = out[1] / out[1].sum()
    np.testing.assert_allclose(got, expect / expect.sum(), rtol=1e-9)
    assert got[CARD_INDEX["8h"]] > 0.8  # six crops of the 8 outvote the one that read a 3


@pytest.mark.parametrize("design", ["tango", "plastic"])
def test_unseen_designs_read_again_around_the_corner_are_never_silently_wrong(design, monkeypatch):
    """Plays of two to five cards of a held-out design at 2–4 px/mm: read with the look around, no play
    is silently wrong, and it does not ask many more than without it.  On twenty plays either way is
    noise (tango, render seeds 0 / 1 / 2: 16 against 13, 2 fewer, 2 fewer); the gain is the bench's,
    over 3,240 plays (docs/performance.md).  The bound catches a look around that doubts what it sees."""
    rng = np.random.default_rng(SHIFT + 11)
    plays = [[str(c) for c in rng.choice(ALL_CARDS[:52], int(rng.integers(2, 6)))] for _ in range(20)]
    zones = [(render_zone(p, design, ppm, seed=SHIFT + 300 + k, realism=Realism()), ppm)
             for k, (p, ppm) in enumerate(zip(plays, [2.0, 3.0, 4.0] * 7, strict=False))]
    shipped = read._look_around

    def asked(around: bool) -> int:
        monkeypatch.setattr(read, "_look_around", shipped if around else (lambda *a: a[-1]))
        n = 0
        for (z, ppm), truth in zip(zones, plays, strict=True):
            r = read_play(z.image, ppm)
            assert r.uncertain or r.cards == truth, (r, truth)
            n += r.uncertain
        return n

    assert asked(True) <= asked(False) + 5
