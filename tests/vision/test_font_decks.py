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


def test_some_suitless_corners_have_one_large_pip_below_them():
    """Half the decks that print the suit beside the rank print one large pip across the body (tango_nuevo
    again): its top reaches the index network's crop, which must learn that it is not the index's pip.
    Decks that print the suit under the rank are drawn exactly as before (no draw added to their style)."""
    from vision.cardnet.spec import PIP_X_MM, PIP_Y_MM
    from vision.models.font_decks import PX, _Style

    styles = {s: _Style(np.random.default_rng(s), index_fonts()) for s in range(1000, 1150)}
    big = [s for s, st in styles.items() if st.big_pip]
    assert big and all(styles[s].pip_beside for s in big)
    assert len(big) < sum(st.pip_beside for st in styles.values())
    face = font_deck(big[0]).bgr("5h")
    ink = face.astype(int).sum(axis=2) < 500
    rows = np.flatnonzero(ink[:, : int(PIP_X_MM[1] * PX)].any(axis=1))  # ink within the crop's width
    body = rows[(rows > int(PIP_Y_MM[1] * 0.6 * PX)) & (rows < face.shape[0] // 2)]
    assert body.size and body.min() < PIP_Y_MM[1] * PX  # the large pip's flank lies within the crop


def test_drawn_pips_are_the_four_suits_in_many_shapes():
    """Drawn pips (most font decks' suits) are exactly as tall as asked, in the asked colour, and
    shaped as their suit: a heart widest above its middle and pointed below, a spade the other way
    up, a diamond widest at its middle; and two decks' shapes of one suit differ."""
    from vision.models.font_decks import PipShape, drawn_pip

    def width_profile(a: np.ndarray) -> np.ndarray:
        return (a > 128).sum(axis=1) / a.shape[1]

    shapes = [PipShape.random(np.random.default_rng(s)) for s in range(12)]
    for sh in shapes:
        pips = {s: drawn_pip(s, sh, 48, (200, 10, 20)) for s in "shdc"}
        for s, g in pips.items():
            assert g.shape[0] == 48 and g.shape[2] == 4 and 20 <= g.shape[1] <= 60, (s, g.shape)
            ink = g[:, :, 3] > 128
            assert 0.3 < ink.mean() < 0.85, (s, ink.mean())
            assert np.all(g[ink][:, :3] == (200, 10, 20))
        heart, spade, diamond = (width_profile(pips[s][:, :, 3]) for s in "hsd")
        assert heart[:16].max() > 0.8 and heart[-4:].max() < 0.35  # lobes above, a point below
        assert spade[:4].max() < 0.35 and spade[24:40].max() > 0.8  # a point above, lobes below
        assert diamond[20:28].max() > 0.85 and diamond[:3].max() < 0.3 and diamond[-3:].max() < 0.3
        club = pips["c"][:, :, 3] > 128
        # A club's three leaves: its middle row is wide, its stem (near the foot, above it) narrow.
        assert width_profile(club.astype(np.uint8) * 255)[30:40].min() < 0.45
    a, b = (cv2.resize(drawn_pip("c", sh, 48, (0, 0, 0))[:, :, 3], (40, 48)) for sh in shapes[:2])
    assert np.abs(a.astype(int) - b.astype(int)).mean() > 5


def test_index_fonts_draw_every_index_glyph():
    """A font is an index font only when it draws each rank and the joker's word: a font without
    a glyph would print its missing-glyph box, and the net would learn boxes as ranks."""
    from vision.models.font_decks import INDEX_CHARS, draws, font_families

    fonts = index_fonts()
    dejavu = next(f for f in fonts if f.name == "DejaVuSans.ttf")
    assert draws(dejavu, INDEX_CHARS) and not draws(dejavu, "A\U000f0000")
    families = font_families(tuple(fonts))
    assert sorted(p for fam in families for p in fam) == sorted(fonts)
    # Styles of one typeface are one family: "DejaVu Sans" Book and Bold drawn as often as Lato.
    assert any({"DejaVuSans.ttf", "DejaVuSans-Bold.ttf"} <= {p.name for p in fam} for fam in families)
