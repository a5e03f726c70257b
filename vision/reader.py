"""Reading a play from one rectified, upright zone image.

Pipeline (all classical, CPU only, ~10–25 ms for a 10-card zone):

1. **Cards vs table.**  Paper is bright and colourless; felt is coloured.  A per-pixel score
   ``V - 2·chroma`` split by Otsu, holes filled, gives the card rows.  Small blobs are noise.
2. **Ink.**  Each pixel is divided by the local paper white (a max filter), which removes
   lighting gradients and colour cast; ink is what stays dark in every channel, and its
   redness (red minus the larger of green/blue) tells red from black.
3. **Index candidates.**  Connected ink components of glyph size near the top of the row.
   Each is cut out as a patch anchored at its top-left and scaled by its own height
   (fonts differ between decks, the proportions of an index do not).
4. **Classifier.**  A small MLP (numpy, trained by ``vision/models/train_index.py`` on the
   five training designs) gives, for each candidate, "not an index" or one of 27 shapes
   (13 ranks × {spade/heart, club/diamond} + joker); ink colour picks the suit within the
   shape pair and small/big joker.  An enrolment (the deck in use, photographed once)
   fine-tunes a copy of that MLP on rows rendered from the deck's own faces
   (:mod:`vision.deck_model`) and reads with it from then on.
5. **Doubt.**  Per-card confidence; the play is ``uncertain`` when any card is below the
   threshold (stricter for hearts), when a blob is neither clearly an index nor clearly not,
   when the spacing of the indices says a card may be missing, or when the reading is not
   possible given the caller's ``possible`` cards.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np
from threadpoolctl import ThreadpoolController

from .candidates import (  # noqa: F401  (re-exported: vision.reader is where callers look)
    ENROLLED_GLYPH_W_MM,
    FEATURE_DIM,
    LINE_MIN_MM,
    MAX_GLYPH_W_MM,
    PATCH_H,
    PATCH_W,
    PATCH_X0,
    PATCH_X1,
    PATCH_Y0,
    PATCH_Y1,
    WORK_PPM,
    Analysis,
    Candidate,
    analyse,
    card_mask,
    patch_feature,
)
from .cards import ALL_CARDS, CARD_INDEX, RANKS, check_card
from .corner_rules import (  # noqa: F401  (re-exported)
    BG_ASK,
    BLOB_NOT_CORNER,
    CORNER_CLEAR,
    CORNER_IS_INDEX,
    CORNER_MIN_MASS,
    CORNER_OWN_MIN,
    CORNER_READS_LEAD,
    CORNER_SETTLE,
    CORNER_SURE,
    CORNER_VETO,
    CORNER_WEIGHT,
    EVERY_FLOOR,
    FOUND_FACE_MIN,
    FOUND_LOCATE_MIN,
    HIDDEN_MIN_GAP_MM,
    HIDDEN_MIN_STEP_MM,
    OVERRULED_MASS,
    PIP_OWN_MIN,
    PIP_SETTLE,
    UNREAD_ROW_MM,
    VISIBLE_MARGIN_MM,
    _corner_disowns,
    _corner_reads,
    _corner_settles_suit,
    _corner_stands_out,
    _corner_there,
    _pip_settles_suit,
    _recover_hidden,
    _visible_width,
    _with_corner,
    _with_every_corner,
    _with_pip_corner,
)
from .deck_model import DeckClassifier, flush_denormals
from .enrollment import (  # noqa: F401  (re-exported)
    ENROLLMENT_FORMAT,
    Enrollment,
    _enroll,
    _top_left_glyph,
    _unit,
    enroll,
    face_anchor,
    second_digit,
)
from .index_classes import (  # noqa: F401  (re-exported)
    BG_CLASS,
    JOKER_CLASS,
    N_CLASSES,
    N_SHAPES,
    RED_CARDS,
    RED_HI,
    RED_LO,
    SUIT_PAIR,
    card_from_shape,
    shape_class,
)
from .pip import PipModel, get_pip_model, pip_feature
from .row_count import (  # noqa: F401  (re-exported)
    MISSING_REASONS,
    NO_INDEX_REASON,
    _probe_gaps,
    _row_ends,
    _row_gaps,
    _rows,
    _spacing_doubts,
)

#: With an enrolment whose classifier could not be fitted (a face missing): a card whose own face
#: template trails the best template by more than this is in doubt (2 % of correct cards on the training designs trail by more; see docs/performance.md).
ENROLLED_MARGIN = 0.1
THRESHOLD = 0.90
HEART_THRESHOLD = 0.97
MODEL_PATH = Path(__file__).with_name("models") / "index_mlp.npz"
PAIR_MASS = 0.005
#: Exponent on the pip model's suit odds when combined with the index classifier's (1 = full trust).
PIP_WEIGHT = 1.0


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

    def to_json(self) -> dict:
        return {"cards": list(self.cards), "confidence": [round(c, 4) for c in self.confidence],
                "uncertain": self.uncertain, "reasons": list(self.reasons)}




# --------------------------------------------------------------------------- input checks


def _as_bgr(img: object, px_per_mm: float) -> np.ndarray:
    """Validate the caller's image; every bad input is a clear ValueError."""
    if not isinstance(img, np.ndarray):
        raise ValueError(f"图像必须是 numpy 数组 / zone image must be a numpy array, got {type(img).__name__}")
    if img.size == 0:
        raise ValueError("图像为空 / zone image is empty")
    if img.ndim == 2 or (img.ndim == 3 and img.shape[2] == 1):
        raise ValueError("需要彩色 BGR 图像（花色靠颜色区分）/ a colour BGR image is needed "
                         "(grey-scale cannot tell hearts from spades)")
    if img.ndim != 3 or img.shape[2] not in (3, 4):
        raise ValueError(f"图像形状无效 / bad zone image shape {img.shape}, expected HxWx3 BGR")
    if not (isinstance(px_per_mm, int | float) and math.isfinite(px_per_mm) and 0.5 <= px_per_mm <= 20):
        raise ValueError(f"px_per_mm 无效 / px_per_mm out of range: {px_per_mm!r}")
    h, w = img.shape[:2]
    if min(h, w) / px_per_mm < 40.0:
        raise ValueError(f"区域太小 / zone image too small: {w}x{h} px is under 40 mm at {px_per_mm} px/mm")
    if max(h, w) / px_per_mm > 2000.0:
        raise ValueError(f"区域太大 / zone image too large for {px_per_mm} px/mm: {w}x{h}")
    if img.shape[2] == 4:
        img = img[:, :, :3]
    if img.dtype != np.uint8:
        if np.issubdtype(img.dtype, np.floating) and np.nanmax(img) <= 1.0:
            img = img * 255.0
        img = np.clip(np.nan_to_num(img), 0, 255).astype(np.uint8)
    return np.ascontiguousarray(img)


# --------------------------------------------------------------------------- image analysis: vision/candidates.py


# --------------------------------------------------------------------------- classifier


class IndexModel:
    """The trained MLP (numpy weights in ``vision/models/index_mlp.npz``)."""

    def __init__(self, path: Path = MODEL_PATH) -> None:
        try:
            with np.load(path) as z:
                self.mean = z["mean"].astype(np.float32)
                self.std = z["std"].astype(np.float32)
                self.w1, self.b1 = flush_denormals(z["w1"]), flush_denormals(z["b1"])
                self.w2, self.b2 = flush_denormals(z["w2"]), flush_denormals(z["b2"])
                self.temperature = float(z["temperature"]) if "temperature" in z else 1.0
        except FileNotFoundError as exc:
            raise FileNotFoundError(f"缺少识别模型 / index model missing: {path} "
                                    "(run python -m vision.models.train_index)") from exc

    def probs(self, x: np.ndarray) -> np.ndarray:
        # numpy's matmul (BLAS), not cv2.gemm: for 50 candidates x 963 x 384, 0.3 ms against
        # 7.7 ms (cv2.gemm is not a tuned BLAS), measured 2026-11-30, one thread.
        z = ((x - self.mean) / self.std).astype(np.float32)
        h = np.maximum(z @ self.w1 + self.b1, 0.0)
        logits = (h @ self.w2 + self.b2) / self.temperature
        logits -= logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)


_model: IndexModel | None = None


def get_model() -> IndexModel:
    """The shipped MLP: what enrolment fine-tunes (vision.deck_model), whatever reads zero-shot."""
    global _model
    if _model is None:
        _model = IndexModel()
    return _model


#: Which classifier reads a zone without a per-deck one: "cnn" (:mod:`vision.index_cnn`) or "mlp"
#: (:class:`IndexModel`).  Chosen by the leave-one-design-out benchmark, benchmarks/vision_lodo.py
#: (docs/performance.md, 2026-12-01): on the 21 designs neither model was trained on, two fresh
#: seeds, the CNN read 89.5 % of cards against the MLP's 82.4-83.4 %, silently wrong 0-0.08 % of
#: plays against 0.63-1.19 %, at the price of more uncertain plays (77-80 % against 70-73 %).  The
#: MLP stays for enrolment, which fine-tunes it.
#: The default is nevertheless the MLP, until the CNN stops losing lone jokers: in the demo's own
#: set-up (anglo, seed 21, x10, 3 deals) the CNN read a lone big-joker tribute as an empty zone,
#: certain, three times (twice W's BJ, once S's 5d return: each action waited for the referee) and
#: read 67 % of plays without a question against the MLP's 92 %; on the five older training designs
#: it left 19-24 of 40 plays certain and right against the MLP's 29-34.  An empty read of a zone with
#: a card in it is a silent miss the LODO figures do not count.  ``set_zero_shot_model`` (and the
#: benchmark's ``--models``) reads with the CNN.
ZERO_SHOT_MODEL = "mlp"
_zero_shot: object | None = None


def zero_shot_model() -> IndexModel | object:
    """The classifier of zones read without a per-deck classifier (``probs(features)``, 28 classes)."""
    if _zero_shot is not None:
        return _zero_shot
    if ZERO_SHOT_MODEL == "cnn":
        from .index_cnn import get_cnn

        return get_cnn()
    return get_model()


def set_zero_shot_model(model: object | None) -> None:
    """Read zero-shot with ``model`` (a fold's model in the leave-one-design-out benchmark);
    ``None`` goes back to :data:`ZERO_SHOT_MODEL`."""
    global _zero_shot
    _zero_shot = model

# --------------------------------------------------------------------------- reading


def _to_work(bgr: np.ndarray, px_per_mm: float) -> np.ndarray:
    if abs(px_per_mm - WORK_PPM) < 1e-6:
        return bgr
    f = WORK_PPM / px_per_mm
    return cv2.resize(bgr, None, fx=f, fy=f, interpolation=cv2.INTER_AREA if f < 1 else cv2.INTER_LINEAR)


def _possible_counts(possible: Iterable[str] | None) -> Counter | None:
    if possible is None:
        return None
    return Counter(check_card(c) for c in possible)


_blas: ThreadpoolController | None = None


def one_blas_thread() -> AbstractContextManager:
    """Context in which numpy's BLAS runs on the calling thread only.

    Why: the reader's matrix products are small (50 x 963 x 384: 0.3 ms); a BLAS thread pool
    gains nothing there, and when the other cores are busy (the camera, the other zones, the
    service) its threads wait for them: the same reads took 39 ms instead of 24 ms per 10-card
    zone with the second core loaded.  A controller made once switches in ~10 µs.
    """
    global _blas
    if _blas is None:
        _blas = ThreadpoolController()
    return _blas.limit(limits=1, user_api="blas")


def read_play(zone_bgr: np.ndarray, px_per_mm: float = 3.0, enrollment: Enrollment | None = None,
              possible: Iterable[str] | None = None) -> PlayReading:
    """Read the cards lying in one rectified, upright play zone, left to right, with doubt.

    ``possible``: the cards that may still appear (a multiset: each card at most as often
    as listed).  A reading outside it is never returned as certain.
    """
    with one_blas_thread():
        return _read_play(zone_bgr, px_per_mm, enrollment, possible)


def _read_play(zone_bgr: np.ndarray, px_per_mm: float, enrollment: Enrollment | None,
               possible: Iterable[str] | None) -> PlayReading:
    bgr = _as_bgr(zone_bgr, px_per_mm)
    poss = _possible_counts(possible)
    work = _to_work(bgr, px_per_mm)
    own_clf = enrollment is not None and isinstance(enrollment.classifier, DeckClassifier)
    an = analyse(work, max_glyph_w_mm=ENROLLED_GLYPH_W_MM if own_clf else MAX_GLYPH_W_MM)
    if not an.components:
        return PlayReading()
    model = get_model()
    cands = an.candidates
    reasons: list[str] = []
    if not cands:
        return PlayReading([], [], True, ["牌区有牌但读不到角标 / cards present but no index found"])
    n_found = len(cands)
    deck_clf = enrollment.classifier if enrollment is not None else None
    if deck_clf is not None:
        cands = cands + _ten_hypotheses(cands, enrollment)  # type: ignore[arg-type]
    feats = np.stack([patch_feature(an.ink, c) for c in cands])
    probs = deck_clf.probs(feats) if deck_clf is not None else zero_shot_model().probs(feats)  # type: ignore[attr-defined]
    if len(cands) > n_found:
        # A ten's index read from where its "1" would be: kept only as a ten, and only when the
        # glyph it was made from is not itself a card's index.
        for v in range(n_found, len(cands)):
            src = cands[v].source
            ten = int(np.argmax(probs[v, :N_SHAPES])) // 2 == RANKS.index("T")  # the joker class is 13 here
            if not ten or probs[src, BG_CLASS] < 0.5:
                probs[v] = 0.0
                probs[v, BG_CLASS] = 1.0
    p_bg = probs[:, BG_CLASS]
    shape_p = probs[:, :N_SHAPES] / np.maximum(probs[:, :N_SHAPES].sum(axis=1, keepdims=True), 1e-9)
    # Colour from the glyph's redness (measured on the training designs: black <= 0.03, red >= 0.15
    # after JPEG chroma subsampling); between RED_LO and RED_HI the colour itself is in doubt.
    p_red = np.clip((np.array([c.redness for c in cands]) - RED_LO) / (RED_HI - RED_LO), 0.0, 1.0)
    index_p = shape_p
    pip_model = enrollment.pip_model if enrollment is not None and enrollment.pip_model is not None else get_pip_model()
    # Each pip model reads the ink it was fitted on: a per-deck one the line-free ink, the shipped
    # one the plain ink (it never saw a pip cut by an erased line; see vision.models.train_pip).
    pip_own = isinstance(pip_model, DeckClassifier)
    pip_ink = an.pip_ink if pip_own else an.ink
    glyph_h = enrollment.glyph_h_mm * WORK_PPM if pip_own and enrollment is not None else None
    shape_p, pip_first = _with_pip_suits(pip_model, pip_ink, cands, shape_p, p_red, p_bg < 0.5, glyph_h)
    card_p = np.zeros((len(cands), len(ALL_CARDS)), np.float64)
    for k in range(N_SHAPES):
        card_p[:, CARD_INDEX[card_from_shape(k, True)]] += shape_p[:, k] * p_red
        card_p[:, CARD_INDEX[card_from_shape(k, False)]] += shape_p[:, k] * (1 - p_red)
    t_enrolled = None
    if enrollment is not None and deck_clf is None:
        # No per-deck classifier (a face was missing): the faces only add doubt.  Raw template
        # correlation picks the right face ~85 % of the time on the training designs, too weak
        # to raise a confidence, strong enough to catch a confidently wrong font.
        t = np.stack([_unit(f[: PATCH_W * PATCH_H]) for f in feats]) @ enrollment.templates.T
        colour_ok = RED_CARDS[None, :]
        red_now = (p_red > 0.5)[:, None]
        t_enrolled = np.where(enrollment.present[None, :] & (colour_ok == red_now), t, -1.0)
    is_index = p_bg < 0.5
    # A ten hypothesis (see _ten_hypotheses) is a guess, not a blob that was seen: it counts when
    # it reads as an index, and its own doubt is no reason (a ten missed is a gap the count
    # checks see; 253 of the 284 doubtful candidates of 160 held-out plays were such guesses).
    doubtful_blob = (p_bg > 0.08) & (p_bg < 0.92) & (np.arange(len(cands)) < n_found)
    order = np.argsort([c.x for c in cands])
    chosen: list[int] = []

    def is_joker(k: int) -> bool:
        return ALL_CARDS[int(np.argmax(card_p[k]))] in ("SJ", "BJ")

    for i in order:
        if not is_index[i]:
            continue
        if chosen and cands[i].x - cands[chosen[-1]].x < 7.0 * WORK_PPM:
            # Two index hits within one card strip.  The same glyph proposed twice (boxes
            # overlap) is one index; two separate glyphs there means the count is in doubt.
            # A glyph that is a part of the other one's index (its pip, the "0" of a "10"
            # printed with a gap) is that index, not a second card.
            j = chosen[-1]
            if _part_of_index(cands[j], cands[i], is_joker(j)):
                continue
            if _part_of_index(cands[i], cands[j], is_joker(i)):
                chosen[-1] = i
                continue
            if not _overlap(cands[i], cands[j]) and int(np.argmax(card_p[i])) != int(np.argmax(card_p[j])):
                reasons.append("同一位置两个角标 / two indices within one card strip")
            # Keep the more confident reading of the two.
            if card_p[i].max() * (1 - p_bg[i]) > card_p[j].max() * (1 - p_bg[j]):
                chosen[-1] = i
            continue
        chosen.append(i)
    corners = enrollment.corners if enrollment is not None else None
    corner_scores: dict[int, dict[str, float]] = {}
    pip_scores: dict[int, dict[str, float]] = {}  # the corner below the rank glyph (see _with_pip_corner)
    overruled: dict[int, str] = {}  # chosen index -> the classifier's card, where the corner read another
    every_compared: set[int] = set()  # chosen indices whose corner was compared with every face
    dropped: set[int] = set()  # chosen blobs where no face's corner lies (see below)
    grey = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY).astype(np.float32) if corners is not None else work
    visible: dict[int, float] = {}
    if corners is not None and chosen:
        # How much of each card's corner the next card leaves visible (the last card is whole).
        visible = {i: _visible_width(corners, cands[i].x, cands[j], int(np.argmax(card_p[j])))
                   for i, j in zip(chosen, chosen[1:], strict=False)}
        for i in chosen:
            # Only where the experts so far leave doubt, which keeps a 10-card zone within
            # 30 ms: the classifier's 13 mistakes on the index candidates of 300 held-out plays
            # were all held under 0.91 (on 300 training-design plays one of 5 was at 0.9994).
            top = int(np.argmax(card_p[i]))
            doubt = (card_p[i, top] < CORNER_SURE * card_p[i].sum()
                     or _suit_doubt(ALL_CARDS[top], index_p[i], pip_first[i], pip_own) is not None)
            if not doubt and p_bg[i] > BG_ASK:
                # Is this blob an index at all?  Where the read card's own corner lies here, it
                # is; where it does not clearly, the corner is asked as for any doubt (a
                # neoclassical 10♥ read 10♦ at 0.971, certain, its corner 0.846, was never asked).
                sc = corners.scores(grey, cands[i].x, cands[i].y, [ALL_CARDS[top]], visible.get(i))
                if sc.get(ALL_CARDS[top], -1.0) >= CORNER_IS_INDEX:
                    p_bg[i] = 0.0
                else:
                    doubt = True
            if not doubt:
                continue
            card_p[i], corner_scores[i] = _with_corner(corners, grey, cands[i], card_p[i], visible.get(i))
            if _corner_disowns(ALL_CARDS[int(np.argmax(card_p[i]))], corner_scores[i]):
                before = card_p[i] / max(float(card_p[i].sum()), 1e-300)
                card_p[i], corner_scores[i] = _with_every_corner(corners, grey, cands[i], card_p[i], visible.get(i))
                every_compared.add(i)
                now = int(np.argmax(card_p[i]))
                if before[now] < OVERRULED_MASS:
                    # The corner read a card the classifier all but ruled out: the two experts
                    # disagree outright, so the card is in doubt whichever is right.
                    overruled[i] = ALL_CARDS[int(np.argmax(before))]
            card = ALL_CARDS[int(np.argmax(card_p[i]))]
            if card in SUIT_PAIR:
                card_p[i], pip_scores[i] = _with_pip_corner(corners, grey, cands[i], card_p[i], visible.get(i))
                card = ALL_CARDS[int(np.argmax(card_p[i]))]
            sc = corner_scores[i]
            if p_bg[i] > BG_ASK and sc.get(card, -1.0) >= CORNER_IS_INDEX and sc[card] >= max(sc.values()):
                p_bg[i] = 0.0  # the read card's own corner lies here: an index
            elif p_bg[i] > 0.08 and i in every_compared and max(sc.values(), default=0.0) < BLOB_NOT_CORNER:
                # A blob the classifier doubts, where no face's corner lies (every face compared):
                # art or a pip, not a card (a tango 10♣'s art at 2 px/mm read as a second 10♠,
                # every corner under 0.54).  The count checks still see the row without it.
                dropped.add(i)
        chosen = [i for i in chosen if i not in dropped]

    def readings() -> tuple[list[str], list[float], list[str | None]]:
        cards, confs, alts = [], [], []
        for i in chosen:
            p = card_p[i] * (1 - p_bg[i])
            best = int(np.argmax(p))
            srt = np.argsort(p)[::-1]
            conf = float(p[best])
            pair = SUIT_PAIR.get(ALL_CARDS[best])
            sc = corner_scores.get(i, {})
            if pair is not None and (_corner_settles_suit(ALL_CARDS[best], sc)
                                     or _pip_settles_suit(ALL_CARDS[best], pip_scores.get(i, {}))):
                # The corner, which reads the whole pip, settles the suit: the card is as sure
                # as its rank (the classifier's suit odds on tango's large pips were the commonest
                # low confidence of rightly read cards).
                conf += float(p[CARD_INDEX[pair]])
                srt = srt[srt != CARD_INDEX[pair]]
            cards.append(ALL_CARDS[best])
            confs.append(conf)
            alts.append(ALL_CARDS[int(srt[1])] if p[srt[1]] > 1e-3 else None)
        return cards, confs, alts

    cards, confs, alts = readings()
    spacing = _spacing_doubts([cands[i] for i in chosen], an, enrollment, cards)
    recovered: set[int] = set()
    probe = _probe_gaps([cands[i] for i in chosen], an, enrollment, cards) if corners is not None else []
    suspects: list[str] = []
    if corners is not None and (probe or any(r in spacing for r in (*MISSING_REASONS, NO_INDEX_REASON))):
        # A card the glyph finder missed still shows its corner: look where the count checks
        # say one may hide, and in gaps wide enough to hide one, and read what is found there
        # (see _recover_hidden).  A gap may hide two cards: look again while something is
        # found (three rounds at most).
        for _ in range(3):
            found = _recover_hidden(corners, grey, an, [cands[i] for i in chosen],  # type: ignore[arg-type]
                                    [ALL_CARDS[int(np.argmax(card_p[i]))] for i in chosen], enrollment, spacing,
                                    deck_clf or model, probe, suspects)
            probe = []
            for c, p, sc in found:
                if ALL_CARDS[int(np.argmax(p))] in SUIT_PAIR:
                    # Its suit, too, is read from the pip below the glyph (tango's hidden tens).
                    right = [j for j in chosen if cands[j].x > c.x + HIDDEN_MIN_STEP_MM * WORK_PPM]
                    nxt = min(right, key=lambda j: cands[j].x) if right else None
                    vis = _visible_width(corners, c.x, cands[nxt], int(np.argmax(card_p[nxt]))) if nxt is not None else None
                    p, pip_scores[len(cands)] = _with_pip_corner(corners, grey, c, p, vis)
                corner_scores[len(cands)] = sc
                recovered.add(len(cands))
                cands.append(c)
                card_p = np.vstack([card_p, p[None]])
                p_bg = np.append(p_bg, 0.0)
                index_p = np.vstack([index_p, np.full((1, index_p.shape[1]), np.nan)])
                pip_first = np.append(pip_first, np.nan)
                chosen.append(len(cands) - 1)
            if not found:
                break
            chosen.sort(key=lambda i: cands[i].x)
            cards, confs, alts = readings()
            spacing = _spacing_doubts([cands[i] for i in chosen], an, enrollment, cards)
            if not any(r in spacing for r in (*MISSING_REASONS, NO_INDEX_REASON)):
                break
    loose = [i for i in range(n_found) if doubtful_blob[i] and not _covered(cands[i], [cands[j] for j in chosen])]
    if corners is not None:
        # A blob the classifier half takes for an index, where no card's corner is: art or a pip.
        loose = [i for i in loose if _corner_there(corners, grey, cands[i], card_p[i])]
    if loose:
        reasons.append("可能漏读或多读一张牌 / a blob may or may not be a card index")
    reasons.extend(spacing)
    reasons.extend(r for r in dict.fromkeys(suspects) if r not in spacing)
    if poss is not None:
        cards, confs, alts, why = _narrow(cards, confs, alts, [card_p[i] * (1 - p_bg[i]) for i in chosen], poss)
        reasons.extend(why)
    if t_enrolled is not None:
        for card, i in zip(cards, chosen, strict=True):
            if i >= len(t_enrolled):
                continue  # recovered from its corner: no patch was read
            row = t_enrolled[i]
            if float(row.max() - row[CARD_INDEX[card]]) > ENROLLED_MARGIN:
                reasons.append(f"{card} 与登记的牌面不符 / {card} does not match the enrolled deck")
    for card, i in zip(cards, chosen, strict=True):
        sc = corner_scores.get(i, {})
        if i in recovered:
            # Read where nothing was proposed: its suit stands on the corner alone, which must
            # side with it clearly (four tango 10c read 10s at 2 px/mm, certain, without this).
            if (card in SUIT_PAIR and sc.get(card, -1.0) - sc.get(SUIT_PAIR[card], 1.0) < CORNER_CLEAR
                    and not _pip_settles_suit(card, pip_scores.get(i, {}))):
                reasons.append(f"{card} 花色存疑 / suit of {card} in doubt ({SUIT_PAIR[card]}?)")
            continue
        if i in overruled and overruled[i] != card and not _corner_reads(card, sc, pip_scores.get(i, {})):
            reasons.append(f"{card} 由角部读出，分类器读 {overruled[i]} / {card} read from the corner, "
                           f"the classifier read {overruled[i]}")
        rival = max(sc, key=sc.__getitem__) if sc else card
        if card in sc and sc[rival] >= FOUND_FACE_MIN and sc[rival] - sc[card] >= CORNER_VETO:
            # The corner clearly shows another card: the classifier's certainty does not outvote
            # it (neoclassical Q♥ read Q♦ at 0.96: its corner 0.949 against 0.812).
            reasons.append(f"{card} 角部像 {rival} / the corner of {card} looks like {rival}")
            continue
        if card in sc and sc[card] < CORNER_OWN_MIN:
            reasons.append(f"{card} 角部不符 / the corner does not match {card}")
        why = _suit_doubt(card, index_p[i], pip_first[i], pip_own)
        if why and _pip_settles_suit(card, pip_scores.get(i, {})):
            why = None
        if why and sc.get(card, -1.0) >= FOUND_FACE_MIN and sc[card] - sc.get(SUIT_PAIR[card], 1.0) >= CORNER_CLEAR:
            # The third expert, the whole corner, sides clearly with this suit: on 1,000 plays of
            # the training designs (seed 5) uncertain plays went 8.7 -> 3.9 %, none silently wrong.
            why = None
        if why:
            reasons.append(why)
    for card, conf, i in zip(cards, confs, chosen, strict=True):
        heartish = card[-1] == "h" or float(sum(card_p[i][CARD_INDEX[r + "h"]] for r in RANKS)) > 0.01
        # A per-deck classifier's confident mistakes are suit pairs of one colour (spade/club in
        # small pips): when the pair still holds some mass, the card must clear the strict bar.
        pairish = deck_clf is not None and card in SUIT_PAIR and card_p[i][CARD_INDEX[SUIT_PAIR[card]]] > PAIR_MASS
        # A card recovered from its corner (see _recover_hidden) was found where nothing was
        # proposed: it clears the strict bar too (a tango 8d was read 6d at 0.94).
        # A card the corner ranks below another clears it too (a tango 5♣ read K♣ at 0.90, its
        # corner 0.903 against 9♣'s 0.914, under the 0.02 veto).
        sc = corner_scores.get(i, {})
        behind = bool(sc) and card in sc and sc[card] < max(sc.values())
        thr = HEART_THRESHOLD if heartish or pairish or behind or i in recovered else THRESHOLD
        if conf < thr:
            reasons.append(f"{card} 置信度低 / low confidence {conf:.2f}")
    if not cards:
        reasons.append("牌区有牌但读不到角标 / cards present but no index found")
    return PlayReading(cards, confs, bool(reasons), reasons, alts)


def _suit_doubt(card: str, index_p: np.ndarray, pip_first: float, pip_own: bool) -> str | None:
    """Why the suit of ``card`` is in doubt, if it is.

    The suit within a colour is decided by two experts (index patch, pip alone); when either of
    them favours the other suit, the product may still be confident, and on unseen decks such
    products were the commonest silent error: doubt it.  With a pip model fitted on the enrolled
    deck, the pip must also be there to confirm: where none was found (cut by a wrong glyph box,
    or of the other colour), the index patch alone was confidently wrong on tango's tens (2,000
    held-out plays, seeds 77 and 91: 0.30 % silently wrong without this rule, none with it, at
    +1.3 points of uncertain plays).
    """
    if card not in SUIT_PAIR:
        return None
    if pip_own and np.isnan(pip_first):
        return f"{card} 花色无旁证 / suit of {card} unconfirmed (no pip read)"
    k = 2 * RANKS.index(card[0])
    first = card[1] in "sh"
    idx_first = index_p[k] / max(index_p[k] + index_p[k + 1], 1e-12)
    for odds in (idx_first, pip_first):
        if not np.isnan(odds) and (odds < 0.5 if first else odds > 0.5):
            return f"{card} 花色存疑 / suit of {card} in doubt ({SUIT_PAIR[card]}?)"
    return None


def _with_pip_suits(model: DeckClassifier | PipModel | None, ink: np.ndarray, cands: list[Candidate],
                    shape_p: np.ndarray, p_red: np.ndarray, index_like: np.ndarray,
                    glyph_h: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Shape probabilities with the suit odds within each rank multiplied by the pip model's.

    The index classifier's commonest mistake is the suit of one colour (its patch gives the pip
    ~10×10 px); :mod:`vision.pip` reads the pip alone at its own scale.  Product of experts:
    the rank marginal stays the classifier's, the split between the two suits of a rank is the
    normalised product of both models' odds (to the power ``PIP_WEIGHT``).  Candidates without a
    pip found, and blobs that are not index-like, are left as they were.  Also returns the pip
    model's own odds for the first suit of each pair (spade or heart, by colour; nan: no pip), so
    that the reader can doubt a card whose two experts disagree.  ``glyph_h``: see
    :func:`vision.pip.pip_feature` (an enrolled deck's, with its own pip model only).
    """
    rows = np.nonzero(index_like)[0]
    pip_first = np.full(len(cands), np.nan)
    if model is None or not len(rows):
        return shape_p, pip_first
    feats, where = [], []
    for i in rows:
        c = cands[i]
        f = pip_feature(ink, c.x, c.y, c.w, c.h, glyph_h)
        if f is not None:
            feats.append(f)
            where.append(i)
    if not feats:
        return shape_p, pip_first
    q = model.probs(np.stack(feats))  # spade, club, heart, diamond
    first_black = q[:, 0] / np.maximum(q[:, 0] + q[:, 1], 1e-9)
    first_red = q[:, 2] / np.maximum(q[:, 2] + q[:, 3], 1e-9)
    pr = p_red[where]
    # A blob the pip model takes for a pip of the other colour is no pip of this index (a piece
    # of another card's art, or a pip cut by a wrong box): its split within this colour is the
    # ratio of two near-zero numbers, and it once made a tango 10s a certain 10c.
    same_colour = (1 - pr) * (q[:, 0] + q[:, 1]) + pr * (q[:, 2] + q[:, 3]) >= 0.5
    keep = np.nonzero(same_colour)[0]
    if not len(keep):
        return shape_p, pip_first
    where = [where[k] for k in keep]
    first_black, first_red, pr = first_black[keep], first_red[keep], pr[keep]
    pip_first[where] = odds = (1 - pr) * first_black + pr * first_red
    a = np.clip(odds, 1e-6, 1 - 1e-6) ** PIP_WEIGHT
    b = np.clip(1 - odds, 1e-6, 1 - 1e-6) ** PIP_WEIGHT
    out = shape_p.copy()
    pairs = out[where, :JOKER_CLASS].reshape(len(where), -1, 2)
    mass = pairs.sum(axis=2, keepdims=True)
    weighted = pairs * np.stack([a, b], axis=1)[:, None, :]
    pairs = weighted / np.maximum(weighted.sum(axis=2, keepdims=True), 1e-12) * mass
    out[where, :JOKER_CLASS] = pairs.reshape(len(where), -1)
    return out, pip_first


def _ten_hypotheses(cands: list[Candidate], enrollment: Enrollment) -> list[Candidate]:
    """Where the "1" of each glyph-sized candidate would be if that candidate were a ten's "0".

    Why: the "1" of a "10" is a thin stroke that the next card's border can cover or cut, and a
    "1" printed close to the card's own border merges with it (tango); the "0" is then all that
    is found of the card, and the card was missed (19 of 40 cards missed on 200 enrolled tango
    plays were tens).  The enrolled faces tell how far left of the "0" the "1" starts; the
    classifier reads a patch there, as it reads any index.  A hypothesis is made only where no
    candidate already starts, and its ``source`` is the position of the glyph it came from (the
    reader keeps it only if it reads as a ten and that glyph is not an index itself).
    """
    if enrollment.digit_x_mm is None or enrollment.anchor_x_mm is None:
        return []
    d = enrollment.digit_x_mm - enrollment.anchor_x_mm
    d = d[~np.isnan(d)]
    if not len(d):
        return []
    dx = float(np.median(d)) * WORK_PPM
    gh = enrollment.glyph_h_mm * WORK_PPM
    near = 1.5 * WORK_PPM
    out = []
    for k, c in enumerate(cands):
        if not 0.7 * gh <= c.h <= 1.3 * gh:
            continue
        x = c.x - dx
        if any(abs(o.x - x) <= near and abs(o.y - c.y) <= near for o in cands):
            continue
        out.append(Candidate(x, c.y, c.x + c.w - x, c.h, c.redness, c.component, source=k))
    return out


def _overlap(a: Candidate, b: Candidate) -> bool:
    return a.x < b.x + b.w and b.x < a.x + a.w and a.y < b.y + b.h and b.y < a.y + a.h


def _part_of_index(a: Candidate, b: Candidate, a_joker: bool = False) -> bool:
    """Whether glyph ``b`` belongs to the index whose rank glyph is ``a`` (``a_joker``: ``a``
    reads as a joker's mark).

    Either the suit pip under the rank (starting 0.7–2.8 glyph heights below its top, within its
    column) or the second digit of a "10" printed with a gap (right after ``a``, same top, same
    height).  The next card's index cannot be there: it is at least one step (12 mm) to the right.
    A joker's mark has no second digit: anglo's printed border, taken for a joker at 0.96, kept
    the red "Joker" right of it out as its "digit", and the big joker was read small, certain
    (the "1" of a ten itself may read as anything, so the rule is not "tens only").
    """
    pip = a.x - 0.3 * a.h <= b.x <= a.x + 1.2 * a.h and a.y + 0.7 * a.h <= b.y <= a.y + 2.8 * a.h
    gap = b.x - (a.x + a.w)
    digit = (not a_joker and -1.0 <= gap <= 0.35 * a.h and abs(b.y - a.y) <= 0.15 * a.h
             and 0.7 * a.h <= b.h <= 1.3 * a.h)
    return pip or digit


#: A blob starting this close (mm) in x to a chosen index's glyph is part of it (see _covered).
COVER_SLACK_MM = 2.0


def _covered(c: Candidate, chosen: list[Candidate]) -> bool:
    """Whether blob ``c`` lies inside a chosen card's index area (so it cannot be another card).

    A blob starting within ``COVER_SLACK_MM`` of the chosen glyph's left, either way, and within
    a glyph height of its top, is that index too: a ten read from its "1" hypothesis, or a glyph
    box cut by the next card's border, starts up to ~2 mm left and ~3 mm above the blob the same
    index also gave (7 of 9 held-out tango plays in doubt for a blob were this), and another
    card's glyph starts at least 7 mm away in x (one step is 12 mm; see HIDDEN_MIN_STEP_MM).
    """
    m = COVER_SLACK_MM * WORK_PPM
    return any((d.x - 1 <= c.x <= d.x + 1.6 * d.h and d.y - 1 <= c.y <= d.y + 2.8 * d.h)
               or (abs(c.x - d.x) <= m and abs(c.y - d.y) <= d.h) for d in chosen)


def _narrow(cards: list[str], confs: list[float], alts: list[str | None], dists: list[np.ndarray],
            poss: Counter) -> tuple[list[str], list[float], list[str | None], list[str]]:
    """Restrict each card to the possible ones; a reading that does not fit is marked, never certain."""
    why: list[str] = []
    allowed = np.array([poss.get(c, 0) > 0 for c in ALL_CARDS])
    out_c, out_p, out_a = [], [], []
    for card, conf, alt, p in zip(cards, confs, alts, dists, strict=True):
        total = float(p.sum())
        q = np.where(allowed, p, 0.0)
        if q.sum() <= 1e-9:
            why.append(f"{card} 不可能出现 / {card} cannot be in play (both copies seen)")
            out_c.append(card)
            out_p.append(min(conf, 0.5))
            out_a.append(alt)
            continue
        best = int(np.argmax(q))
        if ALL_CARDS[best] != card:
            why.append(f"{card} 已不可能，改读 {ALL_CARDS[best]} / {card} impossible, read as {ALL_CARDS[best]}")
        # Renormalise over the possible cards, but keep the mass lost to impossible ones as doubt.
        kept = float(q.sum()) / max(total, 1e-9)
        conf2 = float(q[best] / q.sum()) * min(1.0, kept / 0.5) * (total)
        out_c.append(ALL_CARDS[best])
        out_p.append(conf2)
        out_a.append(card if ALL_CARDS[best] != card else alt)
    need = Counter(out_c)
    for c, k in need.items():
        if k > poss.get(c, 0):
            why.append(f"{c} 出现次数超过剩余 / {c} appears more often than still possible")
    return out_c, out_p, out_a, why
