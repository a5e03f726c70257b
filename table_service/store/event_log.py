"""The table's event log in SQLite (standard library): append-only, committed before use.

One database per table. WAL journal with ``synchronous=FULL``: when :meth:`EventStore.append`
returns, the event survives a power cut or ``kill -9``. The schema carries a version
(``PRAGMA user_version``) with forward migrations. Every submitted event is kept — accepted or
rejected with its error — and ``seq`` is the primary key, so a conflicting append raises
:class:`SeqConflictError` and never overwrites.

A file that is not a healthy SQLite database of this schema is refused with
:class:`StoreCorruptError`, naming the file; the store never rewrites or deletes it.

Each log has an identity, :attr:`EventStore.log_id` (random, drawn when a writer first opens the file,
kept in its ``meta`` table): ``seq`` numbers restart in another log (another day, a replaced Pi), so a
reader that remembers a seq — the broadcast overlay does — must know it is still the same log.
"""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from table_service.engine.errors import EngineError
from table_service.store import sqlite

SQLITE_HEADER = b"SQLite format 3\x00"

#: Forward migrations: MIGRATIONS[i] takes the schema from version i to i + 1.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE events (
        seq     INTEGER PRIMARY KEY,
        t_ms    INTEGER NOT NULL,
        type    TEXT    NOT NULL,
        source  TEXT    NOT NULL,
        role    TEXT,
        data    TEXT    NOT NULL,
        status  TEXT    NOT NULL CHECK (status IN ('accepted', 'rejected')),
        error   TEXT
    );
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    """,
    # v2: reading the accepted log is the start-up path; index it.
    "CREATE INDEX events_accepted ON events (status, seq);",
    # v3: the caller's id for one action (a panel tap), kept with the event: a retry with it after a
    # restart gets the verdict the first submission had, never a second action (runner.TableRunner.submit).
    "ALTER TABLE events ADD COLUMN action TEXT; CREATE INDEX events_action ON events (seq) WHERE action IS NOT NULL;",
)
SCHEMA_VERSION = len(MIGRATIONS)


class StoreError(EngineError):
    """Base of the event store's errors."""


class StoreCorruptError(StoreError):
    """The database file is damaged or not one of ours; it is left untouched."""


class StoreReadOnlyError(StoreError):
    """The database, or the folder it lives in, cannot be written: the table could record nothing."""


class SeqConflictError(StoreError):
    """An append with a ``seq`` that is already in the log."""


class StoreFullError(StoreReadOnlyError):
    """The disk holding the database is full: the table could record nothing more."""


def _is_full_error(exc: BaseException) -> bool:
    return "database or disk is full" in str(exc).lower() or isinstance(exc, sqlite3.OperationalError) \
        and getattr(exc, "sqlite_errorcode", None) == 13  # SQLITE_FULL


def _is_readonly_error(exc: BaseException) -> bool:
    text = str(exc).lower()
    return "readonly" in text or "read-only" in text or "unable to open database file" in text


def _check_header(path: Path) -> None:
    if not path.exists() or path.stat().st_size == 0:
        return
    with path.open("rb") as fh:
        head = fh.read(16)
    if head != SQLITE_HEADER:
        raise StoreCorruptError(
            f"事件库 {path} 损坏或不是数据库，拒绝启动；文件原样保留，请从备份恢复或移走 / event store {path} is not "
            "an SQLite database (damaged?); it has been left as it is — restore it from a backup or move it away"
        )


def _folder_error(path: Path) -> StoreError:
    return StoreError(f"{path} 是文件夹，不是事件库 / {path} is a folder, not an event store")


def _vet(conn: sqlite3.Connection, path: Path) -> int:
    """The file's schema version, once it is known to be a healthy event store this program can
    read: not of a newer schema, SQLite's quick check clean, and no other program's database.
    Every open makes these checks, and so does :func:`check_store`.

    :raises StoreCorruptError: naming the file and what is wrong.
    """
    version = sqlite.user_version(conn)
    if version > SCHEMA_VERSION:
        raise StoreCorruptError(
            f"事件库 {path} 版本过新（{version}，本程序为 {SCHEMA_VERSION}），请升级程序 / "
            f"event store {path} has schema {version}, newer than this program's "
            f"{SCHEMA_VERSION}; upgrade the program"
        )
    damage = sqlite.integrity_problems(conn)
    if damage:
        raise StoreCorruptError(f"事件库 {path} 损坏（{damage}），已原样保留 / "
                                f"event store {path} is damaged: {damage}; it has been left as it is")
    tables = [t[0] for t in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()]
    # Another program's database: none stamped (version 0), or stamped but without the events
    # table (a hub's event log, which `replay` and `run` called damaged).
    if (version == 0 and tables) or (version > 0 and "events" not in tables):
        raise StoreCorruptError(
            f"{path} 是 SQLite 数据库但不是事件库（表：{', '.join(tables) or 'none'}），已原样保留 / "
            f"{path} is an SQLite database but not an event store "
            f"(tables: {', '.join(tables) or 'none'}); left as it is"
        )
    return version


def _decode_all(conn: sqlite3.Connection, path: Path) -> None:
    """Decode every stored row once: a row that does not decode is damage, found at start-up
    and not in the middle of a match."""
    for row in conn.execute("SELECT seq, data FROM events"):
        try:
            json.loads(row[1])
        except (TypeError, ValueError):
            raise StoreCorruptError(f"事件库 {path} 损坏：事件 {row[0]} 无法解码 / "
                                    f"event store {path}: event {row[0]} does not decode") from None


def check_store(path: str | Path) -> None:
    """Refuse what the table's writer (:class:`EventStore`) refuses when it opens ``path``, without
    writing a byte or creating a file: ``config check`` says it, and ``run`` says it before it
    creates anything (it used to make the data folder, the clock and the session key, then stop).

    A file that is not there, or empty, is a new log: whether its folder can be written is the
    caller's check (the config's). Every other refusal is the writer's own: a folder, a file or
    folder it may not write, not SQLite, a damaged ``-wal``, a newer schema, a damaged database,
    another program's, a row that does not decode. Read as ``replay`` reads (a file without a
    ``-wal`` immutable, so nothing is written beside it).

    :raises StoreError: the writer's refusal, naming the file.
    """
    p = Path(path)
    if p.is_dir():
        raise _folder_error(p)
    if not p.exists():
        return
    if not (os.access(p.parent, os.W_OK | os.X_OK) and os.access(p, os.W_OK)):
        raise _readonly_error(p)
    _check_header(p)
    if p.stat().st_size == 0:
        return
    damage = sqlite.wal_damage(p)
    if damage:
        raise StoreCorruptError(f"事件库 {p} 损坏（{damage}），已原样保留 / "
                                f"event store {p} is damaged: {damage}; it has been left as it is")
    try:
        conn = sqlite.connect(p, readonly=True)
    except sqlite3.Error as exc:
        raise StoreCorruptError(f"无法打开事件库 {p}（{exc}） / cannot open event store {p}: {exc}") from None
    try:
        if _vet(conn, p):
            _decode_all(conn, p)
    except sqlite3.DatabaseError as exc:
        raise StoreCorruptError(
            f"事件库 {p} 损坏（{exc}），拒绝启动，已原样保留 / "
            f"event store {p} is damaged ({exc}); it has been left as it is") from None
    finally:
        conn.close()


def _readonly_error(path: Path) -> StoreReadOnlyError:
    return StoreReadOnlyError(
        f"事件库 {path} 或其文件夹只读，无法记录：请改为可写（或把文件夹复制到别处）后重新启动 / "
        f"the event store {path} or its folder is read-only, so the "
        "table could record nothing; make it writable (or copy the folder elsewhere) and start again")


class EventStore:
    """Append-only event log of one table.

    Thread-safe: one lock guards the connection (the engine thread appends, web threads read).

    :raises StoreCorruptError: at open, when the file is damaged, not SQLite, or of a newer schema.
    """

    def __init__(self, path: str | Path, *, readonly: bool = False) -> None:
        self.path = Path(path)
        self.readonly = readonly
        #: This log's identity (see the module doc); None only for an old log opened read-only.
        self.log_id: str | None = None
        self._lock = threading.Lock()
        if self.path.is_dir():
            raise _folder_error(self.path)
        if readonly and not self.path.exists():
            raise StoreError(f"事件库不存在：{self.path} / no such event store: {self.path}")
        if readonly and self.path.with_name(self.path.name + "-wal").exists() \
                and not os.access(self.path.parent, os.W_OK | os.X_OK):
            raise StoreReadOnlyError(
                f"事件库 {self.path} 有未合并的 -wal 且文件夹只读：最后的事件只能从文件夹的可写副本读出 / "
                f"{self.path} has a -wal beside it (the table was killed) in "
                "a read-only folder: its last events can only be read from a writable copy of the folder")
        if not readonly:
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreReadOnlyError(f"无法创建数据文件夹 {self.path.parent}（{exc.strerror or exc}） / "
                                         f"cannot create the data folder {self.path.parent}: "
                                         f"{exc.strerror or exc}") from None
            self._check_writable()
        _check_header(self.path)
        # Files this open makes, removed again if it fails (a full disk left a file of 0 bytes).
        made = [] if readonly else [p for p in (self.path, *(self.path.with_name(self.path.name + x)
                                                               for x in ("-wal", "-shm", "-journal")))
                                    if not p.exists()]
        # The writer that would append after the skipped events checks (replay and export read
        # what SQLite reads, and a writer running beside them may restart its -wal meanwhile).
        damage = None if readonly else sqlite.wal_damage(self.path)
        if damage:
            raise StoreCorruptError(f"事件库 {self.path} 损坏（{damage}），已原样保留 / "
                                    f"event store {self.path} is damaged: {damage}; it has been left as it is")
        try:
            self._conn = sqlite.connect(self.path, readonly=readonly)
        except sqlite3.Error as exc:
            raise StoreCorruptError(f"无法打开事件库 {self.path}（{exc}） / "
                                    f"cannot open event store {self.path}: {exc}") from None
        try:
            self._open()
            if not readonly:
                # Prove that a write can be made now: a store that opens but cannot write (a read-only
                # folder with a -wal left by a kill) would otherwise answer every action with an error.
                self._conn.execute("BEGIN IMMEDIATE")
                self._conn.execute("ROLLBACK")
        except sqlite3.DatabaseError as exc:
            self._conn.close()
            if _is_full_error(exc):
                for p in made:
                    with contextlib.suppress(OSError):
                        p.unlink()
                raise StoreFullError(f"磁盘已满，事件库 {self.path} 无法记录：请腾出空间后重新启动 / "
                                     f"disk full: the event store {self.path} could record "
                                     "nothing; free space on that disk and start again") from None
            if _is_readonly_error(exc):
                raise self._readonly_error() from None
            raise StoreCorruptError(
                f"事件库 {self.path} 损坏（{exc}），拒绝启动，已原样保留 / "
                f"event store {self.path} is damaged ({exc}); it has been left as it is"
            ) from None
        except StoreError:
            self._conn.close()
            raise

    def _readonly_error(self) -> StoreReadOnlyError:
        return _readonly_error(self.path)

    def _check_writable(self) -> None:
        """Refuse before opening when the file or its folder cannot be written (SQLite needs to
        create ``-wal``/``-shm`` beside the file)."""
        folder_ok = os.access(self.path.parent, os.W_OK | os.X_OK)
        file_ok = not self.path.exists() or os.access(self.path, os.W_OK)
        if not (folder_ok and file_ok):
            raise self._readonly_error()

    def _open(self) -> None:
        conn = self._conn
        version = _vet(conn, self.path)
        if self.readonly:
            # Reading (replay, export) never writes: no journal change, no migration. Every schema
            # version so far keeps the columns reading selects (v3 only added ``action``, which only the
            # writer's runner reads), so an old file reads as is.
            if version == 0:
                raise StoreCorruptError(f"{self.path} 不是事件库（空数据库） / "
                                        f"{self.path} holds no event store (empty database)")
            self._decode_all()
            self.log_id = self._read_log_id()
            return
        sqlite.make_durable(conn)
        for target in range(version + 1, SCHEMA_VERSION + 1):
            conn.execute("BEGIN IMMEDIATE")
            try:
                for stmt in (s.strip() for s in MIGRATIONS[target - 1].split(";")):
                    if stmt:
                        conn.execute(stmt)
                sqlite.set_user_version(conn, target)
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        self._decode_all()
        if self._read_log_id() is None:
            # 16 random decimal digits: no letters, so it never reads as a card ("7d") in a public text
            conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('log_id', ?)",
                         (f"{secrets.randbelow(10**16):016d}",))
        self.log_id = self._read_log_id()

    def _read_log_id(self) -> str | None:
        """The log's identity from ``meta`` (None: a log no writer of this release has opened yet)."""
        row = self._conn.execute("SELECT value FROM meta WHERE key = 'log_id'").fetchone()
        return str(row[0]) if row else None

    def _decode_all(self) -> None:
        _decode_all(self._conn, self.path)

    # ------------------------------------------------------------------ writing

    def append(self, event: dict[str, Any], *, status: str = "accepted", error: str | None = None,
               action: str | None = None) -> int:
        """Append ``event`` (its ``seq`` if given, else the next one) and commit; returns the seq.

        ``action``: the submitter's id for this one action (kept beside the event, not in it: see
        :meth:`actions`).

        :raises SeqConflictError: when ``event["seq"]`` is already in the log.
        """
        if self.readonly:
            raise StoreError(f"事件库 {self.path} 以只读方式打开 / event store {self.path} is open read-only")
        if status not in ("accepted", "rejected"):
            raise ValueError(f"status must be accepted or rejected, got {status!r}")
        data = json.dumps(event.get("data", {}), ensure_ascii=False, sort_keys=True, default=str)
        if not is_utf8_text(data):
            # Half a UTF-16 pair ("\ud800", which JSON may escape) is no text SQLite can hold; escaped,
            # the record still reads back as it came, and nothing accepted is lost.
            data = json.dumps(event.get("data", {}), ensure_ascii=True, sort_keys=True, default=str)
        error = None if error is None else _text(error)
        with self._lock:
            conn = self._conn
            conn.execute("BEGIN IMMEDIATE")
            try:
                seq = event.get("seq")
                if seq is None:
                    seq = conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM events").fetchone()[0]
                conn.execute(
                    "INSERT INTO events (seq, t_ms, type, source, role, data, status, error, action) "
                    "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (seq, int(event.get("t_ms") or 0), _text(str(event.get("type"))), _text(str(event.get("source"))),
                     None if event.get("role") is None else _text(str(event.get("role"))), data, status, error,
                     None if action is None else _text(action)),
                )
                conn.execute("COMMIT")
            except sqlite3.IntegrityError:
                conn.execute("ROLLBACK")
                raise SeqConflictError(f"序号冲突：{self.path} 中已有序号 {event.get('seq')} / "
                                       f"seq {event.get('seq')} is already in {self.path}") from None
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        return int(seq)

    def next_seq(self) -> int:
        """The seq the next append without one will get."""
        with self._lock:
            return int(self._conn.execute("SELECT COALESCE(MAX(seq), 0) + 1 FROM events").fetchone()[0])

    # ------------------------------------------------------------------ reading

    @staticmethod
    def _row(row: tuple[Any, ...]) -> dict[str, Any]:
        seq, t_ms, etype, source, role, data, status, error = row
        event = {"seq": seq, "t_ms": t_ms, "type": etype, "source": source, "role": role, "data": json.loads(data)}
        if status == "rejected":
            event["rejected"] = error
        return event

    def events(self, after: int = 0, *, include_rejected: bool = False) -> list[dict[str, Any]]:
        """Accepted events with ``seq > after`` in order (rejected ones too, marked, if asked)."""
        sql = "SELECT seq, t_ms, type, source, role, data, status, error FROM events WHERE seq > ?"
        if not include_rejected:
            sql += " AND status = 'accepted'"
        with self._lock:
            rows = self._conn.execute(sql + " ORDER BY seq", (after,)).fetchall()
        return [self._row(r) for r in rows]

    def actions(self, limit: int) -> list[tuple[str, dict[str, Any]]]:
        """The last ``limit`` events logged with an action id, oldest first: ``(action, event)``, the event
        as :meth:`events` gives it (``rejected`` set for a refused one).

        Why: a panel that got no answer (the service was killed as it answered) retries its action with
        the same id after the restart; the runner seeds its memory of ids from here."""
        sql = ("SELECT seq, t_ms, type, source, role, data, status, error, action FROM events "
               "WHERE action IS NOT NULL ORDER BY seq DESC LIMIT ?")
        with self._lock:
            rows = self._conn.execute(sql, (int(limit),)).fetchall()
        return [(row[-1], self._row(row[:-1])) for row in reversed(rows)]

    def rejected(self) -> list[dict[str, Any]]:
        """Rejected events with their ``rejected`` error message."""
        return [e for e in self.events(include_rejected=True) if "rejected" in e]

    def __iter__(self) -> Iterator[dict[str, Any]]:
        return iter(self.events())

    @property
    def schema_version(self) -> int:
        """The database's schema version."""
        with self._lock:
            return sqlite.user_version(self._conn)

    # ------------------------------------------------------------------ lifecycle

    def close(self) -> None:
        """Close the connection (idempotent)."""
        with self._lock, contextlib.suppress(sqlite3.Error):
            self._conn.close()

    def __enter__(self) -> EventStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"EventStore({str(self.path)!r})"


def is_utf8_text(text: str) -> bool:
    """Whether ``text`` is text UTF-8 (and so SQLite) can hold: no half of a UTF-16 surrogate pair."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _text(text: str) -> str:
    """``text`` as SQLite can hold it: a lone UTF-16 surrogate written as its escape."""
    return text if is_utf8_text(text) else text.encode("utf-8", "backslashreplace").decode("utf-8")
