"""Tribute, return, anti-tribute, first drawer, levels and the A rule, scoring, presets —
hand-worked cases from rules-jiangsu.md."""

from __future__ import annotations

import pytest

from table_service.rules.cards import card, parse_cards
from table_service.rules.levels import advance, apply_deal, deal_is_over, deal_outcome
from table_service.rules.ruleset import get_ruleset
from table_service.rules.scoring import (
    FORFEIT_SCORE,
    level_difference_points,
    match_points,
    penalty_loss_positions,
)
from table_service.rules.seats import next_seat, partner
from table_service.rules.tribute import (
    first_drawer,
    is_anti_tribute,
    is_legal_return,
    is_legal_tribute,
    leader_after_tribute,
    pair_tributes,
    return_candidates,
    return_over_limit,
    tribute_candidates,
    tribute_duty,
    tribute_proved_wrong,
)

JS = get_ruleset()


# --- seats --------------------------------------------------------------------------------


def test_counter_clockwise_order_and_partners():
    assert [next_seat(s) for s in "ENWS"] == ["N", "W", "S", "E"]
    assert partner("E") == "W" and partner("N") == "S"


# --- tribute ----------------------------------------------------------------------------------


def test_tribute_is_highest_card_excluding_heart_level_card():
    hand = parse_cards("2h 2h As Kd 5c")  # level 2: 2h is wild, excluded
    assert [str(c) for c in tribute_candidates(hand, "2")] == ["As"]
    hand = parse_cards("2h 2s As Kd 5c")  # the plain level card 2s is above A
    assert [str(c) for c in tribute_candidates(hand, "2")] == ["2s"]
    assert is_legal_tribute(parse_cards("BJ SJ As"), card("BJ"), "2")
    assert not is_legal_tribute(parse_cards("BJ SJ As"), card("SJ"), "2")


def test_tribute_and_return_with_a_level_written_as_cards_are():
    """At level 10 written ``10`` (as ``classify`` takes it): the heart 10 is still the wild card and
    a 10 still a level card, above A. Compared as written, ``"T" != "10"`` made the heart 10 a
    candidate tribute, a 10 rank below an A, and a level 10 (not by face) a legal return."""
    hand = parse_cards("Th Ts As 9s")
    assert tribute_candidates(hand, "10") == tribute_candidates(hand, "T") == [card("T", "s")]
    assert not is_legal_tribute(hand, card("T", "h"), "10")
    assert tribute_proved_wrong(card("A", "s"), card("T", "d"), "10")
    assert pair_tributes({"N": card("A", "s"), "S": card("T", "d")}, "E", "10") == {"S": "E", "N": "W"}
    strict = JS.replace(return_level_card_by_face=False)
    assert return_over_limit(card("T", "d"), "10", strict)
    assert card("T", "d") not in return_candidates(parse_cards("Td 3c"), "10", strict)

def test_tribute_proved_wrong_by_a_later_higher_card():
    assert tribute_proved_wrong(card("As"), card("SJ"), "2")
    assert not tribute_proved_wrong(card("As"), card("2h"), "2")  # the wild card proves nothing
    assert not tribute_proved_wrong(card("As"), card("Ad"), "2")


def test_return_at_most_ten():
    hand = parse_cards("Ts Js 3d BJ")
    assert {str(c) for c in return_candidates(hand, "2", JS)} == {"Ts", "3d"}
    assert not is_legal_return(hand, card("Js"), "2", JS)
    assert return_over_limit(card("Js"), "2", JS) and not return_over_limit(card("Ts"), "2", JS)


def test_level_card_return_option():
    hand = parse_cards("5s Ks")
    assert is_legal_return(hand, card("5s"), "5", JS)  # default: rank by face value
    strict = JS.replace(return_level_card_by_face=False)
    assert not is_legal_return(hand, card("5s"), "5", strict)


def test_nothing_at_most_ten_returns_smallest():
    hand = parse_cards("Js Qd BJ")
    assert [str(c) for c in return_candidates(hand, "2", get_ruleset("national-2022"))] == ["Js"]


def test_the_option_of_any_card_to_an_opponent():
    """Not the Huai'an preset's (its text lists no such difference), an option an event may set."""
    assert not is_legal_return(parse_cards("As 3s"), card("As"), "2", get_ruleset("huaian-2017"))
    hz = get_ruleset("huaian-2017", return_any_to_opponent=True)
    assert is_legal_return(parse_cards("As 3s"), card("As"), "2", hz)
    assert not is_legal_return(parse_cards("As 3s"), card("As"), "2", hz, to_partner=True)


def test_anti_tribute():
    assert is_anti_tribute([parse_cards("BJ BJ 3s")])
    assert is_anti_tribute([parse_cards("BJ 3s"), parse_cards("BJ 4s")])  # one each, double-down
    assert not is_anti_tribute([parse_cards("BJ SJ SJ")])


def test_single_tribute_duty_and_leader():
    duty = tribute_duty(["E", "N", "W"])  # S is 下游
    assert duty.payers == ("S",) and not duty.double_down
    assert leader_after_tribute(duty, {"S": "E"}, JS) == "S"  # 下游 leads
    assert leader_after_tribute(duty, None, JS, anti=True) == "E"  # anti-tribute: 上游 leads


def test_double_down_pairing_and_leader():
    duty = tribute_duty(["E", "W"])
    assert duty.double_down and set(duty.payers) == {"N", "S"}
    pairing = pair_tributes({"N": card("BJ"), "S": card("As")}, "E", "2")
    assert pairing == {"N": "E", "S": "W"}  # 上游 takes the higher
    assert leader_after_tribute(duty, pairing, JS) == "N"  # the one who paid 上游 leads
    assert leader_after_tribute(duty, pairing, get_ruleset("huaian-2017")) == "N"  # 上游's 下家 = N here
    pairing = pair_tributes({"N": card("As"), "S": card("BJ")}, "E", "2")
    assert leader_after_tribute(duty, pairing, JS) == "S"
    assert leader_after_tribute(duty, pairing, get_ruleset("huaian-2017")) == "N"


def test_equal_tributes_go_clockwise():
    pairing = pair_tributes({"N": card("As"), "S": card("Ad")}, "E", "2")
    assert pairing == {"N": "E", "S": "W"}  # each pays the receiver on their clockwise side
    assert set(pairing.values()) == {"E", "W"}


def test_first_drawer_from_the_cut():
    assert first_drawer(card("As")) == "S"  # A counts one: South itself
    assert first_drawer(card("2s")) == "E"
    assert first_drawer(card("3d")) == "N"
    assert first_drawer(card("4c")) == "W"
    assert first_drawer(card("5c")) == "S"
    for bad in ("SJ", "BJ", "2h"):
        with pytest.raises(ValueError, match="re-cut"):
            first_drawer(card(bad))


# --- levels --------------------------------------------------------------------------------------


@pytest.mark.parametrize(("order", "steps"), [(["E", "W"], 3), (["E", "N", "W"], 2), (["E", "N", "S"], 1)])
def test_plus_three_two_one(order, steps):
    out = deal_outcome(order)
    assert out.winner_side == "EW" and out.steps == steps
    up = apply_deal({"EW": "2", "NS": "2"}, "2", out, JS)
    assert up.levels["EW"] == "2345"[steps] and up.levels["NS"] == "2" and up.next_level == up.levels["EW"]


def test_deal_ends():
    assert deal_is_over(["E", "W"]) and not deal_is_over(["E", "N"]) and deal_is_over(["E", "N", "S"])


def test_never_past_a():
    up = apply_deal({"EW": "Q", "NS": "2"}, "Q", deal_outcome(["E", "W"]), JS)
    assert up.levels["EW"] == "A" and up.game_winner is None


def test_a_rule_wins_only_with_partner_second_or_third_at_a():
    lv = {"EW": "A", "NS": "5"}
    assert apply_deal(lv, "A", deal_outcome(["E", "N", "W"]), JS).game_winner == "EW"
    assert apply_deal(lv, "A", deal_outcome(["E", "W"]), JS).game_winner == "EW"
    last = apply_deal(lv, "A", deal_outcome(["E", "N", "S"]), JS)  # partner 下游
    assert last.game_winner is None and last.levels["EW"] == "A" and last.a_failures["EW"] == 1
    not_at_a = apply_deal(lv, "5", deal_outcome(["E", "W"]), JS)  # deal not played at A
    assert not_at_a.game_winner is None


def test_three_failures_at_a_back_to_two_option():
    rs = JS.replace(tries_at_a=3)
    lv, fails = {"EW": "A", "NS": "5"}, {"EW": 0, "NS": 0}
    for i in range(3):
        up = apply_deal(lv, "A", deal_outcome(["E", "N", "S"]), rs, fails)
        lv, fails = up.levels, up.a_failures
        if i < 2:
            assert lv["EW"] == "A"
    assert lv["EW"] == "2" and fails["EW"] == 0
    unlimited = {"EW": "A", "NS": "5"}
    for _ in range(5):
        unlimited = apply_deal(unlimited, "A", deal_outcome(["E", "N", "S"]), JS).levels
    assert unlimited["EW"] == "A"


def test_the_a_rule_with_levels_written_in_lower_case():
    """``apply_deal`` takes levels as cards are written (``a`` for A), and the A rule must read them
    as A: a side at ``a`` passes A at 1-2 in a deal played at ``a``, and fails there otherwise
    (it compared the raw ``"a"`` with ``"A"``, so the game was never won and no failure counted)."""
    won = apply_deal({"EW": "a", "NS": "5"}, "a", deal_outcome(["E", "W"]), JS)
    assert won.game_winner == "EW"
    failed = apply_deal({"EW": "a", "NS": "5"}, "a", deal_outcome(["N", "S"]), JS.replace(tries_at_a=1))
    assert failed.levels == {"EW": "2", "NS": "8"} and failed.a_failures["EW"] == 0
    assert "EW 打A失败 1 次" in " ".join(failed.notes)


# --- scoring ----------------------------------------------------------------------------------


def test_level_difference_points():
    assert level_difference_points(10, 4) == (19, 7)
    assert level_difference_points(15, 2) == (26, 0)
    assert level_difference_points(5, 5) == (13, 13)
    assert FORFEIT_SCORE == (17, 0)


def test_penalty_loss_scores_offender_plus_four():
    assert penalty_loss_positions(6, 5) == (9, 5)
    assert penalty_loss_positions(9, 14) == (15, 11)  # offender taken down to J
    assert penalty_loss_positions(12, 3) == (12, 3)  # a larger gap on the table stands


def test_match_points_presets():
    assert [match_points(r, JS) for r in ("win", "draw", "loss")] == [2, 1, 0]
    four = JS.replace(match_points_win=3, match_points_draw=2, match_points_loss=1, match_points_forfeit=0)
    assert [match_points(r, four) for r in ("win", "draw", "loss", "forfeit")] == [3, 2, 1, 0]
    with pytest.raises(ValueError, match="unknown result"):
        match_points("lost", JS)


# --- presets ------------------------------------------------------------------------------------


def test_presets_and_overrides():
    assert get_ruleset().name == "jiangsu-2013"
    hz = get_ruleset("huaian-2017")
    assert (hz.clock_follow_s, hz.clock_tribute_s, hz.clock_return_s) == (20, 15, 30)
    assert hz.double_down_leader == "first_next"
    assert get_ruleset("national-2022", tries_at_a=3).tries_at_a == 3
    with pytest.raises(ValueError, match="did you mean 'tries_at_a'"):
        get_ruleset("jiangsu-2013", tries_at_A=3)
    with pytest.raises(ValueError, match="unknown ruleset preset"):
        get_ruleset("beijing")
    with pytest.raises(ValueError, match='"name" is not an option'):  # was a TypeError's own words
        get_ruleset("jiangsu-2013", name="bogus")
    rs = get_ruleset("huaian-2017", tries_at_a=3)
    assert type(rs).from_dict(rs.to_dict()) == rs


@pytest.mark.parametrize(("call", "needle"), [
    (lambda: advance("5", -10), "0 or more whole steps"),
    (lambda: advance("X", 1), "no such level"),
    (lambda: apply_deal({"EW": "2"}, "2", deal_outcome(["E", "W", "N", "S"]), JS), "missing NS"),
    (lambda: apply_deal({"EW": "Z", "NS": "2"}, "2", deal_outcome(["E", "W", "N", "S"]), JS), "no such level"),
    (lambda: pair_tributes({}, "E", "2"), "one or two seats"),
    (lambda: first_drawer(3), "must be a card"),
    (lambda: penalty_loss_positions(20, -3), "level position"),
])
def test_bad_input_to_the_rules_is_refused_in_words(call, needle: str) -> None:
    with pytest.raises(ValueError, match=needle):
        call()


def test_a_level_and_a_cut_may_be_written_as_cards_are() -> None:
    assert advance("a", 0) == "A" and advance("10", 1) == "J"
    assert first_drawer("As") == first_drawer(card("A", "s"))
