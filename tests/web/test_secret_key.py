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
