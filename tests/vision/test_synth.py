"""The renderer: real artwork, ground truth that matches the pixels, stable table layouts."""

from __future__ import annotations

import numpy as np
import pytest

from vision.artwork import HELD_OUT_DESIGNS, NOT_FRENCH, installed_designs, load_deck, training_designs
from vision.cards import ALL_CARDS, is_red
from vision.synth import Realism, TableRenderer, TableScene, render_table, render_zone


def test_artwork_faces_are_real_and_distinct(anglo):
    assert set(anglo.faces) == set(ALL_CARDS)
    assert 55 < anglo.size_mm[0] < 66 and anglo.size_mm[1] == 88.0
    # Faces differ from each other; red suits have red ink, black ones none (face cards and jokers have coloured art).
    assert not np.array_equal(anglo.faces["2s"], anglo.faces["3s"])
    for card in ("Ah", "7d", "9h", "As", "7c", "9s"):
        f = anglo.bgr(card).astype(int)
        redness = ((f[:, :, 2] - np.maximum(f[:, :, 0], f[:, :, 1])) > 100).mean()
        assert (redness > 0.002) == is_red(card), card


def test_held_out_designs_are_not_trained_on():
    """The card reader's unseen designs (and their colour variants) are never in its training set."""
    installed = installed_designs()
    assert set(HELD_OUT_DESIGNS) <= set(installed) and not set(NOT_FRENCH) & set(installed)
    train = training_designs()
    assert not set(HELD_OUT_DESIGNS) & set(train) and len(train) >= 20
    assert not any(d.startswith(("tango", "neoclassical")) for d in train)


def test_zone_ground_truth_matches_pixels():
    zr = render_zone(["Qs", "Kh", "BJ"], "paris", 3.0, seed=1, realism=Realism.clean())
    assert zr.image.shape == (450, 960, 3)
    # Each card's centre is paper or ink (not felt), and the overlap steps are 12–25 mm.
    xs = []
    for p in zr.placements:
        c = zr.to_image(p.to_scene(np.array([[p.size_mm[0] / 2, p.size_mm[1] / 2]])))[0]
        xs.append(c[0] / 3.0)
    steps = np.diff(xs)
    assert ((steps >= 11.9) & (steps <= 25.1)).all(), steps


def test_unknown_card_and_design_are_clear_errors():
    with pytest.raises(ValueError, match="unknown card"):
        render_zone(["1z"], "anglo")
    with pytest.raises(FileNotFoundError, match="artwork"):
        load_deck("no_such_design")


def test_table_renderer_keeps_layout_while_scene_is_unchanged(layout):
    from vision.synth import CameraView

    r = TableRenderer(layout, "simplistic", CameraView(size=(960, 720), px_per_mm=0.7), seed=2)
    scene = TableScene({"N": ["5c", "5d"]})
    a = r.table_image(scene)
    b = r.table_image(scene)
    assert np.array_equal(a, b)
    c = r.table_image(TableScene({"N": ["5c", "5d", "5h"]}))
    assert not np.array_equal(a, c)
    frame = render_table({"E": ["SJ"]}, "tango", layout=layout, camera=CameraView(size=(640, 480), px_per_mm=0.45))
    assert frame.shape == (480, 640, 3) and frame.dtype == np.uint8


def test_a_reprinted_deck_keeps_its_geometry_and_renders(anglo):
    """reprint: another stock colour, ink strength and print blur, the same faces in the same
    places (so the index anchors found on the design still hold), renderable by render_zone."""
    from vision.synth import reprint

    rng = np.random.default_rng(3)
    for _ in range(3):
        d = reprint(anglo, rng)
        assert d.size_mm == anglo.size_mm and set(d.faces) == set(ALL_CARDS)
        a, b = anglo.faces["7h"], d.faces["7h"]
        assert a.shape == b.shape and np.array_equal(a[:, :, 3], b[:, :, 3])
        paper = a[:, :, :3].min(axis=2) > 240
        assert b[:, :, :3][paper].mean() <= a[:, :, :3][paper].mean()  # stock is never whiter than white
        ink = a[:, :, :3].max(axis=2) < 60
        assert abs(float(b[:, :, :3][ink].mean()) - float(a[:, :, :3][ink].mean())) < 80
    zr = render_zone(["7h", "Qs"], reprint(anglo, rng), 3.0, seed=1)
    assert zr.cards == ["7h", "Qs"] and zr.design == "anglo" and zr.image.ndim == 3


def test_rubbed_indices_leave_the_rest_of_the_deck_and_the_outline(anglo):
    """rub_indices paints only the two index corners of the named cards, inside the outline."""
    from vision.synth import RUBBED_CORNER, rub_indices

    worn = rub_indices(anglo, ["7h"])
    assert all(worn.faces[c] is anglo.faces[c] for c in ALL_CARDS if c != "7h")
    a, b = anglo.faces["7h"], worn.faces["7h"]
    assert np.array_equal(a[:, :, 3], b[:, :, 3]) and not np.array_equal(a, b)
    h, w = a.shape[:2]
    changed = np.argwhere((a != b).any(axis=2))
    in_corner = ((changed[:, 0] < h * RUBBED_CORNER[1]) & (changed[:, 1] < w * RUBBED_CORNER[0])) | (
        (changed[:, 0] >= h * (1 - RUBBED_CORNER[1])) & (changed[:, 1] >= w * (1 - RUBBED_CORNER[0])))
    assert in_corner.all()
    assert np.array_equal(a[:3], b[:3]) and np.array_equal(a[:, :3], b[:, :3])  # the outline is untouched
    with pytest.raises(ValueError, match="unknown card"):
        rub_indices(anglo, ["7H"])
