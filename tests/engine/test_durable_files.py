"""The small files beside the log (clock, deck, broker mark, session key, hub deck) are written whole
or not at all: a failed write leaves the old file and no temporary behind."""

from __future__ import annotations

import os
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
