"""One table's devices, built from ``table.toml``: what the service holds.

::

    config = load_config("table.toml")
    with TableDevices(config) as table:          # opens GPIO, the screen link
        unsubscribe = table.on_button(handle)     # handle(ButtonEvent), every backend
        table.seats["E"].turn_lamp.on()
        table.seats["E"].countdown.set_countdown(20)
        table.referee_lamp.blink(); table.buzzer.buzz(300)
        camera = table.open_camera()              # FrameSource or None

Button callbacks run on the thread that saw the edge (gpiozero's, the screen reader's, the
caller's for sim): they must be quick — the service only submits the event to its runner.
"""

from __future__ import annotations

import logging
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from firmware_bridge.firmware.wire import SEATS
from hardware import camera as _camera
from hardware.backends.gpio import (
    GpioButton,
    GpioBuzzer,
    GpioDisplay,
    GpioLamp,
    GpioStatusLed,
    _open,
    resolve_pin_factory,
)
from hardware.backends.screen import ScreenButton, ScreenBuzzer, ScreenDisplay, ScreenLamp, ScreenLink
from hardware.backends.sim import SimButton, SimBuzzer, SimDisplay, SimLamp
from hardware.backends.tm1637 import MockTM1637
from hardware.config_model import BUTTONS, TableConfig
from hardware.devices import (
    STATUS_MODES,
    ButtonCallback,
    ButtonEvent,
    ButtonInput,
    Buzzer,
    CountdownDisplay,
    Device,
    Lamp,
    NullBuzzer,
    NullDisplay,
    NullLamp,
    Ticker,
)
from hardware.sources import open_source

log = logging.getLogger(__name__)


@dataclass
class SeatDevices:
    """Everything in front of one seat."""

    seat: str
    name: str
    buttons: dict[str, ButtonInput | None]
    countdown: CountdownDisplay
    report_lamp: Lamp
    turn_lamp: Lamp

    def lamp(self, name: str) -> Lamp:
        """``"report"`` or ``"turn"``."""
        return {"report": self.report_lamp, "turn": self.turn_lamp}[name]


class TableDevices:
    """The logical devices of one table over the backends ``table.toml`` chose.

    :param config: a validated :class:`~hardware.config_model.TableConfig`.
    :param pin_factory: gpiozero pin factory for every GPIO device (keyword-only, gpiozero style);
        default: ``[gpio].pin_factory`` of the config, else gpiozero's default.
    :param screen_controller: an already built ``ScreenController`` to use instead of creating one.
    :param screen_kwargs: extra keyword arguments for the ``ScreenController`` it creates.
    :param display_bit_delay: extra TM1637 half clock period in seconds (default 0: see TM1637).
    :param on_camera_status: called with :class:`~hardware.camera.CameraStatus` on camera outages.
    :raises DeviceError: a GPIO pin could not be claimed (the message names the device and pin).
    """

    def __init__(self, config: TableConfig, *, pin_factory: Any = None, screen_controller: Any = None,
                 screen_kwargs: dict[str, Any] | None = None, display_bit_delay: float = 0.0,
                 on_camera_status: _camera.StatusCallback | None = None) -> None:
        self.config = config
        self.table_id = config.table_id
        self._subscribers: list[ButtonCallback] = []
        self._sub_lock = threading.Lock()
        self._devices: list[Device] = []
        self._ticker = Ticker()
        self._on_camera_status = on_camera_status
        self.camera: _camera.FrameSource | None = None
        self.screen = None
        self._closed = False
        self.mock_displays: dict[str, Any] = {}
        self._clocks: dict[int, tuple[Any, threading.Lock]] = {}
        try:
            self._pin_factory = self._resolve_factory(pin_factory)
            if config.uses("screen"):
                self._build_screen_link(screen_controller, screen_kwargs or {})
            self._bit_delay = display_bit_delay
            self.seats: dict[str, SeatDevices] = {}
            for seat in SEATS:
                buttons = {b: self._button(seat, b) for b in BUTTONS}
                self.seats[seat] = SeatDevices(
                    seat=seat,
                    name=config.seat_names[seat],
                    buttons=buttons,
                    countdown=self._display(seat),
                    report_lamp=self._lamp(seat, "report"),
                    turn_lamp=self._lamp(seat, "turn"),
                )
            self.referee_lamp: Lamp = self._lamp(None, "referee")
            self.status_led: Lamp = self._lamp(None, "status")
            self.buzzer: Buzzer = self._buzzer()
        except BaseException:
            self.close()
            raise

    # -- building ----------------------------------------------------------------------------

    def _resolve_factory(self, pin_factory: Any) -> Any:
        if not self.config.uses("gpio"):
            return pin_factory
        if pin_factory is not None:
            return pin_factory

        return resolve_pin_factory(self.config.gpio.pin_factory)

    def _build_screen_link(self, controller: Any, kwargs: dict[str, Any]) -> None:
        assert self.config.screen is not None
        screen_buttons = frozenset(
            f"{seat}.{b}" for seat in SEATS for b in BUTTONS if self.config.backend(f"{b}_button") == "screen"
        )
        self.screen = ScreenLink(self.config.screen.url, self._emit, buttons=screen_buttons, controller=controller,
                                 connect_timeout_s=self.config.screen.connect_timeout_s, **kwargs)

    def _add(self, device: Device) -> Any:
        self._devices.append(device)
        return device

    def _button(self, seat: str, button: str) -> ButtonInput | None:
        kind = f"{button}_button"
        backend = self.config.backend(kind)
        if backend == "sim":
            return self._add(SimButton(seat, button, self._emit))
        if backend == "gpio":
            g = self.config.gpio
            return self._add(GpioButton(seat, button, g.pins[(seat, kind)], self._emit, pull_up=g.button_pull_up,
                                        debounce_s=g.debounce_ms / 1000.0, pin_factory=self._pin_factory))
        if backend == "screen":
            return self._add(ScreenButton(seat, button, self._emit, self.screen))
        return None

    def _lamp(self, seat: str | None, lamp: str) -> Lamp:
        kind = f"{lamp}_lamp" if lamp != "status" else "status_led"
        label = f"{seat}.{kind}" if seat else kind
        backend = self.config.backend(kind)
        dev: Lamp
        if backend == "sim":
            dev = SimLamp(label)
        elif backend == "gpio":
            g = self.config.gpio
            cls = GpioStatusLed if lamp == "status" else GpioLamp
            dev = cls(label, g.pins[(seat, kind)], active_high=g.lamp_active_high, blink_on_s=g.blink_on_s,
                      blink_off_s=g.blink_off_s, pin_factory=self._pin_factory)
        elif backend == "screen":
            dev = ScreenLamp(label, self.screen, seat, lamp)
        else:
            dev = NullLamp(label)
        if lamp == "status":
            dev.modes = STATUS_MODES
        return self._add(dev)

    def _display(self, seat: str) -> CountdownDisplay:
        label = f"{seat}.countdown"
        backend = self.config.backend("countdown")
        if backend == "sim":
            return self._add(SimDisplay(label, self._ticker))
        if backend == "gpio":
            pins = self.config.gpio.displays[seat]
            self._attach_mock_chip(seat, pins.clk, pins.dio)
            clk: Any = pins.clk
            lock = None
            if sum(1 for p in self.config.gpio.displays.values() if p.clk == pins.clk) > 1:
                clk, lock = self._shared_clock(pins.clk)
            return self._add(GpioDisplay(label, clk, pins.dio, self._ticker,
                                         brightness=self.config.gpio.display_brightness, lock=lock,
                                         bit_delay=self._bit_delay, pin_factory=self._pin_factory))
        if backend == "screen":
            return self._add(ScreenDisplay(label, self.screen, seat))
        return self._add(NullDisplay(label))

    def _shared_clock(self, pin: int) -> tuple[Any, threading.Lock]:
        """One CLK output device and one lock for all displays wired to the same CLK pin."""
        if pin not in self._clocks:
            from gpiozero import DigitalOutputDevice


            dev = _open("countdown clk", pin, lambda: DigitalOutputDevice(
                pin, initial_value=True, pin_factory=self._pin_factory))
            self._clocks[pin] = (dev, threading.Lock())
        return self._clocks[pin]

    def _attach_mock_chip(self, seat: str, clk: int, dio: int) -> None:
        """On a mock pin factory, put an emulated TM1637 on the display's pins so it acknowledges
        (a dry run of a GPIO table on a laptop; tests read what it shows)."""
        from gpiozero import Device as GzDevice
        from gpiozero.pins.mock import MockFactory

        factory = self._pin_factory if self._pin_factory is not None else GzDevice.pin_factory
        if isinstance(factory, MockFactory):
            # A chip a test put there first (e.g. an absent display, ack=False) wins.
            existing = next((c for p in list(factory.pins.values()) for c in getattr(p, "chips", ())
                             if c.dio_pin is p and p.info.name == f"GPIO{dio}"), None)
            self.mock_displays[seat] = existing or MockTM1637(clk, dio, pin_factory=factory)

    def _buzzer(self) -> Buzzer:
        backend = self.config.backend("buzzer")
        if backend == "sim":
            return self._add(SimBuzzer("buzzer"))
        if backend == "gpio":
            return self._add(GpioBuzzer("buzzer", self.config.gpio.pins[(None, "buzzer")],
                                        pin_factory=self._pin_factory))
        if backend == "screen":
            return self._add(ScreenBuzzer("buzzer", self.screen))
        return self._add(NullBuzzer("buzzer"))

    # -- lifecycle ---------------------------------------------------------------------------

    def open(self, *, wait: bool = True) -> TableDevices:
        """Open the screen link (when any device is on the screen); GPIO devices open on build.

        Returns self. A screen that does not answer within ``connect_timeout_s`` is not an error —
        see :meth:`status`.
        """
        if self.screen is not None:
            connected = self.screen.open()
            if wait and not connected:
                log.warning("screen controller %s not connected yet", self.config.screen.url)
        return self

    def close(self) -> None:
        """Switch everything off and release pins, the screen link and the camera."""
        if self._closed:
            return
        self._closed = True
        if self.camera is not None:
            self.camera.close()
        # In parallel: each gpiozero Button joins its hold thread on close (~0.1 s each).
        closers = [threading.Thread(target=self._close_one, args=(dev,), daemon=True)
                   for dev in reversed(getattr(self, "_devices", []))]
        for t in closers:
            t.start()
        for t in closers:
            t.join(timeout=5)
        self._ticker.stop()
        for clk, _lock in self._clocks.values():
            clk.close()
        if self.screen is not None:
            self.screen.close()
        for chip in self.mock_displays.values():
            chip.close()

    @staticmethod
    def _close_one(dev: Device) -> None:
        try:
            dev.close()
        except Exception:  # closing the rest matters more than one failure
            log.exception("closing %r", dev)

    @property
    def closed(self) -> bool:
        return self._closed

    def __enter__(self) -> TableDevices:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        backends = sorted(set(self.config.backends.values()))
        return f"<hardware.TableDevices {self.table_id} ({'/'.join(backends)}){' closed' if self._closed else ''}>"

    # -- button events ---------------------------------------------------------------------

    def on_button(self, callback: ButtonCallback) -> Callable[[], None]:
        """Call ``callback(ButtonEvent)`` for every button edge; returns an unsubscribe function."""
        with self._sub_lock:
            self._subscribers.append(callback)

        def unsubscribe() -> None:
            with self._sub_lock:
                if callback in self._subscribers:
                    self._subscribers.remove(callback)

        return unsubscribe

    def event_queue(self, maxsize: int = 0) -> tuple[queue.Queue[ButtonEvent], Callable[[], None]]:
        """A queue that receives every button event from now on, and its unsubscribe function."""
        q: queue.Queue[ButtonEvent] = queue.Queue(maxsize)
        return q, self.on_button(q.put)

    def _emit(self, event: ButtonEvent) -> None:
        with self._sub_lock:
            subscribers = list(self._subscribers)
        for fn in subscribers:
            try:
                fn(event)
            except Exception:  # one faulty subscriber must not starve the others or kill gpiozero's thread
                log.exception("button subscriber %r failed on %r", fn, event)

    def wait_for_button(self, seat: str | None = None, button: str | None = None, *, pressed: bool = True,
                        timeout: float | None = None) -> ButtonEvent | None:
        """Block until a matching button event arrives (from now on); ``None`` on timeout."""
        got: list[ButtonEvent] = []
        cond = threading.Condition()

        def match(ev: ButtonEvent) -> None:
            if (seat is None or ev.seat == seat) and (button is None or ev.button == button) \
                    and ev.pressed == pressed:
                with cond:
                    got.append(ev)
                    cond.notify_all()

        unsubscribe = self.on_button(match)
        try:
            with cond:
                cond.wait_for(lambda: bool(got), timeout)
        finally:
            unsubscribe()
        return got[0] if got else None

    def press(self, seat: str, button: str) -> None:
        """Click a *sim* button (the demo's bots, tests). :raises ValueError: not a sim button."""
        dev = self.seats[seat].buttons.get(button)
        if not isinstance(dev, SimButton):
            raise ValueError(f"{seat}.{button} 不是模拟按钮（{dev.backend if dev else 'none'}） / "
                             f"is not a sim button "
                             f"({dev.backend if dev else 'none'})")
        dev.click()

    # -- inventory ---------------------------------------------------------------------------

    def lamps(self) -> Iterator[tuple[str, Lamp]]:
        """Every lamp with its label, seats first (the self-test's order)."""
        for seat in SEATS:
            s = self.seats[seat]
            yield f"{seat}.report_lamp", s.report_lamp
            yield f"{seat}.turn_lamp", s.turn_lamp
        yield "referee_lamp", self.referee_lamp
        yield "status_led", self.status_led

    def displays(self) -> Iterator[tuple[str, CountdownDisplay]]:
        for seat in SEATS:
            yield f"{seat}.countdown", self.seats[seat].countdown

    def buttons(self) -> Iterator[tuple[str, str, ButtonInput]]:
        """``(seat, button, device)`` for every button the table has."""
        for seat in SEATS:
            for b in BUTTONS:
                dev = self.seats[seat].buttons[b]
                if dev is not None:
                    yield seat, b, dev

    def open_camera(self) -> _camera.FrameSource | None:
        """The frame source of ``[camera]`` (built once; ``None`` when the table has none)."""
        if self.camera is None:
            self.camera = open_source(self.config.camera, on_status=self._on_camera_status)
        return self.camera

    def status(self) -> dict[str, Any]:
        """JSON-ready health of the devices (for the panel and ``/health``)."""
        out: dict[str, Any] = {
            "table_id": self.table_id,
            "backends": dict(self.config.backends),
            "screen": None if self.screen is None else {"url": self.screen.url, "connected": self.screen.is_connected},
            "display_errors": {label: d.error for label, d in self.displays() if d.error},
        }
        if self.camera is not None:
            s = self.camera.status
            out["camera"] = {"source": s.source, "connected": s.connected, "frames": s.frames,
                             "outages": s.outages, "error": s.error}
        return out

