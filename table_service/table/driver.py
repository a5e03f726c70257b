"""Engine effects to device commands (displays, lamps, buzzer), on a worker thread of their own.

The engine thread only queues effects, so a slow serial link never holds up the engine.
"""

from __future__ import annotations

import contextlib
import logging
import queue
import threading
import time
from typing import Any

from table_service.table.clock import TableClock

log = logging.getLogger(__name__)


class DeviceDriver:
    """Turns engine effects into device commands, on its own worker thread.

    The engine thread only puts effects on a queue (quick, as subscribers must be). The worker
    keeps the countdown deadlines: on a table whose clock runs at speed 1 the controller counts
    down by itself after one command; at other speeds (the demo) the worker refreshes the display
    every table second, so the display shows the engine's countdown, not the controller's.
    """

    def __init__(self, devices: Any, clock: TableClock) -> None:
        self.devices = devices
        self.clock = clock
        self._q: queue.Queue[Any] = queue.Queue()
        self._deadlines: dict[str, int] = {}
        self._overtime: set[str] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="device-driver", daemon=True)
        self.applied = 0
        self.history: list[dict[str, Any]] = []  # effects applied (bounded), for diagnosis and tests

    def start(self) -> DeviceDriver:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self._q.put(None)
        self._thread.join(3)

    def submit(self, effects: list[dict[str, Any]]) -> None:
        """Queue effects (called on the engine thread)."""
        if effects:
            self._q.put(list(effects))

    def wait_idle(self, timeout: float = 5.0) -> bool:
        """True once every queued effect has been applied (tests)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self._q.unfinished_tasks == 0:
                return True
            time.sleep(0.01)
        return False

    def _run(self) -> None:
        refresh = self.clock.speed != 1.0
        period = min(1.0, 1.0 / self.clock.speed) if refresh else 1.0
        next_refresh = time.monotonic() + period
        while not self._stop.is_set():
            timeout = max(0.0, next_refresh - time.monotonic()) if (refresh and self._deadlines) else 1.0
            try:
                item = self._q.get(timeout=timeout)
            except queue.Empty:
                item = ()
            try:
                if item is None:
                    return
                for fx in item:
                    try:
                        self.apply(fx)
                    except Exception:  # one bad device must not stop the others
                        log.exception("device effect failed: %r", fx)
                if refresh and time.monotonic() >= next_refresh:
                    next_refresh = time.monotonic() + period
                    self._refresh()
            finally:
                if item != ():
                    self._q.task_done()

    def _seat(self, seat: str) -> Any:
        return self.devices.seats[seat]

    def _show_countdown(self, seat: str) -> None:
        deadline = self._deadlines.get(seat)
        if deadline is None:
            return
        left_ms = deadline - self.clock.now_ms()
        disp = self._seat(seat).countdown
        if left_ms >= 0:
            disp.set_countdown(int(-(-left_ms // 1000)))
        elif seat not in self._overtime:
            # The engine sends the overtime count with its ticks; until then show 0.
            disp.set_countdown(0)

    def _refresh(self) -> None:
        for seat in list(self._deadlines):
            with contextlib.suppress(Exception):
                self._show_countdown(seat)

    def apply(self, fx: dict[str, Any]) -> None:
        """Carry out one effect."""
        kind = fx.get("kind")
        self.applied += 1
        if len(self.history) < 20000:
            self.history.append(dict(fx, applied_wall=time.time()))
        if kind == "countdown":
            seat = fx["seat"]
            self._deadlines[seat] = int(fx["deadline_ms"])
            self._overtime.discard(seat)
            self._show_countdown(seat)
        elif kind == "countdown_stopped":
            seat = fx["seat"]
            self._deadlines.pop(seat, None)
            self._overtime.discard(seat)
            self._seat(seat).countdown.clear()
        elif kind == "overtime":
            seat = fx["seat"]
            self._overtime.add(seat)
            self._seat(seat).countdown.show_overtime(int(fx["seconds"]))
        elif kind == "lamp":
            seat, lamp, mode = fx.get("seat"), fx["lamp"], fx["mode"]
            if seat is None:
                dev = self.devices.referee_lamp if lamp == "referee" else self.devices.status_led
            else:
                dev = self._seat(seat).lamp(lamp)
            dev.set(mode)
        elif kind == "buzz":
            self.devices.buzzer.buzz(int(fx.get("ms", 200)))
