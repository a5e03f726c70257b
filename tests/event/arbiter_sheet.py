"""An arbiter's results sheet, recomputed by hand from /work/shared/rules-jiangsu.md alone.

Nothing here imports the hub: it reads RESULTS lines as plain dicts and does what an arbiter does with
a pencil. The rules text, "Levels and winning":

* "at the end the side with more levels gained wins" (a tie that the extra deal did not break is a
  draw); "Match points: win 2, draw 1, loss 0" (the common option 3/2/1/0 "with byes");
* "Ranking ties break by: progressive points (累进分: from round 2, the running total after each round,
  summed), rounds won, level-difference points, levels gained; then lots";
* "级差分 ... with level difference d (0–13), winner 13 + d, loser 13 − d. Forfeit: 17 : 0";
* "Loss 判负 ... scored as the offender's level + 4 ...": the line carries that fixed score
  (``ns_score``/``ew_score``), and the side with the higher score won the round.

Where the rules are silent the project's documented choices are taken (standings.py's
``ScoringOptions`` docstrings, model.py's module doc): a bye scores the scheme's bye points, 13 级差分
(a drawn table), no levels, and counts as a round won only when worth a win; both sides absent
(``forfeit: both``) score 0 : 0 and each a forfeit; a forfeit's levels gained are the line's (0 when
left out).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: The two match-point schemes the rules name: (win, draw, loss, forfeit, bye).
SCHEMES: dict[str, tuple[int, int, int, int, int]] = {
    "2-1-0": (2, 1, 0, 0, 2),
    "3-2-1-0": (3, 2, 1, 0, 3),
}

#: The columns in the rules' order of ranking.
COLUMNS = ("match_points", "progressive", "rounds_won", "level_points", "levels_gained")


def _round_entries(line: dict[str, Any], scheme: str) -> list[tuple[str, int, bool, int, int]]:
    """``(team, match points, won, 级差分, levels gained)`` for each team a line names."""
    win, draw, loss, forfeit, bye = SCHEMES[scheme]
    if "bye" in line:
        return [(line["bye"], bye, bye >= win, 13, 0)]
    a, b = line["ns"], line["ew"]
    la, lb = line.get("ns_levels", 0), line.get("ew_levels", 0)
    gone = line.get("forfeit")
    if gone == "both":
        return [(a, forfeit, False, 0, la), (b, forfeit, False, 0, lb)]
    if gone in ("ns", "ew"):
        if gone == "ns":
            return [(a, forfeit, False, 0, la), (b, win, True, 17, lb)]
        return [(a, win, True, 17, la), (b, forfeit, False, 0, lb)]
    if "ns_score" in line:  # a penalty loss: the fixed score says who won
        pa, pb = line["ns_score"], line["ew_score"]
    else:
        d = abs(la - lb)
        pa, pb = 13 + (d if la > lb else -d), 13 + (d if lb > la else -d)
    if pa == pb:
        return [(a, draw, False, pa, la), (b, draw, False, pb, lb)]
    return [(a, win if pa > pb else loss, pa > pb, pa, la), (b, win if pb > pa else loss, pb > pa, pb, lb)]


def _match_entries(tables: list[dict[str, Any]], scheme: str, compare: str) -> list[tuple[str, int, bool, int, int]]:
    """Duplicate (复式): "the team result compares the two" rooms. Each team's 级差分 and levels are
    its two tables' together; a team that forfeited either table lost the match (both did: each a
    forfeit); else the match goes to the side ahead on the two tables' level gaps (``levels``: a
    table ended by a penalty loss counts the gap its fixed score says, d = (score − 13)) or on their
    级差分 together (``level_points``), level being a drawn match (docs/architecture.md, rules.md)."""
    win, draw, loss, forfeit, _bye = SCHEMES[scheme]
    x, y = tables[0]["ns"], tables[0]["ew"]
    ldp, lv, gap = {x: 0, y: 0}, {x: 0, y: 0}, {x: 0, y: 0}
    gone: set[str] = set()
    for line in tables:
        for team, _mp, _won, p, levels in _round_entries(line, scheme):
            ldp[team] += p
            lv[team] += levels
        a, b = line["ns"], line["ew"]
        if line.get("forfeit"):
            gone |= {a, b} if line["forfeit"] == "both" else {a if line["forfeit"] == "ns" else b}
        elif "ns_score" in line:
            gap[a] += line["ns_score"] - 13
            gap[b] += line["ew_score"] - 13
        else:
            gap[a] += line["ns_levels"] - line["ew_levels"]
            gap[b] += line["ew_levels"] - line["ns_levels"]
    if gone:
        out = {t: (forfeit, False) if t in gone else (win, True) for t in (x, y)}
    else:
        vx, vy = (gap[x], gap[y]) if compare == "levels" else (ldp[x], ldp[y])
        out = {x: (draw, False), y: (draw, False)} if vx == vy else \
            {x: (win, True), y: (loss, False)} if vx > vy else {x: (loss, False), y: (win, True)}
    return [(t, out[t][0], out[t][1], ldp[t], lv[t]) for t in (x, y)]


def _entries(lines: Sequence[dict[str, Any]], scheme: str, duplicate: str | None
             ) -> list[tuple[int, tuple[str, int, bool, int, int]]]:
    """``(round, entry)`` for every team's round: a table each, or in duplicate play a match of two
    tables each (a match with one room in does not count yet)."""
    if not duplicate:
        return [(x["round"], e) for x in lines for e in _round_entries(x, scheme)]
    out = [(x["round"], e) for x in lines if "bye" in x for e in _round_entries(x, scheme)]
    matches: dict[tuple[int, frozenset[str]], list[dict[str, Any]]] = {}
    for x in lines:
        if "bye" not in x:
            matches.setdefault((x["round"], frozenset((x["ns"], x["ew"]))), []).append(x)
    for (rnd, _pair), tables in matches.items():
        if len(tables) == 2:
            out += [(rnd, e) for e in _match_entries(tables, scheme, duplicate)]
    return out


def sheet(lines: Sequence[dict[str, Any]], teams: Sequence[str], scheme: str = "2-1-0",
          duplicate: str | None = None) -> dict[str, dict[str, int]]:
    """Every team's columns after the rounds the lines hold (a team absent from a round scores 0 in it)."""
    last = max((x["round"] for x in lines), default=0)
    per_round = {t: [0] * (last + 1) for t in teams}
    cols = {t: dict.fromkeys(COLUMNS, 0) for t in teams}
    for rnd, (team, mp, won, ldp, lv) in _entries(lines, scheme, duplicate):
        per_round[team][rnd] += mp
        cols[team]["rounds_won"] += won
        cols[team]["level_points"] += ldp
        cols[team]["levels_gained"] += lv
    for t in teams:
        running = 0
        for rnd in range(1, last + 1):
            running += per_round[t][rnd]
            if rnd >= 2:  # "from round 2": round 1's own total is cut
                cols[t]["progressive"] += running
        cols[t]["match_points"] = running
    return cols


def ranked_groups(lines: Sequence[dict[str, Any]], teams: Sequence[str], scheme: str = "2-1-0",
                  duplicate: str | None = None) -> list[list[str]]:
    """The ranking as groups: each group equal on every column (lots decide inside it), best first."""
    cols = sheet(lines, teams, scheme, duplicate)
    key = {t: tuple(cols[t][c] for c in COLUMNS) for t in teams}
    groups: dict[tuple[int, ...], list[str]] = {}
    for t in teams:
        groups.setdefault(key[t], []).append(t)
    return [sorted(groups[k]) for k in sorted(groups, reverse=True)]


def deciding_column(a: dict[str, int], b: dict[str, int]) -> str:
    """Which column separates two teams ranked next to each other (``lots`` when none does)."""
    return next((c for c in COLUMNS if a[c] != b[c]), "lots")
