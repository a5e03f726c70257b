"""Web settings refuse what they would otherwise turn into a wrong number (issue 19: silently
accepted values): TOML ``true`` is not a thread count, ``inf``/``nan`` is not a delay."""

from __future__ import annotations

import pytest

from table_service.web import config


@pytest.mark.parametrize(("key", "value"), [("SERVER_THREADS", True), ("FEED_MAX_STREAMS", False),
                                            ("FEED_DELAY_S", True), ("FEED_DELAY_S", "inf"),
                                            ("FEED_DELAY_S", "nan"), ("SSE_HEARTBEAT_S", float("inf")),
                                            ("MAX_CONTENT_LENGTH", 10), ("MAX_CONTENT_LENGTH", "abc")])
def test_bad_number_settings_are_refused_naming_the_key(key, value):
    with pytest.raises(config.ConfigError, match=key):
        config.build({key: value})


def test_environment_values_are_checked_the_same(monkeypatch):
    monkeypatch.setenv("GUANDAN_WEB_FEED_DELAY_S", "abc")
    with pytest.raises(config.ConfigError, match="FEED_DELAY_S"):
        config.build()
