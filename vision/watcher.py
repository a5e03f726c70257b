"""Per-table watcher: camera frames in, settled plays and other sightings out.

Used by the service (real camera) and the demo (synthetic camera)::

    w = TableWatcher(layout)                  # or TableWatcher(layout, lens=LensCalibration.load(p))
    for frame, t in camera:                   # full-resolution BGR frames, t in seconds
        for obs in w.feed(frame, t):
            ...                               # PlayObservation / ExposedCardSighting / HandInZoneSighting

Cost per frame: the frame is reduced to the low-res stream (``lowres_width``), the four
zones are warped at ~1 px/mm and compared (:mod:`vision.settle`); only when a zone settles
are the buffered full-resolution frames used: the zone is cut out of the sharpest few at
``read_px_per_mm`` and read, and the readings vote.

Frames stay raw (never undistorted whole): each zone is cut with one ``cv2.remap`` whose map
folds the lens and the table homography together (:meth:`TableCalibration.zone_maps`), made
once per zone, scale and frame size. Only calibration undistorts a whole frame.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from .calibration import LensCalibration, TableCalibration, calibrate_table, detect_markers, remap
from .cardnet.deckfile import Enrollment
from .cardnet.enrol import seen_face_crops
from .cardnet.head import Head
from .cardnet.online import PlayLearner
from .cardnet.read import PlayReading, default_head, read_play
from .cardnet.shape import Lawful
from .frames import check_picture, check_pixels, check_view
from .geometry import SEATS, TableLayout, default_layout
from .paper import card_mask
from .settle import SettleConfig, ZoneSettler


@dataclass
class PlayObservation:
    """A play came to rest in ``seat``'s zone and was read (``cards == []``: the zone was cleared)."""

    seat: str
    cards: list[str]
    confidence: list[float]
    uncertain: bool
    t: float
    reasons: list[str] = field(default_factory=list)
    votes: int = 1
    #: The zone as read (upright for the seat), the evidence for the referee.
    crop: np.ndarray | None = field(default=None, repr=False)
    #: The reader's second choice per card (or None): the panel offers them as one-tap answers.
    alternatives: list[str | None] = field(default_factory=list)
    #: Each card's crop embedding: what the referee's answer to a doubted play teaches the reader.
    embeddings: np.ndarray | None = field(default=None, repr=False)
    #: The embeddings of the spots the reader judged no card (taught as such by that answer).
    none_embeddings: np.ndarray | None = field(default=None, repr=False)
    #: A lone card's whole face (:attr:`vision.cardnet.read.PlayReading.face`): named by the answer,
    #: a face of the deck the table learns from.
    face: np.ndarray | None = field(default=None, repr=False)
    #: Whole-play readings to offer as answers, the read first (:attr:`PlayReading.candidates`).
    candidates: list[list[str]] = field(default_factory=list)

    def to_json(self) -> dict:
        return {"type": "play", "seat": self.seat, "cards": self.cards,
                "confidence": [round(c, 4) for c in self.confidence], "uncertain": self.uncertain,
                "reasons": self.reasons, "votes": self.votes, "t": self.t}


@dataclass
class ExposedCardSighting:
    """A card-sized paper blob at rest outside every play zone (a card shown or dropped)."""

    position_mm: tuple[float, float]
    size_mm: tuple[float, float]
    t: float
    crop: np.ndarray | None = field(default=None, repr=False)

    def to_json(self) -> dict:
        return {"type": "exposed_card", "position_mm": [round(v, 1) for v in self.position_mm],
                "size_mm": [round(v, 1) for v in self.size_mm], "t": self.t}


@dataclass
class HandInZoneSighting:
    """A hand or object has stayed over ``seat``'s zone for ``seconds``."""

    seat: str
    seconds: float
    t: float

    def to_json(self) -> dict:
        return {"type": "hand_in_zone", "seat": self.seat, "seconds": round(self.seconds, 1), "t": self.t}


@dataclass
class CameraMovedSighting:
    """The table's corner markers are ``shift_mm`` from where the calibration put them: the camera
    was bumped. ``recalibrated``: the zones follow (markers found again); False: reading stops
    until the markers are seen again (a later sighting says so with ``recalibrated`` True)."""

    shift_mm: float
    recalibrated: bool
    t: float
    kind: str = "camera_moved"

    def to_json(self) -> dict:
        return {"type": "camera_moved", "shift_mm": round(self.shift_mm, 1), "recalibrated": self.recalibrated,
                "t": self.t}


Observation = PlayObservation | ExposedCardSighting | HandInZoneSighting | CameraMovedSighting

#: Markers this far (table mm, median over the corners seen) from where the calibration puts them
#: mean a moved camera. Zones were found within 1.03 mm of the truth (issue #21's check), the
#: reader tolerates a few mm of zone offset; 3 mm is a bump, not the markers' detection noise.
MOVED_MM = 3.0


def sharpness(img: np.ndarray) -> float:
    g = img if img.ndim == 2 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
    return float(cv2.Laplacian(g, cv2.CV_32F).var())


def vote(readings: list[PlayReading]) -> tuple[PlayReading, int]:
    """Majority over readings of the same play; any disagreement makes the result uncertain."""
    if not readings:
        return PlayReading([], [], True, ["没有可读的帧 / no frame to read"]), 0
    counts = Counter(tuple(r.cards) for r in readings)
    best, n = counts.most_common(1)[0]
    agree = [r for r in readings if tuple(r.cards) == best]
    conf = [float(np.mean([r.confidence[i] for r in agree])) for i in range(len(best))]
    reasons = sorted({why for r in agree for why in r.reasons})
    uncertain = any(r.uncertain for r in agree)
    if n < len(readings):
        uncertain = True
        reasons.append(f"各帧读数不一致（{len(readings)} 帧中 {n} 帧相同） / frames disagree ({n} of {len(readings)})")
    first = agree[0]  # the sharpest frame of those that agree (the caller sorts them so)
    return PlayReading(list(best), conf, uncertain, reasons, list(first.alternatives), first.joint,
                       first.embeddings, first.none_embeddings, first.face, list(first.candidates)), n


def _full(frame: object) -> np.ndarray:
    """A frame as a BGR array: a camera's undecoded frame (``hardware.mjpeg_frame.MjpegFrame``, with
    ``full()``) is decoded here, and only the frames that are read or calibrated on ever are."""
    return frame.full() if hasattr(frame, "full") else frame  # type: ignore[attr-defined,return-value]


def _smooth(zone: np.ndarray) -> np.ndarray:
    """The zone as the settler compares it (its sensor noise blurred away)."""
    return cv2.GaussianBlur(zone, (3, 3), 0)


class TableWatcher:
    """Watches one table: settle detection per zone, reading, exposed cards, hands over zones."""

    def __init__(self, layout: TableLayout | None = None, *, calibration: TableCalibration | None = None,
                 lens: LensCalibration | None = None, read_px_per_mm: float = 3.0, lowres_width: int = 1280,
                 settle: SettleConfig | None = None, enrollment: Enrollment | None = None,
                 possible: Callable[[str], Iterable[str] | None] | None = None, read_frames: int = 3,
                 exposed_every: int = 5, exposed_min_s: float = 1.0, recheck_s: float = 5.0,
                 learn: bool = True, learn_store: str | Path | None = None,
                 lawful: Callable[[str], Lawful | None] | None = None) -> None:
        self.layout = layout or default_layout()
        self.calibration = calibration
        self.lens = lens
        self.read_ppm = read_px_per_mm
        self.lowres_width = lowres_width
        self.settle_cfg = settle or SettleConfig()
        self.enrollment = enrollment
        #: Learn the deck while playing (:mod:`vision.cardnet.online`): from sure reads and answers.
        self.learn = learn
        self._learner: PlayLearner | None = None
        #: The file what was learned of the deck is kept in, so a restart mid-session resumes it
        #: (:mod:`vision.cardnet.learned`); None: learned in memory only.
        self.learn_store = learn_store
        self._learner_lock = threading.Lock()
        self.possible = possible
        #: Per seat, whether cards form a shape the rules allow now (None: no deal in play): a
        #: reading is weighed against the readings near it no player would lay (:mod:`vision.cardnet.shape`).
        self.lawful = lawful
        self.read_frames = read_frames
        self.exposed_every = exposed_every
        self.exposed_min_s = exposed_min_s
        self.zone_ppm = 1.0
        self.settlers = {s: ZoneSettler(self.settle_cfg, self.zone_ppm) for s in SEATS if s in self.layout.zones}
        self._frames: deque[tuple[float, np.ndarray]] = deque(maxlen=max(read_frames + 2, 4))
        self._low_cal: TableCalibration | None = None
        self._maps: dict[tuple[str, float, tuple[int, int]], tuple[np.ndarray, np.ndarray]] = {}
        #: Seat -> the zone's low-res image when it was last known empty (see :meth:`_looks_empty`).
        self._empty: dict[str, np.ndarray] = {}
        self._first: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # see _first_look
        #: Seconds (frame time) between re-checks of the corner markers on a still table (0: never).
        self.recheck_s = recheck_s
        self._last_check: float | None = None
        self._moved_checks = 0
        self._lost = False  # moved, and the markers not found since: reading has stopped
        self._n = 0
        self._exposed_seen: dict[tuple[int, int], float] = {}
        self._exposed_reported: set[tuple[int, int]] = set()
        self._lock = threading.Lock()
        self.last_readings: dict[str, PlayObservation] = {}
        #: Time ``t`` of the last frame :meth:`feed` finished (None before the first one): what
        #: the watcher has seen up to, so a caller can tell how far behind the camera it is.
        self.last_frame_t: float | None = None

    def reading_head(self) -> Head:
        """The head reads are made with: the enrolment's (or the shipped one), as learned so far.

        A new enrolment (the panel's) starts the learning over from its head.  The faces of lone
        cards are learned from (zones rendered from them) unless an enrolment has every face already.
        """
        base = self.enrollment.head if self.enrollment is not None else default_head()
        if not self.learn:
            return base
        with self._learner_lock:  # the panel's deck status and the camera's thread both ask
            if self._learner is None or self._learner.start is not base:
                if self._learner is not None:
                    self._learner.retire()  # a refit of the old deck's still running must not write over the new
                whole = self.enrollment is not None and not self.enrollment.not_enrolled
                self._learner = PlayLearner(base, render=None if whole else seen_face_crops, store=self.learn_store)
            return self._learner.head

    def forget_learning(self) -> dict[str, int] | None:
        """Start learning the deck afresh (the referee's "learn afresh": a different deck was brought
        to the table): what was learned is dropped, its file deleted. Returns what was forgotten
        (``answers``, ``sure``, ``faces``); None when learning is off."""
        if not self.learn:
            return None
        with self._learner_lock:
            old, self._learner = self._learner, None
            if old is not None:
                old.retire()
            if self.learn_store is not None:
                Path(self.learn_store).unlink(missing_ok=True)
        if old is None:
            return {"answers": 0, "sure": 0, "faces": 0}
        return {"answers": old.answers, "sure": old.sure, "faces": len(old.faces)}

    @property
    def learner(self) -> PlayLearner | None:
        """What the table has learned of its deck so far (None: learning is off or nothing read yet)."""
        return self._learner

    def deck_status(self) -> dict[str, object]:
        """Which deck the reader reads with, for the referee's panel: after a restart, a hub's
        deck or a panel enrolment the referee must see at a glance whether the camera knows the
        deck (few questions) or is learning it (many at first), without opening a log.

        ``enrolled``, ``cards`` (faces enrolled), ``warn`` (the fan check warned), ``check`` (its
        verdict), ``answers`` / ``sure`` (labels learned this session), ``faces`` (cards seen whole,
        played alone, that the head learns the deck's own faces from), ``tuned`` (a head learned at
        this table reads now), ``resumed`` (labels taken over from before a restart), ``text``
        (Chinese / English).
        """
        from .cardnet.fancheck import verdict  # the verdict's words live with the check

        if self.learn:
            self.reading_head()  # a learner resumed after a restart shows before the first play is read
        learner = self._learner
        answers = learner.answers if learner is not None else 0
        sure = learner.sure if learner is not None else 0
        faces = len(learner.faces) if learner is not None else 0
        tuned = learner is not None and learner.head is not learner.start
        resumed = learner.resumed if learner is not None else 0
        out: dict[str, object] = {"enrolled": self.enrollment is not None, "answers": answers, "sure": sure,
                                  "faces": faces, "tuned": tuned, "learn": self.learn, "resumed": resumed}
        if self.enrollment is not None:
            warn, check = verdict(self.enrollment.check)
            out |= {"cards": len(self.enrollment.cards), "warn": warn, "check": check}
            zh, en = f"已登记牌组（{len(self.enrollment.cards)} 张）", f"deck enrolled ({len(self.enrollment.cards)} faces)"
            if warn:
                zh, en = zh + "，扇形检查有警告", en + ", fan check warned"
        else:
            out |= {"cards": 0, "warn": False, "check": None}
            zh, en = "未登记牌组", "deck not enrolled"
            if self.learn:
                zh, en = (zh + f"，边打边学（已学裁判答复 {answers} 张，整牌 {faces} 张）",
                          en + f": learning ({answers} answers, {faces} faces seen whole)")
        if tuned:
            zh, en = zh + "，已按本桌用牌调整", en + ", tuned to this deck"
        if resumed:
            zh, en = zh + f"，重启前所学已恢复（{resumed} 条）", en + f", {resumed} labels kept from before the restart"
        out["text"] = f"{zh} / {en}"
        return out

    def learn_answer(self, embeddings: np.ndarray | None, cards: list[str],
                     none_embeddings: np.ndarray | None = None, face: np.ndarray | None = None) -> bool:
        """The referee's answer to a doubted play: taught to the learner (False: nothing learned)."""
        if self._learner is None:
            return False
        return self._learner.learn_answer(embeddings, cards, none_embeddings, face)

    @property
    def calibrated(self) -> bool:
        return self.calibration is not None

    def zone_busy(self, seat: str) -> bool:
        """Is a play being placed in ``seat``'s zone: something moved there or a hand is over it,
        and the zone has not settled since (the read is still to come)?

        The service asks this at a countdown's deadline: a play the camera sees going down is
        the player's, even though it is read a moment later. Reads the state of the last frame
        fed, without the feed lock (plain flags), so it never waits for a read in progress.
        An unknown seat, or one without a zone in the layout, is never busy.
        """
        settler = self.settlers.get(seat)
        if settler is None:
            return False
        return bool(settler.pending or settler.moving or settler.hand)

    def _lowres(self, frame: np.ndarray) -> np.ndarray:
        h, w = frame.shape[:2]
        if w <= self.lowres_width:
            small = frame
        else:
            s = self.lowres_width / w
            small = cv2.resize(frame, (self.lowres_width, int(round(h * s))), interpolation=cv2.INTER_AREA)
        return cv2.cvtColor(small, cv2.COLOR_BGR2GRAY) if small.ndim == 3 else small

    def _ensure_calibration(self, frame: np.ndarray) -> bool:
        if self.calibration is None:
            frame = _full(frame)
            try:
                self.calibration = calibrate_table(self.lens.undistort(frame) if self.lens is not None else frame,
                                                   self.layout)
            except ValueError:
                return False
            self._maps.clear()
            self._low_cal = None
        return True

    def _cut(self, frame: np.ndarray, key: str, px_per_mm: float) -> np.ndarray:
        """Zone ``key`` (a seat, or ``"table"`` for the whole top) of a raw frame at ``px_per_mm``."""
        size = (frame.shape[1], frame.shape[0])
        maps = self._maps.get((key, px_per_mm, size))
        if maps is None:
            cal = self.calibration
            assert cal is not None
            if key == "table":
                maps = cal.table_maps(self.layout, px_per_mm, size, self.lens)
            else:
                maps = cal.zone_maps(self.layout.zones[key], px_per_mm, size, self.lens)
            self._maps[(key, px_per_mm, size)] = maps
        return remap(frame, maps)

    def feed(self, frame: np.ndarray, t: float, lowres: np.ndarray | None = None) -> list[Observation]:
        """Process one full-resolution BGR frame taken at ``t`` seconds; returns new observations.

        ``lowres``: the camera's own low-resolution grey (or BGR) stream frame, if it has one.
        A frame without markers before the first calibration returns nothing (the table is not
        known yet); a bad frame raises ValueError and changes nothing.
        """
        lazy = hasattr(frame, "full") and hasattr(frame, "grey")
        if not lazy and (not isinstance(frame, np.ndarray) or frame.ndim != 3 or frame.shape[2] != 3
                         or frame.size == 0):
            raise ValueError("帧必须是 BGR 彩色图像 / frame must be a non-empty BGR image")
        if not lazy:
            check_pixels(frame)
        with self._lock:
            # The frame is judged before anything changes: one that shows nothing, or another view
            # than the calibrated one, is refused whole (vision.frames).
            if lowres is None and lazy:
                lowres = frame.grey(self.lowres_width)  # type: ignore[attr-defined]
            low = self._lowres(frame) if lowres is None else (
                cv2.cvtColor(lowres, cv2.COLOR_BGR2GRAY) if lowres.ndim == 3 else lowres)
            check_picture(low)
            if self.calibration is not None:
                size = frame.size if lazy else (frame.shape[1], frame.shape[0])  # type: ignore[union-attr]
                check_view(size, self.calibration.frame_size)
            if not self._ensure_calibration(frame):
                return []
            found_again: list[Observation] = []
            if self._lost:
                self._lost = False
                found_again.append(CameraMovedSighting(0.0, True, t))
            cal = self.calibration
            assert cal is not None
            self._frames.append((t, frame))
            if self._low_cal is None or self._low_cal.frame_size != (low.shape[1], low.shape[0]):
                self._low_cal = cal.scaled((low.shape[1], low.shape[0]))
            out: list[Observation] = []
            first = self._n == 0
            moved: list[float | None] = []  # the markers' shift, looked at once a frame, when a zone settles
            for seat, settler in self.settlers.items():
                zone = self._cut(low, seat, self.zone_ppm)
                if first:
                    self._first_look(seat, zone)
                for ev in settler.update(zone, t):
                    if ev.kind == "settled":
                        if not moved:
                            moved.append(self._marker_shift_mm(low))
                        out.append(self._doubt_if_moved(self._read(seat, ev.still_since, t, zone), moved[0], t))
                    elif ev.kind == "hand_too_long":
                        out.append(HandInZoneSighting(seat, ev.seconds, t))
            self._n += 1
            self.last_frame_t = t
            if self.exposed_every and self._n % self.exposed_every == 0:
                out.extend(self._exposed(low, t))
            if self._last_check is None:
                self._last_check = t
            still = not any(st.pending or st.moving or st.hand for st in self.settlers.values())
            if self.recheck_s and still and t - self._last_check >= self.recheck_s:
                self._last_check = t
                out.extend(self._recheck(frame, low, t))
            return found_again + out

    def recalibrate(self) -> None:
        """Forget the table calibration: the next frame's markers fit it afresh (the panel's
        recalibrate, after the camera's exposure and focus were let converge again)."""
        with self._lock:
            self._forget_view()

    def _forget_view(self) -> None:
        self.calibration, self._low_cal = None, None
        self._maps.clear()
        self._empty.clear()
        self._first.clear()
        for settler in self.settlers.values():
            settler.prev = None  # start from the new view: no false "settled" from the shift
        self._frames.clear()
        self._n = 0  # the next frame takes a fresh first look at the zones

    def _recheck(self, frame: np.ndarray, low: np.ndarray, t: float) -> list[Observation]:
        """Are the corner markers still where the calibration says (issue #21: a bumped camera
        went unnoticed)? On the low-res grey frame, ~10 ms every ``recheck_s`` of a still table.

        Two checks in a row must agree (a marker half covered by a sleeve is not a bump). Then
        the table is calibrated afresh from this frame, the zones follow and the settlers start
        from the new view; if the markers cannot be fitted, reading stops until they can."""
        shift_mm = self._marker_shift_mm(low)
        if shift_mm is None:
            return []  # covered or out of sight: nothing to say about the camera
        if shift_mm < MOVED_MM:
            self._moved_checks = 0
            return []
        self._moved_checks += 1
        if self._moved_checks < 2:
            self._last_check = t - self.recheck_s * 0.8  # look again soon
            return []
        self._moved_checks = 0
        n = self._n
        self._forget_view()
        ok = self._ensure_calibration(frame)
        self._lost = not ok
        if not ok:
            self._n = n
        return [CameraMovedSighting(shift_mm, ok, t)]

    def _marker_shift_mm(self, low: np.ndarray) -> float | None:
        """How far (mm, the median over the markers seen) the table's corner markers lie from where
        the calibration puts them in the low-res grey frame; None when fewer than two are seen."""
        cal = self._low_cal
        assert cal is not None
        found = detect_markers(low)
        known = self.layout.marker_corners_mm()
        ids = [i for i in sorted(found) if i in known]
        if len(ids) < 2:
            return None
        expected = cal.to_frame(np.vstack([known[i] for i in ids]))
        if self.lens is not None:
            expected = self.lens.distort_points(expected, (low.shape[1], low.shape[0]))
        seen = np.vstack([found[i] for i in ids])
        ppm = cal.px_per_mm_at((self.layout.table_mm[0] / 2, self.layout.table_mm[1] / 2))
        return float(np.median(np.linalg.norm(seen - expected, axis=1))) / max(ppm, 1e-6)

    def _doubt_if_moved(self, obs: PlayObservation, shift_mm: float | None, t: float) -> PlayObservation:
        """A play read while the markers lie off their calibrated place goes to the referee: the zone
        cut may be another seat's (a camera turned half round read N's pair as S's, sure). The
        still-table re-check then fits the calibration again, looking at once."""
        if shift_mm is None or shift_mm < MOVED_MM or not obs.cards:
            return obs
        obs.uncertain = True
        obs.reasons.append(f"摄像头位置变了 {shift_mm:.0f} 毫米，请核对座位 / the camera moved {shift_mm:.0f} mm: "
                           "check whose play this is")
        self._last_check = t - self.recheck_s
        return obs

    def _first_look(self, seat: str, low_zone: np.ndarray) -> None:
        """Keep each zone's look at the first frame, with its full-resolution cut: if the reader
        finds no card in it (asked only when a settled zone looks like it again), that is the
        zone's empty look.

        Why: a glare spot on the felt looks like paper to the reader, which then says "cards
        present but no index found" of a zone just cleared (38 of 280 cleared zones at 4K in the
        issue's check). A table starts with empty zones, and a zone that looks as it did then
        is empty, whatever the reader would make of its glare. The read is put off until it is
        needed so that the first frame costs no more than any other."""
        self._first[seat] = (_smooth(low_zone), self._cut(_full(self._frames[-1][1]), seat, self.read_ppm))

    def _same(self, ref: np.ndarray, low_zone: np.ndarray) -> bool:
        """Does the zone look as ``ref`` (the settler's own change test)?"""
        if ref.shape != low_zone.shape:
            return False
        cfg = self.settle_cfg
        changed = cv2.absdiff(_smooth(low_zone), ref) > cfg.pixel_threshold
        return float(np.count_nonzero(changed)) <= cfg.change_fraction * changed.size

    def _looks_empty(self, seat: str, low_zone: np.ndarray) -> bool:
        """Does the zone look as it did when last known empty?"""
        ref = self._empty.get(seat)
        if ref is None and seat in self._first:
            first, crop = self._first[seat]
            if not self._same(first, low_zone):
                return False
            del self._first[seat]  # its one read decides: empty then, or never asked again
            if read_play(crop, self.read_ppm, self.reading_head()).cards:
                return False
            self._empty[seat] = ref = first
        return ref is not None and self._same(ref, low_zone)

    def _read(self, seat: str, still_since: float, t: float, low_zone: np.ndarray | None = None) -> PlayObservation:
        if low_zone is not None and self._looks_empty(seat, low_zone):
            obs = PlayObservation(seat, [], [], False, t, ["与空牌区相同 / looks as the empty zone did"], 1,
                                  self._cut(_full(self._frames[-1][1]), seat, self.read_ppm), [])
            self.last_readings[seat] = obs
            return obs
        # A two-speed camera (``hardware.backends.picamera2_camera``) keeps only the newest readout's full
        # frame: the settle instant's, read alone; an MJPEG or decoded frame keeps its full frame.
        frames = [f for (ft, f) in self._frames if ft >= still_since and getattr(f, "has_full", True)]
        frames = frames or [self._frames[-1][1]]
        crops = [self._cut(_full(f), seat, self.read_ppm) for f in frames]
        crops.sort(key=sharpness, reverse=True)
        crops = crops[: self.read_frames]
        possible = self.possible(seat) if self.possible is not None else None
        head = self.reading_head()
        lawful = self.lawful(seat) if self.lawful is not None else None
        readings = [read_play(c, self.read_ppm, head, possible=possible, lawful=lawful) for c in crops]
        r, n = vote(readings)
        if self._learner is not None and not r.uncertain:
            self._learner.learn_read(r.embeddings, r.cards, r.confidence, r.uncertain, r.face)
        if low_zone is not None and not r.cards and not r.uncertain:
            self._empty[seat] = _smooth(low_zone)  # the empty look follows the light
        obs = PlayObservation(seat, r.cards, r.confidence, r.uncertain, t, r.reasons, n, crops[0], r.alternatives,
                              r.embeddings, r.none_embeddings, r.face, r.candidates)
        self.last_readings[seat] = obs
        return obs

    def _exposed(self, low: np.ndarray, t: float) -> list[Observation]:
        """Card-sized paper blobs outside the zones, at rest for ``exposed_min_s``."""
        cal = self._low_cal
        assert cal is not None
        if not self._frames:
            return []
        ppm = 0.5
        # Colour is needed to tell paper from felt: use the newest full frame, reduced.
        newest = self._frames[-1][1]
        # An undecoded frame is decoded at a reduced scale: 0.5 px/mm needs no more.
        top = self._cut(newest.colour(self.lowres_width) if hasattr(newest, "colour") else newest, "table", ppm)
        mask, _, contrast = card_mask(top, ppm)
        if contrast < 40:
            return []
        keep = np.ones(mask.shape, np.uint8)
        for z in self.layout.zones.values():
            pts = (z.corners_table_mm() * ppm).astype(np.int32)
            cv2.fillConvexPoly(keep, pts, 0)
        keep = cv2.erode(keep, np.ones((int(15 * ppm) | 1,) * 2, np.uint8))  # zone margin
        for corners in self.layout.marker_corners_mm().values():
            x0, y0 = (corners.min(axis=0) - 20) * ppm
            x1, y1 = (corners.max(axis=0) + 20) * ppm
            keep[max(int(y0), 0):int(y1), max(int(x0), 0):int(x1)] = 0
        edge = int(30 * ppm)
        keep[:edge, :] = keep[-edge:, :] = 0
        keep[:, :edge] = keep[:, -edge:] = 0
        n, lab, st, cen = cv2.connectedComponentsWithStats(cv2.bitwise_and(mask, mask, mask=keep), connectivity=8)
        out: list[Observation] = []
        now: set[tuple[int, int]] = set()
        for i in range(1, n):
            area_mm2 = st[i, cv2.CC_STAT_AREA] / (ppm * ppm)
            if not 2200 <= area_mm2 <= 12000:
                continue
            cx, cy = cen[i] / ppm
            key = (int(cx // 40), int(cy // 40))
            now.add(key)
            first = self._exposed_seen.setdefault(key, t)
            if t - first >= self.exposed_min_s and key not in self._exposed_reported:
                self._exposed_reported.add(key)
                x, y, w, h = st[i, :4]
                crop = top[max(y - 4, 0):y + h + 4, max(x - 4, 0):x + w + 4].copy()
                out.append(ExposedCardSighting((float(cx), float(cy)), (w / ppm, h / ppm), t, crop))
        for key in list(self._exposed_seen):
            if key not in now:
                del self._exposed_seen[key]
                self._exposed_reported.discard(key)
        return out
