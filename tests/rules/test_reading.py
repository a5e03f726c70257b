"""``reading_for``: the reading the referee assumes for a physical row of cards."""

from __future__ import annotations

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
