"""The hub's standings recomputed as an arbiter would, by hand, from the rules file alone
(``arbiter_sheet``: no call into the hub's ranking), over hand-worked events and random ones played
through the hub itself: its draws, hand-entered results, corrections, withdrawals, byes, forfeits
(one side or both), penalty losses, both match-point schemes, and ties on every tie-break level."""

from __future__ import annotations

import copy
import json
import random
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from arbiter_sheet import COLUMNS, deciding_column, ranked_groups, sheet
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_service.event.config import validate
from table_service.event.draw import swiss
from table_service.event.hub import HubService
from table_service.event.model import EventInputError, parse_results_text
from table_service.event.standings import MATCH_POINT_SCHEMES, ScoringOptions, compute_standings

SCHEMES = ("2-1-0", "3-2-1-0")


def _hub_order(lines: list[dict[str, Any]], teams: list[str], scheme: str = "2-1-0", seed: int = 0) -> list[str]:
    res = parse_results_text("\n".join(json.dumps(x) for x in lines))
    opts = ScoringOptions().with_options(**MATCH_POINT_SCHEMES[scheme])
    return [r.team for r in compute_standings(res, teams, opts, seed=seed).rows]


def _agrees(order: list[str], lines: list[dict[str, Any]], teams: list[str], scheme: str,
            duplicate: str | None = None) -> None:
    """The hub's order is the arbiter's, lots deciding only inside a group tied on every column."""
    groups = ranked_groups(lines, teams, scheme, duplicate)
    i = 0
    for g in groups:
        assert sorted(order[i:i + len(g)]) == g, (i, g, order[i:i + len(g)])
        i += len(g)
    assert i == len(order) == len(teams)


def _line(rnd: int, table: int, ns: str, ew: str, a: int, b: int, **extra: Any) -> dict[str, Any]:
    return {"round": rnd, "table": str(table), "ns": ns, "ew": ew, "ns_levels": a, "ew_levels": b, **extra}


# ------------------------------------------------------------------ three events worked on paper


def test_hand_worked_event_one_every_tie_break_level() -> None:
    """Six teams A–F, three rounds, 2-1-0. Worked on paper (13 ± d, d = the gap in levels gained):

    Round 1: A–B 5:2 (A wins, 16:10) · C–D 4:4 (draw, 13:13) · E–F, F forfeits (E 17, F 0).
    Round 2: A–C 3:3 (draw, 13:13) · B–E 6:1 (B wins, 18:8) · D–F 7:3 (D wins, 17:9).
    Round 3: A–D 2:4 (D wins, 11:15) · B–C 0:3 (C wins, 10:16) · E–F 4:3 (E wins, 14:12).

    match points per round, running totals (c1, c2, c3), 累进分 = c2 + c3, won, 级差分, levels:
      A  2 1 0 → 2 3 3 → 6   won 1   16+13+11 = 40   5+3+2 = 10
      B  0 2 0 → 0 2 2 → 4   won 1   10+18+10 = 38   2+6+0 = 8
      C  1 1 2 → 1 2 4 → 6   won 1   13+13+16 = 42   4+3+3 = 10
      D  1 2 2 → 1 3 5 → 8   won 2   13+17+15 = 45   4+7+4 = 15
      E  2 0 2 → 2 2 4 → 6   won 2   17+8+14  = 39   0+1+4 = 5
      F  0 0 0 → 0 0 0 → 0   won 0   0+9+12   = 21   0+3+3 = 6

    Match points: D 5; C, E 4; A 3; B 2; F 0.
    C–E on 4: 累进分 6 = 6 — tied; rounds won E 2 > C 1 → E, C.
    Final order: D, E, C, A, B, F (match points, then rounds won deciding)."""
    lines = [
        _line(1, 1, "A", "B", 5, 2), _line(1, 2, "C", "D", 4, 4),
        {"round": 1, "table": "3", "ns": "E", "ew": "F", "forfeit": "ew"},
        _line(2, 1, "A", "C", 3, 3), _line(2, 2, "B", "E", 6, 1), _line(2, 3, "D", "F", 7, 3),
        _line(3, 1, "A", "D", 2, 4), _line(3, 2, "B", "C", 0, 3), _line(3, 3, "E", "F", 4, 3),
    ]
    teams = list("ABCDEF")
    assert _hub_order(lines, teams) == ["D", "E", "C", "A", "B", "F"]
    cols = sheet(lines, teams)
    assert {t: (cols[t]["match_points"], cols[t]["progressive"], cols[t]["rounds_won"], cols[t]["level_points"],
                cols[t]["levels_gained"]) for t in teams} == {
        "A": (3, 6, 1, 40, 10), "B": (2, 4, 1, 38, 8), "C": (4, 6, 1, 42, 10),
        "D": (5, 8, 2, 45, 15), "E": (4, 6, 2, 39, 5), "F": (0, 0, 0, 21, 6)}
    _agrees(_hub_order(lines, teams), lines, teams, "2-1-0")


def test_hand_worked_event_two_progressive_points_and_levels_gained() -> None:
    """Five teams P–T (odd: a bye a round, 2 match points, 13 级差分, a round won), three rounds, 2-1-0.

    Round 1: P–Q 6:0 (P 19:7) · R–S 1:1 (draw 13:13) · T bye.
    Round 2: T–P 3:3 (draw 13:13) · Q–R 2:5 (R 16:10) · S bye.
    Round 3: P–S 1:1 (draw 13:13) · Q–T 2:3 ended by a penalty loss of Q (判负): the offender's
             level + 4, so d = max(4, 3 − 2) = 4 and T wins 17 : 9 · R bye.

    per round (c1 c2 c3) → 累进分 c2 + c3, won, 级差分, levels:
      P  2 1 1 → 2 3 4 → 7   won 1   19+13+13 = 45   6+3+1 = 10
      Q  0 0 0 → 0 0 0 → 0   won 0   7+10+9   = 26   0+2+2 = 4
      R  1 2 2 → 1 3 5 → 8   won 2   13+16+13 = 42   1+5+0 = 6
      S  1 2 1 → 1 3 4 → 7   won 1   13+13+13 = 39   1+0+1 = 2
      T  2 1 2 → 2 3 5 → 8   won 2   13+13+17 = 43   0+3+3 = 6

    Match points: R 5, T 5, P 4, S 4, Q 0.
    R–T: 累进分 8 = 8, won 2 = 2, 级差分 T 43 > R 42 → T, R.
    P–S: 累进分 7 = 7, won 1 = 1, 级差分 P 45 > S 39 → P, S.
    Final order: T, R, P, S, Q."""
    lines = [
        _line(1, 1, "P", "Q", 6, 0), _line(1, 2, "R", "S", 1, 1), {"round": 1, "bye": "T"},
        _line(2, 1, "T", "P", 3, 3), _line(2, 2, "Q", "R", 2, 5), {"round": 2, "bye": "S"},
        _line(3, 1, "P", "S", 1, 1), _line(3, 2, "Q", "T", 2, 3, ns_score=9, ew_score=17),
        {"round": 3, "bye": "R"},
    ]
    teams = list("PQRST")
    assert _hub_order(lines, teams) == ["T", "R", "P", "S", "Q"]
    cols = sheet(lines, teams)
    assert [cols[t]["progressive"] for t in "PQRST"] == [7, 0, 8, 7, 8]
    assert [cols[t]["level_points"] for t in "PQRST"] == [45, 26, 42, 39, 43]


def test_hand_worked_event_three_levels_gained_then_lots_and_both_absent() -> None:
    """Four teams W–Z, two rounds, 2-1-0; a table where both sides were absent (0 : 0, each a forfeit).

    Round 1: W–X 3:1 (W 15:11) · Y–Z both absent (0:0, no match points, no round won).
    Round 2: W–Y 2:4 (Y 15:11) · X–Z 4:2 (X 15:11).

    per round (c1 c2) → 累进分 c2, won, 级差分, levels:
      W  2 0 → 2 2 → 2   won 1   15+11 = 26   3+2 = 5
      X  0 2 → 0 2 → 2   won 1   11+15 = 26   1+4 = 5
      Y  0 2 → 0 2 → 2   won 1    0+15 = 15   0+4 = 4
      Z  0 0 → 0 0 → 0   won 0    0+11 = 11   0+2 = 2

    W, X, Y on 2 match points, 累进分 2 each, one round won each; 级差分 W 26 = X 26 > Y 15;
    W–X: levels gained 5 = 5 — tied on every column: lots. The lots (standings.py's documented draw:
    the tied names sorted, W|X, shuffled by a generator seeded "guandan-lots:<seed>:W|X") with the
    event's seed 0 put X first. Final order: X, W, Y, Z — and the same on every call with that seed."""
    lines = [
        _line(1, 1, "W", "X", 3, 1), {"round": 1, "table": "2", "ns": "Y", "ew": "Z", "forfeit": "both"},
        _line(2, 1, "W", "Y", 2, 4), _line(2, 2, "X", "Z", 4, 2),
    ]
    teams = list("WXYZ")
    order = _hub_order(lines, teams)
    lots = ["W", "X"]
    random.Random("guandan-lots:0:W|X").shuffle(lots)
    assert order == [*lots, "Y", "Z"] == ["X", "W", "Y", "Z"]
    assert order == _hub_order(lines, teams)
    res = parse_results_text("\n".join(json.dumps(x) for x in lines))
    assert compute_standings(res, teams).lots == [{"teams": ["W", "X"], "order": order[:2]}]
    cols = sheet(lines, teams)
    assert [cols[t]["level_points"] for t in teams] == [26, 26, 15, 11]
    assert ranked_groups(lines, teams) == [["W", "X"], ["Y"], ["Z"]]


def test_hand_worked_event_progressive_points_decide() -> None:
    """Four teams A–D, three rounds, 2-1-0: an early win is worth more than a late one (累进分).

    Round 1: A–B 3:1 (A 15:11) · C–D 2:0 (C 15:11).
    Round 2: A–C 0:4 (C 17:9)  · B–D 5:1 (B 17:9).
    Round 3: A–D 1:2 (D 14:12) · B–C 0:3 (C 16:10).
    per round → running totals → 累进分 (c2 + c3), won, 级差分, levels:
      A  2 0 0 → 2 2 2 → 4    won 1   15+9+12  = 36   3+0+1 = 4
      B  0 2 0 → 0 2 2 → 4    won 1   11+17+10 = 38   1+5+0 = 6
      C  2 2 2 → 2 4 6 → 10   won 3   15+17+16 = 48   2+4+3 = 9
      D  0 0 2 → 0 0 2 → 2    won 1   11+9+14  = 34   0+1+2 = 3
    C 6; A, B, D on 2: 累进分 puts D (2) below A and B (4); A–B: won 1 = 1, 级差分 B 38 > A 36.
    Final order: C, B, A, D."""
    lines = [
        _line(1, 1, "A", "B", 3, 1), _line(1, 2, "C", "D", 2, 0),
        _line(2, 1, "A", "C", 0, 4), _line(2, 2, "B", "D", 5, 1),
        _line(3, 1, "A", "D", 1, 2), _line(3, 2, "B", "C", 0, 3),
    ]
    teams = list("ABCD")
    assert _hub_order(lines, teams) == ["C", "B", "A", "D"]
    cols = sheet(lines, teams)
    assert [cols[t]["progressive"] for t in teams] == [4, 4, 10, 2]
    assert [cols[t]["level_points"] for t in teams] == [36, 38, 48, 34]


def test_hand_worked_event_four_levels_gained_decide() -> None:
    """Six teams U–Z, two rounds, 2-1-0 (two rounds: 累进分 = c2 = the match points, so it cannot split
    teams level on match points; 级差分 ties, levels gained decide).

    Round 1: W–X 3:1 (W 15:11) · U–V 2:2 (13:13) · Y–Z both absent (0:0).
    Round 2: W–Y 2:4 (Y 15:11) · X–U 5:3 (X 15:11) · V–Z 5:3 (V 15:11).
      U  1 0 → 累进分 1, won 0, 级差分 13+11 = 24, levels 2+3 = 5
      V  1 2 → 累进分 3, won 1, 级差分 13+15 = 28, levels 2+5 = 7
      W  2 0 → 累进分 2, won 1, 级差分 15+11 = 26, levels 3+2 = 5
      X  0 2 → 累进分 2, won 1, 级差分 11+15 = 26, levels 1+5 = 6
      Y  0 2 → 累进分 2, won 1, 级差分 0+15  = 15, levels 0+4 = 4
      Z  0 0 → 累进分 0, won 0, 级差分 0+11  = 11, levels 0+3 = 3
    V 3; W, X, Y 2 (累进分 and rounds won equal): 级差分 puts Y last of the three, levels gained X 6 > W 5;
    U 1; Z 0. Final order: V, X, W, Y, U, Z."""
    lines = [
        _line(1, 1, "W", "X", 3, 1), _line(1, 2, "U", "V", 2, 2),
        {"round": 1, "table": "3", "ns": "Y", "ew": "Z", "forfeit": "both"},
        _line(2, 1, "W", "Y", 2, 4), _line(2, 2, "X", "U", 5, 3), _line(2, 3, "V", "Z", 5, 3),
    ]
    teams = list("UVWXYZ")
    assert _hub_order(lines, teams) == ["V", "X", "W", "Y", "U", "Z"]
    assert [sheet(lines, teams)[t]["level_points"] for t in teams] == [24, 28, 26, 26, 15, 11]


def test_hand_worked_event_five_three_two_one_zero() -> None:
    """The 3/2/1/0 scheme ("with byes": a bye is 3, a forfeit 0, a loss 1). Three teams, two rounds:

    Round 1: K–L 2:2 (draw: 2 each) · M bye (3).   Round 2: M–K, M forfeits (K 3, M 0) · L bye (3).
      K  2 3 → 2 5 → 累进分 5, won 1, 级差分 13+17 = 30
      L  2 3 → 2 5 → 累进分 5, won 1, 级差分 13+13 = 26
      M  3 0 → 3 3 → 累进分 3, won 1, 级差分 13+0  = 13
    Final order: K, L (级差分), M."""
    lines = [
        _line(1, 1, "K", "L", 2, 2), {"round": 1, "bye": "M"},
        {"round": 2, "table": "1", "ns": "M", "ew": "K", "forfeit": "ns"}, {"round": 2, "bye": "L"},
    ]
    assert _hub_order(lines, list("KLM"), "3-2-1-0") == ["K", "L", "M"]
    assert [sheet(lines, list("KLM"), "3-2-1-0")[t]["progressive"] for t in "KLM"] == [5, 5, 3]


# ------------------------------------------------------------------ random results (pure standings)


def random_line(rng: random.Random, rnd: int, table: str, ns: str, ew: str) -> dict[str, Any]:
    """A result from a small set of values, so that ties come on every column: draws, narrow wins,
    one side or both absent, penalty losses at the score the rules give."""
    a, b = rng.choice((0, 1, 2, 3, 3, 13)), rng.choice((0, 1, 2, 3))
    roll = rng.random()
    line: dict[str, Any] = {"round": rnd, "table": table, "ns": ns, "ew": ew}
    if roll < 0.08:
        return line | {"forfeit": rng.choice(("ns", "ew"))}
    if roll < 0.11:
        return line | {"forfeit": "both"}
    if roll < 0.35:
        b = a
    line |= {"ns_levels": a, "ew_levels": b}
    if rng.random() < 0.1:
        # 判负: the offender's level + 4, a larger lead kept: 13 + d : 13 − d with d = max(4, lead).
        ns_wins = rng.random() < 0.5
        won, lost = (a, b) if ns_wins else (b, a)
        d = max(4, won - lost)
        line |= {"ns_score": 13 + d, "ew_score": 13 - d} if ns_wins else {"ns_score": 13 - d, "ew_score": 13 + d}
    return line


def random_lines(rng: random.Random, teams: list[str], rounds: int, gone: float = 0.0) -> list[dict[str, Any]]:
    """Random pairings (a bye for an odd field), and now and then a team that has left (no line)."""
    lines: list[dict[str, Any]] = []
    left: set[str] = set()
    for rnd in range(1, rounds + 1):
        if rng.random() < gone and len(teams) - len(left) > 3:
            left.add(rng.choice([t for t in teams if t not in left]))
        order = [t for t in teams if t not in left]
        rng.shuffle(order)
        if len(order) % 2:
            lines.append({"round": rnd, "bye": order.pop()})
        lines += [random_line(rng, rnd, str(i // 2 + 1), order[i], order[i + 1]) for i in range(0, len(order), 2)]
    return lines


@settings(max_examples=120, deadline=None)
@given(n=st.integers(2, 14), rounds=st.integers(1, 7), seed=st.integers(0, 10**6),
       scheme=st.sampled_from(SCHEMES))
def test_standings_agree_with_the_arbiter_on_random_results(n: int, rounds: int, seed: int, scheme: str) -> None:
    rng = random.Random(seed)
    teams = [f"T{i:02d}" for i in range(n)]
    lines = random_lines(rng, teams, rounds, gone=0.15)
    res = parse_results_text("\n".join(json.dumps(x) for x in lines))
    opts = ScoringOptions().with_options(**MATCH_POINT_SCHEMES[scheme])
    got = compute_standings(res, teams, opts, seed=seed)
    cols = sheet(lines, teams, scheme)
    for row in got.to_json()["standings"]:
        assert {c: row[c] for c in COLUMNS} == cols[row["team"]], row["team"]
    _agrees([r.team for r in got.rows], lines, teams, scheme)
    tied = [g for g in ranked_groups(lines, teams, scheme) if len(g) > 1]
    assert sorted(lot["teams"] for lot in got.lots) == sorted(tied)


def test_every_tie_break_level_decides_somewhere() -> None:
    """The random results above really test each tie-break: over a fixed set of events, every column
    (and lots) is the one that separates some two neighbours in the standings."""
    decided: Counter[str] = Counter()
    for seed in range(60):
        rng = random.Random(seed)
        teams = [f"T{i:02d}" for i in range(12)]
        lines = random_lines(rng, teams, 1 + seed % 5)
        order = _hub_order(lines, teams, seed=seed)
        _agrees(order, lines, teams, "2-1-0")
        cols = sheet(lines, teams)
        decided.update(deciding_column(cols[a], cols[b]) for a, b in zip(order, order[1:], strict=False))
    assert set(decided) == {*COLUMNS, "lots"}, decided


# ------------------------------------------------------------------ whole events through the hub


def _cfg(n: int, rounds: int, scheme: str, seed: int, method: str = "swiss", duplicate: str | None = None
         ) -> dict[str, Any]:
    dup = {"duplicate": duplicate} if duplicate else {}
    four = ("甲", "乙", "丙", "丁") if duplicate else ()
    return validate({"event": {"id": "arb", "name": "裁判核对赛", "rounds": rounds, "draw": method,
                               "match_points": scheme, "seed": seed, **dup},
                     "teams": [{"id": f"T{i:03d}", "name": f"队{i}", **({"players": [f"{i}{p}" for p in four]} if four else {})}
                               for i in range(1, n + 1)]})


def play_through_hub(n: int, rounds: int, scheme: str, seed: int, check_draw: Any = None,
                     method: str = "swiss", duplicate: str | None = None) -> None:
    """Draw, publish and enter every round at a hub, correcting and withdrawing now and then; after
    each round the hub's standings must be the arbiter's sheet of the results as they now stand
    (``duplicate``: a 复式 event, each match two rooms compared so)."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        hub = HubService(_cfg(n, rounds, scheme, seed, method, duplicate), Path(tmp) / "hub", connect=False)
        teams = list(hub.core.teams)
        lines: dict[tuple[int, str], dict[str, Any]] = {}
        byes: list[dict[str, Any]] = []
        published: dict[int, list[dict[str, Any]]] = {}
        for rnd in range(1, rounds + 1):
            if rnd > 1 and rng.random() < 0.2 and len(hub.core.active_teams) > 4:
                hub.withdraw_team(rng.choice(hub.core.active_teams), "退赛 / withdrew", "chief", "chief")
            hub.draw_next("org", "chief")
            draw = hub.core.draws[rnd]
            if check_draw is not None:
                check_draw(hub, draw, [*lines.values(), *byes])
            hub.publish_draw(rnd, "org", "chief")
            byes += [{"round": rnd, "bye": b} for b in draw["byes"]]
            for t in draw["tables"]:
                line = random_line(rng, rnd, t["table"], t["ns"], t["ew"])
                hub.hand_result(line, "rita", "referee")
                lines[(rnd, t["table"])] = line
            # Corrections: a table of this round, now and then one of an earlier round.
            for (r, tb), old in list(lines.items()):
                if rng.random() < (0.1 if r == rnd else 0.02):
                    new = random_line(rng, r, tb, old["ns"], old["ew"])
                    if new != old:
                        hub.correct(r, tb, new, "记分表誊写错 / sheet copied wrong", "chen", "chief")
                        lines[(r, tb)] = new
            if rng.random() < 0.5:  # results are published in order: every round not yet published
                for r in range(1, rnd + 1):
                    if r not in hub.core.results_published:
                        hub.publish_results(r, "org", "chief")
            # A correction made after the next round's Swiss draft: the draft is stale and is not published
            # ("corrections never change a published draw"; an unpublished one is drawn again, from the
            # corrected results, and checked as every draw is).
            if rnd < rounds and rng.random() < 0.2:
                hub.draw_next("org", "chief")
                (r, tb), old = rng.choice(sorted(lines.items()))
                new = random_line(rng, r, tb, old["ns"], old["ew"])
                if new != old:
                    hub.correct(r, tb, new, "记分表誊写错 / sheet copied wrong", "chen", "chief")
                    lines[(r, tb)] = new
                    if method == "swiss":  # a round robin's schedule depends on no result
                        with pytest.raises(EventInputError, match="重新编排"):
                            hub.publish_draw(rnd + 1, "org", "chief")
            assert {r: hub.core.draws[r]["tables"] for r in published} == published, "a published draw is final"
            published[rnd] = copy.deepcopy(draw["tables"])
            all_lines = [*lines.values(), *byes]
            board = hub.standings_json()["standings"]
            cols = sheet(all_lines, teams, scheme, duplicate)
            assert [{c: row[c] for c in COLUMNS} for row in board] == [cols[row["team"]] for row in board]
            st_ = hub.core.standings()
            assert [row["team"] for row in board] == [r.team for r in st_.rows]
            cols = sheet(all_lines, teams, scheme, duplicate)
            for row in st_.to_json()["standings"]:
                assert {c: row[c] for c in COLUMNS} == cols[row["team"]], (rnd, row["team"])
            _agrees([r.team for r in st_.rows], all_lines, teams, scheme, duplicate)
            # A tie recorded by lots when the round's results were published is kept as published.
            for group, order in hub.core.lots.items():
                pos = [r.team for r in st_.rows]
                if all(t in pos for t in group) and any(sorted(g) == sorted(group)
                                                         for g in ranked_groups(all_lines, teams, scheme, duplicate)):
                    assert sorted(group, key=pos.index) == list(order)


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(8, 17), rounds=st.integers(3, 6), seed=st.integers(0, 10**6),
       scheme=st.sampled_from(SCHEMES))
def test_the_hub_s_standings_are_the_arbiter_s_over_whole_events(n: int, rounds: int, seed: int, scheme: str) -> None:
    play_through_hub(n, rounds, scheme, seed)


# ------------------------------------------------------------------ the draw's promises


def _rematch_free_exists(teams: list[str], met: set[frozenset[str]], can_bye: set[str]) -> bool:
    """Whether the field can be paired with no rematch, the bye (an odd field) to one of ``can_bye``."""
    g = nx.Graph()
    g.add_nodes_from(teams)
    g.add_edges_from((a, b) for i, a in enumerate(teams) for b in teams[i + 1:] if frozenset((a, b)) not in met)
    if len(teams) % 2:
        g.add_edges_from((t, "<bye>") for t in can_bye)
    m = nx.max_weight_matching(g, maxcardinality=True)
    return 2 * len(m) == len(teams) + len(teams) % 2


def check_swiss_draw(ranked: list[str], history: list[dict[str, Any]], tables: list[tuple[str, str]],
                     byes: list[str], withdrawn: set[str], directions: bool = True,
                     mp: dict[str, int] | None = None) -> None:
    """What draw.py's module doc and docs/architecture.md promise of a Swiss round, checked from the
    lines alone. ``ranked``: the standings the round is drawn from (every team, best first; the
    arbiter agrees with it up to lots, checked above); ``tables``: ``(ns, ew)`` in table order;
    ``mp``: the arbiter's match points, for the exact fields' smallest gap."""
    active = [t for t in ranked if t not in withdrawn]
    n = len(active)
    place = {t: i for i, t in enumerate(active)}
    seated = [t for pair in tables for t in pair] + byes
    assert sorted(seated) == sorted(active), "every team in play once, no withdrawn team"
    assert len(byes) == n % 2
    last = max((x["round"] for x in history), default=0)
    met = {frozenset((x["ns"], x["ew"])) for x in history if "ns" in x}
    had_bye = {x["bye"] for x in history if "bye" in x}
    no_show = {t for x in history if x["round"] == last and x.get("forfeit")
               for t, side in ((x["ns"], "ns"), (x["ew"], "ew")) if x["forfeit"] in (side, "both")} & set(active)
    rematches = sum(frozenset(p) in met for p in tables)
    second_bye = [b for b in byes if b in had_bye]
    # Tables numbered from the top: each table's higher-ranked team below the one of the table before.
    tops = [min(place[a], place[b]) for a, b in tables]
    assert tops == sorted(tops)
    # 1. no rematch, no second bye, where the field allows it. Small fields by a matching; past
    # them the field's own size guarantees it (Dirac: every team can still meet more than half).
    small = n <= 40
    no_bye_yet = {t for t in active if t not in had_bye}
    if not small:
        assert n >= 2 * (last + 2), "a field this size always has a rematch-free draw"
    if not small or _rematch_free_exists(active, met, no_bye_yet):
        assert rematches == 0 and not second_bye, (rematches, second_bye)
        # 2. no bye to a no-show of the round before while another team can take it.
        if byes and (not small or _rematch_free_exists(active, met, no_bye_yet - no_show)):
            assert byes[0] not in no_show
            # 3. the bye to the lowest-ranked team that can take it.
            for t in reversed(active):
                if t in no_bye_yet - no_show:
                    rest = [x for x in active if x != t]
                    if not small or _rematch_free_exists(rest, met, set()):
                        assert byes[0] == t, (byes[0], t)
                        break
    # 5. the adjacent pairing (1-2, 3-4, …, the bye to the last) whenever it is clean.
    adjacent = [frozenset(active[i:i + 2]) for i in range(0, n - 1, 2)]
    if not any(p in met for p in adjacent) and not (n % 2 and active[-1] in had_bye | no_show):
        assert {frozenset(p) for p in tables} == set(adjacent)
        assert byes == ([active[-1]] if n % 2 else [])
    # 4. and 5. in a field solved whole (up to 24 teams): with the bye where it is, no pairing free of
    # rematches has a smaller match-point gap, nor with that gap a smaller distance in the ranking.
    if mp is not None and n <= 24 and rematches == 0 and not second_bye:
        rest = [t for t in active if t not in byes]
        k = n * n + 1

        def cost(a: str, b: str) -> int:
            return abs(mp[a] - mp[b]) * k + abs(place[a] - place[b])

        top = max(mp.values()) * k + n * k + 1
        g = nx.Graph()
        g.add_weighted_edges_from((a, b, top - cost(a, b)) for i, a in enumerate(rest) for b in rest[i + 1:]
                                  if frozenset((a, b)) not in met)
        best = nx.max_weight_matching(g, maxcardinality=True)
        assert 2 * len(best) == len(rest)
        assert sum(cost(a, b) for a, b in tables) == sum(cost(a, b) for a, b in best)
    if directions:
        check_directions(history, tables, place)


def check_directions(history: list[dict[str, Any]], tables: list[tuple[str, str]], place: dict[str, int]) -> None:
    """Directions (draw.py's module doc): the team that has sat NS fewer times (net of EW) sits NS;
    then the one that sat EW at its last table (or whose opponent sat NS at its last); then the
    higher ranked (``place``: lower is higher)."""
    bal: Counter[str] = Counter()
    last_dir: dict[str, str] = {}
    for x in sorted((x for x in history if "ns" in x), key=lambda x: x["round"]):
        bal[x["ns"]] += 1
        bal[x["ew"]] -= 1
        last_dir[x["ns"]], last_dir[x["ew"]] = "ns", "ew"
    for ns, ew in tables:
        if bal[ns] != bal[ew]:
            assert bal[ns] < bal[ew], (ns, ew)
        elif last_dir.get(ns) != last_dir.get(ew):
            assert last_dir.get(ns) == "ew" or last_dir.get(ew) == "ns", (ns, ew)
        else:
            assert place[ns] < place[ew]


def check_round_robin_draw(circle: list[str], history: list[dict[str, Any]], tables: list[tuple[str, str]],
                           byes: list[str], withdrawn: set[str]) -> None:
    """A round robin (draw.py): within one circle nobody meets anyone twice nor has a second bye from
    the odd field; a withdrawn team is never drawn, and the team the schedule sets against it has a
    bye; every team in play is at a table or has a bye, once."""
    active = [t for t in circle if t not in withdrawn]
    seated = [t for pair in tables for t in pair] + byes
    assert sorted(seated) == sorted(active)
    n = len(circle)
    per_circle = n - 1 if n % 2 == 0 else n
    rnd = max((x["round"] for x in history), default=0) + 1
    start = rnd - (rnd - 1) % per_circle  # the first round of this circle
    now = [x for x in history if x["round"] >= start]
    met = {frozenset((x["ns"], x["ew"])) for x in now if "ns" in x}
    assert not any(frozenset(p) in met for p in tables)
    assert len(byes) <= n % 2 + len(withdrawn)
    if not withdrawn:  # the odd field's bye: once a team a circle
        assert not {x["bye"] for x in now if "bye" in x} & set(byes)
    check_directions(history, tables, {t: i for i, t in enumerate(circle)})


def _check_hub_draw(hub: HubService, draw: dict[str, Any], history: list[dict[str, Any]]) -> None:
    duplicate = bool(draw["info"].get("duplicate"))
    if duplicate:  # two rooms a match, sides swapped: the pairing is room A's
        rooms = {t["match"]: {} for t in draw["tables"]}
        for t in draw["tables"]:
            rooms[t["match"]][t["room"]] = (t["ns"], t["ew"])
        assert all(r["B"] == r["A"][::-1] for r in rooms.values())
        draw = {**draw, "info": {}, "tables": [{"ns": r["A"][0], "ew": r["A"][1]} for _m, r in sorted(rooms.items())]}
    if draw["method"] == "round-robin":
        check_round_robin_draw(hub.core.draws[1]["lots"], history, [(t["ns"], t["ew"]) for t in draw["tables"]],
                               list(draw["byes"]), set(hub.core.withdrawn))
        return
    # Round 1 by lots: the lots' order is the ranking.
    ranked = [r.team for r in hub.core.standings().rows] if history else hub.core.draws[1]["lots"]
    # In duplicate play each team sits both directions every round (room B swaps): the docs promise
    # nothing of room A's directions, so only the pairing is checked there.
    ev = hub.core.cfg["event"]
    mp = {t: c["match_points"] for t, c in sheet(history, hub.core.teams, ev["match_points"],
                                                   ev["scoring"].get("duplicate")).items()}
    check_swiss_draw(ranked, history, [(t["ns"], t["ew"]) for t in draw["tables"]], list(draw["byes"]),
                     set(hub.core.withdrawn), directions=not duplicate, mp=mp)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(8, 21), rounds=st.integers(3, 8), seed=st.integers(0, 10**6), scheme=st.sampled_from(SCHEMES))
def test_the_hub_s_draws_keep_the_swiss_promises(n: int, rounds: int, seed: int, scheme: str) -> None:
    play_through_hub(n, rounds, scheme, seed, check_draw=_check_hub_draw)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(8, 11), seed=st.integers(0, 10**6), scheme=st.sampled_from(SCHEMES))
def test_the_hub_s_round_robin_keeps_its_promises_and_ranks_as_the_arbiter(n: int, seed: int, scheme: str) -> None:
    play_through_hub(n, n - 1 if n % 2 == 0 else n, scheme, seed, check_draw=_check_hub_draw, method="round-robin")


def swiss_event(n: int, rounds: int, seed: int) -> None:
    """A whole Swiss event of ``n`` teams drawn by draw.py alone (results random, forfeits, penalty
    losses, now and then a withdrawal), every round checked by :func:`check_swiss_draw`."""
    rng = random.Random(seed)
    teams = [f"T{i:03d}" for i in range(n)]
    lines: list[dict[str, Any]] = []
    withdrawn: set[str] = set()
    for rnd in range(1, rounds + 1):
        if rnd > 1 and rng.random() < 0.3:
            withdrawn.add(rng.choice([t for t in teams if t not in withdrawn]))
        res = parse_results_text("\n".join(json.dumps(x) for x in lines))
        d = swiss(teams, res, seed=seed, withdrawn=withdrawn)
        ranked = [r.team for r in compute_standings(res, teams, seed=seed).rows] if lines else d.info["lots"]
        mp = {t: c["match_points"] for t, c in sheet(lines, teams).items()}
        check_swiss_draw(ranked, lines, [(ns, ew) for _t, ns, ew in d.tables], d.byes, withdrawn, mp=mp)
        lines += [random_line(rng, rnd, t, ns, ew) for t, ns, ew in d.tables]
        lines += [{"round": rnd, "bye": b} for b in d.byes]


@settings(max_examples=12, deadline=None)
@given(n=st.integers(8, 64), rounds=st.integers(5, 9), seed=st.integers(0, 10**6))
def test_swiss_events_of_8_to_64_teams_keep_the_promises(n: int, rounds: int, seed: int) -> None:
    swiss_event(n, rounds, seed)


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(n=st.integers(65, 500), rounds=st.integers(5, 9), seed=st.integers(0, 10**6))
def test_swiss_events_of_up_to_500_teams_keep_the_promises(n: int, rounds: int, seed: int) -> None:
    swiss_event(n, rounds, seed)


def test_a_500_team_event_keeps_the_promises() -> None:
    swiss_event(500, 7, 20261207)


# ------------------------------------------------------------------ duplicate (复式) team matches


def random_duplicate_lines(rng: random.Random, teams: list[str], rounds: int) -> list[dict[str, Any]]:
    """Random team matches of two rooms (sides swapped), each room a :func:`random_line`; a bye for an
    odd field; now and then a match with only one room in (it does not count yet)."""
    lines: list[dict[str, Any]] = []
    for rnd in range(1, rounds + 1):
        order = teams[:]
        rng.shuffle(order)
        if len(order) % 2:
            lines.append({"round": rnd, "bye": order.pop()})
        for k in range(0, len(order), 2):
            x, y = order[k], order[k + 1]
            rooms = (("A", x, y), ("B", y, x))
            for room, ns, ew in rooms[:1] if rng.random() < 0.05 else rooms:
                lines.append(random_line(rng, rnd, f"{k // 2 + 1}{room}", ns, ew))
    return lines


@settings(max_examples=80, deadline=None)
@given(n=st.integers(2, 11), rounds=st.integers(1, 6), seed=st.integers(0, 10**6), scheme=st.sampled_from(SCHEMES),
       compare=st.sampled_from(("levels", "level_points")))
def test_duplicate_standings_agree_with_the_arbiter(n: int, rounds: int, seed: int, scheme: str, compare: str) -> None:
    rng = random.Random(seed)
    teams = [f"T{i:02d}" for i in range(n)]
    lines = random_duplicate_lines(rng, teams, rounds)
    res = parse_results_text("\n".join(json.dumps(x) for x in lines), duplicate=True)
    opts = ScoringOptions().with_options(**MATCH_POINT_SCHEMES[scheme], duplicate=compare)
    got = compute_standings(res, teams, opts, seed=seed)
    cols = sheet(lines, teams, scheme, compare)
    for row in got.to_json()["standings"]:
        assert {c: row[c] for c in COLUMNS} == cols[row["team"]], row["team"]
    groups = ranked_groups(lines, teams, scheme, compare)
    order, i = [r.team for r in got.rows], 0
    for g in groups:
        assert sorted(order[i:i + len(g)]) == g
        i += len(g)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(6, 13), rounds=st.integers(3, 6), seed=st.integers(0, 10**6), scheme=st.sampled_from(SCHEMES),
       compare=st.sampled_from(("levels", "level_points")))
def test_a_duplicate_event_through_the_hub_ranks_as_the_arbiter(n: int, rounds: int, seed: int, scheme: str,
                                                                 compare: str) -> None:
    play_through_hub(n, rounds, scheme, seed, check_draw=_check_hub_draw, duplicate=compare)
