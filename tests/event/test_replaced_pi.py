"""A table's Pi replaced mid-round, through the real Mosquitto: the replacement's new event log numbers
its seqs from 1 again, and the hub (which keeps a table's highest ``last_seq``) ignored its summaries
for a minute, the overview showing the dead Pi's last deal. Each summary now names its log
(``log``, docs/hub-protocol.md): another log's summary is taken at once; a late one of the log the
table moved on from is not; a table of an older release (no log) is ordered by seq as before."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from event_helpers import wait_for

from table_service.demo.event_demo import BotEventTable
from table_service.engine.self_play import SelfPlayTable
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.views.assignment import set_up_data

#: The hub's clock stands still in these tests: a summary is never taken because a minute passed.
FIXED_MS = 1_795_000_000_000


def _cfg(broker: Any) -> dict[str, Any]:
    return validate({"event": {"id": "ev", "name": "换机测试", "rounds": 2, "seed": 4,
                               "format": {"kind": "deals", "deals": 2}},
                     "mqtt": broker.hub_mqtt("ev"), "teams": [{"id": f"T{i}"} for i in range(1, 3)]})


def _pi(tmp: Path, broker: Any, folder: str) -> BotEventTable:
    """Table 1's Pi, its event log in ``folder`` (a replacement Pi: a new folder, a new log)."""
    return BotEventTable("1", tmp / folder, port=broker.port, event_id="ev", seed=1, auto=False,
                         login=broker.login("ev", "1"))


def _play_one_deal(pi: BotEventTable) -> None:
    """Set the assigned round up and let the bots play its first deal (the round goes on)."""
    setup = set_up_data(pi.bridge.assignment)
    pi._submit("round_set_up", setup)
    bots = SelfPlayTable(7, step_ms=(5, 20))
    bots.state = copy.deepcopy(pi.runner.raw_state())
    for ev in bots.deal():
        pi._submit(ev["type"], ev["data"], source=ev["source"], role=ev.get("role"))


class _Raw:
    """A client with table 1's credential sending what a table would (an older release, a late copy)."""

    def __init__(self, broker: Any) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="raw-replaced-pi")
        self.client.username_pw_set(*broker.login("ev", "1"))
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()

    def summary(self, obj: dict[str, Any]) -> None:
        self.client.publish("guandan/ev/1/summary", json.dumps({"table": "1", **obj}), qos=1).wait_for_publish(5)

    def status(self, status: str) -> None:
        """A marker: handled after what this client sent before it (one connection, in order)."""
        self.client.publish("guandan/ev/1/status", json.dumps({"status": status}), qos=1).wait_for_publish(5)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def test_a_replacement_pis_first_summary_is_shown_at_once(tmp_path: Path, broker: Any) -> None:
    hub = HubService(_cfg(broker), tmp_path / "hub", clock_ms=lambda: FIXED_MS).start()
    old = _pi(tmp_path, broker, "pi-old")
    new = None
    try:
        assert hub.wait_connected(10)
        hub.draw_next("o", "chief")
        hub.publish_draw(1, "o", "chief")
        old.start()
        wait_for(lambda: old.bridge.assignment, what="the old Pi's assignment")
        _play_one_deal(old)
        wait_for(lambda: ((getattr(hub.live.get("1"), "summary", {}) or {}).get("last_seq") or 0) > 10,
                 what="the old Pi's summary, a deal played")
        shown = hub.live["1"].summary
        old_seq = shown["last_seq"]
        assert shown["log"] == old.runner.log_id and shown["round"] == 1
        old.stop()  # the Pi fails: a new one, with a new log, takes its place
        new = _pi(tmp_path, broker, "pi-new").start()
        assert new.runner.log_id != old.runner.log_id
        wait_for(lambda: new.bridge.assignment, what="the new Pi's assignment")
        new._submit("round_set_up", set_up_data(new.bridge.assignment))
        assert new.runner.state()["last_seq"] < old_seq  # its seqs are lower than the dead Pi's
        # Shown at once (the hub's clock stands still: not because a minute passed)
        wait_for(lambda: hub.live["1"].summary.get("log") == new.runner.log_id
                 and hub.live["1"].summary.get("round") == 1, what="the new Pi's summary of round 1")
        assert hub.live["1"].summary["last_seq"] < old_seq

        new.stop()  # the broker's client id is the credential's user: a second client with it ends the first
        wait_for(lambda: hub.live["1"].online is False, what="the new Pi gone")
        raw = _Raw(broker)
        try:
            # A late copy of the old log (a higher seq) does not take the table back to the dead Pi …
            raw.summary({"round": 1, "deal": 2, "last_seq": old_seq + 50, "log": old.runner.log_id})
            raw.status("online")  # … handled after it (one connection, in order)
            wait_for(lambda: hub.live["1"].online, what="the marker")
            assert hub.live["1"].summary["log"] == new.runner.log_id
        finally:
            raw.close()
    finally:
        old.stop()
        if new is not None:
            new.stop()
        hub.stop()


def test_a_table_of_an_older_release_is_ordered_by_seq_as_before(tmp_path: Path, broker: Any) -> None:
    """No ``log`` in its summaries: a lower seq of the same round is an older message, ignored."""
    hub = HubService(_cfg(broker), tmp_path / "hub", clock_ms=lambda: FIXED_MS).start()
    raw = _Raw(broker)
    try:
        assert hub.wait_connected(10)
        raw.summary({"round": 1, "deal": 2, "last_seq": 80})
        wait_for(lambda: (getattr(hub.live.get("1"), "summary", {}) or {}).get("deal") == 2, what="the summary")
        raw.summary({"round": 1, "deal": 1, "last_seq": 3})
        raw.status("offline")
        wait_for(lambda: hub.live["1"].online is False, what="the marker")
        assert hub.live["1"].summary["last_seq"] == 80 and hub.live["1"].summary["log"] is None
    finally:
        raw.close()
        hub.stop()
