"""Tribute, return and anti-tribute, between a deal's drawing and its first lead, and the checks
later plays make against them: a return above 10 proved wrong, an anti-tribute that should have
been declared.

It is apart from ``round_setup`` because it is the one phase with rules and evidence of its own
(who pays whom, who leads after, what a return may be), which ``play`` reaches back into on every
play; and apart from ``deal_end`` because nothing in it scores a deal or ends a round.
"""

from __future__ import annotations

from typing import Any

from table_service.engine.errors import EventRejected
from table_service.engine.events import card_field, cards_field, field, seat_field
from table_service.engine.flags import raise_flag
from table_service.engine.round_setup import require_round, rules_of_round, start_play
from table_service.engine.ruleset import since
from table_service.engine.state import PHASE_ZH, State
from table_service.engine.timers import start_timer, stop_and_check, stop_timer
from table_service.rules.cards import cards_zh, parse_cards
from table_service.rules.ruleset import Ruleset
from table_service.rules.seats import seat_zh, side_of
from table_service.rules.tribute import (
    TributeDuty,
    leader_after_tribute,
    pair_tributes,
    return_over_limit,
    smallness,
    tribute_is_wild,
)

Effects = list[dict[str, Any]]


# ------------------------------------------------------------------------- tribute and return


def _require_phase(state: State, ev: dict[str, Any], phase: str) -> dict[str, Any]:
    require_round(state, ev["type"])
    deal = state["deal"]
    if deal is None or deal["phase"] != phase:
        now = deal["phase"] if deal else "no deal"
        now_zh = PHASE_ZH.get(now, now) if deal else "没有牌局"
        raise EventRejected(f"{ev['type']}：当前不是{PHASE_ZH[phase]}阶段（现在：{now_zh}）"
                            f" / {ev['type']}: not the {phase} phase "
                            f"(now: {now})")
    return deal


def on_anti_tribute(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``anti_tribute_declared``: the paying side shows both big jokers; no tribute, 上游 leads."""
    deal = _require_phase(state, ev, "tribute")
    plan = deal["tribute_plan"]
    if not rules_of_round(state).anti_tribute:
        raise EventRejected("本规则不允许抗贡 / anti_tribute_declared: this ruleset has no anti-tribute")
    seats = field(ev["data"], "seats", ev["type"])
    cards = cards_field(ev["data"], "cards", ev["type"])
    if not isinstance(seats, list) or not seats or any(s not in plan["payers"] for s in seats):
        raise EventRejected(f"抗贡座位须在进贡方（{'、'.join(seat_zh(p) for p in plan['payers'])}）之中，收到 {seats!r}"
                            f" / anti_tribute_declared: seats must be among the payers {plan['payers']}, got {seats!r}")
    if sorted(cards) != ["BJ", "BJ"]:
        raise EventRejected(f"抗贡须两张大王（收到 {cards_zh(cards, '、') or '无'}） / anti_tribute_declared: needs both big jokers, got {cards!r}")
    if since(state, 6) and (len(set(seats)) != len(seats) or len(seats) > len(plan["payers"])):
        # Two names are "one big joker each": one seat named twice, or two where one payer owes, would
        # leave a declared joker in no hand (and the other side's playing it unflagged).
        raise EventRejected(f"抗贡座位重复（收到 {seats!r}）：持两张大王的进贡方只写一次，或两位进贡方各持一张各写一次"
                            " / anti_tribute_declared: name the payer holding both big jokers once, "
                            f"or each of two payers holding one; got {seats!r}")
    if deal["tributes"]:
        raise EventRejected("已进贡 / anti_tribute_declared: a tribute has already been given")
    deal["anti_tribute"] = {"seq": ev["seq"], "seats": list(seats), "cards": cards}
    # Declared cards are seen cards: one declarer holds both big jokers, two hold one each. Until
    # a declarer plays its joker, ``declared`` keeps it in that hand; a big joker from anyone else
    # contradicts the declaration (see ``play._check_declared``).
    deal["declared"] = {s: list(cards) if len(seats) == 1 else [cards[0]] for s in seats}
    for payer in plan["payers"]:
        stop_timer(state, payer, fx)
    start_play(state, ev, plan["top"], fx)


def on_tribute(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``tribute_given``: once every payer has given, the receivers are worked out."""
    deal = _require_phase(state, ev, "tribute")
    plan = deal["tribute_plan"]
    seat = seat_field(ev["data"], "seat", ev["type"])
    card = card_field(ev["data"], "card", ev["type"])
    if seat not in plan["payers"]:
        raise EventRejected(f"{seat_zh(seat)}不需进贡（进贡方：{'、'.join(seat_zh(p) for p in plan['payers'])}） / tribute_given: {seat} owes no tribute (payers: {' '.join(plan['payers'])})")
    if any(t["from"] == seat for t in deal["tributes"]):
        raise EventRejected(f"{seat_zh(seat)}已进贡 / tribute_given: {seat} has already given tribute")
    stop_and_check(state, ev, seat, fx)
    wild = tribute_is_wild(parse_cards([card])[0], deal["level"])
    # ``check``: open until a later play proves the tribute wrong or the tributor plays out.
    deal["tributes"].append({"seq": ev["seq"], "from": seat, "card": card, "to": None, "check": "wrong" if wild else "open"})
    deal["counts"][seat] -= 1
    if wild:
        raise_flag(state, ev, "tribute_wild_card", seat, {"tribute": card, "level": deal["level"]}, fx)
    if since(state, 3):  # both big jokers given as tribute: seen at once (generation 3, ruleset.py)
        check_anti_tribute_missed(state, ev, seat, [card], fx)
    if len(deal["tributes"]) < len(plan["payers"]):
        return
    pairing = pair_tributes(
        {t["from"]: parse_cards([t["card"]])[0] for t in deal["tributes"]}, plan["top"], deal["level"],
        rules_of_round(state).equal_tributes,
    )
    deal["tributes"] = [dict(t, to=pairing[t["from"]]) for t in deal["tributes"]]
    for t in deal["tributes"]:
        deal["counts"][t["to"]] += 1
    deal["phase"] = "return"
    state["round"]["status"] = "return"
    for t in deal["tributes"]:
        start_timer(state, t["to"], "return", fx)


def on_return(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``return_given``: each receiver returns one card to the one who paid them."""
    deal = _require_phase(state, ev, "return")
    seat = seat_field(ev["data"], "seat", ev["type"])
    card = card_field(ev["data"], "card", ev["type"])
    owed = [t for t in deal["tributes"] if t["to"] == seat]
    if not owed:
        raise EventRejected(f"{seat_zh(seat)}未收到贡牌，无需还贡 / return_given: {seat} received no tribute")
    if any(r["from"] == seat for r in deal["returns"]):
        raise EventRejected(f"{seat_zh(seat)}已还贡 / return_given: {seat} has already returned")
    to = owed[0]["from"]
    stop_and_check(state, ev, seat, fx)
    deal["returns"].append({"seq": ev["seq"], "from": seat, "to": to, "card": card})
    deal["counts"][seat] -= 1
    deal["counts"][to] += 1
    rules = rules_of_round(state)
    if return_over_limit(parse_cards([card])[0], deal["level"], rules, to_partner=side_of(seat) == side_of(to)):
        evidence: dict[str, Any] = {"card": card, "to": to}
        if rules.return_smallest_if_none:
            evidence["legal_if"] = RETURN_LEGAL_IF
            # The tribute the returner had just received was in hand when returning.
            received = [t for t in deal["tributes"] if t["to"] == seat]
            for t in received:
                proof = return_proof(t["card"], card, deal["level"], rules)
                if proof is not None:
                    evidence.update(_proof_fields(t["card"], t["seq"], "tribute", proof))
                    break
        raise_flag(state, ev, "return_above_ten", seat, evidence, fx)
    if len(deal["returns"]) < len(deal["tributes"]):
        return
    plan = deal["tribute_plan"]
    duty = TributeDuty(payers=tuple(plan["payers"]), first=plan["top"], double_down=plan["kind"] == "double")
    leader = leader_after_tribute(duty, {t["from"]: t["to"] for t in deal["tributes"]}, rules)
    start_play(state, ev, leader, fx, first_lead=True)


#: What would make a return above 10 legal when the ruleset has ``return_smallest_if_none``.
RETURN_LEGAL_IF = "持有的牌都大于10且还的是最小的牌 / the returner held nothing ≤ 10 and returned the smallest card"


def return_proof(held: str, returned: str, level: str, rules: Ruleset) -> str | None:
    """Why holding ``held`` when returning ``returned`` (a card above the limit) makes the return
    wrong even under ``return_smallest_if_none``, or None when it proves nothing.

    ``le_ten``: ``held`` was itself a card within the limit (a non-joker ≤ 10, a level card only
    if the ruleset counts it by face value). ``smaller``: ``held`` ranks below the returned card,
    so the returned card was not the smallest. The wild card (heart level card) proves nothing:
    whether it counts as "≤ 10" for this rule is for the referee, so the flag stays open.
    """
    h = parse_cards([held])[0]
    r = parse_cards([returned])[0]
    if h.is_wild(level):
        return None
    if not return_over_limit(h, level, rules, to_partner=True):
        return "le_ten"
    if smallness(h, level, rules) < smallness(r, level, rules):
        return "smaller"
    return None


_PROOF_VIA = {"tribute": ("收到的贡牌", "the tribute received"), "play": ("还贡后打出", "played after the return")}
_PROOF_WHY = {"le_ten": ("≤10的牌", "a card ≤ 10"), "smaller": ("比所还更小的牌", "a card smaller than the one returned")}


def _proof_fields(held: str, seq: int, via: str, why: str) -> dict[str, Any]:
    """The evidence fields of a proof: ``proof_card`` and ``proof_seq`` for machines, ``proof``
    a sentence for the panel (Chinese, then English)."""
    via_zh, via_en = _PROOF_VIA[via]
    why_zh, why_en = _PROOF_WHY[why]
    return {
        "proof_card": held,
        "proof_seq": seq,
        "proof": f"还贡时持有{why_zh}：{held}（{via_zh}，#{seq}） / held {why_en} when returning: {held} ({via_en}, #{seq})",
    }


def prove_return_wrong(state: State, ev: dict[str, Any], seat: str, cards: list[str], fx: Effects) -> None:
    """A later play by a returner whose return above 10 is flagged as "legal if it held nothing
    ≤ 10": a card of that play proves the returner held more when returning. The returner never
    receives a card after its return (returns go to the payers, and play moves no cards between
    hands), so every card it plays later was in its hand at the return. The proof is added to
    the flag's evidence while the flag is open (a closed flag is the referee's ruling)."""
    deal = state["deal"]
    if not any(r["from"] == seat for r in deal["returns"]):
        return
    rules = rules_of_round(state)
    for i, flag in enumerate(state["flags"]):
        evidence = flag["evidence"]
        if (
            flag["rule"] != "return_above_ten"
            or flag["seat"] != seat
            or flag["deal"] != deal["no"]
            or flag["status"] != "open"
            or "legal_if" not in evidence
            or "proof_card" in evidence
        ):
            continue
        for c in cards:
            why = return_proof(c, evidence["card"], deal["level"], rules)
            if why is not None:
                updated = dict(flag, evidence={**evidence, **_proof_fields(c, ev["seq"], "play", why)})
                state["flags"][i] = updated
                fx.append({"kind": "flag_updated", "flag": dict(updated)})
                break


def check_anti_tribute_missed(state: State, ev: dict[str, Any], seat: str, cards: list[str], fx: Effects) -> None:
    """Anti-tribute is not the payers' choice (``Ruleset.anti_tribute_waivable`` false): a paying
    side seen to have held both big jokers when paying — big jokers given as tribute plus big
    jokers its payers play, a big joker returned to them excepted — should have declared it.

    ``cards``: what ``seat`` shows by ``ev``: a tribute (``tribute_given`` or ``tribute_corrected``,
    already in ``deal.tributes``: both big jokers given as tribute are seen at the second) or a play (not yet
    in ``deal.by_seat``: ``play.on_cards_played`` calls it for every play). Flagged once per
    deal; nothing when the ruleset has no anti-tribute or lets a side waive it."""
    deal = state["deal"]
    rules = rules_of_round(state)
    payers = (deal["tribute_plan"] or {}).get("payers") or []
    if (
        "BJ" not in cards
        or seat not in payers
        or not deal["tributes"]
        or not rules.anti_tribute
        or rules.anti_tribute_waivable
        or any(f["rule"] == "anti_tribute_missed" and f["deal"] == deal["no"] for f in state["flags"])
    ):
        return
    given = [t["seq"] for t in deal["tributes"] if t["card"] == "BJ"]
    # A tribute, or a corrected one, is in ``deal.tributes`` already: only a play is counted here.
    playing = 0 if ev["type"] in ("tribute_given", "tribute_corrected") else cards.count("BJ")
    played = sum(deal["by_seat"][p].count("BJ") for p in payers) + playing
    returned = sum(1 for r in deal["returns"] if r["to"] in payers and r["card"] == "BJ")
    if len(given) + played - returned >= 2:
        raise_flag(state, ev, "anti_tribute_missed", seat,
                   {"payers": list(payers), "tribute_seqs": given, "card": "BJ"}, fx)
