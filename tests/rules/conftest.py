"""Helpers for the rules tests: a brute-force oracle that defines legal plays literally."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import pytest

from table_service.rules.cards import Card, parse_cards
from table_service.rules.patterns import Play, beats, classify


def submultisets(cards: list[Card]) -> Iterator[tuple[Card, ...]]:
    """Every non-empty distinct sub-multiset of ``cards``."""
    items = list(Counter(cards).items())

    def rec(i: int) -> Iterator[tuple[Card, ...]]:
        if i == len(items):
            yield ()
            return
        c, n = items[i]
        for k in range(n + 1):
            for rest in rec(i + 1):
                yield (c,) * k + rest

    for s in rec(0):
        if s:
            yield s


def brute_force_legal(hand: list[Card], level: str, previous: Play | None = None) -> set[Play]:
    """The definition of ``legal_plays``: every reading of every sub-multiset (that beats)."""
    out: set[Play] = set()
    for s in submultisets(hand):
        if len(s) > 10:
            continue
        for p in classify(list(s), level):
            if previous is None or beats(p, previous, level):
                out.add(p)
    return out


def kinds_ranks(cards: str, level: str) -> set[tuple[str, str]]:
    """The (kind, rank) of every reading of ``cards``."""
    return {(p.kind, p.rank) for p in classify(parse_cards(cards), level)}


@pytest.fixture
def kr():
    return kinds_ranks
