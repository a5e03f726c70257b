"""The service's one clock, in event milliseconds (see :class:`TableClock`).

In production it is the wall clock (Unix epoch ms, as the event log wants). The demo compresses
time by a speed factor; the clock's origin is kept in the data folder, so a restarted demo
continues on the same time line and its countdowns resume where they were. The panel and the
overlay read it too (``/api/tables/<id>/clock``), so their countdowns run on table time.
"""

from __future__ import annotations

import bisect
import itertools
import json
import os
import threading
import time
from pathlib import Path

from table_service.store.durable import write_durably


def read_time_line(path: Path) -> tuple[float, float, float] | None:
    """The time line a clock kept in ``path``: (speed, origin wall ms, origin table ms); None when
    there is no file yet. The clock reads it at start, and ``config check`` (through
    ``table.preflight``) reads it the same way without making one.

    :raises ValueError: the file is there but unreadable (the table's times would jump; a clock that
        guessed would put every countdown off).
    """
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return float(data["speed"]), float(data["origin_wall"]), float(data["origin_table"])
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"时钟文件 {path} 无法读取（{exc}） / clock file {path} is unreadable: {exc}") from exc


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
            raise ValueError(f"速度须为正数，收到 {speed!r} / speed must be positive, got {speed!r}")
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
        kept = read_time_line(self.path)
        if kept is not None:
            old_speed, ow, ot = kept
            if old_speed == self.speed:
                self.origin_wall, self.origin_table = ow, ot
                return
            # Another speed: continue from where that time line is now.
            self.origin_table = ot + (now_wall - ow) * old_speed
            self.origin_wall = now_wall
        self._save()

    def _save(self) -> None:
        """Keep the origin on disk (atomically), so a restart continues this time line."""
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        write_durably(self.path, json.dumps({"speed": self.speed, "origin_wall": self.origin_wall,
                                             "origin_table": self.origin_table}).encode("utf-8"))

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


class ActorClock(TableClock):
    r"""The demo's table clock: compressed time that waits for the table's simulated actors.

    WHY: the demo's bots and referee act in a simulated time (a bot thinks 1–3 table seconds;
    an injected slow turn overruns its clock by 2.5–6). At ×50 a 20 s clock is 0.4 s of real
    time, and on a busy 2-core machine the machine's own lag — the driver thread woken late,
    the card rendered, settled and read by the synthetic camera, a button going through the
    pty or GPIO — is easily that long. On a free-running clock that lag became the *players'*
    lateness: time-over flags for turns no bot took slowly, so the scorecard could not match.
    A real camera's lag is the witness's business (``witnessed_t_ms``); the demo's lag is not
    the players' at all, because the players exist only in the simulation.

    So an actor that means to act at table time ``t`` places a :meth:`hold` at ``t``: the clock
    runs freely up to the earliest hold and then stands still until that hold is
    :meth:`release`\ d (the action was carried out and the engine has applied its event, or a
    bounded catch-up gave up on it). It then goes on from where it stood (the time line is
    shifted, never jumped), and the shifted origin is kept on disk like the parent's. Every
    event is therefore stamped with the simulated moment its actor chose, whatever the machine's
    load; an injected slow turn, placed past its deadline, is still late by the clock (the
    ticks run freely up to it). :attr:`held_real_s` says how long the table waited for the
    machine (the demo's summary prints it).

    :meth:`at_wall` maps a past wall instant through the shifts (a camera frame taken while the
    clock stood still is put at the instant it stood at), so the camera's witness of when a play
    was placed stays on the same time line. Production uses :class:`TableClock`: a real table's
    players do not wait for the machine.
    """

    def __init__(self, speed: float = 1.0, state_file: str | os.PathLike[str] | None = None) -> None:
        super().__init__(speed, state_file)
        if self.path is not None and self.speed == 1.0:
            # The parent keeps the wall clock at ×1; this clock shifts, so it keeps its origin.
            self._load_or_create(self.origin_wall)
        self._holds: dict[int, float] = {}
        self._tokens = itertools.count(1)
        #: (wall ms, table ms) where each segment of the time line starts (after each shift).
        self._seg_wall: list[float] = [self.origin_wall]
        self._seg_table: list[float] = [self.origin_table]
        self.held_real_s = 0.0
        """Real seconds the clock stood still waiting for an actor (the machine's lag)."""
        self.holds = 0
        """Holds placed (actions and rulings the clock waited for)."""

    def _free(self, wall_ms: float) -> float:
        return self.origin_table + (wall_ms - self.origin_wall) * self.speed

    def _now(self, wall_ms: float) -> float:
        t = self._free(wall_ms)
        if self._holds:
            t = min(t, min(self._holds.values()))
        return max(t, self.origin_table)

    def now_ms(self) -> int:
        """Table time now, in ms: free-running, but never past the earliest hold."""
        with self._lock:
            return int(self._now(time.time() * 1000.0))

    def hold(self, at_ms: float | None = None) -> int:
        """Stop the clock at table time ``at_ms`` (now, if None or already past) until
        :meth:`release` of the returned token."""
        with self._lock:
            now = self._now(time.time() * 1000.0)
            token = next(self._tokens)
            # Whole ms: the clock reads whole ms, and a job due at ``at_ms`` must see it reached.
            self._holds[token] = float(int(now if at_ms is None else max(float(at_ms), now)))
            self.holds += 1
            return token

    def release(self, token: int | None) -> None:
        """Drop a hold; a clock that stood still goes on from where it stood (unknown tokens are
        ignored, so releasing twice is harmless)."""
        if token is None:
            return
        with self._lock:
            if token not in self._holds:
                return
            wall = time.time() * 1000.0
            stood = self._now(wall)
            del self._holds[token]
            free = self._free(wall)
            if free <= stood:
                return
            self.held_real_s += (free - stood) / self.speed / 1000.0
            self.origin_table, self.origin_wall = stood, wall
            self._seg_wall.append(wall)
            self._seg_table.append(stood)
            if len(self._seg_wall) > 8192:
                del self._seg_wall[:4096], self._seg_table[:4096]
            self._save()

    def at_wall(self, wall_s: float) -> int:
        """Table time (ms) at the wall instant ``wall_s``, through the shifts of the time line."""
        wall = wall_s * 1000.0
        with self._lock:
            i = max(0, bisect.bisect_right(self._seg_wall, wall) - 1)
            t = self._seg_table[i] + (wall - self._seg_wall[i]) * self.speed
            if i + 1 < len(self._seg_table):
                t = min(t, self._seg_table[i + 1])  # it stood still there until the next segment
            else:
                t = min(t, self._now(time.time() * 1000.0))
            return int(t)
