"""Engine generation 9 outside the clocks: a violation the ladder makes between deals asks the 下家's
choice of a lost turn; a missed report card is flagged when the seat to act acts; the report card is
refused where no report can be due; a late arrival of 0 minutes is no late arrival; report lamps go out
at the deal's end. Each ``generation=8`` case keeps folding as it was played."""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import ONE_EACH, Table


def _table(counts: dict[str, int] | None = None, generation: int | None = None, **kw: Any) -> Table:
    t = Table(**kw) if generation is None else Table(generation=generation, **kw)
    t.first_deal("E", counts)
    return t


# ------------------------------------------------------------------ 7. a violation made between deals


def _violation_between_deals(generation: int | None = None) -> Table:
    t = _table({"E": 12, "S": 1, "W": 27, "N": 1}, generation)
    t.do("penalty_given", {"side": "EW", "level": "warning", "article": "x"}, role="referee")
    t.play("E", "3s 3d")  # E at 10, no report
    t.play("N", "4s")  # N out; E's report missed
    t.pass_("W")
    t.play("S", "5s")  # S out: NS 1st and 2nd, the deal is over
    assert t.deal["phase"] == "over"
    t.do("flag_confirmed", {"flag": t.flags("report_missing")[0]["id"]}, role="referee")
    assert ("E", "violation") in [(r["seat"], r["level"]) for r in t.state["penalties"]["records"]]
    return t


def test_a_violation_the_ladder_makes_between_deals_asks_the_xiajia_and_the_turn_is_lost_next_deal() -> None:
    t = _violation_between_deals()
    (choice,) = t.flags("lose_turn_choice", "open")
    assert choice["seat"] == "E"
    t.do("flag_confirmed", {"flag": choice["id"]}, role="referee")
    assert t.state["next_deal"]["skip_turn"] == ["E"]
    assert t.replay_matches()


def test_generation_8_asked_nothing_for_a_violation_made_between_deals() -> None:
    t = _violation_between_deals(generation=8)
    assert not t.flags("lose_turn_choice")


# ------------------------------------------------------------------ 10. report_missing: when the seat to act acts


@pytest.mark.parametrize("generation", [None, 8])
def test_a_report_is_missed_when_the_seat_to_act_acts_not_when_another_acts_out_of_turn(generation: int | None) -> None:
    t = _table({"E": 12, "S": 27, "W": 27, "N": 27}, generation)
    t.play("E", "3s 3d")  # E at 10: the report is due; N is to act
    t.play("W", "9s 9d")  # W out of turn
    if generation is None:
        assert not t.flags("report_missing") and "E" in t.deal["report_due"]
        t.pass_("N")  # the seat to act: play has moved on
    (missed,) = t.flags("report_missing")
    assert missed["seat"] == "E"


# ------------------------------------------------------------------ 11. the report button where no report is due


def test_the_report_card_is_refused_from_a_seat_that_has_played_out() -> None:
    t = _table({"E": 2, "S": 27, "W": 27, "N": 27})
    t.play("E", "3s 3d")
    assert "played out" in t.reject("report_pressed", {"seat": "E"}, source="screen")


def test_the_report_card_is_refused_before_the_seat_has_played() -> None:
    t = _table({"E": 27, "S": 27, "W": 27, "N": 10})
    assert t.reject("report_pressed", {"seat": "N"}, source="screen").startswith("北尚未出牌，无需报牌 / ")


def test_generation_8_accepted_the_report_card_where_none_was_due() -> None:
    t = _table({"E": 27, "S": 27, "W": 27, "N": 10}, generation=8)
    t.report("N")
    assert "N" in t.deal["reports"]


# ------------------------------------------------------------------ 12. a late arrival of 0 minutes


def test_a_late_arrival_of_0_minutes_is_refused() -> None:
    t = Table()
    assert "0 minutes" in t.reject("late_arrival_recorded", {"side": "EW", "minutes": 0}, role="referee")
    assert t.state["penalties"]["records"] == []


def test_generation_8_gave_a_warning_for_0_minutes() -> None:
    t = Table(generation=8)
    t.do("late_arrival_recorded", {"side": "EW", "minutes": 0}, role="referee")
    assert [r["level"] for r in t.state["penalties"]["records"]] == ["warning"]


# ------------------------------------------------------------------ 13. report lamps at the deal's end


def test_report_lamps_go_out_when_the_deal_ends() -> None:
    t = _table({"E": 12, "S": 1, "W": 27, "N": 1})
    t.play("E", "3s 3d")
    t.report("E")
    t.play("N", "4s")
    t.pass_("W")
    fx = t.play("S", "5s")
    assert t.deal["phase"] == "over"
    assert {"kind": "lamp", "seat": "E", "lamp": "report", "mode": "off"} in fx


def test_report_lamps_go_out_when_a_foul_ends_the_deal() -> None:
    t = _table(ONE_EACH | {"E": 12})
    t.play("E", "3s 3d")
    t.report("E")
    fx = t.do("penalty_given", {"side": "NS", "level": "foul", "article": "x", "next_leader": "E"}, role="chief")
    assert {"kind": "lamp", "seat": "E", "lamp": "report", "mode": "off"} in fx


# ------------------------------------------------------------------ 8. a penalty of an earlier deal


def _warning_then_next_deal(generation: int | None = None) -> tuple[Table, int]:
    t = _table(ONE_EACH, generation)
    t.do("penalty_given", {"side": "NS", "level": "warning", "article": "x"}, role="referee")
    seq = t.events[-1]["seq"]
    t.finish_in_order(["E", "N", "W", "S"])
    t.next_deal()
    return t, seq


def test_the_chief_voids_a_warning_of_an_earlier_deal_and_the_ladder_is_counted_again() -> None:
    t, seq = _warning_then_next_deal()
    assert "only the chief referee" in t.reject("event_voided", {"ref": seq, "reason": "wrong side"}, role="referee")
    t.do("event_voided", {"ref": seq, "reason": "wrong side"}, role="chief")
    assert t.state["penalties"]["NS"]["warnings"] == 0
    t.do("penalty_given", {"side": "NS", "level": "warning", "article": "y"}, role="referee")
    assert [(r["level"], bool(r.get("withdrawn"))) for r in t.state["penalties"]["records"]] == [
        ("warning", True), ("warning", False)]
    # A later re-fold of this deal (a void of its own event) keeps the earlier void.
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "wrong seat"}, role="referee")
    assert t.state["penalties"]["NS"]["warnings"] == 0 and t.state["penalties"]["records"][0]["withdrawn"]
    assert t.replay_matches()


def test_an_earlier_penalty_that_changed_levels_or_a_later_one_stands_on_is_not_voided() -> None:
    t = _table(ONE_EACH)
    t.do("penalty_given", {"side": "NS", "level": "foul", "article": "x", "next_leader": "E"}, role="chief")
    foul = t.events[-1]["seq"]
    t.next_deal()
    assert "changed the levels" in t.reject("event_voided", {"ref": foul, "reason": "r"}, role="chief")
    t2, warn = _warning_then_next_deal()
    t2.do("penalty_given", {"side": "NS", "level": "warning", "article": "y"}, role="referee")  # made a violation
    assert "void that one first" in t2.reject("event_voided", {"ref": warn, "reason": "r"}, role="chief")


def test_generation_8_refused_to_void_a_penalty_of_an_earlier_deal() -> None:
    t, seq = _warning_then_next_deal(generation=8)
    assert "not an event of the current deal" in t.reject("event_voided", {"ref": seq, "reason": "r"}, role="chief")
