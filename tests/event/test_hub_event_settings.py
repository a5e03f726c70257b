"""The event's rounds, draw method and match points changed at the hub (``event_edited``'s new fields,
:mod:`table_service.event.settings`).

Before: the number of rounds, the draw method and the match points scheme were EVENT.toml's alone —
changing one meant editing the file and restarting the hub, and after the first draw the file's
change was ignored. Now the chief changes them on the organiser page: the rounds at any time (never
below a round drawn; a round robin never past its circle), the draw method until round 1 is
published, the match points until round 1 is published. A refusal says why, Chinese first, and
logs nothing; a reload of a changed EVENT.toml keeps the edit as it keeps the others; a replay
gives the same state.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import EventInputError
from table_service.event.state import HubState

from .test_hub_late_team import START_MS, open_hub, replayed_and_reopened
from .test_hub_web import app_with_users, login

FMT = {"kind": "deals", "deals": 8}


def raw_cfg(n: int = 6, **event: Any) -> dict[str, Any]:
    """EVENT.toml as parsed: ``n`` teams T01… named 队1…"""
    return {"event": {"id": "set", "name": "设置赛", "rounds": 3, "seed": 7, "draw": "swiss", **event},
            "teams": [{"id": f"T{i:02d}", "name": f"队{i}", "players": [f"T{i}a", f"T{i}b"]} for i in range(1, n + 1)]}


def settings(hub: HubService, **changes: Any) -> dict[str, Any]:
    """The chief's edit of the settings: name, ruleset and format as they are, ``changes`` besides."""
    ev = hub.core.cfg["event"]  # type: ignore[index]
    return hub.edit_event(ev["name"], ev["ruleset"], dict(ev["format"]), "chen", "chief", **changes)


def refused(hub: HubService, zh: str, en: str, **changes: Any) -> None:
    """The edit is refused in both languages, Chinese first, and nothing is logged."""
    before = (hub.core.last_seq, copy.deepcopy(hub.core.cfg))
    with pytest.raises(EventInputError) as exc:
        settings(hub, **changes)
    said_zh, _, said_en = str(exc.value).partition(" / ")
    assert zh in said_zh and en in said_en, str(exc.value)
    assert (hub.core.last_seq, hub.core.cfg) == before and hub.store.events()[-1]["seq"] == before[0]


def play(hub: HubService, rnd: int, *, publish_results: bool = True) -> None:
    """Draw, publish and enter round ``rnd`` (table 1 a win for NS, the others drawn 3:3)."""
    hub.draw_next("org", "referee")
    hub.publish_draw(rnd, "org", "referee")
    for i, t in enumerate(hub.core.draws[rnd]["tables"]):
        hub.hand_result({"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 6 if i == 0 else 3,
                         "ew_levels": 2 if i == 0 else 3}, "org", "referee")
    if publish_results:
        hub.publish_results(rnd, "org", "referee")


def test_the_rounds_change_at_any_time_never_below_a_drawn_round_and_the_board_s_final_follows(
        tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub", raw_cfg(6, rounds=2))
    app = app_with_users(hub, tmp_path)
    board = app.test_client()
    for rnd in (1, 2):
        play(hub, rnd)
    with pytest.raises(EventInputError, match="全部 2 轮已编排"):
        hub.draw_next("org", "referee")
    b = board.get("/hub/api/board").get_json()
    assert b["rounds"] == 2 and b["standings"]["rounds"] == 2  # the board's 最终排名: after == rounds
    ev = settings(hub, rounds=4)
    assert ev["type"] == "event_edited" and ev["data"]["rounds"] == 4 and hub.core.cfg["event"]["rounds"] == 4
    b = board.get("/hub/api/board").get_json()
    assert b["rounds"] == 4 and b["standings"]["rounds"] == 2  # no longer final: two rounds to go
    hub.draw_next("org", "referee")  # round 3, a draft
    refused(hub, "第 3 轮已有草案，轮数不能少于 3", "round 3 is drawn (a draft): the event cannot have fewer than 3 rounds",
            rounds=2)
    hub.publish_draw(3, "org", "referee")
    refused(hub, "第 3 轮已公布，轮数不能少于 3", "round 3 is drawn (published): the event cannot have fewer than 3 rounds",
            rounds=2)
    refused(hub, "轮数须为 1–99", "rounds must be 1-99", rounds=100)
    settings(hub, rounds=3)  # down to the round in play: the event ends with it
    assert hub.core.cfg["event"]["rounds"] == 3 and board.get("/hub/api/board").get_json()["rounds"] == 3
    same = settings(hub, rounds=3)  # the form posts the number it shows: not a change, not logged as one
    assert "rounds" not in same["data"]
    hub.stop()


def test_a_round_robin_has_at_most_its_circle_s_rounds_and_the_method_stays_round_1_s(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "even", raw_cfg(6, draw="round-robin", rounds=5))
    refused(hub, "6 队的循环赛最多 5 轮（再多就从头循环，第 6 轮与第 1 轮同桌同向）；要更多轮请选瑞士制",
            "a round robin of 6 teams has at most 5 rounds (the circle then starts over: round 6 would repeat "
            "round 1's tables); for more rounds choose Swiss", rounds=6)
    settings(hub, rounds=8, draw="swiss")  # Swiss: any number
    refused(hub, "6 队的循环赛最多 5 轮", "a round robin of 6 teams has at most 5 rounds", draw="round-robin")
    settings(hub, rounds=3, draw="auto")  # auto: Swiss for 3 rounds of 6 teams
    settings(hub, rounds=5)  # auto: the whole circle fits, a round robin
    assert hub.core.method_now() == "round-robin"
    refused(hub, "6 队的循环赛最多 5 轮", "for more rounds choose Swiss", rounds=6)
    play(hub, 1)
    assert hub.core.draws[1]["method"] == "round-robin"
    refused(hub, "本赛事自第 1 轮起按循环赛编排", "the event is drawn as a round robin since round 1", rounds=6)
    settings(hub, rounds=3)  # fewer: a round robin cut short, still drawn round by round on its circle
    assert hub.core.method_now() == "round-robin"  # auto would say Swiss for 3 rounds of 6 teams
    play(hub, 2)
    assert hub.core.draws[2]["method"] == "round-robin"
    hub.stop()

    odd = open_hub(tmp_path / "odd", raw_cfg(7, draw="round-robin", rounds=3))
    settings(odd, rounds=7)  # an odd field: a bye a round, 7 rounds to the circle
    refused(odd, "7 队的循环赛最多 7 轮", "a round robin of 7 teams has at most 7 rounds", rounds=8)
    odd.stop()

    swiss = open_hub(tmp_path / "swiss", raw_cfg(6, draw="auto", rounds=3))
    play(swiss, 1)  # auto: Swiss for 3 rounds
    settings(swiss, rounds=5)  # auto would now resolve to a round robin: the event stays Swiss
    play(swiss, 2)
    assert swiss.core.draws[2]["method"] == "swiss"
    swiss.stop()


def test_the_draw_method_changes_until_round_1_is_published_and_a_draft_before_it_is_stale(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub", raw_cfg(6, draw="round-robin", rounds=5))
    hub.draw_next("org", "referee")  # a round robin's draft of round 1
    ev = settings(hub, draw="swiss")
    assert ev["data"]["draw"] == "swiss" and hub.core.method_now() == "swiss"
    assert [c["kind"] for c in hub.core.draft_changes(1)] == ["settings"]
    with pytest.raises(EventInputError, match="第 1 轮草案编排之后赛事设置有变：编排方法由循环赛改为瑞士制（chen .*"
                                              "the draw method changed from round robin to Swiss"):
        hub.publish_draw(1, "org", "referee")
    settings(hub, draw="round-robin")  # back as it was: the draft is current again
    assert hub.core.draft_changes(1) == []
    settings(hub, draw="swiss")
    hub.draw_next("org", "referee")  # redrawn
    hub.publish_draw(1, "org", "referee")
    assert hub.core.draws[1]["method"] == "swiss"
    refused(hub, "第 1 轮编排已公布（瑞士制），编排方法不能再改", "round 1's draw is published (Swiss): the draw method can no "
            "longer change", draw="round-robin")
    refused(hub, "编排方法须为 auto、swiss、round-robin", "the draw method must be one of", draw="knockout")
    renamed = hub.edit_event("设置赛·改", "jiangsu-2013", FMT, "chen", "chief", draw="swiss")  # as it is: fine
    assert "draw" not in renamed["data"] and hub.core.cfg["event"]["name"] == "设置赛·改"
    hub.stop()


def test_the_match_points_change_until_round_1_is_published(tmp_path: Path) -> None:
    """Until round 1's draw is published: its assignments carry the points, and each table scores and
    signs its round with them (the s36 review: changed after the publication, the tables' sheets said
    a win was 2 while the hub ranked it 3)."""
    hub = open_hub(tmp_path / "hub", raw_cfg(4, rounds=3))
    ev = settings(hub, match_points="3-2-1-0")
    assert ev["data"]["match_points"] == "3-2-1-0"
    hub.draw_next("org", "referee")
    published = hub.publish_draw(1, "org", "referee")
    opts = next(iter(published["data"]["assignments"].values()))["ruleset"]["options"]
    assert (opts["match_points_win"], opts["match_points_draw"], opts["match_points_loss"]) == (3, 2, 1)
    refused(hub, "第 1 轮编排已公布，比赛分方案不能再改：各桌已按原方案计分", "round 1's draw is published: the match points "
            "can no longer change", match_points="2-1-0")
    for i, t in enumerate(hub.core.draws[1]["tables"]):
        hub.hand_result({"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 6,
                         "ew_levels": i % 5 if i % 5 != 6 else 0}, "org", "referee")
    assert sorted(r["match_points"] for r in hub.standings_json()["standings"]) in ([1, 1, 3, 3], [1, 2, 2, 3])
    hub.stop()

    bare = open_hub(tmp_path / "bare", raw_cfg(4))
    refused(bare, "比赛分方案须为 2-1-0、3-2-1-0", "match points must be 2-1-0 or 3-2-1-0", match_points="1-0")
    bare.stop()
    own_bye = open_hub(tmp_path / "own-bye", raw_cfg(4, bye_points=1))  # the organiser's own bye: kept
    settings(own_bye, match_points="3-2-1-0")
    assert own_bye.core.cfg["event"]["scoring"]["bye"] == 1 and own_bye.core.cfg["event"]["scoring"]["win"] == 3
    own_bye.stop()
    low = open_hub(tmp_path / "low-bye", raw_cfg(4, match_points="3-2-1-0", bye_points=1))
    settings(low, match_points="2-1-0")  # the organiser's 1 stays: under a win of 2 too
    assert low.core.cfg["event"]["scoring"]["bye"] == 1
    low.stop()
    three = open_hub(tmp_path / "three", raw_cfg(4, match_points="3-2-1-0", bye_points=3))
    settings(three, match_points="2-1-0")  # 3 is 3-2-1-0's own bye: it follows the scheme
    assert three.core.cfg["event"]["scoring"]["bye"] == 2
    three.stop()


def test_an_old_event_edited_folds_as_before_and_a_new_one_rescores() -> None:
    cfg = validate(raw_cfg(4))

    def ev(seq: int, etype: str, data: dict[str, Any]) -> dict[str, Any]:
        return {"seq": seq, "type": etype, "data": data, "t_ms": START_MS + seq, "actor": "chen", "role": "chief"}

    old = HubState().replay([ev(1, "event_loaded", {"config": cfg}),
                             ev(2, "event_edited", {"name": "旧", "ruleset": "huaian-2017", "format": FMT})])
    assert old.cfg is not None
    assert old.cfg["event"] == {**cfg["event"], "name": "旧", "ruleset": "huaian-2017", "format": FMT}
    assert old.hub_edits[0]["data"] == {"name": "旧", "ruleset": "huaian-2017", "format": FMT}
    new = HubState().replay([ev(1, "event_loaded", {"config": cfg}),
                             ev(2, "event_edited", {"name": "新", "ruleset": "jiangsu-2013", "format": FMT,
                                                    "rounds": 2, "draw": "round-robin", "match_points": "3-2-1-0"})])
    assert new.cfg is not None
    assert (new.cfg["event"]["rounds"], new.cfg["event"]["draw"], new.method_now()) == (2, "round-robin", "round-robin")
    assert new.cfg["event"]["scoring"] == {"win": 3, "draw": 2, "loss": 1, "forfeit": 0, "bye": 3}


def test_a_reload_of_a_changed_file_keeps_the_settings_and_a_replay_gives_the_same_state(tmp_path: Path) -> None:
    folder = tmp_path / "hub"
    hub = open_hub(folder, raw_cfg(6))
    settings(hub, rounds=5, draw="round-robin", match_points="3-2-1-0")
    hub.stop()
    raw = raw_cfg(6)  # the file changed elsewhere: a team renamed
    raw["teams"][1]["name"] = "无锡队"
    hub = open_hub(folder, raw)
    ev = hub.core.cfg["event"]  # type: ignore[index]
    assert (ev["rounds"], ev["draw"], ev["match_points"], ev["scoring"]["win"]) == (5, "round-robin", "3-2-1-0", 3)
    assert hub.core.team("T02")["name"] == "无锡队" and hub.core.load_notes == []
    assert hub.store.events()[-1]["data"]["kept"] == [{"seq": 2, "fields": [
        "draw", "format", "match_points", "name", "rounds", "ruleset"]}]
    again = replayed_and_reopened(hub, folder, raw)
    play(again, 1)
    assert again.core.draws[1]["method"] == "round-robin"
    again.stop()


def test_where_the_file_changed_a_setting_or_no_longer_fits_it_the_file_wins_and_says_so(tmp_path: Path) -> None:
    folder = tmp_path / "hub"
    hub = open_hub(folder, raw_cfg(6))
    settings(hub, rounds=5, draw="round-robin", match_points="3-2-1-0")
    hub.stop()
    raw = raw_cfg(4, rounds=4)  # the file: two teams fewer (a round robin of 4 has 3 rounds) and 4 rounds
    hub = open_hub(folder, raw)
    ev = hub.core.cfg["event"]  # type: ignore[index]
    assert (ev["rounds"], ev["draw"], ev["match_points"]) == (4, "swiss", "3-2-1-0")
    zh, en = hub.config_note.split(" / ", 1)  # type: ignore[union-attr]
    assert "EVENT.toml 改了赛事轮数，赛事中心的修改（5）未保留" in zh
    assert "赛事中心对编排方法的修改（round-robin）未保留：4 队的循环赛最多 3 轮" in zh
    assert "EVENT.toml changed the event's rounds: the hub's edit (5) is not kept" in en
    assert "the hub's edit of the draw method (round-robin) is not kept: a round robin of 4 teams has at most 3 rounds" in en
    hub.stop()


def test_the_settings_form_answers_json_and_a_redirect(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub", raw_cfg(6, rounds=3))
    app = app_with_users(hub, tmp_path)
    c = app.test_client()
    tok = login(c, "chen")
    page = c.get("/hub/admin").get_data(as_text=True)
    assert 'name="rounds" id="event-rounds" type="number" min="1" max="99" required value="3"' in page
    assert '<select name="draw" id="event-draw">' in page and '<select name="match_points" id="event-match-points">' in page
    form = {"csrf_token": tok, "name": "设置赛", "ruleset": "jiangsu-2013", "kind": "deals", "deals": "8",
            "seen": str(hub.core.last_seq)}
    r = c.post("/hub/action/edit_event", data={**form, "rounds": "5", "draw": "round-robin", "match_points": "3-2-1-0"},
               headers={"Accept": "application/json"})
    assert r.get_json() == {"ok": True, "message": (
        "赛事设置已修改，自下一次公布编排起生效；轮数 3→5、编排方法 瑞士制→循环赛、比赛分方案 2-1-0→3-2-1-0，即时生效 / event "
        "settings changed (from the next published draw); rounds 3 → 5, draw method Swiss → round robin, match points "
        "2-1-0 → 3-2-1-0, in force now")}
    assert (hub.core.cfg["event"]["rounds"], hub.core.cfg["event"]["draw"]) == (5, "round-robin")
    play(hub, 1)
    before = hub.core.last_seq
    r = c.post("/hub/action/edit_event", data={**form, "seen": str(before), "rounds": "5", "draw": "swiss"},
               headers={"Accept": "application/json"})
    assert r.status_code == 400 and r.get_json()["error"].startswith("第 1 轮编排已公布（循环赛），编排方法不能再改")
    assert "/ round 1's draw is published (round robin): the draw method can no longer change" in r.get_json()["error"]
    assert hub.core.last_seq == before
    r = c.post("/hub/action/edit_event", data={**form, "seen": str(before), "rounds": "5", "match_points": "2-1-0"})
    assert r.status_code == 302 and r.headers["Location"].endswith("/hub/admin")
    page = c.get("/hub/admin").get_data(as_text=True)
    assert "第 1 轮编排已公布，比赛分方案不能再改：各桌已按原方案计分 / round 1&#39;s draw is published" in page
    assert hub.core.last_seq == before
    assert '<select name="draw" id="event-draw" disabled>' in page and 'id="event-match-points" disabled>' in page
    assert 'min="1" max="99" required value="5"' in page and "比赛分已固定（第 1 轮编排已公布，各桌按原方案计分）" in page
    r = c.post("/hub/action/edit_event", data={**form, "seen": str(before), "rounds": "4"})  # no draw, no points: as they are
    assert r.status_code == 302 and hub.core.cfg["event"]["rounds"] == 4
    page = c.get("/hub/admin").get_data(as_text=True)
    assert "轮数 5→4" in page and 'min="1" max="99" required value="4"' in page
    r = c.post("/hub/action/edit_event", data={**form, "seen": str(hub.core.last_seq), "rounds": "x"},
               headers={"Accept": "application/json"})
    assert r.status_code == 400 and r.get_json()["error"] == "轮数须为整数（收到 'x'） / rounds must be a whole number (got 'x')"
    rita = app.test_client()
    rtok = login(rita, "rita")
    r = rita.post("/hub/action/edit_event", data={**form, "csrf_token": rtok, "rounds": "6"},
                  headers={"Accept": "application/json"})
    assert r.status_code == 403 and hub.core.cfg["event"]["rounds"] == 4
    hub.stop()


def test_a_page_version_the_log_has_not_reached_is_refused(tmp_path: Path) -> None:
    """The s43 probe: a form whose ``seen`` is past the log's last seq (2147483648) passed the check
    that refuses an edit made from a page shown before another edit, as if it had seen every edit."""
    hub = open_hub(tmp_path / "hub", raw_cfg(6, rounds=3))
    app = app_with_users(hub, tmp_path)
    c = app.test_client()
    tok = login(c, "chen")
    before = (hub.core.last_seq, copy.deepcopy(hub.core.cfg))
    form = {"csrf_token": tok, "name": "设置赛", "ruleset": "jiangsu-2013", "kind": "deals", "deals": "8", "rounds": "5"}
    for seen in (str(hub.core.last_seq + 1), "2147483648"):
        r = c.post("/hub/action/edit_event", data={**form, "seen": seen}, headers={"Accept": "application/json"})
        assert r.status_code == 400, r.get_json()
        assert r.get_json()["error"].startswith(f"未保存：页面版本 {seen} 晚于赛事日志（{before[0]}），请刷新页面后再改 / not saved")
        assert (hub.core.last_seq, hub.core.cfg) == before
    r = c.post("/hub/action/edit_event", data={**form, "seen": str(hub.core.last_seq)}, headers={"Accept": "application/json"})
    assert r.status_code == 200 and hub.core.cfg["event"]["rounds"] == 5
    hub.stop()


def test_a_format_or_ruleset_the_hub_does_not_know_is_said_in_words_in_each_half(tmp_path: Path) -> None:
    """The s38 audit: "赛制须为 deals、time 或 past_a" named the format by its internal words only."""
    hub = open_hub(tmp_path / "hub", raw_cfg(6))
    before = (hub.core.last_seq, copy.deepcopy(hub.core.cfg))
    ev = hub.core.cfg["event"]  # type: ignore[index]
    with pytest.raises(EventInputError) as exc:
        hub.edit_event(ev["name"], ev["ruleset"], {"kind": "knockout"}, "chen", "chief")
    assert str(exc.value) == ("赛制须为固定副数（deals）、限时（time）或打过 A（past_a） / format must be deals, time "
                              "or past_a")
    with pytest.raises(EventInputError) as exc:
        hub.edit_event(ev["name"], "nosuch-2099", dict(ev["format"]), "chen", "chief")
    said_zh, _, said_en = str(exc.value).partition(" / ")
    assert said_zh.startswith("规则无效：") and said_en.startswith("bad ruleset: ") and " / " not in said_en
    assert (hub.core.last_seq, hub.core.cfg) == before
    hub.stop()


@pytest.mark.parametrize("fmt, zh, en", [
    ({"kind": "deals", "deals": 100}, "副数（deals）须为 1–99", "deals must be 1-99"),
    ({"kind": "deals", "deals": True}, "副数（deals）须为 1–99", "deals must be 1-99"),  # True was taken as one deal
    ({"kind": "time", "minutes": 0}, "分钟（minutes）须为 1–600", "minutes must be 1-600"),
    ({"kind": ["deals"]}, "赛制须为", "format must be deals, time or past_a"),
])
def test_the_form_s_format_is_held_to_event_toml_s_ranges(tmp_path: Path, fmt: dict[str, Any], zh: str, en: str) -> None:
    hub = open_hub(tmp_path / "hub", raw_cfg(6))
    ev = hub.core.cfg["event"]  # type: ignore[index]
    before = hub.core.last_seq
    with pytest.raises(EventInputError) as exc:
        hub.edit_event(ev["name"], ev["ruleset"], fmt, "chen", "chief")
    said_zh, _, said_en = str(exc.value).partition(" / ")
    assert zh in said_zh and en in said_en and hub.core.last_seq == before
    hub.stop()
