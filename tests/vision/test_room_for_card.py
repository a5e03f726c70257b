"""A candidate dropped as no card counts against the play only where a card could lie
(vision.cardnet.layout.room_for_card): a card needs its paper.

Accuracy is the benchmark's; these bounds hold on any render seed (``VISION_SEED_SHIFT``).
"""

from __future__ import annotations

import numpy as np
import pytest
from vision_kit import SHIFT

from vision import read_play
from vision.cardnet.detector import Corner, Detection
from vision.cardnet.layout import ROOM_BELOW_MM, ROOM_RIGHT_MM, room_for_card
from vision.synth import Realism, render_zone

PPM = 3.0
CELL = 2.7 * PPM  # the detector's cell, in zone pixels


def _detection(cover: np.ndarray) -> Detection:
    return Detection([], float(cover.sum()), cover, CELL)


def test_no_paper_where_its_card_would_lie_is_no_room():
    """A zone 200 x 120 mm with cards' paper only on its left 60 mm: a candidate at 50 mm, whose card would
    cover 85–95 mm, has no room; one at 10 mm has; one whose card would lie past the zone's edge is not
    judged (room assumed, its chance counted as before)."""
    zone_hw = (int(120 * PPM), int(200 * PPM))
    cover = np.zeros((int(np.ceil(zone_hw[0] / CELL)), int(np.ceil(zone_hw[1] / CELL))), bool)
    cover[:, : int(60 * PPM / CELL)] = True
    det = _detection(cover)
    assert not room_for_card(det, Corner(50 * PPM, 10 * PPM, 0.3), PPM, zone_hw)
    assert room_for_card(det, Corner(10 * PPM, 10 * PPM, 0.3), PPM, zone_hw)
    assert room_for_card(det, Corner(170 * PPM, 10 * PPM, 0.3), PPM, zone_hw)  # past the right edge
    assert room_for_card(det, Corner(50 * PPM, 100 * PPM, 0.3), PPM, zone_hw)  # past the bottom
    assert room_for_card(_detection(np.zeros((0, 0), bool)), Corner(50 * PPM, 10 * PPM, 0.3), PPM, zone_hw)


def test_the_room_lies_inside_any_card_whatever_its_tilt():
    """The part looked at lies within a 56 x 86 mm card (the smallest) tilted 7° either way about its corner."""
    for deg in (-7.0, 0.0, 7.0):
        t = np.radians(deg)
        rot = np.array([[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]])
        for x in ROOM_RIGHT_MM:
            for y in ROOM_BELOW_MM:
                u, v = np.linalg.solve(rot, np.array([x, y]))  # the point in the card's own frame
                assert 0 <= u <= 56 and 0 <= v <= 86, (deg, x, y, u, v)


@pytest.mark.parametrize("design", ["neoclassical_4_color", "tango", "plastic"])
def test_picture_cards_laid_alone_are_never_read_silently_wrong(design):
    """Jokers and queens of held-out designs, alone and in pairs, at 2–4 px/mm: whatever the spots in
    their art the rule no longer counts, no play is silently wrong."""
    plays = [["SJ"], ["BJ"], ["Qd", "Qs"], ["Qh"], ["BJ", "SJ"], ["Kc", "Kd"]]
    for k, cards in enumerate(plays):
        for ppm in (2.0, 3.0, 4.0):
            z = render_zone(cards, design, ppm, seed=SHIFT + 40 + k, realism=Realism())
            r = read_play(z.image, ppm)
            assert r.uncertain or r.cards == cards, (design, ppm, cards, r)
