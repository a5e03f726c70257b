"""The engine state: a plain JSON-like dict, its copy, and its JSON view.

State is a dict of JSON values so that the panel, the feed and the tests can read it without
knowing Python classes, and so that "replay gives the identical state" is a simple ``==``.
Keys starting with ``_`` are internal (the snapshot at deal start, the deal's event log, the
rules ``Play`` of the trick's top) and never leave through :func:`state_to_json`.

Copying: :func:`copy_state` deep-copies what handlers mutate and only list-copies the
append-only histories (flags, score sheet, deal records…). Handlers therefore never mutate an
element of those lists in place: they replace it. That keeps ``apply`` pure at a cost that does
not grow with the length of the match.
"""

from __future__ import annotations

from typing import Any

from table_service.rules.seats import PLAY_ORDER, SEATS, partner

State = dict[str, Any]

SCHEMA = 1
HAND_SIZE = 27
#: A deal's phase as the Chinese half of a message says it (the English half says the phase's id).
PHASE_ZH: dict[str, str] = {"cutting": "切牌", "drawing": "抓牌", "tribute": "进贡", "return": "还贡", "play": "出牌",
                            "over": "已结束"}

#: Top-level lists that only ever grow; their elements are replaced, never mutated.
_APPEND_ONLY = ("flags", "score_sheet", "deal_records", "rounds", "corrections", "released_deals", "_deal_log")


def _ladder() -> dict[str, int]:
    return {"warnings": 0, "violations": 0, "fouls": 0}


def initial_state() -> State:
    """The state of a table before its first event."""
    return {
        "schema": SCHEMA,
        "last_seq": 0,
        "t_ms": None,
        "round": None,
        "levels": {"EW": "2", "NS": "2"},
        "failed_at_a": {"EW": 0, "NS": 0},
        "first_cut": None,
        "deal": None,
        "next_deal": None,
        "penalties": {"EW": _ladder(), "NS": _ladder(), "records": []},
        "flags": [],
        "score_sheet": [],
        "deal_records": [],
        "signatures": {"EW": False, "NS": False},
        "result": None,
        "devices": {"camera": "unknown", "screen": "unknown", "gpio": "unknown"},
        "rounds": [],
        "corrections": [],
        "released_deals": [],
        # Events of the log this release passes over as the table starts (apply.replay): a log of an
        # older release may hold a ruling these rules refuse. Empty for a log this release wrote.
        "not_applied": [],
        "_deal_base": None,
        "_deal_log": [],
        "_overrides": {},
    }


def new_deal(no: int, level: str, level_side: str | None, t_ms: int, counts: dict[str, int]) -> dict[str, Any]:
    """A fresh deal, just after the drawing."""
    return {
        "no": no,
        "level": level,
        "level_side": level_side,
        "phase": "play",
        "started_ms": t_ms,
        "counts": dict(counts),
        "finish_order": [],
        "turn": None,
        "leader": None,
        "trick": {"leader": None, "plays": [], "top": None, "passed": []},
        "tricks": [],
        "reports": {},
        "report_due": {},
        "report_missed": [],
        "obstructed": {},
        "timers": {},
        "seen": {},
        "by_seat": {s: [] for s in SEATS},
        "tribute_plan": None,
        "tributes": [],
        "returns": [],
        "anti_tribute": None,
        "declared": {},
        "questions": [],
        "skip_turn": [],
        "superseded": [],
        "ended_by": None,
        "_top": None,
        "_seen_at": {},
    }


def _deep(value: Any) -> Any:
    """Copy nested dicts and lists; other values (str, int, frozen rules objects) are shared."""
    if isinstance(value, dict):
        return {k: _deep(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_deep(v) for v in value]
    return value


#: Deal fields that are dicts or lists whose elements are replaced, never mutated: one level
#: of copying is enough. (Trick entries, tribute records, report records and the per-card
#: lists are built once and then only replaced.)
_DEAL_DICTS = ("counts", "reports", "report_due", "obstructed", "seen", "by_seat", "_seen_at", "declared")
_DEAL_LISTS = ("finish_order", "tricks", "tributes", "returns", "questions", "skip_turn", "superseded", "report_missed")


def _copy_deal(deal: dict[str, Any]) -> dict[str, Any]:
    out = dict(deal)
    for key in _DEAL_DICTS:
        if key in deal:
            out[key] = dict(deal[key])
    for key in _DEAL_LISTS:
        out[key] = list(deal[key])
    out["timers"] = {seat: dict(t) for seat, t in deal["timers"].items()}
    trick = deal["trick"]
    out["trick"] = dict(trick, plays=list(trick["plays"]), passed=list(trick["passed"]))
    return out


def copy_state(state: State) -> State:
    """A copy that handlers may mutate without touching ``state``.

    Handlers keep to one discipline that makes a shallow copy enough almost everywhere: a
    nested value is *replaced* (``d[k] = new``), never mutated in place, except for the
    containers copied here (timers are the one nested dict mutated in place, so each is copied).
    """
    out: State = dict(state)
    for key in _APPEND_ONLY:
        out[key] = list(state[key])
    for key in ("levels", "failed_at_a", "signatures", "devices", "_overrides"):
        out[key] = dict(state[key])
    pen = state["penalties"]
    out["penalties"] = {"EW": dict(pen["EW"]), "NS": dict(pen["NS"]), "records": list(pen["records"])}
    if state["round"] is not None:
        out["round"] = dict(state["round"])
    if state["deal"] is not None:
        out["deal"] = _copy_deal(state["deal"])
    return out


def _public(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _public(v) for k, v in value.items() if not (isinstance(k, str) and k.startswith("_"))}
    if isinstance(value, list):
        return [_public(v) for v in value]
    return value


def state_to_json(state: State) -> dict[str, Any]:
    """The JSON-ready referee view of ``state`` (a fresh copy; internal keys left out).

    Adds ``unseen``: for each card face with a copy seen this deal, how many copies remain, so
    that the card reader can narrow its guesses (a deck holds two copies of each card).
    """
    view = _public(state)
    deal = view.get("deal")
    if deal is not None:
        deal["unseen"] = {card: 2 - n for card, n in deal["seen"].items()}
    return view


# ---------------------------------------------------------------- small shared helpers


def active_seats(deal: dict[str, Any]) -> list[str]:
    """Seats still holding cards, in play order from E."""
    finished = deal["finish_order"]
    return [s for s in PLAY_ORDER if s not in finished]


def next_active(deal: dict[str, Any], seat: str) -> str | None:
    """The next seat after ``seat`` in play order that has not finished."""
    i = PLAY_ORDER.index(seat)
    finished = deal["finish_order"]
    for k in range(1, 5):
        s = PLAY_ORDER[(i + k) % 4]
        if s not in finished:
            return s
    return None


def leader_after_trick(deal: dict[str, Any], winner: str) -> str | None:
    """Who leads after ``winner`` took the trick: the winner, or the partner (接风)."""
    if winner not in deal["finish_order"]:
        return winner
    mate = partner(winner)
    if mate not in deal["finish_order"]:
        return mate
    return next_active(deal, winner)
