"""``legal_plays`` against its literal definition, and the algebra of ``beats``."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_service.rules.cards import RANKS, SUITS, Card, card, parse_cards
from table_service.rules.legal import legal_plays
from table_service.rules.patterns import beats, classify

from .conftest import brute_force_legal


@st.composite
def dense_hands(draw, max_cards: int = 12):
    """Small hands drawn from few ranks so that runs, bombs and wild cards are common; no card
    more than twice (two decks)."""
    level = draw(st.sampled_from(RANKS))
    ranks = draw(st.lists(st.sampled_from(RANKS), min_size=2, max_size=5, unique=True))
    if draw(st.booleans()):
        ranks = sorted(set(ranks) | {level}, key=RANKS.index)
    pool = [card(r, s) for r in ranks for s in SUITS] * 2 + [card("SJ"), card("SJ"), card("BJ"), card("BJ")]
    if level not in ranks and draw(st.booleans()):
        pool += [card(level, "h")] * 2
    n = draw(st.integers(1, max_cards))
    idx = draw(st.lists(st.integers(0, len(pool) - 1), min_size=n, max_size=n, unique=True))
    return [pool[i] for i in idx], level


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dense_hands())
def test_legal_plays_equals_brute_force_when_leading(hand_level):
    hand, level = hand_level
    got = legal_plays(hand, level)
    assert len(got) == len(set(got)), "duplicates"
    assert set(got) == brute_force_legal(hand, level)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dense_hands(), dense_hands(max_cards=8), st.randoms(use_true_random=False))
def test_legal_plays_equals_brute_force_when_following(hand_level, other, rnd):
    hand, level = hand_level
    candidates = legal_plays(other[0], level)
    previous = rnd.choice(candidates)
    got = legal_plays(hand, level, previous)
    assert set(got) == brute_force_legal(hand, level, previous)
    assert all(beats(p, previous, level) for p in got)


def _random_plays(seed: int, n: int) -> tuple[list, str]:
    rng = random.Random(seed)
    level = rng.choice(RANKS)
    deck = [card(r, s) for r in RANKS for s in SUITS] * 2 + [card("SJ"), card("BJ")] * 2
    plays = []
    while len(plays) < n:
        hand = rng.sample(deck, 14)
        ps = legal_plays(hand, level)
        plays.extend(rng.sample(ps, min(8, len(ps))))
    return plays, level


@pytest.mark.parametrize("seed", range(4))
def test_beats_is_a_strict_order(seed):
    plays, level = _random_plays(seed, 60)
    for a in plays:
        assert not beats(a, a, level)
        for b in plays:
            if beats(a, b, level):
                assert not beats(b, a, level), (a, b)
                for c in plays:
                    if beats(b, c, level):
                        assert beats(a, c, level), (a, b, c)


def test_legal_plays_on_a_real_hand_contains_expected():
    hand = parse_cards("2h 3s 4s 5s 6s 6d 6c 6s SJ BJ BJ")
    plays = set(legal_plays(hand, "2"))
    assert any(p.kind == "straight_flush" and p.rank == "6" for p in plays)
    assert any(p.kind == "bomb" and p.rank == "6" and len(p.cards) == 5 for p in plays)
    assert not any(p.kind == "joker_bomb" for p in plays)
    assert all(isinstance(c, Card) for p in plays for c in p.cards)


def test_every_legal_play_classifies_to_itself():
    rng = random.Random(11)
    deck = [card(r, s) for r in RANKS for s in SUITS] * 2 + [card("SJ"), card("BJ")] * 2
    for _ in range(5):
        hand = rng.sample(deck, 27)
        level = rng.choice(RANKS)
        for p in legal_plays(hand, level):
            assert p in classify(list(p.cards), level)


def test_a_wild_card_built_with_the_card_class_is_still_wild():
    """Cards are interned, but ``Card("6", "h")`` is a public way to build one: a hand of such cards
    must read the heart level card as wild, as a parsed hand does (``legal_plays`` once told the wild
    card by identity, and found neither pair 3 nor the straight flush here)."""
    built = [Card(t[0], t[1]) for t in ("3h", "4h", "5h", "7h", "6h")]
    parsed = parse_cards("3h 4h 5h 7h 6h")
    assert set(legal_plays(built, "6")) == set(legal_plays(parsed, "6"))
    readings = {(p.kind, p.rank) for p in legal_plays(built, "6")}
    assert ("pair", "3") in readings and ("straight_flush", "7") in readings
