"""The hardware abstraction layer the controller firmware is written against.

The firmware touches hardware only through these methods, so the same code runs on the Pico
(``hal_pico.PicoHal``) and on CPython (``firmware_bridge.emulator.SimHal``). Subclasses must
override every method that raises ``NotImplementedError``.

Buttons are indexed ``seat_index * 3 + button_index`` (seats ``E S W N``, buttons ``report pass
referee``); outputs are named ``"E.report"``, ``"E.turn"`` ... ``"referee"``, ``"buzzer"``,
``"status"``.
"""


class Hal:
    """Base class: what a board must provide."""

    def ticks_ms(self):
        """Milliseconds from a free-running clock (may wrap; compare with :meth:`ticks_diff`)."""
        raise NotImplementedError

    def ticks_diff(self, a, b):
        """Signed ``a - b`` on the ticks clock."""
        return a - b

    def random_u32(self):
        """A random 32-bit number (the boot id)."""
        raise NotImplementedError

    def serial_connected(self):
        """True while the USB serial link to the Pi is there."""
        return True

    def serial_read(self):
        """Whatever bytes have arrived (``b""`` when none); never blocks."""
        raise NotImplementedError

    def serial_write(self, data):
        """Send bytes to the Pi; may drop them when the link is gone (the protocol recovers)."""
        raise NotImplementedError

    def read_buttons(self):
        """One raw sample of every button: a list of 12 booleans (True = pressed)."""
        raise NotImplementedError

    def write_display(self, seat, segments):
        """Show four segment bytes on the display of seat index ``seat``."""
        raise NotImplementedError

    def set_output(self, name, on):
        """Switch a lamp, the buzzer or the status LED."""
        raise NotImplementedError

    def wait(self, ms):
        """Sleep up to ``ms`` milliseconds, returning early when serial input arrives."""
        raise NotImplementedError
