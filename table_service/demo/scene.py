"""The demo's physical table: the synthetic overhead camera and the bots' hands on it.

:class:`SceneCamera` films the synthetic scene (real card artwork, drawn by
:class:`vision.synth.TableRenderer`) as a ``hardware.camera``-style frame source;
:class:`SceneActuator` lays cards into it and presses buttons on the emulated screen controller
or on mock GPIO pins.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from dataclasses import dataclass
from typing import Any

SKIN_BGR: tuple[int, int, int] = (118, 150, 200)


@dataclass
class _CameraStatus:
    """Health of the synthetic camera, in the shape of ``hardware.camera.CameraStatus``."""

    source: str = "synthetic"
    connected: bool = True
    frames: int = 0
    outages: int = 0
    error: str | None = None


class SceneCamera:
    """The synthetic overhead camera of the demo: a ``hardware.camera``-style frame source
    (``frames()``, ``close()``, ``status``) whose frames :class:`vision.synth.TableRenderer` draws
    from real card artwork.

    The bots change the scene (:meth:`set_zones`); each change is filmed as a player does it: an
    arm reaches over the zone, the cards appear under it, the arm withdraws, then the table lies
    still. A full render happens once per change (the cards), the arm is drawn over it, and a
    still table repeats its last frame, so the cost is per play, not per frame.

    ``realtime``: frames come at ``fps`` on the wall clock (the service on a real table, the
    benchmark). Otherwise (the demo at a higher speed) frames come as fast as the pipeline
    takes them while something is happening and at ``idle_fps`` while the table is still; frame
    time always advances ``1/fps`` per frame, so the watcher's settle time means the same.

    Frame time is the camera's own; :meth:`frame_wall` says when (wall clock) each frame was
    taken, as a real camera's capture instant: the first frame of a change at the moment the bot
    made it (rendering is the simulation's cost, not the player's), any other frame when it is
    handed out, but never after a change not yet filmed (the frame shows the table before it).
    """

    def __init__(self, renderer: Any, *, fps: float = 15.0, realtime: bool = True, idle_fps: float = 2.0,
                 busy_frames: int = 10, seed: int = 0) -> None:
        import numpy as np

        self._np = np
        self.renderer = renderer
        self.fps = float(fps)
        self.realtime = realtime
        self.idle_fps = idle_fps
        self.busy_frames = busy_frames
        self.seed = seed
        self._lock = threading.Condition()
        self._changes: deque[tuple[dict[str, list[str]], list[str], float]] = deque()
        self._taken: dict[float, float] = {}
        self._taken_keys: deque[float] = deque()
        self._plays: dict[str, list[str]] = {}
        self._desired: dict[str, list[str]] = {}
        self._frame: Any = None
        self._light: Any = None
        self._noise: Any = None
        self._closed = False
        self.frames_out = 0
        self.renders = 0
        self.render_s = 0.0
        #: (frame time, wall time, plays) of the first still frame after each change: the frame
        #: in which the play settles physically (the benchmark measures from here).
        self.settled_marks: deque[tuple[float, float, dict[str, list[str]]]] = deque(maxlen=10000)
        self._status = _CameraStatus()

    @property
    def status(self) -> Any:
        return self._status

    def set_zones(self, changes: dict[str, list[str]]) -> None:
        """Change what lies in some zones (seat -> cards left to right; [] empties the zone)."""
        with self._lock:
            for seat, cards in changes.items():
                if cards:
                    self._desired[seat] = list(cards)
                else:
                    self._desired.pop(seat, None)
            self._changes.append((dict(self._desired), list(changes), time.time()))
            self._lock.notify_all()

    def zones(self) -> dict[str, list[str]]:
        """What lies on the table once every queued change has happened."""
        with self._lock:
            return dict(self._desired)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._lock.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    def _render(self, plays: dict[str, list[str]]) -> Any:
        """One camera frame of the table with ``plays``.

        The cards, felt, markers and their layout are :class:`vision.synth.TableRenderer`'s
        (real artwork); the camera model after that is a cheaper one than
        ``TableRenderer.render``'s (same perspective, a fixed lighting gradient, fixed sensor
        noise, JPEG), because the demo renders once per play on a 2-core machine.
        """
        import cv2

        from vision.synth import TableScene  # lazy: vision loads OpenCV (cv2)

        np = self._np
        t0 = time.perf_counter()
        r = self.renderer
        top = r.table_image(TableScene(plays))
        if self._light is None:
            from dataclasses import replace

            from vision.synth import apply_lighting  # lazy: vision loads OpenCV (cv2)

            rng = np.random.default_rng(self.seed + 5)
            light = apply_lighting(np.ones(top.shape, np.float32), rng, replace(r.realism, glare_prob=0.0))
            self._light = np.ascontiguousarray(light, dtype=np.float32)
            noise = np.empty((r.camera.size[1], r.camera.size[0], 3), np.int16)
            cv2.setRNGSeed(self.seed + 11)
            cv2.randn(noise, 0, 3.0)
            self._noise = noise
        top8 = cv2.convertScaleAbs(cv2.multiply(np.asarray(top, np.float32), self._light, dtype=cv2.CV_32F))
        h = r.H @ np.diag([1.0 / r.ppm, 1.0 / r.ppm, 1.0])
        frame = cv2.warpPerspective(top8, h, r.camera.size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                    borderValue=(45, 45, 50))
        frame = cv2.add(frame, self._noise, dtype=cv2.CV_8U)
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 88])
        if ok:
            frame = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        self.render_s += time.perf_counter() - t0
        self.renders += 1
        return frame

    def _arm(self, frame: Any, seats: list[str], reach: float) -> Any:
        """``frame`` with a forearm reaching from each seat's edge ``reach`` (0..1) into its zone."""
        import cv2

        np = self._np
        out = frame.copy()
        layout = self.renderer.layout
        for seat in seats:
            zone = layout.zones[seat]
            zw, zh = zone.size_mm
            tip_y = zh * (1.0 - reach)
            poly = np.array([[zw / 2 - 45, zh + 420], [zw / 2 + 45, zh + 420], [zw / 2 + 40, tip_y],
                             [zw / 2 - 40, tip_y]], np.float64)
            pts = zone.to_table(poly)
            px = cv2.perspectiveTransform(pts.reshape(1, -1, 2), self.renderer.H)[0]
            cv2.fillConvexPoly(out, np.round(px).astype(np.int32), SKIN_BGR, lineType=cv2.LINE_AA)
        return out

    def frame_wall(self, t: float) -> float | None:
        """Wall-clock instant (``time.time()``) at which the frame with time ``t`` was taken
        (None for a frame too old to remember)."""
        return self._taken.get(t)

    def _stamp(self, t: float, change_wall: float | None) -> None:
        with self._lock:
            wall = time.time() if change_wall is None else change_wall
            if self._changes:
                wall = min(wall, self._changes[0][2])
        if self._taken_keys:
            wall = max(wall, self._taken[self._taken_keys[-1]])
        self._taken[t] = wall
        self._taken_keys.append(t)
        while len(self._taken_keys) > 256:
            self._taken.pop(self._taken_keys.popleft(), None)

    def frames(self) -> Any:
        """Yield ``(t, frame)`` until closed."""
        t = 0.0
        t_wall0 = time.monotonic()
        if self._frame is None:
            self._frame = self._render(self._plays)
        # A few frames of the table as it lies before anything changes: the watcher calibrates
        # on them and takes them as its reference.
        script: deque[Any] = deque([self._frame] * 5)
        since_change = 10**9
        while not self._closed:
            change_wall: float | None = None
            if not script:
                with self._lock:
                    change = self._changes.popleft() if self._changes else None
                if change is not None:
                    target, seats, change_wall = change
                    old = self._frame
                    new = self._render(target)
                    script.extend([self._arm(old, seats, 0.7), self._arm(new, seats, 0.8),
                                   self._arm(new, seats, 0.3)])
                    script.append(("settle", new, target))
                    since_change = 0
            if script:
                item = script.popleft()
                if isinstance(item, tuple):
                    _, frame, target = item
                    self._frame = frame
                    self._plays = target
                    self.settled_marks.append((t + 1.0 / self.fps, time.time(), dict(target)))
                else:
                    frame = item
            else:
                frame = self._frame
            t += 1.0 / self.fps
            since_change += 1
            if self.realtime:
                delay = t_wall0 + t - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            elif since_change > self.busy_frames:
                with self._lock:
                    if not self._changes and not self._closed:
                        self._lock.wait(1.0 / self.idle_fps)
            self.frames_out += 1
            self._status.frames = self.frames_out
            self._stamp(t, change_wall)
            # A real camera delivers a new image every frame: in real time, so does this one
            # (the pipeline then does all its per-frame work, as it would on the Pi).
            yield t, (frame.copy() if self.realtime else frame)


class SceneActuator:
    """The bots' hands on the simulated table: cards into the synthetic scene, buttons pressed on
    the emulated screen controller or on mock GPIO pins (whichever backend the table config put
    that button on)."""

    def __init__(self, camera: SceneCamera, devices: Any, emulator: Any = None) -> None:
        self.camera = camera
        self.devices = devices
        self.emulator = emulator
        self.presses: list[tuple[float, str, str, str]] = []

    def lay(self, seat: str, cards: list[str]) -> None:
        if self.camera.zones().get(seat) == list(cards):
            # The same faces again (the second copy): the player first turns the old ones down,
            # else the zone would look unchanged.
            self.camera.set_zones({seat: []})
        self.camera.set_zones({seat: list(cards)})

    def clear(self, seats: list[str] | None = None) -> None:
        now = self.camera.zones()
        todo = [s for s in (seats or list(now)) if now.get(s)]
        if todo:
            self.camera.set_zones({s: [] for s in todo})

    def zone(self, seat: str) -> list[str]:
        return list(self.camera.zones().get(seat, []))

    def press(self, seat: str, button: str) -> None:
        dev = self.devices.seats[seat].buttons.get(button)
        backend = getattr(dev, "backend", None)
        self.presses.append((time.time(), seat, button, str(backend)))
        if backend == "gpio":
            dev.simulate_press()
        elif backend == "screen" and self.emulator is not None:
            self.emulator.press(seat, button)
        elif backend == "sim":
            dev.click()
        else:
            raise ValueError(f"{seat}.{button}：无法按下 {backend} 按键 / cannot press a {backend} button")


# ------------------------------------------------------------------------------ the demo
