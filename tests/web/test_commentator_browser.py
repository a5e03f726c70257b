"""解说 / Commentator page in a real browser against the real server (s37): a play shows once its
delay has passed and never before; the page asks the server for nothing but the public feed (and
its own scripts); what the feed hides stays hidden; it reads at 1024×768 and on a 390 px phone with
44 px taps, Chinese first. Screenshots: test-artifacts/web/commentator-*.png."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

from table_service.web import users

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"


def _spectator(users_db: str) -> None:
    conn = users.connect(users_db)
    users.add_user(conn, "sam", "spectator-pw-1", "spectator")
    conn.close()


def _log_in(page: Any, url: str, target: str) -> None:
    page.goto(f"{url}/auth/login?next={target}")
    page.fill("#username", "sam")
    page.fill("#password", "spectator-pw-1")
    page.click("#login-submit")
    page.wait_for_url(f"**{target}")


def _until(cond: Any, timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.05)
    raise AssertionError(f"not within {timeout} s: {what}")


def test_a_play_shows_after_its_delay_and_never_before(make_app, runner, serve_app, users_db, h, open_page):
    delay = 2.0
    _spectator(users_db)
    app = make_app(TABLES={"1": runner}, FEED_DELAY_S=delay)
    srv = serve_app(app)
    page, errors = open_page(1024, 768, bypass_csp=False)
    _log_in(page, srv.url, "/feed/1/commentator")
    h.setup_deal(runner)
    _until(lambda: "赵敏" in page.inner_text("#cm-seats"), 30, "the delayed set-up")
    played = h.play(runner, "N", ["3s", "3h"])
    sent = next(e["t_ms"] for e in runner.events() if e["seq"] == played.seq) / 1000.0
    card = '#cm-trick [data-card="3h"]'
    while page.locator(card).count() == 0:  # watched until it shows: never before its delay
        assert time.time() < sent + 30, "the play never showed"
        time.sleep(0.05)
    assert time.time() >= sent + delay, "shown before its delay"
    assert page.locator('#cm-recent [data-card="3h"]').count() == 1
    assert "对子" in page.inner_text("#cm-trick") or "pair" in page.inner_text("#cm-trick")
    assert errors == []


def test_it_asks_for_the_public_feed_only_and_shows_nothing_it_hides(make_app, runner, serve_app, users_db, h,
                                                                      open_page, small_controls):
    _spectator(users_db)
    app = make_app(TABLES={"1": runner})
    srv = serve_app(app)
    page, errors = open_page(1024, 768, bypass_csp=False)
    asked: list[str] = []
    page.on("request", lambda req: asked.append(req.url))
    _log_in(page, srv.url, "/feed/1/commentator")
    asked.clear()  # from here on: what the page itself asks for
    page.reload()
    h.setup_deal(runner)
    h.play(runner, "N", ["3s"])
    h.play(runner, "W", ["4s"])
    h.play(runner, "E", ["5s"])  # out of turn (S's): an open flag, the referee's until confirmed
    runner.submit({"type": "referee_called", "source": "screen", "data": {"seat": "W", "reason": "秘密"}})
    h.play(runner, "S", ["Kd"], confidence=[0.2], uncertain=True)  # a camera question, not a play
    _until(lambda: page.locator('#cm-trick [data-card="5s"]').count() == 1, 30, "the plays shown")
    page.wait_for_timeout(1500)  # and a clock reading or two
    paths = {urlsplit(u).path for u in asked}
    allowed = ("/feed/1/", "/static/", "/i18n/")  # /i18n/: the pages' words, as static as /static/
    assert paths and all(p.startswith(allowed) or p == "/favicon.ico" for p in paths), paths
    assert {"/feed/1/commentator", "/feed/1/stream", "/feed/1/clock.json"} <= paths
    text = page.inner_text("body")
    assert page.locator('[data-card="Kd"]').count() == 0 and "Kd" not in text and "秘密" not in text
    assert "越序" not in text and "out of turn" not in text.lower()
    # Chinese first, and a finger's taps.
    assert "解说" in page.inner_text("h1") and "赵敏" in page.inner_text("#cm-seats")
    assert small_controls(page) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 1024
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "commentator-1024.png"), full_page=True)
    assert errors == []


def test_it_reads_on_a_phone_with_tribute_results_and_rulings(make_app, runner, serve_app, users_db, h,
                                                               open_page, small_controls):
    _spectator(users_db)
    app = make_app(TABLES={"1": runner})
    srv = serve_app(app)
    page, errors = open_page(390, 844, bypass_csp=False, mobile=True)
    _log_in(page, srv.url, "/feed/1/commentator")
    ones = {"E": 1, "S": 1, "W": 1, "N": 1}
    for ev in ({"type": "round_set_up", "source": "panel", "role": "referee",
                "data": {"players": h.PLAYERS, "teams": {"EW": "江苏省淮安市掼蛋协会代表队 / Huai'an", "NS": "南京 / Nanjing"},
                         "format": {"kind": "deals", "deals": 3}}},
               {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
               {"type": "drawing_finished", "source": "panel", "data": {"counts": ones}}):
        assert runner.submit(ev).accepted
    for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s")):
        h.play(runner, seat, [card])
    assert runner.submit({"type": "drawing_finished", "source": "panel", "data": {"counts": ones}}).accepted
    assert runner.submit({"type": "tribute_given", "source": "panel", "data": {"seat": "E", "card": "Kd"}}).accepted
    assert runner.submit({"type": "return_given", "source": "panel", "data": {"seat": "N", "card": "3d"}}).accepted
    turn = runner.state()["deal"]["turn"]
    bad = h.play(runner, next(s for s in "ESWN" if s != turn), ["9d"])  # out of turn: a flag, confirmed, ruled on
    assert runner.submit({"type": "flag_confirmed", "source": "panel", "role": "referee",
                          "data": {"flag": f"F{bad.seq}"}}).accepted
    assert runner.submit({"type": "penalty_given", "source": "panel", "role": "referee",
                          "data": {"side": "NS", "seat": "S", "level": "warning", "article": "越序出牌 / out of turn"}}).accepted
    _until(lambda: page.locator('#cm-tribute [data-card="3d"]').count() == 1, 30, "the return shown")
    assert page.locator('#cm-tribute [data-card="Kd"]').count() == 1
    _until(lambda: "警告" in page.inner_text("#cm-rulings"), 30, "the ruling shown")
    assert "上游" in page.inner_text("#cm-results") or "升" in page.inner_text("#cm-results")
    # The s38 audit: the sides in words, never "EW" / "NS" (the level chips, "· EW 5 / NS 3" after a deal),
    # and where the table is as people say it ("轮次 1 · 副 2 · 出牌").
    assert page.eval_on_selector_all("#cm-levels .chip", "cs => cs.map(c => c.textContent)") == ["东西", "南北"]
    assert page.eval_on_selector_all("#cm-levels .team", "ts => ts.map(t => t.textContent)") == [
        "江苏省淮安市掼蛋协会代表队", "南京"]
    results = page.inner_text("#cm-results")
    assert not re.search(r"\b(EW|NS)\b", results) and "第 1 副 · " in results, results
    assert "级数 江苏省淮安市掼蛋协会代表队 2 · 南京 4" in results, results
    assert page.inner_text("#cm-round .cm-where") == "第 1 轮 · 第 2 副 · 出牌阶段"
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert small_controls(page) == []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "commentator-390.png"), full_page=True)
    assert errors == []
