"""Brute-force references written without the implementation: every perfect matching of a small
field, and the standings columns counted straight from the rules file's wording."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

WIN, DRAW, LOSS, BYE_PTS = 2, 1, 0, 2


def matchings(items: list[str]) -> Iterator[list[tuple[str, str]]]:
    """Every perfect matching of an even-sized list."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for i, other in enumerate(rest):
        for m in matchings(rest[:i] + rest[i + 1:]):
            yield [(first, other), *m]


def _decide(per: dict[str, dict[int, int]], col: dict[str, dict[str, int]], rnd: int,
            a: tuple[str, int], b: tuple[str, int]) -> None:
    """One match of round ``rnd`` decided by the (team, score) pairs: a draw, or a win and a loss."""
    if a[1] == b[1]:
        per[a[0]][rnd] = per[b[0]][rnd] = DRAW
    else:
        w, lo = (a[0], b[0]) if a[1] > b[1] else (b[0], a[0])
        per[w][rnd], per[lo][rnd] = WIN, LOSS
        col[w]["rounds_won"] += 1


def _with_running_totals(col: dict[str, dict[str, int]], per: dict[str, dict[int, int]], teams: list[str],
                         rounds: int) -> dict[str, dict[str, int]]:
    """Match points summed over the rounds, and progressive points: the running totals after round 1."""
    for t in teams:
        running = [sum(per[t].get(k, 0) for k in range(1, j + 1)) for j in range(1, rounds + 1)]
        col[t]["match_points"] = running[-1] if running else 0
        col[t]["progressive"] = sum(running[1:])
    return col


def columns(results: list[dict[str, Any]], teams: list[str]) -> dict[str, dict[str, int]]:
    """Match points, progressive points (round 1 cut), rounds won, 级差分, levels, from JSON lines."""
    rounds = max((r["round"] for r in results), default=0)
    per: dict[str, dict[int, int]] = {t: {} for t in teams}
    col = {t: {"rounds_won": 0, "level_points": 0, "levels_gained": 0} for t in teams}
    for r in results:
        if "bye" in r:
            per[r["bye"]][r["round"]] = BYE_PTS
            col[r["bye"]]["rounds_won"] += 1
            col[r["bye"]]["level_points"] += 13
            continue
        a, b = r["ns"], r["ew"]
        la, lb = r.get("ns_levels", 0), r.get("ew_levels", 0)
        col[a]["levels_gained"] += la
        col[b]["levels_gained"] += lb
        if r.get("forfeit"):
            loser, winner = (a, b) if r["forfeit"] == "ns" else (b, a)
            per[winner][r["round"]], per[loser][r["round"]] = WIN, 0
            col[winner]["rounds_won"] += 1
            col[winner]["level_points"] += 17
            continue
        if "ns_score" in r:
            sa, sb = r["ns_score"], r["ew_score"]
            pa, pb = sa, sb
        else:
            sa, sb = la, lb
            d = min(13, abs(la - lb))
            pa, pb = (13 + d, 13 - d) if la >= lb else (13 - d, 13 + d)
        col[a]["level_points"] += pa
        col[b]["level_points"] += pb
        _decide(per, col, r["round"], (a, sa), (b, sb))
    return _with_running_totals(col, per, teams, rounds)


def duplicate_columns(results: list[dict[str, Any]], teams: list[str], compare: str) -> dict[str, dict[str, int]]:
    """Duplicate play: the two rooms of a match summed per team, then compared (by total levels or
    total 级差分); a forfeit at either table loses the match for the side that forfeited."""
    rounds = max((r["round"] for r in results), default=0)
    per: dict[str, dict[int, int]] = {t: {} for t in teams}
    col = {t: {"rounds_won": 0, "level_points": 0, "levels_gained": 0} for t in teams}
    matches: dict[tuple[int, frozenset[str]], list[dict[str, Any]]] = {}
    for r in results:
        matches.setdefault((r["round"], frozenset((r["ns"], r["ew"]))), []).append(r)
    for (rnd, pair), tables in matches.items():
        if len(tables) != 2:
            continue
        lv = dict.fromkeys(pair, 0)
        ldp = dict.fromkeys(pair, 0)
        gone = set()
        for r in tables:
            a, b = r["ns"], r["ew"]
            lv[a] += r["ns_levels"]
            lv[b] += r["ew_levels"]
            if r.get("forfeit"):
                loser = a if r["forfeit"] == "ns" else b
                gone.add(loser)
                ldp[b if loser == a else a] += 17
            else:
                d = min(13, abs(r["ns_levels"] - r["ew_levels"]))
                ldp[a] += 13 + d if r["ns_levels"] >= r["ew_levels"] else 13 - d
                ldp[b] += 13 + d if r["ew_levels"] > r["ns_levels"] else 13 - d
        x, y = sorted(pair)
        for t in pair:
            col[t]["levels_gained"] += lv[t]
            col[t]["level_points"] += ldp[t]
        if gone:
            for t in pair:
                won = t not in gone
                per[t][rnd] = WIN if won else 0
                col[t]["rounds_won"] += won
            continue
        key = lv if compare == "levels" else ldp
        _decide(per, col, rnd, (x, key[x]), (y, key[y]))
    return _with_running_totals(col, per, teams, rounds)
