"""The table's record as a referee reads it: every event, accepted or refused, newest first.

Why a page: after a tap whose outcome was not known (the network dropped, the engine was slow), or
when two referees ruled at once, the referee must see who did what and what the table refused,
by a tap from the panel, not by reading the JSON of ``/api/tables/<id>/events``.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from flask import Blueprint, abort, render_template, request

from table_service.rules.cards import RANK_NAMES_ZH
from table_service.rules.seats import SEATS, SIDES

from .auth import require_role
from .i18n import current_lang, in_words
from .tables import get_table
from .words import EVENT_NAMES, STRINGS, split_pair

bp = Blueprint("record", __name__)

#: How many events the page shows (the newest): a round is a few hundred.
SHOWN = 300
#: Data fields shown for each event, in this order (pictures and the reader's numbers are left out).
SHOWN_FIELDS = ("seat", "cards", "card", "side", "level", "article", "flag", "ref", "kind", "rank", "minutes",
                "reason", "note", "device", "status", "lose_turn", "next_leader", "seats", "round", "deal",
                "players", "teams", "board")
#: Each field's name as the page says it (the panel's own labels where it has one): the record read
#: "seat 南 S 李娜; level violation; lose_turn True" on a Chinese page (the s36 tap audit).
FIELD_LABELS: dict[str, tuple[str, str]] = {
    **{k: STRINGS[k] for k in SHOWN_FIELDS if k in STRINGS},
    "flag": ("标记", "Flag"), "ref": ("所指记录", "Event"), "device": ("设备", "Device"),
    "seats": ("座位", "Seats"), "level": ("处罚", "Penalty")}
#: Values said in words: the penalty levels, yes and no.
_VALUE_WORDS = {v: STRINGS[v] for v in ("warning", "violation", "foul", "loss")}
#: Each event type in both languages (one table with the panel's refusals: web/words.py).
TYPE_NAMES = EVENT_NAMES
#: Fields whose value is a word the pages already say in both languages (the key's prefix in
#: ``STRINGS``): a declared reading's pattern, a device and its status. The record read "牌型 straight"
#: and "设备 camera; 状态 online" on a Chinese page (audit s38).
_WORD_FIELDS = {"kind": "kind_", "device": "st_", "status": "st_"}
#: A rank as each language says it (a declared reading's rank "T" read as the letter).
_RANK_EN = {"T": "10", "SJ": "small joker", "BJ": "big joker"}


def _half(text: str, lang: str) -> str:
    zh, en = split_pair(text)
    return zh if lang == "zh" else en


#: Fields that name a seat, and the one that names a side: said with who sits there (``People``).
_SEAT_FIELDS = ("seat", "next_leader", "seats")


class People:
    """Who the current round seats where and which team each side is, for the events of that round:
    the details say "seat 东 E 张伟", not "seat E" (the referee reads the record after a disputed tap,
    and reads people, not compass points). An event older than the round is said by its ids."""

    def __init__(self, state: dict[str, Any]) -> None:
        rnd = state.get("round") or {}
        self.players: dict[str, str] = dict(rnd.get("players") or {})
        # The hub's names where the round has them (its ``teams`` are then the hub's ids, "T01").
        self.teams: dict[str, str] = dict(rnd.get("team_names") or rnd.get("teams") or {})
        self.since_ms: int | None = rnd.get("started_ms")

    def knows(self, ev: dict[str, Any]) -> bool:
        t = ev.get("t_ms")
        return self.since_ms is not None and isinstance(t, int) and t >= self.since_ms

    def seat(self, seat: str, lang: str) -> str:
        words = STRINGS.get(f"seat_{seat}")
        if words is None:
            return seat
        head = f"{words[0]} {seat}" if lang == "zh" else words[1]
        return f"{head} {self.players[seat]}" if self.players.get(seat) else head

    def side(self, side: str, lang: str) -> str:
        words = STRINGS.get(f"side_{side}")
        if words is None:
            return side
        team = self.teams.get(side)
        head = words[0] if lang == "zh" else words[1]
        return f"{head} {team}" if team and team != side else head


def _value(v: Any, lang: str) -> str:
    if isinstance(v, bool):
        return ("是" if v else "否") if lang == "zh" else ("yes" if v else "no")
    if isinstance(v, list):
        return " ".join(str(x) for x in v)
    if isinstance(v, dict):
        return ", ".join(f"{k} {x}" for k, x in v.items())
    if isinstance(v, str) and v in _VALUE_WORDS:
        return _VALUE_WORDS[v][0 if lang == "zh" else 1]
    return _half(str(v), lang)


def _field(key: str, v: Any, lang: str, people: People | None) -> str:
    """One detail, a seat or a side said with who it is where ``people`` knows the event's round."""
    if people is not None and key in _SEAT_FIELDS:
        seats = v if isinstance(v, list) else [v]
        if all(isinstance(x, str) for x in seats):
            return ", ".join(people.seat(x, lang) for x in seats)
    if people is not None and key == "side" and isinstance(v, str):
        return people.side(v, lang)
    if key == "players" and isinstance(v, dict):  # a round's set-up: who sits where
        return ", ".join(f"{People({}).seat(s, lang)} {v[s]}" for s in SEATS if s in v)
    if key == "teams" and isinstance(v, dict):
        return ", ".join(f"{People({}).side(s, lang)} {v[s]}" for s in SIDES if s in v)
    if key in _WORD_FIELDS and isinstance(v, str) and f"{_WORD_FIELDS[key]}{v}" in STRINGS:
        return STRINGS[f"{_WORD_FIELDS[key]}{v}"][0 if lang == "zh" else 1]
    if key == "rank" and isinstance(v, str):
        return (RANK_NAMES_ZH if lang == "zh" else _RANK_EN).get(v, v)
    return _value(v, lang)


def _label(key: str, lang: str) -> str:
    words = FIELD_LABELS.get(key)
    return key if words is None else words[0 if lang == "zh" else 1]


def _who(ev: dict[str, Any], lang: str) -> str:
    """Who entered it, in the page's language: a role (裁判, 裁判长), else the device or page it came from."""
    for key in (f"role_{ev.get('role')}", f"src_{ev.get('source')}"):
        if key in STRINGS:
            return STRINGS[key][0 if lang == "zh" else 1]
    return str(ev.get("role") or ev.get("source") or "")


def row_of(ev: dict[str, Any], lang: str, people: People | None = None) -> dict[str, Any]:
    """One line of the record: what the page shows of ``ev`` in ``lang`` (seats and sides by who
    they are where ``people`` knows the event's round)."""
    data = ev.get("data") if isinstance(ev.get("data"), dict) else {}
    names = TYPE_NAMES.get(str(ev.get("type")))
    what = (names[0] if lang == "zh" else names[1]) if names else str(ev.get("type"))
    who = people if people is not None and people.knows(ev) else None
    details = "; ".join(f"{_label(k, lang)} {_field(k, data[k], lang, who)}" for k in SHOWN_FIELDS
                        if k in data and data[k] not in (None, ""))
    t = ev.get("t_ms")
    when = datetime.fromtimestamp(t / 1000).strftime("%H:%M:%S") if isinstance(t, int) and t > 0 else ""
    refused = ev.get("rejected")
    return {"seq": ev.get("seq"), "when": when, "what": what, "who": _who(ev, lang),
            "details": details[:300], "refused": in_words(_half(refused, lang), lang) if refused else None}


@bp.get("/tables/<table_id>/record")
@require_role("viewer")
def record(table_id: str) -> Any:
    """The last :data:`SHOWN` events, accepted and refused, newest first (``?refused=1``: refused only)."""
    refused_only = request.args.get("refused", "0")
    if refused_only not in ("0", "1"):
        abort(400, description=f"参数 refused 须为 0 或 1，收到 {refused_only[:40]!r} / "
                               f"query parameter 'refused' must be 0 or 1, got {refused_only[:40]!r}")
    entry = get_table(table_id)
    lang = current_lang()
    events = [*entry.runner.events(), *entry.runner.rejected()]
    if refused_only == "1":
        events = [e for e in events if e.get("rejected")]
    events = sorted(events, key=lambda e: e.get("seq") or 0)[-SHOWN:][::-1]
    people = People(entry.runner.state())
    return render_template("record.html", table_id=table_id, rows=[row_of(e, lang, people) for e in events],
                           refused_only=refused_only == "1")
