"""The service's part of ``table.toml``: ``[service] [web] [mqtt] [vision]`` on top of the hardware config.

Kept apart from :mod:`table_service.service` so that the checks ``guandan-table run``,
``config check`` and ``selftest`` make are one piece of code a reader finds by its name, and so
that reading a config never imports the engine, the camera or the web panel.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Longest a clock tick at a deadline waits for the camera (real seconds; ``[service]
#: camera_grace_s``). A read takes well under a second on the Pi; past this the tick goes anyway.
DEFAULT_CAMERA_GRACE_S = 3.0



#: Service sections of table.toml (the rest belongs to ``hardware.config``).
SERVICE_SECTIONS: dict[str, tuple[str, ...]] = {
    "service": ("ruleset", "format", "deals", "minutes", "speed", "tick_s", "db", "camera_grace_s"),
    "web": ("enabled", "host", "port", "feed_delay_s", "duplicate", "users_db", "secret_key"),
    "mqtt": ("enabled", "host", "port", "event", "username", "password", "keepalive"),
    "vision": ("enabled", "layout", "calibration", "fps", "px_per_mm", "enrollment"),
}


@dataclass
class ServiceConfig:
    """Everything ``guandan-table run`` needs: the hardware config plus the service's own options."""

    hardware: Any
    """The :class:`hardware.config.TableConfig`."""
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
    def db_path(self) -> Path:
        db = self.service.get("db")
        return Path(db) if db else self.data_dir / f"{self.table_id}.sqlite3"


def parse_service_config(data: dict[str, Any], *, base_dir: str | os.PathLike[str] = ".", check_devices: bool = True,
                         path: str | os.PathLike[str] | None = None) -> ServiceConfig:
    """Split ``table.toml`` into the hardware part (checked by ``hardware.config``) and the
    service sections ``[service] [web] [mqtt] [vision]`` (checked here).

    :raises ValueError: unknown keys or bad values, naming the section and the key.
    """
    from hardware.config import parse_config

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
            problems.append(f"[{section}] 未知配置项 / unknown key {key!r} (known: {', '.join(keys)})")
        own[section] = {k: v for k, v in raw.items() if k in keys}
    svc = own["service"]
    fmt = svc.get("format", "past_a")
    if fmt not in ("past_a", "deals", "time"):
        problems.append(f"[service].format = {fmt!r}: 应为 / must be past_a, deals or time")
    if fmt == "deals" and not (isinstance(svc.get("deals"), int) and svc["deals"] > 0):
        problems.append("[service].format = 'deals' 需要 deals = N / needs deals = N (N ≥ 1)")
    if fmt == "time" and not (isinstance(svc.get("minutes"), int) and svc["minutes"] > 0):
        problems.append("[service].format = 'time' 需要 minutes = N / needs minutes = N")
    grace = svc.get("camera_grace_s", DEFAULT_CAMERA_GRACE_S)
    if isinstance(grace, bool) or not isinstance(grace, int | float) or not 0 <= grace <= 60:
        problems.append(f"[service].camera_grace_s = {grace!r}: 应为 0–60 秒 / must be 0-60 seconds")
    port = own["web"].get("port", 8080)
    if not isinstance(port, int) or not 0 <= port <= 65535:
        problems.append(f"[web].port = {port!r}: 须为 0–65535 / must be 0-65535")
    if problems:
        raise ValueError("; ".join(problems))
    base = Path(base_dir)
    hw = parse_config(data, base_dir=base, check_devices=check_devices, path=path)
    for section in ("web",):
        if own[section].get("users_db"):
            p = Path(own[section]["users_db"])
            own[section]["users_db"] = str(p if p.is_absolute() else base / p)
    if svc.get("db"):
        p = Path(svc["db"])
        svc["db"] = str(p if p.is_absolute() else base / p)
    return ServiceConfig(hardware=hw, service=svc, web=own["web"], mqtt=own["mqtt"], vision=own["vision"],
                         path=Path(path) if path else None)


def load_service_config(path: str | os.PathLike[str], *, check_devices: bool = True) -> ServiceConfig:
    """Read ``table.toml`` for the service.

    :raises ValueError: unreadable file, TOML syntax, or any config problem (hardware's
        ``ConfigError`` is a ``ValueError`` too).
    """
    p = Path(path)
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(f"配置文件不存在 / config file not found: {p}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"无法读取配置文件 / cannot read config file {p}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"TOML 语法错误 / TOML syntax error in {p}: {exc}") from None
    return parse_service_config(data, base_dir=p.parent, check_devices=check_devices, path=p)
