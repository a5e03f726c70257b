"""The round and the deal: set-up, the first cut, drawing, tribute and return, deal end,
levels and the A rule, round end by format, tie deal, and the round's result.
"""

from __future__ import annotations

from typing import Any

from table_service.engine import scoring
from table_service.engine.errors import EventRejected
from table_service.engine.events import card_field, cards_field, field, int_field, seat_field, side_field
from table_service.engine.flags import raise_flag
from table_service.engine.ruleset import resolve_ruleset, since
from table_service.engine.state import HAND_SIZE, State, initial_state, new_deal
from table_service.engine.timers import set_turn, start_timer, stop_all, stop_and_check, stop_timer
from table_service.rules.cards import check_level, parse_cards
from table_service.rules.levels import apply_deal, deal_outcome, level_position
from table_service.rules.ruleset import Ruleset
from table_service.rules.scoring import level_difference_points, match_points, penalty_loss_positions
from table_service.rules.seats import SEATS, seats_from, seats_of, side_of
from table_service.rules.tribute import (
    TributeDuty,
    leader_after_tribute,
    pair_tributes,
    return_over_limit,
    smallness,
    tribute_duty,
    tribute_is_wild,
)
from table_service.rules.tribute import first_drawer as rules_first_drawer

Effects = list[dict[str, Any]]

#: Round-scoped keys reset by a new ``round_set_up`` (the old values are archived in ``rounds``).
_ROUND_KEYS = ("levels", "failed_at_a", "first_cut", "deal", "next_deal", "penalties", "flags",
               "score_sheet", "deal_records", "signatures", "result", "corrections")


def _round(state: State, etype: str) -> dict[str, Any]:
    rnd = state.get("round")
    if rnd is None:
        raise EventRejected(f"本轮未设置 / {etype}: no round has been set up")
    if state["result"] is not None:
        raise EventRejected(f"本轮已结束 / {etype}: the round is over")
    return rnd


# ------------------------------------------------------------------------- round set-up


def _check_format(fmt: Any) -> dict[str, Any]:
    if fmt is None:
        return {"kind": "past_a"}
    if not isinstance(fmt, dict) or fmt.get("kind") not in ("past_a", "deals", "time"):
        raise EventRejected(f"赛制无效 / format must be {{kind: past_a | deals | time}}, got {fmt!r}")
    if fmt["kind"] == "deals":
        n = fmt.get("deals")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise EventRejected(f"赛制无效 / format deals needs a positive 'deals', got {n!r}")
        return {"kind": "deals", "deals": n}
    if fmt["kind"] == "time":
        m = fmt.get("minutes")
        if not isinstance(m, int | float) or isinstance(m, bool) or m <= 0:
            raise EventRejected(f"赛制无效 / format time needs positive 'minutes', got {m!r}")
        return {"kind": "time", "minutes": m}
    return {"kind": "past_a"}


def _check_names(players: dict[str, Any], teams: dict[str, Any]) -> None:
    """Names go to the score sheet, the public feed and the broadcast overlay as they are: each must
    be text one can print (no control or direction-changing character) and not blank — the hub's own
    rule for the names in EVENT.toml."""
    for zh, en, names in (("选手名", "player", players), ("队名", "team", teams)):
        for key, name in names.items():
            if not isinstance(name, str) or not name.strip() or not name.isprintable():
                raise EventRejected(f"{zh}无效（{key}）：须为可打印文字，不可为空 / round_set_up: the {en} name for "
                                    f"{key} must be printable text, not blank: {name!r}"[:240])


#: The keys each form of ``ruleset`` and ``format`` may hold: a key beyond them was logged and then
#: ignored (``{"preset": "jiangsu", "clock_lead_s": 10}`` set no clock), so it is refused.
_RULESET_KEYS = frozenset({"preset", "options"})
_FORMAT_KEYS = {"past_a": frozenset({"kind"}), "deals": frozenset({"kind", "deals"}),
                "time": frozenset({"kind", "minutes"})}


def _check_no_other_keys(ruleset: Any, fmt: Any) -> None:
    if isinstance(ruleset, dict) and "name" not in ruleset and set(ruleset) - _RULESET_KEYS:
        extra = sorted(set(ruleset) - _RULESET_KEYS)
        raise EventRejected(f"规则含未知项 {extra}（选项请放在 options 内）/ round_set_up: ruleset holds unknown keys "
                            f"{extra} (options go inside 'options')")
    if isinstance(fmt, dict) and fmt.get("kind") in _FORMAT_KEYS and set(fmt) - _FORMAT_KEYS[fmt["kind"]]:
        extra = sorted(set(fmt) - _FORMAT_KEYS[fmt["kind"]])
        raise EventRejected(f"赛制含多余项 {extra} / round_set_up: format {fmt['kind']} does not take {extra}")


def on_round_set_up(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``round_set_up``: players, teams, ruleset and format; archives a finished round."""
    data = ev["data"]
    if state["round"] is not None and state["result"] is None:
        raise EventRejected("本轮尚未结束 / round_set_up: the current round has no result yet")
    players = field(data, "players", ev["type"])
    if not isinstance(players, dict) or set(players) != set(SEATS) or not all(isinstance(v, str) and v for v in players.values()):
        raise EventRejected(f"选手无效 / round_set_up: players must name all four seats E S W N, got {players!r}")
    teams = data.get("teams") or {"EW": "EW", "NS": "NS"}
    if not isinstance(teams, dict) or set(teams) != {"EW", "NS"}:
        raise EventRejected(f"队伍无效 / round_set_up: teams must be {{EW: …, NS: …}}, got {teams!r}")
    # Checks added with the engine's generation 2, for rounds stamped with it (an older log holds
    # rounds set up without them, and must still replay).
    checked = int(data.get("engine", 1)) >= 2
    if checked:
        _check_names(players, teams)
        _check_no_other_keys(data.get("ruleset"), data.get("format"))
    rules = resolve_ruleset(data.get("ruleset"))
    fmt = _check_format(data.get("format"))
    levels_in = data.get("levels") or {"EW": rules.start_level, "NS": rules.start_level}
    try:
        levels = {side: check_level(str(levels_in[side])) for side in ("EW", "NS")}
    except (KeyError, TypeError, ValueError) as exc:
        raise EventRejected(f"级数无效 / round_set_up: levels must be {{EW: 2…A, NS: 2…A}} ({exc})") from None
    no = data.get("round", len(state["rounds"]) + (2 if state["round"] is not None else 1))
    if checked and (isinstance(no, bool) or not isinstance(no, int) or not 1 <= no <= 999):
        raise EventRejected(f"轮次无效 / round_set_up: 'round' must be a whole number 1-999, got {no!r}")
    played = [a["round"]["no"] for a in state["rounds"]] + ([state["round"]["no"]] if state["round"] else [])
    if checked and no in played:
        # A deal is known by its round and number (duplicate play releases it so): a round played
        # twice under one number would let its deals go public under the first one's releases.
        raise EventRejected(f"本桌已打过第 {no} 轮 / round_set_up: this table has played round {no} already")
    if state["round"] is not None:
        archived = {k: state[k] for k in ("result", "score_sheet", "penalties", "flags", "deal_records", "levels", "signatures")}
        archived["round"] = state["round"]
        state["rounds"].append(archived)
    fresh = initial_state()
    for key in _ROUND_KEYS:
        state[key] = fresh[key]
    state["levels"] = levels
    state["_deal_base"] = None
    state["_deal_log"] = []
    state["_overrides"] = {}
    state["round"] = {
        "no": no,
        "players": dict(players),
        "teams": dict(teams),
        "ruleset": rules.to_dict(),
        "_rules": rules,
        "format": fmt,
        "status": "cutting",
        "started_ms": state["t_ms"],
        "time_up": False,
        "extra_deal": False,
        "board": data.get("board"),
        # Which generation of the engine's rulings the round was set up under (ruleset.py's
        # ENGINE_GENERATION, stamped by the runner): a log written before a ruling changed folds as
        # it was played. Absent: the first generation.
        "engine": data.get("engine", 1),
        "deals_started": 0,
        "start_levels": dict(levels),
        "first_level": levels["EW"] if levels["EW"] == levels["NS"] else rules.start_level,
    }
    fx.append({"kind": "round_started", "round": state["round"]["no"]})


def first_drawer(cut: str) -> str | None:
    """Counting counter-clockwise from South by the cut card's rank (A = 1, J 11, Q 12, K 13);
    None when the card must be cut again (a joker or the heart 2)."""
    try:
        return rules_first_drawer(parse_cards([cut])[0])
    except ValueError:
        return None


def on_first_cut(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``first_cut_recorded``: South's cut card before the first deal."""
    rnd = _round(state, ev["type"])
    if state["score_sheet"] or (state["deal"] is not None):
        raise EventRejected("只有第一副牌需要翻牌 / first_cut_recorded: only the first deal has a cut card")
    cut = card_field(ev["data"], "card", ev["type"])
    drawer = first_drawer(cut)
    recut = drawer is None
    state["first_cut"] = {"card": cut, "first_drawer": drawer, "recut": recut, "seq": ev["seq"]}
    rnd["status"] = "cutting" if recut else "drawing"


# ------------------------------------------------------------------------- deal start


def on_drawing_finished(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``drawing_finished``: the deal starts — tribute, return, or straight to the lead."""
    rnd = _round(state, ev["type"])
    if state["deal"] is not None and state["deal"]["phase"] != "over":
        raise EventRejected("上一副牌未结束 / drawing_finished: the current deal has not ended")
    data = ev["data"]
    counts_in = data.get("counts") or {s: HAND_SIZE for s in SEATS}
    if not isinstance(counts_in, dict) or set(counts_in) != set(SEATS) or not all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 108 for v in counts_in.values()
    ):
        raise EventRejected(f"牌数无效 / drawing_finished: counts must give 0…108 for E S W N, got {counts_in!r}")
    plan = state["next_deal"]
    # Every deal started gets its own number, an abandoned one too (a round that ends on a tie while a
    # deal is played plays one more): in duplicate play the feed releases a deal by its number, and
    # the extra deal must not take the abandoned one's, released already.
    no = rnd["deals_started"] + 1
    if plan is None:
        holder = seat_field(data, "cut_card_holder", ev["type"], required=False)
        cut = state["first_cut"]
        if holder is None and (cut is None or cut["recut"]):
            raise EventRejected("第一副牌需要翻牌或领出者 / drawing_finished: the first deal needs a cut card or cut_card_holder")
        leader = holder or cut["first_drawer"]
        plan = {"kind": "first", "leader": leader, "payers": [], "top": None}
        level, level_side = rnd["first_level"], None
    else:
        level_side = side_of(plan["top"])
        level = state["levels"][level_side]
    deal = new_deal(no, level, level_side, state["t_ms"], counts_in)
    # The deal's first event: what "an event of this deal" means (a correction or a void reaches only
    # those, apply._target), for the panel too, which must not guess it from times.
    deal["first_seq"] = ev["seq"]
    state["deal"] = deal
    rnd["deals_started"] = no
    rnd["status"] = "play"
    deal["tribute_plan"] = {k: v for k, v in plan.items() if k != "kind"} | {"kind": plan["kind"]}
    wrong = {s: n for s, n in counts_in.items() if n != HAND_SIZE}
    if wrong:
        raise_flag(state, ev, "wrong_count", None, {"counts": dict(counts_in)}, fx)
    fx.append({"kind": "deal_started", "deal": no, "level": level})
    for seat in SEATS:
        fx.append({"kind": "lamp", "seat": seat, "lamp": "report", "mode": "off"})
    if plan["kind"] in ("single", "double"):
        deal["phase"] = "tribute"
        rnd["status"] = "tribute"
        for payer in plan["payers"]:
            start_timer(state, payer, "tribute", fx)
        return
    _start_play(state, ev, plan["leader"], fx)


def _start_play(state: State, ev: dict[str, Any], leader: str, fx: Effects, *, first_lead: bool = True) -> None:
    deal = state["deal"]
    if leader in deal["skip_turn"]:
        # A violation during the tribute cost the leader its turn: the non-offending side leads
        # (everyone still holds cards, so the leader's 下家).
        deal["skip_turn"].remove(leader)
        deal["trick"]["plays"].append({"seq": ev["seq"], "seat": leader, "pass": True, "skipped": True,
                                       "t_ms": state["t_ms"]})
        leader = seats_from(leader)[1]
    deal["phase"] = "play"
    state["round"]["status"] = "play"
    deal["trick"]["leader"] = leader
    deal["leader"] = leader
    set_turn(state, leader, fx, first_lead=first_lead)


# ------------------------------------------------------------------------- tribute and return


def _require_phase(state: State, ev: dict[str, Any], phase: str) -> dict[str, Any]:
    _round(state, ev["type"])
    deal = state["deal"]
    if deal is None or deal["phase"] != phase:
        now = deal["phase"] if deal else "no deal"
        raise EventRejected(f"当前不是{ {'tribute': '进贡', 'return': '还贡'}[phase] }阶段 / {ev['type']}: not the {phase} phase (now: {now})")
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
        raise EventRejected(f"抗贡座位无效 / anti_tribute_declared: seats must be among the payers {plan['payers']}, got {seats!r}")
    if sorted(cards) != ["BJ", "BJ"]:
        raise EventRejected(f"抗贡须两张大王 / anti_tribute_declared: needs both big jokers, got {cards!r}")
    if deal["tributes"]:
        raise EventRejected("已进贡 / anti_tribute_declared: a tribute has already been given")
    deal["anti_tribute"] = {"seq": ev["seq"], "seats": list(seats), "cards": cards}
    # Declared cards are seen cards: one declarer holds both big jokers, two hold one each. Until
    # a declarer plays its joker, ``declared`` keeps it in that hand; a big joker from anyone else
    # contradicts the declaration (see ``play._check_declared``).
    deal["declared"] = {s: list(cards) if len(seats) == 1 else [cards[0]] for s in seats}
    for payer in plan["payers"]:
        stop_timer(state, payer, fx)
    _start_play(state, ev, plan["top"], fx)


def on_tribute(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``tribute_given``: once every payer has given, the receivers are worked out."""
    deal = _require_phase(state, ev, "tribute")
    plan = deal["tribute_plan"]
    seat = seat_field(ev["data"], "seat", ev["type"])
    card = card_field(ev["data"], "card", ev["type"])
    if seat not in plan["payers"]:
        raise EventRejected(f"此座位不需进贡 / tribute_given: {seat} owes no tribute (payers: {' '.join(plan['payers'])})")
    if any(t["from"] == seat for t in deal["tributes"]):
        raise EventRejected(f"已进贡 / tribute_given: {seat} has already given tribute")
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


def rules_of_round(state: State) -> Ruleset:
    """The round's ``Ruleset`` object."""
    return state["round"]["_rules"]


def on_return(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``return_given``: each receiver returns one card to the one who paid them."""
    deal = _require_phase(state, ev, "return")
    seat = seat_field(ev["data"], "seat", ev["type"])
    card = card_field(ev["data"], "card", ev["type"])
    owed = [t for t in deal["tributes"] if t["to"] == seat]
    if not owed:
        raise EventRejected(f"此座位无需还贡 / return_given: {seat} received no tribute")
    if any(r["from"] == seat for r in deal["returns"]):
        raise EventRejected(f"已还贡 / return_given: {seat} has already returned")
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
    _start_play(state, ev, leader, fx, first_lead=True)


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

    ``cards``: what ``seat`` shows by ``ev``: a tribute (``tribute_given``, already in
    ``deal.tributes``: both big jokers given as tribute are seen at the second) or a play (not yet
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
    playing = 0 if ev["type"] == "tribute_given" else cards.count("BJ")
    played = sum(deal["by_seat"][p].count("BJ") for p in payers) + playing
    returned = sum(1 for r in deal["returns"] if r["to"] in payers and r["card"] == "BJ")
    if len(given) + played - returned >= 2:
        raise_flag(state, ev, "anti_tribute_missed", seat,
                   {"payers": list(payers), "tribute_seqs": given, "card": "BJ"}, fx)


# ------------------------------------------------------------------------- deal end


def finish_deal(state: State, ev: dict[str, Any], fx: Effects, *, ended_by: str, foul: dict[str, Any] | None = None) -> None:
    """Close the deal: finish order, levels and the A rule, score sheet, deal record, round end."""
    deal = state["deal"]
    rnd = state["round"]
    order = list(deal["finish_order"])
    if foul is not None:
        winners = seats_of(scoring_other(foul["side"]))
        losers = seats_of(foul["side"])
        order = list(winners) + list(losers)
    else:
        for seat in seats_from(order[-1]):
            if seat not in order:
                order.append(seat)
    deal["finish_order"] = order
    deal["phase"] = "over"
    deal["ended_by"] = ended_by
    stop_all(state, fx)
    if deal["turn"] is not None:
        fx.append({"kind": "lamp", "seat": deal["turn"], "lamp": "turn", "mode": "off"})
    deal["turn"] = None
    levels_before = dict(state["levels"])
    rules = rules_of_round(state)
    outcome = deal_outcome(order)
    update = apply_deal(levels_before, deal["level"], outcome, rules, state["failed_at_a"])
    state["levels"] = dict(update.levels)
    state["failed_at_a"] = dict(update.a_failures)
    side, gain = outcome.winner_side, outcome.steps
    state["score_sheet"].append(
        {
            "deal": deal["no"],
            "level": deal["level"],
            "level_side": deal["level_side"],
            "finish_order": order,
            "gain": {"side": side, "levels": gain},
            "levels_before": levels_before,
            "levels_after": dict(state["levels"]),
            "past_a": update.game_winner,
            "ended_by": ended_by,
        }
    )
    state["deal_records"].append(
        {
            "deal": deal["no"],
            "level": deal["level"],
            "board": rnd.get("board"),
            "tributes": [{k: t[k] for k in ("from", "to", "card")} for t in deal["tributes"]],
            "returns": [{k: r[k] for k in ("from", "to", "card")} for r in deal["returns"]],
            "anti_tribute": deal["anti_tribute"],
            "tricks": [
                [({"seat": p["seat"], "pass": True} if p.get("pass") else {"seat": p["seat"], "cards": p["cards"]}) for p in t["plays"]]
                for t in [*deal["tricks"], deal["trick"]]
                if t["plays"]
            ],
            "by_seat": {s: list(c) for s, c in deal["by_seat"].items()},
            "counts_left": dict(deal["counts"]),
            "finish_order": order,
        }
    )
    if foul is not None:
        state["next_deal"] = {"kind": "none", "payers": [], "top": order[0], "leader": foul["next_leader"]}
    else:
        duty = tribute_duty(order)
        state["next_deal"] = {"kind": "double" if duty.double_down else "single", "payers": list(duty.payers), "top": duty.first}
    rnd["status"] = "deal_over"
    fx.append({"kind": "deal_ended", "deal": deal["no"], "finish_order": order, "levels": dict(state["levels"])})
    check_round_end(state, ev, fx, past_a=update.game_winner)


def scoring_other(side: str) -> str:
    """The other side."""
    return "NS" if side == "EW" else "EW"


def check_round_end(state: State, ev: dict[str, Any], fx: Effects, *, past_a: str | None = None) -> None:
    """After a deal (or when time runs out between deals): end the round if its format says so."""
    rnd = state["round"]
    if state["result"] is not None:
        return
    if past_a is not None:
        end_round(state, ev, fx, winner=past_a, reason="past_a", past_a=past_a)
        return
    fmt = rnd["format"]
    due = (
        rnd["extra_deal"]
        or (fmt["kind"] == "deals" and len(state["score_sheet"]) >= fmt["deals"])
        or (fmt["kind"] == "time" and rnd["time_up"])
    )
    if not due:
        return
    gained = scoring.gained_levels(state["levels"], rnd["start_levels"], None)
    winner = scoring.leader_by_levels(gained)
    if winner is None and not rnd["extra_deal"]:
        rnd["extra_deal"] = True
        fx.append({"kind": "tie_extra_deal"})
        return
    end_round(state, ev, fx, winner=winner, reason="time" if fmt["kind"] == "time" else fmt["kind"])


def end_round(
    state: State,
    ev: dict[str, Any],
    fx: Effects,
    *,
    winner: str | None,
    reason: str,
    past_a: str | None = None,
    penalty_loss: bool = False,
    points: dict[str, int] | None = None,
) -> None:
    """Record the round's result: levels gained, 级差分, match points."""
    rnd = state["round"]
    deal = state["deal"]
    if deal is not None and deal["phase"] != "over":
        stop_all(state, fx)
        if deal["turn"] is not None:
            fx.append({"kind": "lamp", "seat": deal["turn"], "lamp": "turn", "mode": "off"})
        deal["turn"] = None
        deal["phase"] = "over"
        deal["ended_by"] = deal["ended_by"] or reason
    rules = rules_of_round(state)
    gained = scoring.gained_levels(state["levels"], rnd["start_levels"], past_a)
    if points is not None:  # a forfeit
        lp = points
        mp = {s: match_points("win" if s == winner else "forfeit", rules) for s in ("EW", "NS")}
    elif winner is None:
        lp = {"EW": 13, "NS": 13}
        mp = {s: match_points("draw", rules) for s in ("EW", "NS")}
    else:
        loser = scoring_other(winner)
        if penalty_loss:
            # 判负 is scored from the levels the sides stand at: the offender's level + 4.
            pos_w, pos_l = penalty_loss_positions(level_position(state["levels"][winner], passed_a=past_a == winner),
                                                  level_position(state["levels"][loser]))
            pw, pl = level_difference_points(pos_w, pos_l)
        else:
            # d is the difference of the levels gained: what decides the round's winner, and what the hub
            # scores the table's result line by (event.model.Result.level_points). Both sides start a
            # competition round at 2, where it is the difference of the levels reached.
            pw, pl = level_difference_points(gained[winner], gained[loser])
        lp = {winner: pw, loser: pl}
        mp = {winner: match_points("win", rules), loser: match_points("loss", rules)}
    state["result"] = {
        "winner": winner,
        "reason": reason,
        "levels": dict(state["levels"]),
        "past_a": past_a,
        "gained": gained,
        "level_points": lp,
        "match_points": mp,
        "deals": len(state["score_sheet"]),
        "t_ms": state["t_ms"],
        "seq": ev["seq"],
    }
    rnd["status"] = "over"
    fx.append({"kind": "round_ended", "result": dict(state["result"])})


def on_round_ended(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``round_ended`` by the referee: a deal in progress is not scored; a tie plays one more deal."""
    rnd = _round(state, ev["type"])
    deal = state["deal"]
    if deal is not None and deal["phase"] != "over":
        stop_all(state, fx)
        if deal["turn"] is not None:
            fx.append({"kind": "lamp", "seat": deal["turn"], "lamp": "turn", "mode": "off"})
        deal["turn"] = None
        deal["phase"] = "over"
        deal["ended_by"] = "abandoned"
        rnd["status"] = "deal_over"
    gained = scoring.gained_levels(state["levels"], rnd["start_levels"], None)
    winner = scoring.leader_by_levels(gained)
    if winner is None and not rnd["extra_deal"] and state["score_sheet"]:
        rnd["extra_deal"] = True
        fx.append({"kind": "tie_extra_deal"})
        return
    end_round(state, ev, fx, winner=winner, reason="ended")


def on_score_sheet_signed(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``score_sheet_signed``: a side signs the finished round's score sheet."""
    if state["round"] is None or state["result"] is None:
        raise EventRejected("本轮尚未结束 / score_sheet_signed: the round has no result yet")
    side = side_field(ev["data"], "side", ev["type"])
    if state["signatures"][side]:
        raise EventRejected(f"已签字 / score_sheet_signed: {side} has already signed")
    state["signatures"][side] = True


def on_time_tick(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """A time-limited round: mark the time up; between deals, end the round at once."""
    rnd = state.get("round")
    if rnd is None or state["result"] is not None or rnd["time_up"]:
        return
    fmt = rnd["format"]
    if fmt["kind"] != "time" or state["t_ms"] < rnd["started_ms"] + int(fmt["minutes"] * 60000):
        return
    rnd["time_up"] = True
    fx.append({"kind": "time_up"})
    deal = state["deal"]
    if deal is not None and deal["phase"] == "over":
        check_round_end(state, ev, fx)


# ------------------------------------------------------------------------- duplicate release


def on_deal_released(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``deal_released`` (chief): the organiser releases one ended deal to the public feed.

    Duplicate (复式) play holds everything of a deal back from the public until every table
    playing it has finished (DESIGN rule 5); that call is the chief referee's, and like every state
    change it is an event in the table's log, so a restart keeps it. ``data.round`` defaults to
    the current round, so a deal of a finished round can still be released after the next round
    has been set up (an unreleased deal would hold the whole feed back). The release is
    table-wide, not part of the deal: ``apply`` keeps it out of the deal's log, so a later
    correction of that deal neither replays nor withdraws it — what has gone public stays public.
    """
    etype = ev["type"]
    if ev["role"] != "chief":
        raise EventRejected(f"公开牌局须由裁判长决定 / {etype}: only the chief referee may release a deal")
    data = ev["data"]
    deal_no = int_field(data, "deal", etype)
    current = state["round"]
    if current is None:
        raise EventRejected(f"本轮未设置 / {etype}: no round has been set up")
    round_no = data.get("round")
    if round_no is None:
        round_no = current["no"]
    elif not isinstance(round_no, int) or isinstance(round_no, bool):
        raise EventRejected(f"字段无效 / {etype}: 'round' must be an integer, got {round_no!r}")
    if round_no == current["no"]:
        rnd, live = current, state["deal"]
    else:
        archived = next((a for a in reversed(state["rounds"]) if a["round"]["no"] == round_no), None)
        if archived is None:
            raise EventRejected(f"本桌没有该轮 / {etype}: this table has no round {round_no}")
        rnd, live = archived["round"], None  # an archived round is over, and so is every deal of it
    started = rnd["deals_started"]
    if not 1 <= deal_no <= started:
        raise EventRejected(f"没有该副牌 / {etype}: round {round_no} has no deal {deal_no} (deals started: {started})")
    if live is not None and live["no"] == deal_no and live["phase"] != "over":
        raise EventRejected(f"该副牌尚未结束 / {etype}: deal {deal_no} of round {round_no} has not ended")
    if any(r["round"] == round_no and r["deal"] == deal_no for r in state["released_deals"]):
        raise EventRejected(f"该副牌已公开 / {etype}: deal {deal_no} of round {round_no} is already released")
    state["released_deals"].append(
        {"round": round_no, "deal": deal_no, "seq": ev["seq"], "t_ms": ev["t_ms"], "role": ev["role"]}
    )
    fx.append({"kind": "deal_released", "round": round_no, "deal": deal_no})
