"""Rules engine speed: ``classify`` µs per play, ``legal_plays`` ms per 27-card hand.

Run: ``.venv/bin/python benchmarks/rules_bench.py [--hands 300]``. Prints a Markdown table for
docs/performance.md. Hands are random 27-card hands forced to hold 0, 1 or 2 heart level cards.
"""

from __future__ import annotations

import argparse
import platform
import random
import statistics
import time

from table_service.rules.cards import RANKS, card, full_deck
from table_service.rules.legal import legal_plays
from table_service.rules.patterns import classify


def hand_with_wilds(rng: random.Random, level: str, wilds: int) -> list:
    wild = card(level, "h")
    rest = [c for c in full_deck() if c != wild]
    return rng.sample(rest, 27 - wilds) + [wild] * wilds


def pct(xs: list[float], q: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    print(f"machine: {platform.machine()} {platform.processor() or ''} Python {platform.python_version()}")
    print("| case | median | p95 | plays returned (median) |")
    print("|---|---|---|---|")
    samples = []
    for wilds in (0, 1, 2):
        times, counts = [], []
        for _ in range(args.hands):
            level = rng.choice(RANKS)
            hand = hand_with_wilds(rng, level, wilds)
            t0 = time.perf_counter()
            plays = legal_plays(hand, level)
            times.append((time.perf_counter() - t0) * 1000)
            counts.append(len(plays))
            samples.extend(rng.sample(plays, min(20, len(plays))))
        print(
            f"| legal_plays, 27 cards, {wilds} wild | {statistics.median(times):.2f} ms | "
            f"{pct(times, 0.95):.2f} ms | {int(statistics.median(counts))} |"
        )
    # following: legal plays that beat a random previous play
    times = []
    for _ in range(args.hands):
        level = rng.choice(RANKS)
        hand = hand_with_wilds(rng, level, 2)
        prev = rng.choice(samples)
        prev = classify(list(prev.cards), level)[0] if classify(list(prev.cards), level) else None
        t0 = time.perf_counter()
        legal_plays(hand, level, prev)
        times.append((time.perf_counter() - t0) * 1000)
    print(f"| legal_plays following a play, 2 wild | {statistics.median(times):.2f} ms | {pct(times, 0.95):.2f} ms | |")
    plays = [(list(p.cards), p.level) for p in samples]
    rng.shuffle(plays)
    t0 = time.perf_counter()
    for cs, lv in plays:
        classify(cs, lv)
    per = (time.perf_counter() - t0) / len(plays) * 1e6
    sizes = statistics.mean(len(cs) for cs, _ in plays)
    print(f"| classify, {len(plays)} random plays (mean {sizes:.1f} cards) | {per:.1f} µs/play | | |")


if __name__ == "__main__":
    main()
