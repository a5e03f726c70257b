"""Reading one play zone card-first: find each card's corner, read the card from a crop there, doubt once.

1. :func:`vision.cardnet.detector.detect` gives candidate top-left corners (and how much of the
   zone is covered by cards).
2. Each candidate's canonical crop goes through the embedding network and a :class:`Head`
   (shipped, enrolled for the deck, or learned during play) to 54 faces + "no card corner".
   With no enrolment under the head (:attr:`Head.unenrolled`), a card whose index leaves it in doubt
   has its suit read again from the index at a finer scale (:mod:`vision.cardnet.index_suit`; with the
   shipped head only: a head learned in play has the referee's word on the deck's suits); a card
   still in doubt is read again from six crops around its corner (:func:`_look_around`), then,
   if still in doubt, from its body (:mod:`vision.cardnet.body`: the suit of a 4–10 from the pips
   below its index; of the last card, lying whole, of a 2–10 from the pips in its middle).  An
   enrolled head reads its doubts on the body with the deck's own suit head, fitted at enrolment on
   the same strips (:mod:`vision.cardnet.deck_body`: a deck whose corner prints no suit).
3. **One bar.**  Each candidate is a card with the probability the corner model gives from the
   detector's score and the head's "none" (:class:`vision.cardnet.head.CornerModel`).  The play's
   joint probability — every kept card's own probability times, for every candidate dropped, the
   probability that it is no card (unless the detector sees no card's paper where that card would lie:
   :func:`.layout.room_for_card`) — is compared with :data:`PLAY_BAR`, chosen on designs the
   networks never saw (``docs/performance.md``).  The probabilities are calibrated there too (a
   temperature and the corner model), so 0.97 means 97 %.
   **A second look** first: a candidate the detector is fairly sure of but whose crop the
   classifier calls "no corner" is often a real corner the detector placed a cell or two off
   (a wide "10" index on a design it never saw); crops a few millimetres around it are read, and
   the best one replaces it when the two nets then agree on a card.  A candidate lying where the
   fan's steps leave a gap that may hide a card (step 4) gets the same look, however unsure the
   detector was of it: there a card is likelier than anywhere else (tango's wide "10" at 2 px/mm).
   **The far corner:** the last card of a fan (a lone card above all) shows its bottom-right
   corner too, with the index turned half a turn.  The zone turned half a turn is read there as
   well (its suit, where in doubt, read again from the index at the finer scale as the near
   corner's is), and when the two corners name different faces the play is doubted (the near
   corner's face as its index alone names it: a card dropped right of the last one read has its
   own far corner there, and the body strip, cut where the last card should lie whole, may agree
   with it).
   Where the last card is in doubt and the two agree, the far corner's word is weighed in for the
   pip cards, A to 10 (:data:`FAR_WEIGHED_RANKS`): the same glyph, but seen through other blur,
   glare and noise.  A court's or a joker's index is letters; a joker's is a word that begins with a
   J, on some designs as large as a jack's, and there the two corners were wrong together (tango's
   joker read J♣ at both).  A far corner that is not there at all doubts the play: a card lying
   over the last one read, with no index to find (worn, covered, face down), would otherwise vanish
   from the play.  A deck whose enrolment found no index at its far corner (:attr:`Head.far_index`)
   is not looked at there: nothing printed there is no sign of anything.
4. **Geometry the networks cannot see:** a gap between two corners wider than any fan a player
   lays, cards covering the zone but no card read, cards' paper left of the first card read (a
   card under it with no index to find), a corner the detector believed in lying between two cards
   read, level with them and with room for a card, read by the shipped head (every other card of an
   even fan unread looks like a wide fan, which no gap rule sees), or a reading the caller says is no longer possible
   (``possible``), put the play in doubt whatever the probabilities say.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import ThreadpoolController

from vision.cards import ALL_CARDS, CARD_INDEX, card_zh, check_card

from . import nets
from .body import LOOK_BELOW, weigh_deck_suits, weigh_suits
from .crops import crops_at
from .deckfile import Enrollment
from .detector import Corner, detect
from .faces import lone_face
from .head import SHIPPED, CornerModel, Head, keep_unknown_faces, shipped_head
from .index_suit import weigh_index_suits
from .layout import GAP_ROW_MM, geometry_doubts, in_suspect_gap, paper_before_first, room_for_card
from .prep import crops_to_input
from .shape import ABSENT, Lawful, weigh
from .spec import FEATURE_DIM, MIN_CORNER_GAP_MM, NONE_CLASS

#: A play is certain when its joint probability is at least this (see the module docstring).
#: The rule it was chosen by: the lowest bar of the left-out curve (all six held-out designs,
#: zero-shot, ``benchmarks/cardnet_bench.py`` on two seeds) whose silent-wrong plays stay within
#: the goal of 0.1 % (docs/performance.md has the curve).  Not the calibration designs' curve
#: alone: tigullio and plastic are silent from 0.80 up and cannot tell 0.95 from 0.99.
PLAY_BAR = 0.98
#: How a reason given because the joint fell under the bar begins (the others are geometry, the far
#: corner, or cards no longer possible): :func:`is_low_confidence` tells them apart by it (the
#: benchmark, to draw the bar's curve). The doubted cards follow in each half (:func:`low_confidence`).
LOW_CONFIDENCE_ZH = "识别把握不足"


def low_confidence(doubted: list[tuple[str, float]], joint: float) -> str:
    """The reason for a joint under the bar: the doubted cards with their confidence in both halves
    ("识别把握不足：红桃7 93%、方块7 80% / low confidence: 7h 93%, 7d 80%"), else the joint.

    Why: the cards were added after the whole "识别把握不足 / low confidence", so the Chinese view
    never named them."""
    if doubted:
        return (f"{LOW_CONFIDENCE_ZH}：{'、'.join(f'{card_zh(c)} {p:.0%}' for c, p in doubted)} / low confidence: "
                + ", ".join(f"{c} {p:.0%}" for c, p in doubted))
    return f"{LOW_CONFIDENCE_ZH}（整手 {joint:.0%}） / low confidence ({joint:.0%})"


def is_low_confidence(why: str) -> bool:
    """Whether the reason ``why`` is :func:`low_confidence`'s (the joint under the bar), not a doubt of
    another kind."""
    return why.startswith(LOW_CONFIDENCE_ZH)

#: Cards covering at least this much of a zone are never "nothing" (a card is ~5,000 mm²).
CARDS_PRESENT_MM2 = 1500.0
#: The second look (module docstring, step 3) is given to a dropped candidate whose detector score
#: would make it a card had the classifier been this sure that a card's index is there.
SECOND_LOOK_NONE = 1e-3
#: Where the last card's far (bottom-right) corner lies from its top-left one, in mm: right by a
#: card's width (56–65 mm) and down by its height (86–89 mm), give or take a tilt of 7°.
FAR_CORNER_MM = ((45.0, 76.0), (70.0, 100.0))
#: How far around a doubted card's corner its crop is read again (:func:`_look_around`): under the
#: ±1.5 mm within which the classifier learned to find the index, so each crop is one it knows.
LOOK_AROUND_MM = 0.6
#: ... and at these scales about its corner (the crop covering 10 % fewer and more millimetres): decks
#: print their index 7–10 mm tall, and the classifier learned crops scaled by 0.82–1.22 about the
#: corner, so each is a size it knows. Measured (docs/performance.md, 2026-12-07, third session):
#: seeds 2026 / 7 / 13 asked 24.07 / 24.44 / 24.26 % against 24.26 / 24.72 / 25.09 % without, silent 0.
LOOK_AROUND_SCALES = (0.9, 1.1)
#: The faces whose far corner is weighed with the near one when the last card is in doubt (module
#: docstring, step 3): the pip cards.  Measured (docs/performance.md, 2026-12-06): with every face, a
#: lone tango joker went silently wrong as J♣; with queens and kings too, a table learning a deck
#: nobody enrolled asked more in its 4th deal (21 against 15 of 360 plays) for 0.4 points fewer
#: zero-shot questions.
FAR_WEIGHED_RANKS = "A23456789T"
_FAR_WEIGHED = np.array([c[0] in FAR_WEIGHED_RANKS for c in ALL_CARDS])
#: The doubt when the last card's far corner is not found where it must lie. On clean plays it is
#: found (the zero-shot benchmark asked no more with this doubt than without), and each fan that
#: silently dropped a last card with its indices rubbed off had it unseen (docs/performance.md).
FAR_CORNER_UNSEEN = "最后一张牌的另一角未见，可能还有牌 / the last card's far corner is not seen: a card may lie over it"
#: The far corner is looked for with this much of the card above-left of it (the detector sees a
#: corner by the card's edges around it) and this much beyond it.
FAR_CONTEXT_MM = 60.0
FAR_BEYOND_MM = 15.0
#: Where the second look reads, in mm from the candidate: the detector's cell is 2.7 mm, and a
#: misplaced peak was seen up to two cells off along the row and a cell off across it (without
#: the cross-row reads, a Q♠ under a 9♠ at 3 px/mm went unread on an unseen design).
SECOND_LOOK_MM = ((-6.0, 0.0), (-3.0, 0.0), (3.0, 0.0), (6.0, 0.0), (0.0, -3.0), (0.0, 3.0))


@dataclass
class PlayReading:
    """What :func:`read_play` saw: cards left to right, confidence per card, and doubt."""

    cards: list[str] = field(default_factory=list)
    confidence: list[float] = field(default_factory=list)
    uncertain: bool = False
    #: Why the reading is uncertain (empty when certain), for the referee panel.
    reasons: list[str] = field(default_factory=list)
    #: Second choice per card (or None), to offer the referee a quick correction.
    alternatives: list[str | None] = field(default_factory=list)
    #: The joint probability the bar was applied to.
    joint: float = 1.0
    #: Each card's crop embedding (for the head that learns during play); not serialised.
    embeddings: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: The crop embeddings of the candidates read as no card: once the referee's answer has as
    #: many cards as were read, they are known to be no card (what learning during play needs
    #: to stop doubting this deck's art); not serialised.
    none_embeddings: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: A lone card's whole face, upright (:func:`vision.cardnet.faces.lone_face`): once the card is
    #: named (sure, or by the referee), what the table enrols its deck from as it plays; not serialised.
    face: np.ndarray | None = field(default=None, repr=False, compare=False)
    #: Whole-play readings to offer the referee, the read first, then the likeliest others once
    #: the play's shape is weighed (:mod:`vision.cardnet.shape`); empty when it was not.
    candidates: list[list[str]] = field(default_factory=list, compare=False)

    def to_json(self) -> dict:
        return {"cards": list(self.cards), "confidence": [round(c, 4) for c in self.confidence],
                "uncertain": self.uncertain, "reasons": list(self.reasons)}


def as_bgr(img: object, px_per_mm: float) -> np.ndarray:
    """Validate the caller's image; every bad input is a clear ValueError."""
    if not isinstance(img, np.ndarray):
        raise ValueError(f"图像必须是 numpy 数组，收到 {type(img).__name__} / "
                         f"zone image must be a numpy array, got {type(img).__name__}")
    if img.size == 0:
        raise ValueError("图像为空 / zone image is empty")
    if img.ndim == 2 or (img.ndim == 3 and img.shape[2] == 1):
        raise ValueError("需要彩色 BGR 图像（花色靠颜色区分） / a colour BGR image is needed "
                         "(grey-scale cannot tell hearts from spades)")
    if img.ndim != 3 or img.shape[2] not in (3, 4):
        raise ValueError(f"图像形状无效：{img.shape}，应为 HxWx3 BGR / "
                         f"bad zone image shape {img.shape}, expected HxWx3 BGR")
    if isinstance(px_per_mm, bool) or not (isinstance(px_per_mm, int | float) and math.isfinite(px_per_mm)
                                           and 0.5 <= px_per_mm <= 20):
        raise ValueError(f"px_per_mm 超出范围：{px_per_mm!r} / px_per_mm out of range: {px_per_mm!r}")
    h, w = img.shape[:2]
    if min(h, w) / px_per_mm < 40.0:
        raise ValueError(f"区域太小：{w}x{h} 像素在 {px_per_mm} px/mm 下不足 40 毫米 / "
                         f"zone image too small: {w}x{h} px is under 40 mm at {px_per_mm} px/mm")
    if max(h, w) / px_per_mm > 2000.0:
        raise ValueError(f"区域太大：{w}x{h}（{px_per_mm} px/mm） / "
                         f"zone image too large for {px_per_mm} px/mm: {w}x{h}")
    if img.shape[2] == 4:
        img = img[:, :, :3]
    if img.dtype != np.uint8:
        if np.issubdtype(img.dtype, np.floating) and np.nanmax(img) <= 1.0:
            img = img * 255.0
        img = np.clip(np.nan_to_num(img), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(img)


_shipped: Head | None = None
_corner: CornerModel | None = None


def corner_model() -> CornerModel:
    """How the detector's and the classifier's evidence combine (shipped, fitted on held-out designs)."""
    global _corner
    if _corner is None:
        _corner = CornerModel.load(nets.CORNER_PATH)
    return _corner


def default_head() -> Head:
    """The head shipped with the package (calibrated on left-out designs)."""
    global _shipped
    if _shipped is None:
        _shipped = shipped_head(nets.HEAD_PATH)
    return _shipped


def embed(zone_bgr: np.ndarray, corners: list[tuple[float, float]], px_per_mm: float) -> np.ndarray:
    """(N, FEATURE_DIM) features of the canonical crops at ``corners`` (what a head reads)."""
    crops = crops_at(zone_bgr, corners, px_per_mm)
    if not len(crops):
        return np.zeros((0, FEATURE_DIM), np.float32)
    return nets.embedder(crops_to_input(crops))


def face_probs(head: Head, emb: np.ndarray) -> np.ndarray:
    """(N, 55) probabilities of ``head`` for the crops ``emb``; the faces it was not fitted on
    (:attr:`Head.known`) are read by the shipped head, as they would be without the enrolment."""
    probs = head.probs(emb)
    if head.known is None or not len(emb):
        return probs
    return keep_unknown_faces(probs, default_head().probs(emb), head.known)


_blas: ThreadpoolController | None = None


def one_blas_thread() -> AbstractContextManager:
    """Context in which numpy's BLAS runs on the calling thread only.

    Why: the head's products are small (15 x 1728 x 96); a BLAS pool gains nothing there, and
    when the other core is busy (the camera, the service) its threads wait for it.
    """
    global _blas
    if _blas is None:
        _blas = ThreadpoolController()
    return _blas.limit(limits=1, user_api="blas")


def read_play(zone_bgr: np.ndarray, px_per_mm: float = 3.0, enrollment: Enrollment | Head | None = None,
              possible: Iterable[str] | None = None, lawful: Lawful | None = None) -> PlayReading:
    """Read the cards lying in one rectified, upright play zone, left to right, with doubt.

    ``enrollment``: the deck's enrolment (or a head learned during play), else the shipped head.
    ``possible``: the cards that may still appear (a multiset); a reading outside it is never certain.
    ``lawful``: whether cards form a shape the rules allow now (:mod:`vision.cardnet.shape`): a
    reading's probability is weighed against the readings near it that no player would lay.
    """
    if lawful is not None and not callable(lawful):
        raise ValueError(f"lawful 必须可调用，收到 {type(lawful).__name__} / "
                         f"lawful must be callable, got {type(lawful).__name__}")
    with one_blas_thread():
        return _read_play(zone_bgr, px_per_mm, enrollment, possible, lawful)


def _read_play(zone_bgr: np.ndarray, px_per_mm: float, enrollment: Enrollment | Head | None,
               possible: Iterable[str] | None, lawful: Lawful | None) -> PlayReading:
    bgr = as_bgr(zone_bgr, px_per_mm)
    poss = Counter(check_card(c) for c in possible) if possible is not None else None
    if enrollment is not None and not isinstance(enrollment, Enrollment | Head):
        raise ValueError(f"登记无效：须为 Enrollment 或 Head，收到 {type(enrollment).__name__} / "
                         f"enrollment must be an Enrollment or a Head, got {type(enrollment).__name__}")
    head = enrollment.head if isinstance(enrollment, Enrollment) else enrollment or default_head()
    det = detect(bgr, px_per_mm)
    reasons: list[str] = []
    if not det.corners:
        if det.cover_mm2 >= CARDS_PRESENT_MM2:
            return PlayReading([], [], True, ["牌区有牌但找不到牌角 / cards present but no card corner found"], [], 0.0)
        return PlayReading()
    corners = list(det.corners)
    emb = embed(bgr, [(c.x, c.y) for c in corners], px_per_mm)
    probs = face_probs(head, emb)
    p_card = corner_model().p_card(np.array([c.score for c in corners]), probs[:, NONE_CLASS])
    _second_look(bgr, px_per_mm, head, corners, emb, probs, p_card)
    keep = [k for k in range(len(corners)) if p_card[k] >= 0.5]
    joint = 1.0
    for k in range(len(corners)):
        if k not in keep and room_for_card(det, corners[k], px_per_mm, bgr.shape[:2]):
            joint *= 1.0 - float(p_card[k])  # the chance it really is no card
    keep.sort(key=lambda k: corners[k].x)
    kept: list[Corner] = [corners[k] for k in keep]
    if not keep:
        if det.cover_mm2 >= CARDS_PRESENT_MM2:
            return PlayReading([], [], True, ["牌区有牌但读不到牌 / cards present but none read"], [], 0.0)
        return PlayReading([], [], joint < PLAY_BAR, [] if joint >= PLAY_BAR else
                           ["不确定是否有牌 / unsure whether a card lies here"], [], joint)
    # Each kept card's face probabilities: P(a card here) x P(this face | a card).
    faces_p = probs[keep, :NONE_CLASS].astype(np.float64)
    at = [(c.x, c.y) for c in kept]
    if _reads_index_suit(head):
        faces_p = weigh_index_suits(faces_p, bgr, at, px_per_mm)
    # A play the bar would pass as read so far is not looked at again (its cards' shares times their
    # corners' and the dropped candidates' odds): the look around is for the plays it would ask.
    so_far = joint * float(np.prod(faces_p.max(axis=1) / faces_p.sum(axis=1) * p_card[keep]))
    if head.unenrolled and so_far < PLAY_BAR:
        faces_p = _look_around(bgr, px_per_mm, head, at, probs[keep, :NONE_CLASS], faces_p)
    own_last = ALL_CARDS[int(faces_p[-1].argmax())]  # the last card as its index alone names it
    if head.unenrolled:  # the suit read again from the body where the index left it in doubt
        faces_p = weigh_suits(faces_p, bgr, at, px_per_mm)
    elif head.body is not None:  # ... by the deck's own suit head, fitted at its enrolment
        faces_p = weigh_deck_suits(faces_p, head.body, bgr, at, px_per_mm)
    far: FarCorner | None = None  # the far corner, once read
    looks_far = head.far_index is not False  # a deck that prints no index there shows nothing to read
    if looks_far and faces_p[-1].max() < LOOK_BELOW * faces_p[-1].sum():
        far = far_corner(bgr, px_per_mm, head, kept[-1])
        faces_p = _weigh_far(faces_p, far, own_last)
    card_p = faces_p / np.maximum(faces_p.sum(axis=1, keepdims=True), 1e-12) * p_card[keep, None]
    cards, confs, alts = _choose(card_p, poss, reasons)
    candidates: list[list[str]] = []
    if lawful is not None and len(cards) > 1:  # every lone card is a lawful shape: nothing to weigh
        # Whether each card lies there at all is weighed with its face: a card too many (a spot of
        # the art read as one) leaves a shape no player lays, the play without it one they do.
        shaped = weigh(faces_p, [CARD_INDEX[c] for c in cards], lawful, present=p_card[keep])
        confs = list(shaped.marginals)
        joint *= shaped.joint
        # The referee's one-tap answers: readings of as many cards (a shorter one is typed).
        candidates = [list(cards)] + [other for other in ([ALL_CARDS[k] for k in r] for r, _ in shaped.likeliest
                                                          if ABSENT not in r) if other != cards]
    else:
        joint *= float(np.prod(confs))
    if looks_far and far is None and joint >= PLAY_BAR and not reasons:  # sure so far: the far corner may add a doubt
        far = far_corner(bgr, px_per_mm, head, kept[-1])
    if far is not None:
        far_face = far.face
        if far.looked and far_face is None:
            # The last card of a fan lies whole: a far corner not seen is a card lying over it
            # whose corner no one can read (a worn index, a sticker, a card face down).
            reasons.append(FAR_CORNER_UNSEEN)
        elif far_face is not None and far_face != own_last:
            reasons.append(f"最后一张牌两角读数不同：一角 {card_zh(own_last)}，另一角 {card_zh(far_face)} / the last "
                           f"card's two corners read differently: one {own_last}, the other {far_face}")
            alts[-1] = far_face if far_face != cards[-1] else own_last
    geometry_doubts(kept, px_per_mm, reasons)
    if head is default_head():  # a head fitted on this deck knows its art's "none" (enrolment, learning)
        _room_doubts(corners, p_card, px_per_mm, reasons)
    paper_before_first(det, kept[0], px_per_mm, reasons)
    if joint < PLAY_BAR:
        reasons.append(low_confidence([(c, float(p)) for c, p in zip(cards, confs, strict=True) if p < PLAY_BAR], joint))
    dropped = [k for k in range(len(corners)) if k not in keep]
    face = lone_face(bgr, px_per_mm, (kept[0].x, kept[0].y)) if len(kept) == 1 else None
    return PlayReading(cards, [float(c) for c in confs], bool(reasons), reasons, alts, joint, emb[keep], emb[dropped],
                       face, candidates)


def _look_around(bgr: np.ndarray, px_per_mm: float, head: Head, at: list[tuple[float, float]], read: np.ndarray,
                 faces_p: np.ndarray) -> np.ndarray:
    """``faces_p`` with each card still in doubt (:data:`LOOK_BELOW`) read again from crops
    :data:`LOOK_AROUND_MM` right, left, below and above its corner and at :data:`LOOK_AROUND_SCALES`
    about it: the classifier's one read ``read`` is replaced by the geometric mean of the seven (each
    normalised), what the index's suit network weighed in is kept.

    Why: the corner is found within a millimetre or two, and a crop a little off puts the index's
    edge where the classifier learned another glyph's (tango's 8 read as a 3 at one place, an 8 at
    the next); the reads agree on what the index shows and average out where it was cut, and the two
    scales read an index printed larger or smaller than most at sizes the classifier knows too.  The
    geometric mean, not the arithmetic, because a face that one good crop rules out is ruled out.
    Only where in doubt: a sure card costs nothing more."""
    total = faces_p.sum(axis=1)
    doubt = np.flatnonzero(faces_p.max(axis=1) < LOOK_BELOW * total)
    if not len(doubt):
        return faces_p
    d = LOOK_AROUND_MM * px_per_mm
    shifts = ((d, 0.0), (-d, 0.0), (0.0, d), (0.0, -d))
    pts = [(at[k][0] + dx, at[k][1] + dy) for k in doubt for dx, dy in shifts]
    views = face_probs(head, embed(bgr, pts, px_per_mm))[:, :NONE_CLASS].astype(np.float64)
    views = views.reshape(len(doubt), len(shifts), -1)
    # A crop cut as if at px_per_mm · s covers s times the millimetres about the corner: the index 1/s as large.
    scaled = [face_probs(head, embed(bgr, [at[k] for k in doubt], px_per_mm * s))[:, :NONE_CLASS].astype(np.float64)
              for s in LOOK_AROUND_SCALES]
    if scaled:
        views = np.concatenate([views, np.stack(scaled, axis=1)], axis=1)
    out = faces_p.copy()
    for j, k in enumerate(doubt):
        one = np.maximum(read[k] / max(float(read[k].sum()), 1e-300), 1e-300)
        every = np.vstack([one[None], views[j] / np.maximum(views[j].sum(axis=1, keepdims=True), 1e-300)])
        log_mean = np.log(np.maximum(every, 1e-300)).mean(axis=0)
        mean = np.exp(log_mean - log_mean.max())
        # faces_p[k] is the one read times what the index network weighed in; swap the read.
        out[k] = faces_p[k] / one * (mean / mean.sum())
    return out


def _weigh_far(faces_p: np.ndarray, far: FarCorner, own_last: str) -> np.ndarray:
    """``faces_p`` with the far corner's word weighed into the last card's faces of :data:`FAR_WEIGHED_RANKS`
    (the likelihood ratio 54 · P(face), the faces equally likely a priori), where the far corner names
    the face the near index names; otherwise unchanged (a disagreement is a doubt, added by the caller).

    The classifier's probabilities are weighed, not those with the index network's word on the suit:
    that network reads both corners' pips, and where it misreads a design's pip it misreads both
    (plastic's 2♣ read as a 2♠ at both corners, at 0.89 and 0.99), so it would be counted twice."""
    if far.probs is None or far.face != own_last:
        return faces_p
    out = faces_p.copy()
    out[-1] *= np.where(_FAR_WEIGHED, NONE_CLASS * far.probs, 1.0)
    return out


@dataclass(frozen=True)
class FarCorner:
    """What the last card's far corner showed (:func:`far_corner`)."""

    #: Whether the zone holds the place where it must lie (not seen there is then a doubt).
    looked: bool
    #: The classifier's probabilities of the 54 faces (summing to 1); None: no card's corner is seen there.
    probs: np.ndarray | None = None
    #: The face it names, its suit read again from the index at the finer scale where in doubt, as the
    #: near corner's is: what the two corners are compared on.
    face: str | None = None


def far_corner(bgr: np.ndarray, px_per_mm: float, head: Head, last: Corner) -> FarCorner:
    """What the last card's far corner shows, where the zone holds the place where it must lie.

    Only the part of the zone where that corner and the card's body above-left of it can lie is
    turned half a turn, which puts the corner top-left, where the detector and the classifier
    look; the rightmost card corner found there, a card's size away from ``last``, is its own.
    """
    (dx0, dx1), (dy0, dy1) = FAR_CORNER_MM
    h, w = bgr.shape[:2]
    x0 = int(max(0, last.x + (dx0 - FAR_CONTEXT_MM) * px_per_mm))
    y0 = int(max(0, last.y + (dy0 - FAR_CONTEXT_MM) * px_per_mm))
    x1 = int(min(w, last.x + (dx1 + FAR_BEYOND_MM) * px_per_mm))
    y1 = int(min(h, last.y + (dy1 + FAR_BEYOND_MM) * px_per_mm))
    if x1 - x0 < dx0 * px_per_mm or y1 - y0 < dy0 * px_per_mm:
        return FarCorner(False)  # the zone ends before it: not seen is no sign of anything
    turned = np.ascontiguousarray(bgr[y0:y1, x0:x1][::-1, ::-1])
    th, tw = turned.shape[:2]

    def as_zone(c: Corner) -> tuple[float, float]:
        return x0 + tw - 1 - c.x, y0 + th - 1 - c.y

    found = [c for c in detect(turned, px_per_mm).corners
             if dx0 <= (as_zone(c)[0] - last.x) / px_per_mm <= dx1 and dy0 <= (as_zone(c)[1] - last.y) / px_per_mm <= dy1]
    if not found:
        return FarCorner(True)
    probs = face_probs(head, embed(turned, [(c.x, c.y) for c in found], px_per_mm))
    p_card = corner_model().p_card(np.array([c.score for c in found]), probs[:, NONE_CLASS])
    cards = [k for k in range(len(found)) if p_card[k] >= 0.5]
    if not cards:
        return FarCorner(True)
    k = min(cards, key=lambda k: found[k].x)  # the rightmost in the zone as it lies
    faces = probs[k:k + 1, :NONE_CLASS].astype(np.float64)
    named = weigh_index_suits(faces, turned, [(found[k].x, found[k].y)], px_per_mm) if _reads_index_suit(head) else faces
    return FarCorner(True, faces[0] / max(float(faces.sum()), 1e-300), ALL_CARDS[int(named[0].argmax())])


def _reads_index_suit(head: Head) -> bool:
    """Whether ``head``'s doubts on a suit are read again from the index at a finer scale
    (:mod:`vision.cardnet.index_suit`): the shipped head's only.  An enrolled head knows its deck's
    suits (:attr:`Head.unenrolled`), and a head learned in play has the referee's word on them."""
    return head.unenrolled and head.origin == SHIPPED


def _second_look(bgr: np.ndarray, px_per_mm: float, head: Head, corners: list[Corner], emb: np.ndarray,
                 probs: np.ndarray, p_card: np.ndarray) -> None:
    """Re-read around dropped candidates the detector believed in (step 3 of the module docstring).

    Updates ``corners``, ``emb``, ``probs`` and ``p_card`` in place where a crop nearby is a card
    by both nets' account and lies clear of every other card's corner.
    """
    model = corner_model()
    scores = np.array([c.score for c in corners])
    believed = model.p_card(scores, np.full(len(corners), SECOND_LOOK_NONE)) >= 0.5
    doubted = np.nonzero((p_card < 0.5) & (believed | in_suspect_gap(corners, p_card, px_per_mm)))[0]
    if not len(doubted) or not SECOND_LOOK_MM:
        return
    step = np.array(SECOND_LOOK_MM) * px_per_mm
    pts = [(corners[k].x + dx, corners[k].y + dy) for k in doubted for dx, dy in step]
    e2 = embed(bgr, pts, px_per_mm)
    p2 = face_probs(head, e2)
    pc2 = model.p_card(np.repeat(scores[doubted], len(step)), p2[:, NONE_CLASS]).reshape(len(doubted), len(step))
    gap = MIN_CORNER_GAP_MM * px_per_mm
    for i, k in enumerate(doubted):
        j = int(pc2[i].argmax())
        if pc2[i, j] < 0.5:
            continue
        x, y = pts[i * len(step) + j]
        if any(math.hypot(x - c.x, y - c.y) < gap for m, c in enumerate(corners) if m != k and p_card[m] >= 0.5):
            continue  # that is another card's corner, read already
        corners[k] = Corner(x, y, corners[k].score)
        emb[k], probs[k], p_card[k] = e2[i * len(step) + j], p2[i * len(step) + j], pc2[i, j]


def _choose(card_p: np.ndarray, poss: Counter | None, reasons: list[str]) -> tuple[list[str], list[float], list[str | None]]:
    """Each card's best reading (within ``poss`` when given), its probability and the runner-up."""
    n = len(card_p)
    order = np.argsort(-card_p, axis=1)
    cards = [ALL_CARDS[int(order[i, 0])] for i in range(n)]
    confs = [float(card_p[i, order[i, 0]]) for i in range(n)]
    alts: list[str | None] = [ALL_CARDS[int(order[i, 1])] for i in range(n)]
    if poss is not None:
        left = Counter(poss)
        impossible = False
        # The surest cards claim their copies first.
        for i in sorted(range(n), key=lambda i: -confs[i]):
            if left[cards[i]] > 0:
                left[cards[i]] -= 1
                continue
            impossible = True
            allowed = [j for j in order[i] if left[ALL_CARDS[int(j)]] > 0]
            if allowed:
                alts[i] = cards[i]
                cards[i] = ALL_CARDS[int(allowed[0])]
                confs[i] = float(card_p[i, allowed[0]])
                left[cards[i]] -= 1
        if impossible:
            reasons.append("读到的牌已不可能出现 / the reading is not possible with the cards still unplayed")
    return cards, confs, alts


def _room_doubts(corners: list[Corner], p_card: np.ndarray, px_per_mm: float, reasons: list[str]) -> None:
    """A corner the detector believed in between two cards read, level with them and with room for a
    card on either side (:data:`MIN_CORNER_GAP_MM`), that the reader took for no card: a card whose
    index it does not know may lie there (every other card of an even fan missed looks like a wide
    fan).  Only for the shipped head: a head fitted on the deck (enrolled, or learned in play) was
    taught "none" at the spots its art shows the detector, and with it the doubt only cried wolf
    (docs/performance.md)."""
    kept = sorted((c for c, p in zip(corners, p_card, strict=True) if p >= 0.5), key=lambda c: c.x)
    room = MIN_CORNER_GAP_MM * px_per_mm
    believed = corner_model().p_card(np.array([c.score for c in corners]), np.full(len(corners), SECOND_LOOK_NONE)) >= 0.5
    for c, p, sure in zip(corners, p_card, believed, strict=True):
        if p >= 0.5 or not sure:
            continue
        left = [k for k in kept if k.x <= c.x - room]
        right = [k for k in kept if k.x >= c.x + room]
        if not left or not right:
            continue
        a, b = left[-1], right[0]
        if abs(c.y - (a.y + b.y) / 2.0) <= GAP_ROW_MM * px_per_mm and all(
                math.hypot(c.x - k.x, c.y - k.y) >= room for k in kept):
            reasons.append(f"{(a.x / px_per_mm):.0f} 与 {(b.x / px_per_mm):.0f} 毫米之间的牌角未读出牌，那里可能有牌 / "
                           f"a card corner between {(a.x / px_per_mm):.0f} and "
                           f"{(b.x / px_per_mm):.0f} mm read as no card: a card may lie there")
            return


