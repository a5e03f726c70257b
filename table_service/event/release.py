"""Which deals of a duplicate (复式) board the hub releases, from both rooms' summaries.

The rule (docs/security.md): nothing of a duplicate deal goes public before every table playing it
has finished it. Each table holds a board's deals from its public feed until ``deal_released`` is in
its log; before this, only the chief's tap on each table's own panel released them, which nobody
does at 50 tables after every deal. The hub already sees every table's progress — each summary
carries ``deals_ended`` (:func:`table_service.views.release_wire.deals_ended`) — so it tells both
rooms of a match ``{"round", "through", "board"}`` once both have ended deals 1..k.

Derived, not logged: a release follows from the summaries (retained on the broker, so a restarted
hub computes the same again) and the tables log what they release; a second record in the hub's log
would only be a copy that could disagree.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def summary_ended(summary: Mapping[str, Any]) -> int:
    """Deals of the summary's round ended at its table: ``deals_ended`` when the table sends it;
    from a table of an older release, what its other fields prove — a finished round has ended every
    deal it started, else every deal before the one it is at (one deal later than the new field)."""
    ended = summary.get("deals_ended")
    if isinstance(ended, int):
        return ended
    deal = int(summary.get("deal") or 0)
    return deal if summary.get("finished") else max(0, deal - 1)


def ended_at(rnd: int, assignment: Mapping[str, Any], summary: Mapping[str, Any] | None) -> tuple[int, bool]:
    """``(deals ended, done)`` of round ``rnd`` at a table, as its latest summary shows. ``done``: the
    table has finished the round (its result is in, or it has set up a later round: the count is then
    unknown, 0), so it will end no further deal of it and limits the other room no more — a room that
    stopped at 7 deals by the time limit must not hold back the other room's 8th. ``(0, False)`` when
    it has not reached this round, or plays it under other teams than the assignment's (not this
    board: what it ended says nothing of this board's deals)."""
    if not summary:
        return 0, False
    at = summary.get("round")
    if not isinstance(at, int) or at < rnd:
        return 0, False
    if at > rnd:
        return 0, True
    if summary.get("teams") != assignment.get("teams"):
        return 0, False
    return summary_ended(summary), bool(summary.get("finished"))


def board_tables(assignments: Mapping[str, Mapping[str, Any]]) -> dict[str, list[str]]:
    """The tables of each board of a round's assignments (room A and room B; sorted)."""
    out: dict[str, list[str]] = {}
    for table, a in assignments.items():
        if a.get("board"):
            out.setdefault(str(a["board"]), []).append(table)
    return {b: sorted(ts) for b, ts in out.items()}


def releases(draws: Mapping[int, Mapping[str, Any]], summaries: Mapping[str, Mapping[str, Any]]
             ) -> dict[str, dict[str, Any]]:
    """Per table, the release due now: ``{"round", "through", "board"}`` (the message the hub sends).

    Only the rounds some table's summary is at are looked at (a published round before those has
    been released already, or both its rooms moved on and the chief's tap covers what was missed),
    in order, so a table's later round replaces its earlier one — one retained message a table.
    A board counts only with both rooms drawn; ``through`` is the fewer deals ended of the rooms still
    playing the round (a room that has finished it, or moved past it, limits nothing), and once both
    have finished it, the most either ended. Nothing when it is 0 (both rooms moved on: nothing new
    to say)."""
    out: dict[str, dict[str, Any]] = {}
    rounds = sorted({s["round"] for s in summaries.values() if isinstance(s.get("round"), int)})
    for rnd in rounds:
        draw = draws.get(rnd)
        if not draw or not draw.get("published"):
            continue
        assignments = draw.get("assignments") or {}
        for board, tables in sorted(board_tables(assignments).items()):
            if len(tables) != 2:
                continue
            ends = [ended_at(rnd, assignments[t], summaries.get(t)) for t in tables]
            playing = [n for n, done in ends if not done]
            # A room still playing limits; once both are done, every deal either of them ended.
            through = min(playing) if playing else max(n for n, _done in ends)
            if through > 0:
                for t in tables:
                    out[t] = {"round": rnd, "through": through, "board": board}
    return out
