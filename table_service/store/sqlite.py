"""How the project opens an SQLite log: one place for the table's event store and the hub's.

Writers: autocommit connection (each append is its own transaction unless a caller opens one),
usable from any thread behind the caller's lock, ``journal_mode=WAL`` and ``synchronous=FULL`` —
an append that returned is on disk and survives ``kill -9`` or a power cut. Readers beside a
running (or killed) writer: ``mode=ro``, so they see the last events in the ``-wal``; a cleanly
closed file (no ``-wal``) is opened ``immutable``, so reading leaves no ``-wal``/``-shm`` behind
and works in a read-only folder. The schema's version lives in ``PRAGMA user_version``.
"""

from __future__ import annotations

import os
import sqlite3
import struct
from pathlib import Path


def readonly_uri(path: Path) -> str:
    """The URI a reader opens ``path`` with (see the module doc)."""
    wal = path.with_name(path.name + "-wal")
    return path.resolve().as_uri() + ("?mode=ro" if wal.exists() else "?mode=ro&immutable=1")


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """An autocommit connection to ``path`` shared across threads (the caller holds a lock).

    :raises sqlite3.Error: when SQLite cannot open it (the caller words the error for its file).
    """
    if readonly:
        return sqlite3.connect(readonly_uri(path), uri=True, isolation_level=None, check_same_thread=False)
    _create_private(path)
    return sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)


def _create_private(path: Path) -> None:
    """Create ``path`` empty, readable by its owner only, where it does not exist yet (an empty file
    is a new SQLite database). Why: SQLite creates a file as the umask leaves it, 0644 on most
    systems, so every account on a hub's machine could read the event's log (appeals, corrections,
    who entered what); its ``-wal`` and ``-shm`` are made with the file's own permissions.
    A log that exists keeps the permissions its owner gave it."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except OSError:  # there already, or not creatable: SQLite opens it itself and words any failure
        return
    os.close(fd)


def make_durable(conn: sqlite3.Connection) -> None:
    """WAL journal, ``synchronous=FULL``: committed means on disk. Call only once the file is
    known to be the caller's own log (switching another program's database to WAL rewrites it)."""
    conn.execute("PRAGMA journal_mode=WAL")
    conn.execute("PRAGMA synchronous=FULL")


def user_version(conn: sqlite3.Connection) -> int:
    """The schema version stored in the file (0: none yet)."""
    return int(conn.execute("PRAGMA user_version").fetchone()[0])


def set_user_version(conn: sqlite3.Connection, version: int) -> None:
    conn.execute(f"PRAGMA user_version = {int(version)}")


def integrity_problems(conn: sqlite3.Connection) -> str | None:
    """What SQLite's quick check finds wrong with the file, in one line (None: nothing).

    SQLite lists every problem (a damaged page gives dozens of lines): the count and the first
    are what an operator needs. Both the table's store and the hub's refuse to start on it."""
    rows = [str(r[0]) for r in conn.execute("PRAGMA quick_check(100)").fetchall()]
    if rows == ["ok"]:
        return None
    problems = [ln for row in rows for ln in row.splitlines() if ln.strip() and not ln.startswith("***")]
    first = problems[0][:120] if problems else "?"
    return f"its integrity check found {len(problems)}{'+' if len(problems) >= 100 else ''} problem(s), first: {first}"


def wal_damage(db_path: Path) -> str | None:
    """Whether the ``-wal`` beside ``db_path`` holds committed transactions SQLite would silently skip.

    Why: SQLite reads a write-ahead log up to its first frame whose checksum fails and ignores the
    rest. After a kill or a power cut that is right: the damage lies in the last transaction, never
    synced, so never acknowledged (``synchronous=FULL`` syncs each commit before it returns; a power
    cut may tear any frame of that last transaction, its commit frame written or not). But one
    damaged byte in an earlier transaction (a failing SD card) would drop every later committed
    event without a word, and the next append would reuse their numbers. Each frame's checksum is
    seeded with the one stored in the frame before it, so the frames after a bad one can still be
    checked: a good commit frame of a *later* transaction than the damaged one is damage, and the
    store refuses to open. Returns a one-line description, or None (no log, or nothing lost).
    """
    wal = Path(f"{db_path}-wal")
    try:
        data = wal.read_bytes()
    except OSError:
        return None
    if len(data) < _WAL_HEADER:
        return None
    magic, _version, page, _ckpt, salt1, salt2, c1, c2 = struct.unpack(">8I", data[:_WAL_HEADER])
    if magic not in (0x377F0682, 0x377F0683) or page < 512 or page & (page - 1):
        return None  # not a write-ahead log SQLite would read either
    order = ">" if magic & 1 else "<"
    size = _WAL_FRAME_HEADER + page
    # A header that fails its own checksum makes SQLite ignore the whole log (before frame 1).
    bad: int | None = None if _wal_checksum(order, data[:24], 0, 0) == (c1, c2) else -1
    ended = bad is not None and bad < 0  # the damaged frame's transaction has ended (a commit frame seen)
    for k in range((len(data) - _WAL_HEADER) // size):
        off = _WAL_HEADER + k * size
        _pgno, commit, s1, s2, f1, f2 = struct.unpack(">6I", data[off:off + _WAL_FRAME_HEADER])
        good = (s1, s2) == (salt1, salt2) and _wal_checksum(
            order, data[off:off + 8] + data[off + _WAL_FRAME_HEADER:off + size], c1, c2) == (f1, f2)
        if bad is None:
            if not good:
                bad, ended = k, bool(commit)
        elif not ended:
            ended = bool(commit)  # this frame ends the damaged frame's own transaction
        elif good and commit:
            where = "its header" if bad < 0 else f"frame {bad + 1}"
            return f"its -wal is damaged at {where}, and a later committed transaction (frame {k + 1}) would be lost"
        c1, c2 = f1, f2
    return None


_WAL_HEADER = 32
_WAL_FRAME_HEADER = 24


def _wal_checksum(order: str, data: bytes, s0: int, s1: int) -> tuple[int, int]:
    """SQLite's WAL checksum of ``data`` seeded with (``s0``, ``s1``) (sqlite.org/fileformat2.html)."""
    words = struct.unpack(f"{order}{len(data) // 4}I", data)
    for i in range(0, len(words), 2):
        s0 = (s0 + words[i] + s1) & 0xFFFFFFFF
        s1 = (s1 + words[i + 1] + s0) & 0xFFFFFFFF
    return s0, s1
