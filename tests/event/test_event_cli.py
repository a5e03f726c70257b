"""``guandan-table event standings|pair``: the documented JSON shapes, and one clear line on bad input."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

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
    assert list(out) == ["round", "tables", "bye", "method", "info", "bye_note"] and out["round"] == 2
    assert out["method"] == "swiss" and out["bye_note"] is None  # nobody forfeited round 1
    assert out["info"]["no_show_byes"] == out["info"]["no_shows_passed"] == [] and "regions" not in out["info"]
    assert all(list(t) == ["table", "ns", "ew"] for t in out["tables"])
    assert [t["table"] for t in out["tables"]] == ["1", "2"]
    assert out["bye"] is not None and out["bye"] != "E"  # E had the bye in round 1
    assert {frozenset((t["ns"], t["ew"])) for t in out["tables"]}.isdisjoint({frozenset("AB"), frozenset("CD")})


def test_human_output(files: tuple[Path, Path], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["event", "standings", str(files[0])]) == 0
    out = capsys.readouterr().out
    assert "名次 / rank" in out and "lots" in out  # C and D are tied on every column


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
    # The hub's rows add the team's name and its withdrawal (退赛) to the columns of a RESULTS file.
    assert cli == [{k: v for k, v in r.items() if k not in ("name", "withdrawn")} for r in hub_standings]
    assert main(["event", "export", str(tmp_path / "nothing")]) == 2
    assert "no hub event log" in capsys.readouterr().err


# ------------------------------------------------------------------ the bad-input corpus (issue 19)
# Every `event` sub-command and `hub` with bad input: one clear line naming the problem (argparse
# may add its usage line), a non-zero exit, no traceback, every input file byte-identical.

GOOD = '{"round": 1, "table": "1", "ns": "A", "ew": "B", "ns_levels": 3, "ew_levels": 1}\n'
EVENT = '[event]\nid = "x"\nrounds = 3\n{event}\n{more}\n[[teams]]\nid = "A"\n[[teams]]\nid = "B"\n'


def _event_toml(tmp: Path, event: str = "", more: str = "") -> str:
    p = tmp / "EVENT.toml"
    p.write_text(EVENT.format(event=event, more=more), encoding="utf-8")
    return str(p)


def _w(p: Path, data: str | bytes) -> str:
    if isinstance(data, bytes):
        p.write_bytes(data)
    else:
        p.write_text(data, encoding="utf-8")
    return str(p)


def _standings(line: str) -> Any:
    return lambda t: ["event", "standings", _w(t / "R.jsonl", line)]


def _pair_teams(teams: str | bytes | None) -> Any:
    def argv(t: Path) -> list[str]:
        path = str(t) if teams is None else _w(t / "TEAMS.txt", teams)
        return ["event", "pair", _w(t / "R.jsonl", ""), "--teams", path]
    return argv


def _hub_garbage(t: Path) -> list[str]:
    (t / "hubd").mkdir()
    _w(t / "hubd" / "hub-events.sqlite3", b"junk" * 300)
    return ["hub", "--event", _event_toml(t), "--data", str(t / "hubd"), "--port", "0"]


def _hub_other_db(t: Path) -> list[str]:
    """A hub data folder whose hub-events.sqlite3 is another program's database (journal DELETE)."""
    import sqlite3

    (t / "hubd").mkdir()
    conn = sqlite3.connect(t / "hubd" / "hub-events.sqlite3")
    conn.execute("CREATE TABLE users (name TEXT)")
    conn.commit()
    conn.close()
    return ["hub", "--event", _event_toml(t), "--data", str(t / "hubd"), "--port", "0"]


def _hub(event: str = "", more: str = "", *extra: str) -> Any:
    return lambda t: ["hub", "--event", _event_toml(t, event, more), "--port", "0", *extra]


def _tied(t: Path) -> str:
    """RESULTS with a full tie (A and B level): the standings draw lots from ``--seed``."""
    return _w(t / "R.jsonl", GOOD.replace('"ns_levels": 3', '"ns_levels": 1'))


def _export_table_log(t: Path) -> list[str]:
    """A hub data folder whose hub-events.sqlite3 is a table's event log (schema 2: it was called "newer")."""
    from table_service.store.event_log import EventStore

    (t / "hubd").mkdir()
    with EventStore(t / "hubd" / "hub-events.sqlite3") as store:
        store.append({"type": "clock_ticked", "source": "clock", "t_ms": 1, "data": {}})
    return ["event", "export", str(t / "hubd")]


def _provision(*extra: str) -> Any:
    """``event provision`` with ``extra``, where ``{t}`` is the test's folder and ``{t}/f.txt`` a file."""
    def argv(t: Path) -> list[str]:
        _w(t / "f.txt", "x")
        return ["event", "provision", "--event", _event_toml(t), *(e.format(t=t) for e in extra)]
    return argv


CORPUS: list[tuple[str, Any, str]] = [
    # RESULTS lines
    ("results-bad-json", _standings("{bad\n"), "not JSON"),
    ("results-not-an-object", _standings('"x"\n'), "JSON object"),
    ("results-deep-nesting", _standings("[" * 100_000 + "\n"), "unusable JSON"),
    ("results-5000-digits", _standings('{"round": ' + "1" * 5000 + "}\n"), "unusable JSON"),
    ("results-key-twice", _standings(GOOD.replace('"round": 1,', '"round": 1, "round": 2,')), "given twice"),
    ("results-round-as-text", _standings(GOOD.replace('"round": 1', '"round": "1"')), "round must be an integer"),
    ("results-levels-14", _standings(GOOD.replace('"ns_levels": 3', '"ns_levels": 14')), "ns_levels must be an integer 0-13"),
    ("results-levels-negative", _standings(GOOD.replace('"ew_levels": 1', '"ew_levels": -1')), "ew_levels must be"),
    ("results-levels-float", _standings(GOOD.replace('"ew_levels": 1', '"ew_levels": 1.0')), "ew_levels must be"),
    ("results-levels-bool", _standings(GOOD.replace('"ew_levels": 1', '"ew_levels": true')), "ew_levels must be"),
    ("results-forfeit-all", _standings(GOOD.replace('"ns_levels"', '"forfeit": "all", "ns_levels"')),
     "forfeit must be 'ns', 'ew' or 'both'"),
    ("results-team-list", _standings(GOOD.replace('"ns": "A"', '"ns": ["A"]')), "invalid team id in 'ns'"),
    # Each half says what the other does: the rule was in the English half alone, the value in the Chinese.
    ("results-team-null", _standings(GOOD.replace('"ns": "A"', '"ns": null')),
     "队名无效 ns=None（须为 1–64 个可打印字符） / invalid team id in 'ns' (1-64 printable characters), got None"),
    ("results-team-control-char", _standings(GOOD.replace('"ns": "A"', '"ns": "A\\u0000"')), "invalid team id"),
    ("results-unknown-field", _standings(GOOD.replace('"ns": "A"', '"ns": "A", "nss": 1')), "unknown field"),
    ("results-missing-field", _standings('{"round": 1, "table": "1", "ns": "A"}\n'), "missing field 'ew'"),
    ("results-plays-itself", _standings(GOOD.replace('"ew": "B"', '"ew": "A"')), "cannot play itself"),
    ("results-table-twice", _standings(GOOD + GOOD.replace('"A"', '"C"').replace('"B"', '"D"')),
     "table '1' appears twice in round 1"),
    ("results-team-twice", _standings(GOOD + GOOD.replace('"table": "1"', '"table": "2"').replace('"B"', '"D"')),
     "team 'A' appears twice in round 1 (tables 1 and 2)"),
    ("results-odd-digit-table", _standings(GOOD.replace('"table": "1"', '"table": "²"') +
                                           GOOD.replace('"A"', '"C"').replace('"B"', '"D"').replace('"1"', '"3"')),
     ""),  # accepted: '²' is a table name like any other (it crashed the sort before)
    ("results-binary", lambda t: ["event", "standings", _w(t / "R.jsonl", b"\xff\xfe\x00junk")], "cannot read RESULTS"),
    ("results-directory", lambda t: ["event", "standings", str(t)], "cannot read RESULTS"),
    ("results-missing", lambda t: ["event", "standings", str(t / "nope.jsonl")], "not found"),
    ("results-unknown-team", lambda t: ["event", "pair", _w(t / "R.jsonl", GOOD.replace('"B"', '"Z"')),
                                        "--teams", _w(t / "TEAMS.txt", "A\nB\nC\n")], "not in the teams list"),
    ("pair-round-missing", lambda t: ["event", "pair", _w(t / "R.jsonl", GOOD.replace('"round": 1', '"round": 2')),
                                      "--teams", _w(t / "TEAMS.txt", "A\nB\n")], "no line for round 1"),
    ("pair-round-incomplete", lambda t: ["event", "pair", _w(t / "R.jsonl", GOOD),
                                         "--teams", _w(t / "TEAMS.txt", "A\nB\nC\nD\n")],
     "round 1 is incomplete: no result or bye for C, D"),
    # TEAMS
    ("teams-missing", lambda t: ["event", "pair", _w(t / "R.jsonl", ""), "--teams", str(t / "no.txt")], "not found"),
    ("teams-directory", _pair_teams(None), "cannot read TEAMS"),
    ("teams-garbage", _pair_teams(b"\x00\xff\xfe" * 50), "cannot read TEAMS"),
    ("teams-one", _pair_teams("A\n"), "at least two teams"),
    ("teams-duplicate", _pair_teams("A\nB\nA\n"), "duplicate team 'A'"),
    ("teams-control-char", _pair_teams("A\nB\x00C\nD\n"), "invalid team id"),
    ("teams-too-long", _pair_teams("A\n" + "x" * 65 + "\n"), "1-64 printable characters"),
    # options
    ("option-preset", lambda t: ["event", "standings", _w(t / "R.jsonl", GOOD), "--preset", "nosuch"], "unknown preset"),
    ("option-bye-negative", lambda t: ["event", "standings", _w(t / "R.jsonl", GOOD), "--bye-points", "-5"], "0-3"),
    ("option-bye-huge", lambda t: ["event", "standings", _w(t / "R.jsonl", GOOD), "--bye-points", "9" * 30], "0-3"),
    ("option-bye-over-a-win", lambda t: ["event", "standings", _w(t / "R.jsonl", GOOD), "--bye-points", "3"], "0-2"),
    # export
    ("export-missing", lambda t: ["event", "export", str(t / "nothing")], "no hub event log"),
    ("export-a-file", lambda t: ["event", "export", _w(t / "f.txt", "x")], "not a file"),
    ("export-garbage", lambda t: ["event", "export", str(Path(_hub_garbage(t)[4]))], "not a hub event log"),
    # hub and EVENT.toml
    ("hub-event-missing", lambda t: ["hub", "--event", str(t / "nope.toml")], "event file not found"),
    ("hub-event-directory", lambda t: ["hub", "--event", str(t)], "cannot read event file"),
    ("hub-event-not-toml", lambda t: ["hub", "--event", _w(t / "E.toml", "[event\n")], "not valid TOML"),
    ("hub-event-binary", lambda t: ["hub", "--event", _w(t / "E.toml", b"\xff\xfe")], "cannot read event file"),
    ("hub-typo-key", _hub("rouns = 4"), "unknown key 'rouns' (did you mean 'rounds'?)"),
    ("hub-typo-section", _hub("", "[hubb]\nport = 1"), "unknown key 'hubb'"),
    ("hub-rounds-text", lambda t: ["hub", "--event", _w(t / "E.toml", EVENT.replace("rounds = 3", 'rounds = "3"')
                                                        .format(event="", more=""))], "'rounds' has the wrong type"),
    ("hub-name-number", _hub("name = 5"), "'name' has the wrong type"),
    ("hub-data-a-file", lambda t: ["hub", "--event", _event_toml(t, "", '[hub]\ndata = "f.bin"'), "--port", "0"]
     if _w(t / "f.bin", b"x") else [], "data folder"),
    ("hub-ruleset-number", _hub("ruleset = 5"), "'ruleset' has the wrong type"),
    ("hub-ruleset-unknown", _hub('ruleset = "nosuch"'), "unknown ruleset preset"),
    ("hub-ruleset-option-unknown", _hub("", "[ruleset_options]\nnosuch = 1"), "unknown key 'nosuch'"),
    ("hub-ruleset-option-name", _hub("", '[ruleset_options]\nname = "x"'), "unknown key 'name'"),
    ("hub-ruleset-option-bool-text", _hub("", '[ruleset_options]\nanti_tribute = "yes"'), "expected true or false"),
    ("hub-ruleset-option-clock-text", _hub("", '[ruleset_options]\nclock_lead_s = "x"'), "expected a whole number"),
    ("hub-ruleset-option-clock-huge", _hub("", "[ruleset_options]\nclock_lead_s = 99999999"), "0-86400"),
    ("hub-ruleset-option-tries-text", _hub("", '[ruleset_options]\ntries_at_a = "x"'), "expected a whole number"),
    ("hub-ruleset-option-tiebreak-number", _hub("", "[ruleset_options]\ntiebreak = 1"), "expected a list"),
    # Match points have one source, the [event] scheme: the hub ranked by it while the tables scored by these.
    ("hub-ruleset-option-match-points-win", _hub("", "[ruleset_options]\nmatch_points_win = 3"),
     'match_points_win cannot be set here: an event\'s match points come from [event] match_points = "2-1-0" or'),
    ("hub-ruleset-option-match-points-bye", _hub("", "[ruleset_options]\nmatch_points_bye = 1"),
     "match_points_bye cannot be set here: an event's match points come from [event] bye_points"),
    ("hub-match-points-a-list", _hub('match_points = ["2-1-0"]'), "match_points must be one of"),
    ("hub-match-points-a-table", _hub("match_points = {x = 1}"), "match_points must be one of"),
    ("hub-draw-a-list", _hub('draw = ["swiss"]'), "draw must be one of"),
    ("hub-format-deals-text", _hub('format = {kind = "deals", deals = "x"}'), "'deals' has the wrong type"),
    ("hub-format-deals-missing", _hub('format = {kind = "deals"}'), "needs deals"),
    ("hub-format-minutes-negative", _hub('format = {kind = "time", minutes = -5}'), "'minutes' must be 1-600"),
    ("hub-format-unknown-key", _hub('format = {kind = "past_a", deals = 3}'), "unknown key 'deals'"),
    ("hub-format-kind", _hub('format = {kind = "fast"}'), "format must be"),
    ("hub-bye-points-huge", _hub("bye_points = 99999999999"), "'bye_points' must be 0-2"),
    ("hub-bye-level-points-negative", _hub("bye_level_points = -3"), "'bye_level_points' must be 0-26"),
    ("hub-seed-float", _hub("seed = 1.5"), "seed must be an integer or string"),
    ("hub-duplicate-true", _hub("duplicate = true"), "duplicate must be"),
    ("hub-draw-unknown", _hub('draw = "random"'), "draw must be one of"),
    ("hub-port-bool", _hub("", "[hub]\nport = true"), "invalid port"),
    ("hub-mqtt-host-number", _hub("", "[mqtt]\nhost = 5"), "'host' has the wrong type"),
    ("hub-mqtt-keepalive-text", _hub("", '[mqtt]\nkeepalive = "x"'), "'keepalive' has the wrong type"),
    ("hub-mqtt-username-number", _hub("", "[mqtt]\nusername = 5"), "'username' has the wrong type"),
    ("hub-data-number", _hub("", "[hub]\ndata = 5"), "'data' has the wrong type"),
    ("hub-tables-not-entries", lambda t: ["hub", "--event", _w(t / "E.toml", "tables = 5\n" + EVENT.format(
        event="", more=""))], "tables must be [[tables]]"),
    ("hub-table-panel-number", _hub("", ""), ""),  # placeholder replaced below
    # No or one [[teams]] is an event whose teams are imported at the hub (its draw asks for two);
    # teams that are not [[teams]] entries are refused.
    ("hub-teams-not-entries", lambda t: ["hub", "--event", _w(t / "E.toml", 'teams = 5\n[event]\nid = "x"\nrounds = 3\n')],
     "teams must be [[teams]] entries"),
    ("hub-team-name-list", lambda t: ["hub", "--event", _w(t / "E.toml", EVENT.format(event="", more="").replace(
        'id = "B"', 'id = "B"\nname = [1]'))], "'name' has the wrong type"),
    ("hub-team-players-3", lambda t: ["hub", "--event", _w(t / "E.toml", EVENT.format(event="", more="").replace(
        'id = "B"', 'id = "B"\nplayers = ["a", "b", "c"]'))], "players must be 2 or 4 names"),
    ("hub-port-option-negative", _hub("", "", "--port", "-1"), "0-65535"),
    ("hub-port-option-huge", _hub("", "", "--port", "70000"), "0-65535"),
    ("hub-data-a-file", lambda t: ["hub", "--event", _event_toml(t), "--data", _w(t / "f.txt", "x"), "--port", "0"],
     "--data is a file"),
    ("hub-data-garbage-log", _hub_garbage, "not a hub event log"),
    ("hub-data-another-database", _hub_other_db, "not a hub event log"),
    ("hub-log-is-a-folder", lambda t: ((t / "hubd" / "hub-events.sqlite3").mkdir(parents=True), [
        "hub", "--event", _event_toml(t), "--data", str(t / "hubd"), "--port", "0"])[1], "not a hub event log"),
    ("export-another-database", lambda t: ["event", "export", str(Path(_hub_other_db(t)[4]))], "not a hub event log"),
    # Third probe: a seed that is not text, empty values that fell back to a default, a table's log
    # taken for a newer hub log, an address that failed only after the hub's files were made.
    ("standings-seed-not-utf8", lambda t: ["event", "standings", _tied(t), "--seed", "\udcff"], "--seed"),
    ("pair-seed-not-utf8", lambda t: ["event", "pair", _tied(t), "--teams", _w(t / "TEAMS.txt", "A\nB\n"),
                                      "--seed", "\udcff"], "--seed"),
    ("standings-teams-empty", lambda t: ["event", "standings", _w(t / "R.jsonl", GOOD), "--teams", ""], "--teams"),
    ("pair-teams-empty", lambda t: ["event", "pair", _w(t / "R.jsonl", GOOD), "--teams", ""], "--teams"),
    ("standings-results-empty-path", lambda t: ["event", "standings", ""], "empty"),
    ("export-empty-path", lambda t: ["event", "export", ""], "empty"),
    ("export-a-table-log", _export_table_log, "not a hub event log"),
    ("export-a-table-log-names-its-tables", _export_table_log, "events, meta"),
    ("hub-data-empty", _hub("", "", "--data", ""), "--data"),
    ("hub-host-empty", _hub("", "", "--host", ""), "--host"),
    ("hub-host-not-an-address", _hub("", "", "--host", "999.1.1.1"), "999.1.1.1 is not an address of this machine"),
    ("provision-out-a-file", _provision("--out", "{t}/f.txt"), "is a file"),
    ("provision-out-under-a-file", _provision("--out", "{t}/f.txt/sub"), "is a file"),
    ("provision-out-empty", _provision("--out", ""), "--out"),
    ("provision-tls-port-is-the-plain-port", _provision("--out", "{t}/m", "--tls", "127.0.0.1", "--tls-port", "1883"),
     "--tls-port 1883"),
    ("provision-tls-port-is-the-given-port", _provision("--out", "{t}/m", "--port", "1999", "--tls", "127.0.0.1",
                                                        "--tls-port", "1999"), "--tls-port 1999"),
]
CORPUS[[c[0] for c in CORPUS].index("hub-table-panel-number")] = (
    "hub-table-panel-number", lambda t: ["hub", "--event", _w(t / "E.toml", EVENT.format(event="", more="") +
                                                             '[[tables]]\nid = "1"\npanel = 5\n')],
    "'panel' has the wrong type")


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.mark.parametrize("name,argv,needle", CORPUS, ids=[c[0] for c in CORPUS])
def test_event_and_hub_bad_input(name: str, argv: Any, needle: str, tmp_path: Path,
                                 capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import table_service.event.hub_command as hub_service
    import table_service.event.web as hub_web

    def never(*_a: Any, **_k: Any) -> Any:  # a case that gets this far was accepted: fail, do not serve
        raise AssertionError(f"{name}: the hub accepted its input and started serving")

    monkeypatch.setattr(hub_web, "serve_hub", never)
    monkeypatch.setattr(hub_service, "serve_hub", never)  # the name the hub command calls (else it serves on)
    monkeypatch.chdir(tmp_path)  # a command that fell back to the working folder changes the snapshot
    args = argv(tmp_path)
    before = _snapshot(tmp_path)
    capsys.readouterr()
    try:
        rc = main(args)
    except SystemExit as exc:  # argparse's own refusal (exit 2 with a usage line)
        rc = exc.code
    err = capsys.readouterr().err
    assert _snapshot(tmp_path) == before, f"{name} changed its input files"
    if not needle:  # a case that is valid input: it must just work
        assert rc == 0, err
        return
    assert rc not in (0, None), "a bad input must end with a non-zero exit"
    assert "Traceback" not in err and "internal error" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith(("用法 / usage:", "  "))]
    assert len(lines) == 1, f"not one clear line: {err!r}"
    assert needle in lines[0], f"{needle!r} not named in {lines[0]!r}"
    assert re.search(r"[\u4e00-\u9fff]", lines[0].split(" / ")[0]), f"Chinese first: {lines[0]!r}"
    assert not (tmp_path / "hub-x").exists(), "a refused EVENT.toml created the hub's data folder"


def test_hub_on_a_port_in_use_says_so_before_making_its_files(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The web port taken: the hub made its log, key and users files, then said "port in use?"."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        rc = main(["hub", "--event", _event_toml(tmp_path), "--host", "127.0.0.1", "--port", str(port)])
    err = capsys.readouterr().err
    assert rc == 2 and f"端口 {port} 被占用" in err and "in use" in err, err
    assert not (tmp_path / "hub-x").exists()


def test_export_leaves_the_hub_folder_byte_identical(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from table_service.event.config import validate
    from table_service.event.hub import HubService

    hub = HubService(validate({"event": {"id": "x", "rounds": 1}, "teams": [{"id": "A"}, {"id": "B"}]}),
                     tmp_path / "hub", connect=False)
    hub.draw_next("o", "chief")
    hub.stop()
    before = _snapshot(tmp_path)
    assert main(["event", "export", str(tmp_path / "hub"), "--standings"]) == 0
    assert json.loads(capsys.readouterr().out)["standings"]
    assert _snapshot(tmp_path) == before  # no -wal, no -shm, nothing rewritten


def test_export_of_a_damaged_hub_log_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A hub log cut short (a disk filled, a copy stopped) is an input error naming the file, never an
    internal error (before: TypeError on a row whose data was gone)."""
    from table_service.event.config import validate
    from table_service.event.hub import HubService

    hub = HubService(validate({"event": {"id": "x", "rounds": 3}, "teams": [{"id": t} for t in "ABCDEF"]}),
                     tmp_path / "hub", connect=False)
    for _ in range(3):
        hub.draw_next("o", "chief")
    hub.stop()
    log = tmp_path / "hub" / "hub-events.sqlite3"
    for size in (5_000, 9_000, 100):
        log.write_bytes(log.read_bytes()[:size])
        rc = main(["event", "export", str(tmp_path / "hub")])
        err = capsys.readouterr().err
        assert rc == 2 and "hub-events.sqlite3" in err, (size, err)


def test_standings_as_duplicate_name_the_matches_with_one_room(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Ordinary results read with --duplicate ranked nobody and said nothing; now a file with no match in
    both rooms is refused, and a match with one room is named (it counts once the other room is in)."""
    r = tmp_path / "R.jsonl"
    lines = ['{"round":1,"table":"1","ns":"A","ew":"B","ns_levels":3,"ew_levels":1}',
             '{"round":1,"table":"2","ns":"C","ew":"D","ns_levels":3,"ew_levels":1}']
    r.write_text("\n".join(lines) + "\n")
    assert main(["event", "standings", str(r), "--duplicate", "levels"]) == 2
    assert "are these duplicate results" in capsys.readouterr().err
    r.write_text("\n".join([*lines, '{"round":1,"table":"1B","ns":"B","ew":"A","ns_levels":0,"ew_levels":2}']) + "\n")
    assert main(["event", "standings", str(r), "--duplicate", "levels", "--json"]) == 0
    out, err = capsys.readouterr()
    assert [row["team"] for row in json.loads(out)["standings"]] == ["A", "B"]
    assert "C v D has one room" in err
