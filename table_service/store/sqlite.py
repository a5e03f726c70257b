"""How the project opens an SQLite log: one place for the table's event store and the hub's.

Writers: autocommit connection (each append is its own transaction unless a caller opens one),
usable from any thread behind the caller's lock, ``journal_mode=WAL`` and ``synchronous=FULL`` —
an append that returned is on disk and survives ``kill -9`` or a power cut. Readers beside a
running (or killed) writer: ``mode=ro``, so they see the last events in the ``-wal``; a cleanly
closed file (no ``-wal``) is opened ``immutable``, so reading leaves no ``-wal``/``-shm`` behind
and works in a read-only folder. The schema's version lives in ``PRAGMA user_version``.
"""

from __future__ import annotations

import sqlite3
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
    return sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)


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
