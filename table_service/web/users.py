"""Panel users and roles, kept in SQLite.

Passwords are stored only as werkzeug hashes (scrypt/pbkdf2 with salt). Roles form a ladder:
``viewer`` (watch), ``referee`` (table referee: flags, warnings, violations, corrections) and
``chief`` (裁判长, chief referee: additionally fouls, losses, and releasing duplicate deals).
"""

from __future__ import annotations

import re
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from werkzeug.security import check_password_hash, generate_password_hash

#: Roles from least to most powerful; a higher role may do everything a lower one may.
ROLES: tuple[str, ...] = ("viewer", "referee", "chief")
ROLE_NAMES: dict[str, str] = {"viewer": "观众 / viewer", "referee": "裁判 / referee", "chief": "裁判长 / chief referee"}

_NAME_RE = re.compile(r"^[\w.\-]{1,64}$", re.UNICODE)
MIN_PASSWORD = 8

# Only accounts live here. Duplicate-deal releases are engine events (``deal_released``) in each
# table's own log; a ``feed_releases`` table left in an older database is never read or written.
_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL CHECK (role IN ('viewer', 'referee', 'chief')),
    password_hash TEXT NOT NULL,
    created_ms INTEGER NOT NULL
);
"""

# A hash computed once so that a login for an unknown user costs as much as one for a known user
# (no timing oracle for which names exist).
_DUMMY_HASH = generate_password_hash("not-a-real-password-0")


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
        raise UserError(f"未知角色 {role!r}（可选 viewer/referee/chief）/ unknown role {role!r}") from None


def connect(path: str | Path) -> sqlite3.Connection:
    """Open the user database, creating the file and schema on first use."""
    p = Path(path)
    if str(p) != ":memory:":
        p.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(p), timeout=5.0, check_same_thread=False)
    conn.row_factory = sqlite3.Row
    conn.executescript(_SCHEMA)
    return conn


def add_user(conn: sqlite3.Connection, name: str, password: str, role: str) -> User:
    """Create an account; raises :class:`UserError` if it exists or the input is unacceptable."""
    if not _NAME_RE.match(name or ""):
        raise UserError(f"用户名无效 / invalid user name: {name!r} (1-64 letters, digits, . _ -)")
    role_rank(role)
    if len(password or "") < MIN_PASSWORD:
        raise UserError(f"密码至少 {MIN_PASSWORD} 位 / password must have at least {MIN_PASSWORD} characters")
    try:
        with conn:
            conn.execute(
                "INSERT INTO users (name, role, password_hash, created_ms) VALUES (?, ?, ?, ?)",
                (name, role, generate_password_hash(password), int(time.time() * 1000)),
            )
    except sqlite3.IntegrityError:
        raise UserError(f"用户已存在 / user already exists: {name!r}") from None
    return User(name, role)


def remove_user(conn: sqlite3.Connection, name: str) -> None:
    """Delete an account; raises :class:`UserError` when there is none of that name."""
    with conn:
        cur = conn.execute("DELETE FROM users WHERE name = ?", (name,))
    if cur.rowcount == 0:
        raise UserError(f"没有该用户 / no such user: {name!r}")


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
        check_password_hash(_DUMMY_HASH, password or "")
        return None
    if not check_password_hash(row["password_hash"], password or ""):
        return None
    return User(row["name"], row["role"])

