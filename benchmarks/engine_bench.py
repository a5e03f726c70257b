"""Referee engine speed: events applied per second, and the replay time of a 40-deal match.

Run: ``.venv/bin/python benchmarks/engine_bench.py`` (``--deals N``, ``--repeat N``). Figures go
into docs/performance.md (section ``engine``), with the machine and the date.

What is measured:
- fold: ``engine.fold`` over the whole match log (what a restart and the delayed feed do);
- apply: the pure ``engine.apply`` per event (copies what it changes; what the runner does live);
- runner: ``TableRunner.submit`` end to end — decide, SQLite append with ``synchronous=FULL``
  commit (an fsync per event), notify — on the data folder's disk;
- restart: ``TableRunner(db)`` start-up = read the log + fold.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_service.engine.apply import apply, fold
from table_service.engine.self_play import BotTable
from table_service.engine.state import initial_state, state_to_json
from table_service.table.runner import TableRunner


def _best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--runner-events", type=int, default=2000, help="events pushed through the runner (fsync each)")
    ap.add_argument("--dir", default=None, help="folder for the benchmark database (default: a temp dir)")
    args = ap.parse_args()

    bots = BotTable(2026, tick_every_ms=15_000)
    events = list(bots.run_deals(args.deals))
    n = len(events)
    kinds = {}
    for e in events:
        kinds[e["type"]] = kinds.get(e["type"], 0) + 1
    print(f"machine: {platform.machine()} {platform.system()}, Python {platform.python_version()}")
    print(f"match: {args.deals} deals, {n} events ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])[:5])})")

    t_fold = _best(lambda: fold(events), args.repeat)
    print(f"fold (replay) of the {args.deals}-deal match: {t_fold * 1000:.1f} ms  -> {n / t_fold:,.0f} events/s")

    def pure() -> None:
        s = initial_state()
        for e in events:
            s, _fx = apply(s, e)

    t_apply = _best(pure, max(1, args.repeat // 2))
    print(f"pure apply, event by event: {t_apply * 1000:.1f} ms  -> {n / t_apply:,.0f} events/s")

    t_json = _best(lambda: state_to_json(bots.state), args.repeat * 20) * 1000
    print(f"state_to_json of the final state: {t_json:.2f} ms")

    with tempfile.TemporaryDirectory(dir=args.dir) as tmp:
        db = Path(tmp) / "bench.sqlite3"
        feed = [{k: v for k, v in e.items() if k != "seq"} for e in events]
        k = min(args.runner_events, n)
        lat: list[float] = []
        with TableRunner(db) as runner:
            t0 = time.perf_counter()
            for e in feed[:k]:
                t1 = time.perf_counter()
                res = runner.submit(e)
                lat.append(time.perf_counter() - t1)
                assert res.accepted, res.error
            t_run = time.perf_counter() - t0
            for e in feed[k:]:
                runner.submit(e)
        print(f"runner submit (decide + SQLite commit, synchronous=FULL): {k / t_run:,.0f} events/s, "
              f"median {statistics.median(lat) * 1000:.2f} ms, p99 {sorted(lat)[int(len(lat) * 0.99)] * 1000:.2f} ms")

        def restart() -> None:
            r = TableRunner(db)
            r.stop()

        t_restart = _best(restart, args.repeat)
        print(f"restart (open store + read {n} events + fold): {t_restart * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
