"""An assignment from the hub that stands for no round (a field missing or of the wrong kind) is
refused in words: the table's MQTT link keeps the one it had, and the panel's one-tap start answers
409, not 500 (it answered 500 for ``round: "abc"``, no players, players as a list...)."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from table_service.views.assignment import set_up_data

GOOD: dict[str, Any] = {
    "event": "ev", "round": 1, "table": "1", "teams": {"NS": "T1", "EW": "T2"},
    "players": {"N": "a", "S": "b", "E": "c", "W": "d"},
    "ruleset": {"preset": "jiangsu", "options": {}}, "format": {"kind": "deals", "deals": 1}}

BAD = {
    "round as text": {**GOOD, "round": "abc"},
    "round true": {**GOOD, "round": True},
    "no players": {k: v for k, v in GOOD.items() if k != "players"},
    "players a list": {**GOOD, "players": ["a", "b", "c", "d"]},
    "ruleset text": {**GOOD, "ruleset": "jiangsu"},
    "format a list": {**GOOD, "format": [1]},
    # The probe's: each replaced a good assignment and put a card on the panel its start refused.
    "round 0": {**GOOD, "round": 0},
    "a team against itself": {**GOOD, "teams": {"NS": "T1", "EW": "T1"}},
    "an unknown rule option": {**GOOD, "ruleset": {"preset": "jiangsu-2013", "options": {"bogus": 1}}},
    "a blank player": {**GOOD, "players": {"N": " ", "S": "b", "E": "c", "W": "d"}},
}


def test_a_good_assignment_is_a_round() -> None:
    assert set_up_data(GOOD)["players"] == GOOD["players"]


@pytest.mark.parametrize("case", sorted(BAD))
def test_an_assignment_that_is_no_round_is_refused_in_words(case: str) -> None:
    with pytest.raises(ValueError, match="assignment is not a round"):
        set_up_data(BAD[case])


@pytest.mark.parametrize("case", ["round as text", "players a list"])
def test_the_panels_start_answers_409_for_it(make_app, runner, h, case: str) -> None:
    from table_service.web.tables import web_state

    app = make_app(TABLES={"1": runner})
    web_state(app).tables["1"].hub_link = SimpleNamespace(assignment=BAD[case], result_ack=None, is_connected=True)
    client = app.test_client()
    h.login(client, "rita")
    resp = h.post_json(client, "/api/tables/1/assignment/start", {})
    assert resp.status_code == 409 and "assignment is not a round" in resp.get_json()["error"]
    assert runner.state()["round"] is None


def test_the_table_keeps_the_assignment_it_had() -> None:
    import json

    from table_service.table.mqtt_bridge import MqttBridge

    bridge = MqttBridge.__new__(MqttBridge)  # the message handler alone: no broker needed to read a message
    bridge.table_id, bridge.assignment, bridge.assignment_listeners = "1", None, []
    bridge._on_assignment(None, None, SimpleNamespace(topic="guandan/ev/1/assignment", payload=json.dumps(GOOD).encode()))
    assert bridge.assignment == GOOD
    bad = json.dumps(BAD["players a list"]).encode()
    bridge._on_assignment(None, None, SimpleNamespace(topic="guandan/ev/1/assignment", payload=bad))
    assert bridge.assignment == GOOD


@pytest.mark.parametrize("ack, shown", [
    ({"result_id": "r1-s9", "status": "refused", "reason": "队伍与编排不符 / teams differ"}, False),  # an older hub
    ({"result_id": "r1-s9", "status": "refused", "round": 1, "reason": "x"}, False),
    ({"result_id": "r2-s40", "status": "accepted", "round": 2, "hub_seq": 7}, True),
    ({"result_id": "r2-s40", "status": "refused", "reason": "x"}, True),
    ({"result_id": "r1-s9-04812345", "status": "refused", "reason": "x"}, False),  # the id with its log's identity
    ({"result_id": "r2-s40-04812345", "status": "refused", "reason": "x"}, True),
])
def test_the_hubs_answer_shows_under_its_own_rounds_card_only(make_app, runner, h, ack: dict, shown: bool) -> None:
    """Round 1's refusal stayed under round 2's card ("成绩: 赛事中心拒收" while round 2 was playing)."""
    from table_service.web.tables import web_state

    app = make_app(TABLES={"1": runner})
    web_state(app).tables["1"].hub_link = SimpleNamespace(assignment={**GOOD, "round": 2}, result_ack=ack,
                                                           is_connected=True)
    client = app.test_client()
    h.login(client, "rita")
    body = client.get("/api/tables/1/assignment").get_json()
    assert (body["result_ack"] == ack) if shown else body["result_ack"] is None


@pytest.mark.parametrize("payload", [b"[" * 100_000, b'{"table": "1", "hub_seq": NaN}', b'{"table": "1", "lag": 1e400}',
                                     b'{"table": "1", "table": "2"}', b"\xff\xfe"])
def test_a_message_the_hub_should_never_send_leaves_the_bridge_as_it_was(payload: bytes) -> None:
    """``[[[…`` raised RecursionError out of the handler, which ended paho's network thread: the table
    never heard the hub again (retained, at every restart). NaN and 1e400 were kept, and the panel's
    assignment answer was then not JSON. Each is refused and logged; the bridge keeps what it had."""
    import json

    from table_service.table.mqtt_bridge import MqttBridge
    from table_service.views.deck_wire import read_withdrawal

    bridge = MqttBridge.__new__(MqttBridge)
    bridge.table_id, bridge.assignment, bridge.assignment_listeners, bridge.result_ack = "1", None, [], None
    bridge._on_assignment(None, None, SimpleNamespace(topic="guandan/ev/1/assignment", payload=json.dumps(GOOD).encode()))
    bridge._on_assignment(None, None, SimpleNamespace(topic="guandan/ev/1/assignment", payload=payload))
    bridge._on_result_ack(None, None, SimpleNamespace(topic="guandan/ev/1/result_ack", payload=payload))
    assert bridge.assignment == GOOD and bridge.result_ack is None
    assert read_withdrawal(payload) is None


@pytest.mark.parametrize("ack", [[1, 2], "hello", 5, {"status": {"x": 1}, "round": "1"},
                                 {"result_id": "r" + "9" * 5000 + "-s1", "status": "refused"},
                                 {"result_id": "r1-s9", "status": "maybe", "round": 1},
                                 {"result_id": "r1-s9", "status": "accepted", "round": 0}])
def test_a_result_ack_that_is_no_answer_is_refused_and_the_card_still_answers(make_app, runner, h, ack: Any) -> None:
    """A retained ``result_ack`` with a 5,000-digit round in its id made every poll of the panel's
    assignment card answer 500 (int() of 5,000 digits); a list, a number, a status that is no verdict
    were kept and served. Refused on arrival, the answer the table had stays; the card answers 200."""
    import json

    from table_service.table.mqtt_bridge import MqttBridge
    from table_service.web.tables import web_state

    good = {"result_id": "r1-s9", "status": "accepted", "round": 1, "hub_seq": 4}
    bridge = MqttBridge.__new__(MqttBridge)
    bridge.table_id, bridge.assignment, bridge.assignment_listeners, bridge.result_ack = "1", None, [], None
    topic = "guandan/ev/1/result_ack"
    bridge._on_result_ack(None, None, SimpleNamespace(topic=topic, payload=json.dumps(good).encode()))
    bridge._on_result_ack(None, None, SimpleNamespace(topic=topic, payload=json.dumps(ack).encode()))
    assert bridge.result_ack == good
    app = make_app(TABLES={"1": runner})
    web_state(app).tables["1"].hub_link = SimpleNamespace(assignment=GOOD, result_ack=ack, is_connected=True)
    client = app.test_client()
    h.login(client, "rita")
    assert client.get("/api/tables/1/assignment").status_code == 200


def test_a_table_whose_round_the_hub_finished_says_so_and_leads_to_its_end(make_app, runner, h) -> None:
    """The Pi was down; the chief entered its round-1 result at the hub and published round 2. The card's
    start answered only "the round is not over" (the usability walk of 2026-12-06): it now says why,
    for which rounds, and the round once ended (by the chief) starts from the card."""
    from table_service.web.tables import web_state

    app = make_app(TABLES={"1": runner})
    web_state(app).tables["1"].hub_link = SimpleNamespace(assignment=GOOD, result_ack=None, is_connected=True)
    client = app.test_client()
    h.login(client, "rita")
    assert client.get("/api/tables/1/assignment").get_json()["behind_round"] is None  # no round yet
    assert h.post_json(client, "/api/tables/1/assignment/start", {}).status_code == 200
    web_state(app).tables["1"].hub_link.assignment = {**GOOD, "round": 2, "teams": {"NS": "T3", "EW": "T4"}}
    body = client.get("/api/tables/1/assignment").get_json()
    assert body["behind_round"] == 1 and not body["started"]
    assert runner.submit({"type": "round_ended", "source": "panel", "role": "chief",
                          "data": {"reason": "赛事中心已录入第 1 轮成绩"}}).accepted
    assert client.get("/api/tables/1/assignment").get_json()["behind_round"] is None
    assert h.post_json(client, "/api/tables/1/assignment/start", {}).status_code == 200
    assert runner.state()["round"]["no"] == 2
