"""The table's side of the hub's release of a duplicate (复式) board (``guandan/<event>/<table>/release``).

Why the hub, not the chief's tap: a board's deals are held from the public feed until a
``deal_released`` event is in the table's log (:func:`table_service.views.feed.is_board`); at 50
tables nobody taps 50 panels after every deal, and the broadcast stayed empty. The hub sees both
rooms' progress in their summaries and says, per round, through which deal both have ended; this
turns that into the engine's own ``deal_released`` events — source ``hub``, role ``chief`` (the
engine requires the chief's call; the log records that the hub made it) — so the feed, a restart
and a later audit read releases exactly as they read the chief's.

Every round the message names: its own and its ``earlier`` ones. The message is retained, one a
table, so the next round's release replaces it; a table away when its round's last release went out
reads that round in ``earlier`` when it comes back (a hub of an earlier release sends none: then only
the message's own round, as before).

Idempotent, because the message is retained and QoS 1 (it comes again on every reconnect): only
the deals this table has ended and that are not released yet are submitted, each under an action
key the runner remembers (also across a restart), so a redelivery racing its first copy is one
action. What each valid release allows is kept, per round, and applied again whenever the table
changes: a release that arrived before this table's own deal had ended (a table restored from an
older log) releases that deal as soon as it ends, without waiting for the hub to say it again; and
a round a later message leaves out (a hub of an earlier release, restarted, remembered only what the
tables' latest summaries showed) stays kept. A round both rooms are done with comes as ``through``
10,000 (every deal): :func:`releasable` still submits only the deals this table has ended.
"""

from __future__ import annotations

import hashlib
import logging
import threading
from typing import Any

from table_service.views.release_wire import check_release, deals_ended, release_rounds
from table_service.views.wire import loads_strict

log = logging.getLogger(__name__)


def releasable(state: dict[str, Any], release: dict[str, Any]) -> list[int]:
    """The deals of ``release``'s round (one round: ``{"round", "through", "board"}``) to submit
    now: ended at this table, at most ``through``, not released yet. Empty when this table has no
    such round, or played it under another board (or none): a release names the board the hub
    assigned, and only that board's deals are the hub's to release."""
    rnd_no = release["round"]
    current = state.get("round") or {}
    if current.get("no") == rnd_no:
        rnd, deal = current, state.get("deal")
    else:
        archived = next((a for a in reversed(state.get("rounds") or []) if (a.get("round") or {}).get("no") == rnd_no),
                        None)
        if archived is None:
            return []
        rnd, deal = archived["round"], None
    if rnd.get("board") != release["board"]:
        return []
    done = {int(r["deal"]) for r in state.get("released_deals") or [] if r.get("round") == rnd_no}
    upto = min(release["through"], deals_ended(rnd, deal))
    return [d for d in range(1, upto + 1) if d not in done]


class HubReleases:
    """Takes the hub's release messages for one table and submits the ``deal_released`` they allow.

    :param runner: the table's ``TableRunner`` (``state``, ``submit``).
    :param table_id: for the log lines.
    """

    def __init__(self, runner: Any, table_id: str) -> None:
        self.runner = runner
        self.table_id = table_id
        #: What the hub's releases allow, per round: ``{"round", "through", "board"}`` (the
        #: furthest seen for the round's board; a round's board never changes once published).
        self.kept: dict[int, dict[str, Any]] = {}
        self.submitted = 0
        self._lock = threading.Lock()
        self._said: set[str] = set()
        self._inflight: set[tuple[int, int]] = set()

    def on_payload(self, payload: bytes) -> list[tuple[int, int]]:
        """A message on the release topic: checked, kept, applied. A malformed one is logged once
        (the same bytes retained come again on every reconnect) and changes nothing; an empty one
        (a cleared retained message) is nothing to do. Returns the ``(round, deal)`` pairs submitted."""
        if not payload:
            return []
        try:
            release = check_release(loads_strict(payload.decode("utf-8")))
        except (UnicodeDecodeError, ValueError) as exc:
            digest = hashlib.sha256(payload).hexdigest()[:16]
            with self._lock:
                first = digest not in self._said
                if first and len(self._said) < 100:
                    self._said.add(digest)
            if first:
                log.warning("mqtt: 公开通知被拒 / release refused at table %s: %s", self.table_id, str(exc)[:160])
            return []
        with self._lock:
            for rel in release_rounds(release):
                old = self.kept.get(rel["round"])
                if old is None or old["board"] != rel["board"] or old["through"] < rel["through"]:
                    self.kept[rel["round"]] = rel
        return self.apply()

    def apply(self) -> list[tuple[int, int]]:
        """Submit what the kept releases allow now, every round (without waiting: called on paho's
        thread and the bridge's; the runner's action keys make a second submission of a deal the
        same action, also after a restart). Returns the ``(round, deal)`` pairs submitted."""
        with self._lock:
            kept = [self.kept[r] for r in sorted(self.kept)]
        if not kept:
            return []
        due: list[tuple[int, str, int]] = []
        with self._lock:  # one submission a deal while the engine has not decided it
            state = self.runner.state()  # read under the lock: no verdict lands between it and the check
            for release in kept:
                rnd = release["round"]
                mine = [d for d in releasable(state, release) if (rnd, d) not in self._inflight]
                self._inflight.update((rnd, d) for d in mine)
                due += [(rnd, release["board"], d) for d in mine]
        for rnd, board, deal in due:
            res = self.runner.submit({"type": "deal_released", "source": "hub", "role": "chief",
                                      "data": {"round": rnd, "deal": deal}},
                                     wait=False, key=f"hub-release:r{rnd}:{board}:d{deal}",
                                     on_done=lambda res, d=deal, r=rnd: self._done(res, r, d))
            if not res.queued:  # not queued (the engine stopped): no verdict will come
                with self._lock:
                    self._inflight.discard((rnd, deal))
        return [(rnd, deal) for rnd, _board, deal in due]

    def _done(self, result: Any, rnd: int, deal: int) -> None:
        """The engine's verdict (engine thread): logged; a refusal is the chief's tap having come
        first, or a table whose state moved meanwhile."""
        with self._lock:
            self._inflight.discard((rnd, deal))
        if result.accepted:
            self.submitted += 1
            log.info("table %s: round %s deal %s released by the hub as #%s", self.table_id, rnd, deal, result.seq)
        else:
            log.info("table %s: the hub's release of round %s deal %s not applied: %s", self.table_id, rnd, deal,
                     str(result.error)[:160])
