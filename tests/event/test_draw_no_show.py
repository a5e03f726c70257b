"""A no-show gets no bye (audit s39): a team that forfeited its round (弃权, 17 : 0: absent, or over
10 minutes late) fell to the bottom of the standings, and the Swiss bye — a free win — went to the
lowest-ranked team: to the team that had not come. Now the bye passes over a team that forfeited
the round before while another can take it; only when every other draw needs a second bye or a
rematch does the no-show take it. A round robin's byes are its schedule's, a no-show's too. The
draw says what it did (``info``, :func:`~table_service.event.draw.bye_note`): on the pairing
sheet and in ``guandan-table event pair``."""

from __future__ import annotations

import html
import json
import random
from pathlib import Path
from typing import Any

import pytest

from table_service.event.draw import bye_note, round_robin, swiss
from table_service.event.model import parse_results_text
from table_service.event.standings import compute_standings

from .test_draw import check_shape, play
from .test_hub_web import app_with_users, login
from .test_hub_withdrawal import _open, _play


def _results(lines: list[dict[str, Any]]) -> Any:
    return parse_results_text("\n".join(json.dumps(x) for x in lines))


def test_a_team_that_forfeited_is_passed_over_for_the_next_rounds_bye() -> None:
    """T5 did not come to round 1 (17 : 0): no match points, no 级差分, the last of five. The bye
    of round 2 goes to T3, the lowest-ranked team that played; T5 plays."""
    lines = [{"round": 1, "table": "1", "ns": "T1", "ew": "T5", "forfeit": "ew"},
             {"round": 1, "table": "2", "ns": "T2", "ew": "T3", "ns_levels": 5, "ew_levels": 2},
             {"round": 1, "bye": "T4"}]
    teams = [f"T{i}" for i in range(1, 6)]
    res = _results(lines)
    assert compute_standings(res, teams).rows[-1].team == "T5"  # the no-show is the lowest ranked
    d = swiss(teams, res)
    assert d.bye == "T3"
    assert any("T5" in (ns, ew) for _, ns, ew in d.tables)
    assert d.info["no_shows_passed"] == ["T5"] and d.info["no_show_byes"] == []
    assert bye_note(d.method, d.round, d.info, {"T5": "队五"}) == (
        "第 1 轮弃权的 队五 (T5) 不轮空（缺席不得轮空）",
        "队五 (T5) forfeited round 1: passed over for the bye (an absence earns no bye)")


def test_both_sides_absent_are_both_passed_over() -> None:
    """A table both sides forfeited (0 : 0, ``forfeit: both``): neither team gets the bye."""
    lines = [{"round": 1, "table": "1", "ns": "T1", "ew": "T2", "forfeit": "both"},
             {"round": 1, "table": "2", "ns": "T3", "ew": "T4", "ns_levels": 5, "ew_levels": 2},
             {"round": 1, "table": "3", "ns": "T5", "ew": "T6", "ns_levels": 5, "ew_levels": 5},
             {"round": 1, "bye": "T7"}]
    d = swiss([f"T{i}" for i in range(1, 8)], _results(lines))
    assert d.bye not in ("T1", "T2") and d.bye == "T4"
    assert sorted(d.info["no_shows_passed"]) == ["T1", "T2"]


def test_the_no_show_takes_the_bye_when_it_is_the_only_team_that_can() -> None:
    """Three teams: A and B have had their bye, C forfeited round 2. Any other bye is a second one,
    which weighs as a rematch does, above a no-show's bye (draw.py's module doc): C has it, and the
    draw says why."""
    lines = [{"round": 1, "bye": "A"},
             {"round": 1, "table": "1", "ns": "B", "ew": "C", "ns_levels": 5, "ew_levels": 2},
             {"round": 2, "bye": "B"},
             {"round": 2, "table": "1", "ns": "A", "ew": "C", "forfeit": "ew"}]
    d = swiss(["A", "B", "C"], _results(lines))
    assert d.bye == "C" and d.info["no_show_byes"] == ["C"] and d.info["repeat_byes"] == 0
    zh, en = bye_note(d.method, d.round, d.info) or ("", "")
    assert "第 2 轮弃权的 C" in zh and "重复轮空或重复对阵" in zh
    assert "C, which forfeited round 2" in en and "second bye or a rematch" in en


def test_only_the_round_before_counts() -> None:
    """A team that forfeited round 1 and played round 2 is no no-show in round 3: the bye is its as
    the lowest-ranked team's."""
    lines = [{"round": 1, "table": "1", "ns": "A", "ew": "B", "forfeit": "ew"},
             {"round": 1, "table": "2", "ns": "C", "ew": "D", "ns_levels": 5, "ew_levels": 2},
             {"round": 1, "bye": "E"},
             {"round": 2, "table": "1", "ns": "A", "ew": "C", "ns_levels": 5, "ew_levels": 2},
             {"round": 2, "table": "2", "ns": "E", "ew": "B", "ns_levels": 9, "ew_levels": 0},
             {"round": 2, "bye": "D"}]
    teams = ["A", "B", "C", "D", "E"]
    res = _results(lines)
    assert compute_standings(res, teams).rows[-1].team == "B"
    d = swiss(teams, res)
    assert d.bye == "B" and d.info["no_shows_passed"] == [] and d.info["no_show_byes"] == []
    assert bye_note(d.method, d.round, d.info) is None


def test_a_large_field_passes_over_more_no_shows_than_one_window_holds() -> None:
    """401 teams (past ``EXACT_N``: solved by regions), 15 no-shows in round 1, all at the bottom:
    more than the bottom region of one window holds, so it widens until a team that played is in
    it; that team, the lowest-ranked one that played and has had no bye, gets the bye."""
    rng = random.Random(3)
    teams = [f"T{i:03d}" for i in range(401)]
    d1 = swiss(teams, []).to_json()
    lines = play(rng, d1)
    absent = set()
    for line in lines[:15]:
        line.pop("ns_levels"), line.pop("ew_levels")
        line["forfeit"] = "ew"
        absent.add(line["ew"])
    res = _results(lines)
    d = swiss(teams, res)
    check_shape(d.to_json(), teams)
    rows = [r.team for r in compute_standings(res, teams).rows]
    assert set(rows[-15:]) == absent  # 0 match points, 0 级差分: the last fifteen
    assert d.bye == next(t for t in reversed(rows) if t not in absent and t != d1["bye"])
    assert sorted(d.info["no_shows_passed"]) == sorted(absent) and d.info["rematches"] == 0


def test_a_round_robin_keeps_its_schedule_and_says_the_no_show_has_its_scheduled_bye() -> None:
    """Five teams: the circle gives each one bye. The team whose bye falls in round 2 forfeited round
    1; round 2 is still the schedule's (moving the bye would break it), and the draw says so."""
    teams = ["A", "B", "C", "D", "E"]
    scheduled = round_robin(teams, round_no=2)
    first = round_robin(teams).to_json()
    rng = random.Random(1)
    lines = play(rng, first)
    for line in lines:
        if scheduled.bye in (line.get("ns"), line.get("ew")):
            line.pop("ns_levels"), line.pop("ew_levels")
            line["forfeit"] = "ns" if line["ns"] == scheduled.bye else "ew"
    d = round_robin(teams, _results(lines))
    def pairs(draw: Any) -> set[frozenset[str]]:  # the sides follow the NS/EW balance so far
        return {frozenset((ns, ew)) for _, ns, ew in draw.tables}

    assert (d.round, pairs(d), d.bye) == (2, pairs(scheduled), scheduled.bye)
    assert d.info["no_show_byes"] == [scheduled.bye]
    zh, en = bye_note(d.method, d.round, d.info) or ("", "")
    assert f"{scheduled.bye} 第 1 轮弃权，仍按赛程轮空" in zh
    assert f"{scheduled.bye} forfeited round 1 and keeps its scheduled bye" in en


def test_the_hub_passes_over_the_no_show_and_its_pairing_sheet_says_so(tmp_path: Path) -> None:
    """At the hub: nine teams, T5's table of round 1 entered as its forfeit; round 2's draft gives
    the bye to a team that played, and the printed pairing sheet names T5 as passed over."""
    hub = _open(tmp_path / "hub", n=9)
    try:
        app = app_with_users(hub, tmp_path)
        _play(hub, 1, forfeit_of="T5")
        assert hub.standings_json()["standings"][-1]["team"] == "T5"
        hub.draw_next("org", "referee")
        d = hub.core.draws[2]
        assert d["bye"] != "T5" and d["info"]["no_shows_passed"] == ["T5"]
        c = app.test_client()
        login(c, "chen")
        sheet = html.unescape(c.get("/hub/print/draw/2").get_data(as_text=True))
        assert ('<p id="bye-note">第 1 轮弃权的 队5 (T5) 不轮空（缺席不得轮空） / 队5 (T5) forfeited round 1: '
                "passed over for the bye (an absence earns no bye)</p>") in sheet
        assert 'id="bye-note"' not in c.get("/hub/print/draw/1").get_data(as_text=True)
    finally:
        hub.stop()


def test_event_pair_prints_why_the_bye_passed_over_a_no_show(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from table_service.cli import main

    (tmp_path / "R.jsonl").write_text(
        '{"round": 1, "table": "1", "ns": "T1", "ew": "T5", "forfeit": "ew"}\n'
        '{"round": 1, "table": "2", "ns": "T2", "ew": "T3", "ns_levels": 5, "ew_levels": 2}\n'
        '{"round": 1, "bye": "T4"}\n', encoding="utf-8")
    (tmp_path / "TEAMS.txt").write_text("T1\nT2\nT3\nT4\nT5\n", encoding="utf-8")
    assert main(["event", "pair", str(tmp_path / "R.jsonl"), "--teams", str(tmp_path / "TEAMS.txt")]) == 0
    out = capsys.readouterr().out
    assert "轮空 / bye: T3" in out
    assert "第 1 轮弃权的 T5 不轮空（缺席不得轮空） / T5 forfeited round 1: passed over for the bye" in out
    # --json carries it too: the draw's info, and its note as the printed draw words it
    assert main(["event", "pair", str(tmp_path / "R.jsonl"), "--teams", str(tmp_path / "TEAMS.txt"), "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["bye"] == "T3" and got["info"]["no_shows_passed"] == ["T5"] and got["info"]["no_show_byes"] == []
    assert got["bye_note"] == ("第 1 轮弃权的 T5 不轮空（缺席不得轮空） / T5 forfeited round 1: passed over for the bye "
                               "(an absence earns no bye)")
