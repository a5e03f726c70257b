"""The body strip's suit (vision.cardnet.body): where it is cut, when it is read, what it changes.

Accuracy is the benchmark's; these bounds hold on any render seed (``VISION_SEED_SHIFT``).
"""

from __future__ import annotations

import cv2
import numpy as np
import pytest
from vision_kit import SHIFT

from vision.cardnet import body, nets
from vision.cardnet.body import LOOK_BELOW, MIDDLE_MM, body_crop, suit_probs, weigh_suits
from vision.cardnet.spec import BODY_CLASSES, BODY_H, BODY_PPM, BODY_W, BODY_X_MM, BODY_Y_MM
from vision.cards import ALL_CARDS, CARD_INDEX, SUITS
from vision.synth import render_zone


def _corners(r) -> list[tuple[float, float]]:
    return [tuple(r.to_image(p.to_scene(np.array([[0.0, 0.0]])))[0]) for p in r.placements]


@pytest.mark.parametrize("ppm", [2.0, 3.0, 4.0])
def test_the_strip_lies_below_the_index_at_every_scale(ppm):
    """A dark square drawn 40–50 mm below a corner and 5–15 mm right of it is in the strip where the
    spec puts it, at 2, 3 and 4 px/mm (the local blur above 2.4 px/mm cuts the same strip)."""
    zone = np.full((int(120 * ppm), int(100 * ppm), 3), 230, np.uint8)
    corner = (10.0 * ppm, 12.0 * ppm)
    x0, y0 = corner[0] + 5 * ppm, corner[1] + 40 * ppm
    cv2.rectangle(zone, (int(x0), int(y0)), (int(x0 + 10 * ppm), int(y0 + 10 * ppm)), (20, 20, 20), -1)
    strip = body_crop(zone, corner, ppm)
    assert strip.shape == (BODY_H, BODY_W, 3)
    dark = np.argwhere(strip[:, :, 0] < 125)
    (v0, u0), (v1, u1) = dark.min(axis=0), dark.max(axis=0)
    assert abs(u0 / BODY_PPM + BODY_X_MM[0] - 5) < 1.0 and abs(u1 / BODY_PPM + BODY_X_MM[0] - 15) < 1.0
    assert abs(v0 / BODY_PPM + BODY_Y_MM[0] - 40) < 1.0 and abs(v1 / BODY_PPM + BODY_Y_MM[0] - 50) < 1.0


def test_a_strip_at_the_zones_edge_is_cut_without_error():
    zone = np.full((300, 200, 3), 200, np.uint8)
    for corner in [(-30.0, -30.0), (190.0, 290.0), (0.0, 0.0)]:
        assert body_crop(zone, corner, 3.0).shape == (BODY_H, BODY_W, 3)


def test_sure_cards_are_not_looked_at_again(monkeypatch):
    """Cards whose index named one face at LOOK_BELOW or more, or no face the strip shows, cost nothing."""
    def refuse(_x):
        raise AssertionError("the body network ran")

    monkeypatch.setattr(nets, "body", refuse)
    faces = np.full((4, len(ALL_CARDS)), 1e-7)
    faces[0, CARD_INDEX["3c"]], faces[0, CARD_INDEX["3s"]] = 0.6, 0.4  # under the next card: the 3's pips are not in its strip
    faces[1, CARD_INDEX["Qs"]], faces[1, CARD_INDEX["Qh"]] = 0.5, 0.5  # courts: the strip tells nothing
    faces[2, CARD_INDEX["Ac"]], faces[2, CARD_INDEX["As"]] = 0.5, 0.5  # nor of an ace
    faces[3, CARD_INDEX["7h"]] = 1.0  # the last card, sure
    zone = np.zeros((100, 100, 3), np.uint8)
    out = weigh_suits(faces, zone, [(0.0, 0.0)] * 4, 3.0)
    np.testing.assert_array_equal(out, faces)
    assert faces[3].max() / faces[3].sum() >= LOOK_BELOW
    lone = np.full((1, len(ALL_CARDS)), 1e-7)
    lone[0, CARD_INDEX["SJ"]], lone[0, CARD_INDEX["BJ"]] = 0.5, 0.5  # a lone joker
    np.testing.assert_array_equal(weigh_suits(lone, zone, [(0.0, 0.0)], 3.0), lone)


def test_only_the_suits_of_faces_the_strip_shows_are_weighed(monkeypatch):
    """A card under another: its strip below the index weighs the faces 4–10 by 4 P(suit). The last card,
    lying whole: its strip through the middle (MIDDLE_MM right), the faces 2–10. Two faces of one suit keep
    their ratio, every other face (aces, courts, jokers, "no card") its value."""
    p = {"s": 0.05, "h": 0.8, "d": 0.05, "c": 0.05}
    seen: list[list[tuple[float, float]]] = []

    def fake(zone, corners, ppm):
        seen.append(list(corners))
        return np.array([[*(p[s] for s in SUITS), 0.05]] * len(corners))

    monkeypatch.setattr(body, "suit_probs", fake)
    faces = np.full((2, len(ALL_CARDS) + 1), 0.01)
    for row in (0, 1):
        faces[row, CARD_INDEX["7h"]], faces[row, CARD_INDEX["7d"]], faces[row, CARD_INDEX["8h"]] = 0.4, 0.4, 0.1
    out = weigh_suits(faces, np.zeros((50, 50, 3), np.uint8), [(10.0, 5.0), (40.0, 6.0)], 3.0)
    assert seen == [[(10.0, 5.0), (40.0 + MIDDLE_MM * 3.0, 6.0)]]
    for row, ranks in ((0, "456789T"), (1, "23456789T")):
        ratio = out[row] / faces[row]
        for card in ALL_CARDS:
            expected = 4 * p[card[1]] / 0.95 if card[0] in ranks and card not in ("SJ", "BJ") else 1.0
            assert ratio[CARD_INDEX[card]] == pytest.approx(expected), (row, card)
        assert ratio[-1] == 1.0  # "no card corner" is not a face
        assert out[row, CARD_INDEX["7h"]] / out[row, CARD_INDEX["8h"]] == pytest.approx(4.0)


@pytest.mark.parametrize("design", ["tango", "tigullio"])
def test_the_strip_tells_the_suit_of_number_cards_on_designs_it_never_saw(design):
    """Fanned rows of 4–10 on two held-out designs at 2–4 px/mm: the strip's suit is mostly right
    (a suit by chance: 25 %), and when it is sure it is right."""
    rng = np.random.default_rng(7 + SHIFT)
    numbers = [c for c in ALL_CARDS if c[0] in "456789T"]
    right, sure, sure_right, n = 0, 0, 0, 0
    for i in range(12):
        cards = list(rng.choice(numbers, 5))
        r = render_zone(cards, design, px_per_mm=(2.0, 3.0, 4.0)[i % 3], seed=int(rng.integers(1 << 30)))
        corners = _corners(r)
        p = suit_probs(r.image, corners, r.px_per_mm)
        assert p.shape == (5, len(BODY_CLASSES))
        np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-6)
        for card, row in zip([pl.card for pl in r.placements], p, strict=True):
            truth = SUITS.index(card[1])
            n += 1
            right += int(row.argmax() == truth)
            if row.max() >= 0.9:
                sure += 1
                sure_right += int(row.argmax() == truth)
    assert right / n >= 0.6, (right, n)
    assert sure_right >= 0.9 * sure, (sure_right, sure)


def test_the_strip_is_weighed_with_no_enrolment_under_the_head(monkeypatch):
    """The shipped head and a head learned in play from it weigh the strip; a head fitted on the deck's
    faces (an enrolment, and what a table learned on top of it) reads that deck's own corners and does not
    (where a deck prints no suit in its corner the strip network is sure and wrong as often as right)."""
    from dataclasses import replace

    from vision.cardnet import read
    from vision.cardnet.head import LEARNED_IN_PLAY, SHIPPED

    calls: list[int] = []

    def spy(faces_p, zone, corners, ppm):
        calls.append(len(corners))
        return faces_p

    monkeypatch.setattr(read, "weigh_suits", spy)
    r = render_zone(["4h", "5h", "6h"], "tango", px_per_mm=3.0, seed=3 + SHIFT)
    shipped = read.read_play(r.image, 3.0)
    assert calls and calls[-1] == len(shipped.cards)
    heads = {origin: replace(read.default_head(), origin=origin)
             for origin in (SHIPPED + LEARNED_IN_PLAY, "tango", "tango" + LEARNED_IN_PLAY)}
    for origin, head in heads.items():
        calls.clear()
        read.read_play(r.image, 3.0, enrollment=head)
        assert bool(calls) == (origin == SHIPPED + LEARNED_IN_PLAY), origin


def test_the_body_network_reads_alike_on_every_runtime():
    """The body network runs on ONNX Runtime, else on OpenCV's classic engine; both OpenCV engines must
    give the same suits, and the same feature map (its second output, what an enrolled deck's suit head
    reads), whatever order an engine keeps the outputs in."""
    from vision.cardnet.prep import crops_to_input

    r = render_zone(["7s", "9d", "Tc"], "tigullio", px_per_mm=3.0, seed=5)
    strips = np.stack([body_crop(r.image, c, 3.0) for c in _corners(r)])
    x = crops_to_input(strips)
    shipped = nets.body(x)
    suits, maps = nets.body.all_outputs(x)
    assert nets.body.ran_by == "onnxruntime" and shipped.shape == (3, len(BODY_CLASSES))
    assert np.array_equal(suits, shipped) and maps.shape[:2] == (3, 96) and (maps >= 0).all()  # after a ReLU
    for engine in (cv2.dnn.ENGINE_CLASSIC, cv2.dnn.ENGINE_AUTO):
        other = nets.Runner(nets.BODY_PATH, engine, runtime="opencv", outputs=nets.body.outputs)
        assert np.allclose(shipped, other(x), rtol=1e-4, atol=1e-4)
        assert all(np.allclose(a, b, rtol=1e-4, atol=1e-4) for a, b in zip((suits, maps), other.all_outputs(x), strict=True))


@pytest.mark.parametrize("design", ["tango", "tigullio"])
def test_a_lone_cards_middle_tells_the_suit_of_a_2_or_a_3(design):
    """A lone 2 or 3 lies whole; its pips are in its middle column, which the strip MIDDLE_MM right of
    its corner holds: mostly right on two designs the network never saw, and right when sure."""
    rng = np.random.default_rng(11 + SHIFT)
    right = sure = sure_right = 0
    for i in range(12):
        card = "23"[i % 2] + SUITS[int(rng.integers(4))]
        ppm = (2.0, 3.0, 4.0)[i % 3]
        r = render_zone([card], design, px_per_mm=ppm, seed=int(rng.integers(1 << 30)))
        x, y = _corners(r)[0]
        row = suit_probs(r.image, [(x + MIDDLE_MM * ppm, y)], ppm)[0]
        truth = SUITS.index(card[1])
        right += int(row[:4].argmax() == truth)
        if row.max() >= 0.9:
            sure += 1
            sure_right += int(row[:4].argmax() == truth)
    assert right >= 9, right
    assert sure_right >= sure - 1, (sure_right, sure)
