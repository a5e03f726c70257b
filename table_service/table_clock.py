"""The service's one clock, in event milliseconds (see :class:`TableClock`).

In production it is the wall clock (Unix epoch ms, as the event log wants). The demo compresses
time by a speed factor; the clock's origin is kept in the data folder, so a restarted demo
continues on the same time line and its countdowns resume where they were. The panel and the
overlay read it too (``/api/tables/<id>/clock``), so their countdowns run on table time.
"""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path


class TableClock:
    """The service's clock in event milliseconds.

    ``speed`` 1 is the wall clock (Unix epoch ms). With ``speed`` > 1 (the demo) table time runs
    that many times faster than the wall: ``t = origin_table + (wall - origin_wall) * speed``. With
    ``state_file`` the origin is kept on disk, so a restarted service continues the same time line
    (the time the service was down has passed on the table too, as it would with real players).

    :raises ValueError: a speed that is not positive.
    """

    def __init__(self, speed: float = 1.0, state_file: str | os.PathLike[str] | None = None) -> None:
        if not speed > 0:
            raise ValueError(f"速度须为正数 / speed must be positive, got {speed!r}")
        self.speed = float(speed)
        self._lock = threading.Lock()
        now_wall = time.time() * 1000.0
        self.origin_wall = now_wall
        self.origin_table = now_wall
        self.path = Path(state_file) if state_file is not None else None
        if self.path is not None and self.speed != 1.0:
            self._load_or_create(now_wall)

    def _load_or_create(self, now_wall: float) -> None:
        assert self.path is not None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            old_speed = float(data["speed"])
            ow, ot = float(data["origin_wall"]), float(data["origin_table"])
        except FileNotFoundError:
            data = None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"时钟文件无法读取 / clock file {self.path} is unreadable: {exc}") from exc
        if data is not None:
            if old_speed == self.speed:
                self.origin_wall, self.origin_table = ow, ot
                return
            # Another speed: continue from where that time line is now.
            self.origin_table = ot + (now_wall - ow) * old_speed
            self.origin_wall = now_wall
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"speed": self.speed, "origin_wall": self.origin_wall,
                                   "origin_table": self.origin_table}), encoding="utf-8")
        os.replace(tmp, self.path)

    def now_ms(self) -> int:
        """Table time now, in ms."""
        return int(self.origin_table + (time.time() * 1000.0 - self.origin_wall) * self.speed)

    def real_s(self, table_s: float) -> float:
        """Wall seconds that ``table_s`` seconds of table time take."""
        return table_s / self.speed

    def table_s(self, real_s: float) -> float:
        """Table seconds that pass in ``real_s`` wall seconds."""
        return real_s * self.speed

    def at_wall(self, wall_s: float) -> int:
        """Table time (ms) at the wall-clock instant ``wall_s`` (``time.time()`` seconds): how a
        camera frame's capture instant is put on the table's time line."""
        return int(self.origin_table + (wall_s * 1000.0 - self.origin_wall) * self.speed)
