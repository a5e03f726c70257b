"""The panel audit's defects, each driven in a real browser (Playwright, Debian's Chromium) against
the real cheroot server and a real TableRunner, as a referee under time pressure would meet them:
ending the round asks first; a flag takes one penalty however often it is tapped; a penalty,
tribute, report card or ruling is undone from its own row; the next step waits for an open camera
question; a phone shows at the top what is open; a foul is one tap; and the texts the audit found
raw are in the view's language. Screenshots go to test-artifacts/web/audit-*.png."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import pytest

from table_service.web import users

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts" / "web"


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"audit-{name}.png"), full_page=False)


def toast_ok(page: Any) -> str:
    """The engine's verdict came back as a green toast; returns its text (then clears it)."""
    page.wait_for_selector(".toast.show", timeout=25_000)
    cls = page.get_attribute("#toast", "class")
    text = page.inner_text("#toast")
    assert "ok" in cls, text
    page.evaluate("document.getElementById('toast').className = 'toast'")
    return text


def submit(runner: Any, etype: str, data: dict[str, Any], *, source: str = "panel", role: str = "referee") -> Any:
    res = runner.submit({"type": etype, "source": source, "role": role, "data": data})
    assert res.accepted, res.error
    return res


def short_deal(runner: Any, h: Any, cards: int = 5) -> None:
    """A round and a first deal of `cards` a hand (North leads: cut card 7s)."""
    submit(runner, "round_set_up", {"players": h.PLAYERS, "format": {"kind": "deals", "deals": 3}})
    submit(runner, "first_cut_recorded", {"card": "7s"})
    submit(runner, "drawing_finished", {"counts": dict.fromkeys("ESWN", cards)})


def last_of(runner: Any, etype: str) -> dict[str, Any]:
    return [e for e in runner.events() if e["type"] == etype][-1]


# ----------------------------------------------------------------------------- 1. ending the round


def test_ending_the_round_needs_a_reason_and_a_confirmation(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "chen")  # ending a round is the chief referee's (engine/roles.py)
    n_before = len(runner.events())
    # No reason: the browser does not even send the form.
    assert page.evaluate("document.querySelector('#f-end [name=reason]').required")
    page.click("#f-end button[type=submit]")
    page.wait_for_timeout(400)
    assert page.query_selector("#play-dialog .confirm-box") is None
    assert len(runner.events()) == n_before
    # With a reason it asks, naming the round and that it cannot be undone; cancel keeps the round.
    page.fill("#f-end [name=reason]", "时间到")
    page.click("#f-end button[type=submit]")
    page.wait_for_selector("#play-dialog:not([hidden]) .confirm-box")
    text = page.inner_text("#play-dialog .confirm-box")
    assert "第 1 轮" in text and "不能撤销" in text, text
    shot(page, "end-round-confirm")
    page.click("#play-dialog .confirm-cancel")
    page.wait_for_selector("#play-dialog", state="hidden")
    page.wait_for_timeout(300)
    assert len(runner.events()) == n_before and runner.state()["round"]["status"] != "over"
    # Asked again and confirmed: the round ends, with the reason.
    page.click("#f-end button[type=submit]")
    page.click("#play-dialog .confirm-ok")
    toast_ok(page)
    ev = last_of(runner, "round_ended")
    assert ev["data"] == {"reason": "时间到"}
    assert runner.state()["round"]["status"] == "over"


# ----------------------------------------------------------------------------- 2. one penalty a flag


def test_a_flag_takes_one_penalty_however_often_it_is_tapped(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    wrong = h.play(runner, "E", ["9c"])  # out of turn: North leads
    flag = f"#flag-F{wrong.seq}"
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita")
    page.wait_for_selector(f"{flag} button.pen-warning")
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.post_data or "") if r.url.endswith("/actions") else None)
    # A double tap (two clicks in one turn of the page, before any answer): one request.
    page.evaluate(f"(() => {{ const b = document.querySelector('{flag} button.pen-warning'); b.click(); b.click(); }})()")
    toast = toast_ok(page)
    page.wait_for_timeout(300)
    assert len(posted) == 1 and '"penalty_given"' in posted[0], posted
    pen = runner.state()["penalties"]
    assert [r["flag"] for r in pen["records"]] == [f"F{wrong.seq}"], pen["records"]
    assert pen["EW"] == {"warnings": 1, "violations": 0, "fouls": 0}
    seq = pen["records"][0]["seq"]
    assert f"警告 #{seq}" in toast, toast  # the toast names the penalty given
    # The flag shows the penalty given, and no penalty button any more.
    page.wait_for_selector(f"{flag} .flag-penalty")
    assert "警告" in page.inner_text(f"{flag} .flag-penalty")
    assert page.query_selector_all(f"{flag} button.pen-warning, {flag} button.pen-violation, {flag} button.to-penalty") == []
    # The penalty upholds the flag (engine generation 6): no second tap on 确认, and no 驳回 of a flag
    # a penalty stands on (refused since generation 5).
    page.wait_for_selector(f'{flag}[data-status="confirmed"]')
    assert page.query_selector_all(f"{flag} button.confirm, {flag} button.dismiss") == []
    assert next(f for f in runner.state()["flags"] if f["id"] == f"F{wrong.seq}")["status"] == "confirmed"
    page.wait_for_timeout(500)
    assert len(runner.state()["penalties"]["records"]) == 1
    shot(page, "one-penalty")


# ----------------------------------------------------------------------------- 3. undo from the row


def test_undo_buttons_void_the_rows_own_event(page, app, runner, serve_app, h):
    from table_service.engine.events import VOIDABLE_TYPES

    short_deal(runner, h)
    wrong_count = next(f for f in runner.state()["flags"] if f["rule"] == "wrong_count")
    submit(runner, "flag_dismissed", {"flag": wrong_count["id"]})
    h.play(runner, "N", ["3s"])
    submit(runner, "passed", {"seat": "W"})
    h.play(runner, "S", ["4s"])  # S at 4: a report is due (engine generation 9 refuses one before a play)
    report = submit(runner, "report_pressed", {"seat": "S"})
    wrong = h.play(runner, "W", ["9c"])  # out of turn (E is to follow)
    ruling = submit(runner, "flag_confirmed", {"flag": f"F{wrong.seq}"})
    penalty = submit(runner, "penalty_given", {"side": "EW", "level": "warning", "seat": "W",
                                               "article": "越序出牌", "flag": f"F{wrong.seq}"})
    late = submit(runner, "late_arrival_recorded", {"side": "NS", "minutes": 2})
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita")

    # The page offers undo for exactly the types the engine lets a referee void.
    assert sorted(page.evaluate("GT.VOIDABLE")) == sorted(VOIDABLE_TYPES)
    pen_row = f'#penalties .penalty-row[data-seq="{penalty.seq}"]'
    page.wait_for_selector(f"{pen_row} button.undo")
    page.wait_for_selector(f'#reports .report-row[data-seq="{report.seq}"] button.undo')
    page.wait_for_selector(f"#flag-F{wrong.seq} .flag-ruling button.undo")
    # A late arrival's penalty is no voidable event: no button on its row.
    page.evaluate(f"GT.eventDetail({late.seq}).then(() => new Promise(r => setTimeout(r, 50)))")
    assert page.query_selector(f'#penalties .penalty-row[data-seq="{late.seq}"]') is not None
    assert page.query_selector(f'#penalties .penalty-row[data-seq="{late.seq}"] button.undo') is None
    shot(page, "undo-rows")

    # Undo the penalty: asked first (cancel does nothing), then voided with the row's number.
    n = len(runner.events())
    page.click(f"{pen_row} button.undo")
    page.wait_for_selector("#play-dialog:not([hidden]) .confirm-box")
    assert f"#{penalty.seq}" in page.inner_text("#play-dialog .confirm-box")
    page.click("#play-dialog .confirm-cancel")
    page.wait_for_timeout(300)
    assert len(runner.events()) == n
    page.click(f"{pen_row} button.undo")
    page.click("#play-dialog .confirm-ok")
    toast_ok(page)
    ev = last_of(runner, "event_voided")
    assert ev["data"]["ref"] == penalty.seq and ev["data"]["reason"].strip()
    assert [r["seq"] for r in runner.state()["penalties"]["records"]] == [late.seq]
    page.wait_for_selector(pen_row, state="detached")
    # The flag may be penalised again now that its penalty is gone.
    page.wait_for_selector(f"#flag-F{wrong.seq} button.pen-warning")

    # Undo the report card.
    page.click(f'#reports .report-row[data-seq="{report.seq}"] button.undo')
    page.click("#play-dialog .confirm-ok")
    toast_ok(page)
    assert last_of(runner, "event_voided")["data"]["ref"] == report.seq
    assert "S" not in runner.state()["deal"]["reports"]

    # Undo the ruling: the flag is open again.
    page.click(f"#flag-F{wrong.seq} .flag-ruling button.undo")
    page.click("#play-dialog .confirm-ok")
    toast_ok(page)
    assert last_of(runner, "event_voided")["data"]["ref"] == ruling.seq
    page.wait_for_selector(f'#flag-F{wrong.seq}[data-status="open"]')


def test_no_undo_for_an_earlier_deals_event_of_the_same_millisecond(page, make_app, make_runner, serve_app, h):
    """"This deal" is the engine's bound (``deal.first_seq``), not a time: with a clock that has not
    moved, deal 1's penalty bears the very time deal 2 started at, and still gets no undo button."""
    from tests.web.conftest import FakeClockMs

    runner = make_runner(clock=FakeClockMs())
    app = make_app(TABLES={"1": runner})
    short_deal(runner, h, cards=1)
    old = submit(runner, "penalty_given", {"side": "NS", "level": "warning", "seat": "N", "article": "测试"})
    for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s")):
        h.play(runner, seat, [card])
    drawing = submit(runner, "drawing_finished", {"counts": dict.fromkeys("ESWN", 1)})
    deal = runner.state()["deal"]
    assert deal["first_seq"] == drawing.seq > old.seq and next(e for e in runner.events() if e["seq"] == old.seq)["t_ms"] == deal["started_ms"]
    new = submit(runner, "penalty_given", {"side": "EW", "level": "warning", "seat": "E", "article": "测试"})
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita")
    page.wait_for_selector(f'#penalties .penalty-row[data-seq="{new.seq}"] button.undo')
    page.evaluate(f"GT.eventDetail({old.seq}).then(() => new Promise(r => setTimeout(r, 50)))")
    assert page.query_selector(f'#penalties .penalty-row[data-seq="{old.seq}"]') is not None
    assert page.query_selector(f'#penalties .penalty-row[data-seq="{old.seq}"] button.undo') is None


def test_undo_a_tribute_and_no_undo_for_an_earlier_deal(page, app, runner, serve_app, h):
    short_deal(runner, h, cards=1)
    old = submit(runner, "penalty_given", {"side": "NS", "level": "warning", "seat": "N", "article": "测试"})
    for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s")):
        h.play(runner, seat, [card])
    submit(runner, "drawing_finished", {"counts": dict.fromkeys("ESWN", 1)})
    assert runner.state()["deal"]["phase"] == "tribute"  # E, last, owes N
    trib = submit(runner, "tribute_given", {"seat": "E", "card": "Kd"})
    assert runner.state()["deal"]["phase"] == "return"
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita")
    row = f'#tribute .tribute-row[data-seq="{trib.seq}"]'
    page.wait_for_selector(f"{row} button.undo")
    # The penalty of deal 1 is no event of this deal any more: the engine would refuse it.
    page.evaluate(f"GT.eventDetail({old.seq}).then(() => new Promise(r => setTimeout(r, 50)))")
    assert page.query_selector(f'#penalties .penalty-row[data-seq="{old.seq}"]') is not None
    assert page.query_selector(f'#penalties .penalty-row[data-seq="{old.seq}"] button.undo') is None
    page.click(f"{row} button.undo")
    page.wait_for_selector("#play-dialog:not([hidden]) .confirm-box")
    assert "K♦" in page.inner_text("#play-dialog .confirm-box")  # the card as a card, not its code
    page.click("#play-dialog .confirm-ok")
    toast_ok(page)
    assert last_of(runner, "event_voided")["data"]["ref"] == trib.seq
    st = runner.state()
    assert st["deal"]["phase"] == "tribute" and st["deal"]["tributes"] == []
    page.wait_for_selector(row, state="detached")


# ----------------------------------------------------------------------------- 4. the camera question first


def test_next_step_waits_for_the_camera_question(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    h.play(runner, "N", ["3s"])
    q = h.play(runner, "W", ["5h"], confidence=[0.4], uncertain=True)
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita")
    page.wait_for_selector("#next-step .step-question")
    assert "先答复识别存疑" in page.inner_text("#next-step")
    assert page.query_selector("#next-step .step-pass") is None
    assert page.query_selector("#step-play") is None
    page.click("#next-step .step-question")
    page.wait_for_function(f"(() => {{ const r = document.getElementById('question-{q.seq}').getBoundingClientRect();"
                           " return r.top > -2 && r.top < window.innerHeight; })()")
    # Answered: pass and play come back.
    page.click(f"#question-{q.seq} button.candidate.confirm")
    page.wait_for_selector("#next-step .step-pass")
    assert page.query_selector("#next-step .step-question") is None
    assert page.query_selector("#step-play") is not None


# ----------------------------------------------------------------------------- 5. phone and tablet


@pytest.mark.parametrize("size", [(390, 844), (820, 1180)], ids=["phone", "tablet"])
def test_open_flags_and_questions_are_named_at_the_top(open_page, app, runner, serve_app, h, size):
    h.setup_deal(runner)
    h.play(runner, "N", ["3s"])
    h.play(runner, "E", ["9c"])  # out of turn: a flag
    q = h.play(runner, "W", ["5h"], confidence=[0.4], uncertain=True)
    srv = serve_app(app)
    page, errors = open_page(*size)
    h.open_table(page, srv.url, "rita")
    page.wait_for_selector('#pending-badge[data-open="1"][data-questions="1"]')
    assert page.inner_text("#pending-badge") == "待处理 1 · 识别存疑 1"
    box = page.locator("#pending-badge").bounding_box()
    assert box["y"] + box["height"] <= size[1], box  # in the first screen, without scrolling
    shot(page, f"badge-{size[0]}")
    page.click("#pending-badge")
    page.wait_for_function("(() => { const r = document.getElementById('questions-card').getBoundingClientRect();"
                           " return r.top > -2 && r.top < 80; })()")
    # Nothing sits over the card (a table view stuck at the top hid it on a phone).
    hit = page.evaluate("(() => { const r = document.getElementById('questions-card').getBoundingClientRect();"
                        " const e = document.elementFromPoint(r.left + 20, r.top + 20);"
                        " return !!e && !!e.closest('#questions-card'); })()")
    assert hit
    # Answered: the badge says so, and a tap brings the flags into view.
    page.click(f"#question-{q.seq} button.candidate.confirm")
    page.wait_for_selector('#pending-badge[data-questions="0"]')
    page.evaluate("window.scrollTo(0, 0)")
    page.click("#pending-badge")
    page.wait_for_function("(() => { const r = document.getElementById('flags-card').getBoundingClientRect();"
                           " return r.top > -2 && r.top < 80; })()")
    hit = page.evaluate("(() => { const r = document.getElementById('flags-card').getBoundingClientRect();"
                        " const e = document.elementFromPoint(r.left + 20, r.top + 20);"
                        " return !!e && !!e.closest('#flags-card'); })()")
    assert hit
    # The next step's 54 cards are folded: one tap opens them.
    page.wait_for_selector("#step-play")
    assert not page.is_visible('#step-play [data-pick="3h"]')
    page.click("#step-play .pick-open")
    assert page.is_visible('#step-play [data-pick="3h"]')
    assert errors == [], errors


# ----------------------------------------------------------------------------- 6. a foul in one tap


def test_a_foul_is_one_tap_with_the_offenders_next_seat_leading(page, app, runner, serve_app, h):
    from table_service.rules.seats import next_seat

    h.setup_deal(runner)
    wrong = h.play(runner, "E", ["9c"])  # out of turn
    srv = serve_app(app)
    h.open_table(page, srv.url, "chen")
    page.click(f"#flag-F{wrong.seq} button.to-penalty")
    assert page.input_value("#penalty-level") == "foul"
    assert page.input_value("#penalty-next-leader") == next_seat("E") == "N"
    assert "下家" in page.inner_text("#next-leader-hint")  # the rule, beside the field
    shot(page, "foul-form")
    page.click("#penalty-submit")
    toast = toast_ok(page)
    assert "犯规" in toast
    ev = last_of(runner, "penalty_given")
    assert ev["data"]["level"] == "foul" and ev["data"]["next_leader"] == "N"
    st = runner.state()
    assert st["penalties"]["records"][-1]["level"] == "foul"
    assert st["deal"]["phase"] == "over" and st["next_deal"]["leader"] == "N"
    # The form is clean for the next penalty: it no longer cites this flag, nor names a leader.
    assert page.input_value("#penalty-flag") == "" and page.input_value("#penalty-next-leader") == ""


def test_a_violation_the_ladder_makes_a_foul_names_the_leader_too(page, app, runner, serve_app, h):
    """The chief's one-tap violation on a side with a violation already is a foul by the ladder:
    it names the next leader (the offender's 下家) so the engine takes it at once."""
    h.setup_deal(runner)
    submit(runner, "penalty_given", {"side": "NS", "level": "violation", "seat": "S", "article": "先前"})
    h.play(runner, "N", ["3s"])
    wrong = h.play(runner, "S", ["9c"])  # out of turn: W is next
    srv = serve_app(app)
    h.open_table(page, srv.url, "chen")
    page.click(f"#flag-F{wrong.seq} button.pen-violation")
    toast = toast_ok(page)
    assert "违例 → 犯规" in toast, toast
    ev = last_of(runner, "penalty_given")
    assert ev["data"]["next_leader"] == "E"  # S's 下家: E → N → W → S → E
    assert runner.state()["penalties"]["records"][-1]["level"] == "foul"


# ----------------------------------------------------------------------------- 7. texts


def test_the_header_names_the_role_in_the_views_language(client, h):
    h.login(client, "rita")
    html = client.get("/tables/1").get_data(as_text=True)
    assert re.search(r'rita · <span data-i18n="role_referee">裁判</span>', html), html[:2000]
    client.set_cookie("lang", "en")
    html = client.get("/tables/1").get_data(as_text=True)
    assert re.search(r'rita · <span data-i18n="role_referee">referee</span>', html)


def _engine_evidence_keys() -> set[str]:
    """Every key the engine puts into a flag's evidence (read from its source)."""
    keys: set[str] = set()
    for path in (ROOT / "table_service" / "engine").glob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            dicts: list[ast.Dict] = []
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "raise_flag":
                if len(node.args) >= 5 and isinstance(node.args[4], ast.Dict):
                    dicts.append(node.args[4])
            elif isinstance(node, ast.AnnAssign | ast.Assign):
                targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
                for t in targets:
                    if isinstance(t, ast.Name) and t.id == "evidence" and isinstance(node.value, ast.Dict):
                        dicts.append(node.value)
                    if isinstance(t, ast.Subscript) and getattr(t.value, "id", None) == "evidence" \
                            and isinstance(t.slice, ast.Constant):
                        keys.add(t.slice.value)
            elif isinstance(node, ast.FunctionDef) and node.name == "_proof_fields":
                dicts += [n.value for n in ast.walk(node) if isinstance(n, ast.Return) and isinstance(n.value, ast.Dict)]
            for d in dicts:
                keys |= {k.value for k in d.keys if isinstance(k, ast.Constant)}
    return keys


def test_every_evidence_key_has_a_label():
    from table_service.web.words import STRINGS

    keys = _engine_evidence_keys()
    assert {"top_seq", "pass", "play_seq", "tribute", "proof_card"} <= keys, keys  # the scan works
    assert sorted(k for k in keys if f"ev_{k}" not in STRINGS) == []


def test_flag_evidence_shows_no_raw_keys(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    h.play(runner, "N", ["9s"])
    low = h.play(runner, "W", ["3s"])  # does not beat: evidence top_seq
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita")
    page.wait_for_selector(f"#flag-F{low.seq} .evidence dt")
    dts = page.eval_on_selector_all(f"#flag-F{low.seq} .evidence dt", "ds => ds.map(d => d.textContent)")
    assert "top_seq" not in dts and "要管的那手" in dts, dts
    assert page.query_selector(f"#flag-F{low.seq} .evidence dd.ev-top_seq a.seq-link") is not None
    # A pass out of turn: evidence "pass".
    passed = submit(runner, "passed", {"seat": "N"})
    page.wait_for_selector(f"#flag-F{passed.seq} .evidence dt")
    dts = page.eval_on_selector_all(f"#flag-F{passed.seq} .evidence dt", "ds => ds.map(d => d.textContent)")
    assert "pass" not in dts and "过牌" in dts, dts


def test_the_exposed_card_form_has_a_card_picker(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita")
    page.select_option("#f-exposed [name=seat]", "E")
    page.focus("#f-exposed [name=card]")
    page.click('#f-exposed [data-pick="Qh"]')
    assert page.input_value("#f-exposed [name=card]") == "Qh"
    page.click("#f-exposed button[type=submit]")
    toast_ok(page)
    assert last_of(runner, "card_exposed")["data"] == {"seat": "E", "card": "Qh"}


class FakeHubLink:
    """What the panel's assignment card reads of the table's MQTT bridge."""

    is_connected = True

    def __init__(self, players: dict[str, str]) -> None:
        self.assignment = {"event": "js", "event_name": "江苏赛", "round": 1, "table": "1",
                           "teams": {"EW": "T1", "NS": "T2"}, "team_names": {"EW": "南京队", "NS": "常州队"},
                           "players": players, "ruleset": {"preset": "jiangsu-2013"},
                           "format": {"kind": "deals", "deals": 2}}
        self.result_ack = {"result_id": "r1", "status": "accepted", "round": 1, "hub_seq": 9}


def test_the_hubs_answer_is_in_words(page, make_app, runner, serve_app, h):
    from table_service.web.tables import attach_table

    app = make_app()
    link = FakeHubLink(h.PLAYERS)
    attach_table(app, "1", runner, hub_link=link)
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita")
    page.wait_for_selector("#assign-card .assign-ack")
    ack = page.inner_text("#assign-card .assign-ack")
    assert ack == "成绩：赛事中心已接收", ack
    assert "accepted" not in page.inner_text("#assign-card")
    assert "第 1 轮" in page.inner_text("#assign-card")
    link.result_ack = {"result_id": "r1", "status": "refused", "reason": "第 1 轮没有 1 号桌 / table 1 is not drawn"}
    page.wait_for_function("document.querySelector('#assign-card .assign-ack')?.dataset.status === 'refused'", timeout=15_000)
    assert page.inner_text("#assign-card .assign-ack") == "成绩：赛事中心拒收 — 第 1 轮没有 1 号桌"


class FakePipeline:
    """A camera pipeline as far as the recalibrate button needs one."""

    def __init__(self) -> None:
        self.asked = 0

    def recalibrate(self) -> None:
        self.asked += 1

    def relearn(self) -> dict[str, int]:
        self.asked += 1
        return {"answers": 3, "sure": 20, "faces": 1}


def test_camera_buttons_only_where_there_is_a_camera(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "chen")  # the chief: both buttons would be theirs
    page.wait_for_selector('html[data-camera="0"]', state="attached")
    page.wait_for_selector("#enroll-open", state="attached")
    page.wait_for_selector("#camera-recalibrate", state="attached")
    page.wait_for_selector("#camera-relearn", state="attached")
    assert not page.is_visible("#enroll-open") and not page.is_visible("#camera-recalibrate")
    assert not page.is_visible("#camera-relearn")


def test_learn_afresh_is_one_tap_and_a_confirmation(page, app, runner, serve_app, h):
    """A different deck at the table: the referee taps 换牌重新学牌, confirms, and the reader forgets."""
    runner.camera_health = lambda: {"state": "reading", "lag_s": 0.1, "last_read_ms": None, "dropped": 0,
                                    "text": "摄像头读牌中 / camera reading"}
    runner.camera_pipeline = pipe = FakePipeline()
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "rita")
    page.wait_for_selector("#camera-relearn", state="visible")
    assert page.inner_text("#camera-relearn") == "换牌重新学牌"
    page.once("dialog", lambda d: d.dismiss())  # cancelled: nothing forgotten
    page.click("#camera-relearn")
    page.wait_for_timeout(300)
    assert pipe.asked == 0
    page.once("dialog", lambda d: d.accept())
    page.click("#camera-relearn")
    page.wait_for_selector('#camera-relearn[data-result="ok"]')
    assert page.inner_text("#camera-relearn") == "已重新开始学牌" and pipe.asked == 1


def test_recalibrate_says_the_real_error(page, app, runner, serve_app, h, users_db):
    runner.camera_health = lambda: {"state": "reading", "lag_s": 0.1, "last_read_ms": None, "dropped": 0,
                                    "text": "摄像头读牌中 / camera reading"}
    runner.camera_pipeline = FakePipeline()
    h.setup_deal(runner)
    srv = serve_app(app)
    h.open_table(page, srv.url, "chen")
    page.wait_for_selector("#camera-recalibrate", state="visible")
    assert page.is_visible("#enroll-open")
    assert page.inner_text("#camera-recalibrate") == "重新标定摄像头"
    # The session ends (a password change, a logout elsewhere): the button says so, not "no camera".
    conn = users.connect(users_db)
    users.close_sessions(conn, "chen")
    conn.close()
    page.once("dialog", lambda d: d.accept())
    page.click("#camera-recalibrate")
    page.wait_for_selector('#camera-recalibrate[data-result="error"]')
    text = page.inner_text("#camera-recalibrate")
    assert text == "未登录或登录已过期，请重新登录", text
    assert "没有摄像头" not in text
    assert runner.camera_pipeline.asked == 0


def test_events_an_older_release_logged_and_this_one_passes_over_are_named(page, make_app, serve_app, h, tmp_path):
    """A table started from an older release's log with a ruling today's rules refuse: the table runs,
    and the panel names the event it passed over (tests/engine/test_older_logs.py has the logs)."""
    import json

    from table_service.store.event_log import EventStore
    from table_service.table.runner import TableRunner

    data = Path(__file__).parents[1] / "engine" / "data" / "logs_of_an_older_release.json"
    db = tmp_path / "old.sqlite3"
    with EventStore(db) as store:
        for ev in json.loads(data.read_text(encoding="utf-8"))["logs"]["call_open_over_deadline_penalised"]:
            store.append(ev)
    runner = TableRunner(db).start()
    try:
        srv = serve_app(make_app(TABLES={"1": runner}))
        h.open_table(page, srv.url, "rita")
        page.wait_for_selector("#not-applied:not([hidden])")
        text = page.inner_text("#not-applied")
        assert "1 个事件按本版本规则不再适用" in text and "#7" in text and "F5" in text
    finally:
        runner.stop()
