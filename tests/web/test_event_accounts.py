"""Event accounts (赛事账号) at a table: the hub's set applied to the table's users database
(web/event_accounts.py, table/hub_accounts.py). The set replaces the previous one; an account removed,
demoted or given a new password at the hub loses its sessions here; local accounts are never touched,
and one of the same name wins; a bad message is logged and changes nothing; the table's accounts page
lists the hub's accounts read-only and refuses to change them."""

from __future__ import annotations

import json
import logging
import sqlite3
from typing import Any

import pytest
from werkzeug.security import generate_password_hash

from table_service.table.hub_accounts import HubAccounts
from table_service.web import users

PW = {"ann": "ann-password-1", "bo": "bo-password-1", "ann2": "ann-password-2", "rita": "rita-at-the-hub"}
#: Hashed once for the module (scrypt is slow on purpose).
HASH = {k: generate_password_hash(v) for k, v in PW.items()}


def message(version: int, *accounts: tuple[str, str, str], event: str = "ev") -> bytes:
    """The hub's message: ``accounts`` as (name, role, key of :data:`HASH`)."""
    return json.dumps({"event": event, "version": version, "accounts": [
        {"name": n, "role": r, "password_hash": HASH[k]} for n, r, k in accounts]}).encode()


def db_of(path: str) -> sqlite3.Connection:
    return users.connect(path)


def table(users_db: str) -> HubAccounts:
    return HubAccounts(users_db, "ev", "1")


def accounts(path: str) -> dict[str, tuple[str, str]]:
    """name → (role, scope)."""
    conn = db_of(path)
    try:
        scopes = users.scopes(conn)
        return {u.name: (u.role, scopes[u.name]) for u in users.list_users(conn)}
    finally:
        conn.close()


def dump(path: str) -> list[str]:
    conn = db_of(path)
    try:
        return list(conn.iterdump())
    finally:
        conn.close()


LOCAL = {"vera": ("viewer", "local"), "rita": ("referee", "local"), "chen": ("chief", "local")}


def test_the_hubs_set_replaces_the_previous_one_and_never_touches_local_accounts(users_db: str) -> None:
    t = table(users_db)
    before = {r for r in dump(users_db) if "INSERT INTO \"users\"" in r}
    done = t.on_payload(message(1, ("ann", "referee", "ann"), ("bo", "viewer", "bo")))
    assert done is not None and done.added == ["ann", "bo"]
    assert accounts(users_db) == {**LOCAL, "ann": ("referee", "hub"), "bo": ("viewer", "hub")}
    conn = db_of(users_db)
    assert users.authenticate(conn, "ann", PW["ann"]) == users.User("ann", "referee")
    conn.close()

    done = t.on_payload(message(2, ("ann", "chief", "ann")))  # bo is no longer the hub's
    assert done is not None and done.removed == ["bo"] and done.changed == ["ann"]
    assert accounts(users_db) == {**LOCAL, "ann": ("chief", "hub")}
    conn = db_of(users_db)
    with pytest.raises(users.UserError, match="最后一位裁判长"):  # the hub's chief may go with its next set
        users.remove_user(conn, "chen", keep_a_chief=True)
    conn.close()
    assert t.on_payload(message(3)).removed == ["ann"]  # type: ignore[union-attr]
    assert accounts(users_db) == LOCAL
    # The local accounts' rows are as they were, hashes included.
    assert {r for r in dump(users_db) if "INSERT INTO \"users\"" in r} == before


def test_removed_demoted_or_new_password_at_the_hub_ends_the_sessions_here(users_db: str) -> None:
    t = table(users_db)
    t.on_payload(message(1, ("ann", "chief", "ann"), ("bo", "referee", "bo")))
    conn = db_of(users_db)
    ann, bo, rita = (users.open_session(conn, n) for n in ("ann", "bo", "rita"))

    t.on_payload(message(2, ("ann", "referee", "ann"), ("bo", "chief", "bo")))  # ann demoted, bo promoted
    assert users.session_user(conn, ann) is None, "a demoted account's session went on"
    assert users.session_user(conn, bo) == users.User("bo", "chief")  # a higher role: from the next request on
    ann = users.open_session(conn, "ann")

    done = t.on_payload(message(3, ("ann", "referee", "ann2"), ("bo", "chief", "bo")))  # a new password
    assert done is not None and done.changed == ["ann"] and done.sessions_ended == 1
    assert users.session_user(conn, ann) is None
    assert users.authenticate(conn, "ann", PW["ann"]) is None
    assert users.authenticate(conn, "ann", PW["ann2"]) == users.User("ann", "referee")

    t.on_payload(message(4, ("ann", "referee", "ann2")))  # bo removed
    assert users.session_user(conn, bo) is None and users.get_user(conn, "bo") is None
    assert users.session_user(conn, rita) == users.User("rita", "referee")  # a local login is never touched
    conn.close()


def test_the_same_set_again_changes_nothing(users_db: str) -> None:
    t = table(users_db)
    payload = message(1, ("ann", "referee", "ann"))
    t.on_payload(payload)
    conn = db_of(users_db)
    token = users.open_session(conn, "ann")
    again = t.on_payload(payload)  # the retained message, on every reconnect
    assert again is not None and again.unchanged
    assert users.session_user(conn, token) == users.User("ann", "referee")
    conn.close()


def test_a_local_account_of_the_same_name_wins(users_db: str) -> None:
    t = table(users_db)
    done = t.on_payload(message(1, ("rita", "chief", "rita"), ("CHEN", "chief", "ann"), ("ann", "viewer", "ann")))
    assert done is not None and done.shadowed == ["CHEN", "rita"] and done.added == ["ann"]
    assert accounts(users_db) == {**LOCAL, "ann": ("viewer", "hub")}
    conn = db_of(users_db)
    assert users.authenticate(conn, "rita", PW["rita"]) is None  # the hub's password is not rita's here
    assert users.authenticate(conn, "rita", "correct-horse-9") == users.User("rita", "referee")

    # The local rita removed: the hub's rita comes in (the page and the command line resync).
    from table_service.web import event_accounts

    users.remove_user(conn, "rita", keep_a_chief=True)
    came = event_accounts.resync(conn)
    assert came is not None and came.added == ["rita"]
    assert users.authenticate(conn, "rita", PW["rita"]) == users.User("rita", "chief")

    # A local account made over the hub's (or one reading like it) replaces it, ending its sessions.
    token = users.open_session(conn, "ann")
    users.add_user(conn, "Ann", "local-ann-pass", "referee")
    assert users.session_user(conn, token) is None and users.get_user(conn, "ann") is None
    conn.close()
    again = t.on_payload(message(2, ("rita", "chief", "rita"), ("ann", "viewer", "ann")))
    assert again is not None and again.shadowed == ["ann"]
    assert accounts(users_db)["Ann"] == ("referee", "local") and "ann" not in accounts(users_db)


def _bad(**change: Any) -> bytes:
    msg: dict[str, Any] = {"event": "ev", "version": 5, "accounts": [
        {"name": "ann", "role": "referee", "password_hash": HASH["ann"]},
        {"name": "bo", "role": "viewer", "password_hash": HASH["bo"]}]}
    for key, value in change.items():
        if key.startswith("a1_"):
            msg["accounts"][1][key[3:]] = value
        else:
            msg[key] = value
    return json.dumps(msg).encode()


SCRYPT_HUGE = "scrypt:1048576:8:1$abcdefgh12345678$" + "0" * 128
BAD = {
    "not JSON": b"{not json",
    "not UTF-8": b"\xff\xfe{}",
    "nested deep": b"[" * 100_000,
    "a key twice": b'{"event": "ev", "event": "ev", "version": 1, "accounts": []}',
    "another event": _bad(event="other"),
    "version 0": _bad(version=0),
    "version as text": _bad(version="5"),
    "version true": _bad(version=True),
    "an unknown field": _bad(extra=1),
    "accounts not a list": _bad(accounts={"ann": "referee"}),
    "a trailing newline in a name": _bad(a1_name="bo\n"),
    "a name with a space": _bad(a1_name="b o"),
    "an unknown role": _bad(a1_role="admin"),
    "a spectator": _bad(a1_role="spectator"),
    "a password in clear": _bad(a1_password_hash="bo-password-1"),
    "a hash of unknown kind": _bad(a1_password_hash="md5$abc$" + "0" * 32),
    "scrypt asking gigabytes": _bad(a1_password_hash=SCRYPT_HUGE),
    "pbkdf2 of 10^9 rounds": _bad(a1_password_hash="pbkdf2:sha256:999999999$abcdefgh$" + "0" * 64),
    "two names alike": _bad(a1_name="ANN"),
    "too many": _bad(accounts=[{"name": f"u{i}", "role": "viewer", "password_hash": HASH["bo"]} for i in range(2001)]),
    "too large": b'{"event": "ev", "pad": "' + b"x" * (1024 * 1024) + b'"}',
}


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_message_is_logged_and_changes_nothing(users_db: str, case: str,
                                                     caplog: pytest.LogCaptureFixture) -> None:
    t = table(users_db)
    t.on_payload(message(1, ("ann", "chief", "ann")))
    conn = db_of(users_db)
    token = users.open_session(conn, "ann")
    conn.close()
    before = dump(users_db)
    with caplog.at_level(logging.WARNING, logger="table_service.table.hub_accounts"):
        assert t.on_payload(BAD[case]) is None
        assert t.on_payload(BAD[case]) is None  # the retained copy again: logged once
    assert dump(users_db) == before, "a bad message changed the accounts (in part)"
    conn = db_of(users_db)
    assert users.session_user(conn, token) == users.User("ann", "chief")
    conn.close()
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 1 and "赛事账号消息无效：" in lines[0], lines
    assert " / event accounts message refused: " in lines[0], lines
    assert HASH["bo"] not in lines[0] and "bo-password-1" not in lines[0]


def test_a_database_from_before_event_accounts_keeps_every_account(tmp_path: Any) -> None:
    path = tmp_path / "old.sqlite3"
    raw = sqlite3.connect(path)
    raw.executescript("""
        CREATE TABLE users (name TEXT PRIMARY KEY, role TEXT NOT NULL CHECK (role IN ('viewer', 'referee', 'chief')),
                            password_hash TEXT NOT NULL, created_ms INTEGER NOT NULL);
        CREATE TABLE sessions (token_hash TEXT PRIMARY KEY, name TEXT NOT NULL, created_ms INTEGER NOT NULL,
                               expires_ms INTEGER NOT NULL);""")
    raw.executemany("INSERT INTO users VALUES (?, ?, ?, 1)", [("chen", "chief", HASH["ann"]), ("rita", "referee", HASH["bo"])])
    raw.commit()
    raw.close()
    conn = users.connect(path)
    assert users.scopes(conn) == {"chen": "local", "rita": "local"}
    assert users.authenticate(conn, "rita", PW["bo"]) == users.User("rita", "referee")
    users.add_user(conn, "sam", "spectator-pw-1", "spectator")  # the spectator role came with the rebuild
    conn.close()
    HubAccounts(str(path), "ev", "1").on_payload(message(1, ("ann", "viewer", "ann")))
    assert accounts(str(path)) == {"chen": ("chief", "local"), "rita": ("referee", "local"),
                                   "sam": ("spectator", "local"), "ann": ("viewer", "hub")}


def _post(client: Any, h: Any, url: str, data: dict[str, str]) -> Any:
    return client.post(url, data={"csrf_token": h.csrf_of(client), **data}, headers={"Accept": "application/json"})


def test_a_tables_page_lists_the_hubs_accounts_read_only(make_app: Any, h: Any, users_db: str) -> None:
    table(users_db).on_payload(message(7, ("ann", "referee", "ann"), ("rita", "chief", "rita")))
    app = make_app()
    c = app.test_client()
    h.login(c, "chen")
    page = c.get("/accounts/").get_data(as_text=True)
    assert 'data-user="ann" data-scope="hub"' in page and "来自赛事中心" in page
    assert "同名的本机账号优先" in page and '<span id="shadowed">rita</span>' in page
    assert 'id="add-event"' not in page  # a table marks no event accounts
    listed = {u["name"]: u for u in c.get("/accounts/", headers={"Accept": "application/json"}).get_json()["users"]}
    assert listed["ann"]["scope"] == "hub" and listed["rita"]["scope"] == "local"
    for url, data in (("/accounts/role", {"name": "ann", "role": "chief"}),
                      ("/accounts/password", {"name": "ann", "password": "x-new-pass-1", "password2": "x-new-pass-1"}),
                      ("/accounts/remove", {"name": "ann"})):
        r = _post(c, h, url, data)
        assert r.status_code == 400 and r.get_json()["error"] == users.FROM_HUB, (url, r.get_json())
    for url, data in (("/accounts/event", {"name": "rita", "event": "1"}),
                      ("/accounts/add", {"name": "neo", "role": "referee", "password": "neo-pass-12",
                                         "event": "1"})):
        r = _post(c, h, url, data)
        assert r.status_code == 400 and "本服务器不是赛事中心" in r.get_json()["error"], (url, r.get_json())
    assert accounts(users_db)["ann"] == ("referee", "hub") and "neo" not in accounts(users_db)
    # The hub's ann logs in at this table's panel.
    assert h.login(app.test_client(), "ann", PW["ann"]).status_code == 302
