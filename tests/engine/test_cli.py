"""``guandan-table replay`` and ``export``: the record round-trips and bad files are named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from table_service.cli import main
from table_service.engine.apply import fold
from table_service.engine.self_play import SelfPlayTable
from table_service.engine.state import state_to_json
from table_service.store.cli import read_events
from table_service.table.runner import TableRunner

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "table.sqlite3"
    bots = SelfPlayTable(11)
    with TableRunner(path) as r:
        for ev in bots.run_deals(3):
            r.submit({k: v for k, v in ev.items() if k != "seq"})
        r.submit({"type": "passed", "source": "screen", "data": {"seat": "Z"}})  # rejected
        r.submit({"type": "penalty_given", "source": "panel", "role": "referee",
                  "data": {"side": "EW", "level": "warning", "article": "暴露张 / exposed card"}})
    return path


def test_replay_prints_deal_by_deal(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["replay", str(db)]) == 0
    out = capsys.readouterr().out
    assert "第1副 / deal 1" in out and "第3副 / deal 3" in out
    assert "进贡 / tribute" in out and "还贡 / return" in out
    assert "名次 / finish:" in out and "处罚 / penalties:" in out and "暴露张" in out


def test_export_then_replay_reads_it_back(db: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "match.jsonl"
    assert main(["export", str(db), "-o", str(out)]) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    assert header["format"] == "guandan-table-match" and header["events"] == len(lines) - 1
    assert state_to_json(fold(read_events(out))) == state_to_json(fold(read_events(db)))
    capsys.readouterr()
    main(["replay", str(db)])
    from_db = capsys.readouterr().out
    main(["replay", str(out)])
    assert capsys.readouterr().out == from_db
    # --all keeps the rejected event, marked; replay of it skips it
    assert main(["export", str(db), "--all", "-o", str(tmp_path / "all.jsonl")]) == 0
    text = (tmp_path / "all.jsonl").read_text(encoding="utf-8")
    assert '"rejected"' in text
    assert read_events(tmp_path / "all.jsonl") == read_events(out)


def test_export_refuses_to_overwrite_the_database(db: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = db.read_bytes()
    assert main(["export", str(db), "-o", str(db)]) == 2
    assert "refusing to overwrite" in capsys.readouterr().err
    assert db.read_bytes() == before


def test_bad_files_are_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.sqlite3"
    bad.write_bytes(b"SQLite format 3\x00" + b"\x13" * 3000)
    assert main(["replay", str(bad)]) == 2
    assert str(bad) in capsys.readouterr().err
    txt = tmp_path / "notes.txt"
    txt.write_text("hello\n")
    assert main(["replay", str(txt)]) == 2
    assert "neither a table database nor a match export" in capsys.readouterr().err
    assert main(["replay", str(tmp_path / "missing.db")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_command_line_entry_point(db: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "table_service", "replay", str(db)], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "第1副 / deal 1" in proc.stdout


def test_replay_of_an_older_releases_record_names_what_no_longer_applies(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """As the table starts from it: the ruling on a flag these rules never raise is passed over and named."""
    from table_service.store.event_log import EventStore

    logs = json.loads((Path(__file__).with_name("data") / "logs_of_an_older_release.json").read_text(encoding="utf-8"))
    db = tmp_path / "old.sqlite3"
    with EventStore(db) as store:
        for ev in logs["logs"]["call_open_over_deadline_penalised"]:
            store.append(ev)
    assert main(["replay", str(db)]) == 0
    out = capsys.readouterr().out
    assert "does not apply under this release: #7 penalty_given" in out and "F5" in out
    # An export edited by hand with an event missing its seq and type is named too, not a traceback.
    export = tmp_path / "edited.jsonl"
    assert main(["export", str(db), "-o", str(export)]) == 0
    lines = export.read_text(encoding="utf-8").splitlines()
    lines.insert(3, json.dumps({"type": "passed", "data": {"seat": "N"}}))
    export.write_text("\n".join(lines).replace('"events": 9', '"events": 10') + "\n", encoding="utf-8")
    capsys.readouterr()
    assert main(["replay", str(export)]) == 0
    out = capsys.readouterr().out
    assert out.count("does not apply under this release") == 2 and "#? passed" in out


def test_export_never_writes_over_what_is_not_an_export(db: Path, tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """A typo in -o must not turn the accounts database or another table's log into JSON lines."""
    other = tmp_path / "users.sqlite3"
    other.write_bytes(db.read_bytes())
    notes = tmp_path / "notes.txt"
    notes.write_text("裁判笔记 / the referee's notes\n", encoding="utf-8")
    for target in (other, notes):
        before = target.read_bytes()
        assert main(["export", str(db), "-o", str(target)]) == 2
        assert "not overwritten" in capsys.readouterr().err and target.read_bytes() == before
    out = tmp_path / "round1.jsonl"
    assert main(["export", str(db), "-o", str(out)]) == 0
    assert main(["export", str(db), "-o", str(out)]) == 0  # an earlier export is written over
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert main(["export", str(db), "-o", str(empty)]) == 0


def test_replay_says_sides_levels_statuses_and_penalties_in_each_language() -> None:
    """The s38 audit: the replay (read at an appeal) printed "F6 [confirmed]", "NS S warning (自动 /
    automatic)", "EW 升2级 / EW up 2" and the level "T"; each is now said in both languages, 10 for T."""
    import io

    from table_service.store.cli import _describe_round

    rnd = {"no": 1, "players": {"E": "a", "S": "b", "W": "c", "N": "d"}, "format": {"kind": "deals", "deals": 2},
           "ruleset": {"name": "jiangsu-2013"}}
    sheet = [{"deal": 1, "gain": {"side": "EW", "levels": 2}, "ended_by": "play", "levels_after": {"EW": "T", "NS": "2"}}]
    records = [{"deal": 1, "level": "T", "tributes": [], "returns": [], "tricks": [], "finish_order": ["E", "W", "N", "S"]}]
    flags = [{"id": "F6", "status": "confirmed", "deal": 1, "seat": "S", "article": "越序出牌 / play or pass out of turn"}]
    penalties = {"records": [{"side": "NS", "seat": "S", "level": "warning", "auto": True, "article": "超时 / time over"}]}
    out = io.StringIO()
    _describe_round(rnd, sheet, records, flags, penalties, None, out)
    text = out.getvalue()
    assert "级牌 / level 10" in text and "level T" not in text
    assert "东西升 2 级 / EW up 2; 级数 东西 10 南北 2 / levels EW 10 NS 2" in text
    assert "F6 [已确认 / confirmed] 第1副 / deal 1 南S: 越序出牌" in text
    assert "南北 南 警告（自动） / NS S warning (automatic): 超时 / time over" in text
