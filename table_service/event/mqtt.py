"""The hub's MQTT client: one persistent session, QoS 1, acknowledged only after the log commit.

``clean_session=False`` with a fixed client id: while the hub is down (restart, ``kill -9``) the
broker keeps its subscriptions and queues every QoS 1 result for it. ``manual_ack=True``: a
message is acknowledged to the broker only after the hub committed what it made of it, so a hub
killed between receiving and committing gets the message again (and its dedupe by result id
makes the second delivery harmless). Messages are handed to one worker thread that takes them in
batches, so a round ending at 500 tables at once costs a few commits, not 500 fsyncs.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from collections.abc import Callable
from typing import Any

import paho.mqtt.client as mqtt

from table_service.views.broker_reach import BrokerReach
from table_service.views.deck_wire import deck_topic
from table_service.web.event_accounts import accounts_topic

log = logging.getLogger(__name__)

#: Table → hub topics the hub reads (``guandan/<event>/<table>/<name>``).
SUBSCRIBED = ("result", "status", "summary")
BATCH_MAX = 500

Message = tuple[str, str, bytes, bool]
"""``(table, topic name, payload, retained)``."""


def json_payload(obj: Any) -> bytes:
    """What the hub publishes to a table (an assignment, a result ack): compact UTF-8 JSON, Chinese
    names as they are, one form for every message the hub sends."""
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class HubMqtt:
    """Subscribes to every table of one event; publishes retained assignments, result acks and releases,
    and the event-wide deck and accounts."""

    def __init__(self, event_id: str, handle_batch: Callable[[list[Message]], None], *, host: str = "127.0.0.1",
                 port: int = 1883, username: str | None = None, password: str | None = None, keepalive: int = 15,
                 on_connected: Callable[[], None] | None = None, client_id: str | None = None,
                 ca_file: str | None = None) -> None:
        self.event_id = event_id
        self.host, self.port, self.keepalive = host, int(port), int(keepalive)
        self.handle_batch = handle_batch
        self.on_connected = on_connected
        self.connected = threading.Event()
        self._queue: queue.Queue[tuple[Message, int, int] | None] = queue.Queue()
        self._worker: threading.Thread | None = None
        self.received = 0
        self.handled = 0
        """Messages handled and acknowledged (``received`` less this is the intake's backlog)."""
        self.disconnects = 0
        self._stopping = False
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id or f"guandan-hub-{event_id}",
                                  clean_session=False, manual_ack=True)
        if username is not None:
            self.client.username_pw_set(username, password)
        if ca_file:
            self.client.tls_set(ca_certs=str(ca_file))
        self.client.reconnect_delay_set(min_delay=1, max_delay=10)
        self.client.suppress_exceptions = True  # a handler's bug is logged; the hub stays on the broker
        self.client.max_inflight_messages_set(200)
        self.client.max_queued_messages_set(0)
        self.client.on_connect = self._on_connect
        self.client.on_connect_fail = lambda *_a: self.reach.failed()
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.reach = BrokerReach("hub mqtt", self.host, self.port, bool(ca_file), log)

    def topic(self, table: str, name: str) -> str:
        return f"guandan/{self.event_id}/{table}/{name}"

    def start(self) -> HubMqtt:
        self._worker = threading.Thread(target=self._work, name="hub-mqtt-worker", daemon=True)
        self._worker.start()
        self.client.connect_async(self.host, self.port, keepalive=self.keepalive)
        self.client.loop_start()
        return self

    def stop(self) -> None:
        self._stopping = True
        self._queue.put(None)
        if self._worker is not None:
            self._worker.join(10)
        self.client.disconnect()
        self.client.loop_stop()

    def _on_connect(self, client: mqtt.Client, _u: Any, flags: Any, reason_code: Any, _p: Any = None) -> None:
        if reason_code.is_failure:
            log.warning("hub mqtt: 消息服务器拒绝连接（%s） / broker refused: %s", reason_code, reason_code)
            return
        self.reach.reached()
        client.subscribe([(f"guandan/{self.event_id}/+/{name}", 1) for name in SUBSCRIBED])
        self.connected.set()
        log.info("hub mqtt: connected to %s:%s (session present: %s)", self.host, self.port,
                 getattr(flags, "session_present", None))
        if self.on_connected is not None:
            try:
                self.on_connected()
            except Exception:
                log.exception("hub mqtt: on_connected failed")

    def _on_disconnect(self, *_a: Any) -> None:
        self.disconnects += 1
        if self.connected.is_set() and not self._stopping:
            log.warning("hub mqtt: 与消息服务器 %s:%s 断开，正在重连 / disconnected from %s:%s; retrying",
                        self.host, self.port, self.host, self.port)
        self.connected.clear()

    def _on_message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        parts = msg.topic.split("/")
        self.received += 1
        if len(parts) != 4 or parts[3] not in SUBSCRIBED:
            self.client.ack(msg.mid, msg.qos)
            self.handled += 1
            return
        self._queue.put(((parts[2], parts[3], bytes(msg.payload), bool(msg.retain)), msg.mid, msg.qos))

    def _work(self) -> None:
        """Take what has arrived (up to ``BATCH_MAX``), let the hub commit it, then acknowledge."""
        while True:
            first = self._queue.get()
            if first is None:
                return
            items = [first]
            stop = False
            while len(items) < BATCH_MAX:
                try:
                    nxt = self._queue.get_nowait()
                except queue.Empty:
                    break
                if nxt is None:
                    stop = True
                    break
                items.append(nxt)
            try:
                self.handle_batch([m for m, _mid, _q in items])
            except Exception:
                # Nothing is acknowledged: the broker delivers the batch again after a reconnect.
                log.exception("hub: handling %d message(s) failed; not acknowledged", len(items))
                self.client.reconnect()
                continue
            for _m, mid, qos in items:
                if qos > 0:
                    self.client.ack(mid, qos)
            self.handled += len(items)
            if stop:
                return

    def publish(self, table: str, name: str, payload: bytes, *, retain: bool = True) -> None:
        self.client.publish(self.topic(table, name), payload, qos=1, retain=retain)

    def publish_deck(self, payload: bytes) -> None:
        """The event's deck, retained on the event-wide topic (docs/hub-protocol.md)."""
        self.client.publish(deck_topic(self.event_id), payload, qos=1, retain=True)

    def publish_accounts(self, payload: bytes) -> None:
        """The event accounts, retained on the event-wide topic (docs/hub-protocol.md, ``accounts``)."""
        self.client.publish(accounts_topic(self.event_id), payload, qos=1, retain=True)
