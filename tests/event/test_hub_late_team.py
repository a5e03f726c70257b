"""A late entry at the hub (``team_added``), and a changed EVENT.toml reloaded before the first draw
keeping the hub's own edits.

Before: teams existed only in EVENT.toml (a registration at the desk on the morning meant editing
the file and restarting), and a restart with a changed file before the first draw logged a fresh
``event_loaded`` that silently dropped every team and event edit made at the hub. Now a referee adds
the team with a form, it is drawn from round 1, and a reload merges the hub's edits onto the new
file: the file wins where it changed the same thing, and the organiser page says what was not kept.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import EventInputError, RoleRefused
from table_service.event.state import HubState
from table_service.event.store import HubStore

from .test_hub_web import app_with_users, login

START_MS = 1_795_000_000_000


def raw_cfg(n: int = 7, **event: Any) -> dict[str, Any]:
    """EVENT.toml as parsed: ``n`` teams T01… named 队1…"""
    return {"event": {"id": "late", "name": "迟到赛", "rounds": 3, "seed": 5, "draw": "swiss", **event},
            "teams": [{"id": f"T{i:02d}", "name": f"队{i}", "players": [f"T{i}a", f"T{i}b"]} for i in range(1, n + 1)]}


def open_hub(folder: Path, raw: dict[str, Any]) -> HubService:
    clock = iter(range(START_MS, START_MS + 10**9, 1000))
    return HubService(validate(raw), folder, clock_ms=lambda: next(clock), connect=False)


def play(hub: HubService, rnd: int) -> None:
    """Draw, publish, enter and publish round ``rnd``."""
    hub.draw_next("org", "referee")
    hub.publish_draw(rnd, "org", "referee")
    for i, t in enumerate(hub.core.draws[rnd]["tables"]):
        hub.hand_result({"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 6,
                         "ew_levels": i % 5}, "org", "referee")
    hub.publish_results(rnd, "org", "referee")


def drawn(hub: HubService, rnd: int) -> set[str]:
    d = hub.core.draws[rnd]
    return {x for t in d["tables"] for x in (t["ns"], t["ew"])} | set(d["byes"])


def test_a_team_added_before_the_first_draw_is_drawn_and_ranked(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub", raw_cfg(7))  # 7 teams: a bye a round; the late 8th evens it
    ev = hub.add_team(" T08 ", "迟到队", ["甲", "乙"], "rita", "referee")
    assert (ev["type"], ev["actor"], ev["role"], ev["data"]) == (
        "team_added", "rita", "referee", {"team": "T08", "name": "迟到队", "players": ["甲", "乙"]})
    assert hub.store.events()[-1]["seq"] == ev["seq"] == hub.core.last_seq  # logged, then applied
    assert hub.core.teams[-1] == "T08" and hub.core.team("T08")["players"] == ["甲", "乙"]
    play(hub, 1)
    assert drawn(hub, 1) == {f"T{i:02d}" for i in range(1, 9)} and hub.core.draws[1]["byes"] == []
    table = next(t for t in hub.core.draws[1]["tables"] if "T08" in (t["ns"], t["ew"]))
    seat = hub.core.draws[1]["assignments"][table["table"]]
    assert "迟到队" in seat["team_names"].values() and {"甲", "乙"} <= set(seat["players"].values())
    row = next(r for r in hub.standings_json()["standings"] if r["team"] == "T08")
    assert row["name"] == "迟到队" and row["withdrawn"] is None
    play(hub, 2)
    assert "T08" in drawn(hub, 2)


def test_a_bad_late_entry_is_refused_in_both_languages_and_logs_nothing(tmp_path: Path) -> None:
    raw = raw_cfg(8)
    raw["tables"] = [{"id": str(i)} for i in range(1, 5)]  # 4 tables: 9 teams fit (a bye), 10 do not
    hub = open_hub(tmp_path / "hub", raw)
    before = hub.core.last_seq
    for args, needle in (
            (("T03", "新队", ["a", "b"]), "队号 T03 已是「队3」的，请换一个 / the id T03 is already 队3's"),
            (("T 9", "新队", ["a", "b"]), "队号 'T 9' 无效：队号只能用英文字母"),
            (("", "新队", ["a", "b"]), "invalid team id"),
            (("T09", "  ", ["a", "b"]), "队名无效（1–64 个可打印字符） / a team's name is 1-64"),
            (("T09", " 队2 ", ["a", "b"]), "队名 '队2' 与 T02 队重复"),
            (("T09", "新队", ["a", "b", "c"]), "选手须为 2 或 4 人 / players must be 2 or 4 names"),
            (("T09", "新队", ["a"]), "players must be 2 or 4 names")):
        with pytest.raises(EventInputError, match=needle):
            hub.add_team(*args, "rita", "referee")
    with pytest.raises(RoleRefused, match="添加队伍需要裁判权限 / requires role referee"):
        hub.add_team("T09", "新队", ["a", "b"], "vera", "viewer")
    assert hub.core.last_seq == before and len(hub.core.teams) == 8
    hub.add_team("T09", "新队", ["a", "b"], "rita", "referee")  # 9 teams: 4 tables and a bye
    with pytest.raises(EventInputError, match="EVENT.toml 只列了 4 张桌，10 队需要 5 张.* / EVENT.toml's"):
        hub.add_team("T10", "又一队", ["c", "d"], "rita", "referee")
    with pytest.raises(EventInputError, match="队号 T09 已是「新队」的"):  # the added team's id is taken too
        hub.add_team("T09", "再一队", ["c", "d"], "rita", "referee")


def test_a_duplicate_event_s_late_team_needs_four_players(tmp_path: Path) -> None:
    raw = raw_cfg(4, duplicate="levels")
    for t in raw["teams"]:
        t["players"] = [f"{t['id']}{x}" for x in "abcd"]
    hub = open_hub(tmp_path / "hub", raw)
    with pytest.raises(EventInputError, match="复式每队须 4 名选手 / duplicate play needs 4 players"):
        hub.add_team("T05", "新队", ["a", "b"], "rita", "referee")
    hub.add_team("T05", "新队", ["a", "b", "c", "d"], "rita", "referee")
    assert hub.core.team("T05")["players"] == ["a", "b", "c", "d"]


def test_no_team_is_added_once_round_1_is_published_and_a_draft_before_it_is_stale(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub", raw_cfg(7))
    hub.draw_next("org", "referee")  # a draft of round 1, drawn without the late team
    hub.add_team("T08", "迟到队", ["甲", "乙"], "rita", "referee")
    assert hub.core.draft_changes(1)[0]["kind"] == "added"
    with pytest.raises(EventInputError, match="「迟到队」报名加入.*team 迟到队 was added"):
        hub.publish_draw(1, "org", "referee")
    hub.draw_next("org", "referee")  # redrawn: with it
    hub.publish_draw(1, "org", "referee")
    assert "T08" in drawn(hub, 1)
    before = hub.core.last_seq
    with pytest.raises(EventInputError, match="第 1 轮编排已公布，不能再添加队伍.*/ round 1 is published"):
        hub.add_team("T09", "更迟队", ["丙", "丁"], "chen", "chief")
    assert hub.core.last_seq == before


def _state(core: HubState) -> dict[str, Any]:
    return {k: copy.deepcopy(getattr(core, k)) for k in (
        "cfg", "loaded_cfg", "draws", "team_changes", "edits", "hub_edits", "load_notes", "inputs_seq", "last_seq")}


def replayed_and_reopened(hub: HubService, folder: Path, raw: dict[str, Any]) -> HubService:
    """Stops ``hub``; its log alone folds to the state it had, and the same file opened again logs
    nothing and gives that state: the hub reopened, to go on with."""
    live = _state(hub.core)
    hub.stop()
    store = HubStore(folder / "hub-events.sqlite3")
    assert _state(HubState().replay(store.events())) == live  # the fold alone, from the log
    store.close()
    again = open_hub(folder, raw)  # the same file again: nothing logged, the same state
    assert _state(again.core) == live
    return again


def test_a_reload_keeps_the_hubs_edits_and_the_added_team_and_a_replay_gives_the_same_state(tmp_path: Path) -> None:
    folder = tmp_path / "hub"
    hub = open_hub(folder, raw_cfg(7))
    hub.add_team("T08", "迟到队", ["甲", "乙"], "rita", "referee")
    hub.edit_team("T01", "南京队", ["张", "李"], "rita", "referee")
    hub.edit_team("T08", "迟到八队", ["甲", "乙"], "rita", "referee")  # an edit of the added team
    hub.edit_event("迟到赛·春", "jiangsu-2013", {"kind": "deals", "deals": 6}, "chen", "chief")
    hub.withdraw_team("T05", "病 / ill", "chen", "chief")
    hub.stop()
    raw = raw_cfg(7)  # the file changed elsewhere: a team renamed, a team entered, a table listed
    raw["teams"][1]["name"] = "无锡队"
    raw["teams"].append({"id": "T09", "name": "文件九队", "players": ["x", "y"]})
    raw["tables"] = [{"id": str(i)} for i in range(1, 6)]
    hub = open_hub(folder, raw)
    core = hub.core
    assert core.loaded_cfg is not None and len(core.loaded_cfg["teams"]) == 8  # the file as read
    assert core.team_names() == {"T01": "南京队", "T02": "无锡队", "T03": "队3", "T04": "队4", "T05": "队5",
                                 "T06": "队6", "T07": "队7", "T09": "文件九队", "T08": "迟到八队"}
    assert core.team("T01")["players"] == ["张", "李"]
    assert core.cfg is not None and core.cfg["event"]["name"] == "迟到赛·春"
    assert core.cfg["event"]["format"] == {"kind": "deals", "deals": 6} and len(core.cfg["tables"]) == 5
    assert set(core.withdrawn) == {"T05"}
    loaded = hub.store.events()[-1]
    assert loaded["type"] == "event_loaded" and len(loaded["data"]["kept"]) == 4 and loaded["data"]["notes"] == []
    assert hub.config_note is not None and hub.config_note.startswith("EVENT.toml 已改动并重新载入，保留了赛事中心的 4 项修改 / ")
    again = replayed_and_reopened(hub, folder, raw)
    play(again, 1)
    assert drawn(again, 1) == {f"T{i:02d}" for i in range(1, 10)} - {"T05"}
    again.stop()


def test_where_the_file_changed_the_same_thing_the_file_wins_and_the_page_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "hub"
    hub = open_hub(folder, raw_cfg(7))
    hub.add_team("T08", "迟到队", ["甲", "乙"], "rita", "referee")
    hub.edit_team("T08", "迟到八队", ["甲", "乙"], "rita", "referee")
    hub.edit_team("T01", "南京队", ["张", "李"], "rita", "referee")
    hub.edit_team("T02", "苏州队", ["王", "赵"], "rita", "referee")
    hub.edit_team("T04", "常州队", ["周", "吴"], "rita", "referee")
    hub.edit_event("迟到赛·春", "jiangsu-2013", {"kind": "deals", "deals": 6}, "chen", "chief")
    hub.stop()
    raw = raw_cfg(7, name="迟到赛·夏")  # the file renamed the event, entered T08 itself, renamed T01 (and
    raw["teams"][0]["name"] = "金陵队"  # gave T03 the name the hub had given T01), dropped T02, and gave
    raw["teams"][2]["name"] = "南京队"  # T06 the name the hub gave T04 (T04 left as it was in the file)
    raw["teams"][5]["name"] = "常州队"
    raw["teams"].append({"id": "T08", "name": "文件八队", "players": ["x", "y"]})
    del raw["teams"][1]
    hub = open_hub(folder, raw)
    core = hub.core
    assert core.team_names() == {"T01": "金陵队", "T03": "南京队", "T04": "队4", "T05": "队5", "T06": "常州队",
                                 "T07": "队7", "T08": "文件八队"}
    assert core.team("T01")["players"] == ["张", "李"]  # the file left T01's players alone: the hub's stand
    assert core.team("T04")["players"] == ["周", "吴"]  # and T04's: its players stand, its name could not
    assert core.team("T08")["players"] == ["x", "y"]
    assert core.cfg is not None and core.cfg["event"]["name"] == "迟到赛·夏"
    assert core.cfg["event"]["format"] == {"kind": "deals", "deals": 6}
    note = hub.config_note
    assert note is not None
    zh, en = note.split(" / ", 1)
    assert "EVENT.toml 现有队号 T08（「文件八队」），赛事中心添加的「迟到队」未保留" in zh
    assert "EVENT.toml 改了「金陵队」的队名，赛事中心的修改（南京队）未保留" in zh
    assert "队伍「苏州队」（T02）已不在 EVENT.toml 中" in zh and "EVENT.toml 改了赛事名称" in zh
    assert "赛事中心对「队4」队名的修改未保留：队名 '常州队' 与 T06 队重复" in zh
    assert "the hub's edit of 队4's name is not kept: team name '常州队' is already team T06's" in en
    assert "EVENT.toml now has team 文件八队 as T08: the team added at the hub as 迟到队 is not kept" in en
    assert "EVENT.toml changed the name of 金陵队" in en and "team 苏州队 (T02) is no longer in EVENT.toml" in en
    assert "迟到八队" not in note  # the added team's own edit went with it, unsaid
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in en.replace("文件八队", "").replace("迟到队", "")
                   .replace("金陵队", "").replace("南京队", "").replace("苏州队", "").replace("迟到赛·春", "")
                   .replace("队4", "").replace("常州队", ""))
    hub.stop()
    again = open_hub(folder, raw)  # the same file: still said, from the log
    assert again.config_note == note.replace("EVENT.toml 已改动并重新载入，保留了赛事中心的 3 项修改；", "").replace(
        "EVENT.toml changed and was loaded again; 3 edit(s) made at the hub kept; ", "")
    again.stop()


def test_a_withdrawn_added_team_whose_id_the_file_now_has_is_said_on_reload(tmp_path: Path) -> None:
    """The s36 review: a team added at the hub and withdrawn, then EVENT.toml given its own team of that
    id: the withdrawal (logged by id) now kept the file's team out of round 1, and nothing said so."""
    folder = tmp_path / "hub"
    hub = open_hub(folder, raw_cfg(7))
    hub.add_team("T08", "迟到队", ["甲", "乙"], "rita", "referee")
    hub.withdraw_team("T08", "未到 / did not come", "chen", "chief")
    hub.stop()
    raw = raw_cfg(7)
    raw["teams"].append({"id": "T08", "name": "文件八队", "players": ["x", "y"]})
    hub = open_hub(folder, raw)
    assert "T08" in hub.core.withdrawn and hub.core.team_names()["T08"] == "文件八队"
    note = hub.config_note or ""
    assert "退赛记录现属于 EVENT.toml 的「文件八队」（T08）" in note and "reinstate it if that is not meant" in note
    hub.reinstate_team("T08", "chen", "chief")  # the chief's one tap, as the note says
    hub.draw_next("chen", "chief")
    assert "T08" in drawn(hub, 1)
    hub.stop()


def test_the_fold_keeps_what_each_reload_names_and_none_for_a_reload_an_earlier_release_logged() -> None:
    cfg1 = validate(raw_cfg(4))
    raw2 = raw_cfg(4)
    raw2["teams"][3]["name"] = "四队"
    cfg2 = validate(raw2)

    def ev(seq: int, etype: str, data: dict[str, Any]) -> dict[str, Any]:
        return {"seq": seq, "type": etype, "data": data, "t_ms": START_MS + seq, "actor": "org", "role": "chief"}

    edits = [ev(1, "event_loaded", {"config": cfg1}),
             ev(2, "team_edited", {"team": "T01", "name": "一队", "players": ["a", "b"]}),
             ev(3, "team_added", {"team": "T05", "name": "五队", "players": ["c", "d"]})]
    old = HubState().replay([*edits, ev(4, "event_loaded", {"config": cfg2})])  # an earlier release's reload
    assert old.team_names() == {"T01": "队1", "T02": "队2", "T03": "队3", "T04": "四队"} and old.hub_edits == []
    new = HubState().replay([*edits, ev(4, "event_loaded", {"config": cfg2, "notes": [],
                                                             "kept": [{"seq": 2, "fields": ["players"]},
                                                                      {"seq": 3, "fields": ["name", "players"]}]})])
    assert new.team_names() == {"T01": "队1", "T02": "队2", "T03": "队3", "T04": "四队", "T05": "五队"}
    assert new.team("T01")["players"] == ["a", "b"] and new.loaded_cfg == cfg2


def test_the_add_team_form(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub", raw_cfg(5))
    app = app_with_users(hub, tmp_path)
    c = app.test_client()
    tok = login(c, "rita")
    page = c.get("/hub/admin").get_data(as_text=True)
    assert 'id="add-team-form"' in page and 'name="team" id="add-team-id" maxlength="64" autocomplete="off" ' \
        'value="T06"' in page  # the next id offered
    r = c.post("/hub/action/add_team", data={"csrf_token": tok, "team": "T02", "name": "迟到队", "players": "甲，乙"})
    assert r.status_code == 302
    page = c.get("/hub/admin").get_data(as_text=True)
    assert "队号 T02 已是「队2」的，请换一个 / the id T02 is already 队2&#39;s: choose another" in page
    assert len(hub.core.teams) == 5
    r = c.post("/hub/action/add_team", data={"csrf_token": tok, "team": "T06", "name": "迟到队", "players": "甲，乙"},
               headers={"Accept": "application/json"})
    assert r.get_json() == {"ok": True, "message": "已添加队伍「迟到队」，自第 1 轮起编排 / team 迟到队 added: drawn from round 1"}
    assert hub.core.team("T06") == {"id": "T06", "name": "迟到队", "players": ["甲", "乙"]}
    page = c.get("/hub/admin").get_data(as_text=True)
    assert '<tr data-team="T06"><td>T06</td><td>迟到队</td><td>甲, 乙</td>' in page and 'value="T07"' in page
    assert c.post("/hub/action/add_team", data={"team": "T07", "name": "x", "players": "a,b"}).status_code == 400  # CSRF
    viewer = app.test_client()
    vtok = login(viewer, "vera")
    r = viewer.post("/hub/action/add_team", data={"csrf_token": vtok, "team": "T07", "name": "x", "players": "a,b"},
                    headers={"Accept": "application/json"})
    assert r.status_code == 403 and len(hub.core.teams) == 6
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    page = c.get("/hub/admin").get_data(as_text=True)
    assert 'id="add-team-form"' not in page and 'id="add-team-closed"' in page
    r = c.post("/hub/action/add_team", data={"csrf_token": tok, "team": "T07", "name": "更迟队", "players": "丙,丁"},
               headers={"Accept": "application/json"})
    assert r.status_code == 400 and r.get_json()["error"].startswith("第 1 轮编排已公布，不能再添加队伍")
    hub.stop()
