"""The referee's time is nobody's, in the tribute phase as in play; lost turns are taken wherever they
are ruled; a round lost by penalty is scored on the levels gained (engine generation 5); the deal's first
lead has its 40 s by every path (generation 7).

Each case was worked by hand from the rules (docs/rules.md §3, §7, §8, §9) and each failed on
generation 4, which the last tests of each group keep folding as it was played.
"""

from __future__ import annotations

from engine_helpers import ONE_EACH, Table

from table_service.engine.apply import fold
from table_service.engine.state import state_to_json


def _deal_two(generation: int | None = None, ruleset: str = "jiangsu") -> Table:
    """Deal 1 played out with E first and S last: deal 2 opens with S owing E a tribute."""
    t = Table(ruleset=ruleset) if generation is None else Table(ruleset=ruleset, generation=generation)
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "W", "S"])
    t.next_deal()
    assert t.deal["phase"] == "tribute" and t.deal["tribute_plan"]["payers"] == ["S"]
    return t


def _penalties(t: Table) -> list[tuple[str, str, bool, bool]]:
    return [(r["side"], r["level"], bool(r["auto"]), bool(r.get("withdrawn"))) for r in t.state["penalties"]["records"]]


def _call_and_answer(t: Table, seat: str, wait_ms: int) -> None:
    t.do("referee_called", {"seat": seat}, source="screen", dt=5_000)
    call = t.flags("referee_call", "open")[0]["id"]
    t.do("flag_dismissed", {"flag": call}, role="referee", dt=wait_ms)


# ------------------------------------------------------------------ the tribute phase stands still


def test_a_tribute_after_a_long_call_is_in_time() -> None:
    t = _deal_two()
    _call_and_answer(t, "S", 60_000)
    assert t.deal["timers"]["S"]["deadline_ms"] - t.state["t_ms"] == 20_000  # a whole countdown
    t.do("tribute_given", {"seat": "S", "card": "Kd"}, dt=3_000)
    assert t.flags("time_over") == [] and _penalties(t) == []


def test_a_return_after_a_long_call_is_in_time() -> None:
    t = _deal_two()
    t.do("tribute_given", {"seat": "S", "card": "Kd"})
    _call_and_answer(t, "E", 60_000)
    t.do("return_given", {"seat": "E", "card": "3c"}, dt=3_000)
    assert t.flags("time_over") == [] and _penalties(t) == []


def test_the_screen_back_gives_the_tribute_a_whole_countdown() -> None:
    t = _deal_two()
    t.do("device_status_changed", {"device": "screen", "status": "offline"}, source="system", dt=2_000)
    t.do("device_status_changed", {"device": "screen", "status": "online"}, source="system", dt=60_000)
    t.do("tribute_given", {"seat": "S", "card": "Kd"}, dt=3_000)
    assert t.flags("time_over") == [] and _penalties(t) == []


def test_generation_4_tribute_ran_on_through_the_call() -> None:
    t = _deal_two(generation=4)
    _call_and_answer(t, "S", 60_000)
    t.do("tribute_given", {"seat": "S", "card": "Kd"}, dt=3_000)
    assert [f["seat"] for f in t.flags("time_over")] == ["S"]


# ------------------------------------------------------------------ an action sent back is made again in time


def test_a_wrong_tribute_sent_back_is_given_again_against_a_whole_countdown() -> None:
    """docs/rules.md §3: a wrong tribute not yet played is returned and given again, with a warning.
    The referee's warning is the only penalty; the re-given card is not late for the drawing's clock,
    and stays in time when a later correction re-folds the deal."""
    t = _deal_two()
    t.do("tribute_given", {"seat": "S", "card": "Kd"}, dt=5_000)
    wrong = t.events[-1]["seq"]
    t.do("event_voided", {"ref": wrong, "reason": "S holds an ace"}, role="referee", dt=30_000)
    assert t.deal["timers"]["S"]["deadline_ms"] - t.state["t_ms"] == 20_000
    t.do("penalty_given", {"side": "NS", "level": "warning", "seat": "S", "article": "wrong tribute"}, role="referee")
    t.do("tribute_given", {"seat": "S", "card": "Ad"}, dt=4_000)
    t.do("return_given", {"seat": "E", "card": "3c"}, dt=2_000)
    lead = t.deal["turn"]
    t.play(lead, "5s", dt=2_000)
    # A later void re-folds the deal from its start: the tribute stays in time.
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "misread"}, role="referee", dt=2_000)
    assert t.flags("time_over") == []
    assert _penalties(t) == [("NS", "warning", False, False)]
    assert state_to_json(fold(t.events)) == state_to_json(t.state)


def test_a_play_sent_back_without_a_call_is_made_again_in_time() -> None:
    t = Table()
    t.first_deal("E")
    t.play("E", "3s")
    t.play("N", "4s", dt=5_000)
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "played out of a fan"}, role="referee", dt=40_000)
    assert t.deal["turn"] == "N"
    t.do("clock_ticked", {}, source="clock", dt=15_000)  # 55 s after N's countdown began, 15 s after the ruling
    assert t.flags("time_over") == []
    t.play("N", "5s", dt=1_000)
    assert t.flags("time_over") == [] and _penalties(t) == []


def test_generation_4_a_tribute_sent_back_was_late_for_the_drawings_clock() -> None:
    t = _deal_two(generation=4)
    t.do("tribute_given", {"seat": "S", "card": "Kd"}, dt=5_000)
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "S holds an ace"}, role="referee", dt=30_000)
    t.do("tribute_given", {"seat": "S", "card": "Ad"}, dt=2_000)
    assert [f["seat"] for f in t.flags("time_over")] == ["S"]


# ------------------------------------------------------------------ a time flag not upheld


def test_a_dismissed_time_flag_takes_its_automatic_warning_with_it() -> None:
    t = Table()
    t.first_deal("E")
    t.play("E", "3s")
    t.play("N", "4s", t=t.deal["timers"]["N"]["deadline_ms"] + 12_000)
    flag = t.flags("time_over")[0]["id"]
    assert _penalties(t) == [("NS", "warning", True, False)]
    t.do("flag_dismissed", {"flag": flag}, role="referee")
    assert _penalties(t) == [("NS", "warning", True, True)]
    assert t.state["penalties"]["NS"]["warnings"] == 0
    assert t.replay_matches()


def test_generation_4_a_dismissed_time_flag_kept_its_warning() -> None:
    t = Table(generation=4)
    t.first_deal("E")
    t.play("E", "3s")
    t.play("N", "4s", t=t.deal["timers"]["N"]["deadline_ms"] + 12_000)
    t.do("flag_dismissed", {"flag": t.flags("time_over")[0]["id"]}, role="referee")
    assert t.state["penalties"]["NS"]["warnings"] == 1


# ------------------------------------------------------------------ lost turns


def test_a_violation_made_automatic_in_the_tribute_phase_asks_the_next_player() -> None:
    """NS holds a warning; S is 10 s over the tribute clock: the ladder makes the automatic warning a
    violation, nobody chose the lost turn, so the 下家 is asked; confirmed, S's lead goes to E."""
    t = _deal_two()
    t.do("penalty_given", {"side": "NS", "level": "warning", "seat": "N", "article": "talking"}, role="referee")
    t.do("clock_ticked", {}, source="clock", t=t.deal["timers"]["S"]["deadline_ms"] + 10_000)
    choice = t.flags("lose_turn_choice", "open")
    assert [f["seat"] for f in choice] == ["S"]
    t.do("flag_confirmed", {"flag": choice[0]["id"]}, role="referee")
    t.do("tribute_given", {"seat": "S", "card": "Kd"})
    t.do("return_given", {"seat": "E", "card": "3c"})
    # S, whose partner-less tribute went to E, would lead after the return (leader_after_tribute); it lost that turn.
    assert t.deal["phase"] == "play" and t.deal["turn"] != "S"
    assert t.deal["trick"]["plays"][0] == {**t.deal["trick"]["plays"][0], "seat": "S", "skipped": True}


def test_a_lost_turn_ruled_between_deals_is_taken_in_the_next() -> None:
    t = Table()
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "W", "S"])
    t.do("penalty_given", {"side": "EW", "level": "violation", "seat": "W", "lose_turn": True, "article": "x"},
         role="referee")
    t.next_deal()
    assert t.deal["skip_turn"] == ["W"]
    assert "skip_turn" not in t.deal["tribute_plan"]
    t.do("tribute_given", {"seat": "S", "card": "Kd"})
    t.do("return_given", {"seat": "E", "card": "3c"})
    t.play(t.deal["turn"], "5s")  # S leads after its tribute; E and N pass; W's turn is the lost one
    t.pass_("E")
    t.pass_("N")
    plays = [p for trick in [*t.deal["tricks"], t.deal["trick"]] for p in trick["plays"]]
    assert [p.get("skipped") for p in plays if p["seat"] == "W"] == [True]
    assert t.deal["skip_turn"] == [] and t.deal["turn"] == "S"  # the trick is S's, who leads again
    assert t.replay_matches()


def test_a_lost_turn_before_the_first_deal_is_refused() -> None:
    t = Table()
    why = t.reject("penalty_given", {"side": "EW", "level": "violation", "seat": "W", "lose_turn": True,
                                     "article": "x"}, role="referee")
    assert "no deal has started" in why


# ------------------------------------------------------------------ a round lost by penalty


def test_a_round_lost_by_penalty_is_scored_on_the_levels_gained() -> None:
    """Set up at EW 5, NS 2; EW gains 3 (to 8), then NS loses by penalty. Levels gained 3 : 0, a gap
    under 4, so the offender's level + 4: 17 : 9 (the gap it started with, 6, is not a gap won)."""
    t = Table(levels={"EW": "5", "NS": "2"}, fmt={"kind": "deals", "deals": 4})
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "W", "N", "S"])
    t.do("penalty_given", {"side": "NS", "level": "loss", "article": "x"}, role="chief")
    assert t.state["result"]["level_points"] == {"EW": 17, "NS": 9}


def test_generation_4_scored_a_penalty_loss_on_the_levels_reached() -> None:
    t = Table(levels={"EW": "5", "NS": "2"}, fmt={"kind": "deals", "deals": 4}, generation=4)
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "W", "N", "S"])
    t.do("penalty_given", {"side": "NS", "level": "loss", "article": "x"}, role="chief")
    assert t.state["result"]["level_points"] == {"EW": 19, "NS": 7}


# ------------------------------------------------------------------ two referees at once


def _late_play() -> tuple[Table, str]:
    t = Table()
    t.first_deal("E")
    t.play("E", "3s")
    t.do("clock_ticked", {}, source="clock", t=t.deal["timers"]["N"]["deadline_ms"] + 40)
    return t, t.flags("time_over")[0]["id"]


def test_the_time_flag_says_how_late_the_play_came() -> None:
    """The tick raises the flag 0.04 s past the deadline; the play 5 s late makes it say 5 s."""
    t, flag = _late_play()
    assert t.flags("time_over")[0]["evidence"]["overtime_ms"] == 40
    t.play("N", "4s", t=t.deal["timers"]["N"]["deadline_ms"] + 5_000)
    assert t.flags("time_over")[0]["evidence"]["overtime_ms"] == 5_000
    assert any(f["kind"] == "flag_updated" and f["flag"]["id"] == flag for f in t.fx)
    assert t.replay_matches()


def test_a_dismissed_flag_takes_no_penalty_and_a_ruled_one_is_not_dismissed() -> None:
    t, flag = _late_play()
    t.do("flag_dismissed", {"flag": flag}, role="referee")
    why = t.reject("penalty_given", {"side": "NS", "level": "warning", "seat": "N", "article": "x", "flag": flag},
                   role="referee")
    assert why.startswith(f"标记 {flag} 已驳回") and "dismissed" in why
    t2, flag2 = _late_play()
    t2.do("penalty_given", {"side": "NS", "level": "warning", "seat": "N", "article": "x", "flag": flag2},
          role="referee")
    why = t2.reject("flag_dismissed", {"flag": flag2}, role="referee")
    assert "void the penalty first" in why


def test_a_refused_correction_gives_its_reason_in_each_language_half() -> None:
    """The panel shows the half of the referee's language, split at the first " / "."""
    t = Table()
    t.first_deal("E")
    t.play("E", "2h 5s 6s 7s 8s")
    ref = t.events[-1]["seq"]
    why = t.reject("reading_declared", {"ref": ref, "kind": "straight", "rank": "T"}, role="referee")
    zh, en = why.split(" / ", 1)
    assert zh.startswith("reading_declared：纠正无法成立：") and " / " not in en and all(ord(c) < 0x3000 for c in en)


# ------------------------------------------------------------------ the diff review's cases (2026-12-06)


def test_a_countdown_restarted_by_a_void_holds_in_every_later_refold() -> None:
    """N's play stamped in the very millisecond of the ruling that sent N's play back: in time live, and
    still in time when an unrelated later void re-folds the deal (the restart sits at its place in the
    log, not at a time)."""
    t = Table()
    t.first_deal("E")
    t.play("E", "3s")
    t.play("N", "4s", dt=5_000)
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "played out of a fan"}, role="referee", dt=40_000)
    t.play("N", "5s", t=t.state["t_ms"])
    t.do("card_exposed", {"card": "Ah", "seat": "W"}, role="referee", dt=2_000)
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "no card"}, role="referee", dt=1_000)
    assert t.flags("time_over") == [] and _penalties(t) == []
    assert t.replay_matches()


def test_a_dismissed_time_flag_leaves_no_choice_of_a_lost_turn() -> None:
    t = Table()
    t.first_deal("E")
    t.do("penalty_given", {"side": "NS", "level": "warning", "seat": "S", "article": "talking"}, role="referee")
    t.play("E", "3s")
    t.do("clock_ticked", {}, source="clock", t=t.deal["timers"]["N"]["deadline_ms"] + 11_000)
    assert t.flags("lose_turn_choice", "open")
    t.do("flag_dismissed", {"flag": t.flags("time_over")[0]["id"]}, role="referee")
    assert t.flags("lose_turn_choice", "open") == []
    assert t.state["penalties"]["NS"] == {**t.state["penalties"]["NS"], "warnings": 1, "violations": 0}


def test_a_dismissed_time_flag_earns_nothing_more_on_the_next_tick() -> None:
    """Huai'an: warning after 10 s over, violation (turn lost) 10 s later. Dismissed at 3 s, the
    countdown that still runs gives no automatic penalty for the same lateness."""
    t = Table(ruleset="huaian-2017")
    t.first_deal("E")
    t.play("E", "3s")
    deadline = t.deal["timers"]["N"]["deadline_ms"]
    t.do("clock_ticked", {}, source="clock", t=deadline + 1_000)
    t.do("flag_dismissed", {"flag": t.flags("time_over")[0]["id"]}, role="referee", t=deadline + 3_000)
    t.do("clock_ticked", {}, source="clock", t=deadline + 31_000)
    assert [r for r in t.state["penalties"]["records"] if not r.get("withdrawn")] == []
    assert t.deal["turn"] == "N"


def test_a_false_anti_tribute_sent_back_gives_the_tribute_a_whole_countdown() -> None:
    t = _deal_two()
    t.do("anti_tribute_declared", {"seats": ["S"], "cards": ["BJ", "BJ"]}, role="referee", dt=3_000)
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "S holds one big joker"}, role="referee", dt=30_000)
    t.do("tribute_given", {"seat": "S", "card": "Kd"}, dt=5_000)
    assert t.flags("time_over") == [] and _penalties(t) == []


def test_a_penalty_loss_after_a_side_was_sent_back_from_a() -> None:
    """EW set up at A fails there and goes back to 2 (``tries_at_a`` 1): it has gained less than nothing,
    and a loss given it afterwards is scored from 2, not refused as an engine error."""
    t = Table(ruleset={"preset": "jiangsu", "options": {"tries_at_a": 1}}, levels={"EW": "A", "NS": "2"},
              fmt={"kind": "deals", "deals": 6})
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "W", "S"])
    t.next_deal(ONE_EACH)
    t.do("tribute_given", {"seat": t.deal["tribute_plan"]["payers"][0], "card": "Kd"})
    t.do("return_given", {"seat": next(s for s in "ESWN" if s in t.deal["timers"]), "card": "3c"})
    t.finish_in_order(["N", "E", "S", "W"])
    assert t.state["levels"]["EW"] == "2"
    t.do("penalty_given", {"side": "EW", "level": "loss", "article": "x"}, role="chief")
    assert t.state["result"]["level_points"] == {"NS": 17, "EW": 9}


# ------------------------------------------------------------------ the deal's first lead: 40 s by every path (generation 7)


def _first_lead_clock(t: Table) -> tuple[str, int]:
    seat = t.deal["turn"]
    timer = t.deal["timers"][seat]
    return seat, timer["deadline_ms"] - timer["started_ms"]


def test_the_first_lead_taken_over_after_a_lost_turn_in_play_has_40s() -> None:
    """E was to lead the deal and lost the turn before any card: N leads the deal's first trick, with the
    first lead's 40 s, as when the same violation is ruled in the tribute phase."""
    t = Table()
    t.first_deal("E")
    t.do("penalty_given", {"side": "EW", "level": "violation", "seat": "E", "lose_turn": True, "article": "talking"},
         role="referee")
    assert _first_lead_clock(t) == ("N", 40_000)


def test_a_wrong_first_lead_upheld_gives_the_leader_the_first_lead_s_40s_again() -> None:
    """The flagged play stays on the record in the trick, but nobody has led the deal yet: confirmed or
    voided, the leader's countdown is the first lead's."""
    upheld = Table()
    upheld.first_deal("E")
    upheld.play("E", "3s 4d")
    (flag,) = upheld.flags("not_a_pattern")
    upheld.do("flag_confirmed", {"flag": flag["id"]}, role="referee")
    voided = Table()
    voided.first_deal("E")
    voided.play("E", "3s 4d")
    voided.do("event_voided", {"ref": voided.events[-1]["seq"], "reason": "taken back"}, role="referee")
    assert _first_lead_clock(upheld) == _first_lead_clock(voided) == ("E", 40_000)
    assert upheld.replay_matches()


def test_a_later_trick_s_lead_after_a_lost_turn_keeps_20s() -> None:
    t = Table()
    t.first_deal("E")
    for seat, cards in (("E", "3s"), ("N", "4s")):
        t.play(seat, cards)
    t.pass_("W")
    t.pass_("S")
    t.pass_("E")
    assert t.deal["turn"] == "N" and len(t.deal["tricks"]) == 1
    t.do("penalty_given", {"side": "NS", "level": "violation", "seat": "N", "lose_turn": True, "article": "talking"},
         role="referee")
    assert _first_lead_clock(t) == ("W", 20_000)


def test_generation_6_gave_the_first_lead_after_a_lost_turn_or_an_upheld_wrong_lead_20s() -> None:
    t = Table(generation=6)
    t.first_deal("E")
    t.do("penalty_given", {"side": "EW", "level": "violation", "seat": "E", "lose_turn": True, "article": "talking"},
         role="referee")
    assert _first_lead_clock(t) == ("N", 20_000)
    t = Table(generation=6)
    t.first_deal("E")
    t.play("E", "3s 4d")
    t.do("flag_confirmed", {"flag": t.flags("not_a_pattern")[0]["id"]}, role="referee")
    assert _first_lead_clock(t) == ("E", 20_000)
