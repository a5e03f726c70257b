"""A private Mosquitto for the event demo, the tests and the benchmark.

The demo must not touch a broker the machine may already run (port 1883, someone's retained
messages), so it starts the Debian ``mosquitto`` binary on a free loopback port with its own
configuration and data folder, and stops it at the end. Given what ``event provision`` wrote
(:class:`~table_service.event.provision.Provisioned`), it runs as a real event's broker does:
no anonymous clients, a password per participant, the ACL, client ids bound to usernames, and a
TLS listener when the provision made certificates.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

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
        raise RuntimeError("找不到 mosquitto（请运行 bash scripts/install.sh）/ mosquitto not found "
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
            raise RuntimeError(f"mosquitto 未能启动 / mosquitto did not start (port {self.port}); "
                               f"log: {self.folder / 'mosquitto.log'}")
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
