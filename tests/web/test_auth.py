"""Login with hashed passwords, sessions, CSRF, and the failed-login limiter."""

from __future__ import annotations

import sqlite3

from table_service.web.security import LoginLimiter


def test_password_is_stored_hashed(users_db, h):
    rows = sqlite3.connect(users_db).execute("SELECT name, password_hash FROM users").fetchall()
    assert rows
    for _name, hashed in rows:
        assert h.PASSWORD not in hashed
        assert hashed.startswith(("scrypt:", "pbkdf2:"))


def test_login_sets_httponly_samesite_cookie(make_app, h):
    client = make_app().test_client()
    resp = h.login(client, "rita")
    assert resp.status_code == 302
    cookie = resp.headers["Set-Cookie"]
    assert "HttpOnly" in cookie
    assert "SameSite=Lax" in cookie
    who = client.get("/auth/whoami").get_json()
    assert who["user"] == "rita" and who["role"] == "referee"


def test_wrong_password_is_401_and_not_logged_in(make_app, h):
    client = make_app().test_client()
    resp = h.login(client, "rita", "wrong-password")
    assert resp.status_code == 401
    assert "错误" in resp.get_data(as_text=True)
    assert client.get("/auth/whoami").get_json()["user"] is None


def test_unknown_user_is_401(make_app, h):
    client = make_app().test_client()
    assert h.login(client, "nobody").status_code == 401


def test_login_without_csrf_token_is_refused(make_app, h):
    client = make_app().test_client()
    resp = client.post("/auth/login", data={"username": "rita", "password": h.PASSWORD})
    assert resp.status_code == 400
    assert "CSRF" in resp.get_data(as_text=True)
    assert client.get("/auth/whoami").get_json()["user"] is None


def test_post_with_wrong_csrf_token_is_refused(make_app, h):
    client = make_app().test_client()
    h.login(client, "rita")
    resp = client.post("/auth/logout", data={"csrf_token": "forged"})
    assert resp.status_code == 400
    assert client.get("/auth/whoami").get_json()["user"] == "rita"


def test_logout_needs_post_with_token(make_app, h):
    client = make_app().test_client()
    h.login(client, "rita")
    assert client.get("/auth/logout").status_code == 405
    resp = client.post("/auth/logout", data={"csrf_token": h.csrf_of(client)})
    assert resp.status_code == 302
    assert client.get("/auth/whoami").get_json()["user"] is None


def test_failed_logins_are_rate_limited(make_app, h):
    app = make_app(LOGIN_MAX_FAILURES=3)
    client = app.test_client()
    for _ in range(3):
        assert h.login(client, "rita", "bad-password").status_code == 401
    resp = h.login(client, "rita", h.PASSWORD)  # even the right password waits now
    assert resp.status_code == 429
    assert int(resp.headers["Retry-After"]) > 0
    assert client.get("/auth/whoami").get_json()["user"] is None
    # Another user from the same address is not locked by rita's failures.
    assert h.login(client, "chen").status_code == 302


def test_limiter_window_expires():
    now = [0.0]
    lim = LoginLimiter(2, 60.0, clock=lambda: now[0])
    lim.failed("1.2.3.4", "rita")
    lim.failed("1.2.3.4", "rita")
    assert lim.retry_after("1.2.3.4", "rita") == 60.0
    assert lim.retry_after("5.6.7.8", "rita") == 0.0
    now[0] = 30.0
    assert lim.retry_after("1.2.3.4", "rita") == 30.0
    now[0] = 60.5
    assert lim.retry_after("1.2.3.4", "rita") == 0.0


def test_limiter_stops_password_spraying_across_names():
    lim = LoginLimiter(2, 60.0, clock=lambda: 0.0)
    for i in range(8):
        lim.failed("9.9.9.9", f"user{i}")
    assert lim.retry_after("9.9.9.9", "fresh-name") > 0


def test_open_redirect_is_not_followed(make_app, h):
    client = make_app().test_client()
    token = h.csrf_of(client)
    resp = client.post("/auth/login?next=//evil.example/x",
                       data={"username": "rita", "password": h.PASSWORD, "csrf_token": token})
    assert resp.status_code == 302
    assert "evil" not in resp.headers["Location"]


def test_pages_redirect_to_login_and_api_says_401(make_app, h):
    client = make_app().test_client()
    resp = client.get("/")
    assert resp.status_code == 302 and "/auth/login" in resp.headers["Location"]
    resp = client.get("/api/tables")
    assert resp.status_code == 401
    assert "login" in resp.get_json()["error"]


def test_removed_user_loses_session_at_once(make_app, users_db, h):
    from table_service.web import users

    client = make_app().test_client()
    h.login(client, "rita")
    assert client.get("/api/tables").status_code == 200
    conn = users.connect(users_db)
    users.remove_user(conn, "rita")
    conn.close()
    assert client.get("/api/tables").status_code == 401


def test_a_next_with_a_line_break_or_backslash_is_not_followed(make_app, h):
    """A CR/LF in ``next`` would split the Location header (a 500 after a good login); a backslash is
    read by browsers as a slash (``/\\evil`` is ``//evil``). Both go to the panel instead."""
    client = make_app().test_client()
    for nxt in ("/%0d%0aSet-Cookie:x=1", "/\\evil.example/x"):
        resp = client.post(f"/auth/login?next={nxt}",
                           data={"username": "rita", "password": h.PASSWORD, "csrf_token": h.csrf_of(client)})
        assert resp.status_code == 302, nxt
        assert "evil" not in resp.headers["Location"] and "Set-Cookie" not in resp.headers["Location"]
        client.post("/auth/logout", data={"csrf_token": h.csrf_of(client)})
