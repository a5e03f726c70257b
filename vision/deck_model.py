"""A per-deck index classifier fitted at enrolment time from the deck's own 54 faces.

Why: the shipped MLP (:mod:`vision.models.train_index`) has seen five card designs; an unseen
font (tango, neoclassical) defeats it.  But once the deck in use has been photographed, the
glyphs the camera will see are *the same artwork*.  So :func:`fit_deck_classifier` lays the
enrolled faces out in synthetic rows exactly as :mod:`vision.synth` does for training
(overlap 12–25 mm, rotation ±6°, 2–3.5 px/mm, gradients, glare, cast, blur, noise, JPEG),
runs the reader's own candidate finder on them, labels every candidate from the known
geometry, and fits a linear classifier (ridge regression to one-hot targets, closed form:
one 963×963 solve) whose softmax temperature is fitted on a separate set of rendered rows.
Everything is numpy/OpenCV on one core and takes a few seconds.

Linear on raw ink patches is enough here because the within-class variation is only what the
camera adds (pose, scale, blur, light), not a change of font.
"""

from __future__ import annotations

from collections.abc import Mapping

import cv2
import numpy as np

from .artwork import Deck
from .cards import ALL_CARDS
from .synth import Realism, apply_lighting, apply_sensor, draw_cards, felt, layout_row

#: Synthetic rows rendered per enrolment (fit) and for the temperature (validation).
FIT_ROWS = 44
VAL_ROWS = 12
#: Smaller than a real zone: only the row matters, and it is rendered ~60 times.
ROW_AREA_MM = (240.0, 110.0)
#: Ridge penalty on standardised features; positives weighted up (background blobs outnumber them ~5:1).
RIDGE_LAMBDA = 30.0
POSITIVE_WEIGHT = 3.0


class DeckClassifier:
    """Linear scores over the reader's patch features, softmax with a fitted temperature.

    Same ``probs(x)`` interface as :class:`vision.reader.IndexModel` (28 classes: 27 index
    shapes and "not an index").
    """

    def __init__(self, mean: np.ndarray, std: np.ndarray, weights: np.ndarray, temperature: float) -> None:
        self.mean = mean.astype(np.float32)
        self.std = std.astype(np.float32)
        self.weights = weights.astype(np.float32)  # (D + 1, C), last row = bias
        self.temperature = float(temperature)

    def scores(self, x: np.ndarray) -> np.ndarray:
        z = ((x - self.mean) / self.std).astype(np.float32)
        return cv2.gemm(z, self.weights[:-1], 1.0, None, 0.0) + self.weights[-1]

    def probs(self, x: np.ndarray) -> np.ndarray:
        lo = self.scores(x).astype(np.float64) / self.temperature
        lo -= lo.max(axis=1, keepdims=True)
        e = np.exp(lo)
        return e / e.sum(axis=1, keepdims=True)


def enrolled_deck(work_faces: Mapping[str, np.ndarray], ppm: float) -> Deck:
    """A :class:`Deck` (opaque BGRA faces, one common size) from photographed faces at ``ppm``."""
    hs = [f.shape[0] for f in work_faces.values()]
    ws = [f.shape[1] for f in work_faces.values()]
    h, w = int(round(float(np.median(hs)))), int(round(float(np.median(ws))))
    faces = {}
    for card, f in work_faces.items():
        f = cv2.resize(f, (w, h), interpolation=cv2.INTER_AREA) if f.shape[:2] != (h, w) else f
        faces[card] = np.dstack([f, np.full((h, w), 255, np.uint8)])
    return Deck("enrolled", faces, (w / ppm, h / ppm))


def synth_samples(deck: Deck, anchors: Mapping[str, tuple[float, float, float]], n_rows: int,
                  rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Patch features and labels of every candidate the reader proposes on ``n_rows`` rendered rows.

    ``anchors``: card -> (x, y, height) of its rank glyph on the face, in face millimetres.
    Every enrolled card appears about equally often (rows are drawn from shuffled decks).
    """
    from .reader import BG_CLASS, WORK_PPM, _to_work, analyse, patch_feature, shape_class

    cards_all = [c for c in ALL_CARDS if c in deck.faces and c in anchors]
    realism = Realism()
    feats: list[np.ndarray] = []
    labels: list[int] = []
    pool: list[str] = []
    tol = 1.6 * WORK_PPM
    for _ in range(n_rows):
        n = int(rng.integers(5, 11))
        cards = []
        while len(cards) < n:
            if not pool:
                pool = [cards_all[i] for i in rng.permutation(len(cards_all))]
            cards.append(pool.pop())
        ppm = float(rng.uniform(2.0, 3.5))
        placements = layout_row(cards, deck, rng, realism, ROW_AREA_MM)
        w, h = int(round(ROW_AREA_MM[0] * ppm)), int(round(ROW_AREA_MM[1] * ppm))
        canvas = felt((h, w), rng)
        draw_cards(canvas, deck, placements, ppm, shadow=realism.shadow)
        img = apply_sensor(apply_lighting(canvas, rng, realism), rng, realism)
        an = analyse(_to_work(img, ppm))
        truth = []
        for p in placements:
            ax, ay, ah = anchors[p.card]
            pt = p.to_scene(np.array([(ax, ay)]))[0] * WORK_PPM
            truth.append((pt, shape_class(p.card), ah * WORK_PPM))
        for c in an.candidates:
            lab = BG_CLASS
            for pt, cls, gh in truth:
                if abs(c.x - pt[0]) <= tol and abs(c.y - pt[1]) <= tol:
                    # As in training: only the whole rank glyph is the anchor, a piece of it is not.
                    if c.h >= 0.75 * gh:
                        lab = cls
                    break
            feats.append(patch_feature(an.ink, c))
            labels.append(lab)
    if not feats:
        return np.zeros((0, 0), np.float32), np.zeros(0, np.int64)
    return np.stack(feats).astype(np.float32), np.array(labels, np.int64)


def _ridge(x: np.ndarray, y: np.ndarray, n_classes: int, bg: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 0.05
    z = (x - mean) / std
    z = np.hstack([z, np.ones((len(z), 1), np.float32)])
    wts = np.where(y == bg, 1.0, POSITIVE_WEIGHT).astype(np.float32)[:, None]
    target = np.eye(n_classes, dtype=np.float32)[y]
    a = (z * wts).T @ z
    a[np.diag_indices_from(a)] += RIDGE_LAMBDA
    a[-1, -1] -= RIDGE_LAMBDA  # no penalty on the bias
    weights = np.linalg.solve(a.astype(np.float64), ((z * wts).T @ target).astype(np.float64))
    return mean, std, weights.astype(np.float32)


def _fit_temperature(clf: DeckClassifier, x: np.ndarray, y: np.ndarray) -> float:
    """The softmax temperature minimising the negative log-likelihood of the validation rows."""
    s = clf.scores(x).astype(np.float64)
    best_t, best_nll = 0.1, np.inf
    for t in np.geomspace(0.01, 1.0, 48):
        lo = s / t
        lo -= lo.max(axis=1, keepdims=True)
        nll = float(-(lo[np.arange(len(y)), y] - np.log(np.exp(lo).sum(axis=1))).mean())
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    return best_t


def fit_deck_classifier(work_faces: Mapping[str, np.ndarray], anchors: Mapping[str, tuple[float, float, float]],
                        ppm: float, seed: int = 0, rows: int = FIT_ROWS, val_rows: int = VAL_ROWS) -> DeckClassifier | None:
    """Fit the per-deck classifier from faces at ``ppm`` px/mm; None if too few samples came out."""
    from .reader import BG_CLASS, N_CLASSES

    rng = np.random.default_rng(seed)
    deck = enrolled_deck(work_faces, ppm)
    x, y = synth_samples(deck, anchors, rows, rng)
    xv, yv = synth_samples(deck, anchors, val_rows, rng)
    if len(y) < 100 or int((y != BG_CLASS).sum()) < 27:
        return None
    mean, std, weights = _ridge(x, y, N_CLASSES, BG_CLASS)
    clf = DeckClassifier(mean, std, weights, 1.0)
    if len(yv):
        clf.temperature = _fit_temperature(clf, xv, yv)
    return clf
