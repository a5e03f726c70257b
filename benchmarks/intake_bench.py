"""What the hub's field-by-field checks of table messages cost (issue 26, ``event/intake.py``).

Times :func:`~table_service.event.intake.check_message` on the three messages a table sends
(a typical summary, status and result), on a bad one, and a whole batch of N results through
:meth:`~table_service.event.hub.HubService.handle_batch` (checks, verdicts, one SQLite commit,
``synchronous=FULL``) — the hub's burst when a round ends at N tables at once.

    .venv/bin/python benchmarks/intake_bench.py [--n 500] [--repeat 2000]
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import tempfile
import time
from pathlib import Path

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.intake import BadMessage, check_message


def per_call_us(fn, repeat: int) -> float:  # type: ignore[no-untyped-def]
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    return (time.perf_counter() - t0) / repeat * 1e6


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=500, help="tables (results in the batch)")
    ap.add_argument("--repeat", type=int, default=2000)
    args = ap.parse_args()
    summary = json.dumps({"table": "1", "round": 3, "round_status": "play", "teams": {"NS": "T07", "EW": "T19"},
                          "deal": 5, "levels": {"NS": "7", "EW": "4"}, "open_flags": 1, "doubts": 0,
                          "clocks_over": 0, "penalties": {s: {"warnings": 0, "violations": 0, "fouls": 0}
                                                          for s in ("NS", "EW")},
                          "signed": {"NS": False, "EW": False}, "finished": False,
                          "panel": "http://10.0.0.12:8080/tables/1", "last_seq": 412,
                          "wall_ms": 1795000000000}).encode()
    status = json.dumps({"table": "1", "event": "ev", "status": "online", "reason": None, "wall_ms": 1795000000000,
                         "panel": "http://10.0.0.12:8080/tables/1"}).encode()
    result = json.dumps({"result_id": "r3-s1207", "table_seq": 1207, "reason": "deals", "wall_ms": 1795000000000,
                         "result": {"round": 3, "table": "1", "ns": "T07", "ew": "T19", "ns_levels": 9,
                                    "ew_levels": 4}}).encode()
    bad = json.dumps({"table": "1", "round": "abc"}).encode()

    def bad_call() -> None:
        with contextlib.suppress(BadMessage):
            check_message("1", "summary", bad)

    for name, payload in (("summary", summary), ("status", status), ("result", result)):
        us = per_call_us(lambda n=name, p=payload: check_message("1", n, p), args.repeat)
        print(f"check {name:8s} {len(payload):4d} B  {us:7.1f} µs")
    print(f"check bad summary        {per_call_us(bad_call, args.repeat):7.1f} µs")

    n = args.n
    cfg = validate({"event": {"id": "ev", "name": "bench", "rounds": 2, "seed": 1},
                    "teams": [{"id": f"T{i}"} for i in range(1, 2 * n + 1)]})
    times = []
    for _ in range(3):
        with tempfile.TemporaryDirectory() as tmp:
            hub = HubService(cfg, Path(tmp), connect=False)
            hub.draw_next("o", "chief")
            hub.publish_draw(1, "o", "chief")
            batch = [(t["table"], "result", json.dumps({"result_id": f"r1-s{i}", "result": {
                "round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 5, "ew_levels": 3}}).encode(),
                False) for i, t in enumerate(hub.core.draws[1]["tables"])]
            t0 = time.perf_counter()
            hub.handle_batch(batch)
            times.append(time.perf_counter() - t0)
            assert len(hub.core.results) == n
            hub.stop()
    print(f"handle_batch of {n} results (checks + verdicts + one commit): median {statistics.median(times) * 1000:.0f} ms "
          f"(runs: {', '.join(f'{x * 1000:.0f}' for x in times)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
