"""Levels (级数): who goes up after a deal, the A rule, and the next deal's level."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from table_service.rules.cards import RANKS, check_level
from table_service.rules.ruleset import Ruleset
from table_service.rules.seats import SEATS, SIDES, partner, side_of

STEPS_BY_PARTNER_PLACE: dict[int, int] = {2: 3, 3: 2, 4: 1}


def advance(level: str, steps: int) -> str:
    """``level`` raised by ``steps``, never past A.

    :raises ValueError: not a level, or ``steps`` not a whole number of levels up (levels never go down by
        a deal: only the A rule sends a side back, to its start level).
    """
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ValueError(f"升级数须为 0 或正整数，收到 {steps!r} / levels go up by 0 or more whole steps, got {steps!r}")
    return RANKS[min(RANKS.index(check_level(level)) + steps, len(RANKS) - 1)]


@dataclass(frozen=True)
class DealOutcome:
    """What a finished deal means for the levels."""

    first: str
    """上游."""
    winner_side: str
    partner_place: int
    """2 (二游, double-down of the others), 3 (三游) or 4 (下游)."""
    steps: int
    double_down: bool


def deal_outcome(finish_order: Sequence[str]) -> DealOutcome:
    """Read a finished deal: 上游's side goes up +3 / +2 / +1 by partner's place.

    :raises ValueError: when ``finish_order`` is not a finished deal.
    """
    order = list(finish_order)
    if len(order) < 2 or len(set(order)) != len(order) or any(s not in SEATS for s in order):
        raise ValueError(f"名次不完整：{order!r} / not a finished deal: {order!r}")
    first = order[0]
    mate = partner(first)
    if mate in order:
        place = order.index(mate) + 1
    elif len(order) >= 3:
        place = 4
    else:
        raise ValueError(f"名次不完整：{order!r} / not a finished deal: {order!r}")
    return DealOutcome(
        first=first,
        winner_side=side_of(first),
        partner_place=place,
        steps=STEPS_BY_PARTNER_PLACE[place],
        double_down=place == 2,
    )


def deal_is_over(finish_order: Sequence[str]) -> bool:
    """A deal ends at three finished, or as soon as one side has finished 1st and 2nd."""
    order = list(finish_order)
    return len(order) >= 3 or (len(order) == 2 and order[1] == partner(order[0]))


@dataclass(frozen=True)
class LevelUpdate:
    """Levels after a deal."""

    levels: dict[str, str]
    a_failures: dict[str, int]
    game_winner: str | None
    """The side that won the game (passed A), if this deal decided it."""
    next_level: str
    """Level of the next deal (the 上游 side's level)."""
    notes: list[str] = field(default_factory=list)


def apply_deal(
    levels: Mapping[str, str],
    deal_level: str,
    outcome: DealOutcome,
    ruleset: Ruleset,
    a_failures: Mapping[str, int] | None = None,
) -> LevelUpdate:
    """Levels after ``outcome`` of a deal played at ``deal_level``.

    The A rule: a side at A wins the game by being 上游 with partner 二游 or 三游 in a deal
    played at A. Otherwise it stays at A; with ``ruleset.tries_at_a`` set, a side that fails
    that many deals at A goes back to 2.
    """
    missing = [s for s in SIDES if s not in levels]
    if missing:
        raise ValueError(f"须给出 {', '.join(SIDES)} 两方的级数，缺少 {', '.join(missing)} / "
                         f"levels must give both sides {', '.join(SIDES)}; missing {', '.join(missing)}")
    # Levels may be written as cards are (``a``, ``10``): the A rule below compares them with "A".
    before = {s: check_level(levels[s]) for s in SIDES}
    new = dict(before)
    deal_level = check_level(deal_level)
    fails = {s: 0 for s in SIDES} | dict(a_failures or {})
    notes: list[str] = []
    win = outcome.winner_side
    winner: str | None = None
    if new[win] == "A" and deal_level == "A" and outcome.partner_place in (2, 3):
        winner = win
        notes.append(f"{win} 过A获胜 / {win} passes A and wins the game")
    else:
        new[win] = advance(new[win], outcome.steps)
    for side in SIDES:
        if before[side] == "A" and deal_level == "A" and winner != side:
            fails[side] += 1
            notes.append(f"{side} 打A失败 {fails[side]} 次 / {side} failed at A ({fails[side]})")
            if ruleset.tries_at_a is not None and fails[side] >= ruleset.tries_at_a:
                new[side] = ruleset.start_level
                fails[side] = 0
                notes.append(f"{side} 退回{ruleset.start_level} / {side} goes back to {ruleset.start_level}")
    return LevelUpdate(levels=new, a_failures=fails, game_winner=winner, next_level=new[win], notes=notes)


def level_position(level: str, *, passed_a: bool = False) -> int:
    """Position on the 13-level scale: 2 → 2 … A → 14; a side that passed A → 15."""
    return 15 if passed_a else RANKS.index(level) + 2
