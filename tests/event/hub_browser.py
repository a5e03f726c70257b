"""Helpers of the hub's browser tests: a hub served on a free port with accounts, a page logged in
through the real login form, and a table's message as the broker hands it to the hub."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hub_accounts import PASSWORD, users_db

from table_service.event.hub import HubService
from table_service.event.web import serve_hub

# PASSWORD: hub_accounts', for this module's importers
__all__ = ["PASSWORD", "log_in", "serve_with_accounts", "table_message"]


def serve_with_accounts(hub: HubService, folder: Path, accounts: dict[str, str]) -> Any:
    """The hub's pages over ``hub`` on a free port (``.url``, ``.stop()``), with ``accounts`` (name -> role)."""
    return serve_hub(hub, port=0, users_db=users_db(folder / "users.sqlite3", accounts))


def log_in(page: Any, url: str, who: str, target: str) -> None:
    """Log ``page`` in as ``who`` through the login form, landing on ``target``."""
    page.goto(f"{url}/auth/login?next={target}")
    page.fill("#username", who)
    page.fill("#password", PASSWORD)
    page.click("#login-submit")


def table_message(table: str, topic: str, body: dict[str, Any]) -> tuple[str, str, bytes, bool]:
    """A table's message as the broker hands it to :meth:`HubService.handle_batch`: ``(table, topic,
    payload, retained)``, retained on every topic but ``result``. One copy for the tests that drive the
    hub without a broker (their ``_status`` and ``_summary`` differ, each its own event and clock)."""
    return table, topic, json.dumps(body).encode(), topic != "result"
