"""The hub's assignment on the table's referee panel: shown as a card, started with one tap.

The table's MQTT bridge holds the retained assignment the hub published for this table (teams,
players, directions, ruleset, round format). ``GET`` shows it; ``POST …/start`` submits the
ordinary ``round_set_up`` event with exactly those values, as the referee — so nobody types
names at the table, and the round's set-up is in the table's own log like any other.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, g, jsonify

from .auth import require_role
from .tables import get_table

bp = Blueprint("assignment", __name__, url_prefix="/api")


def _bridge(table_id: str) -> Any:
    from table_service.table.mqtt_bridge import bridge_for

    return bridge_for(get_table(table_id).runner)


def started(state: dict[str, Any], a: dict[str, Any]) -> bool:
    rnd = state.get("round") or {}
    return rnd.get("no") == a.get("round") and rnd.get("teams") == a.get("teams")


def set_up_data(a: dict[str, Any]) -> dict[str, Any]:
    """The ``round_set_up`` data an assignment stands for (also used by the event demo's bots)."""
    data = {"players": dict(a["players"]), "teams": dict(a["teams"]), "round": int(a["round"]),
            "ruleset": {"preset": a["ruleset"]["preset"], "options": dict(a["ruleset"].get("options") or {})},
            "format": dict(a["format"])}
    if a.get("board"):  # duplicate: both rooms of a match play the same deals
        data["board"] = str(a["board"])
    return data


@bp.get("/tables/<table_id>/assignment")
@require_role("viewer")
def get_assignment(table_id: str) -> Any:
    """``{"assignment": {...}|null, "result_ack": {...}|null, "started": bool, "connected": bool}``."""
    bridge = _bridge(table_id)
    if bridge is None:
        return jsonify(assignment=None, result_ack=None, started=False, connected=False, hub=False)
    a = bridge.assignment
    state = get_table(table_id).runner.state()
    return jsonify(assignment=a, result_ack=bridge.result_ack, started=bool(a and started(state, a)),
                   connected=bridge.is_connected, hub=True)


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
    result = entry.runner.submit({"type": "round_set_up", "source": "panel", "role": g.user.role,
                                  "data": set_up_data(a)})
    if not result.accepted:
        return jsonify(accepted=False, error=result.error), 409
    return jsonify(accepted=True, seq=result.seq)
