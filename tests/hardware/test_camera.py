"""Frame sources: a real video written with cv2.VideoWriter, image folders, synthetic frames, and a
camera that disappears and comes back."""

from __future__ import annotations

import itertools
import os
import queue
import threading
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.camera import (
    CameraStatus,
    CaptureDeviceSource,
    ImageFolderSource,
    SyntheticSource,
    VideoFileSource,
)
from hardware.config import load_config
from hardware.corner_markers import find_corner_markers, marker_board
from hardware.errors import CameraError, ConfigError
from hardware.sources import open_source

W, H, FPS, N = 64, 48, 10.0, 12


def frame_no(k: int) -> np.ndarray:
    """A frame whose brightness encodes its number (survives MJPG compression)."""
    return np.full((H, W, 3), 10 + 20 * k, np.uint8)


def read_no(frame: np.ndarray) -> int:
    return round((float(frame.mean()) - 10) / 20)


@pytest.fixture
def video(tmp_path: Path) -> Path:
    path = tmp_path / "table.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter_fourcc(*"MJPG"), FPS, (W, H))
    assert writer.isOpened()
    for k in range(N):
        writer.write(frame_no(k))
    writer.release()
    return path


def test_video_file_frames_and_media_time(video: Path) -> None:
    with VideoFileSource(video) as source:
        got = list(source)
    assert [read_no(f) for _t, f in got] == list(range(N))
    assert [round(t, 3) for t, _f in got] == [round(k / FPS, 3) for k in range(N)]
    assert got[0][1].shape == (H, W, 3)
    assert source.status.frames == N and not source.status.connected


def test_video_file_loops_with_increasing_time(video: Path) -> None:
    source = VideoFileSource(video, loop=True)
    got = list(itertools.islice(source, 2 * N + 3))
    assert [read_no(f) for _t, f in got][N:N + 3] == [0, 1, 2]
    times = [t for t, _f in got]
    assert all(b > a for a, b in itertools.pairwise(times))
    source.close()


def test_video_file_realtime_pacing(video: Path) -> None:
    import time

    source = VideoFileSource(video, realtime=True)
    t0 = time.monotonic()
    got = list(itertools.islice(source, 4))
    assert time.monotonic() - t0 >= 3 / FPS - 0.02  # frame 3 is due 0.3 s in
    assert len(got) == 4


def test_unreadable_video(tmp_path: Path) -> None:
    bad = tmp_path / "bad.avi"
    bad.write_bytes(b"not a video at all" * 10)
    with pytest.raises(CameraError, match="cannot open video"):
        list(VideoFileSource(bad))
    with pytest.raises(CameraError):
        list(VideoFileSource(tmp_path / "missing.avi"))


def test_image_folder_skips_corrupt_files(tmp_path: Path) -> None:
    for k in (0, 1, 3):
        cv2.imwrite(str(tmp_path / f"f{k}.png"), frame_no(k))
    (tmp_path / "f2.png").write_bytes(b"\x89PNG broken")
    (tmp_path / "notes.txt").write_text("not an image")
    seen: list[CameraStatus] = []
    source = ImageFolderSource(tmp_path, fps=5, on_status=seen.append)
    got = list(source)
    assert [read_no(f) for _t, f in got] == [0, 1, 3]
    assert [t for t, _f in got] == [0.0, 0.2, 0.4]
    assert source.status.skipped == (str(tmp_path / "f2.png"),)
    assert any(s.error and "f2.png" in s.error for s in seen)


def test_image_folder_errors(tmp_path: Path) -> None:
    with pytest.raises(CameraError, match="does not exist"):
        ImageFolderSource(tmp_path / "nope")
    with pytest.raises(CameraError, match="no images"):
        ImageFolderSource(tmp_path)


def test_synthetic_source_hook() -> None:
    calls: list[tuple[int, float]] = []

    def render(index: int, t: float) -> np.ndarray | None:
        calls.append((index, t))
        return None if index == 5 else frame_no(index)

    got = list(SyntheticSource(render, fps=10))
    assert [read_no(f) for _t, f in got] == [0, 1, 2, 3, 4]
    assert calls[-1] == (5, 0.5)
    limited = list(SyntheticSource(lambda i, t: frame_no(i), count=3))
    assert len(limited) == 3
    frames = list(SyntheticSource.from_frames([frame_no(7), frame_no(8)]))
    assert [read_no(f) for _t, f in frames] == [7, 8]


def test_read_one_frame_with_timeout() -> None:
    source = SyntheticSource(lambda i, t: frame_no(2))
    ts, frame = source.read(timeout=2)
    assert ts == 0.0 and read_no(frame) == 2
    never = SyntheticSource(lambda i, t: (threading.Event().wait(5), None)[1])
    assert never.read(timeout=0.05) is None


def test_corner_markers_found_and_missing() -> None:
    board = marker_board(640, 480)
    assert sorted(find_corner_markers(board)) == [0, 1, 2, 3]
    covered = board.copy()
    covered[380:, 500:] = (40, 110, 40)  # a hand over the bottom-right marker (id 2)
    assert sorted(find_corner_markers(covered)) == [0, 1, 3]
    assert find_corner_markers(np.zeros((100, 100, 3), np.uint8)) == {}


class _Collector:
    """Runs a source on a thread, collecting frames and status changes."""

    def __init__(self, source: CaptureDeviceSource) -> None:
        self.source = source
        self.frames = 0
        self.times: list[float] = []
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        for ts, _frame in self.source:
            with self.cond:
                self.frames += 1
                self.times.append(ts)
                self.cond.notify_all()

    def wait_frames(self, n: int, timeout: float = 5.0) -> bool:
        with self.cond:
            return self.cond.wait_for(lambda: self.frames >= n, timeout)


def next_status(statuses: queue.Queue[CameraStatus], want_connected: bool, timeout: float = 5.0) -> CameraStatus:
    while True:
        s = statuses.get(timeout=timeout)
        if s.connected == want_connected:
            return s


def test_camera_that_disappears_and_comes_back(video: Path) -> None:
    statuses: queue.Queue[CameraStatus] = queue.Queue()
    source = CaptureDeviceSource(str(video), width=W, height=H, fps=FPS, reconnect_s=0.05,
                                 on_status=statuses.put)
    run = _Collector(source)
    try:
        assert next_status(statuses, True).connected
        assert run.wait_frames(3)
        gone = video.with_suffix(".unplugged")
        os.rename(video, gone)  # the device node vanishes (USB cable pulled)
        lost = next_status(statuses, False)
        assert lost.outages == 1 and "camera" in (lost.error or "")
        assert not source.status.connected
        frames_during_outage = run.frames
        os.rename(gone, video)  # plugged back in
        back = next_status(statuses, True)
        assert back.outages == 1 and back.error is None
        assert run.wait_frames(frames_during_outage + 3)
        assert all(b >= a for a, b in itertools.pairwise(run.times))  # live timestamps: monotonic
        assert set(source.status.settings) >= {"width", "height", "fps"}
    finally:
        source.close()
        run.thread.join(timeout=5)
    assert not run.thread.is_alive()


def test_camera_absent_at_start_connects_later(tmp_path: Path, video: Path) -> None:
    later = tmp_path / "cam0.avi"
    statuses: queue.Queue[CameraStatus] = queue.Queue()
    source = CaptureDeviceSource(str(later), reconnect_s=0.05, fourcc=None, on_status=statuses.put)
    run = _Collector(source)
    try:
        first = statuses.get(timeout=5)
        assert not first.connected and "is gone" in first.error
        os.link(video, later)
        assert next_status(statuses, True).connected
        assert run.wait_frames(1)
    finally:
        source.close()
        run.thread.join(timeout=5)


def test_open_source_from_config(write_toml, tmp_path: Path, video: Path) -> None:
    base = 'table_id = "C"\n[seats]\nE = "a"\nS = "b"\nW = "c"\nN = "d"\n'
    cfg = load_config(write_toml(base + f'[camera]\nsource = "file"\npath = "{video.name}"\nrealtime = false\n'))
    src = open_source(cfg.camera)
    assert isinstance(src, VideoFileSource) and len(list(src)) == N
    cfg = load_config(write_toml(base + '[camera]\nsource = "synthetic"\nwidth = 320\nheight = 240\n'))
    src = open_source(cfg.camera)
    _t, frame = src.read(timeout=2)
    assert frame.shape == (240, 320, 3) and sorted(find_corner_markers(frame)) == [0, 1, 2, 3]
    cfg = load_config(write_toml(base + f'[camera]\nsource = "device"\ndevice = "{video}"\n'))
    assert isinstance(open_source(cfg.camera), CaptureDeviceSource)
    with pytest.raises(ConfigError, match="no module 'nowhere.mod'"):  # refused by the config check itself
        load_config(write_toml(base + '[camera]\nsource = "synthetic"\nrenderer = "nowhere.mod:make"\n'))
    for spec, words in (("os:no_such_factory", "cannot load renderer"), ("os:system", "not a renderer factory"),
                        ("os:sep", "not a renderer factory")):
        # A name that is there but is not factory(width, height) is a typo too: refused before the camera starts.
        with pytest.raises(ConfigError, match=words):
            load_config(write_toml(base + f'[camera]\nsource = "synthetic"\nrenderer = "{spec}"\n'))
        with pytest.raises(CameraError, match=words):  # and by the camera, for a config built another way
            open_source(replace(cfg.camera, source="synthetic", renderer=spec))


def test_mjpeg_frame_decodes_only_as_far_as_used() -> None:
    """A 4K MJPEG frame: its size from the header, a reduced grey for settling, full colour on demand."""
    import cv2

    from hardware.mjpeg_frame import MjpegFrame, full_frame, jpeg_size

    img = np.zeros((2160, 3840, 3), np.uint8)
    cv2.rectangle(img, (1000, 500), (2000, 1500), (40, 200, 90), -1)
    data = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, 90])[1]
    assert jpeg_size(data) == (3840, 2160) and jpeg_size(b"not a jpeg") is None
    f = MjpegFrame(data)
    g = f.grey(1280)
    assert g.shape == (540, 960) and f._full is None  # a 1/4-scale decode for the settle stream
    c = f.colour(1920)
    assert c.shape == (1080, 1920, 3) and f._full is None
    full = full_frame(f)
    assert full.shape == img.shape and abs(int(full[1000, 1500, 1]) - 200) < 8
    assert full_frame(img) is img
    with pytest.raises(ValueError, match="decodable"):
        MjpegFrame(b"\xff\xd8garbage").grey(640)


def test_device_source_raw_mjpeg_by_default_only_for_wide_mjpg_streams() -> None:
    from hardware.camera import CaptureDeviceSource

    assert CaptureDeviceSource("/dev/null-cam", width=3840, height=2160).raw_mjpeg is True
    assert CaptureDeviceSource("/dev/null-cam", width=1920, height=1080).raw_mjpeg is False
    assert CaptureDeviceSource("/dev/null-cam", width=3840, height=2160, fourcc="YUYV").raw_mjpeg is False
