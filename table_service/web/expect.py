"""What a panel tap expected of the table: refused on the engine thread when the table has moved on.

Why: a play or pass entered on a player's behalf says nothing of which turn it was meant for, so a
double tap, or two referees tapping at once, entered it twice, and the engine took the second for a
real play out of turn (a false flag, a card too many off the hand). An answer to a camera question,
given on a page a moment stale, overrode the answer another referee had just given. The panel sends
what it saw (``expect``: the seat whose turn it showed, the question it answers); the runner checks it
against the state the action would be applied to (:meth:`TableRunner.submit`'s ``precondition``), so
the check and the action cannot be split by another action.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from table_service.engine.state import State
from table_service.rules.seats import SEATS

#: How every refusal for a table that moved on begins (the runner knows a logged one by it after a restart).
STALE_PREFIX = "局面已变："

#: The keys an ``expect`` object may hold.
EXPECT_KEYS = ("turn", "question")


class ExpectError(ValueError):
    """An ``expect`` object that is not one (the request's fault: answered 400)."""


def parse_expect(raw: Any) -> Callable[[State], str | None] | None:
    """The precondition ``raw`` (the request's ``expect``) asks for; None when there is none.

    ``turn``: the seat whose turn the page showed (E, S, W, N), or null for nobody's.
    ``question``: the seq of the camera question the action answers; it must still be open.

    :raises ExpectError: not an object, an unknown key, or a value of the wrong kind.
    """
    if raw is None:
        return None
    if not isinstance(raw, dict):
        raise ExpectError("expect 须为 JSON 对象 / 'expect' must be a JSON object")
    unknown = sorted(set(raw) - set(EXPECT_KEYS))
    if unknown:
        raise ExpectError(f"expect 含未知字段 {unknown[:4]}（可用：turn、question）"
                          f" / 'expect' has unknown keys {unknown[:4]} (allowed: turn, question)")
    checks = []
    if "turn" in raw:
        turn = raw["turn"]
        if turn is not None and turn not in SEATS:
            raise ExpectError("expect.turn 须为 E S W N 或 null / 'expect.turn' must be E, S, W, N or null")
        checks.append(lambda state: _turn_moved(state, turn))
    if "question" in raw:
        q = raw["question"]
        if isinstance(q, bool) or not isinstance(q, int) or not 0 <= q < 10**15:
            raise ExpectError("expect.question 须为事件序号 / 'expect.question' must be an event number")
        checks.append(lambda state: _question_closed(state, q))
    if not checks:
        return None

    def precondition(state: State) -> str | None:
        for check in checks:
            why = check(state)
            if why:
                return why
        return None

    return precondition


def _turn_moved(state: State, turn: str | None) -> str | None:
    deal = state.get("deal")
    now = deal["turn"] if deal is not None and deal["phase"] != "over" else None
    if now == turn:
        return None
    shown = turn or "—"
    return (f"{STALE_PREFIX}页面显示轮到 {shown}，现在轮到 {now or '—'}，可能已由重复点击或另一位裁判录入，请看最新局面 / "
            f"the table has moved on (the page showed {shown} to act, now {now or 'nobody'}): this was probably "
            "entered already, by a second tap or another referee; look at the table now")


def _question_closed(state: State, seq: int) -> str | None:
    deal = state.get("deal")
    if deal is not None and any(q["seq"] == seq for q in deal["questions"]):
        return None
    return (f"{STALE_PREFIX}识别存疑 #{seq} 已不在待答之列（多半已被回答），请看最新记录 / camera question #{seq} is not open "
            "(most likely answered already, by a second tap or another referee): look at the record now")
