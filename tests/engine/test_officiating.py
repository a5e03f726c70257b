"""Officiating fidelity: rulings written from the rules text (shared/rules-jiangsu.md, now
docs/rules.md), article by article; each test names the sentence it enforces."""

from __future__ import annotations

import pytest
from engine_helpers import ONE_EACH, Table

from table_service.rules.ruleset import get_ruleset


def _tribute_deal(ruleset: object = "jiangsu") -> Table:
    """Deal 2 with S (下游) owing tribute to E (上游), played at EW's level 4."""
    t = Table(ruleset=ruleset)
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "W", "S"])
    t.next_deal()
    return t


def _length(t: Table, seat: str) -> int:
    timer = t.deal["timers"][seat]
    return timer["deadline_ms"] - timer["started_ms"]


# ---------------------------------------------------------------- clocks (时间)
# "首圈领出者应在还牌后40秒内领出牌，下家应在上家出牌后20秒内出牌": 40 s for the first lead of a
# deal only; every later play, a new trick's lead included, 20 s.


def test_first_lead_has_40s_and_a_later_lead_20s() -> None:
    t = Table()
    t.first_deal("E", {"E": 5, "S": 5, "W": 5, "N": 5})
    assert t.deal["timers"]["E"]["phase"] == "lead" and _length(t, "E") == 40_000
    t.play("E", "3s")
    assert _length(t, "N") == 20_000
    for s in "NWS":
        t.pass_(s)
    assert t.deal["turn"] == "E" and t.deal["timers"]["E"]["phase"] == "lead"
    assert _length(t, "E") == 20_000  # leading the second trick: 20 s, not 40


def test_lead_after_return_has_40s_and_after_a_trick_20s() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "BJ"})
    t.do("return_given", {"seat": "E", "card": "Tc"})
    assert t.deal["turn"] == "S" and _length(t, "S") == 40_000
    t.play("S", "3s")
    for s in "ENW":
        t.pass_(s)
    assert t.deal["turn"] == "S" and _length(t, "S") == 20_000


def test_late_second_lead_is_flagged_at_21s() -> None:
    t = Table()
    t.first_deal("E", {"E": 5, "S": 5, "W": 5, "N": 5})
    t.play("E", "3s")
    for s in "NWS":
        t.pass_(s)
    t.play("E", "4s", dt=21_000)  # no tick in between: its own time shows it
    (flag,) = t.flags("time_over")
    assert flag["seat"] == "E" and flag["evidence"]["phase"] == "lead" and flag["evidence"]["overtime_ms"] == 1_000


def test_lead_clock_is_a_ruleset_option() -> None:
    t = Table(ruleset={"preset": "jiangsu", "options": {"clock_lead_s": 30}})
    t.first_deal("E", {"E": 5, "S": 5, "W": 5, "N": 5})
    t.play("E", "3s")
    for s in "NWS":
        t.pass_(s)
    assert _length(t, "E") == 30_000


# ---------------------------------------------------------------- late actions flag themselves


def test_late_tribute_is_flagged_by_its_own_time() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "BJ"}, dt=21_000)  # 20 s to pay, no tick came
    (flag,) = t.flags("time_over")
    assert flag["seat"] == "S" and flag["evidence"]["phase"] == "tribute"
    assert flag["evidence"]["overtime_ms"] == 1_000


def test_tribute_in_time_is_not_flagged() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "BJ"}, dt=20_000)
    assert t.flags("time_over") == []


def test_late_return_already_noticed_by_a_tick_is_flagged_once() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "BJ"})
    t.do("clock_ticked", {}, source="clock", dt=41_000)
    t.do("return_given", {"seat": "E", "card": "Td"}, dt=2_000)
    assert [(f["seat"], f["evidence"]["phase"]) for f in t.flags("time_over")] == [("E", "return")]
    assert t.replay_matches()


# ---------------------------------------------------------------- tribute (进贡)
# "the previous 下游 gives 上游 the highest card in hand, excluding the heart level card".
# Highest = highest power (big joker > small joker > level card > A > … > 2); cards of equal
# power are equally highest; the heart level card is never a legal tribute.


def test_heart_level_card_as_tribute_is_flagged_at_once() -> None:
    t = _tribute_deal()  # level 4: the heart 4 is the wild card
    t.do("tribute_given", {"seat": "S", "card": "4h"})
    (flag,) = t.flags("tribute_wild_card")
    assert flag["seat"] == "S" and flag["evidence"] == {"tribute": "4h", "level": "4"}
    assert t.deal["tributes"][0]["check"] == "wrong"


def test_another_level_card_as_tribute_is_not_flagged() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "4s"})
    assert t.rules_raised() == set() and t.deal["tributes"][0]["check"] == "open"


def test_a_later_card_of_equal_power_proves_nothing_a_higher_one_does() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "4s"})  # a level card
    t.do("return_given", {"seat": "E", "card": "Tc"})
    t.play("S", "4d")  # another level card: equal power, S may have held both
    for s in "ENW":
        t.pass_(s)
    t.play("S", "4h")  # the wild card is excluded from the choice: proves nothing
    for s in "ENW":
        t.pass_(s)
    assert t.flags("tribute_not_highest") == []
    t.play("S", "SJ")  # a small joker is higher than any level card
    (flag,) = t.flags("tribute_not_highest")
    assert flag["evidence"]["card"] == "SJ" and t.deal["tributes"][0]["check"] == "wrong"


def test_an_ace_tribute_and_a_later_ace_of_another_suit_prove_nothing() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "As"})
    t.do("return_given", {"seat": "E", "card": "Tc"})
    t.play("S", "Ad")
    assert t.flags("tribute_not_highest") == []


def test_the_returned_card_is_excepted_only_once() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "9s"})
    t.do("return_given", {"seat": "E", "card": "Tc"})
    t.play("S", "Tc")  # the returned card: S did not hold it when paying
    for s in "ENW":
        t.pass_(s)
    assert t.flags("tribute_not_highest") == []
    t.play("S", "Tc")  # the other copy was S's own: higher than the 9 it paid
    (flag,) = t.flags("tribute_not_highest")
    assert flag["evidence"]["card"] == "Tc"


#: S's 26 cards after paying an ace at level 4 (no joker, no level card but the wild heart 4),
#: plus the returned Tc: three 8-card bombs and Tc, Ad, 4h.
_S_PLAYS = ["3s 3s 3h 3h 3d 3d 3c 3c", "5s 5s 5h 5h 5d 5d 5c 5c", "6s 6s 6h 6h 6d 6d 6c 6c", "Tc", "Ad", "4h"]


def _play_out_south(t: Table, plays: list[str]) -> None:
    for cards in plays:
        assert t.deal["turn"] == "S"
        t.play("S", cards)
        if t.deal["counts"]["S"]:
            for s in "ENW":
                t.pass_(s)


def test_tribute_check_is_settled_when_the_tributor_plays_out() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "As"})
    t.do("return_given", {"seat": "E", "card": "Tc"})
    _play_out_south(t, _S_PLAYS[:-1])
    assert t.deal["tributes"][0]["check"] == "open"  # the last card is still unseen
    _play_out_south(t, _S_PLAYS[-1:])
    assert t.deal["counts"]["S"] == 0 and "S" in t.deal["finish_order"]
    assert t.deal["tributes"][0]["check"] == "highest"
    assert t.flags("tribute_not_highest") == []
    assert t.replay_matches()


def test_tribute_check_stays_open_when_the_hand_did_not_add_up() -> None:
    t = Table()
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "W", "S"])
    t.next_deal({"E": 27, "S": 7, "W": 27, "N": 27})  # a wrong count: not every card will be seen
    t.do("tribute_given", {"seat": "S", "card": "As"})
    t.do("return_given", {"seat": "E", "card": "Tc"})
    _play_out_south(t, ["3s 3s 3h 3h 3d 3d 3c"])
    assert t.deal["counts"]["S"] == 0 and t.deal["tributes"][0]["check"] == "open"


# ---------------------------------------------------------------- anti-tribute (抗贡)
# "if the side that owes tribute holds both big jokers … no tribute is paid": the declared
# jokers are seen cards, in the declarers' hands; two decks hold two big jokers.


def _double_down_anti(seats: list[str]) -> Table:
    t = Table()
    t.first_deal("E", ONE_EACH)
    t.play("E", "3s")
    t.pass_("N")
    t.play("W", "4s")  # E 1st, W 2nd: N and S owe tribute
    t.next_deal()
    t.do("anti_tribute_declared", {"seats": seats, "cards": ["BJ", "BJ"]})
    assert t.deal["turn"] == "E"
    return t


def test_big_joker_from_the_other_side_after_anti_tribute_is_flagged() -> None:
    t = _double_down_anti(["N", "S"])
    assert t.deal["declared"] == {"N": ["BJ"], "S": ["BJ"]}
    t.play("E", "BJ", source="panel")  # entered at the panel: a play, and a contradiction
    (flag,) = t.flags("declared_card_contradiction")
    assert flag["seat"] == "E" and flag["evidence"]["card"] == "BJ"
    assert sorted(flag["evidence"]["declared_by"]) == ["N", "S"]


def test_declarers_playing_their_own_big_jokers_is_fine() -> None:
    t = _double_down_anti(["N", "S"])
    t.play("E", "3s")
    t.play("N", "BJ")
    for s in "WSE":
        t.pass_(s)
    t.play("N", "4d")
    t.pass_("W")
    t.play("S", "BJ")
    assert t.rules_raised() == set() and t.deal["declared"] == {"N": [], "S": []}


def test_one_declarer_holds_both_so_its_partner_playing_one_is_flagged() -> None:
    t = _double_down_anti(["N"])
    assert t.deal["declared"] == {"N": ["BJ", "BJ"]}
    t.play("E", "3s")
    t.play("N", "BJ")  # one of its own
    t.pass_("W")
    t.play("S", "BJ", source="panel")  # N declared both: S cannot hold one
    assert [f["seat"] for f in t.flags("declared_card_contradiction")] == ["S"]


def test_camera_read_of_a_declared_joker_elsewhere_is_a_question() -> None:
    t = _double_down_anti(["N", "S"])
    t.play("E", "BJ")  # the camera: a third copy counting the declared two
    assert t.deal["trick"]["plays"] == [] and t.flags("declared_card_contradiction") == []
    (q,) = t.deal["questions"]
    assert q["reason"] == "third_copy" and q["beyond"] == ["BJ"]
    t.do("play_corrected", {"ref": q["seq"], "cards": ["SJ"]}, role="referee")
    assert t.deal["questions"] == [] and t.deal["trick"]["plays"][0]["cards"] == ["SJ"]
    assert t.rules_raised() == set()


# ---------------------------------------------------------------- two decks: each card twice


def test_camera_read_of_a_third_copy_is_a_question_never_a_play() -> None:
    t = Table()
    t.first_deal("E")
    t.play("E", "7s 7s")
    t.play("N", "7s", data={"confidence": [0.97]})  # both 7s are on the table already
    assert len(t.deal["trick"]["plays"]) == 1 and t.deal["seen"] == {"7s": 2}
    (q,) = t.deal["questions"]
    assert q["seat"] == "N" and q["reason"] == "third_copy" and q["beyond"] == ["7s"]
    assert t.flags("card_seen_third_time") == []
    t.do("play_confirmed", {"ref": q["seq"]}, role="referee")  # the referee: it really is a 7s
    assert t.deal["questions"] == [] and t.deal["seen"] == {"7s": 3}
    assert [f["seat"] for f in t.flags("card_seen_third_time")] == ["N"]
    assert t.replay_matches()


def test_camera_read_of_three_copies_in_one_play_is_a_question() -> None:
    t = Table()
    t.first_deal("E")
    t.play("E", "3s 3s 3s")
    (q,) = t.deal["questions"]
    assert q["beyond"] == ["3s"] and t.deal["trick"]["plays"] == []
    msg = t.reject("play_confirmed", {"ref": q["seq"]}, role="referee")
    assert "impossible" in msg and "3s" in msg


def test_three_copies_in_one_play_at_the_panel_is_refused() -> None:
    t = Table()
    t.first_deal("E")
    msg = t.reject("cards_played", {"seat": "E", "cards": ["3s", "3s", "3s"]})
    # Each half names the card (the Chinese half had said only "牌不可能").
    assert msg.startswith("牌不可能：黑桃3 在一手中超过两张（两副牌每张只有两张） / impossible cards: 3s")


def test_second_copy_is_an_ordinary_play() -> None:
    t = Table()
    t.first_deal("E")
    t.play("E", "7s")
    t.play("N", "7s")  # does not beat, but it is a possible card: a play, not a question
    assert t.deal["questions"] == [] and t.rules_raised() == {"does_not_beat"}


# ---------------------------------------------------------------- report card (报牌), Huai'an
# Huai'an 2017: "forgetting the report card: … a warning, the second time a violation and one
# turn lost" — Ruleset.report_missing_penalty, applied when the referee upholds the flag.


def _two_missed_reports(ruleset: object) -> Table:
    t = Table(ruleset=ruleset)
    t.first_deal("E", {"E": 12, "S": 27, "W": 12, "N": 27})
    t.play("E", "3s 3d")  # E leaves 10
    t.pass_("N")  # flagged: E missed the report card
    t.play("W", "4s 4d")  # W leaves 10
    t.pass_("S")  # flagged: W missed it too (same side: the second time)
    assert [f["seat"] for f in t.flags("report_missing")] == ["E", "W"]
    return t


def test_huaian_missed_report_warning_then_violation_and_a_turn_lost() -> None:
    t = _two_missed_reports("huaian")
    first, second = t.flags("report_missing")
    t.do("flag_confirmed", {"flag": first["id"]}, role="referee")
    assert [(p["level"], p["seat"], p["flag"], p["lose_turn"]) for p in t.state["penalties"]["records"]] == [
        ("warning", "E", first["id"], False)
    ]
    t.do("flag_confirmed", {"flag": second["id"]}, role="referee")
    levels = [(p["level"], p["seat"], p["lose_turn"]) for p in t.state["penalties"]["records"]]
    assert levels == [("warning", "E", False), ("violation", "W", True)]
    assert t.state["penalties"]["EW"] == {"warnings": 1, "violations": 1, "fouls": 0}
    assert t.deal["skip_turn"] == ["W"]
    t.pass_("E")
    t.pass_("N")  # W won the trick but loses its turn: the other side leads
    assert t.deal["turn"] == "S"
    assert t.replay_matches()


def test_jiangsu_missed_report_is_a_warning_each_time() -> None:
    t = _two_missed_reports("jiangsu")
    for f in t.flags("report_missing"):
        t.do("flag_confirmed", {"flag": f["id"]}, role="referee")
    records = t.state["penalties"]["records"]
    assert [(p["given"], p["level"], p["lose_turn"]) for p in records] == [("warning", "warning", False), ("warning", "violation", False)]


def test_missed_report_penalty_left_to_the_referee_and_a_dismissed_flag_earns_nothing() -> None:
    t = _two_missed_reports({"preset": "huaian", "options": {"report_missing_penalty": "referee"}})
    first, second = t.flags("report_missing")
    t.do("flag_confirmed", {"flag": first["id"]}, role="referee")
    assert t.state["penalties"]["records"] == []
    t2 = _two_missed_reports("huaian")
    a, b = t2.flags("report_missing")
    t2.do("flag_dismissed", {"flag": a["id"]}, role="referee")
    t2.do("flag_confirmed", {"flag": b["id"]}, role="referee")
    assert [p["level"] for p in t2.state["penalties"]["records"]] == ["warning"]  # the first upheld one


def test_unknown_report_missing_penalty_is_refused() -> None:
    with pytest.raises(ValueError, match="report_missing_penalty='foul'"):
        get_ruleset("huaian-2017", report_missing_penalty="foul")


# ---------------------------------------------------------------- open interpretations as options


def _double_down(ruleset: object = "jiangsu", generation: int | None = None) -> Table:
    t = Table(ruleset=ruleset) if generation is None else Table(ruleset=ruleset, generation=generation)
    t.first_deal("E", ONE_EACH)
    t.play("E", "3s")
    t.pass_("N")
    t.play("W", "4s")  # E 1st, W 2nd: N and S owe tribute
    t.next_deal()
    return t


@pytest.mark.parametrize(("equal", "to"), [("payer_clockwise", {"N": "E", "S": "W"}), ("first_clockwise", {"S": "E", "N": "W"})])
def test_equal_tributes_go_clockwise_as_the_option_reads_it(equal: str, to: dict[str, str]) -> None:
    # Play runs E → N → W → S (counter-clockwise); clockwise is E → S → W → N.
    t = _double_down({"preset": "jiangsu", "options": {"equal_tributes": equal}})
    t.do("tribute_given", {"seat": "N", "card": "Kd"})
    t.do("tribute_given", {"seat": "S", "card": "Ks"})
    assert {x["from"]: x["to"] for x in t.deal["tributes"]} == to


def test_anti_tribute_due_but_tribute_paid_is_flagged_when_both_big_jokers_show() -> None:
    t = _double_down()
    t.do("tribute_given", {"seat": "N", "card": "BJ"})  # N gave one big joker…
    t.do("tribute_given", {"seat": "S", "card": "SJ"})
    assert {x["from"]: x["to"] for x in t.deal["tributes"]} == {"N": "E", "S": "W"}
    t.do("return_given", {"seat": "E", "card": "3c"})
    t.do("return_given", {"seat": "W", "card": "4c"})
    assert t.deal["turn"] == "N"
    t.play("N", "5s")
    t.pass_("W")
    t.play("S", "BJ")  # …and S held the other: the side held both, anti-tribute was due
    (flag,) = t.flags("anti_tribute_missed")
    assert flag["seat"] == "S" and sorted(flag["evidence"]["payers"]) == ["N", "S"]


def test_anti_tribute_waivable_or_one_big_joker_raises_nothing() -> None:
    t = _double_down({"preset": "jiangsu", "options": {"anti_tribute_waivable": True}})
    t.do("tribute_given", {"seat": "N", "card": "BJ"})
    t.do("tribute_given", {"seat": "S", "card": "SJ"})
    t.do("return_given", {"seat": "E", "card": "3c"})
    t.do("return_given", {"seat": "W", "card": "4c"})
    t.play("N", "5s")
    t.pass_("W")
    t.play("S", "BJ")
    assert t.flags("anti_tribute_missed") == []
    t2 = _double_down()
    t2.do("tribute_given", {"seat": "N", "card": "Kd"})
    t2.do("tribute_given", {"seat": "S", "card": "SJ"})
    t2.do("return_given", {"seat": "E", "card": "3c"})
    t2.do("return_given", {"seat": "W", "card": "4c"})
    t2.play("S", "BJ")  # one big joker only: nothing due
    assert t2.flags("anti_tribute_missed") == []


def test_both_big_jokers_given_as_tribute_are_flagged_at_the_second_tribute() -> None:
    """After a double-down N and S each give a big joker: the paying side held both ("one each in
    a double-down"), so anti-tribute was due. Both are seen as they are given, and neither payer can
    play one later, so the flag comes with the second tribute (engine generation 3), once."""
    t = _double_down()
    t.do("tribute_given", {"seat": "N", "card": "BJ"})
    assert t.flags("anti_tribute_missed") == []  # one big joker proves nothing
    t.do("tribute_given", {"seat": "S", "card": "BJ"})
    (flag,) = t.flags("anti_tribute_missed")
    first, second = (x["seq"] for x in t.deal["tributes"])
    assert flag["seat"] == "S" and flag["seq"] == second
    assert sorted(flag["evidence"]["payers"]) == ["N", "S"] and flag["evidence"]["tribute_seqs"] == [first, second]
    t.do("return_given", {"seat": "E", "card": "3c"})
    t.do("return_given", {"seat": "W", "card": "4c"})
    t.play(t.deal["turn"], "5s")
    assert len(t.flags("anti_tribute_missed")) == 1  # once per deal
    assert t.replay_matches()


@pytest.mark.parametrize(("ruleset", "generation"), [
    ({"preset": "jiangsu", "options": {"anti_tribute_waivable": True}}, None),  # the side may waive it
    ({"preset": "jiangsu", "options": {"anti_tribute": False}}, None),  # no anti-tribute at all
    ("jiangsu", 2),  # a round of generation 2 folds as it was played: no flag at a tribute
])
def test_both_big_jokers_as_tribute_raise_nothing_where_anti_tribute_may_be_waived_or_is_none(ruleset, generation) -> None:
    t = _double_down(ruleset, generation)
    t.do("tribute_given", {"seat": "N", "card": "BJ"})
    t.do("tribute_given", {"seat": "S", "card": "BJ"})
    assert t.flags("anti_tribute_missed") == [] and t.replay_matches()


def test_smallest_return_counts_a_level_card_by_power_or_by_face() -> None:
    from table_service.rules.cards import card
    from table_service.rules.tribute import return_candidates

    hand = [card("J", "s"), card("Q", "d"), card("A", "c")]  # nothing ≤ 10; level J
    assert return_candidates(hand, "J", get_ruleset()) == [card("Q", "d")]  # Js ranks above A
    assert return_candidates(hand, "J", get_ruleset(return_smallest_by="face")) == [card("J", "s")]


def test_unstated_wild_card_reading_strongest_or_asked() -> None:
    t = Table(levels={"EW": "2", "NS": "2"})
    t.first_deal("E")
    t.play("E", "5c 6c 7c 8c 2h")  # the wild card on the right: a 9; a straight flush or a straight
    assert (t.deal["trick"]["plays"][0]["kind"], t.deal["trick"]["plays"][0]["rank"]) == ("straight_flush", "9")
    t2 = Table(ruleset={"preset": "jiangsu", "options": {"unstated_reading": "ask"}})
    t2.first_deal("E")
    t2.play("E", "5c 6c 7c 8c 2h")
    (q,) = t2.deal["questions"]
    assert q["reason"] == "reading" and q["readings"] == ["straight 9", "straight_flush 9"]
    assert t2.deal["trick"]["plays"] == []
    t2.do("reading_declared", {"ref": q["seq"], "kind": "straight", "rank": "9"}, role="referee")
    assert t2.deal["questions"] == [] and t2.deal["trick"]["plays"][0]["rank"] == "9"
    assert t2.deal["trick"]["plays"][0]["kind"] == "straight"


@pytest.mark.parametrize(("generation", "read_as", "beaten"), [(None, ("straight", "8"), True),
                                                              (2, ("straight", "9"), False)])
def test_a_wild_card_laid_where_a_4_sits_reads_4_to_8_and_does_not_beat_a_straight_8(generation, read_as, beaten):
    """"The wild card placed in the row shows the rank it stands for": N's 2h 5c 6s 7d 8d (level 2)
    has the wild where a 4 sits, so it reads 4–8 as it would when leading, which does not beat E's
    4–8 (flag does_not_beat; the trick stays E's). The row decides even when its reading does not
    beat (engine generation 3); a round of generation 2 took 5–9, a reading the row rules out."""
    t = Table() if generation is None else Table(generation=generation)
    t.first_deal("E")
    t.play("E", "4s 5d 6c 7h 8s")
    t.play("N", "2h 5c 6s 7d 8d")
    trick = t.deal["trick"]
    assert (trick["plays"][1]["kind"], trick["plays"][1]["rank"]) == read_as
    assert bool(t.flags("does_not_beat")) is beaten
    assert trick["plays"][trick["top"]]["seat"] == ("E" if beaten else "N")
    assert t.deal["turn"] == ("N" if beaten else "W") and t.replay_matches()


def test_the_row_s_reading_is_not_asked_about_and_a_row_in_no_order_still_reads_what_beats() -> None:
    """Under ``unstated_reading: ask`` the row's one reading (4–8) leaves nothing to ask: no question,
    the play does not beat. Cards laid in no order say nothing of the wild card: every reading that
    beats is still open (5–9 here)."""
    t = Table(ruleset={"preset": "jiangsu", "options": {"unstated_reading": "ask"}})
    t.first_deal("E")
    t.play("E", "4s 5d 6c 7h 8s")
    t.play("N", "2h 5c 6s 7d 8d")
    assert t.deal["questions"] == [] and t.flags("does_not_beat")
    t2 = Table()
    t2.first_deal("E")
    t2.play("E", "4s 5d 6c 7h 8s")
    t2.play("N", "5c 2h 8d 6s 7d")
    play = t2.deal["trick"]["plays"][1]
    assert (play["kind"], play["rank"]) == ("straight", "9") and t2.flags() == []


# ---------------------------------------------------------------- an action's own time


def test_a_play_put_down_in_time_but_read_late_withdraws_the_ticks_time_over() -> None:
    # The camera stamps a play put down by the deadline, read after it, at the deadline: the
    # play's own time shows it was in time, so what the ticks concluded without it is withdrawn.
    t = Table()
    t.first_deal("E")
    t.play("E", "3s")
    deadline = t.deal["timers"]["N"]["deadline_ms"]
    t.do("clock_ticked", {}, source="clock", t=deadline + 2_000)
    t.do("clock_ticked", {}, source="clock", t=deadline + 11_000)  # the automatic warning
    (flag,) = t.flags("time_over")
    t.do("flag_confirmed", {"flag": flag["id"]}, role="referee", t=deadline + 12_000)
    assert [p["flag"] for p in t.state["penalties"]["records"]] == [flag["id"]]
    assert t.state["penalties"]["NS"] == {"warnings": 1, "violations": 0, "fouls": 0}
    t.play("N", "4s", t=deadline)  # stamped at the deadline by the camera witness
    (flag,) = t.flags("time_over")
    assert flag["status"] == "withdrawn" and flag["withdrawn_why"] == "in_time"
    assert t.state["penalties"]["records"][0]["withdrawn"] is True
    assert t.state["penalties"]["NS"] == {"warnings": 0, "violations": 0, "fouls": 0}
    assert t.deal["trick"]["plays"][-1]["overtime_ms"] == 0
    assert t.replay_matches()


def test_a_play_stamped_after_the_deadline_keeps_the_ticks_time_over() -> None:
    t = Table()
    t.first_deal("E")
    t.play("E", "3s")
    deadline = t.deal["timers"]["N"]["deadline_ms"]
    t.do("clock_ticked", {}, source="clock", t=deadline + 2_000)
    t.play("N", "4s", t=deadline + 1_500)  # put down late: the flag stands
    (flag,) = t.flags("time_over")
    assert flag["status"] == "open" and t.deal["trick"]["plays"][-1]["overtime_ms"] == 1_500


def test_a_reading_question_confirmed_as_is_takes_the_strongest() -> None:
    t = Table(ruleset={"preset": "jiangsu", "options": {"unstated_reading": "ask"}})
    t.first_deal("E")
    t.play("E", "5c 6c 7c 8c 2h")
    (q,) = t.deal["questions"]
    t.do("play_confirmed", {"ref": q["seq"]}, role="referee")
    play = t.deal["trick"]["plays"][0]
    assert t.deal["questions"] == [] and (play["kind"], play["rank"]) == ("straight_flush", "9")


@pytest.mark.parametrize("option", ["equal_tributes", "return_smallest_by", "unstated_reading"])
def test_a_word_option_outside_its_choices_is_refused(option: str) -> None:
    with pytest.raises(ValueError, match=f"bad option {option}='sideways'"):
        get_ruleset(**{option: "sideways"})


def test_a_device_cannot_confirm_its_own_third_copy() -> None:
    t = Table()
    t.first_deal("E")
    t.play("E", "7s 7s")
    t.play("N", "7s", data={"confirmed": True})  # only the referee's play_confirmed confirms
    (q,) = t.deal["questions"]
    assert q["reason"] == "third_copy" and t.flags("card_seen_third_time") == []
