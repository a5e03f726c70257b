"""Crash safety: a feeder process is SIGKILLed at random moments; after each restart every
acknowledged event is in the log and the state equals a clean replay of the same events."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from table_service.engine.apply import fold
from table_service.engine.self_play import BotTable
from table_service.engine.state import state_to_json
from table_service.store.event_log import EventStore
from table_service.table.runner import TableRunner

FEEDER = Path(__file__).with_name("crash_feeder.py")
ROOT = Path(__file__).resolve().parents[2]
SEED = 7


def _kill_cycle(db: Path, rng: random.Random, acked: set[int], deals: int) -> bool:
    """Start the feeder, let it acknowledge a random number of events, SIGKILL it (unless it
    finished first). Returns True when the feeder completed the stream."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, str(FEEDER), str(db), str(SEED), str(deals)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT, env=env)
    assert proc.stdout is not None
    target = rng.randint(1, 120)
    n = 0
    deadline = time.monotonic() + 60
    finished = False
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("ACK "):
            acked.add(int(line.split()[1]))
            n += 1
            if n >= target:
                # let it run on a little: the kill lands mid-submit, mid-commit or between
                time.sleep(rng.random() * 0.01)
                break
        elif line.startswith("DONE"):
            finished = True
            break
        elif line.startswith("REJECTED"):
            pytest.fail(f"feeder event rejected: {line}")
    proc.send_signal(signal.SIGKILL)
    proc.wait(10)
    proc.stdout.close()
    assert proc.stderr is not None
    err = proc.stderr.read()
    proc.stderr.close()
    assert "Traceback" not in err, err
    return finished


def _check(db: Path, stream: list[dict], acked: set[int]) -> int:
    with EventStore(db) as store:
        logged = store.events()
        assert store.rejected() == []
    seqs = [e["seq"] for e in logged]
    assert seqs == list(range(1, len(seqs) + 1))
    assert acked <= set(seqs), f"acknowledged but lost: {sorted(acked - set(seqs))[:5]}"
    # the log is exactly a prefix of the stream that was fed
    for got, want in zip(logged, stream, strict=False):
        assert (got["type"], got["t_ms"], got["data"]) == (want["type"], want["t_ms"], want["data"])
    clean = state_to_json(fold(stream[: len(logged)]))
    with TableRunner(db) as runner:  # a restart: replays the log
        assert runner.state() == clean
    return len(logged)


def _run(tmp_path: Path, kills: int, seed: int, deals: int) -> None:
    db = tmp_path / "table.sqlite3"
    stream = list(BotTable(SEED).run_deals(deals))
    rng = random.Random(seed)
    acked: set[int] = set()
    killed = 0
    for _ in range(kills):
        finished = _kill_cycle(db, rng, acked, deals)
        _check(db, stream, acked)
        if finished:
            break
        killed += 1
    assert killed == kills, f"the stream ended after {killed} kills; make it longer"
    assert len(acked) > kills


def test_sigkill_default(tmp_path: Path) -> None:
    """10 kills by default."""
    _run(tmp_path, 10, seed=1, deals=6)


@pytest.mark.slow
def test_sigkill_fifty(tmp_path: Path) -> None:
    """50 kills."""
    _run(tmp_path, 50, seed=2, deals=30)
