"""A match moved to a spare table goes on where it stood (``round_set_up``'s ``resume``,
engine/resume.py): the levels gained count from the round's real start, the A rule counts the
attempts made at the old table, the deals and the time already used count against the format, the
next deal is played at the last winner's level with the tribute it owes; malformed standings are
refused in both languages, and a round without one sets up exactly as before."""

from __future__ import annotations

from typing import Any

import pytest
from engine_helpers import ONE_EACH, Table

from table_service.engine.apply import apply
from table_service.engine.errors import EventRejected
from table_service.engine.events import check_data
from table_service.engine.resume import standing
from table_service.engine.state import initial_state

MOVED = {"from": "2", "levels": {"NS": "7", "EW": "5"}, "deals": 3, "next_side": "NS"}


def test_levels_gained_count_from_the_rounds_real_start_not_from_the_carried_levels() -> None:
    t = Table(fmt={"kind": "deals", "deals": 4}, resume=MOVED)
    rnd = t.state["round"]
    assert t.state["levels"] == {"NS": "7", "EW": "5"} and rnd["start_levels"] == {"NS": "2", "EW": "2"}
    assert rnd["status"] == "cutting" and rnd["resumed"]["from"] == "2"
    t.first_deal("E", ONE_EACH)
    assert t.deal["no"] == 4 and t.deal["level"] == "7"  # numbered on; at the level of NS, who won deal 3
    t.finish_in_order(["E", "W", "N", "S"])  # EW first and second: 5 -> 8; the 4th deal of 4 ends the round
    res = t.state["result"]
    assert res["reason"] == "deals" and res["deals"] == 4 and res["winner"] == "EW"
    assert res["gained"] == {"NS": 5, "EW": 6}  # from 2, not from 7 / 5 (that would be 0 : 3)
    assert res["level_points"] == {"EW": 14, "NS": 12}
    assert t.replay_matches()


def test_the_a_rule_counts_the_attempts_made_at_the_old_table() -> None:
    rules = {"preset": "jiangsu", "options": {"tries_at_a": 3}}
    t = Table(ruleset=rules, resume={"levels": {"NS": "9", "EW": "A"}, "deals": 6, "next_side": "EW",
                                     "failed_at_a": {"EW": 2}})
    t.first_deal("N", ONE_EACH)
    assert t.deal["level"] == "A" and t.deal["level_side"] == "EW"
    t.finish_in_order(["N", "E", "S", "W"])  # NS +2; EW fails at A a third time: back to 2
    assert t.state["levels"] == {"NS": "J", "EW": "2"} and t.state["failed_at_a"]["EW"] == 0

    won = Table(ruleset=rules, resume={"levels": {"NS": "9", "EW": "A"}, "deals": 6, "next_side": "EW",
                                       "failed_at_a": {"EW": 2}})
    won.first_deal("E", ONE_EACH)
    won.finish_in_order(["E", "W", "N", "S"])  # EW passes A
    res = won.state["result"]
    assert res["reason"] == "past_a" and res["gained"] == {"EW": 13, "NS": 7}
    assert res["level_points"] == {"EW": 19, "NS": 7}
    assert t.replay_matches() and won.replay_matches()


def test_the_last_deals_order_carries_the_tribute_and_the_time_used_counts() -> None:
    t = Table(fmt={"kind": "time", "minutes": 30},
              resume={"levels": {"NS": "2", "EW": "5"}, "deals": 1, "last_order": ["E", "W", "N", "S"],
                      "elapsed_s": 600})
    rnd = t.state["round"]
    assert rnd["started_ms"] == t.t - 600_000 and rnd["status"] == "drawing"  # no cut: not the first deal
    t.next_deal(ONE_EACH)
    assert t.deal["no"] == 2 and t.deal["level"] == "5" and t.deal["phase"] == "tribute"
    assert t.deal["tribute_plan"]["payers"] == ["N", "S"] and t.deal["tribute_plan"]["kind"] == "double"
    assert t.replay_matches()


def test_what_a_table_reports_sets_the_spare_table_up_at_the_same_place() -> None:
    old = Table(fmt={"kind": "deals", "deals": 6})
    old.first_deal("E", ONE_EACH)
    old.finish_in_order(["E", "N", "W", "S"])  # EW +2
    carried = {"levels": old.state["levels"], **standing(old.state)}
    assert carried == {"levels": {"EW": "4", "NS": "2"}, "deals": 1, "next_side": "EW", "last_order": ["E", "N", "W", "S"]}
    new = Table(fmt={"kind": "deals", "deals": 6}, resume=carried)
    old.next_deal(ONE_EACH)
    new.next_deal(ONE_EACH)
    for key in ("no", "level", "level_side", "tribute_plan", "phase"):
        assert new.deal[key] == old.deal[key], key
    assert standing(new.state) == standing(old.state) == {"deals": 1, "next_side": "EW",
                                                          "last_order": ["E", "N", "W", "S"]}
    assert standing(Table().state) is None  # nothing played: the round's start says it all
    timed = Table(fmt={"kind": "time", "minutes": 30})
    timed.do("clock_ticked", {}, dt=90_000)
    assert standing(timed.state) == {"deals": 0, "elapsed_s": 90}  # but a timed round's clock runs


@pytest.mark.parametrize(("resume", "words"), [
    ({"levels": {"NS": "7"}, "deals": 2}, "levels must give both sides"),
    ({"levels": {"NS": "1", "EW": "5"}, "deals": 2}, "one of"),
    ({"levels": {"NS": "7", "EW": "7"}, "deals": 2, "failed_at_a": {"NS": 1}}, "not at A"),
    ({"levels": {"NS": "A", "EW": "7"}, "deals": 2, "failed_at_a": {"NS": 3}, "next_side": "NS"}, "sent back"),
    ({"levels": {"NS": "7", "EW": "5"}, "deals": 2}, "next_side must say"),
    ({"levels": {"NS": "7", "EW": "5"}, "deals": 2, "next_side": "EW", "last_order": ["N", "S"]}, "not of next_side"),
    ({"levels": {"NS": "7", "EW": "5"}, "deals": 2, "last_order": ["N", "E"]}, "not a finished deal"),
    ({"levels": {"NS": "7", "EW": "5"}, "deals": 0, "next_side": "NS"}, "no deal played"),
    ({"levels": {"NS": "7", "EW": "7"}, "deals": 2, "gained": 3}, "unknown key"),
])
def test_a_malformed_standing_is_refused_in_both_languages(resume: dict[str, Any], words: str) -> None:
    ev = {"seq": 1, "t_ms": 1, "type": "round_set_up", "source": "panel", "role": "referee",
          "data": {"players": {s: f"p{s}" for s in "ESWN"}, "ruleset": {"preset": "jiangsu",
                   "options": {"tries_at_a": 3}}, "engine": 9, "resume": resume}}
    with pytest.raises(EventRejected) as info:  # the schema first, as the runner checks an event, then the sense
        check_data("round_set_up", ev["data"])
        apply(initial_state(), ev)
    assert words in str(info.value) and "无效" in str(info.value).split(" / ")[0]


def test_a_round_without_a_standing_sets_up_as_before() -> None:
    t = Table(fmt={"kind": "deals", "deals": 1})
    assert "resumed" not in t.state["round"] and t.state["round"]["deals_started"] == 0
    t.first_deal("E", ONE_EACH)
    assert t.deal["no"] == 1 and t.deal["level"] == "2"
    t.finish_in_order(["E", "W", "N", "S"])
    assert t.state["result"]["deals"] == 1 and t.state["result"]["gained"] == {"EW": 3, "NS": 0}
    assert t.replay_matches()
