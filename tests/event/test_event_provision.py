"""``guandan-table event provision`` against the security audit of its folder (four findings), each
tested on what provision writes, and where it matters with Mosquitto started from that very folder
(``mosquitto -c broker/mosquitto.conf``, as the recipe in docs/security.md §6 runs it):

1. the broker ran as root when provision ran as root (``user root``), and a broker started as root
   with files a normal user provisioned became ``mosquitto`` and could not read them;
2. a publish the ACL refused left no trace;
3. the CA's private key sat in ``broker/tls/``, the folder that goes to the broker's machine;
4. ``--force`` for fewer tables or watchers left their credential files behind.

Some branches need root (provisioning as root; starting Mosquitto as root from another user's
files): they run where the tests run as root and are skipped, by name, elsewhere.
"""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

import table_service.event.broker_user as broker_user
from table_service.cli import main
from table_service.event.broker import free_port, wait_port
from table_service.event.config import validate
from table_service.event.provision import Provisioned, provision

HANG = 30.0
ROOT = os.geteuid() == 0


def event_cfg(tables: int = 2) -> dict[str, Any]:
    return validate({"event": {"id": "ev", "rounds": 1}, "teams": [{"id": f"T{i}"} for i in range(1, 2 * tables + 1)]})


def mosquitto() -> str:
    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(exe).exists():
        (pytest.fail if os.environ.get("CI") else pytest.skip)("mosquitto is not installed (bash scripts/install.sh --test)")
    return exe


def uid_of(pid: int) -> int:
    """The effective uid of a running process (``/proc/<pid>/status``)."""
    line = next(x for x in Path(f"/proc/{pid}/status").read_text().splitlines() if x.startswith("Uid:"))
    return int(line.split()[2])


@contextmanager
def started(p: Provisioned, port: int) -> Iterator[subprocess.Popen[bytes]]:
    """Mosquitto on the provisioned ``mosquitto.conf``, as it is, as the user running the tests."""
    out = p.folder.parent / "mosquitto.out"
    with out.open("wb") as log:
        proc = subprocess.Popen([mosquitto(), "-c", str(p.conf)], stdout=log, stderr=subprocess.STDOUT)
    try:
        assert wait_port(port), f"mosquitto did not start: {out.read_text(errors='replace')[-2000:]}"
        yield proc
    finally:
        proc.terminate()
        proc.wait(10)


def login(p: Provisioned, port: int, who: str, *, tls: bool = False) -> mqtt.Client:
    """Table ``who``'s credential, connected (QoS 1 publishes are acknowledged, refused or not)."""
    cred = p.tables[who]
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="")
    c.username_pw_set(cred.username, cred.password)
    if tls:
        c.tls_set(ca_certs=str(p.ca_file))
    ok = threading.Event()
    c.on_connect = lambda _c, _u, _f, rc, _p=None: ok.set() if not rc.is_failure else None
    c.connect("127.0.0.1", port, 15)
    c.loop_start()
    assert ok.wait(HANG), f"{cred.username} could not log in"
    return c


def denials(p: Provisioned, user: str) -> list[str]:
    """The broker log's lines refusing ``user``'s publishes (none while there is no log)."""
    log = p.folder / "broker" / "mosquitto.log"
    text = log.read_text(errors="replace") if log.exists() else ""
    return [x for x in text.splitlines() if f"Denied PUBLISH from {user} " in x]


def wait_denied(p: Provisioned, user: str) -> list[str]:
    deadline = time.monotonic() + HANG
    while not denials(p, user) and time.monotonic() < deadline:
        time.sleep(0.05)
    return denials(p, user)


@contextmanager
def open_folder() -> Iterator[Path]:
    """A folder every user may enter (pytest's ``tmp_path`` lies under a 0700 folder of root's)."""
    d = Path(tempfile.mkdtemp(prefix="guandan-provision-", dir="/tmp"))
    d.chmod(0o755)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


# 1. who the broker runs as

def test_provisioned_as_root_the_broker_runs_as_mosquitto_and_reads_its_files() -> None:
    """Before: ``user root``, and the broker never dropped root. Now it runs as ``mosquitto``,
    which owns the password file, the ACL, the TLS files, the log and the persistence folder."""
    if not ROOT:
        pytest.skip("provisioning as root is the branch under test: the tests do not run as root")
    try:
        account = pwd.getpwnam("mosquitto")
    except KeyError:
        pytest.skip("no mosquitto account on this machine (the fallback is tested below)")
    with open_folder() as d:
        port, tls_port = free_port(), free_port()
        p = provision(event_cfg(), d / "pv", port=port, bind="127.0.0.1", tls_hosts=["127.0.0.1"], tls_port=tls_port,
                      persistence=d / "pv" / "data")
        with started(p, tls_port) as proc:
            assert uid_of(proc.pid) == account.pw_uid, "the broker kept root"
            c = login(p, tls_port, "1", tls=True)
            c.publish("guandan/ev/1/summary", b'{"table": "1"}', qos=1, retain=True).wait_for_publish(HANG)
            c.publish("guandan/ev/2/result", b"{}", qos=1).wait_for_publish(HANG)
            assert wait_denied(p, "ev-table-1"), "the log, opened as mosquitto, has the refusal"
            c.disconnect()
            c.loop_stop()
        assert (d / "pv" / "data" / "mosquitto.db").exists(), "the broker could not save its retained messages"
        conf = p.conf.read_text()
        assert "\nuser mosquitto\n" in conf and "user root" not in conf
        assert p.run_as is not None and p.run_as.note is None
        broker = p.folder / "broker"
        for f in ["passwd", "acl", "tls/server.key", "tls/server.crt", "mosquitto.log"]:
            st = (broker / f).stat()
            assert (st.st_uid, st.st_gid) == (account.pw_uid, account.pw_gid), f"{f} is not the broker's"
        for f in ["passwd", "acl", "tls/server.key", "mosquitto.log"]:
            assert stat.S_IMODE((broker / f).stat().st_mode) == 0o600, f"{f} is readable by others"
        assert (d / "pv" / "data").stat().st_uid == account.pw_uid


def test_a_broker_started_as_root_on_a_users_files_becomes_that_user() -> None:
    """Provisioned by a normal user, the files are that user's, 0600: the config names that user, so a
    broker started as root becomes it (before, Mosquitto became ``mosquitto`` and could not read the
    TLS key or the password file). As root the user is ``nobody`` (``seteuid`` while provisioning)."""
    mosquitto()
    with open_folder() as d:
        port, tls_port = free_port(), free_port()
        args: dict[str, Any] = {"port": port, "bind": "127.0.0.1", "tls_hosts": ["127.0.0.1"], "tls_port": tls_port}
        if not ROOT:
            p = provision(event_cfg(), d / "pv", **args)
            assert f"\nuser {pwd.getpwuid(os.geteuid()).pw_name}\n" in p.conf.read_text()
            pytest.skip("starting Mosquitto as root on another user's files needs root")
        nobody = pwd.getpwnam("nobody")
        os.chown(d, nobody.pw_uid, nobody.pw_gid)
        os.setegid(nobody.pw_gid)
        os.seteuid(nobody.pw_uid)
        try:
            p = provision(event_cfg(), d / "pv", **args)
        finally:
            os.seteuid(0)
            os.setegid(0)
        with started(p, tls_port) as proc:
            assert uid_of(proc.pid) == nobody.pw_uid
            c = login(p, tls_port, "1", tls=True)
            c.disconnect()
            c.loop_stop()
        conf = p.conf.read_text()
        assert "\nuser nobody\n" in conf and "provision ran as nobody" in conf, "the config says what happens"
        assert (p.folder / "broker" / "passwd").stat().st_uid == nobody.pw_uid


def _provision_cli(ev: Path, out: Path, *extra: str) -> None:
    assert main(["event", "provision", "--event", str(ev), "--out", str(out), *extra]) == 0


def _event_toml(folder: Path, teams: int = 4) -> Path:
    ev = folder / "EVENT.toml"
    ev.write_text('[event]\nid = "cup"\nrounds = 1\n' + "".join(f'[[teams]]\nid = "T{i}"\n' for i in range(1, teams + 1)),
                  encoding="utf-8")
    return ev


def test_when_mosquitto_cannot_reach_the_folder_the_broker_stays_root_and_the_command_says_why(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A folder under one only root may enter: giving the files to ``mosquitto`` would not let it read
    them, so the config keeps ``user root`` and says why, and the command says what to do."""
    if not ROOT:
        pytest.skip("provisioning as root is the branch under test: the tests do not run as root")
    closed = tmp_path / "closed"
    closed.mkdir(mode=0o700)
    _provision_cli(_event_toml(tmp_path), closed / "pv")
    conf = (closed / "pv" / "broker" / "mosquitto.conf").read_text()
    assert "\nuser root\n" in conf and "# Runs as root: the `mosquitto` account cannot enter" in conf
    err = capsys.readouterr().err
    assert err.index("注意") < err.index("note:") and "setfacl -m u:mosquitto:x" in err and "--force" in err
    blocked = err.split("cannot enter ")[1].split(",")[0]
    assert Path(blocked) in (closed, *closed.parents), err
    assert (closed / "pv" / "broker" / "passwd").stat().st_uid == 0, "nothing given to a user who cannot use it"


def test_without_a_mosquitto_account_the_broker_stays_root_and_the_command_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    if not ROOT:
        pytest.skip("provisioning as root is the branch under test: the tests do not run as root")
    monkeypatch.setattr(broker_user, "BROKER_USER", "guandan-no-such-account")
    _provision_cli(_event_toml(tmp_path), tmp_path / "pv")
    assert "\nuser root\n" in (tmp_path / "pv" / "broker" / "mosquitto.conf").read_text()
    err = capsys.readouterr().err
    assert err.index("注意") < err.index("note:") and "apt install mosquitto" in err


# 2. refusals leave a trace

def test_a_refused_publish_leaves_a_line_naming_the_client_in_the_brokers_log(tmp_path: Path) -> None:
    """Table 2's credential publishing a result for table 1 was dropped without a word anywhere. The
    provisioned broker's log (``broker/mosquitto.log``) now names the client and the topic."""
    port = free_port()
    p = provision(event_cfg(), tmp_path / "pv", port=port, bind="127.0.0.1")
    with started(p, port):
        c2 = login(p, port, "2")
        c2.publish("guandan/ev/2/summary", b'{"table": "2"}', qos=1).wait_for_publish(HANG)
        c2.publish("guandan/ev/1/result", b'{"forged": true}', qos=1, retain=True).wait_for_publish(HANG)
        lines = wait_denied(p, "ev-table-2")
        c2.disconnect()
        c2.loop_stop()
    assert lines and "'guandan/ev/1/result'" in lines[0], lines
    assert len(lines) == 1, "only the forged publish was refused"
    log = (p.folder / "broker" / "mosquitto.log").read_text(errors="replace")
    assert all(c.password not in log for c in p.tables.values()), "no password in the log"


# 3. the CA's key

def _pubkey(*args: str) -> str:
    return subprocess.run(["openssl", *args], capture_output=True, text=True, check=True).stdout


def test_the_ca_key_stays_out_of_the_folder_that_goes_to_the_broker(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """``ca.key`` was written into ``broker/tls/``; it is now ``ca/ca.key`` (0600 in a 0700 folder),
    and a folder provisioned the old way has it moved out by the next ``--force``."""
    ev, out = _event_toml(tmp_path), tmp_path / "pv"
    _provision_cli(ev, out, "--tls", "127.0.0.1")
    assert [p.name for p in (out / "broker").rglob("*.key")] == ["server.key"]
    key = out / "ca" / "ca.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600 and stat.S_IMODE((out / "ca").stat().st_mode) == 0o700
    assert "ca/ca.key" in capsys.readouterr().out
    # The key in ca/ is the CA's, and it signed the broker's certificate.
    assert _pubkey("pkey", "-in", str(key), "-pubout") == _pubkey("x509", "-in", str(out / "ca.crt"), "-noout", "-pubkey")
    subprocess.run(["openssl", "verify", "-CAfile", str(out / "ca.crt"), str(out / "broker" / "tls" / "server.crt")],
                   check=True, capture_output=True)
    # A folder of an older version: the key in broker/tls/. --force moves it out, with or without --tls.
    for extra in (["--tls", "127.0.0.1"], []):
        old = out / "broker" / "tls" / "ca.key"
        os.replace(key, old)
        (out / "ca").rmdir()
        was = old.read_bytes()
        _provision_cli(ev, out, "--force", *extra)
        assert not old.exists() and key.exists(), extra
        assert stat.S_IMODE(key.stat().st_mode) == 0o600 and stat.S_IMODE((out / "ca").stat().st_mode) == 0o700
        assert "broker/tls/ca.key → ca/ca.key" in capsys.readouterr().out
        if not extra:
            assert key.read_bytes() == was, "without --tls the old CA's key is kept, out of broker/"


# 4. stale credentials

def test_force_for_fewer_tables_and_watchers_deletes_their_credentials(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Re-provisioned for fewer tables and watchers, ``tables/3.toml`` and ``watch-2.toml`` stayed:
    credentials whose users the password file no longer has. They are deleted, and the command says so."""
    out = tmp_path / "pv"
    _provision_cli(_event_toml(tmp_path, teams=6), out, "--watchers", "3")
    assert sorted(p.name for p in (out / "tables").iterdir()) == ["1.toml", "2.toml", "3.toml"]
    (out / "watch-notes.toml").write_text("# the organiser's own\n")
    capsys.readouterr()
    _provision_cli(_event_toml(tmp_path, teams=4), out, "--force")
    assert sorted(p.name for p in (out / "tables").iterdir()) == ["1.toml", "2.toml"]
    assert not (out / "watch-2.toml").exists() and not (out / "watch-3.toml").exists()
    assert (out / "watch.toml").exists() and (out / "watch-notes.toml").exists()
    said = capsys.readouterr().out
    assert all(f in said for f in ("tables/3.toml", "watch-2.toml", "watch-3.toml")) and "watch-notes" not in said
    users = [line.split(":")[0] for line in (out / "broker" / "passwd").read_text().splitlines()]
    assert sorted(users) == ["cup-hub", "cup-table-1", "cup-table-2", "cup-watch"]
