"""Deal lifecycle: first cut, tribute and return, leaders, 接风, levels, the A rule, round formats,
the tie deal — each against a case worked by hand from shared/rules-jiangsu.md."""

from __future__ import annotations

import pytest
from engine_helpers import ONE_EACH, Table

from table_service.engine.apply import fold
from table_service.engine.round_setup import first_drawer
from table_service.engine.ruleset import ENGINE_GENERATION
from table_service.event.model import parse_result
from table_service.views.wire import table_result


@pytest.mark.parametrize(("cut", "drawer"), [("As", "S"), ("2c", "E"), ("3d", "N"), ("4s", "W"), ("5s", "S"), ("7h", "N"), ("Kd", "S"), ("Qc", "W")])
def test_first_drawer_counts_counter_clockwise_from_south(cut: str, drawer: str) -> None:
    # S=1, E=2, N=3, W=4, S=5 …; A counts 1, K 13.
    assert first_drawer(cut) == drawer


def test_first_cut_joker_or_heart_two_is_recut(table: Table) -> None:
    table.do("first_cut_recorded", {"card": "BJ"})
    assert table.state["first_cut"]["recut"] is True
    assert "cut" in table.reject("drawing_finished", {})
    table.do("first_cut_recorded", {"card": "2h"})
    assert table.state["first_cut"]["recut"] is True
    table.do("first_cut_recorded", {"card": "7h"})
    assert table.state["first_cut"] == {"card": "7h", "first_drawer": "N", "recut": False, "seq": table.events[-1]["seq"]}
    table.do("drawing_finished", {})
    assert table.deal["turn"] == "N" and table.deal["level"] == "2"


def test_cut_card_holder_leads_first_trick(table: Table) -> None:
    table.do("first_cut_recorded", {"card": "7h"})
    table.do("drawing_finished", {"cut_card_holder": "W"})
    assert table.deal["turn"] == "W" and table.deal["trick"]["leader"] == "W"
    assert table.deal["timers"]["W"]["phase"] == "lead"
    assert table.deal["timers"]["W"]["deadline_ms"] - table.deal["timers"]["W"]["started_ms"] == 40_000


@pytest.mark.parametrize(
    ("order", "side", "gain"),
    [(["E", "W", "N", "S"], "EW", 3), (["E", "N", "W", "S"], "EW", 2), (["E", "N", "S", "W"], "EW", 1),
     (["N", "S", "E", "W"], "NS", 3), (["S", "W", "N", "E"], "NS", 2), (["N", "E", "W", "S"], "NS", 1)],
)
def test_levels_only_top_side_goes_up(order: list[str], side: str, gain: int) -> None:
    t = Table()
    t.first_deal(order[0], ONE_EACH)
    t.finish_in_order(order)
    sheet = t.state["score_sheet"][-1]
    decided = 2 if gain == 3 else 3  # a double-down ends the deal after two have finished
    assert sheet["finish_order"][:decided] == order[:decided]
    assert sheet["gain"] == {"side": side, "levels": gain}
    other = "NS" if side == "EW" else "EW"
    assert t.state["levels"] == {side: "2345"[gain], other: "2"}
    assert t.replay_matches()


def test_deal_ends_at_first_and_second_of_one_side(table: Table) -> None:
    table.first_deal("E", ONE_EACH)
    table.play("E", "3s")
    table.pass_("N")
    table.play("W", "4s")
    assert table.deal["phase"] == "over"
    assert table.deal["finish_order"][:2] == ["E", "W"]
    nxt = table.state["next_deal"]
    assert nxt["kind"] == "double" and sorted(nxt["payers"]) == ["N", "S"] and nxt["top"] == "E"


def test_single_tribute_and_return_then_payer_leads(table: Table) -> None:
    table.first_deal("E", ONE_EACH)
    table.finish_in_order(["E", "N", "W", "S"])  # S is 下游, pays E
    table.next_deal()
    assert table.deal["phase"] == "tribute" and table.deal["level"] == "4"
    assert table.deal["timers"]["S"]["phase"] == "tribute"
    assert table.deal["timers"]["S"]["deadline_ms"] - table.deal["timers"]["S"]["started_ms"] == 20_000
    # The Chinese half names the seat and the payers as the English half does (it had said "此座位不需进贡").
    assert table.reject("tribute_given", {"seat": "N", "card": "As"}).startswith(
        "北不需进贡（进贡方：南） / tribute_given: N owes no tribute (payers: S)")
    table.do("tribute_given", {"seat": "S", "card": "BJ"})
    assert table.deal["tributes"][0]["to"] == "E" and table.deal["phase"] == "return"
    assert table.deal["counts"] == {"E": 28, "S": 26, "W": 27, "N": 27}
    assert table.deal["timers"]["E"]["deadline_ms"] - table.deal["timers"]["E"]["started_ms"] == 40_000
    assert table.reject("return_given", {"seat": "N", "card": "3c"}).startswith(
        "北未收到贡牌，无需还贡 / return_given: N received no tribute")
    table.do("return_given", {"seat": "E", "card": "Tc"})
    assert table.deal["returns"] == [{"seq": table.events[-1]["seq"], "from": "E", "to": "S", "card": "Tc"}]
    assert table.deal["counts"] == {s: 27 for s in "ESWN"}
    assert table.deal["phase"] == "play" and table.deal["turn"] == "S"
    assert table.deal["timers"]["S"]["phase"] == "lead"
    assert table.rules_raised() == set()


def test_top_s_own_partner_last_pays_top_returns_within_ten_and_leads() -> None:
    """E 1st, W (E's partner) last: "the previous 下游 gives 上游 the highest card … 上游 returns any
    one card of rank at most 10 … 下游 leads the first trick" — the text makes no exception for
    partners, so W pays E, a J returned to W is over the limit, and W leads; the next deal is at EW's
    level (+1). Anti-tribute is "one player both" in a single tribute: W alone may declare it, 上游 leads."""
    t = Table()
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "S", "W"])
    assert t.state["score_sheet"][-1]["gain"] == {"side": "EW", "levels": 1}
    assert t.state["next_deal"] == {"kind": "single", "payers": ["W"], "top": "E"}
    t.next_deal()
    assert t.deal["level"] == "3" and t.deal["phase"] == "tribute"
    t.do("tribute_given", {"seat": "W", "card": "BJ"})
    assert t.deal["tributes"][0]["to"] == "E"
    t.do("return_given", {"seat": "E", "card": "Js"})
    assert [(f["rule"], f["seat"]) for f in t.flags("return_above_ten")] == [("return_above_ten", "E")]
    assert t.deal["returns"][0]["to"] == "W"
    assert t.deal["phase"] == "play" and t.deal["turn"] == "W"

    a = Table()
    a.first_deal("E", ONE_EACH)
    a.finish_in_order(["E", "N", "S", "W"])
    a.next_deal()
    assert "payers" in a.reject("anti_tribute_declared", {"seats": ["W", "E"], "cards": ["BJ", "BJ"]})
    a.do("anti_tribute_declared", {"seats": ["W"], "cards": ["BJ", "BJ"]})
    assert a.deal["phase"] == "play" and a.deal["turn"] == "E" and a.deal["tributes"] == []
    assert a.replay_matches() and t.replay_matches()


def _double_down_deal(ruleset: str = "jiangsu") -> Table:
    t = Table(ruleset=ruleset)
    t.first_deal("E", ONE_EACH)
    t.play("E", "3s")
    t.pass_("N")
    t.play("W", "4s")  # E 1st, W 2nd: NS double-down
    t.next_deal()
    assert sorted(t.deal["tribute_plan"]["payers"]) == ["N", "S"]
    return t


def test_double_down_higher_tribute_to_top_and_its_payer_leads() -> None:
    t = _double_down_deal()
    t.do("tribute_given", {"seat": "N", "card": "Kd"})
    assert t.deal["phase"] == "tribute"
    t.do("tribute_given", {"seat": "S", "card": "SJ"})
    to = {x["from"]: x["to"] for x in t.deal["tributes"]}
    assert to == {"S": "E", "N": "W"}  # SJ (higher) to 上游 E, Kd to E's partner W
    t.do("return_given", {"seat": "W", "card": "3c"})
    t.do("return_given", {"seat": "E", "card": "4c"})
    assert t.deal["turn"] == "S"  # the one who paid 上游 leads


def test_double_down_level_card_outranks_ace() -> None:
    t = _double_down_deal()  # deal 2 is played at EW's level, 5
    assert t.deal["level"] == "5"
    t.do("tribute_given", {"seat": "N", "card": "As"})
    t.do("tribute_given", {"seat": "S", "card": "5d"})
    assert {x["from"]: x["to"] for x in t.deal["tributes"]} == {"S": "E", "N": "W"}


def test_double_down_equal_tributes_go_clockwise() -> None:
    t = _double_down_deal()
    t.do("tribute_given", {"seat": "N", "card": "Kd"})
    t.do("tribute_given", {"seat": "S", "card": "Ks"})
    # clockwise: each payer to the seat on its clockwise side (its 上家): N → E, S → W
    assert {x["from"]: x["to"] for x in t.deal["tributes"]} == {"N": "E", "S": "W"}
    t.do("return_given", {"seat": "E", "card": "3c"})
    t.do("return_given", {"seat": "W", "card": "4c"})
    assert t.deal["turn"] == "N"


def test_huaian_double_down_top_next_leads() -> None:
    t = _double_down_deal("huaian")
    t.do("tribute_given", {"seat": "N", "card": "Kd"})
    t.do("tribute_given", {"seat": "S", "card": "SJ"})
    t.do("return_given", {"seat": "W", "card": "3c"})
    t.do("return_given", {"seat": "E", "card": "4c"})
    assert t.deal["turn"] == "N"  # 上游 E's 下家


def test_anti_tribute_both_big_jokers_top_leads() -> None:
    t = _double_down_deal()
    assert "big jokers" in t.reject("anti_tribute_declared", {"seats": ["N"], "cards": ["BJ", "SJ"]})
    assert "payers" in t.reject("anti_tribute_declared", {"seats": ["E"], "cards": ["BJ", "BJ"]})
    t.do("anti_tribute_declared", {"seats": ["N", "S"], "cards": ["BJ", "BJ"]})
    assert t.deal["phase"] == "play" and t.deal["turn"] == "E"
    assert t.deal["tributes"] == [] and t.deal["counts"] == {s: 27 for s in "ESWN"}


def test_an_anti_tribute_names_each_holder_once() -> None:
    """One payer holds both big jokers, or each of two payers one: ``["S", "S"]`` (taken as one each,
    so S was recorded holding one and N's big joker went unflagged) and two seats where one payer
    owes are refused."""
    t = Table()
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "W", "S"])
    t.next_deal()
    assert t.state["deal"]["tribute_plan"]["payers"] == ["S"]
    assert "once" in t.reject("anti_tribute_declared", {"seats": ["S", "S"], "cards": ["BJ", "BJ"]})
    t.do("anti_tribute_declared", {"seats": ["S"], "cards": ["BJ", "BJ"]})
    assert t.deal["declared"] == {"S": ["BJ", "BJ"]}
    d = _double_down_deal()
    assert "once" in d.reject("anti_tribute_declared", {"seats": ["N", "N"], "cards": ["BJ", "BJ"]})
    d.do("anti_tribute_declared", {"seats": ["N", "S"], "cards": ["BJ", "BJ"]})
    assert d.deal["declared"] == {"N": ["BJ"], "S": ["BJ"]}


def test_jiefeng_partner_leads_when_winner_has_finished(table: Table) -> None:
    table.first_deal("E", {"E": 1, "S": 2, "W": 2, "N": 2})
    table.play("E", "Ks")  # E finishes
    table.pass_("N")
    table.pass_("W")
    table.pass_("S")
    assert table.deal["turn"] == "W" and table.deal["trick"]["leader"] == "W"  # 接风
    assert table.deal["timers"]["W"]["phase"] == "lead"


def test_trick_winner_leads_next(table: Table) -> None:
    table.first_deal("E")
    table.play("E", "3s")
    table.play("N", "9s")
    table.pass_("W")
    table.pass_("S")
    assert table.deal["turn"] == "E"
    table.pass_("E")
    assert table.deal["turn"] == "N" and table.deal["trick"]["top"] is None
    assert len(table.deal["tricks"]) == 1 and table.deal["tricks"][0]["winner"] == "N"


def test_levels_stop_at_a_and_a_must_be_played() -> None:
    t = Table(levels={"EW": "Q", "NS": "2"})
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "W", "N", "S"])  # +3 from Q would pass A: stops at A
    assert t.state["levels"]["EW"] == "A" and t.state["result"] is None


@pytest.mark.parametrize(("order", "wins"), [(["E", "W", "N", "S"], True), (["E", "N", "W", "S"], True), (["E", "N", "S", "W"], False)])
def test_a_rule(order: list[str], wins: bool) -> None:
    t = Table(levels={"EW": "A", "NS": "A"})
    t.first_deal(order[0], ONE_EACH)
    t.finish_in_order(order)
    if wins:
        assert t.state["result"]["reason"] == "past_a" and t.state["result"]["winner"] == "EW"
        assert t.state["result"]["gained"]["EW"] == 1  # past A counts as one level above A
    else:
        assert t.state["result"] is None and t.state["levels"]["EW"] == "A"


def test_a_rule_needs_the_deal_played_at_a() -> None:
    # EW at A, NS at 5: the first deal is played at 2, so EW's 1st + 2nd there wins nothing.
    t = Table(levels={"EW": "A", "NS": "5"})
    t.first_deal("E", ONE_EACH)
    assert t.deal["level"] == "2"
    t.finish_in_order(["E", "W", "N", "S"])
    assert t.state["result"] is None and t.state["levels"] == {"EW": "A", "NS": "5"}
    # E was 上游, so the next deal is played at EW's level, A: now the same finish wins.
    t.next_deal(ONE_EACH)
    assert t.deal["level"] == "A"
    t.do("tribute_given", {"seat": "N", "card": "Kd"})
    t.do("tribute_given", {"seat": "S", "card": "Qd"})
    t.do("return_given", {"seat": "E", "card": "3c"})
    t.do("return_given", {"seat": "W", "card": "3d"})
    t.finish_in_order(["N", "E", "W", "S"])  # NS 上游: the deal at A is EW's, but NS won it
    assert t.state["result"] is None and t.state["levels"] == {"EW": "A", "NS": "6"}


def test_tries_at_a_option_sends_sides_back_to_start() -> None:
    t = Table(levels={"EW": "A", "NS": "A"}, ruleset={"preset": "jiangsu", "options": {"tries_at_a": 1}})
    t.first_deal("E", ONE_EACH)
    assert t.deal["level"] == "A"
    t.finish_in_order(["E", "N", "S", "W"])  # EW 上游 but partner last: nobody wins at A
    assert t.state["result"] is None
    assert t.state["levels"] == {"EW": "2", "NS": "2"}  # one try at A each, both failed
    assert t.state["failed_at_a"] == {"EW": 0, "NS": 0}


def test_failures_at_a_are_counted_without_the_option() -> None:
    t = Table(levels={"EW": "A", "NS": "A"})
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "S", "W"])
    assert t.state["levels"] == {"EW": "A", "NS": "A"} and t.state["failed_at_a"] == {"EW": 1, "NS": 1}


def test_format_n_deals_ends_with_level_points() -> None:
    t = Table(fmt={"kind": "deals", "deals": 2})
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "W", "N", "S"])  # EW +3 -> 5
    t.next_deal(ONE_EACH)
    t.do("tribute_given", {"seat": "N", "card": "Kd"})
    t.do("tribute_given", {"seat": "S", "card": "Qd"})
    t.do("return_given", {"seat": "E", "card": "3c"})
    t.do("return_given", {"seat": "W", "card": "3d"})
    t.finish_in_order(["N", "E", "S", "W"])  # N 上游, partner S 3rd: NS +2 -> 4
    res = t.state["result"]
    assert res["reason"] == "deals" and res["winner"] == "EW"
    assert res["gained"] == {"EW": 3, "NS": 2}
    assert res["level_points"] == {"EW": 14, "NS": 12}  # d = 1: 13 + 1 : 13 - 1
    assert res["match_points"] == {"EW": 2, "NS": 0}
    assert "round is over" in t.reject("drawing_finished", {})
    t.do("score_sheet_signed", {"side": "EW"}, role="referee")
    t.do("score_sheet_signed", {"side": "NS"}, role="referee")
    assert t.state["signatures"] == {"EW": True, "NS": True}
    assert t.reject("score_sheet_signed", {"side": "NS"}, role="referee") == (
        "南北方已签字 / score_sheet_signed: NS has already signed")
    assert t.replay_matches()


def test_a_round_started_at_unequal_levels_scores_the_levels_gained_as_the_hub_does() -> None:
    """级差 d is the difference of the levels gained (what decides the winner): the table's own result
    and the hub's reading of the table's signed result line give the same score."""
    t = Table(fmt={"kind": "deals", "deals": 1}, levels={"EW": "K", "NS": "2"})
    t.first_deal("N", ONE_EACH)
    t.finish_in_order(["N", "S", "E", "W"])  # NS 1st and 2nd: +3 -> 5; EW stay at K
    res = t.state["result"]
    assert res["winner"] == "NS" and res["gained"] == {"NS": 3, "EW": 0}
    assert res["level_points"] == {"NS": 16, "EW": 10}
    t.do("score_sheet_signed", {"side": "EW"}, role="referee")
    t.do("score_sheet_signed", {"side": "NS"}, role="referee")
    assert t.replay_matches()
    t.state["round"]["teams"] = {"NS": "A", "EW": "B"}  # the hub's draw names them
    line = table_result(t.state, "1")["result"]
    assert parse_result(line).level_points() == (16, 10)


def test_tie_plays_one_more_deal() -> None:
    t = Table(fmt={"kind": "deals", "deals": 2})
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "W", "S"])  # EW +2 -> 4
    t.next_deal(ONE_EACH)
    t.do("tribute_given", {"seat": "S", "card": "Kd"})
    t.do("return_given", {"seat": "E", "card": "3c"})
    t.finish_in_order(["S", "E", "N", "W"])  # NS +2 -> 4: tie after 2 deals
    assert t.state["result"] is None and t.state["round"]["extra_deal"] is True
    t.next_deal(ONE_EACH)
    t.do("tribute_given", {"seat": "W", "card": "Kd"})
    t.do("return_given", {"seat": "S", "card": "3c"})
    t.finish_in_order(["W", "E", "N", "S"])  # EW +3
    assert t.state["result"]["winner"] == "EW" and t.state["result"]["deals"] == 3
    assert t.replay_matches()


def test_the_deal_after_an_abandoned_one_takes_a_new_number() -> None:
    """A round ended on a tie while deal 3 is played plays one more deal: it is deal 4, not a second
    deal 3 (in duplicate play deal 3's release would otherwise publish it)."""
    t = Table(fmt={"kind": "deals", "deals": 3})
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "W", "S"])  # EW +2
    t.next_deal(ONE_EACH)
    t.do("tribute_given", {"seat": "S", "card": "Kd"})
    t.do("return_given", {"seat": "E", "card": "3c"})
    t.finish_in_order(["S", "E", "N", "W"])  # NS +2: level
    t.next_deal(ONE_EACH)
    t.do("tribute_given", {"seat": "W", "card": "Kd"})
    t.do("return_given", {"seat": "S", "card": "3c"})
    t.do("round_ended", {"reason": "time"}, role="referee")
    assert t.deal["no"] == 3 and t.deal["ended_by"] == "abandoned" and t.state["round"]["extra_deal"] is True
    t.do("deal_released", {"round": 1, "deal": 3}, role="chief")
    t.next_deal(ONE_EACH)
    assert t.deal["no"] == 4 and t.deal["phase"] != "over"
    assert "has not ended" in t.reject("deal_released", {"round": 1, "deal": 4}, role="chief")
    assert t.replay_matches()


def test_a_round_number_is_played_once_at_a_table() -> None:
    t = Table(fmt={"kind": "deals", "deals": 1})
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "W", "N", "S"])
    players = t.state["round"]["players"]
    gen = {"engine": ENGINE_GENERATION}  # as the runner stamps every round it logs
    assert "played round 1 already" in t.reject("round_set_up", {"players": players, "round": 1, **gen}, role="referee")
    for bad in (0, "2", True, 1000):
        assert "'round' must be" in t.reject("round_set_up", {"players": players, "round": bad, **gen}, role="referee")
    # A log written before the stamp may hold a round played twice: it replays (tests/engine/test_older_logs.py).
    assert fold([*t.events, t.event("round_set_up", {"players": players, "round": 1}, role="referee")
                 | {"seq": t.state["last_seq"] + 1}])["round"]["no"] == 1
    t.do("round_set_up", {"players": players, "round": 2, **gen}, role="referee")
    assert t.state["round"]["no"] == 2


def test_time_limit_round_ends_after_the_running_deal() -> None:
    t = Table(fmt={"kind": "time", "minutes": 1})
    t.first_deal("E", ONE_EACH)
    t.play("E", "3s")
    t.do("clock_ticked", {}, source="clock", dt=61_000)
    assert t.state["round"]["time_up"] is True and t.state["result"] is None
    t.play("N", "4s")
    t.play("W", "5s")  # E N W finished: deal over, EW +2
    assert t.state["result"]["reason"] == "time" and t.state["result"]["winner"] == "EW"


def test_referee_ends_round_mid_deal_without_scoring_it() -> None:
    t = Table(fmt={"kind": "time", "minutes": 90})
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "W", "N", "S"])
    t.next_deal()
    assert "referee role" in t.reject("round_ended", {}, role="viewer")
    t.do("round_ended", {"reason": "time called"}, role="referee")
    assert t.state["result"]["reason"] == "ended" and t.state["result"]["deals"] == 1
    assert t.deal["ended_by"] == "abandoned"


def test_new_round_archives_the_old_one() -> None:
    t = Table(fmt={"kind": "deals", "deals": 1})
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "W", "N", "S"])
    assert t.state["result"] is not None
    t.do("round_set_up", {"players": {s: f"q{s}" for s in "ESWN"}, "format": {"kind": "past_a"}}, role="referee")
    assert len(t.state["rounds"]) == 1 and t.state["rounds"][0]["result"]["winner"] == "EW"
    assert t.state["levels"] == {"EW": "2", "NS": "2"} and t.state["score_sheet"] == []
    assert t.state["round"]["no"] == 2
    assert t.replay_matches()


def test_deal_record_for_duplicate_play(table: Table) -> None:
    table.first_deal("E", {"E": 2, "S": 1, "W": 1, "N": 1})
    table.play("E", "3s")
    table.report("E")
    table.play("N", "4s")
    table.pass_("W")
    table.pass_("S")
    table.pass_("E")  # N finished: partner S leads
    assert table.deal["turn"] == "S"
    table.play("S", "5s")  # N and S finished 1st and 2nd: the deal ends
    rec = table.state["deal_records"][-1]
    assert rec["by_seat"] == {"E": ["3s"], "S": ["5s"], "W": [], "N": ["4s"]}
    assert rec["counts_left"] == {"E": 1, "S": 0, "W": 1, "N": 0}
    assert rec["tricks"][0] == [{"seat": "E", "cards": ["3s"]}, {"seat": "N", "cards": ["4s"]}, {"seat": "W", "pass": True},
                                {"seat": "S", "pass": True}, {"seat": "E", "pass": True}]
    assert rec["finish_order"] == ["N", "S", "E", "W"]


def test_a_miscounted_deal_is_drawn_again() -> None:
    """"Cards miscounted: re-shuffle and re-draw": before the first card is played the referee sends
    the table back to before the drawing; the same deal is drawn again, with its own number and its
    tribute still to pay, and what the referee did meanwhile stays."""
    t = Table(fmt={"kind": "deals", "deals": 3})
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "W", "S"])  # EW +2; S pays next deal
    t.do("drawing_finished", {"counts": {"E": 27, "S": 26, "W": 27, "N": 28}})
    assert t.deal["no"] == 2 and t.flags("wrong_count")
    t.do("penalty_given", {"side": "NS", "level": "warning", "article": "x", "seat": "N"}, role="referee")
    assert "reason is required" in t.reject("deal_redrawn", {"reason": " "}, role="referee")
    assert "referee" in t.reject("deal_redrawn", {"reason": "miscount"}, role="viewer")
    t.do("deal_redrawn", {"reason": "北家 28 张 / N had 28"}, role="referee")
    assert t.deal["no"] == 1 and t.deal["phase"] == "over" and t.flags("wrong_count")
    assert len(t.state["penalties"]["records"]) == 1
    t.next_deal(ONE_EACH)
    assert t.deal["no"] == 2 and t.deal["phase"] == "tribute"
    t.do("tribute_given", {"seat": "S", "card": "Kd"})
    t.do("return_given", {"seat": "E", "card": "3c"})
    t.play(t.deal["turn"], "3s")
    assert "before the first lead" in t.reject("deal_redrawn", {"reason": "too late"}, role="referee")
    assert t.replay_matches()


@pytest.mark.parametrize("change, why", [
    ({"players": {"E": "a\x00b", "S": "s", "W": "w", "N": "n"}}, "printable"),
    ({"players": {"E": "a\x1b[31mred", "S": "s", "W": "w", "N": "n"}}, "printable"),
    ({"players": {"E": " ", "S": "s", "W": "w", "N": "n"}}, "not blank"),
    ({"players": {"E": "\u202eevil", "S": "s", "W": "w", "N": "n"}}, "printable"),
    ({"teams": {"EW": "a\nb", "NS": "NS"}}, "printable"),
    ({"teams": {"EW": "", "NS": "NS"}}, "not blank"),
    ({"ruleset": {"preset": "jiangsu", "clock_lead_s": 10}}, "unknown keys ['clock_lead_s']"),
    ({"ruleset": {"preset": "jiangsu", "nosuch": 1}}, "unknown keys"),
    ({"format": {"kind": "past_a", "deals": 3}}, "does not take ['deals']"),
    ({"format": {"kind": "deals", "deals": 3, "minutes": 9}}, "does not take ['minutes']"),
])
def test_a_round_is_not_set_up_with_what_it_would_log_and_ignore(change: dict, why: str) -> None:
    """Names reach the score sheet, the feed and the overlay as they are; a ruleset or format key
    beyond the known ones was logged and then ignored (no 10 s lead clock was ever set)."""
    t = Table(fmt={"kind": "deals", "deals": 1})
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "W", "N", "S"])
    data = {"players": t.state["round"]["players"], "engine": ENGINE_GENERATION, **change}
    assert why in t.reject("round_set_up", data, role="referee")
    # A log written before the stamp may hold such a round: it replays as it was played.
    unstamped = {k: v for k, v in data.items() if k != "engine"}
    assert fold([*t.events, t.event("round_set_up", unstamped, role="referee") | {"seq": t.state["last_seq"] + 1}])
    ok = {"players": {"E": "张伟", "S": "Li Na", "W": "O'Brien", "N": "赵敏"}, "teams": {"EW": "南京一队", "NS": "NS"},
          "ruleset": {"preset": "jiangsu", "options": {"clock_lead_s": 40}}, "format": {"kind": "deals", "deals": 2}}
    t.do("round_set_up", {**ok, "engine": ENGINE_GENERATION}, role="referee")
    assert t.state["round"]["players"]["E"] == "张伟"
