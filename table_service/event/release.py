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
longer loses that deal: once both rooms are past the round, it is released whole.

Derived, not logged, and so that a restarted hub works out the same again: a release follows
from facts that outlive the hub's memory. Once both rooms are done with a round — its result is in
the hub's log (signed, or entered at the hub), or the room's summary says it finished or is of a
later round — the release is every deal of it (:data:`EVERY_DEAL`: each table releases only the
deals it has itself ended, so no count of the hub's is needed). While a room still plays the round,
its latest summary, retained on the broker, carries its count. Before, a round both rooms had left
was released through "the most either was seen to end", a count only the hub's memory held: a hub
restarted before the last room came back rebuilt it from summaries of the next round and never
released that round's last deal. Nothing is added to the hub's log (a second record of what the
results and the summaries already say could only disagree with them), and the tables log what
they release.

Incremental, because it runs on the MQTT worker for every batch holding a summary: a summary
marks its table's rounds that it can change (:meth:`ReleaseBook.note`), and only those boards are
worked out again (:meth:`ReleaseBook.update`) — a batch costs what it holds, not what the event
holds (``benchmarks/release_bench.py``).
"""

from __future__ import annotations

from collections.abc import Container, Mapping
from typing import Any

from table_service.views.release_wire import MAX_THROUGH, release_message

#: ``through`` for a round both rooms are done with: every deal. Why not the most either was seen to
#: end: that count lived only in the hub's memory, and each table releases no deal it has not itself
#: ended, so any number at least its own count releases the same — the largest a release may name.
EVERY_DEAL = MAX_THROUGH

Resulted = Container[tuple[int, str]]
"""The ``(round, table)`` pairs whose result is in the hub's log (``HubCore.results``)."""


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
    through)`` — only ever raised (a release never goes back). A round's result in the hub's log
    (``results`` of :meth:`update`) also means its table is done with it: unlike the summaries,
    the log is never of a later round only.
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

    def note_result(self, draws: Mapping[int, Mapping[str, Any]], table: str, rnd: int) -> None:
        """A result of ``table`` for round ``rnd`` is now in the hub's log: the room is done with the
        round, so its board is worked out again at the next :meth:`update` (a room whose Pi is off
        the network, its result entered at the hub, no longer holds the other room's last deals)."""
        if self.pairs(draws, rnd).get(table) is not None:
            self._dirty.add((table, rnd))

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

    def _end(self, table: str, rnd: int, results: Resulted = ()) -> tuple[int, bool]:
        """``(deals ended, done)`` of ``rnd`` at ``table``: done once it has finished the round,
        moved past it, or has its result in the hub's log (it will end no further deal of it, and
        limits the other room no more)."""
        ended, finished = self.ends.get((table, rnd), (0, False))
        return ended, finished or self.at.get(table, 0) > rnd or (rnd, table) in results

    def through(self, rnd: int, tables: tuple[str, str], results: Resulted = ()) -> int:
        """The deals of ``rnd`` both rooms allow: the fewer ended of the rooms still playing it (a
        room that is done with it limits nothing — one that stopped at 7 deals by the time limit
        must not hold back the other room's 8th); once both are done, :data:`EVERY_DEAL` (each
        table releases only the deals it has itself ended; a count of the hub's would be lost with
        its memory, the release must not be)."""
        ends = [self._end(t, rnd, results) for t in tables]
        playing = [n for n, done in ends if not done]
        return min(playing) if playing else EVERY_DEAL

    def update(self, draws: Mapping[int, Mapping[str, Any]], *, everything: bool = False,
               results: Resulted = ()) -> set[str]:
        """Work out again the boards :meth:`note` and :meth:`note_result` marked (``everything``:
        every board of every published round: a restarted hub's first call). ``results``: the
        ``(round, table)`` pairs whose result is in the hub's log. Returns the tables whose
        ``due`` went further."""
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
            through = self.through(rnd, (table, twin), results)
            if through <= 0:
                continue
            for t in (table, twin):
                mine = self.due.setdefault(t, {})
                old = mine.get(rnd)
                if old is None or old[0] != board or old[1] < through:  # only ever further
                    mine[rnd] = (board, through)
                    changed.add(t)
        return changed


def releases(draws: Mapping[int, Mapping[str, Any]], summaries: Mapping[str, Mapping[str, Any]],
             results: Resulted = ()) -> dict[str, dict[str, Any]]:
    """Per table, the release message a hub holding only its log (``draws``, ``results``) and these
    latest summaries would send — what a restarted hub computes first: :class:`ReleaseBook` over
    them, each table's message from :func:`~table_service.views.release_wire.release_message`."""
    book = ReleaseBook()
    for table, summary in summaries.items():
        rnd = summary.get("round")
        book.note(draws, table, summary, rnd if isinstance(rnd, int) and not isinstance(rnd, bool) else None)
    book.update(draws, everything=True, results=results)
    return {t: msg for t in sorted(book.due) if (msg := release_message(book.due[t])) is not None}
