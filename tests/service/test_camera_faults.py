"""One fault in the camera path costs one frame or one play's evidence, never the camera.

Before, any exception while a frame was read or its observations handed over stopped the
pipeline for the rest of the session ("camera failed"), so every later play went unread. Now a
frame the reader fails on is skipped like a corrupt one, and a play whose hand-over fails still
reaches the referee as a doubted read (or, failing that, a call to the referee), once.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from hardware.camera import SyntheticSource
from table_service.table.camera_pipeline import BAD_FRAMES_OFFLINE, CameraPipeline

FRAME = np.zeros((48, 64, 3), np.uint8)


@dataclass
class Play:
    """A settled play as the watcher hands it over (the attributes the pipeline reads)."""

    seat: str
    cards: list[str]
    uncertain: bool = False
    confidence: list[float] = field(default_factory=list)
    t: float = 0.0


class BrokenEvidence(Play):
    """A doubted play whose picture the reader cannot give (a bug in the reader's object)."""

    @property
    def crop(self) -> Any:
        raise RuntimeError("crop buffer released")


class ScriptedWatcher:
    """Feeds return what ``script`` says for each frame index: a list of observations, or an
    exception to raise."""

    lowres_width = 64

    def __init__(self, script: dict[int, Any]) -> None:
        self.script = script
        self.n = 0

    def feed(self, frame: Any, t: float, lowres: Any = None) -> list[Any]:
        i, self.n = self.n, self.n + 1
        got = self.script.get(i, [])
        if isinstance(got, BaseException):
            raise got
        return got


@dataclass
class Accepted:
    seq: int
    accepted: bool = True


class Observer:
    """The service's ``observe``, recording each call; raises for the calls ``fail`` names."""

    def __init__(self, fail: Any = lambda call: False) -> None:
        self.calls: list[dict[str, Any]] = []
        self.fail = fail

    def __call__(self, seat: str, cards: list[str], confidence: Any, uncertain: bool, **kw: Any) -> Any:
        call = {"seat": seat, "cards": cards, "uncertain": uncertain, **kw}
        if self.fail(call):
            raise RuntimeError("engine refused")
        self.calls.append(call)
        return Accepted(len(self.calls))


def _run(watcher: ScriptedWatcher, observer: Observer, frames: int) -> CameraPipeline:
    source = SyntheticSource(lambda _i, _t: FRAME, count=frames)
    statuses: list[Any] = []
    pipe = CameraPipeline(source, watcher, on_status=statuses.append)
    pipe.statuses = statuses  # type: ignore[attr-defined]  # what the service was told, in order
    pipe.start(observer)
    deadline = time.monotonic() + 10
    while pipe._thread is not None and pipe._thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    return pipe


def test_a_frame_the_reader_fails_on_is_skipped_and_reading_goes_on():
    watcher = ScriptedWatcher({2: RuntimeError("index out of range in the reader"),
                               5: [Play("S", ["9h", "9s"], confidence=[0.99, 0.99])]})
    observer = Observer()
    pipe = _run(watcher, observer, frames=8)
    assert watcher.n == 8  # every frame after the fault was read
    assert [c["cards"] for c in observer.calls] == [["9h", "9s"]]
    assert pipe.errors == 1
    # the only status: the stream's end (the fault neither stopped nor offlined the camera)
    assert [st.error for st in pipe.statuses] == ["摄像头画面中断 / camera stream ended"]


def test_a_reader_failing_on_every_frame_is_the_camera_offline_with_its_reason():
    frames = BAD_FRAMES_OFFLINE + 5
    watcher = ScriptedWatcher({i: RuntimeError("model file truncated") for i in range(frames)})
    pipe = _run(watcher, Observer(), frames=frames)
    assert pipe.errors == frames
    whys = [st.error for st in pipe.statuses]
    assert whys[0] is not None and whys[0] == ("读牌出错（model file truncated） / "
                                               "card reader failing: model file truncated")


def test_a_play_whose_evidence_fails_still_reaches_the_referee_as_a_doubted_read_once():
    watcher = ScriptedWatcher({1: [BrokenEvidence("E", ["Qh", "Qs", "Qc"], uncertain=True)],
                               3: [Play("N", ["5d"], confidence=[0.999])]})
    observer = Observer()
    pipe = _run(watcher, observer, frames=5)
    assert [(c["seat"], c["cards"], c["uncertain"]) for c in observer.calls] == [
        ("E", ["Qh", "Qs", "Qc"], True), ("N", ["5d"], False)]
    assert "读牌出错" in observer.calls[0]["extra"]["reasons"][0]
    assert pipe.observation_errors == 1
    assert pipe._thread is not None and not pipe._thread.is_alive() and pipe._offline_why == "摄像头画面中断 / camera stream ended"


def test_cards_the_service_refuses_become_a_call_to_the_referee_for_that_zone():
    watcher = ScriptedWatcher({1: [Play("W", ["Zz"], uncertain=False, confidence=[0.99])]})
    observer = Observer(fail=lambda call: bool(call["cards"]))
    pipe = _run(watcher, observer, frames=3)
    assert [(c["seat"], c["cards"], c["uncertain"]) for c in observer.calls] == [("W", [], True)]
    assert pipe.observation_errors == 1


def test_a_fault_after_the_play_is_logged_does_not_submit_it_twice():
    class ForgetfulPlay(Play):
        @property
        def embeddings(self) -> Any:  # read only after the play is in the log
            raise RuntimeError("embedding cache gone")

    watcher = ScriptedWatcher({1: [ForgetfulPlay("S", ["3c"], uncertain=True, confidence=[0.6])]})
    observer = Observer()
    pipe = _run(watcher, observer, frames=3)
    assert [c["cards"] for c in observer.calls] == [["3c"]]
    assert pipe.observation_errors == 1


class FlakySource:
    """A source that raises once on its first reading of frames, then delivers (a recording: read
    again it would start over)."""

    def __init__(self, frames: int) -> None:
        self.opened = 0
        self.count = frames

    def frames(self) -> Any:
        self.opened += 1
        for i in range(self.count):
            if self.opened == 1 and i == 3:
                raise RuntimeError("libcamera: dequeue failed")
            time.sleep(0.02)  # a camera's pace: the reader keeps up, no frame is dropped as stale
            yield i / 15.0, FRAME.copy()

    def close(self) -> None:
        pass


class FlakyCamera(FlakySource):
    """A camera device whose driver raised once (a libcamera buffer error): it names how long to wait
    before reopening it, as the device sources do."""

    reconnect_s = 0.05


def test_a_live_source_that_raises_is_read_again_and_the_camera_comes_back():
    """One driver error ended the pipeline for the session ("camera failed", never read again)."""
    watcher = ScriptedWatcher({5: [Play("S", ["9h", "9s"], confidence=[0.99, 0.99])]})
    source = FlakyCamera(frames=8)
    statuses: list[Any] = []
    pipe = CameraPipeline(source, watcher, on_status=statuses.append)
    pipe.drop_stale = True  # a live source: the newest frame first (as is_live decides for a device)
    observer = Observer()
    pipe.start(observer)
    try:
        deadline = time.monotonic() + 10
        while not observer.calls and time.monotonic() < deadline:
            time.sleep(0.01)
        assert source.opened >= 2 and [c["cards"] for c in observer.calls] == [["9h", "9s"]]
        assert statuses[0].connected is False and "libcamera: dequeue failed" in statuses[0].error
        assert any(st.connected for st in statuses[1:])  # online again with the first frame read
    finally:
        pipe.stop()


def test_a_recording_that_raises_is_not_read_twice():
    """A recording read again from its start would log its plays twice: it stops, with why."""
    watcher = ScriptedWatcher({1: [Play("S", ["9h"], confidence=[0.99])]})
    source = FlakySource(frames=8)
    statuses: list[Any] = []
    pipe = CameraPipeline(source, watcher, on_status=statuses.append)
    pipe.drop_stale = False
    observer = Observer()
    pipe.start(observer)
    deadline = time.monotonic() + 10
    while pipe._thread is not None and pipe._thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert source.opened == 1 and [c["cards"] for c in observer.calls] == [["9h"]]
    assert [st.connected for st in statuses] == [False]


def test_a_fault_of_the_pipelines_own_code_never_reads_the_camera_twice_at_once():
    """Retrying after its own fault started a second reader of the same camera beside the first (two
    threads on one capture device): only the source's own error is retried."""
    source = FlakyCamera(frames=8)
    source.opened = 1  # no error of the source's: only the pipeline's below
    pipe = CameraPipeline(source, ScriptedWatcher({}), on_status=lambda st: None)
    pipe.drop_stale = True
    pipe._track_busy = lambda *a: (_ for _ in ()).throw(RuntimeError("bug in the pipeline"))  # type: ignore[method-assign]
    pipe.start(Observer())
    deadline = time.monotonic() + 10
    while pipe._thread is not None and pipe._thread.is_alive() and time.monotonic() < deadline:
        time.sleep(0.01)
    assert source.opened == 2  # read once (the 1 set above, and this reading): never a second reader
    assert "bug in the pipeline" in (pipe._offline_why or "")
    pipe.stop()


class BadVideoSource(FlakySource):
    """A recording the camera layer cannot decode: it raises the project's own CameraError."""

    def frames(self) -> Any:
        from hardware.errors import CameraError

        self.opened += 1
        raise CameraError("无法解码视频 / cannot decode the video garbage.mp4")
        yield  # pragma: no cover


def test_the_projects_own_camera_error_is_one_line_without_a_traceback(caplog):
    """`run` on a garbage video printed a Python traceback for a CameraError it had put in words."""
    pipe = CameraPipeline(BadVideoSource(frames=1), ScriptedWatcher({}), on_status=lambda st: None)
    pipe.drop_stale = False
    with caplog.at_level("ERROR"):
        pipe.start(Observer())
        deadline = time.monotonic() + 10
        while pipe._thread is not None and pipe._thread.is_alive() and time.monotonic() < deadline:
            time.sleep(0.01)
    errors = [r for r in caplog.records if r.levelname == "ERROR"]
    assert errors and all(r.exc_info is None for r in errors), [r.exc_info for r in errors]
    assert any("cannot decode the video garbage.mp4" in r.getMessage() for r in errors)
