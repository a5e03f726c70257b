"""Bad input is rejected with a clear message (Chinese, then English) and changes nothing."""

from __future__ import annotations

import pytest
from engine_helpers import Table

from table_service.engine import EventRejected, apply, check_envelope, initial_state


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
    assert "must be like" in rej({"players": players, "ruleset": {"preset": "jiangsu", "options": {"clock_follow_s": "x"}}})
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
