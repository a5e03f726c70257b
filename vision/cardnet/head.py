"""The classifier's last layer over the crop embedding: shipped, enrolled for one deck, or learned in play.

Why only the last layer moves: the backbone learned what a rank and a suit look like over many
designs; one deck's faces are too few to retrain it, but they are plenty to place that deck's 54
classes in the embedding (a few hundred crops, seconds of numpy).  The head is one small file,
so the organiser enrols the event's deck once and the hub hands the file to every table.
"""

from __future__ import annotations

import io
import zipfile
from collections.abc import Collection
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from vision.cards import ALL_CARDS

from .deck_body import DeckBody
from .spec import FEATURE_DIM, HIDDEN_DIM, N_CLASSES, NONE_CLASS
from .temperature import fit_temperature

HEAD_FORMAT = "guandan-table/cardnet-head/1"


#: The origin of the head the package ships (fitted on no deck a table plays with).
SHIPPED = "shipped"
#: What a head learned in play adds to its start head's origin (:class:`vision.cardnet.online.PlayLearner`).
LEARNED_IN_PLAY = "+play"


@dataclass(frozen=True)
class Head:
    """Crop features -> hidden (ReLU) -> 55 logits; probabilities = softmax(logits / temperature)."""

    w1: np.ndarray  # (FEATURE_DIM, HIDDEN_DIM)
    b1: np.ndarray  # (HIDDEN_DIM,)
    w2: np.ndarray  # (HIDDEN_DIM, N_CLASSES)
    b2: np.ndarray  # (N_CLASSES,)
    temperature: float = 1.0
    #: What this head was fitted on (:data:`SHIPPED`, or the deck's name), shown to the referee.
    origin: str = SHIPPED
    #: The faces this head was fitted on (54 booleans, in ``ALL_CARDS`` order); None: all of them.
    #: A deck enrolled without some faces (a card the table did not find, a deck without jokers) has
    #: never seen those faces, and reads a crop of one as its look-alike, sure of it (a T♠ left out
    #: of a table's enrolment read as T♦ at 0.996): the reader keeps the shipped head's word on them
    #: (:func:`keep_unknown_faces`).
    known: np.ndarray | None = None
    #: The deck's own suit read from a card's body (:mod:`vision.cardnet.deck_body`), fitted at enrolment.
    body: DeckBody | None = None
    #: Whether the deck prints an index at a card's far (bottom-right) corner, as enrolment found on its
    #: own faces; None: not known (the reader looks for it).  Where it prints none, a far corner not seen
    #: is no sign of a card lying over the last one (tango_nuevo: every play was asked for it).
    far_index: bool | None = None

    def __post_init__(self) -> None:
        shapes = (self.w1.shape, self.b1.shape, self.w2.shape, self.b2.shape)
        want = ((FEATURE_DIM, HIDDEN_DIM), (HIDDEN_DIM,), (HIDDEN_DIM, N_CLASSES), (N_CLASSES,))
        if shapes != want:
            raise ValueError(f"识牌模型尺寸不符：为 {shapes}，应为 {want} / head has shape {shapes}, expected {want}")
        if not all(np.isfinite(a).all() for a in (self.w1, self.b1, self.w2, self.b2)) \
                or not 0.05 <= self.temperature <= 20:
            raise ValueError("识牌模型数值无效 / head holds non-finite weights or a temperature out of 0.05–20")
        if self.known is not None and (self.known.shape != (NONE_CLASS,) or self.known.dtype != np.bool_
                                       or not self.known.any()):
            raise ValueError(f"识牌模型的已登记牌面无效：须为 {NONE_CLASS} 个布尔值，且不能全为假 / "
                             f"head's known faces must be {NONE_CLASS} booleans, not all false")

    def hidden(self, feats: np.ndarray) -> np.ndarray:
        return np.maximum(feats @ self.w1 + self.b1, 0.0)

    def logits(self, feats: np.ndarray) -> np.ndarray:
        return self.hidden(feats) @ self.w2 + self.b2

    def probs(self, feats: np.ndarray) -> np.ndarray:
        z = self.logits(feats) / self.temperature
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def with_temperature(self, t: float) -> Head:
        return replace(self, temperature=float(t))

    @property
    def unenrolled(self) -> bool:
        """Whether no enrolment lies under this head: the shipped head, or one learned in play from it.

        Why: evidence fitted on other decks (the body strip, :mod:`vision.cardnet.body`) is weighed
        with such a head's reads; a head fitted on the deck's own faces reads that deck's corners, and
        where they print no suit the strip network is as often sure and wrong as right."""
        return self.origin in (SHIPPED, SHIPPED + LEARNED_IN_PLAY)

    def knowing_cards(self, cards: Collection[str]) -> Head:
        """This head, fitted on the faces of ``cards`` only."""
        return self.knowing(np.array([c in cards for c in ALL_CARDS]))

    def knowing(self, known: np.ndarray | None) -> Head:
        """This head, fitted on the faces ``known`` only (None, or all true: every face)."""
        if known is not None:
            known = np.asarray(known, np.bool_)
            if known.all():
                known = None
        return replace(self, known=known)

    def to_bytes(self) -> bytes:
        buf = io.BytesIO()
        extra = {} if self.known is None else {"known": self.known}
        if self.body is not None:
            extra |= self.body.to_arrays()
        if self.far_index is not None:
            extra["far_index"] = np.bool_(self.far_index)
        np.savez(buf, format=np.array(HEAD_FORMAT), w1=self.w1, b1=self.b1, w2=self.w2, b2=self.b2,
                 temperature=np.float64(self.temperature), origin=np.array(self.origin), **extra)
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> Head:
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                if str(z["format"]) != HEAD_FORMAT:
                    raise ValueError(f"format {z['format']!r}")
                # "known" is optional: a file written before it was kept, or of a whole deck, knows every face.
                known = z["known"].astype(np.bool_) if "known" in z.files else None
                # So are the deck's suit head and whether it prints a far index (heads made before either was kept).
                far_index = bool(z["far_index"]) if "far_index" in z.files else None
                body = DeckBody.from_arrays({k: z[k] for k in z.files if k.startswith("body_")})
                return cls(*(z[k].astype(np.float32) for k in ("w1", "b1", "w2", "b2")), float(z["temperature"]),
                           str(z["origin"]), known, body, far_index)
        except (OSError, KeyError, ValueError, EOFError, zipfile.BadZipFile) as e:
            raise ValueError(f"不是识牌模型文件（{e}） / not a card-reader head file: {e}") from e

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.to_bytes())

    @classmethod
    def load(cls, path: str | Path) -> Head:
        return cls.from_bytes(Path(path).read_bytes())


@dataclass(frozen=True)
class CornerModel:
    """P(a card's corner lies here) from the two nets' evidence, by logistic regression:
    ``sigmoid(a·logit(detector score) + b·logit(1 − P(none)) + c)``.

    Why both: the detector sees the corner in its context (a card's edge, the felt), the
    classifier sees the index; a spot of court art one of them takes for a corner the other
    rarely does.  Fitted on the calibration designs (:mod:`vision.training.calibrate`).
    """

    a: float = 1.0
    b: float = 1.0
    c: float = 0.0

    def p_card(self, score: np.ndarray, p_none: np.ndarray) -> np.ndarray:
        z = self.a * _logit(score) + self.b * _logit(1.0 - p_none) + self.c
        return 1.0 / (1.0 + np.exp(-np.clip(z, -60.0, 60.0)))

    @classmethod
    def load(cls, path: Path) -> CornerModel:
        if not path.exists():
            return cls()
        with np.load(path) as z:
            return cls(float(z["a"]), float(z["b"]), float(z["c"]))

    def save(self, path: Path) -> None:
        np.savez(path, a=np.float64(self.a), b=np.float64(self.b), c=np.float64(self.c))


def _logit(p: np.ndarray) -> np.ndarray:
    p = np.clip(np.asarray(p, np.float64), 1e-6, 1 - 1e-6)
    return np.log(p / (1 - p))


#: Ridge on the corner model's two slopes.  Why not "a little": when the calibration candidates
#: are perfectly separated (a sharp classifier on easy designs) an unpenalised fit runs its slopes
#: to millions, a hard threshold that is never unsure on the next deck.
CORNER_RIDGE = 1.0
#: The ridges the calibration chooses among, by how well a fit on one calibration design predicts
#: the other (:mod:`vision.training.calibrate`).  The smallest keeps the safeguard above.  Measured
#: on 2026-12-04: for one classifier a ridge of 1 left the held-out log-loss twice what 0.01 gives;
#: for another the loss fell the other way, to the largest ridge (docs/performance.md).
CORNER_RIDGES = (10.0, 3.0, 1.0, 0.3, 0.1, 0.03, 0.01)


def corner_log_loss(model: CornerModel, score: np.ndarray, p_none: np.ndarray, is_card: np.ndarray) -> float:
    """Mean negative log-likelihood of ``is_card`` under ``model`` (how the ridge is chosen)."""
    p = np.clip(model.p_card(score, p_none), 1e-12, 1.0 - 1e-12)
    return float(-np.mean(np.where(is_card, np.log(p), np.log(1.0 - p))))


def choose_corner_ridge(score: np.ndarray, p_none: np.ndarray, is_card: np.ndarray,
                        group: np.ndarray) -> tuple[float, list[float]]:
    """The ridge of :data:`CORNER_RIDGES` whose fit on all groups but one best predicts the one left
    out (mean log-loss over the groups: the calibration designs), and each ridge's loss."""
    groups = sorted(set(group.tolist()))
    if len(groups) < 2:
        return CORNER_RIDGE, []
    losses = []
    for r in CORNER_RIDGES:
        held = [corner_log_loss(fit_corner_model(score[group != g], p_none[group != g], is_card[group != g], r),
                                score[group == g], p_none[group == g], is_card[group == g]) for g in groups]
        losses.append(float(np.mean(held)))
    return CORNER_RIDGES[int(np.argmin(losses))], losses


def fit_corner_model(score: np.ndarray, p_none: np.ndarray, is_card: np.ndarray,
                     ridge: float = CORNER_RIDGE) -> CornerModel:
    """Logistic regression of ``is_card`` on the two logits: Newton's method from zero with a
    backtracking line search, ridge on the slopes.

    Why the line search: a sharp classifier puts most candidates at the clipped logits, where a
    full Newton step from anywhere but the optimum saturates every probability and the next step
    divides by a vanishing curvature (an intercept of 1e9 seen)."""
    x = np.stack([_logit(score), _logit(1.0 - p_none), np.ones(len(score))], axis=1)
    y = is_card.astype(np.float64)
    ridge = np.diag([ridge, ridge, 1e-6])

    def loss(w: np.ndarray) -> float:
        z = x @ w
        return float(np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * w @ ridge @ w)

    w = np.zeros(3)
    for _ in range(100):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -60.0, 60.0)))
        g = x.T @ (p - y) + ridge @ w
        h = (x * (p * (1 - p))[:, None]).T @ x + ridge
        step = np.linalg.solve(h, g)
        t, before = 1.0, loss(w)
        while t > 1e-6 and loss(w - t * step) > before - 1e-4 * t * float(g @ step):
            t *= 0.5
        w -= t * step
        if np.abs(t * step).max() < 1e-8:
            break
    return CornerModel(float(w[0]), float(w[1]), float(w[2]))


def shipped_head(path: Path) -> Head:
    with np.load(path) as z:
        return Head(*(z[k].astype(np.float32) for k in ("w1", "b1", "w2", "b2")), float(z["temperature"]))


def fit_head(feats: np.ndarray, labels: np.ndarray, start: Head, *, steps: int = 500, lr: float = 2e-3,
             l2_to_start: float = 1e-3, origin: str = "enrolled", seed: int = 0, balance: bool = False) -> Head:
    """Fine-tune both layers of the head on ``feats``/``labels`` (cross-entropy, Adam), from ``start``.

    The pull towards ``start`` keeps classes with few examples where the shipped head had them,
    so a deck enrolled without its jokers still reads jokers as before.  ``steps`` mini-batches of
    up to 128, whatever the number of examples: the cost is fixed (~1 s here for 500).

    ``balance``: fit against the deck's own prior (every face equally likely) rather than the
    labels' (balanced softmax: each face's logit is offset in training by the log of how often it
    is labelled, so the head keeps none of it).  Why: a table's labels are the referee's answers
    to what the reader doubted, so a card may be answered eight times and its same-rank rival
    three; a head fitted on them plainly learns that as a prior and settles the next doubt
    between the two towards the card answered more often (each silent error of the learning
    bench, 2026-12-02, went that way).  The "no card" class keeps its own frequency.
    """
    if len(feats) != len(labels) or len(feats) == 0:
        raise ValueError("没有可学习的样本 / nothing to learn from")
    rng = np.random.default_rng(seed)
    params = [p.astype(np.float32).copy() for p in (start.w1, start.b1, start.w2, start.b2)]
    origin_params = [p.copy() for p in params]
    moments = [(np.zeros_like(p), np.zeros_like(p)) for p in params]
    x = feats.astype(np.float32)
    y = labels.astype(np.int64)
    n = len(y)
    adjust = np.zeros(N_CLASSES, np.float32)
    if balance:
        counts = np.bincount(y[y != NONE_CLASS], minlength=NONE_CLASS)[:NONE_CLASS].astype(np.float32)
        adjust[:NONE_CLASS] = np.log((counts + 1.0) / (counts.mean() + 1.0))
    batch = min(128, n)
    t = 0
    while t < steps:
        perm = rng.permutation(n)
        for s in range(0, n - batch + 1, batch):
            if t >= steps:
                break
            idx = perm[s:s + batch]
            w1, b1, w2, b2 = params
            xb = x[idx]
            h_pre = xb @ w1 + b1
            h = np.maximum(h_pre, 0.0)
            z = h @ w2 + b2 + adjust
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(idx)), y[idx]] -= 1.0
            p /= len(idx)
            gw2 = h.T @ p
            gb2 = p.sum(axis=0)
            gh = (p @ w2.T) * (h_pre > 0)
            gw1 = xb.T @ gh
            gb1 = gh.sum(axis=0)
            t += 1
            for par, g, o, (m, v) in zip(params, (gw1, gb1, gw2, gb2), origin_params, moments, strict=True):
                g = g + l2_to_start * (par - o)
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                par -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return replace(start, w1=params[0], b1=params[1], w2=params[2], b2=params[3], origin=origin)


def keep_unknown_faces(probs: np.ndarray, base: np.ndarray, known: np.ndarray) -> np.ndarray:
    """``probs`` (a head fitted on the faces ``known`` only) with the faces it never saw read by
    ``base`` (the shipped head), both (N, 55).

    The base's probability that the crop is a face outside ``known`` is kept as the base gives it,
    face by face; the rest is shared among the known faces as ``probs`` shares it: the fitted head
    knows its own faces apart, but only the base knows how like an unseen face a crop is. "No card"
    stays the fitted head's.
    """
    faces = probs[:, :NONE_CLASS] / np.maximum(probs[:, :NONE_CLASS].sum(axis=1, keepdims=True), 1e-12)
    other = base[:, :NONE_CLASS] / np.maximum(base[:, :NONE_CLASS].sum(axis=1, keepdims=True), 1e-12)
    unknown = (other * ~known).sum(axis=1, keepdims=True)
    mine = faces * known
    mine = mine / np.maximum(mine.sum(axis=1, keepdims=True), 1e-12)
    out = np.empty_like(probs)
    out[:, :NONE_CLASS] = (other * ~known + (1.0 - unknown) * mine) * (1.0 - probs[:, NONE_CLASS:])
    out[:, NONE_CLASS] = probs[:, NONE_CLASS]
    return out


def fit_face_temperature(head: Head, feats: np.ndarray, labels: np.ndarray, floor: float) -> float:
    """The temperature of ``head`` fitted as the reader uses it, never below ``floor``: on the
    examples that are cards, over the 54 faces.

    Why only the faces: the reader asks the head which face a card is; whether a card lies there
    at all is the corner model's question. Examples of "no card" (near misses holding half an
    index, a deck's art taught as none) would soften every face (enrolment on candidate F:
    plastic 0.78 against 0.62 on faces; learning in play, plastic seed 3: 0.90 against 0.76).
    The floor keeps an enrolled or learned head never surer than the one it started from."""
    cards = labels != NONE_CLASS
    if not cards.any():
        return floor
    t = fit_temperature(head.with_temperature(1.0).logits(feats[cards])[:, :NONE_CLASS], labels[cards])
    return max(t, floor)
