"""A match that goes on where it stood: ``round_set_up``'s optional ``resume`` (the standing a match
moved from a failed table carries) and the standing a table reports, for the hub to carry.

Why: the chief referee moves a match of the current round from a failed table to a spare one (the
hub's ``match_moved``). The match must go on, not start again: each side at the level it had
reached, the A rule's failed attempts kept, the deals already played and the time already used
counted against the round's format, the next deal at the level of the side that won the last one,
with the tribute it owes. The round's **start** levels stay the round's real ones (``levels``, the
ruleset's start level by default): the levels gained, which decide the round and which the hub
scores (级差分), count from them, exactly as if the match had never moved.

A new optional field needs no new generation of the engine's rulings (``ruleset.ENGINE_GENERATION``):
a log without ``resume`` sets its rounds up as it always did. Apart from :mod:`.round_setup` so that
:mod:`.deal_end` (the deals a format counts) and the table's summary (:func:`standing`) read one
source, and the set-up stays one function's reading of its data.
"""

from __future__ import annotations

from typing import Any

from table_service.engine.errors import EventRejected
from table_service.engine.state import State
from table_service.rules.cards import check_level
from table_service.rules.ruleset import Ruleset
from table_service.rules.seats import SEATS, SIDES, side_of
from table_service.rules.tribute import tribute_duty

#: The keys ``resume`` may hold (engine/events.py's schema checks their kinds; this module their sense).
RESUME_KEYS = ("from", "levels", "deals", "next_side", "last_order", "failed_at_a", "elapsed_s")


def _bad(zh: str, en: str) -> EventRejected:
    return EventRejected(f"续赛数据无效：{zh} / round_set_up: resume {en}"[:300])


def check_resume(raw: Any, rules: Ruleset) -> dict[str, Any] | None:
    """``resume`` checked against the round it continues: each side's level 2..A, A attempts only
    for a side at A and fewer than the ruleset sends back at, a last finishing order that is a
    finished deal and agrees with ``next_side``, the level side named where the levels differ. Deals
    and time past the format's are taken: the deal in play when the old table failed is played again
    and then ends the round (a tie's extra deal, a timed round's last deal). None when absent.

    :raises EventRejected: what is wrong, Chinese first."""
    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) - set(RESUME_KEYS):
        raise _bad("须为对象，仅含 " + "、".join(RESUME_KEYS), f"must be an object of {', '.join(RESUME_KEYS)}")
    lv = raw.get("levels")
    if not isinstance(lv, dict) or set(lv) != set(SIDES):
        raise _bad("levels 须给出南北、东西两方的级数", "levels must give both sides, NS and EW")
    try:
        levels = {s: check_level(str(lv[s])) for s in SIDES}
    except ValueError:
        raise _bad(f"级数须为 2…A，得到 {lv!r}", f"levels must be 2…A, got {lv!r}") from None
    deals = raw.get("deals", 0)
    if isinstance(deals, bool) or not isinstance(deals, int) or deals < 0:
        raise _bad(f"已打副数须为非负整数，得到 {deals!r}", f"deals must be a whole number ≥ 0, got {deals!r}")
    elapsed = raw.get("elapsed_s", 0)
    if isinstance(elapsed, bool) or not isinstance(elapsed, int) or elapsed < 0:
        raise _bad(f"已用时间须为非负整数秒，得到 {elapsed!r}", f"elapsed_s must be whole seconds ≥ 0, got {elapsed!r}")
    fails_in = raw.get("failed_at_a") or {}
    if not isinstance(fails_in, dict) or set(fails_in) - set(SIDES) or any(
            isinstance(n, bool) or not isinstance(n, int) or n < 0 for n in fails_in.values()):
        raise _bad("打A失败次数须为 {南北, 东西: 非负整数}", "failed_at_a must be {NS, EW: whole numbers ≥ 0}")
    fails = {s: int(fails_in.get(s, 0)) for s in SIDES}
    for s in SIDES:
        if fails[s] and levels[s] != "A":
            raise _bad(f"{s} 不在 A，不能有打A失败", f"{s} is not at A and cannot have failed at A")
        if rules.tries_at_a is not None and fails[s] >= rules.tries_at_a:
            raise _bad(f"{s} 打A失败 {fails[s]} 次，已应退回", f"{s} failed at A {fails[s]} times: it is sent back already")
    side = raw.get("next_side")
    if side is not None and side not in SIDES:
        raise _bad(f"next_side 须为 NS 或 EW，得到 {side!r}", f"next_side must be NS or EW, got {side!r}")
    order = raw.get("last_order")
    if order is not None:
        try:
            duty = tribute_duty(order if isinstance(order, list) and all(s in SEATS for s in order) else [])
        except ValueError:
            raise _bad(f"上一副的名次不是打完的一副：{order!r}", f"last_order is not a finished deal: {order!r}") from None
        if side is not None and side != side_of(duty.first):
            raise _bad("上一副的上游与 next_side 不符", "last_order's 上游 is not of next_side")
        side = side_of(duty.first)
    if deals == 0 and (side is not None or levels != {s: rules.start_level for s in SIDES} or any(fails.values())):
        raise _bad("未打一副却带有级数或上游", "carries levels or a last winner with no deal played")
    if deals and side is None and levels["NS"] != levels["EW"]:
        raise _bad("级数不同时须说明下一副打哪一方的级（next_side）", "levels differ: next_side must say whose "
                   "level the next deal is played at")
    out = {"from": str(raw.get("from") or ""), "levels": levels, "deals": deals, "next_side": side,
           "failed_at_a": fails, "elapsed_s": elapsed}
    if order is not None:
        out["last_order"] = list(order)
    return out


def apply_resume(state: State, rnd: dict[str, Any], resume: dict[str, Any]) -> None:
    """Set the new round's standing from a checked ``resume`` (``rnd``: the round being set up, whose
    ``start_levels`` stay the real start): the sides' levels and A attempts, the deals counted and
    numbered on from the old table's, the clock started ``elapsed_s`` ago, the next deal's level and,
    where the last deal's order is known, the tribute it owes (no cut card then: the cut is the first
    deal's only)."""
    state["levels"] = dict(resume["levels"])
    state["failed_at_a"] = dict(resume["failed_at_a"])
    rnd["resumed"] = dict(resume)
    rnd["deals_started"] = resume["deals"]
    rnd["started_ms"] -= resume["elapsed_s"] * 1000
    side = resume["next_side"]
    if side is not None:
        rnd["first_level"] = resume["levels"][side]
    elif resume["levels"]["NS"] == resume["levels"]["EW"]:
        rnd["first_level"] = resume["levels"]["NS"]
    order = resume.get("last_order")
    if order is not None:
        duty = tribute_duty(order)
        state["next_deal"] = {"kind": "double" if duty.double_down else "single", "payers": list(duty.payers),
                              "top": duty.first}
        rnd["status"] = "drawing"


def deals_carried(state: State) -> int:
    """The deals of the round played at the table it moved from (0 for a round that never moved)."""
    return int(((state.get("round") or {}).get("resumed") or {}).get("deals", 0))


def deals_played(state: State) -> int:
    """The round's deals scored so far, those played before a move included: what a fixed-deals
    format counts, and the result's ``deals``."""
    return len(state.get("score_sheet") or ()) + deals_carried(state)


def standing(state: State) -> dict[str, Any] | None:
    """Where the round stands, as ``resume`` takes it: what the table reports in its summary so that
    the hub can carry it to a spare table (the levels themselves are the summary's ``levels``).
    None before a deal of the round has ended and with nothing carried (the round's start says it
    all) unless the round is timed (its clock runs from the start), and once the round is over."""
    rnd = state.get("round")
    timed = (rnd or {}).get("format", {}).get("kind") == "time"
    if rnd is None or state.get("result") is not None or not (deals_played(state) or timed):
        return None
    plan = state.get("next_deal") or {}
    out: dict[str, Any] = {"deals": deals_played(state)}
    if plan.get("top") in SEATS:
        out["next_side"] = side_of(plan["top"])
    elif (rnd.get("resumed") or {}).get("next_side"):
        out["next_side"] = rnd["resumed"]["next_side"]
    sheet = state.get("score_sheet") or []
    if plan.get("kind") in ("single", "double"):
        # The tribute the next deal owes, by the last deal's order: this table's, else the one carried.
        order = sheet[-1]["finish_order"] if sheet else (rnd.get("resumed") or {}).get("last_order")
        if order:
            out["last_order"] = list(order)
    fails = {s: int(n) for s, n in (state.get("failed_at_a") or {}).items() if n}
    if fails:
        out["failed_at_a"] = fails
    if timed and rnd.get("started_ms") is not None:
        out["elapsed_s"] = max(0, int(((state.get("t_ms") or 0) - rnd["started_ms"]) // 1000))
    return out
