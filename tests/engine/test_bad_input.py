"""Bad input is rejected with a clear message (Chinese, then English) and changes nothing."""

from __future__ import annotations

import pytest
from engine_helpers import Table

from table_service.engine.apply import apply
from table_service.engine.errors import EventRejected
from table_service.engine.events import check_envelope
from table_service.engine.state import initial_state


@pytest.mark.parametrize(
    ("event", "needle"),
    [
        ({"t_ms": 1, "type": "cards_dropped", "source": "bot"}, "unknown event type"),
        ({"t_ms": -5, "type": "passed", "source": "bot"}, "t_ms"),
        ({"t_ms": "soon", "type": "passed", "source": "bot"}, "t_ms"),
        ({"t_ms": 1, "type": "passed", "source": "pigeon"}, "unknown source"),
        ({"t_ms": 1, "type": "passed", "source": "bot", "role": "king"}, "unknown role"),
        ({"t_ms": 1, "type": "passed", "source": "bot", "data": [1]}, "data must be"),
        ({"t_ms": 1, "type": "passed", "source": "bot", "seq": 0}, "seq"),
        ("passed", "JSON object"),
    ],
)
def test_malformed_envelope(event: object, needle: str) -> None:
    with pytest.raises(EventRejected, match=needle):
        check_envelope(event)


def test_bad_fields_leave_state_unchanged(table: Table) -> None:
    table.first_deal("E")
    assert "unknown seat 'X'" in table.reject("cards_played", {"seat": "X", "cards": ["3s"]}, source="camera")
    assert "not a card: '3x'" in table.reject("cards_played", {"seat": "E", "cards": ["3s", "3x"]}, source="camera")
    assert "non-empty list" in table.reject("cards_played", {"seat": "E", "cards": []}, source="camera")
    assert "missing field 'seat'" in table.reject("passed", {}, source="screen")
    assert "座位无效" in table.reject("report_pressed", {"seat": 3}, source="screen")
    assert "unknown device" in table.reject("device_status_changed", {"device": "toaster", "status": "online"}, source="system")
    assert "online or offline" in table.reject("device_status_changed", {"device": "camera", "status": "meh"}, source="system")


def test_events_out_of_place_are_rejected() -> None:
    t0 = initial_state()
    with pytest.raises(EventRejected, match="no round"):
        apply(t0, {"t_ms": 1, "type": "drawing_finished", "source": "panel", "data": {}})
    t = Table()
    assert "no deal in progress" in t.reject("cards_played", {"seat": "E", "cards": ["3s"]}, source="camera")
    assert "now: no deal" in t.reject("tribute_given", {"seat": "E", "card": "3s"})
    t.first_deal("E")
    assert "has not ended" in t.reject("drawing_finished", {})
    assert "not the tribute phase" in t.reject("tribute_given", {"seat": "E", "card": "3s"})
    # The Chinese half says the phase now, as the English half does.
    assert t.reject("tribute_given", {"seat": "E", "card": "3s"}).startswith("tribute_given：当前不是进贡阶段（现在：出牌） / ")
    assert "no result yet" in t.reject("round_set_up", {"players": {s: s for s in "ESWN"}}, role="referee")
    assert "no result yet" in t.reject("score_sheet_signed", {"side": "EW"}, role="referee")
    assert "only the first deal" in t.reject("first_cut_recorded", {"card": "7h"})


def test_wrong_roles(table: Table) -> None:
    for etype, data in [
        ("round_ended", {}),
        ("event_voided", {"ref": 1, "reason": "x"}),
        ("penalty_given", {"side": "EW", "level": "warning", "article": "x"}),
        ("late_arrival_recorded", {"side": "EW", "minutes": 1}),
    ]:
        assert "referee role required" in table.reject(etype, data, role="viewer")
        assert "需要裁判权限" in table.reject(etype, data)


def test_round_set_up_checks(table: Table) -> None:
    t = initial_state()

    def rej(data: dict) -> str:
        with pytest.raises(EventRejected) as info:
            apply(t, {"t_ms": 1, "type": "round_set_up", "source": "panel", "role": "referee", "data": data})
        return str(info.value)

    players = {s: s for s in "ESWN"}
    assert "all four seats" in rej({"players": {"E": "a"}})
    assert "unknown ruleset preset 'beijing'" in rej({"players": players, "ruleset": "beijing"})
    assert "unknown ruleset option 'clock_follow_ms'" in rej({"players": players, "ruleset": {"preset": "jiangsu", "options": {"clock_follow_ms": 3}}})
    assert "clock_follow_s='x' (expected a whole number" in rej(
        {"players": players, "ruleset": {"preset": "jiangsu", "options": {"clock_follow_s": "x"}}})
    # None where a number belongs (the engine's own check once let it through) and a negative clock
    assert "clock_follow_s=None" in rej({"players": players, "ruleset": {"preset": "jiangsu", "options": {"clock_follow_s": None}}})
    assert "clock_lead_s=-5" in rej({"players": players, "ruleset": {"preset": "jiangsu", "options": {"clock_lead_s": -5}}})
    assert "auto_time_warning='no'" in rej({"players": players, "ruleset": {"preset": "jiangsu", "options": {"auto_time_warning": "no"}}})
    assert "format" in rej({"players": players, "format": {"kind": "deals", "deals": 0}})
    assert "format" in rej({"players": players, "format": {"kind": "forever"}})
    assert "levels" in rej({"players": players, "levels": {"EW": "Z", "NS": "2"}})


def test_seq_must_increase() -> None:
    t = Table()
    ev = t.event("device_status_changed", {"device": "screen", "status": "online"}, source="system")
    ev["seq"] = 1
    with pytest.raises(EventRejected, match="not after"):
        apply(t.state, ev)


def test_event_time_never_goes_back() -> None:
    t = Table()
    t.first_deal("E")
    now = t.state["t_ms"]
    t.do("device_status_changed", {"device": "screen", "status": "online"}, source="system", t=now - 5000)
    assert t.state["t_ms"] == now  # a late-arriving event does not wind the clock back


# ----------------------------------------------------------------- the data schema, as a property
# Whatever ``data`` a submitter sends, the schema either refuses it with EventRejected, or the
# engine then applies it or refuses it with EventRejected: never a TypeError, KeyError or
# RecursionError (which the runner would log as an "internal engine error").

import contextlib  # noqa: E402
import os  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from table_service.engine.events import DATA_SCHEMAS, EVENT_TYPES, Spec, check_data  # noqa: E402

_JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats() | st.text(max_size=12),
                     lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
                     max_leaves=12)
_CARDS = st.sampled_from(["3h", "Td", "As", "SJ", "BJ", "2h", "7c", "Qd", "10h", "大王", "x", ""])


def _valid(spec: Spec) -> st.SearchStrategy:
    """Values that pass ``spec`` (and, through ``alt``, its alternative)."""
    k = spec.kind
    if k == "str":
        base = st.sampled_from(spec.choices) if spec.choices else st.text(max_size=min(spec.max_len, 10))
    elif k == "int":
        base = st.integers(int(spec.lo or 0), int(min(spec.hi or 2**62, 2**62)))
    elif k == "num":
        base = st.floats(spec.lo, spec.hi, allow_nan=False)
    elif k == "bool":
        base = st.booleans()
    elif k == "cards":
        base = st.lists(_CARDS.filter(bool), min_size=spec.min_len, max_size=min(spec.max_len, 6))
    elif k == "list":
        base = st.lists(_valid(spec.item), min_size=spec.min_len, max_size=min(spec.max_len, 4))
    elif k == "map":
        base = st.dictionaries(st.sampled_from(spec.keys), _valid(spec.item))
    elif k == "obj":
        base = _obj(spec.fields or {})
    else:
        base = _JSON
    return base | _valid(spec.alt) if spec.alt is not None else base


def _obj(fields: dict[str, Spec]) -> st.SearchStrategy:
    required = {n: _valid(f) for n, f in fields.items() if f.required}
    optional = {n: _valid(f) for n, f in fields.items() if not f.required}
    return st.fixed_dictionaries(required, optional=optional)


def _mid_deal() -> Table:
    t = Table()
    t.first_deal("E")
    t.play("E", "3h")
    return t


@settings(max_examples=int(os.environ.get("SCHEMA_EXAMPLES", 300)), deadline=None, suppress_health_check=list(HealthCheck))
@given(etype=st.sampled_from(EVENT_TYPES), data=st.data())
def test_schema_valid_data_never_crashes_the_engine(etype, data):
    payload = data.draw(_obj(DATA_SCHEMAS[etype]) | st.dictionaries(st.text(max_size=8), _JSON, max_size=4))
    try:
        check_data(etype, payload)
    except EventRejected:
        return
    t = _mid_deal()
    role = data.draw(st.sampled_from(["referee", "chief"]))
    source = "camera" if etype in ("zone_obstructed", "card_exposed", "cards_played") else "panel"
    if etype in ("device_status_changed",):
        source = "system"
    if etype == "clock_ticked":
        source = "clock"
    with contextlib.suppress(EventRejected):
        apply(t.state, t.event(etype, payload, role=role, source=source))
