"""A stand-in for ``picamera2.Picamera2`` with the library's real interface, for machines without
libcamera (the test machines, the benchmark, a demo without a Pi).

Only the part the table uses is here, with the real names, parameters and defaults (checked
against the installed ``picamera2`` source by ``tests/hardware/test_picamera2_contract.py``):
``Picamera2(camera_num, …)``, ``global_camera_info()``, ``camera_properties``,
``camera_controls``, ``sensor_modes``, ``create_video_configuration``, ``configure``, ``start``,
``stop``, ``close``, ``set_controls``, ``capture_request``, ``capture_array`` and the request's
``make_array``, ``get_metadata``, ``release``.

It behaves as the camera does where that matters to the table: the lores stream is the same
readout scaled by the ISP (YUV420, Y plane first), a request holds one of ``buffer_count`` buffers
until it is released (a consumer that keeps them all gets no more frames: ``RuntimeError`` here,
a hang on the Pi), an unknown control is refused, and auto exposure / white balance / focus
wander with the picture until they are switched off, as the real ISP's do.

Frames come from ``render(index) -> BGR array`` at the sensor's full size: the project's
renderer (``vision.synth.TableRenderer``) in the tests.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import cv2
import numpy as np

Render = Callable[[int], np.ndarray]

#: Camera Module 3 (IMX708): the modes libcamera lists, and its controls with (min, max, default).
IMX708_MODES: list[dict[str, Any]] = [
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (1536, 864), "fps": 120.13,
     "crop_limits": (768, 432, 3072, 1728), "exposure_limits": (9, 77193582)},
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (2304, 1296), "fps": 56.03,
     "crop_limits": (0, 0, 4608, 2592), "exposure_limits": (13, 112015443)},
    {"format": "SRGGB10_CSI2P", "unpacked": "SRGGB10", "bit_depth": 10, "size": (4608, 2592), "fps": 14.35,
     "crop_limits": (0, 0, 4608, 2592), "exposure_limits": (26, 220417486)},
]
IMX708_CONTROLS: dict[str, tuple[Any, Any, Any]] = {
    "AeEnable": (False, True, None), "AwbEnable": (False, True, None), "ExposureTime": (26, 220417486, None),
    "AnalogueGain": (1.12, 16.0, None), "ColourGains": (0.0, 32.0, None), "AfMode": (0, 2, 0),
    "AfTrigger": (0, 1, 0), "LensPosition": (0.0, 15.0, 1.0), "FrameDurationLimits": (33333, 120000, None),
    "Brightness": (-1.0, 1.0, 0.0), "ScalerCrop": ((0, 0, 64, 64), (0, 0, 4608, 2592), (0, 0, 4608, 2592)),
}


class FakeCompletedRequest:
    """``picamera2.request.CompletedRequest``: both streams of one readout and its metadata."""

    def __init__(self, owner: Picamera2, arrays: dict[str, np.ndarray], metadata: dict[str, Any]) -> None:
        self._owner = owner
        self._arrays = arrays
        self._metadata = metadata
        self._released = False

    def make_array(self, name: str) -> np.ndarray:
        """Make a 2d numpy array from the named stream's buffer (a copy, as the real one makes)."""
        if self._released:
            raise RuntimeError("request already released: its buffer belongs to the camera again")
        return self._arrays[name].copy()

    def get_metadata(self) -> dict[str, Any]:
        """Fetch the metadata corresponding to this completed request."""
        return dict(self._metadata)

    def release(self) -> None:
        """Release this completed frame back to the camera system."""
        if not self._released:
            self._released = True
            self._owner._give_back()


class Picamera2:
    """The fake camera. Make a class bound to a renderer with :func:`fake_camera_class`."""

    render: Render = staticmethod(lambda i: np.zeros((2592, 4608, 3), np.uint8))  # type: ignore[assignment]
    model = "imx708"
    modes: list[dict[str, Any]] = IMX708_MODES
    controls_info: dict[str, tuple[Any, Any, Any]] = IMX708_CONTROLS
    #: Pace ``capture_request`` to the frame rate (a live camera); off: as fast as asked (tests).
    realtime = False
    #: Every camera made (the tests look at what the backend did to it).
    made: list[Picamera2] = []

    def __init__(self, camera_num=0, verbose_console=None, tuning=None, allocator=None):
        self.camera_num = camera_num
        self.config: dict[str, Any] | None = None
        self.started = False
        self.closed = False
        self.controls: dict[str, Any] = {"AeEnable": True, "AwbEnable": True, "AfMode": 2}
        self.set_log: list[dict[str, Any]] = []
        self._index = 0
        self._held = 0
        self._lock = threading.Lock()
        self._t0 = 0.0
        self._isp: dict[tuple[int, int, int], tuple[np.ndarray, np.ndarray]] = {}
        #: Auto exposure's state: exposure µs, gain, colour gains, lens position (dioptres).
        self._ae = {"ExposureTime": 20000, "AnalogueGain": 2.0, "ColourGains": (1.9, 1.6), "LensPosition": 1.0}
        type(self).made.append(self)

    # -- what the camera is ----------------------------------------------------------------------

    @staticmethod
    def global_camera_info():
        """Return Id string and Model name for all attached cameras, one dict per camera."""
        return [{"Model": Picamera2.model, "Location": 2, "Rotation": 180,
                 "Id": "/base/axi/pcie@120000/rp1/i2c@88000/imx708@1a", "Num": 0}]

    @property
    def camera_properties(self) -> dict[str, Any]:
        w, h = max((m["size"] for m in self.modes), key=lambda s: s[0] * s[1])
        return {"Model": self.model, "PixelArraySize": (w, h), "Location": 2, "Rotation": 180}

    @property
    def camera_controls(self) -> dict[str, tuple[Any, Any, Any]]:
        return dict(self.controls_info)

    @property
    def sensor_modes(self) -> list[dict[str, Any]]:
        if self.started:
            raise RuntimeError("sensor modes are read by reconfiguring the camera: not while it runs")
        return [dict(m) for m in self.modes]

    # -- configuring -----------------------------------------------------------------------------

    def create_video_configuration(self, main={}, lores=None, raw={}, transform=None, colour_space=None,  # noqa: B006
                                   buffer_count=6, controls={}, display="main", encode="main", queue=True,  # noqa: B006
                                   sensor={}, use_case="video"):  # noqa: B006
        """Make a configuration suitable for video recording."""
        main = {"format": "XBGR8888", "size": (1280, 720), **(main or {})}
        if lores is not None:
            lores = {"format": "YUV420", "size": main["size"], **lores}
            if lores["format"] != "YUV420":
                raise RuntimeError("lores stream must be YUV on this platform")
            if lores["size"][0] > main["size"][0] or lores["size"][1] > main["size"][1]:
                raise RuntimeError("lores stream dimensions may not exceed main stream")
        return {"use_case": use_case, "main": main, "lores": lores, "raw": raw, "buffer_count": buffer_count,
                "controls": dict(controls or {}), "sensor": dict(sensor or {}), "display": display,
                "encode": encode, "queue": queue, "transform": transform, "colour_space": colour_space}

    def configure(self, camera_config=None) -> None:
        if self.started:
            raise RuntimeError("Camera must be stopped before configuring")
        if not isinstance(camera_config, dict):
            raise RuntimeError("the fake camera takes a configuration made by create_video_configuration")
        self.config = camera_config
        self.set_controls({k: v for k, v in camera_config["controls"].items() if k != "FrameRate"})

    def start(self, config=None, show_preview=False) -> None:
        if self.config is None:
            raise RuntimeError("Camera has not been configured")
        self.started = True
        self._t0 = time.monotonic()

    def stop(self) -> None:
        self.started = False

    def close(self) -> None:
        self.started = False
        self.closed = True

    def set_controls(self, controls) -> None:
        for name in controls:
            if name != "FrameRate" and name not in self.controls_info:
                raise RuntimeError(f"Control {name} is not advertised by libcamera")
        with self._lock:
            self.set_log.append(dict(controls))
            self.controls.update(controls)

    def reset_controls(self) -> None:
        """What a camera restarted under the service looks like: everything automatic again (test hook)."""
        with self._lock:
            self.controls.update({"AeEnable": True, "AwbEnable": True, "AfMode": 2})
            for k in ("ExposureTime", "AnalogueGain", "ColourGains", "LensPosition"):
                self.controls.pop(k, None)

    # -- frames ----------------------------------------------------------------------------------

    def _fps(self) -> float:
        assert self.config is not None
        return float(self.config["controls"].get("FrameRate", 30.0))

    def _metadata(self, frame: np.ndarray, t_ns: int) -> dict[str, Any]:
        """Metadata as libcamera reports it; the automatic loops follow the picture's brightness."""
        c = self.controls
        level = float(frame[::64, ::64].mean()) if frame.size else 100.0
        if c.get("AeEnable", True):
            self._ae["ExposureTime"] = int(20000 * 110.0 / max(level, 1.0))
            self._ae["AnalogueGain"] = round(2.0 * (1.0 + (110.0 - level) / 400.0), 3)
        else:
            self._ae["ExposureTime"] = int(c.get("ExposureTime", self._ae["ExposureTime"]))
            self._ae["AnalogueGain"] = float(c.get("AnalogueGain", self._ae["AnalogueGain"]))
        if c.get("AwbEnable", True):
            self._ae["ColourGains"] = (round(1.9 + level / 2000.0, 3), round(1.6 - level / 3000.0, 3))
        else:
            self._ae["ColourGains"] = tuple(c.get("ColourGains", self._ae["ColourGains"]))
        if c.get("AfMode", 2) != 0:
            self._ae["LensPosition"] = round(1.0 + 0.3 * ((self._index // 5) % 3), 2)  # Camera Module 3 hunting
        else:
            self._ae["LensPosition"] = float(c.get("LensPosition", self._ae["LensPosition"]))
        return {"SensorTimestamp": t_ns, "FrameDuration": int(1e6 / self._fps()), "Lux": level * 4.0,
                "AeLocked": not c.get("AeEnable", True), "AfState": 0 if c.get("AfMode", 2) == 0 else 2,
                **self._ae}

    def _readout(self) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        assert self.config is not None
        if self.realtime:
            due = self._t0 + self._index / self._fps()
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
        frame = type(self).render(self._index)
        w, h = self.config["main"]["size"]
        if (frame.shape[1], frame.shape[0]) != (w, h):
            frame = cv2.resize(frame, (w, h), interpolation=cv2.INTER_AREA)
        arrays = {"main": frame}
        lores = self.config.get("lores")
        if lores is not None:
            # The ISP's work: scaled once per distinct picture (a renderer's cached frames cost
            # nothing after the first), so a benchmark counts only what the Pi's CPU would do.
            lw, lh = lores["size"]
            key = (id(frame), lw, lh)
            hit = self._isp.get(key)
            if hit is None or hit[0] is not frame:
                small = cv2.resize(frame, (lw, lh), interpolation=cv2.INTER_AREA)
                hit = (frame, cv2.cvtColor(small, cv2.COLOR_BGR2YUV_I420))
                if len(self._isp) > 32:
                    self._isp.clear()
                self._isp[key] = hit
            arrays["lores"] = hit[1]
        md = self._metadata(frame, time.monotonic_ns())
        self._index += 1
        return arrays, md

    def capture_request(self, wait=None, signal_function=None, flush=None):
        """Fetch the next completed request from the camera system (hold it; release it later)."""
        if not self.started:
            raise RuntimeError("Camera is not running")
        assert self.config is not None
        with self._lock:
            if self._held >= self.config["buffer_count"]:
                raise RuntimeError(f"all {self._held} buffers are held by the application: the camera has "
                                   "nothing to fill (a real camera would stall here)")
            self._held += 1
        arrays, md = self._readout()
        return FakeCompletedRequest(self, arrays, md)

    def capture_array(self, name="main", wait=None, signal_function=None):
        """Make a 2d image from the next frame in the named stream."""
        if not self.started:
            raise RuntimeError("Camera is not running")
        arrays, _md = self._readout()
        return arrays[name]

    def _give_back(self) -> None:
        with self._lock:
            self._held -= 1

    @property
    def held(self) -> int:
        """Requests the application holds now (test hook)."""
        return self._held


def fake_camera_class(render: Render, *, model: str = "imx708", modes: list[dict[str, Any]] | None = None,
                      realtime: bool = False) -> type[Picamera2]:
    """A ``Picamera2`` class whose cameras show ``render(index)`` (full sensor size, BGR)."""
    return type("Picamera2", (Picamera2,), {"render": staticmethod(render), "model": model,
                                            "modes": modes or IMX708_MODES, "realtime": realtime, "made": []})
