"""The demo's scorecard matches each injected mistake with its flag one by one (rule, seat,
deal): "yes" only when every mistake raised its flag and nothing else did, and a "no" says why."""

from __future__ import annotations

from table_service.demo.bots import TruthLog
from table_service.demo.scorecard import compare_with_log, format_summary


def _flag(fid: str, rule: str, seat: str, deal: int = 1, status: str = "confirmed", **evidence: object) -> dict:
    return {"id": fid, "rule": rule, "seat": seat, "deal": deal, "status": status, "evidence": dict(evidence)}


def _truth(*mistakes: tuple[str, str, int]) -> TruthLog:
    t = TruthLog()
    for kind, seat, deal in mistakes:
        t.record("mistake", mistake=kind, seat=seat, deal=deal)
    return t


def test_every_mistake_with_its_flag_and_nothing_else_is_yes() -> None:
    truth = _truth(("slow", "N", 1), ("out_of_turn", "W", 2))
    flags = [_flag("F3", "time_over", "N", 1, phase="follow", overtime_ms=3000), _flag("F9", "out_of_turn", "W", 2),
             _flag("F10", "penalty_escalation", "W", 2), _flag("F11", "time_over", "S", 2, status="withdrawn")]
    s = compare_with_log(truth, [], flags)
    assert s["flag_match"] is True and s["unmatched"] == {"missed": [], "unexpected": []}


def test_the_lost_turn_a_second_missed_report_asks_about_is_no_stray_flag() -> None:
    # Two missed report cards of one side: the ladder makes the second warning a violation and the engine
    # asks the next player whether to take the lost turn (lose_turn_choice, a CI run's "no"); a flag no
    # mistake explains (report_twice) is still one.
    truth = _truth(("missed_report", "N", 1), ("missed_report", "S", 2))
    flags = [_flag("F4", "report_missing", "N", 1, count=10), _flag("F8", "report_missing", "S", 2, count=9),
             _flag("F9", "lose_turn_choice", "S", 2, side="NS", penalty_seq=258)]
    s = compare_with_log(truth, [], flags)
    assert s["flag_match"] is True and s["unmatched"] == {"missed": [], "unexpected": []}
    s = compare_with_log(truth, [], [*flags, _flag("F12", "report_twice", "S", 2, count=8)])
    assert s["flag_match"] is False and s["unmatched"]["unexpected"] == ["F12 report_twice S deal 2"]


def test_totals_that_agree_by_chance_are_no() -> None:
    # one slow turn by N, but the only time-over flag is S's: the totals agree, the rulings do not
    truth = _truth(("slow", "N", 1))
    flags = [_flag("F5", "time_over", "S", 1, phase="lead", overtime_ms=88_000)]
    flags[0]["seq"] = 5
    flags[0]["evidence"]["deadline_ms"] = 100_000
    events = [{"seq": 6, "t_ms": 190_000, "type": "passed", "source": "gpio", "data": {"seat": "S"}}]
    s = compare_with_log(truth, events, flags)
    assert s["expected_flags"] == {"time_over": 1} and s["flags"] == {"time_over": 1}
    assert s["flag_match"] is False
    assert s["unmatched"] == {
        "missed": ["slow N deal 1: no time_over flag"],
        "unexpected": ["F5 time_over S deal 1 (lead, 88.0 s over; its passed (gpio) came 90.0 s after the deadline)"],
    }
    text = format_summary({**s, "deals": 1})
    assert "否 / no" in text and "F5 time_over S deal 1" in text
    # ... and why a time-over no slow turn explains can still happen although the clock waits
    assert "the clock did not wait for" in text and "came 90.0 s after the deadline" in text


def test_the_summary_says_how_long_the_clock_waited_for_the_machine() -> None:
    s = compare_with_log(_truth(), [], [])
    text = format_summary({**s, "deals": 2, "clock_held_s": 25.2, "clock_holds": 233, "speed": 50.0})
    assert "是 / yes" in text
    assert "the clock waited for this machine: 25.2 s real over 233 actions (×50" in text


def test_a_missed_mistake_says_how_its_action_reached_the_engine() -> None:
    truth = TruthLog()
    truth.record("mistake", mistake="non_beating", seat="S", deal=1, cards=["4c"])
    truth.record("play", seat="S", deal=1, cards=["4c"])["seq"] = 7
    events = [{"seq": 7, "t_ms": 1, "type": "cards_played", "source": "camera",
               "data": {"seat": "S", "cards": ["4c"], "uncertain": True}},
              {"seq": 8, "t_ms": 2, "type": "play_corrected", "source": "panel", "data": {"ref": 7, "cards": ["4c"]}}]
    s = compare_with_log(truth, events, [])
    assert s["flag_match"] is False
    assert s["unmatched"]["missed"] == [
        "non_beating S deal 1: no does_not_beat flag (its cards_played #7 (camera, asked; play_corrected))"]


def test_the_summary_says_how_many_camera_plays_were_asked_in_each_deal() -> None:
    """The reader learns the deck while it plays: the organiser sees the share asked, deal by deal."""
    truth = TruthLog()
    events = []
    for seq, (deal, asked) in enumerate([(1, True), (1, True), (1, False), (2, True), (2, False), (2, False)], 1):
        truth.record("play", seat="S", deal=deal, cards=["4c"])["seq"] = seq
        events.append({"seq": seq, "t_ms": seq, "type": "cards_played", "source": "camera",
                       "data": {"seat": "S", "cards": ["4c"], "uncertain": asked}})
    truth.record("play", seat="N", deal=2, cards=["5c"])["seq"] = 7  # entered by hand: not the camera's
    events.append({"seq": 7, "t_ms": 7, "type": "cards_played", "source": "panel", "data": {"seat": "N", "cards": ["5c"]}})
    events[2]["data"]["cards"] = ["4s"]  # deal 1's third play, taken without a question, is wrong
    s = compare_with_log(truth, events, [])
    assert s["by_deal"] == [{"deal": 1, "plays": 3, "asked": 2}, {"deal": 2, "plays": 3, "asked": 1}]
    assert s["wrong_certain"] == 1 and s["wrong_certain_plays"] == ["#3 S deal 1: 4c read as 4s"]
    text = format_summary({**s, "deals": 2})
    assert "asked per deal: 1: 67% (2/3), 2: 33% (1/3)" in text and "#3 S deal 1: 4c read as 4s" in text


def test_a_tribute_card_read_wrong_without_doubt_is_counted() -> None:
    """A tribute or return card the camera read wrong and sure raises a wrong flag later: the
    scorecard counts it beside the plays' silent errors, and the referee's entries apart."""
    truth = TruthLog()
    truth.record("tribute", seat="S", deal=2, cards=["Kh"])["seq"] = 11
    truth.record("return", seat="E", deal=2, cards=["3c"])["seq"] = 12
    truth.record("tribute", seat="W", deal=3, cards=["Ah"])["seq"] = 20
    events = [{"seq": 11, "t_ms": 1, "type": "tribute_given", "source": "camera", "data": {"seat": "S", "card": "8h"}},
              {"seq": 12, "t_ms": 2, "type": "return_given", "source": "camera", "data": {"seat": "E", "card": "3c"}},
              {"seq": 20, "t_ms": 3, "type": "tribute_given", "source": "panel", "data": {"seat": "W", "card": "Ah"}}]
    s = compare_with_log(truth, events, [])
    assert s["transfers"] == {"read": 2, "wrong_certain": 1, "entered": 1,
                              "wrong": ["#11 tribute S deal 2: Kh read as 8h"]}
    text = format_summary({**s, "deals": 3})
    assert "tribute and return cards: 摄像头读 / read by the camera 2" in text and "Kh read as 8h" in text


def test_the_summary_says_mistakes_and_flags_in_words_not_as_a_dict() -> None:
    """The s38 audit: the closing report printed ``{'out_of_turn': 1}`` twice, "per card" in the Chinese
    line's English only, and called the engine's flags "标记违规"."""
    truth = _truth(("slow", "N", 1))
    flags = [_flag("F5", "time_over", "N", 1, phase="lead", overtime_ms=1_000)]
    s = compare_with_log(truth, [], flags)
    text = format_summary({**s, "deals": 1, "card_accuracy": 0.5})
    assert "  注入失误：超时 1 / mistakes injected: slow 1" in text
    assert "  引擎标记：超时 1 / flags raised: time_over 1" in text
    assert "识别准确率（按张）50.00% / recognition accuracy: per card 50.00%" in text
    assert "{" not in text and "标记违规" not in text
    assert "  注入失误：无 / mistakes injected: none" in format_summary({**compare_with_log(_truth(), [], []), "deals": 1})
