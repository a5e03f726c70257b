"""The clocks around the referee: time-over by ticks and by a late action's own time, and the referee's
time being nobody's — play stopped while a call, a breach that stops play or a dark screen waits, and a
whole countdown once the referee has ruled.

Generation 9 (ruleset.py): play is **stopped** from the moment one of these is open until the last of them
is closed — a call for the referee, a flag of :data:`STOPS_PLAY` (a breach at the table that the players
point out, stopping play and calling the referee: the rules' procedure on a breach), the partition screen
offline (its countdowns dark, its buttons dead). While play is stopped nobody is over time: every lateness
is judged at the moment play stopped (:func:`judged_at`), by a tick or by the action's own stamp alike.
When play resumes, the seat to act (in the tribute phase each seat owing a tribute or return) gets a whole
countdown, whatever other flag of its own is open (:func:`resume`); so does it after the referee voids
any event (:func:`after_void`). Before generation 9 only a call for the referee stopped the clocks, the
seat to act was passed over while any flag of its own was open, and a void left the old deadline.
"""

from __future__ import annotations

from typing import Any

from table_service.engine import deal_end, penalties
from table_service.engine.flags import raise_flag
from table_service.engine.play import finish_pending
from table_service.engine.ruleset import since
from table_service.engine.state import State
from table_service.engine.timers import judged_at, overdue, restart_timer, set_turn, stopped_since
from table_service.rules.seats import side_of

Effects = list[dict[str, Any]]

#: A seat's own timed actions, by the deal phase in which they answer its countdown.
TIMED_ACTIONS = {"cards_played": "play", "passed": "play", "tribute_given": "tribute", "return_given": "return"}


def on_clock_ticked(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """Time-over for every overdue timer (flag once, then the automatic warning if the ruleset
    makes it automatic), the overtime count on the display, and the time limit of the round."""
    deal = state.get("deal")
    if deal is not None and deal["phase"] != "over":
        at = judged_at(state, state["t_ms"])
        for seat, timer in overdue(state, at=at if since(state, 9) else None):
            over = at - timer["deadline_ms"]
            fx.append({"kind": "overtime", "seat": seat, "seconds": over // 1000})
            overtime(state, ev, fx, seat, timer, over)
    deal_end.on_time_tick(state, ev, fx)


def overtime(state: State, ev: dict[str, Any], fx: Effects, seat: str, timer: dict[str, Any], over: int) -> None:
    """What ``over`` ms past ``seat``'s deadline has earned by ``ev``, each once per timer: the
    ``time_over`` flag, then the automatic warning after ``overtime_warning_s`` and the violation
    (with the turn lost) ``overtime_violation_s`` later, where the ruleset makes them automatic."""
    deal = state["deal"]
    rules = state["round"]["_rules"]
    if not timer["flagged"]:
        timer["flagged"] = True
        flag = raise_flag(state, ev, "time_over", seat, {"phase": timer["phase"], "deadline_ms": timer["deadline_ms"], "overtime_ms": over}, fx)
        timer["flag"] = flag["id"]
    if not rules.auto_time_warning:
        return
    article = f"超时 {over // 1000} 秒 / time over by {over // 1000} s ({timer['phase']})"
    if not timer["warned"] and over >= rules.overtime_warning_s * 1000:
        timer["warned"] = True
        penalties.give_penalty(state, ev, fx, side=side_of(seat), level="warning", seat=seat, auto=True,
                               article=article, flag=timer.get("flag"))
    limit = rules.overtime_violation_s
    if limit is not None and timer["warned"] and not timer["violated"] and over >= (rules.overtime_warning_s + limit) * 1000:
        timer["violated"] = True
        lose = deal["phase"] == "play" and deal["turn"] == seat
        penalties.give_penalty(state, ev, fx, side=side_of(seat), level="violation", seat=seat, auto=True,
                               article=article, lose_turn=lose, flag=timer.get("flag"))


def late_by_own_time(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """A seat's late action (a play, a pass, a tribute, a return) first earns, by its own time
    ``ev["t_ms"]``, what the ticks up to that time would have given it (:func:`overtime`): the ruling
    depends on the times alone, not on whether a ``clock_ticked`` came between the deadline and the
    action (rounds from generation 3, ruleset.py; before, a late action with no tick before it had
    the flag only). A Huai'an violation's lost turn is lost before the action, as after a tick.
    Generation 9: judged at the moment play stopped, if it is stopped (:func:`judged_at`)."""
    phase = TIMED_ACTIONS.get(ev["type"])
    deal = state.get("deal")
    if phase is None or deal is None or deal["phase"] != phase or not since(state, 3):
        return
    seat = ev["data"].get("seat")
    at = judged_at(state, ev["t_ms"])
    for s, timer in overdue(state, at=at):
        if s == seat:
            overtime(state, ev, fx, s, timer, at - timer["deadline_ms"])


def rearm_turn_clock(state: State, fx: Effects, *, restart: bool = False) -> None:
    """Once the referee has ruled, the player whose turn it is has a countdown again.

    A wrong play (one that does not beat) keeps the turn with its player and stops their clock
    for the referee; without this nothing started it again, and the player could take minutes.
    ``restart``: the last call for the referee was answered, and play resumes with a whole
    countdown (while the call was open nobody was over time). Not while the referee still has an
    open flag or question about that seat (before generation 9; from 9, :func:`resume` and
    :func:`after_event` decide).
    """
    deal = state["deal"]
    if deal is None or state["result"] is not None or since(state, 9):
        return  # generation 9: after_event decides
    if deal["phase"] in ("tribute", "return") and restart and since(state, 5):
        # Every countdown of the tribute or the return still running stood still while the referee
        # was called: each starts whole again (before generation 5 they ran on and ran out).
        for seat in sorted(deal["timers"]):
            if not any(f["status"] == "open" and f.get("seat") == seat for f in state["flags"]):
                restart_timer(state, seat, fx)
        return
    if deal["phase"] != "play":
        return
    seat = deal["turn"]
    if seat is None or (seat in deal["timers"] and not restart) or any(q["seat"] == seat for q in deal["questions"]):
        return
    if any(f["status"] == "open" and f.get("seat") == seat for f in state["flags"]):
        return
    # The deal's first lead keeps its own, longer countdown.
    set_turn(state, seat, fx, first_lead=not deal["tricks"] and not deal["trick"]["plays"])


def resume(state: State, fx: Effects) -> list[str]:
    """Play resumes after the referee's ruling (generation 9): a whole countdown for the seat to act —
    in the tribute phase for every seat whose tribute or return is still due — whatever other flag of
    its own is open; none for a seat whose play the referee is still looking at (a question), or while
    play is still stopped. Returns the seats given one."""
    deal = state.get("deal")
    if deal is None or deal["phase"] == "over" or state["result"] is not None or stopped_since(state) is not None:
        return []
    if deal["phase"] in ("tribute", "return"):
        seats = sorted(deal["timers"])
        for seat in seats:
            restart_timer(state, seat, fx)
        return seats
    seat = deal["turn"]
    if seat is None or any(q["seat"] == seat for q in deal["questions"]):
        return []
    if not restart_timer(state, seat, fx):
        set_turn(state, seat, fx)  # generation 7: the deal's first lead keeps its own length
    return [seat]


def after_event(state: State, ev: dict[str, Any], fx: Effects, was: int | None) -> None:
    """After each event (generation 9): play stopped before it (``was``, :func:`stopped_since`) and runs
    after it: play resumes (:func:`resume`); a ruling on a flag that leaves the seat to act with no
    countdown gives it one; an out-of-turn play that emptied its hand finishes once its flag is ruled
    on (:func:`finish_pending`)."""
    if not since(state, 9):
        return
    finish_pending(state, ev, fx)
    if stopped_since(state) is not None:
        return
    deal = state.get("deal")
    if was is not None or ev["type"] in ("flag_confirmed", "flag_dismissed", "penalty_given") and deal is not None \
            and deal["phase"] == "play" and deal["turn"] is not None and deal["turn"] not in deal["timers"]:
        resume(state, fx)


def after_void(state: State, fx: Effects) -> list[str]:
    """The referee voided an event (generation 9): the referee's time is nobody's, so the seat to act
    (each seat owing a tribute or return) gets a whole countdown from the ruling. Returns the seats, for
    the caller to keep among the deal's restarts (every later re-fold gives them too)."""
    if not since(state, 9):
        return []
    return resume(state, fx)
