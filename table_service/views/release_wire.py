"""The hub's release of a duplicate (复式) board's deals, as both sides of the wire read it.

A board is played in two rooms; nothing of a deal may go public before both have finished it
(docs/security.md). The hub sees each table's progress in its ``summary`` (``deals_ended``) and,
once both rooms have ended deals 1..k of a round, sends each of the two tables
``{"round": r, "through": k, "board": b}`` on ``guandan/<event>/<table>/release``; the table then
logs ``deal_released`` for those deals. The counting rule and the message's check live here, below
both ``table`` and ``event`` (neither imports the other), so the hub and the table count an ended
deal the same way and agree on what a well formed release is.
"""

from __future__ import annotations

from typing import Any

#: The hub → table topic name (``guandan/<event>/<table>/release``).
RELEASE_TOPIC = "release"
RELEASE_KEYS = frozenset({"round", "through", "board"})
#: The most deals a release may name (a round has far fewer; the hub's counts stop at 10,000).
MAX_THROUGH = 10_000


def deals_ended(rnd: dict[str, Any] | None, deal: dict[str, Any] | None) -> int:
    """How many deals of round ``rnd`` have ended: every deal started, less the live one while it
    is not over. ``deal``: the table's current deal (None for an archived round: every deal of a
    round that is over has ended). Deals are numbered from 1 in the order they start, so the ended
    ones are exactly 1..n — which is why one number says it (``through``)."""
    started = int((rnd or {}).get("deals_started") or 0)
    if deal and deal.get("no") == started and deal.get("phase") != "over":
        return max(0, started - 1)
    return started


def _whole(data: dict[str, Any], key: str, lo: int, hi: int) -> int:
    v = data.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise ValueError(f"公开通知无效 / release: {key} must be a whole number {lo}-{hi}, got {str(v)[:40]!r}")
    return v


def check_release(msg: Any) -> dict[str, Any]:
    """A hub release as the table acts on it: exactly ``round`` (1-999), ``through`` (0-10,000) and
    ``board`` (1-64 characters, the board the hub's assignment named).

    :raises ValueError: anything else (not an object, a field missing, unknown or out of range): the
        table submits nothing for it, as for an assignment it cannot read.
    """
    if not isinstance(msg, dict):
        raise ValueError(f"公开通知无效 / release must be an object, got {type(msg).__name__}")
    unknown = sorted(set(msg) - RELEASE_KEYS)
    if unknown:
        raise ValueError(f"公开通知无效 / release: unknown field(s) {', '.join(unknown)[:80]}")
    board = msg.get("board")
    if not isinstance(board, str) or not 1 <= len(board) <= 64:
        raise ValueError("公开通知无效 / release: board must be text of 1-64 characters")
    return {"round": _whole(msg, "round", 1, 999), "through": _whole(msg, "through", 0, MAX_THROUGH),
            "board": board}
