"""The hub's pages at a large event: the public board's JSON under many polling phones, and the
organiser page's size.

An event of ``--tables`` tables (two teams a table, long Chinese names), ``--rounds`` Swiss rounds
drawn, published and played at the hub (results imported), the last round half done; the hub's
pages served as ``guandan-table hub`` serves them (cheroot, in this process). Then:

* ``--pollers`` threads (one each of N: the hall's phones) poll ``/hub/api/board`` as a browser's
  ``fetch`` does — ``Accept-Encoding: gzip``, and ``If-None-Match`` with the ETag it last got, when
  the hub sends one — for ``--seconds``: requests/s, latency p50/p95, bytes on the wire a poll;
  meanwhile one more thread asks ``/hub/api/overview`` every 2 s (the chief's page) and its latency
  is reported apart (what a chief feels while the phones poll);
* the organiser page (``/hub/admin``, as the chief) in bytes, plain and as sent, and its server time.

    .venv/bin/python benchmarks/hub_pages_bench.py --tables 200 --pollers 1 --pollers 40 --pollers 120

Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import http.client
import json
import multiprocessing
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.web import create_hub_app, serve_hub
from table_service.web import users

PASSWORD = "correct-horse-9"


def build_event(folder: Path, tables: int, rounds: int,
                each_round: Callable[[HubService, int], None] | None = None) -> HubService:
    """A hub with ``rounds`` rounds drawn, published and played (the last one half), all but the
    last round's results published; ``each_round(hub, rnd)`` after each round is in."""
    cfg = validate({"event": {"id": "bench", "name": "性能赛", "rounds": rounds, "draw": "swiss"},
                    "teams": [{"id": f"T{i:03d}", "name": f"江苏省南京市第{i}代表队",
                               "players": [f"选手{i}甲", f"选手{i}乙"]} for i in range(1, 2 * tables + 1)]})
    hub = HubService(cfg, folder / "hub", connect=False)
    rng = random.Random(1)
    for rnd in range(1, rounds + 1):
        hub.draw_next("org", "chief")
        hub.publish_draw(rnd, "org", "chief")
        drawn = hub.core.draws[rnd]["tables"]
        played = drawn if rnd < rounds else drawn[: len(drawn) // 2]
        hub.import_results("\n".join(["round,table,ns,ew,ns_levels,ew_levels"] + [
            f"{rnd},{t['table']},{t['ns']},{t['ew']},{rng.randint(0, 13)},{rng.randint(0, 13)}" for t in played]),
            "org", "chief")
        if rnd < rounds:
            hub.publish_results(rnd, "org", "chief")
        if each_round is not None:
            each_round(hub, rnd)
    return hub


class Poller(threading.Thread):
    """One phone: polls ``path`` over its own keep-alive connection as a browser's fetch does."""

    def __init__(self, port: int, path: str, stop: threading.Event, pause_s: float = 0.0,
                 headers: dict[str, str] | None = None) -> None:
        super().__init__(daemon=True)
        self.port, self.path, self.stop, self.pause_s = port, path, stop, pause_s
        self.headers = headers or {}
        self.latencies: list[float] = []
        self.wire_bytes: list[int] = []
        self.statuses: dict[int, int] = {}
        self.start_after = 0.0

    def run(self) -> None:
        if self.stop.wait(self.start_after):
            return
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        etag = None
        while not self.stop.is_set():
            h = {"Accept": "application/json", "Accept-Encoding": "gzip", **self.headers}
            if etag:
                h["If-None-Match"] = etag
            t0 = time.perf_counter()
            conn.request("GET", self.path, headers=h)
            r = conn.getresponse()
            body = r.read()
            self.latencies.append(time.perf_counter() - t0)
            self.wire_bytes.append(len(body))
            self.statuses[r.status] = self.statuses.get(r.status, 0) + 1
            etag = r.getheader("ETag") or etag
            if self.pause_s:
                self.stop.wait(self.pause_s)
        conn.close()


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p * len(xs)))] if xs else float("nan")


def login_cookie(port: int) -> str:
    """The chief's session cookie, through the real login form."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", "/auth/whoami")
    r = conn.getresponse()
    token = json.loads(r.read())["csrf_token"]
    cookie = (r.getheader("Set-Cookie") or "").split(";", 1)[0]
    conn.request("POST", "/auth/login", body=urlencode({"username": "chen", "password": PASSWORD,
                                                        "csrf_token": token}),
                 headers={"Content-Type": "application/x-www-form-urlencoded", "Cookie": cookie})
    r = conn.getresponse()
    r.read()
    assert r.status == 302, r.status
    return (r.getheader("Set-Cookie") or cookie).split(";", 1)[0]


def page_bytes(port: int, cookie: str, path: str) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    out: dict[str, Any] = {}
    for enc in ("identity", "gzip"):
        t0 = time.perf_counter()
        conn.request("GET", path, headers={"Cookie": cookie, "Accept-Encoding": enc})
        r = conn.getresponse()
        body = r.read()
        out[enc] = (len(body), time.perf_counter() - t0, r.status)
        if enc == "identity":
            text = body.decode("utf-8")
            out["options"] = text.count("<option")
            out["forms"] = text.count("<form")
            out["rows"] = text.count("<tr")
    return out


def serve_event(tables: int, rounds: int, ready: Any, done: Any) -> None:
    """The hub in a process of its own (its CPU and GIL are not the phones'): build, serve, say
    the port, wait until told to stop."""
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db = str(folder / "users.sqlite3")
        conn = users.connect(db)
        users.add_user(conn, "chen", PASSWORD, "chief")
        conn.close()
        sizes: list[int] = []

        def organiser_page(hub: HubService, rnd: int) -> None:
            """The organiser page's size as each round is in (withdraw forms while rounds remain)."""
            client = create_hub_app(hub, users_db=db).test_client()
            token = client.get("/auth/whoami").get_json()["csrf_token"]
            client.post("/auth/login", data={"username": "chen", "password": PASSWORD, "csrf_token": token})
            sizes.append(len(client.get("/hub/admin").data))

        t0 = time.perf_counter()
        hub = build_event(folder, tables, rounds, organiser_page)
        built = time.perf_counter() - t0
        web = serve_hub(hub, port=0, users_db=db)
        ready.put((web.port, len(hub.core.results), built, sizes))
        done.wait()
        web.stop()
        hub.stop()


def browser_load(port: int, throttle: float, runs: int) -> list[float]:
    """Seconds until the organiser page's ``load`` event and its script ran (the lists built), in
    headless Chromium with the CPU slowed ``throttle`` times (DevTools' CPU throttling: a tablet),
    logged in through the login form; ``runs`` loads."""
    from playwright.sync_api import sync_playwright

    # The full browser where installed (the figures in docs/performance.md were taken on it), else the
    # headless shell that `scripts/install.sh --test` installs, else Playwright's own build.
    installed = [c for c in ("/usr/bin/chromium", "/usr/bin/chromium-headless-shell") if Path(c).exists()]
    times = []
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=installed[0] if installed else p.chromium.executable_path,
                              headless=True, args=["--no-sandbox", "--disable-gpu"])
        page = b.new_page(viewport={"width": 1024, "height": 768})
        page.goto(f"http://127.0.0.1:{port}/auth/login?next=/hub/admin")
        page.fill("#username", "chen")
        page.fill("#password", PASSWORD)
        page.click("#login-submit")
        page.wait_for_selector("#admin")
        cdp = page.context.new_cdp_session(page)
        cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
        for _ in range(runs):
            t0 = time.perf_counter()
            page.reload(wait_until="load", timeout=120_000)
            page.wait_for_selector("#team-find, #teams-find", state="attached", timeout=120_000)
            times.append(time.perf_counter() - t0)
        b.close()
    return times


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--pollers", type=int, action="append", help="concurrent phones (repeat for several runs)")
    ap.add_argument("--poll-s", type=float, default=3.0, help="each phone's pause between polls (hub_board.js: 3 s)")
    ap.add_argument("--seconds", type=float, default=15.0)
    ap.add_argument("--browser", type=float, default=0, metavar="X",
                    help="also load the organiser page in headless Chromium with the CPU slowed X times")
    args = ap.parse_args()
    pollers = args.pollers or [1, 40, 120, 200]
    print(f"# {platform.node()} {platform.machine()} {platform.processor() or ''} Python {platform.python_version()}"
          f" · {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}")
    ctx = multiprocessing.get_context("fork")
    ready, done = ctx.Queue(), ctx.Event()
    server = ctx.Process(target=serve_event, args=(args.tables, args.rounds, ready, done), daemon=True)
    server.start()
    try:
        port, results, built, sizes = ready.get(timeout=600)
        print(f"event: {args.tables} tables, {2 * args.tables} teams, {args.rounds} rounds, "
              f"{results} results ({built:.1f} s to build)")
        print("organiser page after each round (plain bytes): " + ", ".join(f"{n:,}" for n in sizes))
        cookie = login_cookie(port)
        admin = page_bytes(port, cookie, "/hub/admin")
        print(f"organiser page /hub/admin: {admin['identity'][0]:,} B plain, {admin['gzip'][0]:,} B as sent "
              f"to a gzip client; server {admin['identity'][1] * 1000:.0f} ms; {admin['options']} options, "
              f"{admin['forms']} forms, {admin['rows']} table rows")
        if args.browser:
            took = browser_load(port, args.browser, 3)
            print(f"organiser page in Chromium, CPU slowed {args.browser:g}x: load and script "
                  + ", ".join(f"{t:.1f}" for t in took) + " s")
        print(f"| pollers (every {args.poll_s:g} s) | board req/s | board p50 / p95 ms | body bytes a poll "
              "| 200 / 304 | chief overview p50 / p95 ms |")
        print("|---|---|---|---|---|---|")
        for n in pollers:
            stop = threading.Event()
            phones = [Poller(port, "/hub/api/board", stop, pause_s=args.poll_s) for _ in range(n)]
            chief = Poller(port, "/hub/api/overview", stop, pause_s=2.0, headers={"Cookie": cookie})
            for i, p in enumerate(phones):  # the phones' polls spread over the interval, as a hall's are
                p.start_after = args.poll_s * i / max(1, n)
            for p in (*phones, chief):
                p.start()
            time.sleep(args.seconds)
            stop.set()
            for p in (*phones, chief):
                p.join(60)
            lat = [x for p in phones for x in p.latencies]
            wire = [x for p in phones for x in p.wire_bytes]
            ok = sum(p.statuses.get(200, 0) for p in phones)
            nm = sum(p.statuses.get(304, 0) for p in phones)
            print(f"| {n} | {len(lat) / args.seconds:.1f} | {pct(lat, .5) * 1000:.1f} / {pct(lat, .95) * 1000:.1f} "
                  f"| {statistics.mean(wire):,.0f} | {ok} / {nm} | "
                  f"{pct(chief.latencies, .5) * 1000:.0f} / {pct(chief.latencies, .95) * 1000:.0f} |", flush=True)
    finally:
        done.set()
        server.join(30)


if __name__ == "__main__":
    main()
