"""The small files beside the log (clock, deck, broker mark, session key, hub deck) are written whole
or not at all: a failed write leaves the old file and no temporary behind."""

from __future__ import annotations

import os
import signal
import stat
from pathlib import Path

import pytest

from table_service.store.durable import write_durably
from table_service.table.clock import TableClock
from table_service.web.secret_key import SECRET_KEY_FILE, kept_secret_key


def test_a_write_that_fails_before_the_rename_leaves_the_old_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "clock.json"
    write_durably(target, b"old")

    def no_sync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", no_sync)
    with pytest.raises(OSError):
        write_durably(target, b"new")
    assert target.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clock.json"]  # no temporary left


def test_the_data_is_synced_before_the_rename(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The order a power cut needs: the new bytes are on the card (fsync) while the old name still
    holds the old file, then the rename, then the folder."""
    target = tmp_path / "deck.npz"
    target.write_bytes(b"old")
    seen: list[bytes] = []
    real = os.fsync

    def spy(fd: int) -> None:
        seen.append(target.read_bytes())
        real(fd)

    monkeypatch.setattr(os, "fsync", spy)
    write_durably(target, b"new")
    assert seen[0] == b"old" and seen[-1] == b"new" and len(seen) == 2


def test_the_table_clock_and_the_session_key_are_written_through_it(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real(fd))[1])
    TableClock(2.0, tmp_path / "clock.json")
    assert synced, "the clock's origin was renamed into place unsynced"
    before = TableClock(2.0, tmp_path / "clock.json").now_ms()
    TableClock(3.0, tmp_path / "clock.json")  # another speed: continues from that time line, written again
    assert abs(TableClock(3.0, tmp_path / "clock.json").now_ms() - before) < 5_000
    assert sorted(p.name for p in tmp_path.iterdir()) == ["clock.json"]
    synced.clear()
    key = kept_secret_key(tmp_path)
    assert key and synced
    assert stat.S_IMODE((tmp_path / SECRET_KEY_FILE).stat().st_mode) == 0o600
    assert kept_secret_key(tmp_path) == key


def test_the_temporaries_a_killed_writer_left_are_deleted_at_the_next_write(tmp_path: Path) -> None:
    """The durability audit of 2026-12-06 (finding 5): each kill mid-write left ``.NAME.xxxx.tmp`` (the hub's
    deck copies: megabytes each) and nothing ever deleted them. The next write of the same file deletes
    those whose writer is gone, and nothing else: not another file's, not one of a writer still running,
    not a file that only looks alike."""
    import subprocess
    import sys
    import time

    target = tmp_path / "deck.npz"
    script = f"""
import os, resource, signal, sys
sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
from table_service.store.durable import write_durably
signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it: the kernel then kills, as a kill -9 would
resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))
write_durably({str(target)!r}, b"x" * 1000)
"""
    for _ in range(3):
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, timeout=60)
        assert done.returncode == -signal.SIGXFSZ, done.stderr
    left = [p.name for p in tmp_path.iterdir()]  # each killed write deleted the one killed before it
    assert len(left) == 1 and left[0].startswith(".deck.npz.") and left[0].endswith(".tmp"), left
    running = tmp_path / f".deck.npz.{os.getpid()}.abcd1234.tmp"  # a writer of this process, mid-write
    others = [tmp_path / ".clock.json.1.abcd1234.tmp", tmp_path / ".deck.npz.notmine.tmp", running]
    for p in others:
        p.write_bytes(b"")
    old_format = tmp_path / ".deck.npz.k2j4h5g6.tmp"  # the name before the pid was in it, an hour old
    old_format.write_bytes(b"")
    os.utime(old_format, (time.time() - 3600, time.time() - 3600))
    write_durably(target, b"new")
    assert target.read_bytes() == b"new"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["deck.npz", *(p.name for p in others)])
