"""A wrong tribute found once play has begun: the card is exchanged, the deal played so far stands.

The rules: "Wrong tribute card: take it back and correct; if the wrong card is already played: foul.
A wrong card not yet played: return, re-give, warning." Before the first card is played the referee
voids the tribute and it is given again (``event_voided``: the deal re-folds into the tribute phase,
nothing played is lost). Once play has begun that void would undo the return and every play since —
cards lying on the table — and withdraw the ``tribute_not_highest`` flag that proved the error; so
from engine generation 8 it is refused (:func:`refuse_void_in_play`) and the referee records the
exchange itself with ``tribute_corrected``.

Why an event logged at its place, not an override of the tribute (as ``play_corrected`` is for a
misread play): a misread play was always the cards the referee names, but a wrong tribute really was
given, the return and the first lead were made on it, and the play that proved it wrong was checked
against it. The exchange happens when the referee makes it: until then the tribute is the card given
(every flag raised up to then is raised again, alike, by any later re-fold of the deal, so a ruling
citing one still applies); from then on it is the corrected card, checked in its turn against what
the tributor plays later. Apart from ``tribute_phase`` because it acts in the play phase and that
module already holds the phase's own rules; apart from ``apply`` (the dispatcher) by size.
"""

from __future__ import annotations

from typing import Any

from table_service.engine.errors import EventRejected, RoleRejected
from table_service.engine.events import card_field, field, int_field
from table_service.engine.names import says_something
from table_service.engine.round_setup import require_round, rules_of_round
from table_service.engine.ruleset import since
from table_service.engine.state import State
from table_service.engine.tribute_phase import check_anti_tribute_missed
from table_service.rules.cards import cards_zh, parse_cards
from table_service.rules.seats import seat_zh
from table_service.rules.tribute import pair_tributes, tribute_proved_wrong

Effects = list[dict[str, Any]]

#: Flags about a tribute's card that a correction answers (the evidence gets the correction added).
_TRIBUTE_FLAGS = ("tribute_not_highest", "tribute_wild_card")


def first_card_played(deal: dict[str, Any]) -> bool:
    """Whether a card of the deal has been put on the table: a play on the record (flagged or not) or
    a camera read still waiting for the referee (the cards lie there all the same)."""
    plays = [p for t in [*deal["tricks"], deal["trick"]] for p in t["plays"] if not p.get("pass")]
    return bool(plays or deal["questions"])


def refuse_void_in_play(state: State, target: dict[str, Any]) -> None:
    """``event_voided`` on a tribute, a return or an anti-tribute once the deal's first card is played
    (generation 8).

    Voiding re-folds the deal without the event: back to the tribute phase, every play since
    superseded. A wrong tribute is then corrected (``tribute_corrected``); a return stands as made
    (its breach, flag ``return_above_ten``, is ruled by a penalty citing the flag). Rounds set up
    under generation 7 or earlier keep the void as they were played.
    """
    deal = state["deal"]
    if target["type"] not in ("tribute_given", "return_given", "anti_tribute_declared") or deal is None \
            or not since(state, 8):
        return
    if not first_card_played(deal):
        return
    if target["type"] == "anti_tribute_declared":
        # A false declaration found in play (flag declared_card_contradiction): the void would send the
        # deal back to a tribute never paid and supersede every play; the breach is ruled on its flag.
        raise EventRejected(
            f"已开始出牌，抗贡 #{target['seq']} 不能撤销：不实抗贡按其标记判罚 / event_voided: play has begun, so anti-tribute "
            f"{target['seq']} is not voided (that would undo every play since); a false one is ruled by a penalty "
            "citing its flag")
    if target["type"] == "tribute_given":
        raise EventRejected(
            f"已开始出牌，进贡 #{target['seq']} 不能撤销：请用“纠正贡牌” / event_voided: play has begun, so tribute {target['seq']} is "
            "not voided (that would undo every play since); take the wrong card back with tribute_corrected")
    raise EventRejected(
        f"已开始出牌，还贡 #{target['seq']} 不能撤销：还贡错误按其标记判罚 / event_voided: play has begun, so return {target['seq']} is not "
        "voided (that would undo every play since); a wrong return is ruled by a penalty citing its flag")


def on_tribute_corrected(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``tribute_corrected`` (referee): the wrong tribute card taken back from its receiver, the card
    named given in its place; the return, the lead and every play stand.

    Refused, with nothing changed: no such tribute in this deal; before the first card is played
    (void the tribute and give it again) or after the deal's end (the cards are gone: a penalty); a
    tributor who has played out (no card left to give); the card given (the same face, the heart level
    card, which the rule excludes); a card not higher than the one given — a correction is what a later
    play proving the tribute wrong would show, a card of strictly higher power (equal power proves
    nothing: another level card, another ace was as high), except that after the heart level card any
    other card may be the highest; a card both of whose copies have been played (the engine sees only
    played cards; a copy given or returned elsewhere is left to the referee, who sees where it is); the
    wrong card known played by its receiver (a foul, the rules say): the receiver has played a copy and
    both copies are on the record, so one of them was the tribute — with a copy unseen, the one the
    receiver played may be its own, and the referee, who sees the table, decides.

    Who received which stands: the corrected card goes to the receiver of the wrong one, even where the
    corrected cards would have paired a double tribute the other way, since the returns and the first
    lead were made on the pairing at the table (``pair_by_cards`` records the receiver the cards name).
    """
    etype = ev["type"]
    data = ev["data"]
    require_round(state, etype)
    ref = int_field(data, "ref", etype)
    card = card_field(data, "card", etype)
    reason = field(data, "reason", etype)
    if not says_something(reason):
        raise EventRejected(f"{etype}：须说明理由 / {etype}: reason is required")
    deal = state["deal"]
    if deal is None:
        raise EventRejected(f"{etype}：没有进行中的牌局 / {etype}: no deal in progress")
    at = next((i for i, t in enumerate(deal["tributes"]) if t["seq"] == ref), None)
    if at is None:
        what = "a return_given" if any(r["seq"] == ref for r in deal["returns"]) else f"event {ref}"
        raise EventRejected(f"{etype}：{'还贡' if what.startswith('a ') else '事件'} #{ref} 不是本副的进贡"
                            f" / {etype}: {what} is not a tribute given in this deal")
    trib = deal["tributes"][at]
    _check_moment(deal, trib, etype)
    old = trib["card"]
    _check_card(deal, trib, card, etype)
    prior = trib.get("corrected")
    if prior is not None and prior["role"] == "chief" and ev["role"] != "chief":
        raise RoleRejected(f"{etype}：进贡 #{ref} 由裁判长裁决，只能由裁判长更改"
                           f" / {etype}: tribute {ref} was last corrected by the chief referee")
    corrected = {
        "seq": ev["seq"],
        "given": prior["given"] if prior else old,
        "given_check": prior["given_check"] if prior else trib.get("check", "open"),
        "role": ev["role"],
        "reason": reason,
        # The tributor's cards played before the exchange: the corrected card's check counts only
        # what it plays after (play._settle_tribute), the hand it was corrected from.
        "played_before": len(deal["by_seat"][trib["from"]]),
    }
    by_cards = _pair_by_cards(state, deal, trib["from"], card)
    if by_cards is not None and by_cards != trib["to"]:
        corrected["pair_by_cards"] = by_cards
    deal["tributes"][at] = dict(trib, card=card, check="open", corrected=corrected)
    for i, flag in enumerate(state["flags"]):
        ours = flag["evidence"].get("tribute_seq") == ref or (flag["rule"] == "tribute_wild_card" and flag["seq"] == ref)
        if flag["rule"] in _TRIBUTE_FLAGS and flag["deal"] == deal["no"] and ours and flag["status"] == "open":
            # The flag stays open for the referee's ruling (the warning the rules give, a penalty citing
            # it); its evidence says the card was exchanged, and for what.
            updated = dict(flag, evidence={**flag["evidence"], "corrected_seq": ev["seq"], "corrected_card": card})
            state["flags"][i] = updated
            fx.append({"kind": "flag_updated", "flag": dict(updated)})
    check_anti_tribute_missed(state, ev, trib["from"], [card], fx)


def _check_moment(deal: dict[str, Any], trib: dict[str, Any], etype: str) -> None:
    """The deal is in play (the returns made) and the tributor still has a card to give.

    Also before the first card is played (where the panel offers the void and a new tribute instead):
    a correction made in play must still stand when a re-fold replays it at a moment with no card down
    (the deal's only play voided as a double read), or the exchange made at the table was dropped."""
    if deal["phase"] == "over":
        raise EventRejected(f"{etype}：本副已结束：错贡按处罚裁决"
                            f" / {etype}: the deal is over; rule the wrong tribute with a penalty")
    if deal["phase"] != "play":
        raise EventRejected(f"{etype}：还贡尚未完成：请撤销进贡 #{trib['seq']} 后重新进贡"
                            f" / {etype}: the returns are not all made; void tribute "
                            f"{trib['seq']} and have it given again")
    if deal["counts"][trib["from"]] <= 0:
        raise EventRejected(f"{etype}：进贡者{seat_zh(trib['from'])}已出完牌，无牌可贡"
                            f" / {etype}: {trib['from']} has played out and has no card left to give")


def _check_card(deal: dict[str, Any], trib: dict[str, Any], card: str, etype: str) -> None:
    """What the engine can tell of the card named and the card taken back, from the cards played."""
    level = deal["level"]
    old = trib["card"]
    new_c, old_c = parse_cards([card])[0], parse_cards([old])[0]
    if card == old:
        raise EventRejected(f"{etype}：{cards_zh([card])} 就是原贡牌，请写实际应贡的牌"
                            f" / {etype}: {card} is the card already given; name the card given instead")
    if new_c.is_wild(level):
        raise EventRejected(f"{etype}：{cards_zh([card])} 是红心级牌，不能进贡"
                            f" / {etype}: {card} is the heart level card, which is never a tribute")
    if not old_c.is_wild(level) and not tribute_proved_wrong(old_c, new_c, level):
        raise EventRejected(f"{etype}：纠正的贡牌须大于原贡牌：{cards_zh([card])} 不大于原贡牌 {cards_zh([old])}"
                            f" / {etype}: {card} is not higher than {old}, the card given "
                            "(a tribute is corrected to a card of higher power)")
    if deal["seen"].get(card, 0) >= 2:
        raise EventRejected(f"{etype}：{cards_zh([card])} 两张都已打出，不能再贡"
                            f" / {etype}: both copies of {card} have been played; it cannot be given")
    to = trib["to"]
    returned_own = any(r["from"] == to and r["card"] == old for r in deal["returns"])
    if old in deal["by_seat"][to] and deal["seen"].get(old, 0) >= 2 and not returned_own:
        raise EventRejected(f"{etype}：{seat_zh(to)}已打出错贡的牌 {cards_zh([old])}，两张都已在记录中：应判犯规"
                            f" / {etype}: {to} has played {old}, and both copies are on the "
                            "record, so the wrong tribute card has been played: a foul (penalty_given), not a correction")


def _pair_by_cards(state: State, deal: dict[str, Any], seat: str, card: str) -> str | None:
    """In a double tribute, the receiver the cards would name for ``seat`` with ``card`` in place of its
    tribute (None for a single tribute): recorded when it differs from the receiver at the table."""
    if len(deal["tributes"]) < 2:
        return None
    cards = {t["from"]: parse_cards([card if t["from"] == seat else t["card"]])[0] for t in deal["tributes"]}
    pairing = pair_tributes(cards, deal["tribute_plan"]["top"], deal["level"], rules_of_round(state).equal_tributes)
    return pairing.get(seat)
