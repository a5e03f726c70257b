"""A referee under time pressure, in a real browser: a double tap does a thing once, a correction the
reader did not offer is tapped (not typed), a long play stays on a tablet's screen, a dropped network
and an ended login are said in words (the panel audit of 2026-12-06)."""

from __future__ import annotations

import json

import pytest

from table_service.web import users

pytestmark = pytest.mark.browser


def _pass_due(page, app, runner, serve_app, h) -> str:
    """A lead played, the panel open with the next seat chosen for a pass entered on its behalf."""
    h.setup_deal(runner)
    h.play(runner, runner.state()["deal"]["turn"], ["3s"])
    seat = runner.state()["deal"]["turn"]
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.select_option("#f-play select[name=seat]", seat)
    return seat


def _passes(runner, seat: str) -> int:
    return len([p for p in runner.state()["deal"]["trick"]["plays"] if p.get("pass") and p["seat"] == seat])


def test_a_double_tapped_pass_is_one_pass(page, app, runner, serve_app, h):
    seat = _pass_due(page, app, runner, serve_app, h)
    page.locator("#enter-pass").dblclick()
    h.wait_for(lambda: runner.state()["deal"]["turn"] != seat, timeout=20)
    page.wait_for_timeout(1500)  # a second request, had one gone, has had its answer
    assert _passes(runner, seat) == 1
    assert not [f for f in runner.state()["flags"] if f["rule"] == "out_of_turn"]


def test_a_long_question_corrected_by_taps_on_a_tablet(page, app, runner, serve_app, h):
    """Eight cards at 1024 x 768: nothing runs off the screen; the true play, which the reader did not
    offer, is tapped from the question's own picker."""
    page.set_viewport_size({"width": 1024, "height": 768})
    h.setup_deal(runner)
    read = ["3s", "3h", "3c", "3d", "4s", "4h", "4c", "4d"]
    q = h.play(runner, runner.state()["deal"]["turn"], read, confidence=[0.5] * 8, uncertain=True, candidates=[read])
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    card = f"#question-{q.seq}"
    page.wait_for_selector(f"{card} button.candidate")
    assert page.evaluate("document.scrollingElement.scrollWidth") <= 1024
    box = page.locator(f"{card} button.candidate").bounding_box()
    assert box["x"] + box["width"] <= 1024
    page.click(f"{card} form.q-other button[type=submit]")  # nothing picked yet: said, not sent
    page.wait_for_selector(".toast.show.bad")
    page.click(f"{card} .pick-open")
    for c in ["3s", "3h", "3c", "3d", "4s", "4h", "4c", "5d"]:
        page.click(f'{card} [data-pick="{c}"]')
    page.click(f"{card} form.q-other button[type=submit]")
    h.wait_for(lambda: runner.events()[-1]["type"] == "play_corrected", timeout=20)
    assert runner.events()[-1]["data"] == {"ref": q.seq, "cards": ["3s", "3h", "3c", "3d", "4s", "4h", "4c", "5d"]}


def test_a_tap_with_the_network_down_is_said_and_safe_to_repeat(page, app, runner, serve_app, h):
    seat = _pass_due(page, app, runner, serve_app, h)
    page.context.set_offline(True)
    page.click("#enter-pass")
    page.wait_for_function("document.getElementById('toast').textContent.includes('网络中断')")
    page.context.set_offline(False)
    page.click("#enter-pass")
    h.wait_for(lambda: runner.state()["deal"]["turn"] != seat, timeout=20)
    assert _passes(runner, seat) == 1


def test_a_tap_whose_outcome_stayed_unknown_is_asked_again_for_a_minute_then_is_a_new_action(
        page, app, runner, serve_app, h):
    """The network dropped the pass's request: tapped again within a minute it goes under the first
    tap's id (the table answers with what it did); a minute later the same tap is a new action (a
    pass when the turn comes round again), with an id of its own."""
    h.setup_deal(runner)
    h.play(runner, runner.state()["deal"]["turn"], ["3s"])
    seat = runner.state()["deal"]["turn"]
    ids: list[str] = []

    def drop_the_first_two(route) -> None:
        ids.append(json.loads(route.request.post_data)["action_id"])
        route.abort() if len(ids) <= 2 else route.continue_()

    page.clock.install()
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.route("**/actions", drop_the_first_two)
    page.select_option("#f-play select[name=seat]", seat)
    for _ in range(2):
        page.click("#enter-pass")
        page.wait_for_function("document.getElementById('toast').textContent.includes('网络中断')")
        page.evaluate("document.getElementById('toast').textContent = ''")
    page.clock.fast_forward(61_000)
    page.click("#enter-pass")
    # The sync API runs a route handler only inside a Playwright call: the wait lets the page's
    # event loop turn (a bare poll of the runner left the third request parked in the route when
    # it was sent after the click returned, CI stop 54).
    h.wait_for(lambda: page.wait_for_timeout(20) or runner.state()["deal"]["turn"] != seat, timeout=20)
    assert len(ids) == 3 and ids[0] == ids[1] != ids[2]
    assert _passes(runner, seat) == 1


def test_an_ended_login_says_so_and_offers_the_login_page(page, app, runner, serve_app, users_db, h):
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    conn = users.connect(users_db)
    users.close_sessions(conn, "rita")
    conn.close()
    page.wait_for_selector("a#conn.login-ended", timeout=30_000)
    assert "/auth/login" in page.get_attribute("a#conn", "href")
    assert "重新登录" in page.inner_text("a#conn")


def test_a_tap_the_ladder_makes_a_foul_is_marked_the_chiefs(page, app, runner, serve_app, h):
    """NS holds a warning and a violation: one more warning on a flag against N would be a foul, the
    chief's. A referee sees that on the button (disabled), instead of a refusal after tapping."""
    h.setup_deal(runner)
    for level in ("warning", "violation"):
        assert runner.submit({"type": "penalty_given", "source": "panel", "role": "referee",
                              "data": {"side": "NS", "level": level, "seat": "N", "article": "x"}}).accepted
    turn = runner.state()["deal"]["turn"]
    wrong = next(s for s in "NS" if s != turn)
    h.play(runner, wrong, ["9s"])  # out of turn: a flag on an NS seat
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.wait_for_selector("#flags-card button.pen-warning")
    assert page.is_disabled("#flags-card button.pen-warning")
    assert "仅裁判长" in page.inner_text("#flags-card button.pen-warning")


def test_the_referee_stops_play_from_the_panel_and_resumes_it(page, app, runner, serve_app, h):
    """Called over by voice, the referee taps 叫停: a call opens (no buzzer for the players), nobody is
    over time while it is open; dismissing it resumes with a whole countdown."""
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    effects = []
    runner.subscribe_effects(lambda fx, ev: effects.extend(fx))
    page.click("#stop-play")
    h.wait_for(lambda: [f for f in runner.state()["flags"] if f["rule"] == "referee_call" and f["status"] == "open"],
               timeout=20)
    assert not [f for f in effects if f["kind"] == "buzz"]
    call = [f for f in runner.state()["flags"] if f["rule"] == "referee_call"][0]
    assert runner.submit({"type": "flag_dismissed", "source": "panel", "role": "referee",
                          "data": {"flag": call["id"]}}).accepted
    deal = runner.state()["deal"]
    timer = deal["timers"][deal["turn"]]
    assert timer["deadline_ms"] - timer["started_ms"] == 40_000  # the deal's first lead, whole again


def test_a_penalty_without_a_flag_cites_the_rules_by_a_tap(page, app, runner, serve_app, h):
    """Hiding a card has no sensor: the referee gives it from the form, its article one tap away."""
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.evaluate("document.getElementById('f-penalty').scrollIntoView()")
    page.click('#f-penalty h3')  # the form may be folded until used
    page.select_option("#penalty-side", "EW")
    page.click('#penalty-articles .chip[data-article^="藏牌"]')
    page.click("#penalty-submit")
    h.wait_for(lambda: runner.state()["penalties"]["records"], timeout=20)
    assert runner.state()["penalties"]["records"][0]["article"] == "藏牌、夹带 / hiding or slipping cards"


def test_a_wild_cards_pattern_is_declared_by_a_tap(page, app, runner, serve_app, h):
    """Under ``unstated_reading = "ask"`` a wild-card row the player did not state is a question; each
    reading still possible is a button (no rank typed)."""
    h.setup_deal(runner, ruleset={"preset": "jiangsu", "options": {"unstated_reading": "ask"}})
    q = h.play(runner, "N", ["2h", "5s", "6s", "7s", "8s"])
    question = runner.state()["deal"]["questions"]
    assert question and question[0]["reason"] == "reading"
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.wait_for_selector(f"#question-{q.seq} button.reading")
    readings = page.eval_on_selector_all(f"#question-{q.seq} button.reading", "bs => bs.map(b => b.dataset.reading)")
    assert readings == question[0]["readings"]
    page.click(f'#question-{q.seq} button.reading[data-reading="{readings[-1]}"]')
    h.wait_for(lambda: runner.events()[-1]["type"] == "reading_declared", timeout=20)
    kind, rank = readings[-1].split(" ")
    assert runner.events()[-1]["data"] == {"ref": q.seq, "kind": kind, "rank": rank}


def test_a_late_arrival_is_entered_by_taps(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.evaluate("document.getElementById('f-late').scrollIntoView()")
    page.click("#f-late h3")
    assert "裁判长" in page.inner_text("#f-late")  # the limit a referee cannot pass is said beforehand
    page.click('#late-minutes .chip[data-minutes="3"]')
    page.click("#f-late button[type=submit]")
    h.wait_for(lambda: runner.state()["penalties"]["records"], timeout=20)
    assert runner.events()[-1]["data"]["minutes"] == 3


def test_a_round_the_hub_finished_is_said_on_the_card_and_its_end_is_one_tap_away(page, app, runner, serve_app, h):
    """The chief entered round 1's result at the hub while this Pi was down, and published round 2:
    the card says so and its button brings the round's end, its reason filled in, into view."""
    from types import SimpleNamespace

    from table_service.web.tables import web_state

    a = {"event": "ev", "round": 1, "table": "1", "teams": {"NS": "T1", "EW": "T2"},
         "players": {"N": "a", "S": "b", "E": "c", "W": "d"},
         "ruleset": {"preset": "jiangsu-2013", "options": {}}, "format": {"kind": "deals", "deals": 2}}
    from table_service.views.assignment import set_up_data

    assert runner.submit({"type": "round_set_up", "source": "panel", "role": "referee", "data": set_up_data(a)}).accepted
    web_state(app).tables["1"].hub_link = SimpleNamespace(
        assignment={**a, "round": 2, "teams": {"NS": "T3", "EW": "T4"}}, result_ack=None, is_connected=True)
    srv = serve_app(app)
    h.open_table(page, srv.url, "chen", h.PASSWORD)
    page.wait_for_selector("#assign-behind")
    assert "第 1 轮尚未结束" in page.inner_text("#assign-behind") and "第 2 轮" in page.inner_text("#assign-behind")
    page.click("#assign-go-end")
    assert page.input_value("#f-end input[name=reason]") == "赛事中心已录入第 1 轮成绩"
    box = page.locator("#f-end").bounding_box()
    assert 0 <= box["y"] <= page.viewport_size["height"]


def _wrong_tribute_shown_in_play(runner, h) -> tuple[str, int]:
    """Deal 1 played out one card each; deal 2's 下游 gives Kd and then leads As (flag
    tribute_not_highest): the wrong tribute card is still in its receiver's hand."""
    for ev in ({"type": "round_set_up", "source": "panel", "role": "referee",
                "data": {"players": h.PLAYERS, "ruleset": "jiangsu", "format": {"kind": "past_a"}}},
               {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
               {"type": "drawing_finished", "source": "panel", "data": {"counts": {s: 1 for s in "ESWN"}}}):
        assert runner.submit(ev).accepted
    singles = iter(["3s", "4s", "5s", "6s"])
    while runner.state()["deal"]["phase"] == "play":
        h.play(runner, runner.state()["deal"]["turn"], [next(singles)])
    assert runner.submit({"type": "drawing_finished", "source": "panel", "data": {}}).accepted
    plan = runner.state()["deal"]["tribute_plan"]
    payer, top = plan["payers"][0], plan["top"]
    res = runner.submit({"type": "tribute_given", "source": "panel", "data": {"seat": payer, "card": "Kd"}})
    assert res.accepted
    assert runner.submit({"type": "return_given", "source": "panel", "data": {"seat": top, "card": "3c"}}).accepted
    h.play(runner, payer, ["As"])
    (flag,) = [f for f in runner.state()["flags"] if f["rule"] == "tribute_not_highest"]
    return flag["id"], res.seq


def test_a_misread_return_found_in_play_is_corrected_by_taps(page, app, runner, serve_app, h, small_controls):
    """A misread return (read 3c, was 4c) once play has begun: the void is refused in play, and the
    return's row offers 纠正识别 — the dialog's misread choice set and fixed — which sends
    ``play_corrected`` on the return: the deal re-folds with the card it always was, plays standing."""
    _wrong_tribute_shown_in_play(runner, h)
    ret = next(e for e in reversed(runner.events()) if e["type"] == "return_given")["seq"]
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    row = f'#tribute .tribute-row[data-seq="{ret}"]'
    page.wait_for_selector(f"{row} button.correct-return")
    page.click(f"{row} button.correct-return")
    page.wait_for_selector("#play-dialog:not([hidden]) form.tribute-correction")
    assert page.is_checked("#play-dialog input[name=misread]") and page.is_disabled("#play-dialog input[name=misread]")
    # A return's own words: not the tribute's title, no warning to give, no reason asked (the tap audit).
    assert "还贡" in page.inner_text("#play-dialog h3") and "进贡" not in page.inner_text("#play-dialog h3")
    assert "不给处罚" in page.inner_text("#play-dialog") and page.query_selector("#play-dialog input[name=reason]") is None
    assert small_controls(page, "#play-dialog .misread-choice") == []
    page.click('#play-dialog [data-pick="4c"]')
    page.click("#play-dialog form.tribute-correction button[type=submit]")
    h.wait_for(lambda: runner.events()[-1]["type"] == "play_corrected", timeout=20)
    assert runner.events()[-1]["data"] == {"ref": ret, "cards": ["4c"]}
    deal = runner.state()["deal"]
    assert deal["returns"][0]["card"] == "4c" and deal["superseded"] == []
    assert [p["cards"] for p in deal["trick"]["plays"]] == [["As"]]


def test_a_wrong_tribute_flagged_in_play_is_corrected_by_taps(page, app, runner, serve_app, h):
    """The audit's wrong tribute found in play: the flag offers 纠正贡牌, the card is tapped, the plays
    stand; the tribute's row has no undo (engine generation 8 refuses the void in play) but the same
    correction; the warning is the flag's own button after."""
    flag_id, trib = _wrong_tribute_shown_in_play(runner, h)
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    row = f'#tribute .tribute-row[data-seq="{trib}"]'
    page.wait_for_selector(f"{row} button.correct-tribute")
    assert page.query_selector(f"{row} button.undo") is None
    page.click(f"#flag-{flag_id} button.correct-tribute")
    page.wait_for_selector("#play-dialog:not([hidden]) form.tribute-correction")
    page.click('#play-dialog [data-pick="Ah"]')
    page.click("#play-dialog form.tribute-correction button[type=submit]")
    h.wait_for(lambda: runner.events()[-1]["type"] == "tribute_corrected", timeout=20)
    assert runner.events()[-1]["data"] == {"ref": trib, "card": "Ah", "reason": "错贡，收回重贡 / wrong tribute taken back and given again"}
    deal = runner.state()["deal"]
    assert deal["tributes"][0]["card"] == "Ah" and deal["phase"] == "play" and deal["superseded"] == []
    assert [p["cards"] for p in deal["trick"]["plays"]] == [["As"]]
    page.wait_for_selector(f"{row} .corrected")
    page.click(f"#flag-{flag_id} button.pen-warning")
    h.wait_for(lambda: runner.state()["penalties"]["records"], timeout=20)
    assert runner.state()["penalties"]["records"][-1]["flag"] == flag_id
    # Logged in both languages, as every text of the log (the tap audit: the panel's half alone).
    assert runner.state()["penalties"]["records"][-1]["article"] == "进贡非最大牌 / tribute was not the highest card"
    assert [f["status"] for f in runner.state()["flags"] if f["id"] == flag_id] == ["confirmed"]


def test_a_flag_raised_while_another_is_open_is_drawn_below_it(page, app, runner, serve_app, h):
    """The s36 tap audit: the newest flag was drawn first, so a flag raised while the referee's finger
    was on an open flag's 确认 moved that button 228 px down and put the new flag's 确认 under the
    finger: the tap confirmed the wrong flag. Open flags are drawn oldest first; the buttons already
    there stay where they are."""
    h.setup_deal(runner)  # North leads
    h.play(runner, "E", ["3s"])  # out of turn: a flag against East
    (first,) = [f["id"] for f in runner.state()["flags"] if f["status"] == "open"]
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    button = f"#flag-{first} button.confirm"
    page.wait_for_selector(button)
    before = page.eval_on_selector(button, "b => b.getBoundingClientRect().top + window.scrollY")
    h.play(runner, "S", ["4s"])  # another seat out of turn: a second open flag
    second = [f["id"] for f in runner.state()["flags"] if f["status"] == "open" and f["id"] != first]
    assert second
    page.wait_for_selector(f"#flag-{second[0]} button.confirm")
    after = page.eval_on_selector(button, "b => b.getBoundingClientRect().top + window.scrollY")
    assert after == before
    order = page.eval_on_selector_all("#flags .flag.open", "fs => fs.map(f => f.id)")
    assert order[:2] == [f"flag-{first}", f"flag-{second[0]}"]


def test_the_play_forms_pass_is_for_the_seat_on_turn(page, app, runner, serve_app, h):
    """The s36 tap audit: the play form's 过牌 passed for East (the first option) with North on turn,
    raising an out-of-turn flag against East's player. The form's seat follows the turn."""
    h.setup_deal(runner)  # North leads
    h.play(runner, "N", ["3s"])
    seat = runner.state()["deal"]["turn"]
    assert seat != "E"
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.wait_for_function(f"document.querySelector('#f-play select[name=seat]').value === {seat!r}")
    # The next-step box and the flag and question heads name the player with the seat (the tap audit).
    assert h.PLAYERS[seat] in page.inner_text("#next-step button.step-pass")
    page.click("#enter-pass")
    h.wait_for(lambda: runner.state()["deal"]["turn"] != seat, timeout=20)
    assert _passes(runner, seat) == 1
    assert not [f for f in runner.state()["flags"] if f["rule"] == "out_of_turn"]
    nxt = runner.state()["deal"]["turn"]
    page.wait_for_function(f"document.querySelector('#f-play select[name=seat]').value === {nxt!r}")
