"""The MQTT bridge from one table to a tournament hub.

At a large event every table's Pi publishes its *public* state to one broker, where the hub
(results board, broadcast graphics, the chief referee's overview) subscribes to
``guandan/<event>/+/state``. The bridge publishes exactly what the public broadcast feed shows,
because it reads the web engineer's :class:`~table_service.views.feed.FeedView`: the same delay
on the Pi, the same filter (no open flags, no uncertain reads, no confidences, nothing of a held
duplicate deal). Reusing that view instead of filtering again here means there is one place
that decides what is public.

Topics (``<prefix>`` is ``guandan/<event>/<table>``):

``<prefix>/state``
    the public state as JSON, **retained**, so a hub that connects late gets the table at once;
``<prefix>/events``
    each public event as JSON, in order (QoS 1, not retained). A restarted table goes on after the
    last event the broker acknowledged (PUBACK) — kept beside the table's log by
    :mod:`table_service.table.mqtt_acked`, whose docstring says why — instead of sending its
    whole public history again; what was never acknowledged goes out again;
``<prefix>/status``
    ``{"status": "online"|"offline", ...}``, retained; ``offline`` is also the **last will**, so
    the broker announces a table whose Pi lost power or network.
``<prefix>/summary``
    counts for the chief referee's overview (open flags, camera questions, clocks over, penalties,
    round/deal/levels), retained — counts only, never what a flag or a question is about;
``<prefix>/result``
    the round's result once the round has ended **and both sides signed**, retained, QoS 1, sent
    again on every reconnect (the hub drops what it has already, by ``result_id``).

Subscribed: ``<prefix>/assignment`` (the hub's retained assignment for the coming round: teams,
players, directions, ruleset; the panel shows it and starts the round with one tap) and
``<prefix>/result_ack`` (the hub's answer to the result), ``<prefix>/release`` (the hub's release of a
duplicate board's deals once both rooms have ended them: :mod:`table_service.table.hub_release`
logs them as ``deal_released``), and the event-wide ``guandan/<event>/deck``
(the event's enrolled deck: handed to ``deck_listeners``; the summary then says which deck the
table reads with) and ``guandan/<event>/accounts`` (the hub's event accounts: applied to the
panel's users database by :mod:`table_service.table.hub_accounts`). All hub messages are documented
in ``docs/hub-protocol.md``.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import quote

import paho.mqtt.client as mqtt

from table_service.engine.resume import standing as round_standing
from table_service.table.hub_accounts import HubAccounts
from table_service.table.hub_release import HubReleases
from table_service.table.mqtt_acked import AckedEvents, acked_file_for
from table_service.views.assignment import check_result_ack, set_up_data
from table_service.views.broker_reach import BrokerReach
from table_service.views.deck_wire import deck_topic, read_deck_message, read_withdrawal
from table_service.views.feed import FeedView
from table_service.views.panel_url import own_panel_url, panel_url_problem
from table_service.views.release_wire import RELEASE_TOPIC, deals_ended
from table_service.views.wire import SEGMENT_RE, loads_strict, table_result
from table_service.web.event_accounts import accounts_topic

log = logging.getLogger(__name__)

def table_summary(state: dict[str, Any], table_id: str, panel: str | None, deck: str | None = None,
                  camera: bool | None = None, *, feed_delay_s: float = 0.0, feed_holds: bool = False,
                  log: str | None = None) -> dict[str, Any]:
    """Counts for the chief referee's overview (no content of flags or questions); ``deck``: the
    SHA-256 of the enrolment the camera reads with, when the hub handed it one; ``camera``: whether
    this table has a camera at all (one without reads no deck, and is not "off the event's deck").
    A duplicate board's round adds ``deals_ended`` (deals 1..n of the round are over): the hub
    releases a deal at both rooms once both have ended it. Absent otherwise, so a hub of an earlier
    release, which refuses a field it does not know, still reads every table of a plain event.
    ``feed_delay_s`` / ``feed_holds``: the table's public broadcast, its delay and whether it holds
    deals for release, for the hub's 直播 page (the producers); absent when 0 / false, likewise.
    ``log``: the identity of the table's event log (:attr:`~table_service.store.event_log.EventStore.log_id`):
    a replaced Pi's new log numbers its seqs from 1 again, and the hub, which keeps a table's highest
    ``last_seq``, takes a summary of another log at once instead of ignoring it for a minute."""
    rnd, deal = state.get("round") or {}, state.get("deal") or {}
    now = state.get("t_ms") or 0
    flags = [f for f in state.get("flags") or [] if f.get("status") == "open"]
    timers = (deal.get("timers") or {}).values() if deal.get("phase") not in (None, "over") else ()
    pens = state.get("penalties") or {}
    out: dict[str, Any] = {"table": table_id, "round": rnd.get("no"), "round_status": rnd.get("status"),
                       "teams": rnd.get("teams"), "deal": deal.get("no"), "levels": state.get("levels"),
                       "open_flags": len(flags), "doubts": len(deal.get("questions") or []),
                       # A flag names its rule under "rule" (engine.flags.raise_flag); "kind" is an effect's key.
                       "clocks_over": sum(1 for f in flags if f.get("rule") == "time_over")
                       + sum(1 for t in timers if isinstance(t, dict) and now > int(t.get("deadline_ms") or now)),
                       "penalties": {side: dict(pens.get(side) or {}) for side in ("NS", "EW")},
                       "signed": state.get("signatures"), "finished": state.get("result") is not None,
                       "panel": panel, "deck": deck, "camera": camera, "last_seq": state.get("last_seq"),
                       "wall_ms": int(time.time() * 1000)}
    if rnd.get("board"):
        out["deals_ended"] = deals_ended(rnd, state.get("deal"))
    if feed_delay_s > 0:
        out["feed_delay_s"] = round(float(feed_delay_s), 3)
    if feed_holds:
        out["feed_holds"] = True
    if log is not None:
        out["log"] = log
    # Where the round stands beyond its levels, once a deal has ended: what the hub carries to a spare
    # table if this one fails (engine/resume.py). Absent before, like the fields above.
    standing = round_standing(state) if state.get("round") else None
    if standing:
        out["standing"] = standing
    return out


def _segment(value: str, what: str) -> str:
    """A topic segment: no wildcards, no separators (a table id with ``/`` or ``#`` would publish
    somewhere else or be refused by the broker)."""
    value = str(value)
    if not SEGMENT_RE.match(value):
        raise ValueError(f"{what} {value!r} 不能用作 MQTT 主题（须为 1–64 个字母、数字或 _ . -） / "
                         f"invalid {what} {value!r} for an MQTT topic (1-64 letters, digits, _ . -)")
    return value


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class MqttBridge:
    """Publishes one table's public state and events to an MQTT broker.

    :param runner: the table's ``TableRunner`` (``subscribe``/``events``/``state``).
    :param host, port: the broker.
    :param event_id: the tournament's id (topic segment).
    :param table_id: this table's id (topic segment).
    :param delay_s: the public delay, as for the broadcast feed.
    :param duplicate: hold each deal until the chief referee releases it, as the broadcast feed does in
        duplicate play (the bridge's own feed only: a shared ``feed`` is already set).
    :param clock: "now" in the runner's ``t_ms`` units (the demo's compressed clock); default
        Unix epoch ms, as the service stamps events.
    :param feed: an existing :class:`~table_service.views.feed.FeedView` to share (the service
        passes the web app's, so both delay the same way); one is made when ``None``.
    :param username, password: broker credentials (the table's own, from ``event provision``).
    :param ca_file: the event's CA certificate: connect with TLS and check the broker's certificate.
    :param acked_file: where the acknowledged mark of the ``events`` topic is kept across restarts
        (:mod:`table_service.table.mqtt_acked`); default: beside the runner's log
        (``<log>.mqtt-acked.json`` in the table's data folder); a runner without a log file keeps
        it in memory only.
    :param users_db: the panel's users database: the hub's event accounts are applied to it
        (:mod:`table_service.table.hub_accounts`); None: no panel, no logins to give.
    :raises ValueError: an event or table id that cannot be a topic segment.
    """

    def __init__(self, runner: Any, *, host: str = "127.0.0.1", port: int = 1883, event_id: str = "event",
                 table_id: str = "T1", delay_s: float = 0.0, clock: Callable[[], float] | None = None,
                 feed: Any = None, username: str | None = None, password: str | None = None,
                 keepalive: int = 15, qos: int = 1, client_id: str | None = None,
                 panel_url: str | None = None, ca_file: str | None = None, duplicate: bool = False,
                 acked_file: str | os.PathLike[str] | None = None,
                 users_db: str | os.PathLike[str] | None = None) -> None:
        self.event_id = _segment(event_id, "赛事编号 / event id")
        self.table_id = _segment(table_id, "桌号 / table id")
        self.prefix = f"guandan/{self.event_id}/{self.table_id}"
        self.host, self.port, self.qos, self.keepalive = host, int(port), int(qos), int(keepalive)
        self._own_feed = feed is None
        if feed is None:
            feed = FeedView(runner, delay_s=delay_s, clock=clock, duplicate=duplicate)
        self.feed = feed
        self._lock = threading.Lock()
        self._connected = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if acked_file is None and getattr(runner, "db_path", None) is not None:
            acked_file = acked_file_for(runner.db_path)
        self.acked = AckedEvents(acked_file, event_id=self.event_id, table_id=self.table_id,
                                 broker=f"{host}:{int(port)}")
        # The events topic goes on after what the broker acknowledged before a restart, not from 0.
        self._last_seq = self.acked.resume(lambda seq: _log_event(runner, seq))
        # Held around each publish() and the registration of its id, and around every match of
        # acknowledgements (publish_due, acked_seq, stop): never taken on paho's thread.
        self._publish_lock = threading.Lock()
        self._queue_full = False
        self._gap_said = False
        #: The public state last put on ``state``: its seq and its ``held`` (a duplicate deal's hold
        #: changes the state without an event, and a viewer of the retained state must see it too).
        self._last_state_seq: tuple[int, Any] | None = None
        self.published_events = 0
        self.published_states = 0
        self.runner = runner
        self.panel_url = own_panel_url(panel_url, self.table_id)
        problem = panel_url_problem(self.panel_url, self.table_id) if self.panel_url else None
        if problem:
            # The hub would refuse every status and summary that carried it (the table unseen on the
            # overview): said, and not announced. ``config check`` refuses it before this.
            log.warning("mqtt: panel_url not announced: %s", problem)
            self.panel_url = None
        self.assignment: dict[str, Any] | None = None
        self.result_ack: dict[str, Any] | None = None
        self._table_changed = threading.Event()
        self._sent_result: str | None = None
        self._sent_summary: dict[str, Any] | None = None
        self._table_thread: threading.Thread | None = None
        self._unsubscribe: Callable[[], None] | None = None
        self.assignment_listeners: list[Callable[[dict[str, Any]], None]] = []
        #: Called with ``(file bytes, sha256, meta)`` of the event's deck; one that returns True has
        #: taken it into use, and the summary then names it (:attr:`deck_sha`).
        self.deck_listeners: list[Callable[[bytes, str, dict[str, Any]], bool]] = []
        #: Called with the SHA-256 of a deck the hub withdrew (retained: a table that comes up later
        #: hears it too); the listener drops the table's copy if it is that deck.
        self.deck_withdrawn_listeners: list[Callable[[str], Any]] = []
        self.deck_sha: str | None = None
        #: The hub's releases of this table's duplicate board (``<prefix>/release``).
        self.releases = HubReleases(runner, self.table_id)
        #: The hub's event accounts, made this table's ``hub`` accounts (``guandan/<event>/accounts``).
        self.accounts = HubAccounts(users_db, self.event_id, self.table_id)
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2,
                                  client_id=client_id or f"guandan-{self.event_id}-{self.table_id}",
                                  clean_session=True)
        if username is not None:
            self.client.username_pw_set(username, password)
        if ca_file:  # TLS to the venue's broker, its certificate checked against the event's CA
            self.client.tls_set(ca_certs=str(ca_file))
        self.client.will_set(self.topic("status"), self._status_payload("offline", will=True), qos=1, retain=True)
        self.client.reconnect_delay_set(min_delay=1, max_delay=30)
        self.client.max_queued_messages_set(10000)
        # A handler that raises despite its own checks is logged, not allowed to end paho's
        # network thread (the table would be cut off the hub for good, silently).
        self.client.suppress_exceptions = True
        self.client.on_connect = self._on_connect
        self.reach = BrokerReach(f"mqtt table {table_id}", self.host, self.port, bool(ca_file), log)
        self.client.on_connect_fail = lambda *_a: self.reach.failed()
        self.client.on_disconnect = self._on_disconnect
        self.client.on_publish = self._on_publish
        self.client.message_callback_add(self.topic("assignment"), self._on_assignment)
        self.client.message_callback_add(self.topic("result_ack"), self._on_result_ack)
        self.client.message_callback_add(self.topic(RELEASE_TOPIC), self._on_release)
        self.client.message_callback_add(deck_topic(self.event_id), self._on_deck)
        self.client.message_callback_add(accounts_topic(self.event_id), self._on_accounts)

    # ---------------------------------------------------------------------------- topics

    def topic(self, name: str) -> str:
        """``guandan/<event>/<table>/<name>``."""
        return f"{self.prefix}/{name}"

    def _status_payload(self, status: str, *, will: bool = False) -> bytes:
        return _dumps({"table": self.table_id, "event": self.event_id, "status": status,
                       "reason": "connection lost" if will else None, "wall_ms": int(time.time() * 1000),
                       "panel": self.panel_url})

    # ------------------------------------------------------------------- hub → table

    def _on_assignment(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        """The hub's retained assignment (an empty payload clears it)."""
        if not msg.payload:
            self.assignment = None
            return
        try:
            data = loads_strict(msg.payload.decode("utf-8"))
        except ValueError as exc:  # not UTF-8, not JSON, NaN, nested too deep: the one it had stays
            log.warning("mqtt: unreadable assignment on %s: %s", msg.topic, str(exc)[:120])
            return
        if not isinstance(data, dict) or data.get("table") != self.table_id:
            log.warning("mqtt: assignment for another table ignored: %r", data)
            return
        try:
            set_up_data(data)
        except ValueError as exc:  # the one it had stays: the panel's start would fail on this one
            log.warning("mqtt: assignment refused on %s: %s", msg.topic, exc)
            return
        self.assignment = data
        for fn in list(self.assignment_listeners):
            try:
                fn(data)
            except Exception:  # a listener must not break the bridge
                log.exception("mqtt: assignment listener failed")

    def _on_deck(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        """The event's deck (retained: a table that starts late gets it at once). A bad message is
        logged and changes nothing; the same deck again (every reconnect) is not loaded again."""
        if not msg.payload:
            return  # nothing retained, or cleared: the table keeps what it reads with
        withdrawn = read_withdrawal(bytes(msg.payload))
        if withdrawn is not None:
            for fn in list(self.deck_withdrawn_listeners):
                try:
                    fn(withdrawn)
                except Exception:  # a listener must not break the bridge
                    log.exception("mqtt: deck withdrawal listener failed")
            if self.deck_sha == withdrawn:
                self.deck_sha = None
            self._table_changed.set()
            return
        try:
            data, sha, meta = read_deck_message(bytes(msg.payload))
        except ValueError as exc:
            log.warning("mqtt: deck refused: %s", exc)
            return
        if sha == self.deck_sha:
            return
        for fn in list(self.deck_listeners):
            try:
                if fn(data, sha, meta):
                    self.deck_sha = sha
            except Exception:  # a listener must not break the bridge
                log.exception("mqtt: deck listener failed")
        self._table_changed.set()

    def _on_result_ack(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        """The hub's answer to the result (retained). One that is not an answer (unreadable, another
        shape) is logged and the one the table had stays: the panel shows it as it is."""
        try:
            self.result_ack = check_result_ack(loads_strict(msg.payload.decode("utf-8"))) if msg.payload else None
        except ValueError as exc:
            log.warning("mqtt: result_ack refused on %s: %s", msg.topic, str(exc)[:160])

    def _on_release(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        """The hub's release of this table's board (retained): see :class:`HubReleases`."""
        self.releases.on_payload(bytes(msg.payload))

    def _on_accounts(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        """The hub's event accounts (retained): see :class:`HubAccounts`."""
        self.accounts.on_payload(bytes(msg.payload))

    def _table_loop(self) -> None:
        """Publish the summary and, once signed, the result whenever the table changes."""
        while not self._stop.is_set():
            self._table_changed.wait(1.0)
            self._table_changed.clear()
            if self._stop.is_set():
                return
            try:  # a deal that ended since the hub's release came may be released now
                self.releases.apply()
            except Exception:
                log.exception("mqtt: applying the hub's release failed")
            try:
                self.publish_table_side()
            except Exception:
                log.exception("mqtt: publishing summary/result failed")

    def publish_table_side(self) -> bool:
        """Publish the overview summary (if changed) and the signed result (once per connection).
        Returns True when a result went out."""
        if not self._connected.is_set():
            return False
        state = self.runner.state()
        holds = getattr(self.feed, "holds_deals", None)
        summary = table_summary(state, self.table_id, self.panel_url, self.deck_sha,
                                camera=getattr(self.runner, "camera_pipeline", None) is not None,
                                feed_delay_s=float(getattr(self.feed, "delay_ms", 0.0)) / 1000.0,
                                feed_holds=bool(callable(holds) and holds()),
                                log=getattr(self.runner, "log_id", None))
        # Sent when something the overview shows changed, not on every event (last_seq alone).
        key = {k: v for k, v in summary.items() if k not in ("wall_ms", "last_seq")}
        with self._lock:
            changed = key != self._sent_summary
            self._sent_summary = key
        if changed:
            self.client.publish(self.topic("summary"), _dumps(summary), qos=self.qos, retain=True)
        result = table_result(state, self.table_id, log=getattr(self.runner, "log_id", None))
        if result is None:
            return False
        # The hub shows it in public (board, overlay, standings) no sooner than this table's own
        # broadcast shows the deal that decided it.
        delay_s = round(float(getattr(self.feed, "delay_ms", 0.0)) / 1000.0, 3)
        if delay_s > 0:  # absent when none: a hub of an earlier release refuses a field it does not know
            result["feed_delay_s"] = delay_s
        with self._lock:
            if result["result_id"] == self._sent_result:
                return False
            self._sent_result = result["result_id"]
        self.client.publish(self.topic("result"), _dumps(result), qos=1, retain=True)
        log.info("mqtt: result %s of table %s sent", result["result_id"], self.table_id)
        return True

    # ------------------------------------------------------------------------- lifecycle

    def start(self) -> MqttBridge:
        """Connect in the background (retrying while the broker is away) and start publishing."""
        self.client.connect_async(self.host, self.port, keepalive=self.keepalive)
        self.client.loop_start()
        self._thread = threading.Thread(target=self._run, name=f"mqtt-{self.table_id}", daemon=True)
        self._thread.start()
        if hasattr(self.runner, "subscribe"):
            self._unsubscribe = self.runner.subscribe(lambda _ev, _st: self._table_changed.set())
        self._table_thread = threading.Thread(target=self._table_loop, name=f"mqtt-hub-{self.table_id}", daemon=True)
        self._table_thread.start()
        return self

    def wait_connected(self, timeout: float = 10.0) -> bool:
        """Block until the broker accepted the connection."""
        return self._connected.wait(timeout)

    @property
    def is_connected(self) -> bool:
        return self._connected.is_set()

    def stop(self, timeout: float = 5.0) -> None:
        """Announce ``offline`` (retained), flush and disconnect; the table is going down on purpose."""
        self._stop.set()
        self.feed.wake()
        self._table_changed.set()
        if self._unsubscribe is not None:
            self._unsubscribe()
        if self._thread is not None:
            self._thread.join(timeout)
        if self._table_thread is not None:
            self._table_thread.join(timeout)
        try:
            if self._connected.is_set():
                info = self.client.publish(self.topic("status"), self._status_payload("offline"), qos=1, retain=True)
                info.wait_for_publish(timeout)
        except (RuntimeError, ValueError) as exc:  # not connected any more: the will covers it
            log.warning("mqtt: could not publish offline status: %s", exc)
        # The broker answers in order, so the events' PUBACKs came before the status's: save the mark
        # now, or the next start would send again up to a second's worth of acknowledged events.
        with self._publish_lock:
            self.acked.checkpoint(force=True)
        self.client.disconnect()
        self.client.loop_stop()
        if self._own_feed:
            self.feed.close()

    def __enter__(self) -> MqttBridge:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -------------------------------------------------------------------------- callbacks

    def _on_connect(self, client: mqtt.Client, _userdata: Any, _flags: Any, reason_code: Any,
                    _properties: Any = None) -> None:
        if reason_code.is_failure:
            log.warning("mqtt: 消息服务器 %s:%s 拒绝连接（%s） / broker %s:%s refused the connection: %s",
                        self.host, self.port, reason_code, self.host, self.port, reason_code)
            return
        self.reach.reached()
        log.info("mqtt: connected to %s:%s as %s", self.host, self.port, self.prefix)
        client.publish(self.topic("status"), self._status_payload("online"), qos=1, retain=True)
        client.subscribe([(self.topic("assignment"), 1), (self.topic("result_ack"), 1),
                          (self.topic(RELEASE_TOPIC), 1), (deck_topic(self.event_id), 1),
                          (accounts_topic(self.event_id), 1)])
        # A (re)connected hub must see the current table at once, whatever happened meanwhile.
        with self._lock:
            self._last_state_seq = None
            self._sent_result = None
            self._sent_summary = None
        self._connected.set()
        self.feed.wake()
        self._table_changed.set()

    def _on_disconnect(self, _client: mqtt.Client, _userdata: Any, _flags: Any, reason_code: Any,
                       _properties: Any = None) -> None:
        if self._connected.is_set() and not self._stop.is_set():
            log.warning("mqtt: 与消息服务器 %s:%s 断开（%s），正在重连 / disconnected from %s:%s (%s); retrying",
                        self.host, self.port, reason_code, self.host, self.port, reason_code)
        self._connected.clear()

    # ----------------------------------------------------------------------------- publish

    def _run(self) -> None:
        """Wait on the feed's broadcaster and publish what became public."""
        cursor = self.feed.broadcaster.snapshot()[2]
        while not self._stop.is_set():
            try:
                self.publish_due()
            except Exception:  # a broken publish must not end the bridge; the next wake retries
                log.exception("mqtt: publish failed")
            got = self.feed.broadcaster.wait(cursor, 1.0)
            if got is None:
                if self.feed.broadcaster.closed:
                    return
                cursor = self.feed.broadcaster.snapshot()[2]
                continue
            cursor = got[1]

    def publish_due(self) -> int:
        """Publish the public events not sent yet and, if it changed, the public state.

        Returns the number of events published. Events go out even while the broker is away
        (paho queues QoS 1 messages and sends them on reconnect), so a hub sees every event. An
        event paho would not queue (its queue of 10,000 full after a long outage) is not counted
        as sent: it is tried again on the next wake, never skipped. Each event handed to paho is
        registered with :attr:`acked`, and the acknowledged mark is saved (at most once a second)."""
        with self._publish_lock:
            evicted = int(getattr(self.feed, "evicted_seq", 0) or 0)
            if self._last_seq < evicted and not self._gap_said:
                # Never silent: a broker away for longer than the feed keeps (views.feed.PUBLIC_EVENTS_KEPT).
                log.error("mqtt: 公开事件 %s 之后、%s 之前的部分事件已不在内存中，未能发出 / public events after %s "
                          "up to %s are no longer held and were not published", self._last_seq, evicted,
                          self._last_seq, evicted)
                self._gap_said = True
            events = self.feed.events(after=self._last_seq)
            sent = 0
            for ev in events:
                info = self.client.publish(self.topic("events"), _dumps(ev), qos=self.qos, retain=False)
                if info.rc == mqtt.MQTT_ERR_QUEUE_SIZE:
                    if not self._queue_full:
                        log.warning("mqtt: 发送队列已满，第 %s 条稍后再发 / paho's queue is full: event %s and "
                                    "the ones after it wait for the broker", ev["seq"], ev["seq"])
                    self._queue_full = True
                    break
                self._queue_full = False
                self.acked.sent(ev, info.mid)
                self._last_seq = int(ev["seq"])
                self.published_events += 1
                sent += 1
            self.acked.checkpoint()
        if self._connected.is_set():
            state = self.feed.state()
            seq = (int(state.get("last_seq") or 0), state.get("held"))
            with self._lock:
                changed = seq != self._last_state_seq
                self._last_state_seq = seq
            if changed:
                self.client.publish(self.topic("state"), _dumps(state), qos=self.qos, retain=True)
                self.published_states += 1
        return sent

    def _on_publish(self, _client: mqtt.Client, _userdata: Any, mid: int, reason_code: Any = None,
                    _properties: Any = None) -> None:
        """paho's network thread: the broker acknowledged message ``mid``. Only noted here; the
        bridge's thread matches it to an event (see :mod:`table_service.table.mqtt_acked`)."""
        if reason_code is not None and getattr(reason_code, "is_failure", False):
            log.warning("mqtt: broker answered message %s with %s", mid, reason_code)
        self.acked.on_publish(mid)

    @property
    def acked_seq(self) -> int:
        """The seq up to which the broker acknowledged every public event this bridge published
        (or the one resumed from the file); 0 when none yet."""
        with self._publish_lock:  # never between a publish() and its sent() (see mqtt_acked)
            mark = self.acked.advance()
        return 0 if mark is None else mark.seq


def _log_event(runner: Any, seq: int) -> dict[str, Any] | None:
    """Event ``seq`` of the runner's log, or None (past its end, or a runner without a log)."""
    events = getattr(runner, "events", None)
    if events is None:
        return None
    got = events(after=seq - 1)
    return got[0] if got and int(got[0].get("seq", -1)) == seq else None


def announced_panel_url(host: str, port: int, table_id: str, *, broker: str) -> str:
    """The panel address this table announces to the hub (``status.panel``) when ``table.toml``
    names none (``[mqtt] panel_url``): the chief referee's overview links every table with one tap,
    and an organiser with 500 tables should not have to type 500 addresses.

    A panel served on every interface (``0.0.0.0``) is announced at the address this machine uses
    to reach the broker — the one the hall's network routes — found by a UDP ``connect``, which
    sends nothing; the host name if even that fails.
    """
    addr = host
    if host in ("", "0.0.0.0", "::"):
        addr = _address_towards(broker) or socket.gethostname()
    shown = f"[{addr}]" if ":" in addr else addr
    return f"http://{shown}:{int(port)}/tables/{quote(str(table_id), safe='')}"


def _address_towards(host: str) -> str | None:
    """This machine's address on the route to ``host`` (no packet is sent), or None."""
    try:
        infos = socket.getaddrinfo(host, 1883, type=socket.SOCK_DGRAM)
        family, _, _, _, sockaddr = infos[0]
        with socket.socket(family, socket.SOCK_DGRAM) as s:
            s.connect(sockaddr)
            return str(s.getsockname()[0])
    except (OSError, IndexError, UnicodeError):
        return None


def bridge_from_config(runner: Any, cfg: dict[str, Any], *, table_id: str, clock: Callable[[], float] | None = None,
                       feed: Any = None, delay_s: float = 0.0, duplicate: bool = False,
                       users_db: str | os.PathLike[str] | None = None) -> MqttBridge:
    """Build a bridge from the ``[mqtt]`` table of the service config.

    Keys: ``host``, ``port``, ``event``, ``username``, ``password``, ``keepalive``, ``panel_url``,
    ``ca_file``. ``users_db``: the panel's users database, for the hub's event accounts.

    :raises ValueError: an unknown key (a typo must not silently drop the hub connection).
    """
    known = {"host", "port", "event", "username", "password", "keepalive", "enabled", "panel_url", "ca_file"}
    unknown = set(cfg) - known
    if unknown:
        raise ValueError(f"[mqtt] 未知配置项 {sorted(unknown)}（已知：{sorted(known)}） / "
                         f"unknown key(s) {sorted(unknown)} (known: {sorted(known)})")
    return MqttBridge(runner, host=str(cfg.get("host", "127.0.0.1")), port=int(cfg.get("port", 1883)),
                      event_id=str(cfg.get("event", "event")), table_id=table_id, delay_s=delay_s, clock=clock,
                      feed=feed, username=cfg.get("username"), password=cfg.get("password"),
                      keepalive=int(cfg.get("keepalive", 15)), panel_url=cfg.get("panel_url"),
                      ca_file=cfg.get("ca_file"), duplicate=duplicate, users_db=users_db)
