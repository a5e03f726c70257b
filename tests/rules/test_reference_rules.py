"""The engine's ``classify`` and ``beats`` against a reference written from the rules text alone
(``reference_rules``, no shared code), with hand-worked cases at several levels first: a wrong
rule in the engine (say, runs compared by the level card's power) fails here even if every
other test, recorded from the engine itself, agrees with it."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_service.rules.cards import parse_cards
from table_service.rules.patterns import beats, classify

from . import reference_rules as ref


def R(cards: str, level: str) -> set[tuple[str, str]]:
    return ref.readings(cards.split(), level)


def B(a: str, ka: str, b: str, kb: str, level: str) -> bool:
    """Does ``a`` read as kind ``ka`` beat ``b`` read as ``kb`` (reference, the highest rank of
    that kind)?"""
    ra = max((r for k, r in R(a, level) if k == ka), key=lambda r: ref.natural(r) if r not in ("SJ", "BJ") else 99)
    rb = max((r for k, r in R(b, level) if k == kb), key=lambda r: ref.natural(r) if r not in ("SJ", "BJ") else 99)
    return ref.beats((ka, ra, len(a.split())), (kb, rb, len(b.split())), level)


# ------------------------------------------------------------------ hand-worked, from the text


HAND_WORKED_READINGS = [
    # "level 7: 5-6-7-8-9 is a straight": a level card counts at its natural rank in runs
    ("5s 6d 7c 8h 9s", "7", {("straight", "9")}),
    ("5s 6s 7s 8s 9s", "7", {("straight", "9"), ("straight_flush", "9")}),
    # "A-2-3-4-5 is the lowest, 10-J-Q-K-A the highest; no wrap"
    ("As 2d 3c 4h 5s", "9", {("straight", "5")}),
    ("Ts Jd Qc Kh As", "9", {("straight", "A")}),
    ("Js Qd Kc Ah 2s", "9", set()),
    # "AA-22-33 … QQ-KK-AA", "AAA-222 and KKK-AAA allowed"
    ("As Ad 2s 2d 3s 3d", "5", {("three_pairs", "3")}),
    ("Qs Qd Ks Kd As Ad", "5", {("three_pairs", "A")}),
    ("As Ad Ac 2s 2d 2c", "5", {("two_triples", "2")}),
    ("Ks Kd Kc As Ad Ac", "5", {("two_triples", "A")}),
    ("3s 3d 4s 4d 5s 5d 6s 6d", "9", set()),  # exactly three pairs, not four
    # pairs of jokers; small + big is no pair; no triple of jokers
    ("SJ SJ", "2", {("pair", "SJ")}),
    ("SJ BJ", "2", set()),
    ("SJ SJ BJ BJ", "2", {("joker_bomb", "BJ")}),
    # full house: "a joker pair may be the pair", compared by the triple only
    ("8s 8d 8c BJ BJ", "2", {("full_house", "8")}),
    # the wild card: "may stand for any suit card … to make a legal pattern; not for a joker"
    ("3h 5s 5d", "3", {("triple", "5")}),
    ("3h SJ", "3", set()),  # not a joker pair
    ("3h 3h", "3", {("pair", "3")}),  # both on their own: a plain pair of level cards
    ("3h", "3", {("single", "3")}),
    ("2h 3s 4s 5s 6s", "2", {("straight", "6"), ("straight", "7"), ("straight_flush", "6"), ("straight_flush", "7")}),
    # bombs: 4 … 8 natural, up to 10 with both wild cards
    ("9s 9d 9c 9h 9s 9d 9c 9h 2h 2h", "2", {("bomb", "9")}),
    # level A: the A is the level card, yet "in straights … a level card counts at its natural rank",
    # and "A may be low or high": A-2-3-4-5 and 10-J-Q-K-A stay straights; the heart A is the wild card
    ("As 2d 3c 4h 5s", "A", {("straight", "5")}),
    ("Ts Jd Qc Kh As", "A", {("straight", "A")}),
    ("Ah 2d 3c 4s 5s", "A", {("straight", "5"), ("straight", "6")}),  # the heart A stands for the low A or the 6
    ("Ah Ah", "A", {("pair", "A")}),  # both on their own: a plain pair of level cards
    ("As Ad Ac 2s 2d 2c", "A", {("two_triples", "2")}),
    ("Ah Ks Kd Kc Ks", "A", {("bomb", "K")}),  # never a K-K-K-K-A straight: the wild joins the Ks
]


@pytest.mark.parametrize(("cards", "level", "expected"), HAND_WORKED_READINGS)
def test_hand_worked_readings(cards: str, level: str, expected: set[tuple[str, str]]) -> None:
    assert R(cards, level) == expected, "reference"
    assert {(p.kind, p.rank) for p in classify(parse_cards(cards), level)} == expected, "engine"


HAND_WORKED_BEATS = [
    # at level 9, straights count the 9 at its natural rank: 5-9 does NOT beat 10-A
    ("5s 6d 7c 8h 9s", "straight", "Ts Jd Qc Kh As", "straight", "9", False),
    ("Ts Jd Qc Kh As", "straight", "5s 6d 7c 8h 9s", "straight", "9", True),
    ("2s 3d 4c 5h 6s", "straight", "As 2d 3c 4h 5s", "straight", "9", True),  # A-2-3-4-5 lowest
    # three-pair runs and two-triple runs: natural order too
    ("8s 8d 9s 9d Ts Td", "three_pairs", "9c 9h Tc Th Jc Jh", "three_pairs", "T", False),
    ("Ks Kd Kc As Ad Ac", "two_triples", "Qs Qd Qc Ks Kd Kc", "two_triples", "Q", True),
    # singles, pairs, triples, full houses, bombs by power: level card above A
    ("9s", "single", "As", "single", "9", True),
    ("As", "single", "9s", "single", "9", False),
    ("9d", "single", "9s", "single", "9", False),  # equal power: does not beat
    ("SJ", "single", "9s", "single", "9", True),
    ("BJ", "single", "SJ", "single", "9", True),
    ("Ks Kd Kc 2s 2d", "full_house", "As Ad Ac 3s 3d", "full_house", "K", True),
    ("Ks Kd Kc 2s 2d", "full_house", "As Ad Ac 3s 3d", "full_house", "9", False),
    ("9s 9d 9c 9h", "bomb", "As Ad Ac Ah", "bomb", "9", True),
    # the bomb family: size first, straight flush between 5- and 6-card bombs
    ("3s 3d 3c 3h 3s", "bomb", "As Ad Ac Ah", "bomb", "9", True),
    ("4s 5s 6s 7s 8s", "straight_flush", "As Ad Ac Ah As", "bomb", "9", True),
    ("3s 3d 3c 3h 3s 3d", "bomb", "Ts Js Qs Ks As", "straight_flush", "9", True),
    ("Ts Js Qs Ks As", "straight_flush", "3s 3d 3c 3h 3s 3d", "bomb", "9", False),
    ("As 2s 3s 4s 5s", "straight_flush", "2d 3d 4d 5d 6d", "straight_flush", "9", False),
    ("SJ SJ BJ BJ", "joker_bomb", "9s 9d 9c 9h 9s 9d 9c 9h", "bomb", "9", True),
    # any bomb beats any ordinary pattern; ordinary only the same kind and size
    ("3s 3d 3c 3h", "bomb", "Ts Jd Qc Kh As", "straight", "9", True),
    ("Ks Kd", "pair", "Qs", "single", "9", False),
    # level A: A-2-3-4-5 is still the lowest straight and 10-J-Q-K-A the highest; the A bomb is the
    # level-rank bomb, and at level K the K bomb is above the A bomb of the same size
    ("2s 3d 4c 5h 6s", "straight", "As 2d 3c 4h 5s", "straight", "A", True),
    ("Ts Jd Qc Kh As", "straight", "9s Td Jc Qh Ks", "straight", "A", True),
    ("As Ad Ac As Ad", "bomb", "Ah Ks Kd Kc Ks", "bomb", "A", True),
    ("Ks Kd Kc Ks", "bomb", "As Ad Ac As", "bomb", "K", True),
    ("As Ad Ac As", "bomb", "Ks Kd Kc Ks", "bomb", "K", False),
    ("SJ", "single", "As", "single", "A", True),
]


@pytest.mark.parametrize(("a", "ka", "b", "kb", "level", "expected"), HAND_WORKED_BEATS)
def test_hand_worked_comparisons(a: str, ka: str, b: str, kb: str, level: str, expected: bool) -> None:
    assert B(a, ka, b, kb, level) is expected, "reference"
    pa = next(p for p in classify(parse_cards(a), level) if p.kind == ka)
    pb = next(p for p in classify(parse_cards(b), level) if p.kind == kb)
    assert beats(pa, pb, level) is expected, "engine"


# ------------------------------------------------------------------ random plays, both readers

LEVELS = list(ref.NATURAL)


@st.composite
def plays(draw: st.DrawFn, max_cards: int = 10) -> tuple[list[str], str]:
    """Plays of 1 … 10 cards from a few neighbouring ranks (so runs and bombs are common), the
    level's heart card often among them, each face at most twice."""
    level = draw(st.sampled_from(LEVELS))
    start = draw(st.integers(0, len(ref.NATURAL) - 1))
    width = draw(st.integers(1, 4))
    ranks = {ref.NATURAL[(start + k) % 13] for k in range(width)}
    pool = [r + s for r in sorted(ranks) for s in ref.SUIT_CHARS] * 2
    pool += ["SJ", "SJ", "BJ", "BJ"] if draw(st.booleans()) else []
    pool += [level + "h"] * 2 if level not in ranks else []
    n = draw(st.integers(1, min(max_cards, len(pool))))
    idx = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n, unique=True))
    cards = [pool[i] for i in idx]
    wilds = [c for c in cards if c == level + "h"]
    if len(wilds) == 2 and len(cards) > 7:  # keep the reference's 53² brute force to small plays
        cards.remove(level + "h")
    return cards, level


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plays())
def test_classify_agrees_with_the_reference(play: tuple[list[str], str]) -> None:
    cards, level = play
    engine = {(p.kind, p.rank) for p in classify(parse_cards(cards), level)}
    assert engine == ref.readings(cards, level)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(plays(max_cards=8), plays(max_cards=8), st.data())
def test_beats_agrees_with_the_reference(a: tuple[list[str], str], b: tuple[list[str], str], data: st.DataObject) -> None:
    level = a[1]
    ra = classify(parse_cards(a[0]), level)
    rb = classify(parse_cards(b[0]), level)
    if not ra or not rb:
        return
    pa = data.draw(st.sampled_from(ra))
    pb = data.draw(st.sampled_from(rb))
    expected = ref.beats((pa.kind, pa.rank, pa.size), (pb.kind, pb.rank, pb.size), level)
    assert beats(pa, pb, level) is expected


RUNS = {"straight": (5, 1), "three_pairs": (3, 2), "two_triples": (2, 3)}


@st.composite
def runs(draw: st.DrawFn, kind: str) -> list[str]:
    """A run of ``kind`` built from the text's definition: consecutive ranks, A low or high."""
    width, copies = RUNS[kind]
    top = draw(st.integers(width, 14))  # 1 is the low ace
    cards = []
    for v in range(top - width + 1, top + 1):
        r = "A" if v in (1, 14) else ref.NATURAL[v - 2]
        suits = draw(st.lists(st.sampled_from(ref.SUIT_CHARS), min_size=copies, max_size=copies, unique=True))
        cards += [r + s for s in suits]
    return cards


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(RUNS)), st.data())
def test_runs_compare_by_natural_rank_whatever_the_level(kind: str, data: st.DataObject) -> None:
    a = data.draw(runs(kind))
    b = data.draw(runs(kind))
    # the level is often a rank inside the runs: that is where power and natural order part
    level = data.draw(st.sampled_from(sorted({ref.rank_of(c) for c in a + b}) + list(ref.NATURAL)))
    pa = [p for p in classify(parse_cards(a), level) if p.kind == kind]
    pb = [p for p in classify(parse_cards(b), level) if p.kind == kind]
    assert pa and pb
    for x in pa:
        for y in pb:
            assert beats(x, y, level) is ref.beats((x.kind, x.rank, x.size), (y.kind, y.rank, y.size), level)
