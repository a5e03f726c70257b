"""End-to-end latency and CPU of the table service at 15 camera frames per second.

Runs the simulated table (``table_service.demo.table_demo``) with its synthetic camera in *real time* at
15 fps, the referee panel served by cheroot, and a logged-in panel client reading the live SSE
stream over HTTP, then reports for every play the camera read:

* **settle → event**: from the frame in which the watcher found the play settled (the frame
  that triggered the read) to the engine having the event committed and applied;
* **settle → panel**: from that frame to the update arriving at the panel client over HTTP;
* **rest → event** (for information): from the first frame in which the cards lay still (the
  watcher then waits its settle time, 0.8 s, before reading);

and the CPU time of the whole process per wall second, also without the synthetic renderer
(which a real camera does in hardware).

    .venv/bin/python benchmarks/service_bench.py --seconds 90

Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import http.cookiejar
import json
import platform
import resource
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_service.demo.options import DemoOptions
from table_service.demo.table_demo import Demo


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(q / 100.0 * (len(s) - 1)))))
    return s[k]


class PanelClient:
    """A referee panel over HTTP: logs in, then reads the table's SSE stream."""

    def __init__(self, base: str, table: str, user: str, password: str) -> None:
        self.base, self.table = base, table
        jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        who = json.loads(self.opener.open(f"{base}/auth/whoami", timeout=10).read())
        body = urllib.parse.urlencode({"username": user, "password": password,
                                       "csrf_token": who["csrf_token"]}).encode()
        req = urllib.request.Request(f"{base}/auth/login", data=body, headers={"Accept": "application/json"})
        self.opener.open(req, timeout=10).read()
        self.arrivals: dict[int, float] = {}
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        resp = self.opener.open(f"{self.base}/api/tables/{self.table}/stream", timeout=60)
        seq = None
        while not self._stop.is_set():
            line = resp.readline()
            if not line:
                return
            now = time.time()
            text = line.decode("utf-8").rstrip("\n")
            if text.startswith("id:"):
                seq = int(text[3:].strip())
            elif text.startswith("data:") and seq is not None:
                self.arrivals.setdefault(seq, now)

    def stop(self) -> None:
        self._stop.set()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=90.0, help="how long the table plays (wall seconds)")
    ap.add_argument("--speed", type=float, default=2.0, help="table time factor (the camera stays at real time)")
    ap.add_argument("--fps", type=float, default=15.0)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    data = tempfile.mkdtemp(prefix="guandan-bench-")
    demo = Demo(DemoOptions(seed=args.seed, speed=args.speed, mistakes=0.0, think_s=(1.0, 3.0)), data,
                headless=False, port=0, fps=args.fps, realtime=True, out=lambda _s: None)
    applied: dict[int, float] = {}
    demo.start()
    unsub = demo.service.runner.subscribe(lambda ev, _st: applied.setdefault(ev["seq"], time.time()))
    client = PanelClient(demo.service.url, demo.service.config.table_id, *demo.login)
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    w0 = time.time()
    render0 = demo.camera.render_s
    frames0 = demo.pipeline.frames
    time.sleep(args.seconds)
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    wall = time.time() - w0
    render_s = demo.camera.render_s - render0
    frames = demo.pipeline.frames - frames0
    time.sleep(1.0)  # let the last pushes arrive
    unsub()
    client.stop()
    obs = [o for o in demo.service.observations if o.get("seq") is not None and o.get("frame_wall")]
    marks = list(demo.camera.settled_marks)
    demo.stop()

    to_event = [(applied[o["seq"]] - o["frame_wall"]) * 1000 for o in obs if o["seq"] in applied]
    to_panel = [(client.arrivals[o["seq"]] - o["frame_wall"]) * 1000 for o in obs if o["seq"] in client.arrivals]
    rest = []
    for o in obs:
        earlier = [m for m in marks if m[1] <= o["frame_wall"] and m[2].get(o["seat"]) == o["cards"]]
        if earlier and o["seq"] in applied:
            rest.append((applied[o["seq"]] - earlier[-1][1]) * 1000)
    cpu = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    machine = f"{platform.machine()}, {len(__import__('os').sched_getaffinity(0))} cores, Python {platform.python_version()}"
    print(f"machine: {machine}")
    print(f"played {wall:.0f} s at {frames / wall:.1f} camera fps (synthetic 2400x1800), speed x{args.speed:g}, "
          f"{len(obs)} plays read")
    for name, vals in (("settle frame -> engine event", to_event), ("settle frame -> panel (SSE over HTTP)", to_panel),
                       ("cards at rest -> engine event", rest)):
        if vals:
            print(f"{name:40s} n={len(vals):3d}  p50 {pct(vals, 50):7.1f} ms  p95 {pct(vals, 95):7.1f} ms  "
                  f"max {max(vals):7.1f} ms  mean {statistics.mean(vals):7.1f} ms")
    print(f"CPU whole process: {cpu / wall * 100:.0f} % of one core; without the synthetic renderer "
          f"({render_s / wall * 100:.0f} %): {(cpu - render_s) / wall * 100:.0f} % of one core")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
