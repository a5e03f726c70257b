"""Configuration of the web panel and feeds.

Settings come, in increasing priority, from the defaults below, a TOML file (``GUANDAN_WEB_CONFIG``
or the ``config_file`` argument), environment variables ``GUANDAN_WEB_<KEY>`` and finally the
mapping a caller passes to :func:`table_service.web.app.create_app` (tests). A typo in a key name is an
error, not a silently ignored setting: a referee who sets ``FEED_DELAY_SECOND = 600`` must not get a
live, undelayed broadcast. So is a value out of its range (:data:`RANGES`, :data:`CHOICES`, why for
each bound beside it): a setting the app cannot work with stops it at start, naming the key and
what it allows, rather than answering 500 at the first login or turning a guard off.

The file may be the table service's ``table.toml``: then only its ``[web]`` counts, with the keys
the service gives it, and the users database is the one ``guandan-table run`` opens.
"""

from __future__ import annotations

import math
import os
import secrets
import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hardware.errors import not_regular_file

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
    # How many recent plays the public feed carries (the commentator page lists them: the deal's last ten).
    "FEED_RECENT_PLAYS": 10,
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

_BOOL_KEYS = {"FEED_DUPLICATE", "SESSION_COOKIE_SECURE", "TESTING", "DEBUG", "WTF_CSRF_ENABLED"}
_FLOAT_KEYS = {"FEED_DELAY_S", "LOGIN_WINDOW_S", "SSE_HEARTBEAT_S", "ACTION_WAIT_S"}
_INT_KEYS = {"FEED_RECENT_PLAYS", "LOGIN_MAX_FAILURES", "SSE_BUFFER", "SERVER_THREADS", "FEED_MAX_STREAMS",
             "SSE_BUFFER_BYTES", "MAX_CONTENT_LENGTH"}

#: Allowed range of every number setting, both ends included: key -> (low, high, unit, what it is
#: in Chinese). A value the validator passes must be one the app works with: out of range, the
#: settings used to be taken and then fail at the first login (500), turn a guard off without a word,
#: or spin a thread. ``FEED_MAX_STREAMS`` is checked against ``SERVER_THREADS`` (below it) instead.
RANGES: dict[str, tuple[float, float, str, str]] = {
    # 0: live broadcast. Above an hour the public sees a deal long after the hall did and the feed
    # holds an hour of the table's events in memory; a larger number is minutes typed as seconds.
    "FEED_DELAY_S": (0.0, 3600.0, "s", "直播延时"),
    # 0: the public state lists no recent plays (negative ones listed the wrong plays: ``[-(-1):]``).
    # 100 is more than a deal's worth an overlay can show; every public message carries the list,
    # and ``SSE_BUFFER`` of them are kept, so 10^8 would only cost memory.
    "FEED_RECENT_PLAYS": (0, 100, "", "公开的最近出牌数"),
    # At least 1: 0 or fewer crashed every login (500), there being no failure to count back to.
    # At most 100 per name (400 per address) per window: more is not a limit on guessing any more.
    "LOGIN_MAX_FAILURES": (1, 100, "", "登录失败次数上限"),
    # At least 10 s: 0 or a negative window forgot each failure at once and so turned the limiter
    # off without a word; under ten seconds a lock-out lasts no longer than typing the next guess.
    # At most a day: a referee who mistyped is never locked out past the event day.
    "LOGIN_WINDOW_S": (10.0, 86400.0, "s", "登录失败计数窗口"),
    # At least 0.1 s: 0 or a negative interval sends keep-alives in a busy loop, a thread per stream
    # at full speed. At most 10 minutes: a tablet that vanished (no close) is noticed only at the next
    # keep-alive and holds its worker thread until then, and proxies drop quieter connections anyway.
    "SSE_HEARTBEAT_S": (0.1, 600.0, "s", "推送心跳间隔"),
    # At least 1 message (fewer was silently taken as 1). At most 65,536: the public feed keeps this
    # many public states per table, not capped by SSE_BUFFER_BYTES, on a Pi with a few GiB.
    "SSE_BUFFER": (1, 65536, "", "推送缓存条数"),
    # At least 64 KiB (a panel message carries the full table state; less keeps only the last one).
    # At most 256 MiB per table: more than a Pi can spare for resuming streams.
    "SSE_BUFFER_BYTES": (64 * 1024, 256 * 1024 * 1024, "bytes", "推送缓存字节数"),
    # At least 4: the panel needs a request thread beside its own stream, and referees a free worker
    # beside the feed's streams. At most 1,000: each is an OS thread with its own stack.
    "SERVER_THREADS": (4, 1000, "", "服务线程数"),
    # At least 0.1 s: at 0 every action is answered 202 "pending" though the engine decides in
    # milliseconds, so a referee never sees a refusal. At most a minute: the tap hangs that long and
    # holds a worker thread; 1e300 overflowed the wait itself (500).
    "ACTION_WAIT_S": (0.1, 60.0, "s", "操作等待裁决秒数"),
    # At least 1 KiB: a login form or a referee's action must fit. At most 64 MiB: the body is read
    # into memory before it is checked (the hub's deck upload has its own, larger limit).
    "MAX_CONTENT_LENGTH": (1024, 64 * 1024 * 1024, "bytes", "请求体上限"),
}
#: Settings with one of a few text values: key -> the values.
CHOICES: dict[str, tuple[str, ...]] = {
    # Not "None": the cookie would then go along with cross-site requests (the CSRF token still
    # guards them, but nothing needs it); Lax, not Strict, is explained in DEFAULTS.
    "SESSION_COOKIE_SAMESITE": ("Strict", "Lax"),
    # The two languages the panel has strings for.
    "DEFAULT_LANG": ("zh", "en"),
}
_UNITS = {"s": ("秒", " s"), "bytes": ("字节", " bytes"), "": ("", "")}

#: Keys accepted besides DEFAULTS (Flask's own, and objects passed in by the service or tests).
_EXTRA_KEYS = {"TESTING", "DEBUG", "TABLES", "FEED_CLOCK", "SERVER_NAME", "WTF_CSRF_ENABLED"}

ENV_PREFIX = "GUANDAN_WEB_"

#: The ``[web]`` keys of the table service's ``table.toml`` (``table_service.table.config.SERVICE_SCHEMA``,
#: held equal by ``tests/web/test_config_service_toml.py``; the web layer may not import the table's):
#: each one -> the web setting it is, or None for the service's own (whether and where it serves).
#: Why a map and not the settings' own names: the organiser's file says ``duplicate``, not
#: ``FEED_DUPLICATE``, and the panel must read the very settings ``guandan-table run`` reads.
SERVICE_WEB_KEYS: dict[str, str | None] = {
    "users_db": "USERS_DB", "feed_delay_s": "FEED_DELAY_S", "duplicate": "FEED_DUPLICATE",
    "secret_key": "SECRET_KEY", "enabled": None, "host": None, "port": None,
}
#: The users database's name in a table's ``data_dir`` when ``[web] users_db`` names none (where
#: ``guandan-table run`` keeps it).
USERS_DB_NAME = "web-users.sqlite3"


class ConfigError(ValueError):
    """A setting is unknown or has a value of the wrong kind (a ValueError, so the CLI prints it)."""


def _coerce(key: str, value: Any) -> Any:
    """Turn a value from TOML or the environment into the type the key needs, or raise."""
    if key == "USERS_DB" and isinstance(value, os.PathLike):
        value = os.fspath(value)  # a pathlib.Path from a caller is a path as much as text is
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
        # A number setting's message names its range too (what to write instead).
        message = _range_problem(key, value) if key in RANGES else None
        raise ConfigError(message or f"配置项 {key} 的值无效：{value!r}"
                                     f" / invalid value for {key}: {value!r}") from None
    return value


def _show(number: float) -> str:
    """A bound as a person reads it: ``10``, ``0.1``, ``65536`` (never ``6.5536e+04``)."""
    if float(number).is_integer() and abs(number) < 1e15:
        return str(int(number))
    return f"{number:g}"  # 1e+300 stays short


def _range_problem(key: str, value: Any) -> str | None:
    """What is wrong with a number setting (type or range), naming the key and its range; None if fine."""
    low, high, unit, label = RANGES[key]
    zh_unit, en_unit = _UNITS[unit]
    allowed_zh = f"{_show(low)}–{_show(high)} {zh_unit}"  # "1–100 " / "10–86400 秒": no space before 之间
    allowed_en = f"{_show(low)}-{_show(high)}{en_unit}"
    is_int = key in _INT_KEYS
    ok_type = (isinstance(value, int) if is_int else isinstance(value, int | float)) and not isinstance(value, bool)
    if not ok_type or not math.isfinite(value):
        kind_zh, kind_en = ("整数", "an integer") if is_int else ("数字", "a number")
        return (f"配置项 {key}（{label}）须为{kind_zh}，范围 {allowed_zh.rstrip()}，收到 {value!r}"
                f" / {key} must be {kind_en} within "
                f"{allowed_en}, got {value!r}")
    if not low <= value <= high:
        return (f"配置项 {key}（{label}）须在 {allowed_zh}之间，收到 {_show(value)}"
                f" / {key} must be within {allowed_en}, "
                f"got {_show(value)}")
    return None


def _text_problems(config: Mapping[str, Any]) -> list[str]:
    """Type checks of the settings that are not numbers: paths, keys, choices and objects."""
    problems: list[str] = []
    db = config.get("USERS_DB")
    # A path as text: ``USERS_DB = 5`` in TOML made a database file named "5" in the working folder;
    # an empty one a database nobody can find again; a NUL byte failed at the first login (500).
    if not isinstance(db, str) or not db.strip() or "\x00" in db:
        problems.append(f"配置项 USERS_DB 须为用户数据库的文件路径（非空文本），收到 {db!r} / USERS_DB must be the users "
                        f"database's file path (non-empty text), got {db!r}")
    key = config.get("SECRET_KEY")
    # None or empty: one is generated per process. Anything else signs cookies, so text or bytes.
    if key is not None and not isinstance(key, str | bytes):
        problems.append(f"配置项 SECRET_KEY 须为文本，收到 {type(key).__name__} 类型的值（密钥不显示） / SECRET_KEY must "
                        f"be text, got a value of type "
                        f"{type(key).__name__} (not shown: it is a secret)")
    for name, allowed in CHOICES.items():
        if config.get(name) not in allowed:
            problems.append(f"配置项 {name} 须为 {' 或 '.join(allowed)}，收到 {config.get(name)!r} / {name} must be "
                            f"{' or '.join(repr(v) for v in allowed)}, got {config.get(name)!r}")
    for name in sorted(_BOOL_KEYS):
        if name in config and not isinstance(config[name], bool):
            problems.append(f"配置项 {name} 须为 true 或 false，收到 {config[name]!r}"
                            f" / {name} must be true or false, got {config[name]!r}")
    # Objects a caller passes in (the service, tests), never from a file: checked so that a wrong one
    # is refused here rather than failing at the first request.
    if config.get("SERVER_NAME") is not None and not isinstance(config["SERVER_NAME"], str):
        problems.append("配置项 SERVER_NAME 须为文本 / SERVER_NAME must be text (host[:port])")
    if config.get("FEED_CLOCK") is not None and not callable(config["FEED_CLOCK"]):
        problems.append("配置项 FEED_CLOCK 须为函数（返回毫秒） / FEED_CLOCK must be a function returning milliseconds")
    if config.get("TABLES") is not None and not isinstance(config["TABLES"], Mapping):
        problems.append("配置项 TABLES 须为 桌号→运行器 的映射 / TABLES must be a mapping of table id to runner")
    return problems


def validate(config: Mapping[str, Any]) -> None:
    """Check every setting's type and range (:data:`RANGES`, :data:`CHOICES`); raise :class:`ConfigError`
    listing every problem, each naming its key and what it allows (Chinese first, then English).

    Called by :func:`build`, so by :func:`table_service.web.app.create_app`, ``guandan-table run``
    and ``guandan-table user``: a setting the app cannot work with stops it at start, not at the
    first login.
    """
    problems: list[str] = []
    for key in RANGES:
        if key in config:
            problem = _range_problem(key, config[key])
            if problem:
                problems.append(problem)
    threads = config.get("SERVER_THREADS", DEFAULTS["SERVER_THREADS"])
    streams = config.get("FEED_MAX_STREAMS", DEFAULTS["FEED_MAX_STREAMS"])
    # 0 public streams is allowed (no live public stream); at least one worker must stay for referees.
    if isinstance(streams, bool) or not isinstance(streams, int):
        problems.append(f"配置项 FEED_MAX_STREAMS（公开直播流上限）须为整数，收到 {streams!r}"
                        f" / FEED_MAX_STREAMS must be an integer, "
                        f"got {streams!r}")
    elif isinstance(threads, int) and not 0 <= streams < threads:
        problems.append(f"配置项 FEED_MAX_STREAMS（公开直播流上限）须在 0–{threads - 1}（小于 SERVER_THREADS）之间，"
                        f"以便裁判总有空闲的工作线程；收到 {streams} / "
                        f"FEED_MAX_STREAMS must be within 0-{threads - 1}, below SERVER_THREADS, so that referees "
                        f"always find a free worker; got {streams}")
    problems.extend(_text_problems(config))
    if problems:
        raise ConfigError("; ".join(problems))


def normalise(raw: Mapping[str, Any], origin: str) -> dict[str, Any]:
    """Upper-case keys, reject unknown ones and coerce values; ``origin`` names the source in errors."""
    out: dict[str, Any] = {}
    for key, value in raw.items():
        name = str(key).upper()
        if name not in DEFAULTS and name not in _EXTRA_KEYS:
            raise ConfigError(f"未知配置项 {key!r}（来自 {origin}） / unknown setting {key!r} in {origin}")
        out[name] = _coerce(name, value)
    return out


#: The key that makes a TOML file the table service's ``table.toml`` (the one it cannot go without).
TABLE_KEY = "table_id"


def is_table_toml(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a table's ``table.toml`` (it has :data:`TABLE_KEY`): ``user … --config``
    reads such a file whole, as ``run`` does, and a settings file as the panel does. False for a file
    that is not a regular file or does not read as TOML: :func:`load_file` then says why."""
    p = Path(path)
    if not p.is_file():  # a folder, a device (/dev/zero never ends), a FIFO: load_file refuses it in words
        return False
    try:
        return TABLE_KEY in tomllib.loads(p.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return False


def load_file(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Read a TOML settings file: the ``[web]`` table if there is one, else the top-level keys; a
    table service's ``table.toml`` (it has ``table_id``): its ``[web]`` only, with the service's keys
    and its users database (:func:`_from_service_config`).

    :raises ConfigError: file missing, not TOML, or an unknown key in the web settings.
    """
    p = Path(path)
    if not p.is_dir() and (problem := not_regular_file(p)) is not None:  # a folder: said below
        raise ConfigError(problem)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8-sig"))  # -sig: the BOM Windows Notepad writes
    except FileNotFoundError:
        raise ConfigError(f"找不到配置文件：{p} / config file not found: {p}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"配置文件 {p} 格式错误：{exc} / invalid TOML in {p}: {exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"配置文件 {p} 不是 UTF-8 文本（是否选错了文件？）"
                          f" / the config file {p} is not UTF-8 text (is it the right file?)") from None
    except IsADirectoryError:
        raise ConfigError(f"配置文件 {p} 是文件夹 / the config file {p} is a folder") from None
    if TABLE_KEY in data:
        # The table service's table.toml (table_id is the one key it cannot go without): its [web]
        # as ``guandan-table run`` reads it, the hardware's and other sections left to their owners.
        return _from_service_config(data, p)
    if "web" in data:
        section = data["web"]
        if not isinstance(section, dict):
            raise ConfigError(f"{p} 中的 [web] 须为表 / [web] must be a table in {p}")
    else:
        # A file of web settings only: top-level keys. Other tables ([camera], [screen] … of the
        # service's table.toml) belong to other parts and are left to them.
        section = {k: v for k, v in data.items() if not isinstance(v, dict)}
    section = dict(section)
    for key in [k for k in section if k.upper() == "USERS_DB"]:
        # Relative to the file's folder, as table.toml's users_db is: against the working folder, the
        # same file gave `user add` run from one folder and the panel started from another two
        # different databases (nobody could log in). An absolute path stays as it is.
        if isinstance(section[key], str) and section[key].strip():
            section[key] = str(p.absolute().parent / section[key])
    return normalise(section, f"{p} [web]" if "web" in data else str(p))


def _from_service_config(data: Mapping[str, Any], path: Path) -> dict[str, Any]:
    """The web settings a ``table.toml`` gives: its ``[web]`` keys (:data:`SERVICE_WEB_KEYS`) under
    the settings' names, and the users database where ``guandan-table run`` keeps it — ``[web]
    users_db``, else ``<data_dir>/web-users.sqlite3``, both relative to the file's folder as the
    service takes them. Why: ``user add --config table.toml`` put the chief's account in
    ``./data/`` of whatever folder it ran in, and the service never saw it (nobody could log in).

    :raises ConfigError: ``[web]`` not a table, a key the service's ``[web]`` does not have, or a
        ``data_dir`` that is not a folder name.
    """
    section = data.get("web", {})
    if not isinstance(section, dict):
        raise ConfigError(f"{path} 中的 [web] 须为表 / [web] must be a table in {path}")
    unknown = sorted(set(section) - set(SERVICE_WEB_KEYS))
    if unknown:
        raise ConfigError(f"未知配置项 {unknown[0]!r}（来自 {path} [web]；table.toml 的 [web] 可用："
                          f"{', '.join(SERVICE_WEB_KEYS)}） / unknown setting {unknown[0]!r} in "
                          f"{path} [web] (table.toml's [web] takes: {', '.join(SERVICE_WEB_KEYS)})")
    raw = {SERVICE_WEB_KEYS[k]: v for k, v in section.items() if SERVICE_WEB_KEYS[k] is not None}
    base = path.parent
    if isinstance(raw.get("USERS_DB"), str) and raw["USERS_DB"].strip():
        raw["USERS_DB"] = str(base / raw["USERS_DB"])  # an absolute path stays as it is
    else:
        data_dir = data.get("data_dir", "data")
        if not isinstance(data_dir, str) or not data_dir.strip():
            raise ConfigError(f"{path} 中的 data_dir 须为文件夹路径（文本），收到 {data_dir!r}"
                              f" / data_dir must be a folder path (text) in {path}, "
                              f"got {data_dir!r}")
        raw.setdefault("USERS_DB", str(base / data_dir / USERS_DB_NAME))
    return normalise(raw, f"{path} [web]")


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
