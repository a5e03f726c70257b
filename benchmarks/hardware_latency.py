"""Button-to-event latency and display write time of the hardware layer (no real pins needed).

    .venv/bin/python benchmarks/hardware_latency.py [--presses 2000]

* gpio: a level change on a gpiozero mock pin -> ButtonEvent delivered to a subscriber of
  TableDevices (gpiozero's edge callback, the debounce filter, the dispatcher).
* sim: SimButton.press() -> subscriber.
* screen: ScreenEmulator.press() -> ButtonEvent (firmware debounce scan, serial frame over a real
  pty, firmware_bridge link, the dispatcher); includes the emulated firmware's debounce time.
* TM1637: one full display frame (3 commands, 7 bytes with acks) bit-banged on mock pins.

Mock pins measure the software path only; on a Pi, lgpio's edge detection adds its own delay.
"""

from __future__ import annotations

import argparse
import platform
import queue
import statistics
import sys
import tempfile
import time
from pathlib import Path

from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from hardware.backends.tm1637 import TM1637, MockTM1637
from hardware.config import load_config
from hardware.table import TableDevices

BASE = """
table_id = "BENCH"
[seats]
E = "a"
S = "b"
W = "c"
N = "d"
[devices]
{devices}
"""


def summary(name: str, samples_s: list[float]) -> str:
    us = sorted(s * 1e6 for s in samples_s)
    p = lambda q: us[min(len(us) - 1, int(q * len(us)))]  # noqa: E731
    return (f"{name:<38} n={len(us):<5} median {statistics.median(us):9.1f} us   p95 {p(0.95):9.1f} us   "
            f"max {us[-1]:9.1f} us")


def write(tmp: Path, devices: str, extra: str = "") -> Path:
    path = tmp / f"t{abs(hash(devices + extra))}.toml"
    path.write_text(BASE.format(devices=devices) + extra)
    return path


def bench_gpio(tmp: Path, presses: int) -> list[float]:
    factory = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = factory
    cfg = load_config(write(tmp, 'default = "none"\npass_button = "gpio"', "[gpio]\ndebounce_ms = 0\n" + "".join(
        f"[gpio.pins.{s}]\npass_button = {p}\n" for s, p in zip("ESWN", (5, 6, 12, 13), strict=True))))
    got: queue.Queue = queue.Queue()
    lat = []
    with TableDevices(cfg) as table:
        table.on_button(lambda ev: got.put(time.perf_counter()))
        pin = factory.pin(5)
        for _ in range(presses):
            t0 = time.perf_counter()
            pin.drive_low()
            lat.append(got.get(timeout=2) - t0)
            pin.drive_high()
            got.get(timeout=2)
    factory.reset()
    return lat


def bench_sim(tmp: Path, presses: int) -> list[float]:
    cfg = load_config(write(tmp, 'default = "none"\npass_button = "sim"'))
    got: queue.Queue = queue.Queue()
    lat = []
    with TableDevices(cfg) as table:
        table.on_button(lambda ev: got.put(time.perf_counter()))
        button = table.seats["E"].buttons["pass"]
        for _ in range(presses):
            t0 = time.perf_counter()
            button.press()
            lat.append(got.get(timeout=2) - t0)
            button.release()
            got.get(timeout=2)
    return lat


def bench_screen(tmp: Path, presses: int) -> list[float] | None:
    try:
        from firmware_bridge.emulator import ScreenEmulator
    except ImportError:
        return None
    lat = []
    with ScreenEmulator() as emu:
        cfg = load_config(write(tmp, 'default = "screen"\nstatus_led = "none"', f'[screen]\nport = "{emu.port}"\n'))
        got: queue.Queue = queue.Queue()
        with TableDevices(cfg) as table:
            table.on_button(lambda ev: got.put((time.perf_counter(), ev.pressed)))
            for _ in range(presses):
                t0 = time.perf_counter()
                emu.press("E", "pass", bounce=False)
                t1, pressed = got.get(timeout=5)
                assert pressed
                lat.append(t1 - t0)
                got.get(timeout=5)
    return lat


def bench_tm1637(frames: int, bit_delay: float) -> list[float]:
    factory = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = factory
    chip = MockTM1637(20, 21)
    out = []
    with TM1637(20, 21, bit_delay=bit_delay) as display:
        for k in range(frames):
            t0 = time.perf_counter()
            display.show(str(k % 10000).rjust(4))
            out.append(time.perf_counter() - t0)
    assert chip.text == str((frames - 1) % 10000).rjust(4)
    factory.reset()
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--presses", type=int, default=2000)
    ap.add_argument("--screen-presses", type=int, default=100)
    args = ap.parse_args()
    print(f"# {platform.machine()} Python {platform.python_version()} {time.strftime('%Y-%m-%d')}")
    saved = Device.pin_factory
    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        print(summary("gpio mock pin -> ButtonEvent", bench_gpio(tmp, args.presses)))
        print(summary("sim press -> ButtonEvent", bench_sim(tmp, args.presses)))
        screen = bench_screen(tmp, args.screen_presses)
        if screen is not None:
            print(summary("screen emulator press -> ButtonEvent", screen))
    print(summary("TM1637 frame, bit_delay 0", bench_tm1637(500, 0.0)))
    print(summary("TM1637 frame, bit_delay 5 us", bench_tm1637(500, 5e-6)))
    Device.pin_factory = saved
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
