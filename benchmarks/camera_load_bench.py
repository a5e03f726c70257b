"""The whole live camera path of one table at 15 fps, with and without the other core busy.

What is measured is what a table runs per camera (issue #21 §3, #18 item 9):

* **capture**: each 15 fps frame arrives as the camera's MJPEG bytes and is decoded
  (``cv2.imdecode``, as ``cv2.VideoCapture`` does for an MJPG device) on the grabber thread of
  :class:`table_service.table.camera_pipeline.CameraPipeline`;
* **settle and reads**: the project's watcher (``make_watcher``, the service's settings) on the
  newest frame, stale frames dropped (``drop_stale``).

Frames are rendered before the clock starts from real artwork (``vision.synth``), one scene per
2 s (a play appears, lies still, is cleared), so the renderer's cost is not counted: a real camera
renders in hardware. Reported: frames read per second, frames dropped, the longest stall (the
longest wall gap between two frames read), the largest lag of the health report, and the CPU of
the process per wall second as a share of one core (the main thread only sleeps).

    .venv/bin/python benchmarks/camera_load_bench.py --seconds 30 [--busy] [--size 1920x1080]

Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2
import numpy as np

from hardware.camera import SyntheticSource
from hardware.mjpeg_frame import MjpegFrame
from table_service.table.camera_pipeline import CameraPipeline
from table_service.table.camera_watcher import make_watcher
from vision.geometry import default_layout
from vision.synth import CameraView, TableRenderer, TableScene

SCENES: list[dict[str, list[str]]] = [
    {}, {"E": ["7h", "7s"]}, {"E": ["7h", "7s"], "S": ["9c", "9d"]},
    {"E": ["7h", "7s"], "S": ["9c", "9d"], "W": ["Qs", "Qh"]}, {"N": ["3c", "4c", "5c", "6c", "7c"]}, {},
]


def _busy(stop: Any) -> None:
    """The other core's load: a pure-Python loop (the demo's renderer and bots, another process)."""
    x = 0
    while not stop.is_set():
        for _ in range(100_000):
            x += 1


class MjpegCamera(SyntheticSource):
    """A 15 fps realtime camera delivering JPEG bytes, decoded here as the capture would; stamped
    with when each frame was taken (as a V4L2 device's monotonic stamps)."""

    def __init__(self, jpegs: list[bytes], per_scene: int, fps: float, raw: bool) -> None:
        self._t0 = time.time()
        super().__init__(self._frame, fps=fps, realtime=True, name="mjpeg")
        self.jpegs, self.per_scene, self.raw = jpegs, per_scene, raw

    def _frame(self, i: int, _t: float) -> Any:
        data = self.jpegs[(i // self.per_scene) % len(self.jpegs)]
        if self.raw:  # as CaptureDeviceSource hands out a wide MJPG stream: undecoded
            return MjpegFrame(data)
        return cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)

    def frames(self) -> Any:
        self._t0 = time.time()
        yield from super().frames()

    def frame_wall(self, t: float) -> float:
        return self._t0 + t


def run(seconds: float, size: tuple[int, int], busy: bool, fps: float = 15.0, raw: bool = False,
        scene_s: float = 2.0) -> dict[str, float]:
    layout = default_layout()
    px_per_mm = min(size[0] / 1100.0, size[1] / 1000.0)  # the 900 mm table and a margin
    r = TableRenderer(layout, "anglo", CameraView(size=size, px_per_mm=px_per_mm, tilt_px=10), seed=3)
    jpegs = [cv2.imencode(".jpg", r.render(TableScene(s), seed=k), [cv2.IMWRITE_JPEG_QUALITY, 85])[1].tobytes()
             for k, s in enumerate(SCENES)]
    source = MjpegCamera(jpegs, per_scene=int(scene_s * fps), fps=fps, raw=raw)
    pipe = CameraPipeline(source, make_watcher({}))
    reads: list[float] = []
    plays: list[tuple[str, list[str]]] = []
    orig_track = pipe._track_busy

    def track(taken: int, read: set[str]) -> None:
        reads.append(time.monotonic())
        orig_track(taken, read)

    pipe._track_busy = track  # type: ignore[method-assign]
    stop = mp.Event()
    hog = mp.Process(target=_busy, args=(stop,), daemon=True) if busy else None
    if hog is not None:
        hog.start()
    lags: list[float] = []
    cpu0, wall0 = os.times(), time.monotonic()
    pipe.start(lambda seat, cards, *a, **k: plays.append((seat, cards)))
    try:
        while time.monotonic() - wall0 < seconds:
            time.sleep(0.25)
            lags.append(pipe.health()["lag_s"])
    finally:
        cpu1, wall1 = os.times(), time.monotonic()
        pipe.stop()
        stop.set()
        if hog is not None:
            hog.join(2)
    wall = wall1 - wall0
    cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    gaps = np.diff(reads) if len(reads) > 1 else np.array([float("nan")])
    return {"frames_read_per_s": len(reads) / wall, "dropped_per_s": pipe.dropped / wall,
            "longest_stall_s": float(gaps.max()), "max_lag_s": max(lags) if lags else float("nan"),
            "cpu_share_of_one_core": cpu / wall, "cpu_ms_per_frame_read": 1000.0 * cpu / max(len(reads), 1),
            # What reading every frame at 15 fps would take, from the cost per frame read (on a
            # loaded machine fewer frames are read, and the share above understates it).
            "cpu_share_at_15fps": cpu / max(len(reads), 1) * fps,
            "plays_read": len(plays), "px_per_mm": px_per_mm}


def run_picamera2(seconds: float, size: tuple[int, int], busy: bool, fps: float = 15.0, scene_s: float = 2.0,
                  lores: tuple[int, int] = (640, 360)) -> dict[str, float]:
    """The same table through the Pi camera module's path (issue #27): the fake Picamera2 (the
    library's interface; the ISP's scaling is done once per scene, as the Pi's CPU never does it)
    paced at ``fps``, ``hardware.backends.picamera2_camera.Picamera2Source`` with its small YUV stream for
    settling and a full-resolution copy only for a settled zone's read, the same pipeline."""
    from hardware.backends.fake_picamera2 import fake_camera_class
    from hardware.backends.picamera2_camera import Picamera2Source

    layout = default_layout()
    px_per_mm = min(size[0] / 1100.0, size[1] / 1000.0)
    r = TableRenderer(layout, "anglo", CameraView(size=size, px_per_mm=px_per_mm, tilt_px=10), seed=3)
    frames = [r.render(TableScene(sc), seed=k) for k, sc in enumerate(SCENES)]
    per_scene = int(scene_s * fps)
    cls = fake_camera_class(lambda i: frames[(i // per_scene) % len(frames)], realtime=True)
    source = Picamera2Source(0, size=size, lores=lores, fps=fps, picamera2_class=cls)
    return _measure(source, seconds, busy, fps, px_per_mm)


def _measure(source: Any, seconds: float, busy: bool, fps: float, px_per_mm: float) -> dict[str, float]:
    """Run ``source`` through the service's pipeline for ``seconds``; what it cost."""
    pipe = CameraPipeline(source, make_watcher({}))
    reads: list[float] = []
    plays: list[tuple[str, list[str]]] = []
    orig_track = pipe._track_busy

    def track(taken: int, read: set[str]) -> None:
        reads.append(time.monotonic())
        orig_track(taken, read)

    pipe._track_busy = track  # type: ignore[method-assign]
    stop = mp.Event()
    hog = mp.Process(target=_busy, args=(stop,), daemon=True) if busy else None
    if hog is not None:
        hog.start()
    lags: list[float] = []
    cpu0, wall0 = os.times(), time.monotonic()
    pipe.start(lambda seat, cards, *a, **k: plays.append((seat, cards)))
    try:
        while time.monotonic() - wall0 < seconds:
            time.sleep(0.25)
            lags.append(pipe.health()["lag_s"])
    finally:
        cpu1, wall1 = os.times(), time.monotonic()
        pipe.stop()
        stop.set()
        if hog is not None:
            hog.join(2)
    wall = wall1 - wall0
    cpu = (cpu1.user - cpu0.user) + (cpu1.system - cpu0.system)
    gaps = np.diff(reads) if len(reads) > 1 else np.array([float("nan")])
    return {"frames_read_per_s": len(reads) / wall, "dropped_per_s": pipe.dropped / wall,
            "longest_stall_s": float(gaps.max()), "max_lag_s": max(lags) if lags else float("nan"),
            "cpu_share_of_one_core": cpu / wall, "cpu_ms_per_frame_read": 1000.0 * cpu / max(len(reads), 1),
            "cpu_share_at_15fps": cpu / max(len(reads), 1) * fps,
            "plays_read": len(plays), "px_per_mm": px_per_mm}


def warp_bench(size: tuple[int, int] = (3840, 2160), repeats: int = 20) -> dict[str, float]:
    """ms per frame to cut the four zones (settle at 1 px/mm from the 1280-wide grey stream, and one
    zone at 3 px/mm for a read) from a raw frame with a lens: before (undistort the whole frame,
    then warp) and after (one precomputed remap per zone, lens and homography folded)."""
    from vision.calibration import LensCalibration, calibrate_table, remap

    layout = default_layout()
    ppm = min(size[0] / 1100.0, size[1] / 1000.0)
    r = TableRenderer(layout, "anglo", CameraView(size=size, px_per_mm=ppm, tilt_px=10), seed=3)
    frame = r.render(TableScene(SCENES[3]), seed=1)
    w, h = size
    k = np.array([[0.9 * w, 0, w / 2], [0, 0.9 * w, h / 2], [0, 0, 1]], np.float64)
    lens = LensCalibration(k, np.array([-0.18, 0.05, 0, 0, 0], np.float64), size)
    cal = calibrate_table(frame, layout)
    low_w = 1280
    low_size = (low_w, int(round(h * low_w / w)))
    low_cal = cal.scaled(low_size)

    def before() -> None:
        und = lens.undistort(frame)
        low = cv2.cvtColor(cv2.resize(und, low_size, interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
        for z in layout.zones.values():
            low_cal.warp_zone(low, z, 1.0)
        cal.warp_zone(und, layout.zones["S"], 3.0)

    maps_low = {s: cal.zone_maps(z, 1.0, low_size, lens) for s, z in layout.zones.items()}
    maps_read = cal.zone_maps(layout.zones["S"], 3.0, size, lens)

    def after() -> None:
        low = cv2.resize(cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY), low_size, interpolation=cv2.INTER_AREA)
        for m in maps_low.values():
            remap(low, m)
        remap(frame, maps_read)

    out = {}
    for name, fn in (("before_ms", before), ("after_ms", after)):
        fn()
        t0 = time.perf_counter()
        for _ in range(repeats):
            fn()
        out[name] = (time.perf_counter() - t0) / repeats * 1000.0
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=30.0, help="wall seconds per run")
    ap.add_argument("--size", default="1920x1080", help="camera frame WxH (the shipped setting: 1920x1080)")
    ap.add_argument("--busy", action="store_true", help="only the run with the other core busy")
    ap.add_argument("--scene-s", type=float, default=2.0,
                    help="seconds between table changes (a play or a clearing; a real game: ~5-20)")
    ap.add_argument("--decode-all", action="store_true",
                    help="decode every frame whole (as before: the default for streams under 2560 px)")
    ap.add_argument("--warp", action="store_true", help="only the zone-cut cost with a lens, before/after, at 4K")
    ap.add_argument("--compare-picamera2", action="store_true",
                    help="before/after of issue #27 in one run: the 4K USB camera (3840x2160 undecoded MJPEG) "
                         "and Camera Module 3 through picamera2 (4608x2592 + a 640x360 YUV stream)")
    args = ap.parse_args()
    if args.compare_picamera2:
        cv2.setNumThreads(1)
        print(f"# camera_load_bench --compare-picamera2, 15 fps, a change every {args.scene_s:g} s, "
              f"{args.seconds:.0f} s per run, {platform.node()} ({os.cpu_count()} cores), python {platform.python_version()}")
        for busy in ([True] if args.busy else [False, True]):
            for name, fn in (("before: 4K USB, undecoded MJPEG 3840x2160",
                              lambda b: run(args.seconds, (3840, 2160), b, raw=True, scene_s=args.scene_s)),
                             ("after: picamera2 4608x2592 + 640x360 YUV",
                              lambda b: run_picamera2(args.seconds, (4608, 2592), b, scene_s=args.scene_s))):
                res = fn(busy)
                print(f"{name}, other core {'busy' if busy else 'idle'}: " + ", ".join(
                    f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in res.items()), flush=True)
        return 0
    if args.warp:
        cv2.setNumThreads(1)
        res = warp_bench()
        print("4K frame with a lens, four settle zones + one read zone: "
              + ", ".join(f"{k} {v:.1f}" for k, v in res.items()))
        return 0
    w, h = (int(v) for v in args.size.lower().split("x"))
    cv2.setNumThreads(1)
    print(f"# camera_load_bench {w}x{h} 15 fps, a change every {args.scene_s:g} s, {args.seconds:.0f} s per run, {platform.node()} "
          f"({os.cpu_count()} cores), python {platform.python_version()}")
    raw = w >= 2560 and not args.decode_all  # as CaptureDeviceSource decides
    for busy in ([True] if args.busy else [False, True]):
        res = run(args.seconds, (w, h), busy, raw=raw, scene_s=args.scene_s)
        print(f"other core {'busy' if busy else 'idle'}{', undecoded MJPEG' if raw else ''}: " + ", ".join(
            f"{k} {v:.3f}" if isinstance(v, float) else f"{k} {v}" for k, v in res.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
