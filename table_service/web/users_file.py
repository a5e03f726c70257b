"""The users database as a file: whether a file can be the panel's users database, asked without
writing it, and the words that refuse one that cannot.

Apart from :mod:`table_service.web.users` because it needs neither Flask nor werkzeug (the password
hashes' module, whose package import brings its HTTP server: a tenth of a second here, about half
a second on a Pi): ``config check`` and ``run`` ask :func:`check_database` before they start
(:mod:`table_service.table.preflight`), and ``config check`` serves nothing and logs no one in.
:func:`table_service.web.users.connect` refuses the same files with the same words, as
:class:`~table_service.web.users.UserError`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

#: Tables a users database may hold (``feed_releases``: left by an older version, never read).
#: A file with any other table is someone else's database — an event log, say — and is refused
#: rather than given a ``users`` table.
OWN_TABLES = frozenset({"users", "sessions", "feed_releases", "account_set"})


class UsersFileError(ValueError):
    """The file named as the users database cannot be one: a folder, not SQLite, damaged, or
    another program's database."""


def check_database(path: str | Path) -> None:
    """Refuse what :func:`table_service.web.users.connect` refuses in the file at ``path``, without
    writing or creating anything: ``config check`` says it, and ``run`` says it before it creates its
    log (it used to start, make the log, then stop at the panel's first open of this file).

    A missing or empty file is a new database (whether its folder can be written is the config's
    check, as is the file's own write permission).

    :raises UsersFileError: a folder, not SQLite, damaged, or another program's database.
    """
    p = Path(path)
    if p.is_dir():
        raise UsersFileError(folder_problem(p))
    if not p.exists() or p.stat().st_size == 0:
        return
    try:  # mode=ro: read beside a panel that has it open, and write nothing (not even a journal)
        conn = sqlite3.connect(f"{p.resolve().as_uri()}?mode=ro", uri=True, timeout=5.0)
    except sqlite3.Error as exc:
        raise UsersFileError(open_problem(p, exc)) from None
    try:
        foreign = foreign_problem(conn, p)
    except sqlite3.Error as exc:
        raise UsersFileError(damaged_problem(p, exc)) from None
    finally:
        conn.close()
    if foreign:
        raise UsersFileError(foreign)


def folder_problem(p: Path) -> str:
    """The words for a users database that is a folder."""
    return f"用户数据库 {p} 是文件夹，不是文件 / the users database {p} is a folder, not a file"


def open_problem(p: Path, exc: sqlite3.Error) -> str:
    """The words for a users database SQLite cannot open."""
    return f"无法打开用户数据库 {p}：{exc} / cannot open the users database {p}: {exc}"


def damaged_problem(p: Path, exc: sqlite3.Error) -> str:
    """The words for a users database SQLite cannot read or write."""
    return f"用户数据库 {p} 损坏或不可写（{exc}） / the users database {p} is damaged or not writable: {exc}"


def foreign_problem(conn: sqlite3.Connection, p: Path) -> str | None:
    """The words refusing another program's database (an event log named as the users database:
    its tables are not ours, and nothing is written to it), or None for one of ours (or an empty one).

    :raises sqlite3.Error: the file is not SQLite, or damaged (the caller words it)."""
    tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    foreign = sorted(tables - OWN_TABLES)
    if foreign:
        return f"{p} 不是用户数据库（其中有 {', '.join(foreign[:4])}），未写入任何内容 / {p} is not a users database (it holds {', '.join(foreign[:4])}); nothing was written"
    return None
