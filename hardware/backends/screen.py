"""The ``screen`` backend: the partition screen's controller, through ``firmware_bridge.screen``.

One :class:`ScreenLink` per table owns the :class:`firmware_bridge.screen.ScreenController`; the
lamps, displays, buzzer and buttons of the ``screen`` backend are thin views on it. The controller
counts displays down and blinks lamps itself, so these views only forward commands.

While the link is down the controller cannot be told anything; commands then fail inside
``firmware_bridge`` and are logged here instead of raised into the engine, and the link replays
the desired state when it reconnects (firmware_bridge's resync), or the next command sets it.
Button presses made during an outage are kept by the controller's ring buffer and arrive, with
their ``event_no`` and ``controller_ms``, when the link is back.
"""

from __future__ import annotations

import logging
import math
import threading
from typing import Any

from firmware_bridge.firmware import seg7
from firmware_bridge.screen import ScreenController
from hardware.devices import ButtonCallback, ButtonInput, Buzzer, CountdownDisplay, Lamp, finite, make_event

log = logging.getLogger(__name__)


class ScreenLink:
    """The table's one connection to the screen controller.

    :param url: serial port path or pyserial URL (``[screen]`` of ``table.toml``).
    :param on_button: called with every :class:`~hardware.devices.ButtonEvent` from the screen.
    :param controller: an already built controller (tests, or a service that shares one); its
        button events are then read from its ``.events`` queue by a small thread.
    :param controller_kwargs: passed to ``ScreenController`` (timeouts, heartbeat …).
    """

    def __init__(self, url: str, on_button: ButtonCallback, *, buttons: frozenset[str] | None = None,
                 controller: Any = None, connect_timeout_s: float = 5.0, **controller_kwargs: Any) -> None:
        self.url = url
        self._on_button = on_button
        #: Which buttons of the screen are the table's (``None``: all); a table with buttons on
        #: GPIO but displays on the screen ignores the screen's buttons.
        self.buttons = buttons
        self.connect_timeout_s = connect_timeout_s
        self._pump: threading.Thread | None = None
        self._stop = threading.Event()
        self._owns = controller is None
        if controller is None:
            controller = ScreenController(url, on_button=self._screen_button, **controller_kwargs)
        self.controller = controller
        self._opened = False

    # -- lifecycle ---------------------------------------------------------------------------

    def open(self) -> bool:
        """Open the link; returns whether the controller answered within ``connect_timeout_s``.

        Not answering is not an error: the link keeps trying in the background and the table
        runs without a screen until it appears (the status shows it).
        """
        if self._owns and not self._opened:
            self.controller.open()
        elif not self._owns and self._pump is None:
            self._pump = threading.Thread(target=self._pump_events, name="screen-buttons", daemon=True)
            self._pump.start()
        self._opened = True
        return bool(self.controller.wait_for_connected(self.connect_timeout_s))

    def close(self) -> None:
        self._stop.set()
        if self._owns and self._opened:
            self.controller.close()
        self._opened = False

    @property
    def is_connected(self) -> bool:
        return bool(self.controller.is_connected)

    # -- commands (logged, not raised: the engine must not stop for an unplugged screen) --------

    def call(self, what: str, *args: Any) -> bool:
        try:
            getattr(self.controller, what)(*args)
            return True
        except Exception as exc:
            log.warning("screen %s%r failed: %s", what, args, exc)
            return False

    def query_state(self) -> dict[str, Any] | None:
        """The controller's own account of what it shows; ``None`` while the link is down."""
        if not self.is_connected:
            return None
        try:
            return dict(self.controller.query_state())
        except Exception as exc:
            log.warning("screen query_state failed: %s", exc)
            return None

    # -- buttons -----------------------------------------------------------------------------

    def _screen_button(self, ev: Any) -> None:
        if self.buttons is not None and f"{ev.seat}.{ev.button}" not in self.buttons:
            return
        self._on_button(make_event(ev.seat, ev.button, bool(ev.pressed), "screen",
                                   controller_ms=getattr(ev, "controller_ms", None),
                                   event_no=getattr(ev, "event_no", None), hold=getattr(ev, "hold", None)))

    def _pump_events(self) -> None:
        import queue

        events = self.controller.events
        while not self._stop.is_set():
            try:
                ev = events.get(timeout=0.2)
            except queue.Empty:
                continue
            self._screen_button(ev)


def _lookup(state: dict[str, Any] | None, *path: str) -> Any:
    """Dig ``state[path0][path1]…`` tolerating missing levels."""
    cur: Any = state
    for key in path:
        if not isinstance(cur, dict) or key not in cur:
            return None
        cur = cur[key]
    return cur


def _whole_seconds(value: float) -> int:
    """The controller takes whole seconds 0..9999."""
    return max(0, min(9999, int(value)))


def _showable(text: str) -> str:
    """Upper-case, four characters, glyphs the controller lacks as blanks — as a TM1637 on GPIO shows
    them — so the same ``show_text`` works on every backend instead of raising on one."""
    return "".join(ch if seg7.can_show(ch) else " " for ch in str(text).upper()[:4]).rstrip()


class ScreenLamp(Lamp):
    """A lamp on the screen (``seat`` ``None`` for the table-wide referee lamp)."""

    backend = "screen"

    def __init__(self, label: str, link: ScreenLink, seat: str | None, lamp: str) -> None:
        super().__init__(label)
        self.link, self.seat, self.lamp = link, seat, lamp

    def _apply(self, mode: str) -> None:
        self.link.call("set_lamp", self.seat, self.lamp, mode)

    def read_back(self) -> str | None:
        state = self.link.query_state()
        if self.seat is None:
            value = _lookup(state, "lamps", self.lamp)
        else:
            value = _lookup(state, "seats", self.seat, "lamps", self.lamp)
            if value is None:
                value = _lookup(state, "lamps", self.seat, self.lamp)
        return value if isinstance(value, str) else None


class ScreenBuzzer(Buzzer):
    backend = "screen"

    def __init__(self, label: str, link: ScreenLink) -> None:
        super().__init__(label)
        self.link = link

    def buzz(self, ms: int = 200) -> None:
        self.link.call("buzz", max(1, min(5000, int(ms))))  # the controller's range


class ScreenDisplay(CountdownDisplay):
    """A seat's countdown display on the screen (the firmware does the counting)."""

    backend = "screen"

    def __init__(self, label: str, link: ScreenLink, seat: str) -> None:
        super().__init__(label)
        self.link, self.seat = link, seat
        self.error = None

    def _done(self, ok: bool) -> None:
        self.error = None if ok else "隔板屏未连接 / screen controller not connected"

    def set_countdown(self, seconds: float, start_ms: int | None = None) -> None:
        secs = _whole_seconds(math.ceil(finite(seconds, "seconds")))  # the same ValueError as a TM1637's
        if start_ms is None:
            self._done(self.link.call("set_countdown", self.seat, secs))
        else:
            self._done(self.link.call("set_countdown", self.seat, secs, int(finite(start_ms, "start_ms"))))

    def show_overtime(self, seconds: float) -> None:
        self._done(self.link.call("show_overtime", self.seat, _whole_seconds(math.floor(finite(seconds, "seconds")))))

    def show_text(self, text: str) -> None:
        self._done(self.link.call("show_text", self.seat, _showable(text)))

    def read_text(self) -> str | None:
        state = self.link.query_state()
        for path in (("seats", self.seat, "display"), ("displays", self.seat)):
            value = _lookup(state, *path)
            if isinstance(value, str):
                return value
            if isinstance(value, dict) and isinstance(value.get("text"), str):
                return value["text"]
        return None


class ScreenButton(ButtonInput):
    """A screen button: its presses arrive through :class:`ScreenLink`; this object is its handle."""

    backend = "screen"

    def __init__(self, seat: str, button: str, emit: ButtonCallback, link: ScreenLink) -> None:
        super().__init__(seat, button, emit)
        self.link = link
