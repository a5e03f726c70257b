"""The hub tests' accounts: each set hashed once per test process, copied for each test.

Passwords are hashed with scrypt, slow on purpose (about 0.1 s of CPU an account), and the event
tests build the hub's pages with two or three accounts for almost every test: hashed afresh each
time, that was seconds of the suite spent proving nothing. A fresh copy of the database for each
test keeps the tests apart (one that ends a login or changes a password changes only its copy).
"""

from __future__ import annotations

import functools
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from table_service.event.hub import HubService
from table_service.event.web import create_hub_app
from table_service.web import users

PASSWORD = "correct-horse-9"
#: The accounts of :func:`app_with_users`: a viewer, a referee and a chief.
THREE = {"vera": "viewer", "rita": "referee", "chen": "chief"}


@functools.cache
def _users_template(accounts: tuple[tuple[str, str], ...]) -> bytes:
    """The users' database holding ``accounts`` (name, role), all with :data:`PASSWORD`."""
    with tempfile.TemporaryDirectory() as tmp:
        conn = users.connect(f"{tmp}/users.sqlite3")
        for name, role in accounts:
            users.add_user(conn, name, PASSWORD, role)
        conn.close()
        return Path(f"{tmp}/users.sqlite3").read_bytes()


def users_db(path: Path, accounts: Mapping[str, str] = THREE) -> str:
    """A users' database at ``path`` with ``accounts`` (name -> role), a fresh copy of the one
    hashed once for this set of accounts; its path as a string (what the apps take)."""
    path.write_bytes(_users_template(tuple(accounts.items())))
    return str(path)


def app_with_users(hub: HubService, tmp_path: Path) -> Any:
    """The hub's pages over ``hub``, with a viewer (vera), a referee (rita) and a chief (chen)."""
    app = create_hub_app(hub, users_db=users_db(tmp_path / "users.sqlite3"))
    app.config["TESTING"] = True
    return app


def login(client: Any, name: str) -> str:
    """Log the test ``client`` in as ``name`` through the login form; the session's CSRF token."""
    token = client.get("/auth/whoami").get_json()["csrf_token"]
    assert client.post("/auth/login", data={"username": name, "password": PASSWORD, "csrf_token": token}
                       ).status_code == 302
    return str(client.get("/auth/whoami").get_json()["csrf_token"])
