"""A ``spectator`` account sees only the delayed public view; ``viewer`` stays for officials
(issue 26: a viewer account sees the live referee view, so a spectator given one defeats the
broadcast delay)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from table_service.web import users

LIVE = ["/tables/1", "/tables/1/scoresheet", "/api/tables", "/api/tables/1/state", "/api/tables/1/events",
        "/api/tables/1/clock"]


def _with_spectator(users_db: str) -> None:
    conn = users.connect(users_db)
    users.add_user(conn, "sam", "spectator-pw-1", "spectator")
    conn.close()


def test_a_spectator_gets_only_the_delayed_feed(make_app: Any, runner: Any, users_db: str, h: Any) -> None:
    _with_spectator(users_db)
    app = make_app(TABLES={"1": runner}, FEED_DELAY_S=30.0)
    c = app.test_client()
    h.login(c, "sam", "spectator-pw-1")
    home = c.get("/")
    assert home.status_code == 200
    page = home.get_data(as_text=True)
    assert "/feed/1/overlay" in page and 'href="/tables/1"' not in page
    for url in LIVE:
        assert c.get(url, headers={"Accept": "application/json"}).status_code == 403, url
    assert c.get("/feed/1/state.json").status_code == 200
    # An official's viewer account still has the live view.
    v = app.test_client()
    h.login(v, "vera")
    assert v.get("/tables/1").status_code == 200 and v.get("/api/tables/1/state").status_code == 200
    assert 'href="/tables/1"' in v.get("/").get_data(as_text=True)


def test_a_users_database_from_before_the_spectator_role_takes_one(tmp_path: Path) -> None:
    db = tmp_path / "old.sqlite3"
    old = sqlite3.connect(db)
    old.executescript("""
        CREATE TABLE users (name TEXT PRIMARY KEY,
            role TEXT NOT NULL CHECK (role IN ('viewer', 'referee', 'chief')),
            password_hash TEXT NOT NULL, created_ms INTEGER NOT NULL);
        CREATE TABLE sessions (token_hash TEXT PRIMARY KEY, name TEXT NOT NULL, created_ms INTEGER NOT NULL,
            expires_ms INTEGER NOT NULL);""")
    from werkzeug.security import generate_password_hash

    old.execute("INSERT INTO users VALUES ('rita', 'referee', ?, 1)", (generate_password_hash("referee-pw-1"),))
    old.commit()
    old.close()
    conn = users.connect(db)
    users.add_user(conn, "sam", "spectator-pw-1", "spectator")
    assert users.authenticate(conn, "rita", "referee-pw-1") == users.User("rita", "referee")
    assert users.authenticate(conn, "sam", "spectator-pw-1") == users.User("sam", "spectator")
    conn.close()


def test_the_hubs_live_overview_is_not_for_spectators(tmp_path: Path, users_db: str, h: Any) -> None:
    from table_service.event.config import validate
    from table_service.event.hub import HubService
    from table_service.event.web import create_hub_app

    _with_spectator(users_db)
    hub = HubService(validate({"event": {"id": "s1", "name": "观众", "rounds": 1},
                               "teams": [{"id": "A"}, {"id": "B"}]}), tmp_path / "hub", connect=False)
    try:
        app = create_hub_app(hub, users_db=users_db)
        c = app.test_client()
        h.login(c, "sam", "spectator-pw-1")
        assert c.get("/hub/api/overview").status_code == 403
        assert c.get("/hub/api/board").status_code == 200  # the public board stays public
    finally:
        hub.stop()
