"""The event vocabulary: types, sources, roles, and checks of the envelope and its fields.

Documented for humans in ``docs/events.md``. The helpers here turn raw JSON values into checked
values (seats, sides, canonical card strings) and raise :class:`EventRejected` with a message a
referee can read when a field is wrong; nothing here looks at the table state.
"""

from __future__ import annotations

from typing import Any

from table_service.engine.errors import EventRejected
from table_service.rules.cards import format_cards, parse_cards
from table_service.rules.errors import InvalidCardError
from table_service.rules.seats import SEATS, SIDES

#: Every event type the engine applies, in the order ``docs/events.md`` lists them.
EVENT_TYPES: tuple[str, ...] = (
    "round_set_up",
    "first_cut_recorded",
    "drawing_finished",
    "anti_tribute_declared",
    "tribute_given",
    "return_given",
    "cards_played",
    "passed",
    "report_pressed",
    "referee_called",
    "card_exposed",
    "zone_obstructed",
    "clock_ticked",
    "device_status_changed",
    "flag_confirmed",
    "flag_dismissed",
    "play_confirmed",
    "play_corrected",
    "reading_declared",
    "event_voided",
    "penalty_given",
    "late_arrival_recorded",
    "score_sheet_signed",
    "round_ended",
    "deal_released",
)

#: Types that only a referee (or the chief referee) may submit.
REFEREE_TYPES: frozenset[str] = frozenset(
    {
        "round_set_up",
        "flag_confirmed",
        "flag_dismissed",
        "play_confirmed",
        "play_corrected",
        "reading_declared",
        "event_voided",
        "penalty_given",
        "late_arrival_recorded",
        "score_sheet_signed",
        "round_ended",
        "deal_released",
    }
)

#: Types a referee may void or correct (everything that a person or a sensor did at the table).
VOIDABLE_TYPES: frozenset[str] = frozenset(
    {
        "anti_tribute_declared",
        "tribute_given",
        "return_given",
        "cards_played",
        "passed",
        "report_pressed",
        "referee_called",
        "card_exposed",
        "zone_obstructed",
        "flag_confirmed",
        "flag_dismissed",
        "reading_declared",
        "penalty_given",
    }
)

SOURCES: tuple[str, ...] = ("camera", "screen", "gpio", "panel", "bot", "clock", "system")
ROLES: tuple[str, ...] = ("viewer", "referee", "chief")
DEVICES: tuple[str, ...] = ("camera", "screen", "gpio")
DEVICE_STATUSES: tuple[str, ...] = ("online", "offline")
PENALTY_LEVELS: tuple[str, ...] = ("warning", "violation", "foul", "loss")


def check_envelope(event: Any) -> dict[str, Any]:
    """Check the envelope of ``event`` and return a normalised copy.

    ``seq`` may be missing (the store gives it); ``role`` defaults to ``None`` and ``data`` to
    ``{}``. Field values inside ``data`` are checked by the handler of each type.

    :raises EventRejected: naming the bad field.
    """
    if not isinstance(event, dict):
        raise EventRejected(f"事件必须是对象 / an event must be a JSON object, got {type(event).__name__}")
    etype = event.get("type")
    if etype not in EVENT_TYPES:
        raise EventRejected(f"未知事件类型 / unknown event type: {etype!r}")
    t_ms = event.get("t_ms")
    if not isinstance(t_ms, int) or isinstance(t_ms, bool) or t_ms < 0:
        raise EventRejected(f"时间无效 / t_ms must be a non-negative integer, got {t_ms!r}")
    source = event.get("source")
    if source not in SOURCES:
        raise EventRejected(f"来源无效 / unknown source: {source!r} (expected one of {' '.join(SOURCES)})")
    role = event.get("role")
    if role is not None and role not in ROLES:
        raise EventRejected(f"角色无效 / unknown role: {role!r} (expected viewer, referee or chief)")
    data = event.get("data", {})
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise EventRejected(f"data 必须是对象 / data must be a JSON object, got {type(data).__name__}")
    seq = event.get("seq")
    if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool) or seq < 1):
        raise EventRejected(f"序号无效 / seq must be a positive integer, got {seq!r}")
    if etype in REFEREE_TYPES and role not in ("referee", "chief"):
        raise EventRejected(f"需要裁判权限 / referee role required for {etype} (role {role!r})")
    return {"seq": seq, "t_ms": t_ms, "type": etype, "source": source, "role": role, "data": data}


def field(data: dict[str, Any], name: str, etype: str) -> Any:
    """A required field of ``data``."""
    if name not in data or data[name] is None:
        raise EventRejected(f"缺少字段 / {etype}: missing field {name!r}")
    return data[name]


def seat_field(data: dict[str, Any], name: str, etype: str, *, required: bool = True) -> str | None:
    """A seat field (``E S W N``)."""
    if not required and data.get(name) is None:
        return None
    seat = field(data, name, etype)
    if seat not in SEATS:
        raise EventRejected(f"座位无效 / {etype}: unknown seat {seat!r} in {name!r} (expected E, S, W or N)")
    return seat


def side_field(data: dict[str, Any], name: str, etype: str) -> str:
    """A side field (``EW`` or ``NS``)."""
    side = field(data, name, etype)
    if side not in SIDES:
        raise EventRejected(f"方无效 / {etype}: unknown side {side!r} (expected EW or NS)")
    return side


def cards_field(data: dict[str, Any], name: str, etype: str) -> list[str]:
    """A list of cards in notation; returned in canonical notation, order kept."""
    raw = field(data, name, etype)
    if isinstance(raw, str):
        raw = raw.split()
    if not isinstance(raw, list) or not raw:
        raise EventRejected(f"牌无效 / {etype}: {name!r} must be a non-empty list of cards")
    if any(not isinstance(c, str) for c in raw):
        raise EventRejected(f"牌无效 / {etype}: {name!r} must hold card strings, got {raw!r}")
    try:
        cards = parse_cards(raw)
    except InvalidCardError as exc:
        raise EventRejected(f"{exc} ({etype})") from None
    return format_cards(cards).split()


def card_field(data: dict[str, Any], name: str, etype: str) -> str:
    """One card in notation, canonical."""
    raw = field(data, name, etype)
    if not isinstance(raw, str):
        raise EventRejected(f"牌无效 / {etype}: {name!r} must be one card, got {raw!r}")
    cards = cards_field({name: [raw]}, name, etype)
    return cards[0]


def int_field(data: dict[str, Any], name: str, etype: str) -> int:
    """A required integer field."""
    value = field(data, name, etype)
    if not isinstance(value, int) or isinstance(value, bool):
        raise EventRejected(f"字段无效 / {etype}: {name!r} must be an integer, got {value!r}")
    return value
