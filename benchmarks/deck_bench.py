"""The event's deck handed to every table: how long from the chief's upload to the last table.

One private Mosquitto; the hub in this process; N tables as MQTT clients subscribed to the deck
topic as a table's bridge is (each checks the digest of what it gets: ``read_deck_message``). The
chief uploads a real enrolment file (54 faces of a deck the reader never trained on). Measured:
the hub's check of the file (read as a table reads it), upload → every table holding the checked
bytes, a table's taking it into use (``take_deck``: read as an enrolment, saved, set on the
watcher), and the broker's memory with the file retained.

    .venv/bin/python benchmarks/deck_bench.py --tables 100 300
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import platform
import sys
import tempfile
import threading
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt

from table_service.event.broker import PrivateBroker
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.table.deck import take_deck
from table_service.views.deck_wire import deck_topic, read_deck_message


def _rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def enrolment_file(folder: Path) -> bytes:
    from benchmarks.vision_bench import photographed_faces
    from vision import enroll

    path = folder / "deck.npz"
    enroll(photographed_faces("tigullio", 3.0, 5), px_per_mm=3.0).save(path)
    return path.read_bytes()


#: Tables per client process: paho's loop uses select(), which takes no socket numbered past 1024,
#: so one process cannot hold 500 connections (a real table has one).
PER_PROCESS = 150


def _tables(port: int, first: int, count: int, ready: Any, out: Any) -> None:
    """``count`` tables in one process: subscribe, then report when each holds the checked file
    (``time.perf_counter`` is CLOCK_MONOTONIC, one clock for every process on the machine)."""
    got: list[float] = []
    lock = threading.Lock()
    done = threading.Event()

    def cb(_c: Any, _u: Any, msg: Any) -> None:
        read_deck_message(bytes(msg.payload))  # each table checks the digest
        with lock:
            got.append(time.perf_counter())
            if len(got) == count:
                done.set()

    clients = []
    for k in range(first, first + count):
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"t{k}")
        c.on_message = cb
        c.on_connect = lambda cl, *_a: cl.subscribe(deck_topic("dk"), 1)
        c.connect("127.0.0.1", port)
        c.loop_start()
        clients.append(c)
    time.sleep(2.0)  # every table subscribed
    ready.put(count)
    done.wait(120)
    out.put(list(got))
    for c in clients:
        c.loop_stop()
        c.disconnect()


def run(n: int, data: bytes, folder: Path) -> None:
    with PrivateBroker(folder / f"broker-{n}") as broker:
        cfg = validate({"event": {"id": "dk", "name": "deck", "rounds": 1},
                        "mqtt": {"host": "127.0.0.1", "port": broker.port},
                        "teams": [{"id": f"T{i}"} for i in range(1, 2 * n + 1)]})
        hub = HubService(cfg, folder / f"hub-{n}").start()
        ctx = mp.get_context("spawn")
        ready, out = ctx.Queue(), ctx.Queue()
        procs = [ctx.Process(target=_tables, args=(broker.port, k, min(PER_PROCESS, n - k), ready, out))
                 for k in range(0, n, PER_PROCESS)]
        try:
            assert hub.wait_connected(60), "the hub did not connect"
            for p in procs:
                p.start()
            for _ in procs:
                ready.get(timeout=120)
            t0 = time.perf_counter()
            hub.publish_deck(data, "chief", "chief")
            t_logged = time.perf_counter()
            got = sorted(t for _ in procs for t in out.get(timeout=180))
            print(f"{n} tables: upload checked and logged in {1000 * (t_logged - t0):.0f} ms; {len(got)} of {n} "
                  f"tables held the checked file, the last {got[-1] - t0:.2f} s after the upload (median "
                  f"{got[len(got) // 2] - t0:.2f} s); broker RSS {_rss_mb(broker.proc.pid):.0f} MiB")
        finally:
            for p in procs:
                p.join(30)
            hub.stop()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, nargs="*", default=[100, 300])
    a = ap.parse_args()
    print(f"{platform.node()} {platform.machine()} {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    with tempfile.TemporaryDirectory() as d:
        folder = Path(d)
        t = time.process_time()
        data = enrolment_file(folder)
        print(f"enrolment file: {len(data) / 1024:.0f} KiB (enrolment {time.process_time() - t:.0f} s CPU)")
        cam = SimpleNamespace(enrollment_path=str(folder / "table-deck.npz"), watcher=SimpleNamespace(enrollment=None))
        times = []
        for _ in range(5):
            t = time.perf_counter()
            assert take_deck(cam, data, "bench")
            times.append(time.perf_counter() - t)
        print(f"a table takes it into use (read, saved, set): {1000 * sorted(times)[2]:.0f} ms (median of 5)")
        for n in a.tables:
            run(n, data, folder)


if __name__ == "__main__":
    main()
