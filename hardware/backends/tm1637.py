"""TM1637 4-digit seven-segment display, bit-banged on two gpiozero lines.

The TM1637 speaks a two-wire protocol that looks like I²C but is not (no address, LSB first), so
the Pi's I²C block cannot drive it; we toggle CLK and DIO from Python through gpiozero devices,
which keeps the whole GPIO side on one seam (``pin_factory=``) and testable on ``MockFactory``.

Wire protocol (datasheet §"Interface"): *start* = DIO falls while CLK is high; each byte is sent LSB
first, DIO changing while CLK is low and sampled by the chip on the rising edge; after 8 bits the
host releases DIO and the chip pulls it low for one clock (*ack*); *stop* = DIO rises while CLK is
high. A frame is ``0x40`` (write data, auto-increment), then ``0xC0 | addr`` followed by the digit
bytes, then ``0x88 | brightness`` (display on).

:class:`MockTM1637` is the chip's side on mock pins: it decodes the waveform the driver produces and
acknowledges bytes, so tests read back what the display would show instead of trusting the driver.
"""

from __future__ import annotations

import contextlib
import threading
import time
from typing import Any

from gpiozero import Device, DigitalOutputDevice
from gpiozero.exc import GPIOZeroError
from gpiozero.pins.mock import MockPin

from hardware.errors import DisplayNotAcknowledged

#: Segment bits: a=0x01 b=0x02 c=0x04 d=0x08 e=0x10 f=0x20 g=0x40, dp/colon=0x80.
FONT: dict[str, int] = {
    "0": 0x3F, "1": 0x06, "2": 0x5B, "3": 0x4F, "4": 0x66, "5": 0x6D, "6": 0x7D, "7": 0x07,
    "8": 0x7F, "9": 0x6F, " ": 0x00, "-": 0x40, "_": 0x08,
    "A": 0x77, "B": 0x7C, "C": 0x39, "D": 0x5E, "E": 0x79, "F": 0x71, "G": 0x3D, "H": 0x76,
    "I": 0x30, "J": 0x1E, "L": 0x38, "N": 0x54, "O": 0x5C, "P": 0x73, "Q": 0x67, "R": 0x50,
    "S": 0x6D, "T": 0x78, "U": 0x3E, "Y": 0x6E, "=": 0x48,
}
#: Segments back to characters (digits win where a letter looks the same, e.g. S/5).
REVERSE_FONT: dict[int, str] = {}
for _ch, _bits in reversed(list(FONT.items())):
    REVERSE_FONT[_bits] = _ch
DIGITS = 4

CMD_DATA_AUTO = 0x40
CMD_DATA_FIXED = 0x44
CMD_ADDRESS = 0xC0
CMD_DISPLAY = 0x80
DISPLAY_ON = 0x08


def encode(text: str, colon: bool = False) -> list[int]:
    """Four segment bytes for ``text`` (padded/truncated to 4 characters).

    Characters the seven-segment font cannot show become blanks: the display is for timers and
    short codes, and a half-readable code is better than none. ``colon`` lights the colon (bit 7 of
    digit 2 on the common 0.36" modules).
    """
    text = text.upper()[:DIGITS].ljust(DIGITS)
    out = [FONT.get(ch, 0x00) for ch in text]
    if colon:
        out[1] |= 0x80
    return out


def decode(segments: list[int]) -> str:
    """Inverse of :func:`encode` (colon bit ignored); unknown patterns read as ``?``."""
    return "".join(REVERSE_FONT.get(b & 0x7F, "?") for b in segments)


class TM1637:
    """Driver for one TM1637 display.

    :param clk: BCM pin of CLK, or a ``DigitalOutputDevice`` shared with other displays.
    :param dio: BCM pin of DIO (open-drain on the module; the chip pulls it low to acknowledge).
    :param brightness: 0–7.
    :param bit_delay: extra half-period of the clock in seconds (busy-wait: ``time.sleep`` cannot
        wait microseconds). The chip is good for ~250 kHz (2 µs half period) and one gpiozero
        call on a Pi already takes longer, so the default is 0; raise it for long, slow wires.
    :param check_ack: raise :class:`DisplayNotAcknowledged` when the chip does not ack a byte —
        the only sign the Pi gets that a display is unplugged or mis-wired.
    :param pin_factory: gpiozero pin factory (keyword-only, gpiozero style).
    """

    def __init__(self, clk: int | DigitalOutputDevice, dio: int, *, brightness: int = 4, bit_delay: float = 0.0,
                 check_ack: bool = True, lock: threading.Lock | None = None, pin_factory: Any = None) -> None:
        if not 0 <= brightness <= 7:
            raise ValueError(f"brightness must be 0–7, got {brightness}")
        # Several TM1637s may share one CLK line (each has its own DIO; a chip ignores clocks until a
        # start condition appears on *its* DIO). Then the caller owns the CLK device and the lock.
        self._owns_clk = not isinstance(clk, DigitalOutputDevice)
        self._clk = DigitalOutputDevice(clk, initial_value=True, pin_factory=pin_factory) if self._owns_clk else clk
        try:
            self._dio = DigitalOutputDevice(dio, initial_value=True, pin_factory=pin_factory)
        except Exception:
            if self._owns_clk:
                self._clk.close()
            raise
        self._brightness = brightness
        self._bit_delay = bit_delay
        self._check_ack = check_ack
        self._lock = lock or threading.Lock()
        self._segments: list[int] = [0] * DIGITS
        self._on = False
        self.nacks = 0

    # -- gpiozero-style lifecycle ------------------------------------------------------------

    def close(self) -> None:
        """Release the pins (the display keeps showing its last frame; call :meth:`clear` first)."""
        if self._owns_clk:
            self._clk.close()
        self._dio.close()

    @property
    def closed(self) -> bool:
        return self._dio.closed

    def __enter__(self) -> TM1637:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        if self.closed:
            return "<hardware.TM1637 object closed>"
        return (f"<hardware.TM1637 object on clk={self._clk.pin!r} dio={self._dio.pin!r}, "
                f"showing {decode(self._segments)!r}>")

    # -- public API ---------------------------------------------------------------------------

    @property
    def brightness(self) -> int:
        return self._brightness

    @brightness.setter
    def brightness(self, value: int) -> None:
        if not 0 <= value <= 7:
            raise ValueError(f"brightness must be 0–7, got {value}")
        self._brightness = value
        self.write_segments(self._segments)

    @property
    def segments(self) -> list[int]:
        """The four segment bytes last written (and acknowledged, when ``check_ack``)."""
        return list(self._segments)

    @property
    def text(self) -> str:
        """What the display shows, as far as the driver knows."""
        return decode(self._segments) if self._on else "    "

    def show(self, text: str, colon: bool = False) -> None:
        """Show up to four characters (see :func:`encode`)."""
        self.write_segments(encode(text, colon))

    def show_number(self, value: int) -> None:
        """Right-aligned integer, clamped to what four digits can show (-999…9999)."""
        value = max(-999, min(9999, int(value)))
        self.show(str(value).rjust(DIGITS))

    def clear(self) -> None:
        self.write_segments([0] * DIGITS)

    def off(self) -> None:
        """Blank the display through the display-control command (segments kept)."""
        with self._lock:
            self._frame([CMD_DISPLAY])
            self._on = False

    def write_segments(self, segments: list[int]) -> None:
        """Send one full frame: data command, address + 4 digits, display control.

        :raises DisplayNotAcknowledged: a byte was not acknowledged (with ``check_ack``).
        """
        if len(segments) != DIGITS:
            raise ValueError(f"need {DIGITS} segment bytes, got {len(segments)}")
        with self._lock:
            self._frame([CMD_DATA_AUTO])
            self._frame([CMD_ADDRESS | 0, *segments])
            self._frame([CMD_DISPLAY | DISPLAY_ON | self._brightness])
            self._segments = [b & 0xFF for b in segments]
            self._on = True

    # -- wire level ---------------------------------------------------------------------------

    def _delay(self) -> None:
        if self._bit_delay:
            end = time.perf_counter() + self._bit_delay
            while time.perf_counter() < end:
                pass

    def _frame(self, data: list[int]) -> None:
        self._start()
        try:
            for i, byte in enumerate(data):
                if not self._write_byte(byte) and self._check_ack:
                    self.nacks += 1
                    raise DisplayNotAcknowledged(
                        f"TM1637 未应答（第 {i + 1} 字节 0x{byte:02X}，clk={self._clk.pin}，dio={self._dio.pin}）："
                        f"检查接线与供电 / TM1637 did not "
                        f"acknowledge byte {i + 1} (0x{byte:02X}) on clk={self._clk.pin}, "
                        f"dio={self._dio.pin}: check wiring and power"
                    )
        finally:
            self._stop()

    def _start(self) -> None:
        self._clk.on()
        self._dio.on()
        self._delay()
        self._dio.off()
        self._delay()

    def _stop(self) -> None:
        self._clk.off()
        self._delay()
        self._dio.off()
        self._delay()
        self._clk.on()
        self._delay()
        self._dio.on()
        self._delay()

    def _write_byte(self, byte: int) -> bool:
        for bit in range(8):
            self._clk.off()
            self._delay()
            if (byte >> bit) & 1:
                self._dio.on()
            else:
                self._dio.off()
            self._delay()
            self._clk.on()
            self._delay()
        # Ack slot: release DIO (input with pull-up) and let the chip pull it low.
        self._clk.off()
        pin = self._dio.pin
        pin.function = "input"
        with contextlib.suppress(GPIOZeroError):  # a fixed-pull pin (BCM 2/3) is pulled up already
            pin.pull = "up"
        self._delay()
        self._clk.on()
        self._delay()
        acked = not pin.state
        self._clk.off()
        pin.function = "output"
        pin.state = 0
        self._delay()
        return acked


# ------------------------------------------------------------------------------------------------
# The chip's side, on gpiozero mock pins


class _ChipPinMixin:
    """Mixed into the factory's mock pin class so the chips on a line see every level change."""

    chips: tuple[MockTM1637, ...] = ()

    def _change_state(self, value: bool) -> bool:
        changed = super()._change_state(value)  # type: ignore[misc]
        if changed:
            for chip in self.chips:
                chip._on_change(self)
        return changed

    def _get_state(self) -> bool:
        if self._function == "input" and any(  # type: ignore[attr-defined]
                c._acking and c.dio_pin is self for c in self.chips):
            return False  # a chip pulls DIO low in the ack slot
        return super()._get_state()  # type: ignore[misc]


_PIN_CLASSES: dict[type, type] = {}


def _chip_pin_class(base: type) -> type:
    if base not in _PIN_CLASSES:
        _PIN_CLASSES[base] = type(f"MockTM1637{base.__name__}", (_ChipPinMixin, base), {})
    return _PIN_CLASSES[base]


class MockTM1637:
    """A TM1637 attached to two pins of a gpiozero ``MockFactory``.

    Create it *before* the driver opens the pins (it claims the mock pin objects with a pin class
    that reports level changes). Several chips may share a CLK pin, as on a real board. It decodes start/stop, bytes and commands from the levels the
    driver sets, acknowledges every byte, and keeps the display memory, so :attr:`text` is what
    real segments would show. ``ack=False`` emulates a missing display.
    """

    def __init__(self, clk: int, dio: int, *, pin_factory: Any = None, ack: bool = True) -> None:
        factory = pin_factory if pin_factory is not None else Device.pin_factory
        base = factory.pin_class
        if not issubclass(base, MockPin):
            raise TypeError("MockTM1637 needs a gpiozero MockFactory")
        cls = _chip_pin_class(base)
        self.clk_pin = factory.pin(clk, pin_class=cls)
        self.dio_pin = factory.pin(dio, pin_class=cls)
        self.ack = ack
        self.memory: list[int] = [0] * 6
        self.display_on = False
        self.brightness = 0
        #: Every complete frame received (list of bytes between start and stop).
        self.frames: list[list[int]] = []
        self._bytes: list[int] | None = None
        self._cur = 0
        self._bitcount = 0
        self._acking = False
        self._auto_increment = True
        self.changed = threading.Condition()
        for pin in (self.clk_pin, self.dio_pin):
            pin.chips = (*pin.chips, self)

    def close(self) -> None:
        for pin in (self.clk_pin, self.dio_pin):
            pin.chips = tuple(c for c in pin.chips if c is not self)

    @property
    def text(self) -> str:
        """The four digits as characters; blank when the display is switched off."""
        return decode(self.memory[:DIGITS]) if self.display_on else "    "

    def wait_for_text(self, text: str, timeout: float = 5.0) -> bool:
        """Block until the display shows ``text``; ``False`` on timeout."""
        with self.changed:
            return self.changed.wait_for(lambda: self.text == text, timeout)

    def _on_change(self, pin: object) -> None:
        if not self.ack:  # an absent chip hears nothing and never pulls DIO low
            return
        clk = bool(self.clk_pin._state)
        dio = bool(self.dio_pin._state)
        if pin is self.dio_pin and pin is not self.clk_pin:
            if clk and not self._acking:
                if not dio:  # start condition
                    self._bytes = []
                    self._cur = 0
                    self._bitcount = 0
                elif self._bytes is not None:  # stop condition
                    frame, self._bytes = self._bytes, None
                    self._handle(frame)
            return
        if pin is not self.clk_pin or self._bytes is None:
            return
        if clk:  # rising edge: sample a data bit (the 9th rising edge is the ack clock)
            if self._bitcount < 8:
                self._cur |= int(dio) << self._bitcount
                self._bitcount += 1
        else:  # falling edge
            if self._bitcount == 8 and not self._acking:
                self._acking = True
            elif self._acking:
                self._acking = False
                self._finish_byte()

    def _finish_byte(self) -> None:
        assert self._bytes is not None
        self._bytes.append(self._cur)
        self._cur = 0
        self._bitcount = 0

    def _handle(self, frame: list[int]) -> None:
        if not frame:
            return
        self.frames.append(frame)
        cmd = frame[0]
        kind = cmd & 0xC0
        if kind == 0x40:
            self._auto_increment = not (cmd & 0x04)
        elif kind == 0xC0:
            addr = cmd & 0x0F
            for byte in frame[1:]:
                if addr < len(self.memory):
                    self.memory[addr] = byte
                if self._auto_increment:
                    addr += 1
        elif kind == 0x80:
            self.display_on = bool(cmd & DISPLAY_ON)
            self.brightness = cmd & 0x07
        with self.changed:
            self.changed.notify_all()
