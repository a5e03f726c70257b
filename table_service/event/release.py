"""Which deals of a duplicate (复式) board the hub releases, from both rooms' summaries.

The rule (docs/security.md): nothing of a duplicate deal goes public before every table playing it
has finished it. Each table holds a board's deals from its public feed until ``deal_released`` is in
its log; before this, only the chief's tap on each table's own panel released them, which nobody
does at 50 tables after every deal. The hub already sees every table's progress — each summary
carries ``deals_ended`` (:func:`table_service.views.release_wire.deals_ended`) — so it tells both
rooms of a match ``{"round", "through", "board"}`` once both have ended deals 1..k.

Every round, not only the latest: the message is retained, one a table, so a table away when its
round's last release went out would find it replaced by the next round's and its last deals held
until the chief tapped. :class:`ReleaseBook` therefore remembers, per table and round, the most
deals ended it has seen and what it may release, and each message carries every round released to
that table (``earlier``, :func:`~table_service.views.release_wire.release_message`). It also means
a room whose summary of a round's last deal never reached the hub (it moved on while away) no
longer loses that deal: once both rooms are past the round, the most either was seen to end counts.

Derived, not logged: a release follows from the summaries (retained on the broker, so a restarted
hub computes the same again from each table's latest one) and the tables log what they release; a
second record in the hub's log would only be a copy that could disagree. What a restart forgets is
what only an older summary showed; the tables keep every release they have read.

Incremental, because it runs on the MQTT worker for every batch holding a summary: a summary
marks its table's rounds that it can change (:meth:`ReleaseBook.note`), and only those boards are
worked out again (:meth:`ReleaseBook.update`) — a batch costs what it holds, not what the event
holds (``benchmarks/release_bench.py``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from table_service.views.release_wire import release_message


def summary_ended(summary: Mapping[str, Any]) -> int:
    """Deals of the summary's round ended at its table: ``deals_ended`` when the table sends it;
    from a table of an older release, what its other fields prove — a finished round has ended every
    deal it started, else every deal before the one it is at (one deal later than the new field)."""
    ended = summary.get("deals_ended")
    if isinstance(ended, int):
        return ended
    deal = int(summary.get("deal") or 0)
    return deal if summary.get("finished") else max(0, deal - 1)


def board_tables(assignments: Mapping[str, Mapping[str, Any]]) -> dict[str, list[str]]:
    """The tables of each board of a round's assignments (room A and room B; sorted)."""
    out: dict[str, list[str]] = {}
    for table, a in assignments.items():
        if a.get("board"):
            out.setdefault(str(a["board"]), []).append(table)
    return {b: sorted(ts) for b, ts in out.items()}


Ends = dict[tuple[str, int], tuple[int, bool]]
"""``(table, round) → (most deals ended seen, finished)`` under the round's assignment."""


class ReleaseBook:
    """The hub's memory of what each duplicate table may release, in every round of the event.

    ``ends``: per ``(table, round)`` the most deals ended and whether the table has finished the
    round, from every summary seen under that round's assigned teams (a higher count is never
    forgotten: a summary seen out of order cannot lower it). ``at``: the round of each table's
    latest summary (a table past a round has ended it). ``due``: per table, ``round → (board,
    through)`` — only ever raised (a release never goes back).
    """

    def __init__(self) -> None:
        self.ends: Ends = {}
        self.at: dict[str, int] = {}
        self.due: dict[str, dict[int, tuple[str, int]]] = {}
        self._dirty: set[tuple[str, int]] = set()
        # round → (the assignments it was built from, table → (board, twin)): a published round's
        # assignments do not change, so the pairing is worked out once, not on every batch.
        self._pairs: dict[int, tuple[Mapping[str, Any], dict[str, tuple[str, str]]]] = {}

    def note(self, draws: Mapping[int, Mapping[str, Any]], table: str, summary: Mapping[str, Any],
             at: int | None) -> None:
        """One summary of ``table`` (each one handled, in order, not only the latest: a batch may
        hold a round's last deal and the next round's first); ``at``: the round of the summary the
        hub now shows for it. Marks the rounds whose release this can change: the summary's own,
        and those the table has moved past (or back over) since its last summary."""
        rnd = summary.get("round")
        if isinstance(rnd, int) and not isinstance(rnd, bool) and self.pairs(draws, rnd).get(table) is not None:
            a = draws[rnd]["assignments"][table]
            if summary.get("teams") == a.get("teams"):  # other teams: not this board, it ends nothing of it
                old = self.ends.get((table, rnd), (0, False))
                new = (max(old[0], summary_ended(summary)), old[1] or bool(summary.get("finished")))
                if new != old:
                    self.ends[(table, rnd)] = new
                    self._dirty.add((table, rnd))
        if isinstance(at, int) and not isinstance(at, bool):
            before = self.at.get(table)
            if before != at:
                self.at[table] = at
                lo, hi = (1, at) if before is None else (min(before, at), max(before, at))
                self._dirty.update((table, r) for r in range(lo, hi + 1) if r in draws)

    def pairs(self, draws: Mapping[int, Mapping[str, Any]], rnd: int) -> dict[str, tuple[str, str]]:
        """Round ``rnd``'s duplicate tables: ``table → (board, the other room's table)``; empty for
        a round not published, and a board without both rooms drawn is left out."""
        draw = draws.get(rnd)
        if not draw or not draw.get("published"):
            return {}
        assignments = draw.get("assignments") or {}
        kept = self._pairs.get(rnd)
        if kept is not None and kept[0] is assignments:
            return kept[1]
        out: dict[str, tuple[str, str]] = {}
        for board, tables in board_tables(assignments).items():
            if len(tables) == 2:
                out[tables[0]], out[tables[1]] = (board, tables[1]), (board, tables[0])
        self._pairs[rnd] = (assignments, out)
        return out

    def _end(self, table: str, rnd: int) -> tuple[int, bool]:
        """``(deals ended, done)`` of ``rnd`` at ``table``: done once it has finished the round or
        moved past it (it will end no further deal of it, and limits the other room no more)."""
        ended, finished = self.ends.get((table, rnd), (0, False))
        return ended, finished or self.at.get(table, 0) > rnd

    def through(self, rnd: int, tables: tuple[str, str]) -> int:
        """The deals of ``rnd`` both rooms allow: the fewer ended of the rooms still playing it (a
        room that has finished, or moved past it, limits nothing — one that stopped at 7 deals by
        the time limit must not hold back the other room's 8th); once both are done, the most
        either ended (each table releases only the deals it has itself ended)."""
        ends = [self._end(t, rnd) for t in tables]
        playing = [n for n, done in ends if not done]
        return min(playing) if playing else max(n for n, _done in ends)

    def update(self, draws: Mapping[int, Mapping[str, Any]], *, everything: bool = False) -> set[str]:
        """Work out again the boards :meth:`note` marked (``everything``: every board of every
        published round). Returns the tables whose ``due`` went further."""
        if everything:
            todo = {(t, r) for r in draws for t in self.pairs(draws, r)}
            self._dirty.clear()
        else:
            todo, self._dirty = self._dirty, set()
        changed: set[str] = set()
        done: set[tuple[int, str]] = set()
        for table, rnd in todo:
            pair = self.pairs(draws, rnd).get(table)
            if pair is None or (rnd, pair[0]) in done:
                continue
            board, twin = pair
            done.add((rnd, board))
            through = self.through(rnd, (table, twin))
            if through <= 0:
                continue
            for t in (table, twin):
                mine = self.due.setdefault(t, {})
                old = mine.get(rnd)
                if old is None or old[0] != board or old[1] < through:  # only ever further
                    mine[rnd] = (board, through)
                    changed.add(t)
        return changed


def releases(draws: Mapping[int, Mapping[str, Any]], summaries: Mapping[str, Mapping[str, Any]]
             ) -> dict[str, dict[str, Any]]:
    """Per table, the release message a hub holding only these latest summaries would send (what a
    restarted hub computes first): :class:`ReleaseBook` over them, each table's message from
    :func:`~table_service.views.release_wire.release_message`."""
    book = ReleaseBook()
    for table, summary in summaries.items():
        rnd = summary.get("round")
        book.note(draws, table, summary, rnd if isinstance(rnd, int) else None)
    book.update(draws)
    return {t: msg for t in sorted(book.due) if (msg := release_message(book.due[t])) is not None}
