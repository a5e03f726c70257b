"""Server-side sessions (issue 19, web item 2): a cookie is worth nothing once its session ends.

A cookie copied before a logout, a password change or the account's removal must stop working at
once — the panel cannot rely on the browser forgetting it.
"""

from __future__ import annotations

import queue
import sqlite3

import pytest

from table_service.web import users
from table_service.web.sseclient import SSEClient


def _saved_cookie_client(app, client):
    """A second client that carries a copy of ``client``'s session cookie (a stolen/saved cookie)."""
    cookie = client.get_cookie("guandan_session")
    other = app.test_client()
    other.set_cookie("guandan_session", cookie.value)
    return other


def test_saved_cookie_stops_working_after_logout(app, client, h):
    h.login(client, "rita")
    saved = _saved_cookie_client(app, client)
    assert saved.get("/api/tables").status_code == 200
    assert client.post("/auth/logout", data={"csrf_token": h.csrf_of(client)}).status_code == 302
    resp = saved.get("/api/tables")
    assert resp.status_code == 401
    assert "login" in resp.get_json()["error"]


def test_password_change_ends_every_session(app, client, users_db, h):
    h.login(client, "rita")
    saved = _saved_cookie_client(app, client)
    other_device = app.test_client()
    h.login(other_device, "rita")
    conn = users.connect(users_db)
    users.set_password(conn, "rita", "a-new-password-1")
    conn.close()
    for c in (client, saved, other_device):
        assert c.get("/api/tables").status_code == 401
    assert h.login(app.test_client(), "rita", "a-new-password-1").status_code == 302


def test_removing_the_account_ends_its_sessions_at_once(app, client, users_db, h):
    h.login(client, "chen")
    assert client.get("/api/tables").status_code == 200
    conn = users.connect(users_db)
    users.remove_user(conn, "chen")
    conn.close()
    assert client.get("/api/tables").status_code == 401
    # Re-creating an account of the same name does not revive the old session.
    conn = users.connect(users_db)
    users.add_user(conn, "chen", h.PASSWORD, "chief")
    conn.close()
    assert client.get("/api/tables").status_code == 401


def test_logout_of_one_device_keeps_the_others(app, h):
    tablet, laptop = app.test_client(), app.test_client()
    h.login(tablet, "rita")
    h.login(laptop, "rita")
    tablet.post("/auth/logout", data={"csrf_token": h.csrf_of(tablet)})
    assert tablet.get("/api/tables").status_code == 401
    assert laptop.get("/api/tables").status_code == 200


def test_the_server_keeps_only_token_hashes(app, client, users_db, h):
    h.login(client, "rita")
    rows = sqlite3.connect(users_db).execute("SELECT token_hash, name FROM sessions").fetchall()
    assert [r[1] for r in rows] == ["rita"]
    # The signed cookie carries the token; the database must not (a leaked DB is no login).
    from flask.sessions import SecureCookieSessionInterface

    serializer = SecureCookieSessionInterface().get_signing_serializer(app)
    token = serializer.loads(client.get_cookie("guandan_session").value)["sid"]
    assert token and all(token not in r[0] for r in rows)


def test_expired_session_is_refused(users_db):
    conn = users.connect(users_db)
    token = users.open_session(conn, "rita", now_ms=1_000, lifetime_ms=10)
    assert users.session_user(conn, token, now_ms=1_005) == users.User("rita", "referee")
    assert users.session_user(conn, token, now_ms=1_010) is None
    assert users.session_user(conn, "forged", now_ms=1_005) is None
    conn.close()


def test_an_open_live_stream_ends_when_its_login_does(app, client, runner, serve_app, users_db, h):
    """The live panel stream is one request lasting hours: logging its account out (here, every
    session of it ended on the server) ends the stream within seconds, and nothing more reaches it;
    another referee's stream goes on and gets the next event."""
    h.setup_deal(runner)
    srv = serve_app(app)
    streams = {}
    for name in ("vera", "rita"):
        c = app.test_client()
        h.login(c, name)
        streams[name] = SSEClient(srv.host, srv.port, "/api/tables/1/stream", headers={"Cookie": h.session_cookie(c)})
        assert streams[name].status == 200 and streams[name].get().event == "snapshot"
    conn = users.connect(users_db)
    users.close_sessions(conn, "vera")
    conn.close()
    h.wait_for(lambda: streams["vera"].ended, timeout=15)
    assert runner.submit({"type": "cards_played", "source": "camera",
                          "data": {"seat": "N", "cards": ["9h"], "uncertain": True, "confidence": [0.3]}}).accepted
    assert streams["rita"].get(10).event == "update"
    with pytest.raises(queue.Empty):
        streams["vera"].get(0.5)
    for s in streams.values():
        s.close()
