"""The SQLite event store: durability settings, schema migrations, conflicts, corrupt files."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from table_service.store.event_log import (
    SCHEMA_VERSION,
    EventStore,
    SeqConflictError,
    StoreCorruptError,
    StoreError,
)


def _ev(seq: int | None = None, t: int = 1) -> dict:
    ev = {"t_ms": t, "type": "passed", "source": "screen", "role": None, "data": {"seat": "E"}}
    if seq is not None:
        ev["seq"] = seq
    return ev


def test_wal_full_sync_and_schema_version(tmp_path: Path) -> None:
    with EventStore(tmp_path / "t.sqlite3") as store:
        assert store._conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._conn.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        assert store.schema_version == SCHEMA_VERSION == 3


def test_append_read_and_rejected(tmp_path: Path) -> None:
    with EventStore(tmp_path / "t.sqlite3") as store:
        assert store.append(_ev()) == 1
        assert store.append(_ev(), status="rejected", error="座位无效 / unknown seat") == 2
        assert store.append(_ev(t=5)) == 3
        assert [e["seq"] for e in store.events()] == [1, 3]
        assert [e["seq"] for e in store.events(after=1)] == [3]
        (rej,) = store.rejected()
        assert rej["seq"] == 2 and rej["rejected"] == "座位无效 / unknown seat"
        assert store.events()[0] == {"seq": 1, "t_ms": 1, "type": "passed", "source": "screen", "role": None, "data": {"seat": "E"}}


def test_conflicting_append_raises_and_keeps_the_original(tmp_path: Path) -> None:
    with EventStore(tmp_path / "t.sqlite3") as store:
        store.append(_ev(seq=1))
        with pytest.raises(SeqConflictError, match="seq 1"):
            store.append({**_ev(seq=1), "data": {"seat": "N"}})
        assert store.events()[0]["data"] == {"seat": "E"}
        assert store.append(_ev()) == 2


def test_migrates_a_version_1_database(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE events (seq INTEGER PRIMARY KEY, t_ms INTEGER NOT NULL, type TEXT NOT NULL, source TEXT NOT NULL,
            role TEXT, data TEXT NOT NULL, status TEXT NOT NULL CHECK (status IN ('accepted', 'rejected')), error TEXT);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO events VALUES (1, 7, 'passed', 'screen', NULL, '{"seat": "W"}', 'accepted', NULL);
        PRAGMA user_version = 1;
        """
    )
    conn.close()
    with EventStore(path) as store:
        assert store.schema_version == 3
        assert store.events()[0]["data"] == {"seat": "W"}
        names = {r[0] for r in store._conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        assert "events_accepted" in names and "events_action" in names
        assert store.actions(10) == []  # a log from before action ids: none to remember


def _refused(path: Path, needle: str) -> None:
    before = path.read_bytes()
    with pytest.raises(StoreCorruptError) as info:
        EventStore(path)
    assert str(path) in str(info.value) and needle in str(info.value)
    assert path.read_bytes() == before  # never overwritten
    assert not Path(str(path) + "-wal").exists() or Path(str(path) + "-wal").stat().st_size == 0


def test_garbage_file_is_refused_and_left_alone(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    path.write_bytes(b"this is not a database at all\n" * 100)
    _refused(path, "not an SQLite database")


def test_truncated_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    with EventStore(path) as store:
        for _ in range(300):
            store.append(_ev())
    data = path.read_bytes()
    for suffix in ("-wal", "-shm"):
        Path(str(path) + suffix).unlink(missing_ok=True)
    path.write_bytes(data[:100] + b"\xff" * 4000 + data[4100:])
    _refused(path, "")


def test_other_sqlite_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE photos (id INTEGER)")
    conn.commit()
    conn.close()
    _refused(path, "not an event store")


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA user_version = 99")
    conn.commit()
    conn.close()
    _refused(path, "newer")


def test_undecodable_row_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    with EventStore(path) as store:
        store.append(_ev())
        store._conn.execute("UPDATE events SET data = '{broken' WHERE seq = 1")
    with pytest.raises(StoreCorruptError, match="event 1 does not decode"):
        EventStore(path)


def test_read_only_open_never_writes(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite3"
    conn = sqlite3.connect(path)  # a version-1 file in rollback-journal mode
    conn.executescript(
        """
        CREATE TABLE events (seq INTEGER PRIMARY KEY, t_ms INTEGER NOT NULL, type TEXT NOT NULL, source TEXT NOT NULL,
            role TEXT, data TEXT NOT NULL, status TEXT NOT NULL, error TEXT);
        CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
        INSERT INTO events VALUES (1, 7, 'passed', 'screen', NULL, '{"seat": "W"}', 'accepted', NULL);
        PRAGMA user_version = 1;
        """
    )
    conn.close()
    before = path.read_bytes()
    with EventStore(path, readonly=True) as store:
        assert [e["seq"] for e in store.events()] == [1]
        with pytest.raises(StoreError, match="read-only"):
            store.append(_ev())
    assert path.read_bytes() == before  # not migrated, journal mode unchanged
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.sqlite3"]


def test_half_a_surrogate_pair_is_stored_and_read_back_as_it_came(tmp_path: Path) -> None:
    """JSON may escape half a UTF-16 pair, which no UTF-8 text holds: the store keeps it escaped,
    so an event carrying one is never lost (before: UnicodeEncodeError, and the runner failed)."""
    ev = {"t_ms": 1, "type": "round_ended", "source": "panel", "role": "referee", "data": {"reason": "x\ud800y"}}
    with EventStore(tmp_path / "t.sqlite3") as store:
        seq = store.append(ev)
        store.append(ev, status="rejected", error="bad \udfff")
        (back,) = store.events()
        assert back["seq"] == seq and back["data"] == {"reason": "x\ud800y"}
        (rej,) = store.rejected()
        assert "dfff" in rej["rejected"]


def _killed_writer(folder: Path, events: int = 60) -> Path:
    """A store whose writer was killed with -9 after ``events`` appends: its last events are in the -wal."""
    import os
    import subprocess
    import sys

    db = folder / "t.sqlite3"
    code = (f"import os, signal\nfrom table_service.store.event_log import EventStore\ns = EventStore({str(db)!r})\n"
            f"for i in range({events}):\n"
            "    s.append({'t_ms': i, 'type': 'device_status_changed', 'source': 'system', "
            "'data': {'device': 'camera', 'status': 'online', 'detail': 'n%d' % i}})\n"
            "os.kill(os.getpid(), signal.SIGKILL)\n")
    repo = Path(__file__).resolve().parents[2]
    subprocess.run([sys.executable, "-c", code], cwd=repo, env=dict(os.environ, PYTHONPATH=str(repo)), check=False)
    assert Path(f"{db}-wal").stat().st_size > 0
    return db


def _flip(path: Path, offset: int) -> None:
    raw = bytearray(path.read_bytes())
    raw[offset] ^= 0xFF
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize(("where", "offset"), [("frame 11", 32 + 10 * (24 + 4096) + 24 + 100), ("its header", 12)])
def test_a_damaged_wal_that_would_drop_committed_events_is_refused(tmp_path: Path, where: str, offset: int) -> None:
    """One damaged byte in an early frame (or in the -wal's header) of a killed table's log: SQLite
    would silently stop reading there, dropping every later committed event, and the next append
    would reuse their numbers. The store refuses to open and leaves the files as they are."""
    db = _killed_writer(tmp_path)
    wal = Path(f"{db}-wal")
    _flip(wal, offset)
    before = wal.read_bytes()
    with pytest.raises(StoreCorruptError, match=f"damaged at {where}.*would be lost"):
        EventStore(db)
    assert wal.read_bytes() == before


def test_a_killed_writers_log_with_a_torn_last_frame_opens_whole(tmp_path: Path) -> None:
    """What a kill -9 really leaves: every committed frame, and at most a torn frame after them."""
    db = _killed_writer(tmp_path)
    wal = Path(f"{db}-wal")
    with wal.open("ab") as f:
        f.write(b"\x00" * 1000)  # a frame begun and never finished
    with EventStore(db) as store:
        assert len(store.events()) == 60


def test_a_power_cut_tearing_the_last_transaction_is_not_damage(tmp_path: Path) -> None:
    """A power cut may tear any frame of the last transaction, never synced so never acknowledged,
    while its commit frame reached the card: SQLite drops that transaction, and so does the store,
    which opens with every event before it (refusing here would stop a table after every power cut)."""
    import struct

    db = _killed_writer(tmp_path)
    wal = Path(f"{db}-wal")
    raw = wal.read_bytes()
    page = struct.unpack(">I", raw[8:12])[0]
    size = 24 + page
    commits = [k for k in range((len(raw) - 32) // size)
               if struct.unpack(">I", raw[32 + k * size + 4:32 + k * size + 8])[0]]
    first_of_last = commits[-2] + 1  # the last transaction's first frame
    _flip(wal, 32 + first_of_last * size + 24 + 100)
    with EventStore(db) as store:
        assert len(store.events()) == 59  # the torn last append is gone, as SQLite drops it


def test_a_full_disk_is_said_as_such_and_leaves_no_file(tmp_path, monkeypatch):
    """"database or disk is full" was called a damaged event store, and the new file stayed behind."""
    from table_service.store import event_log
    from table_service.store import sqlite as store_sqlite

    connect = store_sqlite.connect

    def full(path, readonly=False):  # SQLite's own SQLITE_FULL: the file may grow by no page
        conn = connect(path, readonly=readonly)
        conn.execute("PRAGMA max_page_count = 1")
        return conn

    monkeypatch.setattr(store_sqlite, "connect", full)
    db = tmp_path / "T.sqlite3"
    with pytest.raises(event_log.StoreFullError, match="磁盘已满.* / disk full") as caught:
        event_log.EventStore(db)
    assert "damaged" not in str(caught.value)
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_new_log_and_its_wal_are_readable_by_their_owner_only(tmp_path: Path) -> None:
    """The table's log and the hub's are made 0600 whatever the umask (SQLite alone made them 0644:
    appeals, corrections and who entered what were readable by every account on the machine); a
    log that exists keeps the permissions its owner gave it."""
    import os

    from table_service.event.store import HubStore

    old = os.umask(0o022)
    try:
        with EventStore(tmp_path / "t.sqlite3") as store:
            store.append(_ev())
            assert {p.name: p.stat().st_mode & 0o777 for p in tmp_path.iterdir()} == {
                "t.sqlite3": 0o600, "t.sqlite3-wal": 0o600, "t.sqlite3-shm": 0o600}
        hub = HubStore(tmp_path / "hub" / "hub-events.sqlite3")
        try:
            assert (tmp_path / "hub" / "hub-events.sqlite3").stat().st_mode & 0o777 == 0o600
        finally:
            hub.close()
        kept = tmp_path / "kept.sqlite3"
        sqlite3.connect(kept).close()
        kept.chmod(0o640)
        with EventStore(kept) as store:
            store.append(_ev())
        assert kept.stat().st_mode & 0o777 == 0o640
    finally:
        os.umask(old)
