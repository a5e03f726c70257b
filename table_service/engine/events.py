"""The event vocabulary: types, sources, roles, and checks of the envelope and its fields.

Documented for humans in ``docs/events.md``. The helpers here turn raw JSON values into checked
values (seats, sides, canonical card strings) and raise :class:`EventRejected` with a message a
referee can read when a field is wrong; nothing here looks at the table state.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

from table_service.engine.errors import EventRejected, RoleRejected
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
    "tribute_corrected",
    "event_voided",
    "penalty_given",
    "late_arrival_recorded",
    "score_sheet_signed",
    "round_ended",
    "deal_released",
    "deal_redrawn",
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
        "tribute_corrected",
        "event_voided",
        "penalty_given",
        "late_arrival_recorded",
        "score_sheet_signed",
        "round_ended",
        "deal_released",
        "deal_redrawn",
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
        "tribute_corrected",
        "penalty_given",
    }
)

SOURCES: tuple[str, ...] = ("camera", "screen", "gpio", "panel", "bot", "clock", "system", "hub")
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
        raise EventRejected(f"事件必须是对象，收到 {type(event).__name__}"
                            f" / an event must be a JSON object, got {type(event).__name__}")
    etype = event.get("type")
    if etype not in EVENT_TYPES:
        raise EventRejected(f"未知事件类型：{etype!r} / unknown event type: {etype!r}")
    t_ms = event.get("t_ms")
    if not isinstance(t_ms, int) or isinstance(t_ms, bool) or t_ms < 0:
        raise EventRejected(f"时间无效：t_ms 须为非负整数，收到 {t_ms!r}"
                            f" / t_ms must be a non-negative integer, got {t_ms!r}")
    source = event.get("source")
    if source not in SOURCES:
        raise EventRejected(
            f"来源无效：{source!r}（应为 {' '.join(SOURCES)} 之一）"
            f" / unknown source: {source!r} (expected one of {' '.join(SOURCES)})"
        )
    role = event.get("role")
    if role is not None and role not in ROLES:
        raise EventRejected(
            f"角色无效：{role!r}（应为 viewer、referee 或 chief）"
            f" / unknown role: {role!r} (expected viewer, referee or chief)"
        )
    data = event.get("data", {})
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise EventRejected(f"data 必须是对象，收到 {type(data).__name__}"
                            f" / data must be a JSON object, got {type(data).__name__}")
    seq = event.get("seq")
    if seq is not None and (not isinstance(seq, int) or isinstance(seq, bool) or seq < 1):
        raise EventRejected(f"序号无效：seq 须为正整数，收到 {seq!r} / seq must be a positive integer, got {seq!r}")
    if etype in REFEREE_TYPES and role not in ("referee", "chief"):
        raise RoleRejected(f"{etype} 需要裁判权限（当前角色 {role!r}）"
                           f" / referee role required for {etype} (role {role!r})")
    return {"seq": seq, "t_ms": t_ms, "type": etype, "source": source, "role": role, "data": data}


def field(data: dict[str, Any], name: str, etype: str) -> Any:
    """A required field of ``data``."""
    if name not in data or data[name] is None:
        raise EventRejected(f"{etype}：缺少字段 {name!r} / {etype}: missing field {name!r}")
    return data[name]


def seat_field(data: dict[str, Any], name: str, etype: str, *, required: bool = True) -> str | None:
    """A seat field (``E S W N``)."""
    if not required and data.get(name) is None:
        return None
    seat = field(data, name, etype)
    if seat not in SEATS:
        raise EventRejected(
            f"{etype}：座位无效，{name!r} 为 {seat!r}（应为 E、S、W 或 N）"
            f" / {etype}: unknown seat {seat!r} in {name!r} (expected E, S, W or N)"
        )
    return seat


def side_field(data: dict[str, Any], name: str, etype: str) -> str:
    """A side field (``EW`` or ``NS``)."""
    side = field(data, name, etype)
    if side not in SIDES:
        raise EventRejected(f"{etype}：方无效，收到 {side!r}（应为 EW 或 NS）"
                            f" / {etype}: unknown side {side!r} (expected EW or NS)")
    return side


def cards_field(data: dict[str, Any], name: str, etype: str) -> list[str]:
    """A list of cards in notation; returned in canonical notation, order kept."""
    raw = field(data, name, etype)
    if isinstance(raw, str):
        raw = raw.split()
    if not isinstance(raw, list) or not raw:
        raise EventRejected(f"{etype}：牌无效，{name!r} 须为非空的牌列表"
                            f" / {etype}: {name!r} must be a non-empty list of cards")
    if any(not isinstance(c, str) for c in raw):
        raise EventRejected(
            f"{etype}：牌无效，{name!r} 须由牌的字符串组成，收到 {raw!r}"
            f" / {etype}: {name!r} must hold card strings, got {raw!r}"
        )
    try:
        cards = parse_cards(raw)
    except InvalidCardError as exc:
        raise EventRejected(f"{exc} ({etype})") from None
    return format_cards(cards).split()


def card_field(data: dict[str, Any], name: str, etype: str) -> str:
    """One card in notation, canonical."""
    raw = field(data, name, etype)
    if not isinstance(raw, str):
        raise EventRejected(f"{etype}：牌无效，{name!r} 须为一张牌，收到 {raw!r}"
                            f" / {etype}: {name!r} must be one card, got {raw!r}")
    cards = cards_field({name: [raw]}, name, etype)
    return cards[0]


def int_field(data: dict[str, Any], name: str, etype: str) -> int:
    """A required integer field."""
    value = field(data, name, etype)
    if not isinstance(value, int) or isinstance(value, bool):
        raise EventRejected(
            f"{etype}：字段无效，{name!r} 须为整数，收到 {value!r} / {etype}: {name!r} must be an integer, got {value!r}"
        )
    return value


# ------------------------------------------------------------------------- data schemas
# One table of what each event type's ``data`` may hold: names, types, sizes. The runner checks
# every submitted event against it before the event reaches the log (a rejected event is logged
# too, so an unchecked 30 MB ``pad`` would fill the disk even when refused), and the web API
# checks referee actions against it to answer 400 naming the field. Re-folding a stored log does
# not use it: what was accepted once stays readable. Documented in docs/events.md ("Data schemas").

#: Most cards one seat can hold (and so play, or have corrected) at once.
MAX_HAND = 27
#: Longest text field (names, reasons, notes, articles, details), in characters.
MAX_TEXT = 500
#: Most deals a round may be set to (``format.deals``); the demo's ``--deals`` is held to it too.
MAX_DEALS = 10_000


#: Largest ``data`` of any event, as compact JSON, in bytes (a camera question's picture included).
MAX_DATA_BYTES = 1_200_000
#: Deepest nesting of free-form values (ruleset options).
MAX_DEPTH = 4


@dataclass(frozen=True)
class Spec:
    """What one field may hold.

    ``kind``: ``str`` (``max_len`` characters, ``choices``), ``int``/``num`` (``lo``–``hi``; num
    also takes floats, never NaN/inf, never bool), ``bool``, ``list`` (``min_len``–``max_len``
    items of ``item``), ``map`` (keys from ``keys``, values of ``item``), ``obj`` (fields
    ``fields``), ``json`` (any JSON up to ``max_len`` bytes and :data:`MAX_DEPTH` deep), or
    ``cards`` (a list of card strings or one space-separated string, ``min_len``–``max_len``
    cards). ``alt``: another spec a value may match instead (e.g. a flag id: text or integer).
    """

    kind: str
    required: bool = False
    max_len: int = 64
    min_len: int = 0
    lo: float | None = None
    hi: float | None = None
    choices: tuple[Any, ...] | None = None
    item: Spec | None = None
    keys: tuple[str, ...] | None = None
    fields: dict[str, Spec] | None = None
    alt: Spec | None = None


def _s(max_len: int = 64, *, required: bool = False, choices: tuple[Any, ...] | None = None) -> Spec:
    return Spec("str", required=required, max_len=max_len, choices=choices)


def _i(lo: int = 0, hi: int = 2**62, *, required: bool = False) -> Spec:
    return Spec("int", required=required, lo=lo, hi=hi)


def _cards(lo: int = 1, hi: int = MAX_HAND, *, required: bool = True) -> Spec:
    return Spec("cards", required=required, min_len=lo, max_len=hi)


_SEAT = _s(choices=SEATS, required=True)
_OPT_SEAT = _s(choices=SEATS)
_SIDE = _s(choices=SIDES, required=True)
_CARD = _s(8, required=True)
_TEXT = _s(MAX_TEXT)
_FLAG_ID = Spec("str", max_len=32, alt=_i())
#: Which flag a ruling meant, stamped by the table's runner as the ruling is logged (the raising
#: event's seq, the flag's rule and seat): an id is a flag's place among its event's flags, and a
#: correction that re-folds the deal can add or drop an earlier one (flags.resolve_flag).
_FLAG_OF = Spec("obj", fields={"seq": _i(required=True), "rule": _s(40, required=True), "seat": _OPT_SEAT})
_REF = _i(1, required=True)
_PRESS = _s(64)  # "<screen controller boot id>:<event_no>": one press is logged once (the service)
_RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "10", "J", "Q", "K", "A")
_RULESET = Spec("str", max_len=64, alt=Spec("json", max_len=4096))
_FORMAT = Spec("obj", fields={"kind": _s(choices=("past_a", "deals", "time"), required=True),
                              "deals": _i(1, MAX_DEALS), "minutes": Spec("num", lo=0, hi=100_000)})
_READING = Spec("obj", fields={"kind": _s(32, required=True), "rank": Spec("str", max_len=4, alt=_i(0, 20))})

#: Event type -> field name -> :class:`Spec`. A field not listed is refused.
DATA_SCHEMAS: dict[str, dict[str, Spec]] = {
    "round_set_up": {
        "players": Spec("map", required=True, keys=SEATS, item=_s(64)),
        "teams": Spec("map", keys=SIDES, item=_s(64)),
        # The teams' names where ``teams`` holds the hub's ids (an event's assignment, whose names are
        # at most event.model.MAX_ID long too): what every page and the public feed show; the ids stay
        # what the round's result and summary name (views.wire.table_result, mqtt_bridge.table_summary).
        "team_names": Spec("map", keys=SIDES, item=_s(64)),
        "ruleset": _RULESET,
        "format": _FORMAT,
        "levels": Spec("map", keys=SIDES, item=_s(2, choices=_RANKS)),
        "round": _i(0, 1_000_000),
        "board": _s(64),
        "engine": _i(1, 1_000),
        # A match moved from a failed table goes on where it stood (engine/resume.py checks the sense).
        "resume": Spec("obj", fields={
            "from": _s(64), "levels": Spec("map", required=True, keys=SIDES, item=_s(2, choices=_RANKS)),
            "deals": _i(0, MAX_DEALS), "next_side": _s(choices=SIDES),
            "last_order": Spec("list", min_len=2, max_len=4, item=_s(choices=SEATS)),
            "failed_at_a": Spec("map", keys=SIDES, item=_i(0, 1_000)), "elapsed_s": _i(0, 10_000_000)}),
    },
    "first_cut_recorded": {"card": _CARD},
    "drawing_finished": {"counts": Spec("map", keys=SEATS, item=_i(0, 108)), "cut_card_holder": _OPT_SEAT},
    "anti_tribute_declared": {"seats": Spec("list", required=True, min_len=1, max_len=2, item=_s(choices=SEATS)),
                              "cards": _cards(1, 4)},
    "tribute_given": {"seat": _SEAT, "card": _CARD},
    "return_given": {"seat": _SEAT, "card": _CARD},
    "cards_played": {
        "seat": _SEAT,
        "cards": _cards(),
        "confidence": Spec("list", max_len=MAX_HAND, item=Spec("num", lo=0, hi=1)),
        "uncertain": Spec("bool"),
        "reading": _READING,
        "confirmed": Spec("bool"),
        "corrected": Spec("bool"),
        # a doubtful camera read's evidence (table_service.table.question_evidence)
        "crop": _s(1_100_000),
        "reasons": Spec("list", max_len=8, item=_s(MAX_TEXT)),
        "candidates": Spec("list", max_len=8, item=_cards(required=False)),
    },
    "passed": {"seat": _SEAT, "press": _PRESS},
    "report_pressed": {"seat": _SEAT, "press": _PRESS},
    # ``card``, ``crop``: a doubtful camera read of a tribute or return card, the camera's best
    # reading and its picture (table_service.table.inputs.camera_event), for a one-tap entry
    "referee_called": {"seat": _OPT_SEAT, "reason": _TEXT, "press": _PRESS, "card": _s(8), "crop": _s(1_100_000)},
    "card_exposed": {"card": _s(8), "seat": _OPT_SEAT,
                     "position_mm": Spec("list", min_len=2, max_len=2, item=Spec("num", lo=-100_000, hi=100_000))},
    "zone_obstructed": {"seat": _SEAT, "seconds": Spec("num", required=True, lo=0, hi=86_400)},
    "clock_ticked": {},
    "device_status_changed": {"device": _s(choices=DEVICES, required=True),
                              "status": _s(choices=DEVICE_STATUSES, required=True), "detail": _TEXT},
    "flag_confirmed": {"flag": Spec("str", required=True, max_len=32, alt=_i()), "flag_of": _FLAG_OF, "note": _TEXT},
    "flag_dismissed": {"flag": Spec("str", required=True, max_len=32, alt=_i()), "flag_of": _FLAG_OF, "note": _TEXT},
    "play_confirmed": {"ref": _REF},
    "play_corrected": {"ref": _REF, "cards": _cards()},
    "reading_declared": {"ref": _REF, "kind": _s(32, required=True),
                         "rank": Spec("str", required=True, max_len=4, alt=_i(0, 20))},
    "tribute_corrected": {"ref": _REF, "card": _CARD, "reason": _s(MAX_TEXT, required=True)},
    "event_voided": {"ref": _REF, "reason": _TEXT},
    "penalty_given": {
        "side": _SIDE,
        "level": _s(choices=PENALTY_LEVELS, required=True),
        "article": _s(MAX_TEXT, required=True),
        "seat": _OPT_SEAT,
        "flag": _FLAG_ID,
        "flag_of": _FLAG_OF,
        "lose_turn": Spec("bool"),
        "next_leader": _OPT_SEAT,
        "note": _TEXT,
    },
    "late_arrival_recorded": {"side": _SIDE, "minutes": Spec("num", required=True, lo=0, hi=100_000),
                              "next_leader": _OPT_SEAT},
    "score_sheet_signed": {"side": _SIDE},
    "round_ended": {"reason": _TEXT},
    "deal_redrawn": {"reason": _s(MAX_TEXT, required=True)},
    "deal_released": {"deal": _i(1, 1_000_000, required=True), "round": _i(0, 1_000_000)},
}


def _kind_name(value: Any) -> str:
    return {dict: "object", list: "list", str: "text", bool: "true/false", type(None): "null"}.get(
        type(value), "number" if isinstance(value, int | float) else type(value).__name__)


def _depth_ok(value: Any, depth: int) -> bool:
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, dict):
        return all(isinstance(k, str) and _depth_ok(v, depth + 1) for k, v in value.items())
    if isinstance(value, list):
        return all(_depth_ok(v, depth + 1) for v in value)
    if isinstance(value, float):
        return math.isfinite(value)  # NaN and Infinity: no JSON number (a ruleset's options took them)
    return value is None or isinstance(value, str | int | bool)


def _check_value(value: Any, spec: Spec, where: str) -> Problem | None:
    """None when ``value`` fits ``spec``, else what is wrong (:data:`Problem`, naming ``where``)."""
    problem = _check_one(value, spec, where)
    if problem is not None and spec.alt is not None:
        other = _check_one(value, spec.alt, where)
        if other is None:
            return None
        if not _type_fits(value, spec) and _type_fits(value, spec.alt):
            return other  # e.g. a ruleset object: say what is wrong inside it
    return problem


def _type_fits(value: Any, spec: Spec) -> bool:
    """Whether ``value`` is of the JSON type ``spec`` expects (its size and contents aside)."""
    if spec.kind == "json":
        return True
    expected = {"str": str, "bool": bool, "list": list, "map": dict, "obj": dict, "cards": (list, str),
                "int": int, "num": (int, float)}[spec.kind]
    return isinstance(value, expected) and not (isinstance(value, bool) and spec.kind in ("int", "num"))


#: A schema problem in both languages: (中文, English), each naming the field and what is expected.
Problem = tuple[str, str]


def _p(zh: str, en: str) -> Problem:
    """A schema problem in both languages (a pair: the value quoted in it may hold " / " itself)."""
    return (zh, en)


#: :func:`_kind_name` in Chinese.
_KIND_ZH = {"object": "对象", "list": "列表", "text": "文字", "true/false": "真假值", "null": "null", "number": "数字"}


def _kind_zh(value: Any) -> str:
    name = _kind_name(value)
    return _KIND_ZH.get(name, name)


def _check_one(value: Any, spec: Spec, where: str) -> Problem | None:
    """None when ``value`` fits ``spec``, else what is wrong (:data:`Problem`), naming ``where``."""
    k = spec.kind
    if k == "str":
        if not isinstance(value, str):
            return _p(f"{where} 须为文字，收到{_kind_zh(value)}", f"{where} must be text, got {_kind_name(value)}")
        if len(value) > spec.max_len:
            return _p(f"{where} 超过 {spec.max_len} 个字符", f"{where} is longer than {spec.max_len} characters")
        if spec.choices is not None and value not in spec.choices:
            if spec.choices == SEATS:
                return _p(f"{where} 为未知座位 {value[:20]!r}（应为 E、S、W 或 N）",
                          f"unknown seat {value[:20]!r} in {where} (expected E, S, W or N)")
            if spec.choices == SIDES:
                return _p(f"{where} 为未知一方 {value[:20]!r}（应为 EW 或 NS）",
                          f"unknown side {value[:20]!r} in {where} (expected EW or NS)")
            return _p(f"{where} 须为 {'、'.join(map(str, spec.choices))} 之一，收到 {value[:20]!r}",
                      f"{where} must be one of {', '.join(map(str, spec.choices))}, got {value[:20]!r}")
        return None
    if k in ("int", "num"):
        ok = isinstance(value, int) if k == "int" else isinstance(value, int | float)
        if not ok or isinstance(value, bool):
            return _p(f"{where} 须为{'整数' if k == 'int' else '数字'}，收到{_kind_zh(value)}",
                      f"{where} must be {'an integer' if k == 'int' else 'a number'}, got {_kind_name(value)}")
        if value != value or value in (float("inf"), float("-inf")):
            return _p(f"{where} 须为有限数", f"{where} must be a finite number")
        if (spec.lo is not None and value < spec.lo) or (spec.hi is not None and value > spec.hi):
            if spec.hi is None or spec.hi >= 2**62:  # no upper limit a person meets: "within ≥ 0" said neither
                if spec.lo is not None and value < spec.lo:
                    return _p(f"{where} 须不小于 {_range(spec)[2:]}", f"{where} must be at least {_range(spec)[2:]}")
                return _p(f"{where} 数值过大", f"{where} is too large")
            return _p(f"{where} 须在 {_range(spec)} 之间", f"{where} must be within {_range(spec)}")
        return None
    if k == "bool":
        return None if isinstance(value, bool) else _p(f"{where} 须为 true 或 false，收到{_kind_zh(value)}",
                                                       f"{where} must be true or false, got {_kind_name(value)}")
    if k == "cards":
        items = value.split() if isinstance(value, str) and len(value) <= spec.max_len * 9 else value
        if not isinstance(items, list):
            return _p(f"{where} 须为牌的列表，收到{_kind_zh(value)}", f"{where} must be a list of cards, got {_kind_name(value)}")
        if not spec.min_len <= len(items) <= spec.max_len:
            return _p(f"{where} 须有 {spec.min_len}–{spec.max_len} 张牌，收到 {len(items)} 张",
                      f"{where} must hold {spec.min_len}-{spec.max_len} cards, got {len(items)}")
        bad = next((c for c in items if not isinstance(c, str) or not 0 < len(c) <= 8), None)
        if bad is not None:
            return _p(f"{where} 须为牌名文字，收到{_kind_zh(bad)} {str(bad)[:20]!r}",
                      f"{where} must hold card strings, got {_kind_name(bad)} {str(bad)[:20]!r}")
        return None
    if k == "list":
        if not isinstance(value, list):
            return _p(f"{where} 须为列表，收到{_kind_zh(value)}", f"{where} must be a list, got {_kind_name(value)}")
        if not spec.min_len <= len(value) <= spec.max_len:
            return _p(f"{where} 须有 {spec.min_len}–{spec.max_len} 项，收到 {len(value)} 项",
                      f"{where} must hold {spec.min_len}-{spec.max_len} items, got {len(value)}")
        assert spec.item is not None
        for i, v in enumerate(value):
            problem = _check_value(v, spec.item, f"{where}[{i}]")
            if problem:
                return problem
        return None
    if k in ("map", "obj"):
        if not isinstance(value, dict):
            return _p(f"{where} 须为对象，收到{_kind_zh(value)}", f"{where} must be an object, got {_kind_name(value)}")
        allowed = spec.keys if k == "map" else tuple(spec.fields or ())
        unknown = [key for key in value if key not in allowed]
        if unknown:
            return _p(f"{where} 有未知字段 {str(unknown[0])[:20]!r}（可用：{'、'.join(allowed)}）",
                      f"{where} has unknown key {str(unknown[0])[:20]!r} (allowed: {', '.join(allowed)})")
        for key, v in value.items():
            sub = spec.item if k == "map" else (spec.fields or {})[key]
            assert sub is not None
            problem = _check_value(v, sub, f"{where}.{key}")
            if problem:
                return problem
        for key, sub in (spec.fields or {}).items() if k == "obj" else ():
            if sub.required and key not in value:
                return _p(f"{where} 缺少 {key!r}", f"{where} is missing {key!r}")
        return None
    if k == "json":
        if not _depth_ok(value, 1):
            return _p(f"{where} 嵌套超过 {MAX_DEPTH} 层或含 JSON 不能表示的值",
                      f"{where} is nested more than {MAX_DEPTH} deep or holds a value JSON cannot")
        if len(json.dumps(value, ensure_ascii=False)) > spec.max_len:
            return _p(f"{where} 超过 {spec.max_len} 字节", f"{where} is larger than {spec.max_len} bytes")
        return None
    raise AssertionError(f"unknown spec kind {k}")


def check_data(etype: str, data: Any) -> None:
    """Check ``data`` of an event of type ``etype`` against :data:`DATA_SCHEMAS`: allowed keys,
    types, sizes (an unknown type is left to :func:`check_envelope`).

    :raises EventRejected: ``"数据无效 / <type>: <what is wrong>"``, naming the field.
    """
    schema = DATA_SCHEMAS.get(etype) if isinstance(etype, str) else None
    if schema is None or data is None:
        return
    if not isinstance(data, dict):
        raise EventRejected(f"data 必须是对象，收到 {_kind_name(data)}"
                            f" / data must be a JSON object, got {_kind_name(data)}")
    try:
        size = len(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    except (TypeError, ValueError, RecursionError):
        raise EventRejected(f"数据无效：{etype} 的 data 含 JSON 不能表示的值 / {etype}: data holds a value JSON cannot") from None
    if size > MAX_DATA_BYTES:
        raise EventRejected(f"{etype}：数据过大，{size} 字节，超过 {MAX_DATA_BYTES}"
                            f" / {etype}: data is {size} bytes, more than {MAX_DATA_BYTES}")
    problem = _check_one(data, Spec("obj", fields=schema), "data")
    if problem is not None:
        zh, en = problem  # the field and what is expected, in both halves
        raise EventRejected(f"数据无效：{etype} 的 {zh} / {etype}: {en}")


def _range(spec: Spec) -> str:
    """``lo-hi`` of a number spec, readable (no 4.6e+18 for "no upper limit")."""
    def show(x: float | None) -> str:
        return f"{int(x)}" if x is not None and float(x).is_integer() else f"{x}"

    if spec.hi is None or spec.hi >= 2**62:
        return f"≥ {show(spec.lo)}"
    return f"{show(spec.lo)}–{show(spec.hi)}"


def _describe(spec: Spec) -> str:
    """One line of :func:`schema_markdown` for a field."""
    k = spec.kind
    if k == "str":
        text = f"one of {' '.join(map(str, spec.choices))}" if spec.choices else f"text ≤ {spec.max_len}"
    elif k in ("int", "num"):
        text = f"{'integer' if k == 'int' else 'number'} {_range(spec)}"
    elif k == "bool":
        text = "true/false"
    elif k == "cards":
        text = f"{spec.min_len}–{spec.max_len} cards"
    elif k == "list":
        assert spec.item is not None
        count = spec.max_len if spec.min_len == spec.max_len else f"{spec.min_len}–{spec.max_len}"
        text = f"list of {count} × ({_describe(spec.item)})"
    elif k == "map":
        assert spec.item is not None and spec.keys is not None
        text = f"object {{{'/'.join(spec.keys)}: {_describe(spec.item)}}}"
    elif k == "obj":
        inner = ", ".join(f"{n}{'*' if f.required else ''}: {_describe(f)}" for n, f in (spec.fields or {}).items())
        text = f"object {{{inner}}}"
    else:
        text = f"JSON ≤ {spec.max_len} bytes, ≤ {MAX_DEPTH} deep"
    if spec.alt is not None:
        text += f", or {_describe(spec.alt)}"
    return text


def schema_markdown() -> str:
    """The "Data schemas" table of ``docs/events.md``, generated from :data:`DATA_SCHEMAS` (a test
    keeps the two equal, so the documented schema is the checked one)."""
    lines = ["| type | field | required | value |", "|---|---|---|---|"]
    for etype in EVENT_TYPES:
        fields = DATA_SCHEMAS[etype]
        if not fields:
            lines.append(f"| `{etype}` | — | | `{{}}` |")
        for name, spec in fields.items():
            lines.append(f"| `{etype}` | `{name}` | {'yes' if spec.required else ''} | {_describe(spec)} |")
    return "\n".join(lines) + "\n"
