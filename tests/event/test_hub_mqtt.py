"""The hub and tables over a real Mosquitto, with faults: a table offline during its result, the hub
killed (-9) and restarted mid-round, the broker restarted, duplicate and out-of-order deliveries,
and results for rounds or tables that were not drawn (refused, shown to the chief referee)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt

from table_service.demo.event_demo import BotEventTable
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.views.assignment import check_result_ack

REPO = Path(__file__).resolve().parents[2]


def wait_for(cond: Callable[[], Any], timeout: float = 20.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not met within {timeout} s")
        time.sleep(0.05)


def cfg_for(broker: Any, n_tables: int, rounds: int = 2) -> dict[str, Any]:
    return validate({"event": {"id": "ev", "name": "故障测试", "rounds": rounds, "seed": 4,
                               "format": {"kind": "deals", "deals": 1}},
                     "mqtt": broker.hub_mqtt("ev"),
                     "teams": [{"id": f"T{i}"} for i in range(1, 2 * n_tables + 1)]})


def tables(tmp: Path, broker: Any, n: int) -> list[BotEventTable]:
    return [BotEventTable(str(i), tmp / "tables", port=broker.port, event_id="ev", seed=i, auto=False,
                          login=broker.login("ev", str(i))) for i in range(1, n + 1)]


def publish_round_one(hub: HubService) -> None:
    """The hub on the broker, round 1 drawn and published (retained) by the chief."""
    assert hub.wait_connected(10)
    hub.draw_next("o", "chief")
    hub.publish_draw(1, "o", "chief")


def bring_up(ts: list[BotEventTable]) -> None:
    """The tables' Pis come up and each finds its retained assignment."""
    for t in ts:
        t.start()
    wait_for(lambda: all(t.bridge.assignment for t in ts), what="assignments")


def test_table_offline_during_its_result_then_back(tmp_path: Path, broker: Any) -> None:
    hub = HubService(cfg_for(broker, 2), tmp_path / "hub").start()
    ts = tables(tmp_path, broker, 2)
    try:
        publish_round_one(hub)
        # The tables' Pis come up after the draw: the retained assignment is waiting for them.
        bring_up(ts)
        wait_for(lambda: all(hub.live.get(t.table_id) and hub.live[t.table_id].online for t in ts), what="online")
        t1 = ts[0]
        t1.bridge.stop()  # network gone before the round ends
        wait_for(lambda: hub.live["1"].online is False, what="table 1 offline")
        t1.play_assigned()  # the round ends and both sides sign while offline
        assert (1, "1") not in hub.core.results
        ts[1].play_assigned()
        wait_for(lambda: (1, "2") in hub.core.results, what="table 2 result")
        t1.reconnect()
        wait_for(lambda: (1, "1") in hub.core.results, what="table 1 result after reconnect")
        assert hub.live["1"].online is True
        assert hub.core.results[(1, "1")].source == "table" and hub.core.round_complete(1)
        wait_for(lambda: (t1.bridge.result_ack or {}).get("status") == "accepted", what="ack")
    finally:
        for t in ts:
            t.stop()
        hub.stop()


def _count_results(db: Path) -> int:
    if not db.exists():
        return 0
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return int(conn.execute("SELECT count(*) FROM hub_events WHERE type='result_recorded'").fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


def _start_hub_process(event_toml: Path, data: Path) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with (data.parent / "hub-process.log").open("ab") as log:  # a file, never a pipe nobody reads
        return subprocess.Popen([sys.executable, "-m", "table_service", "hub", "--event", str(event_toml), "--data",
                                 str(data), "--port", "0"], env=env, stdout=log, stderr=subprocess.STDOUT)


def test_hub_killed_and_restarted_mid_round_loses_nothing(tmp_path: Path, broker: Any) -> None:
    n = 4
    cfg = cfg_for(broker, n)
    event_toml = tmp_path / "EVENT.toml"
    hub_user, hub_pw = broker.hub_mqtt("ev")["username"], broker.hub_mqtt("ev")["password"]
    teams = "".join(f'[[teams]]\nid = "T{i}"\n' for i in range(1, 2 * n + 1))
    event_toml.write_text(f'[event]\nid = "ev"\nname = "故障测试"\nrounds = 2\nseed = 4\nformat = {{ kind = "deals", '
                          f'deals = 1 }}\n[mqtt]\nport = {broker.port}\nusername = "{hub_user}"\npassword = "{hub_pw}"\n{teams}',
                          encoding="utf-8")
    data = tmp_path / "hubdata"
    # Draw and publish in-process, then hand the same log to the hub process.
    hub = HubService(cfg, data).start()
    publish_round_one(hub)
    hub.stop()
    ts = tables(tmp_path, broker, n)
    proc = _start_hub_process(event_toml, data)
    db = data / "hub-events.sqlite3"
    try:
        bring_up(ts)
        ts[0].play_assigned()
        ts[1].play_assigned()
        wait_for(lambda: _count_results(db) == 2, what="two results logged")
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
        ts[2].play_assigned()  # results sent while the hub is dead: the broker keeps them for its session
        ts[3].play_assigned()
        time.sleep(0.5)
        assert _count_results(db) == 2
        proc = _start_hub_process(event_toml, data)
        wait_for(lambda: _count_results(db) == 4, timeout=30, what="all four results after the restart")
        time.sleep(1.0)  # retained copies and redeliveries arrive too: still exactly four
        assert _count_results(db) == 4
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(15)
        except subprocess.TimeoutExpired:
            proc.kill()
        for t in ts:
            t.stop()
    replay = HubService(cfg, data, connect=False)
    try:
        assert replay.core.round_complete(1)
        assert all(tr.source == "table" for tr in replay.core.results.values())
        st1 = replay.standings_json()
    finally:
        replay.stop()
    replay2 = HubService(cfg, data, connect=False)
    assert replay2.standings_json() == st1
    replay2.stop()


def test_broker_restart_mid_round(tmp_path: Path, broker: Any) -> None:
    hub = HubService(cfg_for(broker, 2), tmp_path / "hub").start()
    ts = tables(tmp_path, broker, 2)
    try:
        publish_round_one(hub)
        bring_up(ts)
        ts[0].play_assigned()
        wait_for(lambda: (1, "1") in hub.core.results, what="first result")
        broker.stop()
        ts[1].play_assigned()  # the round ends while the broker is down
        broker.start()
        wait_for(lambda: (1, "2") in hub.core.results, timeout=30, what="result after broker restart")
        wait_for(lambda: hub.mqtt is not None and hub.mqtt.connected.is_set(), what="hub reconnected")
        # The next round's assignment reaches both tables through the restarted broker.
        hub.draw_next("o", "chief")
        hub.publish_draw(2, "o", "chief")
        wait_for(lambda: all((t.bridge.assignment or {}).get("round") == 2 for t in ts), timeout=30,
                 what="round 2 assignments")
    finally:
        for t in ts:
            t.stop()
        hub.stop()


class Raw:
    """A bare MQTT client that publishes what a (faulty) table might send, with that table's own
    credential (the broker lets nobody else write its topics)."""

    def __init__(self, broker: Any, table: str) -> None:
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="raw-test")
        self.client.username_pw_set(*broker.login("ev", table))
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()

    def send(self, table: str, name: str, obj: Any, retain: bool = False) -> None:
        self.client.publish(f"guandan/ev/{table}/{name}", json.dumps(obj), qos=1, retain=retain).wait_for_publish(5)

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


def test_duplicates_out_of_order_and_undrawn_results(tmp_path: Path, broker: Any) -> None:
    hub = HubService(cfg_for(broker, 2), tmp_path / "hub").start()
    raw9 = Raw(broker, "9")  # a table of the event (it has its credential) that is not drawn
    try:
        publish_round_one(hub)
        t = hub.core.draws[1]["tables"][0]
        raw = Raw(broker, t["table"])
        line = {"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 7, "ew_levels": 2}
        # A result for round 2 arrives before round 2 exists (out of order): refused and shown.
        early = {**line, "round": 2}
        raw.send(t["table"], "result", {"result_id": "r2-s9", "result": early})
        # The real result, three times (QoS 1 redelivery, a retained copy, a reconnect).
        for retain in (False, False, True):
            raw.send(t["table"], "result", {"result_id": "r1-s50", "result": line}, retain=retain)
        # A table that was not drawn at all.
        raw9.send("9", "result", {"result_id": "r1-s3", "result": {**line, "table": "9"}})
        # Overview summaries out of order: the newer one (by the table's seq) stays.
        raw.send(t["table"], "summary", {"table": t["table"], "round": 1, "deal": 3, "last_seq": 50})
        raw.send(t["table"], "summary", {"table": t["table"], "round": 1, "deal": 2, "last_seq": 40})
        wait_for(lambda: len(hub.core.refusals) == 2 and (1, t["table"]) in hub.core.results, what="verdicts")
        wait_for(lambda: hub.duplicates >= 2, what="duplicates counted")
        assert len([e for e in hub.store.events() if e["type"] == "result_recorded"]) == 1
        reasons = " ".join(r["reason"] for r in hub.overview()["refusals"])
        assert "round 2 has no published draw" in reasons and "table 9 is not drawn" in reasons
        # The summaries come after the results on the same connection: wait for them to be handled
        # (asserted at once, a loaded machine had not handled them yet).
        wait_for(lambda: getattr(hub.live.get(t["table"]), "summary", None) and hub.live[t["table"]].summary["deal"] == 3,
                 what="the newer summary")
        # The same refused message again is not logged twice.
        raw.send(t["table"], "result", {"result_id": "r2-s9", "result": early})
        raw9.send("9", "status", {"status": "online"})
        time.sleep(0.5)
        assert len(hub.core.refusals) == 2
        assert hub.live[t["table"]].summary["deal"] == 3  # the older summary did not replace it
        raw.close()
    finally:
        raw9.close()
        hub.stop()


def test_a_table_the_next_round_does_not_use_has_its_assignment_cleared(tmp_path: Path, broker: Any) -> None:
    """Two teams withdraw after round 1: round 2 needs one table of two. Table 2 kept round 1's
    assignment, retained: its panel showed round 1 as still to play and a Pi restarted there was
    offered it again. Now the hub clears it (an empty retained payload), at publishing and again
    on every reconnect; a Pi of table 2 started afterwards finds no assignment."""
    hub = HubService(cfg_for(broker, 2), tmp_path / "hub").start()
    ts = tables(tmp_path, broker, 2)
    try:
        publish_round_one(hub)
        bring_up(ts)
        for t in ts:
            t.play_assigned()
        wait_for(lambda: {(1, "1"), (1, "2")} <= set(hub.core.results), what="round 1 results")
        hub.publish_results(1, "o", "chief")
        for team in ("T3", "T4"):
            hub.withdraw_team(team, "", "o", "chief")
        hub.draw_next("o", "chief")
        hub.publish_draw(2, "o", "chief")
        assert set(hub.core.draws[2]["assignments"]) == {"1"}
        wait_for(lambda: ts[0].bridge.assignment and ts[0].bridge.assignment.get("round") == 2, what="round 2 at 1")
        wait_for(lambda: ts[1].bridge.assignment is None, what="table 2's assignment cleared")
        ts[1].bridge.stop()
        late = BotEventTable("2", tmp_path / "tables-late", port=broker.port, event_id="ev", seed=9, auto=False,
                             login=broker.login("ev", "2"))
        late.start()
        ts.append(late)
        assert late.bridge.wait_connected(10)
        time.sleep(1.0)  # a retained message arrives with the subscription: none must come
        assert late.bridge.assignment is None
    finally:
        for t in ts:
            t.stop()
        hub.stop()


def test_a_malformed_result_is_answered_refused_to_its_table(tmp_path: Path, broker: Any) -> None:
    """A result message the hub cannot take (a field of the wrong type) is the table's fault for the
    chief referee and, where it names an id with its round, a ``refused`` answer with the reason for
    the table's own referee, who would otherwise wait for an answer that never comes. One whose id
    names no round, or one already accepted, is not answered. (A bare client with table 1's own
    credential stands for its Pi: the broker lets one session a table in.)"""
    hub = HubService(cfg_for(broker, 2), tmp_path / "hub").start()
    try:
        publish_round_one(hub)
        raw = Raw(broker, "1")
        wait_for(raw.client.is_connected, what="the raw client's session")
        acks: list[dict[str, Any]] = []
        raw.client.on_message = lambda _c, _u, m: acks.append(json.loads(m.payload)) if m.payload else None
        raw.client.subscribe("guandan/ev/1/result_ack", 1)
        t = next(d for d in hub.core.draws[1]["tables"] if d["table"] == "1")
        good = {"round": 1, "table": "1", "ns": t["ns"], "ew": t["ew"], "ns_levels": 7, "ew_levels": 2}
        bad = {**good, "ns_levels": "seven"}
        raw.send("1", "result", {"result_id": "no-round", "result": bad})
        wait_for(lambda: hub.core.faults.get("1") == 1, what="the first fault logged")
        raw.send("1", "result", {"result_id": "r1-s77-04812345", "result": bad})
        ack = wait_for(lambda: acks and acks[-1], what="the refusal")
        assert len(acks) == 1, "an id naming no round was answered"
        assert check_result_ack(ack) == ack, "the table would not take the answer"
        assert ack["status"] == "refused" and ack["result_id"] == "r1-s77-04812345" and ack["round"] == 1
        assert "ns_levels" in ack["reason"] and " / " in ack["reason"], ack
        assert hub.core.faults.get("1") == 2 and (1, "1") not in hub.core.results
        raw.send("1", "result", {"result_id": "r1-s80", "result": good})
        wait_for(lambda: len(acks) == 2, what="the good result's answer")
        assert acks[-1]["status"] == "accepted" and (1, "1") in hub.core.results
        # The accepted id sent again malformed is counted, and its "accepted" is not answered over.
        raw.send("1", "result", {"result_id": "r1-s80", "result": bad})
        wait_for(lambda: hub.core.faults.get("1") == 3, what="the third fault logged")
        time.sleep(0.3)
        assert len(acks) == 2
        raw.close()
    finally:
        hub.stop()
