"""A ruling acted upon is history (engine generation 7): the automatic time warning under a later
penalty that the ladder escalated on it is not withdrawn — a dismissal of its flag is refused until the
referee voids that penalty, an action in time leaves it held — and after the round's result no time
flag takes its penalty back. What the records say always equals what the ladder counts."""

from __future__ import annotations

from engine_helpers import Table

from table_service.engine.ladder import escalate


def _pen(t: Table, side: str, level: str, role: str = "referee", **data: object) -> None:
    t.do("penalty_given", {"side": side, "level": level, "article": "test", **data}, role=role)


def _standing(t: Table) -> list[tuple[str, str, str]]:
    return [(r["side"], r["given"], r["level"]) for r in t.state["penalties"]["records"] if not r.get("withdrawn")]


def _records_agree_with_the_ladder(t: Table) -> bool:
    """Each standing record's level is what the ladder counts it as (what the public feed shows)."""
    ladders = {side: {"warnings": 0, "violations": 0, "fouls": 0} for side in ("EW", "NS")}
    for r in t.state["penalties"]["records"]:
        if not r.get("withdrawn"):
            level, ladders[r["side"]] = escalate(ladders[r["side"]], r["given"], t.state["round"]["_rules"])
            if level != r["level"]:
                return False
    return ladders == {side: t.state["penalties"][side] for side in ladders}


def _n_warned(t: Table) -> str:
    """E leads, N runs 10 s past its deadline: a tick gives NS the automatic warning. Its time flag."""
    t.play("E", "3s")
    t.do("clock_ticked", {}, source="clock", t=t.deal["timers"]["N"]["deadline_ms"] + 10_000)
    (flag,) = t.flags("time_over")
    return flag["id"]


def test_a_time_flag_a_later_penalty_escalated_on_is_dismissed_only_once_that_penalty_is_voided() -> None:
    t = Table()
    t.first_deal("E")
    flag = _n_warned(t)
    _pen(t, "NS", "warning", seat="S")  # the second warning: counted as a violation
    later = t.events[-1]["seq"]
    assert _standing(t) == [("NS", "warning", "warning"), ("NS", "warning", "violation")]
    error = t.reject("flag_dismissed", {"flag": flag}, role="referee")
    assert f"#{later}" in error and "请先撤销该处罚" in error and "void that penalty first" in error
    t.do("event_voided", {"ref": later, "reason": "given twice"}, role="referee")
    t.do("flag_dismissed", {"flag": flag}, role="referee")
    assert _standing(t) == [] and t.state["penalties"]["NS"] == {"warnings": 0, "violations": 0, "fouls": 0}
    assert _records_agree_with_the_ladder(t)
    assert t.replay_matches()


def test_a_warning_that_made_the_foul_ending_the_deal_stays_and_two_fouls_make_the_loss() -> None:
    t = Table()
    t.first_deal("E")
    _pen(t, "NS", "violation", seat="S")
    flag = _n_warned(t)
    _pen(t, "NS", "warning", role="chief", seat="S", next_leader="E")  # 2 warnings: a 2nd violation: a foul
    assert t.deal["ended_by"] == "foul" and t.state["levels"]["EW"] == "5"
    assert "void that penalty first" in t.reject("flag_dismissed", {"flag": flag}, role="referee")
    assert t.state["penalties"]["NS"]["fouls"] == 1 and _records_agree_with_the_ladder(t)
    t.next_deal()
    _pen(t, "NS", "foul", role="chief", seat="N", next_leader="E")
    assert t.state["result"]["reason"] == "loss" and t.state["result"]["winner"] == "EW"


def test_after_the_round_s_result_a_time_flag_keeps_its_penalty() -> None:
    t = Table()
    t.first_deal("E")
    _pen(t, "NS", "warning", seat="S")
    flag = _n_warned(t)  # the automatic warning is NS's second: a violation, the last record
    assert _standing(t)[-1] == ("NS", "warning", "violation")
    t.do("round_ended", {"reason": "time"}, role="chief")
    assert t.state["result"] is not None
    error = t.reject("flag_dismissed", {"flag": flag}, role="referee")
    assert "本轮已结束" in error and "the round is over" in error


def test_a_play_in_time_leaves_a_warning_a_later_penalty_escalated_on_held_until_that_penalty_is_voided() -> None:
    t = Table()
    t.first_deal("E")
    _n_warned(t)
    deadline = t.flags("time_over")[0]["evidence"]["deadline_ms"]
    _pen(t, "NS", "warning", seat="S")
    later = t.events[-1]["seq"]
    t.play("N", "4s", t=deadline - 100)  # put down in time, read late: the camera stamps it in time
    (held,) = t.flags("time_over")
    assert held["status"] == "open" and held["evidence"]["held_by"] == later and held["evidence"]["held_why"] == "in_time"
    assert _standing(t) == [("NS", "warning", "warning"), ("NS", "warning", "violation")]
    assert t.state["penalties"]["NS"] == {"warnings": 0, "violations": 1, "fouls": 0}
    _pen(t, "NS", "warning", seat="S")  # a third warning: the ladder and the records say one violation
    assert sum(lv == "violation" for *_, lv in _standing(t)) == t.state["penalties"]["NS"]["violations"] == 1
    assert _records_agree_with_the_ladder(t)
    # Voiding the later penalty re-folds the deal: the play's own time withdraws the warning and its flag.
    t.do("event_voided", {"ref": later, "reason": "given by mistake"}, role="referee")
    assert [f["status"] for f in t.flags("time_over")] == ["withdrawn"]
    assert _standing(t) == [("NS", "warning", "warning")] and _records_agree_with_the_ladder(t)
    assert t.replay_matches()


def test_a_withdrawal_that_changes_no_later_record_goes_through() -> None:
    """A later penalty of the other side, or one the warning did not escalate, is no obstacle."""
    t = Table()
    t.first_deal("E")
    flag = _n_warned(t)
    _pen(t, "EW", "warning", seat="E")
    _pen(t, "NS", "violation", seat="S")  # a violation given as one: counted alike with or without the warning
    t.do("flag_dismissed", {"flag": flag}, role="referee")
    assert _standing(t) == [("EW", "warning", "warning"), ("NS", "violation", "violation")]
    assert _records_agree_with_the_ladder(t)


def test_generation_6_withdrew_the_warning_under_a_foul() -> None:
    """A log played under generation 6 folds as it was: the dismissal went through and the ladder lost
    the foul that had ended the deal."""
    t = Table(generation=6)
    t.first_deal("E")
    _pen(t, "NS", "violation", seat="S")
    flag = _n_warned(t)
    _pen(t, "NS", "warning", role="chief", seat="S", next_leader="E")
    t.do("flag_dismissed", {"flag": flag}, role="referee")
    assert t.state["penalties"]["NS"]["fouls"] == 0 and t.state["levels"]["EW"] == "5"
    assert t.replay_matches()


def _report_flag_left_open_at_the_round_s_end(generation: int) -> Table:
    """EW holds a foul, a violation and a warning; E's missed report card is still an open flag when
    the chief ends the round (NS wins 16 : 10)."""
    t = Table(fmt={"kind": "deals", "deals": 2}, generation=generation)
    t.first_deal("E", {"E": 11, "S": 27, "W": 27, "N": 27})
    t.play("E", "3s")
    t.pass_("N")  # E left 10 cards without a report card: flagged
    t.do("penalty_given", {"side": "EW", "level": "foul", "article": "x", "seat": "E", "next_leader": "N"}, role="chief")
    t.do("penalty_given", {"side": "EW", "level": "violation", "article": "x", "seat": "W"}, role="referee")
    t.do("penalty_given", {"side": "EW", "level": "warning", "article": "x", "seat": "W"}, role="referee")
    t.do("round_ended", {"reason": "time"}, role="chief")
    assert t.state["result"]["level_points"] == {"NS": 16, "EW": 10}
    return t


def test_a_report_flag_upheld_after_the_round_s_result_earns_nothing_by_itself() -> None:
    """The engine helper's probe (2026-12-06): upholding the leftover flag gave its automatic warning,
    which climbed the ladder to a second foul and replaced the final 16 : 10 with a 17 : 9 loss."""
    t = _report_flag_left_open_at_the_round_s_end(7)
    t.do("flag_confirmed", {"flag": t.flags("report_missing")[0]["id"]}, role="chief")
    assert t.state["result"]["level_points"] == {"NS": 16, "EW": 10} and t.state["result"]["reason"] != "loss"
    assert len(t.state["penalties"]["records"]) == 3
    assert t.replay_matches()


def test_generation_6_gave_the_report_flag_s_warning_after_the_result() -> None:
    t = _report_flag_left_open_at_the_round_s_end(6)
    t.do("flag_confirmed", {"flag": t.flags("report_missing")[0]["id"]}, role="chief")
    assert t.state["result"]["reason"] == "loss" and t.state["result"]["level_points"] == {"NS": 17, "EW": 9}
