"""Web benchmark: push latency engine → N open SSE streams, and requests/s of the state endpoint.

    .venv/bin/python benchmarks/web_bench.py [--clients 50] [--events 100] [--seconds 5]

The server side (a real TableRunner on a temp SQLite file, the Flask app, cheroot) runs in this
process; the SSE clients run in a *separate* process (like browsers would), so client parsing
does not compete with the server for this interpreter's GIL. Latency of one delivery = the time a
client has parsed the message minus the time the engine thread finished applying the event
(taken by a subscriber registered before the web hub's). Both use ``time.time()`` on one machine.
Events are submitted one at a time with a short gap, as at a real table (a play every few
seconds); the burst figure submits them back to back.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from table_service.web.sseclient import SSEClient  # noqa: E402

PLAYERS = {"E": "张伟", "S": "李娜", "W": "王强", "N": "赵敏"}
DECK = [r + s for r in "3456789TJQKA" for s in "shdc"]


def clients_main(host: str, port: int, path: str, n: int, cookie: str, last_seq: int, timeout: float) -> None:
    """Child process: open ``n`` streams, say READY, collect receive times until ``last_seq``."""
    headers = {"Cookie": cookie} if cookie else {}
    clients = [SSEClient(host, port, path, headers=headers) for _ in range(n)]
    for c in clients:
        assert c.status == 200, c.status
        c.get(timeout)  # the snapshot
    print("READY", flush=True)
    times: list[dict[str, float]] = [{} for _ in clients]
    done = threading.Event()

    def drain(i: int) -> None:
        c = clients[i]
        while True:
            try:
                m = c.get(timeout)
            except Exception:
                return
            if m.id is not None and m.event == "update":
                times[i][m.id] = m.received
                if int(m.id) >= last_seq:
                    return

    threads = [threading.Thread(target=drain, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout + 60)
    done.set()
    print(json.dumps(times), flush=True)
    for c in clients:
        c.close()


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    k = max(0, min(len(values) - 1, round(q / 100 * (len(values) - 1))))
    return values[k]


def setup(tmp: Path, delay: float = 0.0):
    from table_service.table.runner import TableRunner
    from table_service.web import create_app, users
    from table_service.web.server import serve
    from table_service.web.tables import attach_table

    db = tmp / "users.sqlite3"
    conn = users.connect(db)
    users.add_user(conn, "bench", "bench-password", "viewer")
    conn.close()
    runner = TableRunner(tmp / "table.sqlite3").start()
    applied: dict[int, float] = {}
    runner.subscribe(lambda ev, st: applied.__setitem__(ev["seq"], time.time()))  # first subscriber
    app = create_app({"USERS_DB": str(db), "SECRET_KEY": "bench", "SERVER_THREADS": 160,
                      "FEED_MAX_STREAMS": 120, "FEED_DELAY_S": delay})
    attach_table(app, "1", runner)
    srv = serve(app, "127.0.0.1", 0)
    client = app.test_client()
    token = client.get("/auth/whoami").get_json()["csrf_token"]
    client.post("/auth/login", data={"username": "bench", "password": "bench-password", "csrf_token": token})
    cookie = f"guandan_session={client.get_cookie('guandan_session').value}"
    return runner, app, srv, cookie, applied


def script(runner) -> list[dict]:
    """A deal's worth of events: set-up, then tricks of North leading a single and three passes."""
    evs = [
        {"type": "round_set_up", "source": "panel", "role": "referee",
         "data": {"players": PLAYERS, "ruleset": "jiangsu", "format": {"kind": "deals", "deals": 2}}},
        {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
        {"type": "drawing_finished", "source": "panel", "data": {}},
    ]
    for card in DECK[:25]:
        evs.append({"type": "cards_played", "source": "camera", "data": {"seat": "N", "cards": [card]}})
        for seat in ("W", "S", "E"):
            evs.append({"type": "passed", "source": "screen", "data": {"seat": seat}})
    return evs


def latency(path_kind: str, n: int, n_events: int, gap_s: float, burst: bool) -> dict:
    with tempfile.TemporaryDirectory() as tmpdir:
        runner, app, srv, cookie, applied = setup(Path(tmpdir))
        try:
            return _latency(runner, srv, cookie, applied, path_kind, n, n_events, gap_s, burst)
        finally:
            srv.stop()
            runner.stop()


def _latency(runner, srv, cookie, applied, path_kind: str, n: int, n_events: int, gap_s: float,
             burst: bool) -> dict:
    evs = script(runner)[:n_events]
    path = "/api/tables/1/stream" if path_kind == "panel" else "/feed/1/stream"
    last_seq = len(evs)
    child = subprocess.Popen(
        [sys.executable, __file__, "--child", srv.host, str(srv.port), path, str(n),
         cookie if path_kind == "panel" else "", str(last_seq)],
        stdout=subprocess.PIPE, text=True, cwd=str(ROOT),
    )
    assert child.stdout is not None
    line = child.stdout.readline().strip()
    assert line == "READY", line
    for ev in evs:
        res = runner.submit(ev, wait=not burst)
        if not burst:
            assert res.accepted, res.error
            time.sleep(gap_s)
    out = child.stdout.readline()
    child.wait(60)
    times = json.loads(out)
    lat = []
    missing = 0
    for per_client in times:
        for seq in range(1, last_seq + 1):
            t = per_client.get(str(seq))
            if t is None:
                missing += 1
            else:
                lat.append((t - applied[seq]) * 1000)
    return {"stream": path_kind, "clients": n, "events": last_seq, "burst": burst, "deliveries": len(lat),
            "missing": missing, "p50_ms": round(pct(lat, 50), 2), "p99_ms": round(pct(lat, 99), 2),
            "max_ms": round(max(lat), 2), "mean_ms": round(statistics.fmean(lat), 2)}


def rps(path: str, seconds: float, workers: int) -> dict:
    with tempfile.TemporaryDirectory() as tmpdir:
        runner, app, srv, cookie, _ = setup(Path(tmpdir))
        for ev in script(runner)[:60]:
            runner.submit(ev)
        size = len(app.test_client().get(path, headers={"Cookie": cookie}).data) if path.startswith("/feed") else None
        counts = [0] * workers
        stop = time.monotonic() + seconds

        def work(i: int) -> None:
            conn = http.client.HTTPConnection(srv.host, srv.port, timeout=10)
            while time.monotonic() < stop:
                conn.request("GET", path, headers={"Cookie": cookie})
                resp = conn.getresponse()
                body = resp.read()
                assert resp.status == 200, (resp.status, body[:200])
                counts[i] += 1
            conn.close()

        # Clients in this process too: the figure is a lower bound for the server alone.
        threads = [threading.Thread(target=work, args=(i,)) for i in range(workers)]
        t0 = time.monotonic()
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        elapsed = time.monotonic() - t0
        state_bytes = len(json.dumps(runner.state(), ensure_ascii=False).encode())
        srv.stop()
        runner.stop()
    return {"path": path, "workers": workers, "seconds": round(elapsed, 2), "requests": sum(counts),
            "rps": round(sum(counts) / elapsed, 1), "state_bytes": state_bytes, "feed_bytes": size}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        host, port, path, n, cookie, last_seq = sys.argv[2:8]
        clients_main(host, int(port), path, int(n), cookie, int(last_seq), 30.0)
        return
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--clients", type=int, default=50)
    ap.add_argument("--events", type=int, default=100)
    ap.add_argument("--gap", type=float, default=0.02, help="seconds between events (paced runs)")
    ap.add_argument("--seconds", type=float, default=5.0, help="duration of each requests/s run")
    ap.add_argument("--workers", type=int, default=4)
    args = ap.parse_args()
    print(f"# {platform.machine()} · {os.cpu_count()} CPUs · Python {platform.python_version()} · "
          f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    results = [
        latency("panel", args.clients, args.events, args.gap, burst=False),
        latency("feed", args.clients, args.events, args.gap, burst=False),
        latency("panel", args.clients, args.events, args.gap, burst=True),
        rps("/api/tables/1/state", args.seconds, args.workers),
        rps("/feed/1/state.json", args.seconds, args.workers),
    ]
    for r in results:
        print(json.dumps(r, ensure_ascii=False))


if __name__ == "__main__":
    main()
