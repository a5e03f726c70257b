"""Render the card-first reader's training set in worker processes (``python -m vision.training.make_data``).

Each worker renders its share of zones from its own deck pool (every training design, each also
re-printed twice, and synthetic font decks) and writes one pickle shard: detector inputs with
their corners, and classifier crops with their labels.
"""

from __future__ import annotations

import argparse
import os
import pickle
import time
from multiprocessing import Pool
from pathlib import Path

import cv2
import numpy as np

from vision.artwork import HELD_OUT_DESIGNS, Deck, held_out_among, training_designs
from vision.synth import reprint

from .data import TRAIN_REALISM as REALISM
from .data import (
    classifier_samples,
    deck_pool,
    detector_input,
    render_sample,
)


def _pool(designs: list[str], n_font: int, seed: int, svg: str | None) -> list[Deck]:
    rng = np.random.default_rng(seed)
    if svg:
        from .svg_decks import svg_decks

        base = svg_decks(Path(svg))
        return base + [reprint(d, rng) for d in base for _ in range(2)]
    base = deck_pool(designs, n_font, font_seed0=1000 + 100 * seed if n_font else 1000)
    out = list(base)
    for d in base[: len(designs)]:
        out += [reprint(d, rng), reprint(d, rng)]
    return out


def _work(args: tuple[int, int, list[str], int, str, str | None, float | None, bool]) -> str:
    seed, n_zones, designs, n_font, out_dir, svg, seconds, detector = args
    cv2.setNumThreads(1)  # one process a core: OpenCV's own threads would only fight the others
    t0 = time.time()
    rng = np.random.default_rng(seed)
    decks = _pool(designs, n_font, seed, svg)
    t_pool = time.time() - t0
    t_render = time.time()
    det_x, det_y, det_m, cls_x, cls_y, cls_d = [], [], [], [], [], []
    n_done = 0
    for _ in range(n_zones):
        if seconds is not None and time.time() - t_render > seconds and n_done:
            break
        n_done += 1
        deck = decks[rng.integers(len(decks))]
        z = render_sample(deck, rng, realism=REALISM)
        if detector:
            s = detector_input(z.image, z.px_per_mm)
            scale = s.shape[1] / z.image.shape[1]
            det_x.append(s)
            det_y.append(z.corners_px * scale)
            mask = np.zeros(s.shape[:2], np.uint8)
            for poly in z.outlines_px:
                cv2.fillPoly(mask, [np.round(poly * scale).astype(np.int32)], 1)
            det_m.append(mask)
        c, lab = classifier_samples(z, rng)
        cls_x += c
        cls_y += lab
        cls_d += [deck.design] * len(lab)
    shard = {"det_x": det_x, "det_y": det_y, "det_m": det_m, "cls_x": np.stack(cls_x), "cls_y": np.array(cls_y),
             "cls_design": cls_d}
    path = Path(out_dir) / f"shard-{seed}.pkl"
    part = path.with_suffix(".part")  # a shard is whole or absent: load_shards reads shard-*.pkl only
    with open(part, "wb") as f:
        pickle.dump(shard, f, protocol=5)
    os.replace(part, path)
    return f"{path} {n_done} zones {len(cls_y)} crops in {time.time() - t0:.0f} s ({len(decks)} decks in {t_pool:.0f} s)"


def load_shards(folder: str | Path) -> dict[str, list]:
    """Every shard under ``folder`` as one set: crops and labels as lists of arrays, the rest as lists."""
    out: dict[str, list] = {"det_x": [], "det_y": [], "det_m": [], "cls_x": [], "cls_y": [], "cls_design": []}
    for p in sorted(Path(folder).glob("shard-*.pkl")):
        with open(p, "rb") as f:
            d = pickle.load(f)
        for k in out:
            if k in ("cls_x", "cls_y"):
                out[k].append(d[k])
            else:
                out[k] += list(d[k])
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="/tmp/cardnet-data")
    ap.add_argument("--zones", type=int, default=3000)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--fonts", type=int, default=4, help="synthetic font decks per shard")
    ap.add_argument("--held-out", action="store_true", help="render the held-out designs instead (calibration)")
    ap.add_argument("--fonts-only", action="store_true", help="render only synthetic font decks (no gnome design)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--svg-decks", default=None, metavar="DIR",
                    help="render only the per-card SVG decks under DIR (the npm packages, see vision.training.svg_decks)")
    ap.add_argument("--designs", nargs="+", default=None, metavar="DESIGN",
                    help="the gnome-cards designs to render (default: every installed training design; where only "
                         "their sheets are cached, as on a lent machine, name them); held-out designs are refused")
    ap.add_argument("--seconds", type=float, default=None,
                    help="each shard renders zones for this many seconds once its decks are built (--zones: the upper bound)")
    ap.add_argument("--classifier-only", action="store_true", help="keep only the classifier's crops (no detector input)")
    a = ap.parse_args()
    Path(a.out).mkdir(parents=True, exist_ok=True)
    if a.designs and not a.held_out and held_out_among(a.designs):
        ap.error(f"held-out designs are never trained on: {held_out_among(a.designs)}")
    designs = (list(HELD_OUT_DESIGNS) if a.held_out else [] if a.fonts_only
               else a.designs if a.designs else training_designs())
    n_font = 0 if a.held_out else a.fonts
    per = a.zones // a.shards
    jobs = [(a.seed + k, per, designs, n_font, a.out, a.svg_decks, a.seconds, not a.classifier_only)
            for k in range(a.shards)]
    with Pool(a.workers) as p:
        for line in p.imap_unordered(_work, jobs):
            print(line, flush=True)


if __name__ == "__main__":
    main()
