"""Minimal TM1637 driver (bit-banged two-wire bus) for the Pico's seat displays.

MicroPython only: it imports ``machine`` lazily through the pins it is given.
"""

_CMD_DATA = 0x40  # data command: write, auto-increment address
_CMD_ADDR = 0xC0  # address command: start at digit 0
_CMD_CTRL = 0x88  # display control: on, brightness in the low 3 bits


class TM1637:
    """One 4-digit display on a CLK/DIO pin pair (``machine.Pin`` objects, open-drain style)."""

    def __init__(self, clk, dio, brightness=4, delay_us=10):
        import time

        self._sleep_us = time.sleep_us
        self.clk = clk
        self.dio = dio
        self.delay_us = delay_us
        self.brightness = brightness & 7
        self.clk.init(clk.OUT, value=1)
        self.dio.init(dio.OUT, value=1)

    def _start(self):
        self.dio(0)
        self._sleep_us(self.delay_us)
        self.clk(0)

    def _stop(self):
        self.dio(0)
        self.clk(1)
        self._sleep_us(self.delay_us)
        self.dio(1)

    def _byte(self, b):
        for _ in range(8):
            self.dio((b >> _) & 1)
            self._sleep_us(self.delay_us)
            self.clk(1)
            self._sleep_us(self.delay_us)
            self.clk(0)
        # ninth clock: the chip pulls DIO low to acknowledge; we do not wait for it
        self.clk(1)
        self._sleep_us(self.delay_us)
        self.clk(0)

    def write(self, segments):
        """Show four segment bytes (bit 7 of byte 1 lights the colon)."""
        self._start()
        self._byte(_CMD_DATA)
        self._stop()
        self._start()
        self._byte(_CMD_ADDR)
        for b in segments:
            self._byte(b)
        self._stop()
        self._start()
        self._byte(_CMD_CTRL | self.brightness)
        self._stop()
