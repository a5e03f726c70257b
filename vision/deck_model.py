"""Per-deck index and pip classifiers fitted at enrolment time from the deck's own 54 faces.

Why: the shipped MLP (:mod:`vision.models.train_index`) has not seen the deck in use; an unseen
font (tango, neoclassical) defeats it.  But once the deck in use has been photographed, the
glyphs the camera will see are *the same artwork*.  So :func:`fit_deck_models` lays the
enrolled faces out in synthetic rows exactly as :mod:`vision.synth` does for training
(overlap 12–25 mm, rotation ±6°, 2–3.5 px/mm, gradients, glare, cast, blur, noise, JPEG),
runs the reader's own candidate finder on them, labels every candidate from the known
geometry (index samples also under a small jitter of their glyph box), and fine-tunes a copy of
the shipped MLP on them (numpy, Adam, 12 epochs over ~19,000 samples); the softmax
temperature is then fitted on a separate set of rendered rows, and whichever of the fine-tuned
copy and the shipped MLP has the lower log-loss there reads this deck.  The pips found under
those rows' index samples fine-tune a copy of the shipped pip model (:mod:`vision.pip`) the same
way.  One core, ~15 s on the shared dev VM, once per deck (192 rows: 64 left twice the
held-out tango plays read wrong; 384 gained nothing more).

Why not template matching or a linear model: on the same rendered samples of an unseen design
(tango, index samples only) ridge regression on the patches was right 72 % of the time, nearest
neighbour 62 %, the fine-tuned MLP 94 % (the shipped one 27 %).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from typing import TYPE_CHECKING

import cv2
import numpy as np

from .artwork import Deck
from .cards import ALL_CARDS
from .synth import Realism, apply_lighting, apply_sensor, draw_cards, felt, layout_row

if TYPE_CHECKING:
    from .reader import Analysis

#: Synthetic rows rendered per enrolment (fit) and for the temperature (validation).
FIT_ROWS = 192
#: Fewest faces a per-deck model is fitted on. A model fine-tuned on a subset never sees the
#: missing faces, yet its validation rows hold none of them either, so it can be chosen and then
#: read a missing face as another card with confidence: measured, a deck enrolled from 23 faces
#: read 12 % of plays silently wrong (benchmarks/enroll_table_bench.py, ornamental, seed 4242).
#: So every face but the jokers (which some decks do not print) must be learnt, less at most
#: two (a face whose index could not be found); with fewer, the enrolment keeps its templates and corners and
#: the shipped model classifies.
MIN_FIT_FACES = 50
VAL_ROWS = 16
#: Smaller than a real zone: only the row matters, and it is rendered 80 times.
ROW_AREA_MM = (240.0, 110.0)
#: Extra copies of each index sample with its glyph box shifted/scaled by (dx, dy, scale), in glyph
#: heights: the box found at read time varies that much with blur and overlap.
JITTER = ((0.05, 0.0, 1.0), (-0.05, 0.0, 1.0), (0.0, 0.05, 1.0), (0.0, -0.05, 1.0), (0.0, 0.0, 1.06),
          (0.0, 0.0, 0.95))
#: Fine-tuning of the shipped MLP on the rendered rows (Adam, minibatches of 256).
EPOCHS = 12
LEARNING_RATE = 1e-3
#: Fine-tuning of the shipped pip model on this deck's pips (a few hundred; minibatches of 64).
PIP_EPOCHS = 30


def flush_denormals(a: np.ndarray) -> np.ndarray:
    """``a`` as float32 with values below 1e-20 in magnitude (far below any weight that matters)
    set to zero.

    Why: weight decay drives the weights of always-blank patch pixels towards zero, into and
    near the float32 subnormal range; their products are subnormal and the CPU computes with
    subnormals through a slow path.  One such model made the matrix products (then ``cv2.gemm``) 150x slower (an enrolment
    took 133 s instead of 7 s).
    """
    a = np.array(a, np.float32)
    a[np.abs(a) < 1e-20] = 0.0
    return a


class DeckClassifier:
    """A shipped MLP's architecture with weights fine-tuned on this deck, and its own temperature.

    Same ``probs(x)`` interface as the model it was fitted from: :class:`vision.reader.IndexModel`
    (28 classes: 27 index shapes and "not an index") or :class:`vision.pip.PipModel` (4 suits).
    """

    def __init__(self, mean: np.ndarray, std: np.ndarray, w1: np.ndarray, b1: np.ndarray, w2: np.ndarray,
                 b2: np.ndarray, temperature: float) -> None:
        self.mean, self.std = mean.astype(np.float32), std.astype(np.float32)
        self.w1, self.b1 = flush_denormals(w1), flush_denormals(b1)
        self.w2, self.b2 = flush_denormals(w2), flush_denormals(b2)
        self.temperature = float(temperature)
        #: (this model, shipped model) log-loss on the enrolment's validation rows.
        self.validation_nll: tuple[float, float] | None = None

    def logits(self, x: np.ndarray) -> np.ndarray:
        z = ((x - self.mean) / self.std).astype(np.float32)
        h = np.maximum(z @ self.w1 + self.b1, 0.0)
        return h @ self.w2 + self.b2

    def probs(self, x: np.ndarray) -> np.ndarray:
        lo = self.logits(x).astype(np.float64) / self.temperature
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


def labelled_rows(deck: Deck, anchors: Mapping[str, tuple[float, float, float]], n_rows: int,
                  rng: np.random.Generator, max_glyph_w_mm: float | None = None,
                  ) -> Iterator[tuple[Analysis, list[str | None]]]:
    """Render ``n_rows`` rows of ``deck`` and run the reader's analysis on each; yield it with the
    card each candidate is the rank-glyph anchor of (None: not an index).

    ``anchors``: card -> (x, y, height) of its rank glyph on the face, in face millimetres.
    Every card with an anchor appears about equally often (rows are drawn from shuffled decks).
    A candidate is an anchor when it lies within 1.6 mm of the card's anchor and is at least 75 %
    of the glyph's height: a piece of the glyph (split by the strict threshold) sees too little.
    ``max_glyph_w_mm``: passed to the analysis (None: its default, as the shipped model reads).
    """
    from .reader import MAX_GLYPH_W_MM, WORK_PPM, _to_work, analyse

    cards_all = [c for c in ALL_CARDS if c in deck.faces and c in anchors]
    if not cards_all:
        return
    realism = Realism()
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
        an = analyse(_to_work(img, ppm), max_glyph_w_mm=max_glyph_w_mm or MAX_GLYPH_W_MM)
        truth = []
        for p in placements:
            ax, ay, ah = anchors[p.card]
            truth.append((p.to_scene(np.array([(ax, ay)]))[0] * WORK_PPM, p.card, ah * WORK_PPM))
        names: list[str | None] = []
        for c in an.candidates:
            name = None
            for pt, card, gh in truth:
                if abs(c.x - pt[0]) <= tol and abs(c.y - pt[1]) <= tol:
                    name = card if c.h >= 0.75 * gh else None
                    break
            names.append(name)
        yield an, names


def synth_samples(deck: Deck, anchors: Mapping[str, tuple[float, float, float]], n_rows: int,
                  rng: np.random.Generator, jitter: bool = True,
                  pips: list[tuple[np.ndarray, int]] | None = None,
                  max_glyph_w_mm: float | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Patch features and labels of every candidate the reader proposes on ``n_rows`` rendered rows.

    ``jitter``: add shifted copies of each index sample (enrolment: few rows, one deck); off when
    the class balance must stay as the reader meets it (training the shipped model).
    ``pips``: if given, the pip feature and suit (index in :data:`vision.pip.PIP_SUITS`) of every
    index sample of a suited card is appended to it (the same rows teach both models).
    ``max_glyph_w_mm``: see :func:`labelled_rows`.
    """
    from .pip import PIP_SUITS, pip_feature
    from .reader import BG_CLASS, WORK_PPM, patch_feature, shape_class

    feats: list[np.ndarray] = []
    labels: list[int] = []
    # Pips are cut as the reader cuts them with this deck enrolled (its median glyph height).
    glyph_h = float(np.median([a[2] for a in anchors.values()])) * WORK_PPM if anchors else None
    for an, names in labelled_rows(deck, anchors, n_rows, rng, max_glyph_w_mm):
        for c, name in zip(an.candidates, names, strict=True):
            lab = BG_CLASS if name is None else shape_class(name)
            feats.append(patch_feature(an.ink, c))
            labels.append(lab)
            if pips is not None and name is not None and name[-1] in PIP_SUITS:
                pf = pip_feature(an.pip_ink, c.x, c.y, c.w, c.h, glyph_h)
                if pf is not None:
                    pips.append((pf, PIP_SUITS.index(name[-1])))
            if jitter and lab != BG_CLASS:
                # The same glyph under small shifts of its box: more samples of the rare class.
                for dx, dy, sc in JITTER:
                    feats.append(patch_feature(an.ink, replace(c, x=c.x + dx * c.h, y=c.y + dy * c.h,
                                                               h=c.h * sc, w=c.w * sc)))
                    labels.append(lab)
    if not feats:
        return np.zeros((0, 0), np.float32), np.zeros(0, np.int64)
    return np.stack(feats).astype(np.float32), np.array(labels, np.int64)


def _fine_tune(base: object, x: np.ndarray, y: np.ndarray, rng: np.random.Generator,
               epochs: int = EPOCHS, batch: int = 256) -> DeckClassifier:
    """Fine-tune a copy of the shipped MLP (cross-entropy, Adam) on this deck's samples.

    Starting from the shipped weights matters: the hidden layer already separates index-like
    blobs from the rest, so a couple of thousand samples of one deck are enough to re-aim it
    (a linear model or nearest neighbours on the raw patches is far weaker, see
    docs/performance.md).
    """
    t0 = float(getattr(base, "temperature", 1.0))
    params = [flush_denormals(getattr(base, k)) for k in ("w1", "b1", "w2", "b2")]
    w1, b1, w2, b2 = params
    mean, std = np.asarray(base.mean, np.float32), np.asarray(base.std, np.float32)  # type: ignore[attr-defined]
    xn = ((x - mean) / std).astype(np.float32)
    mom = [np.zeros_like(p) for p in params]
    var = [np.zeros_like(p) for p in params]
    step = 0
    for _ in range(epochs):
        perm = rng.permutation(len(xn))
        for s in range(0, len(xn), batch):
            idx = perm[s:s + batch]
            xb, yb = xn[idx], y[idx]
            # numpy's matmul (BLAS): cv2.gemm is not a tuned BLAS, 25x slower at these sizes.
            h = np.maximum(xb @ w1 + b1, 0.0)
            lo = (h @ w2 + b2) / t0
            lo -= lo.max(axis=1, keepdims=True)
            p = np.exp(lo)
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(yb)), yb] -= 1.0
            g = p / (len(yb) * t0)
            # Probabilities of a confident model underflow to subnormals: zero them (see flush_denormals).
            g[np.abs(g) < 1e-30] = 0.0
            g = g.astype(np.float32)
            gh = (g @ w2.T) * (h > 0)
            grads = [xb.T @ gh, gh.sum(axis=0), h.T @ g, g.sum(axis=0)]
            step += 1
            for k, (pp, gg) in enumerate(zip(params, grads, strict=True)):
                mom[k] = 0.9 * mom[k] + 0.1 * gg
                var[k] = 0.999 * var[k] + 0.001 * gg * gg
                mh = mom[k] / (1 - 0.9 ** step)
                vh = var[k] / (1 - 0.999 ** step)
                pp -= (LEARNING_RATE * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
    return DeckClassifier(mean, std, w1, b1, w2, b2, t0)


def _fit_temperature(clf: DeckClassifier, x: np.ndarray, y: np.ndarray) -> float:
    """The softmax temperature minimising the negative log-likelihood of the validation rows."""
    s = clf.logits(x).astype(np.float64)
    best_t, best_nll = clf.temperature, np.inf
    for t in np.geomspace(0.3, 4.0, 40):
        lo = s / t
        lo -= lo.max(axis=1, keepdims=True)
        nll = float(-(lo[np.arange(len(y)), y] - np.log(np.exp(lo).sum(axis=1))).mean())
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    return best_t


def fit_deck_models(base: object, pip_base: object | None, work_faces: Mapping[str, np.ndarray],
                    anchors: Mapping[str, tuple[float, float, float]], ppm: float, seed: int = 0,
                    rows: int = FIT_ROWS, val_rows: int = VAL_ROWS) -> tuple[object | None, object | None]:
    """Fine-tune ``base`` (the shipped IndexModel) and ``pip_base`` (the shipped PipModel) on the
    same rows rendered from faces at ``ppm`` px/mm.

    Returns (index classifier, pip model): each the fine-tuned :class:`DeckClassifier`, or the
    shipped model itself when that reads this deck's validation rows better.  The index
    classifier is None if too few samples came out; the pip model is None without ``pip_base``.
    """
    from .reader import BG_CLASS, ENROLLED_GLYPH_W_MM

    if sum(1 for c in work_faces if c not in ("SJ", "BJ")) < MIN_FIT_FACES:
        return None, pip_base
    rng = np.random.default_rng(seed)
    deck = enrolled_deck(work_faces, ppm)
    pips: list[tuple[np.ndarray, int]] = []
    pips_val: list[tuple[np.ndarray, int]] = []
    wide = ENROLLED_GLYPH_W_MM  # the per-deck model reads with the wider limit (see reader)
    x, y = synth_samples(deck, anchors, rows, rng, pips=pips, max_glyph_w_mm=wide)
    xv, yv = synth_samples(deck, anchors, val_rows, rng, pips=pips_val, max_glyph_w_mm=wide)
    if len(y) < 100 or int((y != BG_CLASS).sum()) < 27:
        return None, pip_base
    clf = _fine_tune(base, x, y, rng)
    # The temperature is fitted on the samples that matter for a card's confidence: true indices
    # and blobs the model takes for one.  The many easy background blobs would otherwise pull it
    # towards over-confidence (suit pairs of one colour were then confused at > 0.9).
    keep = (yv != BG_CLASS) | (clf.logits(xv).argmax(axis=1) != BG_CLASS)
    if int(keep.sum()) >= 27:
        clf.temperature = _fit_temperature(clf, xv[keep], yv[keep])
    # Model selection on the deck's own validation rows: on a design the shipped MLP was trained
    # on, ~3,000 samples of fine-tuning can only lose against it; on an unseen design it wins
    # by far.  The one with the lower log-loss over the index-like samples reads this deck.
    base_p = np.asarray(base.probs(xv), np.float64)  # type: ignore[attr-defined]
    sel = keep | (base_p.argmax(axis=1) != BG_CLASS)
    index_clf = _select(clf, base, xv[sel], yv[sel])
    pip_clf = pip_base
    if pip_base is not None and len(pips) >= 100 and len(pips_val) >= 20:
        # This deck's pips: a few hundred samples, so small batches and more epochs.
        xp, yp = np.stack([f for f, _ in pips]), np.array([k for _, k in pips])
        xpv, ypv = np.stack([f for f, _ in pips_val]), np.array([k for _, k in pips_val])
        own = _fine_tune(pip_base, xp, yp, rng, epochs=PIP_EPOCHS, batch=64)
        own.temperature = _fit_temperature(own, xpv, ypv)
        pip_clf = _select(own, pip_base, xpv, ypv)
    return index_clf, pip_clf


def _select(own: DeckClassifier, base: object, xv: np.ndarray, yv: np.ndarray) -> object:
    """``own`` or ``base``, whichever has the lower log-loss on (xv, yv); ``own`` keeps both."""
    rows = np.arange(len(yv))
    nll_base = float(-np.log(np.maximum(np.asarray(base.probs(xv), np.float64)[rows, yv], 1e-12)).mean())  # type: ignore[attr-defined]
    nll_own = float(-np.log(np.maximum(own.probs(xv)[rows, yv], 1e-12)).mean())
    own.validation_nll = (nll_own, nll_base)
    return own if nll_own <= nll_base else base
