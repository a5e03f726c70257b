"""The camera path of a table: frames from a ``hardware.camera`` source through the vision watcher.

Moved out of ``table_service.table.service`` so a new engineer finds the camera's thread, its health and
its witness of *when* a play was made in one place (issue #18 item 9). A fault while a frame is
read, or while a play is handed over, costs that frame or that play's evidence, never the camera.

Beside it: the camera's health and its watchdog (:mod:`table_service.table.camera_health`), and
how frames reach it from a live source and when each was taken
(:mod:`table_service.table.camera_frames`).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hardware.errors import HardwareError
from table_service.rules.seats import SEATS
from table_service.table.camera_frames import (
    LatestFrameGrabber,
    is_live,
    monotonic_stamps,
    release_frame,
    taken_wall,
)
from table_service.table.camera_health import CameraHealth, PipelineStatus
from table_service.table.camera_watcher import make_watcher
from table_service.table.clock import TableClock
from table_service.table.config import ServiceConfig
from table_service.table.question_evidence import question_extra

log = logging.getLogger(__name__)


#: Consecutive unusable frames after which the camera counts as offline (the referee enters plays).
BAD_FRAMES_OFFLINE = 15
#: Frames read from a zone's first busy one until the watcher can call a play settled at the
#: earliest (vision/settle.py): the busy frame, one with the withdrawing arm still over the zone,
#: one that moved against it, and one still for settle_s. A camera reading seconds apart is
#: waited for that many frames past the grace (within LAG_GRACE_S), however far apart they were taken.
SETTLE_FRAMES = 4


class _SourceFailed(Exception):
    """The camera source raised while giving its next frame (the cause holds its error)."""


#: Frames fed after the camera's controls were freed (start, or the panel's recalibrate) before
#: they are locked again: ~1 s at 15 fps for auto exposure, white balance and focus to converge.
CONVERGE_FRAMES = 15

#: Why a moved camera stopped reading (it reads again once the markers are fitted afresh).
MOVED_TEXT = "摄像头被移动，找不到桌角标记 / camera moved: table corner markers not found"


#: Real seconds a stopping camera waits for the learner's refit under way (one takes ~2 s here).
LEARNER_STOP_WAIT_S = 15.0
#: Doubted plays remembered for their answer (a deal asks far fewer).
ASKED_KEPT = 64
#: In the table's data folder: what the reader learned of the deck in play, resumed after a restart
#: (:mod:`vision.cardnet.learned`).
LEARNED_DECK_FILE = "learned-deck.npz"


class CameraPipeline(CameraHealth):
    """Frames from a ``hardware.camera`` source through the vision watcher into observations.

    The vision package turns a frame stream into settled-play observations per seat
    (:class:`vision.watcher.TableWatcher`); this class only owns the thread, the frame source and
    the hand-off to :meth:`TableService.observe`. A corrupt frame is counted and skipped; a
    source that ends or fails is reported as the camera going offline.

    It is also the witness of *when* a play was made (:meth:`holds`): each frame is put on the
    table's time line (:meth:`taken_ms`), and after a frame's observations are submitted the
    pipeline records how far it has seen (:attr:`seen_ms`) and since when each zone has been
    busy (:attr:`busy_since_ms`, from ``TableWatcher.zone_busy``). A play is stamped with the
    time its zone became busy.
    """

    def __init__(self, source: Any, watcher: Any, *, on_status: Callable[[Any], None] | None = None,
                 name: str = "camera", clock: TableClock | None = None) -> None:
        self.source = source
        self.watcher = watcher
        self.on_status = on_status
        #: The table clock frames are stamped on (the service sets its own when this is None).
        self.clock = clock
        #: Table ms up to which frames have been processed and their plays submitted.
        self.seen_ms: int | None = None
        #: Seat -> table ms of the first frame of the activity now going on in its zone.
        self.busy_since_ms: dict[str, int] = {}
        #: Exposed cards and hands over a zone go here (the service's ``sighting``), with the
        #: play zones' centres; None: they are only kept in :attr:`sightings` and logged.
        self.on_sighting: Callable[..., Any] | None = None
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self.frames = 0
        self.errors = 0
        #: Observations whose hand-over raised (each still reached the referee where it could).
        self.observation_errors = 0
        self._handed = False  # the observation being handed over is in the log
        self.name = name
        self.busy_s = 0.0
        self.sightings: list[Any] = []
        self._bad_run = 0
        self._last_frame: Any = None
        self._last_low: Any = None
        #: Live sources are read latest-first: a grabber thread keeps only the newest frame, so a
        #: slow read drops the frames that went stale meanwhile instead of queueing them (None:
        #: decided from the source, see :func:`~table_service.table.camera_frames.is_live`).
        #: Recordings and tests read every frame.
        self.drop_stale: bool | None = None
        #: Where an enrolment made at the panel is saved (the service sets ``[vision] enrollment``
        #: or a file in its data folder).
        self.enrollment_path: str | None = None
        #: Health listener: called with :meth:`health` when its ``state`` changes.
        self.on_health: Callable[[dict[str, Any]], None] | None = None
        self._started_wall: float | None = None
        self._read_wall: float | None = None  # wall instant the last read frame was taken
        self._read_ms: int | None = None  # table ms of that frame
        self._offline_why: str | None = None
        self._health_state: str | None = None
        #: Reads a live source latest-first (when :attr:`drop_stale`), counting the frames it drops.
        self._grabber = LatestFrameGrabber(source, self._stop, name)
        #: Wall instant the newest frame read was taken, and per seat the first busy frame's: how
        #: long the camera has watched a zone's activity, whatever its lag (see :meth:`holds`).
        self._seen_wall = 0.0  # after the frame's plays are submitted, as seen_ms
        self._cur_wall = 0.0  # the frame being read
        self._busy_since_wall: dict[str, float] = {}
        #: Per seat, how many frames the camera has read since the zone became busy (the first busy
        #: one counts): a camera reading far apart still sees the play settle (see :meth:`holds`).
        self._busy_frames: dict[str, int] = {}
        #: Event seq of each doubted play still unanswered -> (cards read, crop embeddings of the
        #: cards, of the spots read as no card, a lone card's face): the referee's answer to it is
        #: what the reader learns from (see :meth:`learn_from`).
        self._asked: dict[int, tuple[list[str], Any, Any, Any]] = {}
        #: Frames fed since the camera's controls were last freed; the panel's recalibrate request.
        self._free_frames = 0
        self._recalibrate = threading.Event()

    def _remember_question(self, ob: Any, res: Any) -> None:
        if not ob.uncertain or getattr(ob, "embeddings", None) is None or not getattr(res, "accepted", False):
            return
        self._asked[int(res.seq)] = (list(ob.cards), ob.embeddings, getattr(ob, "none_embeddings", None),
                                     getattr(ob, "face", None))
        while len(self._asked) > ASKED_KEPT:
            del self._asked[next(iter(self._asked))]

    def learn_from(self, ev: dict[str, Any]) -> bool:
        """The referee confirmed or corrected a doubted camera play: teach the reader its answer.

        Called for every applied event (the service subscribes it); True when something was learned.
        """
        if ev.get("type") not in ("play_confirmed", "play_corrected"):
            return False
        ref = (ev.get("data") or {}).get("ref")
        if not isinstance(ref, int) or ref not in self._asked:
            return False
        cards, emb, none_emb, face = self._asked.pop(ref)
        if ev["type"] == "play_corrected":
            cards = list(ev["data"].get("cards") or [])
        learn = getattr(self.watcher, "learn_answer", None)
        return bool(learn(emb, cards, none_emb, face)) if callable(learn) else False

    @classmethod
    def from_config(cls, config: ServiceConfig, devices: Any, on_status: Callable[[Any], None],
                    possible: Callable[[str], Any] | None = None,
                    lawful: Callable[[str], Any] | None = None) -> CameraPipeline | None:
        source = devices.open_camera()
        if source is None:
            return None
        return cls(source, make_watcher(config.vision, possible=possible, lawful=lawful,
                                        learn_store=config.data_dir / LEARNED_DECK_FILE), on_status=on_status)

    def start(self, observe: Callable[..., Any]) -> None:
        self._observe = observe
        self.seen_ms = None
        self.busy_since_ms = {}
        self._started_wall = time.time()
        if self.drop_stale is None:
            self.drop_stale = is_live(self.source)
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()
        watchdog = threading.Thread(target=self._watch_health, name=f"{self.name}-health", daemon=True)
        watchdog.start()

    def latest_frame(self) -> Any:
        """The newest frame the camera has delivered, as a BGR array (None before the first):
        what the panel's enrolment from the table looks at."""
        frame = self._last_frame
        if frame is None:
            return None
        full = getattr(frame, "full", None)
        return full() if callable(full) else frame

    # ------------------------------------------------------------------------ frames

    def _frames(self) -> Any:
        """``(t, frame, received_wall, received_mono)`` to read: every frame of a recording, or
        the newest frame of a live source (the stale ones in between are dropped)."""
        if not self.drop_stale:
            for t, frame in self.source.frames():
                yield t, frame, time.time(), time.monotonic()
            return
        yield from self._grabber.frames()

    @property
    def dropped(self) -> int:
        """Frames the grabber replaced before they were read (stale frames dropped)."""
        return self._grabber.dropped

    def stop(self) -> None:
        self._stop.set()
        with contextlib.suppress(Exception):
            self.source.close()
        if self._thread is not None:
            self._thread.join(5)
        learner = getattr(self.watcher, "learner", None)
        if learner is not None:
            # A refit under way ends first (seconds at most): its thread is a daemon, and a process
            # that exits while it is inside numpy's BLAS can abort in the native thread pool's
            # teardown (one demo in three printed its summary, then "terminate called without an
            # active exception").
            learner.wait(LEARNER_STOP_WAIT_S)
            learner.save()  # the labels since the last refit too: a clean stop forgets nothing

    def relearn(self) -> dict[str, int] | None:
        """The referee's "learn afresh": the reader forgets what it learned of the deck (a different
        deck is in play). What was forgotten, or None where the reader does not learn."""
        forget = getattr(self.watcher, "forget_learning", None)
        return forget() if callable(forget) else None

    def taken_ms(self, t: float, received_wall: float, received_mono: float) -> int:
        """Table time at which the frame with timestamp ``t`` was taken.

        Sources stamp frames on different clocks (``hardware.camera``): a live device with
        ``time.monotonic()`` at capture, so the frame was taken ``received_mono - t`` seconds
        before it reached us; a source with ``frame_wall(t)`` (the demo's ``SceneCamera``) says
        the wall instant itself; files, folders and renderers have media time from 0, which
        says nothing about the table's time, so the moment the frame arrived stands in. The
        wall instant is then put on the table clock's time line (its speed included).
        """
        wall = received_wall
        frame_wall = getattr(self.source, "frame_wall", None)
        got = frame_wall(t) if callable(frame_wall) else None
        if got is not None:
            wall = min(float(got), received_wall)
        elif monotonic_stamps(self.source) and 0.0 <= received_mono - t < 60.0:
            wall = received_wall - (received_mono - t)
        if self.clock is None:
            return int(wall * 1000.0)
        return self.clock.at_wall(wall)

    def zone_centres(self) -> dict[str, tuple[float, float]]:
        """Centre of each seat's play zone in table mm (which seat an exposed card lies nearest)."""
        layout = getattr(self.watcher, "layout", None)
        out: dict[str, tuple[float, float]] = {}
        for seat, zone in (getattr(layout, "zones", None) or {}).items():
            c = zone.corners_table_mm().mean(axis=0)
            out[seat] = (float(c[0]), float(c[1]))
        return out

    def holds(self, seat: str, deadline_ms: int, *, lag_only: bool = False) -> str | None:
        """Why a tick at ``seat``'s ``deadline_ms`` should wait for this camera, or None.

        (a) frames taken up to the deadline are not all processed yet (a play put down before
        it may be among them); (b) ``seat``'s zone became busy by the deadline and its play
        is still being put down or read. A pipeline that has stopped holds nothing.

        ``lag_only`` (past the service's grace): only (a), the machine being behind, still
        holds, and only while the camera reads (lagging, not "not reading"): a hand held over
        the zone, (b), cannot stop the clock for longer than the grace.
        """
        if self._thread is None or not self._thread.is_alive() or self._stop.is_set():
            return None
        seen = self.seen_ms
        if seen is None or seen < deadline_ms:
            if lag_only and self.health()["state"] not in ("reading", "lagging"):
                return None
            return "摄像头画面尚未处理到时限 / camera has not processed frames up to the deadline"
        since = self.busy_since_ms.get(seat)
        if lag_only:
            # A play put down by the deadline is still settling in frames the camera has read:
            # hold while those frames were taken within twice the settle time of its start (the
            # watcher needs settle_s of stillness after the hand withdraws), or while the camera
            # has read fewer frames of it than the watcher needs to call any play settled (a
            # camera reading seconds apart: a loaded Pi). Measured between capture instants and
            # in frames read, so however late and however seldom the camera reads, it is waited
            # for; a hand held over the zone is not, beyond those frames (and LAG_GRACE_S).
            since_wall = self._busy_since_wall.get(seat)
            settle_s = float(getattr(getattr(self.watcher, "settle_cfg", None), "settle_s", 0.8))
            if (since is not None and since <= deadline_ms and since_wall is not None
                    and (self._seen_wall - since_wall <= 2.0 * settle_s
                         or self._busy_frames.get(seat, 0) < SETTLE_FRAMES)
                    and self.health()["state"] in ("reading", "lagging")):
                return "摄像头仍在看这手牌落定 / the camera is still watching the play settle"
            return None
        if since is not None and since <= deadline_ms:
            return "正在出牌 / a play is being placed"
        return None

    def _lowres(self, frame: Any) -> Any:
        """The watcher's low-resolution grey frame, computed once per distinct frame object (a
        camera that repeats a still frame — the synthetic one — then costs little per frame)."""
        if frame is self._last_frame:
            return self._last_low
        width = int(getattr(self.watcher, "lowres_width", 1280))
        grey = getattr(frame, "grey", None)
        if callable(grey):  # an undecoded camera frame (hardware.mjpeg_frame.MjpegFrame): a reduced decode
            self._last_frame, self._last_low = frame, grey(width)
            return self._last_low
        if not (hasattr(frame, "shape") and frame.ndim == 3 and frame.shape[2] == 3 and frame.size):
            return None  # let the watcher reject it with its own message
        import cv2

        h, w = frame.shape[:2]
        # Grey first, then reduce by a whole factor to about the watcher's width (1080p: 960,
        # 4K: 960): the area filter then runs over one channel on its fast integer path. A
        # 1.5x area resize (1920 to 1280) cost as much as the rest of the frame's work.
        grey = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)
        f = max(1, int(w // (0.75 * width)))
        low = grey if f == 1 else cv2.resize(grey, (w // f, h // f), interpolation=cv2.INTER_AREA)
        self._last_frame, self._last_low = frame, low
        return low

    def recalibrate(self) -> None:
        """The panel's recalibrate: on the next frame the camera's exposure, gain, white balance and
        focus run free again, the table markers are fitted afresh, and once the picture has
        converged (:data:`CONVERGE_FRAMES`) and the table is calibrated they are locked again."""
        log.info("camera recalibration requested: controls freed, table markers fitted afresh")
        self._recalibrate.set()

    @property
    def controls_locked(self) -> bool | None:
        """Are the camera's controls locked (None: a source that cannot lock them)?"""
        locked = getattr(self.source, "controls_locked", None)
        return None if locked is None else bool(locked)

    def _controls(self, t: float) -> Any:
        """Lock the source's controls once the table is calibrated and the picture has settled
        (auto exposure jumping when a hand reaches in makes false motion and shifts colours, a
        hunting focus blurs the reads); a change after the lock comes back as a sighting."""
        lock = getattr(self.source, "lock_controls", None)
        if lock is None:
            return None
        if self._recalibrate.is_set():
            self._recalibrate.clear()
            self.source.unlock_controls()
            again = getattr(self.watcher, "recalibrate", None)
            if callable(again):
                again()
            self._free_frames = 0
            return None
        self._free_frames += 1
        if (not self.source.controls_locked and self._free_frames >= CONVERGE_FRAMES
                and getattr(self.watcher, "calibrated", False)):
            log.info("camera calibrated and converged: locking exposure, gain, white balance and focus")
            lock()
        take = getattr(self.source, "take_control_change", None)
        text = take() if callable(take) else None
        return ControlsChangedSighting(text, t) if text else None

    def _camera_moved(self, ob: Any) -> None:
        """A bumped camera (``vision.watcher.CameraMovedSighting``) is a device status: while the
        table's markers cannot be fitted, reading has stopped and the camera counts offline (the
        referee enters plays); once they are, it is online again with the zones recalibrated.
        The flag for the referee is the service's (``table.inputs.sighting_event``)."""
        if not ob.recalibrated:
            self._offline_why = MOVED_TEXT
            log.warning("摄像头移动了 %.1f 毫米，找不到桌角标记：已停止读牌 / camera moved by %.1f mm and the table "
                        "markers are not found: reading stopped", ob.shift_mm, ob.shift_mm)
            if self.on_status is not None:
                self.on_status(PipelineStatus(False, MOVED_TEXT))
        else:
            log.warning("摄像头移动了 %.1f 毫米：出牌区已重新标定 / camera moved (%.1f mm): zones recalibrated",
                        ob.shift_mm, ob.shift_mm)
            if self._offline_why == MOVED_TEXT:
                self._offline_why = None
                if self.on_status is not None:
                    self.on_status(PipelineStatus(True))

    def _track_busy(self, taken: int, read: set[str]) -> None:
        """Note when each zone's current activity began (a zone read in this frame starts afresh)."""
        busy = getattr(self.watcher, "zone_busy", None)
        if busy is None:
            return
        for seat in SEATS:
            if seat in read or not busy(seat):
                self.busy_since_ms.pop(seat, None)
                self._busy_since_wall.pop(seat, None)
                self._busy_frames.pop(seat, None)
            else:
                # Reading latest-first, the frames between the last one read and this one were
                # dropped: the play went down somewhere in between, and the player gets the
                # earliest instant (the machine's slowness must not cost them time).
                placed = taken if not self.drop_stale or self.seen_ms is None else min(taken, self.seen_ms + 1)
                self.busy_since_ms.setdefault(seat, placed)
                self._busy_since_wall.setdefault(seat, self._cur_wall)
                self._busy_frames[seat] = self._busy_frames.get(seat, 0) + 1

    def _frame_failed(self, exc: Exception) -> None:
        """A frame the watcher could not take: counted and skipped. A run of them is the camera
        offline (the referee enters plays) until a frame is read again. A ``ValueError`` is a
        corrupt frame; anything else is the reader failing on one, logged with its traceback
        (once in a hundred), for the reader's engineers rather than the referee."""
        self.errors += 1
        self._bad_run += 1
        corrupt = isinstance(exc, ValueError)
        if self._bad_run == BAD_FRAMES_OFFLINE:
            self._offline_why = (f"摄像头画面无法识别（{exc}） / camera frames unusable: {exc}" if corrupt
                                 else f"读牌出错（{exc}） / card reader failing: {exc}")
            if self.on_status is not None:
                self.on_status(PipelineStatus(False, self._offline_why))
        if self._bad_run <= 3 or self._bad_run % 100 == 0:
            if corrupt:
                log.warning("camera frame rejected (%d in a row): %s", self._bad_run, exc)
            else:
                log.error("card reader failed on a frame (%d in a row)", self._bad_run, exc_info=exc)

    def _hand_over(self, ob: Any, t: float, frame_wall: float, read: set[str]) -> None:
        """One observation of a frame to the service: a settled play (or a zone the reader could
        not make out) into the log, or a sighting (exposed card, hand over a zone, camera moved)."""
        if hasattr(ob, "cards") and hasattr(ob, "seat"):
            read.add(ob.seat)
            # An empty zone is a cleared one; an empty *uncertain* read is cards the
            # reader could not make out, which the referee must look at.
            if ob.cards or ob.uncertain:
                self._handed = False
                res = self._observe(ob.seat, list(ob.cards), list(ob.confidence or []) or None,
                                    bool(ob.uncertain), frame_t=getattr(ob, "t", t), frame_wall=frame_wall,
                                    placed_ms=self.busy_since_ms.get(ob.seat),
                                    # a doubtful read carries its picture, reasons, candidates
                                    extra=question_extra(ob))
                self._handed = True  # in the log: a fault after this must not submit it twice
                self._remember_question(ob, res)
            return
        if getattr(ob, "kind", None) == "camera_moved":
            self._camera_moved(ob)
        if len(self.sightings) < 1000:
            self.sightings.append(ob)
        log.info("camera sighting: %s", getattr(ob, "to_json", lambda o=ob: o)())
        if self.on_sighting is not None:
            self.on_sighting(ob, self.zone_centres())

    def _observation_failed(self, ob: Any, exc: Exception, t: float, frame_wall: float) -> None:
        """Handing an observation over raised: the play still reaches the referee, as a question.

        Why not stop: before, any fault here stopped the camera for the rest of the session
        ("camera failed"), so one odd reading cost every later play its automatic read. The
        play is submitted again as a doubted read of the same cards without its evidence (the
        likeliest fault: the picture or the candidates); if that fails too (the cards
        themselves), the seat's zone is a call to the referee. A sighting that fails is logged.
        """
        self.observation_errors += 1
        log.error("camera observation could not be handed over: %r", ob, exc_info=exc)
        seat = getattr(ob, "seat", None)
        if seat is None or not hasattr(ob, "cards") or not (ob.cards or ob.uncertain) or self._handed:
            return
        why = f"读牌出错（{type(exc).__name__}），请裁判核对 / the reading failed, referee to check: {type(exc).__name__}"
        for cards in (list(ob.cards), []):
            try:
                self._observe(seat, cards, None, True, frame_t=getattr(ob, "t", t), frame_wall=frame_wall,
                              placed_ms=self.busy_since_ms.get(seat), extra={"reasons": [why]} if cards else None)
                return
            except Exception:
                log.exception("camera play could not be submitted (cards %r)", cards)

    def _run(self) -> None:
        """Read until stopped. A camera device (a source that names its ``reconnect_s``) that raises
        (a driver's error on one buffer) is read again after that wait, offline with the reason
        meanwhile: before, one such error stopped the camera for the rest of the session. A
        recording that raises stops (read again from its start, its plays would be logged twice),
        and so does a fault in this pipeline's own code (retried, it would be the same fault)."""
        while not self._stop.is_set():
            if not self._read_source() or not hasattr(self.source, "reconnect_s"):
                return
            self._stop.wait(float(self.source.reconnect_s))

    def _next_frame(self, frames: Any) -> Any:
        """The source's next frame; None when it ended; :class:`_SourceFailed` when it raised (its
        reader thread has then ended: a new reading never runs beside an old one)."""
        try:
            return next(frames)
        except StopIteration:
            return None
        except Exception as exc:
            raise _SourceFailed(exc) from exc

    def _read_source(self) -> bool:
        """Read the source's frames until it ends (False) or raises (True: the reason is reported)."""
        try:
            frames = iter(self._frames())
            while (item := self._next_frame(frames)) is not None:
                t, frame, frame_wall, frame_mono = item
                if self._stop.is_set():
                    return False
                t0 = time.perf_counter()
                taken = self.taken_ms(t, frame_wall, frame_mono)
                self._cur_wall = taken_wall(self.source, t, frame_wall, frame_mono)
                try:
                    observations = self.watcher.feed(frame, t, lowres=self._lowres(frame))
                    changed = self._controls(t)
                    if changed is not None:
                        observations = [*(observations or ()), changed]
                except Exception as exc:  # a corrupt frame, or the reader failing on it: skipped, never fatal
                    self._frame_failed(exc)
                    continue
                finally:
                    self.frames += 1
                    release_frame(frame)  # the full frame was taken if a zone settled; the buffer goes back
                if self._bad_run >= BAD_FRAMES_OFFLINE:
                    self._offline_why = None
                    if self.on_status is not None:
                        self.on_status(PipelineStatus(True))
                self._bad_run = 0
                read: set[str] = set()
                for ob in observations or ():
                    try:
                        self._hand_over(ob, t, frame_wall, read)
                    except Exception as exc:  # one observation's fault costs its extras, never the camera
                        self._observation_failed(ob, exc, t, frame_wall)
                # Only now, with this frame's plays in the log, has the camera seen up to it.
                self._track_busy(taken, read)
                self.seen_ms = taken if self.seen_ms is None else max(self.seen_ms, taken)
                self._read_ms = self.seen_ms
                self._read_wall = self._seen_wall = self._cur_wall
                self.busy_s += time.perf_counter() - t0
            if not self._stop.is_set():
                self._offline_why = "摄像头画面中断 / camera stream ended"
                if self.on_status is not None:
                    self.on_status(PipelineStatus(False, self._offline_why))
            return False
        except _SourceFailed as failed:
            exc = failed.__cause__
            why = f"摄像头故障（{exc}） / camera failed: {exc}"
            if why != self._offline_why:  # once per reason, not once per retry
                if isinstance(exc, HardwareError):  # the project's own, said in words: no traceback
                    log.error("%s", why)
                else:
                    log.error("camera source failed", exc_info=exc)
                self._offline_why = why
                if self.on_status is not None:
                    self.on_status(PipelineStatus(False, why))
            self._bad_run = BAD_FRAMES_OFFLINE  # the next frame read brings the camera back online
            return True
        except Exception as exc:
            log.exception("camera pipeline stopped")
            self._offline_why = f"摄像头故障（{exc}） / camera failed: {exc}"
            if self.on_status is not None:
                self.on_status(PipelineStatus(False, self._offline_why))
            return False



@dataclass
class ControlsChangedSighting:
    """The camera's exposure, gain, white balance or focus moved after they were locked at
    calibration (the source locked them again): a flag for the referee, as a bumped camera is."""

    text: str
    t: float
    kind: str = "camera_controls_changed"

    def to_json(self) -> dict[str, Any]:
        return {"type": self.kind, "text": self.text, "t": self.t}
