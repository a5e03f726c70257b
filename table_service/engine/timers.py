"""Per-seat timers: deadlines kept in the state, so a restart resumes the same countdowns.

The engine never reads a clock: a timer is a deadline in event time (``t_ms``); time-over is
noticed when an event (a ``clock_ticked`` or the seat's own late action) carries a later time. In a
round from generation 3 (ruleset.py) the ruling depends only on the times: a late action earns, by
its own time, what ticks up to that time would have given (``referee_time.late_by_own_time``), and loses
an automatic penalty that a tick gave but its own time shows it had not earned.
"""

from __future__ import annotations

from typing import Any

from table_service.engine.errors import EventRejected
from table_service.engine.flags import raise_flag
from table_service.engine.ladder import LEVEL_ZH, escalated_on, recount_ladder
from table_service.engine.ruleset import since
from table_service.engine.state import State

#: Timer phase -> ``Ruleset`` option with its length in seconds.
PHASE_OPTION = {
    "follow": "clock_follow_s",
    "lead": "clock_lead_s",
    "first_lead": "clock_first_lead_s",
    "tribute": "clock_tribute_s",
    "return": "clock_return_s",
}


#: Flags that stop play until the referee rules (generation 9): breaches of the play itself, seen at the
#: table as they happen — "point it out and stop play, call the referee, take no action until the
#: referee rules" — and whose ruling decides who acts next (a lost turn for a wrong play, an exposed
#: card or a play out of turn; the lead after a wrong pass). Flags the engine raises from later proof
#: (a tribute not the highest, a declaration contradicted), from the clock (``time_over``), from the
#: count after the drawing (``wrong_count``), on the report card, or for the chief (``penalty_escalation``)
#: do not stop play: the referee calls for a stop where one is needed.
STOPS_PLAY = frozenset({"referee_call", "out_of_turn", "leader_passed", "does_not_beat", "not_a_pattern",
                        "finished_seat_acted", "exposed_card"})

def stopped_since(state: State) -> int | None:
    """When play stopped (generation 9): the earliest time among the open flags that stop play and the
    screen's going offline; None while play runs (and always before generation 9)."""
    if not since(state, 9):
        return None
    deal = state.get("deal")
    no = deal["no"] if deal is not None else None
    # A call for the referee stops play wherever it was made; a breach stops its own deal's play only (a
    # flag left open when its deal ended does not hold up the next).
    times = [f["t_ms"] for f in state["flags"] if f["status"] == "open" and f["rule"] in STOPS_PLAY
             and (f["rule"] == "referee_call" or f.get("deal") == no)]
    if state.get("screen_offline_ms") is not None:
        times.append(state["screen_offline_ms"])
    return min(times) if times else None


def judged_at(state: State, t: int) -> int:
    """The time a lateness at ``t`` is judged at: ``t``, or the moment play stopped if it is stopped."""
    stop = stopped_since(state)
    return t if stop is None else min(t, stop)


def start_timer(state: State, seat: str, phase: str, fx: list[dict[str, Any]], *, option: str | None = None,
                at_ms: int | None = None) -> None:
    """Start ``seat``'s countdown for ``phase`` from the current event time (or from ``at_ms``)."""
    seconds = getattr(state["round"]["_rules"], PHASE_OPTION[option or phase])
    t = state["t_ms"] if at_ms is None else at_ms
    state["deal"]["timers"][seat] = {
        "phase": phase,
        "started_ms": t,
        "deadline_ms": t + int(seconds * 1000),
        "flagged": False,
        "warned": False,
        "violated": False,
    }
    fx.append({"kind": "countdown", "seat": seat, "seconds": seconds, "deadline_ms": t + int(seconds * 1000), "phase": phase})


def restart_timer(state: State, seat: str, fx: list[dict[str, Any]], *, at_ms: int | None = None) -> bool:
    """Give ``seat``'s running countdown its whole length again, from now (or ``at_ms``); False if none runs.

    Why: the referee's time is nobody's (the rules' procedure on a breach: play stops until the referee
    rules). A tribute or a play the referee sent back is given again against a whole countdown, not the
    one that ran out while the referee looked; so is each countdown of the tribute phase once a call for
    the referee is answered (``referee_time.rearm_turn_clock``)."""
    deal = state["deal"]
    timer = deal["timers"].get(seat) if deal is not None else None
    if timer is None:
        return False
    phase = timer["phase"]
    # The deal's first lead (a lost turn there leaves only a skipped entry in the trick) keeps its length.
    first = phase == "lead" and (first_lead_due(deal) if since(state, 7) else
                                 not deal["tricks"] and all(p.get("skipped") for p in deal["trick"]["plays"]))
    start_timer(state, seat, phase, fx, option="first_lead" if first else None, at_ms=at_ms)
    return True


def first_lead_due(deal: dict[str, Any]) -> bool:
    """Whether the lead now due is the deal's first: no trick has been won and nobody has led one yet.
    A wrong lead (flagged, never the trick's top), a turn lost there (a skipped entry) and plays out of
    turn leave it the first lead, with its own, longer countdown (generation 7)."""
    return not deal["tricks"] and deal["trick"]["top"] is None


def stop_timer(state: State, seat: str, fx: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Stop ``seat``'s timer; returns it (with ``overtime_ms`` filled in) or None."""
    timer = state["deal"]["timers"].pop(seat, None)
    if timer is not None:
        timer["overtime_ms"] = max(0, state["t_ms"] - timer["deadline_ms"])
        fx.append({"kind": "countdown_stopped", "seat": seat})
    return timer


def stop_and_check(state: State, ev: dict[str, Any], seat: str, fx: list[dict[str, Any]]) -> int:
    """Stop ``seat``'s timer for its own action ``ev`` and judge its lateness by the action's own
    time ``ev["t_ms"]`` (a tribute, a return, a play or a pass alike).

    Late, and no ``clock_ticked`` had flagged it yet: flag ``time_over`` (in a round from
    generation 3 ``referee_time.late_by_own_time`` has flagged it already, with the automatic penalties
    due by the action's time). In time, although a tick had flagged it: the tick could not know that
    the play was already down (the camera stamps a play put down by the deadline but read after it
    at the deadline), so its ``time_over`` flag — and the automatic penalties that cite it — are
    withdrawn (:func:`withdraw_time_over`). Late, but by less than an automatic penalty a tick gave
    needs (generation 3): that penalty is withdrawn, the flag stands.
    Returns the overtime in ms (0 if none, or no timer ran).
    """
    timer = stop_timer(state, seat, fx)
    if timer is None:
        return 0
    # Generation 9: an action stamped while play is stopped is judged at the moment play stopped.
    over = max(0, judged_at(state, ev["t_ms"]) - timer["deadline_ms"])
    timer["overtime_ms"] = over
    if over > 0 and not timer["flagged"]:
        raise_flag(
            state, ev, "time_over", seat,
            {"phase": timer["phase"], "deadline_ms": timer["deadline_ms"], "overtime_ms": over}, fx,
        )
    elif over == 0 and timer["flagged"] and timer.get("flag"):
        withdraw_time_over(state, ev, timer["flag"], fx)
    elif over > 0 and timer.get("flag") and since(state, 3):
        unearned = unearned_levels(state, timer, over)
        if unearned:
            withdraw_time_over(state, ev, timer["flag"], fx, levels=unearned)
    if over > 0 and timer["flagged"] and timer.get("flag") and since(state, 5):
        # The tick raised the flag a moment past the deadline (+0.04 s); the referee rules on how late
        # the action came, so the flag says it (generation 5).
        _set_overtime(state, timer["flag"], over, fx)
    return over


def _set_overtime(state: State, flag_id: str, over: int, fx: list[dict[str, Any]]) -> None:
    for i, f in enumerate(state["flags"]):
        if f["id"] == flag_id and f["evidence"].get("overtime_ms") != over:
            state["flags"][i] = dict(f, evidence={**f["evidence"], "overtime_ms": over})
            fx.append({"kind": "flag_updated", "flag": dict(state["flags"][i])})


def unearned_levels(state: State, timer: dict[str, Any], over: int) -> set[str]:
    """The automatic time penalties ``timer`` has had (from a tick) that ``over`` ms of overtime
    would not have earned: the warning before ``overtime_warning_s``, the violation before
    ``overtime_warning_s + overtime_violation_s``."""
    rules = state["round"]["_rules"]
    warn_ms = rules.overtime_warning_s * 1000
    out = set()
    if timer.get("warned") and over < warn_ms:
        out |= {"warning", "violation"}
    limit = rules.overtime_violation_s
    if timer.get("violated") and limit is not None and over < warn_ms + limit * 1000:
        out.add("violation")
    return out


def withdraw_time_over(state: State, ev: dict[str, Any], flag_id: str, fx: list[dict[str, Any]], *,
                       levels: set[str] | None = None, why: str | None = None) -> None:
    """The action came in time by its own stamp: the tick's ``time_over`` flag ``flag_id`` is
    withdrawn (whatever the referee had done with it: its evidence is gone), with the automatic
    penalties that cite it and the ``penalty_escalation`` flags they raised; the side's ladder is
    counted again without them. ``levels``: the action was late, by less than these automatic
    penalties need: only they (and the escalation flags they raised, ``withdrawn_why: "not_earned"``)
    are withdrawn, the flag stands. ``why``: another reason to give (``"dismissed"``: the referee did
    not uphold the flag the penalties cite). From generation 7 nothing is withdrawn while a later
    penalty was escalated on these (:func:`ladder.escalated_on`): the flag says so (``held_by``)."""
    why = why or ("in_time" if levels is None else "not_earned")
    if since(state, 7):
        later = escalated_on(state, set(time_penalties(state, flag_id, levels)))
        if later is not None:
            # A later penalty was escalated on them (generation 7): a ruling acted upon is history. The
            # action's own time cannot be refused, so the flag and its penalties are held as they are,
            # and say why; voiding that penalty re-folds the deal, and this action then withdraws them.
            _hold(state, flag_id, later, why, fx)
            return
    withdrawn = {flag_id}
    for i, f in enumerate(state["flags"]):
        cites = f["rule"] == "penalty_escalation" and f["evidence"].get("flag") == flag_id \
            and (levels is None or f["evidence"].get("level") in levels)
        if ((f["id"] == flag_id and levels is None) or cites) and f["status"] != "withdrawn":
            withdrawn.add(f["id"])
            state["flags"][i] = dict(f, status="withdrawn", withdrawn_seq=ev["seq"], withdrawn_why=why)
            fx.append({"kind": "flag_updated", "flag": dict(state["flags"][i])})
    records = state["penalties"]["records"]
    sides = set()
    for i, r in enumerate(records):
        if r.get("auto") and r.get("flag") in withdrawn and not r.get("withdrawn") \
                and (levels is None or r["given"] in levels):
            records[i] = dict(r, withdrawn=True, withdrawn_seq=ev["seq"])
            sides.add(r["side"])
    for side in sorted(sides):
        recount_ladder(state, side)


def time_penalties(state: State, flag_id: str, levels: set[str] | None = None) -> list[int]:
    """The places in the round's records of the standing automatic penalties that cite the time flag
    ``flag_id`` (only those given as one of ``levels``, when named)."""
    return [i for i, r in enumerate(state["penalties"]["records"])
            if r.get("auto") and r.get("flag") == flag_id and not r.get("withdrawn")
            and (levels is None or r["given"] in levels)]


def refuse_time_withdrawal(state: State, flag_id: str) -> None:
    """A ``time_over`` flag is not dismissed (generation 7) while the automatic warning or violation it
    would take with it is history: after the round's result, or once a later penalty was escalated on
    it (:func:`ladder.escalated_on`) — the referee voids that penalty first.

    :raises EventRejected: saying which, and what to do."""
    places = time_penalties(state, flag_id, {"warning", "violation"})
    if not places or not since(state, 7):
        return
    if state["result"] is not None:
        raise EventRejected(f"本轮已结束，标记 {flag_id} 的自动处罚已计入结果，不能撤回 / flag {flag_id}: the round is "
                            "over, and the automatic penalty under this flag is part of its result: it is not withdrawn")
    later = escalated_on(state, set(places))
    if later is not None:
        given = state["penalties"]["records"][places[0]]["given"]
        raise EventRejected(
            f"标记 {flag_id} 的自动{LEVEL_ZH[given]}已计入后来的处罚（#{later['seq']}，{LEVEL_ZH[later['given']]}"
            f"记为{LEVEL_ZH[later['level']]}），请先撤销该处罚再驳回 / flag {flag_id}: its automatic {given} counts "
            f"under a later penalty (#{later['seq']}, given as a {later['given']}, counted as a {later['level']}): "
            "void that penalty first, then dismiss the flag")


def _hold(state: State, flag_id: str, later: dict[str, Any], why: str, fx: list[dict[str, Any]]) -> None:
    for i, f in enumerate(state["flags"]):
        if f["id"] == flag_id:
            state["flags"][i] = dict(f, evidence={**f["evidence"], "held_by": later["seq"], "held_why": why})
            fx.append({"kind": "flag_updated", "flag": dict(state["flags"][i])})


def stop_all(state: State, fx: list[dict[str, Any]]) -> None:
    """Stop every running timer (deal over, round over)."""
    deal = state.get("deal")
    if deal is None:
        return
    for seat in list(deal["timers"]):
        stop_timer(state, seat, fx)


def set_turn(state: State, seat: str | None, fx: list[dict[str, Any]], *, first_lead: bool = False) -> None:
    """Give the turn to ``seat``: turn lamps, and its lead or follow countdown (the first lead
    of a deal has its own length in the ruleset: :func:`first_lead_due`)."""
    deal = state["deal"]
    old = deal["turn"]
    for other in list(deal["timers"]):
        if other != seat or deal["phase"] == "play":
            stop_timer(state, other, fx)
    deal["turn"] = seat
    if old is not None and old != seat:
        fx.append({"kind": "lamp", "seat": old, "lamp": "turn", "mode": "off"})
    if seat is None:
        return
    if old != seat:
        fx.append({"kind": "lamp", "seat": seat, "lamp": "turn", "mode": "on"})
    phase = "lead" if deal["trick"]["top"] is None else "follow"
    # Generation 7: the deal's first lead has its own length by whichever way the turn came (a lost turn,
    # a ruling on a wrong lead); before, only where the caller said so.
    first_lead = first_lead or (phase == "lead" and since(state, 7) and first_lead_due(deal))
    start_timer(state, seat, phase, fx, option="first_lead" if first_lead else None)


def referee_called(state: State) -> bool:
    """Whether a call for the referee is open (play is stopped until the referee rules)."""
    return any(f["rule"] == "referee_call" and f["status"] == "open" for f in state["flags"])


def overdue(state: State, at: int | None = None) -> list[tuple[str, dict[str, Any]]]:
    """Timers whose deadline has passed at the current event time (or at ``at``), in seat order.

    A seat whose play the camera saw by the deadline but could not read with confidence is
    not over time while the referee answers the question: the player acted in time, and the
    referee's look at the cards must not count against them. Nobody is over time while a call
    for the referee is open.
    """
    deal = state.get("deal")
    if deal is None or (referee_called(state) and not since(state, 9)):
        # A player called the referee: play stops, and nobody acts until the referee rules (the
        # rules' procedure on a breach); the countdown starts again then (referee_time.rearm_turn_clock).
        return []
    t = state["t_ms"] if at is None else at
    timers = deal["timers"]
    asked = {
        q["seat"]
        for q in deal.get("questions", ())
        if q["seat"] in timers and q["t_ms"] <= timers[q["seat"]]["deadline_ms"]
    }
    return [(seat, tm) for seat, tm in sorted(timers.items()) if t > tm["deadline_ms"] and seat not in asked]
