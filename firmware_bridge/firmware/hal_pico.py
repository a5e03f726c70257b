"""HAL for the Raspberry Pi Pico (RP2040) in the partition screen. MicroPython only.

Pin map (docs/protocol.md, "Controller wiring"): the twelve buttons as a 4 x 3 diode matrix, eight
seat lamps, four TM1637 displays on a shared CLK, the referee lamp, the buzzer, the on-board LED.
USB CDC serial is the link to the Pi: the REPL's Ctrl-C handling is switched off so that a 0x03
byte in a frame does not interrupt the program.
"""

import os
import select
import sys
import time

import machine
import micropython

from .hal import Hal
from .tm1637 import TM1637

# Buttons form a 4 x 3 matrix (with diodes): one column per seat, one row per button kind.
BUTTON_COLUMNS = (0, 1, 2, 3)  # E S W N, driven low one at a time
BUTTON_ROWS = (4, 5, 6)  # report, pass, referee: inputs with pull-ups
LAMPS = {"E.report": 7, "E.turn": 8, "S.report": 9, "S.turn": 10, "W.report": 11, "W.turn": 12,
         "N.report": 13, "N.turn": 14, "referee": 20, "buzzer": 21, "status": "LED"}
DISPLAY_CLK = 15  # shared: a TM1637 only listens after a start condition on its own DIO
DISPLAY_DIO = (16, 17, 18, 19)


class PicoHal(Hal):
    """The real board."""

    def __init__(self):
        micropython.kbd_intr(-1)
        self._in = sys.stdin.buffer
        self._out = sys.stdout.buffer
        self._poll = select.poll()
        self._poll.register(sys.stdin, select.POLLIN)
        self._cols = [machine.Pin(p, machine.Pin.OPEN_DRAIN, value=1) for p in BUTTON_COLUMNS]
        self._rows = [machine.Pin(p, machine.Pin.IN, machine.Pin.PULL_UP) for p in BUTTON_ROWS]
        self._outputs = {name: machine.Pin(pin, machine.Pin.OUT, value=0) for name, pin in LAMPS.items()}
        self._displays = [TM1637(machine.Pin(DISPLAY_CLK), machine.Pin(dio)) for dio in DISPLAY_DIO]

    def ticks_ms(self):
        return time.ticks_ms()

    def ticks_diff(self, a, b):
        return time.ticks_diff(a, b)

    def random_u32(self):
        return int.from_bytes(os.urandom(4), "big")

    def serial_read(self):
        out = b""
        while self._poll.poll(0):
            chunk = self._in.read(1)
            if not chunk:
                break
            out += chunk
            if len(out) >= 256:
                break
        return out

    def serial_write(self, data):
        self._out.write(data)

    def read_buttons(self):
        levels = []
        for col in self._cols:
            col.value(0)
            time.sleep_us(5)
            for row in self._rows:
                levels.append(row.value() == 0)
            col.value(1)
        return levels

    def write_display(self, seat, segments):
        self._displays[seat].write(segments)

    def set_output(self, name, on):
        self._outputs[name].value(1 if on else 0)

    def wait(self, ms):
        # Scan buttons at least every millisecond: the debouncer counts samples.
        self._poll.poll(min(ms, 1))
