"""Malformed referee actions and oversized bodies answer 4xx JSON naming the problem, never 500,
and nothing outside the documented schema reaches the log (issue 19, web items 3 and 4)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from table_service.engine.errors import EventRejected
from table_service.engine.events import DATA_SCHEMAS, MAX_HAND, check_data

URL = "/api/tables/1/actions"


def _post_raw(client, h, body: bytes | str, content_type: str = "application/json"):
    return client.post(URL, data=body, content_type=content_type, headers={"X-CSRF-Token": h.csrf_of(client)})


def _size(runner) -> int:
    path = runner.db_path
    return sum(os.path.getsize(p) for p in (path, f"{path}-wal") if os.path.exists(p))


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        ({"type": "penalty_given", "data": {"side": "NS", "level": ["foul"], "article": "x"}}, "data.level"),
        ({"type": "penalty_given", "data": {"side": {"a": 1}, "level": "warning", "article": "x"}}, "data.side"),
        ({"type": "passed", "data": {"seat": {"E": 1}}}, "data.seat"),
        ({"type": "passed", "data": {"seat": ["E"]}}, "data.seat"),
        ({"type": "flag_confirmed", "data": {"flag": {"id": "F1"}}}, "data.flag"),
        ({"type": "event_voided", "data": {"ref": "12", "reason": "x"}}, "data.ref"),
        ({"type": "event_voided", "data": {"ref": 2**80, "reason": "x"}}, "data.ref"),
        ({"type": "late_arrival_recorded", "data": {"side": "EW", "minutes": [3]}}, "data.minutes"),
        ({"type": "passed", "data": {"seat": "E", "pad": "x" * 100}}, "unknown key 'pad'"),
        ({"type": "cards_played", "data": {"seat": "E", "cards": ["3h"] * 10_000}}, "1-27 cards"),
        ({"type": "cards_played", "data": {"seat": "E", "cards": [["3h"]]}}, "card strings"),
        ({"type": "cards_played", "data": {"seat": "E", "cards": ["3h"], "reading": "x"}}, "data.reading"),
        ({"type": "round_set_up", "data": {"players": {"E": "a", "S": "b", "W": "c", "N": "d", "X": "e"}}},
         "unknown key 'X'"),
        ({"type": "round_set_up", "data": {"players": {"E": "a"}, "ruleset": {"a": [[[[[1]]]]]}}}, "nested"),
    ],
)
def test_malformed_action_is_400_naming_the_field(client, h, runner, body, needle):
    h.login(client, "chen")
    h.setup_deal(runner)
    before = len(runner.events())
    resp = h.post_json(client, URL, body)
    assert resp.status_code == 400, resp.get_data(as_text=True)
    assert needle in resp.get_json()["error"]
    assert h.logged_rows(runner) == before


@pytest.mark.parametrize("body", ["[" * 100_000, "[" * 5_000 + "]" * 5_000, '{"type":' * 20_000])
def test_deeply_nested_json_is_400_not_500(make_app, runner, h, body):
    app = make_app(TABLES={"1": runner}, MAX_CONTENT_LENGTH=1024 * 1024)  # the parser, not the limit
    client = app.test_client()
    h.login(client, "rita")
    resp = _post_raw(client, h, body)
    assert resp.status_code == 400
    assert "error" in resp.get_json()


def test_five_thousand_levels_inside_data_are_400(client, h, runner):
    h.login(client, "rita")
    nested = "[" * 5_000 + '"x"' + "]" * 5_000  # json.dumps itself refuses this depth
    body = '{"type":"round_ended","data":{"reason":' + nested + "}}"
    assert len(body) < 64 * 1024
    resp = _post_raw(client, h, body)
    assert resp.status_code == 400
    assert "error" in resp.get_json()


def test_invalid_utf8_body_is_400(client, h):
    h.login(client, "rita")
    resp = _post_raw(client, h, b'{"type": "passed", "data": {"seat": "\xff"}}')
    assert resp.status_code == 400


def test_body_over_the_limit_is_413_and_nothing_is_stored(client, h, runner):
    h.login(client, "rita")
    h.setup_deal(runner)
    size = _size(runner)
    resp = h.post_json(client, URL, {"type": "passed", "data": {"seat": "N", "pad": "x" * (1024 * 1024)}})
    assert resp.status_code == 413
    assert resp.get_json()["status"] == 413
    assert _size(runner) - size < 64 * 1024


def test_the_runner_refuses_off_schema_data_and_logs_only_an_excerpt(runner, h):
    # The engine side of the same table: a submitter other than the API (a bug, a device) is
    # refused before the log, and the rejected row does not carry the 2 MB.
    h.setup_deal(runner)
    size = _size(runner)
    res = runner.submit({"type": "passed", "source": "screen", "data": {"seat": "N", "pad": "x" * 2_000_000}})
    assert not res.accepted and "data is 2000021 bytes" in res.error
    res = runner.submit({"type": "passed", "source": "screen", "data": {"seat": "N", "pad": 1}})
    assert not res.accepted and "unknown key 'pad'" in res.error
    res = runner.submit({"type": "cards_played", "source": "camera", "data": {"seat": "N", "cards": ["3h"] * 10_000}})
    assert not res.accepted and "1-27 cards" in res.error
    assert _size(runner) - size < 200 * 1024
    assert runner.state()["deal"]["counts"]["N"] == 27


def test_every_type_has_a_schema_and_docs_events_md_shows_exactly_it():
    from table_service.engine.events import EVENT_TYPES, schema_markdown

    assert set(DATA_SCHEMAS) == set(EVENT_TYPES)
    doc = (Path(__file__).parents[2] / "docs" / "events.md").read_text(encoding="utf-8")
    begin, end = "<!-- data-schemas:begin -->\n", "<!-- data-schemas:end -->"
    assert begin in doc and end in doc, "docs/events.md lacks its Data schemas section"
    shown = doc.split(begin, 1)[1].split(end, 1)[0]
    assert shown == schema_markdown(), "regenerate: python -c 'from table_service.engine.events import " \
                                       "schema_markdown; print(schema_markdown())'"


def test_schema_limits():
    check_data("cards_played", {"seat": "E", "cards": ["3h"] * MAX_HAND})
    with pytest.raises(EventRejected, match="1-27"):
        check_data("cards_played", {"seat": "E", "cards": ["3h"] * (MAX_HAND + 1)})
    check_data("cards_played", {"seat": "E", "cards": "3h 4h 5h"})
    with pytest.raises(EventRejected, match="finite"):
        check_data("zone_obstructed", {"seat": "E", "seconds": float("nan")})
    with pytest.raises(EventRejected, match="true or false"):
        check_data("penalty_given", {"side": "EW", "level": "violation", "article": "x", "lose_turn": 1})
    with pytest.raises(EventRejected, match="missing 'kind'"):
        check_data("round_set_up", {"players": {}, "format": {"deals": 3}})


def test_release_takes_whole_numbers_only(make_app, runner, h):
    """Infinity, fractions, booleans, other scripts' digits and unknown fields are a 400 that names the
    field, and nothing reaches the table's log (before: a 500, or a rejected event logged)."""
    app = make_app(TABLES={"1": runner}, FEED_DUPLICATE=True)
    client = app.test_client()
    h.login(client, "chen")
    before = h.logged_rows(runner)
    release = "/api/tables/1/feed/release"
    for raw in ('{"round":1,"deal":Infinity}', '{"round":1,"deal":1e400}', '{"round":1.9,"deal":1.2}',
                '{"round":true,"deal":true}', '{"round":"\\u0663","deal":1}', '{"round":" 1","deal":1}',
                '{"round":1,"deal":1,"extra":2}'):
        resp = client.post(release, data=raw, content_type="application/json",
                           headers={"X-CSRF-Token": h.csrf_of(client)})
        assert resp.status_code == 400, raw
        error = resp.get_json()["error"]  # Infinity and 1e400: no JSON number (loads_strict), said so
        assert "round" in error or "deal" in error or "JSON number" in error or "out of range" in error, raw
    assert h.logged_rows(runner) == before


def test_a_lone_surrogate_is_a_400_not_a_failed_runner(make_app, runner, h):
    app = make_app(TABLES={"1": runner})
    client = app.test_client()
    h.login(client, "rita")
    resp = client.post("/api/tables/1/actions", data='{"type":"round_ended","data":{"reason":"\\ud800"}}',
                       content_type="application/json", headers={"X-CSRF-Token": h.csrf_of(client)})
    assert resp.status_code == 400 and "surrogate" in resp.get_json()["error"]


def test_query_integers_are_ascii_digits(make_app, runner, h):
    client = make_app(TABLES={"1": runner}).test_client()
    h.login(client, "rita")
    for bad in ("\u0663", "1_0", " 1", "1.0", "--5"):
        assert client.get("/api/tables/1/events", query_string={"after": bad}).status_code == 400, bad
    assert client.get("/api/tables/1/events", query_string={"after": "0"}).status_code == 200


def test_routing_errors_are_in_chinese_first(make_app, runner, h):
    """A route not found or a method not allowed is werkzeug's, in English alone, unless we word it."""
    client = make_app(TABLES={"1": runner}).test_client()
    h.login(client, "rita")
    resp = client.put("/api/tables/1/actions", json={})
    assert resp.status_code == 405 and resp.get_json()["error"].startswith("不支持该方法")
    resp = client.get("/api/no/such/thing")
    assert resp.status_code == 404 and resp.get_json()["error"].startswith("没有该页面")


@pytest.mark.parametrize("raw", [
    '{"type": "passed", "type": "penalty_given", "data": {"seat": "E"}}',
    '{"type": "passed", "data": {"seat": "E", "seat": "S"}}',
])
def test_a_key_given_twice_is_400_not_the_last_one_silently(client, h, runner, raw):
    """As the hub refuses it in a RESULTS line or an MQTT message (one rule: views.wire.no_duplicate_keys)."""
    h.login(client, "chen")
    h.setup_deal(runner)
    before = h.logged_rows(runner)
    resp = _post_raw(client, h, raw)
    assert resp.status_code == 400 and "given twice" in resp.get_json()["error"]
    assert h.logged_rows(runner) == before
