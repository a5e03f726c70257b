"""Subprocess for the crash test: feeds a seeded bot table's events through a TableRunner.

Usage: ``python crash_feeder.py DB SEED DEALS``. It resumes after whatever the database already
holds (the stream is reproducible from the seed) and prints ``ACK <seq>`` after each accepted
event, i.e. only once the runner has committed it. The test SIGKILLs it at random moments.
"""

from __future__ import annotations

import sys


def main() -> int:
    db, seed, deals = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    from table_service.engine.self_play import BotTable
    from table_service.table.runner import TableRunner

    stream = list(BotTable(seed).run_deals(deals))
    with TableRunner(db) as runner:
        done = len(runner.events())
        print(f"START {done}", flush=True)
        for ev in stream[done:]:
            result = runner.submit({k: v for k, v in ev.items() if k != "seq"})
            if not result.accepted:
                print(f"REJECTED {result.error}", flush=True)
                return 1
            print(f"ACK {result.seq}", flush=True)
    print("DONE", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
