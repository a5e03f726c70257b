"""The ``gpio`` backend: buttons, lamps, buzzer, status LED and TM1637 displays on the Pi header.

Everything goes through gpiozero and takes a keyword-only ``pin_factory=`` (gpiozero's seam), so
the same code runs on ``lgpio`` at the table and on ``MockFactory`` in tests.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from gpiozero import LED, PWMLED, Button, Device
from gpiozero import Buzzer as _GzBuzzer
from gpiozero.exc import GPIOZeroError, PinPWMUnsupported

from hardware.backends.tm1637 import TM1637
from hardware.devices import (
    STATUS_MODES,
    ButtonCallback,
    ButtonInput,
    Buzzer,
    Lamp,
    LocalCountdownDisplay,
    Ticker,
    make_event,
)
from hardware.errors import DeviceError

log = logging.getLogger(__name__)


def resolve_pin_factory(name: str | None) -> Any:
    """A gpiozero pin factory by name; ``None`` keeps gpiozero's default.

    ``"mock"`` gives a :class:`~gpiozero.pins.mock.MockFactory` with PWM-capable pins (the status LED
    is a ``PWMLED``), for dry runs on a machine without a header.
    """
    if name is None:
        return None
    if name == "mock":
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        return MockFactory(pin_class=MockPWMPin)
    modules = {
        "lgpio": ("gpiozero.pins.lgpio", "LGPIOFactory"),
        "rpigpio": ("gpiozero.pins.rpigpio", "RPiGPIOFactory"),
        "pigpio": ("gpiozero.pins.pigpio", "PiGPIOFactory"),
        "native": ("gpiozero.pins.native", "NativeFactory"),
    }
    mod_name, cls_name = modules[name]
    try:
        import importlib

        return getattr(importlib.import_module(mod_name), cls_name)()
    except Exception as exc:
        raise DeviceError(f"无法启用 GPIO 引脚驱动 {name}（{exc}） / "
                          f"cannot start gpiozero pin factory {name}: {exc}") from exc


def _open(label: str, pin: int | str, make: Any) -> Any:
    """Open a gpiozero device, turning its errors into a message that names the table device."""
    try:
        return make()
    except GPIOZeroError as exc:
        raise DeviceError(f"GPIO {label}（BCM {pin}）无法打开（{exc}） / "
                          f"cannot open {label} on BCM {pin}: {exc}") from exc


class GpioButton(ButtonInput):
    """A seat button on a gpiozero :class:`~gpiozero.Button`.

    gpiozero's ``bounce_time`` debounces in the pin driver where the driver supports it; on top of
    that a change is reported only once the level has held for ``debounce_s`` since the last edge
    (the firmware's integrating debouncer, on the host), so a bouncy switch yields exactly one press
    however long it chatters, a spike shorter than the window is no press, and the reported state
    always ends equal to the real level — whichever pin factory is in use. Why not report the first
    edge at once: a window timed from it ended inside a long chatter and counted one push two or
    three times (measured on the mock pins: 60 ms of chatter, 2 presses; 100 ms, 3).
    """

    backend = "gpio"

    def __init__(self, seat: str, button: str, pin: int, emit: ButtonCallback, *, pull_up: bool = True,
                 debounce_s: float = 0.02, pin_factory: Any = None) -> None:
        super().__init__(seat, button, emit)
        self.pin_number = pin
        self._debounce = debounce_s
        self._lock = threading.Lock()
        self._reported = False
        self._edges = 0  # counts edges: a settle timer armed before the last edge is stale
        self._level: tuple[bool, float] | None = None  # the level the last edge set, and when
        #: Held across a change and its report (the pin's thread and the window's timer both report).
        self._order = threading.Lock()
        self._settle: threading.Timer | None = None
        self._button = _open(self.label, pin, lambda: Button(
            pin, pull_up=pull_up, bounce_time=debounce_s or None, pin_factory=pin_factory))
        self._reported = bool(self._button.is_pressed)
        self._button.when_pressed = lambda: self._edge(True)
        self._button.when_released = lambda: self._edge(False)

    @property
    def is_pressed(self) -> bool:
        return bool(self._button.is_pressed)

    @property
    def gpio_device(self) -> Button:
        return self._button

    @property
    def is_mock(self) -> bool:
        """On a gpiozero mock pin (nobody can press it by hand)."""
        from gpiozero.pins.mock import MockPin

        return isinstance(self._button.pin, MockPin)

    def simulate_press(self) -> None:
        """Drive the mock pin to the pressed level and back (dry runs, tests).

        :raises TypeError: not on a mock pin.
        """
        if not self.is_mock:
            raise TypeError(f"{self.label} is on a real pin; press it by hand")
        pin = self._button.pin
        pressed_high = not self._button.pull_up
        # Held as a finger holds it: longer than the debounce window each way (a spike is no press).
        hold = max(self._debounce, 0.0) * 2 + 0.005
        (pin.drive_high if pressed_high else pin.drive_low)()
        time.sleep(hold)
        (pin.drive_low if pressed_high else pin.drive_high)()
        time.sleep(hold)

    def _edge(self, pressed: bool) -> None:
        with self._order:  # a press is said before its release, whichever thread comes first
            self._on_edge(pressed)

    def _on_edge(self, pressed: bool) -> None:
        now = time.monotonic()
        held: bool | None = None
        with self._lock:
            if self._closed:
                return
            self._edges += 1
            if self._debounce <= 0:
                if pressed == self._reported:
                    return
                self._reported = held = pressed
            else:
                # The level this edge ends held since the edge before: long enough, it was real, even
                # if its window's timer has not run yet (a loaded machine runs a 20 ms timer late; the
                # press was then lost, its release ending the window the press was waiting in).
                if self._level is not None:
                    level, since = self._level
                    if now - since >= self._debounce and level != self._reported:
                        self._reported = held = level
                self._level = (pressed, now)
                # And wait for this one to hold: every edge starts the window again.
                if self._settle is not None:
                    self._settle.cancel()
                self._settle = threading.Timer(self._debounce, self._settled, args=(self._edges,))
                self._settle.daemon = True
                self._settle.start()
        if held is not None:
            self._emit(make_event(self.seat, self.button, held, "gpio"))

    def _settled(self, edges: int) -> None:
        with self._order:
            self._on_settled(edges)

    def _on_settled(self, edges: int) -> None:
        with self._lock:
            if self._closed or edges != self._edges:
                return  # another edge since: its own window decides
            level = bool(self._button.is_pressed)
            if level == self._reported:
                return  # a spike, or a chatter that ended where it began
            self._reported = level
        self._emit(make_event(self.seat, self.button, level, "gpio"))

    def close(self) -> None:
        with self._lock:
            super().close()
            if self._settle is not None:
                self._settle.cancel()
        self._button.close()


class GpioLamp(Lamp):
    """A lamp on a gpiozero :class:`~gpiozero.LED` (``blink`` runs on gpiozero's own thread)."""

    backend = "gpio"

    def __init__(self, label: str, pin: int, *, active_high: bool = True, blink_on_s: float = 0.5,
                 blink_off_s: float = 0.5, pin_factory: Any = None) -> None:
        super().__init__(label)
        self.pin_number = pin
        self._blink = (blink_on_s, blink_off_s)
        self._led = self._make(pin, active_high, pin_factory)

    def _make(self, pin: int, active_high: bool, pin_factory: Any) -> Any:
        return _open(self.label, pin, lambda: LED(pin, active_high=active_high, pin_factory=pin_factory))

    @property
    def gpio_device(self) -> Any:
        return self._led

    def _apply(self, mode: str) -> None:
        if mode == "on":
            self._led.on()
        elif mode == "off":
            self._led.off()
        else:
            self._led.blink(on_time=self._blink[0], off_time=self._blink[1], background=True)

    def read_back(self) -> str | None:
        """``on``/``off`` from the output pin's level; ``blink`` while gpiozero's blink thread runs."""
        if getattr(self._led, "_blink_thread", None) is not None:
            return "blink"
        return "on" if self._led.value else "off"

    def close(self) -> None:
        super().close()
        self._led.close()


class GpioStatusLed(GpioLamp):
    """The status LED on a :class:`~gpiozero.PWMLED` so it can breathe (``pulse``) while starting.

    Falls back to a plain LED (``pulse`` then blinks) when the pin factory has no PWM.
    """

    modes = STATUS_MODES

    def _make(self, pin: int, active_high: bool, pin_factory: Any) -> Any:
        try:
            return PWMLED(pin, active_high=active_high, pin_factory=pin_factory)
        except PinPWMUnsupported:
            log.info("status LED on BCM %s: no PWM, pulse will blink", pin)
            return super()._make(pin, active_high, pin_factory)
        except GPIOZeroError as exc:
            raise DeviceError(f"GPIO {self.label}（BCM {pin}）无法打开（{exc}） / "
                              f"cannot open {self.label} on BCM {pin}: "
                              f"{exc}") from exc

    def _apply(self, mode: str) -> None:
        if mode == "pulse":
            if isinstance(self._led, PWMLED):
                self._led.pulse(fade_in_time=1, fade_out_time=1, background=True)
            else:
                self._led.blink(on_time=0.2, off_time=0.2, background=True)
            return
        super()._apply(mode)

    def read_back(self) -> str | None:
        if getattr(self._led, "_blink_thread", None) is not None:
            return "pulse" if self._mode == "pulse" else "blink"
        return "on" if self._led.value else "off"


class GpioBuzzer(Buzzer):
    """An active buzzer on a gpiozero :class:`~gpiozero.Buzzer`."""

    backend = "gpio"

    def __init__(self, label: str, pin: int, *, pin_factory: Any = None) -> None:
        super().__init__(label)
        self.pin_number = pin
        self._buzzer = _open(label, pin, lambda: _GzBuzzer(pin, pin_factory=pin_factory))

    @property
    def gpio_device(self) -> Any:
        return self._buzzer

    def buzz(self, ms: int = 200) -> None:
        # The screen controller's range (1..5000 ms): buzz(1e9) sounded for eleven days here.
        ms = max(1, min(5000, int(ms)))
        self._buzzer.beep(on_time=ms / 1000.0, off_time=0.001, n=1, background=True)

    def close(self) -> None:
        super().close()
        self._buzzer.close()


class GpioDisplay(LocalCountdownDisplay):
    """A seat's countdown on a TM1637 module, ticked by the shared :class:`~hardware.devices.Ticker`.

    ``clk`` is a pin number, or a ``DigitalOutputDevice`` shared by displays on one CLK line (then
    ``lock`` serialises their frames).
    """

    backend = "gpio"

    def __init__(self, label: str, clk: Any, dio: int, ticker: Ticker, *, brightness: int = 4,
                 bit_delay: float = 0.0, lock: threading.Lock | None = None, pin_factory: Any = None) -> None:
        self.tm1637 = _open(label, f"{getattr(clk, 'pin', clk)}/{dio}", lambda: TM1637(
            clk, dio, brightness=brightness, bit_delay=bit_delay, lock=lock, pin_factory=pin_factory))
        super().__init__(label, ticker)

    def _write(self, text: str) -> None:
        self.tm1637.show(text)

    def close(self) -> None:
        super().close()
        self.tm1637.close()


def default_pin_factory() -> Any:
    """gpiozero's current default factory (creating it if needed)."""
    if Device.pin_factory is None:
        Device.pin_factory = Device._default_pin_factory()
    return Device.pin_factory
