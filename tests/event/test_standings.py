"""Standings against the rules file: worked examples and a brute force on random small events."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from event_brute import columns
from hypothesis import given, settings
from hypothesis import strategies as st

from table_service.event.model import EventInputError, parse_result, parse_results_text
from table_service.event.standings import (
    MATCH_POINT_SCHEMES,
    ScoringOptions,
    compute_standings,
    draw_lots,
    progressive_points,
)

KEYS = ("match_points", "progressive", "rounds_won", "level_points", "levels_gained")


def test_progressive_points_cut_the_first_round() -> None:
    # Running totals 2, 3, 5 -> from round 2 on: 3 + 5.
    assert progressive_points([2, 1, 2]) == 8
    assert progressive_points([2]) == 0
    # An early win is worth more than a late one.
    assert progressive_points([2, 0, 0]) > progressive_points([0, 0, 2])


def test_level_points_forfeit_and_penalty_score() -> None:
    r = parse_result({"round": 1, "table": "1", "ns": "A", "ew": "B", "ns_levels": 9, "ew_levels": 4})
    assert r.level_points() == (18, 8) and r.outcome() == ("win", "loss")
    r = parse_result({"round": 1, "table": "1", "ns": "A", "ew": "B", "ns_levels": 0, "ew_levels": 13})
    assert r.level_points() == (0, 26)
    f = parse_result({"round": 1, "table": "1", "ns": "A", "ew": "B", "forfeit": "ns"})
    assert f.level_points() == (0, 17) and f.outcome() == ("forfeit", "win")
    p = parse_result({"round": 1, "table": "1", "ns": "A", "ew": "B", "ns_levels": 6, "ew_levels": 7,
                      "ns_score": 17, "ew_score": 9})
    assert p.level_points() == (17, 9) and p.outcome() == ("win", "loss")


def test_worked_example_with_lots() -> None:
    text = "\n".join([
        '{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":13,"ew_levels":4}',
        '{"round":1,"table":"2","ns":"C","ew":"D","ns_levels":5,"ew_levels":5}',
        '{"round":2,"table":"1","ns":"A","ew":"C","ns_levels":2,"ew_levels":3}',
        '{"round":2,"table":"2","ns":"B","ew":"D","forfeit":"ew"}',
    ])
    st_ = compute_standings(parse_results_text(text), seed=7)
    rows = {r["team"]: r for r in st_.to_json()["standings"]}
    assert rows["A"] == {"rank": rows["A"]["rank"], "team": "A", "match_points": 2, "progressive": 2,
                         "rounds_won": 1, "level_points": 22 + 12, "levels_gained": 15}
    assert rows["C"]["match_points"] == 3 and rows["C"]["progressive"] == 3 and rows["C"]["rank"] == 1
    # A and B: 2 MP, progressive A 2+0=2 vs B 0+2=2, won 1 each; 级差分 A 34, B 4+17=21.
    assert rows["A"]["rank"] < rows["B"]["rank"]
    assert rows["D"]["match_points"] == 1


def test_full_tie_goes_to_seeded_lots_and_a_recorded_order_is_kept() -> None:
    text = ('{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":5,"ew_levels":5}\n'
            '{"round":1,"table":"2","ns":"C","ew":"D","ns_levels":5,"ew_levels":5}\n')
    res = parse_results_text(text)
    a = compute_standings(res, seed=1)
    assert a.lots == [{"teams": ["A", "B", "C", "D"], "order": draw_lots("ABCD", 1)}]
    assert [r.team for r in a.rows] == a.lots[0]["order"]
    assert [r.team for r in compute_standings(res, seed=1).rows] == a.lots[0]["order"]
    fixed = ["D", "A", "C", "B"]
    b = compute_standings(res, seed=99, recorded_lots={("A", "B", "C", "D"): fixed})
    assert [r.team for r in b.rows] == fixed


def test_three_two_one_zero_scheme() -> None:
    opts = ScoringOptions().with_options(**MATCH_POINT_SCHEMES["3-2-1-0"])
    res = parse_results_text('{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":1,"ew_levels":4}\n'
                             '{"round":1,"bye":"C"}\n')
    rows = {r.team: r for r in compute_standings(res, opts=opts).rows}
    assert (rows["B"].match_points, rows["A"].match_points, rows["C"].match_points) == (3, 1, 3)


@pytest.mark.parametrize("line,needle", [
    ('{"round":1,"table":"1","ns":"A","ew":"A","ns_levels":1,"ew_levels":2}', "itself"),
    ('{"round":0,"table":"1","ns":"A","ew":"B","ns_levels":1,"ew_levels":2}', "round"),
    ('{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":14,"ew_levels":2}', "ns_levels"),
    ('{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":1,"ew_levels":2,"forfeit":"x"}', "forfeit"),
    ('{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":1,"ew_levels":2,"ns_score":3}', "together"),
    ('{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":2,"ew_levels":9,"ns_score":13,"ew_score":13}', "penalty loss"),
    ('{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":0,"ew_levels":0,"ns_score":26,"ew_score":26}', "penalty loss"),
    ('{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":0,"ew_levels":0,"ns_score":16,"ew_score":10}', "penalty loss"),
    ('{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":1,"ew_levels":2,"colour":1}', "unknown"),
    ('{"round":1,"table":"\\ud800","ns":"A","ew":"B","ns_levels":1,"ew_levels":2}', "invalid table"),
    ('{"round":1,"table":"1\\n","ns":"A","ew":"B","ns_levels":1,"ew_levels":2}', "invalid table"),
    ('[1,2]', "JSON object"),
    # In words, both halves, no Python sentence ("Exceeds the limit (4300 digits)…", "maximum recursion depth")
    ('{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":' + "9" * 5000 + ',"ew_levels":2}', "too long"),
    ("[" * 100_000, "nested too deep"),
    ('{"round":1,', "not JSON"),
])
def test_bad_lines_are_refused_with_their_line_number(line: str, needle: str) -> None:
    with pytest.raises(EventInputError) as err:
        parse_results_text('{"round":1,"bye":"Z"}\n' + line)
    assert "line 2" in str(err.value) and needle in str(err.value) and "\n" not in str(err.value)


def test_a_team_twice_in_a_round_is_refused() -> None:
    with pytest.raises(EventInputError, match="twice"):
        parse_results_text('{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":1,"ew_levels":2}\n'
                           '{"round":1,"table":"2","ns":"A","ew":"C","ns_levels":1,"ew_levels":2}\n')


def random_event(rng: random.Random, n: int, rounds: int) -> list[dict[str, Any]]:
    """Random (not Swiss) pairings with random outcomes, forfeits, penalty scores and byes."""
    teams = [f"T{i}" for i in range(n)]
    lines: list[dict[str, Any]] = []
    for rnd in range(1, rounds + 1):
        order = teams[:]
        rng.shuffle(order)
        if len(order) % 2:
            lines.append({"round": rnd, "bye": order.pop()})
        for i in range(0, len(order), 2):
            line: dict[str, Any] = {"round": rnd, "table": str(i // 2 + 1), "ns": order[i], "ew": order[i + 1],
                                    "ns_levels": rng.randint(0, 13), "ew_levels": rng.randint(0, 13)}
            roll = rng.random()
            if roll < 0.1:
                line["forfeit"] = rng.choice(["ns", "ew"])
            elif roll < 0.2:
                # 13 + d : 13 - d for the side that did not offend, d = its lead in levels, at least 4
                ns_wins = rng.random() < 0.5
                won, lost = (line["ns_levels"], line["ew_levels"]) if ns_wins else (line["ew_levels"], line["ns_levels"])
                d = min(13, max(4, won - lost))
                line["ns_score"], line["ew_score"] = (13 + d, 13 - d) if ns_wins else (13 - d, 13 + d)
            elif roll < 0.4:
                line["ew_levels"] = line["ns_levels"]
            lines.append(line)
    return lines


@settings(max_examples=60, deadline=None)
@given(n=st.integers(2, 9), rounds=st.integers(1, 5), seed=st.integers(0, 10_000))
def test_standings_match_a_brute_force(n: int, rounds: int, seed: int) -> None:
    import json

    lines = random_event(random.Random(seed), n, rounds)
    teams = [f"T{i}" for i in range(n)]
    res = parse_results_text("\n".join(json.dumps(x) for x in lines))
    got = compute_standings(res, teams, seed=seed).to_json()["standings"]
    ref = columns(lines, teams)
    assert sorted(r["team"] for r in got) == sorted(teams)
    assert [r["rank"] for r in got] == list(range(1, n + 1))
    for row in got:
        assert {k: row[k] for k in KEYS} == {k: ref[row["team"]][k] for k in KEYS}, row["team"]
    keys = [tuple(r[k] for k in KEYS) for r in got]
    assert keys == sorted(keys, reverse=True)
    # Equal on every column <=> decided by lots: each such group is one recorded lot in drawn order.
    lots = compute_standings(res, teams, seed=seed).lots
    for lot in lots:
        idx = [next(i for i, r in enumerate(got) if r["team"] == t) for t in lot["order"]]
        assert idx == sorted(idx) and idx == list(range(idx[0], idx[0] + len(idx)))
        assert len({keys[i] for i in idx}) == 1
    tied_groups = {k for k in keys if keys.count(k) > 1}
    assert len(tied_groups) == len(lots)


def test_a_preset_that_ranks_by_head_to_head() -> None:
    from table_service.rules.ruleset import get_ruleset

    rs = get_ruleset("jiangsu-2013", tiebreak=["match_points", "head_to_head", "net_level_difference"])
    opts = ScoringOptions.from_ruleset(rs)
    assert opts.tiebreak == ("match_points", "head_to_head", "net_level_difference")
    text = "\n".join([
        '{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":3,"ew_levels":2}',
        '{"round":1,"table":"2","ns":"C","ew":"D","ns_levels":13,"ew_levels":0}',
        '{"round":2,"table":"1","ns":"B","ew":"C","ns_levels":13,"ew_levels":0}',
        '{"round":2,"table":"2","ns":"D","ew":"A","ns_levels":13,"ew_levels":0}',
        '{"round":3,"table":"1","ns":"C","ew":"A","ns_levels":13,"ew_levels":0}',
        '{"round":3,"table":"2","ns":"B","ew":"D","ns_levels":1,"ew_levels":0}',
    ])
    res = parse_results_text(text)
    # B and C: 4 MP each, progressive 6 each, 2 rounds won each, 52 级差分 each; C gained more
    # levels (26 v 16) so the rules file ranks C first — but B beat C, so head-to-head puts B first.
    assert [r.team for r in compute_standings(res).rows] == ["C", "B", "D", "A"]
    assert [r.team for r in compute_standings(res, opts=opts).rows] == ["B", "C", "D", "A"]


def test_the_hub_and_the_ruleset_share_one_tie_break_default() -> None:
    """The hub's scoring starts from the ruleset's own defaults (one source, not two copies that
    can disagree): the default options are the default ruleset's."""
    from table_service.rules.ruleset import DEFAULT_TIEBREAK, Ruleset, get_ruleset

    assert ScoringOptions().tiebreak == Ruleset().tiebreak == DEFAULT_TIEBREAK
    assert ScoringOptions.from_ruleset(get_ruleset()) == ScoringOptions()
    rs = Ruleset()
    assert (ScoringOptions().win, ScoringOptions().draw, ScoringOptions().loss, ScoringOptions().forfeit,
            ScoringOptions().bye) == (rs.match_points_win, rs.match_points_draw, rs.match_points_loss,
                                      rs.match_points_forfeit, rs.match_points_bye)


# X: a narrow win and a heavy loss (2 MP, 1 round won, 14 级差分); Y: two draws (2 MP, 0 rounds
# won, 26 级差分). Equal match points and progressive points (2 each): the next key decides.
_X_AND_Y = "\n".join([
    '{"round":1,"table":"1","ns":"X","ew":"A","ns_levels":3,"ew_levels":2}',
    '{"round":1,"table":"2","ns":"Y","ew":"B","ns_levels":5,"ew_levels":5}',
    '{"round":2,"table":"1","ns":"X","ew":"B","ns_levels":0,"ew_levels":13}',
    '{"round":2,"table":"2","ns":"Y","ew":"A","ns_levels":5,"ew_levels":5}',
])


def test_the_event_s_ruleset_orders_the_tie_break_through_the_hub_config() -> None:
    """EVENT.toml's ``[ruleset_options] tiebreak`` reaches the hub's standings (validate →
    scoring_of): 级差分 before rounds won puts Y above X; the default order puts X above Y."""
    from table_service.event.config import scoring_of, validate

    def cfg(options: dict[str, Any]) -> dict[str, Any]:
        return validate({"event": {"id": "tb", "rounds": 2}, "ruleset_options": options,
                         "teams": [{"id": t, "players": [f"{t}1", f"{t}2"]} for t in "XYAB"]})

    res = parse_results_text(_X_AND_Y)
    default = [r.team for r in compute_standings(res, opts=scoring_of(cfg({}))).rows]
    assert default.index("X") < default.index("Y"), default
    points_first = cfg({"tiebreak": ["match_points", "progressive_points", "level_difference_points", "rounds_won"]})
    ranked = [r.team for r in compute_standings(res, opts=scoring_of(points_first)).rows]
    assert ranked.index("Y") < ranked.index("X"), ranked


def test_a_forfeit_under_three_two_one_zero_scores_the_forfeit_not_a_loss() -> None:
    """Under 3-2-1-0 a loss is worth 1 and a forfeit 0 (2-1-0 cannot tell them apart)."""
    opts = ScoringOptions().with_options(**MATCH_POINT_SCHEMES["3-2-1-0"])
    res = parse_results_text('{"round":1,"table":"1","ns":"A","ew":"B","forfeit":"ns"}\n'
                             '{"round":1,"table":"2","ns":"C","ew":"D","ns_levels":1,"ew_levels":4}\n')
    rows = {r.team: r for r in compute_standings(res, opts=opts).rows}
    assert (rows["A"].match_points, rows["B"].match_points) == (0, 3)
    assert (rows["C"].match_points, rows["D"].match_points) == (1, 3)


def _order(lines: list[dict[str, Any]], opts: ScoringOptions) -> list[str]:
    return [r.team for r in compute_standings([parse_result(line) for line in lines], opts=opts, seed=1).rows]


def test_net_level_difference_counts_a_forfeit_and_a_penalty_loss_as_the_rules_score_them() -> None:
    """The net level difference is 级差分 scored minus conceded: C's opponent forfeited while ahead
    on the table (9:2), yet C won 17 : 0; X won a penalty loss fixed at 17 : 9 on a 3 : 3 table.
    Counting the table's levels ranked C below A and D (who forfeited) above B, and X below Y."""
    opts = ScoringOptions(tiebreak=("match_points", "net_level_difference"))
    forfeit = [{"round": 1, "table": "1", "ns": "A", "ew": "B", "ns_levels": 2, "ew_levels": 0},
               {"round": 1, "table": "2", "ns": "C", "ew": "D", "ns_levels": 2, "ew_levels": 9, "forfeit": "ew"}]
    assert _order(forfeit, opts) == ["C", "A", "B", "D"]
    penalty = [{"round": 1, "table": "1", "ns": "X", "ew": "W", "ns_levels": 3, "ew_levels": 3,
                "ns_score": 17, "ew_score": 9},
               {"round": 1, "table": "2", "ns": "Y", "ew": "Z", "ns_levels": 5, "ew_levels": 4}]
    assert _order(penalty, opts) == ["X", "Y", "Z", "W"]


@pytest.mark.parametrize("scheme, bye_points, won", [("2-1-0", 2, 1), ("2-1-0", 1, 0), ("2-1-0", 0, 0),
                                                     ("3-2-1-0", 3, 1), ("3-2-1-0", 2, 0)])
def test_a_bye_is_a_round_won_only_when_worth_a_win(scheme: str, bye_points: int, won: int) -> None:
    """An organiser may set a bye to a draw's points or none (the rules are silent): such a bye is
    not a round won, or the bye team would rank above teams that drew on the rounds-won key."""
    opts = ScoringOptions().with_options(**{**MATCH_POINT_SCHEMES[scheme], "bye": bye_points})
    res = parse_results_text('{"round":1,"bye":"A"}\n{"round":1,"table":"1","ns":"B","ew":"C","ns_levels":4,"ew_levels":4}\n')
    rows = {r.team: r for r in compute_standings(res, opts=opts).rows}
    assert (rows["A"].match_points, rows["A"].rounds_won) == (bye_points, won)


def test_a_duplicate_match_by_levels_counts_a_penalty_loss_at_its_fixed_score() -> None:
    """Room A: T1 was 8 : 2 up and lost by penalty (9 : 17, d = 4); room B drawn 3 : 3. The rules give
    room A to T2, so T2 wins the match on levels as on level points (the table's levels gave it T1)."""
    text = "".join(json.dumps(line) + "\n" for line in [
        {"round": 1, "table": "1A", "ns": "T1", "ew": "T2", "ns_levels": 8, "ew_levels": 2, "ns_score": 9, "ew_score": 17},
        {"round": 1, "table": "1B", "ns": "T2", "ew": "T1", "ns_levels": 3, "ew_levels": 3}])
    for mode in ("levels", "level_points"):
        rows = compute_standings(parse_results_text(text, duplicate=True), opts=ScoringOptions(duplicate=mode)).rows
        assert [(r.team, r.match_points, r.rounds_won) for r in rows] == [("T2", 2, 1), ("T1", 0, 0)], mode


@pytest.mark.parametrize("levels, ok", [
    ((9, 2, 17, 9), False),   # NS 7 ahead, EW offended: the table's 20 : 6 stands
    ((9, 2, 20, 6), True),
    ((9, 2, 5, 21), False),   # NS offended while 7 ahead: EW is scored the offender's level + 4
    ((9, 2, 9, 17), True),
    ((3, 3, 17, 9), True),
    ((3, 3, 20, 6), False),
    ((0, 13, 26, 0), False),  # NS won a penalty 13 down: d = 4
    ((0, 13, 0, 26), True),   # EW won it 13 up: the table's 26 : 0 stands
])
def test_a_penalty_loss_score_is_the_one_the_rules_give_for_its_levels(levels: tuple, ok: bool) -> None:
    """The standings audit: the hub took any 13+d : 13−d with d ≥ 4, so 17 : 9 on a table where the
    winner was 7 levels up (the rules: the table score, 20 : 6) was ranked as entered."""
    a, b, ns, ew = levels
    line = {"round": 1, "table": "1", "ns": "A", "ew": "B", "ns_levels": a, "ew_levels": b, "ns_score": ns, "ew_score": ew}
    if ok:
        assert parse_result(line).level_points() == (ns, ew)
    else:
        with pytest.raises(EventInputError, match="penalty loss"):
            parse_result(line)
