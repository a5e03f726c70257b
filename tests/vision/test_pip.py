"""The pip suit model: finds the pip under the rank glyph and names its suit on the training designs."""

from __future__ import annotations

import numpy as np
import pytest

from vision.artwork import TRAINING_DESIGNS, load_deck
from vision.cards import RANKS
from vision.pip import PIP_FEATURE_DIM, PIP_SUITS, get_pip_model, pip_feature
from vision.reader import WORK_PPM, _to_work, analyse, face_anchor


def _face_pips(design: str) -> tuple[np.ndarray, list[int]]:
    deck = load_deck(design)
    feats, labels = [], []
    for rank in RANKS:
        for suit in PIP_SUITS:
            card = rank + suit
            work = _to_work(deck.bgr(card), deck.faces[card].shape[0] / deck.size_mm[1])
            a = face_anchor(work)
            assert a is not None, card
            an = analyse(work, whole_card=True, second_pass=False)
            f = pip_feature(an.ink, a.x, a.y, a.w, a.h)
            if f is not None:
                feats.append(f)
                labels.append(PIP_SUITS.index(suit))
    return np.stack(feats), labels


def test_no_pip_on_blank_paper():
    ink = np.zeros((200, 120), np.float32)
    assert pip_feature(ink, 10, 10, 12, 20) is None
    ink[32:50, 12:30] = 1.0  # a compact blob under the glyph: a pip
    f = pip_feature(ink, 10, 10, 12, 20)
    assert f is not None and f.shape == (PIP_FEATURE_DIM,)
    assert f[-1] == pytest.approx(18 / 20, abs=0.05)  # pip height over glyph height


@pytest.mark.parametrize("design", TRAINING_DESIGNS)
def test_pip_model_names_the_suits_of_flat_faces(design):
    model = get_pip_model()
    assert model is not None
    x, y = _face_pips(design)
    # The pip is found under nearly every one of the 52 indices, and its suit read right.
    assert len(y) >= 48
    pred = model.probs(x).argmax(axis=1)
    assert float(np.mean(pred == np.array(y))) >= 0.95
    assert WORK_PPM == 3.0
