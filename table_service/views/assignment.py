"""The hub's assignment of a table as engine data: the ``round_set_up`` it stands for, and whether
the table has started it. Flask-free, so that the panel's one-tap start and the event demo's bots
set a round up from exactly the same values.
"""

from __future__ import annotations

from typing import Any

from table_service.engine.errors import EventRejected
from table_service.engine.events import check_data


def started(state: dict[str, Any], a: dict[str, Any]) -> bool:
    rnd = state.get("round") or {}
    return rnd.get("no") == a.get("round") and rnd.get("teams") == a.get("teams")


def set_up_data(a: dict[str, Any]) -> dict[str, Any]:
    """The ``round_set_up`` data an assignment stands for (also used by the event demo's bots).

    :raises ValueError: an assignment that stands for no round the engine would set up (a field
        missing or of the wrong kind), named, so that the table keeps the one it had and the
        panel's one-tap start answers in words instead of failing.
    """
    try:
        ruleset = a["ruleset"]
        if not isinstance(ruleset, dict) or isinstance(a["round"], bool) or not isinstance(a["round"], int):
            raise TypeError("ruleset must be an object and round a whole number")
        data = {"players": dict(a["players"]), "teams": dict(a["teams"]), "round": a["round"],
                "ruleset": {"preset": ruleset["preset"], "options": dict(ruleset.get("options") or {})},
                "format": dict(a["format"])}
        if a.get("board"):  # duplicate: both rooms of a match play the same deals
            data["board"] = str(a["board"])
        check_data("round_set_up", data)
    except (KeyError, TypeError, ValueError, EventRejected) as exc:
        raise ValueError(f"编排无效 / the hub's assignment is not a round: {str(exc)[:200]}") from None
    return data
