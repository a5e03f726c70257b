"""The referee's time is nobody's, whole (engine generation 9, ``engine/referee_time.py``).

Each case was worked by hand from the rules ("point it out and stop play, call the referee, take no
action until the referee rules"; docs/rules.md §7) and each ran otherwise on generation 8, which the
``generation=8`` cases keep folding as it was played.
"""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import ONE_EACH, Table

from table_service.engine.apply import fold
from table_service.engine.state import state_to_json


def tick(t: Table, at: int) -> None:
    t.do("clock_ticked", {}, source="clock", t=at)


def _records(t: Table) -> list[tuple[Any, str, bool]]:
    return [(r["seat"], r["level"], r["lose_turn"]) for r in t.state["penalties"]["records"] if not r.get("withdrawn")]


def _n_to_follow(ruleset: str = "jiangsu", generation: int | None = None) -> tuple[Table, int]:
    t = Table(ruleset=ruleset) if generation is None else Table(ruleset=ruleset, generation=generation)
    t.first_deal("E")
    t.play("E", "3s")
    return t, t.deal["timers"]["N"]["deadline_ms"]


# ------------------------------------------------------------------ 1. a whole countdown when the call is answered


@pytest.mark.parametrize("ruleset", ["jiangsu", "huaian"])
def test_a_call_answered_gives_the_seat_to_act_a_whole_countdown_though_it_is_already_flagged(ruleset: str) -> None:
    t, dl = _n_to_follow(ruleset)
    tick(t, dl + 1_000)  # N a second over: flagged
    before = _records(t)
    t.do("referee_called", {"seat": "W", "reason": "exposed card"}, source="screen", t=dl + 2_000)
    t.do("flag_dismissed", {"flag": t.flags("referee_call")[0]["id"]}, role="referee", t=dl + 60_000)
    assert t.deal["timers"]["N"]["deadline_ms"] == dl + 60_000 + 20_000
    tick(t, dl + 61_000)
    assert _records(t) == before and t.deal["turn"] == "N"  # nothing more for the referee's minute
    assert t.replay_matches()


def _n_to_act_with_its_missed_report_open(generation: int | None = None) -> Table:
    t = Table() if generation is None else Table(generation=generation)
    t.first_deal("E", {"E": 27, "S": 27, "W": 27, "N": 11})
    t.play("E", "3s")
    t.play("N", "4s")  # N at 10: the report card is due
    t.play("W", "5s")  # play moves on without it: flagged
    t.pass_("S")
    t.pass_("E")
    assert t.deal["turn"] == "N" and t.flags("report_missing", "open")[0]["seat"] == "N"
    return t


@pytest.mark.parametrize("generation", [None, 8])
def test_a_call_answered_restarts_a_seat_with_another_open_flag_of_its_own(generation: int | None) -> None:
    t = _n_to_act_with_its_missed_report_open(generation)
    dl = t.deal["timers"]["N"]["deadline_ms"]
    t.do("referee_called", {"seat": "W"}, source="screen", t=dl - 15_000)
    t.do("flag_dismissed", {"flag": t.flags("referee_call")[0]["id"]}, role="referee", t=dl + 45_000)
    tick(t, dl + 46_000)
    if generation is None:
        assert t.deal["timers"]["N"]["started_ms"] == dl + 45_000 and not t.flags("time_over")
    else:  # generation 8: N kept its old deadline because of its open flag
        assert t.flags("time_over")


def _tribute_with_an_open_flag_of_the_last_deal(generation: int | None = None) -> Table:
    t = Table() if generation is None else Table(generation=generation)
    t.first_deal("E", ONE_EACH)
    t.play("E", "3s")
    tick(t, t.deal["timers"]["N"]["deadline_ms"] + 1_000)  # N over time: flagged, left open
    t.finish_in_order(["E", "S", "W", "N"])
    t.next_deal()
    assert t.deal["tribute_plan"]["payers"] == ["N"] and t.flags("time_over", "open")[0]["seat"] == "N"
    return t


@pytest.mark.parametrize("generation", [None, 8])
def test_a_tribute_countdown_is_whole_after_a_call_though_a_flag_of_the_last_deal_is_open(generation: int | None) -> None:
    t = _tribute_with_an_open_flag_of_the_last_deal(generation)
    started = t.deal["timers"]["N"]["started_ms"]
    t.do("referee_called", {"seat": "E", "reason": "x"}, source="screen", dt=1_000)
    t.do("flag_dismissed", {"flag": t.flags("referee_call", "open")[0]["id"]}, role="referee", dt=60_000)
    assert t.deal["timers"]["N"]["started_ms"] == (t.t if generation is None else started)


def test_generation_8_passed_over_a_seat_with_an_open_flag_when_the_call_was_answered() -> None:
    t, dl = _n_to_follow("huaian", generation=8)
    tick(t, dl + 1_000)
    t.do("referee_called", {"seat": "W"}, source="screen", t=dl + 2_000)
    t.do("flag_dismissed", {"flag": t.flags("referee_call")[0]["id"]}, role="referee", t=dl + 60_000)
    tick(t, dl + 61_000)
    assert ("N", "violation", True) in _records(t)


# ------------------------------------------------------------------ 2. a void gives a whole countdown


@pytest.mark.parametrize("ruleset", ["jiangsu", "huaian"])
def test_voiding_a_call_gives_the_seat_to_act_a_whole_countdown(ruleset: str) -> None:
    t, dl = _n_to_follow(ruleset)
    t.do("referee_called", {"seat": "S"}, source="screen", t=dl - 5_000)
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "pressed by mistake"}, role="referee", t=dl + 30_000)
    assert t.deal["timers"]["N"]["deadline_ms"] == dl + 50_000
    tick(t, dl + 31_000)
    assert _records(t) == [] and not t.flags("time_over")
    assert t.replay_matches()


@pytest.mark.parametrize("ruleset", ["jiangsu", "huaian"])
def test_voiding_a_lost_turn_gives_the_seat_to_act_a_whole_countdown_and_a_later_refold_keeps_it(ruleset: str) -> None:
    t, _ = _n_to_follow(ruleset)
    t.do("penalty_given", {"side": "NS", "level": "violation", "article": "x", "seat": "N", "lose_turn": True},
         role="referee")
    assert t.deal["turn"] == "W"
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "wrong seat"}, role="referee", dt=40_000)
    voided_at = t.t
    assert t.deal["turn"] == "N" and t.deal["timers"]["N"]["started_ms"] == voided_at
    lead = next(e["seq"] for e in t.events if e["type"] == "cards_played")
    t.do("play_corrected", {"ref": lead, "cards": ["3h"]}, role="referee", dt=1_000)  # re-folds the deal
    assert t.deal["timers"]["N"]["started_ms"] == voided_at
    tick(t, t.t + 1_000)
    assert _records(t) == [] and not t.flags("time_over")
    assert t.replay_matches()


def test_voiding_a_loss_gives_the_seat_to_act_a_whole_countdown() -> None:
    t, dl = _n_to_follow()
    t.do("penalty_given", {"side": "EW", "level": "loss", "article": "x"}, role="chief", t=dl - 5_000)
    assert t.state["result"] is not None
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "wrong side"}, role="chief", t=dl + 60_000)
    assert t.state["result"] is None and t.deal["turn"] == "N"
    assert t.deal["timers"]["N"]["deadline_ms"] == dl + 80_000
    assert t.replay_matches()


def test_generation_8_left_the_old_deadline_after_a_void() -> None:
    t, dl = _n_to_follow("jiangsu", generation=8)
    t.do("referee_called", {"seat": "S"}, source="screen", t=dl - 5_000)
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "pressed by mistake"}, role="referee", t=dl + 30_000)
    tick(t, dl + 31_000)
    assert t.flags("time_over")


# ------------------------------------------------------------------ 3. a breach that stops play stops every clock


@pytest.mark.parametrize("ruleset", ["jiangsu", "huaian"])
def test_an_innocent_seat_is_not_over_time_while_the_referee_rules_on_a_play_out_of_turn(ruleset: str) -> None:
    t, dl = _n_to_follow(ruleset)
    t.play("W", "5s", t=dl - 18_000)
    tick(t, dl + 10_000)
    assert not t.flags("time_over") and _records(t) == [] and t.deal["turn"] == "N"
    t.do("flag_confirmed", {"flag": t.flags("out_of_turn")[0]["id"]}, role="referee", t=dl + 40_000)
    assert t.deal["timers"]["N"]["deadline_ms"] == dl + 60_000
    tick(t, dl + 59_000)
    assert not t.flags("time_over")
    assert t.replay_matches()


def test_a_leader_s_wrong_pass_stops_its_clock_until_the_ruling() -> None:
    t = Table()
    t.first_deal("E")
    dl = t.deal["timers"]["E"]["deadline_ms"]
    t.pass_("E", t=dl - 35_000)
    tick(t, dl + 10_000)
    assert not t.flags("time_over") and _records(t) == []
    t.do("flag_dismissed", {"flag": t.flags("leader_passed")[0]["id"]}, role="referee", t=dl + 20_000)
    assert t.deal["timers"]["E"]["started_ms"] == dl + 20_000


def test_generation_8_ran_the_innocent_seat_s_clock() -> None:
    t, dl = _n_to_follow("jiangsu", generation=8)
    t.play("W", "5s", t=dl - 18_000)
    tick(t, dl + 10_000)
    assert t.flags("time_over")


# ------------------------------------------------------------------ 4. an action stamped while a call is open


def test_a_play_stamped_while_a_call_is_open_is_in_time() -> None:
    t, dl = _n_to_follow()
    t.do("referee_called", {"seat": "W"}, source="screen", t=dl - 5_000)
    t.play("N", "4s", t=dl + 15_000)
    assert not t.flags("time_over") and _records(t) == []


def test_a_play_stamped_while_a_call_is_open_is_judged_at_the_call() -> None:
    t, dl = _n_to_follow("huaian")
    t.do("referee_called", {"seat": "W"}, source="screen", t=dl + 3_000)
    t.play("N", "4s", t=dl + 60_000)
    (flag,) = t.flags("time_over")
    assert flag["evidence"]["overtime_ms"] == 3_000
    assert ("N", "violation", True) not in _records(t)


def test_generation_8_judged_an_action_during_a_call_by_its_own_stamp() -> None:
    t, dl = _n_to_follow("jiangsu", generation=8)
    t.do("referee_called", {"seat": "W"}, source="screen", t=dl - 5_000)
    t.play("N", "4s", t=dl + 15_000)
    assert t.flags("time_over")


# ------------------------------------------------------------------ 5. the screen offline


def _screen(t: Table, status: str, at: int) -> None:
    t.do("device_status_changed", {"device": "screen", "status": status}, source="system", t=at)


def test_nobody_is_over_time_while_the_screen_is_dark() -> None:
    t, dl = _n_to_follow()
    _screen(t, "offline", dl - 10_000)
    tick(t, dl + 20_000)
    t.play("N", "4s", t=dl + 30_000)
    assert not t.flags("time_over") and _records(t) == []
    assert t.replay_matches()


def test_the_screen_back_gives_a_whole_countdown() -> None:
    t, dl = _n_to_follow()
    _screen(t, "offline", dl - 10_000)
    _screen(t, "online", dl + 30_000)
    assert t.deal["timers"]["N"]["deadline_ms"] == dl + 50_000
    t.play("N", "4s", t=dl + 45_000)
    assert not t.flags("time_over")


def test_generation_8_judged_a_late_play_under_a_dark_screen_by_its_own_stamp() -> None:
    t, dl = _n_to_follow("jiangsu", generation=8)
    _screen(t, "offline", dl - 10_000)
    t.play("N", "4s", t=dl + 30_000)
    assert t.flags("time_over")


# ------------------------------------------------------------------ 6. the last card played out of turn


def _out_of_turn_last_card(generation: int | None = None) -> Table:
    kw: dict[str, Any] = {} if generation is None else {"generation": generation}
    t = Table(**kw)
    t.first_deal("E", {"E": 27, "S": 1, "W": 27, "N": 1})
    t.play("E", "3s")
    t.play("N", "4s")  # N out: 上游
    t.play("S", "6s")  # S's last card, out of turn (W is to follow)
    return t


def test_a_last_card_out_of_turn_does_not_end_the_deal_before_the_ruling() -> None:
    t = _out_of_turn_last_card()
    assert t.deal["phase"] == "play" and t.deal["finish_order"] == ["N"]
    assert t.state["levels"] == {"EW": "2", "NS": "2"}
    t.do("flag_confirmed", {"flag": t.flags("out_of_turn")[0]["id"]}, role="referee")
    assert t.deal["phase"] == "over" and t.state["levels"]["NS"] == "5"
    assert t.replay_matches()


def test_a_last_card_out_of_turn_voided_goes_back_to_the_hand() -> None:
    t = _out_of_turn_last_card()
    play_seq = t.events[-1]["seq"]
    t.do("event_voided", {"ref": play_seq, "reason": "out of turn, taken back"}, role="referee")
    assert t.deal["phase"] == "play" and t.deal["counts"]["S"] == 1 and t.deal["finish_order"] == ["N"]
    assert not t.deal.get("pending_out")
    t.play("W", "7s")
    t.play("S", "8s")
    assert t.deal["phase"] == "over"


def test_generation_8_ended_the_deal_at_a_last_card_out_of_turn() -> None:
    t = _out_of_turn_last_card(generation=8)
    assert t.deal["phase"] == "over"


def test_a_gen_8_log_folds_as_it_was_played() -> None:
    t, dl = _n_to_follow("huaian", generation=8)
    t.play("W", "5s", t=dl - 18_000)
    tick(t, dl + 10_000)
    _screen(t, "offline", dl + 11_000)
    t.play("N", "4s", t=dl + 30_000)
    assert state_to_json(fold(t.events)) == state_to_json(t.state)
    assert "screen_offline_ms" not in t.state and "pending_out" not in t.deal
