"""Leave-one-design-out: the zero-shot reader on card designs its classifier never saw.

    nice .venv/bin/python benchmarks/vision_lodo.py --models /tmp/lodo --plays 60        # CNN folds
    nice .venv/bin/python benchmarks/vision_lodo.py --mlp --plays 60                      # shipped MLP

For each design of :data:`vision.models.index_data.FRENCH_DESIGNS` the reader reads zones of
that design with a classifier trained WITHOUT it:

* ``--models DIR``: ``DIR/fold<k>.npz`` is the index CNN trained without fold ``k`` of
  :data:`vision.models.index_data.FOLDS` (leave-one-GROUP-out: look-alike designs are held out
  together; training one model per design would take a day on this CPU);
* ``--mlp``: the shipped MLP (trained on the five :data:`vision.artwork.TRAINING_DESIGNS`; those
  five are marked "seen" and left out of the headline);
* ``--models DIR --with-mlp``: each fold's CNN times the shipped MLP (product of experts; the
  MLP's five designs are "seen").

Plays: 1-10 random cards (each at most twice) rendered by :func:`vision.synth.render_zone` with
the default realism (overlap 12-25 mm, rotation ±6°, gradients, glare, cast, blur, noise, JPEG,
rectification error), 75 % at 3 px/mm and 25 % at 2 px/mm.  Fresh random seed on every run
(printed; ``--seed`` replays one).  No enrolment.

Per design: per-card accuracy (aligned by position when the count is right, else by longest
common subsequence), silent-wrong plays (wrong and not marked uncertain), uncertain plays, and
ms per 10-card zone (CPU time of the reading thread: on this shared VM wall time mostly measures
the neighbours).  The WORST design comes first; it is the headline.
"""

from __future__ import annotations

import argparse
import json
import secrets
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.vision_bench import lcs, random_play


def _fold_of(design: str) -> int:
    from vision.models.index_data import FOLDS

    for k, fold in enumerate(FOLDS):
        if design in fold:
            return k
    raise ValueError(f"未知图案 / design not in any fold: {design}")


def run_design(args: tuple[str, int, int, str | None, bool]) -> dict:
    """Read ``plays`` rendered plays of ``design`` with the model that never saw it."""
    import cv2

    from vision import reader
    from vision.artwork import TRAINING_DESIGNS
    from vision.index_cnn import IndexCNN, ProductOfExperts
    from vision.synth import render_zone

    design, plays, seed, models, with_mlp = args
    cv2.setNumThreads(1)
    if models is not None:
        cnn = IndexCNN(Path(models) / f"fold{_fold_of(design)}.npz")
        reader.set_zero_shot_model(ProductOfExperts(cnn, reader.get_model()) if with_mlp else cnn)
        seen = with_mlp and design in TRAINING_DESIGNS
    else:
        reader.set_zero_shot_model(reader.get_model())
        seen = design in TRAINING_DESIGNS
    rng = np.random.default_rng(seed)
    cards_n = cards_ok = exact = silent = uncertain = 0
    ms10: list[float] = []
    errors = []
    reasons: dict[str, int] = {}
    with reader.one_blas_thread():
        for _ in range(plays):
            cards = random_play(rng)
            ppm = 2.0 if rng.random() < 0.25 else 3.0
            zr = render_zone(cards, design, ppm, seed=rng)
            t0 = time.thread_time()
            r = reader.read_play(zr.image, px_per_mm=ppm)
            ms = (time.thread_time() - t0) * 1000
            if len(cards) == 10:
                ms10.append(ms)
            cards_n += len(cards)
            cards_ok += sum(a == b for a, b in zip(r.cards, cards, strict=True)) if len(r.cards) == len(cards) \
                else lcs(r.cards, cards)
            ok = r.cards == cards
            exact += ok
            uncertain += r.uncertain
            for why in set(r.reasons):
                key = why.split(" / ")[-1].split(":")[0].split(" 0.")[0]
                reasons[key] = reasons.get(key, 0) + 1
            if not ok and not r.uncertain:
                silent += 1
                errors.append({"truth": cards, "read": r.cards, "ppm": ppm})
    return {"design": design, "seen": seen, "plays": plays, "cards": cards_n,
            "per_card": cards_ok / max(cards_n, 1), "exact": exact / plays, "silent": silent / plays,
            "uncertain": uncertain / plays, "ms10": float(np.mean(ms10)) if ms10 else None,
            "silent_errors": errors[:5], "reasons": dict(sorted(reasons.items(), key=lambda kv: -kv[1])[:6])}


def main() -> None:
    from vision.models.index_data import ENGLISH_INDEX, FRENCH_DESIGNS

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--models", type=Path, help="folder of fold<k>.npz CNNs (each trained without fold k)")
    g.add_argument("--mlp", action="store_true", help="the shipped MLP")
    ap.add_argument("--with-mlp", action="store_true", help="with --models: each fold's CNN times the shipped MLP")
    ap.add_argument("--plays", type=int, default=60, help="plays per design")
    ap.add_argument("--seed", type=int, default=None, help="default: a fresh random seed (printed)")
    ap.add_argument("--designs", nargs="*", default=list(FRENCH_DESIGNS))
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--out", type=Path, default=None)
    a = ap.parse_args()
    seed = a.seed if a.seed is not None else secrets.randbelow(1 << 31)
    print(f"seed {seed}", flush=True)
    t0 = time.time()
    jobs = [(d, a.plays, seed + k, None if a.mlp else str(a.models), a.with_mlp) for k, d in enumerate(a.designs)]
    with ProcessPoolExecutor(a.workers) as ex:
        rows = list(ex.map(run_design, jobs))
    rows.sort(key=lambda r: (r["seen"], r["per_card"], -r["uncertain"]))
    print(f"\n{'design':18} {'index':7} {'per card':>9} {'exact':>7} {'silent':>7} {'uncertain':>9} {'ms/10':>6}")
    for r in rows:
        tag = "seen" if r["seen"] else ("J/Q/K" if r["design"] in ENGLISH_INDEX else "other")
        ms = f"{r['ms10']:.1f}" if r["ms10"] is not None else "-"
        print(f"{r['design']:18} {tag:7} {100 * r['per_card']:8.2f}% {100 * r['exact']:6.1f}% "
              f"{100 * r['silent']:6.2f}% {100 * r['uncertain']:8.1f}% {ms:>6}")
    unseen = [r for r in rows if not r["seen"]]
    for name, sel in (("all unseen", unseen), ("J/Q/K unseen", [r for r in unseen if r["design"] in ENGLISH_INDEX])):
        if not sel:
            continue
        n = sum(r["cards"] for r in sel)
        p = sum(r["plays"] for r in sel)
        worst = sel[0]
        ms = [r["ms10"] for r in sel if r["ms10"] is not None]
        print(f"{name}: worst {worst['design']} {100 * worst['per_card']:.2f}% per card, "
              f"{100 * max(r['silent'] for r in sel):.2f}% worst silent, {100 * max(r['uncertain'] for r in sel):.1f}% "
              f"worst uncertain; pooled {100 * sum(r['per_card'] * r['cards'] for r in sel) / n:.2f}% per card, "
              f"{100 * sum(r['silent'] * r['plays'] for r in sel) / p:.2f}% silent, "
              f"{100 * sum(r['uncertain'] * r['plays'] for r in sel) / p:.1f}% uncertain, "
              f"{np.mean(ms) if ms else float('nan'):.1f} ms per 10-card zone (CPU)")
    print(f"wall {time.time() - t0:.0f} s")
    if a.out:
        a.out.write_text(json.dumps({"seed": seed, "plays_per_design": a.plays, "rows": rows}, indent=2))


if __name__ == "__main__":
    main()
