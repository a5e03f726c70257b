"""The broadcast overlay as a producer puts it on air: a real browser (Playwright, Debian's
Chromium) at 1920×1080 and 1280×720 against the real server and feed. Everything stays inside
the 90 % title-safe area, a 13-play trick never overflows its box, flag and ruling pop-ups go
away by themselves, the delay is marked, the background is transparent, and ?lang=en is English.
Screenshots (bare, and over a felt-green "video" for review) go to test-artifacts/web/overlay-*."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from page_checks import outside_safe

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
CJK = re.compile(r"[\u4e00-\u9fff]")
PLAYERS_EN = {"E": "Zhang Wei", "S": "Li Na", "W": "Wang Qiang", "N": "Zhao Min"}

#: N leads, then W, S, E in turn: 13 plays, each beating the last; the 13th an 8-card bomb.
TRICK = [["3s"], ["4s"], ["5s"], ["6s"], ["8s"], ["9s"], ["Ts"], ["Js"], ["Qs"], ["Ks"], ["As"], ["SJ"],
         ["7h", "7h", "7d", "7d", "7c", "7c", "7s", "7s"]]
ORDER = "NWSE"

#: Every visible element of the overlay inside the title-safe area (90 % of the frame)?
OUTSIDE_SAFE = outside_safe("#ov *")


def shots(page, name: str) -> None:
    """The overlay as it is (transparent), and composited over a felt table for review."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"overlay-{name}.png"), omit_background=True)
    page.add_style_tag(content="html { background: radial-gradient(#2e7d4f, #123d26) !important; }")
    page.screenshot(path=str(ARTIFACTS / f"overlay-{name}-on-felt.png"))
    page.evaluate("document.querySelectorAll('style').forEach(s => { if (s.textContent.includes('#2e7d4f')) s.remove(); })")


def setup_round(runner, players) -> None:
    for ev in (
        {"type": "round_set_up", "source": "panel", "role": "referee",
         "data": {"players": players, "teams": {"EW": "江苏 / Jiangsu", "NS": "淮安 / Huai'an"}, "ruleset": "jiangsu",
                  "format": {"kind": "deals", "deals": 2}}},
        {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
        {"type": "drawing_finished", "source": "panel", "data": {}},
    ):
        assert runner.submit(ev).accepted


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)], ids=["1080p", "720p"])
def test_overlay_broadcast_graphics(make_app, runner, serve_app, h, open_page, size):
    w, hgt = size
    app = make_app(TABLES={"1": runner}, FEED_DELAY_S=1.0)
    setup_round(runner, h.PLAYERS)
    srv = serve_app(app)
    page, errors = open_page(w, hgt)
    page.goto(f"{srv.url}/feed/1/overlay?popup_s=2.5")
    page.wait_for_selector('#ov[data-connected="1"]')
    page.wait_for_selector("#ov-seat-N .plate-inner.turn")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
    assert "1" in page.inner_text("#ov-delay")  # "延时 1 秒"
    assert "赵敏" in page.inner_text("#ov-seat-N") and "江苏" in page.inner_text("#ov-bug")
    # The first lead's clock runs on the plate.
    page.wait_for_function("Number(document.querySelector('#ov-clock-N .clock-num').textContent) > 30")

    for i, cards in enumerate(TRICK):
        h.play(runner, ORDER[i % 4], cards)
    page.wait_for_selector('#ov-trick .tplay.newest [data-card="7c"]', timeout=15_000)
    rail = page.evaluate("""() => { const r = document.getElementById('ov-trick');
        return {shown: Number(r.dataset.shown), inner: r.firstChild.offsetWidth, width: r.clientWidth,
                earlier: r.querySelector('.earlier')?.textContent || ''}; }""")
    assert 1 <= rail["shown"] <= 5 and rail["inner"] <= rail["width"], rail
    assert re.search(r"\d", rail["earlier"]), rail  # "前 9 手": the plays left out are counted
    assert page.locator("#ov-trick .tplay.newest span.card").count() == 8

    # A confirmed flag and a ruling pop up, then go away by themselves.
    bad = h.play(runner, "S", ["9d"])  # out of turn: N's turn after the bomb? no: W's
    flag = f"F{bad.seq}"
    assert runner.submit({"type": "flag_confirmed", "source": "panel", "role": "referee",
                          "data": {"flag": flag}}).accepted
    assert runner.submit({"type": "penalty_given", "source": "panel", "role": "referee",
                          "data": {"side": "NS", "seat": "S", "level": "warning", "article": "越序出牌 / out of turn",
                                   "flag": flag}}).accepted
    page.wait_for_selector("#ov-pops .pop-penalty.in", timeout=15_000)
    assert page.locator("#ov-pops .pop-flag").count() == 1
    page.wait_for_timeout(500)  # the slide-in has finished
    outside = page.evaluate(OUTSIDE_SAFE)
    assert outside == [], outside
    shots(page, f"{w}")
    page.wait_for_function("document.querySelectorAll('#ov-pops .pop').length === 0", timeout=6_000)
    assert page.evaluate(OUTSIDE_SAFE) == []
    assert errors == [], errors


def test_overlay_in_english_is_english_only(make_app, runner, serve_app, open_page):
    app = make_app(TABLES={"1": runner})
    setup_round(runner, PLAYERS_EN)
    srv = serve_app(app)
    page, errors = open_page(1920, 1080)
    page.goto(f"{srv.url}/feed/1/overlay?lang=en")
    page.wait_for_selector("#ov-seat-N .plate-inner.turn")
    runner.submit({"type": "cards_played", "source": "camera", "data": {"seat": "N", "cards": ["3s", "3h"]}})
    runner.submit({"type": "passed", "source": "screen", "data": {"seat": "W"}})
    page.wait_for_selector("#ov-trick .tplay.newest .pass")
    text = page.inner_text("#ov")
    assert not CJK.search(text), text
    assert "Jiangsu" in text and "TABLE 1" in text and "Pass" in text and "pair" in text
    shots(page, "en")
    assert errors == []
