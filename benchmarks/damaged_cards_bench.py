"""Cards whose corner indices are gone (a worn deck, a sticker): asked, or silently misread?

    nice .venv/bin/python benchmarks/damaged_cards_bench.py --plays 24 --seed 5
    nice .venv/bin/python benchmarks/damaged_cards_bench.py --plays 24 --seed 5 --at last

For each design, ``--plays`` rows of 1-6 cards, one of them with both indices rubbed off
(:func:`vision.synth.rub_indices`) at a random place in the row (``--at first`` / ``last``: there), rendered at 2-4 px/mm with
play's realism; then ``--plays`` lone rubbed cards. Printed: rows asked, read right, and
silently wrong (with the row), and where in the row the silent ones lay. No reader can name
such a card; the property wanted is that it is never silent.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

DESIGNS = ("anglo", "tigullio", "neoclassical", "plastic", "tango", "paris")


def main() -> None:
    import cv2

    from vision.artwork import Deck, load_deck
    from vision.cardnet.read import read_play
    from vision.cards import ALL_CARDS
    from vision.synth import Realism, render_zone, rub_indices

    cv2.setNumThreads(1)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plays", type=int, default=24, help="rows (and lone cards) per design")
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--designs", nargs="*", default=list(DESIGNS))
    ap.add_argument("--at", choices=("any", "first", "last"), default="any", help="where in the row the worn card lies")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    totals = {"row": [0, 0, 0], "lone": [0, 0, 0]}  # asked, right, silent
    ends = middles = 0
    for design in a.designs:
        deck = rub_indices(load_deck(design), ALL_CARDS)  # every face worn; the others come clean
        clean = load_deck(design)
        for kind in ("row", "lone"):
            for _ in range(a.plays):
                n = 1 if kind == "lone" else int(rng.integers(2, 7))
                cards = [ALL_CARDS[int(i)] for i in rng.integers(0, 54, n)]
                worn_at = int(rng.integers(n))
                worn_at = {"any": worn_at, "first": 0, "last": n - 1}[a.at]
                ppm = float(rng.choice([2.0, 3.0, 4.0]))
                faces = dict(clean.faces)
                faces[cards[worn_at]] = deck.faces[cards[worn_at]]
                mixed = Deck(design, faces, clean.size_mm)
                zone = render_zone(cards, mixed, ppm, seed=int(rng.integers(1 << 31)), realism=Realism())
                r = read_play(zone.image, ppm)
                t = totals[kind]
                if r.uncertain:
                    t[0] += 1
                elif r.cards == cards:
                    t[1] += 1
                else:
                    t[2] += 1
                    end = worn_at in (0, n - 1)
                    ends += end
                    middles += not end
                    print(f"  silent: {design} {ppm:g} px/mm, {cards} (worn #{worn_at + 1} of {n}) read {r.cards}")
    for kind, (asked, right, silent) in totals.items():
        n = asked + right + silent
        print(f"{kind:4s}: {n} plays, asked {asked} ({asked / n:.1%}), right unasked {right}, silent-wrong {silent}")
    print(f"silent rows with the worn card at an end of the row: {ends}, in the middle: {middles}")


if __name__ == "__main__":
    main()
