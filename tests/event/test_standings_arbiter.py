"""The hub's standings recomputed as an arbiter would, by hand, from the rules file alone
(``arbiter_sheet``: no call into the hub's ranking), over hand-worked events and random ones played
through the hub itself: its draws, hand-entered results, corrections, withdrawals, byes, forfeits
(one side or both), penalty losses, both match-point schemes, and ties on every tie-break level."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from arbiter_events import SCHEMES, agrees, play_through_hub, random_duplicate_lines, random_lines
from arbiter_sheet import COLUMNS, deciding_column, ranked_groups, sheet
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_service.event.model import parse_results_text
from table_service.event.standings import MATCH_POINT_SCHEMES, ScoringOptions, compute_standings


def _hub_order(lines: list[dict[str, Any]], teams: list[str], scheme: str = "2-1-0", seed: int = 0) -> list[str]:
    res = parse_results_text("\n".join(json.dumps(x) for x in lines))
    opts = ScoringOptions().with_options(**MATCH_POINT_SCHEMES[scheme])
    return [r.team for r in compute_standings(res, teams, opts, seed=seed).rows]


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
    agrees(_hub_order(lines, teams), lines, teams, "2-1-0")


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
    agrees([r.team for r in got.rows], lines, teams, scheme)
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
        agrees(order, lines, teams, "2-1-0")
        cols = sheet(lines, teams)
        decided.update(deciding_column(cols[a], cols[b]) for a, b in zip(order, order[1:], strict=False))
    assert set(decided) == {*COLUMNS, "lots"}, decided


# ------------------------------------------------------------------ whole events through the hub


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(8, 17), rounds=st.integers(3, 6), seed=st.integers(0, 10**6),
       scheme=st.sampled_from(SCHEMES))
def test_the_hub_s_standings_are_the_arbiter_s_over_whole_events(n: int, rounds: int, seed: int, scheme: str) -> None:
    play_through_hub(n, rounds, scheme, seed)


# ------------------------------------------------------------------ duplicate (复式) team matches


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
