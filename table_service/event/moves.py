"""A match moved to a spare table (``match_moved``): its check and its fold, on the hub's draws alone.

Why: a table's Pi or partition screen fails mid-event, and the match must go on at a spare, idle
table. The move is a hub event like any other (logged before it takes effect, replayed on restart):
the round's draw names the new table for that match from then on, so its assignment goes there, its
result is taken from there (:meth:`~.core.HubCore.classify_result` reads the draw), and the board,
the overview and the sheets show the new number. The old table is out of the round: its retained
assignment is withdrawn (the hub's ``_clear_idle_assignments``: a table no match of the round uses).

Pure and apart from :mod:`.state` and :mod:`.core` (which fold and check everything else) so that
the fold can be called from :meth:`~.state.HubState.apply` without an import cycle; the service's
side (the role, the lock, what goes out over MQTT) is :mod:`.spare`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_service.event.model import MAX_TEXT, EventInputError
from table_service.views.wire import SEGMENT_RE

#: The hub event of a move.
MOVE_EVENT = "match_moved"


def check_move(draws: Mapping[int, dict[str, Any]], results: Mapping[tuple[int, str], Any], cfg: dict[str, Any],
               rnd: int, frm: str, to: str, reason: str, names: Mapping[str, str] | None = None) -> dict[str, Any]:
    """``match_moved``'s data: round ``rnd``'s match at table ``frm`` moved to table ``to``, with the
    assignment the new table receives (the published one, its table and panel the new table's: the
    teams' names and players stay those the round was published with).

    Refused: a round that is not the latest published one (no earlier round has a match left to
    play), a table with no match in it, a match already finished (its result is in: a correction is
    the way to change it), a table that already plays a match this round, a table the event does not
    list (``[[tables]]``: its messages would be refused and it has no credential), the same table.
    ``names``: the teams' names by id, for the refusal that names a busy table's match.

    :raises EventInputError: why not, Chinese first."""
    latest = max((r for r, d in draws.items() if d["published"]), default=0)
    if rnd != latest or latest == 0:
        raise EventInputError(f"只能移动当前轮（第 {latest} 轮）的比赛 / only a match of the current round ({latest}) "
                              "can be moved")
    d = draws[rnd]
    match = next((t for t in d["tables"] if t["table"] == frm), None)
    if match is None:
        raise EventInputError(f"第 {rnd} 轮没有 {frm} 号桌的比赛 / no match at table {frm} in round {rnd}")
    if (rnd, frm) in results:
        raise EventInputError(f"第 {rnd} 轮 {frm} 号桌的比赛已结束（已有成绩），不能换桌 / the match at table {frm} in "
                              f"round {rnd} is finished (its result is in): it cannot be moved")
    if not isinstance(to, str) or not SEGMENT_RE.match(to):
        raise EventInputError(f"桌号无效 {to[:40]!r} / invalid table id {to[:40]!r}")
    if to == frm:
        raise EventInputError(f"新桌与原桌相同（{frm} 号桌） / the new table is the same as the old one ({frm})")
    listed = [t["id"] for t in cfg.get("tables") or ()]
    if listed and to not in listed:
        raise EventInputError(f"赛事没有 {to} 号桌（EVENT.toml [[tables]]） / table {to} is not one of the event's "
                              "tables (EVENT.toml [[tables]])")
    busy = next((t for t in d["tables"] if t["table"] == to), None)
    if busy is not None:
        ns, ew = ((names or {}).get(busy[k], busy[k]) for k in ("ns", "ew"))
        raise EventInputError(f"{to} 号桌本轮已有比赛（{ns} 对 {ew}），请选空闲的桌 / table {to} already plays a match "
                              f"this round ({ns} v {ew}): choose an idle table")
    if len(reason) > MAX_TEXT:
        raise EventInputError(f"原因过长（最多 {MAX_TEXT} 字） / the reason is too long (at most {MAX_TEXT} characters)")
    phys = next((t for t in cfg.get("tables") or () if t["id"] == to), None)
    old = d["assignments"].get(frm) or {}
    assignment = {**old, "table": to, "panel": phys.get("panel") if phys else None}
    return {"round": rnd, "from": frm, "to": to, "assignment": assignment, "reason": reason}


def apply_move(draws: dict[int, dict[str, Any]], d: Mapping[str, Any], ev: Mapping[str, Any]) -> None:
    """Fold one ``match_moved`` into the hub's draws: the round's match and its assignment under the
    new table; the move said in the round's ``moves`` (the pages: "moved from table 12") and its seq
    kept as that assignment's ``hub_seq`` (:func:`assignment_seq`). New lists and dicts, never the
    logged event's own (a draw's tables are the ``round_drawn`` event's data)."""
    dr = draws[d["round"]]
    frm, to = d["from"], d["to"]
    dr["tables"] = [{**t, "table": to} if t["table"] == frm else t for t in dr["tables"]]
    dr["assignments"] = {**{k: v for k, v in dr["assignments"].items() if k != frm}, to: dict(d["assignment"])}
    dr["assignment_seqs"] = {**dr.get("assignment_seqs", {}), to: ev["seq"]}
    dr["moves"] = [*dr.get("moves", ()), {"from": frm, "to": to, "reason": d.get("reason") or "", "seq": ev["seq"],
                                          "t_ms": ev.get("t_ms"), "by": ev.get("actor")}]


def assignment_seq(draw: Mapping[str, Any], table: str) -> int | None:
    """The ``hub_seq`` of ``table``'s assignment in a published draw: the move's that sent it there,
    else the publication's (one function for the send and every re-send, so the retained message is
    byte for byte the same)."""
    return (draw.get("assignment_seqs") or {}).get(table, draw.get("published_seq"))

