"""The table's record as a referee reads it: every event, accepted or refused, newest first.

Why a page: after a tap whose outcome was not known (the network dropped, the engine was slow), or
when two referees ruled at once, the referee must see who did what and what the table refused,
by a tap from the panel, not by reading the JSON of ``/api/tables/<id>/events``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import Blueprint, render_template, request

from .auth import require_role
from .i18n import EVENT_NAMES, current_lang, in_words, split_pair
from .tables import get_table

bp = Blueprint("record", __name__)

#: How many events the page shows (the newest): a round is a few hundred.
SHOWN = 300
#: Data fields shown for each event, in this order (pictures and the reader's numbers are left out).
SHOWN_FIELDS = ("seat", "cards", "card", "side", "level", "article", "flag", "ref", "kind", "rank", "minutes",
                "reason", "note", "device", "status", "lose_turn", "next_leader", "seats", "round", "deal")
#: Each event type in both languages (one table with the panel's refusals: web/i18n.py).
TYPE_NAMES = EVENT_NAMES


def _half(text: str, lang: str) -> str:
    zh, en = split_pair(text)
    return zh if lang == "zh" else en


def _value(v: Any, lang: str) -> str:
    if isinstance(v, list):
        return " ".join(str(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{k} {x}" for k, x in v.items())
    return _half(str(v), lang)


def row_of(ev: dict[str, Any], lang: str) -> dict[str, Any]:
    """One line of the record: what the page shows of ``ev`` in ``lang``."""
    data = ev.get("data") if isinstance(ev.get("data"), dict) else {}
    names = TYPE_NAMES.get(str(ev.get("type")))
    what = (names[0] if lang == "zh" else names[1]) if names else str(ev.get("type"))
    details = "; ".join(f"{k} {_value(data[k], lang)}" for k in SHOWN_FIELDS if k in data and data[k] not in (None, ""))
    t = ev.get("t_ms")
    when = datetime.fromtimestamp(t / 1000).strftime("%H:%M:%S") if isinstance(t, int) and t > 0 else ""
    refused = ev.get("rejected")
    return {"seq": ev.get("seq"), "when": when, "what": what, "who": ev.get("role") or ev.get("source") or "",
            "details": details[:300], "refused": in_words(_half(refused, lang), lang) if refused else None}


@bp.get("/tables/<table_id>/record")
@require_role("viewer")
def record(table_id: str) -> Any:
    """The last :data:`SHOWN` events, accepted and refused, newest first (``?refused=1``: refused only)."""
    entry = get_table(table_id)
    lang = current_lang()
    events = [*entry.runner.events(), *entry.runner.rejected()]
    if request.args.get("refused") == "1":
        events = [e for e in events if e.get("rejected")]
    events = sorted(events, key=lambda e: e.get("seq") or 0)[-SHOWN:][::-1]
    return render_template("record.html", table_id=table_id, rows=[row_of(e, lang) for e in events],
                           refused_only=request.args.get("refused") == "1")
