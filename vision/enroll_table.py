"""Enrol a deck from the table: the operator lays it face up in rows, the overhead camera does the rest.

Issue #21 §2. From a few overhead frames (≤ 3: one deck fits the 900 mm table in rows, a second
deck of the same design is a second frame):

1. each frame is put top-down on the table by its corner markers (:func:`calibrate_table`),
2. every card-sized paper blob is cut out upright (:func:`find_cards`),
3. each is named by the zero-shot reader on its own (one card on felt, as a play of one),
4. only the cards the reader is unsure of are asked ("这是哪张牌？ / which card is this?", with
   the picture: an interactive prompt on the CLI, the panel's enrolment page),
5. the faces go to :func:`vision.cardnet.enrol.enroll`; two copies of one card (two decks of one
   design) enrol as one face, the clearer one.

The photo-per-card path (``guandan-table vision enroll FACES/``) stays as it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from .calibration import LensCalibration, calibrate_table
from .cardnet.read import read_play
from .cards import ALL_CARDS, check_card
from .geometry import TableLayout, default_layout
from .paper import CARD_MM2, card_mask

#: Scale the table is put top-down at for finding and cutting the cards (px/mm): the reader's
#: own working scale, so a face is read as a play would be.
TABLE_PPM = 3.0
#: A card's paper blob: area within these bounds (mm²), the card's (:data:`vision.paper.CARD_MM2`) with room for
#: a blurred edge or a corner lost to glare; a smaller blob is a scrap, a larger one cards touching or
#: overlapping, none of which can be cut out whole: the operator is told where (:attr:`TableFind.joined`) to part them.
CARD_AREA_MM2 = (0.7 * CARD_MM2[0], 1.27 * CARD_MM2[1])
#: Felt left around a cut card so the reader sees a card on the table, as in a play zone.
MARGIN_MM = 12.0
#: A marker's white border, as a share of its side, cleared with it when cards are looked for: a
#: quarter is the widest printed here (the synthetic table's; hardware.camera prints a tenth).
MARKER_BORDER = 0.25
#: A reading at least this sure is taken without asking (the reader's own certainty must hold too).
SURE = 0.98

#: The question put for an unclear card: ``ask(card) -> card name or None`` (the picture is
#: ``card.zone``, the reader's likely readings ``card.likely``).
Ask = Callable[["FoundCard"], str | None]


@dataclass
class FoundCard:
    """One card found on the table: its upright face, and what the zero-shot reader made of it."""

    face: np.ndarray  # BGR, cropped to the card, upright (portrait), at TABLE_PPM
    zone: np.ndarray  # the card with a felt margin, as read
    centre_mm: tuple[float, float]
    frame: int
    name: str | None  # the reader's name when it is sure, else None
    confidence: float = 0.0
    likely: list[str] = field(default_factory=list)  # the reader's readings, likeliest first
    asked: bool = False


@dataclass
class TableFind:
    """What one overhead frame showed: the cards cut out, and where paper larger than a card lies."""

    cards: list[FoundCard]
    #: Centres (table mm) of paper larger than a card: cards touching or overlapping.  Why told: a
    #: card left out of an enrolment is read zero-shot all event, and nobody would know it was there.
    joined: list[tuple[float, float]] = field(default_factory=list)


@dataclass
class TableEnrolment:
    """What enrolling from the table did (the figures the issue asks for are in here)."""

    cards: list[FoundCard]
    faces: dict[str, np.ndarray]  # one face per card name, for :func:`vision.cardnet.enrol.enroll`
    questions: int
    unnamed: int  # asked and left without a name (skipped by the operator)
    seconds: float
    #: (frame, centre in table mm) of each place where cards touch or overlap (:attr:`TableFind.joined`).
    joined: list[tuple[int, tuple[float, float]]] = field(default_factory=list)


def _upright(top: np.ndarray, rect: tuple, margin_px: float) -> tuple[np.ndarray, np.ndarray]:
    """(face, zone) cut from the top-down table along the blob's rotated box, long side vertical."""
    (cx, cy), (w, h), angle = rect
    if w > h:  # make the card portrait: the long side runs down the picture
        w, h = h, w
        angle += 90.0
    m = cv2.getRotationMatrix2D((cx, cy), angle, 1.0)
    zw, zh = int(round(w + 2 * margin_px)), int(round(h + 2 * margin_px))
    m[0, 2] += zw / 2 - cx
    m[1, 2] += zh / 2 - cy
    zone = cv2.warpAffine(top, m, (zw, zh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    x0, y0 = int(round(margin_px)), int(round(margin_px))
    face = zone[y0:y0 + int(round(h)), x0:x0 + int(round(w))].copy()
    return face, zone


def _name(zone: np.ndarray) -> tuple[str | None, float, list[str]]:
    """(name or None, confidence, likely readings) of the one card in ``zone``.

    A card carries its index twice, top-left and (turned) bottom-right: the zone is read both
    ways up. It is named without a question only when both ways read the same single card and
    at least one of them is certain at :data:`SURE` (two corners that agree). Anything else is a
    question: one way alone, certain at 0.98, named a tango_nuevo card wrong
    (benchmarks/enroll_table_bench.py, seed 4242), and a wrong name taught to the deck's model is
    a silent misread later.
    """
    readings = [read_play(z, TABLE_PPM) for z in (zone, np.ascontiguousarray(zone[::-1, ::-1]))]
    singles = [(r.cards[0], float(r.confidence[0]) if r.confidence else 0.0, bool(r.uncertain))
               for r in readings if len(r.cards) == 1]
    likely = list(dict.fromkeys([c for c, _, _ in singles] + [a for r in readings
                                                             for a in (r.alternatives or []) if a in ALL_CARDS]))
    names = {c for c, _, _ in singles}
    conf = max((p for _, p, _ in singles), default=0.0)
    if len(names) == 1 and len(singles) == 2 and any(not unc and p >= SURE for _, p, unc in singles):
        return singles[0][0], conf, likely
    return None, conf, likely


def find_cards(frame: np.ndarray, layout: TableLayout | None = None, lens: LensCalibration | None = None,
               frame_no: int = 0) -> TableFind:
    """Every card lying on the table in ``frame``, cut out upright and named where the reader is sure,
    and where cards touch or overlap (none of them cut out).

    :raises ValueError: the table's corner markers are not in the frame.
    """
    layout = layout or default_layout()
    if lens is not None:
        frame = lens.undistort(frame)  # once per enrolment frame, not per live frame
    cal = calibrate_table(frame, layout)
    top = cal.warp_table(frame, layout, TABLE_PPM)
    mask, _, _contrast = card_mask(top, TABLE_PPM)
    # A table marker is white paper too: a card laid by one's white border joined it in one blob too
    # large to be a card, and was left out of the enrolment (benchmarks/enroll_table_bench.py, seed
    # 4242: T♠ with its corner a few mm from the top-right marker's border). A marker and its white
    # border are never a card (and a card lying on them would hide the marker from calibration).
    clear = MARKER_BORDER * layout.marker_mm
    for quad in layout.marker_corners_mm().values():
        (x0, y0), (x1, y1) = (np.floor((quad.min(axis=0) - clear) * TABLE_PPM).astype(int),
                              np.ceil((quad.max(axis=0) + clear) * TABLE_PPM).astype(int))
        mask[max(y0, 0):max(y1, 0), max(x0, 0):max(x1, 0)] = 0
    # Cards laid in rows may touch: a light erosion parts them where only a sliver joins them.
    k = max(int(round(1.5 * TABLE_PPM)) | 1, 3)
    parts = cv2.erode(mask, np.ones((k, k), np.uint8))
    contours, _ = cv2.findContours(parts, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    out: list[FoundCard] = []
    joined: list[tuple[float, float]] = []
    area_lo, area_hi = (a * TABLE_PPM * TABLE_PPM for a in CARD_AREA_MM2)
    for contour in contours:
        # The convex hull, not the paper pixels: a dark pip or court figure that reaches the
        # card's edge (tango_nuevo's big pips) leaves a notch in the paper, not in the card.
        hull = cv2.convexHull(contour)
        area = cv2.contourArea(hull)
        if area > area_hi:
            (cx, cy), _, _ = cv2.minAreaRect(hull)
            joined.append((float(cx / TABLE_PPM), float(cy / TABLE_PPM)))
            continue
        if area < area_lo:
            continue
        (cx, cy), (w, h), angle = cv2.minAreaRect(hull)
        rect = ((cx, cy), (w + k - 1, h + k - 1), angle)  # undo the erosion
        face, zone = _upright(top, rect, MARGIN_MM * TABLE_PPM)
        name, conf, likely = _name(zone)
        out.append(FoundCard(face, zone, (float(rect[0][0] / TABLE_PPM), float(rect[0][1] / TABLE_PPM)), frame_no,
                             name, conf, likely))
    # Rows as the operator laid them: top to bottom, left to right.
    out.sort(key=lambda c: (round(c.centre_mm[1] / 50.0), c.centre_mm[0]))
    return TableFind(out, sorted(joined, key=lambda p: (p[1], p[0])))


def enrol_from_frames(frames: Sequence[np.ndarray] | Iterable[np.ndarray], ask: Ask | None = None,
                      layout: TableLayout | None = None, lens: LensCalibration | None = None) -> TableEnrolment:
    """Find and name every card in ``frames`` (≤ 3 overhead frames of decks laid face up in rows);
    ``ask`` is put the unclear ones (None: they are left out and read zero-shot later).

    :raises ValueError: a frame without the table's markers, or no card found at all.
    """
    t0 = time.perf_counter()
    cards: list[FoundCard] = []
    joined: list[tuple[int, tuple[float, float]]] = []
    for k, frame in enumerate(frames):
        found = find_cards(frame, layout, lens, frame_no=k)
        cards.extend(found.cards)
        joined.extend((k, p) for p in found.joined)
    if not cards:
        raise ValueError("桌上没有找到牌 / no card found on the table: lay the deck face up in rows"
                         + (f" ({joined_text(joined)})" if joined else ""))
    questions = unnamed = 0
    for c in cards:
        if c.name is not None or ask is None:
            continue
        questions += 1
        c.asked = True
        answer = ask(c)
        if answer:
            c.name = check_card(answer)
        else:
            unnamed += 1
    return TableEnrolment(cards, faces_of(cards), questions, unnamed, time.perf_counter() - t0, joined)


def joined_text(joined: Sequence[tuple[int, tuple[float, float]]]) -> str:
    """What the operator is told of the places where cards touch: each from the table corner the
    camera sees top-left (frames numbered from 1 where more than the first holds one)."""
    many = any(f for f, _ in joined)
    where = "; ".join((f"画面 {f + 1} / frame {f + 1}: " if many else "") + f"右 {x:.0f} 毫米、下 {y:.0f} 毫米 / "
                      f"{x:.0f} mm right, {y:.0f} mm down" for f, (x, y) in joined)
    return (f"{len(joined)} 处牌相碰或叠放，这些牌未登记，请分开后重拍（从摄像头所见的左上桌角量起） / {len(joined)} "
            f"place{'s' if len(joined) > 1 else ''} where cards touch or overlap, not enrolled: part them and take "
            f"the frame again (from the table corner the camera sees top-left): {where}")


def faces_of(cards: Iterable[FoundCard]) -> dict[str, np.ndarray]:
    """One face per named card for :func:`vision.cardnet.enrol.enroll`. Two decks of one design enrol as
    one: of a card's copies, the one the reader named itself and most surely."""
    best: dict[str, FoundCard] = {}
    for c in cards:
        if c.name is None:
            continue
        old = best.get(c.name)
        if old is None or (not c.asked and (old.asked or c.confidence > old.confidence)):
            best[c.name] = c
    return {name: c.face for name, c in best.items()}


@dataclass
class SelfCheck:
    """The enrolment read against the cards it was made from (each zone as found on the table)."""

    right: int
    wrong: int  # read certain as another card: an enrolment that does this is not used
    unsure: int
    wrong_cards: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.wrong == 0


def self_check(cards: Iterable[FoundCard], enrollment: object) -> SelfCheck:
    """Read every named card's zone with ``enrollment``. Why: an enrolment from overhead faces the
    zero-shot reader could not name (tango_nuevo at 2 px/mm) read 8 % of plays silently wrong
    (benchmarks/enroll_table_bench.py, seed 4242); one that misreads even the cards it was made
    from is refused before it reads a game."""
    right = wrong = unsure = 0
    bad: list[str] = []
    for c in cards:
        if c.name is None:
            continue
        r = read_play(c.zone, TABLE_PPM, enrollment=enrollment)  # type: ignore[arg-type]
        if r.uncertain:
            unsure += 1
        elif r.cards == [c.name]:
            right += 1
        else:
            wrong += 1
            bad.append(f"{c.name}->{'/'.join(r.cards) or '-'}")
    return SelfCheck(right, wrong, unsure, bad)
