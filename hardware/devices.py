"""The table's logical devices, whatever drives them.

The rest of the project talks to seats, not to pins or ports: a :class:`Lamp` is switched
``on``/``off``/``blink``, a :class:`CountdownDisplay` is told to count down from 20 s, a
:class:`Buzzer` buzzes, and every button press of every backend arrives as one
:class:`ButtonEvent`. Backends (``hardware.backends.sim``, ``hardware.backends.gpio``, ``hardware.backends.screen``) subclass
these; :class:`~hardware.table.TableDevices` builds the mix ``table.toml`` asks for.

Displays on the screen controller count down by themselves (the firmware ticks); displays the Pi
drives (TM1637 on GPIO, the simulated one) are ticked by one shared :class:`Ticker` thread here,
so the engine sends the same single "count down from 20" command to both kinds.
"""

from __future__ import annotations

import logging
import math
import threading
import time
import weakref
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

log = logging.getLogger(__name__)

LAMP_MODES: tuple[str, ...] = ("on", "off", "blink")
#: The status LED also breathes (PWM) while the service is starting.
STATUS_MODES: tuple[str, ...] = ("on", "off", "blink", "pulse")


@dataclass(frozen=True)
class ButtonEvent:
    """One button edge, the same shape from every backend.

    ``time`` is ``time.monotonic()`` on the Pi when the edge was seen (for ordering and latency);
    ``wall_ms`` is the epoch-millisecond timestamp the event log wants. For screen buttons
    ``controller_ms``/``event_no`` are the controller's own clock and ring-buffer number, so a
    press replayed after a link outage can be told apart from a fresh one, and ``hold`` (screen
    buttons) keeps the press unacknowledged to the controller until what it returns is called
    (:class:`firmware_bridge.screen.ScreenButtonEvent`).
    """

    seat: str
    button: str
    pressed: bool
    time: float
    source: str
    wall_ms: int = field(default=0, compare=False)
    controller_ms: int | None = None
    event_no: int | None = None
    hold: Callable[[], Callable[[], None]] | None = field(default=None, compare=False, repr=False)

    def as_data(self) -> dict[str, object]:
        """JSON-ready ``data`` for the engine's event envelope."""
        data: dict[str, object] = {"seat": self.seat, "button": self.button, "pressed": self.pressed}
        if self.controller_ms is not None:
            data["controller_ms"] = self.controller_ms
        if self.event_no is not None:
            data["event_no"] = self.event_no
        return data


ButtonCallback = Callable[[ButtonEvent], None]


def make_event(seat: str, button: str, pressed: bool, source: str, **extra: Any) -> ButtonEvent:
    """A :class:`ButtonEvent` stamped now."""
    return ButtonEvent(seat, button, pressed, time.monotonic(), source, int(time.time() * 1000), **extra)


class Device(ABC):  # noqa: B024 - abstract through its subclasses (Lamp, Buzzer …)
    """What every logical device has: a label, ``close()`` and a context manager."""

    #: ``"gpio"``, ``"screen"``, ``"sim"`` or ``"none"``.
    backend: str = "none"

    def __init__(self, label: str) -> None:
        #: e.g. ``"E.report_lamp"``, ``"referee_lamp"``.
        self.label = label
        self._closed = False

    def close(self) -> None:
        self._closed = True

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> Device:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<hardware.{type(self).__name__} {self.label} ({self.backend})>"


class Lamp(Device):
    """A lamp: report-card lamp, turn lamp, referee lamp or the status LED."""

    modes: tuple[str, ...] = LAMP_MODES

    def __init__(self, label: str) -> None:
        super().__init__(label)
        self._mode = "off"

    @property
    def mode(self) -> str:
        """The mode last set (``on``/``off``/``blink``/``pulse``)."""
        return self._mode

    def set(self, mode: str) -> None:
        """Switch the lamp. :raises ValueError: unknown mode."""
        if mode not in self.modes:
            raise ValueError(f"{self.label} 的灯模式 {mode!r} 无效，可用：{', '.join(self.modes)} / "
                             f"invalid lamp mode {mode!r} for {self.label}; use {', '.join(self.modes)}")
        self._apply(mode)
        self._mode = mode

    def on(self) -> None:
        self.set("on")

    def off(self) -> None:
        self.set("off")

    def blink(self) -> None:
        self.set("blink")

    def read_back(self) -> str | None:
        """The mode as the device itself reports it, or ``None`` where it cannot be read back.

        The self-test compares this with what it set.
        """
        return None

    @abstractmethod
    def _apply(self, mode: str) -> None: ...


class Buzzer(Device):
    """The table-wide buzzer."""

    @abstractmethod
    def buzz(self, ms: int = 200) -> None:
        """Sound for ``ms`` milliseconds (returns at once)."""


class CountdownDisplay(Device):
    """A seat's 4-digit display.

    ``start_ms`` (``set_countdown``) is the epoch-millisecond moment the timer started — the same
    clock as the events' ``t_ms`` — so a command that arrives late still shows the right remainder.
    """

    @abstractmethod
    def set_countdown(self, seconds: float, start_ms: int | None = None) -> None:
        """Count down from ``seconds`` to 0 (then hold 0)."""

    @abstractmethod
    def show_overtime(self, seconds: float) -> None:
        """Show a time overrun of ``seconds``, counting up (``-  5``, ``-  6``…)."""

    @abstractmethod
    def show_text(self, text: str) -> None:
        """Show up to four characters (a seven-segment display shows what its font allows)."""

    def clear(self) -> None:
        self.show_text("")

    def read_text(self) -> str | None:
        """The four characters shown now, where the backend can tell; else ``None``."""
        return None

    #: Last error driving the display (e.g. TM1637 not acknowledging); ``None`` when fine.
    error: str | None = None


class ButtonInput(Device):
    """One seat button; edges are reported through the table's dispatcher, not polled."""

    def __init__(self, seat: str, button: str, emit: ButtonCallback) -> None:
        super().__init__(f"{seat}.{button}_button")
        self.seat = seat
        self.button = button
        self._emit = emit

    @property
    def is_pressed(self) -> bool | None:
        """Current level where the backend knows it."""
        return None


# ------------------------------------------------------------------------------------------------
# Displays the Pi ticks itself


def finite(value: float, what: str) -> float:
    """``value`` as a float, or ValueError naming ``what``: nan or inf stored as a display's
    seconds or start made every later refresh raise, and the one shared :class:`Ticker` thread
    died of it, freezing every Pi-driven display of the table."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        v = math.nan
    if not math.isfinite(v):
        raise ValueError(f"显示时间无效：{what} 须为有限数，收到 {value!r} / {what} must be a finite number, got {value!r}")
    return v


def render_countdown(mode: str | None, seconds: float, t0: float, now: float, text: str = "") -> str:
    """The four characters a Pi-driven display shows at ``now`` (pure; ``t0`` on the same clock).

    Countdown shows whole seconds left, rounded up (20 s shows ``  20`` until a full second has
    passed) and holds ``   0``; overtime shows ``-`` and the seconds over, counting up.
    """
    if mode == "countdown":
        left = max(0, math.ceil(round(seconds - (now - t0), 6)))
        return str(min(left, 9999)).rjust(4)
    if mode == "overtime":
        over = max(0, math.floor(seconds + (now - t0)))
        return ("-" + str(min(over, 999)).rjust(3))
    if mode == "text":
        return text[:4].ljust(4)
    return "    "


class Ticker:
    """One daemon thread that refreshes every Pi-driven display ~20 times a second.

    Shared so that eight displays cost one thread; displays are held weakly so a forgotten display
    does not keep the thread alive.
    """

    def __init__(self, interval: float = 0.05) -> None:
        self.interval = interval
        self._displays: weakref.WeakSet[LocalCountdownDisplay] = weakref.WeakSet()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()

    def add(self, display: LocalCountdownDisplay) -> None:
        with self._lock:
            self._displays.add(display)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="hardware-ticker", daemon=True)
                self._thread.start()
        self._wake.set()

    def discard(self, display: LocalCountdownDisplay) -> None:
        with self._lock:
            self._displays.discard(display)

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=2)

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                displays = list(self._displays)
            for d in displays:
                try:
                    d.refresh()
                except Exception:  # one display's bug must not freeze all the others
                    log.exception("display %s: refresh failed", getattr(d, "label", d))
            self._wake.wait(self.interval)
            self._wake.clear()


class LocalCountdownDisplay(CountdownDisplay):
    """A display whose countdown the Pi computes; subclasses only :meth:`_write` four characters."""

    def __init__(self, label: str, ticker: Ticker) -> None:
        super().__init__(label)
        self._ticker = ticker
        self._lock = threading.RLock()
        self._mode: str | None = None
        self._seconds = 0.0
        self._t0 = 0.0
        self._text = ""
        self._shown: str | None = None
        self.error = None
        ticker.add(self)

    def set_countdown(self, seconds: float, start_ms: int | None = None) -> None:
        seconds = finite(seconds, "seconds")
        start = None if start_ms is None else finite(start_ms, "start_ms")
        with self._lock:
            self._mode, self._seconds = "countdown", seconds
            self._t0 = time.monotonic()
            if start is not None:
                self._t0 -= max(0.0, time.time() - start / 1000.0)
        self.refresh()

    def show_overtime(self, seconds: float) -> None:
        seconds = finite(seconds, "seconds")
        with self._lock:
            self._mode, self._seconds, self._t0 = "overtime", seconds, time.monotonic()
        self.refresh()

    def show_text(self, text: str) -> None:
        with self._lock:
            self._mode, self._text = "text", str(text)
        self.refresh()

    def refresh(self) -> None:
        """Write the display if what it should show changed (called by the ticker)."""
        if self._closed:
            return
        with self._lock:
            want = render_countdown(self._mode, self._seconds, self._t0, time.monotonic(), self._text)
            if want == self._shown:
                return
            try:
                self._write(want)
            except Exception as exc:  # a display fault must not stop the ticker or the engine
                if self.error is None:
                    log.warning("display %s: %s", self.label, exc)
                self.error = str(exc)
                return
            self._shown = want
            self.error = None

    def read_text(self) -> str | None:
        return self._shown

    def close(self) -> None:
        self._ticker.discard(self)
        super().close()

    @abstractmethod
    def _write(self, text: str) -> None: ...


# ------------------------------------------------------------------------------------------------
# "none": a device the table does not have


class NullLamp(Lamp):
    """A lamp this table does not have: accepts commands, shows nothing."""

    backend = "none"

    def _apply(self, mode: str) -> None:
        pass


class NullBuzzer(Buzzer):
    backend = "none"

    def buzz(self, ms: int = 200) -> None:
        pass


class NullDisplay(CountdownDisplay):
    backend = "none"

    def set_countdown(self, seconds: float, start_ms: int | None = None) -> None:
        pass

    def show_overtime(self, seconds: float) -> None:
        pass

    def show_text(self, text: str) -> None:
        pass
