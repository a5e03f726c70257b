"""The teams import on the organiser page (导入队伍): the entry list from a spreadsheet, previewed
with every bad row named, then added in one tap, all or nothing, before round 1 is published.

The organiser audit at 400 teams: teams could only be typed as [[teams]] blocks in EVENT.toml, and
the organiser page added one late team at a time. Now the list is pasted (or its CSV chosen); each
row is checked as EVENT.toml's [[teams]] and a late entry are (config.team_entry: one source of the
rules), and the teams are logged as a late entry is (team_added), in one transaction.
"""

from __future__ import annotations

import html
import io
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from table_service.event.bulk_text import LinesRefused
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import EventInputError, RoleRefused

from .test_hub_web import app_with_users, login

JSON = {"Accept": "application/json"}
START_MS = 1_795_000_000_000


def open_hub(folder: Path, **event: Any) -> HubService:
    clock = iter(range(START_MS, START_MS + 10**9, 1000))
    raw = {"event": {"id": "teams", "rounds": 7, "seed": 1, "draw": "swiss", **event}}  # no [[teams]]: imported
    return HubService(validate(raw), folder, clock_ms=lambda: next(clock), connect=False)


def entry_list(n: int, players: int = 2) -> str:
    """A spreadsheet's copy (tabs) of ``n`` teams with Chinese headings."""
    head = "\t".join(["队号", "队名", *[f"选手{i}" for i in range(1, players + 1)]])
    rows = ["\t".join([f"T{i:03d}", f"俱乐部{(i - 1) // 4 + 1}队{i}", *[f"选手{i}-{k}" for k in range(players)]])
            for i in range(1, n + 1)]
    return "\n".join([head, *rows]) + "\n"


def test_four_hundred_teams_are_imported_in_one_go_and_drawn(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub")
    assert hub.core.teams == []
    with pytest.raises(EventInputError, match="at least two teams are needed"):
        hub.draw_next("org", "chief")  # an event with no teams yet says what the draw needs
    text = entry_list(400)
    seq = hub.core.last_seq
    preview = hub.import_teams(text, "chen", "chief", preview=True)
    assert len(preview) == 400 and preview[0] == {"line": 2, "team": "T001", "name": "俱乐部1队1",
                                                  "players": ["选手1-0", "选手1-1"]}
    assert hub.core.last_seq == seq and hub.core.teams == []  # a preview logs nothing
    teams = hub.import_teams(text, "chen", "chief")
    assert len(teams) == 400 and len(hub.core.teams) == 400
    logged = hub.store.events()[-400:]
    assert {e["type"] for e in logged} == {"team_added"} and {e["actor"] for e in logged} == {"chen"}
    assert logged[0]["data"] == {"team": "T001", "name": "俱乐部1队1", "players": ["选手1-0", "选手1-1"]}
    hub.draw_next("org", "chief")
    assert len(hub.core.draws[1]["tables"]) == 200
    hub.store.close()
    again = HubService(hub.core.loaded_cfg, tmp_path / "hub", connect=False)  # the replay: the same teams
    assert again.core.teams == hub.core.teams and again.core.team("T400")["name"] == "俱乐部100队400"


def test_every_bad_row_is_named_at_once_and_nothing_is_added(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub")
    hub.import_teams("id,name,players\nT01,南京一队,\"张三, 李四\"\n", "chen", "chief")
    text = "\n".join([
        "id,name,player1,player2,player3",
        "T02,苏州一队,甲,乙,",             # line 2: good
        "一队,无锡一队,丙,丁,",             # line 3: a Chinese id
        "T01,常州一队,戊,己,",              # line 4: T01 is 南京一队's
        "T03,,庚,辛,",                      # line 5: no name
        "T04,扬州一队,壬,,",                # line 6: one player
        "T05,南京一队,子,丑,",              # line 7: 南京一队 is T01's name
        "T02,镇江一队,寅,卯,",              # line 8: T02 is on line 2
        "T06,徐州一队,辰\x07,巳,",           # line 9: a control character
        "T07,泰州一队,午,未,申",            # line 10: three players
        "",
        "T08,盐城一队,酉,戌,",              # line 12: good
    ]) + "\n"
    seq = hub.core.last_seq
    with pytest.raises(LinesRefused) as exc:
        hub.import_teams(text, "chen", "chief", preview=True)
    problems = dict(exc.value.problems)
    assert sorted(problems) == [3, 4, 5, 6, 7, 8, 9, 10]
    for n, needle in ((3, "invalid team id '一队': an id is 1-64 ASCII letters A-Z a-z, digits 0-9 and _ . - "
                          "(e.g. T01)"),
                      (4, "the id T01 is already 南京一队's"), (5, "a team's name is 1-64 printable characters"),
                      (6, "players must be 2 or 4 names"), (7, "team name '南京一队' is already team T01's"),
                      (8, "the id T02 is on line 2 already"), (9, "control character"),
                      (10, "players must be 2 or 4 names")):
        assert needle in problems[n], (n, problems[n])
    assert "队号只能用英文字母 A–Z a–z、数字 0–9 和 _ . -" in problems[3] and "中文请写在队名里" in problems[3]
    with pytest.raises(LinesRefused):
        hub.import_teams(text, "chen", "chief")
    assert hub.core.last_seq == seq and hub.core.teams == ["T01"]


def test_the_id_rule_says_what_an_id_may_be_in_event_toml_and_at_the_desk_alike(tmp_path: Path) -> None:
    with pytest.raises(EventInputError) as exc:
        validate({"event": {"id": "x", "rounds": 3}, "teams": [{"id": "一队"}, {"id": "T2"}]})
    assert str(exc.value).startswith("EVENT.toml [teams #1]: 队号 '一队' 无效：队号只能用英文字母")
    hub = open_hub(tmp_path / "hub")
    with pytest.raises(EventInputError, match="a Chinese name goes in the team's name"):
        hub.add_team("一队", "一队", ["甲", "乙"], "rita", "referee")


def test_a_duplicate_event_needs_four_players_and_the_tables_must_fit(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub", duplicate="levels")
    with pytest.raises(LinesRefused, match="第 2 行：复式每队须 4 名选手"):
        hub.import_teams(entry_list(4, players=2), "chen", "chief")
    assert len(hub.import_teams(entry_list(4, players=4), "chen", "chief")) == 4
    clock = iter(range(START_MS, START_MS + 10**9, 1000))
    small = HubService(validate({"event": {"id": "t2", "rounds": 3}, "tables": [{"id": "1"}, {"id": "2"}]}),
                       tmp_path / "small", clock_ms=lambda: next(clock), connect=False)
    with pytest.raises(LinesRefused) as exc:
        small.import_teams(entry_list(6), "chen", "chief")
    assert exc.value.problems == [(0, "EVENT.toml 只列了 2 张桌，6 队需要 3 张：请先在 [[tables]] 加桌 / EVENT.toml's "
                                      "[[tables]] lists 2 tables and 6 teams need 3: add a table there first")]
    assert len(small.import_teams(entry_list(5), "chen", "chief")) == 5  # 5 teams: 2 tables and a bye


def test_only_the_chief_imports_and_only_before_round_1_is_published(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub")
    with pytest.raises(RoleRefused, match="requires role chief"):
        hub.import_teams(entry_list(4), "rita", "referee", preview=True)
    hub.import_teams(entry_list(4), "chen", "chief")
    hub.draw_next("org", "chief")
    more = "id,name,p1,p2\nT10,新队,甲,乙\n"
    hub.import_teams(more, "chen", "chief")  # before round 1 is published: the draft goes stale
    assert [c["kind"] for c in hub.core.draft_changes(1)] == ["added"]
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    with pytest.raises(EventInputError, match="round 1 is published: teams can only be imported before"):
        hub.import_teams("id,name,p1,p2\nT11,又一队,甲,乙\n", "chen", "chief", preview=True)


def test_a_hub_killed_half_way_through_the_import_has_added_none(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from table_service.event.store import HubStore

    hub = open_hub(tmp_path / "hub")
    real = HubStore.append
    count = [0]

    def dies(self: HubStore, etype: str, data: dict[str, Any], **kw: Any) -> dict[str, Any]:
        count[0] += 1
        if count[0] == 3:
            raise KeyboardInterrupt("stopped half-way")
        return real(self, etype, data, **kw)

    monkeypatch.setattr(HubStore, "append", dies)
    with pytest.raises(KeyboardInterrupt):
        hub.import_teams(entry_list(6), "chen", "chief")
    monkeypatch.undo()
    assert hub.core.teams == []
    conn = sqlite3.connect(tmp_path / "hub" / "hub-events.sqlite3")
    assert conn.execute("SELECT count(*) FROM hub_events WHERE type = 'team_added'").fetchone() == (0,)
    conn.close()


def test_the_page_previews_then_imports_in_one_tap(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub")
    app = app_with_users(hub, tmp_path)
    c = app.test_client()
    tok = login(c, "rita")
    page = c.get("/hub/admin").get_data(as_text=True)
    assert 'id="import-teams-chief-only"' in page and 'id="team-import-form"' not in page
    assert c.post("/hub/action/import_teams", data={"csrf_token": tok, "lines": entry_list(4), "step": "preview"},
                  headers=JSON).status_code == 403
    c = app.test_client()
    tok = login(c, "chen")
    text = entry_list(4).replace("T003", "三队")
    r = c.post("/hub/action/import_teams", data={"csrf_token": tok, "lines": text, "step": "preview"})
    page = r.get_data(as_text=True)
    assert r.status_code == 400 and 'id="team-import-problems"' in page and '<li data-line="4">第 4 行：' in page
    assert html.escape(text) in page and not hub.core.teams  # the box, as typed
    # A CSV file chosen (a BOM, commas): previewed, then one tap on the preview's button
    csv = "\ufeff队号,队名,选手\r\nT01,南京一队,张三、李四\r\nT02,苏州一队,\"王五,赵六\"\r\n"
    r = c.post("/hub/action/import_teams", data={"csrf_token": tok, "step": "preview",
                                                 "file": (io.BytesIO(csv.encode()), "teams.csv")},
               content_type="multipart/form-data")
    page = r.get_data(as_text=True)
    assert r.status_code == 200 and 'id="team-preview"' in page and 'id="team-import-confirm"' in page
    assert '<tr data-team="T02"><td>3</td><td>T02</td><td>苏州一队</td><td>王五, 赵六</td></tr>' in page
    assert "导入这 2 队 / Import these 2 teams" in page and not hub.core.teams
    confirm = page.split('id="team-import-confirm-form"')[1].split("</form>")[0]
    kept = html.unescape(confirm.split("<textarea name=\"lines\" hidden>")[1].split("</textarea>")[0])
    r = c.post("/hub/action/import_teams", data={"csrf_token": tok, "step": "import", "lines": kept})
    assert r.status_code == 302
    assert hub.core.teams == ["T01", "T02"] and hub.core.team("T01")["players"] == ["张三", "李四"]
    page = c.get("/hub/admin").get_data(as_text=True)
    assert "已导入 2 队，自第 1 轮起编排 / 2 teams imported: drawn from round 1" in page
    r = c.post("/hub/action/import_teams", data={"csrf_token": tok, "lines": "id,name,p1,p2\nT03,新队,甲,乙\n"},
               headers=JSON)  # a JSON client, straight to import
    assert r.get_json()["ok"] and hub.core.teams[-1] == "T03"
    assert r.get_json()["message"].endswith("/ 1 team imported: drawn from round 1")  # not "1 teams"
    r = c.post("/hub/action/import_teams", data={"csrf_token": tok, "step": "preview", "lines": "id,name,p1,p2\nT04,四队,丙,丁\n"})
    page = r.get_data(as_text=True)
    assert "preview: 1 team, no errors: check them, then tap Import this team" in html.unescape(page)
    assert "导入这 1 队 / Import this team</button>" in page
