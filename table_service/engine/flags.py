"""Automatic flags: what the engine noticed, the rule it concerns, and the evidence.

The engine flags, the referee rules (the engine never penalises a breach on its own judgement): a flag is a record for the referee to
confirm or dismiss, not a verdict. Its id derives from the seq of the event that raised it, so a
replay gives the same ids and referee actions naming a flag stay valid.
"""

from __future__ import annotations

from typing import Any

from table_service.engine.errors import EventRejected
from table_service.engine.state import State

#: The rule each flag concerns, Chinese then English (shown on the panel).
ARTICLES: dict[str, str] = {
    "out_of_turn": "越序出牌 / play or pass out of turn",
    "not_a_pattern": "出错牌：不成牌型 / wrong play: not a pattern",
    "does_not_beat": "出错牌：管不上 / wrong play: does not beat the trick",
    "leader_passed": "领出者不出牌 / the leader passed",
    "card_seen_third_time": "同一张牌第三次出现 / a card seen a third time in one deal",
    "finished_seat_acted": "已出完者出牌 / a seat that has played out acted",
    "report_missing": "未报牌 / report card missing",
    "report_too_early": "报牌过早 / report card with more than 10 cards",
    "report_twice": "重复报牌 / report card pressed twice",
    "tribute_not_highest": "进贡非最大牌 / tribute was not the highest card",
    "tribute_wild_card": "以红心级牌进贡 / the heart level card given as tribute",
    "anti_tribute_missed": "持双大王仍进贡 / tribute paid by a side that held both big jokers (anti-tribute due)",
    "declared_card_contradiction": "抗贡声明与出牌矛盾 / a card played against the anti-tribute declaration (false declaration or misread)",
    "return_above_ten": "还贡大于10 / return above 10",
    "time_over": "超时 / time over",
    "wrong_count": "牌数不对 / wrong card count after drawing",
    "referee_call": "呼叫裁判 / referee called",
    "exposed_card": "暴露张 / exposed card",
    "zone_obstructed": "手或物体长时间遮挡出牌区 / hand or object over the play zone",
    "penalty_escalation": "处罚升级须裁判长 / escalation needs the chief referee",
    "lose_turn_choice": "违例：由下家决定是否失去一次出牌权（确认即失去） / a violation: the next player after the "
                        "offender decides whether the offender loses a turn (confirm: it does)",
}


#: A closed flag's status as the Chinese half says it.
_STATUS_ZH = {"confirmed": "已确认", "dismissed": "已驳回", "withdrawn": "已撤回"}


def carries_picture(ev: dict[str, Any]) -> bool:
    """Whether ``ev`` carries the camera's picture of its zone (``data.crop``, a ``data:image/…`` URL).

    Why: a flag says so (``picture``), and the panel asks ``/api/tables/<t>/events/<seq>/crop`` for
    the picture only then. It used to ask for every flag's, and each one raised by a tick, a tap or a
    read without a picture was a 404 in the service's log and the browser's console. The engine knows
    it where the flag is raised; the route still judges the picture itself (a damaged one is a 404).
    """
    data = ev.get("data")
    crop = data.get("crop") if isinstance(data, dict) else None
    return isinstance(crop, str) and crop.startswith("data:image/")


def raise_flag(
    state: State,
    ev: dict[str, Any],
    rule: str,
    seat: str | None,
    evidence: dict[str, Any],
    fx: list[dict[str, Any]],
) -> dict[str, Any]:
    """Open a flag for ``rule`` raised by event ``ev``; adds the lamp/buzzer effects."""
    base = f"F{ev['seq']}"
    same = sum(1 for f in state["flags"] if f["seq"] == ev["seq"])
    flag = {
        "id": base if same == 0 else f"{base}.{same}",
        "seq": ev["seq"],
        "t_ms": state["t_ms"],
        "rule": rule,
        "article": ARTICLES[rule],
        "seat": seat,
        "deal": state["deal"]["no"] if state.get("deal") else None,
        "evidence": evidence,
        "picture": carries_picture(ev),
        "status": "open",
    }
    state["flags"].append(flag)
    fx.append({"kind": "flag_raised", "flag": dict(flag)})
    fx.append({"kind": "lamp", "seat": None, "lamp": "referee", "mode": "blink"})
    fx.append({"kind": "buzz", "ms": 300})
    return flag


def find_flag(state: State, flag_id: Any) -> int:
    """Index of the flag ``flag_id`` in ``state["flags"]``.

    :raises EventRejected: when there is no such flag.
    """
    for i in range(len(state["flags"]) - 1, -1, -1):
        if state["flags"][i]["id"] == flag_id:
            return i
    raise EventRejected(f"无此标记 {flag_id!r} / no such flag: {flag_id!r}")


def resolve_flag(state: State, data: dict[str, Any]) -> Any:
    """The id of the flag a ruling's ``data`` means: the flag its ``flag_of`` names (raising event,
    rule, seat) where one is there, else ``data["flag"]`` as given.

    Why: an id is a flag's place among the flags its event raised (``F4``, ``F4.1``). A correction
    re-folds the deal, and can add or drop an earlier flag of the same event (a pair where a single
    was read makes the next player's pass also a missed report card), so the ruling must follow the
    flag it was given on, not its old place.
    """
    of = data.get("flag_of")
    if isinstance(of, dict):
        for f in state["flags"]:
            if f["seq"] == of.get("seq") and f["rule"] == of.get("rule") and f.get("seat") == of.get("seat"):
                return f["id"]
    return data.get("flag")


def stamp_flag_of(state: State, event: dict[str, Any]) -> dict[str, Any]:
    """``event`` with ``data.flag_of`` naming the flag its ``data.flag`` is in ``state`` (a ruling about
    to be logged), or as it is (no such flag, or not a ruling on a flag)."""
    data = event.get("data")
    if event.get("type") not in ("flag_confirmed", "flag_dismissed", "penalty_given") or not isinstance(data, dict) \
            or "flag_of" in data or data.get("flag") is None:
        return event
    flag = next((f for f in state["flags"] if f["id"] == data["flag"]), None)
    if flag is None:
        return event
    of = {"seq": flag["seq"], "rule": flag["rule"]} | ({"seat": flag["seat"]} if flag.get("seat") else {})
    return {**event, "data": {**data, "flag_of": of}}


def close_flag(state: State, flag_id: Any, status: str, ev: dict[str, Any], fx: list[dict[str, Any]]) -> None:
    """Close an open flag as ``confirmed`` or ``dismissed`` (the list element is replaced)."""
    i = find_flag(state, flag_id)
    flag = state["flags"][i]
    if flag["status"] != "open":
        said = _STATUS_ZH.get(flag["status"], flag["status"])
        raise EventRejected(f"标记 {flag_id} {said} / flag {flag_id} is already {flag['status']}")
    state["flags"][i] = dict(
        flag, status=status, closed_seq=ev["seq"], closed_by=ev["role"], note=ev["data"].get("note")
    )
    if not any(f["status"] == "open" for f in state["flags"]) and not _open_questions(state):
        fx.append({"kind": "lamp", "seat": None, "lamp": "referee", "mode": "off"})


def _open_questions(state: State) -> bool:
    deal = state.get("deal")
    return bool(deal and deal["questions"])


def open_flags(state: State) -> list[dict[str, Any]]:
    """The flags still waiting for the referee."""
    return [f for f in state["flags"] if f["status"] == "open"]
