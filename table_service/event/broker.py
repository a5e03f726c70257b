"""Mosquitto run by this project: the event's own broker, and a private one for the demo and the tests.

:class:`EventBroker` (``guandan-table event broker``) runs the broker ``event provision`` configured,
as its child, so that it can keep the broker's log to a bounded size (:mod:`.broker_log`: the log is
at ``debug``, the only level at which Mosquitto 2.0 records an ACL refusal, and grows by about 190 MB
an hour at 500 tables) and give back to the broker the files an earlier broker run as root left.

:class:`PrivateBroker`: the demo must not touch a broker the machine may already run (port 1883, someone's retained
messages), so it starts the Debian ``mosquitto`` binary on a free loopback port with its own
configuration and data folder, and stops it at the end. Given what ``event provision`` wrote
(:class:`~table_service.event.provision.Provisioned`), it runs as a real event's broker does:
no anonymous clients, a password per participant, the ACL, client ids bound to usernames, and a
TLS listener when the provision made certificates.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import IO, Any

from table_service.event.broker_log import (
    CHECK_S,
    LOG_KEEP,
    LOG_MAX_BYTES,
    BrokerConf,
    BrokerFilesError,
    broker_account,
    read_conf,
    rotate_log,
    settle_written,
)
from table_service.event.broker_ports import port_taken
from table_service.event.broker_user import RunAs
from table_service.event.provision import conf_text


def free_port() -> int:
    """A free TCP port on the loopback interface."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_port(port: int, timeout: float = 10.0) -> bool:
    """True once something listens on ``127.0.0.1:port``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return True
        except OSError:
            time.sleep(0.05)
    return False


def mosquitto_exe() -> str:
    """The broker binary, or a clear error naming the install step."""
    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(exe).exists():
        raise RuntimeError("找不到 mosquitto（请运行 bash scripts/install.sh） / mosquitto not found "
                           "(run bash scripts/install.sh)")
    return exe


class PrivateBroker:
    """Mosquitto on a free port with its config, persistence and log in ``folder``."""

    def __init__(self, folder: str | Path, port: int | None = None, *, secure: Any = None) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.secure = secure
        self.tls_port: int | None = free_port() if secure is not None and secure.tls_port else None
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> PrivateBroker:
        conf = self.folder / "mosquitto.conf"
        # Started as root, mosquitto drops to the "mosquitto" user and then cannot save its
        # persistence file in our folder; a private broker stays the user that started it.
        user = "user root\n" if os.geteuid() == 0 else ""
        if self.secure is not None:
            sdir = Path(self.secure.folder) / "broker"
            tls_dir = sdir / "tls" if self.tls_port else None
            # Its log stays the default (stderr, into mosquitto.log here): the debug level an event's
            # broker logs its ACL refusals at would slow the benchmarks run on this one.
            run_as = RunAs("root", ["# a private broker stays the user that started it"]) if os.geteuid() == 0 else None
            conf.write_text(conf_text(sdir, port=self.port, bind="127.0.0.1", tls_port=self.tls_port, tls_dir=tls_dir,
                                      persistence=self.folder, run_as=run_as))
        else:
            conf.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
                            f"persistence_location {self.folder}/\nmax_queued_messages 100000\n{user}")
        with (self.folder / "mosquitto.log").open("a") as log:
            self.proc = subprocess.Popen([mosquitto_exe(), "-c", str(conf)], stdout=log, stderr=subprocess.STDOUT)
        if not wait_port(self.port) or (self.tls_port and not wait_port(self.tls_port)):
            self.stop()
            log = self.folder / "mosquitto.log"
            raise RuntimeError(f"mosquitto 未能启动（端口 {self.port}），日志：{log} / mosquitto did not start "
                               f"(port {self.port}); log: {log}")
        return self

    def stop(self) -> None:
        if self.proc is None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
        self.proc = None

    def __enter__(self) -> PrivateBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def catches_sighup(pid: int) -> bool:
    """Whether process ``pid`` has its own handler for SIGHUP yet (``/proc/<pid>/status`` ``SigCgt``). Until
    Mosquitto has set its handlers, SIGHUP would end it instead of reopening its log."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("SigCgt:"):
                return bool(int(line.split()[1], 16) >> (signal.SIGHUP - 1) & 1)
    except (OSError, ValueError):
        pass
    return False


#: ``prctl(2)`` option: the signal this process gets when the thread that started it ends.
PR_SET_PDEATHSIG = 1


def running_brokers(conf: Path) -> list[int]:
    """The pids of the Mosquitto processes running on ``conf`` (``mosquitto … -c <conf>``, from
    ``/proc/<pid>/cmdline``): one left by an ``event broker`` killed before it took its broker with it,
    or started by hand."""
    want = str(conf.resolve())
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        args = [a.decode(errors="replace") for a in argv if a]
        if not args or "mosquitto" not in Path(args[0]).name:
            continue
        for flag, value in zip(args, args[1:], strict=False):
            if flag == "-c":
                try:
                    same = str((Path(f"/proc/{entry.name}/cwd") / value).resolve()) == want \
                        if not value.startswith("/") else str(Path(value).resolve()) == want
                except OSError:
                    same = value == want
                if same:
                    found.append(int(entry.name))
    return sorted(found)


def listener_ports(conf: Path) -> list[int]:
    """The ports of the ``listener`` lines of ``conf``."""
    ports = []
    for raw in conf.read_text(encoding="utf-8").splitlines():
        parts = raw.split()
        if len(parts) >= 2 and parts[0] == "listener" and parts[1].isdigit():
            ports.append(int(parts[1]))
    return ports


class BrokerRunningError(BrokerFilesError):
    """A broker already runs on this config, or something else holds its port: starting another would
    rotate the log out from under the first, then end with "Address already in use"."""


def check_not_running(conf_path: Path) -> None:
    """Refuse, before any file is touched, to start a second broker on ``conf_path``: a Mosquitto already
    running on it (its pid, how to stop it), or another program on one of its ports.

    :raises BrokerRunningError: with what to do, Chinese first."""
    pids = running_brokers(conf_path)
    if pids:
        listed = ", ".join(str(p) for p in pids)
        raise BrokerRunningError(
            f"已有代理在按此配置运行（{conf_path}，pid {listed}），多半是之前被强行结束的 event broker 留下的：请先结束它"
            f"（kill {' '.join(str(p) for p in pids)}），再启动 / a broker already runs on {conf_path} (pid {listed}), "
            f"most likely left by an event broker that was killed: stop it first (kill {' '.join(str(p) for p in pids)}), "
            "then start this again")
    taken = [p for p in listener_ports(conf_path) if port_taken(p)]
    if taken:
        listed = ", ".join(str(p) for p in taken)
        raise BrokerRunningError(
            f"本机已有程序在监听端口 {listed}（多为系统服务 mosquitto.service）：代理无法在此监听。"
            f"请查看 ss -ltnp 'sport = :{taken[0]}'，如是系统服务：sudo systemctl disable --now mosquitto / something on this "
            f"machine already listens on port {listed} (most often Debian's own mosquitto.service): the broker cannot "
            f"listen there. See ss -ltnp 'sport = :{taken[0]}'; if it is the system service: sudo systemctl disable --now "
            "mosquitto")


def _prctl() -> Any:
    """libc's ``prctl``, looked up here in the parent: between ``fork`` and ``exec`` the child may only
    call what is already loaded (a ``dlopen`` there could wait for ever on a lock another thread held)."""
    return ctypes.CDLL(None, use_errno=True).prctl


def _die_with_parent(parent: int, prctl: Any) -> None:
    """In the child, before ``exec``: SIGTERM when the thread that started it ends, ``kill -9`` of
    ``event broker`` included (Linux ``prctl(PR_SET_PDEATHSIG)``), so Mosquitto never outlives its
    supervisor as an orphan whose log no one rotates (the audit of 2026-12-06: a new ``event broker``
    then rotated that orphan's log and its own Mosquitto ended "Address already in use"). SIGTERM,
    not SIGKILL: Mosquitto saves its persistence file on it.

    Called after ``Popen`` has set the broker's user: the kernel clears the setting whenever a process's
    user changes (``commit_creds``), as Mosquitto's own switch to ``user mosquitto`` did, so Mosquitto is
    started as that user already and never switches."""
    if prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), "prctl(PR_SET_PDEATHSIG)")
    if os.getppid() != parent:  # the supervisor died before the setting took: end now
        os._exit(1)


class EventBroker:
    """The event's broker: ``mosquitto -c <provisioned mosquitto.conf>`` as this process's child, its
    log rotated by size (:func:`~table_service.event.broker_log.rotate_log` then ``SIGHUP``).

    Started as root, the broker becomes its config's ``user`` (``mosquitto``) and this process, still
    root, gives each new log to that user; a log or persistence file an earlier broker left as root is
    given to it before the start (:func:`~table_service.event.broker_log.settle_written`, listed in
    :attr:`given`). Not root, such a file stops the start with a message saying what to do.

    :param output: where the broker's own stdout/stderr go (default: this process's). The provisioned
        config logs to its file only, so this carries only what Mosquitto prints before its log is open
        (a bad config, a log it cannot open)."""

    def __init__(self, conf: str | Path, *, log_max_bytes: int = LOG_MAX_BYTES, log_keep: int = LOG_KEEP,
                 check_s: float = CHECK_S, output: IO[Any] | None = None) -> None:
        if log_max_bytes < 1 or log_keep < 1:
            raise ValueError(f"日志上限与保留份数须为正数，收到 {log_max_bytes} 字节、{log_keep} 份 / "
                             f"the log's limit and the logs kept must be positive, got "
                             f"{log_max_bytes} bytes, {log_keep} kept")
        self.conf_path = Path(conf)
        self.conf: BrokerConf = read_conf(self.conf_path)
        self.log_max_bytes, self.log_keep, self.check_s = log_max_bytes, log_keep, check_s
        self.output = output
        self.proc: subprocess.Popen[bytes] | None = None
        self.given: list[Path] = []
        """The files an earlier broker left that this start gave to the broker's account."""
        self.rotations = 0
        self._owner: tuple[int, int] | None = None
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> EventBroker:
        """Give the broker its files, rotate a log already over the limit (no signal: nothing has it open),
        start Mosquitto and the thread that watches its log. Call it from the thread that lives as long as
        the broker should (the main one): the broker ends when that thread does (:func:`_die_with_parent`).

        :raises BrokerRunningError: a broker already runs on this config, or its port is taken (nothing touched).
        :raises BrokerFilesError: not root, a file the broker writes that it could not write."""
        check_not_running(self.conf_path)
        self.given = settle_written(self.conf)
        account = broker_account(self.conf)
        self._owner = (account.pw_uid, account.pw_gid) if account is not None else None
        log = self.conf.log
        if log is not None and log.exists() and log.stat().st_size >= self.log_max_bytes:
            rotate_log(log, self.log_keep, self._owner)
            self.rotations += 1
        # As root, the broker is started as its account already (see _die_with_parent).
        as_user: dict[str, Any] = {}
        if os.geteuid() == 0 and account is not None:
            as_user = {"user": account.pw_uid, "group": account.pw_gid,
                       "extra_groups": os.getgrouplist(account.pw_name, account.pw_gid)}
        parent, prctl = os.getpid(), _prctl()
        self.proc = subprocess.Popen([mosquitto_exe(), "-c", str(self.conf_path)], stdout=self.output,
                                     stderr=subprocess.STDOUT if self.output is not None else None,
                                     preexec_fn=lambda: _die_with_parent(parent, prctl), **as_user)
        if self._stop.is_set():  # terminate() came (a signal handler) before there was a broker to end
            self.proc.terminate()
        if log is not None:
            self._thread = threading.Thread(target=self._watch, name="broker-log", daemon=True)
            self._thread.start()
        return self

    def _watch(self) -> None:
        """Look at the log every :attr:`check_s`. A rotation that fails (a full disk, the folder gone) is
        said once on stderr, until one succeeds, and tried again at each look: the broker runs on."""
        said = False
        while not self._stop.wait(self.check_s):
            try:
                self.check_log()
                said = False
            except OSError as exc:
                if not said:
                    print(f"代理日志轮换失败，稍后重试：{exc} / rotating the broker's log failed, trying again: {exc}",
                          file=sys.stderr, flush=True)
                said = True

    def check_log(self) -> bool:
        """Rotate the log and have the broker reopen it, if it has reached the limit or is gone (deleted by
        hand: the broker would write on into the deleted file), and the broker can take the signal. True
        when it did."""
        log = self.conf.log
        with self._lock:
            proc = self.proc
            if log is None or proc is None or proc.poll() is not None or self._stop.is_set():
                return False
            try:
                if log.stat().st_size < self.log_max_bytes:
                    return False
            except FileNotFoundError:
                pass
            if not catches_sighup(proc.pid):
                return False
            rotate_log(log, self.log_keep, self._owner)
            proc.send_signal(signal.SIGHUP)
            self.rotations += 1
            return True

    def wait(self, timeout: float | None = None) -> int:
        """The broker's exit status, once it has ended."""
        assert self.proc is not None, "not started"
        return self.proc.wait(timeout)

    def terminate(self) -> None:
        """Ask the broker to end (SIGTERM); for a signal handler: takes no lock and waits for nothing, the
        caller's :meth:`wait` returns once it has ended."""
        self._stop.set()
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.terminate()

    def stop(self) -> None:
        """End the watcher, then the broker (SIGTERM: it saves its persistence file)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)
        with self._lock:
            proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)

    def __enter__(self) -> EventBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
