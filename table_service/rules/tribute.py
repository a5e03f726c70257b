"""Tribute (进贡), return (还贡), anti-tribute (抗贡) and who leads after them.

From the second deal the previous 下游 gives 上游 their highest card (the heart level card
excluded) and 上游 returns a small card; after a double-down both losers pay. These are the
rule checks only; the referee engine decides *when* they apply (e.g. no tribute after a foul).
Every function taking a ``level`` accepts it as cards are written (``10``, ``a``), as ``classify``
does: the heart level card and the level cards' power are told by comparing ranks with it.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from table_service.rules.cards import NATURAL_VALUE, Card, check_level, parse_card, power, sort_key
from table_service.rules.ruleset import Ruleset
from table_service.rules.seats import SEATS, next_seat, partner, previous_seat, seats_from, side_of


def tribute_candidates(hand: Iterable[Card], level: str) -> list[Card]:
    """The cards a tributor may give: every card of the highest power in ``hand``, the heart
    level card excluded.

    "The highest card" is read by power, the order singles use (big joker > small joker > level
    card > A > K > … > 2): a level card of a suit other than hearts is as high as any other level
    card, and two cards of equal power are both "the highest", so either may be given. The heart
    level card is never a candidate, whatever else the hand holds.
    """
    level = check_level(level)
    cards = [c for c in hand if not c.is_wild(level)]
    if not cards:
        return []
    top = max(power(c.rank, level) for c in cards)
    return sorted({c for c in cards if power(c.rank, level) == top}, key=sort_key)


def is_legal_tribute(hand: Iterable[Card], given: Card, level: str) -> bool:
    """Is ``given`` a legal tribute from ``hand`` (the hand *before* giving)?"""
    hand = list(hand)
    return given in hand and given in tribute_candidates(hand, level)


def tribute_is_wild(given: Card, level: str) -> bool:
    """A heart level card given as tribute is wrong on its face: the rule excludes it, so no hand
    makes it legal and the engine can flag it the moment it is given."""
    return given.is_wild(check_level(level))


def tribute_proved_wrong(tribute: Card, later_card: Card, level: str) -> bool:
    """A tributor who later plays a non-wild card of strictly higher power than the tribute held
    it when paying, so the tribute was not the highest card (the engine sees only played cards).

    A card of *equal* power (another level card, another ace) proves nothing: it was as high as
    the tribute, and either was a legal tribute. The heart level card proves nothing either: it
    is excluded from the choice.
    """
    level = check_level(level)
    if later_card.is_wild(level):
        return False
    return power(later_card.rank, level) > power(tribute.rank, level)


def tribute_settled(tribute: Card, held: Iterable[Card], level: str) -> bool:
    """The decidable check, once every card the tributor held when paying has been seen (they
    have played out): ``held`` is that hand without the tribute. True when the tribute was legal.
    """
    return is_legal_tribute([*held, tribute], tribute, level)


def return_candidates(
    hand: Iterable[Card], level: str, ruleset: Ruleset, *, to_partner: bool = False
) -> list[Card]:
    """The cards 上游 (or partner) may return, from the hand after receiving the tribute."""
    level = check_level(level)
    cards = sorted(set(hand), key=sort_key)
    if ruleset.return_any_to_opponent and not to_partner:
        return cards
    limit = NATURAL_VALUE[ruleset.return_max_rank]
    ok = [
        c
        for c in cards
        if not c.is_joker
        and c.value <= limit
        and (ruleset.return_level_card_by_face or c.rank != level)
    ]
    if ok or not ruleset.return_smallest_if_none or not cards:
        return ok
    low = min(smallness(c, level, ruleset) for c in cards)
    return [c for c in cards if smallness(c, level, ruleset) == low]


def smallness(c: Card, level: str, ruleset: Ruleset) -> int:
    """Order for "the smallest card" of a return: power, or the face value for a level card
    when ``ruleset.return_smallest_by == "face"`` (jokers stay on top either way)."""
    if ruleset.return_smallest_by == "face" and not c.is_joker:
        return c.value
    return power(c.rank, check_level(level))


def is_legal_return(
    hand: Iterable[Card], given: Card, level: str, ruleset: Ruleset, *, to_partner: bool = False
) -> bool:
    """Is ``given`` a legal return from ``hand``?"""
    hand = list(hand)
    return given in hand and given in return_candidates(hand, level, ruleset, to_partner=to_partner)


def return_over_limit(given: Card, level: str, ruleset: Ruleset, *, to_partner: bool = False) -> bool:
    """True when a returned card is above the limit on its face (what the engine can see
    without the hand: a card above 10 is wrong unless the returner held nothing ≤ 10)."""
    if ruleset.return_any_to_opponent and not to_partner:
        return False
    if given.is_joker:
        return True
    if not ruleset.return_level_card_by_face and given.rank == check_level(level):
        return True
    return given.value > NATURAL_VALUE[ruleset.return_max_rank]


def is_anti_tribute(payer_hands: Sequence[Iterable[Card]]) -> bool:
    """抗贡: the paying side holds both big jokers (one player both, or one each after a
    double-down)."""
    return sum(1 for h in payer_hands for c in h if c.rank == "BJ") >= 2


@dataclass(frozen=True)
class TributeDuty:
    """Who owes tribute to whom after a deal."""

    payers: tuple[str, ...]
    """下游 (single tribute) or both losers (double-down), in play order from 上游's 下家."""
    first: str
    """上游 of the previous deal."""
    double_down: bool


def tribute_duty(finish_order: Sequence[str]) -> TributeDuty:
    """The tribute owed after a deal with ``finish_order`` (seats in order of finishing; the
    deal may end with two or three seats listed).

    :raises ValueError: when the order is not a finished deal.
    """
    order = list(finish_order)
    if len(set(order)) != len(order) or any(s not in SEATS for s in order) or len(order) < 2:
        raise ValueError(f"名次不完整：{order!r} / not a finished deal: {order!r}")
    first = order[0]
    if order[1] == partner(first):
        losers = tuple(s for s in seats_from(next_seat(first)) if side_of(s) != side_of(first))
        return TributeDuty(payers=losers, first=first, double_down=True)
    if len(order) < 3:
        raise ValueError(f"名次不完整：{order!r} / not a finished deal: {order!r}")
    last = next(s for s in SEATS if s not in order[:3])
    return TributeDuty(payers=(last,), first=first, double_down=False)


def pair_tributes(tributes: dict[str, Card], first: str, level: str, equal: str = "payer_clockwise") -> dict[str, str]:
    """After a double-down: payer → receiver. 上游 takes the higher tribute, 上游's partner the
    lower; equal tributes go clockwise, read as ``equal`` says (``Ruleset.equal_tributes``):
    ``payer_clockwise``, each payer gives to the receiver on its clockwise side (the seat that
    plays before it); ``first_clockwise``, 上游 takes from the payer on its own clockwise side
    (the seat that plays before 上游)."""
    if len(tributes) not in (1, 2):
        raise ValueError(f"进贡须一人或两人，收到 {len(tributes)} / "
                         f"a tribute is paid by one or two seats, got {len(tributes)}")
    if len(tributes) == 1:
        (payer,) = tributes
        return {payer: first}
    (a, ca), (b, cb) = tributes.items()
    level = check_level(level)
    pa, pb = power(ca.rank, level), power(cb.rank, level)
    if pa == pb:
        if equal == "first_clockwise":
            to_first = previous_seat(first)
            other = b if a == to_first else a
            return {to_first: first, other: partner(first)}
        return {a: previous_seat(a), b: previous_seat(b)}
    hi, lo = (a, b) if pa > pb else (b, a)
    return {hi: first, lo: partner(first)}


def leader_after_tribute(
    duty: TributeDuty, pairing: dict[str, str] | None, ruleset: Ruleset, *, anti: bool = False
) -> str:
    """Who leads the first trick of a deal with tribute."""
    if anti:
        return duty.first
    if not duty.double_down:
        return duty.payers[0]
    if ruleset.double_down_leader == "first_next":
        return next_seat(duty.first)
    assert pairing is not None
    return next(p for p, r in pairing.items() if r == duty.first)


CUT_COUNT: dict[str, int] = {r: NATURAL_VALUE[r] for r in NATURAL_VALUE} | {"A": 1}


def first_drawer(cut: Card | str) -> str:
    """First deal: South cuts and turns a card; counting counter-clockwise from South (South is
    one) by its rank gives the first drawer. A joker or the heart 2 is cut again.

    :raises ValueError: for a card that must be re-cut, or not a card.
    """
    if isinstance(cut, str):
        cut = parse_card(cut)
    if not isinstance(cut, Card):
        raise ValueError(f"翻牌须是一张牌，收到 {cut!r} / the cut must be a card, got {cut!r}")
    if cut.is_joker or (cut.rank == "2" and cut.suit == "h"):
        raise ValueError(f"须重新切牌：{cut} 不能决定谁先抓牌 / re-cut: {cut} cannot choose the first drawer")
    return seats_from("S")[(CUT_COUNT[cut.rank] - 1) % 4]
