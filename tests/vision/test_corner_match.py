"""The corner expert: the enrolled faces' index corners compared with a rendered row."""

from __future__ import annotations

import os
from dataclasses import replace

import cv2
import numpy as np
import pytest

from vision.artwork import load_deck
from vision.cards import ALL_CARDS
from vision.corner_match import CornerTemplates, corner_templates
from vision.reader import (
    MISSING_REASONS,
    NO_INDEX_REASON,
    SUIT_PAIR,
    WORK_PPM,
    Candidate,
    Enrollment,
    _corner_disowns,
    _corner_there,
    _pip_settles_suit,
    _probe_gaps,
    _recover_hidden,
    _spacing_doubts,
    _visible_width,
    _with_every_corner,
    _with_pip_corner,
    analyse,
    face_anchor,
    get_model,
)
from vision.synth import Realism, render_zone

#: Render seeds are shifted by this (``VISION_SEED_SHIFT=50000 pytest ...``): what these tests assert
#: must hold on any seed; accuracy itself is measured by benchmarks/vision_bench.py and vision_lodo.py.
SHIFT = int(os.environ.get("VISION_SEED_SHIFT", "0"))


def _faces(design: str) -> tuple[dict[str, np.ndarray], dict[str, tuple[float, float, float]], dict[str, float]]:
    """The 54 faces at 3 px/mm with their rank glyphs (mm), as enrolment finds them."""
    deck = load_deck(design)
    faces, anchors, widths = {}, {}, {}
    for card in ALL_CARDS:
        face = cv2.resize(deck.bgr(card), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA)
        a = face_anchor(face)
        assert a is not None, card
        faces[card] = face
        anchors[card] = (a.x / WORK_PPM, a.y / WORK_PPM, a.h / WORK_PPM)
        widths[card] = a.w / WORK_PPM
    return faces, anchors, widths


@pytest.fixture(scope="module", params=["anglo", "tango"])
def deck_corners(request) -> tuple[str, CornerTemplates, dict[str, tuple[float, float, float]]]:
    faces, anchors, widths = _faces(request.param)
    return request.param, corner_templates(faces, anchors, WORK_PPM, widths), anchors


def _glyphs(zr, anchors) -> list[tuple[str, float, float]]:
    """Where each card's rank glyph starts in the zone image (work px = image px at 3 px/mm)."""
    out = []
    for p in zr.placements:
        ax, ay, _ = anchors[p.card]
        x, y = zr.to_image(p.to_scene(np.array([[ax, ay]])))[0]
        out.append((p.card, float(x), float(y)))
    return out


def test_the_true_face_correlates_best_with_its_corner(deck_corners):
    """Placed where the rank glyph is, over the card's unknown rotation, the card's own corner
    beats its suit pair and a rank of the same colour on (nearly) every card of rendered rows."""
    design, corners, anchors = deck_corners
    plays = [["7s", "8c", "9d", "Jh", "Qs", "Kc", "2d", "4s"], ["Ts", "Tc", "Th", "Td", "3s", "3c"],
             ["5h", "5d", "As", "Ac", "6c", "6s"]]
    n = right = strong = 0
    for seed, cards in enumerate(plays):
        zr = render_zone(cards, design, 3.0, seed=SHIFT + 40 + seed)
        grey = cv2.cvtColor(zr.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
        for card, x, y in _glyphs(zr, anchors):
            other = ("K" if card[0] != "K" else "Q") + card[1]
            sc = corners.scores(grey, x, y, [card, SUIT_PAIR[card], other])
            n += 1
            right += sc[card] > max(sc[SUIT_PAIR[card]], sc[other])
            strong += sc[card] >= 0.85
    assert n == 20
    assert right >= 19 and strong >= 19, (design, right, strong)


def test_a_missed_index_is_found_from_its_corner(deck_corners):
    """Where the glyph finder missed a card (here: its glyph left out of the row), the corner
    search finds it between its neighbours and reads it; where nothing is missing, it finds
    nothing in the gaps."""
    design, corners, anchors = deck_corners
    cards = ["4s", "9h", "Jc", "6d", "Ks"]
    zr = render_zone(cards, design, 3.0, seed=SHIFT + 7)
    an = analyse(zr.image)
    grey = cv2.cvtColor(zr.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    glyphs = _glyphs(zr, anchors)
    row = [Candidate(x, y, 0.8 * anchors[c][2] * 3.0, anchors[c][2] * 3.0, 0.0, 0) for c, x, y in glyphs]
    e = Enrollment(np.zeros((54, 1), np.float32), np.ones(54, bool), (64.0, 89.0),
                   float(np.median([a[2] for a in anchors.values()])), corners=corners)
    between = [MISSING_REASONS[1]]
    for hidden in (1, 2, 3):
        names = [c for c, _, _ in glyphs]
        found = _recover_hidden(corners, grey, an, row[:hidden] + row[hidden + 1:], names[:hidden] + names[hidden + 1:],
                                e, between, get_model())
        assert len(found) == 1, (design, hidden, found)
        c, p, _ = found[0]
        assert ALL_CARDS[int(np.argmax(p))] == cards[hidden], (design, hidden, ALL_CARDS[int(np.argmax(p))])
        assert abs(c.x - row[hidden].x) <= 2 * 3.0 and abs(c.y - row[hidden].y) <= 2 * 3.0
    assert _recover_hidden(corners, grey, an, row, [c for c, _, _ in glyphs], e, between, get_model()) == []


def test_a_blob_where_no_corner_is_raises_no_doubt(deck_corners):
    """A blob the classifier half takes for an index is checked against the faces' corners:
    at a rank glyph one is there; in the middle of the last card's face none is."""
    design, corners, anchors = deck_corners
    zr = render_zone(["3c", "Qd", "8h"], design, 3.0, seed=SHIFT + 3)
    grey = cv2.cvtColor(zr.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    p = np.zeros(len(ALL_CARDS))
    p[[ALL_CARDS.index(c) for c in ("3c", "Qd", "8h")]] = 1 / 3
    h = anchors["8h"][2] * 3.0
    for card, x, y in _glyphs(zr, anchors):
        assert _corner_there(corners, grey, Candidate(x, y, 0.8 * h, h, 0.0, 0), p), (design, card)
    last = zr.placements[-1]
    mid = zr.to_image(last.to_scene(np.array([[last.size_mm[0] * 0.45, last.size_mm[1] * 0.45]])))[0]
    assert not _corner_there(corners, grey, Candidate(float(mid[0]), float(mid[1]), 0.8 * h, h, 0.0, 0), p), design


def test_a_ten_whose_one_merged_with_the_border_is_anchored_at_its_one():
    """Tango's 10♣ at 2 px/mm: its "1" merges with the printed border and the face offers its "0"
    as the rank glyph, 7 mm right of the other tens'.  Enrolment anchors it with the other tens and
    keeps the "0" as its second digit (the corner expert compared its corner 7 mm off before)."""
    from vision import enroll
    from vision.reader import CARD_INDEX

    deck = load_deck("tango")
    cards = ("Ts", "Th", "Td", "Tc", "9c")  # a missing face: no per-deck fit, so this is quick
    faces = {c: cv2.resize(deck.bgr(c), None, fx=2 / 6, fy=2 / 6, interpolation=cv2.INTER_AREA) for c in cards}
    e = enroll(faces, px_per_mm=2.0)
    tens = [CARD_INDEX[c] for c in cards[:4]]
    assert np.ptp(e.anchor_x_mm[tens]) <= 1.0, e.anchor_x_mm[tens]
    assert np.all(e.digit_x_mm[tens] - e.anchor_x_mm[tens] >= 6.0), e.digit_x_mm[tens]
    k = CARD_INDEX["Tc"]
    assert e.corners is not None and abs(e.corners.offset[k, 0] - e.corners.offset[CARD_INDEX["Ts"], 0]) <= 3.0


def _row_and_enrolment(zr, anchors, corners) -> tuple[list[Candidate], list[str], Enrollment]:
    """Each card's rank glyph as a candidate, the cards' names, and an enrolment holding only the corners."""
    glyphs = _glyphs(zr, anchors)
    row = [Candidate(x, y, 0.8 * anchors[c][2] * 3.0, anchors[c][2] * 3.0, 0.0, 0) for c, x, y in glyphs]
    e = Enrollment(np.zeros((54, 1), np.float32), np.ones(54, bool), (64.0, 89.0),
                   float(np.median([a[2] for a in anchors.values()])), corners=corners)
    return row, [c for c, _, _ in glyphs], e


def test_a_gap_wide_enough_to_hide_a_card_is_searched(deck_corners):
    """A row fanned at 12-13 mm whose second and fourth indices were not read: its gaps (about 25,
    25 and 12 mm) pass the count checks, whose step is the median of the narrower half, but both
    wide ones are probed, and the search finds the two cards there.  A row read whole has no gap
    to probe."""
    design, corners, anchors = deck_corners
    cards = ["7h", "9h", "4h", "2h", "5d", "2s"]
    zr = render_zone(cards, design, 3.0, seed=SHIFT + 11, realism=replace(Realism(), overlap_mm=(12.0, 13.0)))
    an = analyse(zr.image)
    grey = cv2.cvtColor(zr.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    row, names, e = _row_and_enrolment(zr, anchors, corners)
    seen = [0, 2, 4, 5]
    got, got_names = [row[k] for k in seen], [names[k] for k in seen]
    assert MISSING_REASONS[1] not in _spacing_doubts(got, an, e, got_names)
    probe = _probe_gaps(got, an, e, got_names)
    assert [(a.x, b.x) for a, b in probe] == [(row[0].x, row[2].x), (row[2].x, row[4].x)], design
    found = _recover_hidden(corners, grey, an, got, got_names, e, [], get_model(), probe)
    assert sorted(ALL_CARDS[int(np.argmax(p))] for _, p, _ in found) == ["2h", "9h"], design
    assert _probe_gaps(row, an, e, names) == []
    assert _recover_hidden(corners, grey, an, got, got_names, e, [], get_model()) == []


def test_a_corner_that_disowns_the_card_read_is_compared_with_every_face(deck_corners):
    """Where the classifier gave a glyph the wrong rank (tango's 5 read as 10), its own corner
    disowns that card, and compared with every face the corner puts the true card first; the
    true card's own corner never disowns it."""
    design, corners, anchors = deck_corners
    cards = ["5s", "9h", "Kc", "6d", "3s"]
    zr = render_zone(cards, design, 3.0, seed=SHIFT + 5)
    grey = cv2.cvtColor(zr.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    row, names, _ = _row_and_enrolment(zr, anchors, corners)
    wrong_rank = {"5s": "Ts", "9h": "4h", "Kc": "5c", "6d": "Jd", "3s": "Qs"}
    for c, card in zip(row, names, strict=True):
        mistaken = wrong_rank[card]
        sc = corners.scores(grey, c.x, c.y, [card, mistaken, SUIT_PAIR[card]])
        assert not _corner_disowns(card, sc), (design, card, sc)
        assert _corner_disowns(mistaken, sc), (design, card, sc)
        p = np.full(len(ALL_CARDS), 1e-6)
        p[ALL_CARDS.index(mistaken)] = 1.0
        q, every = _with_every_corner(corners, grey, c, p, None)
        assert len(every) == len(ALL_CARDS)
        assert ALL_CARDS[int(np.argmax(q))] == card, (design, card, ALL_CARDS[int(np.argmax(q))])
        assert abs(q.sum() - p.sum()) < 1e-9
        # A glyph box cut to its top part (the rest under the next card) reads the same.
        q, _ = _with_every_corner(corners, grey, replace(c, h=0.55 * c.h), p, None)
        assert ALL_CARDS[int(np.argmax(q))] == card, (design, card, "top part", ALL_CARDS[int(np.argmax(q))])


def test_one_ranks_index_lies_at_one_place_on_every_suit():
    """Tango's tens print their "10" at one place; the glyph finder put 10♠'s 0.7 mm left at
    2 px/mm (it took some of the border) and its top 0.3 mm low at 3 px/mm.  Enrolment places every
    suit of a rank at the rank's median place when it is that close, so the corners are compared
    aligned (a hidden 10♣ compared 2 px off was read 10♠, certain)."""
    from vision import enroll
    from vision.reader import CARD_INDEX

    deck = load_deck("tango")
    cards = ("Ts", "Th", "Td", "Tc", "9c")  # a missing face: no per-deck fit, so this is quick
    tens = [CARD_INDEX[c] for c in cards[:4]]
    for ppm in (2.0, 3.0):
        faces = {c: cv2.resize(deck.bgr(c), None, fx=ppm / 6, fy=ppm / 6, interpolation=cv2.INTER_AREA) for c in cards}
        e = enroll(faces, px_per_mm=ppm)
        assert e.corners is not None
        assert np.ptp(e.anchor_x_mm[tens]) == 0.0, (ppm, e.anchor_x_mm[tens])
        assert np.ptp(e.corners.offset[tens], axis=0).max() == 0.0, (ppm, e.corners.offset[tens])


def test_the_pip_below_the_glyph_tells_the_suits_of_one_colour_apart(deck_corners):
    """Compared below the rank glyph only, each card's corner leads its suit pair's on every card
    of a row of tens and suit pairs, and clearly (PIP_SETTLE) on nearly all; a classifier that
    gave the pair 0.9 is then outweighed where the pip settles the suit."""
    design, corners, anchors = deck_corners
    cards = ["Ts", "Tc", "Th", "Td", "3s", "3c", "Js", "Jc"]
    zr = render_zone(cards, design, 3.0, seed=SHIFT + 21)
    grey = cv2.cvtColor(zr.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
    row, names, _ = _row_and_enrolment(zr, anchors, corners)
    settled = 0
    for k, (c, card) in enumerate(zip(row, names, strict=True)):
        pair = SUIT_PAIR[card]
        vis = _visible_width(corners, c.x, row[k + 1], ALL_CARDS.index(names[k + 1])) if k + 1 < len(row) else None
        sc = corners.scores(grey, c.x, c.y, [card, pair], vis, pip=True)
        assert sc[card] > sc[pair], (design, card, sc)
        settled += _pip_settles_suit(card, sc)
        assert not _pip_settles_suit(pair, sc)
        p = np.zeros(len(ALL_CARDS))
        p[ALL_CARDS.index(pair)], p[ALL_CARDS.index(card)] = 0.9, 0.1
        q, _ = _with_pip_corner(corners, grey, c, p, vis)
        assert abs(q.sum() - 1.0) < 1e-9
        if _pip_settles_suit(card, sc):
            assert ALL_CARDS[int(np.argmax(q))] == card, (design, card, sc)
    assert settled >= len(cards) - 1, (design, settled)


def test_a_row_without_an_index_read_is_searched_from_its_top_left(deck_corners):
    """A blob of paper where no index was read (glare, blur at 2 px/mm): the corner search looks
    near its top-left and finds the first card there; without that reason it does not look."""
    design, corners, anchors = deck_corners
    for seed, card in ((12, "Jh"), (13, "9s")):
        zr = render_zone([card], design, 3.0, seed=SHIFT + seed)
        an = analyse(zr.image)
        grey = cv2.cvtColor(zr.image, cv2.COLOR_BGR2GRAY).astype(np.float32)
        _, _, e = _row_and_enrolment(zr, anchors, corners)
        found = _recover_hidden(corners, grey, an, [], [], e, [NO_INDEX_REASON], get_model())
        assert [ALL_CARDS[int(np.argmax(p))] for _, p, _ in found] == [card], (design, card)
        assert _recover_hidden(corners, grey, an, [], [], e, [], get_model()) == []
