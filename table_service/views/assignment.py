"""The hub's assignment of a table as engine data: the ``round_set_up`` it stands for, and whether
the table has started it. Flask-free, so that the panel's one-tap start and the event demo's bots
set a round up from exactly the same values.
"""

from __future__ import annotations

from typing import Any


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
