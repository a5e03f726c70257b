"""The event broker's log, bounded; and the files an earlier broker run as root left, given back.

The provisioned broker logs at Mosquitto's ``debug`` level, the only one at which Mosquitto 2.0 logs an
ACL refusal (``Denied PUBLISH from …``), and ``debug`` writes a line for every packet: 188 MB an hour
at 500 tables (``benchmarks/broker_log_bench.py``), and nothing rotated it. ``guandan-table event
broker`` (``EventBroker``) runs Mosquitto on the provisioned config and rotates the log by size
(``mosquitto.log.1`` … ``.N``, then ``SIGHUP``). Each test runs the real broker on the provisioned
``mosquitto.conf`` as it is.

A broker once run as root left its log (and persistence file) root's, 0600: Mosquitto, now running
as ``mosquitto``, ran on with no log at all (a forged result left no trace) and silently dropped its
retained messages. As root, provision and the broker's start give them back; not root, they say which
file and what to do. Where the tests run as root the not-root case runs as ``nobody``.
"""

from __future__ import annotations

import os
import pwd
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import paho.mqtt.client as mqtt
import pytest

from table_service.cli import main
from table_service.event.broker import EventBroker, free_port, wait_port
from table_service.event.broker_log import BrokerFilesError, rotated_logs
from table_service.event.model import EventInputError
from table_service.event.provision import Provisioned, provision

from .test_event_provision import HANG, ROOT, event_cfg, login, mosquitto, open_folder, wait_denied

#: The test's small limit, the rotated logs it keeps, and the burst: about 1.5 MB of log lines.
CAP = 32 * 1024
KEEP = 2
BURST = 8000
#: What the broker may write past the limit before the watcher (every 50 ms here) rotates it: at
#: most a few hundred ms of a burst on a busy 2-core machine (about 0.5 MB/s of lines).
SLACK = 128 * 1024
T = TypeVar("T")
REPO = Path(__file__).resolve().parents[2]


def chief_reads(p: Provisioned) -> list[str]:
    """``grep 'Denied PUBLISH' broker/mosquitto.log*``: the refusals in the log and the rotated ones kept."""
    return [x for f in (p.log, *rotated_logs(p.log)) if f.exists()
            for x in f.read_text(errors="replace").splitlines() if "Denied PUBLISH" in x]


def wait_until(ready: Callable[[], object]) -> bool:
    """True once ``ready()`` is, False after :data:`HANG` seconds."""
    deadline = time.monotonic() + HANG
    while not ready():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def hub_client(p: Provisioned, port: int) -> tuple[mqtt.Client, list[bytes]]:
    """The hub's credential, subscribed to every table's summary; what it receives."""
    got: list[bytes] = []
    ok = threading.Event()
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="")
    c.username_pw_set(p.hub.username, p.hub.password)
    c.on_connect = lambda cl, _u, _f, rc, _p=None: (cl.subscribe("guandan/ev/+/summary", 1), ok.set())
    c.on_message = lambda _c, _u, msg: got.append(bytes(msg.payload))
    c.connect("127.0.0.1", port, 15)
    c.loop_start()
    assert ok.wait(HANG), "the hub could not log in"
    return c, got


def test_a_burst_leaves_the_log_bounded_and_a_refusal_still_in_the_logs_the_chief_reads() -> None:
    """8,000 publishes through a broker whose log is rotated at 32 KiB keeping 2: the broker's logs stay
    three files near the limit, not the 1.5 MB the burst wrote; the table was never disconnected by the
    rotations' SIGHUP; a refused publish after them is in what ``grep 'Denied PUBLISH' mosquitto.log*``
    reads, and the broker writes the log the last rotation made (reopened, as ``mosquitto`` where the
    tests run as root); Mosquitto writes nothing on stderr (before, every line went there too, where no
    rotation bounds it)."""
    mosquitto()
    with open_folder() as d:
        port = free_port()
        p = provision(event_cfg(), d / "pv", port=port, bind="127.0.0.1")
        out = d / "broker.out"
        with out.open("wb") as stderr, EventBroker(p.conf, log_max_bytes=CAP, log_keep=KEEP, check_s=0.05,
                                                   output=stderr) as broker:
            assert wait_port(port), out.read_text(errors="replace")
            c = login(p, port, "2")
            drops: list[object] = []
            c.on_disconnect = lambda *a: drops.append(a)
            for start in range(0, BURST, 500):
                infos = [c.publish("guandan/ev/2/events", b"x" * 40, qos=1) for _ in range(start, start + 500)]
                for info in infos:
                    info.wait_for_publish(HANG)
            produced = BURST * 2 * 80  # each publish: "Received PUBLISH …" and "Sending PUBACK …", 80+ bytes each
            c.publish("guandan/ev/1/result", b'{"forged": true}', qos=1).wait_for_publish(HANG)
            wait_until(lambda: chief_reads(p))
            rotations, dropped = broker.rotations, list(drops)
            c.disconnect()
            c.loop_stop()
            # The broker goes on writing the file the last rotation made (reopened on SIGHUP).
            reopened = wait_until(lambda: "Client ev-table-2 disconnected" in p.log.read_text(errors="replace"))
        files = [p.log, *rotated_logs(p.log)]
        sizes = {f.name: f.stat().st_size for f in files}
        refused = chief_reads(p)
        on_stderr = out.read_bytes()
    assert rotations >= 10, f"the log was rotated {rotations} times"
    assert sorted(sizes) == ["mosquitto.log", "mosquitto.log.1", "mosquitto.log.2"], sizes
    assert all(size <= CAP + SLACK for size in sizes.values()), sizes
    assert sum(sizes.values()) <= (KEEP + 1) * (CAP + SLACK) < produced / 2, (sizes, produced)
    assert not dropped, "a rotation's SIGHUP disconnected the table"
    assert len(refused) == 1 and "Denied PUBLISH from ev-table-2 " in refused[0], refused
    assert "'guandan/ev/1/result'" in refused[0], refused
    assert reopened, "the broker does not write the log the rotation made"
    assert on_stderr == b"", "Mosquitto wrote its log lines on stderr too"


def test_a_start_as_root_gives_back_the_log_and_the_retained_messages_an_earlier_root_broker_left() -> None:
    """The log and ``mosquitto.db`` made root's, 0600 (a broker run as root before): Mosquitto, now
    ``mosquitto``, ran with no log at all and without its retained messages. ``EventBroker`` started as
    root gives both back first: the retained summary is there and a refusal is logged."""
    if not ROOT:
        pytest.skip("giving files to the broker's account needs root: the tests do not run as root")
    try:
        account = pwd.getpwnam("mosquitto")
    except KeyError:
        pytest.skip("no mosquitto account on this machine")
    with open_folder() as d:
        port = free_port()
        data = d / "pv" / "data"
        p = provision(event_cfg(), d / "pv", port=port, bind="127.0.0.1", persistence=data)
        with EventBroker(p.conf):
            assert wait_port(port)
            c = login(p, port, "1")
            c.publish("guandan/ev/1/summary", b'{"table": "1"}', qos=1, retain=True).wait_for_publish(HANG)
            c.disconnect()
            c.loop_stop()
        db = data / "mosquitto.db"
        for f in (p.log, db):
            os.chown(f, 0, 0)
            f.chmod(0o600)
        with EventBroker(p.conf) as broker:
            assert wait_port(port)
            given = list(broker.given)
            hub, got = hub_client(p, port)
            c = login(p, port, "2")
            c.publish("guandan/ev/1/result", b"{}", qos=1).wait_for_publish(HANG)
            refused = wait_denied(p, "ev-table-2")
            wait_until(lambda: got)
            for cl in (c, hub):
                cl.disconnect()
                cl.loop_stop()
        assert given == [p.log, db], given
        assert (p.log.stat().st_uid, db.stat().st_uid) == (account.pw_uid, account.pw_uid)
        assert got == [b'{"table": "1"}'], "the retained summary was lost"
        assert refused, "the broker could not write its log"


def test_provision_as_root_gives_the_broker_a_persistence_file_an_earlier_root_broker_left() -> None:
    if not ROOT:
        pytest.skip("provisioning as root is the branch under test: the tests do not run as root")
    try:
        account = pwd.getpwnam("mosquitto")
    except KeyError:
        pytest.skip("no mosquitto account on this machine")
    with open_folder() as d:
        data = d / "pv" / "data"
        data.mkdir(parents=True)
        (data / "mosquitto.db").write_bytes(b"left by a broker run as root")
        (data / "mosquitto.db").chmod(0o600)
        (d / "pv" / "broker").mkdir()
        (d / "pv" / "broker" / "mosquitto.log").write_text("root's\n")
        p = provision(event_cfg(), d / "pv", port=free_port(), bind="127.0.0.1", persistence=data)
        assert p.run_as is not None and p.run_as.user == "mosquitto"
        for f in (data / "mosquitto.db", p.log):
            assert f.stat().st_uid == account.pw_uid, f"{f} is still root's"


def test_not_root_a_file_the_broker_cannot_write_stops_provision_and_the_start_saying_what_to_do() -> None:
    """Not root, nothing can be given away: ``event provision`` (before: a bare permission error half-way)
    and the broker's start (before: Mosquitto ran with no log) refuse, naming the file and the fix,
    Chinese first. As root this runs as ``nobody`` on a log of root's; otherwise on a read-only log."""
    mosquitto()
    nobody = pwd.getpwnam("nobody")

    def as_broker_user(fn: Callable[[], T]) -> T:
        """``fn()`` as the user the broker would run as: ``nobody`` where the tests run as root."""
        if not ROOT:
            return fn()
        os.setegid(nobody.pw_gid)
        os.seteuid(nobody.pw_uid)
        try:
            return fn()
        finally:
            os.seteuid(0)
            os.setegid(0)

    with open_folder() as d:
        if ROOT:
            os.chown(d, nobody.pw_uid, nobody.pw_gid)
        port = free_port()
        p = as_broker_user(lambda: provision(event_cfg(), d / "pv", port=port, bind="127.0.0.1"))
        if ROOT:
            os.chown(p.log, 0, 0)
            p.log.chmod(0o600)
        else:
            p.log.chmod(0o400)
        passwd = (p.folder / "broker" / "passwd").read_bytes()
        with pytest.raises(EventInputError) as refused:
            as_broker_user(lambda: provision(event_cfg(), d / "pv", port=port, bind="127.0.0.1", force=True))
        msg = str(refused.value)
        assert msg.index("写不了") < msg.index("cannot write") and str(p.log) in msg and "sudo chown" in msg, msg
        assert (p.folder / "broker" / "passwd").read_bytes() == passwd, "nothing was rewritten"
        broker = EventBroker(p.conf)
        with pytest.raises(BrokerFilesError, match="sudo chown"):
            as_broker_user(broker.start)
        assert broker.proc is None, "the broker was started with a log it cannot write"
        assert not wait_port(port, 0.5)


def test_the_event_broker_command_runs_the_provisioned_broker_and_ends_on_sigterm(
        capsys: pytest.CaptureFixture[str]) -> None:
    """``guandan-table event broker --event EVENT.toml``: before provision, one line saying what to run
    first; after it, the broker on the provisioned config, its log and limit said, until SIGTERM (a
    service manager's stop), which ends the broker too, exit status 0."""
    mosquitto()
    with open_folder() as d:
        port = free_port()
        ev = d / "EVENT.toml"
        ev.write_text(f'[event]\nid = "cup"\nrounds = 1\n[mqtt]\nport = {port}\n[[teams]]\nid = "A"\n[[teams]]\nid = "B"\n',
                      encoding="utf-8")
        assert main(["event", "broker", "--event", str(ev)]) == 2
        err = capsys.readouterr().err
        assert err.index("请先运行") < err.index("run guandan-table event provision first"), err
        assert main(["event", "provision", "--event", str(ev), "--bind", "127.0.0.1"]) == 0
        proc = subprocess.Popen([sys.executable, "-m", "table_service", "event", "broker", "--event", str(ev),
                                 "--log-max-mb", "5", "--log-keep", "2"], cwd=REPO, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, text=True)
        try:
            assert wait_port(port, HANG), "the broker did not start"
            pids = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
            proc.send_signal(signal.SIGTERM)
            out = proc.communicate(timeout=HANG)[0]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(10)
        assert proc.returncode == 0, out
        assert "mqtt-cup/broker/mosquitto.conf" in out and "rotated at 5 MiB, 2 older kept" in out, out
        assert len(pids) == 1 and not Path(f"/proc/{pids[0]}").exists(), "the broker outlived the command"
        assert "terminating" in (d / "mqtt-cup" / "broker" / "mosquitto.log").read_text()
