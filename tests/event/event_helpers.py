"""Helpers of the event tests: a restartable real Mosquitto, run as ``event provision`` sets it up."""

from __future__ import annotations

import os
import shutil
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from table_service.event.broker import PrivateBroker


class Broker(PrivateBroker):
    """The demo's private broker; skips (fails in CI) without mosquitto; :meth:`restart` keeps the
    port and, through persistence, the sessions and retained messages."""

    def __init__(self, folder: Path, secure: Any = None) -> None:
        if not Path(shutil.which("mosquitto") or "/usr/sbin/mosquitto").exists():
            (pytest.fail if os.environ.get("CI") else pytest.skip)(
                "mosquitto is not installed (bash scripts/install.sh --test)")
        super().__init__(folder, secure=secure)

    def kill(self) -> None:
        """``kill -9``: no goodbye, no save."""
        if self.proc is not None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait(5)
            self.proc = None

    def restart(self) -> None:
        self.stop()
        self.start()


#: The events (and their tables) the event tests' broker knows: a user per table and one for each
#: hub, exactly as ``guandan-table event provision`` writes them (issue 26: the tests run the
#: broker as a real event does, never anonymous).
TEST_EVENTS: dict[str, list[str]] = {
    "ev": [str(i) for i in range(1, 10)],
    "fz": [str(i) for i in range(1, 9)] + [f"{i}{room}" for i in range(1, 5) for room in "AB"],
    "bw": ["1", "2"],
}


class SecureBroker(Broker):
    """:class:`Broker` with the provisioned users and ACL of every event in :data:`TEST_EVENTS`
    (one broker, several events: their password files and ACLs side by side)."""

    def __init__(self, folder: Path) -> None:
        from types import SimpleNamespace

        from table_service.event.provision import provision

        merged = folder / "auth"
        (merged / "broker").mkdir(parents=True, exist_ok=True)
        self.creds: dict[str, Any] = {}
        passwd, acl = [], []
        for ev, ids in TEST_EVENTS.items():
            done = provision({"event": {"id": ev}, "mqtt": {"host": "127.0.0.1", "port": 1883},
                              "tables": [{"id": t} for t in ids]}, folder / f"auth-{ev}")
            self.creds[ev] = done
            passwd.append((done.folder / "broker" / "passwd").read_text())
            acl.append((done.folder / "broker" / "acl").read_text())
        (merged / "broker" / "passwd").write_text("".join(passwd))
        os.chmod(merged / "broker" / "passwd", 0o600)
        (merged / "broker" / "acl").write_text("\n".join(acl))
        super().__init__(folder / "mosquitto", secure=SimpleNamespace(folder=merged, tls_port=None))

    def hub_mqtt(self, event: str) -> dict[str, Any]:
        """EVENT.toml's ``[mqtt]`` for the hub of ``event``."""
        c = self.creds[event].hub
        return {"port": self.port, "username": c.username, "password": c.password}

    def login(self, event: str, table: str) -> tuple[str, str]:
        c = self.creds[event].tables[table]
        return (c.username, c.password)


#: How long a test through the real broker waits for a message before it fails (it only bounds a hang).
BROKER_HANG_S = 30.0


def wait_for(cond: Callable[[], Any], what: str, timeout: float = BROKER_HANG_S) -> Any:
    """``cond()``'s first true value, polled every 50 ms; fails naming ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not (got := cond()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.05)
    return got
