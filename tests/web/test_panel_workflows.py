"""The referee's workflows on the panel, in a real browser (Playwright driving Debian's Chromium)
against the real cheroot server and a real TableRunner: a round started from the panel alone,
a camera question answered from its picture, a play corrected by tapping it, the penalty ladder,
and the countdown after a reload mid-countdown. Screenshots go to test-artifacts/web/panel-*."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
CJK = re.compile(r"[\u4e00-\u9fff]")


def shot(page, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    y = page.evaluate("window.scrollY")
    page.screenshot(path=str(ARTIFACTS / f"panel-{name}.png"), full_page=True)
    # A full-page shot resizes the viewport and moves the scroll position for a moment: put it
    # back and let the page lay out, else the next click lands where a button was during the shot.
    page.evaluate("y => new Promise(r => { window.scrollTo(0, y); requestAnimationFrame(() => requestAnimationFrame(r)); })", y)


def toast_ok(page) -> None:
    """The engine's verdict came back as a green toast (then cleared for the next step). Generous:
    on a loaded 2-core machine a round trip with Chromium can take seconds."""
    page.wait_for_selector(".toast.show", timeout=25_000)
    cls = page.get_attribute("#toast", "class")
    assert "ok" in cls, page.inner_text("#toast")
    page.evaluate("document.getElementById('toast').className = 'toast'")


def test_a_round_from_the_panel_alone(page, app, runner, serve_app, h):
    """A fresh table: set up the round, the cut, the drawing, then play, pass and report on the
    players' behalf — taps only, no event numbers, no curl."""
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.wait_for_selector('#next-step .steps[data-step="none"]')
    page.click("#next-step .step-setup")
    for seat, name in h.PLAYERS.items():
        page.fill(f'#f-setup [name="players.{seat}"]', name)
    page.fill('#f-setup [name="teams.EW"]', "江苏")
    page.fill('#f-setup [name="teams.NS"]', "淮安")
    page.select_option('#f-setup [name="format.kind"]', "deals")
    page.fill('#f-setup [name="format.deals"]', "2")
    shot(page, "setup")
    page.click("#f-setup button[type=submit]")
    toast_ok(page)
    rnd = runner.state()["round"]
    assert rnd["players"] == h.PLAYERS and rnd["format"] == {"kind": "deals", "deals": 2}
    assert rnd["teams"] == {"EW": "江苏", "NS": "淮安"}

    # The cut: one tap on the card South cut (a 7: the first drawer is counted from South).
    page.wait_for_selector('#next-step .steps[data-step="cutting"]')
    page.click('#step-cut [data-pick="7s"]')
    toast_ok(page)
    assert runner.state()["first_cut"]["card"] == "7s"
    page.wait_for_selector('#next-step .steps[data-step="drawing"]')
    page.click("#next-step .step-draw")
    toast_ok(page)
    deal = runner.state()["deal"]
    assert deal["phase"] == "play"
    leader = deal["turn"]

    # Play for the leader by tapping two cards, then pass for the next seat with one tap.
    page.wait_for_selector("#step-play")
    page.click("#step-play .pick-open")  # the 54 cards are folded until asked for
    page.click('#step-play [data-pick="3s"]')
    page.click('#step-play [data-pick="3h"]')
    assert page.input_value("#step-play input") == "3s 3h"
    shot(page, "play-on-behalf")
    page.click("#step-play button[type=submit]")
    toast_ok(page)
    st = runner.state()
    assert st["deal"]["trick"]["plays"][0]["cards"] == ["3s", "3h"]
    assert st["deal"]["trick"]["plays"][0]["seat"] == leader
    nxt = st["deal"]["turn"]
    page.wait_for_selector('#trick-plays .play[data-seq] [data-card="3h"]')
    page.click("#next-step .step-pass")
    toast_ok(page)
    plays = runner.state()["deal"]["trick"]["plays"]
    assert plays[-1] == {**plays[-1], "seat": nxt, "pass": True}
    events = runner.events()
    assert all(e["source"] == "panel" for e in events)
    assert [e["type"] for e in events] == ["round_set_up", "first_cut_recorded", "drawing_finished",
                                           "cards_played", "passed"]
    shot(page, "round-started")


def test_next_step_box_when_the_first_state_comes_before_the_panel_script(page, app, runner, serve_app, h):
    """The stream starts in table.js; on a loaded machine its first state (the snapshot) can be
    handled while the browser still waits for panel_actions.js. A fresh table sends no other state,
    so the next-step box must be drawn from the state already shown when the script arrives."""
    srv = serve_app(app)
    page.goto(f"{srv.url}/auth/login")
    page.fill("#username", "rita")
    page.fill("#password", h.PASSWORD)
    page.click("#login-submit")
    held: list = []

    def hold(route) -> None:  # panel_actions.js is held back until the snapshot has been shown
        held.append(route)

    page.route("**/static/panel_actions.js*", hold)
    page.goto(f"{srv.url}/tables/1", wait_until="commit")
    page.wait_for_selector('#app[data-last-seq="0"]', state="attached")
    for _ in range(200):  # the request is routed as Playwright dispatches events (usually already)
        if held:
            break
        page.wait_for_timeout(50)
    assert held and page.query_selector("#next-step .steps") is None
    held[0].continue_()
    page.wait_for_selector('#next-step .steps[data-step="none"]', timeout=15_000)


def test_every_referee_event_has_a_form(page, app, runner, serve_app, h):
    """Each event type the API lets a referee enter has its form (or its buttons) on the panel."""
    from table_service.engine.roles import ACTION_ROLES

    h.setup_deal(runner)
    play = h.play(runner, "N", ["3s"])
    srv = serve_app(app)
    h.open_table(page, srv.url, "chen", h.PASSWORD)
    forms = set(page.eval_on_selector_all("form.action[data-type]", "fs => fs.map(f => f.dataset.type)"))
    on_cards = {"flag_confirmed", "flag_dismissed", "play_confirmed", "passed"}  # flag/question buttons, pass
    if page.query_selector("#stop-play"):
        on_cards.add("referee_called")  # 叫停 / Stop play, by the flags
    # A play is corrected, its wild card's pattern stated, or it is voided by tapping it (no event
    # number typed): the dialog holds the three, the rank chosen from a list.
    page.click(f'#deal-log .play[data-seq="{play.seq}"]')
    page.wait_for_selector("#play-dialog:not([hidden]) .dlg-correct")
    assert page.query_selector("#play-dialog .dlg-reading select.reading-rank") is not None
    assert page.query_selector("#play-dialog .dlg-void") is not None
    on_cards |= {"play_corrected", "reading_declared", "event_voided"}
    # A wrong tribute found in play is corrected from its flag or the tribute's row (no tribute in this
    # first deal: test_panel_taps_browser.py::test_a_wrong_tribute_flagged_in_play_is_corrected_by_taps).
    assert page.evaluate("typeof GT.openTributeCorrection") == "function"
    on_cards.add("tribute_corrected")
    missing = set(ACTION_ROLES) - forms - on_cards
    assert not missing, f"no form for {sorted(missing)}"
    assert not page.query_selector_all('form.action input[name="ref"]')  # no form asks for an event number


def test_camera_question_answered_from_its_picture(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    h.play(runner, "N", ["3s"])
    q = h.play(runner, "W", ["5h"], confidence=[0.9999], uncertain=True, crop=h.crop_data_url(["5d"]),
               reasons=["5h 花色存疑 / suit of 5h in doubt (5d?)"], candidates=[["5h"], ["5d"]])
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    card = f"#question-{q.seq}"
    page.wait_for_function(f"document.querySelector('{card} img.crop')?.naturalWidth > 100")
    assert "suit of 5h in doubt" not in page.inner_text(card)  # one language per view
    assert "花色存疑" in page.inner_text(f"{card} .q-reasons")
    page.wait_for_selector(f'{card} button.candidate[data-cards="5d"]')
    # The confirm button does not cover the picture.
    img = page.locator(f"{card} img.crop").bounding_box()
    for sel in (f"{card} button.candidate >> nth=0", f"{card} button.candidate >> nth=1"):
        b = page.locator(sel).bounding_box()
        assert b["y"] >= img["y"] + img["height"] - 1 or b["x"] >= img["x"] + img["width"], (sel, b, img)
    shot(page, "question")
    page.click(f'{card} button.candidate[data-cards="5d"]')
    page.wait_for_selector('#trick-plays [data-card="5d"]')
    assert page.query_selector(card) is None
    ev = runner.events()[-1]
    assert ev["type"] == "play_corrected" and ev["data"] == {"ref": q.seq, "cards": ["5d"]}


def test_a_flag_asks_for_its_picture_only_where_its_event_carries_one(page, app, runner, serve_app, h):
    """Every open flag asked ``/events/<seq>/crop`` for its picture: a flag raised by a read without one
    (or a tap, a tick) got a 404, in the service's log and the browser's console. The flag says whether
    its event carries one (``picture``), and only then is the picture asked for."""
    h.setup_deal(runner)  # North leads
    bare = h.play(runner, "E", ["9c"])  # out of turn, read without a picture
    pictured = h.play(runner, "W", ["8c"], crop=h.crop_data_url(["8c"]))  # out of turn, with its picture
    asked: list[str] = []
    missing: list[str] = []
    page.on("request", lambda r: asked.append(r.url) if r.url.endswith("/crop") else None)
    page.on("response", lambda r: missing.append(r.url) if r.status == 404 else None)
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.wait_for_selector(f'#flag-F{bare.seq}[data-status="open"]')
    page.wait_for_function(f"document.querySelector('#flag-F{pictured.seq} img.crop')?.naturalWidth > 100")
    assert page.query_selector(f"#flag-F{bare.seq} img.crop") is None
    assert asked == [f"{srv.url}/api/tables/1/events/{pictured.seq}/crop"]
    assert missing == []


def test_tap_a_play_in_the_record_to_correct_it(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    wrong = h.play(runner, "N", ["8s", "8h"])
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.click(f'#deal-log .play[data-seq="{wrong.seq}"]')
    page.wait_for_selector(f'#play-dialog:not([hidden]) .dialog-box[data-seq="{wrong.seq}"]')
    page.fill("#play-dialog input.correct-cards", "")
    page.click('#play-dialog .dlg-correct [data-pick="8c"]')
    page.click('#play-dialog .dlg-correct [data-pick="8d"]')
    shot(page, "tap-to-correct")
    page.click("#play-dialog .dlg-correct button[type=submit]")
    page.wait_for_selector("#play-dialog", state="hidden")
    page.wait_for_selector('#deal-log [data-card="8d"]')
    assert runner.state()["deal"]["trick"]["plays"][0]["cards"] == ["8c", "8d"]
    ev = runner.events()[-1]
    assert ev["type"] == "play_corrected" and ev["data"]["ref"] == wrong.seq


def test_penalty_ladder_from_the_flag(page, app, runner, serve_app, h):
    """Two warnings for the same side make a violation (the engine's ladder); both from a tap."""
    h.setup_deal(runner)
    first = h.play(runner, "E", ["9c"])  # out of turn: N leads
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.click(f"#flag-F{first.seq} button.confirm")
    page.wait_for_selector(f'#flag-F{first.seq}[data-status="confirmed"]')
    page.click(f"#flag-F{first.seq} button.pen-warning")
    page.wait_for_selector('#penalties .ladder[data-side="EW"] .rung-warning[data-n="1"]')
    second = h.play(runner, "W", ["9d"])
    page.wait_for_selector(f'#flag-F{second.seq}[data-status="open"]')
    # Evidence is readable: seats by name, no raw milliseconds.
    text = page.inner_text(f"#flag-F{second.seq} .evidence")
    assert "北" in text and not re.search(r"\d{10,}", text)
    page.click(f"#flag-F{second.seq} button.pen-warning")
    page.wait_for_selector('#penalties .ladder[data-side="EW"] .rung-violation[data-n="1"]')
    # The penalty upheld the flag: one undo on its card, named for what it undoes (two, "撤销" and
    # "撤销裁定", undid the same event: the usability walk of 2026-12-06).
    page.wait_for_selector(f'#flag-F{second.seq}[data-status="confirmed"]')
    undos = page.eval_on_selector_all(f"#flag-F{second.seq} button", "bs => bs.map(b => b.innerText)")
    assert [u for u in undos if "撤销" in u] == ["撤销处罚"], undos
    pen = runner.state()["penalties"]
    assert pen["EW"]["violations"] == 1 and [r["flag"] for r in pen["records"]] == [f"F{first.seq}", f"F{second.seq}"]
    shot(page, "ladder")


def test_reload_mid_countdown_shows_the_engines_deadline(page, app, runner, serve_app, h):
    h.setup_deal(runner)  # North to lead, a 40 s first-lead countdown from the drawing
    srv = serve_app(app)
    h.open_table(page, srv.url, "vera", h.PASSWORD)
    time.sleep(3.0)  # the last event is now 3 s old
    page.reload()
    page.wait_for_selector('#app[data-connected="1"]')
    page.wait_for_selector('html[data-clock-synced="1"]')
    page.wait_for_selector("#timer-N[data-left]")
    deadline = runner.state()["deal"]["timers"]["N"]["deadline_ms"]
    before = (deadline - time.time() * 1000) / 1000
    # Redraw the countdown now (what the panel's 100 ms ticker does) and read it in the same
    # turn: a ticker run late on a loaded machine leaves a text older than `before`.
    shown = page.evaluate("(() => { GT.clockListeners.forEach(fn => fn());"
                          " return document.getElementById('timer-N').textContent; })()")
    after = (deadline - time.time() * 1000) / 1000
    value = float(re.search(r"[\d.]+", shown).group(0))
    # The engine's seconds left at the moment the text was read lie between `after` and `before`.
    assert after - 0.5 < value < before + 0.5, (shown, before, after)
    assert before < 38.0  # not a countdown restarted from the last event's time (40 s)


def test_english_mode_is_one_language(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    h.play(runner, "N", ["3s", "3h"])
    h.play(runner, "E", ["9c"])  # out of turn: a flag
    srv = serve_app(app)
    h.open_table(page, srv.url, "chen", h.PASSWORD)
    page.click("#lang-toggle")
    page.wait_for_selector("#flags .flag-rule")
    page.focus("#f-play [name=cards]")  # unfold a picker: its jokers are labelled in English too
    for sel in ("#actions", "#flags", "#trick", "#penalties", "#next-step", "#round-info", "#deal-log"):
        text = page.inner_text(sel)
        assert not CJK.search(text.replace("张伟", "").replace("李娜", "").replace("王强", "").replace("赵敏", "")), (sel, text)
    assert "pair" in page.inner_text("#trick")
    assert "out of turn" in page.inner_text("#flags")
    assert "chief referee only" in page.inner_text("#penalty-level")
    shot(page, "english")


def test_camera_health_is_shown_as_it_changes(page, app, runner, serve_app, h):
    """The camera's health (service: ``runner.camera_health``) reaches the panel without an event."""
    health = {"state": "reading", "lag_s": 0.1, "last_read_ms": None, "dropped": 0,
              "text": "摄像头正常读牌 / camera reading"}
    runner.camera_health = lambda: dict(health)
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "vera", h.PASSWORD)
    page.wait_for_selector('#camera-health[data-state="reading"]')
    health.update(state="not_reading", lag_s=12.5, text="摄像头 12 秒未读牌 / camera not reading for 12 s")
    page.wait_for_selector('#camera-health[data-state="not_reading"]', timeout=8_000)
    assert page.inner_text("#camera-health") == "摄像头 12 秒未读牌"
    shot(page, "camera-not-reading")


def test_the_deck_the_camera_reads_with_is_on_the_panel(page, app, runner, serve_app, h):
    """After a restart or the hub's deck the referee sees whether the camera knows the deck, and
    reads the fan check's verdict with a tap."""
    from vision import enroll
    from vision.artwork import load_deck
    from vision.geometry import default_layout
    from vision.watcher import TableWatcher

    watcher = TableWatcher(default_layout())
    runner.camera_health = lambda: {"state": "reading", "lag_s": 0.1, "last_read_ms": None, "dropped": 0,
                                    "text": "摄像头读牌中 / camera reading", "deck": watcher.deck_status()}
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "vera", h.PASSWORD)
    page.wait_for_selector("#camera-deck:not([hidden])")
    assert page.inner_text("#camera-deck").startswith("未登记牌组，边打边学")
    e = enroll({"Kd": load_deck("anglo").bgr("Kd")}, px_per_mm=6.0, rows=4, check_plays=0)
    e.check = {"plays": 90, "asked": 30, "cards": 300, "cards_right": 250, "silent": 0, "doubts": 40,
               "suit_only_doubts": 35, "doubted_pairs": [["7s", "7c", 12]]}
    watcher.enrollment = e
    page.wait_for_selector("#camera-deck.warn", timeout=8_000)
    assert page.inner_text("#camera-deck") == "已登记牌组（1 张），扇形检查有警告"
    told: list[str] = []
    page.once("dialog", lambda d: (told.append(d.message), d.dismiss()))
    page.click("#camera-deck")
    assert told and "约 33% 需裁判确认" in told[0] and "7s/7c" in told[0]


def test_a_whole_short_round_from_the_panel(page, app, runner, serve_app, h):
    """A one-deal round with one card a hand (a short deal, so the test stays quick): every step
    from the panel, to the result and both signatures."""
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.click("#next-step .step-setup")
    for seat, name in h.PLAYERS.items():
        page.fill(f'#f-setup [name="players.{seat}"]', name)
    page.select_option('#f-setup [name="format.kind"]', "deals")
    page.fill('#f-setup [name="format.deals"]', "1")
    page.click("#f-setup button[type=submit]")
    toast_ok(page)
    page.click('#step-cut [data-pick="7s"]')
    toast_ok(page)
    for seat in "ESWN":
        page.fill(f'#f-draw [name="counts.{seat}"]', "1")
    page.click("#f-draw button[type=submit]")
    toast_ok(page)
    wrong = next(f for f in runner.state()["flags"] if f["rule"] == "wrong_count")
    page.click(f"#flag-{wrong['id']} button.dismiss")
    toast_ok(page)
    for card in ("3s", "4s", "5s"):
        seat = runner.state()["deal"]["turn"]
        page.wait_for_selector("#step-play")
        page.click("#step-play .pick-open")  # folded until asked for
        page.click(f'#step-play [data-pick="{card}"]')
        page.click("#step-play button[type=submit]")
        toast_ok(page)
        assert runner.state()["deal"]["by_seat"][seat] == [card]
    st = runner.state()
    assert st["round"]["status"] == "over" and st["result"] is not None
    page.wait_for_selector('#next-step .steps[data-step="over"]')
    for _side in ("EW", "NS"):  # one tap each in the next-step box
        page.click("#next-step .step-sign >> nth=0")
        toast_ok(page)
    assert runner.state()["signatures"] == {"EW": True, "NS": True}
    assert {e["source"] for e in runner.events()} == {"panel"}
    shot(page, "round-over")


def test_a_doubted_tribute_is_entered_as_read_with_one_tap(page, app, runner, serve_app, h):
    """The camera doubted E's tribute card and called the referee with its reading and picture:
    one tap on the call enters the tribute as read and closes the call."""
    one_each = {"E": 1, "S": 1, "W": 1, "N": 1}
    for ev in (
        {"type": "round_set_up", "source": "panel", "role": "referee",
         "data": {"players": h.PLAYERS, "format": {"kind": "deals", "deals": 3}}},
        {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
        {"type": "drawing_finished", "source": "panel", "data": {"counts": one_each}},
    ):
        assert runner.submit(ev).accepted
    for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s")):
        h.play(runner, seat, [card])
    assert runner.submit({"type": "drawing_finished", "source": "panel", "data": {"counts": one_each}}).accepted
    assert runner.state()["deal"]["phase"] == "tribute"  # E, last, owes N
    call = runner.submit({"type": "referee_called", "source": "camera",
                          "data": {"seat": "E", "card": "Kd", "reason": "进贡 牌识别不确定 / card read uncertain: Kd?",
                                   "crop": h.crop_data_url(["Kd"])}})
    assert call.accepted, call.error
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    flag = f"#flag-F{call.seq}"
    page.wait_for_function(f"document.querySelector('{flag} img.crop')?.naturalWidth > 50")
    assert "K♦" in page.inner_text(f"{flag} button.as-read")  # the card as a card
    shot(page, "tribute-as-read")
    page.click(f"{flag} button.as-read")
    page.wait_for_selector(f'{flag}[data-status="dismissed"]')
    st = runner.state()
    assert [(t["from"], t["card"]) for t in st["deal"]["tributes"]] == [("E", "Kd")]
    assert st["deal"]["phase"] == "return"
    assert page.query_selector(f"{flag} button.as-read") is None


def test_an_event_s_table_offers_no_round_the_hub_did_not_draw(page, app, runner, serve_app, h):
    """The tap audit: after the event's last round, a table linked to the hub still offered one-tap
    「同样选手再开一轮」, a round the hub never drew (its result refused, its players' time spent).
    An event's table says where its next round comes from; a table of its own keeps the button."""
    from types import SimpleNamespace

    from table_service.web.tables import web_state

    h.setup_deal(runner)
    assert runner.submit({"type": "round_ended", "source": "panel", "role": "chief", "data": {}}).accepted
    for side in ("NS", "EW"):
        runner.submit({"type": "score_sheet_signed", "source": "panel", "role": "referee", "data": {"side": side}})
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.wait_for_selector("#next-step .step-same")  # a table of its own: the same players, one tap
    web_state(app).tables["1"].hub_link = SimpleNamespace(assignment=None, result_ack=None, is_connected=True)
    page.reload()
    page.wait_for_selector("#next-step .step-hub")
    assert page.query_selector("#next-step .step-same") is None
    assert "赛事中心" in page.inner_text("#next-step .step-hub")


@pytest.mark.parametrize("viewport", [(1024, 768), (390, 844)], ids=["tablet", "phone"])
def test_every_control_a_finger_hits_is_at_least_44_px(viewport, open_page, app, runner, serve_app, h,
                                                      small_controls):
    """The tap audit measured the flag buttons at 38 px, undo 32, the picker's cards 33, the bar's
    links 19: too small for a finger on a tablet under time pressure. The second audit (s35): the
    记分表 and 记录 links 19 px, the set-up form's fields 30 and lists 29, the seat checkboxes 13 (their
    labels are the target), the flag list's heading 25, the camera question's 其他 field 24, and on a
    phone the bar's 账号 link 31 px wide. The whole page, at a tablet's size and a phone's."""
    page, errors = open_page(*viewport, mobile=viewport[0] < 500)
    h.setup_deal(runner)
    h.play(runner, "E", ["9c"])  # out of turn: a flag with its buttons
    h.play(runner, "N", ["3s"])
    h.play(runner, "W", ["5h"], confidence=[0.9999], uncertain=True, crop=h.crop_data_url(["5d"]),
           reasons=["5h 花色存疑 / suit of 5h in doubt (5d?)"], candidates=[["5h"], ["5d"]])  # a camera question
    srv = serve_app(app)
    h.open_table(page, srv.url, "chen", h.PASSWORD)  # the chief: the bar has the 账号 link too
    page.wait_for_selector(".flag button.confirm")
    page.wait_for_selector("#questions .q-other input")
    page.wait_for_selector("details.flag-group > summary")
    for opener in page.query_selector_all(".pick-open"):
        if opener.is_visible():
            opener.click()  # the pickers' cards, unfolded
    page.wait_for_selector("button.pick")
    for part in ("#nav-accounts", "#scoresheet-link", "#record-link", "#f-setup select", "#f-setup input",
                 "#f-anti label.inline-check"):
        assert page.query_selector(part), part  # each part the audit named is on the page measured
    small = small_controls(page, height_only="button.pick")  # 13 cards a row: 44 px tall, narrower
    assert small == [], small
    assert errors == []


def test_card_fields_filled_from_a_picker_raise_no_on_screen_keyboard(page, app, runner, serve_app, h):
    """The tap audit: a card field came first and a tap on it opened the tablet's keyboard over the
    picker. Every field a picker fills asks for no keyboard (inputmode=none); a plugged-in one still types."""
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "chen", h.PASSWORD)
    page.wait_for_selector("#next-step .step-cards")
    fields = page.evaluate("""() => [...document.querySelectorAll('.picker')].map(p => {
        const f = p.closest('form'); const i = f && f.querySelector('[name="' + p.dataset.for + '"]');
        return i ? [f.id || f.className, i.getAttribute('inputmode')] : null }).filter(Boolean)""")
    assert fields and all(mode == "none" for _, mode in fields), fields


def test_a_refusal_in_english_names_the_event_in_words(page, app, runner, serve_app, h):
    """The audit: the panel in English said "Rejected: round_set_up: the current round has no result
    yet" (the event's internal name)."""
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.click("#lang-toggle")
    for seat, name in h.PLAYERS.items():
        page.fill(f'#f-setup [name="players.{seat}"]', name)
    page.click("#f-setup button[type=submit]")
    page.wait_for_selector(".toast.show.bad")
    said = page.inner_text("#toast")
    assert "New round: the current round has no result yet" in said and "round_set_up" not in said, said


def test_the_hubs_assignment_and_the_set_up_form_name_the_ruleset(page, app, runner, serve_app, h):
    """The audit: the assignment card read "jiangsu-2013", and so did the set-up form's list."""
    from types import SimpleNamespace

    from table_service.web.tables import web_state

    assignment = {"event": "ev", "event_name": "江苏公开赛", "round": 1, "table": "1",
                  "teams": {"NS": "T1", "EW": "T2"}, "team_names": {"NS": "南京队", "EW": "常州队"},
                  "players": h.PLAYERS, "ruleset": {"preset": "jiangsu-2013", "options": {}},
                  "format": {"kind": "deals", "deals": 2}}
    web_state(app).tables["1"].hub_link = SimpleNamespace(assignment=assignment, result_ack=None, is_connected=True)
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita", h.PASSWORD)
    page.wait_for_selector("#assign-card")
    card = page.inner_text("#assign-card")
    assert "江苏 2013" in card and "jiangsu-2013" not in card, card
    listed = page.eval_on_selector_all('#f-setup [name="ruleset"] option', "os => os.map(o => o.textContent)")
    assert listed == ["江苏 2013", "淮安 2017", "全国 2022"]
    page.click("#lang-toggle")
    page.wait_for_function("document.getElementById('assign-card').innerText.includes('Jiangsu 2013')")
    assert page.eval_on_selector('#f-setup [name="ruleset"] option', "o => o.textContent") == "Jiangsu 2013"
