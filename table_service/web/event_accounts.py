"""Event accounts (赛事账号): the hub's accounts that hold at every table, as both ends of the wire read them.

Why: accounts are kept per server, and at an event of 100 tables the chief referee typed
``guandan-table user add`` on every Pi, for every floor referee who might walk up to it. Now the
hub's chief marks accounts on the hub's accounts page; the hub sends the marked ones — name, role
and the stored salted hash, never a password — in one retained message on the event-wide topic
``guandan/<event>/accounts`` (only the hub writes it, only the event's tables read it: the ACL of
:mod:`table_service.event.provision`), and each table makes its ``hub`` accounts exactly that set.

Why one event-wide topic and not one per table: the set is the same for every table and holds
nothing of any table (the tables must not read each other's private topics; this one is no
table's), so one retained message costs the broker one copy instead of 100, and a table that comes
up late gets it at once. Per-table copies would give no table less: each would hold the whole set.

Here (in ``web``, below both ``table`` and ``event``, which import nothing of each other): the
message, its check, the hub's side (:func:`outgoing`: the set, numbered, remembered in the hub's
users database) and the table's (:func:`apply_received`: replace the previous set, never touch a
local account, a local account of the same name wins, sessions of a removed, demoted or re-passworded
account end). The SQL is :mod:`.users`'s database; every change is one transaction.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass, field
from typing import Any

from table_service.engine.errors import halves
from table_service.views.wire import loads_strict

from . import users

#: The event-wide topic's last segment: ``guandan/<event>/accounts`` (three levels, apart from the
#: tables' ``guandan/<event>/<table>/<name>``, as the event's ``deck`` is).
ACCOUNTS_NAME = "accounts"
#: The most accounts one set carries (100 tables' floor referees and officials are a few hundred).
MAX_ACCOUNTS = 2000
#: The largest message a table reads: MAX_ACCOUNTS of ~250 bytes each, with room to spare.
MAX_MESSAGE_BYTES = 1024 * 1024
MESSAGE_KEYS = frozenset({"event", "version", "accounts"})
ACCOUNT_KEYS = frozenset({"name", "role", "password_hash"})
#: Versions are whole numbers from 1; JSON's safe integers bound them.
MAX_VERSION = 2**53 - 1


def accounts_topic(event_id: str) -> str:
    """``guandan/<event>/accounts``: the hub writes it, every table of the event reads it."""
    return f"guandan/{event_id}/{ACCOUNTS_NAME}"


@dataclass(frozen=True)
class HubAccount:
    """One event account as the wire carries it: never a password, the hash as :mod:`.users` stores it."""

    name: str
    role: str
    password_hash: str

    def wire(self) -> dict[str, str]:
        return {"name": self.name, "role": self.role, "password_hash": self.password_hash}


@dataclass(frozen=True)
class AccountSet:
    """A checked message: the event, the hub's version of the set, its accounts (sorted by name)."""

    event: str
    version: int
    accounts: tuple[HubAccount, ...]

    def accounts_json(self) -> str:
        return json.dumps([a.wire() for a in self.accounts], ensure_ascii=False, separators=(",", ":"))

    def payload(self) -> bytes:
        return json.dumps({"event": self.event, "version": self.version, "accounts": [a.wire() for a in self.accounts]},
                          ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def _bad(why_zh: str, why_en: str) -> ValueError:
    """The refusal, each half saying why in its own language (a technician reads the log in Chinese too)."""
    return ValueError(f"赛事账号消息无效：{why_zh} / event accounts message refused: {why_en}")


def check_account(obj: Any, n: int) -> HubAccount:
    """One entry of ``accounts``: exactly name (:func:`users.check_name`), role (viewer, referee,
    chief) and password_hash (:func:`users.check_hash`).

    :raises ValueError: naming the entry and what is wrong (never the hash).
    """
    if not isinstance(obj, dict):
        raise _bad(f"accounts[{n}] 须为对象", f"accounts[{n}] must be an object")
    if set(obj) != ACCOUNT_KEYS:
        raise _bad(f"accounts[{n}] 须恰好含 {', '.join(sorted(ACCOUNT_KEYS))}",
                   f"accounts[{n}] must have exactly {', '.join(sorted(ACCOUNT_KEYS))}")
    try:
        users.check_name(obj["name"])
        users.check_hash(obj["password_hash"])
    except users.UserError as exc:
        zh, en = halves(str(exc))
        raise _bad(f"accounts[{n}]：{zh}", f"accounts[{n}]: {en}") from None
    if obj["role"] not in users.EVENT_ROLES:
        role = str(obj["role"])[:20]
        raise _bad(f"accounts[{n}]：角色须为 {'/'.join(users.EVENT_ROLES)} 之一，收到 {role!r}",
                   f"accounts[{n}]: role must be one of {'/'.join(users.EVENT_ROLES)}, got {role!r}")
    return HubAccount(obj["name"], obj["role"], obj["password_hash"])


def read_message(payload: bytes, event_id: str) -> AccountSet:
    """The hub's message as a table acts on it, checked whole before anything is applied: at most
    :data:`MAX_MESSAGE_BYTES`, UTF-8 JSON (:func:`loads_strict`), exactly ``event`` (this table's),
    ``version`` (1 to 2^53 − 1) and ``accounts`` (at most :data:`MAX_ACCOUNTS`, each checked by
    :func:`check_account`, no two names the same or reading alike).

    :raises ValueError: anything else, Chinese first: the table logs it and changes nothing.
    """
    if len(payload) > MAX_MESSAGE_BYTES:
        raise _bad(f"{len(payload)} 字节（最多 {MAX_MESSAGE_BYTES}）",
                   f"{len(payload)} bytes (at most {MAX_MESSAGE_BYTES})")
    try:
        msg = loads_strict(payload.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        zh, en = halves(str(exc)[:80])
        raise _bad(f"不是可用的 JSON（{zh}）", f"not usable JSON ({en})") from None
    if not isinstance(msg, dict) or set(msg) != MESSAGE_KEYS:
        raise _bad(f"须为恰好含 {', '.join(sorted(MESSAGE_KEYS))} 的对象",
                   f"must be an object of exactly {', '.join(sorted(MESSAGE_KEYS))}")
    if msg["event"] != event_id:
        event = str(msg["event"])[:64]
        raise _bad(f"消息属于赛事 {event!r}，本桌属于 {event_id!r}",
                   f"for event {event!r}, this table is of {event_id!r}")
    version = msg["version"]
    if isinstance(version, bool) or not isinstance(version, int) or not 1 <= version <= MAX_VERSION:
        raise _bad("version 须为从 1 起的整数", "version must be a whole number from 1")
    listed = msg["accounts"]
    if not isinstance(listed, list) or len(listed) > MAX_ACCOUNTS:
        raise _bad(f"accounts 须为列表，最多 {MAX_ACCOUNTS} 项", f"accounts must be a list of at most {MAX_ACCOUNTS}")
    accounts = [check_account(a, n) for n, a in enumerate(listed)]
    seen: dict[str, str] = {}
    for a in accounts:  # the same name twice reads alike too
        if users.look(a.name) in seen:
            raise _bad(f"两个账号名难以区分：{seen[users.look(a.name)]!r}、{a.name!r}",
                       f"two accounts named alike: {seen[users.look(a.name)]!r}, {a.name!r}")
        seen[users.look(a.name)] = a.name
    return AccountSet(event_id, version, tuple(sorted(accounts, key=lambda a: a.name)))


# ------------------------------------------------------------------------------------ the hub


def event_set(conn: sqlite3.Connection) -> tuple[HubAccount, ...]:
    """The hub's event accounts now: marked ``event`` and of a role a table takes, sorted by name."""
    return tuple(HubAccount(r["name"], r["role"], r["password_hash"]) for r in conn.execute(
        f"SELECT name, role, password_hash FROM users WHERE scope = 'event' AND role IN {users.EVENT_ROLES!r} "
        "ORDER BY name"))


def outgoing(conn: sqlite3.Connection, event_id: str) -> tuple[AccountSet, bool]:
    """The set the hub sends, and whether it changed since it was last sent (then its version is one
    more, and remembered in the hub's users database, so a restarted hub goes on counting).

    The version tells a table's page and log which set it holds; a table applies whatever the
    hub's retained message says (one writer, one topic: the broker keeps them in order)."""
    with conn:
        conn.execute("BEGIN IMMEDIATE")  # two requests changing accounts at once: one number each
        now = event_set(conn)
        body = AccountSet(event_id, 1, now).accounts_json()
        row = conn.execute("SELECT version, accounts FROM account_set WHERE kind = 'sent'").fetchone()
        if row is not None and row["accounts"] == body:
            return AccountSet(event_id, int(row["version"]), now), False
        version = int(row["version"]) + 1 if row is not None else 1
        conn.execute("INSERT OR REPLACE INTO account_set (kind, version, t_ms, accounts) VALUES ('sent', ?, ?, ?)",
                     (version, int(time.time() * 1000), body))
    return AccountSet(event_id, version, now), True


# ---------------------------------------------------------------------------------- the table


@dataclass
class Applied:
    """What a set did to a table's accounts (names), for its log and the test."""

    version: int
    unchanged: bool = False
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    """Password or role changed."""
    shadowed: list[str] = field(default_factory=list)
    """Offered, but a local account of the same name (or one reading alike) wins."""
    sessions_ended: int = 0


def _received(conn: sqlite3.Connection) -> tuple[int, int, tuple[HubAccount, ...]] | None:
    row = conn.execute("SELECT version, t_ms, accounts FROM account_set WHERE kind = 'received'").fetchone()
    if row is None:
        return None
    return int(row["version"]), int(row["t_ms"]), tuple(HubAccount(**a) for a in json.loads(row["accounts"]))


def _sync(conn: sqlite3.Connection, offered: tuple[HubAccount, ...], done: Applied) -> None:
    """Make the ``hub`` accounts exactly ``offered`` less those a local account shadows (inside the
    caller's transaction). Sessions end for an account removed, given another password or a lower
    role; a higher role holds from the next request on, as a local role change does."""
    rows = conn.execute("SELECT name, role, password_hash, scope FROM users").fetchall()
    local = {users.look(r["name"]) for r in rows if r["scope"] != "hub"}
    current = {r["name"]: r for r in rows if r["scope"] == "hub"}
    wanted = {a.name: a for a in offered if users.look(a.name) not in local}
    done.shadowed = sorted(a.name for a in offered if a.name not in wanted)

    def end(name: str) -> None:
        done.sessions_ended += conn.execute("DELETE FROM sessions WHERE name = ?", (name,)).rowcount

    for name in sorted(set(current) - set(wanted)):
        conn.execute("DELETE FROM users WHERE name = ? AND scope = 'hub'", (name,))
        end(name)
        done.removed.append(name)
    now = int(time.time() * 1000)
    for name, a in sorted(wanted.items()):
        row = current.get(name)
        if row is None:
            conn.execute("INSERT INTO users (name, role, password_hash, created_ms, scope) VALUES (?, ?, ?, ?, 'hub')",
                         (name, a.role, a.password_hash, now))
            end(name)  # a session left by an account of that name before (removed since) is not this one's
            done.added.append(name)
            continue
        if (row["role"], row["password_hash"]) == (a.role, a.password_hash):
            continue
        conn.execute("UPDATE users SET role = ?, password_hash = ? WHERE name = ? AND scope = 'hub'",
                     (a.role, a.password_hash, name))
        if row["password_hash"] != a.password_hash or users.role_rank(a.role) < users.role_rank(row["role"]):
            end(name)
        done.changed.append(name)


def apply_received(conn: sqlite3.Connection, got: AccountSet) -> Applied:
    """At a table: make the accounts from the hub exactly ``got``'s (checked by :func:`read_message`),
    in one transaction, and remember the set (its version for the page; the whole set so that a local
    account removed later lets the hub's of that name in). The same set again (the retained message
    on every reconnect) changes nothing."""
    with conn:
        conn.execute("BEGIN IMMEDIATE")
        held = _received(conn)
        if held is not None and held[0] == got.version and held[2] == got.accounts:
            return Applied(got.version, unchanged=True)
        conn.execute("INSERT OR REPLACE INTO account_set (kind, version, t_ms, accounts) VALUES ('received', ?, ?, ?)",
                     (got.version, int(time.time() * 1000), got.accounts_json()))
        done = Applied(got.version)
        _sync(conn, got.accounts, done)
    return done


def resync(conn: sqlite3.Connection) -> Applied | None:
    """After a local account was removed at a table: the hub's account of that name, which it
    shadowed, comes in (from the set last received). None when no set was ever received."""
    with conn:
        conn.execute("BEGIN IMMEDIATE")
        held = _received(conn)
        if held is None:
            return None
        done = Applied(held[0])
        _sync(conn, held[2], done)
    return done


def received_view(conn: sqlite3.Connection) -> dict[str, Any] | None:
    """What a table's accounts page says of the hub's set: its version, when it came, and the
    names a local account shadows. None when no set was ever received (a table on its own)."""
    held = _received(conn)
    if held is None:
        return None
    version, t_ms, offered = held
    local = {users.look(n) for n, sc in users.scopes(conn).items() if sc != "hub"}
    return {"version": version, "t_ms": t_ms, "count": len(offered),
            "received_at": time.strftime("%Y-%m-%d %H:%M", time.localtime(t_ms / 1000)),
            "shadowed": sorted(a.name for a in offered if users.look(a.name) in local)}


def sent_view(conn: sqlite3.Connection) -> dict[str, Any] | None:
    """What the hub's accounts page says of the set it sends: the version and when it was numbered."""
    row = conn.execute("SELECT version, t_ms FROM account_set WHERE kind = 'sent'").fetchone()
    return None if row is None else {"version": int(row["version"]), "t_ms": int(row["t_ms"])}
