"""Frame sources: where the overhead camera's frames come from.

Every source is an iterable of ``(timestamp, frame)`` — ``frame`` a BGR ``uint8`` array — with the
same small lifecycle (``close()``, context manager, :attr:`FrameSource.status`), so vision's watcher
does not care whether frames come from the USB camera at the table, a recorded video, a folder of
stills or a renderer.

Timestamps are seconds: ``time.monotonic()`` at capture for a live device; media time from 0 for a
file, folder or synthetic source (paced to real time when ``realtime=True``), so a replay of a
recording is deterministic.

The live device (:class:`CaptureDeviceSource`) is the one that fails in practice: a USB cable
knocked loose, a CSI ribbon reseated. It reopens the device on its own and reports each outage and
recovery through ``on_status`` (and :attr:`~FrameSource.status`), so the service can flag "camera
lost" to the referee instead of silently reading nothing.

A live camera may hand out frames still in their MJPEG bytes (:mod:`hardware.mjpeg_frame`); the
table's corner markers (the synthetic camera's default picture, what the self-test looks for) are
:mod:`hardware.corner_markers`.
"""

from __future__ import annotations

import logging
import os
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from hardware.errors import CameraError
from hardware.mjpeg_frame import MjpegFrame
from hardware.renderer_spec import renderer_factory

log = logging.getLogger(__name__)

Frame = np.ndarray
TimedFrame = tuple[float, np.ndarray]
#: Image files an ``ImageFolderSource`` replays; ``vision.cli.IMAGE_SUFFIXES`` repeats them (hardware and
#: vision may not import each other), and a test holds the two equal.
IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})


@dataclass(frozen=True)
class CameraStatus:
    """Health of a frame source, as the service and the panel show it."""

    source: str
    connected: bool
    frames: int = 0
    #: How many times the source was lost (a device that could not be reopened at once).
    outages: int = 0
    #: Reads that failed but where reopening worked straight away (a glitch, not an outage).
    reopens: int = 0
    #: ``time.monotonic()`` of the last change of ``connected``.
    since: float = 0.0
    error: str | None = None
    #: Requested vs actual capture settings (``{"width": (1920, 1280.0), …}``) for a live device.
    settings: dict[str, tuple[Any, Any]] = field(default_factory=dict)
    #: Inputs that could not be read and were skipped (folder images).
    skipped: tuple[str, ...] = ()


StatusCallback = Callable[[CameraStatus], None]


class FrameSource(ABC):
    """Base of every frame source. Iterate it (once) for ``(timestamp, frame)`` pairs."""

    def __init__(self, name: str, on_status: StatusCallback | None = None) -> None:
        self.name = name
        self.on_status = on_status
        self._status = CameraStatus(source=name, connected=False, since=time.monotonic())
        self._status_lock = threading.Lock()
        self._closed = threading.Event()

    # -- lifecycle ---------------------------------------------------------------------------

    def close(self) -> None:
        """Stop: an iteration in progress (another thread) ends at its next frame or retry."""
        self._closed.set()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    def __enter__(self) -> FrameSource:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        s = self.status
        state = "closed" if self.closed else ("connected" if s.connected else "disconnected")
        return f"<hardware.{type(self).__name__} {self.name!r} {state}, {s.frames} frames>"

    # -- frames ------------------------------------------------------------------------------

    def __iter__(self) -> Iterator[TimedFrame]:
        return self.frames()

    @abstractmethod
    def frames(self) -> Iterator[TimedFrame]:
        """Yield ``(timestamp, frame)`` until the source ends or is closed."""

    def read(self, timeout: float = 5.0) -> TimedFrame | None:
        """One frame as a BGR array, or ``None`` if none came within ``timeout`` seconds (the
        self-test's grab).

        Runs the iterator on a helper thread so a hung driver cannot hang the caller.
        """
        box: list[TimedFrame] = []
        done = threading.Event()

        def grab() -> None:
            try:
                for t, frame in self.frames():
                    # Decoded here, while the frame is still the camera's (a two-speed frame's
                    # full picture is gone once the iterator closes): callers get a BGR array.
                    full = getattr(frame, "full", None)
                    box.append((t, full() if callable(full) else frame))
                    break
            except Exception as exc:
                self._set_status(error=str(exc))
            finally:
                done.set()

        t = threading.Thread(target=grab, name=f"grab-{self.name}", daemon=True)
        t.start()
        done.wait(timeout)
        return box[0] if box else None

    # -- status ------------------------------------------------------------------------------

    @property
    def status(self) -> CameraStatus:
        return self._status

    def _set_status(self, **changes: Any) -> None:
        notify = False
        with self._status_lock:
            old = self._status
            if "connected" in changes and changes["connected"] != old.connected:
                changes["since"] = time.monotonic()
                if not changes["connected"]:
                    changes["outages"] = old.outages + 1
                notify = True
            if "error" in changes and changes["error"] != old.error and changes["error"] is not None:
                notify = True
            self._status = replace(old, **changes)
            new = self._status
        if notify and self.on_status is not None:
            try:
                self.on_status(new)
            except Exception:  # a faulty listener must not kill the capture loop
                log.exception("camera status callback failed")

    def _count_frame(self) -> None:
        with self._status_lock:
            self._status = replace(self._status, frames=self._status.frames + 1)

    def _pace(self, t_media: float, t_start: float) -> None:
        delay = t_start + t_media - time.monotonic()
        if delay > 0:
            self._closed.wait(delay)


# ------------------------------------------------------------------------------------------------
# Live camera


def _device_arg(device: str | int) -> tuple[str | int, int]:
    """What to hand ``cv2.VideoCapture`` and which API: V4L2 for ``/dev/video*`` and indices."""
    if isinstance(device, int):
        return device, cv2.CAP_V4L2
    if device.isdigit():
        return int(device), cv2.CAP_V4L2
    if device.startswith("/dev/"):
        return device, cv2.CAP_V4L2
    return device, cv2.CAP_ANY  # a GStreamer pipeline, an RTSP URL, a file used as a stand-in


class CaptureDeviceSource(FrameSource):
    """A V4L2 / CSI camera (or anything ``cv2.VideoCapture`` opens) that reconnects by itself.

    Resolution, frame rate, pixel format and exposure are requested after opening; the driver may
    refuse any of them, so what it actually applied is read back into ``status.settings`` (and a
    frame size different from the request is logged) rather than assumed.

    :param device: ``/dev/video0``, a ``/dev/v4l/by-id/…`` path (stable across replugging), an index,
        or a URL/pipeline/file.
    :param exposure: manual exposure in driver units; ``None`` leaves auto exposure.
    :param reconnect_s: wait between reopen attempts while the device is gone.
    :param api_preference: override the OpenCV backend (default: V4L2 for devices, any otherwise).
    """

    def __init__(self, device: str | int, *, width: int | None = None, height: int | None = None,
                 fps: float | None = None, exposure: float | None = None, fourcc: str | None = "MJPG",
                 reconnect_s: float = 2.0, api_preference: int | None = None,
                 on_status: StatusCallback | None = None, raw_mjpeg: bool | None = None) -> None:
        super().__init__(f"device:{device}", on_status)
        #: Hand out MJPEG frames undecoded (:class:`MjpegFrame`): decoded as far as they are used.
        #: Default: with an MJPG stream of 2560 px or wider (where decoding every frame costs most).
        self.raw_mjpeg = (fourcc == "MJPG" and (width or 0) >= 2560) if raw_mjpeg is None else raw_mjpeg
        self.device = device
        self.width, self.height, self.fps = width, height, fps
        self.exposure, self.fourcc = exposure, fourcc
        self.reconnect_s = reconnect_s
        arg, api = _device_arg(device)
        self._arg = arg
        self._api = api if api_preference is None else api_preference
        self._cap: cv2.VideoCapture | None = None

    def _open(self) -> tuple[cv2.VideoCapture | None, str | None]:
        """Open the device: ``(capture, None)`` or ``(None, why not)``."""
        if isinstance(self._arg, str) and self._arg.startswith("/") and not os.path.exists(self._arg):
            return None, f"摄像头 {self._arg} 不存在 / camera {self._arg} is gone"
        cap = cv2.VideoCapture(self._arg, self._api)
        if not cap.isOpened():
            cap.release()
            return None, f"无法打开摄像头 {self.device} / cannot open camera {self.device}"
        self._apply_settings(cap)
        if self.raw_mjpeg:
            # V4L2 then hands out the compressed buffer (one row of bytes); a backend that ignores
            # this still delivers decoded frames, which pass through as they are.
            cap.set(cv2.CAP_PROP_CONVERT_RGB, 0)
        return cap, None

    def _apply_settings(self, cap: cv2.VideoCapture) -> None:
        wanted: list[tuple[str, int, Any]] = []
        if self.fourcc:
            wanted.append(("fourcc", cv2.CAP_PROP_FOURCC, cv2.VideoWriter_fourcc(*self.fourcc)))
        if self.width:
            wanted.append(("width", cv2.CAP_PROP_FRAME_WIDTH, self.width))
        if self.height:
            wanted.append(("height", cv2.CAP_PROP_FRAME_HEIGHT, self.height))
        if self.fps:
            wanted.append(("fps", cv2.CAP_PROP_FPS, self.fps))
        if self.exposure is not None:
            # V4L2: 1 = manual, 3 = aperture priority (auto).
            wanted.append(("auto_exposure", cv2.CAP_PROP_AUTO_EXPOSURE, 1))
            wanted.append(("exposure", cv2.CAP_PROP_EXPOSURE, self.exposure))
        settings: dict[str, tuple[Any, Any]] = {}
        for name, prop, value in wanted:
            try:
                cap.set(prop, value)
                actual = cap.get(prop)
            except cv2.error:
                actual = None
            if name == "fourcc" and actual:
                actual = int(actual).to_bytes(4, "little").decode("ascii", "replace")
                value = self.fourcc
            settings[name] = (value, actual)
        self._set_status(settings=settings)

    def frames(self) -> Iterator[TimedFrame]:
        warned_size = False
        try:
            while not self.closed:
                if self._cap is None:
                    self._cap, why = self._open()
                    if self._cap is None:
                        self._set_status(connected=False, error=why)
                        self._closed.wait(self.reconnect_s)
                        continue
                ok, frame = self._cap.read()
                if not ok or frame is None:
                    self._cap.release()
                    self._cap = None
                    why = f"摄像头 {self.device} 断开 / camera {self.device} stopped delivering frames"
                    if self.status.connected:
                        # One immediate retry: a glitch that reopening cures is not an outage.
                        cap, why2 = self._open()
                        if cap is not None:
                            ok, frame = cap.read()
                            if ok and frame is not None:
                                self._cap = cap
                                self._set_status(reopens=self.status.reopens + 1)
                            else:
                                cap.release()
                        else:
                            why = f"{why}; {why2}"
                    if self._cap is None:
                        self._set_status(connected=False, error=why)
                        self._closed.wait(self.reconnect_s)
                        continue
                ts = time.monotonic()
                if not self.status.connected:
                    self._set_status(connected=True, error=None)
                if not warned_size and self.width and self.height and frame.shape[:2] != (self.height, self.width):
                    log.warning("camera %s delivers %dx%d, asked for %dx%d", self.device, frame.shape[1],
                                frame.shape[0], self.width, self.height)
                    warned_size = True
                self._count_frame()
                if self.raw_mjpeg and (frame.ndim == 1 or (frame.ndim == 2 and frame.shape[0] == 1)):
                    yield ts, MjpegFrame(frame)  # type: ignore[misc]
                else:
                    yield ts, frame
        finally:
            if self._cap is not None:
                self._cap.release()
                self._cap = None


# ------------------------------------------------------------------------------------------------
# Recordings


class VideoFileSource(FrameSource):
    """Frames of a video file; timestamps are the file's media time.

    :raises CameraError: (on iteration) the file cannot be opened as video.
    """

    def __init__(self, path: str | os.PathLike[str], *, loop: bool = False, realtime: bool = False,
                 on_status: StatusCallback | None = None) -> None:
        super().__init__(f"file:{path}", on_status)
        self.path = Path(path)
        self.loop = loop
        self.realtime = realtime

    def frames(self) -> Iterator[TimedFrame]:
        offset = 0.0
        start = time.monotonic()
        while not self.closed:
            cap = cv2.VideoCapture(str(self.path))
            if not cap.isOpened():
                cap.release()
                msg = f"无法打开视频 {self.path} / cannot open video {self.path}"
                self._set_status(connected=False, error=msg)
                raise CameraError(msg)
            self._set_status(connected=True, error=None)
            fps = cap.get(cv2.CAP_PROP_FPS) or 0.0
            index = 0
            last_t = offset
            try:
                while not self.closed:
                    ok, frame = cap.read()
                    if not ok or frame is None:
                        break
                    pos_ms = cap.get(cv2.CAP_PROP_POS_MSEC)
                    t = offset + (index / fps if fps > 0 else pos_ms / 1000.0)
                    index += 1
                    last_t = t
                    if self.realtime:
                        self._pace(t, start)
                    self._count_frame()
                    yield t, frame
            finally:
                cap.release()
            if not self.loop or index == 0:
                break
            offset = last_t + (1.0 / fps if fps > 0 else 0.0)
        self._set_status(connected=False)


class ImageFolderSource(FrameSource):
    """The images of a folder in name order, ``1/fps`` seconds apart.

    An unreadable or corrupt image is skipped and listed in ``status.skipped`` — one bad file must
    not end a replay.

    :raises CameraError: the folder does not exist or holds no images.
    """

    def __init__(self, folder: str | os.PathLike[str], *, fps: float = 15.0, loop: bool = False,
                 realtime: bool = False, on_status: StatusCallback | None = None) -> None:
        super().__init__(f"folder:{folder}", on_status)
        self.folder = Path(folder)
        self.fps = fps
        self.loop = loop
        self.realtime = realtime
        if not self.folder.is_dir():
            raise CameraError(f"图片文件夹不存在：{self.folder} / image folder does not exist: {self.folder}")
        self.files = sorted(p for p in self.folder.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not self.files:
            raise CameraError(f"文件夹 {self.folder} 中没有图片（{', '.join(sorted(IMAGE_SUFFIXES))}） / "
                              f"no images in {self.folder} "
                              f"({', '.join(sorted(IMAGE_SUFFIXES))})")

    def frames(self) -> Iterator[TimedFrame]:
        start = time.monotonic()
        index = 0
        self._set_status(connected=True, error=None)
        while not self.closed:
            produced = False
            for path in self.files:
                if self.closed:
                    break
                frame = cv2.imread(str(path), cv2.IMREAD_COLOR)
                if frame is None:
                    if str(path) not in self.status.skipped:
                        log.warning("skipping unreadable image %s", path)
                        self._set_status(skipped=(*self.status.skipped, str(path)),
                                         error=f"无法读取图片 {path.name} / unreadable image {path.name}")
                    continue
                t = index / self.fps
                index += 1
                produced = True
                if self.realtime:
                    self._pace(t, start)
                self._count_frame()
                yield t, frame
            if not self.loop or not produced:
                break
        self._set_status(connected=False)


# ------------------------------------------------------------------------------------------------
# Synthetic frames (vision's renderer plugs in here)

RenderFn = Callable[[int, float], "np.ndarray | None"]


class SyntheticSource(FrameSource):
    """Frames from a callable: ``render(index, t) -> frame`` (``None`` ends the stream).

    This is the hook for ``vision.synth``: the demo passes a function that renders the current table
    scene, tests pass whatever they need. ``count`` limits the number of frames.
    """

    def __init__(self, render: RenderFn, *, fps: float = 15.0, count: int | None = None, realtime: bool = False,
                 name: str = "synthetic", on_status: StatusCallback | None = None) -> None:
        super().__init__(name, on_status)
        self.render = render
        self.fps = fps
        self.count = count
        self.realtime = realtime

    @classmethod
    def from_frames(cls, frames: Iterable[np.ndarray], *, fps: float = 15.0, realtime: bool = False) -> SyntheticSource:
        """A source over a ready list/iterator of frames."""
        it = iter(frames)
        return cls(lambda _i, _t: next(it, None), fps=fps, realtime=realtime, name="frames")

    def frames(self) -> Iterator[TimedFrame]:
        start = time.monotonic()
        index = 0
        self._set_status(connected=True, error=None)
        while not self.closed and (self.count is None or index < self.count):
            t = index / self.fps
            if self.realtime:
                self._pace(t, start)
            frame = self.render(index, t)
            if frame is None:
                break
            index += 1
            self._count_frame()
            yield t, frame
        self._set_status(connected=False)


# ------------------------------------------------------------------------------------------------
# From table.toml


def load_renderer(spec: str, width: int, height: int) -> RenderFn:
    """``"module:factory"`` → ``factory(width, height)`` → ``render(index, t)``."""
    return renderer_factory(spec)(width, height)
