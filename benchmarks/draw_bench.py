"""Swiss pairing speed: 1,000 teams over 7 rounds (goal: under a second a round).

Each round is drawn from the results so far (random levels, 30 % of tables drawn), then played;
``--no-shows P``: that share of tables one side forfeits (17 : 0), so the next round's bye must pass
over the no-shows at the bottom of the standings.
For comparison, ``--complete N`` times one networkx max-weight matching on the complete graph of
N teams with the same weights — the reason the draw only solves the places where the adjacent
pairing has a rematch (see ``table_service/event/draw.py``).

    .venv/bin/python benchmarks/draw_bench.py --teams 1000 --rounds 7 --complete 200

Speed is measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import networkx as nx

from table_service.event.draw import pairing_cost_scales, swiss
from table_service.event.model import Result


def complete_matching_s(n: int, seed: int) -> float:
    rng = random.Random(seed)
    mp = [rng.randint(0, 8) for _ in range(n)]
    big_r, _no_show, _bye, g = pairing_cost_scales(n, 8)
    graph = nx.Graph()
    for i in range(n):
        for j in range(i + 1, n):
            graph.add_edge(i, j, weight=big_r - g * abs(mp[i] - mp[j]) - (j - i))
    t = time.perf_counter()
    nx.max_weight_matching(graph, maxcardinality=True)
    return time.perf_counter() - t


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--teams", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--complete", type=int, nargs="*", default=[100, 200])
    ap.add_argument("--no-shows", type=float, default=0.0, help="share of tables one side forfeits")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    teams = [f"T{i:04d}" for i in range(args.teams)]
    results: list[Result] = []
    times, rematches, regions, passed, no_show_byes = [], 0, [], [], 0
    for rnd in range(1, args.rounds + 1):
        t = time.perf_counter()
        d = swiss(teams, results, seed=args.seed)
        times.append(time.perf_counter() - t)
        rematches += d.info["rematches"]
        regions.append(len(d.info.get("regions", [])))
        passed.append(len(d.info.get("no_shows_passed", [])))
        no_show_byes += len(d.info.get("no_show_byes", []))
        for tb, ns, ew in d.tables:
            a = rng.randint(0, 13)
            b = a if rng.random() < 0.3 else rng.randint(0, 13)
            if args.no_shows and rng.random() < args.no_shows:  # no draw otherwise: the same stream as before
                results.append(Result(rnd, tb, ns, ew, forfeit=rng.choice(("ns", "ew"))))
            else:
                results.append(Result(rnd, tb, ns, ew, a, b))
        if d.bye:
            results.append(Result(rnd, "bye", d.bye, None))
    out = {"machine": f"{platform.node()} ({os.cpu_count()} cores) {platform.python_version()}",
           "teams": args.teams, "rounds": args.rounds, "per_round_s": [round(x, 3) for x in times],
           "median_s": round(statistics.median(times), 3), "max_s": round(max(times), 3),
           "rematches": rematches, "solved_regions_per_round": regions,
           "no_shows": args.no_shows, "no_shows_passed_per_round": passed, "no_show_byes": no_show_byes,
           "complete_graph_s": {n: round(complete_matching_s(n, args.seed), 2) for n in args.complete}}
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
