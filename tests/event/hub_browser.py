"""Helpers of the hub's browser tests: a hub served on a free port with accounts, and a page logged in
through the real login form."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from table_service.event.hub import HubService
from table_service.event.web import serve_hub
from table_service.web import users

PASSWORD = "correct-horse-9"


def serve_with_accounts(hub: HubService, folder: Path, accounts: dict[str, str]) -> Any:
    """The hub's pages over ``hub`` on a free port (``.url``, ``.stop()``), with ``accounts`` (name -> role)."""
    db = str(folder / "users.sqlite3")
    conn = users.connect(db)
    for name, role in accounts.items():
        users.add_user(conn, name, PASSWORD, role)
    conn.close()
    return serve_hub(hub, port=0, users_db=db)


def log_in(page: Any, url: str, who: str, target: str) -> None:
    """Log ``page`` in as ``who`` through the login form, landing on ``target``."""
    page.goto(f"{url}/auth/login?next={target}")
    page.fill("#username", who)
    page.fill("#password", PASSWORD)
    page.click("#login-submit")
