"""How a round ends (engine generation 7): a time limit judged by the events' own times, tick or no
tick; a round the chief ended on a tie, decided by the extra deal, says the chief ended it."""

from __future__ import annotations

from engine_helpers import ONE_EACH, Table

from table_service.engine.scoring import describe_result

MINUTE = 60_000


def _ew_ahead_in_a_one_minute_round(generation: int | None = None) -> Table:
    """Deal 1 played out inside the minute, EW first and second (+3): the round's time limit is 1 minute."""
    t = Table(fmt={"kind": "time", "minutes": 1}) if generation is None else \
        Table(fmt={"kind": "time", "minutes": 1}, generation=generation)
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "W", "N", "S"])
    assert t.state["result"] is None and t.state["round"]["time_up"] is False
    return t


# ------------------------------------------------------------------ the time limit, tick or no tick


def test_a_deal_that_ends_past_the_time_limit_ends_the_round_with_no_tick() -> None:
    t = _ew_ahead_in_a_one_minute_round()
    start = t.state["round"]["started_ms"]
    t.next_deal(ONE_EACH)
    t.do("anti_tribute_declared", {"seats": ["N", "S"], "cards": ["BJ", "BJ"]})
    t.play("E", "3s", t=start + 5 * MINUTE)  # long past the limit; no clock_ticked logged
    assert t.state["round"]["time_up"] is True and t.state["result"] is None  # the running deal is played out
    t.finish_in_order(["E", "W", "N", "S"])
    assert t.state["result"]["reason"] == "time" and t.state["result"]["winner"] == "EW"
    assert t.state["result"]["deals"] == 2
    assert t.replay_matches()


def test_no_deal_is_drawn_after_the_time_limit_and_the_next_event_records_the_round_s_end() -> None:
    t = _ew_ahead_in_a_one_minute_round()
    start = t.state["round"]["started_ms"]
    error = t.reject("drawing_finished", {}, t=start + 2 * MINUTE)
    assert "时间已到" in error and "no further deal starts" in error
    t.do("round_ended", {"reason": "time called"}, role="chief", t=start + 3 * MINUTE)
    assert t.state["result"]["reason"] == "time" and t.state["result"]["winner"] == "EW"
    assert t.state["result"]["deals"] == 1
    t.do("score_sheet_signed", {"side": "EW"}, role="referee")
    assert t.replay_matches()


def test_a_tie_at_the_time_limit_with_no_tick_plays_the_extra_deal() -> None:
    t = Table(fmt={"kind": "time", "minutes": 1})
    t.first_deal("E", ONE_EACH)
    start = t.state["round"]["started_ms"]
    t.finish_in_order(["E", "W", "N", "S"])  # EW +3
    t.next_deal({"E": 2, "N": 1, "W": 1, "S": 1})
    t.do("anti_tribute_declared", {"seats": ["N", "S"], "cards": ["BJ", "BJ"]})
    t.play("E", "3s")
    t.play("N", "4s")
    t.pass_("W")
    t.play("S", "5s")  # N and S out first: NS +3, a tie, inside the minute
    assert t.state["result"] is None and t.state["round"]["extra_deal"] is False
    assert t.t < start + MINUTE
    t.do("drawing_finished", {"counts": ONE_EACH}, t=start + 2 * MINUTE)  # after the limit: the tie's extra deal
    assert t.state["round"]["time_up"] is True and t.state["round"]["extra_deal"] is True and t.deal["no"] == 3
    t.do("tribute_given", {"seat": "E", "card": "BJ"})
    t.do("tribute_given", {"seat": "W", "card": "SJ"})
    t.do("return_given", {"seat": "N", "card": "3s"})
    t.do("return_given", {"seat": "S", "card": "4s"})
    t.finish_in_order(["E", "W", "N", "S"])  # E, who paid 上游, leads
    assert t.state["result"]["reason"] == "time" and t.state["result"]["winner"] == "EW"
    assert t.replay_matches()


def test_generation_6_noticed_the_time_limit_only_on_a_tick() -> None:
    t = _ew_ahead_in_a_one_minute_round(generation=6)
    start = t.state["round"]["started_ms"]
    t.next_deal(ONE_EACH)
    t.do("anti_tribute_declared", {"seats": ["N", "S"], "cards": ["BJ", "BJ"]})
    t.play("E", "3s", t=start + 5 * MINUTE)
    t.finish_in_order(["E", "W", "N", "S"])
    assert t.state["result"] is None and t.state["round"]["time_up"] is False
    t.next_deal(ONE_EACH)  # and a further deal started
    assert t.deal["no"] == 3


# ------------------------------------------------------------------ a round ended on a tie


def _called_on_a_tie(generation: int | None = None) -> Table:
    """A round to past A: EW +3, then NS +3; the chief ends it level, and the extra deal goes to EW."""
    t = Table() if generation is None else Table(generation=generation)
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "W", "N", "S"])
    t.next_deal({"E": 2, "N": 1, "W": 1, "S": 1})
    t.do("anti_tribute_declared", {"seats": ["N", "S"], "cards": ["BJ", "BJ"]})
    t.play("E", "3s")
    t.play("N", "4s")
    t.pass_("W")
    t.play("S", "5s")
    t.next_deal(ONE_EACH)
    t.do("round_ended", {"reason": "time"}, role="chief")  # level: deal 3 is abandoned, one more deal
    assert t.state["result"] is None and t.state["round"]["extra_deal"] is True
    t.next_deal(ONE_EACH)
    t.do("tribute_given", {"seat": "E", "card": "BJ"})
    t.do("tribute_given", {"seat": "W", "card": "SJ"})
    t.do("return_given", {"seat": "N", "card": "3s"})
    t.do("return_given", {"seat": "S", "card": "4s"})
    t.finish_in_order(["E", "N", "S", "W"])
    return t


def test_a_round_ended_on_a_tie_and_decided_by_the_extra_deal_says_it_was_ended_not_past_a() -> None:
    t = _called_on_a_tie()
    result = t.state["result"]
    assert result["winner"] == "EW" and result["reason"] == "ended" and result["past_a"] is None
    # The Chinese half says the side in Chinese, and each half is whole (it read "EW 胜 / EW wins (中止 / ended)").
    assert describe_result(result).startswith("东西胜（中止），级差分 东西 ")
    assert " / EW wins (ended); level points EW " in describe_result(result)
    assert t.replay_matches()


def test_generation_6_reported_the_round_ended_on_a_tie_as_past_a() -> None:
    assert _called_on_a_tie(generation=6).state["result"]["reason"] == "past_a"


# ------------------------------------------------------------------ readings the rules leave unsaid (the s36 audit)


def _deal_two_at_ew_s_a(**kw: object) -> Table:
    """EW at A (NS at 5): deal 1 at 2, EW first and second (levels stop at A); deal 2 is played at EW's A."""
    t = Table(levels={"EW": "A", "NS": "5"}, **kw)
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "W", "N", "S"])
    t.next_deal()
    assert t.deal["level"] == "A" and t.state["result"] is None
    return t


def test_a_foul_in_a_deal_at_a_passes_the_other_side_s_a_or_is_the_offender_s_failed_try() -> None:
    """A foul: "the offending side counts as double-down", so the other side counts as 1st and 2nd.
    In a deal played at EW's A, NS's foul passes EW's A and wins the round; EW's own foul is a deal at
    A that EW did not pass (a failed try where the event counts them), and NS goes up 3."""
    t = _deal_two_at_ew_s_a()
    t.do("penalty_given", {"side": "NS", "level": "foul", "article": "x", "seat": "N", "next_leader": "W"}, role="chief")
    assert (t.state["result"]["winner"], t.state["result"]["reason"]) == ("EW", "past_a")
    t = _deal_two_at_ew_s_a(ruleset={"preset": "jiangsu", "options": {"tries_at_a": 3}})
    t.do("penalty_given", {"side": "EW", "level": "foul", "article": "x", "seat": "E", "next_leader": "N"}, role="chief")
    assert t.state["result"] is None
    assert t.state["failed_at_a"] == {"EW": 1, "NS": 0} and t.state["levels"] == {"EW": "A", "NS": "8"}


def test_a_round_of_a_number_of_deals_ends_at_once_when_a_side_passes_a() -> None:
    """Seven deals left, or an hour and more: passing A ends the round all the same."""
    for fmt in ({"kind": "deals", "deals": 8}, {"kind": "time", "minutes": 90}):
        t = Table(fmt=fmt, levels={"EW": "A", "NS": "A"})
        t.first_deal("E", ONE_EACH)
        t.finish_in_order(["E", "W", "N", "S"])
        assert (t.state["result"]["winner"], t.state["result"]["reason"], t.state["result"]["deals"]) == ("EW", "past_a", 1)
