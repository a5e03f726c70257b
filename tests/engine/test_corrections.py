"""Uncertain reads, referee confirmations and corrections, voids and declared readings.

A correction never edits the log: it is a new event, and the deal is re-folded with it, so the
live state and a replay of the log agree."""

from __future__ import annotations

from engine_helpers import Table

from table_service.engine.state import state_to_json


def _started() -> Table:
    t = Table()
    t.first_deal("E")
    return t


def test_uncertain_read_is_a_question_not_a_play() -> None:
    t = _started()
    fx = t.play("E", "8s", data={"uncertain": True, "confidence": [0.41]})
    q_seq = t.events[-1]["seq"]
    assert t.deal["questions"] == [{"seq": q_seq, "seat": "E", "cards": ["8s"], "confidence": [0.41], "t_ms": t.t}]
    assert t.deal["trick"]["plays"] == [] and t.deal["counts"]["E"] == 27 and t.deal["seen"] == {}
    assert t.deal["turn"] == "E"
    assert any(f["kind"] == "question_opened" for f in fx)
    assert {"kind": "lamp", "seat": None, "lamp": "referee", "mode": "blink"} in fx
    return None


def test_confirmed_question_becomes_the_play_in_its_place() -> None:
    t = _started()
    t.play("E", "8s", data={"uncertain": True, "confidence": [0.41]})
    q_seq = t.events[-1]["seq"]
    assert "referee role" in t.reject("play_confirmed", {"ref": q_seq})
    t.do("play_confirmed", {"ref": q_seq}, role="referee")
    assert t.deal["questions"] == []
    assert t.deal["trick"]["plays"][0]["seq"] == q_seq and t.deal["trick"]["plays"][0]["cards"] == ["8s"]
    assert t.deal["turn"] == "N"
    # the timer runs from the play's own time, not the confirmation's
    assert t.deal["timers"]["N"]["started_ms"] == t.events[-2]["t_ms"]
    assert t.replay_matches()
    assert "not an open question" in t.reject("play_confirmed", {"ref": q_seq}, role="referee")


def test_corrected_question(table: Table) -> None:
    table.first_deal("E")
    table.play("E", "8s", data={"uncertain": True})
    q_seq = table.events[-1]["seq"]
    table.do("play_corrected", {"ref": q_seq, "cards": ["9s"]}, role="referee")
    assert table.deal["trick"]["plays"][0]["cards"] == ["9s"] and table.deal["seen"] == {"9s": 1}
    assert table.state["corrections"][-1]["ref"] == q_seq
    assert table.replay_matches()


def test_a_later_play_after_a_question_is_re_judged_by_the_correction(table: Table) -> None:
    table.first_deal("E")
    table.play("E", "8s", data={"uncertain": True})
    q_seq = table.events[-1]["seq"]
    table.play("N", "Ts")  # N plays on what it saw; the engine had no play from E yet
    assert table.flags("out_of_turn", "open")
    table.do("play_confirmed", {"ref": q_seq}, role="referee")
    assert table.flags("out_of_turn")[0]["status"] == "withdrawn"
    assert [p["cards"] for p in table.deal["trick"]["plays"]] == [["8s"], ["Ts"]]
    assert table.deal["turn"] == "W"
    assert table.replay_matches()


def test_camera_offline_referee_enters_plays(table: Table) -> None:
    table.first_deal("E")
    table.do("device_status_changed", {"device": "camera", "status": "offline"}, source="system")
    assert table.state["devices"]["camera"] == "offline"
    table.play("E", "8s", source="panel", data={"uncertain": True})  # panel entries are plays
    assert table.deal["trick"]["plays"][0]["source"] == "panel" and table.deal["turn"] == "N"


def test_correct_an_accepted_play_withdraws_its_flag(table: Table) -> None:
    table.first_deal("E")
    table.play("E", "9s")
    table.play("N", "8s")  # misread: flagged, does not beat
    bad = table.events[-1]["seq"]
    assert table.flags("does_not_beat", "open")
    fx = table.do("play_corrected", {"ref": bad, "cards": ["Js"]}, role="referee")
    assert table.flags("does_not_beat")[0]["status"] == "withdrawn"
    assert table.deal["trick"]["plays"][1]["cards"] == ["Js"] and table.deal["turn"] == "W"
    assert table.deal["seen"] == {"9s": 1, "Js": 1}
    assert {"kind": "lamp", "seat": "W", "lamp": "turn", "mode": "on"} in fx
    assert table.replay_matches()


def test_void_a_pass(table: Table) -> None:
    table.first_deal("E")
    table.play("E", "9s")
    table.pass_("N")
    wrong = table.events[-1]["seq"]
    assert table.deal["turn"] == "W"
    assert "reason" in table.reject("event_voided", {"ref": wrong}, role="referee")
    table.do("event_voided", {"ref": wrong, "reason": "N pressed by mistake"}, role="referee")
    assert table.deal["turn"] == "N" and len(table.deal["trick"]["plays"]) == 1
    assert table.reject("event_voided", {"ref": wrong, "reason": "again"}, role="referee") == (
        f"event_voided：事件 #{wrong} 已撤销 / event_voided: event {wrong} is already void")
    assert table.replay_matches()


def test_void_refusals(table: Table) -> None:
    assert "no deal" in table.reject("event_voided", {"ref": 1, "reason": "x"}, role="referee")
    table.first_deal("E")
    draw = table.events[-1]["seq"]
    assert table.reject("event_voided", {"ref": draw, "reason": "x"}, role="referee").startswith(
        "此类事件（drawing_finished）不可撤销 / event_voided: a drawing_finished cannot be voided")
    assert "not an event of the current deal" in table.reject("event_voided", {"ref": 1, "reason": "x"}, role="referee")
    table.play("E", "9s")
    assert "not cards_played" in table.reject("play_corrected", {"ref": draw, "cards": ["3s"]}, role="referee")
    assert "not a card" in table.reject("play_corrected", {"ref": draw + 1, "cards": ["3x"]}, role="referee")


def test_correction_of_the_last_play_reopens_an_ended_deal(table: Table) -> None:
    table.first_deal("E", {"E": 1, "S": 1, "W": 1, "N": 1})
    table.play("E", "3s")
    table.pass_("N")
    table.play("W", "4s")  # E, W out: deal over, EW +3
    last = table.events[-1]["seq"]
    assert table.state["levels"]["EW"] == "5"
    fx = table.do("play_corrected", {"ref": last, "cards": ["4s", "4d"]}, role="referee")  # W had misplayed a pair
    # a pair on a single does not beat: flagged, W has played out (count 0) all the same
    assert table.flags("does_not_beat")
    assert [f["flag"]["rule"] for f in fx if f["kind"] == "flag_raised"] == ["does_not_beat"]
    assert table.state["score_sheet"][-1]["finish_order"][:2] == ["E", "W"]
    table.do("event_voided", {"ref": last, "reason": "W's play was N's"}, role="referee")
    assert table.deal["phase"] == "play" and table.state["score_sheet"] == [] and table.state["levels"]["EW"] == "2"
    assert table.replay_matches()


def test_declared_reading_of_a_wild_card_play() -> None:
    t = Table()
    t.first_deal("E")
    # level 2: 3 4 5 6 + wild reads as 2-6 or 3-7; by default the strongest (7 high) is taken
    t.play("E", "3s 4d 5c 6s 2h")
    seq = t.events[-1]["seq"]
    assert (t.deal["trick"]["plays"][0]["kind"], t.deal["trick"]["plays"][0]["rank"]) == ("straight", "7")
    t.do("reading_declared", {"ref": seq, "kind": "straight", "rank": "6"}, role="referee")
    assert t.deal["trick"]["plays"][0]["rank"] == "6"
    t.play("N", "3d 4s 5d 6c 7c")  # 7-high straight beats the declared 6-high
    assert t.rules_raised() == set()
    msg = t.reject("reading_declared", {"ref": seq, "kind": "straight", "rank": "9"}, role="referee")
    # The Chinese half names the reading, the cards and what they may be read as (it had said only "不成立").
    assert "not a reading" in msg and msg.startswith(
        "reading_declared：纠正无法成立：声明的牌型顺子 9 不成立：黑桃3 方块4 梅花5 黑桃6 红桃2 只可读作顺子 6、顺子 7 / ")
    assert t.replay_matches()


def test_reading_stated_with_the_play() -> None:
    t = Table()
    t.first_deal("E")
    t.play("E", "3s 4d 5c 6s 2h", data={"reading": {"kind": "straight", "rank": "6"}})
    assert t.deal["trick"]["plays"][0]["rank"] == "6"
    assert "not a reading" in t.reject("cards_played", {"seat": "N", "cards": ["3d", "3c"], "reading": {"kind": "bomb", "rank": "3"}})


def test_state_json_has_no_internal_keys(table: Table) -> None:
    table.first_deal("E")
    table.play("E", "9s")
    view = state_to_json(table.state)
    assert not [k for k in view if k.startswith("_")]
    assert not [k for k in view["deal"] if k.startswith("_")]
    import json

    json.dumps(view)  # JSON-ready
