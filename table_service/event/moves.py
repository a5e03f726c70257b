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

from table_service.engine.errors import EventRejected
from table_service.engine.resume import check_resume
from table_service.engine.ruleset import resolve_ruleset
from table_service.event.model import MAX_TEXT, EventInputError
from table_service.rules.cards import RANK_NAMES_ZH, RANKS
from table_service.rules.seats import SIDES
from table_service.views.wire import SEGMENT_RE

#: The hub event of a move.
MOVE_EVENT = "match_moved"


def check_move(draws: Mapping[int, dict[str, Any]], results: Mapping[tuple[int, str], Any], cfg: dict[str, Any],
               rnd: int, frm: str, to: str, reason: str, names: Mapping[str, str] | None = None,
               summary: Mapping[str, Any] | None = None, correction: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """``match_moved``'s data: round ``rnd``'s match at table ``frm`` moved to table ``to``, with the
    assignment the new table receives (the published one, its table and panel the new table's: the
    teams' names and players stay those the round was published with) and the standing the match
    goes on from (``standing``, :func:`carried_standing`: ``summary`` is the old table's last one,
    ``correction`` what the chief read on its score sheet), which the assignment carries as ``resume``.

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
    old = {k: v for k, v in (d["assignments"].get(frm) or {}).items() if k != "resume"}
    standing = carried_standing(old, frm, reported_standing(summary, rnd, match), correction)
    assignment = {**old, "table": to, "panel": phys.get("panel") if phys else None}
    if standing["resume"] is not None:
        assignment["resume"] = standing["resume"]
    return {"round": rnd, "from": frm, "to": to, "assignment": assignment, "reason": reason, "standing": standing}


def reported_standing(summary: Mapping[str, Any] | None, rnd: int, match: Mapping[str, Any]) -> dict[str, Any] | None:
    """What the old table last reported of this match (its summary, kept by the hub in memory only:
    hence copied into the logged move): the deal it was at, each side's level and the rest of its
    ``standing`` (deals played, whose level the next deal is at, the last deal's order, the A
    attempts, the time used). None when it never reported this round's match with both levels."""
    if not summary or summary.get("round") != rnd:
        return None
    levels, teams = summary.get("levels") or {}, summary.get("teams") or {}
    if set(levels) != set(SIDES) or (teams and (teams.get("NS"), teams.get("EW")) != (match["ns"], match["ew"])):
        return None
    st = dict(summary.get("standing") or {})
    if "deals" not in st:  # a table of an older release: deals over = the deal it is at, less one in play
        deal = int(summary.get("deal") or 0)
        st["deals"] = deal if summary.get("round_status") in ("deal_over", "over") else max(0, deal - 1)
    return {"deal": summary.get("deal"), "seq": summary.get("last_seq"),
            "levels": {s: "T" if levels[s] == "10" else levels[s] for s in SIDES}, **st}


#: The levels the chief may choose: the engine's ranks (10 is "T" there; typed, "10" is taken too).
LEVEL_CHOICES: tuple[str, ...] = tuple(RANKS)


def level_words(level: str) -> str:
    """A level as people read it: 10, not the engine's T."""
    return RANK_NAMES_ZH.get(level, level)


def carried_standing(assignment: Mapping[str, Any], frm: str, report: Mapping[str, Any] | None,
                     correction: Mapping[str, Any] | None) -> dict[str, Any]:
    """The standing the moved match goes on from: the old table's ``report``, else the round's start
    (nothing reported: nothing known to have been played), each of ``levels`` / ``deals`` /
    ``next_side`` the chief gave in ``correction`` taking its place. What the chief changed drops
    what no longer follows from the report: the A attempts of a side no longer at A; the last deal's
    order (the tribute it owes) when the deals or the last winner's side changed. ``resume``: what the
    spare table's ``round_set_up`` takes (None when nothing was played: the round starts as
    published), checked by the engine's own rule so that a standing the table would refuse is refused
    here, before anything is logged.

    :raises EventInputError: a level not 2..A, a count not whole, or a standing the engine refuses."""
    rules = resolve_ruleset(assignment.get("ruleset"))
    start = {s: rules.start_level for s in SIDES}
    base = dict(report) if report is not None else {"levels": start, "deals": 0}
    fix = dict(correction or {})
    levels = dict(base["levels"])
    for side in SIDES:
        v = (fix.get("levels") or {}).get(side)
        if v is not None:
            v = "T" if str(v).strip().upper() == "10" else str(v).strip().upper()
            if v not in LEVEL_CHOICES:
                raise EventInputError(f"{'南北' if side == 'NS' else '东西'}的级数须为 2…A，得到 {str(v)[:8]!r} / "
                                      f"{side}'s level must be 2…A, got {str(v)[:8]!r}")
            levels[side] = v
    deals = fix.get("deals", base.get("deals", 0))
    side = fix.get("next_side") or base.get("next_side")
    if side is not None and side not in SIDES:
        raise EventInputError(f"下一副须打南北或东西的级，得到 {str(side)[:8]!r} / the next deal is at NS's or EW's "
                              f"level, got {str(side)[:8]!r}")
    resume: dict[str, Any] = {"from": frm, "levels": levels, "deals": deals}
    if side is not None:
        resume["next_side"] = side
    fails = {s: n for s, n in (base.get("failed_at_a") or {}).items() if n and levels[s] == "A"}
    if fails:
        resume["failed_at_a"] = fails
    if base.get("last_order") and deals == base.get("deals") and side == base.get("next_side"):
        resume["last_order"] = list(base["last_order"])
    if base.get("elapsed_s"):
        resume["elapsed_s"] = base["elapsed_s"]
    changed = report is None and (levels != start or deals) or report is not None and (
        levels != report["levels"] or deals != report.get("deals", 0) or side != report.get("next_side"))
    played = deals or levels != start or resume.get("elapsed_s")
    try:
        checked = check_resume(resume, rules) if played else None
    except EventRejected as exc:
        raise EventInputError(str(exc).replace("round_set_up: resume ", "the standing carried: ")) from None
    return {"source": "chief" if changed else "report" if report is not None else "start",
            "report": dict(report) if report is not None else None, "resume": resume if checked else None}


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
                                          "t_ms": ev.get("t_ms"), "by": ev.get("actor"),
                                          # the standing it went on from (None: from the start, or a move
                                          # logged before the hub carried one)
                                          "resume": (d.get("standing") or {}).get("resume")}]


def moved_from(draw: Mapping[str, Any]) -> dict[str, str]:
    """Each table of a draw that took over a moved match, and the table it came from (the pages say
    "由 2 号桌移来 / moved from table 2"; a match moved twice names the table it left last)."""
    return {m["to"]: m["from"] for m in draw.get("moves", ())}


def assignment_seq(draw: Mapping[str, Any], table: str) -> int | None:
    """The ``hub_seq`` of ``table``'s assignment in a published draw: the move's that sent it there,
    else the publication's (one function for the send and every re-send, so the retained message is
    byte for byte the same)."""
    return (draw.get("assignment_seqs") or {}).get(table, draw.get("published_seq"))

