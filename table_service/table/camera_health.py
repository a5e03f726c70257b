"""The camera's health (reading, lagging, not reading, offline), and the watchdog that reports it.

Apart from :mod:`table_service.table.camera_pipeline` because the health is judged from outside
the read thread: a read stuck inside one frame cannot report itself, so a watchdog thread of its
own compares what the read thread last recorded with the wall clock. The panel asks for it
(:meth:`CameraHealth.health`), the service's clock ticks wait on it (:data:`LAG_GRACE_S`), and
neither needs to know how frames are read. :class:`CameraHealth` is mixed into
:class:`~table_service.table.camera_pipeline.CameraPipeline`, whose state it reads.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

log = logging.getLogger(__name__)

#: Real seconds between a frame being taken and the camera having read it, from which its health
#: says "lagging" (at 15 fps a read takes ~0.1 s, a settle waits ~0.4 s of frames; 1 s is a
#: camera that has fallen behind, not one that is busy).
LAGGING_S = 1.0
#: Real seconds without a frame read, frames or not, after which the camera is "not reading":
#: the service then counts it offline and the referee enters plays (issue #18 item 9: a panel
#: said 在线 through 9 minutes of nothing read).
NOT_READING_S = 10.0

#: Real seconds past ``[service] camera_grace_s`` that a clock tick still waits for a camera that
#: has not read the frames up to the deadline (it is lagging: the Pi is behind, not the player).
#: As long as "not reading": after that the camera counts offline and holds nothing.
LAG_GRACE_S = NOT_READING_S

#: Health states (``camera`` in the panel state, see docs/api.md).
HEALTH_TEXT: dict[str, str] = {
    "reading": "摄像头读牌中 / camera reading",
    "lagging": "摄像头滞后 {lag:.1f} 秒 / camera lagging {lag:.1f} s",
    "not_reading": "摄像头未读牌 {lag:.0f} 秒 / camera not reading for {lag:.0f} s",
    "offline": "摄像头离线 / camera offline",
}


@dataclass
class PipelineStatus:
    """The camera going offline or back online, as the service's ``on_status`` is told it (the
    shape of ``hardware.camera.CameraStatus``: ``connected`` and why not)."""

    connected: bool
    error: str | None = None


class CameraHealth:
    """The camera's health, and its watchdog thread: mixed into
    :class:`~table_service.table.camera_pipeline.CameraPipeline`.

    What it reads is the pipeline's, declared here: the read thread records the wall instant and
    table time of each frame read (``_read_wall``, ``_read_ms``) and why it went offline
    (``_offline_why``); this side only looks at them.
    """

    source: Any
    watcher: Any
    frames: int
    on_status: Callable[[Any], None] | None
    on_health: Callable[[dict[str, Any]], None] | None
    _thread: threading.Thread | None
    _stop: threading.Event
    _started_wall: float | None
    _read_wall: float | None
    _read_ms: int | None
    _offline_why: str | None
    _health_state: str | None

    @property
    def dropped(self) -> int:
        """Stale frames skipped (the pipeline's frame grabber counts them)."""
        raise NotImplementedError

    def health(self, now_wall: float | None = None, with_deck: bool = True) -> dict[str, Any]:
        """What the camera is doing, for the panel (issue #18 item 9).

        ``state``: ``reading`` (frames are read as they come), ``lagging`` (the newest frame read
        was taken ``lag_s`` ≥ :data:`LAGGING_S` ago), ``not_reading`` (nothing read for
        :data:`NOT_READING_S`: counted offline, the referee enters plays) or ``offline`` (no
        frames, unusable frames, or the stream ended). ``lag_s``: seconds since the newest frame
        read was taken (since the start before the first); ``last_read_ms``: table time of that
        frame (None before the first); ``dropped``: stale frames skipped; ``text``: Chinese / English.
        """
        now = time.time() if now_wall is None else now_wall
        ref = self._read_wall if self._read_wall is not None else self._started_wall
        lag = max(0.0, now - ref) if ref is not None else 0.0
        alive = self._thread is not None and self._thread.is_alive() and not self._stop.is_set()
        src_status = getattr(self.source, "status", None)
        connected = getattr(src_status, "connected", True) if not callable(src_status) else True
        # The source's own reason (a device gone, a camera that cannot be opened): before a first
        # frame too, where "not connected" without a reason is only a camera still opening.
        src_why = getattr(src_status, "error", None) if connected is False and not callable(src_status) else None
        if not alive or self._offline_why is not None or (connected is False and (self.frames > 0 or src_why)):
            state = "offline"
        elif lag >= NOT_READING_S:
            state = "not_reading"
        elif lag >= LAGGING_S:
            state = "lagging"
        else:
            state = "reading"
        text = HEALTH_TEXT[state].format(lag=lag)
        if state == "offline" and (self._offline_why or src_why):
            text = self._offline_why or str(src_why)
        out = {"state": state, "lag_s": round(lag, 2), "last_read_ms": self._read_ms, "dropped": self.dropped,
               "text": text}
        deck_status = getattr(self.watcher, "deck_status", None)
        if with_deck and callable(deck_status):
            out["deck"] = deck_status()
        return out

    def _watch_health(self) -> None:
        """Tell :attr:`on_health` (and the service, through ``on_status``) when the health state
        changes, also while the read thread is stuck inside one frame (it cannot say so itself)."""
        while not self._stop.wait(0.25):
            self._check_health()
            if self._thread is None or not self._thread.is_alive():
                self._check_health()
                return

    def _check_health(self) -> None:
        h = self.health(with_deck=False)  # four times a second: the deck's words are the panel's, on request
        old, self._health_state = self._health_state, h["state"]
        if h["state"] == old:
            return
        # Lagging or not reading is for someone to look at; the way back is news only (a one-deal demo
        # logged ~100 recoveries as warnings, each with an English prefix before the Chinese).
        if h["state"] in ("lagging", "not_reading"):
            log.warning("%s", h["text"])
        elif old in ("lagging", "not_reading"):
            log.info("%s", h["text"])
        # Not reading counts as offline for the table (the referee enters plays, no tick waits
        # for a camera that reads nothing); back to reading or lagging is online again.
        if self.on_status is not None and self._offline_why is None:
            if h["state"] == "not_reading":
                self.on_status(PipelineStatus(False, h["text"]))
            elif old == "not_reading" and h["state"] in ("reading", "lagging"):
                self.on_status(PipelineStatus(True))
        if self.on_health is not None:
            try:
                self.on_health(h)
            except Exception:  # a faulty listener must not stop the watchdog
                log.exception("camera health listener failed")
