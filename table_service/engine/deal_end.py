"""The end of a deal and of the round: the finish order, levels and the A rule, the score sheet and
the deal's record, the round's end by its format (the tie deal, the time limit), its result and
signatures, and the chief's release of an ended deal to the public feed.

It is apart from the start of the round and the tribute phase because this is where a round's
outcome is decided: ``play`` and ``penalties`` end a deal or a round through ``finish_deal`` and
``end_round`` without reaching into how the round was set up or the deal paid for.
"""

from __future__ import annotations

from typing import Any

from table_service.engine import scoring
from table_service.engine.errors import EventRejected, RoleRejected
from table_service.engine.events import int_field, side_field
from table_service.engine.resume import deals_played
from table_service.engine.round_setup import ended_by_time_now, require_round, rules_of_round
from table_service.engine.ruleset import since
from table_service.engine.state import State
from table_service.engine.timers import stop_all
from table_service.rules.levels import apply_deal, deal_outcome, level_position
from table_service.rules.scoring import level_difference_points, match_points, penalty_loss_positions
from table_service.rules.seats import seats_from, seats_of, side_zh
from table_service.rules.tribute import tribute_duty

Effects = list[dict[str, Any]]


# ------------------------------------------------------------------------- deal end


def finish_deal(state: State, ev: dict[str, Any], fx: Effects, *, ended_by: str, foul: dict[str, Any] | None = None) -> None:
    """Close the deal: finish order, levels and the A rule, score sheet, deal record, round end."""
    deal = state["deal"]
    rnd = state["round"]
    order = list(deal["finish_order"])
    if foul is not None:
        winners = seats_of(scoring_other(foul["side"]))
        losers = seats_of(foul["side"])
        if since(state, 6):
            # The offending side counts as double-down; who really went out keeps their place within
            # each side (W out first and NS's foul: W, E, N, S — W stays 上游 on the sheet, not E).
            winners = [s for s in order if s in winners] + [s for s in winners if s not in order]
            losers = [s for s in order if s in losers] + [s for s in losers if s not in order]
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
    _report_lamps_off(deal, fx)
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
            # A corrected tribute: the card the receiver ended with, and the wrong one first given.
            "tributes": [{**{k: t[k] for k in ("from", "to", "card")},
                          **({"given": t["corrected"]["given"]} if t.get("corrected") else {})} for t in deal["tributes"]],
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
        or (fmt["kind"] == "deals" and deals_played(state) >= fmt["deals"])
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
    reason = "ended" if rnd.get("called") else "time" if fmt["kind"] == "time" else fmt["kind"]
    end_round(state, ev, fx, winner=winner, reason=reason)


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
        _halt_deal(state, deal, fx)
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
        if penalty_loss and since(state, 5):
            # 判负 is scored as the offender's level + 4, on the levels gained like every other result
            # (each side's level counted from 2, where a competition round starts both): a round set
            # up at unequal levels is not scored on the gap it started with.
            # A side sent back to 2 (failures at A) has gained less than nothing: it stands at 2.
            pos_w, pos_l = (max(level_position("2"), level_position("2") + gained[side]) for side in (winner, loser))
            pos_w, pos_l = penalty_loss_positions(pos_w, pos_l)
            pw, pl = level_difference_points(pos_w, pos_l)
        elif penalty_loss:
            # Generation 4 and before: from the levels the sides stand at.
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
        "deals": deals_played(state),
        "t_ms": state["t_ms"],
        "seq": ev["seq"],
    }
    rnd["status"] = "over"
    fx.append({"kind": "round_ended", "result": dict(state["result"])})


def _report_lamps_off(deal: dict[str, Any], fx: Effects) -> None:
    """The deal is over: its report lamps go out (a device refresh after a restart shows them off too)."""
    for seat in sorted(deal["reports"]):
        fx.append({"kind": "lamp", "seat": seat, "lamp": "report", "mode": "off"})


def _halt_deal(state: State, deal: dict[str, Any], fx: Effects) -> None:
    """A deal still in play when the round ends: its clocks stop, its turn lamp goes out, it is over
    (the caller says why)."""
    stop_all(state, fx)
    if deal["turn"] is not None:
        fx.append({"kind": "lamp", "seat": deal["turn"], "lamp": "turn", "mode": "off"})
    _report_lamps_off(deal, fx)
    deal["turn"] = None
    deal["phase"] = "over"


def on_round_ended(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``round_ended`` by the referee: a deal in progress is not scored; a tie plays one more deal."""
    if ended_by_time_now(state, ev):
        return  # the time limit had passed between deals: the round ended by it, as the chief says
    rnd = require_round(state, ev["type"])
    deal = state["deal"]
    if deal is not None and deal["phase"] != "over":
        _halt_deal(state, deal, fx)
        deal["ended_by"] = "abandoned"
        rnd["status"] = "deal_over"
    gained = scoring.gained_levels(state["levels"], rnd["start_levels"], None)
    winner = scoring.leader_by_levels(gained)
    if winner is None and not rnd["extra_deal"] and deals_played(state):
        rnd["extra_deal"] = True
        if since(state, 7):
            # The round's end was called on a tie: the extra deal decides it, and the result says the
            # round was ended (check_round_end), not the format's reason (generation 6: "past_a" for a
            # round to past A that nobody passed).
            rnd["called"] = True
        fx.append({"kind": "tie_extra_deal"})
        return
    end_round(state, ev, fx, winner=winner, reason="ended")


def on_score_sheet_signed(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``score_sheet_signed``: a side signs the finished round's score sheet."""
    if state["round"] is None or state["result"] is None:
        raise EventRejected("本轮尚未结束 / score_sheet_signed: the round has no result yet")
    side = side_field(ev["data"], "side", ev["type"])
    if state["signatures"][side]:
        raise EventRejected(f"{side_zh(side)}方已签字 / score_sheet_signed: {side} has already signed")
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
    playing it has finished (nothing of a duplicate deal goes public before); that call is the chief referee's, and like every state
    change it is an event in the table's log, so a restart keeps it. ``data.round`` defaults to
    the current round, so a deal of a finished round can still be released after the next round
    has been set up (an unreleased deal would hold the whole feed back). The release is
    table-wide, not part of the deal: ``apply`` keeps it out of the deal's log, so a later
    correction of that deal neither replays nor withdraws it — what has gone public stays public.
    """
    etype = ev["type"]
    if ev["role"] != "chief":
        raise RoleRejected(f"{etype}：公开牌局须由裁判长决定 / {etype}: only the chief referee may release a deal")
    data = ev["data"]
    deal_no = int_field(data, "deal", etype)
    current = state["round"]
    if current is None:
        raise EventRejected(f"{etype}：本轮未设置 / {etype}: no round has been set up")
    round_no = data.get("round")
    if round_no is None:
        round_no = current["no"]
    elif not isinstance(round_no, int) or isinstance(round_no, bool):
        raise EventRejected(f"{etype}：字段无效，'round' 须为整数，收到 {round_no!r}"
                            f" / {etype}: 'round' must be an integer, got {round_no!r}")
    if round_no == current["no"]:
        rnd, live = current, state["deal"]
    else:
        archived = next((a for a in reversed(state["rounds"]) if a["round"]["no"] == round_no), None)
        if archived is None:
            raise EventRejected(f"{etype}：本桌没有第 {round_no} 轮 / {etype}: this table has no round {round_no}")
        rnd, live = archived["round"], None  # an archived round is over, and so is every deal of it
    started = rnd["deals_started"]
    if not 1 <= deal_no <= started:
        raise EventRejected(f"{etype}：第 {round_no} 轮没有第 {deal_no} 副（已开始 {started} 副）"
                            f" / {etype}: round {round_no} has no deal {deal_no} (deals started: {started})")
    if live is not None and live["no"] == deal_no and live["phase"] != "over":
        raise EventRejected(f"{etype}：第 {round_no} 轮第 {deal_no} 副尚未结束"
                            f" / {etype}: deal {deal_no} of round {round_no} has not ended")
    if any(r["round"] == round_no and r["deal"] == deal_no for r in state["released_deals"]):
        raise EventRejected(f"{etype}：第 {round_no} 轮第 {deal_no} 副已公开"
                            f" / {etype}: deal {deal_no} of round {round_no} is already released")
    # ``source``: who made the call (``panel``: the chief's tap; ``hub``: the event hub, once both rooms
    # ended the deal), so the panel can say which, and when.
    state["released_deals"].append(
        {"round": round_no, "deal": deal_no, "seq": ev["seq"], "t_ms": ev["t_ms"], "role": ev["role"],
         "source": ev["source"]}
    )
    fx.append({"kind": "deal_released", "round": round_no, "deal": deal_no})
