"""The assignment's one-tap start is answered as ``/actions`` is (it answered 409 "refused" while its
set-up was still queued, and the round then started; 409 "engine is not running" where /actions
answers 503), and a 403 is for a refusal the engine says is about the role, never guessed from a
message that merely mentions the chief."""

from __future__ import annotations

from types import SimpleNamespace

from .test_action_pending import _engine_busy_for

GOOD = {
    "event": "ev", "round": 1, "table": "1", "teams": {"NS": "T1", "EW": "T2"},
    "players": {"N": "a", "S": "b", "E": "c", "W": "d"},
    "ruleset": {"preset": "jiangsu", "options": {}}, "format": {"kind": "deals", "deals": 1}}


def _with_assignment(make_app, runner, **cfg):
    from table_service.web.tables import web_state

    app = make_app(TABLES={"1": runner}, **cfg)
    web_state(app).tables["1"].hub_link = SimpleNamespace(assignment=GOOD, result_ack=None, is_connected=True)
    return app


def test_a_start_still_queued_is_pending_not_refused(make_app, runner, h):
    client = _with_assignment(make_app, runner, ACTION_WAIT_S=0.3).test_client()
    h.login(client, "rita")
    _engine_busy_for(runner, 1.5)
    resp = h.post_json(client, "/api/tables/1/assignment/start", {})
    assert resp.status_code == 202 and resp.get_json()["pending"] is True
    assert "look at the event list" in resp.get_json()["error"]
    h.wait_for(lambda: runner.state()["round"] is not None)  # it did start the round


def test_a_start_with_the_engine_stopped_is_503(make_app, runner, h):
    client = _with_assignment(make_app, runner).test_client()
    h.login(client, "rita")
    runner.stop()
    resp = h.post_json(client, "/api/tables/1/assignment/start", {})
    assert resp.status_code == 503 and "engine is not running" in resp.get_json()["error"]


def test_a_start_the_engine_refuses_is_422(make_app, runner, h):
    h.setup_deal(runner)  # a round is running
    client = _with_assignment(make_app, runner).test_client()
    h.login(client, "rita")
    resp = h.post_json(client, "/api/tables/1/assignment/start", {})
    assert resp.status_code == 422 and resp.get_json()["accepted"] is False


def test_a_refusal_that_mentions_the_chief_is_422_to_the_chief(client, runner, h):
    h.setup_deal(runner)
    h.login(client, "chen")
    act = lambda t, d: h.post_json(client, "/api/tables/1/actions", {"type": t, "data": d})  # noqa: E731
    foul = act("penalty_given", {"side": "EW", "level": "foul", "article": "x", "seat": "E", "next_leader": "N"})
    assert foul.status_code == 200, foul.get_json()
    assert act("drawing_finished", {}).status_code == 200
    resp = act("event_voided", {"ref": foul.get_json()["seq"], "reason": "mistake"})
    assert resp.status_code == 422, resp.get_json()
    assert "裁判长" in resp.get_json()["error"]


def test_a_role_refusal_is_403(client, runner, h):
    h.setup_deal(runner)
    h.login(client, "rita")
    resp = h.post_json(client, "/api/tables/1/actions", {"type": "penalty_given", "data": {
        "side": "EW", "level": "foul", "article": "x", "seat": "E", "next_leader": "N"}})
    assert resp.status_code == 403, resp.get_json()
