"""The MQTT bridge against a real Mosquitto broker: public state retained, public events in order,
nothing hidden leaks, the delay holds, and the last will announces a table that died."""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from table_service.table.mqtt_bridge import MqttBridge
from table_service.table.runner import TableRunner

REPO = Path(__file__).resolve().parents[2]


class Listener:
    """A hub-side subscriber that collects (arrival time, topic, payload)."""

    def __init__(self, port: int, topic: str) -> None:
        self.messages: queue.Queue[tuple[float, str, Any, bool]] = queue.Queue()
        self.all: list[tuple[float, str, Any, bool]] = []
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self._subscribed = threading.Event()
        self.client.on_connect = lambda c, *_: c.subscribe(topic, qos=1)
        self.client.on_subscribe = lambda *_: self._subscribed.set()
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert self._subscribed.wait(5), "subscription not acknowledged"

    def _on_message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        item = (time.time(), msg.topic, json.loads(msg.payload.decode("utf-8")), bool(msg.retain))
        self.all.append(item)
        self.messages.put(item)

    def wait_for(self, pred: Any, timeout: float = 60.0) -> tuple[float, str, Any, bool]:
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no matching MQTT message within {timeout} s; got {[m[1:3] for m in self.all]}")
            try:
                item = self.messages.get(timeout=left)
            except queue.Empty:
                continue
            if pred(item):
                return item

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def submit(runner: TableRunner, etype: str, data: dict, **kw: Any) -> int:
    res = runner.submit({"type": etype, "source": kw.pop("source", "panel"), "data": data, **kw})
    assert res.accepted, res.error
    return int(res.seq)


def start_deal(runner: TableRunner) -> None:
    submit(runner, "round_set_up", {"players": {"E": "e", "S": "s", "W": "w", "N": "n"}, "ruleset": "jiangsu",
                                    "format": {"kind": "deals", "deals": 2}}, role="referee")
    submit(runner, "first_cut_recorded", {"card": "7s"})
    submit(runner, "drawing_finished", {})


def test_public_state_and_events_reach_the_hub(mosquitto: int, runner: TableRunner) -> None:
    hub = Listener(mosquitto, "guandan/ev1/T9/#")
    bridge = MqttBridge(runner, port=mosquitto, event_id="ev1", table_id="T9").start()
    try:
        assert bridge.wait_connected(60)
        hub.wait_for(lambda m: m[1].endswith("/status") and m[2]["status"] == "online")
        start_deal(runner)
        leader = runner.state()["deal"]["turn"]
        submit(runner, "cards_played", {"seat": leader, "cards": ["3s"], "confidence": [0.99]}, source="camera")
        # An uncertain read is a question for the referee, never public.
        q_seq = submit(runner, "cards_played", {"seat": "E" if leader != "E" else "S", "cards": ["Qd"],
                                                 "confidence": [0.41], "uncertain": True}, source="camera")
        # A play out of turn raises an open flag: the public sees the play, not the flag.
        nxt = runner.state()["deal"]["turn"]
        wrong = next(s for s in "ESWN" if s not in (nxt, leader))
        submit(runner, "cards_played", {"seat": wrong, "cards": ["4d"], "confidence": [0.97]}, source="camera")
        last = submit(runner, "passed", {"seat": nxt}, source="screen")

        seen_types: list[str] = []

        def until_last(m: tuple) -> bool:
            if m[1].endswith("/events"):
                seen_types.append(m[2]["type"])
                return m[2]["seq"] == last
            return False

        hub.wait_for(until_last)
        assert seen_types == ["round_set_up", "first_cut_recorded", "drawing_finished", "cards_played",
                              "cards_played", "passed"]
        # The state and event topics are not ordered against each other: the state with the last
        # event may have come before that event (seen under load), so look among those received first.
        def is_last_state(m: tuple) -> bool:
            return m[1].endswith("/state") and m[2]["last_seq"] == last

        state = next((m[2] for m in hub.all if is_last_state(m)), None) or hub.wait_for(is_last_state)[2]
        assert state["deal"]["counts"][leader] == 26
        assert state["flags"] == []  # the out-of-turn flag is still open: not public
        everything = json.dumps([m[2] for m in hub.all])
        assert "confidence" not in everything and "questions" not in everything
        assert all(m[2].get("seq") != q_seq for m in hub.all if m[1].endswith("/events"))

        # A hub that connects later gets the table at once from the retained messages.
        late = Listener(mosquitto, "guandan/ev1/T9/#")
        try:
            late.wait_for(lambda m: {x[1].rsplit("/", 1)[1] for x in late.all} >= {"state", "status"})
            retained = {m[1].rsplit("/", 1)[1]: (m[2], m[3]) for m in late.all}
            assert retained["state"] == (retained["state"][0], True) and retained["state"][0]["last_seq"] == last
            assert retained["status"] == (retained["status"][0], True) and retained["status"][0]["status"] == "online"
        finally:
            late.close()
    finally:
        bridge.stop()
        hub.wait_for(lambda m: m[1].endswith("/status") and m[2]["status"] == "offline")
        hub.close()


def test_delay_holds_on_the_pi(mosquitto: int, runner: TableRunner) -> None:
    """Nothing reaches the broker before its event time plus the delay."""
    delay_s = 1.5
    hub = Listener(mosquitto, "guandan/ev1/D1/events")
    bridge = MqttBridge(runner, port=mosquitto, event_id="ev1", table_id="D1", delay_s=delay_s).start()
    try:
        assert bridge.wait_connected(60)
        start_deal(runner)
        events = {e["seq"]: e for e in runner.events()}
        got = [hub.wait_for(lambda m: True) for _ in range(3)]
        for arrived, _topic, ev, _ in got:
            assert arrived * 1000 >= events[ev["seq"]]["t_ms"] + delay_s * 1000 - 5
    finally:
        bridge.stop()
        hub.close()


def test_the_result_names_the_table_s_broadcast_delay(mosquitto: int, runner: TableRunner) -> None:
    """The hub shows a result in public no sooner than the table's broadcast shows the deal that
    decided it: the result message carries the table's feed delay (docs/hub-protocol.md)."""
    import copy

    from table_service.engine.self_play import SelfPlayTable

    setup = {"players": {"N": "n", "S": "s", "E": "e", "W": "w"}, "teams": {"NS": "T1", "EW": "T2"},
             "ruleset": "jiangsu", "format": {"kind": "deals", "deals": 1}}
    submit(runner, "round_set_up", setup, role="referee")
    bots = SelfPlayTable(3, step_ms=(5, 20))
    bots.state = copy.deepcopy(runner.raw_state())
    while runner.state()["result"] is None:
        for ev in bots.deal():
            assert runner.submit({"type": ev["type"], "source": ev["source"], "role": ev.get("role"),
                                  "data": ev["data"]}).accepted
    for side in ("NS", "EW"):
        submit(runner, "score_sheet_signed", {"side": side}, role="referee")
    listener = Listener(mosquitto, "guandan/ev1/R1/result")
    bridge = MqttBridge(runner, port=mosquitto, event_id="ev1", table_id="R1", delay_s=45).start()
    try:
        _, _, msg, _ = listener.wait_for(lambda m: True)
        assert msg["feed_delay_s"] == 45 and msg["result"]["table"] == "R1"
    finally:
        bridge.stop()
        listener.close()


def test_bad_topic_segment_is_refused(runner: TableRunner) -> None:
    with pytest.raises(ValueError, match="table id"):
        MqttBridge(runner, table_id="T1/#")


def test_last_will_marks_a_killed_table_offline(mosquitto: int, tmp_path: Path) -> None:
    script = textwrap.dedent(f"""
        import sys, time
        from table_service.table.runner import TableRunner
        from table_service.table.mqtt_bridge import MqttBridge
        r = TableRunner({str(tmp_path / 'will.sqlite3')!r}).start()
        b = MqttBridge(r, port={mosquitto}, event_id="ev1", table_id="W1").start()
        assert b.wait_connected(60)
        print("ready", flush=True)
        time.sleep(600)  # killed by the test long before; a clean exit would send no will
    """)
    hub = Listener(mosquitto, "guandan/ev1/W1/status")
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None
        assert proc.stdout.readline().strip() == "ready"
        hub.wait_for(lambda m: m[2]["status"] == "online")
        proc.send_signal(signal.SIGKILL)
        proc.wait(60)
        _, _, status, _ = hub.wait_for(lambda m: m[2]["status"] == "offline")
        assert status["reason"] == "connection lost"
    finally:
        if proc.poll() is None:
            proc.kill()
        hub.close()


def test_the_retained_state_says_when_a_duplicate_deal_is_held(mosquitto: int, runner: TableRunner) -> None:
    """The s37 producer's audit: a held deal changes the public state without an event (``held``), so the
    bridge, which put the state on the broker only when its seq moved, left the hub's retained copy
    saying nothing of the hold. Both the hold and its end reach the broker."""
    hub = Listener(mosquitto, "guandan/ev1/H1/state")
    bridge = MqttBridge(runner, port=mosquitto, event_id="ev1", table_id="H1").start()
    try:
        assert bridge.wait_connected(60)
        seq = submit(runner, "round_set_up", {"players": {"E": "e", "S": "s", "W": "w", "N": "n"},
                                              "format": {"kind": "deals", "deals": 2}, "board": "R1-M1"},
                     role="referee")
        hub.wait_for(lambda m: m[2]["last_seq"] == seq and m[2]["held"] is None)
        # The cut card is one of deal 1's cards: with it the deal is held (s38), before the drawing ends.
        submit(runner, "first_cut_recorded", {"card": "7s"})
        held = hub.wait_for(lambda m: m[2]["held"] is not None)[2]
        assert held["held"] == {"deal": 1, "reason": "duplicate board"} and held["last_seq"] == seq
        submit(runner, "drawing_finished", {"counts": {"E": 1, "S": 1, "W": 1, "N": 1}})
        for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s")):
            submit(runner, "cards_played", {"seat": seat, "cards": [card]}, source="camera")
        submit(runner, "deal_released", {"deal": 1}, role="chief")
        end = hub.wait_for(lambda m: m[2]["deal"] is not None and m[2]["deal"]["phase"] == "over")[2]
        assert end["held"] is None
    finally:
        bridge.stop()
        hub.close()
