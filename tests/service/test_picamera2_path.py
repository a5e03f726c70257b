"""The Pi camera module's whole path: rendered table frames → the contract-checked fake Picamera2
→ motion on the 640×360 YUV stream → settle → the settle instant's full-resolution frame, that zone
only → the card reader; exposure, gain, white balance and focus locked once the table is calibrated,
a change afterwards raised as a flag, the panel's recalibrate unlocking and locking again.

Real parts: the project's renderer (``vision.synth``) with real card artwork, the real watcher and
reader, the service's ``CameraPipeline`` reading latest-first as on a live camera, the real
``Picamera2Source``. Only libcamera is faked (``hardware.backends.fake_picamera2``: the library's interface,
checked against its source by ``tests/hardware/test_picamera2_contract.py``), paced at 15 fps.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import cv2
import pytest

import hardware.backends.fake_picamera2 as fake
from hardware.backends.picamera2_camera import Picamera2Source
from table_service.table.camera_pipeline import CameraPipeline, ControlsChangedSighting
from table_service.table.camera_watcher import make_watcher
from table_service.table.service import sighting_event
from vision.geometry import default_layout
from vision.synth import CameraView, Hand, TableRenderer, TableScene

cv2.setNumThreads(1)
CARDS = ["8s", "8h", "9c"]
#: Camera Module 3's 2x2-binned mode: small enough to render fast here (the backend treats the
#: real 4608x2592 the same way). To keep the reading scale the product has (~2 px/mm) in this
#: smaller frame, the table is a small one: 600 mm, zones 280x130 mm.
SENSOR = (2304, 1296)
LAYOUT = default_layout(table_mm=600.0, zone_mm=(280.0, 130.0), zone_offset_mm=210.0)


def wait_for(pred: Any, timeout: float = 90.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = pred()
        if got:
            return got
        time.sleep(0.02)
    raise AssertionError(f"timed out waiting for {what}")


@pytest.fixture(scope="module")
def renders() -> dict[str, list[Any]]:
    r = TableRenderer(LAYOUT, "anglo", CameraView(size=SENSOR, px_per_mm=1.9, tilt_px=10, seed=3), seed=11)
    scenes = {"empty": TableScene({}), "hand": TableScene({"S": CARDS}, [Hand("S", 0.5)]),
              "play": TableScene({"S": CARDS})}
    return {k: [r.render(s, seed=j) for j in (1, 2)] for k, s in scenes.items()}


class Table:
    """A fake camera module filming ``scene`` (changed by the test), through the service's pipeline."""

    def __init__(self, renders: dict[str, list[Any]], monkeypatch: pytest.MonkeyPatch, layout_path: Any) -> None:
        self.scene = "empty"
        self.copies: dict[str, int] = {"main": 0, "lores": 0}
        real_make = fake.FakeCompletedRequest.make_array

        def counting(req: Any, name: str) -> Any:
            self.copies[name] = self.copies.get(name, 0) + 1
            return real_make(req, name)

        monkeypatch.setattr(fake.FakeCompletedRequest, "make_array", counting)
        self.cls = fake.fake_camera_class(lambda i: renders[self.scene][i % 2], realtime=True)
        self.source = Picamera2Source(0, size=SENSOR, lores=(640, 360), fps=15, picamera2_class=self.cls)
        self.pipe = CameraPipeline(self.source, make_watcher({"px_per_mm": 2.0, "layout": str(layout_path)}, settle_s=0.5))
        self.plays: list[tuple[str, list[str], bool]] = []
        self.sightings: list[Any] = []
        self.pipe.on_sighting = lambda ob, centres: self.sightings.append(ob)
        self._lock = threading.Lock()

    def observe(self, seat: str, cards: list[str], confidence: Any, uncertain: bool, **_kw: Any) -> None:
        with self._lock:
            self.plays.append((seat, cards, uncertain))

    @property
    def cam(self) -> Any:
        return self.cls.made[0]

    def start(self) -> None:
        self.pipe.start(self.observe)
        wait_for(lambda: self.cls.made and self.pipe.frames > 0, what="the first frame")
        wait_for(lambda: self.source.controls_locked, what="controls locked after calibration")

    def stop(self) -> None:
        self.pipe.stop()


@pytest.fixture
def table(renders, monkeypatch, tmp_path):
    path = tmp_path / "layout.json"
    path.write_text(json.dumps(LAYOUT.to_json()))
    t = Table(renders, monkeypatch, path)
    yield t
    t.stop()


def test_play_settles_on_the_small_stream_and_is_read_from_that_instant_s_full_frame(table):
    table.start()
    assert table.pipe.watcher.calibrated and table.pipe.drop_stale  # a live camera: read latest-first
    cam = table.cam
    assert cam.config["lores"]["size"] == (640, 360) and cam.config["main"]["size"] == SENSOR
    # Locked once calibrated and converged: no auto exposure jumping when a hand reaches in.
    assert cam.controls["AeEnable"] is False and cam.controls["AwbEnable"] is False and cam.controls["AfMode"] == 0
    assert {"ExposureTime", "AnalogueGain", "ColourGains", "LensPosition"} <= set(cam.controls)
    main_before = table.copies["main"]
    frames_before = table.pipe.frames
    table.scene = "hand"
    wait_for(lambda: table.pipe.frames >= frames_before + 6, what="frames of the hand")
    table.scene = "play"
    wait_for(lambda: table.plays, what="the play read")
    wait_for(lambda: table.pipe.frames >= frames_before + 30, what="frames after the play")
    assert table.plays == [("S", CARDS, False)], table.plays
    assert table.pipe.errors == 0 and table.pipe.health()["state"] in ("reading", "lagging")
    # Motion and settling ran on the small stream of every frame read; the full frame was copied
    # out only for the settled zone's read (once), never per frame.
    read = table.pipe.frames - frames_before
    assert table.copies["lores"] >= table.pipe.frames
    assert table.copies["main"] - main_before == 1, (table.copies, read)
    table.stop()
    assert cam.held == 0 and cam.closed  # every buffer went back to the camera


def test_a_change_of_the_locked_controls_is_flagged_and_recalibrate_locks_afresh(table):
    table.start()
    cam = table.cam
    locks_before = sum(1 for c in cam.set_log if c.get("AeEnable") is False)
    cam.reset_controls()  # the camera restarted under the service: automatic exposure again
    changed = wait_for(lambda: [s for s in table.sightings if isinstance(s, ControlsChangedSighting)],
                       what="the flag for changed controls")
    # Auto focus hunts at once (Camera Module 3); exposure follows the picture, which is unchanged.
    assert len(changed) == 1 and "focus" in changed[0].text, changed
    wait_for(lambda: cam.controls["AeEnable"] is False, what="locked again")
    # On the panel: a referee flag during a round, nothing outside one.
    ev = sighting_event({"round": 1, "deal": {"phase": "play"}}, changed[0])
    assert ev["type"] == "referee_called" and "标定后改变" in ev["data"]["reason"]
    assert sighting_event({"round": None}, changed[0]) is None
    # The panel's recalibrate: free, converge, calibrate afresh, lock again.
    log_len = len(cam.set_log)
    table.pipe.recalibrate()
    wait_for(lambda: any(c.get("AeEnable") is True for c in cam.set_log[log_len:]), what="controls freed")
    wait_for(lambda: sum(1 for c in cam.set_log if c.get("AeEnable") is False) >= locks_before + 2
             and table.source.controls_locked, what="locked after recalibrating")
    assert table.pipe.watcher.calibrated
    assert len([s for s in table.sightings if isinstance(s, ControlsChangedSighting)]) == 1
