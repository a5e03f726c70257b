"""Which reading the referee should assume for a physical play.

A play with the wild card can often be read several ways. The rules settle it: the wild card
sits in the row where the rank it stands for would sit, so the left-to-right order the camera saw
narrows it ("the wild card placed in the row shows the rank it stands for"); of the readings the
row leaves, one that beats the trick is assumed — none: the play does not beat, whatever another
reading the row rules out would do; then the strongest is assumed, and the referee is told when a
choice was still left (the player may have to state the pattern). Only a row that fits no reading
(cards laid out of order) leaves every reading that beats.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from itertools import permutations, product

from table_service.rules.cards import NATURAL_VALUE, Card, check_level, parse_cards, power
from table_service.rules.patterns import SEQUENCE_KINDS, Play, beats, classify, strength


@dataclass(frozen=True)
class Reading:
    """The reading assumed for a play, with the alternatives that were left."""

    play: Play | None
    """``None`` when the cards form no pattern that beats ``previous``."""
    candidates: tuple[Play, ...]
    """Every reading that beats ``previous`` (all readings when leading)."""
    ambiguous: bool
    """More than one reading was still possible after the order was used."""
    reason: str
    """Why this reading, in Chinese then English."""


def _order_value(play: Play, face: Card) -> int:
    if play.kind in SEQUENCE_KINDS:
        v = NATURAL_VALUE[face.rank]
        width = {"straight": 5, "straight_flush": 5, "three_pairs": 3, "two_triples": 2}[play.kind]
        if v == 14 and NATURAL_VALUE[play.rank] - width + 1 <= 1:
            return 1
        return v
    return power(face.rank, play.level)


def consistent_with_order(play: Play, order: Sequence[Card], *, copies_apart: bool = True) -> bool:
    """Does the row ``order`` (left to right) put each card where its face would sit, ascending
    or descending? Cards that are not wild always fit; the test is about the wild cards.

    Two copies of one card (the two wild cards of two decks) may stand for different faces: 7 W W 9 9
    is 77+999 with the first wild a 7 and the second a 9.  Which copy lies where cannot be seen, so
    every way of giving the copies their faces is tried.  ``copies_apart=False``: the first way
    only, as the engine read rows before 2026-12-05 (a round logged then replays as it was played)."""
    if Counter(order) != Counter(play.cards):
        return True  # order does not match the cards: it cannot narrow anything
    if not copies_apart:
        return _first_way_fits(play, order)
    faces_of: dict[Card, list[int]] = {}
    for pc, face in zip(play.cards, play.faces, strict=True):
        faces_of.setdefault(pc, []).append(_order_value(play, face))
    options = {c: sorted(set(permutations(vals))) for c, vals in faces_of.items()}
    shared = [c for c, opts in options.items() if len(opts) > 1]
    for choice in product(*(options[c] for c in shared)):
        given = {c: list(options[c][0]) for c in options} | {c: list(p) for c, p in zip(shared, choice, strict=True)}
        seq = [given[c].pop(0) for c in order]
        if all(a <= b for a, b in zip(seq, seq[1:], strict=False)) or \
                all(a >= b for a, b in zip(seq, seq[1:], strict=False)):
            return True
    return False


def _first_way_fits(play: Play, order: Sequence[Card]) -> bool:
    """The row test with each copy of a card given the faces in the order the play lists them."""
    faces_left = list(zip(play.cards, play.faces, strict=True))
    seq: list[int] = []
    for c in order:
        i = next(i for i, (pc, _) in enumerate(faces_left) if pc == c)
        seq.append(_order_value(play, faces_left.pop(i)[1]))
    return all(a <= b for a, b in zip(seq, seq[1:], strict=False)) or \
        all(a >= b for a, b in zip(seq, seq[1:], strict=False))


def reading_for(
    cards: Iterable[Card] | str,
    level: str,
    previous: Play | None = None,
    order: Sequence[Card] | str | None = None,
    *,
    copies_apart: bool = True,
    row_decides: bool = True,
) -> Reading:
    """The reading to assume for ``cards`` played on ``previous`` (``None`` when leading).

    ``order`` is the left-to-right row as laid on the table (defaults to ``cards`` as given, which
    is how the camera reports them). ``copies_apart``: see :func:`consistent_with_order`.
    ``row_decides``: when the row fits some readings, the play is one of those, and when none of
    them beats ``previous`` it does not beat (``play`` None) — a wild card laid where a 4 sits in
    2h 5 6 7 8 reads 4–8, never 5–9. ``False``: as the engine read rows before its generation 3 (a
    round logged then replays as it was played): the row only chose among the readings that beat,
    and where it fitted none of them any reading that beats was taken.
    """
    # ``classify`` takes ``10`` or ``t`` for level T; ``beats`` and ``strength`` compare with the level
    # as a rank, so it is made one here, once for both.
    level = check_level(level)
    cs = parse_cards(cards) if isinstance(cards, str) else list(cards)
    row = parse_cards(order) if isinstance(order, str) else (list(order) if order is not None else cs)
    readings = classify(cs, level)
    if not readings:
        return Reading(None, (), False, "不成牌型 / not a pattern")
    cands = tuple(p for p in readings if previous is None or beats(p, previous, level))
    if not cands:
        return Reading(None, (), False, "压不过上家 / does not beat the trick")
    if row_decides:
        fits = row_readings(readings, row, copies_apart=copies_apart)
        if not any(p in cands for p in fits):
            return Reading(None, cands, False, "按逢人配位置压不过上家 / by the wild card's position it does not beat the trick")
    pool = [p for p in cands if consistent_with_order(p, row, copies_apart=copies_apart)] or list(cands)
    best = max(pool, key=lambda p: strength(p, level))
    distinct = {(p.kind, p.rank) for p in pool}
    if len(distinct) == 1:
        why = "唯一读法 / only reading" if len(cands) == 1 else "按逢人配位置 / by the wild card's position"
        return Reading(best, cands, False, why)
    return Reading(best, cands, True, "读法不唯一，取最大 / several readings left, the strongest assumed")


def row_readings(readings: Sequence[Play], order: Sequence[Card], *, copies_apart: bool = True) -> list[Play]:
    """The readings the row ``order`` fits (:func:`consistent_with_order`); all of them when it fits
    none (cards laid out of order say nothing of the wild card)."""
    fits = [p for p in readings if consistent_with_order(p, order, copies_apart=copies_apart)]
    return fits or list(readings)
