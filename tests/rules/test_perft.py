"""Perft-style counts over fixed hands (tests/rules/data/perft.txt): on a mismatch the per-kind
breakdown shows which pattern generator is wrong."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from table_service.rules.cards import parse_cards
from table_service.rules.legal import legal_plays
from table_service.rules.patterns import KINDS

DATA = Path(__file__).parent / "data" / "perft.txt"
CASES = [line.split(" | ") for line in DATA.read_text().splitlines() if line and not line.startswith("#")]


@pytest.mark.parametrize(("level", "hand", "count", "kinds"), CASES, ids=[f"perft{i}" for i in range(len(CASES))])
def test_perft(level, hand, count, kinds):
    plays = legal_plays(parse_cards(hand), level)
    got = Counter(p.kind for p in plays)
    expected = dict(kv.split("=") for kv in kinds.split())
    breakdown = {k: (got.get(k, 0), int(expected.get(k, 0))) for k in KINDS if got.get(k, 0) != int(expected.get(k, 0))}
    assert len(plays) == int(count), f"per kind (got, expected): {breakdown}"
    assert not breakdown
