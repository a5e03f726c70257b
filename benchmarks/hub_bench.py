"""The event hub under 500 tables: lag, lost results, CPU and memory.

One private Mosquitto; the hub as its own process (``guandan-table hub``, so its CPU and memory
are its own); 500 simulated tables publishing what a table's bridge publishes at a real event's
rate — public events and state on every play, the overview summary when it changes, status —
then the round ending: a trickle of results first (tables finishing early), then a **burst**
where every other table's result is sent within a fraction of a second.

Measured per result: *result → acknowledgement*, from the table publishing its result to the
table receiving the hub's ``result_ack`` — which the hub sends only after the result is
committed to its SQLite log — so it is the hub's lag plus two broker hops. Lost: results the hub
has not logged at the end (must be 0). Hub CPU: user+system seconds of the hub process per
wall second in each phase; memory: its peak RSS.

    .venv/bin/python benchmarks/hub_bench.py --tables 500 --steady-s 30

Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import paho.mqtt.client as mqtt

from table_service.event.broker import PrivateBroker
from table_service.event.config import validate
from table_service.event.hub import HubService


def proc_cpu_s(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def proc_mem_mb(pid: int) -> tuple[float, float]:
    """(current RSS, peak RSS) in MiB."""
    rss = hwm = 0.0
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1]) / 1024
        elif line.startswith("VmHWM:"):
            hwm = int(line.split()[1]) / 1024
    return rss, hwm


class Tables:
    """Simulated tables, ``per_client`` of them sharing one MQTT connection (the broker and the
    hub see the same messages as from one connection each; the bench machine stays usable)."""

    def __init__(self, port: int, event: str, tables: list[str], per_client: int = 25) -> None:
        self.event = event
        self.tables = tables
        self.acks: dict[str, float] = {}
        self.sent: dict[str, float] = {}
        self.lock = threading.Lock()
        self.clients: list[mqtt.Client] = []
        for i in range(0, len(tables), per_client):
            c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"bench-tables-{i}")
            c.max_queued_messages_set(0)
            c.max_inflight_messages_set(1000)
            mine = tables[i:i + per_client]
            c.on_message = self._on_ack
            c.connect("127.0.0.1", port)
            c.subscribe([(f"guandan/{event}/{t}/result_ack", 1) for t in mine])
            c.loop_start()
            self.clients.append(c)
        self.per_client = per_client

    def client_of(self, idx: int) -> mqtt.Client:
        return self.clients[idx // self.per_client]

    def _on_ack(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        if not msg.payload:
            return
        data = json.loads(msg.payload)
        rid = data.get("result_id")
        with self.lock:
            if rid in self.sent and rid not in self.acks and data.get("status") in ("accepted", "duplicate"):
                self.acks[rid] = time.time()

    def publish(self, idx: int, name: str, obj: Any, *, retain: bool = False) -> None:
        t = self.tables[idx]
        self.client_of(idx).publish(f"guandan/{self.event}/{t}/{name}", json.dumps(obj, separators=(",", ":")),
                                    qos=1, retain=retain)

    def close(self) -> None:
        for c in self.clients:
            c.loop_stop()
            c.disconnect()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, default=500)
    ap.add_argument("--steady-s", type=float, default=30.0, help="seconds of play before the round ends")
    ap.add_argument("--play-every-s", type=float, default=4.0, help="seconds between plays at one table")
    ap.add_argument("--early", type=float, default=0.2, help="share of tables finishing during the steady phase")
    args = ap.parse_args()
    n = args.tables
    tmp = Path(tempfile.mkdtemp(prefix="hub-bench-"))
    broker = PrivateBroker(tmp / "broker").start()
    teams = [{"id": f"T{i:04d}"} for i in range(1, 2 * n + 1)]
    cfg = validate({"event": {"id": "bench", "rounds": 5, "draw": "swiss"}, "mqtt": {"port": broker.port},
                    "hub": {"port": 0}, "teams": teams})
    data = tmp / "hub"
    setup = HubService(cfg, data, connect=False)
    t0 = time.perf_counter()
    setup.draw_next("bench", "chief")
    draw_s = time.perf_counter() - t0
    setup.publish_draw(1, "bench", "chief")
    draw = setup.core.draws[1]["tables"]
    setup.stop()
    toml = tmp / "EVENT.toml"
    toml.write_text(f'[event]\nid = "bench"\nrounds = 5\ndraw = "swiss"\n[mqtt]\nport = {broker.port}\n'
                    + "".join(f'[[teams]]\nid = "{t["id"]}"\n' for t in teams), encoding="utf-8")
    hub = subprocess.Popen([sys.executable, "-m", "table_service", "hub", "--event", str(toml), "--data", str(data),
                            "--port", "0"], stdout=(tmp / "hub.log").open("wb"), stderr=subprocess.STDOUT)
    try:
        time.sleep(3.0)
        ids = [t["table"] for t in draw]
        sim = Tables(broker.port, "bench", ids)
        for i, tid in enumerate(ids):
            sim.publish(i, "status", {"table": tid, "status": "online", "wall_ms": int(time.time() * 1000)},
                        retain=True)
        time.sleep(2.0)
        cpu0, w0 = proc_cpu_s(hub.pid), time.time()
        # --- steady play: every table plays every play_every_s; a few finish early.
        early = set(range(0, n, max(1, round(1 / args.early)))) if args.early > 0 else set()
        finish_at = {i: w0 + (i * 7919 % 1000) / 1000 * args.steady_s for i in early}
        seq = [0] * n
        deal = [1] * n
        sent_msgs = 0

        def result_msg(i: int) -> dict[str, Any]:
            t = draw[i]
            rid = f"r1-s{seq[i] + 1}"
            now = time.time()
            sim.sent[rid + "@" + t["table"]] = now
            return {"result_id": rid + "@" + t["table"], "table_seq": seq[i] + 1, "wall_ms": int(now * 1000),
                    "result": {"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"],
                               "ns_levels": (i * 5) % 14, "ew_levels": (i * 3) % 14}}

        tick = args.play_every_s / n
        next_play = w0
        i = 0
        while time.time() < w0 + args.steady_s:
            now = time.time()
            if now < next_play:
                time.sleep(min(0.01, next_play - now))
                continue
            next_play += tick
            seq[i] += 1
            ev = {"seq": seq[i], "type": "cards_played", "data": {"seat": "ESWN"[seq[i] % 4], "cards": ["3s"]}}
            sim.publish(i, "events", ev)
            sim.publish(i, "state", {"last_seq": seq[i], "deal": {"no": deal[i], "counts": {"E": 20}},
                                     "levels": {"NS": "2", "EW": "3"}}, retain=True)
            sent_msgs += 2
            if seq[i] % 60 == 0:
                deal[i] += 1
                sim.publish(i, "summary", {"table": ids[i], "round": 1, "deal": deal[i], "last_seq": seq[i],
                                           "open_flags": 0, "doubts": 0, "clocks_over": 0}, retain=True)
                sent_msgs += 1
            for j, at in list(finish_at.items()):
                if now >= at:
                    sim.publish(j, "result", result_msg(j), retain=True)
                    sent_msgs += 1
                    del finish_at[j]
            i = (i + 1) % n
        cpu1, w1 = proc_cpu_s(hub.pid), time.time()
        steady_ids = set(sim.sent)
        # --- burst: the round ends at every other table at once.
        for j in range(n):
            if j not in early:
                sim.publish(j, "result", result_msg(j), retain=True)
        burst_ids = set(sim.sent) - steady_ids
        deadline = time.time() + 60
        while len(sim.acks) < len(sim.sent) and time.time() < deadline:
            time.sleep(0.05)
        cpu2, w2 = proc_cpu_s(hub.pid), time.time()
        rss, peak = proc_mem_mb(hub.pid)
        time.sleep(1.0)
        conn = sqlite3.connect(f"file:{data / 'hub-events.sqlite3'}?mode=ro", uri=True)
        logged = conn.execute("SELECT count(*) FROM hub_events WHERE type='result_recorded'").fetchone()[0]
        conn.close()
        lag = {rid: (sim.acks[rid] - sim.sent[rid]) * 1000 for rid in sim.acks}
        steady_lag = [v for k, v in lag.items() if k in steady_ids]
        burst_lag = [v for k, v in lag.items() if k in burst_ids]
        out = {
            "machine": f"{platform.node()} ({os.cpu_count()} cores) {platform.python_version()}",
            "tables": n, "teams": 2 * n, "round1_draw_s": round(draw_s, 3),
            "steady_s": round(w1 - w0, 1), "steady_msgs_per_s": round(sent_msgs / (w1 - w0), 1),
            "results_sent": len(sim.sent), "results_logged": logged, "acks": len(sim.acks),
            "lost": len(sim.sent) - logged,
            "steady_lag_ms": {"n": len(steady_lag), "p50": round(pct(steady_lag, 0.5), 1),
                              "p99": round(pct(steady_lag, 0.99), 1)},
            "burst_lag_ms": {"n": len(burst_lag), "p50": round(pct(burst_lag, 0.5), 1),
                             "p99": round(pct(burst_lag, 0.99), 1), "max": round(max(burst_lag or [0]), 1)},
            "burst_drain_s": round(w2 - w1, 2),
            "hub_cpu_steady": round((cpu1 - cpu0) / (w1 - w0), 3),
            "hub_cpu_burst": round((cpu2 - cpu1) / max(0.001, w2 - w1), 3),
            "hub_rss_mb": round(rss, 1), "hub_peak_rss_mb": round(peak, 1),
            "mean_lag_ms": round(statistics.mean(lag.values()), 1) if lag else None,
        }
        print(json.dumps(out, ensure_ascii=False, indent=1))
        sim.close()
        return 0 if out["lost"] == 0 else 1
    finally:
        hub.send_signal(signal.SIGTERM)
        try:
            hub.wait(15)
        except subprocess.TimeoutExpired:
            hub.kill()
        broker.stop()


if __name__ == "__main__":
    raise SystemExit(main())
