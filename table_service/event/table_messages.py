"""The hub's intake of what the tables send: results logged, bad messages refused, live status kept.

Why apart: the tables' messages come on their own thread (the MQTT worker's batches), each one may
be wrong (:mod:`.intake` checks its fields first), and one must never block another nor be logged
twice, whatever the broker redelivers. That bookkeeping — the batch's one transaction, the
duplicate and refusal checks across it, the live view of each table — is a room of its own beside
the organiser's actions of :class:`~.hub.HubService`, which takes it in as a base class.
"""

from __future__ import annotations

import hashlib
import json
import logging
import sqlite3
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from table_service.engine.errors import halves
from table_service.event.core import HubCore
from table_service.event.intake import BadMessage, check_message, load_object
from table_service.event.model import parse_result, reused_id_reason
from table_service.event.mqtt import HubMqtt, Message, json_payload
from table_service.event.release import ReleaseBook
from table_service.event.state import FLOOD_SAID_MS, MAX_OPEN_REFUSALS_PER_TABLE
from table_service.event.store import HubStore
from table_service.event.summaries import takes_summary
from table_service.views.assignment import ack_round
from table_service.views.release_wire import RELEASE_TOPIC, release_message
from table_service.views.wire import SEGMENT_RE

log = logging.getLogger(__name__)


@dataclass
class TableLive:
    """What the broker last said about one table."""

    table: str
    online: bool | None = None
    status_ms: int | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    summary_rx_ms: int = 0
    """When the hub received the summary it shows (its own clock, not the table's)."""
    logs_left: set[str] = field(default_factory=set)
    """The logs this table's summaries came from before the one shown (a replaced Pi's): a late
    message of one of them is never taken as a new log (:func:`~.summaries.takes_summary`)."""
    panel: str | None = None

    @property
    def connected(self) -> bool:
        """Whether the table's Pi is connected now: its last ``status`` said ``online``. The hub's one
        liveness rule, and it keeps no timer of its own: a Pi that stops without a word is said
        ``offline`` by the broker itself (the table's last will, sent once 1.5 × its MQTT keepalive
        passes without a packet), and one never heard from has no status at all. Both are 未连接 /
        not connected on the overview: a table silent at the start of a round is not playing."""
        return self.online is True


class TableMessages:
    """Results, status and summaries from the tables, for :class:`~.hub.HubService` (whose
    ``__init__`` sets the attributes below)."""

    core: HubCore
    store: HubStore
    lock: threading.RLock
    clock_ms: Callable[[], int]
    event_id: str
    mqtt: HubMqtt | None
    live: dict[str, TableLive]
    lags_ms: deque[int]
    duplicates: int
    flooded: dict[str, int]
    """Per table: bad messages counted but not logged (:meth:`HubState.flooding`), since the start."""
    _flood_said: dict[str, int]
    release_book: ReleaseBook
    """What each duplicate table may release, every round (:mod:`.release`), from the summaries seen
    and the results logged."""
    releases_sent: dict[str, dict[str, Any]]
    """Per table, the release message last published to it since the connection."""
    status_seq: int
    """One more with each table status taken in (online, offline, its panel): with the log's
    ``last_seq``, the version of what the public board shows (:meth:`~.hub.HubService.board_version`)."""

    def handle_batch(self, messages: list[Message]) -> None:
        """Results are logged in one transaction; status and summaries update the live view.

        Every message is first checked field by field (:mod:`.intake`). One that fails is logged
        once (``message_refused``, that table's fault on the overview) and acknowledged with the
        rest: it is never delivered again and blocks nothing. Only a failure of the hub's own log
        (SQLite) leaves the batch unacknowledged, to be delivered again."""
        acks: list[tuple[str, dict[str, Any]]] = []
        now = self.clock_ms()
        with self.lock:
            tables = frozenset(t["id"] for t in (self.core.cfg or {}).get("tables", [])) or None
            applied: list[dict[str, Any]] = []
            # (round, table, id) and (round, table) of results logged in this batch, not yet
            # applied; ("fault", table, digest) of bad messages and ("refused", table, id) of
            # refused results logged in this batch
            pending: set[tuple[Any, ...]] = set()
            with self.store.transaction():
                for table, name, payload, _retained in messages:
                    if not payload:
                        continue  # a cleared retained message
                    try:
                        clean = check_message(table, name, payload, tables, self.event_id)
                        if name == "summary":
                            self._check_summary_round(clean)
                    except BadMessage as exc:
                        heard = self._bad_message(table, name, payload, str(exc), now, applied, pending)
                        ack = (self._malformed_result_ack(table, payload, str(exc), tables, pending)
                               if heard and name == "result" else None)
                        if ack is not None:
                            acks.append((table, ack))
                        continue
                    try:
                        if name == "result":
                            ack = self._table_result(table, clean, now, applied, pending)
                            if ack is not None:
                                acks.append((table, ack))
                        elif name == "status":
                            self._status(table, clean)
                        else:
                            self._summary(table, clean, now)
                    except sqlite3.Error:
                        raise  # the hub's own log failed: nothing is acknowledged, all comes again
                    except Exception as exc:  # a hub bug on one message must not block the others
                        log.exception("hub: message on %s/%s could not be handled", table, name)
                        self._bad_message(table, name, payload, f"赛事中心无法处理（{type(exc).__name__}） / the hub could not handle it "
                                          f"({type(exc).__name__})", now, applied, pending)
            for ev in applied:
                self.core.apply(ev)
            resulted = self.note_results(applied)
        if self.mqtt is not None:
            for table, ack in acks:
                self.mqtt.publish(table, "result_ack", json_payload(ack))
            if resulted or any(name == "summary" for _t, name, _p, _r in messages):
                self.publish_releases()

    def note_results(self, events: list[dict[str, Any]]) -> bool:
        """Mark the duplicate boards whose room has a result among these logged ``events``: the
        room is done with that round (:meth:`.ReleaseBook.note_result`), which the hub's log, unlike
        the summaries, remembers across a restart. Returns whether there was a result."""
        found = False
        with self.lock:
            for ev in events:
                if ev["type"] == "result_recorded" and "table" in ev["data"]["result"]:
                    line = ev["data"]["result"]
                    self.release_book.note_result(self.core.draws, line["table"], line["round"])
                    found = True
        return found

    def publish_releases(self, *, again: bool = False) -> int:
        """Send each table of a duplicate board the release its rooms' summaries and the results in
        the hub's log now allow
        (:mod:`.release`: every round released to it, the latest first-class and the others in
        ``earlier``), retained, QoS 1, when it goes further than the last one sent; ``again``: every
        one, every board worked out afresh (a (re)connect: what was sent before may be lost with the
        broker's memory). A release never goes back: a summary seen out of order cannot withdraw
        what is public. Only the boards the batch's summaries can change are worked out
        (:meth:`.ReleaseBook.update`). Returns how many were published."""
        if self.mqtt is None:
            return 0
        with self.lock:
            if again:
                self.releases_sent.clear()
            changed = self.release_book.update(self.core.draws, everything=again, results=self.core.results)
            if again:
                changed = set(self.release_book.due)
            send: dict[str, dict[str, Any]] = {}
            for t in changed:
                msg = release_message(self.release_book.due.get(t) or {})
                if msg is not None and msg != self.releases_sent.get(t):
                    send[t] = msg
            self.releases_sent.update(send)
        for table, release in sorted(send.items()):
            self.mqtt.publish(table, RELEASE_TOPIC, json_payload(release))
        return len(send)

    def _malformed_result_ack(self, table: str, payload: bytes, reason: str, tables: frozenset[str] | None,
                              pending: set[tuple[Any, ...]]) -> dict[str, Any] | None:
        """The ``refused`` answer to a result message that is not well formed, where it names a
        ``result_id`` the table can match (and the round in it, ``r<round>-s<seq>``); else None.

        Why: the message is logged as the table's fault for the chief referee, but the table's own
        referee would otherwise wait for an answer that never comes. An id already accepted is not
        answered (its retained "accepted" must stay, whether logged before or in this batch), nor a topic
        that is not one of the event's tables."""
        if (tables and table not in tables) or not SEGMENT_RE.match(table):
            return None
        try:
            rid = load_object(payload).get("result_id")
        except BadMessage:
            return None
        if not isinstance(rid, str) or not 1 <= len(rid) <= 64 or not rid.isprintable():
            return None
        rnd = ack_round({"result_id": rid})
        if rnd is None or not 1 <= rnd <= 999 or (rnd, table, rid) in self.core.seen_ids or (rnd, table, rid) in pending:
            return None
        return {"result_id": rid, "status": "refused", "round": rnd, "reason": reason[:300]}

    def _bad_message(self, table: str, name: str, payload: bytes, reason: str, now: int,
                     applied: list[dict[str, Any]], pending: set[tuple[Any, ...]]) -> bool:
        """Log a bad message once (the same bytes again, e.g. a retained message redelivered on
        every reconnect, are counted as a duplicate and not logged again). Returns False where the
        table floods bad messages (counted only: nothing is answered)."""
        digest = hashlib.sha256(name.encode("utf-8", "replace") + b"\0" + payload).hexdigest()[:16]
        table = table[:64]
        key = ("fault", table, digest)
        if (table, digest) in self.core.fault_digests or key in pending:
            self.duplicates += 1
            return True
        in_batch = sum(1 for k in pending if k[0] == "fault" and k[1] == table)
        if self.core.flooding(table, now, in_batch):
            # Counted, not logged: the table's fault count on the overview goes on rising, and one
            # line a minute says so (a credential flooding distinct messages grew the log without bound).
            self.flooded[table] = self.flooded.get(table, 0) + 1
            if now - self._flood_said.get(table, 0) >= FLOOD_SAID_MS:
                self._flood_said[table] = now
                log.warning("hub: table %s floods bad messages: %d counted, not logged one by one (latest: %s)",
                            table, self.flooded[table], reason[:120])
            return False
        pending.add(key)
        applied.append(self.store.append("message_refused", {
            "table": table, "topic": name[:32], "reason": reason[:300], "digest": digest, "size": len(payload),
            "received_ms": now}, t_ms=now, actor=f"table:{table}", role=None))
        log.warning("hub: message on %s/%s refused: %s", table, name, reason)
        return True

    def _status(self, table: str, data: dict[str, Any]) -> None:
        live = self.live.setdefault(table, TableLive(table))
        self.status_seq += 1  # the board shows who is online: its kept JSON is made again
        live.online = data["status"] == "online"
        live.status_ms = data["wall_ms"]
        if data["panel"]:
            live.panel = data["panel"]

    def _check_summary_round(self, data: dict[str, Any]) -> None:
        """A summary of a round this event does not have is refused: kept, it outranked every real
        summary after it (newer by round wins), and froze the table's row on the overview."""
        rounds = int(((self.core.cfg or {}).get("event") or {}).get("rounds") or 0)
        rnd = data.get("round")
        if rounds and isinstance(rnd, int) and rnd > rounds:
            raise BadMessage(f"summary 的轮次 {rnd} 超出本赛事的 {rounds} 轮 / summary names round {rnd}, "
                             f"this event has {rounds} rounds")

    def _summary(self, table: str, data: dict[str, Any], now: int) -> None:
        live = self.live.setdefault(table, TableLive(table))
        old = live.summary

        if takes_summary(live.summary, live.summary_rx_ms, live.logs_left, data, now):
            if old.get("log") and data.get("log") and old["log"] != data["log"]:
                live.logs_left.add(old["log"])  # its late messages no longer outrank the new log's
            live.summary = data
            live.summary_rx_ms = now
        if data["panel"]:
            live.panel = data["panel"]
        # Every summary, the one shown or not: an older one may still hold a round's last count.
        self.release_book.note(self.core.draws, table, data, live.summary.get("round"))

    def _table_result(self, table: str, msg: dict[str, Any], now: int, applied: list[dict[str, Any]],
                      pending: set[tuple[Any, ...]] | None = None) -> dict[str, Any] | None:
        """Accept, drop as duplicate, or refuse (logged, shown to the chief referee) a result
        message that :func:`~.intake.check_result` found well formed."""
        rid = msg["result_id"]
        refusal_id = rid
        line = msg["result"]
        if pending is None:
            pending = set()
        said = json.dumps(line, sort_keys=True)
        if (line["round"], table, rid) in pending:  # logged in this batch: the same result, or another one
            same = (line["round"], table, rid, said) in pending
            verdict, reason = ("duplicate", None) if same else ("refuse", reused_id_reason(rid))
        else:
            verdict, reason = self.core.classify_result(line, rid, agreeing_is_duplicate=True)
            if verdict == "accept" and (line["round"], table) in pending:
                verdict, reason = (("duplicate", None) if ("said", line["round"], table, said) in pending else
                                   ("refuse", "同一桌本轮已有成绩 / the table already has a result for this round"))
        if verdict == "duplicate":
            # Acknowledged again as accepted: a table that sends its result twice (reconnect, QoS 1
            # redelivery) must not see its retained "accepted" turn into something else.
            self.duplicates += 1
            return {"result_id": rid, "status": "accepted", "round": line["round"], "duplicate": True}
        if verdict == "refuse":
            # Against every refusal ever logged (not the chief's list, which forgets cleared ones):
            # a redelivery is never a second entry nor a second fault.
            if (table, refusal_id) in self.core.refused_ids or ("refused", table, refusal_id) in pending:
                self.duplicates += 1
                return {"result_id": rid, "status": "refused", "round": line["round"], "reason": reason}
            listed = self.core.open_refusals(table) + sum(1 for k in pending if k[0] == "refused" and k[1] == table)
            if listed >= MAX_OPEN_REFUSALS_PER_TABLE:
                # The chief's list holds this table's first ones; more are its bad messages (counted).
                more = (f"本桌已有 {listed} 条拒收成绩待处理，本条计为异常消息（{halves(reason)[0]}） / the table has {listed} refused "
                        f"results open: this one is counted as a bad message ({reason})")
                self._bad_message(table, "result", (rid + "\0" + said).encode(), more, now, applied, pending)
                return {"result_id": rid, "status": "refused", "round": line["round"], "reason": reason}
            pending.add(("refused", table, refusal_id))
            applied.append(self.store.append("result_refused", {
                "table": table, "result_id": refusal_id, "reason": reason, "result": line,
                "received_ms": now}, t_ms=now, actor=f"table:{table}", role=None))
            log.warning("hub: result from table %s refused: %s", table, reason)
            # The round goes with every answer: the table shows it under that round's card only.
            return {"result_id": rid, "status": "refused", "round": line["round"], "reason": reason}

        clean = parse_result(line).to_dict()
        data = {"result": clean, "source": "table", "result_id": rid, "table_seq": msg.get("table_seq"),
                "received_ms": now}
        delay_ms = int(round(float(msg.get("feed_delay_s") or 0) * 1000))
        if delay_ms > 0:  # public (board, overlay, standings) once the table's broadcast has shown it
            data["public_ms"] = now + delay_ms
        ev = self.store.append("result_recorded", data, t_ms=now, actor=f"table:{table}", role=None)
        applied.append(ev)
        said = json.dumps(clean, sort_keys=True)
        pending.update({(clean["round"], table, rid), (clean["round"], table), (clean["round"], table, rid, said),
                        ("said", clean["round"], table, said)})
        sent = msg.get("wall_ms")
        if isinstance(sent, int):
            self.lags_ms.append(max(0, self.clock_ms() - sent))
        return {"result_id": rid, "status": "accepted", "round": clean["round"], "hub_seq": ev["seq"]}
