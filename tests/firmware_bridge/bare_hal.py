"""A board for the firmware's tests: no I/O, a clock the test sets, and a record of what it wrote."""

from __future__ import annotations

from firmware_bridge.firmware.hal import Hal


class BareHal(Hal):
    """Enough HAL to run the controller without any I/O: records what it writes."""

    def __init__(self, t: int = 0) -> None:
        self.t = t  # ms since the board's boot
        self.sent = bytearray()
        self.inbox = bytearray()
        self.levels = [False] * 12
        self.outputs: dict[str, bool] = {}

    def ticks_ms(self) -> int:
        return self.t

    def random_u32(self) -> int:
        return 0xABCDEF01

    def serial_read(self) -> bytes:
        data, self.inbox = bytes(self.inbox), bytearray()
        return data

    def serial_write(self, data: bytes) -> None:
        self.sent += data

    def read_buttons(self) -> list[bool]:
        return list(self.levels)

    def write_display(self, seat: int, segments: bytes) -> None:
        pass

    def set_output(self, name: str, on: bool) -> None:
        self.outputs[name] = on

    def wait(self, ms: int) -> None:
        self.t += ms
