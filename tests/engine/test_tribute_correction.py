"""A wrong tribute found during play (the s36 audit): "Wrong tribute card: take it back and correct;
if the wrong card is already played: foul. A wrong card not yet played: return, re-give, warning."

Before the first card the tribute is voided and given again; once play has begun (engine generation
8) the void is refused — it re-folded the deal into the tribute phase and superseded every play —
and ``tribute_corrected`` exchanges the card with the return, the lead and every play standing."""

from __future__ import annotations

from engine_helpers import ONE_EACH, Table

from table_service.engine.apply import fold
from table_service.engine.state import state_to_json


def _single_tribute_due(generation: int | None = None, counts: dict[str, int] | None = None) -> Table:
    """Deal 2 drawn after E, N, W, S finished deal 1: S (下游) owes E (上游) one tribute."""
    t = Table() if generation is None else Table(generation=generation)
    t.first_deal("E", ONE_EACH)
    t.finish_in_order(["E", "N", "W", "S"])
    t.next_deal(counts) if counts is not None else t.next_deal()
    return t


def _double_tribute_due() -> Table:
    """Deal 2 drawn after E 1st and W 2nd: N and S each owe a tribute (a double-down)."""
    t = Table()
    t.first_deal("E", ONE_EACH)
    _acts(t, "E:3s N:pass W:4s")
    t.next_deal()
    return t


def _deal_two(generation: int | None = None) -> tuple[Table, int]:
    """Deal 2 (played at EW's level 4): S (下游) gives Kd to E (上游), E returns 3c, S leads."""
    t = _single_tribute_due(generation)
    t.do("tribute_given", {"seat": "S", "card": "Kd"})
    trib = t.events[-1]["seq"]
    t.do("return_given", {"seat": "E", "card": "3c"})
    assert t.deal["turn"] == "S"
    return t, trib


def _acts(t: Table, script: str) -> None:
    """Plays and passes in order: ``"S:5s E:6s W:pass"``."""
    for step in script.split():
        seat, cards = step.split(":")
        if cards == "pass":
            t.pass_(seat)
        else:
            t.play(seat, cards)


def _correct(t: Table, trib: int, card: str, **kw: object) -> None:
    t.do("tribute_corrected", {"ref": trib, "card": card, "reason": "错贡：南有A / S held an ace"}, role="referee", **kw)


def _warn_on(t: Table, flag_id: str) -> None:
    t.do("penalty_given", {"side": "NS", "level": "warning", "article": "错贡 / wrong tribute", "seat": "S",
                           "flag": flag_id}, role="referee")


def _the_table(t: Table) -> tuple:
    d = t.deal
    return (d["phase"], d["turn"], d["counts"], d["by_seat"], d["tricks"], d["trick"]["plays"], d["returns"], d["superseded"])


# ---------------------------------------------------------------- the audit's two variants


def test_a_wrong_tribute_found_mid_trick_is_corrected_and_the_trick_stands() -> None:
    """Variant A: S leads 5s, E 6s, N 8s, W passes, S plays As — the Kd tribute was not the highest.
    E still holds Kd: the referee takes it back, S gives Ah, warning. The trick on the table stands."""
    t, trib = _deal_two()
    _acts(t, "S:5s E:6s N:8s W:pass")
    t.play("S", "As")
    (flag,) = t.flags("tribute_not_highest")
    assert flag["evidence"] == {"tribute": "Kd", "card": "As", "tribute_seq": trib}
    before = _the_table(t)
    _correct(t, trib, "Ah")
    assert _the_table(t) == before  # the return, every play and the turn (E's) stand
    (tr,) = t.deal["tributes"]
    assert (tr["card"], tr["to"], tr["check"]) == ("Ah", "E", "open")
    assert tr["corrected"]["given"] == "Kd" and tr["corrected"]["given_check"] == "wrong"
    (flag,) = t.flags("tribute_not_highest")  # the evidence stays, open for the referee's ruling
    assert flag["status"] == "open" and flag["evidence"]["corrected_card"] == "Ah"
    _warn_on(t, flag["id"])
    (flag,) = t.flags("tribute_not_highest")
    assert flag["status"] == "confirmed" and t.state["penalties"]["NS"]["warnings"] == 1
    assert t.state["penalties"]["records"][-1]["flag"] == flag["id"]
    t.play("E", "Ts")  # play goes on where it was
    assert t.deal["phase"] == "play" and t.replay_matches()


def test_a_wrong_tribute_found_after_a_trick_is_won_is_corrected_and_the_tricks_stand() -> None:
    """Variant B: N's trick is won before S shows an ace; nothing of it is undone."""
    t, trib = _deal_two()
    _acts(t, "S:5s E:6s N:8s W:pass S:pass E:pass")
    _acts(t, "N:9s W:pass S:As")
    assert len(t.deal["tricks"]) == 1 and t.deal["turn"] == "E"
    flag = t.flags("tribute_not_highest")[0]
    _warn_on(t, flag["id"])  # the warning first this time, the exchange after: the order does not matter
    before = _the_table(t)
    _correct(t, trib, "Ah")
    assert _the_table(t) == before and len(t.deal["tricks"]) == 1
    assert t.deal["tributes"][0]["card"] == "Ah"
    assert t.flags("tribute_not_highest")[0]["status"] == "confirmed"
    assert t.state["penalties"]["NS"]["warnings"] == 1 and t.replay_matches()


def test_the_correction_and_the_warning_survive_a_later_re_fold_of_the_deal() -> None:
    """A later correction of the deal (a pass voided) re-folds it: the play proving the tribute wrong
    raises the same flag again, so the warning citing it and the exchange still apply."""
    t, trib = _deal_two()
    _acts(t, "S:5s E:6s N:8s W:pass")
    t.play("S", "As")
    _correct(t, trib, "Ah")
    flag = t.flags("tribute_not_highest")[0]
    _warn_on(t, flag["id"])
    t.pass_("E")
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "pressed by mistake"}, role="referee")
    assert t.deal["superseded"] == []
    assert t.deal["tributes"][0]["card"] == "Ah"
    (again,) = t.flags("tribute_not_highest")
    assert again["id"] == flag["id"] and again["status"] == "confirmed"
    assert not [r for r in t.state["penalties"]["records"] if r.get("withdrawn")]
    assert t.state["penalties"]["NS"]["warnings"] == 1 and t.replay_matches()


def test_voiding_the_correction_leaves_the_tribute_as_given() -> None:
    t, trib = _deal_two()
    _acts(t, "S:5s E:6s N:8s W:pass S:As")
    _correct(t, trib, "BJ")  # the referee tapped the wrong card
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "wrong card tapped"}, role="referee")
    assert t.deal["tributes"][0]["card"] == "Kd" and "corrected" not in t.deal["tributes"][0]
    assert "corrected_card" not in t.flags("tribute_not_highest")[0]["evidence"]
    _correct(t, trib, "Ah")
    assert t.deal["tributes"][0]["card"] == "Ah" and t.replay_matches()


# ---------------------------------------------------------------- the corrected card is checked in its turn


_BOMBS = ["3s 3s 3h 3h 3d 3d 3c 3c", "5s 5s 5h 5h 5d 5d 5c 5c", "6s 6s 6h 6h 6d 6d 6c 6c"]


def _lead_alone(t: Table, cards: str) -> None:
    assert t.deal["turn"] == "S"
    t.play("S", cards)
    if t.deal["counts"]["S"]:
        for s in "ENW":
            t.pass_(s)


def test_a_corrected_tribute_is_settled_on_what_the_tributor_held_after_the_correction() -> None:
    """S's big joker, played before the exchange, proved Kd wrong; it no longer held it when it gave
    Ad in its place, so Ad was the highest: settled ``highest`` when S plays out (Kd taken back and
    the returned Tc among its last cards), no second flag."""
    t = _single_tribute_due()
    t.do("tribute_given", {"seat": "S", "card": "Kd"})
    trib = t.events[-1]["seq"]
    t.do("return_given", {"seat": "E", "card": "Tc"})
    _lead_alone(t, _BOMBS[0])
    _lead_alone(t, "BJ")
    assert len(t.flags("tribute_not_highest")) == 1
    _correct(t, trib, "Ad")
    for cards in [_BOMBS[1], _BOMBS[2], "Tc", "Kd"]:
        _lead_alone(t, cards)
    assert "S" in t.deal["finish_order"]
    assert t.deal["tributes"][0]["check"] == "highest"
    assert len(t.flags("tribute_not_highest")) == 1 and t.replay_matches()


def test_a_corrected_card_a_later_play_shows_was_not_the_highest_is_flagged_again() -> None:
    t, trib = _deal_two()
    _acts(t, "S:5s E:6s N:8s W:pass S:As")
    first = t.flags("tribute_not_highest")[0]
    _correct(t, trib, "Ah")
    _acts(t, "E:pass N:pass W:pass")
    t.play("S", "SJ")  # a small joker still in hand: Ah was not the highest either
    second = [f for f in t.flags("tribute_not_highest") if f["id"] != first["id"]]
    assert [f["evidence"] for f in second] == [{"tribute": "Ah", "card": "SJ", "tribute_seq": trib,
                                                  "corrected_seq": t.events[-5]["seq"]}]
    assert t.deal["tributes"][0]["check"] == "wrong" and t.replay_matches()


def test_a_double_tribute_corrected_keeps_its_receivers_and_records_the_pairing_the_cards_name() -> None:
    """S gave 9d, N Qc: Qc to E (上游), 9d to W. S should have given Ah, which would have gone to E;
    the returns and the lead were made on the pairing at the table, so Ah goes to W, in 9d's place."""
    t = _double_tribute_due()  # N and S pay
    t.do("tribute_given", {"seat": "S", "card": "9d"})
    trib = t.events[-1]["seq"]
    t.do("tribute_given", {"seat": "N", "card": "Qc"})
    assert {x["from"]: x["to"] for x in t.deal["tributes"]} == {"S": "W", "N": "E"}
    t.do("return_given", {"seat": "E", "card": "3c"})
    t.do("return_given", {"seat": "W", "card": "4c"})
    leader = t.deal["turn"]
    t.play(leader, "7s")
    _correct(t, trib, "Ah")
    s_trib = next(x for x in t.deal["tributes"] if x["from"] == "S")
    assert (s_trib["card"], s_trib["to"], s_trib["corrected"]["pair_by_cards"]) == ("Ah", "W", "E")
    assert t.deal["turn"] != leader and t.replay_matches()


# ---------------------------------------------------------------- the void, by generation


def test_a_tribute_or_return_is_voided_before_the_first_card_and_corrected_after() -> None:
    t, trib = _deal_two()
    # Before any card is played the void stands: back to the tribute, given again.
    t.do("event_voided", {"ref": trib, "reason": "错贡 / wrong tribute"}, role="referee")
    assert t.deal["phase"] == "tribute"
    t.do("tribute_given", {"seat": "S", "card": "Ah"})
    trib = t.events[-1]["seq"]
    t.do("return_given", {"seat": "E", "card": "3c"})
    ret = t.events[-1]["seq"]
    # A camera read still in doubt is a card on the table: play has begun.
    t.play("S", "5s", data={"uncertain": True, "confidence": [0.4]})
    msg = t.reject("event_voided", {"ref": trib, "reason": "错贡 / wrong tribute"}, role="referee")
    assert msg.startswith(f"已开始出牌，进贡 #{trib} 不能撤销") and "tribute_corrected" in msg
    msg = t.reject("event_voided", {"ref": ret, "reason": "错还 / wrong return"}, role="referee")
    assert msg.startswith(f"已开始出牌，还贡 #{ret} 不能撤销") and "penalty citing its flag" in msg
    t.do("play_confirmed", {"ref": t.events[-1]["seq"]}, role="referee")
    assert t.reject("event_voided", {"ref": trib, "reason": "wrong"}, role="referee").startswith("已开始出牌")


def test_generation_7_folds_a_void_of_the_tribute_in_play_as_it_was_played() -> None:
    """The same void: a round set up under generation 7 re-folds into the tribute phase, as it did then
    (the plays superseded), and its log folds to the same state; under generation 8 it is refused."""
    for generation in (7, 8):
        t, trib = _deal_two(generation)
        _acts(t, "S:5s E:6s N:8s W:pass S:As")
        plays = [e["seq"] for e in t.events if e["type"] in ("cards_played", "passed")][-5:]
        if generation == 8:
            assert t.reject("event_voided", {"ref": trib, "reason": "wrong"}, role="referee").startswith("已开始出牌")
            continue
        t.do("event_voided", {"ref": trib, "reason": "wrong tribute"}, role="referee")
        assert t.deal["phase"] == "tribute" and t.deal["superseded"] == [trib + 1, *plays]
        assert t.flags("tribute_not_highest")[0]["status"] == "withdrawn"
        assert state_to_json(fold(t.events)) == state_to_json(t.state)


# ---------------------------------------------------------------- what is refused, nothing changed


def test_a_correction_the_engine_can_tell_is_wrong_is_refused_with_nothing_changed() -> None:
    t, trib = _deal_two()
    ret = trib + 1
    _acts(t, "S:5s E:6s")
    play = t.events[-1]["seq"]
    _acts(t, "N:8s W:pass S:As")

    def refused(data: dict, *, role: str = "referee") -> str:
        return t.reject("tribute_corrected", {"ref": trib, "card": "Ah", "reason": "wrong tribute", **data}, role=role)

    assert "event 999 is not a tribute" in refused({"ref": 999})
    assert f"event {play} is not a tribute" in refused({"ref": play})
    assert "a return_given is not a tribute" in refused({"ref": ret})
    assert refused({"card": "Kd"}).startswith("tribute_corrected：方块K 就是原贡牌，请写实际应贡的牌 / tribute_corrected: Kd is the card "
                                              "already given")
    assert refused({"card": "Qd"}).startswith("tribute_corrected：纠正的贡牌须大于原贡牌：方块Q 不大于原贡牌 方块K / tribute_corrected: Qd "
                                              "is not higher than Kd")
    assert "Ks is not higher than Kd" in refused({"card": "Ks"})  # equal power proves nothing
    assert refused({"card": "4h"}).startswith("tribute_corrected：红桃4 是红心级牌，不能进贡 / tribute_corrected: 4h is the heart level card")
    assert "(tribute_corrected)" in refused({"card": "Xz"})
    assert "reason is required" in refused({"reason": " \u200b"})
    assert "referee role required for tribute_corrected" in refused({}, role="viewer")
    # Both aces of spades played: none left to give.
    _acts(t, "E:pass N:pass W:pass")
    t.play("S", "As")
    assert refused({"card": "As"}).startswith("tribute_corrected：黑桃A 两张都已打出，不能再贡 / ")
    assert "both copies of As have been played" in refused({"card": "As"})


def test_the_wrong_card_known_played_by_its_receiver_is_a_foul_not_a_correction() -> None:
    """Two decks: E playing a Kd may be its own copy; once both Kd are on the record, one was the
    tribute."""
    t, trib = _deal_two()
    _acts(t, "S:5s E:Kd N:pass W:pass S:pass")
    _acts(t, "E:6s N:8s W:pass S:As")
    assert t.deal["by_seat"]["E"] == ["Kd", "6s"]
    t.do("tribute_corrected", {"ref": trib, "card": "Ah", "reason": "E's Kd may be its own"}, role="referee")
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "the tribute's Kd was played"}, role="referee")
    _acts(t, "E:pass N:Kd")  # N shows the other Kd (it does not beat: flagged, but seen)
    msg = t.reject("tribute_corrected", {"ref": trib, "card": "Ah", "reason": "x"}, role="referee")
    assert msg.startswith("tribute_corrected：东已打出错贡的牌 方块K，两张都已在记录中：应判犯规 / ") and "a foul" in msg


def test_no_correction_after_the_deal_or_from_a_tributor_who_has_played_out() -> None:
    t = _single_tribute_due(counts={"E": 2, "S": 2, "W": 2, "N": 2})
    t.do("tribute_given", {"seat": "S", "card": "Kd"})
    trib = t.events[-1]["seq"]
    t.do("return_given", {"seat": "E", "card": "3c"})
    t.play("S", "5s 5h")  # S plays out (with a count that did not add up: the check stays open)
    assert t.deal["counts"]["S"] == 0
    msg = t.reject("tribute_corrected", {"ref": trib, "card": "Ah", "reason": "x"}, role="referee")
    assert "S has played out" in msg
    t.do("penalty_given", {"side": "NS", "level": "foul", "article": "wrong tribute played", "seat": "S",
                           "next_leader": "E"}, role="chief")
    assert t.deal["phase"] == "over"
    assert "the deal is over" in t.reject("tribute_corrected", {"ref": trib, "card": "Ah", "reason": "x"}, role="referee")


def test_after_the_heart_level_card_any_other_card_may_be_the_correction() -> None:
    """The heart level card (4h at EW's level 4) is wrong on its face; the highest card the rule leaves
    may be of lower power (an ace where no other level card or joker is held), so an ace is taken, and
    the wild-card flag says what it was corrected to."""
    t, _ = _deal_two()
    t.do("event_voided", {"ref": t.events[-2]["seq"], "reason": "given again"}, role="referee")
    t.do("tribute_given", {"seat": "S", "card": "4h"})
    trib = t.events[-1]["seq"]
    t.do("return_given", {"seat": "E", "card": "3c"})
    _acts(t, "S:5s")
    _correct(t, trib, "As")
    (flag,) = t.flags("tribute_wild_card")
    assert flag["status"] == "open" and flag["evidence"]["corrected_card"] == "As"
    assert t.deal["tributes"][0]["corrected"]["given"] == "4h" and t.replay_matches()


# ---------------------------------------------------------------- a misread tribute or return


def test_a_misread_tribute_or_return_found_in_play_is_corrected_as_a_misread_play_is() -> None:
    """The camera read S's tribute as Kd; it was Kh (no breach: nobody erred). With the void refused in
    play (generation 8) and ``tribute_corrected`` meant for a wrong card really given (higher only),
    a misread had no remedy and stayed on the record. ``play_corrected`` on the tribute (or the return)
    overrides its card, as for a misread play: the deal re-folds, the plays stand, no flag."""
    t, trib = _deal_two()
    ret = t.events[-1]["seq"]
    _acts(t, "S:5s E:6s N:8s W:pass")
    before = _the_table(t)
    t.do("play_corrected", {"ref": trib, "cards": ["Kh"]}, role="referee")
    assert [x["card"] for x in t.deal["tributes"]] == ["Kh"]
    t.do("play_corrected", {"ref": ret, "cards": ["4c"]}, role="referee")
    assert [x["card"] for x in t.deal["returns"]] == ["4c"]
    after = _the_table(t)
    assert after[:6] == before[:6] and after[7] == before[7] == []  # every play stands, nothing superseded
    assert t.reject("play_corrected", {"ref": trib, "cards": ["Kh", "Kc"]}, role="referee").startswith(
        "进贡、还贡只能是一张牌（tribute_given，收到 2 张） / play_corrected: a tribute_given is one card, got 2")
    assert fold(t.events) is not None and state_to_json(fold(t.events))["deal"]["tributes"][0]["card"] == "Kh"


def test_an_anti_tribute_is_voided_before_the_first_card_only() -> None:
    """A false anti-tribute found in play (a big joker from a seat the declaration does not account for)
    was voided like a tribute: the deal went back to a tribute never paid and every play was superseded.
    Generation 8 refuses it once a card is down (the breach is ruled on its flag); before, it stands."""
    t = _single_tribute_due()
    t.do("anti_tribute_declared", {"seats": ["S"], "cards": ["BJ", "BJ"]})
    anti = t.events[-1]["seq"]
    turn = t.deal["turn"]
    t.play(turn, "5s")
    msg = t.reject("event_voided", {"ref": anti, "reason": "不实抗贡 / false anti-tribute"}, role="referee")
    assert msg.startswith("已开始出牌，抗贡 #") and "不能撤销" in msg and "penalty citing its flag" in msg
    assert t.deal["phase"] == "play" and t.deal["superseded"] == []
    t2 = _single_tribute_due()
    t2.do("anti_tribute_declared", {"seats": ["S"], "cards": ["BJ", "BJ"]})
    t2.do("event_voided", {"ref": t2.events[-1]["seq"], "reason": "看错 / misdeclared"}, role="referee")
    assert t2.deal["phase"] == "tribute"


def test_a_face_down_return_corrected_as_misread_stays_hidden_from_the_public() -> None:
    """The s36 review: after a double-down the first return is face down until the second is given
    (the public feed hides its card); a ``play_corrected`` on it was published with its card."""
    from table_service.views.feed import public_event

    t = _double_tribute_due()  # N and S pay
    t.do("tribute_given", {"seat": "S", "card": "9d"})
    t.do("tribute_given", {"seat": "N", "card": "Qc"})
    t.do("return_given", {"seat": "E", "card": "3c"})
    ret = t.events[-1]["seq"]
    assert "card" not in public_event(t.events[-1], state_to_json(t.state))["data"]
    t.do("play_corrected", {"ref": ret, "cards": ["4c"]}, role="referee")
    shown = public_event(t.events[-1], state_to_json(t.state))
    assert shown is not None and "cards" not in shown["data"] and "4c" not in str(shown)
    second = next(x for x in t.deal["tributes"] if x["to"] != "E")["to"]
    t.do("return_given", {"seat": second, "card": "5c"})
    t.do("play_corrected", {"ref": ret, "cards": ["6c"]}, role="referee")  # face up now: said
    assert public_event(t.events[-1], state_to_json(t.state))["data"]["cards"] == ["6c"]


def test_a_referee_cannot_undo_the_chiefs_tribute_correction_by_correcting_its_reading() -> None:
    """The s36 review: the chief corrected the tribute and warned on its flag; a referee's
    ``play_corrected`` on the tribute re-folded the deal, which dropped the chief's correction,
    withdrew the flag and the warning."""
    t, trib = _deal_two()
    _acts(t, "S:5s E:6s N:8s W:pass S:As")
    (flag,) = t.flags("tribute_not_highest")
    t.do("tribute_corrected", {"ref": trib, "card": "Ah", "reason": "错贡 / wrong tribute"}, role="chief")
    t.do("penalty_given", {"side": "NS", "level": "warning", "article": "错贡 / wrong tribute", "seat": "S",
                           "flag": flag["id"]}, role="chief")
    msg = t.reject("play_corrected", {"ref": trib, "cards": ["Ah"]}, role="referee")
    assert "chief referee" in msg
    assert t.deal["tributes"][0]["card"] == "Ah" and t.deal["superseded"] == []
    assert [(r["level"], r["flag"]) for r in t.state["penalties"]["records"]] == [("warning", flag["id"])]
    assert t.flags("tribute_not_highest")[0]["status"] == "confirmed"


def test_a_correction_stands_when_the_deals_only_play_is_voided_after_it() -> None:
    """The s36 review: the tribute corrected after the deal's only play, then that play voided (a double
    read): the re-fold replayed the correction with no card down, refused it ("void the tribute
    instead") and dropped it unsaid, though the cards had been exchanged at the table."""
    t, trib = _deal_two()
    t.play("S", "As")
    play = t.events[-1]["seq"]
    _correct(t, trib, "Ah")
    t.do("event_voided", {"ref": play, "reason": "重复识别 / read twice"}, role="referee")
    assert t.deal["tributes"][0]["card"] == "Ah" and t.deal["superseded"] == []
    assert t.deal["turn"] == "S"
    assert state_to_json(fold(t.events)) == state_to_json(t.state)
    # In the return phase the tribute is still voided and given again (the returns wait on it).
    t2 = _single_tribute_due()
    t2.do("tribute_given", {"seat": "S", "card": "Kd"})
    msg = t2.reject("tribute_corrected", {"ref": t2.events[-1]["seq"], "card": "Ah", "reason": "x"}, role="referee")
    assert msg.startswith("tribute_corrected：还贡尚未完成") and "void tribute" in msg
