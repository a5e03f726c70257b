"""The synthetic font decks the card reader trains on: whole, deterministic, with the index where
the reader looks (top-left, in the card's colour); and the training samples made from them."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.artwork import FACE_PX_PER_MM
from vision.cardnet.spec import CROP_H, CROP_W, NONE_CLASS
from vision.cards import ALL_CARDS, is_red
from vision.models.font_decks import font_deck, index_fonts
from vision.training.data import classifier_samples, detector_input, render_sample


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
    """The rank glyph lies in the reader's crop (within 12 mm of the corner) and is red on red cards."""
    p = FACE_PX_PER_MM
    for card in ALL_CARDS:
        corner = deck.bgr(card)[int(1 * p):int(12 * p), int(1 * p):int(12 * p)].astype(int)
        dark = corner.sum(axis=2) < 400
        reddish = (corner[:, :, 2] - np.maximum(corner[:, :, 0], corner[:, :, 1]) > 60) & dark
        assert dark.sum() > 20, card
        assert (reddish.sum() > 0.5 * dark.sum()) == is_red(card), card


def test_training_samples_are_labelled(deck):
    """A rendered zone gives its corners (on the cards, left to right) and crops labelled with
    their card at those corners, "none" elsewhere."""
    rng = np.random.default_rng(4)
    z = render_sample(deck, rng, n_cards=6)
    assert z.corners_px.shape == (6, 2) and len(z.cards) == 6
    assert np.all(np.diff(z.corners_px[:, 0]) > 0)  # a fan laid left to right
    small = detector_input(z.image, z.px_per_mm)
    assert abs(small.shape[1] / z.image.shape[1] * z.px_per_mm - 1.5) < 0.05
    crops, labels = classifier_samples(z, rng)
    assert all(c.shape == (CROP_H, CROP_W, 3) for c in crops)
    assert [ALL_CARDS[k] for k in labels[:6]] == z.cards
    assert NONE_CLASS in labels[6:] and all(k == NONE_CLASS for k in labels[6:])


def test_varied_crops_keep_the_crop_and_mostly_the_suit_colour(deck):
    """``vary_crops`` (training only) changes most crops and keeps their size; most keep a red index
    red and a black one black, and about one in seven prints all its ink in one other colour, black
    ink included: four-colour decks disagree on which suit is blue (gnome's prints spades blue), so
    a suit must be told by its shape, and blue ink must not mean a red suit."""
    from vision.training.data import vary_crops

    z = render_sample(deck, np.random.default_rng(3), ppm_range=(3.0, 3.0), n_cards=10)
    crops, labels = classifier_samples(z, np.random.default_rng(4))
    cards = [(i, is_red(ALL_CARDS[lab])) for i, lab in enumerate(labels) if lab != NONE_CLASS]
    for red in (True, False):
        card = next(i for i, r in cards if r == red)
        same = np.repeat(crops[card][None], 300, axis=0)
        out = vary_crops(same, np.random.default_rng(0))
        assert out.shape == same.shape and out.dtype == np.float32
        assert out.min() >= 0 and out.max() <= 255
        changed = np.abs(out - same.astype(np.float32)).max(axis=(1, 2, 3)) > 8
        assert 0.5 < changed.mean() < 0.95  # most crops varied, some left as drawn
        kept = []
        for img in out.astype(np.uint8):
            hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV)
            # The index's ink: the crop's most saturated tenth (red) or darkest tenth (black).
            ink = hsv[..., 1] >= np.quantile(hsv[..., 1], 0.9) if red else hsv[..., 2] <= np.quantile(hsv[..., 2], 0.1)
            b, g, r = (img[..., k][ink].mean() for k in range(3))
            kept.append(r > g + 30 and r > b + 30 if red else max(b, g, r) - min(b, g, r) < 40)
        assert 0.6 < np.mean(kept) < 0.97, np.mean(kept)
        np.testing.assert_array_equal(out, vary_crops(same, np.random.default_rng(0)))


def test_star_fonts_draw_a_star_not_a_missing_glyph_box():
    """A joker's star drawn from a font without U+2605 is a box: the classifier would learn that
    a box is a joker, which no real deck prints."""
    from PIL import ImageFont

    from vision.models.font_decks import FONT_DIRS, STAR_FONTS

    for name in STAR_FONTS:
        font = ImageFont.truetype(str(FONT_DIRS[0] / name), 60)
        star = np.asarray(font.getmask("\u2605"))
        missing = np.asarray(font.getmask("\uffff"))
        assert star.shape != missing.shape or not np.array_equal(star, missing), name


def test_some_decks_print_the_suit_across_the_card():
    """One style in seven puts the suit at the top-right (tango_nuevo's way): the corner crop then
    holds no suit, and the classifier must learn not to be sure of one there."""
    from vision.models.font_decks import _Style

    beside = [_Style(np.random.default_rng(s), index_fonts()).pip_beside for s in range(1000, 1100)]
    assert 5 <= sum(beside) <= 30
    d = font_deck(next(s for s, b in zip(range(1000, 1100), beside, strict=True) if b))
    face = d.bgr("7c")
    h, w = face.shape[:2]
    ink = (face.astype(int).sum(axis=2) < 300)
    right = ink[: h // 5, w * 2 // 3:]
    assert right.mean() > 0.01  # the suit sits top-right
