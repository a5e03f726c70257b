"""What the hub's release of duplicate (复式) boards costs per batch of summaries (event/release.py).

Why: every batch of table messages holding a summary makes the hub work out which deals both rooms
of each board have ended (``HubService.publish_releases``), on the MQTT worker's thread, before the
batch is acknowledged. At a real event most batches hold one or a few summaries, so what one batch
costs at 500 tables is what every deal's end costs the hub 500 times over.

A duplicate event of ``--tables`` tables (``--tables`` teams: one board is two rooms, so 500 tables
are 250 boards × 2 rooms) and ``--rounds`` rounds of ``--deals`` deals, played through for real at
the hub: each round is drawn and published; at every deal each table's summary arrives (in a
shuffled order, rooms out of step) in batches of ``--batch``; the round's results are imported and
the next round drawn. Timed: the release computation of each batch (``publish_releases``, the hub's
MQTT client replaced by a counter), the whole ``handle_batch`` beside it, and at the end one
(re)connect's ``publish_releases(again=True)`` (every board of every round, every message again).

    .venv/bin/python benchmarks/release_bench.py --tables 500 --rounds 9 --batch 1 --batch 50

Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_service.event.config import validate
from table_service.event.hub import HubService


class Counter:
    """Stands for the hub's MQTT client: counts what would be published."""

    def __init__(self) -> None:
        self.releases = 0

    def publish(self, _table: str, name: str, _payload: bytes, *, retain: bool = True) -> None:
        self.releases += name == "release"

    def publish_deck(self, _payload: bytes) -> None:
        pass


def summary(table: str, rnd: int, teams: dict[str, str], deal: int, ended: int, finished: bool, seq: int
            ) -> tuple[str, str, bytes, bool]:
    msg = {"table": table, "round": rnd, "round_status": "over" if finished else "playing", "teams": teams,
           "deal": deal, "deals_ended": ended, "finished": finished, "last_seq": seq, "wall_ms": 1_790_000_000_000}
    return (table, "summary", json.dumps(msg).encode(), True)


def run(n_tables: int, rounds: int, deals: int, batch: int, seed: int) -> dict[str, Any]:
    cfg = validate({"event": {"id": "bench", "rounds": rounds, "duplicate": "levels",
                              "format": {"kind": "deals", "deals": deals}},
                    "teams": [{"id": f"T{i:03d}", "players": [f"{i}{s}" for s in "abcd"]} for i in range(n_tables)]})
    rng = random.Random(seed)
    release_s: list[float] = []
    batch_s: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        hub = HubService(cfg, Path(tmp), connect=False)
        counter = Counter()
        hub.mqtt = counter  # type: ignore[assignment]
        inner = hub.publish_releases

        def timed(*a: Any, **kw: Any) -> int:
            t0 = time.perf_counter()
            try:
                return inner(*a, **kw)
            finally:
                release_s.append(time.perf_counter() - t0)

        hub.publish_releases = timed  # type: ignore[method-assign]
        seq = 0
        try:
            for rnd in range(1, rounds + 1):
                hub.draw_next("bench", "chief")
                hub.publish_draw(rnd, "bench", "chief")
                assignments = hub.core.draws[rnd]["assignments"]
                tables = sorted(t for t, a in assignments.items() if a.get("board"))
                for deal in range(1, deals + 1):
                    # Each table's summary as its deal ends, rooms out of step: shuffled within the deal.
                    order = tables[:]
                    rng.shuffle(order)
                    msgs = []
                    for t in order:
                        seq += 1
                        msgs.append(summary(t, rnd, assignments[t]["teams"], min(deal + 1, deals), deal,
                                            deal == deals, seq))
                    for i in range(0, len(msgs), batch):
                        t0 = time.perf_counter()
                        hub.handle_batch(msgs[i:i + batch])
                        batch_s.append(time.perf_counter() - t0)
                if rnd < rounds:  # the round's results, so that the next round can be drawn
                    lines = [json.dumps({"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"],
                                         "ns_levels": rng.randint(0, 5), "ew_levels": rng.randint(0, 5)})
                             for t in hub.core.draws[rnd]["tables"] if t.get("ew")]
                    hub.import_results("\n".join(lines), "bench", "chief")
            # A (re)connect: every board of every round worked out afresh and every message sent again.
            t0 = time.perf_counter()
            inner(again=True)
            reconnect_ms = round((time.perf_counter() - t0) * 1000, 2)
            faults = dict(hub.core.faults)
        finally:
            hub.mqtt = None
            hub.stop()

    def ms(xs: list[float], q: float) -> float:
        xs = sorted(xs)
        return round(xs[min(len(xs) - 1, int(q * len(xs)))] * 1000, 3)

    return {"tables": n_tables, "boards": n_tables // 2, "rounds": rounds, "deals": deals, "batch": batch,
            "batches": len(release_s), "releases_published": counter.releases, "faults": len(faults),
            "reconnect_ms": reconnect_ms,
            "release_ms": {"median": round(statistics.median(release_s) * 1000, 3), "p95": ms(release_s, 0.95),
                           "max": ms(release_s, 1.0), "total_s": round(sum(release_s), 2)},
            "handle_batch_ms": {"median": round(statistics.median(batch_s) * 1000, 3), "p95": ms(batch_s, 0.95),
                                "total_s": round(sum(batch_s), 2)}}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tables", type=int, action="append", help="tables (= teams); may be given again")
    ap.add_argument("--rounds", type=int, default=9)
    ap.add_argument("--deals", type=int, default=8)
    ap.add_argument("--batch", type=int, action="append", help="summaries per batch; may be given again")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(json.dumps({"python": platform.python_version(), "machine": platform.machine(),
                      "processor": platform.processor() or None}))
    for n in args.tables or [500]:
        for b in args.batch or [1, 50]:
            print(json.dumps(run(n, args.rounds, args.deals, b, args.seed)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
