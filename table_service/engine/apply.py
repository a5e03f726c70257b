"""``apply`` and ``fold``: the one dispatcher from events to state changes.

``apply(state, event)`` is pure: it copies what it changes and returns ``(new_state, effects)``;
``fold(events)`` replays a log with the same code (without keeping effects). A referee's
correction or void of an earlier event of the current deal never edits that event: the deal is
re-folded from the snapshot taken when it started, with the correction applied in place of the
original (a correction is a new event that supersedes an earlier one; nothing logged is ever edited).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from table_service.engine import (
    deal_end,
    penalties,
    play,
    referee_time,
    round_setup,
    tribute_correction,
    tribute_phase,
)
from table_service.engine.errors import EventRejected, RoleRejected, halves
from table_service.engine.events import (
    DEVICE_STATUSES,
    DEVICES,
    VOIDABLE_TYPES,
    card_field,
    cards_field,
    check_envelope,
    field,
    int_field,
    seat_field,
)
from table_service.engine.flags import close_flag, find_flag, raise_flag, resolve_flag
from table_service.engine.names import says_something
from table_service.engine.referee_time import TIMED_ACTIONS as _TIMED_ACTIONS
from table_service.engine.referee_time import late_by_own_time as _late_by_own_time
from table_service.engine.referee_time import rearm_turn_clock as _rearm_turn_clock
from table_service.engine.ruleset import since
from table_service.engine.state import State, copy_state, initial_state
from table_service.engine.timers import (
    referee_called,
    refuse_time_withdrawal,
    restart_timer,
    stopped_since,
    withdraw_time_over,
)
from table_service.rules.seats import SEATS

Effects = list[dict[str, Any]]
Handler = Callable[[State, dict[str, Any], Effects], None]


def _on_device_status(state: State, ev: dict[str, Any], fx: Effects) -> None:
    device = field(ev["data"], "device", ev["type"])
    status = field(ev["data"], "status", ev["type"])
    if device not in DEVICES:
        raise EventRejected(f"设备无效：{device!r}（应为 camera、screen 或 gpio）"
                            f" / device_status_changed: unknown device {device!r} (expected camera, screen or gpio)")
    if status not in DEVICE_STATUSES:
        raise EventRejected(f"状态无效：须为 online 或 offline，收到 {status!r}"
                            f" / device_status_changed: status must be online or offline, got {status!r}")
    was = state["devices"].get(device)
    state["devices"][device] = status
    fx.append({"kind": "device", "device": device, "status": status})
    if device == "screen" and since(state, 9):
        # Generation 9: a dark screen stops play (timers.stopped_since); its return resumes it whole
        # (referee_time.after_event).
        if status == "offline" and was != "offline":
            state["screen_offline_ms"] = state["t_ms"]
        elif status == "online":
            state.pop("screen_offline_ms", None)
    elif device == "screen" and was == "offline" and status == "online" and since(state, 2):
        # The countdowns were dark and the pass buttons dead: the seat to act gets its whole
        # countdown again, as after a call for the referee (the table's ticks held meanwhile).
        _rearm_turn_clock(state, fx, restart=True)


def _on_referee_called(state: State, ev: dict[str, Any], fx: Effects) -> None:
    seat = seat_field(ev["data"], "seat", ev["type"], required=False)
    evidence: dict[str, Any] = {"reason": ev["data"].get("reason")}
    if ev["data"].get("card") is not None:  # the camera's reading of a card it doubted
        evidence["card"] = card_field(ev["data"], "card", ev["type"])
    raise_flag(state, ev, "referee_call", seat, evidence, fx)
    if ev["source"] == "panel":
        # The referee stopped play from the panel, standing at the table: no buzzer for the players.
        fx[:] = [f for f in fx if f["kind"] != "buzz"]


def _on_flag_confirmed(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """The referee upholds a flag; what the ruleset attaches to it follows (a missed report card)."""
    field(ev["data"], "flag", ev["type"])
    flag_id = resolve_flag(state, ev["data"])
    called = referee_called(state)
    close_flag(state, flag_id, "confirmed", ev, fx)
    flag = state["flags"][find_flag(state, flag_id)]
    deal = state["deal"]
    if flag["rule"] == "lose_turn_choice" and flag["seat"] and (
            (deal is not None and deal["phase"] == "play") or since(state, 5)):
        # The 下家 chose it. Before generation 5 only in play: confirmed in the tribute phase or after
        # the deal, the turn was never taken.
        penalties.take_turn_away(state, ev, flag["seat"], fx)
    penalties.on_flag_upheld(state, ev, fx, flag)
    _rearm_turn_clock(state, fx, restart=called and not referee_called(state))


def _on_flag_dismissed(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """The referee does not uphold a flag; a ``time_over`` flag takes with it the automatic warning or
    violation that cites it (generation 5: before, the warning stayed with nothing to withdraw it)."""
    field(ev["data"], "flag", ev["type"])
    called = referee_called(state)
    flag_id = resolve_flag(state, ev["data"])
    penalties.refuse_dismissal_of_ruled(state, flag_id)
    if state["flags"][find_flag(state, flag_id)]["rule"] == "time_over":
        refuse_time_withdrawal(state, flag_id)  # generation 7: not under a later penalty, nor after the result
    close_flag(state, flag_id, "dismissed", ev, fx)
    flag = state["flags"][find_flag(state, flag_id)]
    if flag["rule"] == "time_over" and since(state, 5):
        withdraw_time_over(state, ev, flag_id, fx, levels={"warning", "violation"}, why="dismissed")
        _settle_dismissed_time(state, ev, flag, fx)
    _rearm_turn_clock(state, fx, restart=called and not referee_called(state))


def _settle_dismissed_time(state: State, ev: dict[str, Any], flag: dict[str, Any], fx: Effects) -> None:
    """What a dismissed ``time_over`` flag leaves behind goes with it (generation 5): the 下家's choice
    of a lost turn that its automatic violation asked, and, while the seat's countdown still runs, the
    automatic penalties a later tick would give for the same lateness."""
    gone = {r["seq"] for r in state["penalties"]["records"]
            if r.get("flag") == flag["id"] and r.get("withdrawn") and r.get("withdrawn_seq") == ev["seq"]}
    for i, f in enumerate(state["flags"]):
        if f["rule"] == "lose_turn_choice" and f["status"] == "open" and f["evidence"].get("penalty_seq") in gone:
            state["flags"][i] = dict(f, status="withdrawn", withdrawn_seq=ev["seq"], withdrawn_why="dismissed")
            fx.append({"kind": "flag_updated", "flag": dict(state["flags"][i])})
    deal = state["deal"]
    timer = deal["timers"].get(flag["seat"]) if deal is not None and flag["seat"] else None
    if timer is not None and timer.get("flag") == flag["id"]:
        timer["warned"] = timer["violated"] = True


def _on_deal_redrawn(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``deal_redrawn`` (referee): the cards were miscounted, so they are shuffled and drawn again
    (the rules' remedy), before the first card is played.

    The table goes back to where it stood before the deal's ``drawing_finished`` (the deal's
    snapshot), keeping what happened meanwhile that is not the deal's: flags (a wrong count's
    among them, for the referee to close), penalties, releases. The next ``drawing_finished``
    starts the same deal again, with the same number and the same tribute to pay.
    """
    reason = field(ev["data"], "reason", ev["type"])
    if not isinstance(reason, str) or not reason.strip() or (since(state, 6) and not says_something(reason)):
        raise EventRejected("须说明理由 / deal_redrawn: reason is required")
    deal = state["deal"]
    base = state["_deal_base"]
    if deal is None or deal["phase"] == "over" or base is None:
        raise EventRejected("没有进行中的牌局 / deal_redrawn: no deal in progress")
    played = [p for t in [*deal["tricks"], deal["trick"]] for p in t["plays"] if not p.get("pass")]
    if played:
        raise EventRejected("已有出牌，不能重新抓牌 / deal_redrawn: cards have been played; a re-draw comes "
                            "before the first lead")
    keep = {k: state[k] for k in ("flags", "penalties", "corrections", "released_deals", "rounds", "last_seq", "t_ms")}
    restored = copy_state(base)
    restored.update(keep)
    state.clear()
    state.update(restored)
    fx.append({"kind": "state_rebuilt", "ref_seq": ev["seq"]})
    fx.extend(device_effects(state))


HANDLERS: dict[str, Handler] = {
    "round_set_up": round_setup.on_round_set_up,
    "first_cut_recorded": round_setup.on_first_cut,
    "drawing_finished": round_setup.on_drawing_finished,
    "anti_tribute_declared": tribute_phase.on_anti_tribute,
    "tribute_given": tribute_phase.on_tribute,
    "return_given": tribute_phase.on_return,
    "tribute_corrected": tribute_correction.on_tribute_corrected,
    "cards_played": play.on_cards_played,
    "passed": play.on_passed,
    "report_pressed": play.on_report_pressed,
    "referee_called": _on_referee_called,
    "card_exposed": play.on_card_exposed,
    "zone_obstructed": play.on_zone_obstructed,
    "clock_ticked": referee_time.on_clock_ticked,
    "device_status_changed": _on_device_status,
    "flag_confirmed": _on_flag_confirmed,
    "flag_dismissed": _on_flag_dismissed,
    "penalty_given": penalties.on_penalty_given,
    "late_arrival_recorded": penalties.on_late_arrival,
    "score_sheet_signed": deal_end.on_score_sheet_signed,
    "round_ended": deal_end.on_round_ended,
    "deal_released": deal_end.on_deal_released,
    "deal_redrawn": _on_deal_redrawn,
}

#: Table-wide events that are not part of the deal in progress: kept out of the deal's log, so a
#: re-fold of the deal neither replays nor drops them, and they cannot be voided or corrected.
_OUTSIDE_DEAL = frozenset({"deal_released"})

#: Referee actions that supersede an earlier event of the deal (handled by re-folding the deal).
_SUPERSEDING = ("play_confirmed", "play_corrected", "reading_declared", "event_voided")


# ------------------------------------------------------------------------- supersession


def _target(state: State, ev: dict[str, Any]) -> dict[str, Any]:
    """The event of the current deal that ``ev`` refers to by ``ref``."""
    ref = int_field(ev["data"], "ref", ev["type"])
    if state["_deal_base"] is None:
        raise EventRejected(f"{ev['type']}：没有可纠正的牌局 / {ev['type']}: no deal to correct")
    for e in state["_deal_log"]:
        if e["seq"] == ref:
            return e
    raise EventRejected(f"{ev['type']}：只能纠正本副的事件，#{ref} 不是本副的事件"
                        f" / {ev['type']}: event {ref} is not an event of the current deal")


def _supersede(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """Record the override ``ev`` makes and re-fold the deal with it."""
    etype = ev["type"]
    data = ev["data"]
    if etype == "event_voided":
        place = penalties.earlier_penalty(state, int_field(data, "ref", etype))
        if place is not None:  # generation 9: a penalty of an earlier deal, the chief's void
            penalties.void_earlier(state, ev, fx, place)
            state["corrections"].append({"seq": ev["seq"], "type": etype, "ref": int(data["ref"]), "role": ev["role"],
                                         "t_ms": state["t_ms"], "earlier": True})
            return
    target = _target(state, ev)
    ref = str(target["seq"])
    overrides = state["_overrides"]
    current = overrides.get(ref, target["data"])
    if current is None:
        raise EventRejected(f"{etype}：事件 #{ref} 已撤销 / {etype}: event {ref} is already void")
    last = next((c for c in reversed(state["corrections"]) if c["ref"] == int(ref)), None)
    chiefs = target.get("role") == "chief" or (last is not None and last["role"] == "chief")
    if target["type"] == "tribute_given" and state["deal"] is not None:
        # The chief's tribute_corrected is the chief's ruling on this tribute too (it is an event of its
        # own, not among the corrections): a referee's misread correction of the tribute would re-fold
        # it away, and the flag and the warning on it with it.
        trib = next((t for t in state["deal"]["tributes"] if t["seq"] == target["seq"]), None)
        chiefs = chiefs or (trib is not None and (trib.get("corrected") or {}).get("role") == "chief")
    if chiefs and ev["role"] != "chief" and since(state, 4):
        # The chief's ruling (a foul, a loss, a long late arrival, a ruling on a flag, the chief's
        # correction of a read) is undone or changed by the chief alone: else a referee refused a
        # foul could still void the chief's, or correct a play the chief had corrected.
        raise RoleRejected(f"{etype}：事件 #{ref} 由裁判长录入或裁决，只能由裁判长更改"
                           f" / {etype}: event {ref} was entered or last ruled on "
                            "by the chief referee")
    question = None
    deal = state["deal"]
    if deal is not None:
        question = next((q for q in deal["questions"] if str(q["seq"]) == ref), None)
    if etype == "event_voided":
        if target["type"] not in VOIDABLE_TYPES:
            raise EventRejected(f"此类事件（{target['type']}）不可撤销 / event_voided: a {target['type']} cannot be voided")
        tribute_correction.refuse_void_in_play(state, target)  # a tribute or return once play has begun (gen 8)
        reason = data.get("reason")
        if not isinstance(reason, str) or not reason.strip() or (since(state, 6) and not says_something(reason)):
            raise EventRejected("须说明理由 / event_voided: reason is required")
        new = None
    elif etype == "play_confirmed":
        if question is None:
            raise EventRejected(f"事件 #{ref} 不是待确认的识别 / play_confirmed: event {ref} is not an open question")
        new = dict(current, uncertain=False, confirmed=True)
    elif etype == "play_corrected" and target["type"] in ("tribute_given", "return_given"):
        # A misread tribute or return (the camera, or a tap on the wrong card): it always was the card
        # named, so it is overridden and the deal re-folded, as a misread play is. Not a wrong tribute
        # really given (that is tribute_corrected: the exchange happens at the ruling).
        cards = cards_field(data, "cards", etype)
        if len(cards) != 1:
            raise EventRejected(f"进贡、还贡只能是一张牌（{target['type']}，收到 {len(cards)} 张）"
                                f" / play_corrected: a {target['type']} is one card, got {len(cards)}")
        new = dict(current, card=cards[0], uncertain=False, corrected=True)
        new.pop("confidence", None)
    elif etype == "play_corrected":
        if target["type"] != "cards_played":
            raise EventRejected(f"只能纠正出牌、贡牌或还贡：事件 #{ref} 是 {target['type']}"
                                f" / play_corrected: event {ref} is a {target['type']}, not "
                                "cards_played, tribute_given or return_given")
        cards = cards_field(data, "cards", etype)
        new = dict(current, cards=cards, uncertain=False, corrected=True)
        new.pop("confidence", None)
    else:  # reading_declared
        if target["type"] != "cards_played":
            raise EventRejected(f"只能声明出牌的牌型：事件 #{ref} 是 {target['type']}"
                                f" / reading_declared: event {ref} is a {target['type']}, not cards_played")
        kind = field(data, "kind", etype)
        rank = field(data, "rank", etype)
        new = dict(current, reading={"kind": kind, "rank": rank})
    overrides[ref] = new
    if question is not None and ev["t_ms"] > question["t_ms"]:
        # Play stops while the referee looks at an unreadable play (rules: "take no action until
        # the referee rules"): the time between the read and the ruling counts on nobody's clock.
        # Kept beside the overrides so that every later re-fold of the deal applies it too.
        overrides[_PAUSES] = [*overrides.get(_PAUSES, ()), [question["t_ms"], ev["t_ms"]]]
    if new is None and since(state, 5):
        # A play, pass, tribute or return sent back is made again against a whole countdown from the
        # ruling (timers.restart_timer), not the one that ran out while the referee looked; a false
        # anti-tribute sent back, each payer's tribute. Kept beside the overrides, at its place in the
        # deal's log (after its last event: an event logged after the ruling but stamped no later is
        # judged as it was when applied), so that every later re-fold of the deal gives it too.
        own = target["data"].get("seat") if isinstance(target["data"], dict) else None
        seats = [own] if target["type"] in _TIMED_ACTIONS and own in SEATS else []
        if target["type"] == "anti_tribute_declared" and deal is not None:
            seats = list(deal["tribute_plan"].get("payers", []))
        after = state["_deal_log"][-1]["seq"]
        overrides[_RESTARTS] = [*overrides.get(_RESTARTS, ()), *([after, state["t_ms"], s] for s in seats)]
    rejected = _refold_deal(state, ev, fx)
    if new is None and since(state, 9):
        # Generation 9: whatever was voided, the seat to act is given a whole countdown from the ruling.
        after = state["_deal_log"][-1]["seq"]
        state["t_ms"] = max(state["t_ms"] or 0, ev["t_ms"])
        again = [[after, state["t_ms"], s] for s in referee_time.after_void(state, fx)]
        if again:
            overrides[_RESTARTS] = [*overrides.get(_RESTARTS, ()), *again]
    if new is not None and target["seq"] in rejected:
        # A correction that cannot apply (e.g. a reading the cards do not allow) is refused.
        zh, en = halves(rejected[target["seq"]])
        raise EventRejected(f"{etype}：纠正无法成立：{zh} / {etype}: {en}")
    state["corrections"].append({"seq": ev["seq"], "type": etype, "ref": int(ref), "role": ev["role"], "t_ms": state["t_ms"]})


#: Key in ``_overrides`` of the referee pauses ``[start_ms, end_ms]`` of the deal.
_PAUSES = "pauses"
#: Key in ``_overrides`` of the countdowns given whole again ``[after_seq, t_ms, seat]``: from ``t_ms``, once
#: the deal's log has been re-folded up to ``after_seq`` (a voided action, generation 5).
_RESTARTS = "restarts"


def _shift_timers(state: State, start: int, end: int) -> None:
    """Give back to every running timer the part of a pause it ran through."""
    deal = state.get("deal")
    if deal is None:
        return
    for seat, timer in list(deal["timers"].items()):
        lost = end - max(start, timer["started_ms"])
        if lost > 0:
            deal["timers"][seat] = dict(timer, deadline_ms=timer["deadline_ms"] + lost)


def _refold_deal(state: State, ev: dict[str, Any], fx: Effects) -> dict[int, str]:
    """Replace ``state``'s deal-scoped parts by a re-fold of the deal's log with the overrides."""
    base = state["_deal_base"]
    log = state["_deal_log"]
    overrides = state["_overrides"]
    old_flags = {f["id"]: f for f in state["flags"]}
    new = copy_state(base)
    for c in state["corrections"]:  # generation 9: penalties of earlier deals the chief voided stay void
        place = next((i for i, r in enumerate(new["penalties"]["records"]) if c.get("earlier") and r["seq"] == c["ref"]), None)
        if place is not None:
            penalties.withdraw_earlier(new, c["seq"], place)
    rejected: dict[int, str] = {}
    scratch: Effects = []
    pauses = sorted(overrides.get(_PAUSES, ()))
    restarts = sorted(overrides.get(_RESTARTS, ()))
    next_pause = next_restart = 0
    for e in log:
        while next_restart < len(restarts) and restarts[next_restart][0] < e["seq"]:
            _, at, seat = restarts[next_restart]  # the ruling came after the events up to here
            restart_timer(new, seat, scratch, at_ms=at)
            next_restart += 1
        while next_pause < len(pauses) and e["t_ms"] > pauses[next_pause][1]:
            _shift_timers(new, *pauses[next_pause])
            next_pause += 1
        if e["type"] == "clock_ticked" and any(a < e["t_ms"] <= b for a, b in pauses):
            continue  # the clock stood still while the referee looked
        o = overrides.get(str(e["seq"]), e["data"])
        if o is None:
            continue
        # ``_referee``: the data is a referee's override (confirm, correct, declare), which the
        # handlers may trust where they would not trust a device (a third copy confirmed).
        e2 = e if o is e["data"] else {**e, "data": o, "_referee": True}
        try:
            _dispatch(new, e2, scratch)
        except EventRejected as exc:
            # An event the correction has made impossible (a referee action on a flag that no
            # longer exists…) is superseded: it stays in the log but no longer applies.
            rejected[e["seq"]] = str(exc)
    for a, b in pauses[next_pause:]:
        _shift_timers(new, a, b)
    for _, at, seat in restarts[next_restart:]:
        restart_timer(new, seat, scratch, at_ms=at)
    new_ids = {f["id"] for f in new["flags"]}
    for fid, f in old_flags.items():
        if fid not in new_ids and f["status"] != "withdrawn":
            new["flags"].append(dict(f, status="withdrawn", withdrawn_seq=ev["seq"]))
        elif fid not in new_ids:
            new["flags"].append(f)
    new["_deal_base"] = base
    new["_deal_log"] = log
    new["_overrides"] = overrides
    new["corrections"] = state["corrections"]
    new["rounds"] = state["rounds"]
    new["released_deals"] = state["released_deals"]
    if new["deal"] is not None:
        new["deal"]["superseded"] = sorted(rejected)
    state.clear()
    state.update(new)
    fx.append({"kind": "state_rebuilt", "ref_seq": ev["seq"]})
    for flag in state["flags"]:
        if flag["id"] not in old_flags:  # raised by the corrected deal: tell the panel
            fx.append({"kind": "flag_raised", "flag": dict(flag)})
    fx.extend(device_effects(state))
    return rejected


# ------------------------------------------------------------------------- the dispatcher


def _dispatch(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """Apply ``ev`` to ``state`` in place (``state`` must be a private copy)."""
    t = ev["t_ms"]
    if state["t_ms"] is None or t > state["t_ms"]:
        state["t_ms"] = t
    state["last_seq"] = max(state["last_seq"], ev["seq"] or 0)
    _late_by_own_time(state, ev, fx)
    if ev["type"] != "clock_ticked" and since(state, 7):
        # The round's time limit is judged by the event's own time, whether or not a tick came first
        # (generation 7): what a tick at this time would have done — the time up, and between deals the
        # round's end — is done before the event applies.
        deal_end.on_time_tick(state, ev, fx)
    was = stopped_since(state)  # generation 9: play stopped before this event (None: runs, or older)
    HANDLERS[ev["type"]](state, ev, fx)
    referee_time.after_event(state, ev, fx, was)


def apply_in_place(state: State, event: dict[str, Any]) -> Effects:
    """Apply ``event`` to ``state``, mutating it; returns the effects.

    Used by :func:`fold` and by :func:`apply` on its private copy. On :class:`EventRejected` the
    state may be partly changed, which is why callers that keep the state use :func:`apply`.
    """
    ev = check_envelope(event)
    if ev["seq"] is None:
        ev["seq"] = state["last_seq"] + 1
    elif ev["seq"] <= state["last_seq"]:
        raise EventRejected(f"序号重复：{ev['seq']} 不在已应用的最后序号 {state['last_seq']} 之后"
                            f" / seq {ev['seq']} is not after the last applied seq {state['last_seq']}")
    fx: Effects = []
    etype = ev["type"]
    if etype in _SUPERSEDING:
        if state["t_ms"] is None or ev["t_ms"] > state["t_ms"]:
            state["t_ms"] = ev["t_ms"]
        _supersede(state, ev, fx)
        state["last_seq"] = ev["seq"]
        state["t_ms"] = max(state["t_ms"] or 0, ev["t_ms"])
        return fx
    if etype == "drawing_finished":
        snapshot = copy_state(state)
        snapshot["_deal_base"] = None
        snapshot["_deal_log"] = []
        snapshot["_overrides"] = {}
        _dispatch(state, ev, fx)
        state["_deal_base"] = snapshot
        state["_deal_log"] = [ev]
        state["_overrides"] = {}
        return fx
    _dispatch(state, ev, fx)
    if etype in ("round_set_up", "deal_redrawn"):
        state["_deal_base"] = None
        state["_deal_log"] = []
        state["_overrides"] = {}
    elif state["_deal_base"] is not None and etype not in _OUTSIDE_DEAL:
        state["_deal_log"].append(ev)
    return fx


def apply(state: State, event: dict[str, Any]) -> tuple[State, Effects]:
    """The pure step: ``(state, event) -> (new_state, effects)``; ``state`` is not changed.

    :raises EventRejected: for a malformed event, one that does not fit the moment, or one from
        the wrong role; the caller keeps the old state.
    """
    new = copy_state(state)
    fx = apply_in_place(new, event)
    return new, fx


def fold(events: Iterable[dict[str, Any]], state: State | None = None) -> State:
    """The state after ``events`` (accepted events, in order), from ``state`` or the start."""
    s = initial_state() if state is None else copy_state(state)
    for event in events:
        apply_in_place(s, event)
    return s


def replay(events: Sequence[dict[str, Any]]) -> State:
    """A table's log folded by this release, as the table starts from it.

    Why not :func:`fold`: a log written by an older release can hold an event this release refuses —
    a ruling on a flag these rules no longer raise (no time flag while a referee call is open), a
    penalty citing it.  Refusing the log would leave the table unable to start mid-event.  Such an
    event is passed over, as a correction's re-fold passes over an event it made impossible: it stays
    in the log, applies to nothing, and ``not_applied`` names it (seq, type, why) for the referee's
    panel.  A log this release wrote itself never has one: its events were applied as they came.
    """
    passed: dict[int, str] = {}  # by place in the log: an export edited by hand may lack a seq
    while True:
        s = initial_state()
        at = -1
        try:
            for at, event in enumerate(events):
                if at in passed:
                    seq = event.get("seq") if isinstance(event, dict) else None
                    if isinstance(seq, int) and not isinstance(seq, bool):
                        s["last_seq"] = max(s["last_seq"], seq)
                    continue
                apply_in_place(s, event)
        except EventRejected as exc:
            passed[at] = str(exc)
            continue
        s["not_applied"] = [{"seq": e.get("seq") if isinstance(e, dict) else None,
                             "type": e.get("type") if isinstance(e, dict) else None, "error": passed[i]}
                            for i, e in enumerate(events) if i in passed]
        return s


# ------------------------------------------------------------------------- device refresh


def device_effects(state: State) -> Effects:
    """Effects that put every display and lamp into the state's picture.

    The service sends these after a restart (so countdowns resume with the deadlines in the
    log) and the engine emits them after a re-fold.
    """
    fx: Effects = []
    deal = state.get("deal")
    live = deal is not None and deal["phase"] != "over"
    for seat in SEATS:
        on = live and deal["turn"] == seat
        fx.append({"kind": "lamp", "seat": seat, "lamp": "turn", "mode": "on" if on else "off"})
        rep = live and seat in deal["reports"]
        fx.append({"kind": "lamp", "seat": seat, "lamp": "report", "mode": "on" if rep else "off"})
        timer = deal["timers"].get(seat) if live else None
        if timer is not None:
            seconds = (timer["deadline_ms"] - timer["started_ms"]) // 1000
            fx.append({"kind": "countdown", "seat": seat, "seconds": seconds, "deadline_ms": timer["deadline_ms"], "phase": timer["phase"]})
        else:
            fx.append({"kind": "countdown_stopped", "seat": seat})
    pending = any(f["status"] == "open" for f in state["flags"]) or (live and bool(deal["questions"]))
    fx.append({"kind": "lamp", "seat": None, "lamp": "referee", "mode": "blink" if pending else "off"})
    return fx
