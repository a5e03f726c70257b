"""Every automatic flag: a case that raises it (with the rule and evidence) and a near miss
that does not."""

from __future__ import annotations

import pytest
from engine_helpers import ONE_EACH, Table


def _started(counts: dict[str, int] | None = None, leader: str = "E") -> Table:
    t = Table()
    t.first_deal(leader, counts)
    return t


def test_out_of_turn_play_and_pass() -> None:
    t = _started()
    fx = t.play("N", "9s")  # E is to lead
    (flag,) = t.flags("out_of_turn")
    assert flag["seat"] == "N" and flag["evidence"] == {"turn": "E", "cards": ["9s"]}
    assert flag["article"].startswith("越序出牌")
    assert {"kind": "lamp", "seat": None, "lamp": "referee", "mode": "blink"} in fx
    assert any(f["kind"] == "buzz" for f in fx)
    # on the record, not the trick's top; the turn stays with E
    assert t.deal["trick"]["plays"][-1]["flagged"] and t.deal["trick"]["top"] is None
    assert t.deal["turn"] == "E" and t.deal["counts"]["N"] == 26 and t.deal["seen"]["9s"] == 1
    t.pass_("W")
    assert len(t.flags("out_of_turn")) == 2


def test_pass_out_of_turn_while_following_is_flagged() -> None:
    t = _started()
    t.play("E", "3s")  # N is to follow
    t.pass_("W")  # W passes on N's turn
    (flag,) = t.flags("out_of_turn")
    assert flag["seat"] == "W" and flag["evidence"] == {"turn": "N", "pass": True}
    assert t.deal["turn"] == "N" and t.deal["trick"]["passed"] == []  # the pass does not count
    assert t.deal["trick"]["plays"][-1] == {"seq": t.events[-1]["seq"], "seat": "W", "pass": True, "t_ms": t.t, "flagged": True}


def test_out_of_turn_near_miss() -> None:
    t = _started()
    t.play("E", "3s")
    t.play("N", "9s")
    t.pass_("W")
    assert t.rules_raised() == set()


def test_not_a_pattern() -> None:
    t = _started()
    t.play("E", "3s 5d")
    (flag,) = t.flags("not_a_pattern")
    assert flag["evidence"] == {"cards": ["3s", "5d"]}
    assert t.deal["turn"] == "E"


def test_not_a_pattern_near_miss_wild_card_completes_it() -> None:
    t = _started()
    t.play("E", "3s 2h")  # the heart level card (level 2) makes a pair of 3s
    assert t.rules_raised() == set()
    assert t.deal["trick"]["plays"][0]["kind"] == "pair"


def test_does_not_beat() -> None:
    t = _started()
    t.play("E", "9s")
    t.play("N", "8s")
    (flag,) = t.flags("does_not_beat")
    assert flag["evidence"]["top"] == ["9s"] and flag["evidence"]["cards"] == ["8s"]
    assert t.deal["turn"] == "N"  # turn stays for the referee's ruling
    t.play("N", "3d 3c")  # a pair on a single: also does not beat
    assert len(t.flags("does_not_beat")) == 2


def test_does_not_beat_near_miss_bomb_and_level_card() -> None:
    t = _started()
    t.play("E", "As")
    t.play("N", "2d")  # level card (2) beats A
    t.play("W", "4s 4d 4c 4h")  # any bomb beats a single
    assert t.rules_raised() == set()


def test_leader_passes() -> None:
    t = _started()
    t.pass_("E")
    (flag,) = t.flags("leader_passed")
    assert flag["seat"] == "E" and t.deal["turn"] == "E"


def test_leader_passes_near_miss_follower_passes() -> None:
    t = _started()
    t.play("E", "3s")
    t.pass_("N")
    assert t.rules_raised() == set()


def test_card_seen_third_time() -> None:
    t = _started()
    t.play("E", "9s 9s")
    for s in "NWS":
        t.pass_(s)
    t.play("E", "9s", source="panel")  # from the camera it would be a question (test_officiating)
    (flag,) = t.flags("card_seen_third_time")
    assert flag["evidence"]["card"] == "9s" and len(flag["evidence"]["earlier"]) == 1
    assert t.deal["seen"]["9s"] == 3


def test_card_seen_twice_is_fine() -> None:
    t = _started()
    t.play("E", "9s")
    t.play("N", "Ts")
    t.play("W", "Js")
    t.play("S", "Qs")
    t.pass_("E")
    t.pass_("N")
    t.pass_("W")
    t.play("S", "9s")  # the second copy
    assert t.rules_raised() == set()
    from table_service.engine.state import state_to_json

    assert state_to_json(t.state)["deal"]["unseen"]["9s"] == 0  # both copies on the table


def test_finished_seat_acts() -> None:
    t = _started({"E": 1, "S": 5, "W": 5, "N": 5})
    t.play("E", "Ks")
    assert t.deal["finish_order"] == ["E"]
    t.pass_("N")
    t.pass_("E")
    (flag,) = t.flags("finished_seat_acted")
    assert flag["seat"] == "E"
    t.play("E", "As")
    assert len(t.flags("finished_seat_acted")) == 2


def test_finished_seat_near_miss() -> None:
    t = _started({"E": 1, "S": 5, "W": 5, "N": 5})
    t.play("E", "Ks")
    t.pass_("N")
    t.pass_("W")
    t.pass_("S")
    assert t.rules_raised() == set()  # E played out (no report due at 0 cards); the rest followed in turn


def test_report_card_missing() -> None:
    t = _started({"E": 12, "S": 27, "W": 27, "N": 27})
    t.play("E", "3s 3d")  # leaves 10
    assert t.deal["report_due"] == {"E": t.events[-1]["seq"]}
    t.pass_("N")  # the next seat acts before the report
    (flag,) = t.flags("report_missing")
    assert flag["seat"] == "E" and flag["evidence"]["count"] == 10 and flag["evidence"]["next_actor"] == "N"
    t.report("E")  # late: recorded, no second flag
    assert t.deal["reports"]["E"]["late"] is True and len(t.flags("report_missing")) == 1


def test_report_card_near_miss_in_time_and_not_needed_at_eleven() -> None:
    t = _started({"E": 12, "S": 13, "W": 27, "N": 27})
    t.play("E", "3s")  # leaves 11: no report due
    assert t.deal["report_due"] == {}
    t.play("N", "4s")
    t.play("W", "5s")
    t.play("S", "6s")  # S leaves 12
    t.pass_("E")
    t.pass_("N")
    t.pass_("W")
    t.play("S", "7s 7d")  # S leaves 10: due
    fx = t.report("S")  # before the next seat acts
    assert {"kind": "lamp", "seat": "S", "lamp": "report", "mode": "on"} in fx
    t.pass_("E")
    assert t.rules_raised() == set()
    assert t.deal["reports"]["S"] == {"seq": t.events[-2]["seq"], "count": 10, "late": False}


def test_report_too_early_and_twice() -> None:
    t = _started({"E": 11, "S": 27, "W": 27, "N": 27})
    t.report("E")  # 11 cards
    (flag,) = t.flags("report_too_early")
    assert flag["evidence"] == {"count": 11}
    t.play("E", "3s")
    t.report("E")  # 10 cards: fine
    assert len(t.flags()) == 2  # wrong_count + report_too_early
    t.report("E")
    (flag,) = t.flags("report_twice")
    assert flag["evidence"]["count"] == 10


def _tribute_deal() -> Table:
    t = Table()
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "W", "S"])  # S pays E; deal 2 at level 4
    t.next_deal()
    return t


def test_tribute_not_highest_proved_by_a_later_play() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "Ks"})
    t.do("return_given", {"seat": "E", "card": "Tc"})
    t.play("S", "As")  # S held an A: the tribute K was not the highest
    (flag,) = t.flags("tribute_not_highest")
    assert flag["evidence"]["tribute"] == "Ks" and flag["evidence"]["card"] == "As"
    t.play("N", "BJ")
    for s in "WSE":
        t.pass_(s)
    t.play("N", "3d")
    t.play("W", "5d")
    t.play("S", "Ad")  # proved once, flagged once
    assert len(t.flags("tribute_not_highest")) == 1


def test_tribute_near_miss_lower_card_and_wild_card() -> None:
    t = _tribute_deal()  # level 4: the heart 4 is wild, level cards 4 rank above A
    t.do("tribute_given", {"seat": "S", "card": "As"})
    t.do("return_given", {"seat": "E", "card": "Tc"})
    t.play("S", "Ks")  # lower than the tribute
    t.play("E", "Ad")
    t.play("N", "4s")  # N is not the tributor
    t.pass_("W")
    t.pass_("S")
    t.pass_("E")
    t.play("N", "3d")
    t.pass_("W")
    t.play("S", "4h")  # the wild card played as a single is excepted
    assert t.rules_raised() == set()


def test_tribute_near_miss_the_returned_card() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "9s"})  # S's highest really was a 9
    t.do("return_given", {"seat": "E", "card": "Tc"})
    t.play("S", "Tc")  # the card E returned is higher, and excepted
    assert t.rules_raised() == set()
    t.play("E", "Jc")
    t.play("N", "Qc")
    t.pass_("W")
    t.play("S", "Kd")  # S held a K when paying the 9
    assert t.rules_raised() == {"tribute_not_highest"}


def test_return_above_ten() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "BJ"})
    t.do("return_given", {"seat": "E", "card": "Jd"})
    (flag,) = t.flags("return_above_ten")
    assert flag["evidence"]["card"] == "Jd" and flag["evidence"]["to"] == "S"
    assert "legal_if" in flag["evidence"] and "proof_card" not in flag["evidence"]  # the BJ proves nothing


def test_return_of_ten_is_fine() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "BJ"})
    t.do("return_given", {"seat": "E", "card": "Td"})
    assert t.rules_raised() == set()


def test_time_over_follow_20s_with_automatic_warning() -> None:
    t = _started()
    t.play("E", "3s")
    deadline = t.deal["timers"]["N"]["deadline_ms"]
    assert deadline == t.t + 20_000
    t.do("clock_ticked", {}, source="clock", t=deadline)  # exactly at the deadline: not over
    assert t.rules_raised() == set()
    fx = t.do("clock_ticked", {}, source="clock", t=deadline + 1000)
    (flag,) = t.flags("time_over")
    assert flag["seat"] == "N" and flag["evidence"]["phase"] == "follow" and flag["evidence"]["overtime_ms"] == 1000
    assert {"kind": "overtime", "seat": "N", "seconds": 1} in fx
    assert t.state["penalties"]["records"] == []  # the referee counts 10 s aloud first
    t.do("clock_ticked", {}, source="clock", t=deadline + 10_000)
    (pen,) = t.state["penalties"]["records"]
    assert pen["level"] == "warning" and pen["auto"] is True and pen["side"] == "NS" and pen["seat"] == "N"
    t.do("clock_ticked", {}, source="clock", t=deadline + 15_000)
    assert len(t.flags("time_over")) == 1 and len(t.state["penalties"]["records"]) == 1
    t.pass_("N")
    assert t.deal["trick"]["plays"][-1]["overtime_ms"] == 16_000


def test_no_time_over_while_the_referee_answers_a_camera_question() -> None:
    t = _started()
    t.play("E", "3s")
    deadline = t.deal["timers"]["N"]["deadline_ms"]
    t.play("N", "4s", data={"uncertain": True, "confidence": [0.4]}, t=deadline - 500)  # in time, unreadable
    t.do("clock_ticked", {}, source="clock", t=deadline + 30_000)  # the referee takes 30 s to look
    assert t.rules_raised() == set()
    (q,) = t.deal["questions"]
    t.do("play_confirmed", {"ref": q["seq"]}, role="referee", t=deadline + 31_000)
    assert t.rules_raised() == set() and t.deal["turn"] == "W"
    # play resumes at the ruling: W has its whole 20 s from then, also after a later re-fold
    assert t.deal["timers"]["W"]["deadline_ms"] == deadline + 31_000 + 20_000
    t.do("clock_ticked", {}, source="clock", t=deadline + 50_000)
    assert t.rules_raised() == set()
    first = next(e for e in t.events if e["type"] == "cards_played")
    t.do("play_corrected", {"ref": first["seq"], "cards": ["3s"]}, role="referee", t=deadline + 50_500)
    assert t.deal["timers"]["W"]["deadline_ms"] == deadline + 31_000 + 20_000
    t.do("clock_ticked", {}, source="clock", t=deadline + 51_001 + 1_000)
    assert [f["seat"] for f in t.flags("time_over")] == ["W"]


def test_time_over_when_the_unreadable_play_came_late() -> None:
    t = _started()
    t.play("E", "3s")
    deadline = t.deal["timers"]["N"]["deadline_ms"]
    t.play("N", "4s", data={"uncertain": True, "confidence": [0.4]}, t=deadline + 2_000)  # near miss: late
    t.do("clock_ticked", {}, source="clock", t=deadline + 3_000)
    (flag,) = t.flags("time_over")
    assert flag["seat"] == "N"


def test_time_over_lead_40s_noticed_on_a_late_action_without_ticks() -> None:
    t = _started()
    t.play("E", "3s", dt=39_000)  # within 40 s to lead
    assert t.rules_raised() == set()
    t.play("N", "4s", dt=21_000)  # 21 s to follow: over
    (flag,) = t.flags("time_over")
    assert flag["seat"] == "N" and flag["evidence"]["overtime_ms"] == 1000


def test_time_over_tribute_20s_and_return_40s() -> None:
    t = _tribute_deal()
    t.do("clock_ticked", {}, source="clock", dt=20_000)
    assert t.rules_raised() == set()
    t.do("clock_ticked", {}, source="clock", dt=1)
    assert t.flags("time_over")[0]["evidence"]["phase"] == "tribute"
    t.do("tribute_given", {"seat": "S", "card": "BJ"})
    t.do("return_given", {"seat": "E", "card": "Td"}, dt=41_000)
    assert [f["evidence"]["phase"] for f in t.flags("time_over")] == ["tribute", "return"]


def test_no_automatic_warning_when_the_ruleset_says_not() -> None:
    t = Table(ruleset={"preset": "jiangsu", "options": {"auto_time_warning": False}})
    t.first_deal("E")
    t.do("clock_ticked", {}, source="clock", dt=100_000)
    assert t.flags("time_over") and t.state["penalties"]["records"] == []


def test_wrong_count_after_drawing() -> None:
    t = Table()
    t.first_deal("E", {"E": 26, "S": 28, "W": 27, "N": 27})
    (flag,) = t.flags("wrong_count")
    assert flag["evidence"]["counts"]["E"] == 26
    t2 = Table()
    t2.first_deal("E")
    assert t2.flags() == []


def test_referee_call_lamp_and_buzzer() -> None:
    t = _started()
    fx = t.do("referee_called", {"seat": "W", "reason": "exposed card"}, source="screen")
    (flag,) = t.flags("referee_call")
    assert flag["seat"] == "W" and flag["evidence"] == {"reason": "exposed card"}
    assert {"kind": "buzz", "ms": 300} in fx
    fx = t.do("flag_dismissed", {"flag": flag["id"], "note": "ok"}, role="referee")
    assert t.flags("referee_call")[0]["status"] == "dismissed"
    assert {"kind": "lamp", "seat": None, "lamp": "referee", "mode": "off"} in fx


def test_a_camera_call_carries_its_reading_of_the_doubted_card() -> None:
    """A doubtful tribute read calls the referee with the camera's best reading, canonical; a
    reading that is no card is refused, the log unchanged."""
    t = _started()
    t.do("referee_called", {"seat": "S", "reason": "tribute read uncertain", "card": "BJ"}, source="camera")
    (flag,) = t.flags("referee_call")
    assert flag["seat"] == "S" and flag["evidence"] == {"reason": "tribute read uncertain", "card": "BJ"}
    assert "must be one card" in t.reject("referee_called", {"seat": "S", "card": ["BJ"]}, source="camera")
    assert "card" in t.reject("referee_called", {"seat": "S", "card": "1x"}, source="camera")
    assert len(t.flags("referee_call")) == 1


def test_flag_confirm_and_dismiss_need_an_open_flag_and_a_referee() -> None:
    t = _started()
    t.play("N", "9s")
    (flag,) = t.flags("out_of_turn")
    assert "referee role" in t.reject("flag_confirmed", {"flag": flag["id"]}, role="viewer")
    assert "no such flag" in t.reject("flag_confirmed", {"flag": "F999"}, role="referee")
    t.do("flag_confirmed", {"flag": flag["id"]}, role="referee")
    assert t.flags("out_of_turn")[0]["status"] == "confirmed"
    assert t.reject("flag_dismissed", {"flag": flag["id"]}, role="referee") == (
        f"标记 {flag['id']} 已确认 / flag {flag['id']} is already confirmed")


def test_automatic_warning_that_would_be_a_foul_goes_to_the_chief() -> None:
    t = _started()
    side = "NS"
    for _ in range(3):  # warning, warning (-> violation), warning
        t.do("penalty_given", {"side": side, "level": "warning", "article": "test"}, role="referee")
    assert t.state["penalties"][side] == {"warnings": 1, "violations": 1, "fouls": 0}
    t.play("E", "3s")
    t.do("clock_ticked", {}, source="clock", dt=31_000)  # N over time: the auto warning would escalate to a foul
    (flag,) = t.flags("penalty_escalation")
    assert flag["evidence"]["would_be"] == "foul"
    assert t.state["penalties"][side] == {"warnings": 1, "violations": 1, "fouls": 0}
    assert t.deal["phase"] == "play"


def test_huaian_time_over_warning_then_violation_with_the_turn_lost() -> None:
    t = Table(ruleset="huaian-2017")
    t.first_deal("E")
    t.play("E", "3s")
    deadline = t.deal["timers"]["N"]["deadline_ms"]
    t.do("clock_ticked", {}, source="clock", t=deadline + 1)  # warning at once (0 s grace)
    assert [p["level"] for p in t.state["penalties"]["records"]] == ["warning"]
    t.do("clock_ticked", {}, source="clock", t=deadline + 9_000)
    assert len(t.state["penalties"]["records"]) == 1
    t.do("clock_ticked", {}, source="clock", t=deadline + 10_000)  # 10 s later: violation, turn lost
    assert [p["level"] for p in t.state["penalties"]["records"]] == ["warning", "violation"]
    assert t.deal["turn"] == "W" and t.deal["trick"]["plays"][-1]["skipped"] is True


def _late(ruleset: str, over_ms: int, *, tick: bool, generation: int | None = None, action: str = "play") -> Table:
    """N acts ``over_ms`` past its 20 s clock after E's lead; with ``tick``, a ``clock_ticked`` 1 s
    before the action noticed the lateness first."""
    t = Table(ruleset=ruleset) if generation is None else Table(ruleset=ruleset, generation=generation)
    t.first_deal("E")
    t.play("E", "3s")
    deadline = t.deal["timers"]["N"]["deadline_ms"]
    if tick:
        t.do("clock_ticked", {}, source="clock", t=deadline + over_ms - 1_000)
    if action == "play":
        t.play("N", "9s", t=deadline + over_ms)
    else:
        t.pass_("N", t=deadline + over_ms)
    return t


def _ruling(t: Table) -> tuple:
    """What the lateness earned: flags (rule, seat, status), penalties, the trick's plays, the turn."""
    return (sorted((f["rule"], f["seat"], f["status"]) for f in t.state["flags"]),
            [(r["level"], r["seat"], r["lose_turn"], bool(r.get("withdrawn"))) for r in t.state["penalties"]["records"]],
            [(p["seat"], bool(p.get("pass")), p.get("flags")) for p in t.deal["trick"]["plays"]], t.deal["turn"])


@pytest.mark.parametrize("action", ["play", "pass"])
@pytest.mark.parametrize(("ruleset", "over_ms", "levels"), [
    ("jiangsu", 5_000, []),                           # counted aloud: no warning yet
    ("jiangsu", 15_000, ["warning"]),                 # still over after 10 s: the automatic warning
    ("huaian-2017", 5_000, ["warning"]),              # Huai'an: a warning at once
    ("huaian-2017", 15_000, ["warning", "violation"]),  # and a violation with the turn lost 10 s later
])
def test_a_late_action_is_ruled_by_its_own_time_whether_or_not_a_tick_came(ruleset, over_ms, levels, action) -> None:
    """"Over time … still over: warning": the first event after the deadline may be the late play
    itself (no clock_ticked between); its own time against the deadline decides, as a tick would have
    (engine generation 3). Before, such a play had the time_over flag and no warning."""
    alone = _late(ruleset, over_ms, tick=False, action=action)
    ticked = _late(ruleset, over_ms, tick=True, action=action)
    assert _ruling(alone) == _ruling(ticked)
    assert [r["level"] for r in alone.state["penalties"]["records"]] == levels
    assert [f["seat"] for f in alone.flags("time_over")] == ["N"]
    if "violation" in levels:  # the turn was lost at 10 s: the late action comes out of turn
        assert alone.deal["trick"]["plays"][1].get("skipped") is True and alone.flags("out_of_turn")
    assert alone.replay_matches() and ticked.replay_matches()


@pytest.mark.parametrize("ruleset", ["jiangsu", "huaian-2017"])
def test_a_round_of_engine_generation_2_keeps_the_late_actions_old_ruling(ruleset) -> None:
    """A round set up under generation 2 folds as it was played: the late play alone, with no tick
    before it, had the time_over flag and no automatic penalty."""
    old = _late(ruleset, 15_000, tick=False, generation=2)
    assert [f["rule"] for f in old.flags()] == ["time_over"]
    assert old.state["penalties"]["records"] == [] and old.deal["turn"] == "W"
    assert old.replay_matches()
    assert [r["level"] for r in _late(ruleset, 15_000, tick=True, generation=2).state["penalties"]["records"]]


def test_a_tick_s_warning_the_late_play_s_own_time_had_not_earned_is_withdrawn() -> None:
    """A play put down 5 s late but read after a tick at 11 s had given the warning: by its own time
    it was late by less than the 10 s counted aloud, so the flag stands and the warning goes (the
    ladder is counted again); a round of generation 2 keeps the warning."""
    for generation, withdrawn in ((3, True), (2, False)):
        t = Table(generation=generation)
        t.first_deal("E")
        t.play("E", "3s")
        deadline = t.deal["timers"]["N"]["deadline_ms"]
        t.do("clock_ticked", {}, source="clock", t=deadline + 11_000)
        assert t.state["penalties"]["NS"]["warnings"] == 1
        t.play("N", "4s", t=deadline + 5_000)  # stamped when it was put down
        (flag,) = t.flags("time_over")
        assert flag["status"] == "open"
        (pen,) = t.state["penalties"]["records"]
        assert bool(pen.get("withdrawn")) is withdrawn
        assert t.state["penalties"]["NS"]["warnings"] == (0 if withdrawn else 1)
        assert t.replay_matches()


def test_a_ruling_follows_its_flag_through_a_correction() -> None:
    """E's single read as 9♠ was a pair (10 left: a report card due), so after the correction S's
    out-of-turn pass also raises a missed report card, first: the ids of that event's flags move.
    The referee's confirmation and the penalty citing the out-of-turn flag stay on it (the runner
    stamps which flag a ruling meant), as if the pair had been read right at once."""
    from table_service.engine.flags import stamp_flag_of

    def ruling(t: Table, etype: str, data: dict) -> dict:
        return stamp_flag_of(t.state, {"type": etype, "data": data})["data"]

    counts = {"E": 12, "S": 27, "W": 27, "N": 27}
    # Generation 8: an out-of-turn action still made a report missed (from 9 only the seat to act does),
    # which is what gives this event two flags whose ids move.
    t = Table(generation=8)
    t.first_deal("E", counts)
    t.play("E", "9s")
    t.pass_("S")  # out of turn
    oot = t.flags("out_of_turn")[0]["id"]
    t.do("flag_confirmed", ruling(t, "flag_confirmed", {"flag": oot}), role="referee")
    t.do("penalty_given", ruling(t, "penalty_given", {"side": "NS", "level": "warning", "article": "x", "seat": "S",
                                                      "flag": oot}), role="referee")
    play = next(e["seq"] for e in t.events if e["type"] == "cards_played")
    t.do("play_corrected", {"ref": play, "cards": ["9s", "9h"]}, role="referee")
    live = {f["rule"]: f["status"] for f in t.state["flags"] if f["status"] != "withdrawn"}
    assert live["out_of_turn"] == "confirmed" and live["report_missing"] == "open"
    records = t.state["penalties"]["records"]
    assert [(r["side"], r["level"], r["auto"]) for r in records] == [("NS", "warning", False)]
    assert next(f for f in t.state["flags"] if f["id"] == records[0]["flag"])["rule"] == "out_of_turn"


def test_an_automatic_warning_the_ladder_makes_a_violation_asks_the_next_seat_about_a_lost_turn() -> None:
    """"Violation: … the offender's 下家 decides whether the offender loses one turn." N's second time
    warning is NS's second warning: a violation nobody chose for. A question is raised for N;
    confirming it (the 下家 takes the turn) makes N lose its turn."""
    t = _started()
    t.play("E", "3s")
    deadline = t.deal["timers"]["N"]["deadline_ms"]
    t.do("clock_ticked", {}, source="clock", t=deadline + 10_000)  # the first automatic warning
    t.pass_("N")
    t.pass_("W")
    t.play("S", "5s")
    t.play("E", "6s")
    deadline = t.deal["timers"]["N"]["deadline_ms"]
    t.do("clock_ticked", {}, source="clock", t=deadline + 10_000)  # the second: a violation
    assert [p["level"] for p in t.state["penalties"]["records"]] == ["warning", "violation"]
    (choice,) = t.flags("lose_turn_choice")
    assert choice["seat"] == "N" and choice["status"] == "open" and choice["evidence"]["side"] == "NS"
    t.do("flag_confirmed", {"flag": choice["id"]}, role="referee")
    assert t.deal["turn"] == "W" and t.deal["trick"]["plays"][-1]["skipped"] is True
    assert t.replay_matches()


def test_the_huaian_preset_keeps_the_return_at_ten_or_below() -> None:
    """The Huai'an text lists its differences (leader after a double-down, clocks, the report card):
    the return is not one of them, so a J returned is flagged as under Jiangsu's; the option that
    lifts the limit towards an opponent stays for an event whose text says so."""
    for ruleset, flagged in (("huaian", True), ({"preset": "huaian", "options": {"return_any_to_opponent": True}}, False)):
        t = Table(ruleset=ruleset)
        t.first_deal("E", ONE_EACH)
        t.finish_in_order(["E", "N", "W", "S"])
        t.next_deal()
        t.do("tribute_given", {"seat": "S", "card": "BJ"})
        t.do("return_given", {"seat": "E", "card": "Jd"})
        assert bool(t.flags("return_above_ten")) is flagged, ruleset


def test_a_flag_says_whether_its_event_carries_the_cameras_picture() -> None:
    """The panel asks for a flag's picture (``/events/<seq>/crop``) only where the flag says its event
    carries one: it asked for every flag's, and each without one was a 404 in the log and the console."""
    t = _started()  # E is to lead
    t.play("N", "9s", data={"crop": "data:image/jpeg;base64,/9j/4AAQ"})  # out of turn, read with its picture
    pictured = t.events[-1]["seq"]
    t.play("W", "8s")  # out of turn, read without one
    t.pass_("S")  # out of turn, a button
    assert [f["picture"] for f in t.flags("out_of_turn")] == [True, False, False]
    # A correction re-folds the deal from the log: the corrected read still carries its picture.
    t.do("play_corrected", {"ref": pictured, "cards": ["9h"]}, role="referee")
    (flag,) = [f for f in t.flags("out_of_turn", "open") if f["seq"] == pictured]
    assert flag["picture"] is True and flag["evidence"]["cards"] == ["9h"]
