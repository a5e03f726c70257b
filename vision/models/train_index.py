"""Train the index classifier of :mod:`vision.reader` (CPU, numpy, no network).

Data recipe (everything is rendered here from the gnome-cards-data artwork):

* designs: :data:`vision.artwork.TRAINING_DESIGNS` only (the two held-out designs are never
  rendered here);
* zones from :func:`vision.synth.render_zone` with the default realism (overlap 12–25 mm,
  rotation ±6°, gradients, glare, cast, blur, noise, JPEG, rectification error), 1–10 random
  cards (each at most twice), at 2.0–3.5 px/mm;
* every ink blob the reader proposes is labelled from the renderer's ground truth: the shape
  class of the card whose index anchor (its rank glyph's top-left, found on the flat face)
  lies within 1.6 mm and whose blob is at least 75 % of the glyph's height, otherwise "not an index".

Model: one hidden layer (384 ReLU) softmax MLP over the 963 patch features, Adam.  Each
minibatch's patches are augmented (bolder/thinner strokes, narrower/wider glyphs, ±4° rotation,
±1 px shift); besides the five designs, 200 synthetic font decks (:mod:`font_decks`, 10 rows
each) teach it fonts the designs do not have.  The softmax temperature is then fitted on 40
font decks of other seeds, so that probabilities are honest on a deck never seen (see
:func:`train`).  The shipped ``index_mlp.npz`` has the weights of this command (run before
``--calib-decks`` existed) and the temperature that step gives for them (1.3; it was refitted
by the same rule on the same 40 decks, seed 7)::

    nice python -m vision.models.train_index --zones 4000 --val-zones 600 --epochs 24 --workers 2 \
        --font-decks 200 --font-rows 10 --hidden 384 --calib-decks 40
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from vision.artwork import TRAINING_DESIGNS, Deck, load_deck
from vision.cards import ALL_CARDS
from vision.deck_model import flush_denormals, synth_samples
from vision.models.font_decks import font_deck
from vision.reader import (
    BG_CLASS,
    FEATURE_DIM,
    MODEL_PATH,
    N_CLASSES,
    PATCH_H,
    PATCH_W,
    WORK_PPM,
    _to_work,
    analyse,
    face_anchor,
    patch_feature,
    shape_class,
)
from vision.synth import render_zone

_anchor_cache: dict[str, dict[str, tuple[float, float, float]]] = {}


def deck_anchors(deck: Deck) -> dict[str, tuple[float, float, float]]:
    """Rank-glyph top-left and height of every face of ``deck``, in face millimetres.

    Found by the reader's own :func:`face_anchor` on the flat face, so that training labels
    name exactly the blob the reader will propose.
    """
    out = {}
    for c in ALL_CARDS:
        work = _to_work(deck.bgr(c), deck.faces[c].shape[0] / deck.size_mm[1])
        a = face_anchor(work)
        if a is not None:
            out[c] = (a.x / WORK_PPM, a.y / WORK_PPM, a.h / WORK_PPM)
    return out


def anchors_mm(design: str) -> dict[str, tuple[float, float, float]]:
    """:func:`deck_anchors` of a gnome-cards design, cached per process."""
    if design not in _anchor_cache:
        _anchor_cache[design] = deck_anchors(load_deck(design))
    return _anchor_cache[design]


def random_play(rng: np.random.Generator, max_cards: int = 10) -> list[str]:
    n = int(rng.choice(np.arange(1, max_cards + 1), p=np.array([3, 3, 2, 2, 3, 3, 2, 2, 1, 1]) / 22))
    deck2 = np.array(list(ALL_CARDS) * 2)
    return list(rng.choice(deck2, size=n, replace=False))


def zone_samples(seed: int, design: str, ppm: float) -> tuple[np.ndarray, np.ndarray, int, int]:
    """Features and labels of every candidate in one rendered zone; plus (found, total) anchors."""
    rng = np.random.default_rng(seed)
    cards = random_play(rng)
    zr = render_zone(cards, design, ppm, seed=rng)
    work = _to_work(zr.image, ppm)
    an = analyse(work)
    anc = anchors_mm(design)
    truth = []
    for p in zr.placements:
        if p.card not in anc:
            continue
        ax, ay, ah = anc[p.card]
        pt = zr.to_image(p.to_scene(np.array([(ax, ay)])))[0] * (WORK_PPM / ppm)
        truth.append((pt, shape_class(p.card), ah * WORK_PPM))
    feats, labels = [], []
    found = set()
    tol = 1.6 * WORK_PPM
    for c in an.candidates:
        lab = BG_CLASS
        for k, (pt, cls, gh) in enumerate(truth):
            if abs(c.x - pt[0]) <= tol and abs(c.y - pt[1]) <= tol:
                # Only the whole rank glyph (alone or joined to its pip) is an index anchor: a
                # piece of it (split by the strict threshold) sees too little and is "not an index".
                if c.h >= 0.75 * gh:
                    lab = cls
                    found.add(k)
                break
        feats.append(patch_feature(an.ink, c))
        labels.append(lab)
    if not feats:
        return np.zeros((0, FEATURE_DIM), np.float32), np.zeros(0, np.int64), len(found), len(truth)
    return np.stack(feats).astype(np.float32), np.array(labels, np.int64), len(found), len(truth)


def _job(args: tuple[int, str, float]) -> tuple[np.ndarray, np.ndarray, int, int]:
    return zone_samples(*args)


def font_deck_samples(seed: int, rows: int) -> tuple[np.ndarray, np.ndarray]:
    """Samples from ``rows`` rendered rows of one synthetic font deck (:mod:`vision.models.font_decks`)."""
    deck = font_deck(seed)
    return synth_samples(deck, deck_anchors(deck), rows, np.random.default_rng(seed + 7), jitter=False)


def _font_job(args: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    return font_deck_samples(*args)


def build_font(n_decks: int, rows: int, seed: int, workers: int) -> tuple[np.ndarray, np.ndarray]:
    """Samples from ``n_decks`` font decks (seeds derived from ``seed``), ``rows`` rows each."""
    jobs = [(seed * 10_000 + k, rows) for k in range(n_decks)]
    xs, ys = [], []
    t0 = time.time()
    with ProcessPoolExecutor(workers) as ex:
        for i, (x, y) in enumerate(ex.map(_font_job, jobs)):
            if len(y):
                xs.append(x)
                ys.append(y)
            if (i + 1) % 10 == 0:
                print(f"  {i + 1}/{n_decks} font decks, {time.time() - t0:.0f} s", flush=True)
    return np.concatenate(xs), np.concatenate(ys)


def build(n_zones: int, seed: int, workers: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    jobs = [(int(rng.integers(1 << 31)), TRAINING_DESIGNS[i % len(TRAINING_DESIGNS)],
             float(rng.choice([2.0, 2.5, 3.0, 3.5]))) for i in range(n_zones)]
    xs, ys, found, total = [], [], 0, 0
    t0 = time.time()
    with ProcessPoolExecutor(workers) as ex:
        for i, (x, y, f, t) in enumerate(ex.map(_job, jobs, chunksize=8)):
            xs.append(x)
            ys.append(y)
            found += f
            total += t
            if (i + 1) % 500 == 0:
                print(f"  {i + 1}/{n_zones} zones, {time.time() - t0:.0f} s, anchors found {found}/{total}", flush=True)
    print(f"candidate recall: {found}/{total} = {found / max(total, 1):.4f}")
    return np.concatenate(xs), np.concatenate(ys)


_K2 = np.ones((2, 2), np.uint8)


def augment(xb: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Font variation the five designs do not cover: bolder/thinner strokes, narrower/wider
    glyphs, a little rotation and shift of the (raw) ink patches."""
    import cv2

    out = xb.copy()
    n_pix = PATCH_W * PATCH_H
    for i in range(len(out)):
        if rng.random() < 0.3:
            continue
        p = out[i, :n_pix].reshape(PATCH_H, PATCH_W)
        r = rng.random()
        if r < 0.3:
            p = cv2.dilate(p, _K2)
        elif r < 0.6:
            p = 0.5 * (p + cv2.erode(p, _K2))
        s = rng.uniform(0.9, 1.1)
        m = cv2.getRotationMatrix2D((PATCH_W / 2, PATCH_H / 2), rng.uniform(-4, 4), 1.0)
        m[0, :2] *= s * rng.uniform(0.88, 1.12)
        m[1, :2] *= s
        m[:, 2] += rng.uniform(-1.0, 1.0, 2)
        out[i, :n_pix] = cv2.warpAffine(p, m, (PATCH_W, PATCH_H), borderValue=0).ravel()
    return out


def fit_temperature(logits: np.ndarray, y: np.ndarray, grid: np.ndarray) -> tuple[float, float]:
    """The softmax temperature in ``grid`` with the lowest validation log-loss, and that loss.

    Why: the reader's doubt thresholds compare probabilities, so they must be honest ones.
    """
    best_t, best_nll = 1.0, np.inf
    for t in grid:
        lo = logits / t
        lo = lo - lo.max(1, keepdims=True)
        nll = float(-(lo[np.arange(len(y)), y] - np.log(np.exp(lo).sum(1))).mean())
        if nll < best_nll:
            best_t, best_nll = float(t), nll
    return best_t, best_nll


def train(x: np.ndarray, y: np.ndarray, xv: np.ndarray, yv: np.ndarray, hidden: int = 256, epochs: int = 40,
          seed: int = 0, calib: tuple[np.ndarray, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """Fit the MLP; its temperature is fitted on ``calib`` (else on the validation split).

    ``calib``: samples of decks the model has not seen (font decks of other seeds).  Fitted on
    the training designs' validation split, the temperature came out at 0.8 (sharpening), and
    the model was confidently wrong on unseen decks (2 % silent errors on the held-out designs);
    fitted on unseen fonts it is 1.3, with no silent error there.  Only index-like samples
    count (true indices and blobs taken for one): the many easy background blobs would pull the
    temperature towards over-confidence.
    """
    rng = np.random.default_rng(seed)
    mean = x.mean(axis=0)
    std = x.std(axis=0) + 1e-3
    xn = (x - mean) / std
    xvn = (xv - mean) / std
    d = x.shape[1]
    w1 = (rng.normal(0, np.sqrt(2 / d), (d, hidden))).astype(np.float32)
    b1 = np.zeros(hidden, np.float32)
    w2 = (rng.normal(0, np.sqrt(1 / hidden), (hidden, N_CLASSES))).astype(np.float32)
    b2 = np.zeros(N_CLASSES, np.float32)
    params = [w1, b1, w2, b2]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    lr, wd, bs, step = 2e-3, 1e-4, 256, 0
    n = len(xn)
    for ep in range(epochs):
        perm = rng.permutation(n)
        if ep == int(epochs * 0.6) or ep == int(epochs * 0.85):
            lr *= 0.3
        for s in range(0, n, bs):
            idx = perm[s:s + bs]
            xb = (augment(x[idx], rng) - mean) / std
            yb = y[idx]
            # small feature noise: robustness beyond the rendered nuisances
            xb = xb + rng.normal(0, 0.1, xb.shape).astype(np.float32)
            h = np.maximum(xb @ w1 + b1, 0)
            lo = h @ w2 + b2
            lo -= lo.max(axis=1, keepdims=True)
            p = np.exp(lo)
            p /= p.sum(axis=1, keepdims=True)
            g = p
            g[np.arange(len(yb)), yb] -= 1
            g /= len(yb)
            gw2 = h.T @ g + wd * w2
            gb2 = g.sum(0)
            gh = (g @ w2.T) * (h > 0)
            gw1 = xb.T @ gh + wd * w1
            gb1 = gh.sum(0)
            step += 1
            for k, (pp, gg) in enumerate(zip(params, [gw1, gb1, gw2, gb2], strict=True)):
                m[k] = 0.9 * m[k] + 0.1 * gg
                v[k] = 0.999 * v[k] + 0.001 * gg * gg
                mh = m[k] / (1 - 0.9 ** step)
                vh = v[k] / (1 - 0.999 ** step)
                pp -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
        hv = np.maximum(xvn @ w1 + b1, 0) @ w2 + b2
        acc = float((hv.argmax(1) == yv).mean())
        print(f"epoch {ep + 1}: val acc {acc:.4f}", flush=True)
    xc, yc = calib if calib is not None else (xv, yv)
    hc = np.maximum((xc - mean) / std @ w1 + b1, 0) @ w2 + b2
    keep = (yc != BG_CLASS) | (hc.argmax(1) != BG_CLASS)
    best_t, best_nll = fit_temperature(hc[keep], yc[keep], np.linspace(0.5, 4.0, 36))
    print(f"temperature {best_t:.2f} (val nll {best_nll:.4f})")
    w1, b1, w2, b2 = (flush_denormals(a) for a in (w1, b1, w2, b2))
    return {"mean": mean.astype(np.float32), "std": std.astype(np.float32), "w1": w1, "b1": b1, "w2": w2, "b2": b2,
            "temperature": np.array(best_t, np.float32)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--zones", type=int, default=4000)
    ap.add_argument("--val-zones", type=int, default=600)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=MODEL_PATH)
    ap.add_argument("--data", type=Path, default=None, help="cache the rendered samples here (.npz)")
    ap.add_argument("--font-decks", type=int, default=160, help="synthetic font decks added to the training set")
    ap.add_argument("--font-rows", type=int, default=25, help="rendered rows per font deck")
    ap.add_argument("--font-data", type=Path, default=None, help="cache the font-deck samples here (.npz)")
    ap.add_argument("--hidden", type=int, default=384)
    ap.add_argument("--calib-decks", type=int, default=40,
                    help="unseen font decks (10 rows each) the softmax temperature is fitted on")
    a = ap.parse_args()
    if a.data is not None and a.data.exists():
        with np.load(a.data) as z:
            x, y, xv, yv = z["x"], z["y"], z["xv"], z["yv"]
    else:
        x, y = build(a.zones, a.seed, a.workers)
        xv, yv = build(a.val_zones, a.seed + 1000, a.workers)
        if a.data is not None:
            np.savez_compressed(a.data, x=x, y=y, xv=xv, yv=yv)
    if a.font_decks:
        if a.font_data is not None and a.font_data.exists():
            with np.load(a.font_data) as z:
                xf, yf = z["x"], z["y"]
        else:
            xf, yf = build_font(a.font_decks, a.font_rows, a.seed, a.workers)
            if a.font_data is not None:
                np.savez_compressed(a.font_data, x=xf, y=yf)
        print(f"font-deck samples: {len(yf)} ({int((yf != BG_CLASS).sum())} indices)")
        x, y = np.concatenate([x, xf]), np.concatenate([y, yf])
    calib = None
    if a.calib_decks:
        # Other seeds than the training font decks: fonts, sizes and tints the model has not seen.
        calib = build_font(a.calib_decks, 10, a.seed + 6, a.workers)
    print(f"samples: train {len(y)} ({int((y != BG_CLASS).sum())} indices), val {len(yv)}")
    model = train(x, y, xv, yv, hidden=a.hidden, epochs=a.epochs, seed=a.seed, calib=calib)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(a.out, **model)
    print(f"saved {a.out} ({a.out.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
