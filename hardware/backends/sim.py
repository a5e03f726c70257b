"""The ``sim`` backend: devices that live in memory, for tests and the demo.

They behave like the real ones from the outside (a sim display counts down on the same ticker as a
TM1637; a sim button press reaches subscribers through the same dispatcher), and they keep a
history so a test or the demo's web view can see what the table would show.
"""

from __future__ import annotations

import threading
import time

from hardware.devices import (
    ButtonCallback,
    ButtonInput,
    Buzzer,
    Lamp,
    LocalCountdownDisplay,
    Ticker,
    make_event,
)


class SimLamp(Lamp):
    """A lamp in memory; ``history`` lists ``(monotonic time, mode)`` of every change."""

    backend = "sim"

    def __init__(self, label: str) -> None:
        super().__init__(label)
        self.history: list[tuple[float, str]] = []

    def _apply(self, mode: str) -> None:
        self.history.append((time.monotonic(), mode))

    def read_back(self) -> str | None:
        return self._mode


class SimBuzzer(Buzzer):
    """Records each buzz as ``(monotonic start, ms)``."""

    backend = "sim"

    def __init__(self, label: str) -> None:
        super().__init__(label)
        self.buzzes: list[tuple[float, int]] = []

    def buzz(self, ms: int = 200) -> None:
        self.buzzes.append((time.monotonic(), int(ms)))

    @property
    def is_active(self) -> bool:
        if not self.buzzes:
            return False
        start, ms = self.buzzes[-1]
        return time.monotonic() < start + ms / 1000.0


class SimDisplay(LocalCountdownDisplay):
    """A 4-digit display in memory; ``history`` lists every distinct text shown."""

    backend = "sim"

    def __init__(self, label: str, ticker: Ticker) -> None:
        self.history: list[str] = []
        self.changed = threading.Condition()
        super().__init__(label, ticker)

    def _write(self, text: str) -> None:
        with self.changed:
            self.history.append(text)
            self.changed.notify_all()

    def wait_for_text(self, text: str, timeout: float = 5.0) -> bool:
        """Block until the display shows ``text`` (4 characters, padded); ``False`` on timeout."""
        with self.changed:
            return self.changed.wait_for(lambda: self.read_text() == text, timeout)


class SimButton(ButtonInput):
    """A button pressed from code: :meth:`press`, :meth:`release`, :meth:`click`."""

    backend = "sim"

    def __init__(self, seat: str, button: str, emit: ButtonCallback) -> None:
        super().__init__(seat, button, emit)
        self._pressed = False
        self._lock = threading.Lock()

    @property
    def is_pressed(self) -> bool:
        return self._pressed

    def press(self) -> None:
        self._edge(True)

    def release(self) -> None:
        self._edge(False)

    def click(self) -> None:
        """Press and release."""
        self.press()
        self.release()

    def _edge(self, pressed: bool) -> None:
        with self._lock:
            if self._closed or pressed == self._pressed:
                return
            self._pressed = pressed
        self._emit(make_event(self.seat, self.button, pressed, "sim"))
