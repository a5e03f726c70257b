"""Benchmark of the screen-controller link over a real pseudo-terminal against the emulator.

Measures: command -> ACK round trip (p50/p99), command -> answer round trip (QUERY_STATE),
button events per second controller -> host, commands per second host -> controller, and the time
from replug to a working link. Run: ``.venv/bin/python benchmarks/link_bench.py [--rounds N]``.
The figures go into docs/performance.md (section firmware_bridge).
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from firmware_bridge.emulator import ScreenEmulator
from firmware_bridge.screen import ScreenController


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    k = min(len(values) - 1, max(0, round(p / 100 * (len(values) - 1))))
    return values[k]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=2000, help="round trips to time")
    ap.add_argument("--events", type=int, default=5000, help="button presses for the throughput run")
    ap.add_argument("--replugs", type=int, default=10)
    args = ap.parse_args(argv)

    got = 0
    cond = threading.Condition()

    def on_button(_ev: object) -> None:
        nonlocal got
        with cond:
            got += 1
            cond.notify_all()

    print(f"machine: {platform.machine()} {platform.system()}, Python {platform.python_version()}")
    with ScreenEmulator(seed=1) as emu, ScreenController(emu.port, on_button=on_button) as sc:
        assert sc.wait_for_connected(5)
        link = sc.link
        # command -> ACK: one SET_LAMP at a time, until the controller acknowledges it
        rtt = []
        for i in range(args.rounds):
            t0 = time.perf_counter()
            sc.set_lamp("ESWN"[i % 4], "turn", ("on", "off")[i % 2])
            if not link.wait_idle(5):
                raise SystemExit("no ACK within 5 s")
            rtt.append((time.perf_counter() - t0) * 1000)
        print(f"command -> ACK round trip ({args.rounds}): p50 {pct(rtt, 50):.2f} ms, "
              f"p99 {pct(rtt, 99):.2f} ms, max {max(rtt):.2f} ms")
        # command -> answer
        q = []
        for _ in range(args.rounds // 4):
            t0 = time.perf_counter()
            sc.query_state()
            q.append((time.perf_counter() - t0) * 1000)
        print(f"QUERY_STATE -> STATE round trip ({len(q)}): p50 {pct(q, 50):.2f} ms, p99 {pct(q, 99):.2f} ms")
        # commands per second, host -> controller (windowed, 32 in flight)
        n = args.rounds * 2
        t0 = time.perf_counter()
        for i in range(n):
            sc.set_lamp("ESWN"[i % 4], "report", ("on", "off", "blink")[i % 3])
            if i % 512 == 511:
                link.wait_idle(10)
        link.wait_idle(30)
        dt = time.perf_counter() - t0
        print(f"commands host -> controller: {n / dt:.0f} frames/s ({n} in {dt:.2f} s)")
        # button events per second, controller -> host (each press = press + release event)
        t0 = time.perf_counter()
        for i in range(args.events):
            emu.press("ESWN"[i % 4], ("report", "pass", "referee")[(i // 4) % 3])
            if i % 50 == 49:
                with cond:
                    cond.wait_for(lambda i=i: got >= 2 * (i + 1) - 100, 30)
        with cond:
            cond.wait_for(lambda: got >= 2 * args.events, 60)
        dt = time.perf_counter() - t0
        print(f"button events controller -> host: {2 * args.events / dt:.0f} frames/s "
              f"({2 * args.events} events in {dt:.2f} s, debouncing included)")
        # replug -> link up again
        rec = []
        for _ in range(args.replugs):
            emu.unplug()
            deadline = time.monotonic() + 5
            while sc.is_connected and time.monotonic() < deadline:
                time.sleep(0.001)
            t0 = time.perf_counter()
            emu.replug()
            if not sc.wait_for_connected(10):
                raise SystemExit("no reconnect within 10 s")
            rec.append((time.perf_counter() - t0) * 1000)
        print(f"replug -> connected ({args.replugs}): p50 {pct(rec, 50):.0f} ms, max {max(rec):.0f} ms "
              f"(reconnect poll {sc.link.reconnect_s * 1000:.0f} ms)")
        # the same round trip on a line with 1 % of bytes corrupted (both directions)
        emu.flip_rate = 0.01
        noisy = []
        for i in range(args.rounds):
            t0 = time.perf_counter()
            sc.set_lamp("ESWN"[i % 4], "turn", ("on", "off")[i % 2])
            if not link.wait_idle(10):
                raise SystemExit("no ACK within 10 s on the noisy line")
            noisy.append((time.perf_counter() - t0) * 1000)
        emu.flip_rate = 0.0
        print(f"command -> ACK with 1 % corrupted bytes ({args.rounds}): p50 {pct(noisy, 50):.2f} ms, "
              f"p90 {pct(noisy, 90):.2f} ms, p99 {pct(noisy, 99):.2f} ms")
        print(f"mean round trip {statistics.mean(rtt):.2f} ms; link counters: retransmits "
              f"{link.stats()['retransmits']}, decode errors {link.stats()['rx_errors']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
