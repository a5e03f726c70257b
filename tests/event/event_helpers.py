"""Helpers of the event tests: a restartable real Mosquitto."""

from __future__ import annotations

import os
import shutil
import signal
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
