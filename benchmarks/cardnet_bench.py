"""The card-first reader on designs it never saw, zero-shot and enrolled.

    nice .venv/bin/python benchmarks/cardnet_bench.py --plays 40 --seed 2026 --out /tmp/cardnet.json
    nice .venv/bin/python benchmarks/cardnet_bench.py --timing      # CPU ms of one 10-card zone

(The side-by-side run with the glyph-blob reader it replaced, ``--old``, was made at commit 1b05b6d,
the last that held both: docs/performance.md.)

Designs: :data:`vision.artwork.HELD_OUT_DESIGNS` (never trained on; ``--designs`` for others, or a few of them:
a held-out design draws the same plays alone as in the whole run, so one seen there can be replayed by itself).
Plays: 1-10 random cards (each at most twice; a quarter of plays are lone cards), or with ``--shapes``
the shapes players lay (a pattern of a hand dealt at a random level, kinds in the shares of
:data:`KIND_SHARE`, and one play in :data:`UNLAWFUL_EVERY` random cards, as a player's mistake), rendered by
:func:`vision.synth.render_zone` with play's realism (overlap 12-25 mm, rotation ±6°, gradients,
glare, cast, blur, noise, JPEG, rectification error) at 2, 3 and 4 px/mm.

Per design, scale and mode: per-card accuracy (aligned by position when the count is right, else by
longest common subsequence), plays read exactly, silent-wrong plays (wrong and not asked), plays
asked, P(right | not asked) and P(right | asked), lone-card figures, and CPU ms per 10-card zone; pooled over
the designs, and again without those of ``--apart`` (tango_nuevo by default).
Enrolled: the deck's head fitted from its 54 faces photographed flat (enrolment time reported).
Each head reads every play twice: alone, and with the play's shape weighed ("+ shape":
:mod:`vision.cardnet.shape`, the rules' ``is_pattern`` at the play's level); plays that are no pattern
are counted apart (``unlawful``).  ``--no-enrol``: zero-shot only.
``--leave-out N``: the enrolment is given all but N faces (chosen by the seed, as a table's enrolment
misses a card or a deck comes without jokers); a third mode, "enrolled, unknown as own", reads with
the same head as if it had been fitted on every face (what the reader did before
:attr:`vision.cardnet.head.Head.known`), and the plays holding a left-out card are counted apart.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.vision_bench import lcs, photographed_faces

#: The kinds of play in ``--shapes``, as shares of a deal's plays (an estimate of play at a
#: competition: singles and pairs most, bombs common late in a deal).
KIND_SHARE = {"single": 0.33, "pair": 0.22, "triple": 0.05, "full_house": 0.12, "straight": 0.07,
              "three_pairs": 0.04, "two_triples": 0.03, "bomb": 0.10, "straight_flush": 0.03, "joker_bomb": 0.01}
#: In ``--shapes``, one play in this many is random cards (mostly no pattern: a player's mistake).
UNLAWFUL_EVERY = 20


def draw_play(rng: np.random.Generator, shapes: bool = False) -> tuple[list[str], str]:
    """A play's cards in the order laid, and the deal's level."""
    from table_service.rules.cards import RANKS
    from table_service.rules.legal import legal_plays
    from vision.training.data import play_size, random_cards

    if not shapes:  # the plays of the figures before --shapes, seed for seed (level 2 for "+ shape")
        return random_cards(rng, play_size(rng)), "2"
    level = str(RANKS[int(rng.integers(len(RANKS)))])
    if rng.integers(UNLAWFUL_EVERY) == 0:
        return random_cards(rng, play_size(rng)), level
    kinds = list(KIND_SHARE)
    while True:
        hand = random_cards(rng, 27)
        kind = kinds[int(rng.choice(len(kinds), p=np.array(list(KIND_SHARE.values())) / sum(KIND_SHARE.values())))]
        plays = sorted({tuple(sorted(str(c) for c in p.cards)) for p in legal_plays(" ".join(hand), level)
                        if p.kind == kind})
        if plays:
            cards = list(plays[int(rng.integers(len(plays)))])
            rng.shuffle(cards)
            return cards, level


def _score(st: dict, truth: list[str], r, ms: float, left_out: frozenset[str] = frozenset(),
           unlawful: bool = False) -> None:
    if unlawful:
        st["unlawful_plays"] += 1
        st["unlawful_asked"] += r.uncertain
        st["unlawful_silent"] += r.cards != truth and not r.uncertain
    if left_out & set(truth):
        exact = r.cards == truth
        st["left_out_plays"] += 1
        st["left_out_asked"] += r.uncertain
        st["left_out_silent"] += (not exact) and not r.uncertain
    st["plays"] += 1
    st["cards"] += len(truth)
    if len(r.cards) == len(truth):
        ok = sum(a == b for a, b in zip(r.cards, truth, strict=True))
    else:
        ok = lcs(r.cards, truth)
    st["cards_ok"] += ok
    exact = r.cards == truth
    st["exact"] += exact
    st["asked"] += r.uncertain
    for kind in {reason_kind(why) for why in r.reasons}:
        st["why"][kind] += 1
    st["silent"] += (not exact) and not r.uncertain
    if not exact and not r.uncertain:
        st["silent_plays"].append((truth, list(r.cards), [round(float(c), 3) for c in r.confidence]))
    st["right_not_asked"] += exact and not r.uncertain
    st["right_asked"] += exact and r.uncertain
    if len(truth) == 1:
        st["lone"] += 1
        st["lone_empty"] += len(r.cards) == 0 and not r.uncertain
        st["lone_asked"] += r.uncertain
        st["lone_silent"] += (not exact) and not r.uncertain
    if len(truth) == 10:
        st["ms10"].append(ms)
    st["ms"].append(ms)
    # For the bar's curve: the joint, whether anything but the joint doubted the play, and right or not.
    from vision.cardnet.read import is_low_confidence

    st["curve"].append((float(r.joint), any(not is_low_confidence(why) for why in r.reasons), exact))


def _new_stats() -> dict:
    return {k: 0 for k in ("plays", "cards", "cards_ok", "exact", "asked", "silent", "right_not_asked",
                           "right_asked", "lone", "lone_empty", "lone_asked", "lone_silent",
                           "left_out_plays", "left_out_asked", "left_out_silent",
                           "unlawful_plays", "unlawful_asked", "unlawful_silent")} | {"ms": [], "ms10": [], "curve": [],
                                                                  "silent_plays": [], "why": Counter()}


def reason_kind(why: str) -> str:
    """A doubt's kind: its English half, numbers, and what follows a colon or a bracket, left out."""
    return re.sub(r"\d+(\.\d+)?", "#", why.split(" / ", 1)[-1].split(":")[0].split(" (")[0]).strip()


def run(args: tuple[str, int, int, int, bool, bool, float | None]) -> dict:
    import cv2

    from table_service.rules.patterns import is_pattern
    from vision.cardnet.enrol import enrol_head
    from vision.cardnet.read import read_play
    from vision.synth import Realism, render_zone

    cv2.setNumThreads(1)
    design, plays, seed, leave_out, shapes, enrol, odds = args
    if odds is not None:
        from vision.cardnet import shape

        shape.ODDS = odds
    rng = np.random.default_rng(seed)
    t = time.process_time()
    heads: dict = {"zero-shot": None}
    gone: frozenset[str] = frozenset()
    if enrol:
        faces = photographed_faces(design, 3.0, seed)
        gone = frozenset(str(c) for c in rng.choice(sorted(faces), leave_out, replace=False)) if leave_out else frozenset()
        head, _ = enrol_head({c: f for c, f in faces.items() if c not in gone}, seed=seed, name=design)
        heads |= {"enrolled": head} | ({"enrolled, unknown as own": head.knowing(None)} if gone else {})
    enrol_s = time.process_time() - t
    out: dict = {"design": design, "enrol_cpu_s": enrol_s, "left_out": sorted(gone), "by": {}}
    for ppm in (2.0, 3.0, 4.0):
        modes = {f"{mode}{shaped}": _new_stats() for mode in heads for shaped in ("", " + shape")}
        for _ in range(plays):
            truth, level = draw_play(rng, shapes)
            unlawful = not is_pattern(truth, level)
            z = render_zone(truth, design, px_per_mm=ppm, seed=int(rng.integers(1 << 31)), realism=Realism())
            for mode, st in modes.items():
                shaped = mode.endswith(" + shape")
                t = time.process_time()
                r = read_play(z.image, ppm, heads[mode.removesuffix(" + shape")],
                              lawful=(lambda cards, level=level: is_pattern(cards, level)) if shaped else None)
                _score(st, truth, r, (time.process_time() - t) * 1000, gone, unlawful)
        out["by"][str(ppm)] = modes
    return out


def summarise(results: list[dict]) -> dict:
    table: dict = {}
    for res in results:
        for ppm, modes in res["by"].items():
            for mode, st in modes.items():
                key = (mode, res["design"], ppm)
                table[key] = st
    return table


def fmt(st: dict) -> str:
    p = max(st["plays"], 1)
    na = st["plays"] - st["asked"]
    return (f"card {st['cards_ok'] / max(st['cards'], 1):7.2%}  exact {st['exact'] / p:7.2%}  "
            f"silent {st['silent'] / p:6.2%}  asked {st['asked'] / p:6.2%}  "
            f"P(ok|not asked) {st['right_not_asked'] / max(na, 1):7.2%}  P(ok|asked) {st['right_asked'] / max(st['asked'], 1):6.2%}  "
            f"lone {st['lone']:3d} empty {st['lone_empty']} asked {st['lone_asked']} silent {st['lone_silent']}  "
            f"ms10 {np.median(st['ms10']) if st['ms10'] else float('nan'):5.1f}"
            + (f"  with a left-out card: {st['left_out_plays']} plays, asked {st['left_out_asked']}, "
               f"silent {st['left_out_silent']}" if st["left_out_plays"] else "")
            + (f"  no pattern: {st['unlawful_plays']} plays, asked {st['unlawful_asked']}, "
               f"silent {st['unlawful_silent']}" if st["unlawful_plays"] else ""))


#: Bars the curve is printed for (``PLAY_BAR`` is chosen from it: docs/performance.md).
CURVE_BARS = (0.9, 0.95, 0.97, 0.98, 0.99)


def curve(plays: list) -> str:
    """Plays asked and silently wrong had the bar been each of :data:`CURVE_BARS`.

    Exact for bars at or above the one the run was read with; below it, a play whose far corner
    was not read (it is read only above the bar) may be counted sure where it would be doubted.
    """
    out = []
    for bar in CURVE_BARS:
        asked = [other or joint < bar for joint, other, _ in plays]
        silent = sum(1 for a, (_, _, ok) in zip(asked, plays, strict=True) if not a and not ok)
        out.append(f"{bar}: asked {np.mean(asked) if plays else 0:.1%} silent {silent}")
    return f"{'; '.join(out)} (of {len(plays)} plays)"


def _interleaved(reads: dict, n: int = 20) -> dict:
    """CPU ms of each read in ``reads``, taken in turn ``n + 1`` times; the first of each is left out
    (it loads its network)."""
    cpu: dict = {key: [] for key in reads}
    for k in range(n + 1):
        for key, read in reads.items():
            t = time.process_time()
            read()
            if k:
                cpu[key].append((time.process_time() - t) * 1000)
    return cpu


def time_reads() -> None:
    """CPU ms of one 10-card zone on one thread (cv2 and BLAS held to one), in this process alone; the
    networks on ONNX Runtime (shipped, where installed) and on OpenCV's engines (where it is not),
    interleaved read by read (the shipped one first)."""
    import cv2

    from table_service.rules.patterns import is_pattern
    from vision.cardnet import nets
    from vision.cardnet.read import read_play
    from vision.synth import render_zone

    cv2.setNumThreads(1)
    names = ("detector", "embedder", "body", "index_suit")
    shipped = {n: getattr(nets, n) for n in names}
    opencv = {n: nets.Runner(r.path, r.engine, runtime="opencv", outputs=r.outputs) for n, r in shipped.items()}
    cards = ["3s", "4h", "5d", "6c", "7s", "8h", "9d", "Tc", "Js", "Qh"]
    for ppm in (2.0, 3.0, 4.0):
        z = render_zone(cards, "neoclassical", ppm, seed=1)

        def on(runners: dict, img: np.ndarray = z.image, ppm: float = ppm) -> None:
            for n, r in runners.items():
                setattr(nets, n, r)
            read_play(img, ppm)

        cpu = _interleaved({"shipped": lambda: on(shipped), "opencv": lambda: on(opencv)})
        for n, r in shipped.items():  # the shipped runners back for the reads below
            setattr(nets, n, r)
        print(f"10-card zone at {ppm} px/mm: {np.median(cpu['shipped']):.1f} ms CPU (median of 20; the networks on "
              f"{shipped['embedder'].ran_by}, shipped), {np.median(cpu['opencv']):.1f} ms on OpenCV alone")
    # The longest play there is, read with its shape weighed: a 10-card bomb (eight 9s, the level's two
    # hearts wild), whose suits give the most readings to weigh.
    bomb = ["9s", "9h", "9d", "9c", "2h", "9s", "9h", "9d", "9c", "2h"]
    for ppm in (2.0, 3.0, 4.0):
        z = render_zone(bomb, "neoclassical", ppm, seed=1)
        cpu_s = _interleaved({False: lambda img=z.image, ppm=ppm: read_play(img, ppm),
                              True: lambda img=z.image, ppm=ppm: read_play(img, ppm, lawful=lambda c: is_pattern(c, "2"))})
        print(f"10-card bomb at {ppm} px/mm: {np.median(cpu_s[False]):.1f} ms CPU alone, "
              f"{np.median(cpu_s[True]):.1f} ms with its shape weighed (median of 20)")
    # The body strip is read only for cards whose index left doubt: a zone of a design the reader is
    # unsure of (plastic's small suit pips) costs the most; read with the strip and with it switched off.
    from vision.cardnet import body

    look = body.LOOK_BELOW
    for ppm in (2.0, 3.0, 4.0):
        z = render_zone(cards, "plastic", ppm, seed=1)

        def with_body(on: bool, img: np.ndarray = z.image, ppm: float = ppm) -> None:
            body.LOOK_BELOW = look if on else 0.0
            read_play(img, ppm)

        cpu_b = _interleaved({True: lambda: with_body(True), False: lambda: with_body(False)})
        body.LOOK_BELOW = look
        print(f"10-card zone of plastic at {ppm} px/mm: {np.median(cpu_b[True]):.1f} ms CPU with the body strip "
              f"read where the index left doubt, {np.median(cpu_b[False]):.1f} ms without (median of 20)")
    # The look around a doubted card's corner (read._look_around) runs only in a play that would be
    # asked: both zones are such plays (neoclassical has four cards under 0.999, plastic most of them).
    from vision.cardnet import read

    around = read._look_around
    for design in ("neoclassical", "plastic"):
        for ppm in (2.0, 3.0, 4.0):
            z = render_zone(cards, design, ppm, seed=1)

            def with_around(on: bool, img: np.ndarray = z.image, ppm: float = ppm) -> None:
                read._look_around = around if on else (lambda *a: a[-1])
                read_play(img, ppm)

            cpu_a = _interleaved({True: lambda: with_around(True), False: lambda: with_around(False)})
            read._look_around = around
            print(f"10-card zone of {design} at {ppm} px/mm: {np.median(cpu_a[True]):.1f} ms CPU with the look "
                  f"around doubted corners, {np.median(cpu_a[False]):.1f} ms without (median of 20)")


def main() -> None:
    from vision.artwork import HELD_OUT_DESIGNS

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--plays", type=int, default=60, help="plays per design and scale")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--designs", nargs="*", default=None)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--timing", action="store_true", help="only the CPU time of one 10-card zone")
    ap.add_argument("--show-silent", action="store_true", help="print each silently wrong play")
    ap.add_argument("--leave-out", type=int, default=0, help="faces left out of each enrolment (0-50)")
    ap.add_argument("--shapes", action="store_true", help="plays are the shapes players lay (module docstring)")
    ap.add_argument("--no-enrol", action="store_true", help="zero-shot only")
    ap.add_argument("--odds", type=float, default=None, help="the shape's ODDS for this run (vision.cardnet.shape)")
    ap.add_argument("--apart", nargs="*", default=["tango_nuevo"],
                    help="designs also left out of a second pooled line (default tango_nuevo: its corner prints no "
                         "suit, so every play is asked whatever the reader does)")
    a = ap.parse_args()
    if a.timing:
        time_reads()
        return
    designs = a.designs or list(HELD_OUT_DESIGNS)
    t0 = time.time()
    if not 0 <= a.leave_out <= 50:
        ap.error("--leave-out must be 0-50")
    # A held-out design draws the plays it draws in the whole run (its place in HELD_OUT_DESIGNS), so
    # ``--designs tango`` replays what the full run showed of tango; another design, its place here.
    jobs = [(d, a.plays, a.seed * 1000 + (HELD_OUT_DESIGNS.index(d) if d in HELD_OUT_DESIGNS else k), a.leave_out,
             a.shapes, not a.no_enrol, a.odds) for k, d in enumerate(designs)]
    with ProcessPoolExecutor(a.workers) as ex:
        results = list(ex.map(run, jobs))
    table = summarise(results)
    modes = sorted({k[0] for k in table})
    for mode in modes:
        print(f"== {mode}")
        pooled, rest = _new_stats(), _new_stats()
        for (m, d, ppm), st in sorted(table.items()):
            if m != mode:
                continue
            print(f"  {d:22s} {ppm} px/mm  {fmt(st)}")
            for truth, read, conf in st["silent_plays"] if a.show_silent else ():
                print(f"      silent: {' '.join(truth)} read as {' '.join(read)} at {conf}")
            for k, v in st.items():
                pooled[k] = pooled[k] + v
                if d not in a.apart:
                    rest[k] = rest[k] + v
        print(f"  {'POOLED':22s}          {fmt(pooled)}")
        if set(a.apart) & set(designs):
            print(f"  {'POOLED without ' + ' '.join(a.apart):31s} {fmt(rest)}")
        print("  the bar's curve (pooled): " + curve(pooled["curve"]))
        print("  plays asked, by doubt (pooled; a play may have several): "
              + "; ".join(f"{k} {v}" for k, v in pooled["why"].most_common()))
    for r in results:
        print(f"enrolment {r['design']}: {r['enrol_cpu_s']:.0f} s CPU"
              + (f", without {' '.join(r['left_out'])}" if r["left_out"] else ""))
    print(f"seed {a.seed}, {a.plays} plays per design and scale, {time.time() - t0:.0f} s wall")
    if a.out:
        a.out.write_text(json.dumps({"seed": a.seed, "plays": a.plays, "results": results}, default=float))


if __name__ == "__main__":
    main()
