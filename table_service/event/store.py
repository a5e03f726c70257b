"""The hub's own event log in SQLite, with the table store's discipline.

Opened as the table's log is (:mod:`table_service.store.sqlite`: WAL journal and
``synchronous=FULL``): when :meth:`HubStore.append` returns, the event is on disk
and survives ``kill -9`` or a power cut; the hub applies an event to its in-memory state only
after that. Starting again replays the log, so the standings after a restart are the standings
before it. The log is append-only: a correction is a new event, never an edit.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from table_service.store import sqlite

SCHEMA = """
CREATE TABLE IF NOT EXISTS hub_events (
    seq   INTEGER PRIMARY KEY,
    t_ms  INTEGER NOT NULL,
    type  TEXT    NOT NULL,
    actor TEXT,
    role  TEXT,
    data  TEXT    NOT NULL
);
"""
SCHEMA_VERSION = 1


class HubStoreError(ValueError):
    """The file is not a hub event log, is damaged, or is of a newer schema (refused, never rewritten)."""


class HubStore:
    """Append-only hub event log (one SQLite file per event).

    :raises HubStoreError: at open, naming the file, when it is not a hub event log, is damaged
        (SQLite's integrity check) or was written by a newer version; nothing is written to it then.
    """

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        if self.path.is_dir():
            raise HubStoreError(f"这是文件夹，不是赛事日志：{self.path} / not a hub event log: {self.path} is a folder")
        if not readonly:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        damage = None if readonly else sqlite.wal_damage(self.path)  # as the table's store does
        if damage:
            raise HubStoreError(self._damaged(damage))
        try:
            self._db = sqlite.connect(self.path, readonly=readonly)
        except sqlite3.Error as exc:
            raise HubStoreError(f"无法打开赛事日志 {self.path}：{exc} / cannot open the hub event log "
                                f"{self.path}: {exc}") from None
        try:
            # Look before writing anything: switching another program's database to WAL would
            # rewrite its header and leave -wal/-shm beside it; re-stamping a newer log's version
            # would let this program misread it, and writing to a damaged file spreads the damage.
            version = self._check()
            if readonly:  # a reader beside a running hub (export): never writes, not even the schema
                return
            sqlite.make_durable(self._db)
            self._db.executescript(SCHEMA)
            if version < SCHEMA_VERSION:
                sqlite.set_user_version(self._db, SCHEMA_VERSION)
        except HubStoreError:
            self._db.close()
            raise
        except sqlite3.DatabaseError as exc:
            self._db.close()
            if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF == sqlite3.SQLITE_CORRUPT:
                # A page too damaged for the integrity check itself to read: a damaged hub log,
                # not another program's file.
                raise HubStoreError(self._damaged(str(exc))) from None
            raise HubStoreError(f"不是赛事日志：{self.path}（{exc}） / not a hub event log: {self.path} ({exc})") from None

    def _damaged(self, what: str) -> str:
        return (f"赛事日志 {self.path} 已损坏（{what}），文件保持原样：请从备份恢复 / the hub event log {self.path} "
                f"is damaged ({what}); it is left as it is: restore it from a backup")

    def _check(self) -> int:
        """The file's schema version, once it is known to be a healthy hub log this program reads.

        :raises HubStoreError: a newer schema, a damaged file, or another program's database."""
        version = sqlite.user_version(self._db)
        # Whose file it is before its version: a table's event log (schema 2) was called "newer than
        # this program's", and the organiser told to upgrade.
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and "hub_events" not in tables:
            names = ", ".join(sorted(tables)[:5]) + (" …" if len(tables) > 5 else "")
            raise HubStoreError(f"不是赛事日志：{self.path} 含其他表 {names}（是比赛桌的事件库或其他程序的数据库？），"
                                f"文件保持原样 / not a hub event "
                                f"log: {self.path} holds the tables {names} (a table's event log, or another "
                                "program's database?); the file is left as it is")
        if version > SCHEMA_VERSION:
            raise HubStoreError(f"赛事日志 {self.path} 版本过新（{version}，本程序为 {SCHEMA_VERSION}）：请升级程序，"
                                f"文件保持原样 / the hub event log {self.path} has schema {version}, newer than "
                                f"this program's {SCHEMA_VERSION}: upgrade the program; the file is left as it is")
        damage = sqlite.integrity_problems(self._db)
        if damage:
            raise HubStoreError(self._damaged(damage))
        return version

    def append(self, etype: str, data: dict[str, Any], *, t_ms: int, actor: str | None = None,
               role: str | None = None) -> dict[str, Any]:
        """Write one event and commit (durable on return); returns it with its ``seq``."""
        body = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        with self._lock:
            cur = self._db.execute("INSERT INTO hub_events (t_ms, type, actor, role, data) VALUES (?, ?, ?, ?, ?)",
                                   (int(t_ms), etype, actor, role, body))
            seq = int(cur.lastrowid or 0)
        return {"seq": seq, "t_ms": int(t_ms), "type": etype, "actor": actor, "role": role, "data": data}

    @contextlib.contextmanager
    def transaction(self) -> Iterator[None]:
        """Several appends committed together (one fsync for a burst of results): nothing of
        the batch is durable, or reported as accepted, before the block ends."""
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")

    def events(self, after: int = 0) -> list[dict[str, Any]]:
        with self._lock:
            rows = self._db.execute("SELECT seq, t_ms, type, actor, role, data FROM hub_events WHERE seq > ? "
                                    "ORDER BY seq", (after,)).fetchall()
        out = []
        for s, t, ty, a, r, d in rows:
            try:
                data = json.loads(d)
            except (TypeError, ValueError, RecursionError):
                data = None
            if not isinstance(data, dict) or not isinstance(ty, str) or not isinstance(t, int):
                # A truncated or hand-edited file: say where, rather than fail somewhere later.
                raise HubStoreError(f"赛事日志 {self.path} 已损坏（第 {s} 条） / the hub event log {self.path} "
                                    f"is damaged at seq {s}")
            out.append({"seq": s, "t_ms": t, "type": ty, "actor": a, "role": r, "data": data})
        return out

    def close(self) -> None:
        with self._lock:
            self._db.close()
