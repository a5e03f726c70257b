"""Settings: defaults, TOML file, environment, explicit mapping; typos are errors."""

from __future__ import annotations

import pytest

from table_service.web import config
from table_service.web.app import create_app
from table_service.web.config import ConfigError


def test_layers_in_order(tmp_path):
    f = tmp_path / "web.toml"
    f.write_text('[web]\nfeed_delay_s = 30\nfeed_duplicate = true\nlogin_max_failures = 3\n', encoding="utf-8")
    env = {"GUANDAN_WEB_CONFIG": str(f), "GUANDAN_WEB_FEED_DELAY_S": "45"}
    got = config.build({"LOGIN_MAX_FAILURES": 7}, environ=env)
    assert got["FEED_DELAY_S"] == 45.0          # environment beats file
    assert got["FEED_DUPLICATE"] is True         # from file
    assert got["LOGIN_MAX_FAILURES"] == 7        # explicit beats all
    assert len(got["SECRET_KEY"]) >= 32          # generated when not configured


def test_unknown_key_in_file_is_an_error(tmp_path):
    f = tmp_path / "web.toml"
    f.write_text("feed_delay_second = 600\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="feed_delay_second"):
        config.build(config_file=str(f), environ={})


def test_unknown_env_key_is_an_error():
    with pytest.raises(ConfigError, match="FEED_DELAYS"):
        config.build(environ={"GUANDAN_WEB_FEED_DELAYS": "3"})


@pytest.mark.parametrize("delay", [-1, 3601, "soon"])
def test_delay_out_of_range(delay):
    with pytest.raises(ConfigError):
        config.build({"FEED_DELAY_S": delay}, environ={})


def test_bad_toml_names_the_file(tmp_path):
    f = tmp_path / "web.toml"
    f.write_text("feed_delay_s = = 3\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="web.toml"):
        config.build(config_file=str(f), environ={})


def test_factory_uses_settings_and_cookie_flags(tmp_path):
    app = create_app({"TESTING": True, "USERS_DB": str(tmp_path / "u.db"), "FEED_DELAY_S": 12})
    assert app.config["FEED_DELAY_S"] == 12.0
    assert app.config["SESSION_COOKIE_HTTPONLY"] is True
    assert app.config["SESSION_COOKIE_SAMESITE"] == "Lax"  # the hub links to each table's panel (another site)
    assert set(app.blueprints) >= {"auth", "panel", "api", "feed"}


def test_service_toml_with_other_sections(tmp_path):
    f = tmp_path / "table.toml"
    f.write_text('[camera]\ndevice = 0\n\n[web]\nfeed_delay_s = 60\n', encoding="utf-8")
    assert config.build(config_file=str(f), environ={})["FEED_DELAY_S"] == 60.0
    f.write_text('feed_delay_s = 5\n[camera]\ndevice = 0\n', encoding="utf-8")
    assert config.build(config_file=str(f), environ={})["FEED_DELAY_S"] == 5.0
    f.write_text('[web]\nfeed_dely_s = 60\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"feed_dely_s.*\[web\]"):
        config.build(config_file=str(f), environ={})
