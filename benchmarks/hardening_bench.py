"""Hardening benchmark: what the guards of issue 19 cost, and how fast a closed stream is freed.

    .venv/bin/python benchmarks/hardening_bench.py [--rounds 10]

* the event schema check (``check_data``) per submitted event: a plain play, and a camera question
  carrying a 150 kB picture (the largest event a table produces);
* how long after a public-feed client closes its connection its stream slot is free again, with
  the default 15 s keep-alive (the server's "client gone?" check runs every 0.5 s);
* the server-side session lookup per request (one indexed SQLite read).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
import timeit
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10)
    args = ap.parse_args()

    from table_service.engine.events import check_data
    from table_service.table.runner import TableRunner
    from table_service.web import create_app, users
    from table_service.web.server import serve
    from table_service.web.sseclient import SSEClient
    from table_service.web.tables import web_state

    play = {"seat": "E", "cards": ["3h", "3d", "3s"], "confidence": [0.99, 0.98, 0.97]}
    n = 20_000
    t = timeit.timeit(lambda: check_data("cards_played", play), number=n)
    print(f"check_data, a 3-card camera play: {t / n * 1e6:.1f} µs")
    question = {"seat": "E", "cards": ["3h"] * 3, "uncertain": True, "crop": "data:image/jpeg;base64," + "A" * 150_000}
    n = 500
    t = timeit.timeit(lambda: check_data("cards_played", question), number=n)
    print(f"check_data, a question with a 150 kB picture: {t / n * 1e3:.2f} ms")

    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        conn = users.connect(d / "u.sqlite3")
        users.add_user(conn, "rita", "a-long-password", "referee")
        token = users.open_session(conn, "rita")
        n = 5_000
        t = timeit.timeit(lambda: users.session_user(conn, token), number=n)
        print(f"session lookup per request: {t / n * 1e6:.1f} µs")
        conn.close()

        runner = TableRunner(d / "t.sqlite3").start()
        app = create_app({"USERS_DB": str(d / "u.sqlite3"), "SECRET_KEY": "x", "TABLES": {"1": runner},
                          "SSE_HEARTBEAT_S": 15.0})
        srv = serve(app, "127.0.0.1", 0)
        lat = []
        for _ in range(args.rounds):
            c = SSEClient(srv.host, srv.port, "/feed/1/stream")
            c.get()
            start = time.monotonic()
            c.close()
            while web_state(app).feed_streams:
                time.sleep(0.005)
            lat.append(time.monotonic() - start)
        srv.stop()
        runner.stop()
    print(f"feed slot free after the client closes: median {statistics.median(lat) * 1000:.0f} ms, "
          f"max {max(lat) * 1000:.0f} ms ({args.rounds} closes; keep-alive every 15 s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
