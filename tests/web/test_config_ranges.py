"""Every web setting has a type and a range, and one outside it stops the app at start with the key
and what it allows, Chinese first (audit 26). Before, ``LOGIN_MAX_FAILURES = 0`` passed and every
login answered 500, ``LOGIN_WINDOW_S = 0`` turned the login limiter off without a word, and
``USERS_DB = 5`` made a database file named ``5``."""

from __future__ import annotations

import re
from typing import Any

import pytest

from table_service.cli import main
from table_service.web import config
from table_service.web.app import create_app
from table_service.web.config import ConfigError

#: (key, a value the app cannot work with, text of the allowed range the message must name).
BAD: list[tuple[str, Any, str]] = [
    ("LOGIN_MAX_FAILURES", 0, "1-100"),
    ("LOGIN_MAX_FAILURES", -1, "1-100"),
    ("LOGIN_WINDOW_S", 0, "10-86400 s"),
    ("LOGIN_WINDOW_S", -1, "10-86400 s"),
    ("SSE_HEARTBEAT_S", 0, "0.1-600 s"),
    ("SSE_HEARTBEAT_S", -1, "0.1-600 s"),
    ("SSE_HEARTBEAT_S", 1e300, "0.1-600 s"),
    ("SSE_BUFFER", -1, "1-65536"),
    ("SSE_BUFFER", 0, "1-65536"),
    ("SSE_BUFFER_BYTES", 0, "65536-268435456 bytes"),
    ("FEED_RECENT_PLAYS", -1, "0-100"),
    ("FEED_RECENT_PLAYS", 100_000_000, "0-100"),
    ("ACTION_WAIT_S", 0, "0.1-60 s"),
    ("ACTION_WAIT_S", 1e300, "0.1-60 s"),
    ("SERVER_THREADS", 100_000, "4-1000"),
    ("FEED_DELAY_S", 3601, "0-3600 s"),
    ("MAX_CONTENT_LENGTH", 100, "1024-67108864 bytes"),
]


def _toml_value(value: Any) -> str:
    return repr(value) if not isinstance(value, float) else f"{value:g}".replace("e+", "e")


@pytest.mark.parametrize(("key", "value", "allowed"), BAD)
def test_out_of_range_is_refused_from_a_file_naming_key_and_range(tmp_path, key, value, allowed):
    f = tmp_path / "web.toml"
    f.write_text(f"{key.lower()} = {_toml_value(value)}\n", encoding="utf-8")
    with pytest.raises(ConfigError) as info:
        config.build(config_file=str(f), environ={})
    message = str(info.value)
    assert key in message and allowed in message
    zh, _, en = message.partition(" / ")
    assert re.search("[\u4e00-\u9fff]", zh) and key in en  # Chinese first, then English


@pytest.mark.parametrize(("key", "value", "allowed"), BAD)
def test_out_of_range_is_refused_from_the_environment_and_by_create_app(tmp_path, key, value, allowed):
    with pytest.raises(ConfigError, match=re.escape(allowed)):
        config.build(environ={f"GUANDAN_WEB_{key}": str(value)})
    with pytest.raises(ConfigError, match=key):
        create_app({"USERS_DB": str(tmp_path / "u.db"), key: value})


@pytest.mark.parametrize(("key", "value"), [("SSE_BUFFER", 1.5), ("LOGIN_MAX_FAILURES", "five"),
                                            ("LOGIN_WINDOW_S", True), ("ACTION_WAIT_S", "nan")])
def test_a_wrong_type_names_the_key_and_its_range_too(key, value):
    with pytest.raises(ConfigError) as info:
        config.build({key: value}, environ={})
    low, high = config.RANGES[key][:2]
    assert key in str(info.value) and f"{config._show(low)}-{config._show(high)}" in str(info.value)


def test_the_login_limit_of_zero_from_the_environment_stops_the_app_not_every_login(tmp_path, monkeypatch):
    monkeypatch.setenv("GUANDAN_WEB_LOGIN_MAX_FAILURES", "0")
    with pytest.raises(ConfigError, match="LOGIN_MAX_FAILURES"):
        create_app({"USERS_DB": str(tmp_path / "u.db")})


@pytest.mark.parametrize("line", ["USERS_DB = 5", 'USERS_DB = ""', 'USERS_DB = "   "', "USERS_DB = true",
                                  "SECRET_KEY = 5", 'SESSION_COOKIE_SAMESITE = "None"', 'DEFAULT_LANG = "fr"'])
def test_text_settings_need_text(tmp_path, line):
    f = tmp_path / "web.toml"
    f.write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=line.split()[0]):
        config.build(config_file=str(f), environ={})


def test_a_secret_key_of_the_wrong_type_is_not_echoed():
    with pytest.raises(ConfigError) as info:
        config.build({"SECRET_KEY": ["hunter2-secret"]}, environ={})
    assert "hunter2" not in str(info.value)


def test_user_command_with_users_db_a_number_makes_no_file(tmp_path, monkeypatch, capsys):
    import io
    import sys

    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.toml").write_text("USERS_DB = 5\n", encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", io.StringIO("longenough1\n"))
    assert main(["user", "add", "carol", "--role", "viewer", "--config", "w.toml", "--password-stdin"]) == 2
    assert "USERS_DB" in capsys.readouterr().err
    assert not (tmp_path / "5").exists()


def test_every_bound_is_accepted_and_defaults_pass(tmp_path):
    config.build(environ={})  # the defaults
    for key, (low, high, _unit, _label) in config.RANGES.items():
        for value in (low, high):
            extra = {key: value}
            if key == "SERVER_THREADS":
                extra["FEED_MAX_STREAMS"] = 0  # below the thread count, as it must be
            assert config.build(extra, environ={})[key] == value


def test_feed_streams_stay_below_the_threads():
    config.build({"FEED_MAX_STREAMS": 0}, environ={})  # no public live stream is allowed
    with pytest.raises(ConfigError, match="FEED_MAX_STREAMS.*0-79"):
        config.build({"FEED_MAX_STREAMS": 80}, environ={})
    with pytest.raises(ConfigError, match="FEED_MAX_STREAMS"):
        config.build({"FEED_MAX_STREAMS": -1}, environ={})


def test_every_setting_has_a_type_and_a_check():
    """No setting is added without one: each default is a number with a range, a bool, a choice, or
    one of the few text settings checked by name."""
    for key in config.RANGES:
        assert (key in config._INT_KEYS) != (key in config._FLOAT_KEYS), key
    checked = set(config.RANGES) | set(config.CHOICES) | config._BOOL_KEYS | {"USERS_DB", "SECRET_KEY",
                                                                               "FEED_MAX_STREAMS"}
    assert set(config.DEFAULTS) <= checked, set(config.DEFAULTS) - checked
    assert set(config.RANGES) | {"FEED_MAX_STREAMS"} == config._INT_KEYS | config._FLOAT_KEYS
