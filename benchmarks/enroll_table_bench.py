"""Enrolling a deck from the table, then reading that design (issue #21 §2).

Per design: one overhead frame of the full 54-card deck laid face up in six rows
(``vision.synth``, real artwork, cards slightly askew), at the camera's ``--ppm`` on the table.
Reported: cards found, named by the zero-shot reader without a question, questions (the operator
then answers them: here, the truth), named wrong (must be 0), the machine's time; then per-card
reading of ``--plays`` rendered plays of that design with the enrolment, against zero-shot.

    .venv/bin/python benchmarks/enroll_table_bench.py --designs anglo ornamental --plays 100

Speed and accuracy are measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from vision.cardnet.enrol import enroll
from vision.cardnet.read import read_play
from vision.cards import ALL_CARDS
from vision.enroll_table import FoundCard, enrol_from_frames
from vision.geometry import default_layout
from vision.synth import CameraView, LooseCard, TableRenderer, TableScene, render_zone

#: Six rows of nine, a finger's gap between cards (65 mm wide cards turned 4° need ~15 mm).
COLS, X0, DX, Y0, DY = 9, 130.0, 80.0, 120.0, 115.0


def truth(c: FoundCard) -> str:
    col, row = round((c.centre_mm[0] - X0) / DX), round((c.centre_mm[1] - Y0) / DY)
    return ALL_CARDS[row * COLS + col]


def reading(design: str, e: object | None, plays: int, seed: int) -> tuple[float, float, float, float]:
    """(per card %, silent-wrong plays %, uncertain plays %, ms per zone) over ``plays`` plays."""
    rng = np.random.default_rng(seed)
    right = total = silent = unsure = 0
    ms = 0.0
    for k in range(plays):
        cards = [str(c) for c in rng.choice(ALL_CARDS, int(rng.integers(1, 9)), replace=False)]
        img = render_zone(cards, design, 3.0, seed=seed + k).image
        t0 = time.perf_counter()
        r = read_play(img, 3.0, enrollment=e)  # type: ignore[arg-type]
        ms += (time.perf_counter() - t0) * 1000
        total += len(cards)
        if r.uncertain:
            unsure += 1
        elif r.cards != cards:
            silent += 1
        right += sum(a == b for a, b in zip(r.cards, cards, strict=False)) if not r.uncertain else 0
    return 100.0 * right / total, 100.0 * silent / plays, 100.0 * unsure / plays, ms / plays


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--designs", nargs="+", default=["anglo", "ornamental", "tango_nuevo"], help="gnome-cards-data designs")
    ap.add_argument("--ppm", type=float, default=2.0, help="camera px/mm on the table (4K over 900 mm: ~2.1)")
    ap.add_argument("--plays", type=int, default=100, help="plays read per design after enrolment")
    ap.add_argument("--seed", type=int, default=int(time.time()) % 100000, help="render seed (default: fresh)")
    args = ap.parse_args()
    print(f"# enroll_table_bench ppm {args.ppm} plays {args.plays} seed {args.seed} on {platform.node()} "
          f"({os.cpu_count()} cores)")
    layout = default_layout()
    cam = CameraView(size=(int(1000 * args.ppm), int(1000 * args.ppm)), px_per_mm=args.ppm, tilt_px=20,
                     rotation_deg=1.0, seed=3)
    for design in args.designs:
        rng = np.random.default_rng(args.seed)
        r = TableRenderer(layout, design, cam, seed=args.seed)
        loose = [LooseCard(c, X0 + DX * (i % COLS) + rng.uniform(-3, 3), Y0 + DY * (i // COLS) + rng.uniform(-3, 3),
                           rng.uniform(-4, 4)) for i, c in enumerate(ALL_CARDS)]
        frame = r.render(TableScene({}, (), loose), seed=args.seed)
        res = enrol_from_frames([frame], ask=truth, layout=layout)
        auto = [c for c in res.cards if not c.asked]
        wrong = sum(c.name != truth(c) for c in auto if c.name is not None)
        t0 = time.perf_counter()
        e = enroll(res.faces, px_per_mm=3.0)
        fit_s = time.perf_counter() - t0
        missing = sorted(set(ALL_CARDS) - {truth(c) for c in res.cards})
        print(f"{design}: found {len(res.cards)}/54, named by the reader {len(auto)}, asked {res.questions}, "
              f"named wrong {wrong}, find+name {res.seconds:.1f} s, enrol fit {fit_s:.1f} s, skipped {sorted(e.skipped)}"
              + (f", not found {' '.join(missing)}" if missing else "")
              + (f", {len(res.joined)} places where cards touch" if res.joined else ""))
        for label, enr in (("zero-shot", None), ("enrolled", e)):
            pc, sw, un, ms = reading(design, enr, args.plays, args.seed + 1000)
            print(f"  {label:9s}: per card {pc:.2f} %, silent-wrong plays {sw:.2f} %, uncertain plays {un:.1f} %, "
                  f"{ms:.1f} ms per zone")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
