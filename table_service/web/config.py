"""Configuration of the web panel and feeds.

Settings come, in increasing priority, from the defaults below, a TOML file (``GUANDAN_WEB_CONFIG``
or the ``config_file`` argument), environment variables ``GUANDAN_WEB_<KEY>`` and finally the
mapping a caller passes to :func:`table_service.web.app.create_app` (tests). A typo in a key name is an
error, not a silently ignored setting: a referee who sets ``FEED_DELAY_SECOND = 600`` must not get a
live, undelayed broadcast.
"""

from __future__ import annotations

import math
import os
import secrets
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

#: Default settings. Keys are upper case, as Flask expects.
DEFAULTS: dict[str, Any] = {
    # SQLite file that holds panel users (name, role, password hash).
    "USERS_DB": "data/web-users.sqlite3",
    # Signing key of the session cookie; generated per process when not configured, so that a Pi
    # without configuration is still safe (sessions just do not survive a restart).
    "SECRET_KEY": None,
    # Broadcast delay in seconds (0-3600) applied on the Pi before anything is public.
    "FEED_DELAY_S": 0.0,
    # Duplicate (复式) mode: nothing of a deal is public until the organiser releases it.
    "FEED_DUPLICATE": False,
    # How many recent plays the public feed carries.
    "FEED_RECENT_PLAYS": 8,
    # Failed logins allowed per (client address, user name) within the window before lock-out.
    "LOGIN_MAX_FAILURES": 5,
    "LOGIN_WINDOW_S": 300.0,
    # Seconds between SSE keep-alive comments (lets a dead client be noticed and freed).
    "SSE_HEARTBEAT_S": 15.0,
    # Events kept in memory per table for resuming streams with Last-Event-ID (count and bytes;
    # a client that missed more gets a snapshot instead).
    "SSE_BUFFER": 4096,
    "SSE_BUFFER_BYTES": 8 * 1024 * 1024,
    # Worker threads of the cheroot server: every open SSE stream holds one.
    "SERVER_THREADS": 80,
    # Open public feed streams allowed at once (all tables together). The feed needs no login, so
    # without a cap, anyone could hold every worker thread and starve the referees' panels.
    "FEED_MAX_STREAMS": 40,
    # Session cookie flags (HttpOnly is always on). Secure is for deployments behind TLS.
    # Lax, not Strict: the chief's overview on the hub links to each table's panel on another Pi
    # (another site), and Strict leaves the cookie behind on that tap, so it lands on a login page
    # every time.  Lax still keeps it off cross-site POSTs; every form and action carries a CSRF token.
    "SESSION_COOKIE_SECURE": False,
    "SESSION_COOKIE_SAMESITE": "Lax",
    # Seconds an action waits for the engine's verdict; after that it is answered 202 "pending"
    # (still queued: it will be applied or refused). A referee's action is decided in milliseconds.
    "ACTION_WAIT_S": 5.0,
    "DEFAULT_LANG": "zh",
    # Largest request body accepted (bytes); a larger one answers 413 before it is read. Referee
    # actions are a few hundred bytes; nothing the panel sends comes near this.
    "MAX_CONTENT_LENGTH": 64 * 1024,
}

_BOOL_KEYS = {"FEED_DUPLICATE", "SESSION_COOKIE_SECURE", "TESTING", "DEBUG"}
_FLOAT_KEYS = {"FEED_DELAY_S", "LOGIN_WINDOW_S", "SSE_HEARTBEAT_S", "ACTION_WAIT_S"}
_INT_KEYS = {"FEED_RECENT_PLAYS", "LOGIN_MAX_FAILURES", "SSE_BUFFER", "SERVER_THREADS", "FEED_MAX_STREAMS",
             "SSE_BUFFER_BYTES", "MAX_CONTENT_LENGTH"}
#: Keys accepted besides DEFAULTS (Flask's own, and objects passed in by the service or tests).
_EXTRA_KEYS = {"TESTING", "DEBUG", "TABLES", "FEED_CLOCK", "SERVER_NAME", "WTF_CSRF_ENABLED"}

ENV_PREFIX = "GUANDAN_WEB_"


class ConfigError(ValueError):
    """A setting is unknown or has a value of the wrong kind (a ValueError, so the CLI prints it)."""


def _coerce(key: str, value: Any) -> Any:
    """Turn a value from TOML or the environment into the type the key needs, or raise."""
    try:
        if key in _BOOL_KEYS:
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in {"1", "true", "yes", "on"}:
                return True
            if text in {"0", "false", "no", "off"}:
                return False
            raise ValueError(value)
        if (key in _FLOAT_KEYS or key in _INT_KEYS) and isinstance(value, bool):
            raise ValueError(value)  # TOML true is not a number (int(True) would be 1)
        if key in _FLOAT_KEYS:
            number = float(value)
            if not math.isfinite(number):
                raise ValueError(value)
            return number
        if key in _INT_KEYS:
            if isinstance(value, float) and not value.is_integer():
                raise ValueError(value)
            return int(value)
    except (TypeError, ValueError):
        raise ConfigError(f"配置项 {key} 的值无效 / invalid value for {key}: {value!r}") from None
    return value


def validate(config: Mapping[str, Any]) -> None:
    """Check ranges that matter for the broadcast's fairness; raise :class:`ConfigError`."""
    delay = config.get("FEED_DELAY_S", 0.0)
    if not 0.0 <= float(delay) <= 3600.0:
        raise ConfigError(f"直播延时须在 0–3600 秒之间 / FEED_DELAY_S must be 0-3600 s, got {delay!r}")
    if config.get("SESSION_COOKIE_SAMESITE") not in {"Strict", "Lax"}:
        raise ConfigError("SESSION_COOKIE_SAMESITE 须为 Strict 或 Lax / must be 'Strict' or 'Lax'")
    if int(config.get("SERVER_THREADS", 1)) < 4:
        raise ConfigError("SERVER_THREADS 至少为 4 / must be at least 4")
    if not 0 <= int(config.get("FEED_MAX_STREAMS", 0)) < int(config.get("SERVER_THREADS", 1)):
        raise ConfigError("FEED_MAX_STREAMS 须小于 SERVER_THREADS / FEED_MAX_STREAMS must be below SERVER_THREADS, "
                          "so that referees always find a free worker")
    if not 1024 <= int(config.get("MAX_CONTENT_LENGTH", 65536)) <= 64 * 1024 * 1024:
        raise ConfigError("MAX_CONTENT_LENGTH 须在 1 KiB–64 MiB / must be 1 KiB-64 MiB")
    if config.get("DEFAULT_LANG") not in {"zh", "en"}:
        raise ConfigError("DEFAULT_LANG 须为 zh 或 en / must be 'zh' or 'en'")


def normalise(raw: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """Upper-case keys, reject unknown ones and coerce values; ``origin`` names the source in errors."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = str(key).upper()
        if name not in DEFAULTS and name not in _EXTRA_KEYS:
            raise ConfigError(f"未知配置项 {key!r}（来自 {origin}）/ unknown setting {key!r} in {origin}")
        out[name] = _coerce(name, value)
    return out


def load_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a TOML settings file: the ``[web]`` table if there is one, else the top-level keys.

    :raises ConfigError: file missing, not TOML, or an unknown key in the web settings.
    """
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"找不到配置文件 / config file not found: {p}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"配置文件格式错误 / invalid TOML in {p}: {exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"配置文件不是 UTF-8 文本 / the config file {p} is not UTF-8 text (is it the right file?)") from None
    except IsADirectoryError:
        raise ConfigError(f"配置文件是文件夹 / the config file {p} is a folder") from None
    if "web" in data:
        section = data["web"]
        if not isinstance(section, dict):
            raise ConfigError(f"[web] 须为表 / [web] must be a table in {p}")
    else:
        # A file of web settings only: top-level keys. Other tables ([camera], [screen] … of the
        # service's table.toml) belong to other parts and are left to them.
        section = {k: v for k, v in data.items() if not isinstance(v, dict)}
    return normalise(section, f"{p} [web]" if "web" in data else str(p))


def from_environment(environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Collect ``GUANDAN_WEB_*`` variables (except ``GUANDAN_WEB_CONFIG``, the file path)."""
    env = os.environ if environ is None else environ
    raw = {
        k[len(ENV_PREFIX):]: v
        for k, v in env.items()
        if k.startswith(ENV_PREFIX) and k != ENV_PREFIX + "CONFIG"
    }
    return normalise(raw, "environment")


def build(test_config: Mapping[str, Any] | None = None, config_file: str | None = None,
          environ: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Merge defaults, file, environment and explicit settings into one validated dict."""
    env = os.environ if environ is None else environ
    merged: dict[str, Any] = dict(DEFAULTS)
    path = config_file or env.get(ENV_PREFIX + "CONFIG")
    if path:
        merged.update(load_file(path))
    merged.update(from_environment(env))
    if test_config:
        merged.update(normalise(test_config, "create_app()"))
    if not merged.get("SECRET_KEY"):
        merged["SECRET_KEY"] = secrets.token_hex(32)
    validate(merged)
    return merged
