"""A table fails mid-event and its match moves to a spare table, from the organiser page, through the
real Mosquitto: ``match_moved`` is logged first, the new table gets the assignment, the old one's is
withdrawn, the result is taken from the new table, the board and the sheets name it, and a restarted
hub replays the move and sends the same assignment again. Moves that cannot be are refused, in both
languages, and only the chief moves a match."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from event_helpers import wait_for

from table_service.demo.event_demo import BotEventTable
from table_service.event.config import validate
from table_service.event.hub import HubService

from .test_hub_web import app_with_users, login


def _cfg(broker: Any) -> dict[str, Any]:
    """Two matches a round at tables 1 and 2; tables 3 and 4 are the spares."""
    return validate({"event": {"id": "ev", "name": "备用桌测试", "rounds": 2, "seed": 4,
                               "format": {"kind": "deals", "deals": 1}},
                     "mqtt": broker.hub_mqtt("ev"), "teams": [{"id": f"T{i}", "name": f"队{i}"} for i in range(1, 5)],
                     "tables": [{"id": str(i)} for i in range(1, 5)]})


def _move(client: Any, token: str, slot: str, to: str, reason: str = "Pi 故障") -> tuple[int, dict[str, Any]]:
    r = client.post("/hub/action/move_match", data={"csrf_token": token, "slot": slot, "to": to, "reason": reason},
                    headers={"Accept": "application/json"})
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
    hub = HubService(_cfg(broker), tmp_path / "hub").start()
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

        code, answer = _move(client, token, "1|1", "3")
        assert code == 200 and answer["ok"], answer
        assert "1 号桌的比赛已移至 3 号桌" in answer["message"] and "moved to table 3" in answer["message"]
        ev = hub.store.events()[-1]
        assert ev["type"] == "match_moved" and (ev["data"]["from"], ev["data"]["to"]) == ("1", "3")
        assert ev["actor"] == "chen" and ev["data"]["reason"] == "Pi 故障"

        # The spare gets the match's assignment (the same teams and players), the old table loses its own
        got = wait_for(lambda: pis["3"].bridge.assignment, what="the spare's assignment")
        assert got["table"] == "3" and got["teams"] == {"NS": match["ns"], "EW": match["ew"]}
        assert got["hub_seq"] == ev["seq"]
        wait_for(lambda: pis["1"].bridge.assignment is None, what="the old table's assignment withdrawn")

        # The result comes from the new table; the round is complete without table 1
        pis["3"].play_assigned()
        pis["2"].play_assigned()
        wait_for(lambda: (1, "3") in hub.core.results and (1, "2") in hub.core.results, what="the results")
        assert hub.core.round_complete(1) and (1, "1") not in hub.core.results
        assert hub.core.results[(1, "3")].line["ns"] == match["ns"]
        wait_for(lambda: (pis["3"].bridge.result_ack or {}).get("status") == "accepted", what="the new table's ack")

        # The board, the overview and the printed draw name table 3
        board = client.get("/hub/api/board").get_json()
        assert json.dumps(board).count('"table": "3"') >= 1 and '"table": "1"' not in json.dumps(board)
        assert sorted(r["table"] for r in client.get("/hub/api/overview").get_json()["tables"]) == ["2", "3"]
        sheet = client.get("/hub/print/draw/1").get_data(as_text=True)
        assert f"<tr><td>3</td><td>队{match['ns'][1:]} ({match['ns']})</td>" in sheet and "<tr><td>1</td>" not in sheet
        seq = ev["seq"]
    finally:
        for p in pis.values():
            p.stop()
        hub.stop()

    # The broker forgets table 3's retained assignment (a restart without its store): only the restarted
    # hub's can reach the Pi, which replays the move and sends the same assignment (hub_seq the move's).
    _forget_assignment(broker, "3")
    hub = HubService(_cfg(broker), tmp_path / "hub").start()
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
