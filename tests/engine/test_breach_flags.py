"""Flags for breaches the engine can only partly see: the report card once per deal, a return
above 10 under "the smallest card if none ≤ 10", and the camera's sightings of an exposed card
(暴露张) and of a hand or object over a play zone. Each: a case that raises it and near misses."""

from __future__ import annotations

from typing import Any

from engine_helpers import ONE_EACH, Table

from table_service.engine.flags import ARTICLES

# ------------------------------------------------------------------------- report card once per deal


def test_report_missing_is_one_breach_per_seat_per_deal() -> None:
    t = Table()
    t.first_deal("E", {"E": 12, "S": 27, "W": 27, "N": 11})
    t.play("E", "3s 3d")  # E leaves 10: report due
    t.pass_("N")  # the next seat acts first: flagged
    (first,) = t.flags("report_missing")
    assert first["seat"] == "E" and t.deal["report_missed"] == ["E"]
    t.pass_("W")
    t.pass_("S")
    t.play("E", "4s")  # E leaves 9, still no report card
    assert t.deal["report_due"] == {}  # no second report due for E
    t.play("N", "5s")  # N leaves 10: its own report is due
    assert [f["seat"] for f in t.flags("report_missing")] == ["E"]  # N's play raised nothing for E
    t.play("W", "6s")  # W acts before N reported: a different seat is still flagged
    assert [f["seat"] for f in t.flags("report_missing")] == ["E", "N"]
    assert t.deal["report_missed"] == ["E", "N"]
    t.play("S", "7s")
    t.play("E", "8s")  # E leaves 8
    t.play("N", "9s")  # N leaves 9
    t.play("W", "Ts")
    assert len(t.flags("report_missing")) == 2
    assert t.replay_matches()


def test_report_missing_near_miss_a_late_report_after_the_flag_raises_nothing_more() -> None:
    t = Table()
    t.first_deal("E", {"E": 12, "S": 27, "W": 27, "N": 27})
    t.play("E", "3s 3d")
    t.pass_("N")
    t.report("E")  # late, on the record
    assert t.deal["reports"]["E"]["late"] is True
    t.pass_("W")
    t.pass_("S")
    t.play("E", "4s")
    t.pass_("N")
    assert len(t.flags("report_missing")) == 1 and not t.flags("report_twice")


def test_report_missed_is_rebuilt_when_the_flagging_event_is_voided() -> None:
    t = Table()
    t.first_deal("E", {"E": 12, "S": 27, "W": 27, "N": 27})
    t.play("E", "3s 3d")
    t.pass_("N")
    wrong = t.events[-1]["seq"]
    t.do("event_voided", {"ref": wrong, "reason": "N pressed by mistake"}, role="referee")
    assert t.deal["report_missed"] == [] and t.deal["report_due"] == {"E": wrong - 1}
    assert [f["status"] for f in t.flags("report_missing")] == ["withdrawn"]
    t.report("E")  # now in time
    assert t.deal["reports"]["E"]["late"] is False
    assert t.replay_matches()


# ------------------------------------------------------------------------- return above 10


def _tribute_deal(**kw: Any) -> Table:
    t = Table(**kw)
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "W", "S"])  # S pays E; deal 2 at level 4 (the heart 4 is wild)
    t.next_deal()
    return t


def _return_flag(t: Table) -> dict[str, Any]:
    (flag,) = t.flags("return_above_ten")
    return flag


def test_return_above_ten_says_when_it_would_be_legal_and_a_later_small_card_proves_it_wrong() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "BJ"})
    t.do("return_given", {"seat": "E", "card": "Jd"})
    ev = _return_flag(t)["evidence"]
    assert ev["legal_if"].startswith("持有的牌都大于10") and "held nothing ≤ 10" in ev["legal_if"]
    assert "proof_card" not in ev
    t.play("S", "3s")  # S (下游) leads
    t.play("E", "Kd")  # higher than the returned J: proves nothing
    assert "proof_card" not in _return_flag(t)["evidence"]
    for s in "NWS":
        t.pass_(s)
    fx = t.play("E", "9c")  # E held a 9 when it returned the J
    seq = t.events[-1]["seq"]
    flag = _return_flag(t)
    assert flag["status"] == "open"
    assert flag["evidence"]["proof_card"] == "9c" and flag["evidence"]["proof_seq"] == seq
    assert "9c" in flag["evidence"]["proof"] and "held a card ≤ 10" in flag["evidence"]["proof"]
    assert {"kind": "flag_updated", "flag": flag} in fx
    for s in "NWS":
        t.pass_(s)
    t.play("E", "5c")  # the first proof stands
    assert _return_flag(t)["evidence"]["proof_card"] == "9c"
    assert t.replay_matches()


def test_return_proved_wrong_by_a_smaller_card_and_by_the_tribute_received() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "BJ"})
    t.do("return_given", {"seat": "E", "card": "Kd"})
    t.play("S", "3s")
    t.play("E", "Qs")  # a Q is smaller than the K returned: the K was not the smallest
    ev = _return_flag(t)["evidence"]
    assert ev["proof_card"] == "Qs" and "smaller" in ev["proof"]

    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "9s"})  # E receives a 9…
    t.do("return_given", {"seat": "E", "card": "Jd"})  # …and returns a J
    ev = _return_flag(t)["evidence"]
    assert ev["proof_card"] == "9s" and ev["proof_seq"] == t.events[-2]["seq"] and "tribute" in ev["proof"]


def test_return_near_misses_wild_card_level_card_other_seat_and_closed_flag() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "BJ"})
    t.do("return_given", {"seat": "E", "card": "Jd"})
    t.play("S", "3s")
    t.play("E", "4h")  # the wild card proves nothing
    t.play("N", "5s")  # N is not the returner
    t.play("W", "SJ")
    assert "proof_card" not in _return_flag(t)["evidence"]
    t.pass_("S")
    t.pass_("E")
    t.pass_("N")
    t.play("W", "3d")
    t.pass_("S")
    fid = _return_flag(t)["id"]
    t.do("flag_dismissed", {"flag": fid, "note": "E showed a hand of court cards"}, role="referee")
    t.play("E", "4s")  # a level card counted by face would prove it, but the ruling stands
    flag = _return_flag(t)
    assert flag["status"] == "dismissed" and "proof_card" not in flag["evidence"]


def test_return_level_card_proves_only_when_counted_by_face() -> None:
    for by_face, proved in ((True, True), (False, False)):
        t = _tribute_deal(ruleset={"preset": "jiangsu", "options": {"return_level_card_by_face": by_face}})
        t.do("tribute_given", {"seat": "S", "card": "BJ"})
        t.do("return_given", {"seat": "E", "card": "Kd"})
        t.play("S", "3s")
        t.play("E", "4s")  # level 4: by face a 4, otherwise above A
        assert ("proof_card" in _return_flag(t)["evidence"]) is proved


def test_return_above_ten_without_the_smallest_card_option_is_wrong_outright() -> None:
    t = _tribute_deal(ruleset={"preset": "jiangsu", "options": {"return_smallest_if_none": False}})
    t.do("tribute_given", {"seat": "S", "card": "9s"})
    t.do("return_given", {"seat": "E", "card": "Jd"})
    t.play("S", "3s")
    t.play("E", "5s")
    assert _return_flag(t)["evidence"] == {"card": "Jd", "to": "S"}


def test_return_proof_is_withdrawn_with_a_corrected_read() -> None:
    t = _tribute_deal()
    t.do("tribute_given", {"seat": "S", "card": "BJ"})
    t.do("return_given", {"seat": "E", "card": "Jd"})
    t.play("S", "3s")
    t.play("E", "9d")
    misread = t.events[-1]["seq"]
    assert _return_flag(t)["evidence"]["proof_card"] == "9d"
    t.do("play_corrected", {"ref": misread, "cards": ["Qd"]}, role="referee")
    flag = _return_flag(t)
    assert flag["status"] == "open" and "proof_card" not in flag["evidence"]
    assert t.replay_matches()


# ------------------------------------------------------------------------- exposed card (暴露张)


def test_card_exposed_raises_a_flag_and_leaves_the_play_alone() -> None:
    t = Table()
    t.first_deal("E")
    before = {k: t.deal[k] for k in ("counts", "seen", "by_seat", "turn", "trick")}
    fx = t.do("card_exposed", {"card": "Ah", "seat": "N", "position_mm": [120, 340.5]}, source="camera")
    (flag,) = t.flags("exposed_card")
    assert flag["article"] == "暴露张 / exposed card" == ARTICLES["exposed_card"]
    assert flag["seat"] == "N" and flag["status"] == "open"
    assert flag["evidence"] == {"source": "camera", "card": "Ah", "position_mm": [120, 340.5]}
    assert {"kind": "buzz", "ms": 300} in fx and {"kind": "lamp", "seat": None, "lamp": "referee", "mode": "blink"} in fx
    assert {k: t.deal[k] for k in before} == before
    t.play("E", "Kh")
    t.play("N", "Ah")  # both copies of Ah can still be played: the sighting is not a play
    t.pass_("W")
    t.pass_("S")
    t.pass_("E")
    t.play("N", "Ah")
    assert t.deal["seen"]["Ah"] == 2
    assert t.rules_raised() == {"exposed_card"}
    assert t.replay_matches()


def test_card_exposed_repeat_sightings_and_near_misses() -> None:
    t = Table()
    t.first_deal("E")
    sight = {"card": "7c", "seat": "W"}
    t.do("card_exposed", sight, source="camera")
    t.do("card_exposed", dict(sight, position_mm=[10, 10]), source="camera")  # the same card lying there
    assert len(t.flags("exposed_card")) == 1
    t.do("card_exposed", {"card": "7c", "seat": "S"}, source="camera")  # another seat
    t.do("card_exposed", {"card": "8c", "seat": "W"}, source="camera")  # another card
    assert len(t.flags("exposed_card")) == 3
    t.do("flag_confirmed", {"flag": t.flags("exposed_card")[0]["id"]}, role="referee")
    t.do("card_exposed", sight, source="camera")  # exposed again after the ruling
    assert len(t.flags("exposed_card")) == 4
    t.do("card_exposed", {}, source="panel")  # the referee saw one: no card, no seat
    flag = t.flags("exposed_card")[-1]
    assert flag["seat"] is None and flag["evidence"] == {"source": "panel"}


def test_card_exposed_bad_input_and_void() -> None:
    t = Table()
    assert "no deal in progress" in t.reject("card_exposed", {"card": "Ah"}, source="camera")
    t.first_deal("E")
    assert "source must be camera or panel" in t.reject("card_exposed", {"card": "Ah"}, source="screen")
    assert "position_mm" in t.reject("card_exposed", {"position_mm": [1]}, source="camera")
    assert "position_mm" in t.reject("card_exposed", {"position_mm": [1, True]}, source="camera")
    assert "unknown seat" in t.reject("card_exposed", {"seat": "X"}, source="camera")
    assert "card_exposed" in t.reject("card_exposed", {"card": "1z"}, source="camera")
    t.do("card_exposed", {"card": "Ah", "seat": "N"}, source="camera")
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "a reflection"}, role="referee")
    assert [f["status"] for f in t.flags("exposed_card")] == ["withdrawn"]
    assert t.replay_matches()


# ------------------------------------------------------------------------- play zone obstructed


def test_zone_obstructed_once_per_seat_per_trick() -> None:
    t = Table()
    t.first_deal("E")
    fx = t.do("zone_obstructed", {"seat": "N", "seconds": 6.5}, source="camera")
    (flag,) = t.flags("zone_obstructed")
    assert flag["article"] == "手或物体长时间遮挡出牌区 / hand or object over the play zone"
    assert flag["seat"] == "N" and flag["evidence"] == {"seconds": 6.5, "trick": 1}
    assert any(f["kind"] == "flag_raised" for f in fx)
    t.play("E", "3s")
    t.do("zone_obstructed", {"seat": "N", "seconds": 12}, source="camera")  # same seat, same trick
    assert len(t.flags("zone_obstructed")) == 1
    t.do("zone_obstructed", {"seat": "W", "seconds": 5}, source="camera")  # another seat
    assert [f["seat"] for f in t.flags("zone_obstructed")] == ["N", "W"]
    for s in "NWS":
        t.pass_(s)  # the trick closes; E leads the second
    t.do("zone_obstructed", {"seat": "N", "seconds": 5}, source="camera")
    assert [(f["seat"], f["evidence"]["trick"]) for f in t.flags("zone_obstructed")] == [("N", 1), ("W", 1), ("N", 2)]
    assert t.deal["obstructed"] == {"N": 1, "W": 0}
    assert t.deal["turn"] == "E" and len(t.deal["tricks"]) == 1  # the play is untouched
    assert t.replay_matches()


def test_zone_obstructed_bad_input() -> None:
    t = _tribute_deal()
    assert "not play" in t.reject("zone_obstructed", {"seat": "N", "seconds": 5}, source="camera")  # tribute phase
    t.do("tribute_given", {"seat": "S", "card": "BJ"})
    t.do("return_given", {"seat": "E", "card": "9d"})
    assert "source must be camera" in t.reject("zone_obstructed", {"seat": "N", "seconds": 5}, source="panel")
    for bad in (0, -2, True, "5", float("nan")):
        assert "seconds" in t.reject("zone_obstructed", {"seat": "N", "seconds": bad}, source="camera")
    assert "missing field 'seat'" in t.reject("zone_obstructed", {"seconds": 5}, source="camera")
    t.do("zone_obstructed", {"seat": "N", "seconds": 5}, source="camera")
    assert t.rules_raised() == {"zone_obstructed"}
