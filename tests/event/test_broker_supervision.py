"""``guandan-table event broker`` and its Mosquitto live and die together (the durability audit of
2026-12-06, finding 2): a ``kill -9`` of the command left Mosquitto running with parent pid 1, its log
no longer rotated; a new ``event broker`` then rotated that orphan's log from under it and its own
Mosquitto ended "Address already in use". Now the broker ends with its supervisor, and a start on a
config a broker already runs on is refused, naming the pid, before the log is touched."""

from __future__ import annotations

import os
import pwd
import signal
import subprocess
import sys
import threading
import time
import tomllib
from pathlib import Path

import paho.mqtt.client as mqtt
import pytest

from table_service.cli import main
from table_service.event.broker import EventBroker, free_port, running_brokers, wait_port
from table_service.event.broker_log import rotated_logs
from table_service.event.provision import AUTOSAVE_S

from .test_event_provision import HANG, ROOT, mosquitto, open_folder

REPO = Path(__file__).resolve().parents[2]


def _event(d: Path, port: int) -> Path:
    ev = d / "EVENT.toml"
    ev.write_text(f'[event]\nid = "cup"\nrounds = 1\n[mqtt]\nport = {port}\n[[teams]]\nid = "A"\n[[teams]]\nid = "B"\n',
                  encoding="utf-8")
    assert main(["event", "provision", "--event", str(ev), "--bind", "127.0.0.1"]) == 0
    return ev


def _gone(pid: int, timeout: float = HANG) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            return True
        if state == "Z":  # ended, not yet reaped by init
            return True
        time.sleep(0.05)
    return False


def test_kill_9_of_event_broker_ends_its_mosquitto_too_and_a_new_one_starts() -> None:
    """As root (Mosquitto then runs as ``mosquitto``: the kernel clears the parent-death signal on a change
    of user, so the supervisor starts it as that user already) and not root alike."""
    mosquitto()
    with open_folder() as d:
        port = free_port()
        ev = _event(d, port)
        conf = d / "mqtt-cup" / "broker" / "mosquitto.conf"
        cmd = [sys.executable, "-m", "table_service", "event", "broker", "--event", str(ev)]
        sup = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert wait_port(port, HANG), "the broker did not start"
            pids = running_brokers(conf)
            assert len(pids) == 1, pids
            if ROOT:
                assert Path(f"/proc/{pids[0]}").stat().st_uid != 0, "the broker runs as root"
            sup.kill()
            sup.wait(HANG)
            assert _gone(pids[0]), "Mosquitto outlived its supervisor's kill -9"
            assert running_brokers(conf) == []
            again = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            try:
                assert wait_port(port, HANG), "a new event broker could not start"
                assert again.poll() is None
            finally:
                again.send_signal(signal.SIGTERM)
                again.communicate(timeout=HANG)
            assert again.returncode == 0
        finally:
            if sup.poll() is None:
                sup.kill()
                sup.wait(10)
            for pid in running_brokers(conf):
                os.kill(pid, signal.SIGKILL)


def test_a_start_on_a_config_a_broker_already_runs_is_refused_with_its_pid_before_the_log_is_touched(
        capsys: pytest.CaptureFixture[str]) -> None:
    """A Mosquitto on the config (an older version's orphan, or one started by hand): ``event broker`` says
    so, Chinese first, with the pid and the command that stops it; the log over the limit is not rotated."""
    exe = mosquitto()
    with open_folder() as d:
        port = free_port()
        ev = _event(d, port)
        conf = d / "mqtt-cup" / "broker" / "mosquitto.conf"
        log = conf.with_name("mosquitto.log")
        orphan = subprocess.Popen([exe, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert wait_port(port, HANG)
            with log.open("ab") as fh:
                fh.write(b"x" * (2 * 2**20))
            size = log.stat().st_size
            capsys.readouterr()
            assert main(["event", "broker", "--event", str(ev), "--log-max-mb", "1"]) == 2
            err = capsys.readouterr().err
            assert err.index("已有代理在按此配置运行") < err.index("a broker already runs on"), err
            assert f"pid {orphan.pid}" in err and f"kill {orphan.pid}" in err, err
            assert rotated_logs(log) == [] and log.stat().st_size >= size, "the orphan's log was rotated"
            assert orphan.poll() is None
        finally:
            orphan.terminate()
            orphan.wait(HANG)


def test_a_start_on_a_port_another_program_holds_is_refused_saying_so() -> None:
    """Not a broker on this config but the port taken (Debian's mosquitto.service): refused before the
    start, naming the port (before: Mosquitto ended "Address already in use", exit 1)."""
    import socket
    mosquitto()
    with open_folder() as d:
        port = free_port()
        ev = _event(d, port)
        conf = d / "mqtt-cup" / "broker" / "mosquitto.conf"
        with socket.socket() as s:
            s.bind(("127.0.0.1", port))
            s.listen()
            broker = EventBroker(conf)
            with pytest.raises(ValueError) as refused:
                broker.start()
        msg = str(refused.value)
        assert msg.index("端口") < msg.index("listens on port") and str(port) in msg, msg
        assert broker.proc is None
        del ev


def _client(cred_file: Path, port: int, got: list[bytes] | None = None, topic: str = "") -> mqtt.Client:
    """Connected with the credential ``event provision`` wrote in ``cred_file``; subscribed to ``topic``."""
    cred = tomllib.loads(cred_file.read_text(encoding="utf-8"))["mqtt"]
    ok = threading.Event()
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="")
    c.username_pw_set(cred["username"], cred["password"])
    c.on_connect = lambda cl, _u, _f, rc, _p=None: (cl.subscribe(topic, 1) if topic else None, ok.set())
    if got is not None:
        c.on_message = lambda _c, _u, msg: got.append(bytes(msg.payload))
    c.connect("127.0.0.1", port, 15)
    c.loop_start()
    assert ok.wait(HANG), f"{cred['username']} could not log in"
    return c


def test_the_provisioned_broker_keeps_a_retained_assignment_across_its_restart() -> None:
    """``event provision`` gives the broker a persistence folder (``broker/data``, the broker's account's
    as its log is): the hub's retained assignment is still there for the table after ``event broker`` is
    stopped and started again (finding 3: it was lost, and so was every release, deck and account set)."""
    mosquitto()
    with open_folder() as d:
        port = free_port()
        _event(d, port)
        folder = d / "mqtt-cup"
        conf = folder / "broker" / "mosquitto.conf"
        assert f"persistence_location {folder / 'broker' / 'data'}/" in conf.read_text()
        assert f"autosave_interval {AUTOSAVE_S}\n" in conf.read_text()  # a kill loses a minute, not 30
        topic = "guandan/cup/1/assignment"
        with EventBroker(conf):
            assert wait_port(port, HANG)
            hub = _client(folder / "hub.toml", port)
            hub.publish(topic, b'{"round": 1}', qos=1, retain=True).wait_for_publish(HANG)
            hub.disconnect()
            hub.loop_stop()
        if ROOT:
            db = folder / "broker" / "data" / "mosquitto.db"
            assert db.exists() and db.stat().st_uid == pwd.getpwnam("mosquitto").pw_uid
        got: list[bytes] = []
        with EventBroker(conf):
            assert wait_port(port, HANG)
            table = _client(folder / "tables" / "1.toml", port, got, topic)
            deadline = time.monotonic() + 5
            while not got and time.monotonic() < deadline:
                time.sleep(0.05)
            table.disconnect()
            table.loop_stop()
        assert got == [b'{"round": 1}'], "the retained assignment was lost with the broker's restart"
