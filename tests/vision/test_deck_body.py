"""An enrolled deck's own suit head on the body strip, and whether the deck prints a far index.

The deck the idea is for: tango_nuevo (held out), whose corner prints the rank alone and whose suit
lies top right, under the next card of a fan; its body shows one large pip.  Bounds hold on any
render seed (``VISION_SEED_SHIFT``); the enrolment here is a short one (100 rows).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from vision_kit import SHIFT, half_size_faces

from vision import enroll, read_play
from vision.cardnet.deck_body import GROUPS, MAX_TEMPERATURE, DeckBody, card_group, fit_deck_body
from vision.cardnet.head import Head
from vision.cardnet.read import FAR_CORNER_UNSEEN, default_head
from vision.cards import ALL_CARDS, SUITS
from vision.synth import render_zone


@pytest.fixture(scope="module")
def nuevo():
    """tango_nuevo enrolled from its 54 faces (100 rows; no fan check)."""
    return enroll(half_size_faces("tango_nuevo"), px_per_mm=3.0, rows=100, check_plays=0, seed=SHIFT).head


def _plays(n: int, seed: int) -> list[tuple[list[str], float, int]]:
    """``n`` plays of 1–3 pip cards of one rank (the suits apart: what the corner cannot tell)."""
    rng = np.random.default_rng(seed)
    out = []
    for k in range(n):
        rank = "A23456789T"[int(rng.integers(10))]
        cards = [rank + SUITS[int(i)] for i in rng.choice(4, size=int(rng.integers(1, 4)), replace=False)]
        out.append((cards, (2.0, 3.0, 4.0)[k % 3], int(rng.integers(1 << 30))))
    return out


def test_a_suitless_corner_decks_pip_cards_are_read_by_their_body(nuevo):
    """The same enrolment with and without its body head, on the same renders: the body names the
    suits the corner cannot (the head alone can only guess between two suits of a colour), and a
    wrong reading is never certain."""
    assert nuevo.body is not None
    alone = replace(nuevo, body=None)
    right = {True: 0, False: 0}
    cards = 0
    for truth, ppm, seed in _plays(30, 500 + SHIFT):
        image = render_zone(truth, "tango_nuevo", px_per_mm=ppm, seed=seed).image
        for with_body, head in ((True, nuevo), (False, alone)):
            r = read_play(image, ppm, head)
            assert r.cards == truth or r.uncertain, (truth, r.cards, r.reasons)
            if len(r.cards) == len(truth):
                right[with_body] += sum(a == b for a, b in zip(r.cards, truth, strict=True))
        cards += len(truth)
    assert right[True] >= 0.8 * cards and right[True] >= right[False] + 0.1 * cards, (right, cards)


def test_a_deck_without_a_far_index_is_not_doubted_for_it(nuevo):
    """tango_nuevo prints no index at its far corner: the enrolment finds so, and a play of it is never
    asked for a far corner not seen; the same head not knowing it asks most of them for that (as every
    play of it was before).  A deck that prints one is found to: test_cardnet.py."""
    assert nuevo.far_index is False
    unknown = replace(nuevo, far_index=None)
    doubted = 0
    for truth, ppm, seed in _plays(6, 700 + SHIFT):
        image = render_zone(truth, "tango_nuevo", px_per_mm=ppm, seed=seed).image
        r = read_play(image, ppm, nuevo)
        assert FAR_CORNER_UNSEEN not in r.reasons
        assert r.cards == truth or r.uncertain
        doubted += FAR_CORNER_UNSEEN in read_play(image, ppm, unknown).reasons
    assert doubted >= 4


def test_the_head_file_keeps_the_body_head_and_the_far_index(nuevo):
    again = Head.from_bytes(nuevo.to_bytes())
    assert again.far_index is False and again.body is not None
    for k in ("mean", "scale", "w", "b", "temperatures", "prior"):
        assert np.array_equal(getattr(again.body, k), getattr(nuevo.body, k))
    assert again.body.width_mm == nuevo.body.width_mm and 60.0 < nuevo.body.width_mm < 70.0  # tango_nuevo: 65 mm
    # A head written before either was kept reads with neither (the reader looks for the far corner).
    old = Head.from_bytes(default_head().to_bytes())
    assert old.body is None and old.far_index is None


def test_a_damaged_body_head_is_refused_in_both_languages(nuevo):
    bad = nuevo.body.to_arrays()
    bad["body_temperatures"] = np.full(len(GROUPS), 0.5)  # surer than its own fit: never written
    with pytest.raises(ValueError, match="牌身花色模型数值无效.*invalid numbers"):
        DeckBody.from_arrays(bad)
    bad = nuevo.body.to_arrays()
    bad["body_width_mm"] = np.float64(400.0)  # a card 40 cm wide
    with pytest.raises(ValueError, match="牌宽无效.*card width is invalid"):
        DeckBody.from_arrays(bad)
    bad = nuevo.body.to_arrays()
    bad["body_w"] = bad["body_w"][:-1]
    with pytest.raises(ValueError, match="牌身花色模型尺寸不符.*shapes"):
        DeckBody.from_arrays(bad)


def test_a_group_the_strip_tells_nothing_of_claims_nothing():
    """Strips of one group (courts) whose features do not follow the suit, of another (pip cards) whose
    do: calibrated apart, the courts' word stays near even on fresh strips (no suit above half) while
    the pip cards' names the suit; a group with too few calibration strips weighs next to nothing."""
    rng = np.random.default_rng(3 + SHIFT)
    pip_group, court_group = card_group("7c", False), card_group("Kc", False)

    def strips(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        cls = rng.integers(0, 4, n)
        group = rng.choice([pip_group, court_group], n)
        x = rng.normal(size=(n, 12))
        pips = group == pip_group
        x[pips, cls[pips]] += 3.0  # the pips' strips show their suit; the courts' are noise
        return x, cls, group

    x, cls, _ = strips(2000)
    vx, vcls, vgroup = strips(800)
    body = fit_deck_body(x, cls, vx, vcls, vgroup, 63.0)
    # No calibration strips of the jokers under a card: those of every kind cut there (pips and courts).
    assert min(body.temperatures[[pip_group, court_group]]) <= body.temperatures[card_group("SJ", False)]
    assert body.temperatures[card_group("SJ", False)] <= max(body.temperatures[[pip_group, court_group]])
    assert body.temperatures[card_group("SJ", True)] == MAX_TEMPERATURE  # none of any kind cut where the last lies
    tx, tcls, tgroup = strips(400)
    like = body.likelihood(tx, [False] * len(tx))
    for group, rank in ((pip_group, "7"), (court_group, "K")):
        faces = [ALL_CARDS.index(rank + s) for s in SUITS]
        mine = tgroup == group
        share = like[mine][:, faces] / like[mine][:, faces].sum(axis=1, keepdims=True)
        if group == pip_group:
            assert (share.argmax(axis=1) == tcls[mine]).mean() > 0.85 and np.median(share.max(axis=1)) > 0.6
        else:
            assert np.median(share.max(axis=1)) < 0.5 and 0.15 < share[np.arange(mine.sum()), tcls[mine]].mean() < 0.35
    few = fit_deck_body(x, cls, vx[:16], vcls[:16], vgroup[:16], 63.0)  # under 20 strips a group: too few to calibrate on
    assert (few.temperatures == MAX_TEMPERATURE).all()
    # ... and weighs every face alike, jokers too, though they were fitted on rarely (the prior stays out
    # of the tempering: tempered with it, a rare class's likelihood rose fivefold and a jack read as a joker).
    for last in (False, True):
        assert np.allclose(few.likelihood(tx[:50], [last] * 50), 1.0, atol=0.05)



def test_a_deck_enrolled_without_some_faces_has_no_word_on_them():
    """An enrolment of some faces only (the cards a table found): the deck's suit head speaks for those;
    of any other face its likelihood is 1 (its strips were never seen), and that travels in the file."""
    rng = np.random.default_rng(5 + SHIFT)
    x = rng.normal(size=(400, 8))
    cls = rng.integers(0, 4, 400)
    x[np.arange(400), cls] += 3.0
    known = np.zeros(len(ALL_CARDS), bool)
    known[[ALL_CARDS.index(c) for c in ("7c", "7s", "7h", "7d")]] = True
    body = fit_deck_body(x, cls, x[:100], cls[:100], np.full(100, card_group("7c", False)), 63.0, known=known)
    like = body.likelihood(x[:5], [False] * 5)
    assert np.array_equal(like[:, ~known], np.ones((5, int((~known).sum()))))
    assert (like[:, known].max(axis=1) > 2).all()
    again = DeckBody.from_arrays(body.to_arrays())
    assert again is not None and np.array_equal(again.known, known)
    whole = fit_deck_body(x, cls, x[:100], cls[:100], np.full(100, card_group("7c", False)), 57.0,
                          known=np.ones(54, bool))
    assert whole.known is None and "body_known" not in whole.to_arrays()
