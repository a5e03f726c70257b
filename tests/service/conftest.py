"""Fixtures of the service tests: a real Mosquitto broker, a table runner on a temp database."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from table_service.event.broker import free_port, wait_port
from table_service.table.runner import TableRunner


@pytest.fixture
def mosquitto(tmp_path: Path) -> Iterator[int]:
    """A real Mosquitto broker on a free loopback port; yields the port.

    Not the product's ``PrivateBroker`` (table_service/event/broker.py): that one always keeps
    persistence on, for the event demo's restarts; these tests want a broker that forgets."""
    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    if not Path(exe).exists():
        # In CI a missing broker is a broken install step, never a quiet skip.
        (pytest.fail if os.environ.get("CI") else pytest.skip)(
            "mosquitto is not installed (bash scripts/install.sh --test)")
    port = free_port()
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
    log = (tmp_path / "mosquitto.log").open("w")
    proc = subprocess.Popen([exe, "-c", str(conf)], stdout=log, stderr=subprocess.STDOUT)
    try:
        if not wait_port(port):
            raise RuntimeError(f"mosquitto did not start; log: {(tmp_path / 'mosquitto.log').read_text()}")
        yield port
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.fixture
def runner(tmp_path: Path) -> Iterator[TableRunner]:
    """A started TableRunner on a fresh database."""
    with TableRunner(tmp_path / "table.sqlite3") as r:
        yield r
