"""The JSON API through the Flask test client: every endpoint, every role rule, bad input."""

from __future__ import annotations

import pytest

ACTIONS = "/api/tables/1/actions"


def act(client, h, type_, data=None):
    return h.post_json(client, ACTIONS, {"type": type_, "data": data or {}})


def test_tables_and_state(client, h, runner):
    h.setup_deal(runner)
    h.login(client, "vera")
    tables = client.get("/api/tables").get_json()["tables"]
    assert tables == [{"id": "1", "round": 1, "status": "play", "last_seq": 3}]
    st = client.get("/api/tables/1/state").get_json()
    assert st["round"]["players"] == h.PLAYERS
    assert st["deal"]["turn"] == "N"
    assert st == runner.state()


def test_unknown_table_is_404_with_message(client, h):
    h.login(client, "chen")
    for method, url in [("get", "/api/tables/9/state"), ("get", "/api/tables/9/events"),
                        ("get", "/api/tables/9/stream")]:
        resp = getattr(client, method)(url)
        assert resp.status_code == 404, url
        assert "unknown table" in resp.get_json()["error"]
    resp = act(client, h, "round_ended").status_code
    resp = h.post_json(client, "/api/tables/9/actions", {"type": "round_ended", "data": {}})
    assert resp.status_code == 404
    assert client.get("/tables/9").status_code == 404
    assert client.get("/feed/9/state.json").status_code == 404


def test_events_history_and_paging(client, h, runner):
    h.setup_deal(runner)
    h.play(runner, "N", ["3s"])
    h.login(client, "vera")
    evs = client.get("/api/tables/1/events").get_json()
    assert [e["seq"] for e in evs["events"]] == [1, 2, 3, 4] and evs["more"] is False
    page = client.get("/api/tables/1/events?after=1&limit=2").get_json()
    assert [e["seq"] for e in page["events"]] == [2, 3] and page["more"] is True
    for bad in ("after=x", "limit=0", "limit=99999", "after=-1"):
        resp = client.get(f"/api/tables/1/events?{bad}")
        assert resp.status_code == 400, bad
        assert "must be" in resp.get_json()["error"]


def test_viewer_cannot_act(client, h, runner):
    h.setup_deal(runner)
    h.login(client, "vera")
    resp = act(client, h, "penalty_given", {"side": "EW", "level": "warning", "article": "x"})
    assert resp.status_code == 403
    assert "referee" in resp.get_json()["error"]
    assert runner.state()["penalties"]["records"] == []


def test_logged_out_cannot_act(client, h, runner):
    resp = act(client, h, "round_ended")
    assert resp.status_code == 401


def test_referee_gives_warning_as_an_engine_event(client, h, runner):
    h.setup_deal(runner)
    h.login(client, "rita")
    resp = act(client, h, "penalty_given", {"side": "NS", "level": "warning", "seat": "N", "article": "越序"})
    body = resp.get_json()
    assert resp.status_code == 200 and body["accepted"] is True
    assert body["event"]["source"] == "panel" and body["event"]["role"] == "referee"
    # It is in the runner's log, and that is the only way the state changed.
    assert runner.events(after=body["seq"] - 1)[0]["type"] == "penalty_given"
    assert runner.state()["penalties"]["NS"]["warnings"] == 1


@pytest.mark.parametrize("level", ["foul", "loss"])
def test_foul_and_loss_are_chief_only(client, h, runner, level):
    h.setup_deal(runner)
    h.login(client, "rita")
    data = {"side": "EW", "level": level, "seat": "E", "article": "藏牌", "next_leader": "N"}
    before = h.logged_rows(runner)
    resp = act(client, h, "penalty_given", data)
    assert resp.status_code == 403 and "chief" in resp.get_json()["error"]
    # Nothing reached the engine: not even a rejected row (accepted events alone would not show
    # a foul that got through the panel's gate to be refused by the engine).
    assert h.logged_rows(runner) == before
    client.post("/auth/logout", data={"csrf_token": h.csrf_of(client)})
    h.login(client, "chen")
    resp = act(client, h, "penalty_given", data)
    assert resp.status_code == 200, resp.get_json()
    assert runner.state()["penalties"]["records"][-1]["level"] == level


def test_escalation_refused_by_engine_is_403(client, h, runner):
    """A referee's second violation would escalate into a foul: the engine refuses, the API says 403."""
    h.setup_deal(runner)
    h.login(client, "rita")
    data = {"side": "EW", "level": "violation", "article": "x"}
    assert act(client, h, "penalty_given", data).status_code == 200
    resp = act(client, h, "penalty_given", data)
    assert resp.status_code == 403
    assert "裁判长" in resp.get_json()["error"]
    assert runner.state()["penalties"]["EW"] == {"warnings": 0, "violations": 1, "fouls": 0}


def test_late_arrival_over_five_minutes_is_chief_only(client, h, runner):
    h.login(client, "rita")
    assert act(client, h, "late_arrival_recorded", {"side": "EW", "minutes": 7}).status_code == 403
    resp = act(client, h, "late_arrival_recorded", {"side": "EW", "minutes": 3})
    assert resp.status_code in (200, 422)  # the engine decides whether a round must exist first


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ([1, 2], "JSON object"),
        ({"type": "penalty_given", "data": [1]}, "'data' must be a JSON object"),
        ({"type": "make_me_win", "data": {}}, "unknown action type"),
        ({"type": "clock_ticked", "data": {}}, "unknown action type"),
        ({"data": {}}, "unknown action type"),
        ({"type": "round_ended", "data": {}, "seq": 5}, "unknown fields"),
    ],
)
def test_malformed_actions_are_400(client, h, runner, body, message):
    h.login(client, "chen")
    resp = h.post_json(client, ACTIONS, body)
    assert resp.status_code == 400
    assert message in resp.get_json()["error"]
    assert runner.events() == []


def test_non_json_body_is_400(client, h):
    h.login(client, "chen")
    resp = client.post(ACTIONS, data="type=round_ended", headers={"X-CSRF-Token": h.csrf_of(client)},
                       content_type="application/x-www-form-urlencoded")
    assert resp.status_code == 400
    assert "JSON" in resp.get_json()["error"]


def test_action_without_csrf_header_is_400(client, h, runner):
    h.login(client, "chen")
    resp = client.post(ACTIONS, json={"type": "round_ended", "data": {}})
    assert resp.status_code == 400 and "CSRF" in resp.get_json()["error"]
    assert runner.events() == []


def test_engine_rejection_is_422_with_its_message(client, h, runner):
    h.setup_deal(runner)
    h.login(client, "rita")
    resp = act(client, h, "flag_confirmed", {"flag": "F99"})
    assert resp.status_code == 422
    body = resp.get_json()
    assert body["accepted"] is False and "no such flag" in body["error"]
    assert runner.state()["last_seq"] == 3


def test_confirm_and_dismiss_flags(client, h, runner):
    h.setup_deal(runner)
    h.play(runner, "E", ["3s"])        # out of turn: flag F4
    runner.submit({"type": "referee_called", "source": "screen", "data": {"seat": "W"}})  # F5
    h.login(client, "rita")
    assert act(client, h, "flag_confirmed", {"flag": "F4", "note": "seen"}).status_code == 200
    assert act(client, h, "flag_dismissed", {"flag": "F5"}).status_code == 200
    flags = {f["id"]: f["status"] for f in runner.state()["flags"]}
    assert flags == {"F4": "confirmed", "F5": "dismissed"}
    # The log keeps which flag each ruling meant, so a later correction cannot move it to another.
    rulings = [e["data"] for e in runner.events() if e["type"] in ("flag_confirmed", "flag_dismissed")]
    assert [d["flag_of"] for d in rulings] == [{"seq": 4, "rule": "out_of_turn", "seat": "E"},
                                               {"seq": 5, "rule": "referee_call", "seat": "W"}]
    resp = act(client, h, "flag_confirmed", {"flag": "F4"})
    assert resp.status_code == 422 and "already" in resp.get_json()["error"]


def test_one_tap_question_confirm_and_correct(client, h, runner):
    h.setup_deal(runner)
    q = h.play(runner, "N", ["4s"], confidence=[0.41], uncertain=True)
    assert runner.state()["deal"]["questions"][0]["seq"] == q.seq
    h.login(client, "rita")
    assert act(client, h, "play_confirmed", {"ref": q.seq}).status_code == 200
    deal = runner.state()["deal"]
    assert deal["questions"] == [] and deal["trick"]["plays"][0]["cards"] == ["4s"]
    q2 = h.play(runner, "W", ["5h"], confidence=[0.3], uncertain=True)
    assert act(client, h, "play_corrected", {"ref": q2.seq, "cards": ["6h"]}).status_code == 200
    plays = runner.state()["deal"]["trick"]["plays"]
    assert [p["cards"] for p in plays] == [["4s"], ["6h"]]


def test_correct_void_and_end_round(client, h, runner):
    h.setup_deal(runner)
    p = h.play(runner, "N", ["4s"])
    h.login(client, "rita")
    assert act(client, h, "play_corrected", {"ref": p.seq, "cards": ["4h"]}).status_code == 200
    assert runner.state()["deal"]["trick"]["plays"][0]["cards"] == ["4h"]
    assert act(client, h, "event_voided", {"ref": p.seq, "reason": "双读 / double read"}).status_code == 200
    assert runner.state()["deal"]["trick"]["plays"] == []
    resp = act(client, h, "round_ended", {"reason": "time"})  # ending a round early is the chief's
    assert resp.status_code == 403 and runner.state()["result"] is None
    h.login(client, "chen")
    resp = act(client, h, "round_ended", {"reason": "time"})
    assert resp.status_code == 200
    assert runner.state()["result"]["reason"] == "ended"
    assert act(client, h, "score_sheet_signed", {"side": "EW"}).status_code == 200
    assert runner.state()["signatures"]["EW"] is True


def test_manual_entry_of_play_and_pass(client, h, runner):
    h.setup_deal(runner)
    h.login(client, "rita")
    assert act(client, h, "cards_played", {"seat": "N", "cards": ["9c"]}).status_code == 200
    assert act(client, h, "passed", {"seat": "W"}).status_code == 200
    plays = runner.state()["deal"]["trick"]["plays"]
    assert plays[0]["cards"] == ["9c"] and plays[1]["pass"] is True
    resp = act(client, h, "cards_played", {"seat": "X", "cards": ["9c"]})
    assert resp.status_code == 400 and "unknown seat 'X'" in resp.get_json()["error"]  # the schema's answer


def test_referee_reports_an_exposed_card(client, h, runner):
    h.setup_deal(runner)
    h.login(client, "vera")
    assert act(client, h, "card_exposed", {"card": "Kd", "seat": "E"}).status_code == 403  # viewer
    h.login(client, "rita")
    assert act(client, h, "card_exposed", {"card": "Kd", "seat": "E"}).status_code == 200
    flags = [f for f in runner.state()["flags"] if f["rule"] == "exposed_card"]
    assert len(flags) == 1 and flags[0]["seat"] == "E" and flags[0]["status"] == "open"


def _short_deal(runner, h):
    """Round 1, deal 1 with one card each, played out through the runner: N, W, S finish."""
    for ev in (
        {"type": "round_set_up", "source": "panel", "role": "referee",
         "data": {"players": h.PLAYERS, "format": {"kind": "deals", "deals": 2}}},
        {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
        {"type": "drawing_finished", "source": "panel", "data": {"counts": {s: 1 for s in "ESWN"}}},
    ):
        assert runner.submit(ev).accepted
    for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s")):
        h.play(runner, seat, [card])
    assert runner.state()["deal"]["phase"] == "over"


def test_release_is_chief_only_validated_and_an_engine_event(make_app, runner, h):
    app = make_app(TABLES={"1": runner}, FEED_DUPLICATE=True)
    client = app.test_client()
    release = "/api/tables/1/feed/release"
    h.setup_deal(runner)  # deal 1 in progress
    h.login(client, "rita")
    resp = h.post_json(client, release, {"round": 1, "deal": 1})
    assert resp.status_code == 403 and "chief" in resp.get_json()["error"]
    # the generic action path is no way around it either
    assert act(client, h, "deal_released", {"round": 1, "deal": 1}).status_code == 400
    client.post("/auth/logout", data={"csrf_token": h.csrf_of(client)})
    h.login(client, "chen")
    for bad in ({"round": 1}, {"round": "x", "deal": 1}, {"round": 1, "deal": 0}, [1]):
        assert h.post_json(client, release, bad).status_code == 400, bad
    # the engine's verdict: a deal still in progress cannot be released
    resp = h.post_json(client, release, {"round": 1, "deal": 1})
    assert resp.status_code == 422 and "has not ended" in resp.get_json()["error"]
    assert h.post_json(client, release, {"round": 3, "deal": 1}).status_code == 422
    assert runner.state()["released_deals"] == []
    assert "deal_released" not in {e["type"] for e in runner.events()}


def test_release_of_an_ended_deal_goes_to_the_log(make_app, runner, h):
    app = make_app(TABLES={"1": runner}, FEED_DUPLICATE=True)
    client = app.test_client()
    _short_deal(runner, h)
    h.login(client, "chen")
    resp = h.post_json(client, "/api/tables/1/feed/release", {"round": "1", "deal": 1})  # form values are strings
    body = resp.get_json()
    assert resp.status_code == 200 and body["released"] == {"round": 1, "deal": 1}
    logged = runner.events()[-1]
    assert logged["seq"] == body["seq"] and logged["type"] == "deal_released"
    assert (logged["role"], logged["source"], logged["data"]) == ("chief", "panel", {"round": 1, "deal": 1})
    assert [(r["round"], r["deal"], r["seq"]) for r in runner.state()["released_deals"]] == [(1, 1, body["seq"])]
    from table_service.web.tables import web_state

    assert web_state(app).tables["1"].feed.released == {(1, 1)}
    again = h.post_json(client, "/api/tables/1/feed/release", {"round": 1, "deal": 1})
    assert again.status_code == 422 and "already released" in again.get_json()["error"]


def test_wrong_method_is_405_json(client, h):
    h.login(client, "chen")
    resp = client.get(ACTIONS)
    assert resp.status_code == 405 and "error" in resp.get_json()


def test_camera_crop_of_an_event(client, h, runner):
    h.setup_deal(runner)
    crop = h.crop_data_url(["5h"])
    q = h.play(runner, "N", ["5h"], confidence=[0.3], uncertain=True, crop=crop)
    plain = h.play(runner, "E", ["6h"])
    assert client.get(f"/api/tables/1/events/{q.seq}/crop").status_code == 401
    h.login(client, "vera")
    resp = client.get(f"/api/tables/1/events/{q.seq}/crop")
    assert resp.status_code == 200 and resp.mimetype == "image/jpeg"
    assert resp.data[:3] == b"\xff\xd8\xff" and len(resp.data) > 1000
    # Evidence of a login is never kept in the browser's cache (a tablet handed on after logout),
    # nor is any other answer to a logged-in request; the public feed keeps its own policy.
    assert resp.headers["Cache-Control"] == "no-store"
    assert client.get("/api/tables/1/state").headers["Cache-Control"] == "no-store"
    for seq, msg in ((plain.seq, "no camera image"), (999, "no accepted event"), (0, "no accepted event")):
        r = client.get(f"/api/tables/1/events/{seq}/crop")
        assert r.status_code == 404 and msg in r.get_json()["error"]


def test_the_referee_redraws_a_miscounted_deal_from_the_panel(client, h, runner):
    h.setup_deal(runner)
    h.login(client, "rita")
    page = client.get("/tables/1").get_data(as_text=True)
    assert 'data-type="deal_redrawn"' in page and "重新洗牌抓牌" in page
    resp = act(client, h, "deal_redrawn", {"reason": "南家 26 张 / S had 26"})
    assert resp.status_code == 200 and resp.get_json()["accepted"]
    assert runner.state()["deal"] is None  # back to before the first deal's drawing
    resp = act(client, h, "drawing_finished", {})
    assert resp.status_code == 200 and runner.state()["deal"]["no"] == 1
