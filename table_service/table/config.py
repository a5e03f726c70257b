"""The service's part of ``table.toml``: ``[service] [web] [mqtt] [vision]`` on top of the hardware config.

Kept apart from :mod:`table_service.table.service` so that the checks ``guandan-table run``,
``config check`` and ``selftest`` make are one piece of code a reader finds by its name, and so
that reading a config never imports the engine, the camera or the web panel.
"""

from __future__ import annotations

import math
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hardware.config import parse_config
from hardware.errors import not_regular_file
from table_service.engine.ruleset import ALIASES
from table_service.rules.ruleset import PRESETS
from table_service.views.panel_url import own_panel_url, panel_url_problem
from table_service.views.wire import SEGMENT_RE, is_host
from table_service.web.config import USERS_DB_NAME

#: Longest a clock tick at a deadline waits for the camera (real seconds; ``[service]
#: camera_grace_s``). A read takes well under a second on the Pi; past this the tick goes anyway.
DEFAULT_CAMERA_GRACE_S = 3.0

#: The clock's time line in the data folder (:attr:`ServiceConfig.clock_path`).
CLOCK_FILE = "clock.json"


#: Service sections of table.toml (the rest belongs to ``hardware.config``): section -> key ->
#: (kind, low, high). Kinds: ``str``, ``bool``, ``int`` and ``num`` (never a bool: TOML ``true``
#: is not a port), ``ruleset`` (a preset name), ``format``. One table, checked the same way by
#: ``guandan-table run``, ``config check`` and ``selftest``.
SERVICE_SCHEMA: dict[str, dict[str, tuple[str, float | None, float | None]]] = {
    "service": {"ruleset": ("ruleset", None, None), "format": ("format", None, None), "deals": ("int", 1, 10_000),
                "minutes": ("int", 1, 100_000), "speed": ("num", 0.01, 1000), "tick_s": ("num", 0.01, 60),
                "db": ("str", None, None), "camera_grace_s": ("num", 0, 60)},
    "web": {"enabled": ("bool", None, None), "host": ("str", None, None), "port": ("int", 0, 65535),
            "feed_delay_s": ("num", 0, 3600), "duplicate": ("bool", None, None), "users_db": ("str", None, None),
            "secret_key": ("str", None, None)},
    "mqtt": {"enabled": ("bool", None, None), "host": ("str", None, None), "port": ("int", 1, 65535),
             "event": ("str", None, None), "username": ("str", None, None), "password": ("str", None, None),
             "keepalive": ("int", 1, 3600), "panel_url": ("url", None, None), "ca_file": ("str", None, None)},
    "vision": {"enabled": ("bool", None, None), "layout": ("str", None, None), "calibration": ("str", None, None),
               "fps": ("num", 0.1, 120), "px_per_mm": ("num", 0.1, 100), "enrollment": ("str", None, None),
               "learn": ("bool", None, None)},
}
SERVICE_SECTIONS: dict[str, tuple[str, ...]] = {sec: tuple(keys) for sec, keys in SERVICE_SCHEMA.items()}

_KIND_WORDS = {"str": "文本 / text", "bool": "true 或 false / true or false", "int": "整数 / an integer",
               "num": "数字 / a number"}


#: The shortest ``[web] secret_key`` taken: one that short can be guessed, and every login's cookie
#: signed with it forged (the key drawn when none is given has 64 hex characters).
MIN_SECRET_KEY = 16


def _check_setting(section: str, key: str, value: Any) -> str | None:
    """What is wrong with ``[section] key = value``, naming the setting; None when it is fine."""
    kind, lo, hi = SERVICE_SCHEMA[section][key]
    if key == "secret_key":  # never written back: it signs every login's cookie
        if not isinstance(value, str) or len(value) < MIN_SECRET_KEY:
            return (f"[{section}].{key}: 须为至少 {MIN_SECRET_KEY} 个字符的随机文本（不显示） / must be random text of at "
                    f"least {MIN_SECRET_KEY} characters (not shown); leave it out and one is drawn and kept")
        return None
    name = f"[{section}].{key} = {value!r}"
    if kind == "ruleset":
        known = sorted({*PRESETS, *ALIASES})
        if not isinstance(value, str) or ALIASES.get(value, value) not in PRESETS:
            return f"{name}: 未知规则（已知：{', '.join(known)}） / unknown ruleset (known: {', '.join(known)})"
        return None
    if kind == "format":
        if value not in ("past_a", "deals", "time"):
            return f"{name}: 应为 / must be past_a, deals or time"
        return None
    if kind == "url":
        if not isinstance(value, str) or not value.startswith(("http://", "https://")) or len(value) > 500 \
                or any(c.isspace() for c in value):
            return f"{name}: 须为 http(s):// 网址 / must be an http:// or https:// address without spaces"
        return None
    if kind == "bool":
        ok = isinstance(value, bool)
    elif kind == "str":
        ok = isinstance(value, str)
    elif kind == "int":
        ok = isinstance(value, int) and not isinstance(value, bool)
    else:
        ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok:
        return f"{name}: 须为{_KIND_WORDS[kind].split(' / ')[0]} / must be {_KIND_WORDS[kind].split(' / ')[1]}"
    if kind in ("int", "num") and ((lo is not None and value < lo) or (hi is not None and value > hi)):
        return f"{name}: 须在 {lo:g}–{hi:g} 之间 / must be within {lo:g}-{hi:g}"
    if key == "host" and not is_host(value):
        return f"{name}: 须为主机名或地址 / must be a host name or an address, without spaces"
    return None


@dataclass
class ServiceConfig:
    """Everything ``guandan-table run`` needs: the hardware config plus the service's own options."""

    hardware: Any
    """The :class:`hardware.config_model.TableConfig`."""
    service: dict[str, Any] = field(default_factory=dict)
    web: dict[str, Any] = field(default_factory=dict)
    mqtt: dict[str, Any] = field(default_factory=dict)
    vision: dict[str, Any] = field(default_factory=dict)
    path: Path | None = None

    @property
    def table_id(self) -> str:
        return str(self.hardware.table_id)

    @property
    def data_dir(self) -> Path:
        return Path(self.hardware.data_dir)

    @property
    def enrollment_file(self) -> Path:
        """The deck file this table reads with at start and keeps the deck enrolled at its panel or
        handed down by the hub in: ``[vision] enrollment``, else ``<data_dir>/deck-enrollment.npz``.
        One place, as ``vision enroll --config`` saves there and the service loads from there."""
        named = self.vision.get("enrollment")
        return Path(named) if named else self.data_dir / "deck-enrollment.npz"

    @property
    def db_path(self) -> Path:
        db = self.service.get("db")
        return Path(db) if db else self.data_dir / f"{self.table_id}.sqlite3"

    @property
    def users_db_path(self) -> Path:
        """The panel's accounts: ``[web] users_db``, else ``<data_dir>/web-users.sqlite3``. One place for
        the service, ``config check`` and ``user add --config``, so an account added is one the panel reads."""
        named = self.web.get("users_db")
        return Path(named) if named else self.data_dir / USERS_DB_NAME

    @property
    def clock_path(self) -> Path:
        """Where a clock faster than the wall (``[service] speed``) keeps its time line."""
        return self.data_dir / CLOCK_FILE


def service_warnings(config: ServiceConfig) -> list[str]:
    """``config check``'s warnings about the service's own options (Chinese, then English): settings
    that pass the schema but are seldom what a venue means.

    A table of an event (``[mqtt]`` set) whose public feed has no delay: the default is 0 (the
    embedded demo's), and the broadcast feed then shows each play as it is laid, to the room and to
    every screen the producer puts it on."""
    out: list[str] = []
    if config.mqtt and not config.web.get("feed_delay_s"):
        out.append("[web] feed_delay_s 未设置（0 秒）：本桌属于赛事（有 [mqtt]），直播数据流无延时 / not set (0 s): "
                   "this table is part of an event ([mqtt] is set) and its broadcast feed has no delay; "
                   "set e.g. feed_delay_s = 60")
    return out


def parse_service_config(data: dict[str, Any], *, base_dir: str | os.PathLike[str] = ".", check_devices: bool = True,
                         path: str | os.PathLike[str] | None = None, check_files: bool = True) -> ServiceConfig:
    """Split ``table.toml`` into the hardware part (checked by ``hardware.config``) and the
    service sections ``[service] [web] [mqtt] [vision]`` (checked here).

    ``check_files``: the files the service reads at start-up (``[mqtt] ca_file``, ``[vision]``
    files with a camera) must exist; only ``config check --offline`` (a file written for another
    machine) turns it off. ``run``, ``selftest`` and ``config check`` otherwise refuse the same files.

    :raises ValueError: unknown keys or bad values, naming the section and the key.
    """
    data = dict(data)
    own: dict[str, dict[str, Any]] = {}
    problems: list[str] = []
    for section, keys in SERVICE_SECTIONS.items():
        raw = data.pop(section, {})
        if not isinstance(raw, dict):
            problems.append(f"[{section}] 应为表 / must be a table")
            raw = {}
        unknown = sorted(set(raw) - set(keys))
        for key in unknown:
            problems.append(f"[{section}] 未知配置项 {key!r}（已知：{', '.join(keys)}） / "
                            f"unknown key {key!r} (known: {', '.join(keys)})")
        own[section] = {k: v for k, v in raw.items() if k in keys}
        for key, value in own[section].items():
            problem = _check_setting(section, key, value)
            if problem:
                problems.append(problem)
    svc = own["service"]
    fmt = svc.get("format", "past_a")
    if fmt == "deals" and "deals" not in svc:
        problems.append("[service].format = 'deals' 需要 deals = N / needs deals = N (N ≥ 1)")
    if fmt == "time" and "minutes" not in svc:
        problems.append("[service].format = 'time' 需要 minutes = N / needs minutes = N")
    # Each was taken and never used: the table played to A with no word of the count it was given.
    if fmt != "deals" and "deals" in svc:
        problems.append(f"[service].deals 只用于 format = 'deals'（现为 {fmt!r}） / [service].deals is used only with "
                        f"format = \"deals\" (format is {fmt!r}): add format = \"deals\", or remove deals")
    if fmt != "time" and "minutes" in svc:
        problems.append(f"[service].minutes 只用于 format = 'time'（现为 {fmt!r}） / [service].minutes is used only with "
                        f"format = \"time\" (format is {fmt!r}): add format = \"time\", or remove minutes")
    mq = own["mqtt"]
    if mq.get("enabled", bool(mq)):
        # What the MQTT bridge would refuse at start-up is refused here, so that ``config check``,
        # ``selftest`` and ``run`` accept exactly the same files (and ``run`` creates nothing first).

        event = mq.get("event", "event")
        if isinstance(event, str) and not SEGMENT_RE.match(event):
            problems.append(f"[mqtt].event = {event!r}: 须为 1–64 个字母、数字、_ . - / must be 1-64 letters, digits, "
                            "_ . - (an MQTT topic segment)")
        table_id = data.get("table_id")
        if table_id is not None and not SEGMENT_RE.match(str(table_id)):
            problems.append(f"table_id = {table_id!r}: 接入赛事时须为 1–64 个字母、数字、_ . - / with [mqtt] it must be "
                            "1-64 letters, digits, _ . - (an MQTT topic segment)")
        elif table_id is not None and isinstance(mq.get("panel_url"), str):
            # The hub refuses every status and summary naming another page: the table would never
            # show on the chief referee's overview.
            problem = panel_url_problem(own_panel_url(mq["panel_url"], str(table_id)), str(table_id))
            if problem:
                problems.append(f"[mqtt].panel_url: {problem}")
    if problems:
        raise ValueError("; ".join(problems))
    base = Path(base_dir)
    if isinstance(mq.get("ca_file"), str):
        ca = Path(mq["ca_file"])
        ca = ca if ca.is_absolute() else base / ca
        if check_files and not ca.is_file():
            raise ValueError(f"[mqtt].ca_file: 找不到文件：{ca} / file not found: {ca}")
        mq["ca_file"] = str(ca)
    hw = parse_config(data, base_dir=base, check_devices=check_devices, path=path,
                      other_sections=tuple(SERVICE_SECTIONS))
    for section in ("web",):
        if own[section].get("users_db"):
            p = Path(own[section]["users_db"])
            own[section]["users_db"] = str(p if p.is_absolute() else base / p)
            if check_files:
                check_database_path(f"[{section}].users_db", Path(own[section]["users_db"]))
    if svc.get("db"):
        p = Path(svc["db"])
        svc["db"] = str(p if p.is_absolute() else base / p)
        if check_files:
            check_database_path("[service].db", Path(svc["db"]))
    vis = own["vision"]
    for key in ("layout", "calibration", "enrollment"):
        if isinstance(vis.get(key), str):
            p = Path(vis[key])
            vis[key] = str(p if p.is_absolute() else base / p)
            # The camera reads these at start-up: missing, ``run`` would stop after creating its log.
            if check_files and hw.camera.source != "none":
                if not Path(vis[key]).is_file():
                    what = "不是文件 / not a file" if Path(vis[key]).exists() else "找不到文件 / file not found"
                    raise ValueError(f"[vision].{key}: {what}: {vis[key]}")
                _check_vision_file(key, Path(vis[key]))
    return ServiceConfig(hardware=hw, service=svc, web=own["web"], mqtt=own["mqtt"], vision=own["vision"],
                         path=Path(path) if path else None)


def check_database_path(key: str, path: Path) -> None:
    """A database path SQLite can open for writing: a file there, or a folder it may be created in.
    Why here: the event log is opened when ``run`` starts, the users' database at the first login;
    a path under a file, a folder, or a read-only place would otherwise fail then, not at ``config check``.

    :raises ValueError: naming ``key`` and the path."""
    if path.exists():
        if not path.is_file():
            raise ValueError(f"{key}: 不是文件：{path} / not a file: {path}")
        if not os.access(path, os.R_OK | os.W_OK):
            raise ValueError(f"{key}: 文件不可写：{path} / file not writable: {path}")
        return
    check_folder_path(key, path.parent, path)


def check_folder_path(key: str, folder: Path, wanted: Path | None = None) -> None:
    """``folder`` is a folder this program may write in, or may be made (with the folders above it)
    where it is not yet: ``run`` makes the data folder first, and stopped there with "file or device
    error" where it could not. ``wanted``: the file named in the message (default: the folder).

    :raises ValueError: naming ``key`` and the path."""
    wanted = folder if wanted is None else wanted
    parent = folder
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise ValueError(f"{key}: {parent} 不是文件夹，无法在其下创建 {wanted} / {parent} is not a folder: {wanted} "
                         "cannot be created under it")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ValueError(f"{key}: 文件夹 {parent} 只读，无法写入 {wanted} / the folder {parent} is read-only: {wanted} "
                         "cannot be written there")


def _check_vision_file(key: str, path: Path) -> None:
    """Read a ``[vision]`` file as the camera will at start-up: a file that is there but unusable is
    refused by ``config check`` too, not by ``run`` after it has created its log."""
    from vision.calibration import LensCalibration  # lazy: OpenCV, only for a table with a camera
    from vision.cardnet.deckfile import Enrollment  # lazy: only for a table with a camera
    from vision.geometry import TableLayout  # lazy: only for a table with a camera

    load = {"layout": TableLayout.load, "calibration": LensCalibration.load, "enrollment": Enrollment.load}[key]
    try:
        load(path)
    except (ValueError, OSError, RecursionError) as exc:
        raise ValueError(f"[vision].{key}: {str(exc)[:200]}") from None


def load_service_config(path: str | os.PathLike[str], *, check_devices: bool = True,
                        check_files: bool = True) -> ServiceConfig:
    """Read ``table.toml`` for the service.

    :raises ValueError: unreadable file, TOML syntax, or any config problem (hardware's
        ``ConfigError`` is a ``ValueError`` too).
    """
    p = Path(path)
    if (problem := not_regular_file(p)) is not None:
        raise ValueError(problem)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8-sig"))  # -sig: the BOM Windows Notepad writes
    except FileNotFoundError:
        raise ValueError(f"配置文件不存在：{p} / config file not found: {p}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"无法读取配置文件 {p}（{exc}） / cannot read config file {p}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"{p} 有 TOML 语法错误（{exc}） / TOML syntax error in {p}: {exc}") from None
    return parse_service_config(data, base_dir=p.parent, check_devices=check_devices, path=p,
                                check_files=check_files)
