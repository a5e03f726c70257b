"""Every table message is checked field by field before it touches the hub's log (issue 26).

A bad message is logged once with its reason, acknowledged, counted as that table's fault on the
chief referee's overview, and blocks nothing: the issue's ``"round": "abc"`` summary once made
the whole batch fail and be redelivered for ever (0 of 4 results recorded). The intake is fuzzed
with hypothesis over every message type and field (short by default, long under ``-m slow``).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.intake import BadMessage, check_message, check_panel

EXAMPLES_SHORT, EXAMPLES_LONG = 60, 3000


def event_cfg(n: int = 8) -> dict[str, Any]:
    return validate({"event": {"id": "ev", "name": "入口测试", "rounds": 3, "seed": 3},
                     "teams": [{"id": f"T{i}"} for i in range(1, n + 1)]})


def line_for(t: dict[str, Any], rnd: int, a: int, b: int) -> dict[str, Any]:
    return {"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": a, "ew_levels": b}


def result_msg(t: dict[str, Any], rnd: int = 1, rid: str | None = None) -> bytes:
    return json.dumps({"result_id": rid or f"r{rnd}-s9", "result": line_for(t, rnd, 7, 3), "table_seq": 9,
                       "reason": "deals", "wall_ms": int(time.time() * 1000)}).encode()


def summary(table: str, **over: Any) -> dict[str, Any]:
    base = {"table": table, "round": 1, "round_status": "playing", "teams": {"NS": "T1", "EW": "T2"}, "deal": 2,
            "levels": {"NS": "4", "EW": "2"}, "open_flags": 0, "doubts": 0, "clocks_over": 0,
            "penalties": {"NS": {"warnings": 0, "violations": 0, "fouls": 0},
                          "EW": {"warnings": 1, "violations": 0, "fouls": 0}},
            "signed": {"NS": False, "EW": False}, "finished": False,
            "panel": f"http://10.0.0.5:8080/tables/{table}", "last_seq": 40, "wall_ms": 1_760_000_000_000}
    return {**base, **over}


def status(table: str, **over: Any) -> dict[str, Any]:
    return {"table": table, "event": "ev", "status": "online", "reason": None, "wall_ms": 1_760_000_000_000,
            "panel": f"http://10.0.0.5:8080/tables/{table}", **over}


@pytest.fixture
def hub(tmp_path: Path) -> HubService:
    h = HubService(event_cfg(), tmp_path, connect=False)
    h.draw_next("org", "chief")
    h.publish_draw(1, "org", "chief")
    return h


def test_the_issues_bad_summary_blocks_no_result_and_is_logged_once(hub: HubService) -> None:
    ts = hub.core.draws[1]["tables"]
    bad = json.dumps(summary(ts[0]["table"], round="abc")).encode()
    batch = [(ts[0]["table"], "summary", bad, True)] + [(t["table"], "result", result_msg(t), True) for t in ts]
    hub.handle_batch(batch)
    assert all((1, t["table"]) in hub.core.results for t in ts), "every result recorded despite the bad summary"
    assert len(hub.core.bad_messages) == 1
    fault = hub.core.bad_messages[0]
    assert fault["table"] == ts[0]["table"] and fault["topic"] == "summary" and "round" in fault["reason"]
    seq = hub.core.last_seq
    hub.handle_batch([(ts[0]["table"], "summary", bad, True)])  # redelivered (retained, reconnect)
    assert hub.core.last_seq == seq and len(hub.core.bad_messages) == 1, "the same bad message is logged once"
    ov = hub.overview()
    row = next(r for r in ov["tables"] if r["table"] == ts[0]["table"])
    assert row["faults"] == 1 and ov["bad_messages"][0]["reason"] == fault["reason"]
    assert all(r["faults"] == 0 for r in ov["tables"] if r["table"] != ts[0]["table"])
    # The fault survives a restart of the hub (it is in the hub's log, not in memory).
    again = HubService(event_cfg(), hub.data_dir, connect=False)
    assert again.core.faults == hub.core.faults and again.core.fault_digests == hub.core.fault_digests


@pytest.mark.parametrize(("name", "payload", "needle"), [
    ("summary", b"\xff\xfe", "UTF-8"),
    ("summary", b"[1, 2]", "JSON object"),
    ("summary", b'{"round": 1, "round": 2}', "twice"),
    ("summary", b'{"open_flags": NaN}', "unusable JSON"),
    ("summary", b"{" * 100_000, "too large"),
    ("summary", json.dumps(summary("1", open_flags="99")).encode(), "open_flags"),
    ("summary", json.dumps(summary("1", open_flags=True)).encode(), "open_flags"),
    ("summary", json.dumps({**summary("1"), "table": "2"}).encode(), "its topic table"),
    ("summary", json.dumps(summary("1", levels={"NS": "<b>"})).encode(), "levels"),
    ("summary", json.dumps(summary("1", extra=1)).encode(), "unknown field"),
    ("status", json.dumps(status("1", panel="javascript:alert(1)")).encode(), "panel"),
    ("status", json.dumps(status("1", status="hacked")).encode(), "status"),
    ("result", json.dumps({"result_id": "x", "result": {"round": "abc"}}).encode(), "round"),
    ("result", json.dumps({"result_id": "", "result": {}}).encode(), "result_id"),
    ("result", json.dumps({"result_id": "x", "result": {"round": 1, "table": "2", "ns": "T1", "ew": "T2",
                                                         "ns_levels": 1, "ew_levels": 0}}).encode(), "topic table"),
    ("state", b"{}", "unknown topic"),
    # a signature is a JSON boolean: bool("no") made the text "no" read as signed
    ("summary", json.dumps(summary("1", signed={"NS": "no", "EW": False})).encode(), "signed.NS must be true or false"),
    ("summary", json.dumps(summary("1", signed={"NS": True, "EW": "false"})).encode(), "signed.EW must be true or"),
    ("summary", json.dumps(summary("1", signed={"NS": 1, "EW": False})).encode(), "signed.NS must be true or false"),
    ("summary", json.dumps(summary("1", signed={"NS": {}, "EW": None})).encode(), "signed.NS must be true or false"),
])
def test_each_bad_field_is_named(name: str, payload: bytes, needle: str) -> None:
    with pytest.raises(BadMessage, match=needle):
        check_message("1", name, payload)


def test_the_good_messages_pass_and_come_out_clean() -> None:
    s = check_message("1", "summary", json.dumps(summary("1")).encode())
    assert s["open_flags"] == 0 and s["penalties"]["EW"]["warnings"] == 1 and s["levels"] == {"NS": "4", "EW": "2"}
    assert check_message("1", "status", json.dumps(status("1")).encode())["status"] == "online"
    with pytest.raises(BadMessage, match="not one of"):
        check_message("9", "status", json.dumps(status("9")).encode(), frozenset({"1", "2"}))
    with pytest.raises(BadMessage, match="invalid table"):
        check_message("a b", "status", b"{}")


@pytest.mark.parametrize("url", ["javascript:alert(1)", "http://10.0.0.5:8080/tables/2", "ftp://x/tables/1",
                                 "http://user:pw@10.0.0.5/tables/1", "http://10.0.0.5/tables/1?x=1",
                                 "http://10.0.0.5/tables/1#x", "http:///tables/1", "http://h:0/tables/1",
                                 "http://h/tables/1 x", "data:text/html,<script>", "//evil/tables/1"])
def test_a_table_links_only_its_own_page_over_http(url: str) -> None:
    with pytest.raises(BadMessage):
        check_panel(url, "1")


def test_the_overview_shows_only_what_the_table_may_say(hub: HubService) -> None:
    t = hub.core.draws[1]["tables"][0]["table"]
    hub.handle_batch([(t, "status", json.dumps(status(t, panel="javascript:alert(1)")).encode(), True),
                      (t, "summary", json.dumps(summary(t, open_flags="99")).encode(), True)])
    row = next(r for r in hub.overview()["tables"] if r["table"] == t)
    assert row["panel"] is None and row["open_flags"] == 0 and row["faults"] == 2
    hub.handle_batch([(t, "summary", json.dumps(summary(t, open_flags=3)).encode(), True)])
    row = next(r for r in hub.overview()["tables"] if r["table"] == t)
    assert row["panel"] == f"http://10.0.0.5:8080/tables/{t}" and row["open_flags"] == 3


def test_a_status_of_another_event_and_a_signature_that_is_not_true_or_false_are_refused(hub: HubService) -> None:
    """A status naming another event passed (its ``event`` was only checked as text), and a
    summary's ``"signed": {"NS": "no"}`` showed the side as signed."""
    t = hub.core.draws[1]["tables"][0]["table"]
    hub.handle_batch([(t, "status", json.dumps(status(t, event="some-other-event")).encode(), True),
                      (t, "summary", json.dumps(summary(t, signed={"NS": "no", "EW": "false"})).encode(), True)])
    reasons = {m["topic"]: m["reason"] for m in hub.core.bad_messages if m["table"] == t}
    assert "some-other-event" in reasons["status"] and "this hub's event is ev" in reasons["status"]
    assert "不是本赛事" in reasons["status"] and "signed.NS must be true or false" in reasons["summary"]
    assert t not in hub.live or (hub.live[t].online is None and not hub.live[t].summary)
    # The same table's good messages pass (its own event named, or none).
    hub.handle_batch([(t, "status", json.dumps(status(t)).encode(), True),
                      (t, "summary", json.dumps(summary(t, signed={"NS": True, "EW": False})).encode(), True)])
    assert hub.live[t].online is True and hub.live[t].summary["signed"] == {"NS": True, "EW": False}
    no_event = status(t)
    del no_event["event"]
    assert check_message(t, "status", json.dumps(no_event).encode(), None, "ev")["status"] == "online"


# ------------------------------------------------------------------------------------------ fuzz

JSON = st.recursive(st.none() | st.booleans() | st.integers(-2**70, 2**70) | st.floats(allow_nan=False)
                    | st.text(max_size=30),
                    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids, max_size=4),
                    max_leaves=12)


@st.composite
def table_message(draw: st.DrawFn, table: str, t: dict[str, Any]) -> tuple[str, bytes]:
    """A message of any type from ``table``, one or more fields broken (or the whole payload)."""
    name = draw(st.sampled_from(["result", "status", "summary"]))
    if name == "result":
        base: dict[str, Any] = json.loads(result_msg(t, rid=draw(st.text(min_size=1, max_size=8))))
    elif name == "status":
        base = status(table)
    else:
        base = summary(table)
    how = draw(st.sampled_from(["field", "line", "drop", "extra", "raw", "valid"]))
    if how == "field":
        base[draw(st.sampled_from(sorted(base)))] = draw(JSON)
    elif how == "line" and name == "result":
        base["result"][draw(st.sampled_from(sorted(base["result"])))] = draw(JSON)
    elif how == "drop":
        base.pop(draw(st.sampled_from(sorted(base))))
    elif how == "extra":
        base[draw(st.text(min_size=1, max_size=10))] = draw(JSON)
    elif how == "raw":
        return name, draw(st.binary(max_size=200) | st.sampled_from([b"null", b"[]", b"1e999", b'"x"', b"{}"]))
    return name, json.dumps(base).encode()


def _fuzz_body(hub: HubService, data: st.DataObject) -> None:
    ts = hub.core.draws[1]["tables"]
    victim, probe = ts[0], ts[1]
    msgs = data.draw(st.lists(table_message(victim["table"], victim), min_size=1, max_size=8))
    batch = [(victim["table"], name, payload, True) for name, payload in msgs]
    real = (probe["table"], "result", result_msg(probe, rid="probe"), True)
    batch.insert(data.draw(st.integers(0, len(batch))), real)
    hub.handle_batch(batch)  # never raises: a bad message is a fault, not a failure
    assert (1, probe["table"]) in hub.core.results, "a fuzzed message lost another table's result"
    for name, payload in msgs:
        if not payload:
            continue  # an empty payload clears a retained message: nothing to check
        try:
            check_message(victim["table"], name, payload, None, hub.event_id)
        except BadMessage:
            digest_known = any(m["table"] == victim["table"] and m["topic"] == name for m in hub.core.bad_messages)
            assert digest_known, "a bad message was not logged"
    seq = hub.core.last_seq
    hub.handle_batch(batch)  # delivered again: nothing new is logged
    assert hub.core.last_seq == seq
    ov = hub.overview()
    json.dumps(ov)
    for row in ov["tables"]:
        for key in ("open_flags", "doubts", "clocks_over", "faults"):
            assert type(row[key]) is int
        assert row["panel"] is None or row["panel"].startswith("http")


def _fresh_hub(tmp: Path) -> HubService:
    import tempfile

    h = HubService(event_cfg(), tempfile.mkdtemp(dir=tmp), connect=False)
    h.draw_next("org", "chief")
    h.publish_draw(1, "org", "chief")
    return h


@settings(max_examples=EXAMPLES_SHORT, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_messages_never_stall_nor_lose_a_result(tmp_path: Path, data: st.DataObject) -> None:
    hub = _fresh_hub(tmp_path)
    try:
        _fuzz_body(hub, data)
    finally:
        hub.stop()


@pytest.mark.slow
@settings(max_examples=EXAMPLES_LONG, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_fuzzed_messages_long_run(tmp_path: Path, data: st.DataObject) -> None:
    hub = _fresh_hub(tmp_path)
    try:
        _fuzz_body(hub, data)
    finally:
        hub.stop()


def test_the_overview_page_and_board_carry_no_forged_link_or_count(tmp_path: Path, hub: HubService) -> None:
    from table_service.event.web import create_hub_app
    from table_service.web import users

    t = hub.core.draws[1]["tables"][0]["table"]
    hub.handle_batch([(t, "status", json.dumps(status(t, panel="javascript:alert(1)")).encode(), True),
                      (t, "summary", json.dumps(summary(t, open_flags=99.5, panel="javascript:alert(1)")).encode(),
                       True)])
    db = str(tmp_path / "users.sqlite3")
    conn = users.connect(db)
    users.add_user(conn, "chen", "correct-horse-9", "chief")
    conn.close()
    app = create_hub_app(hub, users_db=db)
    c = app.test_client()
    token = c.get("/auth/whoami").get_json()["csrf_token"]
    c.post("/auth/login", data={"username": "chen", "password": "correct-horse-9", "csrf_token": token})
    page = c.get("/hub/").get_data(as_text=True)
    import re

    # The reasons quote the bad values as text; no link or count carries them.
    assert not re.search(r'href="javascript', page) and 'href="#"' in page
    assert f'data-table="{t}" data-faults="2"' in page and "异常消息 / bad message" in page
    board = c.get("/hub/api/board").get_json()
    assert "javascript" not in json.dumps(board) and "99.5" not in json.dumps(board)
    assert all("panel" not in row for row in board["tables"])


# ------------------------------------------------------------------------ fuzz over the wire

def _wire_fuzz(tmp_path: Path, broker: Any, examples: int) -> None:
    """Fuzzed messages from table 1 over the real (provisioned) broker: after each batch the hub
    has handled and acknowledged every message (no stall); at the end table 2's real result is
    recorded (no loss) and every bad message was logged once."""
    import paho.mqtt.client as mqtt
    from test_hub_mqtt import cfg_for

    hub = HubService(cfg_for(broker, 2), tmp_path / "hub").start()
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="")
    c.username_pw_set(*broker.login("ev", "1"))
    c.connect("127.0.0.1", broker.port)
    c.loop_start()
    sent: list[tuple[str, bytes]] = []
    try:
        assert hub.wait_connected(60)
        hub.draw_next("org", "chief")
        hub.publish_draw(1, "org", "chief")
        ts = {t["table"]: t for t in hub.core.draws[1]["tables"]}
        assert hub.mqtt is not None
        mq = hub.mqtt

        @settings(max_examples=examples, deadline=None, suppress_health_check=list(HealthCheck))
        @given(msgs=st.lists(table_message("1", ts["1"]), min_size=1, max_size=6))
        def batch(msgs: list[tuple[str, bytes]]) -> None:
            before = mq.handled
            for name, payload in msgs:
                c.publish(f"guandan/ev/1/{name}", payload, qos=1).wait_for_publish(60)
            sent.extend(msgs)
            deadline = time.monotonic() + 60
            while mq.handled < before + len(msgs):
                assert time.monotonic() < deadline, f"the intake stalled: {mq.handled - before} of {len(msgs)}"
                time.sleep(0.02)

        batch()
        c2 = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="")
        c2.username_pw_set(*broker.login("ev", "2"))
        c2.connect("127.0.0.1", broker.port)
        c2.loop_start()
        c2.publish("guandan/ev/2/result", result_msg(ts["2"]), qos=1).wait_for_publish(60)
        deadline = time.monotonic() + 60
        while (1, "2") not in hub.core.results:
            assert time.monotonic() < deadline, "table 2's result was lost behind the fuzzed messages"
            time.sleep(0.02)
        c2.loop_stop()
        c2.disconnect()
        bad = set()
        for name, payload in sent:
            if not payload:
                continue
            try:
                check_message("1", name, payload)
            except BadMessage:
                bad.add((name, payload))
        logged = [e for e in hub.store.events() if e["type"] == "message_refused"]
        # Each distinct bad message logged once, up to one table's flood limit (the rest are counted).
        from table_service.event.state import FLOOD_LIMIT

        assert len(logged) == min(len(bad), FLOOD_LIMIT), "each distinct bad message is logged exactly once"
        assert hub.overview()["faults"].get("1", 0) >= len(bad)
    finally:
        c.loop_stop()
        c.disconnect()
        hub.stop()


def test_fuzzed_messages_over_the_broker_never_stall_the_intake(tmp_path: Path, broker: Any) -> None:
    _wire_fuzz(tmp_path, broker, 25)


@pytest.mark.slow
def test_fuzzed_messages_over_the_broker_long_run(tmp_path: Path, broker: Any) -> None:
    _wire_fuzz(tmp_path, broker, 500)


def test_a_summary_says_whether_the_table_has_a_camera(hub: HubService) -> None:
    """A table without a camera reads no deck: the overview must not call it off the event's deck."""
    from table_service.table.mqtt_bridge import table_summary

    t = hub.core.draws[1]["tables"][0] if hub.core.draws else {"table": "1"}
    for camera in (True, False, None):
        sent = table_summary({"round": {"no": 1}, "levels": {"NS": "2", "EW": "2"}}, t["table"], None, camera=camera)
        assert check_message(t["table"], "summary", json.dumps(sent).encode())["camera"] is camera
    bad = table_summary({}, t["table"], None) | {"camera": "yes"}
    with pytest.raises(BadMessage, match="camera must be true or false"):
        check_message(t["table"], "summary", json.dumps(bad).encode())


def test_a_table_at_level_10_is_read_not_refused(hub: HubService) -> None:
    """The engine writes level 10 as "T" (rules.cards.RANKS); the intake took only "10", so every summary
    of a table at level 10 went on the chief's list as a bad message and the overview froze there."""
    from table_service.table.mqtt_bridge import table_summary

    t = hub.core.draws[1]["tables"][0]["table"]
    sent = table_summary({"round": {"no": 1}, "levels": {"NS": "T", "EW": "A"}}, t, None)
    assert check_message(t, "summary", json.dumps(sent).encode())["levels"] == {"NS": "T", "EW": "A"}
    hub.handle_batch([(t, "summary", json.dumps(sent).encode(), True)])
    assert not hub.core.refusals and hub.overview()["tables"][0]["levels"] == {"NS": "T", "EW": "A"}


def test_a_summary_of_a_round_the_event_has_not_cannot_freeze_the_overview(hub: HubService) -> None:
    """The probe: as table 1, a summary of round 999 with wall_ms at its maximum. Kept, it outranked
    every real summary (newer by round wins; the minute-later escape read the table's own clock), so
    the table's row stayed at round 999. Refused now; and a team playing itself is refused too."""
    t = hub.core.draws[1]["tables"][0]["table"]
    rounds = hub.core.cfg["event"]["rounds"]
    bad = summary(t, round=rounds + 1, last_seq=5, wall_ms=9_999_999_999_999)
    hub.handle_batch([(t, "summary", json.dumps(bad).encode(), True)])
    hub.handle_batch([(t, "summary", json.dumps(summary(t, teams={"NS": "T3", "EW": "T3"}, last_seq=6)).encode(), True)])
    assert t not in hub.live or not hub.live[t].summary
    assert next(r for r in hub.overview()["tables"] if r["table"] == t)["faults"] == 2
    hub.handle_batch([(t, "summary", json.dumps(summary(t, last_seq=41)).encode(), True)])
    assert (hub.live[t].summary["round"], hub.live[t].summary["last_seq"]) == (1, 41)


def test_a_malformed_result_is_not_answered_over_an_acceptance_of_the_same_batch(hub: HubService) -> None:
    """The answer to a malformed result (``refused``, retained) must not replace the ``accepted`` of the
    same id logged earlier in the batch: the table would show its round refused while the hub has it."""
    t = hub.core.draws[1]["tables"][0]
    bad = json.dumps({"result_id": "r1-s9", "result": "not a line"}).encode()
    ack = hub._malformed_result_ack(t["table"], bad, "result: bad / result: bad", None, set())
    assert ack == {"result_id": "r1-s9", "status": "refused", "round": 1, "reason": "result: bad / result: bad"}
    assert hub._malformed_result_ack(t["table"], bad, "x / x", None, {(1, t["table"], "r1-s9")}) is None
    hub.handle_batch([(t["table"], "result", result_msg(t), True)])  # r1-s9 accepted and logged
    assert hub._malformed_result_ack(t["table"], bad, "x / x", None, set()) is None
    assert hub._malformed_result_ack("nope", bad, "x / x", frozenset({t["table"]}), set()) is None
