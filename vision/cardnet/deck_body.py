"""An enrolled deck's own suit, read from a card's body: for decks whose corner does not tell it.

Why (issue 25): gnome's tango_nuevo prints its suit beside the card, top right, where the next card
of a fan covers it; its corner shows the rank alone, so an enrolment's head could name the rank and
the colour but not which of the two suits (65–76 % of its cards read right, every play asked).  Its
body shows one large pip, whose left edge a fan leaves in view.  The shipped strip network
(:mod:`vision.cardnet.body`) learned other designs' columns of pips, and weighed for an enrolled head
it was as often sure and wrong as right (docs/performance.md, 2026-12-07, fourth session).  An
enrolment renders rows of the deck's own faces anyway: a suit head fitted there, on the strip
network's feature map, reads that deck's pips.  (The strip is cut and read in
:func:`vision.cardnet.body.strips_at`; this module is the head's numbers, below the head that carries it.)

What it reads: the map's mean in three bands down the strip and its maximum (where on the strip a
feature lies, which the network's own mean loses); for the last card of a play, which lies whole, its
top-right strip's too, where tango_nuevo prints the suit (a court's suit shows nowhere else).
Calibrated apart for each of :data:`GROUPS` (aces to threes, fours to tens, courts, jokers; a card under
the next one's edge, or the last, whose strip is cut through its middle), each by a temperature fitted
on the enrolment's calibration rows, never below 1: where the strip tells nothing of a group (a court's
art under the next card, a 2's blank paper) its temperature grows until its word weighs next to nothing.  No bar is chosen here; the reader's one bar decides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from vision.cards import ALL_CARDS

from .spec import BODY_CLASSES, body_class
from .temperature import fit_temperature

#: Bands down the strip whose means are read (with the whole strip's maximum).
BANDS = 3
#: The calibration groups: a face's kind times where the card lies (under the next card's edge, or last and
#: whole).  Index: 2 * kind + last.  Aces to threes apart from fours to tens: on most decks their pips lie in
#: the card's middle column, so the strip under the next card shows them blank paper (plastic's 2♣, read
#: 0.97 by its corner, was flipped to 2♠ by such a strip while the two shared one temperature).
KINDS = ("A-3", "4-10", "courts", "jokers")
GROUPS = tuple(f"{k}, {'last' if last else 'under'}" for k in KINDS for last in (False, True))
#: The largest temperature a group's calibration may reach: its word then moves a face by a few per cent.
MAX_TEMPERATURE = 1000.0
#: A group with fewer calibration strips than this takes the temperature of every strip cut where its own
#: are (under the next card, or the last card's), and :data:`MAX_TEMPERATURE` where those are fewer too: a
#: temperature fitted on a handful (the jokers of a short enrolment: 1–3 strips) came out at its floor of 1,
#: as sure as the fit itself; with none, the last card's jokers weighed nothing, and a lone jack's doubt
#: with a joker (tango_nuevo's "J" and "Joker") was left to the corner.
MIN_CALIBRATION = 20
#: Optimisation steps of the fit (mini-batches of 256; ~1 s here).
FIT_STEPS = 2000
#: Ridge on the weights (the features are standardised): a few thousand strips of one deck.
RIDGE = 1e-3


def card_group(card: str, last: bool) -> int:
    """The calibration group (:data:`GROUPS`) of ``card`` lying last or under the next card."""
    kind = 3 if card in ("SJ", "BJ") else 2 if card[0] in "JQK" else 0 if card[0] in "A23" else 1
    return 2 * kind + int(last)


#: Each face's group, under the next card and last; and its class of :data:`vision.cardnet.spec.BODY_CLASSES`.
_FACE_GROUP = np.array([[card_group(c, last) for c in ALL_CARDS] for last in (False, True)])
_FACE_CLASS = np.array([body_class(c) for c in ALL_CARDS])


def strip_features(maps: np.ndarray) -> np.ndarray:
    """(N, (BANDS + 1) · C) features from the strip network's maps (N, C, H, W)."""
    h = maps.shape[2]
    bands = [maps[:, :, b * h // BANDS:(b + 1) * h // BANDS].mean(axis=(2, 3)) for b in range(BANDS)]
    return np.concatenate([*bands, maps.max(axis=(2, 3))], axis=1).astype(np.float32)


@dataclass(frozen=True)
class DeckBody:
    """Standardised strip features -> five classes (the four suits, a joker), one temperature a group."""

    mean: np.ndarray  # (D,)
    scale: np.ndarray  # (D,)
    w: np.ndarray  # (D, 5)
    b: np.ndarray  # (5,)
    temperatures: np.ndarray  # (len(GROUPS),)
    #: How often each class was fitted on (the likelihood divides it out).
    prior: np.ndarray  # (5,)
    #: The deck's card width (mm): where the last card's top-right strip is cut (:func:`vision.cardnet.body.strips_at`).
    width_mm: float
    #: The faces it was fitted on (54 booleans, ``ALL_CARDS`` order); None: all.  Of any other face it says
    #: nothing (likelihood 1): a deck enrolled from the cards a table found lacks some faces, and a court
    #: never rendered would be read with what the pip cards taught.
    known: np.ndarray | None = None

    def __post_init__(self) -> None:
        d, k = len(self.mean), len(BODY_CLASSES)
        shapes = (self.scale.shape, self.w.shape, self.b.shape, self.temperatures.shape, self.prior.shape)
        if d == 0 or shapes != ((d,), (d, k), (k,), (len(GROUPS),), (k,)):
            raise ValueError(f"牌身花色模型尺寸不符：{shapes} / deck body head has shapes {shapes}")
        arrays = (self.mean, self.scale, self.w, self.b, self.temperatures, self.prior)
        if not all(np.isfinite(a).all() for a in arrays) or (self.scale <= 0).any() or (self.prior <= 0).any() \
                or not ((self.temperatures >= 1.0) & (self.temperatures <= MAX_TEMPERATURE)).all():
            raise ValueError("牌身花色模型数值无效 / deck body head holds invalid numbers")
        if not (isinstance(self.width_mm, float) and 40.0 <= self.width_mm <= 90.0):
            raise ValueError(f"牌身花色模型的牌宽无效：{self.width_mm!r} / deck body head's card width is invalid: "
                             f"{self.width_mm!r}")
        if self.known is not None and (self.known.shape != (len(ALL_CARDS),) or self.known.dtype != np.bool_):
            raise ValueError("牌身花色模型的已学牌面无效 / deck body head's known faces are invalid")

    def logits(self, feats: np.ndarray) -> np.ndarray:
        """(N, 5) from features where NaN marks a strip not cut (the top right of a card under the next):
        read as the mean, it adds nothing."""
        return np.nan_to_num((feats - self.mean) / self.scale) @ self.w + self.b

    def evidence(self, feats: np.ndarray) -> np.ndarray:
        """(N, 5): the logits less the log prior: what the strip itself says, which a temperature tempers."""
        return self.logits(feats) - np.log(self.prior)

    def likelihood(self, feats: np.ndarray, last: Sequence[bool]) -> np.ndarray:
        """(N, 54): how much each card's strips favour each face, P(its class | strips) / P(its class), each
        face by its group's temperature: at a large one every face's is 1, the strips weighing nothing."""
        u = self.evidence(feats)
        out = np.empty((len(u), len(ALL_CARDS)))
        log_prior = np.log(self.prior)
        for i, is_last in enumerate(last):
            t = self.temperatures[_FACE_GROUP[int(is_last)]]  # (54,)
            zz = log_prior[None, :] + u[i][None, :] / t[:, None]  # (54, 5): each face's view of the five classes
            zz = zz - zz.max(axis=1, keepdims=True)
            p = np.exp(zz) / np.exp(zz).sum(axis=1, keepdims=True)
            out[i] = p[np.arange(len(ALL_CARDS)), _FACE_CLASS] / self.prior[_FACE_CLASS]
        if self.known is not None:
            out[:, ~self.known] = 1.0
        return out

    def to_arrays(self) -> dict[str, np.ndarray]:
        """Its members, named for a head's file (:meth:`vision.cardnet.head.Head.to_bytes`)."""
        known = {} if self.known is None else {"body_known": self.known}
        return {f"body_{k}": getattr(self, k) for k in ("mean", "scale", "w", "b", "temperatures", "prior")} | \
            {"body_width_mm": np.float64(self.width_mm)} | known

    @classmethod
    def from_arrays(cls, z: Mapping[str, np.ndarray]) -> DeckBody | None:
        """The head read back from a file's arrays ``z``, or None where it holds none."""
        if "body_w" not in z:
            return None
        known = np.asarray(z["body_known"], np.bool_) if "body_known" in z else None
        width = float(np.asarray(z["body_width_mm"])) if "body_width_mm" in z else float("nan")
        return cls(*(np.asarray(z[f"body_{k}"], np.float64) for k in ("mean", "scale", "w", "b", "temperatures", "prior")),
                   width, known)


def fit_deck_body(x: np.ndarray, cls: np.ndarray, val_x: np.ndarray, val_cls: np.ndarray, val_group: np.ndarray,
                  width_mm: float, seed: int = 0, known: np.ndarray | None = None) -> DeckBody:
    """A suit head fitted on strips ``x`` of one deck (its cards ``width_mm`` wide) labelled ``cls``
    (:data:`BODY_CLASSES`), calibrated group by group on other strips (``val_*``; :data:`MIN_CALIBRATION`
    says what a group with few does)."""
    if len(x) == 0 or len(x) != len(cls):
        raise ValueError("没有可学习的牌身 / no card bodies to learn from")
    k = len(BODY_CLASSES)
    cut = ~np.isnan(x)  # NaN: a strip not cut (see DeckBody.logits)
    seen = np.maximum(cut.sum(axis=0), 1)
    mean = np.where(cut, x, 0.0).sum(axis=0) / seen
    scale = np.sqrt(np.where(cut, (x - mean) ** 2, 0.0).sum(axis=0) / seen) + 1e-3
    xs = np.nan_to_num((x - mean) / scale)
    rng = np.random.default_rng(seed)
    w, b = np.zeros((x.shape[1], k)), np.zeros(k)
    m = [np.zeros_like(w), np.zeros_like(b)]
    v = [np.zeros_like(w), np.zeros_like(b)]
    for t in range(1, FIT_STEPS + 1):
        idx = rng.integers(0, len(cls), min(256, len(cls)))
        z = xs[idx] @ w + b
        p = np.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        p[np.arange(len(idx)), cls[idx]] -= 1.0
        grads = (xs[idx].T @ p / len(idx) + RIDGE * w, p.mean(axis=0))
        for par, g, mo, ve in zip((w, b), grads, m, v, strict=True):  # Adam
            mo *= 0.9
            mo += 0.1 * g
            ve *= 0.999
            ve += 0.001 * g * g
            par -= 0.01 * (mo / (1 - 0.9**t)) / (np.sqrt(ve / (1 - 0.999**t)) + 1e-8)
    prior = (np.bincount(cls, minlength=k) + 1.0) / (len(cls) + k)
    body = DeckBody(mean, scale, w, b, np.full(len(GROUPS), MAX_TEMPERATURE), prior, float(width_mm))
    u = body.evidence(val_x)

    def temperature(rows: np.ndarray) -> float | None:
        if rows.sum() < MIN_CALIBRATION:
            return None
        return min(max(1.0, fit_temperature(u[rows], val_cls[rows], MAX_TEMPERATURE, prior)), MAX_TEMPERATURE)

    temps = []
    for g in range(len(GROUPS)):
        own = temperature(val_group == g)
        # Too few of its own (the jokers: 2 faces in 54): the strips cut where this group's are, all kinds.
        where = temperature(val_group % 2 == g % 2) if own is None else own
        temps.append(MAX_TEMPERATURE if where is None else where)
    return DeckBody(mean, scale, w, b, np.array(temps), prior, float(width_mm),
                    None if known is None or known.all() else known)
