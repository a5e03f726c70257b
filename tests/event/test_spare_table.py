"""A table fails mid-event and its match moves to a spare table, from the organiser page, through the
real Mosquitto: ``match_moved`` is logged first, the new table gets the assignment, the old one's is
withdrawn, the result is taken from the new table, the board and the sheets name it, and a restarted
hub replays the move and sends the same assignment again. Moves that cannot be are refused, in both
languages, and only the chief moves a match."""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from event_helpers import wait_for

from table_service.demo.event_demo import BotEventTable
from table_service.engine.apply import apply_in_place
from table_service.engine.ruleset import stamp_generation
from table_service.engine.self_play import SelfPlayTable
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.moves import apply_move, carried_standing, moved_from
from table_service.rules.cards import RANKS
from table_service.table.mqtt_bridge import table_summary
from table_service.views.assignment import set_up_data

from .test_hub_web import app_with_users, login


def _cfg(broker: Any, deals: int = 1) -> dict[str, Any]:
    """Two matches a round at tables 1 and 2; tables 3 and 4 are the spares."""
    return validate({"event": {"id": "ev", "name": "备用桌测试", "rounds": 2, "seed": 4,
                               "format": {"kind": "deals", "deals": deals}},
                     "mqtt": broker.hub_mqtt("ev"), "teams": [{"id": f"T{i}", "name": f"队{i}"} for i in range(1, 5)],
                     "tables": [{"id": str(i)} for i in range(1, 5)]})


def _move(client: Any, token: str, slot: str, to: str, reason: str = "Pi 故障",
          **standing: str) -> tuple[int, dict[str, Any]]:
    r = client.post("/hub/action/move_match", data={"csrf_token": token, "slot": slot, "to": to, "reason": reason,
                                                    **standing}, headers={"Accept": "application/json"})
    return r.status_code, r.get_json()


def _forget_assignment(broker: Any, table: str) -> None:
    """Clear ``table``'s retained assignment with the hub's credential (the only one that may write it)."""
    m = broker.hub_mqtt("ev")
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="forget")
    c.username_pw_set(m["username"], m["password"])
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    try:
        c.publish(f"guandan/ev/{table}/assignment", b"", qos=1, retain=True).wait_for_publish(5)
    finally:
        c.loop_stop()
        c.disconnect()


def _pi(tmp: Path, broker: Any, table: str) -> BotEventTable:
    return BotEventTable(table, tmp / "tables", port=broker.port, event_id="ev", seed=int(table), auto=False,
                         login=broker.login("ev", table))


def test_a_failed_tables_match_moves_to_a_spare_table_from_the_organiser_page(tmp_path: Path, broker: Any) -> None:
    hub = HubService(_cfg(broker, deals=2), tmp_path / "hub").start()
    pis = {t: _pi(tmp_path, broker, t) for t in ("1", "2", "3")}
    restarted = None
    try:
        assert hub.wait_connected(10)
        hub.draw_next("o", "chief")
        hub.publish_draw(1, "o", "chief")
        match = next(t for t in hub.core.draws[1]["tables"] if t["table"] == "1")
        for p in pis.values():
            p.start()
        wait_for(lambda: pis["1"].bridge.assignment and pis["2"].bridge.assignment, what="the assignments")
        assert pis["3"].bridge.assignment is None  # the spare plays nothing

        client = app_with_users(hub, tmp_path).test_client()
        token = login(client, "chen")
        page = client.get("/hub/admin").get_data(as_text=True)
        assert 'id="move-form"' in page and 'value="1|1"' in page and '<option value="3">' in page
        assert '<option value="2">' not in page.split('id="move-to"')[1].split("</select>")[0]  # busy: not offered

        code, answer = _move(client, token, "1|1", "3", ns_level="5", ew_level="2", deals_played="1",
                             next_side="NS")
        assert code == 200 and answer["ok"], answer
        assert "1 号桌的比赛已移至 3 号桌" in answer["message"] and "moved to table 3" in answer["message"]
        ev = hub.store.events()[-1]
        assert ev["type"] == "match_moved" and (ev["data"]["from"], ev["data"]["to"]) == ("1", "3")
        assert ev["actor"] == "chen" and ev["data"]["reason"] == "Pi 故障"
        # Table 1 never reported the round: the chief read its score sheet (deal 1 of 2 won by NS, +3) and
        # the match goes on from there
        standing = ev["data"]["standing"]
        assert standing["source"] == "chief" and standing["report"] is None
        assert standing["resume"] == {"from": "1", "levels": {"NS": "5", "EW": "2"}, "deals": 1, "next_side": "NS"}

        # The spare gets the match's assignment (the same teams and players), the old table loses its own
        got = wait_for(lambda: pis["3"].bridge.assignment, what="the spare's assignment")
        assert got["table"] == "3" and got["teams"] == {"NS": match["ns"], "EW": match["ew"]}
        assert got["hub_seq"] == ev["seq"] and got["resume"] == standing["resume"]
        wait_for(lambda: pis["1"].bridge.assignment is None, what="the old table's assignment withdrawn")

        # The result comes from the new table; the round is complete without table 1
        pis["3"].play_assigned()
        pis["2"].play_assigned()
        wait_for(lambda: (1, "3") in hub.core.results and (1, "2") in hub.core.results, what="the results")
        assert hub.core.round_complete(1) and (1, "1") not in hub.core.results
        line = hub.core.results[(1, "3")].line
        assert line["ns"] == match["ns"] and line["ns_levels"] >= 3  # from 2, not from 5
        assert pis["3"].runner.state()["result"]["deals"] >= 2 and pis["3"].runner.state()["score_sheet"][0]["deal"] == 2
        wait_for(lambda: (pis["3"].bridge.result_ack or {}).get("status") == "accepted", what="the new table's ack")

        # The board, the overview and the printed draw name table 3
        board = client.get("/hub/api/board").get_json()
        assert json.dumps(board).count('"table": "3"') >= 1 and '"table": "1"' not in json.dumps(board)
        rows = client.get("/hub/api/overview").get_json()["tables"]
        assert sorted(r["table"] for r in rows) == ["2", "3"]
        assert {r["table"]: r["moved_from"] for r in rows} == {"2": None, "3": "1"}
        sheet = client.get("/hub/print/draw/1").get_data(as_text=True)
        assert f"由 1 号桌移来 / moved from table 1</small></td><td>队{match['ns'][1:]} ({match['ns']})</td>" in sheet
        assert "<tr><td>3<br>" in sheet and "<tr><td>1</td>" not in sheet
        results = client.get("/hub/print/results/1").get_data(as_text=True)  # the signed results sheet too
        assert "<tr><td>3<br><small class=\"moved\">由 1 号桌移来 / moved from table 1</small></td>" in results
        assert next(t for t in board["tables"] if t["table"] == "3")["moved_from"] == "1"
        seq = ev["seq"]
    finally:
        for p in pis.values():
            p.stop()
        hub.stop()

    # The broker forgets table 3's retained assignment (a restart without its store): only the restarted
    # hub's can reach the Pi, which replays the move and sends the same assignment (hub_seq the move's).
    _forget_assignment(broker, "3")
    hub = HubService(_cfg(broker, deals=2), tmp_path / "hub").start()
    try:
        assert sorted(t["table"] for t in hub.core.draws[1]["tables"]) == ["2", "3"]
        assert hub.wait_connected(10)
        restarted = _pi(tmp_path / "again", broker, "3").start()
        got = wait_for(lambda: restarted.bridge.assignment, what="table 3's assignment after the hub's restart")
        assert got["hub_seq"] == seq and got["teams"] == {"NS": match["ns"], "EW": match["ew"]}
    finally:
        if restarted is not None:
            restarted.stop()
        hub.stop()


def test_a_move_that_cannot_be_is_refused_in_both_languages(tmp_path: Path, broker: Any) -> None:
    hub = HubService(_cfg(broker), tmp_path / "hub", connect=False)
    try:
        hub.draw_next("o", "chief")
        hub.publish_draw(1, "o", "chief")
        busy = next(t for t in hub.core.draws[1]["tables"] if t["table"] == "2")
        app = app_with_users(hub, tmp_path)
        client = app.test_client()
        token = login(client, "chen")

        code, answer = _move(client, token, "1|1", "2")  # table 2 plays a match this round
        assert code == 400 and "2 号桌本轮已有比赛（队" in answer["error"] and "table 2 already plays a match" in answer["error"]
        assert f"队{busy['ns'][1:]}" in answer["error"].split(" / ")[0] and f"队{busy['ns'][1:]}" in answer["error"].split(" / ")[1]

        hub.hand_result({"round": 1, "table": "2", "ns": busy["ns"], "ew": busy["ew"], "ns_levels": 3, "ew_levels": 1},
                        "o", "chief")
        before = len(hub.store.events())
        code, answer = _move(client, token, "1|2", "3")  # its match is finished
        assert code == 400 and "已结束" in answer["error"] and "is finished" in answer["error"]
        code, answer = _move(client, token, "1|1", "9")  # not one of the event's tables
        assert code == 400 and "赛事没有 9 号桌" in answer["error"] and "table 9 is not one of" in answer["error"]
        code, answer = _move(client, token, "1|1", "1")
        assert code == 400 and "相同" in answer["error"] and "the same" in answer["error"]
        code, answer = _move(client, token, "2|1", "3")  # round 2 is not published
        assert code == 400 and "当前轮" in answer["error"] and "current round" in answer["error"]
        assert len(hub.store.events()) == before  # nothing logged

        referee = app.test_client()
        token = login(referee, "rita")
        code, answer = _move(referee, token, "1|1", "3")
        assert code == 403 and "裁判长" in answer["error"]
        assert 'id="spare-chief-only"' in referee.get("/hub/admin").get_data(as_text=True)
        assert len(hub.store.events()) == before
    finally:
        hub.stop()


def _table(assignment: dict[str, Any], deals: int, seed: int) -> SelfPlayTable:
    """A table's engine, set up from ``assignment`` as the panel's one tap does, with ``deals`` deals
    played by the bots (the real engine: its summary is what a table reports)."""
    bots = SelfPlayTable(seed, step_ms=(5, 20))
    apply_in_place(bots.state, stamp_generation({"t_ms": bots.t, "type": "round_set_up", "source": "panel",
                                                 "role": "referee", "data": set_up_data(assignment)}))
    for _ in range(deals):
        list(bots.deal())
    return bots


def _report(hub: HubService, table: str, state: dict[str, Any]) -> None:
    """The table's summary, as its bridge builds it, handed to the hub as the broker would."""
    hub.handle_batch([(table, "summary", json.dumps(table_summary(state, table, None)).encode(), True)])


def test_the_moved_match_goes_on_from_the_old_tables_standing(tmp_path: Path, broker: Any) -> None:
    hub = HubService(_cfg(broker, deals=3), tmp_path / "hub", connect=False)
    try:
        hub.draw_next("o", "chief")
        hub.publish_draw(1, "o", "chief")
        draw = hub.core.draws[1]
        old = {t: _table(draw["assignments"][t], 1, seed=int(t)) for t in ("1", "2")}
        for t, bots in old.items():
            _report(hub, t, bots.state)
        lv = old["1"].state["levels"]
        client = app_with_users(hub, tmp_path).test_client()
        token = login(client, "chen")

        # The form, prefilled from the table's last report, says where its values come from
        page = html.unescape(client.get("/hub/admin?slot=1|1").get_data(as_text=True))
        assert f"1 号桌最后报告：第 1 副，南北 {lv['NS']}，东西 {lv['EW']}" in page
        assert f"table 1's last report: deal 1, NS {lv['NS']}, EW {lv['EW']}" in page
        form = page.split('id="move-form"')[1].split("</form>")[0]
        assert f'<option value="{lv["NS"]}" selected>' in form.split('id="move-ns-level"')[1].split("</select>")[0]
        assert 'name="deals_played" id="move-deals" type="number" min="0" value="1"' in form
        never = HubService(_cfg(broker, deals=3), tmp_path / "never", connect=False)
        try:
            never.draw_next("o", "chief")
            never.publish_draw(1, "o", "chief")
            fresh = app_with_users(never, tmp_path / "never").test_client()
            login(fresh, "chen")
            page = html.unescape(fresh.get("/hub/admin?slot=1|2").get_data(as_text=True))
            assert "2 号桌未报告过本场比赛：默认从本轮开始（2 级）" in page and "table 2 never reported this match" in page
        finally:
            never.stop()

        # The chief's correction, checked: refused in both languages, nothing logged
        before = len(hub.store.events())
        code, answer = _move(client, token, "1|1", "3", ns_level="Z", ew_level="5")
        assert code == 400 and "南北的级数须为 2…A" in answer["error"] and "NS's level must be 2…A" in answer["error"]
        code, answer = _move(client, token, "1|1", "3", deals_played="两")
        assert code == 400 and "已打副数须为整数" in answer["error"] and "deals played must be a whole number" in answer["error"]
        code, answer = _move(client, token, "1|1", "3", ns_level="7", ew_level="5", deals_played="0")
        assert code == 400 and "续赛数据无效" in answer["error"] and "no deal played" in answer["error"]
        code, answer = _move(client, token, "1|1", "3", ns_level="7", ew_level="5", deals_played="2", next_side="WE")
        assert code == 400 and "下一副须打南北或东西的级" in answer["error"] and "NS's or EW's level" in answer["error"]
        assert len(hub.store.events()) == before

        # Table 2's match moves as it last reported: the last deal's order (the tribute owed) goes too
        code, answer = _move(client, token, "1|2", "4")
        assert code == 200 and "接着打：已打 1 副" in answer["message"], answer
        report2 = hub.store.events()[-1]["data"]["standing"]
        s2 = old["2"].state
        assert report2["source"] == "report" and report2["report"]["levels"] == s2["levels"]
        assert report2["resume"] == {"from": "2", "levels": s2["levels"], "deals": 1,
                                     "next_side": "NS" if s2["score_sheet"][0]["finish_order"][0] in "NS" else "EW",
                                     "last_order": s2["score_sheet"][0]["finish_order"]}

        # Table 1's match moves as the chief read it on the score sheet
        code, answer = _move(client, token, "1|1", "3", ns_level="10", ew_level="5", deals_played="2", next_side="NS")
        assert code == 200 and "南北 10，东西 5" in answer["message"], answer
        ev = hub.store.events()[-1]
        assert ev["data"]["standing"]["source"] == "chief" and ev["data"]["standing"]["report"]["deal"] == 1
        resume = {"from": "1", "levels": {"NS": "T", "EW": "5"}, "deals": 2, "next_side": "NS"}
        assignment = hub.core.draws[1]["assignments"]["3"]
        assert ev["data"]["standing"]["resume"] == resume and assignment["resume"] == resume
        page = client.get("/hub/admin").get_data(as_text=True)
        assert "接着打：已打 2 副，南北 10，东西 5" in page

        # The spare table goes on: deal 3 at NS's 10, the result's levels gained counted from 2
        new = _table(assignment, 0, seed=3)
        assert new.state["levels"] == {"NS": "T", "EW": "5"} and new.state["round"]["start_levels"] == {"NS": "2", "EW": "2"}
        while new.state["result"] is None:
            list(new.deal())
        res = new.state["result"]
        assert new.state["score_sheet"][0]["deal"] == 3 and new.state["score_sheet"][0]["level"] == "T"
        assert res["deals"] == 3 and res["reason"] == "deals"
        assert res["gained"] == {s: RANKS.index(new.state["levels"][s]) for s in ("NS", "EW")}
        assert res["gained"]["NS"] >= 8 and res["gained"]["EW"] >= 3
        moved = hub.core.draws[1]["assignments"]
    finally:
        hub.stop()

    # A restarted hub replays the moves: the same assignments, the same standings said
    hub = HubService(_cfg(broker, deals=3), tmp_path / "hub", connect=False)
    try:
        assert hub.core.draws[1]["assignments"] == moved
        assert [m["resume"]["levels"] for m in hub.core.draws[1]["moves"]] == [s2["levels"], {"NS": "T", "EW": "5"}]
    finally:
        hub.stop()


def test_a_move_logged_before_the_standing_was_carried_replays_as_it_was() -> None:
    draws = {1: {"tables": [{"table": "1", "ns": "T1", "ew": "T2"}], "published": True,
                 "assignments": {"1": {"table": "1", "round": 1}}}}
    apply_move(draws, {"round": 1, "from": "1", "to": "3", "assignment": {"table": "3", "round": 1}, "reason": ""},
               {"seq": 9})
    assert draws[1]["assignments"] == {"3": {"table": "3", "round": 1}}  # no resume: from deal 1, as it was played
    assert draws[1]["moves"][0]["resume"] is None and moved_from(draws[1]) == {"3": "1"}


def test_what_the_chief_changes_drops_what_no_longer_follows_from_the_report() -> None:
    a = {"ruleset": {"preset": "jiangsu", "options": {"tries_at_a": 3}}}
    report = {"deal": 9, "seq": 300, "levels": {"NS": "A", "EW": "9"}, "deals": 8, "next_side": "NS",
              "last_order": ["N", "E", "W", "S"], "failed_at_a": {"NS": 2}}
    same = carried_standing(a, "2", report, None)
    assert same["source"] == "report" and same["resume"] == {
        "from": "2", "levels": {"NS": "A", "EW": "9"}, "deals": 8, "next_side": "NS", "failed_at_a": {"NS": 2},
        "last_order": ["N", "E", "W", "S"]}
    fixed = carried_standing(a, "2", report, {"levels": {"NS": "K"}, "deals": 7})
    assert fixed["source"] == "chief" and fixed["report"] == report
    assert fixed["resume"] == {"from": "2", "levels": {"NS": "K", "EW": "9"}, "deals": 7, "next_side": "NS"}
    assert carried_standing(a, "2", None, None) == {"source": "start", "report": None, "resume": None}
