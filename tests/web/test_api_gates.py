"""Every layer of defence refuses on its own (issue 19, "each gate tested on its own").

Before, removing the role check from ``require_role`` or the API's chief-only list failed no test,
because the engine's check behind them still refused. Here each gate is driven with the layers
behind it out of the way: a route with nothing but the decorator; the API proved to refuse before
the engine ever sees the event (nothing in the log, not even a rejected row); the engine's own
check driven without the API; the host's duplicate-button guard fed a real duplicate.
"""

from __future__ import annotations

import pytest

from table_service.engine.roles import required_role
from table_service.rules.ruleset import Ruleset
from table_service.web import users
from table_service.web.auth import require_role

# ------------------------------------------------------------------ require_role, alone


@pytest.fixture
def gated_app(make_app):
    """An app with one extra route guarded by nothing but ``require_role`` (no engine behind it)."""
    app = make_app()
    for role in users.ROLES:
        def view(role=role):
            return {"ok": role}

        app.add_url_rule(f"/api/gate/{role}", f"gate_{role}", require_role(role)(view))
    return app


@pytest.mark.parametrize("user", ["vera", "rita", "chen"])
@pytest.mark.parametrize("need", ["viewer", "referee", "chief"])
def test_require_role_alone_refuses_a_lower_role(gated_app, h, user, need):
    client = gated_app.test_client()
    h.login(client, user)
    resp = client.get(f"/api/gate/{need}")
    has = users.ROLES.index(h.USERS[user]) >= users.ROLES.index(need)
    assert resp.status_code == (200 if has else 403), (user, need)
    if not has:
        assert need in resp.get_json()["error"]


def test_require_role_alone_refuses_no_login(gated_app):
    resp = gated_app.test_client().get("/api/gate/viewer")
    assert resp.status_code == 401


def test_require_role_refuses_an_unknown_role_when_decorating():
    with pytest.raises(users.UserError):
        require_role("king")


# ------------------------------------------------------------------ the API's chief-only list, alone


@pytest.mark.parametrize(("etype", "data"), [
    ("penalty_given", {"side": "EW", "level": "foul", "article": "x", "next_leader": "N"}),
    ("penalty_given", {"side": "EW", "level": "loss", "article": "x"}),
    ("late_arrival_recorded", {"side": "NS", "minutes": 6}),
])
def test_chief_only_actions_are_refused_by_the_api_before_the_engine(client, h, runner, etype, data):
    h.setup_deal(runner)
    h.login(client, "rita")
    before = h.logged_rows(runner)
    resp = h.post_json(client, "/api/tables/1/actions", {"type": etype, "data": data})
    assert resp.status_code == 403 and "chief" in resp.get_json()["error"]
    assert h.logged_rows(runner) == before, "the API let it through to the engine: its own gate did not refuse"


def test_required_role_is_chief_for_every_foul_loss_and_odd_level():
    for level, need in [("warning", "referee"), ("violation", "referee"), ("foul", "chief"), ("loss", "chief"),
                        (["foul"], "chief"), ({"x": 1}, "chief"), (None, "chief")]:
        assert required_role("penalty_given", {"level": level}, Ruleset()) == need, level
    assert required_role("late_arrival_recorded", {"minutes": 5}, Ruleset()) == "referee"
    assert required_role("late_arrival_recorded", {"minutes": 5.5}, Ruleset()) == "chief"


# ------------------------------------------------------------------ a viewer posts table events


@pytest.mark.parametrize(("etype", "data"), [
    ("cards_played", {"seat": "N", "cards": ["9c"]}),
    ("passed", {"seat": "N"}),
    ("report_pressed", {"seat": "N"}),
    ("flag_dismissed", {"flag": "F1"}),
])
def test_a_viewer_cannot_post_plays_or_passes(client, h, runner, etype, data):
    h.setup_deal(runner)
    h.login(client, "vera")
    before = h.logged_rows(runner)
    resp = h.post_json(client, "/api/tables/1/actions", {"type": etype, "data": data})
    assert resp.status_code == 403
    assert h.logged_rows(runner) == before


@pytest.mark.parametrize("body", [
    {"type": "no_such_action"},
    {"type": "passed", "data": "not an object"},
    {"type": "passed", "data": {"seat": "Q"}},
    {"type": "passed", "data": {"seat": "N"}, "extra": 1},
    ["not", "an", "object"],
])
def test_a_viewer_posting_a_malformed_action_is_refused_for_the_role_first(client, h, runner, body):
    """The role gate comes before the body is read: a viewer learns nothing about what a valid
    action looks like (403, never the 400 that names the problem), and nothing is logged."""
    h.setup_deal(runner)
    h.login(client, "vera")
    before = h.logged_rows(runner)
    resp = h.post_json(client, "/api/tables/1/actions", body)
    assert resp.status_code == 403, resp.get_json()
    assert h.logged_rows(runner) == before


def test_the_engine_alone_refuses_a_viewer_referee_action(runner, h):
    # The last layer, without the web in front: a viewer's ruling reaches the runner and is refused.
    h.setup_deal(runner)
    res = runner.submit({"type": "penalty_given", "source": "panel", "role": "viewer",
                         "data": {"side": "EW", "level": "warning", "article": "x"}})
    assert not res.accepted and "referee role required" in res.error
    res = runner.submit({"type": "penalty_given", "source": "panel", "role": "referee",
                         "data": {"side": "EW", "level": "foul", "article": "x", "next_leader": "N"}})
    assert not res.accepted and "chief" in res.error


# ------------------------------------------------------------------ the host's duplicate-button guard


def test_the_screen_drops_a_button_event_it_already_delivered():
    from firmware_bridge.firmware.wire import BUTTON, pack_button
    from firmware_bridge.link_values import Message
    from firmware_bridge.screen import ScreenController

    got = []
    screen = ScreenController("socket://127.0.0.1:1", on_button=got.append)  # never opened: driven directly
    for event_no in (1, 2, 2, 1, 3, 3):
        screen._on_message(Message(BUTTON, pack_button(event_no, 1000 + event_no, 1, 0, True)))
    assert [e.event_no for e in got] == [1, 2, 3]
    assert screen.duplicates_dropped == 3
    assert screen.events_lost == 0


def test_the_panel_asks_the_role_the_round_s_ruleset_asks(client, h, runner):
    """One source for who may record a late arrival: an event whose ruleset lets the table
    referee warn up to 10 minutes gets a panel that lets a referee record 7 (the engine agrees),
    and 11 minutes still needs the chief, at the panel as in the engine."""
    h.setup_deal(runner, ruleset={"preset": "jiangsu-2013", "options": {"late_warning_min": 10}})
    h.login(client, "rita")
    resp = h.post_json(client, "/api/tables/1/actions",
                       {"type": "late_arrival_recorded", "data": {"side": "NS", "minutes": 7}})
    assert resp.status_code == 200, resp.get_json()
    assert runner.state()["penalties"]["records"][-1]["level"] == "warning"
    before = h.logged_rows(runner)
    resp = h.post_json(client, "/api/tables/1/actions",
                       {"type": "late_arrival_recorded", "data": {"side": "NS", "minutes": 11}})
    assert resp.status_code == 403 and "chief" in resp.get_json()["error"]
    assert h.logged_rows(runner) == before


def test_a_referee_cannot_undo_the_chiefs_ruling(client, h, runner):
    """A referee refused a foul could void the chief's (the ended deal went back to play): the
    chief's entries are voided by the chief alone. A referee still undoes a referee's warning."""
    h.setup_deal(runner)
    h.login(client, "chen")
    ruling = h.post_json(client, "/api/tables/1/actions", {"type": "penalty_given", "data": {
        "side": "EW", "level": "violation", "seat": "E", "article": "越序出牌"}}).get_json()["seq"]
    h.login(client, "rita")
    resp = h.post_json(client, "/api/tables/1/actions", {"type": "event_voided", "data": {"ref": ruling, "reason": "x"}})
    assert resp.status_code == 403 and "裁判长" in resp.get_json()["error"]
    assert [r["seq"] for r in runner.state()["penalties"]["records"]] == [ruling]
    own = h.post_json(client, "/api/tables/1/actions", {"type": "penalty_given", "data": {
        "side": "NS", "level": "warning", "seat": "N", "article": "x"}}).get_json()["seq"]
    resp = h.post_json(client, "/api/tables/1/actions", {"type": "event_voided", "data": {"ref": own, "reason": "x"}})
    assert resp.status_code == 200, resp.get_json()
    h.login(client, "chen")
    resp = h.post_json(client, "/api/tables/1/actions", {"type": "event_voided", "data": {"ref": ruling, "reason": "x"}})
    assert resp.status_code == 200, resp.get_json()
    assert runner.state()["penalties"]["records"] == []
    # A camera read the chief corrected is the chief's ruling too: the referee cannot change it back.
    seat = runner.state()["deal"]["turn"]
    read = runner.submit({"type": "cards_played", "source": "camera", "data": {
        "seat": seat, "cards": ["9h"], "uncertain": True, "confidence": [0.4]}}).seq
    resp = h.post_json(client, "/api/tables/1/actions", {"type": "play_corrected", "data": {"ref": read, "cards": ["9s"]}})
    assert resp.status_code == 200, resp.get_json()
    h.login(client, "rita")
    resp = h.post_json(client, "/api/tables/1/actions", {"type": "play_corrected", "data": {"ref": read, "cards": ["9h"]}})
    assert resp.status_code == 403 and "裁判长" in resp.get_json()["error"]


def test_a_round_with_changed_options_is_the_chiefs(client, h, runner):
    """A referee setting up a round with ``late_warning_min`` 999 would then record any late arrival
    alone: single options are the chief's (refused before the engine); a preset stays a referee's."""
    rules = Ruleset()
    for spec, need in [(None, "referee"), ("huaian-2017", "referee"), ({"preset": "national-2022"}, "referee"),
                       ({"preset": "jiangsu-2013", "options": {}}, "referee"),
                       ({"preset": "jiangsu-2013", "options": {"late_warning_min": 999}}, "chief"),
                       ({"name": "jiangsu-2013", "late_warning_min": 999}, "chief"), (["x"], "chief")]:
        assert required_role("round_set_up", {"ruleset": spec}, rules) == need, spec
    h.login(client, "rita")
    before = h.logged_rows(runner)
    resp = h.post_json(client, "/api/tables/1/actions", {"type": "round_set_up", "data": {
        "players": h.PLAYERS, "ruleset": {"preset": "jiangsu-2013", "options": {"late_warning_min": 999}}}})
    assert resp.status_code == 403 and "chief" in resp.get_json()["error"]
    assert h.logged_rows(runner) == before


def test_another_press_under_a_number_already_delivered_is_said_lost():
    """The audit: a controller whose numbering started again within one boot (a fault) had its new
    S.report press dropped as a repeat, without a word. The same frame again is a repeat (dropped);
    another press under the number is lost, said so, and counted for the referee's call."""
    from firmware_bridge.firmware.wire import BUTTON, pack_button
    from firmware_bridge.link_values import Message
    from firmware_bridge.screen import ScreenController

    got, said = [], []
    screen = ScreenController("socket://127.0.0.1:1", on_button=got.append, on_status=said.append)
    screen._on_message(Message(BUTTON, pack_button(1, 1000, 0, 1, True)))
    screen._on_message(Message(BUTTON, pack_button(2, 1100, 0, 1, False)))
    screen._on_message(Message(BUTTON, pack_button(2, 1100, 0, 1, False)))  # the same frame: a repeat
    assert screen.events_lost == 0
    screen._on_message(Message(BUTTON, pack_button(1, 5000, 1, 0, True)))  # S.report, numbered 1 again
    assert [e.event_no for e in got] == [1, 2] and screen.events_lost == 1
    assert any(s.kind == "events_lost" and "numbered another press 1" in s.message for s in said)
