"""Fixtures: the emulated controller on a real pseudo-terminal and a ScreenController on it."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # bare_hal, the firmware tests' board

from firmware_bridge.emulator import ScreenEmulator
from firmware_bridge.link_values import LinkStatus
from firmware_bridge.screen import ScreenButtonEvent, ScreenController


class Recorder:
    """Collects button events and status changes; tests wait on it with timeouts."""

    def __init__(self) -> None:
        self.cond = threading.Condition()
        self.buttons: list[ScreenButtonEvent] = []
        self.statuses: list[LinkStatus] = []

    def on_button(self, ev: ScreenButtonEvent) -> None:
        with self.cond:
            self.buttons.append(ev)
            self.cond.notify_all()

    def on_status(self, st: LinkStatus) -> None:
        with self.cond:
            self.statuses.append(st)
            self.cond.notify_all()

    def wait(self, pred: Callable[[], bool], timeout: float = 60.0) -> bool:
        with self.cond:
            return self.cond.wait_for(pred, timeout)

    def kinds(self) -> list[str]:
        with self.cond:
            return [s.kind for s in self.statuses]

    def status(self, kind: str) -> LinkStatus | None:
        with self.cond:
            return next((s for s in reversed(self.statuses) if s.kind == kind), None)


def wait_until(pred: Callable[[], bool], timeout: float = 60.0, interval: float = 0.005) -> bool:
    """Poll a condition (for state that has no callback, e.g. what the emulated display shows).
    The deadline only bounds a hang: a loaded 2-core CI machine may take seconds."""
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            return False
        time.sleep(interval)
    return True


@pytest.fixture
def emulator() -> Iterator[ScreenEmulator]:
    with ScreenEmulator(seed=1234) as emu:
        yield emu


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def screen(emulator: ScreenEmulator, recorder: Recorder) -> Iterator[ScreenController]:
    sc = ScreenController(emulator.port, on_button=recorder.on_button, on_status=recorder.on_status,
                          reconnect_s=0.05)
    with sc:
        assert sc.wait_for_connected(10), sc.last_error
        yield sc
