"""A second reading of the rules, written from the rules text alone (docs/rules.md, articles
"Cards and patterns", "The wild card", "What beats what"), sharing no code with
``table_service.rules``: its own card notation, rank tables and pattern tests.

It is slow and literal on purpose. The wild card is handled by brute force exactly as the text
puts it: "together with other cards it may stand for any suit card of any rank … it may not
stand for a joker; played on their own heart level cards are plain level cards" — every way to
replace each heart level card by itself or by one of the 52 suit cards is tried, and each
resulting set of faces is read with the plain pattern table. The engine's classifier instead
reasons about windows and counts; if the two ever disagree, one of them misreads the rules.

Cards are plain strings: ``"7h"``, ``"Ts"``, ``"SJ"`` (small joker), ``"BJ"`` (big joker).
"""

from __future__ import annotations

from collections import Counter
from itertools import product

NATURAL = "23456789TJQKA"
SUIT_CHARS = "shdc"
#: Every suit card (the wild card may stand for any of these, never for a joker).
SUIT_CARDS = [r + s for r in NATURAL for s in SUIT_CHARS]


def rank_of(c: str) -> str:
    return c if c in ("SJ", "BJ") else c[0]


def suit_of(c: str) -> str:
    return "" if c in ("SJ", "BJ") else c[1]


def natural(r: str) -> int:
    """Natural value of a suit rank: 2 … 14 (A)."""
    return NATURAL.index(r) + 2


def power(r: str, level: str) -> int:
    """"big joker > small joker > level card > A > K > … > 3 > 2"."""
    if r == "BJ":
        return 100
    if r == "SJ":
        return 99
    if r == level:
        return 98
    return natural(r)


def _run_tops(ranks: list[str], width: int) -> list[int]:
    """Highest natural value of each way ``ranks`` (distinct suit ranks) are exactly ``width``
    consecutive ranks: A low (A-2-3…, top counted at the last rank) or A high; no wrap."""
    if len(ranks) != width or any(r in ("SJ", "BJ") for r in ranks):
        return []
    tops = []
    values = sorted(natural(r) for r in ranks)
    if values == list(range(values[0], values[0] + width)):
        tops.append(values[-1])
    if "A" in ranks:  # the ace low, as 1
        low = sorted(1 if r == "A" else natural(r) for r in ranks)
        if low == list(range(1, 1 + width)):
            tops.append(low[-1])
    return tops


def _top_rank(top: int) -> str:
    return NATURAL[top - 2]


def plain_readings(faces: list[str]) -> set[tuple[str, str]]:
    """Readings of faces with no wild card in them: (kind, rank), from the pattern table."""
    n = len(faces)
    by_rank = Counter(rank_of(c) for c in faces)
    out: set[tuple[str, str]] = set()
    jokers = by_rank["SJ"] + by_rank["BJ"]
    if n == 1:
        out.add(("single", rank_of(faces[0])))
    if len(by_rank) == 1:
        (r,) = by_rank
        if n == 2:  # "two small jokers or two big jokers are pairs"
            out.add(("pair", r))
        if r not in ("SJ", "BJ"):
            if n == 3:
                out.add(("triple", r))
            if 4 <= n <= 10:
                out.add(("bomb", r))
    if n == 4 and by_rank["SJ"] == 2 and by_rank["BJ"] == 2:
        out.add(("joker_bomb", "BJ"))
    if n == 5 and len(by_rank) == 2:
        for t, k in by_rank.items():
            other = next(r for r in by_rank if r != t)
            if k == 3 and t not in ("SJ", "BJ") and by_rank[other] == 2:
                out.add(("full_house", t))  # "a joker pair may be the pair"
    if n == 5 and jokers == 0 and len(by_rank) == 5:
        for top in _run_tops(list(by_rank), 5):
            out.add(("straight", _top_rank(top)))
            if len({suit_of(c) for c in faces}) == 1:
                out.add(("straight_flush", _top_rank(top)))
    if n == 6 and jokers == 0:
        if len(by_rank) == 3 and all(k == 2 for k in by_rank.values()):
            for top in _run_tops(list(by_rank), 3):
                out.add(("three_pairs", _top_rank(top)))
        if len(by_rank) == 2 and all(k == 3 for k in by_rank.values()):
            for top in _run_tops(list(by_rank), 2):
                out.add(("two_triples", _top_rank(top)))
    return out


def readings(cards: list[str], level: str) -> set[tuple[str, str]]:
    """Every (kind, rank) the cards can be read as at ``level``."""
    wild = level + "h"
    wilds = [i for i, c in enumerate(cards) if c == wild]
    if len(wilds) == len(cards):  # on their own: plain level cards
        return plain_readings(list(cards))
    out: set[tuple[str, str]] = set()
    for choice in product([wild, *SUIT_CARDS], repeat=len(wilds)):
        faces = list(cards)
        for i, c in zip(wilds, choice, strict=True):
            faces[i] = c
        out |= plain_readings(faces)
    return out


BOMBS = ("bomb", "straight_flush", "joker_bomb")


def _bomb_order(kind: str, size: int) -> float:
    """"from weakest: 4-card bombs, 5-card bombs, straight flushes, 6-, 7-, 8-, 9-, 10-card
    bombs, joker bomb"."""
    if kind == "joker_bomb":
        return 11
    if kind == "straight_flush":
        return 5.5
    return size


def beats(a: tuple[str, str, int], b: tuple[str, str, int], level: str) -> bool:
    """Does reading ``a`` = (kind, rank, number of cards) beat ``b``?"""
    ka, ra, na = a
    kb, rb, nb = b
    if ka in BOMBS and kb not in BOMBS:
        return True  # "any bomb beats any ordinary pattern"
    if ka in BOMBS:
        oa, ob = _bomb_order(ka, na), _bomb_order(kb, nb)
        if oa != ob:
            return oa > ob
        if ka == "joker_bomb":
            return False
        if ka == "straight_flush":  # "straight flushes compare by highest rank"
            return natural(ra) > natural(rb)
        return power(ra, level) > power(rb, level)  # "level-rank bomb above an A bomb"
    if kb in BOMBS or ka != kb or na != nb:
        return False  # "ordinary patterns beat only the same pattern (same kind, same size)"
    if ka in ("straight", "three_pairs", "two_triples"):
        return natural(ra) > natural(rb)  # "sequences use natural order"
    return power(ra, level) > power(rb, level)
