"""What an outsider and an organiser met in the hands-on audit of the hub (8 teams, 3 rounds, a
provisioned Mosquitto): each test names the defect it found.

- a result sent under a result id the hub had already recorded, but saying something else, was
  acknowledged "accepted" and dropped: the table showed a result the hub never had, and nothing
  reached the chief referee's list (the same within one batch);
- a table's own result, resent by its Pi after the referee had entered the very same result by hand
  while the Pi was down, was refused ("already has a result") and put on the chief referee's list
  and the table's faults, though it agreed (docs/hub-protocol.md refuses "a second different result");
- EVENT.toml took two teams of one name (the board and the standings show names only), and a
  blank team or event name that the hub's own edit forms refuse; the team edit form renamed a
  team to another team's name;
- a misspelt or mistyped ``[ruleset_options]`` key was reported as "EVENT.toml 规则无效 / bad ruleset:
  EVENT.toml [ruleset_options]: 未知配置项 … / unknown key …" (the file twice, the languages mixed).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import EventInputError


def event_raw(n: int = 8) -> dict[str, Any]:
    return {"event": {"id": "au", "name": "审计赛", "rounds": 3, "seed": 7},
            "teams": [{"id": f"T{i}", "name": f"队{i}"} for i in range(1, n + 1)]}


@pytest.fixture
def hub(tmp_path: Path) -> Any:
    h = HubService(validate(event_raw()), tmp_path / "hub", connect=False)
    h.draw_next("org", "chief")
    h.publish_draw(1, "org", "chief")
    yield h
    h.stop()


def _result(h: HubService, table: str, rid: str, ns_levels: int, ew_levels: int) -> tuple[str, str, bytes, bool]:
    t = next(t for t in h.core.draws[1]["tables"] if t["table"] == table)
    line = {"round": 1, "table": table, "ns": t["ns"], "ew": t["ew"], "ns_levels": ns_levels, "ew_levels": ew_levels}
    return (table, "result", json.dumps({"result_id": rid, "result": line}).encode(), False)


def _acks(h: HubService, batch: list[tuple[str, str, bytes, bool]]) -> list[dict[str, Any]]:
    """Hand ``batch`` to the hub as the broker would; the acknowledgements it publishes."""
    sent: list[dict[str, Any]] = []

    class Pub:
        def publish(self, table: str, name: str, payload: bytes, **_k: Any) -> None:
            sent.append(json.loads(payload))

    h.mqtt = Pub()  # type: ignore[assignment]
    try:
        h.handle_batch(batch)
    finally:
        h.mqtt = None
    return sent


@pytest.mark.parametrize("one_batch", [False, True], ids=["later", "same-batch"])
def test_another_result_under_a_recorded_result_id_is_refused_not_acknowledged(hub: HubService,
                                                                               one_batch: bool) -> None:
    first, other = _result(hub, "1", "r1-s40", 5, 1), _result(hub, "1", "r1-s40", 0, 6)
    acks = _acks(hub, [first, other]) if one_batch else _acks(hub, [first]) + _acks(hub, [other])
    assert [a["status"] for a in acks] == ["accepted", "refused"]
    assert "r1-s40" in acks[1]["reason"] and "already recorded with a different result" in acks[1]["reason"]
    assert acks[1]["reason"].startswith("成绩编号")  # Chinese first
    assert (hub.core.results[(1, "1")].line["ns_levels"], hub.core.results[(1, "1")].line["ew_levels"]) == (5, 1)
    assert [r["result_id"] for r in hub.core.refusals] == ["r1-s40"]  # on the chief referee's list, once
    # The same two again (QoS 1 redelivery, the retained copy on a reconnect): nothing more is logged.
    seqs = hub.core.last_seq
    assert [a["status"] for a in _acks(hub, [first, other])] == ["accepted", "refused"]
    assert hub.core.last_seq == seqs and hub.core.faults == {"1": 1}


def test_the_very_result_under_its_id_is_still_a_quiet_duplicate(hub: HubService) -> None:
    first = _result(hub, "2", "r1-s9", 4, 2)
    acks = _acks(hub, [first, first]) + _acks(hub, [first])
    assert [a["status"] for a in acks] == ["accepted", "accepted", "accepted"]
    assert hub.core.refusals == [] and hub.core.faults == {}


@pytest.mark.parametrize(("change", "needle"), [
    (lambda raw: raw["teams"][3].update(name="队1"), "[teams #4]: 队名 '队1' 与 T1 队重复 / team name '队1' is already team T1's"),
    (lambda raw: raw["teams"][3].update(name=" 队1 "), "[teams #4]: 队名 '队1' 与 T1 队重复"),
    (lambda raw: (raw["teams"][0].update(name="Nanjing A"), raw["teams"][5].update(name="nanjing  a")),
     "[teams #6]: 队名 'nanjing  a' 与 T1 队重复"),
    (lambda raw: raw["teams"][2].pop("name") and raw["teams"][6].update(name="T3"), "[teams #7]: 队名 'T3' 与 T3 队重复"),
    (lambda raw: raw["teams"][1].update(name=""), "[teams #2]: 队名为空 / 'name' is empty"),
    (lambda raw: raw["teams"][1].update(name="   "), "[teams #2]: 队名为空 / 'name' is empty"),
    (lambda raw: raw["event"].update(name=" "), "[event]: name 为空 / 'name' is empty"),
], ids=["same", "spaced", "case-and-spacing", "another-teams-id-as-name", "empty", "blank", "blank-event-name"])
def test_event_toml_refuses_two_teams_of_one_name_and_blank_names(change: Any, needle: str) -> None:
    raw = event_raw()
    change(raw)
    with pytest.raises(EventInputError) as exc:
        validate(raw)
    assert needle in str(exc.value)


def test_the_team_form_does_not_rename_a_team_to_another_teams_name(hub: HubService) -> None:
    with pytest.raises(EventInputError, match="队名 '队2' 与 T2 队重复 / team name '队2' is already team T2's"):
        hub.edit_team("T1", "队2 ", ["甲", "乙"], "org", "chief")
    assert hub.core.team("T1")["name"] == "队1"
    hub.edit_team("T1", "队1", ["甲", "乙"], "org", "chief")  # its own name, players changed: fine
    assert hub.core.team("T1")["players"] == ["甲", "乙"]


@pytest.mark.parametrize(("options", "message"), [
    ({"clock_lead": 20}, "EVENT.toml [ruleset_options]: 未知配置项 'clock_lead'（是否想写 'clock_lead_s'？） / unknown key 'clock_lead' (did you mean "
                         "'clock_lead_s'?)"),
    ({"clock_lead_s": "20"}, "EVENT.toml [ruleset_options]: clock_lead_s: 规则选项类型错误：clock_lead_s='20'"
                             "（应为 0–86400 的整数） / bad option clock_lead_s='20' (expected a whole number 0-86400)"),
], ids=["misspelt", "wrong-type"])
def test_a_ruleset_option_typo_is_one_message_naming_the_key_once(options: dict[str, Any], message: str) -> None:
    """It read "EVENT.toml 规则无效 / bad ruleset: EVENT.toml [ruleset_options]: 未知配置项 … / unknown key …":
    the file named twice, and Chinese, English, Chinese, English."""
    with pytest.raises(EventInputError) as exc:
        validate({**event_raw(), "ruleset_options": options})
    assert str(exc.value) == message


def test_a_tables_result_agreeing_with_the_hand_entered_one_is_a_duplicate_not_a_refusal(hub: HubService) -> None:
    t = next(t for t in hub.core.draws[1]["tables"] if t["table"] == "3")
    hub.hand_result({"round": 1, "table": "3", "ns": t["ns"], "ew": t["ew"], "ns_levels": 4, "ew_levels": 2},
                    "rita", "referee")
    seqs = hub.core.last_seq
    acks = _acks(hub, [_result(hub, "3", "r1-s77", 4, 2)])  # the Pi back, resending what it signed
    assert acks == [{"result_id": "r1-s77", "status": "accepted", "round": 1, "duplicate": True}]
    assert hub.core.last_seq == seqs and hub.core.refusals == [] and hub.core.faults == {}
    # One that disagrees is still the chief referee's to look at.
    acks = _acks(hub, [_result(hub, "3", "r1-s78", 2, 4)])
    assert acks[0]["status"] == "refused" and "already has a result" in acks[0]["reason"]
    assert [r["result_id"] for r in hub.core.refusals] == ["r1-s78"]
    assert hub.core.results[(1, "3")].line["ns_levels"] == 4


def test_two_ids_with_one_result_in_one_batch_are_one_result(hub: HubService) -> None:
    acks = _acks(hub, [_result(hub, "4", "r1-s5", 3, 1), _result(hub, "4", "r1-s6", 3, 1),
                       _result(hub, "4", "r1-s7", 1, 3)])
    assert [a["status"] for a in acks] == ["accepted", "accepted", "refused"]
    assert acks[1].get("duplicate") is True
    assert [r["result_id"] for r in hub.core.refusals] == ["r1-s7"]


def test_an_ideographic_space_in_a_name_is_text_a_control_character_is_not(hub: HubService) -> None:
    """Chinese lists align a two-character name under three with an ideographic space ("张\u3000三"):
    Python calls U+3000 "not printable", and EVENT.toml, the team form and the hub's text fields
    refused such names as holding a control character. One rule now (``views.wire.control_character``)."""
    raw = event_raw()
    raw["teams"][0].update(name="常州\u3000一队", players=["张\u3000三", "欧阳明"])
    cfg = validate(raw)
    assert cfg["teams"][0]["name"] == "常州\u3000一队" and cfg["teams"][0]["players"][0] == "张\u3000三"
    for bad in ("张\x1b[2J三", "张\u202e三", "张\n三"):  # an escape, a direction override, a line break
        raw = event_raw()
        raw["teams"][0]["players"] = [bad, "李四"]
        with pytest.raises(EventInputError, match="control character"):
            validate(raw)
    hub.edit_team("T1", "队\u3000一", ["甲\u3000乙", "丙"], "org", "chief")
    assert hub.core.team("T1")["name"] == "队\u3000一" and hub.core.team("T1")["players"][0] == "甲\u3000乙"
    with pytest.raises(EventInputError):
        hub.edit_team("T1", "队\u202e一", ["甲", "丙"], "org", "chief")
