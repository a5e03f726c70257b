"""A table on a deck nobody enrolled, learning it while it plays: plays asked, deal by deal.

    nice .venv/bin/python benchmarks/cardnet_learn_bench.py --design tango --deals 6 --seed 3

Each deal is ``--plays`` plays (1-10 cards, a quarter lone cards, as :mod:`vision.training.data`
draws them; with ``--shapes`` the shapes players lay, read with the shape weighed, as
``cardnet_bench.py --shapes`` draws them) of a design never trained on, rendered at 2-4 px/mm with play's realism, read as the
table reads them: with :meth:`vision.watcher.TableWatcher.reading_head`'s learner.  A play read
without a question teaches the learner its sure cards; a play asked is answered by the referee
(the truth) and that answer is taught when the reading found as many cards.  Printed per deal:
plays asked, plays silently wrong, labels learned so far, and the head in use (its temperature).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    import cv2

    from benchmarks.cardnet_bench import draw_play
    from table_service.rules.patterns import is_pattern
    from vision.cardnet.enrol import seen_face_crops
    from vision.cardnet.online import PlayLearner
    from vision.cardnet.read import default_head, read_play
    from vision.synth import Realism, render_zone

    cv2.setNumThreads(1)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--design", default="tango")
    ap.add_argument("--deals", type=int, default=6)
    ap.add_argument("--plays", type=int, default=40, help="plays per deal")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--sync", action="store_true",
                    help="wait for each refit before the next play: a run repeats exactly (the table refits "
                         "in a thread, so two plain runs of a seed differ), for comparing two versions")
    ap.add_argument("--ppm", type=float, default=None,
                    help="the table camera's px/mm, the same for every play as at a real table (default: each "
                         "play at 2, 3 or 4 px/mm, drawn: one head learns three cameras at once)")
    ap.add_argument("--no-faces", action="store_true",
                    help="learn from the labels alone, not also from zones rendered from the lone cards seen whole")
    ap.add_argument("--shapes", action="store_true", help="plays are the shapes players lay, read with the shape weighed")
    ap.add_argument("--no-weigh", action="store_true", help="with --shapes: the same plays read without their shape weighed")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    learner = PlayLearner(default_head(), render=None if a.no_faces else seen_face_crops)
    t0 = time.time()
    print(f"design {a.design}, {a.plays} plays a deal, seed {a.seed}, "
          f"{'2-4 px/mm drawn per play' if a.ppm is None else f'{a.ppm} px/mm'}")
    for deal in range(1, a.deals + 1):
        asked = silent = 0
        for _ in range(a.plays):
            truth, level = draw_play(rng, a.shapes)
            ppm = float(rng.choice([2.0, 3.0, 4.0]))  # drawn either way: the same plays with --ppm
            ppm = ppm if a.ppm is None else a.ppm
            z = render_zone(truth, a.design, px_per_mm=ppm, seed=int(rng.integers(1 << 31)), realism=Realism())
            r = read_play(z.image, ppm, learner.head,
                          lawful=(lambda cards, level=level: is_pattern(cards, level)) if a.shapes and not a.no_weigh else None)
            if r.uncertain:
                asked += 1
                learner.learn_answer(r.embeddings, truth, r.none_embeddings, r.face)
            else:
                silent += r.cards != truth
                if r.cards != truth:
                    print(f"  silent: {' '.join(truth)} read as {' '.join(r.cards)} at "
                          f"{[round(float(c), 3) for c in r.confidence]}", flush=True)
                learner.learn_read(r.embeddings, r.cards, r.confidence, r.uncertain, r.face)
            if a.sync:
                learner.wait()
        learner.wait()
        print(f"deal {deal}: asked {asked / a.plays:6.1%}  silent-wrong {silent / a.plays:5.1%}  "
              f"labels: {learner.answers} from answers, {learner.sure} from sure reads, faces seen {len(learner.faces)}  "
              f"head: {'learned' if learner.head is not learner.start else 'start'}, T {learner.head.temperature:.3f}",
              flush=True)
    print(f"{time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
