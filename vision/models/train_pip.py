"""Train the pip suit model of :mod:`vision.pip` (CPU, numpy, no network).

Data recipe: rows rendered exactly as for the index classifier (:func:`vision.deck_model.labelled_rows`:
overlap 12–25 mm, rotation ±6°, 2–3.5 px/mm, gradients, glare, cast, blur, noise, JPEG) from the
five training designs and from synthetic font decks (:mod:`vision.models.font_decks`, whose pips
come from four fonts); every candidate the reader proposes that is a card's rank-glyph anchor
gives its pip (:func:`vision.pip.pip_feature`) labelled with the card's suit.  Jokers have no pip.
Validation: rows of other font decks and of the training designs with other seeds.

The pips are cut from the reader's plain ink map (``Analysis.ink``), as when the shipped
``pip_mlp.npz`` was trained.  The reader now cuts them from ``Analysis.pip_ink`` (near-vertical
lines erased, so that a pip under the next card's border is found at all); a model retrained
here on ``pip_ink`` (same command, 2026-11-30) reached 98.6 % on validation but read lone tango
clubs (a held-out design) as diamonds at 0.57–0.83, where the shipped one reads them as clubs at
0.72–0.99; it was not shipped.  Per-deck pip models (:mod:`vision.deck_model`) are fitted on
``pip_ink``, as they read.

Model: 258 → 64 ReLU → 4 softmax (spade, club, heart, diamond), Adam with feature noise, then a
softmax temperature fitted on the validation rows.

    nice python -m vision.models.train_pip --rows 150 --font-decks 200 --font-rows 8
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from vision.artwork import TRAINING_DESIGNS, load_deck
from vision.deck_model import labelled_rows
from vision.models.font_decks import font_deck
from vision.models.train_index import anchors_mm, deck_anchors, fit_temperature
from vision.pip import PIP_FEATURE_DIM, PIP_MODEL_PATH, PIP_SUITS, pip_feature


def pip_samples(source: str | int, rows: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Pip features and suit labels from ``rows`` rendered rows of a design (name) or font deck (seed)."""
    if isinstance(source, str):
        deck, anchors = load_deck(source), anchors_mm(source)
    else:
        deck = font_deck(source)
        anchors = deck_anchors(deck)
    xs, ys = [], []
    for an, names in labelled_rows(deck, anchors, rows, np.random.default_rng(seed)):
        for c, name in zip(an.candidates, names, strict=True):
            if name is None or name in ("SJ", "BJ"):
                continue
            f = pip_feature(an.ink, c.x, c.y, c.w, c.h)
            if f is not None:
                xs.append(f)
                ys.append(PIP_SUITS.index(name[1]))
    if not xs:
        return np.zeros((0, PIP_FEATURE_DIM), np.float32), np.zeros(0, np.int64)
    return np.stack(xs), np.array(ys, np.int64)


def _job(args: tuple[str | int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    return pip_samples(*args)


def build(jobs: list[tuple[str | int, int, int]], workers: int) -> tuple[np.ndarray, np.ndarray]:
    xs, ys = [], []
    t0 = time.time()
    with ProcessPoolExecutor(workers) as ex:
        for i, (x, y) in enumerate(ex.map(_job, jobs)):
            xs.append(x)
            ys.append(y)
            if (i + 1) % 50 == 0:
                print(f"  {i + 1}/{len(jobs)} sources, {time.time() - t0:.0f} s", flush=True)
    return np.concatenate(xs), np.concatenate(ys)


def train(x: np.ndarray, y: np.ndarray, xv: np.ndarray, yv: np.ndarray, hidden: int = 64, epochs: int = 40,
          seed: int = 0) -> dict[str, np.ndarray]:
    """Softmax MLP by Adam on minibatches with feature noise; temperature fitted on the validation set."""
    rng = np.random.default_rng(seed)
    mean, std = x.mean(axis=0), x.std(axis=0) + 1e-3
    xn, xvn = (x - mean) / std, (xv - mean) / std
    d, k = x.shape[1], len(PIP_SUITS)
    params = [rng.normal(0, np.sqrt(2 / d), (d, hidden)).astype(np.float32), np.zeros(hidden, np.float32),
              rng.normal(0, np.sqrt(1 / hidden), (hidden, k)).astype(np.float32), np.zeros(k, np.float32)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    lr, wd, bs, step = 2e-3, 1e-4, 128, 0

    def logits(z: np.ndarray) -> np.ndarray:
        return np.maximum(z @ params[0] + params[1], 0) @ params[2] + params[3]

    for ep in range(epochs):
        if ep in (int(epochs * 0.6), int(epochs * 0.85)):
            lr *= 0.3
        perm = rng.permutation(len(xn))
        for s in range(0, len(xn), bs):
            idx = perm[s:s + bs]
            xb = xn[idx] + rng.normal(0, 0.3, (len(idx), d)).astype(np.float32)
            hdn = np.maximum(xb @ params[0] + params[1], 0)
            lo = hdn @ params[2] + params[3]
            p = np.exp(lo - lo.max(axis=1, keepdims=True))
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(idx)), y[idx]] -= 1
            g = p / len(idx)
            gh = (g @ params[2].T) * (hdn > 0)
            grads = [xb.T @ gh + wd * params[0], gh.sum(0), hdn.T @ g + wd * params[2], g.sum(0)]
            step += 1
            for i, (pp, gg) in enumerate(zip(params, grads, strict=True)):
                m[i] = 0.9 * m[i] + 0.1 * gg
                v[i] = 0.999 * v[i] + 0.001 * gg * gg
                pp -= (lr * (m[i] / (1 - 0.9 ** step)) / (np.sqrt(v[i] / (1 - 0.999 ** step)) + 1e-8)).astype(np.float32)
        print(f"epoch {ep + 1}: val acc {float((logits(xvn).argmax(1) == yv).mean()):.4f}", flush=True)
    lv = logits(xvn)
    best_t, best_nll = fit_temperature(lv, yv, np.linspace(0.5, 4.0, 36))
    print(f"temperature {best_t:.2f} (val nll {best_nll:.4f})")
    return {"mean": mean.astype(np.float32), "std": std.astype(np.float32), "w1": params[0], "b1": params[1],
            "w2": params[2], "b2": params[3], "temperature": np.array(best_t, np.float32)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=150, help="rows per training design")
    ap.add_argument("--font-decks", type=int, default=200)
    ap.add_argument("--font-rows", type=int, default=8)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--out", type=Path, default=PIP_MODEL_PATH)
    a = ap.parse_args()
    # Font-deck seeds far from the index classifier's (seed * 10_000 + k) and apart for validation.
    jobs: list[tuple[str | int, int, int]] = [(d, a.rows, a.seed * 100 + i) for i, d in enumerate(TRAINING_DESIGNS)]
    jobs += [(500_000 + a.seed * 1000 + k, a.font_rows, k) for k in range(a.font_decks)]
    val: list[tuple[str | int, int, int]] = [(d, a.rows // 5, a.seed * 100 + 50 + i) for i, d in enumerate(TRAINING_DESIGNS)]
    val += [(600_000 + a.seed * 1000 + k, a.font_rows, k) for k in range(a.font_decks // 5)]
    x, y = build(jobs, a.workers)
    xv, yv = build(val, a.workers)
    print(f"pips: train {len(y)}, val {len(yv)}; per suit {np.bincount(y, minlength=4).tolist()}")
    model = train(x, y, xv, yv, epochs=a.epochs, seed=a.seed)
    np.savez_compressed(a.out, **model)
    print(f"saved {a.out} ({a.out.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
