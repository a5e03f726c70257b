"""Panel users and roles, kept in SQLite.

Passwords are stored only as werkzeug hashes (scrypt/pbkdf2 with salt). Roles form a ladder:
``spectator`` (the public, *delayed* broadcast view only: an account for a spectator that cannot
defeat the broadcast delay), ``viewer`` (officials: the live referee view, read-only), ``referee`` (table referee: flags, warnings, violations, corrections) and
``chief`` (裁判长, chief referee: additionally fouls, losses, and releasing duplicate deals).
"""

from __future__ import annotations

import functools
import hashlib
import os
import re
import secrets
import sqlite3
import time
import unicodedata
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from werkzeug.security import check_password_hash, generate_password_hash

from .users_file import damaged_problem, folder_problem, foreign_problem, open_problem

#: Roles from least to most powerful; a higher role may do everything a lower one may.
ROLES: tuple[str, ...] = ("spectator", "viewer", "referee", "chief")
ROLE_NAMES: dict[str, str] = {"spectator": "观众（延时直播） / spectator (delayed broadcast only)",
                              "viewer": "旁观官员（实时） / viewer (officials: live view)",
                              "referee": "裁判 / referee", "chief": "裁判长 / chief referee"}


def role_label(role: str) -> tuple[str, str]:
    """``(Chinese, English)`` halves of a role's :data:`ROLE_NAMES` entry, for a message that says
    Chinese first, English second: the whole entry put into the Chinese half left English in the
    middle (``split(" / ")`` missed the viewer's ``（实时）/ viewer`` when it was written with no space before
    the slash; ``tests/test_bilingual_text.py`` now refuses that spelling)."""
    zh, _, en = ROLE_NAMES[role].partition("/")
    return zh.strip(), en.strip()

#: A user name: 1-64 letters, digits, ``.``, ``_``, ``-``. Used with ``fullmatch`` only: ``$`` also
#: matches before a final newline, so ``"bob\n"`` passed and was stored, a name nobody can type at
#: the login form.
_NAME_RE = re.compile(r"[\w.\-]{1,64}", re.UNICODE)
MIN_PASSWORD = 8
#: The longest password taken, by the command line and the accounts page alike: the hash is slow on
#: purpose, and a megabyte of password would make every login with it that much slower (a 5 MB one
#: was taken by ``user add``).
MAX_PASSWORD = 1024

#: Where an account comes from and where it holds (the ``scope`` column):
#: ``local``: made on this server, valid here only (every account before event accounts existed);
#: ``event``: at the event hub, an account its chief referee marked 赛事账号 — the hub sends it to
#: every table (:mod:`.event_accounts`); ``hub``: at a table, an account received from the hub —
#: read-only here, replaced whole by the hub's next set, never touching the ``local`` ones.
SCOPES: tuple[str, ...] = ("local", "event", "hub")
#: The roles an event account may have: the officials the tables need. A spectator account is not
#: sent (the tables' delayed broadcast needs no login).
EVENT_ROLES: tuple[str, ...] = ("viewer", "referee", "chief")

# Only accounts live here. Duplicate-deal releases are engine events (``deal_released``) in each
# table's own log; a ``feed_releases`` table left in an older database is never read or written.
# ``account_set`` holds the event accounts' set as the hub last sent it (``sent``) or a table last
# received it (``received``): :mod:`.event_accounts`. The tables a users database may hold are
# :data:`.users_file.OWN_TABLES` (a new table here goes there too).
_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('spectator', 'viewer', 'referee', 'chief')),
    password_hash TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    scope TEXT NOT NULL DEFAULT 'local' CHECK (scope IN ('local', 'event', 'hub'))
);
CREATE TABLE IF NOT EXISTS sessions (
    token_hash TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    created_ms INTEGER NOT NULL,
    expires_ms INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_name ON sessions (name);
CREATE TABLE IF NOT EXISTS account_set (
    kind TEXT PRIMARY KEY CHECK (kind IN ('sent', 'received')),
    version INTEGER NOT NULL,
    t_ms INTEGER NOT NULL,
    accounts TEXT NOT NULL
);
"""

#: How long a login lasts without a logout (the cookie's lifetime as well).
SESSION_LIFETIME_MS = 12 * 3600 * 1000


@functools.cache
def _dummy_hash() -> str:
    """A hash computed once so that a login for an unknown user costs as much as one for a known user
    (no timing oracle for which names exist). Made by the first :func:`connect` (a login needs its
    connection first), not at import: a command that imports this module and logs no one in (``user
    list``) need not pay for it (scrypt: a quarter of a second here, about a second on a Pi)."""
    return generate_password_hash("not-a-real-password-0")


class UserError(ValueError):
    """A user operation was refused (bad name, short password, unknown role, duplicate, missing)."""


@dataclass(frozen=True)
class User:
    """A panel account as the panel sees it (never carries the hash)."""

    name: str
    role: str

    def can(self, role: str) -> bool:
        """True when this user's role is at least ``role`` on the ladder."""
        return role_rank(self.role) >= role_rank(role)


def role_rank(role: str) -> int:
    """Position of ``role`` in :data:`ROLES`; raises :class:`UserError` for an unknown role."""
    try:
        return ROLES.index(role)
    except ValueError:
        raise UserError(f"未知角色 {role!r}（可选 {'/'.join(ROLES)}） / unknown role {role!r} (one of {'/'.join(ROLES)})") from None


def connect(path: str | Path, *, create: bool = True) -> sqlite3.Connection:
    """Open the user database, creating the file and schema on first use.

    :param create: False for commands that only read or remove (``user list``/``remove``): a
        missing file is then an error instead of a new empty database in the current folder.
    :raises UserError: the file is missing (``create=False``), a folder, not SQLite, damaged,
        or another program's database (an event log) — never written to in those cases.
    """
    _dummy_hash()  # before any login can be tried on this connection
    p = Path(path)
    memory = str(p) == ":memory:"
    if not memory:
        if p.is_dir():
            raise UserError(folder_problem(p))
        if not p.exists():
            if not create:
                raise UserError(f"用户数据库不存在：{p}（请用 --db 指定，或先添加用户）"
                                f" / no users database at {p} (give --db, or add a user first)")
            try:  # a folder named in the config that is not there yet is made, as the event log's is
                p.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise UserError(f"无法创建用户数据库 {p}：{exc.strerror or exc}"
                                f" / cannot create the users database {p}: "
                                f"{exc.strerror or exc}") from None
        elif not create and p.stat().st_size == 0:
            # SQLite would take an empty file as a new database and write its schema into it.
            raise UserError(f"{p} 是空文件，不是用户数据库（请先添加用户）"
                            f" / {p} is an empty file, not a users database (add a user first)")
        _keep_private(p)
    try:
        conn = sqlite3.connect(str(p), timeout=5.0, check_same_thread=False)
    except sqlite3.Error as exc:
        raise UserError(open_problem(p, exc)) from None
    conn.row_factory = sqlite3.Row
    try:
        foreign = foreign_problem(conn, p)
        if foreign:
            raise UserError(foreign)
        conn.executescript(_SCHEMA)
        _allow_spectator(conn)
        _add_scope(conn)
    except sqlite3.Error as exc:
        conn.close()
        raise UserError(damaged_problem(p, exc)) from None
    except UserError:
        conn.close()
        raise
    return conn


@contextmanager
def _written(conn: sqlite3.Connection) -> Iterator[None]:
    """``with conn:`` (one transaction) that says a read-only database in words: it was "internal
    error (OperationalError: attempt to write a readonly database)", exit 3.

    :raises UserError: the database file (or its folder) cannot be written.
    """
    try:
        with conn:
            yield
    except sqlite3.OperationalError as exc:
        if "readonly" not in str(exc):
            raise
        row = conn.execute("PRAGMA database_list").fetchone()
        raise UserError(f"用户数据库 {row[2] if row else ''} 只读"
                        f" / the users database {row[2] if row else ''} is read-only") from None


def _keep_private(p: Path) -> None:
    """The file readable by its owner only (0600), made so when new: it holds the password hashes and
    the sessions (the hub's was 0644, the audit of 2026-12-06). SQLite gives its journal and WAL the
    database's own mode. A file another user owns is left as it is (its owner chose)."""
    try:
        fd = os.open(p, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        return  # not ours to open for writing: sqlite says why, below
    try:
        if os.fstat(fd).st_uid == os.geteuid() and os.fstat(fd).st_mode & 0o077:
            os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


def _allow_spectator(conn: sqlite3.Connection) -> None:
    """A database made before the ``spectator`` role has a CHECK that refuses it: rebuild the
    ``users`` table with the current one, every account kept (one transaction)."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'users'").fetchone()
    if row is None or "'spectator'" in row[0]:
        return
    with conn:
        conn.execute("ALTER TABLE users RENAME TO users_before_spectator")
        conn.execute(_SCHEMA.split(";")[0])
        conn.execute("INSERT INTO users (name, role, password_hash, created_ms) "
                     "SELECT name, role, password_hash, created_ms FROM users_before_spectator")
        conn.execute("DROP TABLE users_before_spectator")


def _add_scope(conn: sqlite3.Connection) -> None:
    """A database made before event accounts has no ``scope`` column: added, every account kept and
    ``local`` (what each was: made on this server for this server)."""
    if any(r["name"] == "scope" for r in conn.execute("PRAGMA table_info(users)")):
        return
    with conn:
        conn.execute("ALTER TABLE users ADD COLUMN scope TEXT NOT NULL DEFAULT 'local' "
                     "CHECK (scope IN ('local', 'event', 'hub'))")


def check_name(name: str) -> None:
    """Refuse a name that is not 1-64 letters, digits, ``.``, ``_``, ``-`` — the whole name: a
    trailing newline (``$'bob\\n'`` on the command line) is refused, not stored.

    :raises UserError: naming the name.
    """
    if not isinstance(name, str) or not _NAME_RE.fullmatch(name):
        raise UserError(f"用户名无效：{name!r}（1–64 个字母、数字、. _ -）"
                        f" / invalid user name: {name!r} (1-64 letters, digits, . _ -)")


def check_password(password: str) -> None:
    """Refuse a password under :data:`MIN_PASSWORD` or over :data:`MAX_PASSWORD` characters (never
    naming the password itself); the one rule of ``user add``/``passwd`` and the accounts page.

    :raises UserError: too short or too long.
    """
    if len(password or "") < MIN_PASSWORD:
        raise UserError(f"密码至少 {MIN_PASSWORD} 位 / password must have at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise UserError(f"密码过长（最多 {MAX_PASSWORD} 个字符） / the password is longer than {MAX_PASSWORD} characters")
    if not password.strip():
        raise UserError("密码不能全是空格 / a password of spaces only is no password")
    if any(unicodedata.category(c) == "Cc" for c in password):
        # NUL, ESC, a line break: no keyboard at a login form types them; a paste or script error does.
        raise UserError("密码含控制字符 / the password holds a control character (a line break, NUL, ESC…)")


def look(name: str) -> str:
    """How a name reads on the page: ``RITA`` and ``rita``, ``ab１`` and ``ab1`` look alike."""
    return unicodedata.normalize("NFKC", name).casefold()


#: A stored hash as :func:`generate_password_hash` writes it (werkzeug 3: ``scrypt:N:r:p`` or
#: ``pbkdf2:<sha256|sha512>:<iterations>``, then ``$<salt>$<hex digest>``).
_HASH_RE = re.compile(r"(scrypt:(\d{1,7}):(\d{1,2}):(\d{1,2})|pbkdf2:(sha256|sha512):(\d{1,7}))"
                      r"\$([A-Za-z0-9]{8,64})\$([0-9a-f]{64}|[0-9a-f]{128})", re.ASCII)
#: The work a hash may ask of a login, bounded: werkzeug computes a hash with the parameters written
#: in it, so a hash naming scrypt with N = 2^30 would make every login under that name take
#: gigabytes of a Pi's memory. Our own hashes are scrypt 2^15:8:1 (32 MiB) or pbkdf2 at most
#: werkzeug's 1,000,000 iterations; the bounds leave room for a newer werkzeug's defaults.
SCRYPT_MAX_N, SCRYPT_MAX_R, SCRYPT_MAX_P = 2**16, 16, 4
PBKDF2_ITERATIONS = (1_000, 2_000_000)


def check_hash(value: object) -> str:
    """Refuse what is not a salted hash as this module stores it (a hash received from the event hub
    is checked with this before it is written: never a password in clear, never a hash whose
    parameters would make a login cost the Pi more than ours do).

    :raises UserError: naming what is wrong, never the hash itself.
    """
    m = _HASH_RE.fullmatch(value) if isinstance(value, str) else None
    if m is None:
        raise UserError("密码散列格式无效 / not a password hash as this service stores it "
                        "(scrypt:N:r:p$salt$hex or pbkdf2:sha256:iterations$salt$hex)")
    if m.group(2) is not None:
        n, r, p = int(m.group(2)), int(m.group(3)), int(m.group(4))
        if n < 2 or n & (n - 1) or n > SCRYPT_MAX_N or not 1 <= r <= SCRYPT_MAX_R or not 1 <= p <= SCRYPT_MAX_P:
            raise UserError(f"密码散列参数超出范围（N 须为 2 的幂且不超过 {SCRYPT_MAX_N}，"
                            f"r 为 1–{SCRYPT_MAX_R}，p 为 1–{SCRYPT_MAX_P}）"
                            f" / scrypt parameters out of range (N a power of 2 up to "
                            f"{SCRYPT_MAX_N}, r 1-{SCRYPT_MAX_R}, p 1-{SCRYPT_MAX_P})")
        if len(m.group(8)) != 128:
            raise UserError("密码散列长度无效 / a scrypt hash has 128 hex digits")
    else:
        lo, hi = PBKDF2_ITERATIONS
        if not lo <= int(m.group(6)) <= hi:
            raise UserError(f"密码散列参数超出范围（pbkdf2 迭代次数须为 {lo}–{hi}）"
                            f" / pbkdf2 iterations out of range ({lo}-{hi})")
        if len(m.group(8)) != (64 if m.group(5) == "sha256" else 128):
            raise UserError("密码散列长度无效 / the digest's length does not fit its hash")
    return value  # type: ignore[return-value]


#: A refusal to change, at a table, an account the event hub sent: the hub's next set would undo it.
FROM_HUB = ("来自赛事中心的账号只能在赛事中心修改 / this account comes from the event hub: change it at the "
            "hub's accounts page")


def add_user(conn: sqlite3.Connection, name: str, password: str, role: str, *, scope: str = "local") -> User:
    """Create an account; raises :class:`UserError` if it exists or the input is unacceptable.

    A name that reads like an existing one (another case, full-width digits) is refused: two
    logins the accounts page and the event log show alike are one referee to the people reading them.
    An account received from the event hub under that name (or one that reads like it) gives way
    instead: a local account wins over the hub's (its sessions end; :mod:`.event_accounts`).

    :param scope: ``local``, or ``event`` (at the hub: sent to every table; not for a spectator).
    """
    check_name(name)
    role_rank(role)
    check_password(password)
    if scope not in ("local", "event") or (scope == "event" and role not in EVENT_ROLES):
        raise UserError(EVENT_ROLE_ONLY if scope == "event" else f"未知范围：{scope!r} / unknown scope {scope!r}")
    rows = conn.execute("SELECT name, scope FROM users").fetchall()
    alike = next((n for n, sc in rows if sc != "hub" and n != name and look(n) == look(name)), None)
    if alike is not None:
        raise UserError(f"用户名 {name!r} 与已有账号 {alike!r} 难以区分"
                        f" / the name {name!r} looks like the existing account {alike!r}")
    hub_alike = [n for n, sc in rows if sc == "hub" and look(n) == look(name)]
    try:
        with _written(conn):
            for n in hub_alike:  # the local account wins
                conn.execute("DELETE FROM users WHERE name = ? AND scope = 'hub'", (n,))
                conn.execute("DELETE FROM sessions WHERE name = ?", (n,))
            conn.execute(
                "INSERT INTO users (name, role, password_hash, created_ms, scope) VALUES (?, ?, ?, ?, ?)",
                (name, role, generate_password_hash(password), int(time.time() * 1000), scope),
            )
    except sqlite3.IntegrityError:
        raise UserError(f"用户已存在：{name!r} / user already exists: {name!r}") from None
    return User(name, role)


#: A statement's condition that keeps at least one chief referee of this server's own: the row is
#: not a chief, or another local chief remains. Checked inside the statement itself, so two chiefs
#: removing (or demoting) each other at the same moment cannot leave the database without one. A
#: chief from the event hub does not count: the hub's next set may take it away.
_ANOTHER_CHIEF = "(role != 'chief' OR (SELECT COUNT(*) FROM users WHERE role = 'chief' AND scope != 'hub') > 1)"

LAST_CHIEF = "不能删除或降级最后一位裁判长 / the last chief referee cannot be removed or given another role"
EVENT_ROLE_ONLY = ("观众账号不能设为赛事账号 / a spectator account cannot be an event account (the tables' "
                   "delayed broadcast needs no login)")


def _refused(conn: sqlite3.Connection, name: str, *, chief_rule: bool) -> UserError:
    """Why a statement on ``name`` changed no row: no such account, the hub's, or the last chief."""
    row = conn.execute("SELECT scope FROM users WHERE name = ?", (name,)).fetchone()
    if row is None:
        return UserError(f"没有该用户：{name!r} / no such user: {name!r}")
    if row["scope"] == "hub":
        return UserError(FROM_HUB)
    return UserError(LAST_CHIEF if chief_rule else f"没有该用户：{name!r} / no such user: {name!r}")


def remove_user(conn: sqlite3.Connection, name: str, *, keep_a_chief: bool = False) -> None:
    """Delete an account and end its sessions; raises :class:`UserError` when there is none, or it
    came from the event hub (the hub's set is the hub's to change).

    :param keep_a_chief: refuse to delete the last ``chief`` (the panel's accounts page; the
        command line, run on the machine itself, may).
    """
    with _written(conn):
        cur = conn.execute("DELETE FROM users WHERE name = ? AND scope != 'hub'"
                           + (f" AND {_ANOTHER_CHIEF}" if keep_a_chief else ""), (name,))
        if cur.rowcount:  # a chief kept (or the hub's account) keeps its sessions too
            conn.execute("DELETE FROM sessions WHERE name = ?", (name,))
    if cur.rowcount == 0:
        raise _refused(conn, name, chief_rule=keep_a_chief)


def set_role(conn: sqlite3.Connection, name: str, role: str) -> User:
    """Give ``name`` another role; never leaves the database without a ``chief``.

    Sessions stay open: every request reads the account's role afresh, so the new role holds
    from the next request on. An event account made a spectator stops being one (the tables get
    no spectator accounts).

    :raises UserError: unknown role, no such user, the hub's account, or the last chief given another role.
    """
    role_rank(role)
    with _written(conn):
        cur = conn.execute("UPDATE users SET role = ?, scope = CASE WHEN scope = 'event' AND ? NOT IN "
                           f"{EVENT_ROLES!r} THEN 'local' ELSE scope END WHERE name = ? AND scope != 'hub' "
                           f"AND (? = 'chief' OR {_ANOTHER_CHIEF})", (role, role, name, role))
    if cur.rowcount == 0:
        raise _refused(conn, name, chief_rule=True)
    return User(name, role)


def set_password(conn: sqlite3.Connection, name: str, password: str) -> None:
    """Change a password and end every session of that account (a stolen cookie dies with it)."""
    check_password(password)
    with _written(conn):
        cur = conn.execute("UPDATE users SET password_hash = ? WHERE name = ? AND scope != 'hub'",
                           (generate_password_hash(password), name))
        if cur.rowcount:
            conn.execute("DELETE FROM sessions WHERE name = ?", (name,))
    if cur.rowcount == 0:
        raise _refused(conn, name, chief_rule=False)


def set_scope(conn: sqlite3.Connection, name: str, scope: str) -> User:
    """At the event hub: mark ``name`` an event account (``event``: sent to every table) or not
    (``local``). Sessions are untouched (this server's login is the same account either way).

    :raises UserError: an unknown scope, no such account, one received from a hub, or a spectator marked.
    """
    if scope not in ("local", "event"):
        raise UserError(f"未知范围：{scope!r} / unknown scope {scope!r}")
    with _written(conn):
        cur = conn.execute(f"UPDATE users SET scope = ? WHERE name = ? AND scope != 'hub' "
                           f"AND (? = 'local' OR role IN {EVENT_ROLES!r})", (scope, name, scope))
    if cur.rowcount == 0:
        user = get_user(conn, name)
        if user is not None and scope == "event" and user.role not in EVENT_ROLES:
            raise UserError(EVENT_ROLE_ONLY)
        raise _refused(conn, name, chief_rule=False)
    user = get_user(conn, name)
    assert user is not None
    return user


def scopes(conn: sqlite3.Connection) -> dict[str, str]:
    """Every account's scope (:data:`SCOPES`), by name: what the accounts page marks."""
    return {r["name"]: r["scope"] for r in conn.execute("SELECT name, scope FROM users")}


# ---------------------------------------------------------------------------------- sessions
# The cookie carries only a random token; the server keeps its hash and the account it belongs
# to. Deleting the row ends the session at once, wherever the cookie was copied to.


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def open_session(conn: sqlite3.Connection, name: str, *, now_ms: int | None = None,
                 lifetime_ms: int = SESSION_LIFETIME_MS) -> str:
    """Start a session for ``name``; returns the token to put in the cookie."""
    now = int(time.time() * 1000) if now_ms is None else now_ms
    token = secrets.token_urlsafe(32)
    with conn:
        conn.execute("DELETE FROM sessions WHERE expires_ms <= ?", (now,))
        conn.execute("INSERT INTO sessions (token_hash, name, created_ms, expires_ms) VALUES (?, ?, ?, ?)",
                     (_token_hash(token), name, now, now + lifetime_ms))
    return token


def session_user(conn: sqlite3.Connection, token: str | None, *, now_ms: int | None = None) -> User | None:
    """The account a live session token belongs to, or None (unknown, ended or expired)."""
    if not isinstance(token, str) or not token:
        return None
    now = int(time.time() * 1000) if now_ms is None else now_ms
    row = conn.execute(
        "SELECT u.name, u.role FROM sessions s JOIN users u ON u.name = s.name "
        "WHERE s.token_hash = ? AND s.expires_ms > ?", (_token_hash(token), now)).fetchone()
    return User(row["name"], row["role"]) if row else None


def close_session(conn: sqlite3.Connection, token: str | None) -> None:
    """End one session (logout)."""
    if isinstance(token, str) and token:
        with conn:
            conn.execute("DELETE FROM sessions WHERE token_hash = ?", (_token_hash(token),))


def close_sessions(conn: sqlite3.Connection, name: str) -> int:
    """End every session of ``name``; returns how many were open."""
    with conn:
        return conn.execute("DELETE FROM sessions WHERE name = ?", (name,)).rowcount


def list_users(conn: sqlite3.Connection) -> list[User]:
    """All accounts, sorted by name."""
    return [User(r["name"], r["role"]) for r in conn.execute("SELECT name, role FROM users ORDER BY name")]


def get_user(conn: sqlite3.Connection, name: str) -> User | None:
    """The account called ``name``, or None (used to re-check a session's user on every request)."""
    row = conn.execute("SELECT name, role FROM users WHERE name = ?", (name,)).fetchone()
    return User(row["name"], row["role"]) if row else None


def authenticate(conn: sqlite3.Connection, name: str, password: str) -> User | None:
    """The user when the password matches, else None; takes equal time for unknown names."""
    row = conn.execute("SELECT name, role, password_hash FROM users WHERE name = ?", (name,)).fetchone()
    if row is None:
        check_password_hash(_dummy_hash(), password or "")
        return None
    if not check_password_hash(row["password_hash"], password or ""):
        return None
    return User(row["name"], row["role"])

