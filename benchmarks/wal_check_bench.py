"""What the store's -wal check (``store.sqlite.wal_damage``) costs when a table restarts after a kill.

    nice .venv/bin/python benchmarks/wal_check_bench.py            # a full 1,000-frame -wal (4 MB)

A killed writer leaves at most SQLite's automatic checkpoint's worth of -wal (1,000 pages of 4 KiB):
the worst case is a -wal of 1,000 committed frames, all checked. The writer here turns the automatic
checkpoint off so that every frame is one the check must verify.
"""

from __future__ import annotations

import argparse
import os
import signal
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_service.store.sqlite import wal_damage


def killed_wal(folder: Path, frames: int) -> Path:
    """A database whose writer was killed with ``frames`` committed frames in its -wal."""
    db = folder / "t.sqlite3"
    pid = os.fork()
    if pid == 0:
        conn = sqlite3.connect(db, isolation_level=None)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA wal_autocheckpoint=0")
        conn.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, data TEXT)")
        for i in range(frames):
            conn.execute("INSERT INTO events VALUES (?, ?)", (i, "x" * 200))
        os.kill(os.getpid(), signal.SIGKILL)
    os.waitpid(pid, 0)
    return db


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--frames", type=int, default=1000)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        db = killed_wal(Path(tmp), args.frames)
        size = Path(f"{db}-wal").stat().st_size
        cpu = []
        for _ in range(args.repeat):
            t = time.process_time()
            assert wal_damage(db) is None
            cpu.append(time.process_time() - t)
    print(f"-wal of {size / 1e6:.1f} MB ({args.frames} commits): check {min(cpu) * 1000:.0f}-{max(cpu) * 1000:.0f} ms CPU "
          f"(best-worst of {args.repeat})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
