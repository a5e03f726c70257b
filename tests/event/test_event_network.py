"""The event's network as an outsider tries it (issue 26), against a real Mosquitto run as
``guandan-table event provision`` sets it up: no anonymous clients, a password per table and one
for the hub, the ACL, client ids bound to usernames, and a TLS listener.

Each attack of the issue is tried: anonymous, a guessed credential, another table's credential,
a forged result, a forged assignment, the hub's session taken by its client id, a table reading
another's assignment. None may forge or block a result, an assignment or the hub's session.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from event_helpers import Broker

from table_service.demo.event_demo import BotEventTable
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import EventInputError
from table_service.event.provision import MAX_PACKET_BYTES, Provisioned, provision
from table_service.views.deck_wire import MAX_DECK_BYTES, deck_message, deck_topic

HANG = 60.0


def wait_for(cond: Callable[[], Any], timeout: float = HANG, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        v = cond()
        if v:
            return v
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} not met within {timeout} s")
        time.sleep(0.05)


def event_cfg(port: int, creds: Provisioned | None = None, *, tls_port: int | None = None) -> dict[str, Any]:
    mq: dict[str, Any] = {"port": tls_port or port}
    if creds is not None:
        mq.update(username=creds.hub.username, password=creds.hub.password)
        if tls_port:
            mq["ca_file"] = str(creds.ca_file)
    cfg = validate({"event": {"id": "ev", "name": "网络测试", "rounds": 2, "seed": 4,
                              "format": {"kind": "deals", "deals": 1}},
                    "mqtt": mq, "teams": [{"id": f"T{i}"} for i in range(1, 5)]})
    return cfg


class Net:
    """A provisioned broker, the hub on it with round 1 published, and the two tables' credentials."""

    def __init__(self, tmp: Path, *, tls: bool = False, watchers: int = 1) -> None:
        base = event_cfg(1883)
        self.creds = provision(base, tmp / "provision", tls_hosts=["127.0.0.1", "localhost"] if tls else None,
                               watchers=watchers)
        self.broker = Broker(tmp / "broker", secure=self.creds)
        self.broker.start()
        self.port = self.broker.tls_port if tls else self.broker.port
        self.ca = str(self.creds.ca_file) if tls else None
        self.cfg = event_cfg(self.broker.port, self.creds, tls_port=self.broker.tls_port if tls else None)
        if tls:
            self.cfg["mqtt"]["ca_file"] = self.ca
        self.hub = HubService(self.cfg, tmp / "hub").start()
        self.tmp = tmp
        self.clients: list[mqtt.Client] = []
        self.tables: list[BotEventTable] = []
        assert self.hub.wait_connected(HANG), "the hub could not log in to its broker"
        self.hub.draw_next("org", "chief")
        self.hub.publish_draw(1, "org", "chief")

    def table(self, tid: str, login: tuple[str, str] | None = None) -> BotEventTable:
        c = self.creds.tables[tid]
        t = BotEventTable(tid, self.tmp / "tables", port=self.port, event_id="ev", seed=int(tid), auto=False,
                          login=login or (c.username, c.password), ca_file=self.ca)
        self.tables.append(t.start())
        return t

    def client(self, username: str | None, password: str | None, *, client_id: str = "") -> tuple[mqtt.Client, dict]:
        """A raw client; ``seen`` collects its connect result, messages and disconnects."""
        seen: dict[str, Any] = {"rc": None, "msgs": [], "disconnects": 0, "connected": threading.Event(),
                                "answered": threading.Event()}
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id, clean_session=True)
        if username is not None:
            c.username_pw_set(username, password)
        if self.ca:
            c.tls_set(ca_certs=self.ca)

        def on_connect(_c: Any, _u: Any, _f: Any, rc: Any, _p: Any = None) -> None:
            seen["rc"] = rc
            seen["answered"].set()
            if not rc.is_failure:
                seen["connected"].set()

        def on_disconnect(*_a: Any) -> None:
            seen["disconnects"] += 1
            seen["answered"].set()

        c.on_connect = on_connect
        c.on_disconnect = on_disconnect
        c.on_message = lambda _c, _u, m: seen["msgs"].append((m.topic, bytes(m.payload)))
        c.reconnect_delay_set(30, 60)  # a refused client must not hammer the broker during the test
        c.connect_async("127.0.0.1", self.port, keepalive=15)
        c.loop_start()
        self.clients.append(c)
        return c, seen

    def stop(self) -> None:
        for c in self.clients:
            c.disconnect()
            c.loop_stop()
        for t in self.tables:
            t.stop()
        self.hub.stop()
        self.broker.stop()


@pytest.fixture
def net(tmp_path: Path) -> Iterator[Net]:
    n = Net(tmp_path)
    try:
        yield n
    finally:
        n.stop()


def drawn(net: Net, tid: str) -> dict[str, Any]:
    return next(t for t in net.hub.core.draws[1]["tables"] if t["table"] == tid)


def forged_result(net: Net, tid: str, rid: str = "forged") -> bytes:
    t = drawn(net, tid)
    return json.dumps({"result_id": rid, "result": {"round": 1, "table": tid, "ns": t["ns"], "ew": t["ew"],
                                                    "ns_levels": 13, "ew_levels": 0}}).encode()


def publish_acked(c: mqtt.Client, topic: str, payload: bytes, *, retain: bool = True) -> None:
    """Publish at QoS 1 and wait for the broker's PUBACK (an ACL-denied publish is acknowledged
    and dropped, MQTT 3.1.1)."""
    info = c.publish(topic, payload, qos=1, retain=retain)
    info.wait_for_publish(HANG)


def test_anonymous_and_guessed_credentials_are_refused(net: Net) -> None:
    for user, password in ((None, None), (net.creds.hub.username, "guandan"), ("ev-table-1", "123456"),
                           ("admin", "admin"), (net.creds.hub.username, net.creds.tables["1"].password)):
        c, seen = net.client(user, password)
        assert seen["answered"].wait(HANG), f"no answer for {user!r}"
        assert not seen["connected"].is_set(), f"{user!r} with a guessed password was let in"
        c.loop_stop()


def test_an_outsider_cannot_forge_a_result_nor_block_the_real_one(net: Net) -> None:
    t1 = net.table("1")
    wait_for(lambda: t1.bridge.assignment, what="table 1's assignment")
    # Table 2's credential (a Pi stolen or a colleague's mistake) publishes 13:0 for table 1: the
    # ACL drops it; the same on its own topic, naming table 1, is that table's fault.
    c2, seen2 = net.client(net.creds.tables["2"].username, net.creds.tables["2"].password)
    assert seen2["connected"].wait(HANG)
    publish_acked(c2, "guandan/ev/1/result", forged_result(net, "1"))
    publish_acked(c2, "guandan/ev/2/result", forged_result(net, "1", "forged-2"))
    wait_for(lambda: net.hub.core.faults.get("2"), what="the forgery on table 2's topic refused as its fault")
    # The watcher (read-only) cannot publish either.
    cw, seenw = net.client(net.creds.watch.username, net.creds.watch.password)
    assert seenw["connected"].wait(HANG)
    publish_acked(cw, "guandan/ev/1/result", forged_result(net, "1", "forged-w"))
    assert (1, "1") not in net.hub.core.results
    t1.play_assigned()
    wait_for(lambda: (1, "1") in net.hub.core.results, what="table 1's real result")
    res = net.hub.core.results[(1, "1")]
    own = t1.runner.state()["result"]
    assert res.source == "table" and res.result_id.startswith("r1-s"), "the hub recorded a forged result"
    assert (res.line["ns_levels"], res.line["ew_levels"]) == (own["gained"]["NS"], own["gained"]["EW"])
    assert "1" not in net.hub.core.faults, "nothing reached the hub on table 1's topics but table 1's own"
    wait_for(lambda: (t1.bridge.result_ack or {}).get("status") == "accepted", what="table 1's ack")


def test_nobody_but_the_hub_hands_out_assignments_or_acks(net: Net) -> None:
    t1 = net.table("1")
    real = wait_for(lambda: t1.bridge.assignment, what="table 1's assignment")
    evil = {**real, "players": {"N": "EVIL-N", "S": "EVIL-S", "E": "EVIL-E", "W": "EVIL-W"},
            "teams": {"NS": real["teams"]["EW"], "EW": real["teams"]["NS"]}}
    forgers = [(net.creds.tables["2"].username, net.creds.tables["2"].password),
               (net.creds.tables["1"].username, net.creds.tables["1"].password),  # not even its own
               (net.creds.watch.username, net.creds.watch.password)]
    for user, password in forgers:
        c, seen = net.client(user, password)
        assert seen["connected"].wait(HANG)
        publish_acked(c, "guandan/ev/1/assignment", json.dumps(evil).encode())
        publish_acked(c, "guandan/ev/1/result_ack", json.dumps({"result_id": "x", "status": "refused"}).encode())
    # A fresh subscriber of table 1 gets the retained assignment: still the hub's.
    t1.reconnect()
    wait_for(lambda: t1.bridge.is_connected and t1.bridge.assignment, what="assignment after reconnect")
    assert t1.bridge.assignment["players"] == real["players"] and t1.bridge.result_ack is None


def test_only_the_hub_releases_a_board_and_only_its_table_reads_it(net: Net) -> None:
    """The release topic (a duplicate board's deals both rooms have ended, which the table logs as
    released to its public feed): a table's or the watcher's release would publish a board's hands to
    the other room, so the hub alone writes it; another table and the watcher read nothing of it."""
    seen_by: dict[str, dict[str, Any]] = {}
    clients: dict[str, mqtt.Client] = {}
    for who, cred in (("1", net.creds.tables["1"]), ("2", net.creds.tables["2"]), ("watch", net.creds.watch)):
        c, seen = net.client(cred.username, cred.password)
        assert seen["connected"].wait(HANG)
        subscribed = threading.Event()
        c.on_subscribe = lambda *_a, ev=subscribed: ev.set()
        c.subscribe([("guandan/ev/1/release", 1), ("guandan/ev/+/release", 1)])
        assert subscribed.wait(HANG)
        seen_by[who], clients[who] = seen, c
    forged = json.dumps({"round": 1, "through": 8, "board": "R1-M1"}).encode()
    for c in clients.values():  # table 1 itself included: it would release its own board early
        publish_acked(c, "guandan/ev/1/release", forged)
    real = json.dumps({"round": 1, "through": 1, "board": "R1-M1"}).encode()
    assert net.hub.mqtt is not None
    net.hub.mqtt.publish("1", "release", real)
    wait_for(lambda: any(t.endswith("/release") for t, _ in seen_by["1"]["msgs"]), 15, what="table 1's release")
    time.sleep(0.3)  # anything else on its way arrives meanwhile
    assert [p for t, p in seen_by["1"]["msgs"] if t.endswith("/release")] == [real], "a forged release went through"
    assert not [t for t, _ in seen_by["2"]["msgs"] + seen_by["watch"]["msgs"] if t.endswith("/release")]


def test_a_table_reads_only_its_own_assignment(net: Net) -> None:
    c2, seen = net.client(net.creds.tables["2"].username, net.creds.tables["2"].password)
    assert seen["connected"].wait(HANG)
    c2.subscribe([("guandan/ev/1/assignment", 1), ("guandan/ev/+/result", 1), ("guandan/ev/#", 1)])
    c2.subscribe("guandan/ev/2/assignment", 1)
    wait_for(lambda: any(t == "guandan/ev/2/assignment" for t, _ in seen["msgs"]), what="its own assignment")
    t1 = net.table("1")
    wait_for(lambda: t1.bridge.assignment, what="table 1's assignment")
    t1.play_assigned()
    wait_for(lambda: (1, "1") in net.hub.core.results, what="table 1's result")
    wait_for(lambda: t1.bridge.result_ack, what="table 1's ack")
    assert {t for t, _ in seen["msgs"]} == {"guandan/ev/2/assignment"}, "a table read another table's messages"


def test_no_one_takes_the_hubs_session_by_its_client_id(net: Net) -> None:
    hub_mqtt = net.hub.mqtt
    assert hub_mqtt is not None
    before = hub_mqtt.disconnects
    # The attack: the hub's client id, here with a table's credential (anonymous is refused).
    c, seen = net.client(net.creds.tables["2"].username, net.creds.tables["2"].password,
                         client_id="guandan-hub-ev")
    assert seen["connected"].wait(HANG)
    c.subscribe("#", 1)
    c2, seen2 = net.client(net.creds.hub.username, "wrong", client_id="guandan-hub-ev")
    assert seen2["answered"].wait(HANG) and not seen2["connected"].is_set()
    t1 = net.table("1")
    wait_for(lambda: t1.bridge.assignment, what="table 1's assignment")
    t1.play_assigned()
    wait_for(lambda: (1, "1") in net.hub.core.results, what="the hub still receives table 1's result")
    wait_for(lambda: t1.bridge.result_ack, what="table 1's ack")
    assert hub_mqtt.disconnects == before and hub_mqtt.connected.is_set(), "the hub lost its session"
    assert not [t for t, _ in seen["msgs"] if not t.startswith("guandan/ev/2/")], "the impostor read the hub's queue"


def test_a_bad_message_on_a_real_broker_blocks_no_result(net: Net) -> None:
    """The issue's item 1 over the wire: a retained ``"round": "abc"`` summary from table 1, then
    both tables' results — all recorded, the summary refused once, and not again after the hub
    restarts (its broker session redelivers nothing it acknowledged)."""
    t1, t2 = net.table("1"), net.table("2")
    wait_for(lambda: t1.bridge.assignment and t2.bridge.assignment, what="assignments")
    # Sent by table 1's own session (its username is its client id: a second session of the same
    # user would end the first).
    c1 = t1.bridge.client
    publish_acked(c1, "guandan/ev/1/summary", json.dumps({"table": "1", "round": "abc"}).encode())
    publish_acked(c1, "guandan/ev/1/result", b"\xff not json", retain=False)
    t1.play_assigned()
    t2.play_assigned()
    wait_for(lambda: (1, "1") in net.hub.core.results and (1, "2") in net.hub.core.results, what="both results")
    wait_for(lambda: len(net.hub.core.bad_messages) >= 2, what="the bad messages logged")
    reasons = {m["topic"]: m["reason"] for m in net.hub.core.bad_messages}
    assert "round" in reasons["summary"] and "UTF-8" in reasons["result"]
    logged = len(net.hub.core.bad_messages)
    net.hub.stop()
    net.hub = HubService(net.cfg, net.tmp / "hub").start()
    assert net.hub.wait_connected(HANG)
    # A probe after the restart: once the hub has its summary, everything before it was delivered.
    publish_acked(c1, "guandan/ev/1/summary", json.dumps({"table": "1", "round": 1, "last_seq": 10**6}).encode())
    wait_for(lambda: (net.hub.live.get("1") and net.hub.live["1"].summary.get("last_seq") == 10**6), what="probe")
    assert len(net.hub.core.bad_messages) == logged, "a refused message was logged again after the restart"


def test_tables_and_hub_over_tls(tmp_path: Path) -> None:
    n = Net(tmp_path, tls=True)
    try:
        t1 = n.table("1")
        wait_for(lambda: t1.bridge.assignment, what="assignment over TLS")
        t1.play_assigned()
        wait_for(lambda: (1, "1") in n.hub.core.results, what="result over TLS")
        # Without the event's CA the broker's certificate is not trusted: no connection.
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="")
        c.username_pw_set(n.creds.tables["2"].username, n.creds.tables["2"].password)
        c.tls_set()  # the system's CAs only
        with pytest.raises(OSError):
            c.connect("127.0.0.1", n.port, 15)
    finally:
        n.stop()


def test_provision_command_writes_secret_files_and_refuses_to_overwrite(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    import stat
    import tomllib

    from table_service.cli import main

    ev = tmp_path / "EVENT.toml"
    ev.write_text('[event]\nid = "cup"\nname = "杯赛"\nrounds = 3\n\n[mqtt]\nhost = "10.0.0.1"\n'
                  + "".join(f'\n[[teams]]\nid = "T{i}"\n' for i in range(1, 7)), encoding="utf-8")
    assert main(["event", "provision", "--event", str(ev), "--tls", "10.0.0.1"]) == 0
    out = tmp_path / "mqtt-cup"
    tables = sorted(p.stem for p in (out / "tables").glob("*.toml"))
    assert tables == ["1", "2", "3"], "one credential per table of the draw"
    for p in [out / "hub.toml", out / "broker" / "passwd", out / "broker" / "tls" / "server.key",
              *(out / "tables").glob("*.toml")]:
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, f"{p} is readable by others"
    t1 = tomllib.loads((out / "tables" / "1.toml").read_text())["mqtt"]
    assert t1["username"] == "cup-table-1" and t1["port"] == 8883 and t1["ca_file"] == "ca.crt"
    assert t1["password"] not in (out / "broker" / "passwd").read_text(), "passwords are stored hashed"
    assert t1["password"] not in capsys.readouterr().out, "no password is printed"
    conf = (out / "broker" / "mosquitto.conf").read_text()
    assert "allow_anonymous false" in conf and conf.count("use_username_as_clientid true") == 2
    assert "listener 1883 127.0.0.1" in conf, "with TLS the plain listener serves only this machine"
    assert "max_queued_bytes 67108864" in conf, "no credential makes the broker queue gigabytes for a client away"
    # Provisioned again with --force and --bind: the files are secret again however they were left,
    # and the plain listener stays on this machine.
    for p in [out / "hub.toml", out / "tables" / "1.toml"]:
        p.chmod(0o644)
    assert main(["event", "provision", "--event", str(ev), "--tls", "10.0.0.1", "--bind", "0.0.0.0", "--force"]) == 0
    for p in [out / "hub.toml", out / "tables" / "1.toml"]:
        assert stat.S_IMODE(p.stat().st_mode) == 0o600, f"{p} left readable by others by --force"
    conf = (out / "broker" / "mosquitto.conf").read_text()
    assert "listener 1883 127.0.0.1" in conf and "listener 8883 0.0.0.0" in conf
    t1 = tomllib.loads((out / "tables" / "1.toml").read_text())["mqtt"]
    capsys.readouterr()
    assert main(["event", "provision", "--event", str(ev)]) != 0
    assert "--force" in capsys.readouterr().err
    assert tomllib.loads((out / "tables" / "1.toml").read_text())["mqtt"]["password"] == t1["password"]
    # The table's [mqtt] section is accepted by table.toml's checks as written (ca.crt beside it).
    from table_service.table.config import parse_service_config

    (tmp_path / "ca.crt").write_bytes((out / "ca.crt").read_bytes())
    cfg = parse_service_config({"table_id": "1", "data_dir": str(tmp_path / "data"),
                                "seats": {"E": "e", "S": "s", "W": "w", "N": "n"}, "devices": {"default": "sim"},
                                "camera": {"source": "none"}, "mqtt": t1}, base_dir=tmp_path, check_devices=False)
    assert cfg.mqtt["ca_file"] == str(tmp_path / "ca.crt")


def test_the_broker_password_stays_out_of_the_hubs_log(net: Net) -> None:
    raw = (net.tmp / "hub" / "hub-events.sqlite3").read_bytes()
    wal = net.tmp / "hub" / "hub-events.sqlite3-wal"
    raw += wal.read_bytes() if wal.exists() else b""
    assert net.creds.hub.password.encode() not in raw
    assert net.hub.core.loaded_cfg is not None and net.hub.core.loaded_cfg["mqtt"]["username"] == net.creds.hub.username


@pytest.mark.parametrize("opt", [["--bind", "not an ip"], ["--tls", "a b/c"], ["--tls", ""], ["--host", "x y"]])
def test_provision_refuses_an_address_mosquitto_or_a_certificate_cannot_take(
        tmp_path: Path, opt: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """Before, --bind "not an ip" wrote a mosquitto.conf Mosquitto cannot load, and a bad --tls name left
    a half-written folder that refused the retry; now nothing is written."""
    from table_service.cli import main

    ev = tmp_path / "EVENT.toml"
    ev.write_text('[event]\nid = "cup"\nrounds = 1\n[[teams]]\nid = "A"\n[[teams]]\nid = "B"\n', encoding="utf-8")
    with pytest.raises(SystemExit) as exc:
        main(["event", "provision", "--event", str(ev), *opt])
    assert exc.value.code == 2 and "must be" in capsys.readouterr().err
    assert not (tmp_path / "mqtt-cup").exists()


@pytest.mark.parametrize(("section", "needle"), [('[mqtt]\nport = 0', "invalid port"), ('[mqtt]\nhost = ""', "invalid host"),
                                                 ('[hub]\nhost = "a b"', "invalid host")])
def test_event_toml_refuses_a_broker_no_client_can_reach(section: str, needle: str) -> None:
    import tomllib

    from table_service.event.model import EventInputError

    raw = tomllib.loads('[event]\nid = "x"\nrounds = 1\n' + section + '\n[[teams]]\nid = "A"\n[[teams]]\nid = "B"\n')
    with pytest.raises(EventInputError, match=needle):
        validate(raw)


def test_a_provision_that_fails_half_way_can_be_run_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """openssl failing on the certificate left a password file, and the retry was refused as
    "already provisioned"."""
    import table_service.event.provision as prov
    from table_service.event.model import EventInputError

    cfg = validate({"event": {"id": "cup", "rounds": 1}, "teams": [{"id": "A"}, {"id": "B"}]})

    def no_openssl(*_a: Any, **_k: Any) -> None:
        raise EventInputError("openssl failed")

    monkeypatch.setattr(prov, "make_tls", no_openssl)
    with pytest.raises(EventInputError, match="openssl failed"):
        provision(cfg, tmp_path / "pv", tls_hosts=["hub.local"])
    assert not (tmp_path / "pv" / "broker" / "passwd").exists()
    monkeypatch.undo()
    assert provision(cfg, tmp_path / "pv").tables  # no --force needed


def test_a_provision_killed_half_way_can_be_run_again(tmp_path: Path) -> None:
    """SIGKILL runs no clean-up: the password file, put in place last, is what says a provision is
    whole (a kill after it was written first left a folder the next run refused as provisioned)."""
    import subprocess
    import sys

    script = f"""
import os, signal
import table_service.event.provision as prov
from table_service.event.config import validate
cfg = validate({{"event": {{"id": "cup", "rounds": 1}}, "teams": [{{"id": "A"}}, {{"id": "B"}}]}})
real = prov.mqtt_section
def killed(*a, **k):
    if not k.get("hub"):
        os.kill(os.getpid(), signal.SIGKILL)
    return real(*a, **k)
prov.mqtt_section = killed
prov.provision(cfg, {str(tmp_path / "pv")!r})
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == -9, done.stderr
    # Killed while staging (hub.toml.new written whole, nothing put in place yet: provision_kill's tests).
    assert (tmp_path / "pv" / "hub.toml.new").exists() and not (tmp_path / "pv" / "broker" / "passwd").exists()
    cfg = validate({"event": {"id": "cup", "rounds": 1}, "teams": [{"id": "A"}, {"id": "B"}]})
    again = provision(cfg, tmp_path / "pv")  # no --force needed
    lines = (tmp_path / "pv" / "broker" / "passwd").read_text().splitlines()
    assert len(lines) == 2 + len(again.tables) and all("$" in line.split(":", 1)[1] for line in lines)  # hashed
    assert not (tmp_path / "pv" / "broker" / "passwd.new").exists()
    assert not list((tmp_path / "pv").rglob("*.new")), "the killed run's staged files were left"


def test_the_broker_takes_the_largest_deck_and_drops_whoever_sends_more(net: Net) -> None:
    """The provisioned broker had no size limit: one table's credential published 250 MB messages,
    which the broker and the hub held whole before the hub refused them at 16 KiB. Now a packet
    over ``max_packet_size`` ends the sender's connection before its payload is read, while the
    largest deck the hub can hand out (a 4 MiB enrolment file, as base64) still goes through."""
    conf = (net.broker.folder / "mosquitto.conf").read_text()
    assert f"max_packet_size {MAX_PACKET_BYTES}\n" in conf
    c1, seen1 = net.client(net.creds.tables["1"].username, net.creds.tables["1"].password)
    assert seen1["connected"].wait(HANG)
    c1.subscribe(deck_topic("ev"), 1)
    meta = {"cards": 54, "origin": "enrolled", "warn": True, "verdict": "扇形检查 / fan check " * 40}
    biggest = deck_message(b"\xff" * MAX_DECK_BYTES, meta)
    topic_and_header = 2 + len(deck_topic("ev")) + 2 + 5
    assert len(biggest) + topic_and_header < MAX_PACKET_BYTES - 2_000_000, "a clear margin over the largest deck"
    assert net.hub.mqtt is not None
    net.hub.mqtt.publish_deck(biggest)
    wait_for(lambda: any(t == deck_topic("ev") and p == biggest for t, p in seen1["msgs"]), what="the largest deck")
    assert seen1["disconnects"] == 0
    # Table 2's own credential, one packet over the limit on its own topic: disconnected.
    c2, seen2 = net.client(net.creds.tables["2"].username, net.creds.tables["2"].password)
    assert seen2["connected"].wait(HANG)
    c2.publish("guandan/ev/2/summary", b"{" + b" " * MAX_PACKET_BYTES + b"}", qos=1, retain=True)
    wait_for(lambda: seen2["disconnects"] >= 1, timeout=20, what="the sender of an oversized packet disconnected")
    c2.disconnect()
    c2.loop_stop()
    c3, seen3 = net.client(net.creds.tables["2"].username, net.creds.tables["2"].password)
    assert seen3["connected"].wait(HANG)
    publish_acked(c3, "guandan/ev/2/summary", json.dumps({"table": "2", "round": 1, "last_seq": 77}).encode())
    wait_for(lambda: net.hub.live.get("2") and net.hub.live["2"].summary.get("last_seq") == 77, what="a probe")
    assert not [m for m in net.hub.core.bad_messages if m["table"] == "2"], "the oversized message reached the hub"


def test_each_graphics_machine_has_its_own_read_only_watcher(tmp_path: Path) -> None:
    """One watcher credential and ``use_username_as_clientid``: two graphics machines sharing it
    threw each other off every few seconds and each missed half the states. ``--watchers N`` writes
    one credential per machine, each read-only."""
    n = Net(tmp_path, watchers=2)
    try:
        assert [w.username for w in n.creds.watchers] == ["ev-watch", "ev-watch-2"]
        assert n.creds.watch == n.creds.watchers[0]
        views = []
        for w in n.creds.watchers:
            c, seen = n.client(w.username, w.password)
            assert seen["connected"].wait(HANG)
            c.subscribe("guandan/ev/+/state", 1)
            views.append((c, seen))
        t1, seen_t1 = n.client(n.creds.tables["1"].username, n.creds.tables["1"].password)
        assert seen_t1["connected"].wait(HANG)
        publish_acked(t1, "guandan/ev/1/state", b'{"n": -1}')  # retained: proves each has subscribed
        wait_for(lambda: all(any(p == b'{"n": -1}' for _t, p in seen["msgs"]) for _c, seen in views), what="ready")
        for i in range(10):
            publish_acked(t1, "guandan/ev/1/state", json.dumps({"n": i}).encode(), retain=False)
            time.sleep(0.1)
        states = [json.dumps({"n": i}).encode() for i in range(10)]
        wait_for(lambda: all([p for _t, p in seen["msgs"]][-10:] == states for _c, seen in views), what="all states")
        assert [seen["disconnects"] for _c, seen in views] == [0, 0], "the graphics machines threw each other off"
        # Read-only, the second as the first: a result it publishes is dropped by the broker.
        publish_acked(views[1][0], "guandan/ev/1/result", forged_result(n, "1", "forged-w2"))
        publish_acked(t1, "guandan/ev/1/summary", json.dumps({"table": "1", "round": 1, "last_seq": 5}).encode())
        wait_for(lambda: n.hub.live.get("1") and n.hub.live["1"].summary.get("last_seq") == 5, what="a probe")
        assert (1, "1") not in n.hub.core.results and "1" not in n.hub.core.faults
    finally:
        n.stop()


def test_provision_writes_a_watcher_credential_per_graphics_machine(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    import stat
    import tomllib

    from table_service.cli import main

    ev = tmp_path / "EVENT.toml"
    ev.write_text('[event]\nid = "cup"\nrounds = 1\n[[teams]]\nid = "A"\n[[teams]]\nid = "B"\n', encoding="utf-8")
    assert main(["event", "provision", "--event", str(ev), "--watchers", "3"]) == 0
    out = tmp_path / "mqtt-cup"
    files = [out / "watch.toml", out / "watch-2.toml", out / "watch-3.toml"]
    creds = [tomllib.loads(f.read_text())["mqtt"] for f in files]
    assert [c["username"] for c in creds] == ["cup-watch", "cup-watch-2", "cup-watch-3"]
    assert len({c["password"] for c in creds}) == 3
    assert all(stat.S_IMODE(f.stat().st_mode) == 0o600 for f in files)
    passwd = (out / "broker" / "passwd").read_text()
    acl = (out / "broker" / "acl").read_text()
    for c in creds:
        assert f"{c['username']}:" in passwd and c["password"] not in passwd
        block = acl.split(f"user {c['username']}\n")[1].split("\n\n")[0]
        assert block.splitlines() == ["topic read guandan/cup/+/state", "topic read guandan/cup/+/events",
                                      "topic read guandan/cup/+/status"]
    said = capsys.readouterr().out
    assert "watch-3.toml" in said and "one client at a time" in said and all(c["password"] not in said for c in creds)
    with pytest.raises(SystemExit):
        main(["event", "provision", "--event", str(ev), "--force", "--watchers", "0"])
    assert "--watchers" in capsys.readouterr().err


def test_provision_to_a_relative_folder_names_absolute_files_in_mosquitto_conf(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``--out mqtt`` (relative) wrote relative paths into mosquitto.conf, which the recipe runs
    as it is on the broker machine, from wherever Mosquitto starts."""
    from table_service.cli import main

    ev = tmp_path / "EVENT.toml"
    ev.write_text('[event]\nid = "rel"\nrounds = 2\n' + "".join(f'\n[[teams]]\nid = "T{i}"\n' for i in range(1, 5)),
                  encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    assert main(["event", "provision", "--event", str(ev), "--out", "mqtt-rel"]) == 0
    conf = (tmp_path / "mqtt-rel" / "broker" / "mosquitto.conf").read_text()
    files = [line.split(None, 1)[1] for line in conf.splitlines()
             if line.split(None, 1)[:1] and line.split()[0] in ("password_file", "acl_file", "persistence_location")]
    assert files and all(Path(f).is_absolute() for f in files), files


def test_with_tls_the_tables_reach_the_broker_by_a_name_its_certificate_carries(tmp_path: Path) -> None:
    """EVENT.toml's host 127.0.0.1 (the hub's own view of the broker) was written into every table's
    credential beside a certificate made for 10.0.0.1: no table could check the broker by it."""
    import tomllib

    cfg = validate({"event": {"id": "cup", "rounds": 1}, "teams": [{"id": "A"}, {"id": "B"}],
                    "mqtt": {"host": "127.0.0.1"}})
    provision(cfg, tmp_path / "pv", tls_hosts=["10.0.0.1", "broker.hall.lan"])
    for name in ("hub.toml", "tables/1.toml"):
        m = tomllib.loads((tmp_path / "pv" / name).read_text())["mqtt"]
        assert (m["host"], m["port"], m["ca_file"]) == ("10.0.0.1", 8883, "ca.crt")
    provision(cfg, tmp_path / "pv2", host="broker.hall.lan", tls_hosts=["10.0.0.1", "broker.hall.lan"])
    assert tomllib.loads((tmp_path / "pv2" / "hub.toml").read_text())["mqtt"]["host"] == "broker.hall.lan"
    with pytest.raises(EventInputError, match="not one of the certificate's names"):
        provision(cfg, tmp_path / "pv3", host="127.0.0.1", tls_hosts=["10.0.0.1"])
