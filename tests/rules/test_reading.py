"""``reading_for``: the reading the referee assumes for a physical row of cards."""

from __future__ import annotations

import pytest

from table_service.rules.cards import parse_cards
from table_service.rules.patterns import classify
from table_service.rules.reading import reading_for


def test_wild_position_decides_the_straight():
    right = reading_for("5s 6d 7c 8s 2h", "2")  # wild at the right end stands for 9
    assert right.play.kind == "straight" and right.play.rank == "9"
    assert not right.ambiguous
    left = reading_for("2h 5s 6d 7c 8s", "2")  # wild at the left end stands for 4
    assert left.play.rank == "8" and not left.ambiguous


def test_must_beat_previous():
    prev = classify("9s Td Jc Qs Kd", "2")[0]
    r = reading_for("2h 5s 6d 7c 8s", "2", previous=prev)
    assert r.play is None and "does not beat" in r.reason
    r = reading_for("9s 9d", "2", previous=classify("3s", "2")[0])
    assert r.play is None


def test_the_row_decides_even_when_its_reading_does_not_beat():
    """2h 5c 6s 7d 8d at level 2: the wild lies where a 4 sits, so the row reads 4–8 (as when
    leading), which does not beat 4–8; 5–9 beats but the row rules it out."""
    prev = classify("4s 5d 6c 7h 8s", "2")[0]
    r = reading_for("2h 5c 6s 7d 8d", "2", previous=prev)
    assert r.play is None and not r.ambiguous and "does not beat" in r.reason
    assert {(p.kind, p.rank) for p in r.candidates} == {("straight", "9")}  # what beats, ruled out
    old = reading_for("2h 5c 6s 7d 8d", "2", previous=prev, row_decides=False)  # before generation 3
    assert (old.play.kind, old.play.rank) == ("straight", "9")


def test_a_row_that_fits_no_reading_leaves_every_reading_that_beats():
    prev = classify("4s 5d 6c 7h 8s", "2")[0]
    r = reading_for("5c 2h 8d 6s 7d", "2", previous=prev)  # laid in no order: says nothing of the wild
    assert (r.play.kind, r.play.rank) == ("straight", "9")


def test_strongest_when_still_ambiguous():
    r = reading_for("5s 5d 2h 9s 9d", "2")  # wild between: triple of 5 or of 9
    assert r.ambiguous and r.play.kind == "full_house" and r.play.rank == "9"
    assert {p.rank for p in r.candidates} == {"5", "9"}


def test_bomb_over_full_house_reading():
    r = reading_for("7h 7h 7s 7d 7c", "7")
    assert r.play.kind == "bomb"


def test_straight_flush_or_straight_is_reported():
    r = reading_for("5s 6s 7s 8s 9s", "2")
    assert r.play.kind == "straight_flush" and r.ambiguous


def test_not_a_pattern():
    r = reading_for(parse_cards("5s 7d"), "2")
    assert r.play is None and r.candidates == ()


def test_two_wild_cards_may_stand_for_different_faces_in_the_row():
    """7 W W 9 9 at level 5: the first wild beside the 7 may be a 7 and the second beside the 9s a 9
    (77+999), or both 7s (777+99). The row allows both, so the play is ambiguous, the stronger
    assumed; it was read as 777+99, sure, because the two wilds were matched to faces in one order."""
    r = reading_for("7s 5h 5h 9s 9d", "5")
    assert {(p.kind, p.rank) for p in r.candidates} == {("full_house", "7"), ("full_house", "9")}
    assert r.ambiguous and (r.play.kind, r.play.rank) == ("full_house", "9")


@pytest.mark.parametrize("row", ["As Ad 5h 5h 2s 2d", "2s 2d 5h 5h As Ad"])
def test_a_descending_row_with_two_wilds_is_read_like_the_ascending_one(row):
    """AAA-222 laid high to low or low to high: the wilds beside the As and the 2s are an A and a 2."""
    r = reading_for(row, "5")
    assert (r.play.kind, r.play.rank) == ("two_triples", "2") and not r.ambiguous


def test_every_way_of_giving_two_wilds_their_faces_matches_a_brute_force():
    """``consistent_with_order`` against every assignment of faces to the row's wild cards, for the
    rows each reading of random 5–6-card plays with one or two wilds would be laid in."""
    import random
    from itertools import permutations

    from table_service.rules.cards import RANKS, card
    from table_service.rules.errors import ImpossibleCardsError
    from table_service.rules.patterns import classify
    from table_service.rules.reading import _order_value, consistent_with_order

    def brute(play, row):
        """Every bijection of the row's places onto the play's (card, face) pairs of the same card."""
        pairs = list(zip(play.cards, play.faces, strict=True))
        for perm in permutations(pairs):
            if all(pc == c for (pc, _), c in zip(perm, row, strict=True)):
                seq = [_order_value(play, face) for _, face in perm]
                if all(a <= b for a, b in zip(seq, seq[1:], strict=False)) or all(a >= b for a, b in zip(seq, seq[1:], strict=False)):
                    return True
        return False

    rng = random.Random(7)
    checked = 0
    for _ in range(600):
        level = rng.choice(RANKS)
        base = rng.sample(RANKS, 3)
        n, w = rng.choice([5, 6]), rng.choice([1, 2])
        cards = [card(rng.choice(base), rng.choice("sdc")) for _ in range(n - w)] + [card(level, "h")] * w
        try:
            reads = classify(cards, level)
        except ImpossibleCardsError:  # a face drawn three times: not from two decks
            continue
        for p in reads:
            row = [c for _, c in sorted(zip(p.faces, p.cards, strict=True), key=lambda fc: _order_value(p, fc[0]))]
            for q in reads:
                assert consistent_with_order(q, row) == brute(q, row), (level, row, q)
                checked += 1
    assert checked > 100


def test_a_level_written_10_reads_as_level_t():
    """``classify`` takes a level written as cards are (``10`` for ``T``), so ``reading_for`` must too,
    and compare with it as a level: at level 10, As Ad 10h 10s 10d is AAA+TT or TTT+AA, and TTT (level
    cards) is the stronger; and a single 10 (a level card) beats an A. Written ``10`` the level once
    reached ``beats`` as no rank at all, so A outranked the level card."""
    for cards, previous in (("As Ad Th Ts Td", None), ("Ts", classify("As", "T")[0])):
        assert reading_for(cards, "10", previous).play == reading_for(cards, "T", previous).play
    assert reading_for("As Ad Th Ts Td", "10").play.rank == "T"
    assert reading_for("Ts", "10", classify("As", "T")[0]).play is not None
