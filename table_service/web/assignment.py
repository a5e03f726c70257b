"""The hub's assignment on the table's referee panel: shown as a card, started with one tap.

The table's MQTT bridge (attached to the table as its ``hub_link``) holds the retained assignment the hub published for this table (teams,
players, directions, ruleset, round format). ``GET`` shows it; ``POST …/start`` submits the
ordinary ``round_set_up`` event with exactly those values, as the referee — so nobody types
names at the table, and the round's set-up is in the table's own log like any other.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, g, jsonify

from table_service.views.assignment import ack_round, set_up_data, started

from .api import _action_wait_s, _rejection
from .auth import require_role
from .tables import get_table

bp = Blueprint("assignment", __name__, url_prefix="/api")


def _bridge(table_id: str) -> Any:
    """The table's link to the hub, as its wiring attached it (None: this table has no hub)."""
    return get_table(table_id).hub_link


@bp.get("/tables/<table_id>/assignment")
@require_role("viewer")
def get_assignment(table_id: str) -> Any:
    """``{"assignment": {...}|null, "result_ack": {...}|null, "started": bool, "connected": bool,
    "behind_round": int|null}`` (``behind_round``: this table's round still without a result while the
    hub has drawn a later one)."""
    bridge = _bridge(table_id)
    if bridge is None:
        return jsonify(assignment=None, result_ack=None, started=False, connected=False, hub=False)
    a = bridge.assignment
    state = get_table(table_id).runner.state()
    ack = bridge.result_ack
    answered = ack_round(ack)
    if a is not None and answered is not None and answered != a.get("round"):
        ack = None  # the hub's answer to another round's result: not shown under this round's card
    # The hub drew a later round while this table's round has no result: the Pi was down or slow and
    # the chief entered its result at the hub. Said on the card, with the way to end the round here
    # (the start answered only "the round is not over", the usability walk of 2026-12-06).
    rnd = state.get("round") or {}
    behind = (rnd.get("no") if a is not None and rnd and state.get("result") is None
              and isinstance(rnd.get("no"), int) and rnd["no"] < int(a.get("round") or 0) else None)
    return jsonify(assignment=a, result_ack=ack, started=bool(a and started(state, a)),
                   connected=bridge.is_connected, hub=True, behind_round=behind)


@bp.post("/tables/<table_id>/assignment/start")
@require_role("referee")
def start_from_assignment(table_id: str) -> Any:
    """One tap: ``round_set_up`` with the assigned teams, players, directions, ruleset, format."""
    bridge = _bridge(table_id)
    a = bridge.assignment if bridge is not None else None
    if not a:
        abort(409, description="尚未收到编排 / no assignment from the hub yet")
    entry = get_table(table_id)
    if started(entry.runner.state(), a):
        abort(409, description=f"第 {a['round']} 轮已按编排开始 / round {a['round']} has already been set up")
    try:
        data = set_up_data(a)
    except ValueError as exc:
        abort(409, description=str(exc))
    event = {"type": "round_set_up", "source": "panel", "role": g.user.role, "data": data}
    result = entry.runner.submit(event, wait=True, timeout=_action_wait_s())
    if not result.accepted:
        # As /actions answers: 202 still queued (it may yet start the round), 503 the engine is not
        # running, 403 a role refusal, 422 the engine's refusal (it answered 409 "refused" to all).
        return _rejection(result)
    return jsonify(accepted=True, seq=result.seq)
