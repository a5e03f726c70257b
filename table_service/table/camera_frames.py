"""How frames reach the camera pipeline: latest-first from a live source, and when each was taken.

Apart from :mod:`table_service.table.camera_pipeline` because none of it reads a card: a live
camera is read by a grabber thread that keeps only the newest frame (:class:`LatestFrameGrabber`),
so a slow reader skips stale frames instead of queueing them, and the sources' clocks (a device
stamps ``time.monotonic()`` at capture, a recording its media time) say when a frame was taken.
The pipeline decides what to do with the frames; this module only delivers and dates them.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any


class LatestFrameGrabber:
    """A live source read latest-first: a grabber thread pulls frames as fast as the source
    delivers them and keeps only the newest, so a slow read drops the frames that went stale
    meanwhile instead of queueing them (and a driver's own buffer never fills)."""

    def __init__(self, source: Any, stop: threading.Event, name: str) -> None:
        self.source = source
        self._stop = stop
        self.name = name
        #: Frames the grabber replaced before they were read (stale frames dropped).
        self.dropped = 0
        self._cond = threading.Condition()
        self._slot: tuple[float, Any, float, float] | None = None
        self._grab_done = False
        self._grab_error: BaseException | None = None

    def frames(self) -> Iterator[tuple[float, Any, float, float]]:
        """``(t, frame, received_wall, received_mono)``, the newest frame each time, until the
        source ends, fails (its error is raised here, in the reader's thread) or ``stop`` is set."""
        with self._cond:  # a new reading of the source (after one that failed): nothing of the last
            self._slot, self._grab_done, self._grab_error = None, False, None
        grabber = threading.Thread(target=self._grab, name=f"{self.name}-grab", daemon=True)
        grabber.start()
        while True:
            with self._cond:
                while self._slot is None and not self._grab_done and not self._stop.is_set():
                    self._cond.wait(0.5)
                item, self._slot = self._slot, None
                done, error = self._grab_done, self._grab_error
            if item is not None:
                yield item
            elif done or self._stop.is_set():
                if error is not None:
                    raise error
                return

    def _grab(self) -> None:
        """Pull frames from the source as fast as it delivers them, keeping only the newest: a
        driver's own buffer never fills with frames the reader is too slow for."""
        try:
            for t, frame in self.source.frames():
                item = (t, frame, time.time(), time.monotonic())
                with self._cond:
                    if self._slot is not None:
                        self.dropped += 1
                        release_frame(self._slot[1])  # a stale camera buffer goes straight back
                    self._slot = item
                    self._cond.notify()
                if self._stop.is_set():
                    break
        except BaseException as exc:  # handed to the read thread, which reports it
            with self._cond:
                self._grab_error = exc
        finally:
            with self._cond:
                self._grab_done = True
                self._cond.notify()


def taken_wall(source: Any, t: float, received_wall: float, received_mono: float) -> float:
    """Wall instant a frame was taken (as
    :meth:`~table_service.table.camera_pipeline.CameraPipeline.taken_ms`, before the table clock)."""
    frame_wall = getattr(source, "frame_wall", None)
    got = frame_wall(t) if callable(frame_wall) else None
    if got is not None:
        return min(float(got), received_wall)
    if monotonic_stamps(source) and 0.0 <= received_mono - t < 60.0:
        return received_wall - (received_mono - t)
    return received_wall


def release_frame(frame: Any) -> None:
    """Give a two-speed frame's camera buffer back (``hardware.backends.picamera2_camera.TwoSpeedFrame``)."""
    release = getattr(frame, "release", None)
    if callable(release):
        release()


def is_live(source: Any) -> bool:
    """Does ``source`` deliver frames on the wall clock (a device, a realtime renderer), so that a
    slow reader must skip to the newest frame? A recording or a test's frame list is read whole."""
    return monotonic_stamps(source) or bool(getattr(source, "realtime", False))


def monotonic_stamps(source: Any) -> bool:
    """Does ``source`` stamp frames with ``time.monotonic()`` at capture (a live device)?"""
    if getattr(source, "monotonic_stamps", False) is True:  # hardware.backends.picamera2_camera.Picamera2Source
        return True
    from hardware.camera import CaptureDeviceSource  # lazy: hardware's camera loads OpenCV (cv2)

    return isinstance(source, CaptureDeviceSource)
