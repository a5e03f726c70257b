"""Seats, sides and the counter-clockwise play order.

Play runs counter-clockwise seen from above: E → N → W → S → E. A seat's 下家 (the next to
act) is ``next_seat``; its 上家 (the one who acted before) is ``previous_seat``. Partners sit
opposite, so the sides are E+W ("EW") and N+S ("NS").
"""

from __future__ import annotations

SEATS: tuple[str, ...] = ("E", "S", "W", "N")
SIDES: tuple[str, ...] = ("EW", "NS")
PLAY_ORDER: tuple[str, ...] = ("E", "N", "W", "S")

SEAT_NAMES_ZH: dict[str, str] = {"E": "东", "S": "南", "W": "西", "N": "北"}
SIDE_NAMES_ZH: dict[str, str] = {"EW": "东西", "NS": "南北"}


def seat_zh(seat: object) -> str:
    """A seat as a Chinese text says it (``东``); anything else as it is. Why: the Chinese half of a
    refusal said "此座位" or a bare "E" where the English half named the seat (audit s38)."""
    return SEAT_NAMES_ZH.get(seat, str(seat)) if isinstance(seat, str) else str(seat)


def side_zh(side: object) -> str:
    """A side as a Chinese text says it (``东西``); anything else as it is."""
    return SIDE_NAMES_ZH.get(side, str(side)) if isinstance(side, str) else str(side)


def _check(seat: str) -> str:
    if seat not in SEATS:
        raise ValueError(f"无此座位：{seat!r}（应为 E S W N 之一） / no such seat: {seat!r} (expected one of E S W N)")
    return seat


def next_seat(seat: str) -> str:
    """The seat that acts after ``seat`` (its 下家, on its right)."""
    return PLAY_ORDER[(PLAY_ORDER.index(_check(seat)) + 1) % 4]


def previous_seat(seat: str) -> str:
    """The seat that acts before ``seat`` (its 上家, on its left)."""
    return PLAY_ORDER[(PLAY_ORDER.index(_check(seat)) - 1) % 4]


def partner(seat: str) -> str:
    """The seat opposite ``seat``."""
    return PLAY_ORDER[(PLAY_ORDER.index(_check(seat)) + 2) % 4]


def side_of(seat: str) -> str:
    """``"EW"`` or ``"NS"``."""
    return "EW" if _check(seat) in ("E", "W") else "NS"


def other_side(side: str) -> str:
    """The opposing side."""
    if side not in SIDES:
        raise ValueError(f"无此方：{side!r}（应为 EW 或 NS） / no such side: {side!r} (expected EW or NS)")
    return "NS" if side == "EW" else "EW"


def seats_of(side: str) -> tuple[str, str]:
    """The two seats of ``side``."""
    if side not in SIDES:
        raise ValueError(f"无此方：{side!r}（应为 EW 或 NS） / no such side: {side!r} (expected EW or NS)")
    return ("E", "W") if side == "EW" else ("N", "S")


def seats_from(seat: str) -> tuple[str, str, str, str]:
    """All four seats in play order starting with ``seat``."""
    i = PLAY_ORDER.index(_check(seat))
    return tuple(PLAY_ORDER[(i + k) % 4] for k in range(4))  # type: ignore[return-value]
