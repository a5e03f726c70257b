"""The Raspberry Pi camera modules (Camera Module 3, HQ camera) through libcamera's ``picamera2``.

Why a backend of its own: on current Raspberry Pi OS the official camera modules are driven by
libcamera, which OpenCV's capture does not read; ``picamera2`` (installed with apt there, with the
venv made ``--system-site-packages``, see ``scripts/install.sh``) is the supported library.

Two speeds from one sensor readout (issue #27): the ISP delivers every frame twice, a small YUV
``lores`` stream (640×360 by default) and the full-resolution ``main`` stream (4608×2592 on a
Camera Module 3). Motion and settling run on the small stream only — its Y plane is the grey
picture the watcher wants, at no CPU cost; when a zone settles, the *same* request's full frame is
copied out for that zone's read. A request is held only while its frame is being looked at and is
released as soon as the pipeline is done with it (or drops it as stale), so the camera's few
full-size buffers are never starved.

Exposure, gain, white balance and focus are free-running until :meth:`Picamera2Source.lock_controls`
(the camera pipeline calls it once the table is calibrated and the picture has converged; the
panel's recalibrate unlocks, lets them converge again and re-locks). After the lock every frame's
metadata is compared with the locked values: a change (a camera restarted by the driver, a control
set elsewhere) is re-locked and reported once through :meth:`take_control_change`, which the
pipeline raises as a flag on the panel.
"""

from __future__ import annotations

import importlib
import logging
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

import cv2
import numpy as np

from hardware.camera import FrameSource, StatusCallback, TimedFrame
from hardware.errors import CameraError

log = logging.getLogger(__name__)

#: libcamera's ``AfModeEnum``: Manual = 0, Auto = 1, Continuous = 2 (plain ints: importing
#: ``libcamera`` for them would tie this module to the Pi).
AF_MANUAL, AF_CONTINUOUS = 0, 2
#: Relative change of exposure time or analogue gain, absolute change of a colour gain and of the
#: lens position (dioptres) that count as "the camera's settings changed". The locked values come
#: back in the metadata within a few per cent (the sensor rounds exposure to whole lines).
EXPOSURE_TOL, GAIN_TOL, COLOUR_TOL, LENS_TOL = 0.08, 0.08, 0.05, 0.1
#: Frames after a lock before drift is looked for (controls take a few frames to apply).
LOCK_SETTLE_FRAMES = 8
#: The camera's full-size buffers: one being filled, one in the pipeline's slot, one being read.
BUFFER_COUNT = 4
MAX_HELD = BUFFER_COUNT - 2
#: Buffers in a row the driver could not hand over (metadata or the small stream) after which the
#: camera is closed and opened again; one alone is skipped.
BAD_BUFFERS_REOPEN = 3


class FrameGone(ValueError):
    """The full-resolution frame of a request already given back to the camera."""


class TwoSpeedFrame:
    """One sensor readout: the small YUV420 stream at hand, the full frame on demand.

    Quacks like ``hardware.mjpeg_frame.MjpegFrame`` (``grey``, ``colour``, ``full``, ``size``), which is
    what the watcher and the pipeline already know. ``full()`` copies the main stream out of the
    request while it is held (:attr:`has_full`); after :meth:`release` it is gone, except that a
    frame given a ``late`` callable (the source's fresh still) answers with that, for the panel's
    enrolment, which wants "the table now" rather than this exact instant.
    """

    __slots__ = ("_full", "_late", "_lock", "_lores", "_request", "size")

    def __init__(self, lores_yuv420: np.ndarray, size: tuple[int, int], request: Any = None,
                 full: np.ndarray | None = None, late: Callable[[], np.ndarray] | None = None) -> None:
        self._lores = lores_yuv420
        self.size = size
        self._request = request
        self._full = full
        self._late = late
        self._lock = threading.Lock()

    @property
    def has_full(self) -> bool:
        """Is this instant's full-resolution frame still to be had?"""
        return self._full is not None or self._request is not None

    def _y(self) -> np.ndarray:
        h = self._lores.shape[0] * 2 // 3
        return self._lores[:h]

    def grey(self, max_width: int) -> np.ndarray:
        """The small stream's Y plane (resized only if it is much wider than ``max_width``)."""
        y = self._y()
        if y.shape[1] > 1.5 * max_width:
            y = cv2.resize(y, (max_width, int(round(y.shape[0] * max_width / y.shape[1]))),
                           interpolation=cv2.INTER_AREA)
        return y

    def colour(self, max_width: int) -> np.ndarray:
        """The small stream in BGR (the exposed-card check needs 0.5 px/mm of colour)."""
        bgr = cv2.cvtColor(self._lores, cv2.COLOR_YUV2BGR_I420)
        if bgr.shape[1] > 1.5 * max_width:
            bgr = cv2.resize(bgr, (max_width, int(round(bgr.shape[0] * max_width / bgr.shape[1]))),
                             interpolation=cv2.INTER_AREA)
        return bgr

    def full(self) -> np.ndarray:
        """The full-resolution BGR frame of this instant (copied once out of the request).

        :raises FrameGone: the request was released and there is no ``late`` still.
        """
        with self._lock:
            if self._full is None and self._request is not None:
                self._full = np.ascontiguousarray(self._request.make_array("main")[:, :, :3])
            if self._full is not None:
                return self._full
        if self._late is not None:
            return self._late()
        raise FrameGone("全分辨率画面已释放 / the full-resolution frame was already released")

    def release(self) -> None:
        """Give the request back to the camera (idempotent; the small stream stays)."""
        with self._lock:
            request, self._request = self._request, None
        if request is not None:
            release_request(request)


def release_request(request: Any) -> None:
    """Give a capture request back to the camera, whatever state the camera is in."""
    try:
        request.release()
    except Exception:  # a camera already stopped: nothing to give back to
        log.debug("request release failed", exc_info=True)


#: The simplejpeg that .venv needs beside its numpy 2 on Raspberry Pi OS (scripts/install.sh installs it).
PI_SIMPLEJPEG = "simplejpeg>=1.8.1"


def _import_picamera2() -> Any:
    """``picamera2.Picamera2``, or a :class:`CameraError` saying how to install it."""
    try:
        return importlib.import_module("picamera2").Picamera2
    except Exception as exc:  # ImportError, or libcamera's own failure inside the import
        if "numpy" in str(exc) and "size changed" in str(exc):
            # apt's simplejpeg, built for bookworm's numpy 1, under .venv's numpy 2 (OpenCV needs it).
            raise CameraError(
                f"无法导入 picamera2：apt 的 simplejpeg 为 numpy 1 编译，.venv 用的是 numpy 2（{exc}）。"
                f"运行 `.venv/bin/pip install '{PI_SIMPLEJPEG}'`（scripts/install.sh 会装） / cannot import "
                f"picamera2: apt's simplejpeg was built for numpy 1 and .venv has numpy 2 ({exc}); run "
                f"`.venv/bin/pip install '{PI_SIMPLEJPEG}'` (scripts/install.sh does)") from exc
        raise CameraError(
            f"无法导入 picamera2（{type(exc).__name__}: {exc}） / cannot import picamera2 "
            f"({type(exc).__name__}: {exc}): 树莓派系统上 `sudo apt install python3-picamera2`，"
            "且 .venv 需以 --system-site-packages 创建（scripts/install.sh 会做） / on Raspberry Pi OS "
            "install python3-picamera2 with apt and make the venv with --system-site-packages "
            "(scripts/install.sh does both)") from exc


class Picamera2Source(FrameSource):
    """A libcamera camera through ``picamera2``: the small stream for motion, full frames on demand.

    :param camera_num: which camera (``Picamera2.global_camera_info()`` order).
    :param size: the main stream's size; ``None``: the sensor's largest mode.
    :param lores: the small stream's size (YUV420; even width and height).
    :param fps: frame rate asked of the sensor (its largest mode may give less: IMX708 14.35).
    :param picamera2_class: the class to use instead of importing ``picamera2`` (tests' fake).
    """

    #: Frames are stamped with ``time.monotonic()`` at capture (the pipeline's witness relies on it).
    monotonic_stamps = True

    def __init__(self, camera_num: int = 0, *, size: tuple[int, int] | None = None,
                 lores: tuple[int, int] = (640, 360), fps: float = 15.0, reconnect_s: float = 2.0,
                 on_status: StatusCallback | None = None, picamera2_class: Any = None) -> None:
        super().__init__(f"picamera2:{camera_num}", on_status)
        self.camera_num = camera_num
        self.size = size
        self.lores = (lores[0] // 2 * 2, lores[1] // 2 * 2)
        self.fps = fps
        self.reconnect_s = reconnect_s
        self._cls = picamera2_class
        self._cam: Any = None
        self._held: deque[TwoSpeedFrame] = deque()
        #: Locked control values (None: free-running); applied and checked by the capture loop.
        self.locked: dict[str, Any] | None = None
        self._want: str | None = None  # "lock" / "unlock", done by the capture loop between frames
        self._since_lock = 0
        self._change: str | None = None
        self._reported = False
        self._ctl_lock = threading.Lock()
        self.last_metadata: dict[str, Any] = {}
        self._bad_buffers = 0  # in a row: see BAD_BUFFERS_REOPEN
        #: What the camera is (``Model``, sensor modes, the main size chosen), after opening.
        self.info: dict[str, Any] = {}

    # -- opening ---------------------------------------------------------------------------------

    def _open(self) -> Any:
        cls = self._cls or _import_picamera2()
        cam = cls(self.camera_num)
        try:
            modes = list(cam.sensor_modes)  # before configure: reading them reconfigures the camera
            size = self.size or _largest(modes) or tuple(cam.camera_properties.get("PixelArraySize", (1920, 1080)))
            config = cam.create_video_configuration(
                main={"size": tuple(size), "format": "RGB888"}, lores={"size": self.lores, "format": "YUV420"},
                sensor={"output_size": tuple(size)}, buffer_count=BUFFER_COUNT,
                controls={"FrameRate": float(self.fps)})
            cam.configure(config)
            cam.start()
        except Exception:
            cam.close()
            raise
        self.info = {"model": cam.camera_properties.get("Model", "?"), "size": tuple(size), "lores": self.lores,
                     "modes": [{"size": tuple(m.get("size", ())), "fps": m.get("fps"), "bit_depth": m.get("bit_depth")}
                               for m in modes]}
        self._set_status(settings={"size": (tuple(size), tuple(size)), "lores": (self.lores, self.lores),
                                   "fps": (self.fps, self.fps)})
        if self.locked is not None:  # reopened after an outage: the camera starts free-running
            self._apply_lock(cam, self.locked)
        return cam

    def _close_cam(self) -> None:
        while self._held:
            self._held.popleft().release()
        cam, self._cam = self._cam, None
        if cam is not None:
            for step in (cam.stop, cam.close):
                try:
                    step()
                except Exception:
                    log.debug("picamera2 %s failed", step.__name__, exc_info=True)

    # -- controls --------------------------------------------------------------------------------

    def lock_controls(self) -> None:
        """Freeze exposure, gain, white balance and focus at their present values (next frame)."""
        with self._ctl_lock:
            self._want = "lock"

    def unlock_controls(self) -> None:
        """Let them run free again (auto exposure, auto white balance, continuous focus)."""
        with self._ctl_lock:
            self._want = "unlock"

    @property
    def controls_locked(self) -> bool:
        return self.locked is not None

    def take_control_change(self) -> str | None:
        """The camera's settings moved away from the locked ones (once per lock), or None."""
        with self._ctl_lock:
            change, self._change = self._change, None
        return change

    def _lock_values(self, md: dict[str, Any], controls: dict[str, Any]) -> dict[str, Any]:
        locked: dict[str, Any] = {}
        if "ExposureTime" in md:
            locked["ExposureTime"] = int(md["ExposureTime"])
        if "AnalogueGain" in md:
            locked["AnalogueGain"] = float(md["AnalogueGain"])
        if "ColourGains" in md:
            locked["ColourGains"] = tuple(float(g) for g in md["ColourGains"])
        if "LensPosition" in md and "AfMode" in controls:
            locked["LensPosition"] = float(md["LensPosition"])
        return locked

    def _apply_lock(self, cam: Any, locked: dict[str, Any]) -> None:
        ctl: dict[str, Any] = {"AeEnable": False, "AwbEnable": False, **locked}
        if "LensPosition" in locked:
            ctl["AfMode"] = AF_MANUAL
        cam.set_controls(ctl)
        self._since_lock = 0
        self._reported = False

    def _do_wanted(self, cam: Any) -> None:
        with self._ctl_lock:
            want, self._want = self._want, None
        if want == "lock":
            locked = self._lock_values(self.last_metadata, cam.camera_controls)
            log.info("camera controls locked: %s", locked)
            self._apply_lock(cam, locked)
            self.locked = locked
        elif want == "unlock":
            log.info("camera controls unlocked (auto exposure, white balance, focus)")
            ctl: dict[str, Any] = {"AeEnable": True, "AwbEnable": True}
            if "AfMode" in cam.camera_controls:
                ctl["AfMode"] = AF_CONTINUOUS
            cam.set_controls(ctl)
            self.locked = None

    def _check_drift(self, cam: Any, md: dict[str, Any]) -> None:
        locked = self.locked
        if locked is None:
            return
        self._since_lock += 1
        if self._since_lock < LOCK_SETTLE_FRAMES:
            return
        moved = drift(locked, md)
        if moved and not self._reported:
            text = ("摄像头参数在标定后改变 / camera settings changed after calibration: " + "; ".join(moved)
                    + " — 已重新锁定 / locked again")
            log.warning("%s", text)
            with self._ctl_lock:
                self._change = text
            self._apply_lock(cam, locked)
            self._reported = True  # once per lock: a camera that ignores the lock is not re-flagged each frame

    # -- frames ----------------------------------------------------------------------------------

    def still(self) -> np.ndarray:
        """A fresh full-resolution frame (the panel's enrolment after the instant was released)."""
        cam = self._cam
        if cam is None:
            raise FrameGone("摄像头未运行 / camera not running")
        return np.ascontiguousarray(cam.capture_array("main")[:, :, :3])

    def frames(self) -> Iterator[TimedFrame]:
        try:
            while not self.closed:
                if self._cam is None:
                    try:
                        self._cam = self._open()
                    except Exception as exc:
                        self._set_status(connected=False, error=f"无法打开摄像头 {self.camera_num}（{exc}） / "
                                                                f"cannot open camera "
                                                                f"{self.camera_num}: {exc}")
                        if isinstance(exc, CameraError) and "picamera2" in str(exc):
                            raise
                        self._closed.wait(self.reconnect_s)
                        continue
                cam = self._cam
                try:
                    self._do_wanted(cam)
                    request = cam.capture_request()
                except Exception as exc:
                    self._close_cam()
                    self._set_status(connected=False, error=f"摄像头断开（{exc}） / "
                                                            f"camera stopped delivering frames: {exc}")
                    self._closed.wait(self.reconnect_s)
                    continue
                ts = time.monotonic()
                try:
                    md = request.get_metadata()
                    sensor_ns = md.get("SensorTimestamp")
                    lores = packed_i420(request.make_array("lores"), *self.lores)
                except Exception as exc:
                    # One buffer the driver could not hand over whole: given back and skipped. Before,
                    # the error ended the camera for the session and the request was never released.
                    release_request(request)
                    self._bad_buffers += 1
                    if self._bad_buffers >= BAD_BUFFERS_REOPEN:
                        self._bad_buffers = 0
                        self._close_cam()
                        self._set_status(connected=False, error=f"摄像头画面无法取出（{exc}） / "
                                                                f"camera buffers unreadable: {exc}")
                        self._closed.wait(self.reconnect_s)
                    continue
                self._bad_buffers = 0
                self.last_metadata = md
                if isinstance(sensor_ns, int) and 0.0 <= ts - sensor_ns / 1e9 < 1.0:
                    ts = sensor_ns / 1e9  # the sensor's own stamp, when it is on the monotonic clock
                frame = TwoSpeedFrame(lores, tuple(self.info.get("size", self.size or (0, 0))), request,
                                      late=self.still)
                self._held.append(frame)
                while len(self._held) > MAX_HELD:  # a consumer that never releases must not starve the camera
                    self._held.popleft().release()
                if not self.status.connected:
                    self._set_status(connected=True, error=None)
                self._check_drift(cam, md)
                self._count_frame()
                yield ts, frame  # type: ignore[misc]
                self._held = deque(f for f in self._held if f.has_full)
        finally:
            self._close_cam()


def packed_i420(buf: np.ndarray, width: int, height: int) -> np.ndarray:
    """A YUV420 stream's array as picamera2 hands it (``(h*3/2, stride)``, rows padded to the ISP's
    stride) as a packed I420 picture ``(h*3/2, width)`` that OpenCV converts: the Y rows are cut to
    the width, and each chroma plane (``h/2`` rows of ``stride/2``) is cut to ``width/2``."""
    stride = buf.shape[1]
    if stride == width:
        return np.array(buf, copy=True)
    flat = np.ascontiguousarray(buf).reshape(-1)
    y = flat[: height * stride].reshape(height, stride)[:, :width]
    half = (height // 2) * (stride // 2)
    u = flat[height * stride: height * stride + half].reshape(height // 2, stride // 2)[:, : width // 2]
    v = flat[height * stride + half: height * stride + 2 * half].reshape(height // 2, stride // 2)[:, : width // 2]
    return np.concatenate([y.ravel(), u.ravel(), v.ravel()]).reshape(height * 3 // 2, width)


def drift(locked: dict[str, Any], md: dict[str, Any]) -> list[str]:
    """Which locked controls the frame's metadata ``md`` no longer shows, in words."""
    out: list[str] = []
    e0, e1 = locked.get("ExposureTime"), md.get("ExposureTime")
    if e0 and e1 is not None and abs(e1 - e0) > EXPOSURE_TOL * e0:
        out.append(f"曝光 {e0} → {e1} µs / exposure {e0} → {e1} µs")
    g0, g1 = locked.get("AnalogueGain"), md.get("AnalogueGain")
    if g0 and g1 is not None and abs(g1 - g0) > GAIN_TOL * g0:
        out.append(f"增益 {g0:.2f} → {g1:.2f} / gain {g0:.2f} → {g1:.2f}")
    c0, c1 = locked.get("ColourGains"), md.get("ColourGains")
    if c0 and c1 is not None and max(abs(a - b) for a, b in zip(c0, c1, strict=False)) > COLOUR_TOL:
        out.append(f"白平衡 {c0[0]:.2f},{c0[1]:.2f} → {c1[0]:.2f},{c1[1]:.2f} / "
                   f"white balance {c0[0]:.2f},{c0[1]:.2f} → {c1[0]:.2f},{c1[1]:.2f}")
    l0, l1 = locked.get("LensPosition"), md.get("LensPosition")
    if l0 is not None and l1 is not None and abs(l1 - l0) > LENS_TOL:
        out.append(f"对焦 {l0:.2f} → {l1:.2f} dpt / focus {l0:.2f} → {l1:.2f} dpt")
    return out


def _largest(modes: list[dict[str, Any]]) -> tuple[int, int] | None:
    sizes = [tuple(m["size"]) for m in modes if m.get("size")]
    return max(sizes, key=lambda s: s[0] * s[1]) if sizes else None  # type: ignore[return-value]


def describe_cameras(picamera2_class: Any = None) -> list[dict[str, Any]]:
    """The libcamera cameras attached (``Model``, ``Num``, ``Id``…), for the self-test."""
    cls = picamera2_class or _import_picamera2()
    return list(cls.global_camera_info())
