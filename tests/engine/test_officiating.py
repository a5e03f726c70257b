"""Officiating fidelity: rulings written from the rules text (shared/rules-jiangsu.md, now
docs/rules.md), article by article; each test names the sentence it enforces."""

from __future__ import annotations

from engine_helpers import ONE_EACH, Table


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
