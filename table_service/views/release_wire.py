"""The hub's release of a duplicate (复式) board's deals, as both sides of the wire read it.

A board is played in two rooms; nothing of a deal may go public before both have finished it
(docs/security.md). The hub sees each table's progress in its ``summary`` (``deals_ended``) and,
once both rooms have ended deals 1..k of a round, sends each of the two tables
``{"round": r, "through": k, "board": b}`` on ``guandan/<event>/<table>/release``; the table then
logs ``deal_released`` for those deals. Once both rooms are done with the round, ``through`` is
:data:`MAX_THROUGH` (every deal: each table releases only those it has itself ended). The message is retained, one a table, so it also carries
every earlier round released to that table (``"earlier": {"<round>": {"through", "board"}}``): a
table away when its round's last release went out reads it there after the next round's release
has replaced the message (a hub of an earlier release sends no ``earlier``: read as none). The counting rule and the message's check live here, below
both ``table`` and ``event`` (neither imports the other), so the hub and the table count an ended
deal the same way and agree on what a well formed release is.
"""

from __future__ import annotations

import re
from typing import Any

#: The hub → table topic name (``guandan/<event>/<table>/release``).
RELEASE_TOPIC = "release"
RELEASE_KEYS = frozenset({"round", "through", "board", "earlier"})
#: The fields of one earlier round's release in ``earlier``.
EARLIER_KEYS = frozenset({"through", "board"})
#: The most deals a release may name (a round has far fewer; the hub's counts stop at 10,000), and
#: the hub's ``through`` for a round both rooms are done with: every deal.
MAX_THROUGH = 10_000
#: The most earlier rounds one release may carry: an event has at most 99 rounds
#: (``event/config.py``'s ``rounds``), the message's own round being one of them. Bounds what a
#: table reads and keeps from one message.
MAX_EARLIER = 98
_ROUND_KEY = re.compile(r"[1-9][0-9]{0,2}")


def deals_ended(rnd: dict[str, Any] | None, deal: dict[str, Any] | None) -> int:
    """How many deals of round ``rnd`` have ended: every deal started, less the live one while it
    is not over. ``deal``: the table's current deal (None for an archived round: every deal of a
    round that is over has ended). Deals are numbered from 1 in the order they start, so the ended
    ones are exactly 1..n — which is why one number says it (``through``)."""
    started = int((rnd or {}).get("deals_started") or 0)
    if deal and deal.get("no") == started and deal.get("phase") != "over":
        return max(0, started - 1)
    return started


def _where(earlier: str | None) -> tuple[str, str]:
    """Where in a release a bad value sits, in Chinese and in English: the top level, or the entry
    of an earlier round."""
    return (f"（较早的第 {earlier} 轮）", f" (earlier round {earlier})") if earlier is not None else ("", "")


def _whole(data: dict[str, Any], key: str, lo: int, hi: int, earlier: str | None = None) -> int:
    v = data.get(key)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        zh_where, where = _where(earlier)
        raise ValueError(f"公开通知无效{zh_where}：{key} 须为 {lo}–{hi} 的整数，收到 {str(v)[:40]!r} / "
                         f"release{where}: {key} must be a whole number {lo}-{hi}, got {str(v)[:40]!r}")
    return v


def _board(data: dict[str, Any], earlier: str | None = None) -> str:
    board = data.get("board")
    if not isinstance(board, str) or not 1 <= len(board) <= 64:
        zh_where, where = _where(earlier)
        raise ValueError(f"公开通知无效{zh_where}：board 须为 1–64 个字符的文本 / "
                         f"release{where}: board must be text of 1-64 characters")
    return board


def check_release(msg: Any) -> dict[str, Any]:
    """A hub release as the table acts on it: exactly ``round`` (1-999), ``through`` (0-10,000) and
    ``board`` (1-64 characters, the board the hub's assignment named), and optionally ``earlier``:
    at most :data:`MAX_EARLIER` rounds before ``round`` (keys ``"1"``–``"999"``, no leading zero),
    each exactly ``{"through", "board"}`` as above. Returns the message as read (``earlier`` only
    when it was sent), so a valid message comes back equal to itself.

    :raises ValueError: anything else (not an object, a field missing, unknown or out of range): the
        table submits nothing for it, as for an assignment it cannot read.
    """
    if not isinstance(msg, dict):
        raise ValueError(f"公开通知无效：须为对象，收到 {type(msg).__name__} / "
                         f"release must be an object, got {type(msg).__name__}")
    unknown = sorted(set(msg) - RELEASE_KEYS)
    if unknown:
        raise ValueError(f"公开通知无效：未知字段 {', '.join(unknown)[:80]} / "
                         f"release: unknown field(s) {', '.join(unknown)[:80]}")
    board = _board(msg)
    out: dict[str, Any] = {"round": _whole(msg, "round", 1, 999), "through": _whole(msg, "through", 0, MAX_THROUGH),
                           "board": board}
    if "earlier" in msg:
        earlier = msg["earlier"]
        if not isinstance(earlier, dict) or len(earlier) > MAX_EARLIER:
            raise ValueError(f"公开通知无效：earlier 须为至多 {MAX_EARLIER} 轮的对象 / "
                             f"release: earlier must be an object of at most {MAX_EARLIER} rounds")
        out["earlier"] = {}
        for key, entry in earlier.items():
            if not isinstance(key, str) or not _ROUND_KEY.fullmatch(key) or int(key) >= out["round"]:
                raise ValueError(f"公开通知无效：earlier 中的轮次 {str(key)[:12]!r} 不在第 {out['round']} 轮之前 / "
                                 f"release: earlier names round {str(key)[:12]!r}, not a round "
                                 f"before {out['round']}")
            if not isinstance(entry, dict) or set(entry) != EARLIER_KEYS:
                raise ValueError(f"公开通知无效：earlier 第 {key} 轮须恰为 through 与 board / "
                                 f"release: earlier round {key} must be exactly through and board")
            out["earlier"][key] = {"through": _whole(entry, "through", 0, MAX_THROUGH, key),
                                   "board": _board(entry, key)}
    return out


def release_rounds(release: dict[str, Any]) -> list[dict[str, Any]]:
    """Each round a checked release (:func:`check_release`) releases, as ``{"round", "through",
    "board"}``, earliest first: its ``earlier`` rounds, then its own."""
    out = [{"round": int(k), **v} for k, v in (release.get("earlier") or {}).items()]
    out.sort(key=lambda r: r["round"])
    return out + [{"round": release["round"], "through": release["through"], "board": release["board"]}]


def release_message(due: dict[int, tuple[str, int]]) -> dict[str, Any] | None:
    """The message the hub sends one table from what it may release there, ``round → (board,
    through)``: the latest round as the message's own fields (what a table of an earlier release
    reads), every other round in ``earlier``. None when there is nothing."""
    if not due:
        return None
    rounds = sorted(due)
    top = rounds[-1]
    msg: dict[str, Any] = {"round": top, "through": due[top][1], "board": due[top][0]}
    if len(rounds) > 1:
        msg["earlier"] = {str(r): {"through": due[r][1], "board": due[r][0]} for r in rounds[:-1]}
    return msg
