"""The draw: round robin meets everyone once; Swiss is optimal against a brute force over every
matching of small fields (fewest rematches and second byes, then no bye to a team that forfeited the
round before, then the bye to the lowest ranked, then the smallest match-point gap)."""

from __future__ import annotations

import itertools
import json
import random
from collections import Counter
from typing import Any

import pytest
from event_brute import columns, matchings
from hypothesis import given, settings
from hypothesis import strategies as st

from table_service.event.draw import round_robin, swiss
from table_service.event.model import EventInputError, parse_results_text
from table_service.event.standings import compute_standings

BYE = "<bye>"


def play(rng: random.Random, draw_json: dict[str, Any], no_shows: float = 0.0) -> list[dict[str, Any]]:
    """Random results of a drawn round; ``no_shows``: the share of tables one side forfeits (17 : 0)."""
    lines: list[dict[str, Any]] = []
    for t in draw_json["tables"]:
        a, b = rng.randint(0, 13), rng.randint(0, 13)
        if rng.random() < 0.3:
            b = a
        line = {"round": draw_json["round"], "table": t["table"], "ns": t["ns"], "ew": t["ew"],
                "ns_levels": a, "ew_levels": b}
        if rng.random() < no_shows:
            line = {k: line[k] for k in ("round", "table", "ns", "ew")} | {"forfeit": rng.choice(("ns", "ew"))}
        lines.append(line)
    if draw_json["bye"]:
        lines.append({"round": draw_json["round"], "bye": draw_json["bye"]})
    return lines


def random_history(rng: random.Random, teams: list[str], rounds: int, no_shows: float = 0.0) -> list[dict[str, Any]]:
    """Random earlier rounds (random pairings, so rematch pressure is real; ``no_shows``: as :func:`play`)."""
    lines: list[dict[str, Any]] = []
    for rnd in range(1, rounds + 1):
        order = teams[:]
        rng.shuffle(order)
        bye = order.pop() if len(order) % 2 else None
        tables = [{"table": str(i // 2 + 1), "ns": order[i], "ew": order[i + 1]} for i in range(0, len(order), 2)]
        lines += play(rng, {"round": rnd, "tables": tables, "bye": bye}, no_shows)
    return lines


def _above_last(teams: list[str], lines: list[dict[str, Any]]) -> dict[str, int]:
    """Each team's place above the last of the standings (0: the last), the ranking the draw uses.
    Round 1 too: the standings with no results rank the whole field by its lots, the order round 1
    is drawn by (it was the list's order before round 1 was drawn by lots)."""
    rows = compute_standings(parse_results_text("\n".join(json.dumps(x) for x in lines)), teams).rows
    return {r.team: len(rows) - 1 - i for i, r in enumerate(rows)}


def _no_shows(lines: list[dict[str, Any]]) -> set[str]:
    """The teams that forfeited the last round: read from the lines as the rules say (the side
    ``forfeit`` names), not through the implementation."""
    last = max((x["round"] for x in lines), default=0)
    return {x[x["forfeit"]] for x in lines if x["round"] == last and x.get("forfeit")}


def brute_best(teams: list[str], lines: list[dict[str, Any]]) -> tuple[int, int, int, int]:
    """(rematches + the byes the bye's team has had, whether the bye's team forfeited the last round,
    the bye's place above the last team, total match-point gap) of the best matching, by enumeration:
    the draw's priorities, in order."""
    col = columns(lines, teams)
    mp = {t: col[t]["match_points"] for t in teams}
    above = _above_last(teams, lines)
    met = {frozenset((x["ns"], x["ew"])) for x in lines if "ns" in x}
    byes = Counter(x["bye"] for x in lines if "bye" in x)
    absent = _no_shows(lines)
    nodes = teams + ([BYE] if len(teams) % 2 else [])
    best = None
    for m in matchings(nodes):
        bad = gap = place = no_show = 0
        for a, b in m:
            if BYE in (a, b):
                t = b if a == BYE else a
                bad += byes[t]  # each bye the team has had weighs as a rematch
                no_show = int(t in absent)
                place = above[t]
            else:
                bad += frozenset((a, b)) in met
                gap += abs(mp[a] - mp[b])
        best = (bad, no_show, place, gap) if best is None or (bad, no_show, place, gap) < best else best
    assert best is not None
    return best


def score_of(draw_json: dict[str, Any], teams: list[str], lines: list[dict[str, Any]]) -> tuple[int, int, int, int]:
    col = columns(lines, teams)
    mp = {t: col[t]["match_points"] for t in teams}
    met = {frozenset((x["ns"], x["ew"])) for x in lines if "ns" in x}
    byes = Counter(x["bye"] for x in lines if "bye" in x)
    bad = sum(frozenset((t["ns"], t["ew"])) in met for t in draw_json["tables"])
    gap = sum(abs(mp[t["ns"]] - mp[t["ew"]]) for t in draw_json["tables"])
    place = no_show = 0
    if draw_json["bye"]:
        bad += byes[draw_json["bye"]]
        no_show = int(draw_json["bye"] in _no_shows(lines))
        place = _above_last(teams, lines)[draw_json["bye"]]
    return bad, no_show, place, gap


def check_shape(d: dict[str, Any], teams: list[str]) -> None:
    seated = [t["ns"] for t in d["tables"]] + [t["ew"] for t in d["tables"]] + ([d["bye"]] if d["bye"] else [])
    assert sorted(seated) == sorted(teams)
    assert [t["table"] for t in d["tables"]] == [str(i) for i in range(1, len(teams) // 2 + 1)]
    assert (d["bye"] is None) == (len(teams) % 2 == 0)


@settings(max_examples=80, deadline=None)
@given(n=st.integers(2, 9), rounds=st.integers(0, 5), seed=st.integers(0, 100_000),
       no_shows=st.sampled_from((0.0, 0.4)))
def test_swiss_is_optimal_against_brute_force(n: int, rounds: int, seed: int, no_shows: float) -> None:
    rng = random.Random(seed)
    teams = [f"T{i}" for i in range(n)]
    lines = random_history(rng, teams, rounds, no_shows)
    res = parse_results_text("\n".join(json.dumps(x) for x in lines))
    d = swiss(teams, res).to_json()
    check_shape(d, teams)
    assert d["round"] == rounds + 1
    assert score_of(d, teams, lines) == brute_best(teams, lines)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(3, 12), seed=st.integers(0, 100_000), no_shows=st.sampled_from((0.0, 0.3)))
def test_swiss_rounds_balance_directions_and_stay_optimal(n: int, seed: int, no_shows: float) -> None:
    rng = random.Random(seed)
    teams = [f"T{i}" for i in range(n)]
    lines: list[dict[str, Any]] = []
    for _ in range(min(n - 1, 5)):
        res = parse_results_text("\n".join(json.dumps(x) for x in lines))
        d = swiss(teams, res).to_json()
        check_shape(d, teams)
        bal = {t: 0 for t in teams}
        for x in lines:
            if "ns" in x:
                bal[x["ns"]] += 1
                bal[x["ew"]] -= 1
        for t in d["tables"]:
            # The team that sat NS less (net) takes NS.
            assert bal[t["ns"]] <= bal[t["ew"]]
        if n <= 9:
            assert score_of(d, teams, lines) == brute_best(teams, lines)
        lines += play(rng, d, no_shows)


@pytest.mark.parametrize("n", range(2, 13))
def test_round_robin_meets_everyone_once(n: int) -> None:
    teams = [f"T{i}" for i in range(n)]
    lines: list[dict[str, Any]] = []
    rng = random.Random(n)
    rounds = n - 1 if n % 2 == 0 else n
    for _ in range(rounds):
        res = parse_results_text("\n".join(json.dumps(x) for x in lines))
        d = round_robin(teams, res).to_json()
        check_shape(d, teams)
        lines += play(rng, d)
    pairs = [frozenset((x["ns"], x["ew"])) for x in lines if "ns" in x]
    assert sorted(pairs, key=sorted) == sorted((frozenset(p) for p in itertools.combinations(teams, 2)), key=sorted)
    byes = [x["bye"] for x in lines if "bye" in x]
    assert sorted(byes) == (sorted(teams) if n % 2 else [])
    bal = {t: 0 for t in teams}
    for x in lines:
        if "ns" in x:
            bal[x["ns"]] += 1
            bal[x["ew"]] -= 1
    assert max(abs(v) for v in bal.values()) <= 2


def test_a_team_not_in_the_list_is_refused() -> None:
    res = parse_results_text('{"round":1,"table":"1","ns":"A","ew":"X","ns_levels":1,"ew_levels":2}')
    with pytest.raises(EventInputError, match="'X'"):
        swiss(["A", "B"], res)


def test_large_field_stays_rematch_free() -> None:
    rng = random.Random(5)
    teams = [f"T{i}" for i in range(301)]
    lines: list[dict[str, Any]] = []
    for _ in range(4):
        d = swiss(teams, parse_results_text("\n".join(json.dumps(x) for x in lines))).to_json()
        check_shape(d, teams)
        lines += play(rng, d)
    pairs = [frozenset((x["ns"], x["ew"])) for x in lines if "ns" in x]
    assert len(pairs) == len(set(pairs))


def test_the_bye_goes_to_the_lowest_ranked_team_that_has_had_none() -> None:
    """The leader, alone on 4 points, took the bye (a free third win) while T01, lower and without a
    bye, played: the bye counted only as a match-point gap, a tie the ranking distance then broke."""
    lines = [{"round": 1, "bye": "T05"},
             {"round": 1, "table": "1", "ns": "T01", "ew": "T03", "ns_levels": 2, "ew_levels": 5},
             {"round": 1, "table": "2", "ns": "T04", "ew": "T02", "ns_levels": 2, "ew_levels": 9},
             {"round": 2, "bye": "T04"},
             {"round": 2, "table": "1", "ns": "T02", "ew": "T03", "ns_levels": 4, "ew_levels": 7},
             {"round": 2, "table": "2", "ns": "T05", "ew": "T01", "forfeit": "ns"}]
    teams = [f"T0{i}" for i in range(1, 6)]
    d = swiss(teams, parse_results_text("\n".join(json.dumps(x) for x in lines))).to_json()
    assert d["bye"] == "T01"
    assert {frozenset((t["ns"], t["ew"])) for t in d["tables"]} == {frozenset(("T03", "T04")), frozenset(("T02", "T05"))}


def test_a_small_field_over_many_rounds_shares_the_byes() -> None:
    """Three teams, nine rounds: every round a bye, every pairing a rematch from round 3 on; the byes
    go round, three each, never a team's third while another has had fewer."""
    teams = ["A", "B", "C"]
    rng = random.Random(5)
    lines: list[dict[str, Any]] = []
    for _ in range(9):
        d = swiss(teams, parse_results_text("\n".join(json.dumps(x) for x in lines))).to_json()
        had = Counter(x["bye"] for x in lines if "bye" in x)
        assert had[d["bye"]] == min(had[t] for t in teams), (d["round"], d["bye"], dict(had))
        lines += play(rng, d)
    assert Counter(x["bye"] for x in lines if "bye" in x) == {"A": 3, "B": 3, "C": 3}
