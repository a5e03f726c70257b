"""Penalties given: who may give what, and what each does to the round (the ladder is
:mod:`table_service.engine.ladder`).

Warnings and violations are the
table referee's; fouls and losses the chief referee's alone, and so is anything that escalates
into one: the engine refuses the action otherwise, naming the reason.
"""

from __future__ import annotations

from typing import Any

from table_service.engine.deal_end import end_round, finish_deal
from table_service.engine.errors import EventRejected, RoleRejected
from table_service.engine.events import PENALTY_LEVELS, field, seat_field, side_field
from table_service.engine.flags import close_flag, find_flag, raise_flag, resolve_flag
from table_service.engine.ladder import LEVEL_ZH, escalate, escalated_on, recount_ladder
from table_service.engine.names import says_something
from table_service.engine.play import arrive_turn
from table_service.engine.roles import CHIEF_PENALTIES, is_late_for_chief
from table_service.engine.ruleset import since
from table_service.engine.state import State
from table_service.rules.scoring import FORFEIT_SCORE
from table_service.rules.seats import seat_zh, side_of, side_zh

Effects = list[dict[str, Any]]

def give_penalty(
    state: State,
    ev: dict[str, Any],
    fx: Effects,
    *,
    side: str,
    level: str,
    article: str,
    seat: str | None = None,
    flag: str | None = None,
    lose_turn: bool = False,
    next_leader: str | None = None,
    auto: bool = False,
) -> dict[str, Any] | None:
    """Apply a penalty and its consequences; returns the record (None if held for the chief).

    :raises EventRejected: a foul or loss (given or escalated into) without the chief's role, a
        foul during a deal without ``next_leader``, or ``lose_turn`` without the offender's seat.
    """
    final, ladder = escalate(state["penalties"][side], level, state["round"]["_rules"])
    if final in CHIEF_PENALTIES and ev["role"] != "chief":
        if auto:
            evidence = {"side": side, "level": level, "would_be": final, "article": article}
            if flag is not None:
                evidence["flag"] = flag
            raise_flag(state, ev, "penalty_escalation", seat, evidence, fx)
            return None
        raise RoleRejected(
            f"犯规/判负须由裁判长判罚（{side_zh(side)}方的{LEVEL_ZH[level]}将成为{LEVEL_ZH[final]}）"
            f" / only the chief referee may give a foul or a loss "
            f"({level} for {side} would be a {final})"
        )
    deal = state.get("deal")
    in_deal = deal is not None and deal["phase"] != "over"
    gen2 = since(state, 2)  # the rulings below marked so: a round set up before them folds as it was played
    # A deal has ended and the next is not drawn yet.
    between = gen2 and not in_deal and state["next_deal"] is not None
    if final == "foul" and (in_deal or between) and next_leader is None:
        raise EventRejected("犯规须指定下一副牌的领出者 / a foul needs next_leader (who leads the next deal)")
    if gen2 and final == "foul" and next_leader is not None and not (in_deal or between):
        raise EventRejected("第一副牌的领出由翻牌决定，不能指定 / next_leader: before the first deal its leader is "
                            "drawn by the cut card; the foul counts on the ladder only")
    if lose_turn and seat is None:
        raise EventRejected("失去出牌权须指明座位 / lose_turn needs the offender's seat")
    if gen2 and lose_turn and final != "violation":
        raise EventRejected(f"只有违例才可附加失去一次出牌权（此次为{LEVEL_ZH.get(final, final)}） / lose_turn goes with a violation only (this penalty is a {final})")
    if lose_turn and not in_deal and not between and since(state, 5):
        raise EventRejected("第一副牌开始前没有可失去的出牌权 / lose_turn: no deal has started yet, so there is no turn "
                            "to lose (give the violation without it)")
    state["penalties"][side] = ladder
    record = {
        "seq": ev["seq"],
        "t_ms": state["t_ms"],
        "side": side,
        "seat": seat,
        "given": level,
        "level": final,
        "article": article,
        "flag": flag,
        "auto": auto,
        "role": ev["role"],
        "deal": deal["no"] if deal else None,
        "lose_turn": lose_turn,
    }
    state["penalties"]["records"].append(record)
    fx.append({"kind": "penalty", "penalty": dict(record)})
    if final == "loss":
        winner = "NS" if side == "EW" else "EW"
        end_round(state, ev, fx, winner=winner, reason="loss", penalty_loss=True)
    elif final == "foul" and in_deal:
        finish_deal(state, ev, fx, ended_by="foul", foul={"side": side, "next_leader": next_leader})
    elif final == "foul" and between:
        # No deal to end or count as double-down (docs/rules.md): the next deal keeps the rest of
        # the foul, no tribute and the named leader.
        # A lost turn carried from an earlier violation between the same deals stays (generation 5).
        kept = {"skip_turn": state["next_deal"]["skip_turn"]} if "skip_turn" in state["next_deal"] else {}
        state["next_deal"] = {"kind": "none", "payers": [], "top": state["next_deal"]["top"], "leader": next_leader,
                              **kept}
    elif lose_turn:
        take_turn_away(state, ev, seat, fx)  # type: ignore[arg-type]  # seat checked above
    elif gen2 and auto and final == "violation" and level != "violation" and seat is not None and (
            (in_deal and (deal["phase"] == "play" or (since(state, 5) and deal["phase"] in ("tribute", "return"))))
            or (between and since(state, 9))):
        # An automatic warning the ladder made a violation: no referee chose, so the 下家's choice of
        # a lost turn is asked (confirming the flag takes the turn: apply._on_flag_confirmed); in the
        # tribute phase too (generation 5), where the turn is lost at the first lead if it is theirs; between
        # two deals too (generation 9), where a turn the 下家 takes is lost in the next deal.
        raise_flag(state, ev, "lose_turn_choice", seat, {"side": side, "penalty_seq": ev["seq"]}, fx)
    return record


def take_turn_away(state: State, ev: dict[str, Any], seat: str, fx: Effects) -> None:
    """The offender loses one turn: in play, now or the next time it comes (:func:`lose_one_turn`); in the
    tribute phase, at the first lead if it is theirs; between two deals (generation 5), in the next deal.

    Why the last: a violation ruled after a deal ended (a missed report card confirmed then, the
    referee's own ruling) was recorded with its turn lost and the turn was never taken."""
    deal = state["deal"]
    if deal is not None and deal["phase"] == "play":
        lose_one_turn(state, ev, seat, fx)
    elif deal is not None and deal["phase"] in ("tribute", "return"):
        deal["skip_turn"].append(seat)  # the first lead comes after the return: lost then if it is theirs
    elif state["next_deal"] is not None and since(state, 5):
        state["next_deal"] = {**state["next_deal"], "skip_turn": [*state["next_deal"].get("skip_turn", []), seat]}


def lose_one_turn(state: State, ev: dict[str, Any], seat: str, fx: Effects) -> None:
    """The offender loses one turn: now, if it is theirs, else the next time it comes."""
    deal = state["deal"]
    if deal["turn"] != seat:
        deal["skip_turn"].append(seat)
        return
    deal["skip_turn"].append(seat)
    arrive_turn(state, ev, seat, fx)


def on_penalty_given(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``penalty_given`` by a referee."""
    data = ev["data"]
    if state["round"] is None or state["result"] is not None:
        raise EventRejected("没有进行中的一轮 / penalty_given: no round in progress")
    side = side_field(data, "side", ev["type"])
    level = field(data, "level", ev["type"])
    if level not in PENALTY_LEVELS:
        raise EventRejected(f"处罚等级无效：须为 warning、violation、foul 或 loss，收到 {level!r}"
                            f" / penalty_given: level must be warning, violation, foul or loss, got {level!r}")
    article = field(data, "article", ev["type"])
    if not isinstance(article, str) or not article.strip() or (since(state, 6) and not says_something(article)):
        raise EventRejected("须注明条款 / penalty_given: article (the rule) is required")
    seat = seat_field(data, "seat", ev["type"], required=False)
    if seat is not None and side_of(seat) != side:
        raise EventRejected(f"{seat_zh(seat)}不属于{side_zh(side)}方 / penalty_given: seat {seat} is not on side {side}")
    next_leader = seat_field(data, "next_leader", ev["type"], required=False)
    flag = resolve_flag(state, data)
    if flag is not None:
        cited = state["flags"][find_flag(state, flag)]
        if cited["status"] in ("dismissed", "withdrawn") and since(state, 5):
            # Two referees at once: one dismissed the flag, the other's penalty must not count for it.
            raise EventRejected(f"标记 {flag} 已{'驳回' if cited['status'] == 'dismissed' else '撤回'}，不能据此判罚 / "
                                f"flag {flag} is {cited['status']}: a penalty cannot cite it")
        given = next((r for r in state["penalties"]["records"] if r["flag"] == flag), None)
        if given is not None and since(state, 2):
            # A second tap on the same flag would climb the ladder again for one breach.
            raise EventRejected(f"标记 {flag} 已判罚（#{given['seq']} {LEVEL_ZH[given['given']]}），如需改判请先撤销 / "
                                f"flag {flag} already has a penalty (#{given['seq']}, {given['given']}): "
                                "void it first to give another")
    give_penalty(
        state, ev, fx,
        side=side, level=level, article=article, seat=seat, flag=flag,
        lose_turn=bool(data.get("lose_turn")), next_leader=next_leader,
    )
    if flag is not None and since(state, 6):
        cited = state["flags"][find_flag(state, flag)]
        if cited["status"] == "open" and cited["rule"] not in RULINGS_OF_THEIR_OWN:
            # A penalty given on a flag upholds it: it was two taps (the penalty, then 确认), and flags
            # piled up as "open" with their penalties given. Not ``flag_confirmed``: what a confirmation
            # earns by itself (a missed report card's warning) is this penalty.
            close_flag(state, flag, "confirmed", ev, fx)


#: Flags a penalty does not close: a call for the referee (its answer restarts the clocks) and the
#: 下家's choice of a lost turn (its confirmation takes the turn): each is ruled on by itself.
RULINGS_OF_THEIR_OWN = frozenset({"referee_call", "lose_turn_choice"})


def on_late_arrival(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``late_arrival_recorded``: ≤ 5 min warning, ≤ 10 min foul, more: forfeit (17 : 0)."""
    data = ev["data"]
    if state["round"] is None or state["result"] is not None:
        raise EventRejected("没有进行中的一轮 / late_arrival_recorded: no round in progress")
    side = side_field(data, "side", ev["type"])
    minutes = field(data, "minutes", ev["type"])
    if not isinstance(minutes, int | float) or isinstance(minutes, bool) or minutes < 0:
        raise EventRejected(f"迟到分钟无效：须 ≥ 0，收到 {minutes!r}"
                            f" / late_arrival_recorded: minutes must be ≥ 0, got {minutes!r}")
    if minutes == 0 and since(state, 9):
        raise EventRejected("迟到 0 分钟不是迟到 / late_arrival_recorded: 0 minutes late is on time, not a late arrival")
    article = f"迟到 {minutes} 分钟 / late arrival, {minutes} min"
    rules = state["round"]["_rules"]
    if not is_late_for_chief(minutes, rules):
        give_penalty(state, ev, fx, side=side, level="warning", article=article)
        return
    if ev["role"] != "chief":
        raise RoleRejected(
            f"迟到超过{rules.late_warning_min}分钟须由裁判长判罚 / a late arrival over {rules.late_warning_min} minutes is for the chief referee"
        )
    if minutes <= rules.late_foul_min:
        leader = seat_field(data, "next_leader", ev["type"], required=False)
        give_penalty(state, ev, fx, side=side, level="foul", article=article, next_leader=leader)
        return
    winner = "NS" if side == "EW" else "EW"
    loser = side
    pts = FORFEIT_SCORE
    state["penalties"]["records"].append(
        {"seq": ev["seq"], "t_ms": state["t_ms"], "side": side, "seat": None, "given": "forfeit", "level": "forfeit",
         "article": article, "flag": None, "auto": False, "role": ev["role"], "deal": None, "lose_turn": False}
    )
    end_round(state, ev, fx, winner=winner, reason="forfeit", points={winner: pts[0], loser: pts[1]})


def refuse_dismissal_of_ruled(state: State, flag_id: str) -> None:
    """A flag a referee has given a penalty on is not dismissed under it (generation 5): the penalty
    would stand for a breach ruled not upheld (two referees tapping at once did exactly that). The
    penalty is voided first. The automatic penalties a dismissed ``time_over`` flag takes with it are
    not in the way (``apply._on_flag_dismissed``)."""
    if not since(state, 5):
        return
    given = next((r for r in state["penalties"]["records"]
                  if r["flag"] == flag_id and not r.get("auto") and not r.get("withdrawn")), None)
    if given is not None:
        raise EventRejected(f"标记 {flag_id} 已判罚（#{given['seq']}，{LEVEL_ZH[given['given']]}），如需驳回请先撤销判罚"
                            f" / flag {flag_id} has a penalty "
                            f"(#{given['seq']}, {given['given']}): void the penalty first to dismiss it")


def on_flag_upheld(state: State, ev: dict[str, Any], fx: Effects, flag: dict[str, Any]) -> None:
    """What a confirmed flag earns by itself under the ruleset. Today only ``report_missing``:
    ``Ruleset.report_missing_penalty`` — ``warning`` each time; ``warning_then_violation``
    (Huai'an 2017: "forgetting the report card: a warning, the second time a violation and one
    turn lost"), counted per side per round like the ladder; ``referee``: nothing automatic.
    The penalty cites the flag and is ``auto``; one that would escalate into a foul goes to the
    chief (``penalty_escalation``), as an automatic time warning does. Nothing once the round has
    its result (generation 7)."""
    if flag["rule"] != "report_missing" or flag["seat"] is None or state.get("round") is None:
        return
    if state.get("result") is not None and since(state, 7):
        # The round is over: a leftover flag upheld to tidy the list earns nothing by itself. Before
        # generation 7 its automatic warning went on the ladder, and one that made a second foul
        # replaced the round's result with a loss (16 : 10 became 17 : 9) after the score was final.
        # The referee may still give a penalty by hand.
        return
    rules = state["round"]["_rules"]
    mode = rules.report_missing_penalty
    if mode == "referee":
        return
    side = side_of(flag["seat"])
    rule_of = {f["id"]: f["rule"] for f in state["flags"]}
    before = sum(
        1
        for r in state["penalties"]["records"]
        if r["side"] == side and r["flag"] is not None and rule_of.get(r["flag"]) == "report_missing"
    )
    second = mode == "warning_then_violation" and before >= 1
    level = "violation" if second else "warning"
    times = "第二次" if second else "第一次" if mode == "warning_then_violation" else ""
    article = f"未报牌{times} / report card missing" + (" (second time: one turn lost)" if second else "")
    give_penalty(
        state, ev, fx,
        side=side, level=level, article=article, seat=flag["seat"], flag=flag["id"],
        lose_turn=second, auto=True,
    )


def earlier_penalty(state: State, ref: int) -> int | None:
    """The place in the round's records of the penalty entered by event ``ref`` when that event is not
    of the current deal (a penalty of an earlier deal of the round, or one given before the first
    deal): generation 9 lets the chief void it (:func:`void_earlier`). None otherwise."""
    if not since(state, 9) or any(e["seq"] == ref for e in state["_deal_log"]):
        return None
    return next((i for i, r in enumerate(state["penalties"]["records"])
                 if r["seq"] == ref and r["given"] in PENALTY_LEVELS), None)


def void_earlier(state: State, ev: dict[str, Any], fx: Effects, place: int) -> None:
    """``event_voided`` of a penalty of an earlier deal of the round (generation 9): the chief alone; the
    record is marked withdrawn and the side's ladder counted again without it. Nothing is re-scored: the
    deals since were played on it, so a penalty that changed levels or the round — a foul (the deal ended
    and scored as double-down) or a loss — is refused, and so is one a later penalty was escalated on
    (:func:`ladder.escalated_on`: void that one first). A lost turn it took stays taken (history)."""
    records = state["penalties"]["records"]
    r = records[place]
    if ev["role"] != "chief":
        raise RoleRejected(f"处罚 #{r['seq']} 属于前一副，只能由裁判长撤销 / event_voided: penalty #{r['seq']} is of an earlier "
                            "deal; only the chief referee voids it")
    reason = ev["data"].get("reason")
    if not isinstance(reason, str) or not says_something(reason):
        raise EventRejected("须说明理由 / event_voided: reason is required")
    if r.get("withdrawn"):
        raise EventRejected(f"处罚 #{r['seq']} 已撤销 / event_voided: penalty #{r['seq']} is already void")
    if state["result"] is not None:
        raise EventRejected(f"本轮已结束，处罚 #{r['seq']} 已计入结果 / event_voided: the round is over and "
                            f"penalty #{r['seq']} is part of its result")
    if r["level"] not in ("warning", "violation"):
        raise EventRejected(
            f"处罚 #{r['seq']}（{LEVEL_ZH[r['level']]}）已改变级数或结果，不能事后撤销，请由裁判长在记分表上纠正 / "
            f"event_voided: penalty #{r['seq']} was a {r['level']}, which changed the levels or the round; a deal "
            "already played on it is not re-scored: correct the score sheet at the chief's desk")
    later = escalated_on(state, {place})
    if later is not None:
        raise EventRejected(
            f"处罚 #{r['seq']} 已计入后来的处罚（#{later['seq']}，{LEVEL_ZH[later['given']]}记为{LEVEL_ZH[later['level']]}），"
            f"请先撤销该处罚 / event_voided: penalty #{r['seq']} counts under a later penalty (#{later['seq']}, given "
            f"as a {later['given']}, counted as a {later['level']}): void that one first")
    withdraw_earlier(state, ev["seq"], place)
    fx.append({"kind": "penalty_voided", "penalty": dict(records[place])})


def withdraw_earlier(state: State, seq: int, place: int) -> None:
    """Mark the record at ``place`` voided by event ``seq`` and count its side's ladder again (also after
    every re-fold of the current deal, which starts from the deal's snapshot: ``apply._refold_deal``)."""
    records = state["penalties"]["records"]
    records[place] = dict(records[place], withdrawn=True, withdrawn_seq=seq, withdrawn_why="voided")
    recount_ladder(state, records[place]["side"])
