"""The picamera2 backend on the contract-checked fake camera: two speeds, buffers, locked controls, config."""

from __future__ import annotations

import threading
import time

import cv2
import numpy as np
import pytest

from hardware.backends.fake_picamera2 import fake_camera_class
from hardware.backends.picamera2_camera import (
    MAX_HELD,
    FrameGone,
    Picamera2Source,
    TwoSpeedFrame,
    drift,
    packed_i420,
)
from hardware.config import load_config
from hardware.sources import open_source

BASE = 'table_id = "C"\n[seats]\nE = "a"\nS = "b"\nW = "c"\nN = "d"\n'


def _scene(i: int) -> np.ndarray:
    """A 1152x648 'sensor' frame: a grey ramp, and a bright square that moves every 10 frames."""
    img = np.tile(np.linspace(40, 200, 1152, dtype=np.uint8), (648, 1))
    img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    x = 100 + 50 * (i // 10)
    img[200:300, x:x + 100] = (250, 250, 250)
    return img


def _source(**kw) -> tuple[Picamera2Source, type]:
    cls = fake_camera_class(_scene, modes=[{"format": "SRGGB10_CSI2P", "bit_depth": 10, "size": (1152, 648),
                                            "fps": 30.0}])
    return Picamera2Source(0, lores=(384, 216), fps=30, picamera2_class=cls, **kw), cls


def test_small_stream_is_the_same_readout_and_full_frame_comes_only_when_asked():
    src, cls = _source()
    it = src.frames()
    t, frame = next(it)
    cam = cls.made[0]
    assert cam.config["main"]["size"] == (1152, 648) and cam.config["lores"]["size"] == (384, 216)
    assert cam.config["lores"]["format"] == "YUV420" and cam.config["main"]["format"] == "RGB888"
    grey = frame.grey(1280)
    assert grey.shape == (216, 384)
    expected = cv2.cvtColor(cv2.resize(_scene(0), (384, 216), interpolation=cv2.INTER_AREA), cv2.COLOR_BGR2GRAY)
    # The Y plane is the picture in grey (video range, 16-235: a linear map of it).
    assert np.corrcoef(grey.ravel(), expected.ravel())[0, 1] > 0.99
    assert frame.colour(1280).shape == (216, 384, 3)
    assert frame.has_full and frame.full().shape == (648, 1152, 3)
    assert np.array_equal(frame.full(), _scene(0))  # the same instant's full frame
    assert abs(t - time.monotonic()) < 5  # stamped on the monotonic clock, as a V4L2 device
    frame.release()
    assert cam.held == 0
    assert frame.has_full and frame.full().shape == (648, 1152, 3)  # once copied out it stays
    it.close()
    assert cam.closed


def test_a_released_frame_gives_a_fresh_still_or_says_it_is_gone():
    src, cls = _source()
    it = src.frames()
    _t, frame = next(it)
    frame.release()
    still = frame.full()  # the source's fresh still: what the panel's enrolment wants
    assert still.shape == (648, 1152, 3)
    bare = TwoSpeedFrame(np.zeros((324, 384), np.uint8), (1152, 648), None)
    with pytest.raises(FrameGone, match="released"):
        bare.full()
    it.close()


def test_frames_kept_by_a_slow_consumer_never_starve_the_camera():
    src, cls = _source()
    kept = []
    it = src.frames()
    for _k in range(20):
        kept.append(next(it)[1])  # never released by the consumer
        assert cls.made[0].held <= MAX_HELD
        assert sum(f.has_full for f in kept) <= MAX_HELD
    assert not kept[0].has_full and kept[-1].has_full
    it.close()
    assert cls.made[0].held == 0  # all given back when the iteration ended


def test_controls_lock_and_a_change_after_the_lock_is_reported_once_and_relocked():
    src, cls = _source()
    it = src.frames()
    for _ in range(3):
        next(it)[1].release()
    cam = cls.made[0]
    assert cam.controls["AeEnable"] and cam.controls["AfMode"] == 2
    src.lock_controls()
    next(it)[1].release()
    assert src.controls_locked
    assert cam.controls["AeEnable"] is False and cam.controls["AwbEnable"] is False and cam.controls["AfMode"] == 0
    assert {"ExposureTime", "AnalogueGain", "ColourGains", "LensPosition"} <= set(src.locked)
    for _ in range(15):
        next(it)[1].release()
    assert src.take_control_change() is None  # locked values come back as set
    cam.reset_controls()  # the camera restarted under us: automatic again
    changes = []
    for _ in range(15):
        next(it)[1].release()
        changes.append(src.take_control_change())
    said = [c for c in changes if c]
    assert len(said) == 1 and "标定后改变" in said[0] and "camera settings changed after calibration" in said[0]
    assert cam.controls["AeEnable"] is False and cam.controls["AfMode"] == 0  # locked again
    src.unlock_controls()
    next(it)[1].release()
    assert not src.controls_locked and cam.controls["AeEnable"] and cam.controls["AfMode"] == 2
    it.close()


def test_drift_names_what_moved():
    locked = {"ExposureTime": 20000, "AnalogueGain": 2.0, "ColourGains": (1.9, 1.6), "LensPosition": 1.0}
    assert drift(locked, {"ExposureTime": 20300, "AnalogueGain": 2.05, "ColourGains": (1.91, 1.6),
                          "LensPosition": 1.02}) == []
    moved = drift(locked, {"ExposureTime": 33000, "AnalogueGain": 4.0, "ColourGains": (2.3, 1.6), "LensPosition": 2.0})
    assert len(moved) == 4 and "exposure" in moved[0] and "focus" in moved[3]


def test_a_camera_that_fails_to_open_is_retried_and_reported():
    class Broken(fake_camera_class(_scene)):
        def start(self, config=None, show_preview=False):
            raise RuntimeError("Failed to start camera: Device or resource busy")

    src = Picamera2Source(0, picamera2_class=Broken, reconnect_s=0.05)
    got = []
    src.on_status = got.append
    t = threading.Thread(target=lambda: next(src.frames(), None), daemon=True)
    t.start()
    deadline = time.monotonic() + 60
    while not got and time.monotonic() < deadline:
        time.sleep(0.02)
    src.close()
    t.join(60)
    assert got and not got[0].connected and "resource busy" in got[0].error
    assert all(c.closed for c in Broken.made)  # each failed attempt closed its camera


def test_config_picks_picamera2_and_says_how_to_install_it_off_a_pi(write_toml):
    cfg = load_config(write_toml(BASE + '[camera]\nbackend = "picamera2"\nlores_width = 480\nlores_height = 270\n'))
    assert cfg.camera.source == "device" and cfg.camera.backend == "picamera2" and not cfg.camera.size_given
    src = open_source(cfg.camera)
    assert isinstance(src, Picamera2Source) and src.lores == (480, 270) and src.size is None
    assert src.read(timeout=30) is None  # no libcamera on this machine
    assert "python3-picamera2" in src.status.error and "--system-site-packages" in src.status.error
    cfg = load_config(write_toml(BASE + '[camera]\nbackend = "picamera2"\nwidth = 2304\nheight = 1296\n'))
    assert open_source(cfg.camera).size == (2304, 1296)


@pytest.mark.parametrize(("camera", "message"), [
    ('backend = "picamera"', "did you mean"),
    ('backend = "picamera2"\nsource = "file"\npath = "x.mp4"', "source = 'device'"),
    ('backend = "picamera2"\nlores_width = 4000', "lores stream"),
    ('backend = "picamera2"\nlens = "cm4"', "lens"),
    ('source = "device"\ndevice = 0\nmount_height_mm = 50', "mount_height_mm"),
])
def test_bad_camera_settings_are_named(write_toml, camera, message):
    with pytest.raises(ValueError, match=message):
        load_config(write_toml(BASE + "[camera]\n" + camera + "\n"), check_devices=False)


def test_rows_padded_to_the_isp_stride_are_unpadded_plane_by_plane():
    w, h, stride = 600, 340, 640  # a lores width the ISP pads to 64-byte rows
    img = np.random.default_rng(1).integers(0, 255, (h, w, 3), np.uint8)
    i420 = cv2.cvtColor(img, cv2.COLOR_BGR2YUV_I420)  # (h*3/2, w), packed
    y, u, v = i420[:h], i420[h:].reshape(-1)[: h // 2 * w // 2], i420[h:].reshape(-1)[h // 2 * w // 2:]
    pad = np.full((h * 3 // 2, stride), 7, np.uint8)
    pad[:h, :w] = y
    chroma = pad[h:].reshape(-1)
    for k, plane in enumerate((u.reshape(h // 2, w // 2), v.reshape(h // 2, w // 2))):
        rows = chroma[k * (h // 2) * (stride // 2):(k + 1) * (h // 2) * (stride // 2)].reshape(h // 2, stride // 2)
        rows[:, : w // 2] = plane
    pad[h:] = chroma.reshape(h // 2, stride)
    assert np.array_equal(packed_i420(pad, w, h), i420)
    assert np.array_equal(packed_i420(i420, w, h), i420)


@pytest.mark.parametrize("bad_buffers, reopened", [(1, False), (3, True)])
def test_a_buffer_the_driver_cannot_hand_over_is_given_back_and_skipped(monkeypatch, bad_buffers, reopened):
    """A transient libcamera error on one request's small stream ended the camera for the session and
    kept the request: now the request goes back, the buffer is skipped, and a run of them reopens
    the camera (status with why) instead of ending it."""
    from hardware.backends import fake_picamera2
    from hardware.backends.picamera2_camera import BAD_BUFFERS_REOPEN

    src, cls = _source(reconnect_s=0.01)
    failing = {"left": bad_buffers}
    make_array = fake_picamera2.FakeCompletedRequest.make_array

    def flaky(self, name):
        if name == "lores" and failing["left"] > 0:
            failing["left"] -= 1
            raise RuntimeError("libcamera: dequeue failed")
        return make_array(self, name)

    monkeypatch.setattr(fake_picamera2.FakeCompletedRequest, "make_array", flaky)
    statuses = []
    src.on_status = statuses.append
    it = src.frames()
    _t, frame = next(it)  # the camera goes on: a frame after the bad buffers
    assert frame.grey(1280).shape == (216, 384)
    assert cls.made[0].held <= 1  # the failed requests went back to the camera
    assert (len(cls.made) == 2) is reopened and (bad_buffers >= BAD_BUFFERS_REOPEN) is reopened
    if reopened:
        assert any(not s.connected and "unreadable" in (s.error or "") for s in statuses)
    it.close()


def test_apt_simplejpeg_built_for_numpy_1_is_named_with_its_fix(tmp_path, monkeypatch):
    """Raspberry Pi OS bookworm: apt's picamera2 imports apt's simplejpeg, built for numpy 1.24, and .venv
    holds numpy 2 (the pinned OpenCV needs it): the import fails with numpy's ABI error. The error said
    to install python3-picamera2, which was installed; now it names simplejpeg and the command."""
    import sys

    from hardware.backends.picamera2_camera import PI_SIMPLEJPEG, _import_picamera2
    from hardware.errors import CameraError

    fake = tmp_path / "picamera2"
    fake.mkdir()
    (fake / "__init__.py").write_text(  # what simplejpeg/_jpeg.pyx raises, deep in picamera2's import
        'raise ValueError("numpy.dtype size changed, may indicate binary incompatibility. '
        'Expected 96 from C header, got 88 from PyObject")\n')
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    with pytest.raises(CameraError) as err:
        _import_picamera2()
    text = str(err.value)
    assert text.startswith("无法导入 picamera2：apt 的 simplejpeg 为 numpy 1 编译")
    assert f".venv/bin/pip install '{PI_SIMPLEJPEG}'" in text and "size changed" in text
    assert "python3-picamera2" not in text  # installed already: not the fix
