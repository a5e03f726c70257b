"""``guandan-table event standings|pair``: the documented JSON shapes, and one clear line on bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from table_service.cli import main

RESULTS = [
    {"round": 1, "table": "1", "ns": "A", "ew": "B", "ns_levels": 13, "ew_levels": 4},
    {"round": 1, "table": "2", "ns": "C", "ew": "D", "ns_levels": 5, "ew_levels": 5},
    {"round": 1, "bye": "E"},
]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    res = tmp_path / "RESULTS.jsonl"
    res.write_text("".join(json.dumps(r) + "\n" for r in RESULTS), encoding="utf-8")
    teams = tmp_path / "TEAMS.txt"
    teams.write_text("A\nB\nC\nD\nE\n", encoding="utf-8")
    return res, teams


def test_standings_json_shape(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["event", "standings", str(files[0]), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["standings"]
    assert [list(r) for r in out["standings"]] == [["rank", "team", "match_points", "progressive", "rounds_won",
                                                     "level_points", "levels_gained"]] * 5
    assert out["standings"][0] == {"rank": 1, "team": "A", "match_points": 2, "progressive": 0, "rounds_won": 1,
                                   "level_points": 22, "levels_gained": 13}
    assert [r["team"] for r in out["standings"]][-1] == "B"


def test_pair_json_shape(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["event", "pair", str(files[0]), "--teams", str(files[1]), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert list(out) == ["round", "tables", "bye"] and out["round"] == 2
    assert all(list(t) == ["table", "ns", "ew"] for t in out["tables"])
    assert [t["table"] for t in out["tables"]] == ["1", "2"]
    assert out["bye"] is not None and out["bye"] != "E"  # E had the bye in round 1
    assert {frozenset((t["ns"], t["ew"])) for t in out["tables"]}.isdisjoint({frozenset("AB"), frozenset("CD")})


def test_human_output(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["event", "standings", str(files[0])]) == 0
    out = capsys.readouterr().out
    assert "名次/rank" in out and "lots" in out  # C and D are tied on every column


@pytest.mark.parametrize("content,needle", [
    ('{"round":1,"table":"1","ns":"A"}\n', "missing field 'ew'"),
    ("not json\n", "not JSON"),
])
def test_bad_input_is_one_line_without_traceback(tmp_path: Path, content: str, needle: str) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content, encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "table_service", "event", "standings", str(bad)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and needle in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("错误 / error:")


def test_missing_file_and_unknown_team(tmp_path: Path, files: tuple[Path, Path],
                                       capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["event", "standings", str(tmp_path / "nope.jsonl")]) == 2
    assert "not found" in capsys.readouterr().err
    teams = tmp_path / "few.txt"
    teams.write_text("A\nB\n", encoding="utf-8")
    assert main(["event", "pair", str(files[0]), "--teams", str(teams)]) == 2
    assert "not in the teams list" in capsys.readouterr().err


def test_export_from_a_hub_log_matches_the_cli_standings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from table_service.event.config import validate
    from table_service.event.hub import HubService

    hub = HubService(validate({"event": {"id": "x", "rounds": 2}, "teams": [{"id": f"T{i}"} for i in range(5)]}),
                     tmp_path / "hub", connect=False)
    for rnd in (1, 2):
        hub.draw_next("o", "chief")
        hub.publish_draw(rnd, "o", "chief")
        for i, t in enumerate(hub.core.draws[rnd]["tables"]):
            hub.hand_result({"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": i + rnd,
                             "ew_levels": 2 * i}, "o", "chief")
    hub_standings = hub.standings_json()["standings"]
    hub.stop()
    assert main(["event", "export", str(tmp_path / "hub")]) == 0
    results = tmp_path / "R.jsonl"
    results.write_text(capsys.readouterr().out, encoding="utf-8")
    assert len(results.read_text().splitlines()) == 6  # 2 tables + a bye, twice
    assert main(["event", "standings", str(results), "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)["standings"]
    assert cli == [{k: v for k, v in r.items() if k != "name"} for r in hub_standings]
    assert main(["event", "export", str(tmp_path / "nothing")]) == 2
    assert "no hub event log" in capsys.readouterr().err
