"""NaN, Infinity and 1e400 are no JSON numbers: the panel's JSON reader refuses them (400, as the hub's
MQTT reader does) and the engine refuses them in a ``json`` field, and a refused event carrying one is
never logged with a bare NaN token (a refused round_set_up with {"late_warning_min": NaN} was)."""

from __future__ import annotations

import json
import math
import sqlite3

import pytest

from table_service.engine.errors import EventRejected
from table_service.engine.events import check_data

PLAYERS = {"N": "a", "S": "b", "E": "c", "W": "d"}


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity", "1e400"])
def test_the_panel_refuses_a_number_json_has_not(client, runner, h, token):
    h.login(client, "rita")
    options = '{"late_warning_min": ' + token + "}"
    body = ('{"type": "round_set_up", "data": {"players": ' + json.dumps(PLAYERS) + ', "ruleset": {"preset": "jiangsu", '
            '"options": ' + options + '}, "format": {"kind": "deals", "deals": 1}}}')
    resp = client.post("/api/tables/1/actions", data=body, content_type="application/json",
                       headers={"X-CSRF-Token": h.csrf_of(client)})
    assert resp.status_code == 400, resp.get_json()
    error = resp.get_json()["error"]
    assert ("不是 JSON 数" in error and "is not a JSON number" in error) or "number out of range" in error
    assert runner.events() == [] and runner.rejected() == []


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_the_engine_refuses_a_non_finite_number_in_a_json_field(bad):
    data = {"players": PLAYERS, "ruleset": {"preset": "jiangsu", "options": {"late_warning_min": bad}},
            "format": {"kind": "deals", "deals": 1}}
    with pytest.raises(EventRejected):
        check_data("round_set_up", data)


def test_a_refused_event_with_nan_is_logged_as_json(runner, tmp_path):
    res = runner.submit({"type": "round_set_up", "source": "panel", "role": "referee",
                         "data": {"players": PLAYERS, "ruleset": {"preset": "jiangsu", "options": {"late_warning_min": math.nan}},
                                  "format": {"kind": "deals", "deals": 1}}})
    assert not res.accepted
    conn = sqlite3.connect(tmp_path / "table.sqlite3")
    for (data,) in conn.execute("SELECT data FROM events"):
        assert "NaN" not in data, data
        json.loads(data)
    conn.close()
