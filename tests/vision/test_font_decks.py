"""The synthetic font decks the index classifier trains on: whole, deterministic, and labelled
where the reader looks (the rank glyph at the top-left, the right colour)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.artwork import FACE_PX_PER_MM
from vision.cards import ALL_CARDS, is_red
from vision.models.font_decks import font_deck, index_fonts
from vision.models.train_index import deck_anchors, font_deck_samples
from vision.reader import BG_CLASS, FEATURE_DIM, N_CLASSES


@pytest.fixture(scope="module")
def deck():
    return font_deck(5)


def test_fonts_are_installed():
    fonts = index_fonts()
    # DejaVu and Liberation families: sans, serif, mono, condensed/narrow, bold, italic.
    assert len(fonts) >= 20
    assert any("Serif" in f.name for f in fonts) and any("Mono" in f.name for f in fonts)


def test_deck_is_whole_and_deterministic(deck):
    assert set(deck.faces) == set(ALL_CARDS)
    w, h = deck.size_mm
    assert 56.0 <= w <= 65.0 and h == pytest.approx(88.0, abs=0.2)
    shapes = {f.shape for f in deck.faces.values()}
    assert shapes == {(round(h * FACE_PX_PER_MM), round(w * FACE_PX_PER_MM), 4)}
    again = font_deck(5)
    assert all(np.array_equal(deck.faces[c], again.faces[c]) for c in ("7h", "Qs", "BJ"))
    other = font_deck(6)
    assert not np.array_equal(deck.faces["7h"], other.faces["7h"])
    # Rounded corners: the very corner pixel is transparent, the centre opaque.
    assert deck.faces["As"][0, 0, 3] == 0 and deck.faces["As"][int(h * 3), int(w * 3), 3] == 255


def test_index_sits_top_left_in_its_colour(deck):
    anchors = deck_anchors(deck)
    assert set(anchors) == set(ALL_CARDS)
    for card, (x, y, gh) in anchors.items():
        assert 1.0 <= x <= 6.0 and 1.5 <= y <= 7.0, card  # the style draws the index at 1.5–5 / 2–6 mm
        assert 2.0 <= gh <= 11.0, card
        face = deck.bgr(card)
        p = FACE_PX_PER_MM
        glyph = face[int(y * p):int((y + gh) * p), int(x * p):int((x + 4) * p)].astype(int)
        dark = glyph.sum(axis=2) < 400
        reddish = (glyph[:, :, 2] - np.maximum(glyph[:, :, 0], glyph[:, :, 1]) > 60) & dark
        assert dark.any(), card
        assert (reddish.sum() > 0.5 * dark.sum()) == is_red(card), card


def test_training_samples_are_labelled():
    x, y = font_deck_samples(3, rows=3)
    assert x.shape[1] == FEATURE_DIM and len(x) == len(y)
    assert ((y >= 0) & (y < N_CLASSES)).all()
    # Rows of 5–10 cards: most indices are found and labelled, and background blobs exist too.
    assert int((y != BG_CLASS).sum()) >= 12 and int((y == BG_CLASS).sum()) > 0
