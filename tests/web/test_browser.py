"""Real browser: Playwright driving Debian's Chromium against the real cheroot server and a real
TableRunner. Log in, watch a play appear live, answer a one-tap question, confirm a flag, give a
warning, see it on the score sheet; the overlay renders a trick. Screenshots go to test-artifacts/."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"


def shot(page, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    y = page.evaluate("window.scrollY")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)
    # A full-page shot moves the scroll position for a moment: put it back before the next click.
    page.evaluate("y => new Promise(r => { window.scrollTo(0, y); requestAnimationFrame(() => requestAnimationFrame(r)); })", y)


def login(page, base, name, password):
    page.goto(f"{base}/auth/login")
    page.fill("#username", name)
    page.fill("#password", password)
    page.click("#login-submit")


def words(page, selector):
    """An element's text as words, one space apart (its side labels are flex items: innerText breaks lines)."""
    return " ".join(page.text_content(selector).split())


def test_referee_flow_live(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    srv = serve_app(app)
    base = srv.url

    page.goto(f"{base}/auth/login")
    shot(page, "login")
    login(page, base, "rita", "wrong-password")
    assert "错误" in page.inner_text("#login-error")
    login(page, base, "rita", h.PASSWORD)
    page.click("a.table-link")
    page.wait_for_selector('#app[data-connected="1"][data-last-seq="3"]')
    assert "赵敏" in page.inner_text("#seat-N")
    assert page.get_attribute("#seat-N .seat-inner", "class").endswith("turn")
    page.wait_for_selector("#timer-N")

    # A play read by the camera appears live, drawn as cards.
    res = h.play(runner, "N", ["3s"])
    page.wait_for_selector('#trick-plays [data-card="3s"]')
    assert page.get_attribute("#app", "data-last-seq") == str(res.seq)
    assert page.inner_text("#seat-N .cards-left").endswith("26")
    page.wait_for_selector("#timer-W")  # the turn moved on, with its timer

    # A low-confidence read: one tap answers it.
    q = h.play(runner, "W", ["5h"], confidence=[0.35], uncertain=True, crop=h.crop_data_url(["5h"]))
    page.wait_for_selector(f"#question-{q.seq} button.confirm")
    # The camera's picture of the zone is shown with the question (loaded from the event).
    page.wait_for_function(f"document.querySelector('#question-{q.seq} img.crop')?.naturalWidth > 100")
    shot(page, "table-question")
    page.click(f"#question-{q.seq} button.confirm")
    page.wait_for_selector('#trick-plays [data-card="5h"]')
    assert page.query_selector(f"#question-{q.seq}") is None

    # Out of turn: a flag with its rule and evidence; confirm it.
    bad = h.play(runner, "E", ["9c"])
    flag_id = f"F{bad.seq}"
    page.wait_for_selector(f'#flag-{flag_id}[data-status="open"]')
    assert "越序出牌" in page.inner_text(f"#flag-{flag_id}")
    shot(page, "table-flag-open")
    page.click(f"#flag-{flag_id} button.confirm")
    page.wait_for_selector(f'#flag-{flag_id}[data-status="confirmed"]')
    assert [f["status"] for f in runner.state()["flags"] if f["id"] == flag_id] == ["confirmed"]

    # Warning for it (prefilled from the flag), as a referee.
    page.click(f"#flag-{flag_id} button.to-penalty")
    assert page.input_value("#penalty-seat") == "E"
    page.select_option("#penalty-level", "warning")
    page.click("#penalty-submit")
    page.wait_for_selector(".toast.ok")
    h.wait_for(lambda: runner.state()["penalties"]["EW"]["warnings"] == 1)
    rec = runner.state()["penalties"]["records"][-1]
    assert rec["flag"] == flag_id and rec["role"] == "referee"
    page.wait_for_selector("#penalties .penalty-row")
    shot(page, "table")

    # English toggle.
    page.click("#lang-toggle")
    assert "Current trick" in page.inner_text("#trick h3")
    assert "confirmed" in page.inner_text(f"#flag-{flag_id}")
    assert page.inner_text("#conn") == "live"
    shot(page, "table-en")
    page.click("#lang-toggle")
    assert "当前一圈" in page.inner_text("#trick h3")

    # The score sheet shows the warning.
    page.click("#scoresheet-link")
    page.wait_for_selector('#app[data-connected="1"]')
    page.wait_for_selector("#sheet-penalties tr.penalty-warning")
    row = words(page, "#sheet-penalties tr.penalty-warning")
    assert "东西" in row and "警告" in row and "EW" not in row  # the side in words (no teams in this round)
    # The chief referee rules a foul (through the engine): the deal ends and appears as a row.
    r = runner.submit({"type": "penalty_given", "source": "panel", "role": "chief",
                       "data": {"side": "EW", "level": "foul", "seat": "E", "article": "藏牌", "next_leader": "N"}})
    assert r.accepted, r.error
    page.wait_for_selector('#sheet-rows tr[data-deal="1"]')
    deal_row = words(page, '#sheet-rows tr[data-deal="1"]')
    assert "南北 +3" in deal_row and "10 : 16" in deal_row and "犯规" in deal_row, deal_row  # EW : NS
    assert words(page, "#level-diff-sides") == "东西 : 南北"  # the column's points, East-West's first
    # End the round through the API; both sides sign on the sheet.
    r = runner.submit({"type": "round_ended", "source": "panel", "role": "referee", "data": {}})
    assert r.accepted
    page.wait_for_selector("#sign-EW button")
    assert "东西 10 : 南北 16" in words(page, "#sheet-result")  # level-difference points, d = 3
    assert words(page, "#sign-EW .sig-head") == "东西 签字"
    page.click("#sign-EW button")
    page.wait_for_selector('#sign-EW[data-signed="1"]')
    page.click("#sign-NS button")
    page.wait_for_selector('#sign-NS[data-signed="1"]')
    assert runner.state()["signatures"] == {"EW": True, "NS": True}
    shot(page, "scoresheet")


def test_viewer_cannot_confirm(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    h.play(runner, "E", ["9c"])
    srv = serve_app(app)
    login(page, srv.url, "vera", h.PASSWORD)
    page.goto(f"{srv.url}/tables/1")
    page.wait_for_selector('#flag-F4[data-status="open"]')
    assert page.query_selector("#flag-F4 button.confirm") is None
    assert page.query_selector("#actions") is None


def test_overlay_renders_a_trick(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    srv = serve_app(app)
    page.goto(f"{srv.url}/feed/1/overlay")  # no login
    page.wait_for_selector('#ov[data-connected="1"]')
    h.play(runner, "N", ["Th", "Td"])
    runner.submit({"type": "passed", "source": "screen", "data": {"seat": "W"}})
    h.play(runner, "S", ["QS", "Qc"])
    page.wait_for_selector('#ov-trick [data-card="Qc"]')
    assert page.query_selector('#ov-trick [data-card="Th"]') is not None
    assert page.inner_text("#ov-seat-N .cards-left") == "25"
    assert "过" in page.inner_text("#ov-trick")
    # The newest play of the trick is the emphasised one.
    assert page.query_selector('#ov-trick .tplay.newest [data-card="Qs"]') is not None
    shot(page, "overlay")


def test_panel_resumes_after_the_connection_drops(page, app, runner, h):
    """The server goes away; a play happens meanwhile; the browser reconnects by itself with
    Last-Event-ID and shows the play without a reload."""
    import socket

    from table_service.web.server import serve

    h.setup_deal(runner)
    # A fixed port (not 0), so cheroot sets SO_REUSEADDR and the restart can bind it again.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    srv = serve(app, "127.0.0.1", port)
    login(page, srv.url, "vera", h.PASSWORD)
    page.goto(f"{srv.url}/tables/1")
    page.wait_for_selector('#app[data-connected="1"][data-last-seq="3"]')
    srv.stop()
    page.wait_for_selector('#app[data-connected="0"]')
    missed = h.play(runner, "N", ["8d"])
    srv2 = h.wait_for(lambda: _try_serve(serve, app, port), timeout=60.0)
    try:
        page.wait_for_selector(f'#app[data-connected="1"][data-last-seq="{missed.seq}"]', timeout=60_000)
        page.wait_for_selector('#trick-plays [data-card="8d"]')
        # It resumed (an update after id 3), it did not need a snapshot.
        assert page.get_attribute("#app", "data-last-event") == str(missed.seq)
    finally:
        srv2.stop()


def _try_serve(serve, app, port):
    try:
        return serve(app, "127.0.0.1", port)
    except OSError:
        return None  # the old socket is still being released
