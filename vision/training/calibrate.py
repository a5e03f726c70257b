"""Calibrate the shipped head on designs the networks never saw (``python -m vision.training.calibrate CAL``).

1. The temperature: crops at the true corners (and elsewhere) of the calibration designs,
   embedded by the shipped network; the temperature that minimises their negative
   log-likelihood is written into ``cardnet_head.npz``.  Never fitted on training designs: a
   network is over-sure on what it was trained on, and would be calibrated to that.
2. The play bar's curve: whole plays of those designs read by :func:`vision.cardnet.read.read_play`;
   for each candidate bar, the share of plays asked and the share silently wrong.  ``PLAY_BAR``
   in :mod:`vision.cardnet.read` is set from it by hand (and the choice recorded in
   ``docs/performance.md``).
"""

from __future__ import annotations

import argparse

import numpy as np

from vision.cardnet import nets
from vision.cardnet.head import shipped_head
from vision.cardnet.prep import crops_to_input
from vision.cardnet.temperature import fit_temperature

from .make_data import load_shards

#: The calibration designs (held out of training; the benchmark's headline designs are the others).
CALIBRATION_DESIGNS = ("tigullio", "plastic")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("cal")
    ap.add_argument("--designs", nargs="*", default=list(CALIBRATION_DESIGNS))
    ap.add_argument("--plays", type=int, default=150)
    a = ap.parse_args()
    d = load_shards(a.cal)
    x = np.concatenate(d["cls_x"])
    y = np.concatenate(d["cls_y"])
    keep = np.array([des in a.designs for des in d["cls_design"]])
    x, y = x[keep], y[keep]
    head = shipped_head(nets.HEAD_PATH)
    emb = np.concatenate([nets.embedder(crops_to_input(x[i:i + 256])) for i in range(0, len(x), 256)])
    logits = head.with_temperature(1.0).logits(emb)
    acc = float((logits.argmax(1) == y).mean())
    t = fit_temperature(logits, y)
    print(f"{len(y)} calibration crops of {a.designs}: accuracy {acc:.4f}, temperature {t:.3f}")
    with np.load(nets.HEAD_PATH) as z:
        data = {k: z[k] for k in z.files}
    data["temperature"] = np.float32(t)
    np.savez(nets.HEAD_PATH, **data)
    _corner_model(a.designs, a.plays)
    _bar_curve(a.designs, a.plays)


def _corner_model(designs: list[str], plays: int) -> None:
    """Fit how the detector's score and the classifier's "none" combine, on every candidate of
    rendered plays of the calibration designs (a candidate within 4 mm of a true corner is a card).

    The ridge is the one of ``CORNER_RIDGES`` under which a fit on each calibration design best
    predicts the others' candidates (mean log-loss): the next deck is another design too."""
    from vision.cardnet import read
    from vision.cardnet.detector import detect
    from vision.cardnet.head import CORNER_RIDGES, choose_corner_ridge, fit_corner_model
    from vision.cardnet.spec import NONE_CLASS
    from vision.synth import Realism, render_zone

    from .data import play_size, random_cards

    rng = np.random.default_rng(777)
    read._shipped = None
    head = read.default_head()
    s, pn, y, of = [], [], [], []
    for design in designs:
        for _ in range(plays):
            truth = random_cards(rng, play_size(rng))
            ppm = float(rng.uniform(1.9, 4.3))
            z = render_zone(truth, design, px_per_mm=ppm, seed=int(rng.integers(1 << 31)), realism=Realism())
            corners = np.array([z.to_image(p.to_scene(np.array([[0.0, 0.0]])))[0] for p in z.placements])
            det = detect(z.image, ppm)
            if not det.corners:
                continue
            probs = head.probs(read.embed(z.image, [(c.x, c.y) for c in det.corners], ppm))
            for c, p in zip(det.corners, probs, strict=True):
                s.append(c.score)
                pn.append(p[NONE_CLASS])
                y.append(np.hypot(corners[:, 0] - c.x, corners[:, 1] - c.y).min() < 4.0 * ppm)
                of.append(design)
    s_, pn_, y_, of_ = np.array(s), np.array(pn), np.array(y), np.array(of)
    ridge, losses = choose_corner_ridge(s_, pn_, y_, of_)
    for r, loss in zip(CORNER_RIDGES, losses, strict=False):
        print(f"corner model, ridge {r:g}: log-loss on the design left out {loss:.4f}")
    model = fit_corner_model(s_, pn_, y_, ridge)
    model.save(nets.CORNER_PATH)
    print(f"corner model from {len(y_)} candidates ({int(np.sum(y_))} true corners), ridge {ridge:g}: {model}")


def _bar_curve(designs: list[str], plays: int) -> None:
    from vision.cardnet import read
    from vision.synth import Realism, render_zone

    from .data import play_size, random_cards

    rng = np.random.default_rng(4242)
    rows = []
    read._shipped = None  # the new temperature
    read._corner = None  # the new corner model
    for design in designs:
        for ppm in (2.0, 3.0, 4.0):
            for _ in range(plays // 3):
                truth = random_cards(rng, play_size(rng))
                z = render_zone(truth, design, px_per_mm=ppm, seed=int(rng.integers(1 << 31)), realism=Realism())
                r = read.read_play(z.image, ppm)
                geometry = any("mm" in s or "不可能" in s or "找不到" in s for s in r.reasons)
                rows.append((r.joint, r.cards == truth, geometry))
    j = np.array([r[0] for r in rows])
    ok = np.array([r[1] for r in rows])
    geo = np.array([r[2] for r in rows])
    print(f"{len(rows)} plays, {ok.mean():.2%} read exactly")
    for bar in (0.5, 0.7, 0.8, 0.85, 0.9, 0.95, 0.97, 0.99):
        asked = (j < bar) | geo
        print(f"bar {bar:.2f}: asked {asked.mean():6.2%}  silent-wrong {((~asked) & ~ok).mean():6.2%}  "
              f"P(right | not asked) {ok[~asked].mean() if (~asked).any() else float('nan'):.4f}")


if __name__ == "__main__":
    main()
