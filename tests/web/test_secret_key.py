"""A restart keeps everyone logged in: the session key is drawn once and kept in the data folder."""

from __future__ import annotations

import stat
from pathlib import Path

from table_service.web.app import create_app
from table_service.web.secret_key import SECRET_KEY_FILE, kept_secret_key


def test_the_key_is_drawn_once_owner_only_and_read_back(tmp_path: Path) -> None:
    key = kept_secret_key(tmp_path / "data")
    path = tmp_path / "data" / SECRET_KEY_FILE
    assert key is not None and len(key) == 64
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert kept_secret_key(tmp_path / "data") == key
    path.write_text("short\n")  # damaged: a new one, kept
    again = kept_secret_key(tmp_path / "data")
    assert again != key and kept_secret_key(tmp_path / "data") == again


def test_a_folder_that_cannot_hold_it_draws_one_for_the_run(tmp_path: Path) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("x")
    assert kept_secret_key(blocker / "data") is None


def test_a_session_cookie_outlives_a_restart_of_the_app(tmp_path: Path, users_db: str, h) -> None:
    """Two apps one after the other over the same folder: the login of the first is good in the second."""
    def app():
        return create_app({"TESTING": True, "USERS_DB": users_db, "SECRET_KEY": kept_secret_key(tmp_path)})

    first = app().test_client()
    h.login(first, "rita")
    cookie = first.get_cookie("guandan_session")
    assert cookie is not None
    second = app().test_client()
    second.set_cookie("guandan_session", cookie.value)
    who = second.get("/auth/whoami", headers={"Accept": "application/json"})
    assert who.status_code == 200 and who.get_json()["user"] == "rita"


def test_the_table_service_keeps_it_unless_table_toml_names_one(tmp_path: Path) -> None:
    from table_service.table.config import parse_service_config
    from table_service.table.service import TableService

    base = {"table_id": "T1", "data_dir": str(tmp_path / "data"), "seats": {"E": "e", "S": "s", "W": "w", "N": "n"},
            "devices": {"default": "sim"}, "camera": {"source": "none"}}
    one = TableService(parse_service_config(base), web=False, mqtt=False)._web_settings()["SECRET_KEY"]
    two = TableService(parse_service_config(base), web=False, mqtt=False)._web_settings()["SECRET_KEY"]
    assert one == two == (tmp_path / "data" / SECRET_KEY_FILE).read_text().strip()
    named = parse_service_config({**base, "web": {"secret_key": "k" * 40}})
    assert TableService(named, web=False, mqtt=False)._web_settings()["SECRET_KEY"] == "k" * 40


def test_a_form_sent_after_the_login_ended_goes_back_to_its_page_saying_it_was_not_done(client, h, users_db) -> None:
    """Not to the form's own URL after login (a GET of an action: 405, the action lost unsaid)."""
    from table_service.web import users

    h.login(client, "chen")
    conn = users.connect(users_db)
    users.close_sessions(conn, "chen")  # the login ends: a page left open overnight
    conn.close()
    token = h.csrf_of(client)
    res = client.post("/accounts/add", data={"csrf_token": token, "name": "newref", "role": "referee",
                                             "password": "long-enough-1"},
                      headers={"Referer": "http://localhost/accounts/"})
    assert res.status_code == 302
    location = res.headers["Location"]
    assert "/auth/login" in location and "next=/accounts/" in location and "ended=1" in location
    page = client.get(location).get_data(as_text=True)
    assert "刚才的操作未执行" in page
    conn = users.connect(users_db)
    assert users.get_user(conn, "newref") is None  # it was not done
    conn.close()
    # The login form carries the page on: logging in lands there.
    after = client.post(location, data={"username": "chen", "password": "correct-horse-9",
                                        "csrf_token": h.csrf_of(client)})
    assert after.status_code == 302 and after.headers["Location"].endswith("/accounts/")


def test_an_api_call_with_a_token_it_cannot_check_is_refused_in_words_not_sent_to_the_login_page(client) -> None:
    """A JSON API's caller reads a status: a form-encoded POST there with a stale token and no session
    was answered 302 to the HTML login page, which no operation of docs/openapi.json lists."""
    for path in ("/api/tables/1/actions", "/api/tables/1/feed/release", "/api/tables/1/camera/relearn"):
        res = client.post(path, data={"csrf_token": "stale-token-from-an-old-page"})
        assert res.status_code == 400, path
        assert "CSRF" in res.get_data(as_text=True)
