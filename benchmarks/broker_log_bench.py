"""How fast the provisioned broker's log grows at a real event: bytes per hour of ``broker/mosquitto.log``.

The event's broker logs at Mosquitto's ``debug`` level, the only one at which Mosquitto 2.0 records an
ACL refusal (``Denied PUBLISH from …``); ``debug`` also writes a line for every packet. This runs the
broker exactly as ``event provision`` configures it (its ``mosquitto.conf``: passwords, ACL, client
id = username, the log and its types) and drives it as an event does:

* the hub: its own credential, subscribed to ``+/result``, ``+/status``, ``+/summary`` at QoS 1
  (``event/mqtt.py`` ``SUBSCRIBED``), keepalive 15 s;
* N tables, each with its own credential and connection (the ACL allows no sharing), as a table's
  bridge does (``table/mqtt_bridge.py``): at connect the retained ``status`` and the four
  subscriptions (assignment, result_ack, release, the event's deck); on every public event one
  ``events`` message and the retained public ``state`` (QoS 1); the retained ``summary`` when what the
  overview shows changes (a deal, a flag, a question, a clock: ``--summary-every`` events);
  keepalive 15 s. One public event every ``--play-every-s`` seconds per table (4 s, as
  ``hub_bench.py``).

Tables run in processes of at most 150 (paho's loop uses ``select()``, which takes no socket past
1024). Measured over ``--seconds`` of play, after every table has connected: the log's growth, as
bytes and lines per hour and by kind of line, and the broker's CPU.

    .venv/bin/python benchmarks/broker_log_bench.py --tables 50 500 --seconds 60

Provisioned as root the broker runs as ``mosquitto`` (``broker_user``); the folder is made under
``/tmp`` open to it. ``--no-debug`` drops the ``debug`` type to show what the per-packet lines cost.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt

from table_service.event.broker import free_port, mosquitto_exe, wait_port
from table_service.event.config import validate
from table_service.event.mqtt import SUBSCRIBED
from table_service.event.provision import provision
from table_service.views.deck_wire import deck_topic

#: Tables per client process (paho's select() loop: see the module's docstring).
PER_PROCESS = 150
EVENT = "bench"
KEEPALIVE = 15


def _connect(user: str, password: str, port: int, on_connect: Any) -> mqtt.Client:
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=user)
    c.username_pw_set(user, password)
    c.on_connect = on_connect
    c.connect("127.0.0.1", port, keepalive=KEEPALIVE)
    c.loop_start()
    return c


def _tables(port: int, creds: list[tuple[str, str, str]], play_every_s: float, summary_every: int,
            ready: Any, go: Any, stop: Any, out: Any) -> None:
    """``creds`` (table, user, password) as one process: connect each as a table's bridge does, say
    ready, then publish at a table's cadence from ``go`` until ``stop``; put the count sent on ``out``."""
    connected = threading.Semaphore(0)
    clients: list[mqtt.Client] = []

    def on_connect(c: mqtt.Client, table: str) -> None:
        base = f"guandan/{EVENT}/{table}"
        c.publish(f"{base}/status", json.dumps({"table": table, "status": "online", "event": EVENT}), qos=1,
                  retain=True)
        c.subscribe([(f"{base}/assignment", 1), (f"{base}/result_ack", 1), (f"{base}/release", 1),
                     (deck_topic(EVENT), 1)])
        connected.release()

    for table, user, password in creds:
        clients.append(_connect(user, password, port, lambda c, _u, _f, rc, _p=None, t=table: on_connect(c, t)))
    for _ in creds:
        connected.acquire(timeout=120)
    ready.put(len(creds))
    go.wait()
    rng = random.Random(len(creds) * 7919 + int(creds[0][0]))
    start = time.monotonic()
    nxt = [start + rng.random() * play_every_s for _ in creds]
    seq = [rng.randrange(summary_every) for _ in creds]  # the summaries spread, as tables' deals are
    sent = 0
    state = "x" * 1100  # a public state is about 1.2 kB; only its length reaches the log
    while not stop.is_set():
        now = time.monotonic()
        i = min(range(len(creds)), key=nxt.__getitem__)
        if nxt[i] > now:
            time.sleep(min(0.05, nxt[i] - now))
            continue
        nxt[i] += play_every_s
        seq[i] += 1
        table, c = creds[i][0], clients[i]
        base = f"guandan/{EVENT}/{table}"
        c.publish(f"{base}/events", json.dumps({"seq": seq[i], "type": "cards_played", "t_ms": seq[i] * 4000,
                                                "data": {"seat": "ESWN"[seq[i] % 4], "cards": ["3s", "3h"]}}), qos=1)
        c.publish(f"{base}/state", json.dumps({"last_seq": seq[i], "pad": state}), qos=1, retain=True)
        sent += 2
        if seq[i] % summary_every == 0:
            c.publish(f"{base}/summary", json.dumps({"table": table, "round": 1, "deal": seq[i] // 60 + 1,
                                                     "last_seq": seq[i], "pad": "x" * 300}), qos=1, retain=True)
            sent += 1
    out.put(sent)
    for c in clients:
        c.disconnect()
        c.loop_stop()


def _cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


#: The kinds of debug line counted in the report.
KINDS = {"Received PUBLISH": "received publish", "Sending PUBACK": "puback sent", "Sending PUBLISH": "publish sent",
         "Received PUBACK": "puback received", "PINGREQ": "pingreq", "PINGRESP": "pingresp"}


def run(n: int, seconds: float, play_every_s: float, summary_every: int, debug: bool, folder: Path) -> dict[str, Any]:
    port = free_port()
    cfg = validate({"event": {"id": EVENT, "rounds": 1}, "mqtt": {"port": port},
                    "teams": [{"id": f"T{i:04d}"} for i in range(1, 2 * n + 1)]})
    p = provision(cfg, folder / f"pv-{n}-{int(debug)}", port=port, bind="127.0.0.1")
    if not debug:
        p.conf.write_text(p.conf.read_text().replace("log_type debug\n", ""))
    broker = subprocess.Popen([mosquitto_exe(), "-c", str(p.conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    ctx = mp.get_context("spawn")
    ready, out, go, stop = ctx.Queue(), ctx.Queue(), ctx.Event(), ctx.Event()
    creds = [(t, c.username, c.password) for t, c in p.tables.items()]
    procs = [ctx.Process(target=_tables, args=(port, creds[k:k + PER_PROCESS], play_every_s, summary_every,
                                               ready, go, stop, out)) for k in range(0, n, PER_PROCESS)]
    try:
        assert wait_port(port), "mosquitto did not start"
        hub = _connect(p.hub.username, p.hub.password, port,
                       lambda c, *_a: c.subscribe([(f"guandan/{EVENT}/+/{s}", 1) for s in SUBSCRIBED]))
        t_connect = time.monotonic()
        size_before = p.log.stat().st_size
        for q in procs:
            q.start()
        for _ in procs:
            ready.get(timeout=300)
        time.sleep(2.0)  # the retained statuses delivered to the hub
        connect_bytes = p.log.stat().st_size - size_before
        connect_s = time.monotonic() - t_connect
        s0, t0, cpu0 = p.log.stat().st_size, time.monotonic(), _cpu_s(broker.pid)
        go.set()
        time.sleep(seconds)
        s1, t1, cpu1 = p.log.stat().st_size, time.monotonic(), _cpu_s(broker.pid)
        stop.set()
        sent = sum(out.get(timeout=120) for _ in procs)
        for q in procs:
            q.join(60)
        hub.disconnect()
        hub.loop_stop()
    finally:
        stop.set()
        go.set()
        broker.terminate()
        broker.wait(15)
    with p.log.open("rb") as f:
        f.seek(s0)
        chunk = f.read(s1 - s0).decode("utf-8", "replace")
    kinds: Counter[str] = Counter()
    for line in chunk.splitlines():
        kinds[next((v for k, v in KINDS.items() if k in line), "other")] += 1
    span = t1 - t0
    lines = sum(kinds.values())
    return {"tables": n, "debug": debug, "seconds": round(span, 1), "messages_per_s": round(sent / span, 1),
            "log_bytes": s1 - s0, "bytes_per_hour": round((s1 - s0) / span * 3600),
            "mib_per_hour": round((s1 - s0) / span * 3600 / 2**20, 1), "lines_per_hour": round(lines / span * 3600),
            "bytes_per_line": round((s1 - s0) / max(1, lines), 1),
            "lines_per_message": round(lines / max(1, sent), 2), "kinds": dict(kinds.most_common()),
            "connect_log_bytes": connect_bytes, "connect_s": round(connect_s, 1),
            "broker_cpu": round((cpu1 - cpu0) / span, 3),
            "denied_lines": len(re.findall(r"Denied PUBLISH", chunk))}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, nargs="*", default=[50, 500])
    ap.add_argument("--seconds", type=float, default=60.0)
    ap.add_argument("--play-every-s", type=float, default=4.0, help="seconds between public events at one table")
    ap.add_argument("--summary-every", type=int, default=20, help="public events per summary (what the overview "
                    "shows changes: a deal, a flag, a question, a clock)")
    ap.add_argument("--no-debug", action="store_true", help="drop log_type debug (the refusals are then not logged)")
    a = ap.parse_args()
    print(f"{platform.node()} {platform.machine()} ({os.cpu_count()} cores) {platform.python_version()} "
          f"{subprocess.run([mosquitto_exe(), '-h'], capture_output=True, text=True).stdout.splitlines()[0]} "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}", flush=True)
    folder = Path(tempfile.mkdtemp(prefix="broker-log-bench-", dir="/tmp"))
    folder.chmod(0o755)  # provisioned as root, the broker runs as mosquitto: it must enter the folder
    try:
        for n in a.tables:
            print(json.dumps(run(n, a.seconds, a.play_every_s, a.summary_every, not a.no_debug, folder)), flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
