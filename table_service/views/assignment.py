"""The hub's assignment of a table as engine data: the ``round_set_up`` it stands for, and whether
the table has started it. Flask-free, so that the panel's one-tap start and the event demo's bots
set a round up from exactly the same values.
"""

from __future__ import annotations

import re
from typing import Any

from table_service.engine.apply import apply_in_place
from table_service.engine.errors import EventRejected
from table_service.engine.events import check_data
from table_service.engine.ruleset import stamp_generation
from table_service.engine.state import initial_state


def started(state: dict[str, Any], a: dict[str, Any]) -> bool:
    """Whether the table plays the round ``a`` assigns: its number, and the teams by the hub's ids
    (``round.teams``; the names in ``round.team_names`` are what people read)."""
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
        if a.get("team_names") is not None:
            # The hub names teams by id in ``teams`` (its result lines must carry them back) and by
            # name in ``team_names``: the round keeps both, so the overlay, the panel and the score
            # sheet say "江苏一队", not "T01" (the s37 producer's audit), and the result stays scored.
            data["team_names"] = dict(a["team_names"])
        if a.get("board"):  # duplicate: both rooms of a match play the same deals
            data["board"] = str(a["board"])
        if a.get("resume") is not None:
            # A match moved here from a failed table: it goes on where it stood there (engine/resume.py),
            # its levels gained still counted from the round's start.
            data["resume"] = dict(a["resume"])
        check_data("round_set_up", data)
        if data["teams"].get("NS") == data["teams"].get("EW"):
            raise ValueError(f"a team cannot play itself: {data['teams']!r}")
        # The engine's own set-up on an empty table (round 1-999, names, ruleset options, format):
        # an assignment the one-tap start would refuse is refused on arrival, and the one before stays.
        apply_in_place(initial_state(), stamp_generation({"seq": 1, "t_ms": 0, "type": "round_set_up",
                                                           "source": "panel", "role": "referee", "data": data}))
    except (KeyError, TypeError, ValueError, EventRejected) as exc:
        raise ValueError(f"编排无效（{str(exc)[:200]}） / "
                         f"the hub's assignment is not a round: {str(exc)[:200]}") from None
    return data


#: A hub answer's round and result id, as :func:`table_service.views.wire.table_result` writes the id
#: (``r<round>-s<seq>``, and the first 8 characters of the log's identity after a dash).
_RESULT_ID_RE = re.compile(r"r([0-9]{1,3})-s[0-9]{1,12}(?:-[0-9A-Za-z]{1,8})?", re.ASCII)
_ACK_STATUS = ("accepted", "refused")


def check_result_ack(ack: Any) -> dict[str, Any]:
    """The hub's ``result_ack`` as the panel shows it (docs/hub-protocol.md), checked on arrival.

    :raises ValueError: not that shape (a list, a number, a status that is no verdict, a round out
        of range, text too long): the table keeps the answer it had, as for an assignment.
    """
    if not isinstance(ack, dict):
        raise ValueError(f"成绩回执无效：result_ack 须为对象，收到 {type(ack).__name__} / "
                         f"result_ack must be an object, got {type(ack).__name__}")
    rid, status, rnd = ack.get("result_id"), ack.get("status"), ack.get("round")
    if not isinstance(rid, str) or not 1 <= len(rid) <= 64:
        raise ValueError("成绩回执无效 / result_ack: result_id must be text of 1-64 characters")
    if status not in _ACK_STATUS:
        raise ValueError(f"成绩回执无效：status 须为 accepted 或 refused，收到 {str(status)[:40]!r} / "
                         f"result_ack: status must be accepted or refused, got {str(status)[:40]!r}")
    if rnd is not None and (isinstance(rnd, bool) or not isinstance(rnd, int) or not 1 <= rnd <= 999):
        raise ValueError(f"成绩回执无效：round 须为 1–999 的整数，收到 {str(rnd)[:40]!r} / "
                         f"result_ack: round must be a whole number 1-999, got {str(rnd)[:40]!r}")
    reason = ack.get("reason")
    if reason is not None and (not isinstance(reason, str) or len(reason) > 1000):
        raise ValueError("成绩回执无效 / result_ack: reason must be text of at most 1000 characters")
    for key in ("hub_seq",):
        v = ack.get(key)
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise ValueError(f"成绩回执无效：{key} 须为整数 / result_ack: {key} must be a whole number")
    if ack.get("duplicate") not in (None, True, False):
        raise ValueError("成绩回执无效 / result_ack: duplicate must be true or false")
    return ack


def ack_round(ack: Any) -> int | None:
    """The round a ``result_ack`` answers: its ``round`` (every answer of today's hub carries it), or
    the round in its ``result_id`` (``r<round>-s<seq>``) from an older hub's refusal."""
    if not isinstance(ack, dict):
        return None
    rnd = ack.get("round")
    if isinstance(rnd, int) and not isinstance(rnd, bool):
        return rnd
    m = _RESULT_ID_RE.fullmatch(str(ack.get("result_id", ""))[:64])
    return int(m.group(1)) if m else None
