"""The panel's records, in a real browser (Playwright, Debian's Chromium) against the real cheroot
server and a real TableRunner: the chief releases a duplicate deal with one tap on its button (no
round or deal number typed), the score sheet shows the plays of earlier deals and rounds for an
appeal (folded per deal, readable on a 390 px phone), the chief gets the deck file's link, and
the camera's buttons are there before the first clock reading. Screenshots in
test-artifacts/web/records-*.png."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
ONE_EACH = dict.fromkeys("ESWN", 1)
#: Ten cards (eight 3s and the two wild hearts of level 2): the widest play a row must hold.
BOMB = ["3s", "3s", "3h", "3h", "3c", "3c", "3d", "3d", "2h", "2h"]


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"records-{name}.png"), full_page=True)


def submit(runner: Any, etype: str, data: dict[str, Any], *, source: str = "panel", role: str = "referee") -> None:
    res = runner.submit({"type": etype, "source": source, "role": role, "data": data})
    assert res.accepted, (etype, res.error)


def two_rounds(runner: Any, h: Any) -> None:
    """Round 1: two one-card deals (deal 2 with a tribute and its return), EW wins the round.
    Round 2: deal 1 is North's ten-card bomb and South's 5s; deal 2 has begun (tribute due)."""
    submit(runner, "round_set_up", {"players": h.PLAYERS, "format": {"kind": "deals", "deals": 2}})
    submit(runner, "first_cut_recorded", {"card": "7s"})
    submit(runner, "drawing_finished", {"counts": ONE_EACH})
    for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s")):
        submit(runner, "cards_played", {"seat": seat, "cards": [card]}, source="camera")
    submit(runner, "drawing_finished", {"counts": ONE_EACH})
    submit(runner, "tribute_given", {"seat": "E", "card": "Kd"})
    submit(runner, "return_given", {"seat": "N", "card": "3d"})
    submit(runner, "cards_played", {"seat": "E", "cards": ["9h"]}, source="camera")
    submit(runner, "passed", {"seat": "N"})
    submit(runner, "cards_played", {"seat": "W", "cards": ["Th"]}, source="camera")
    assert runner.state()["round"]["status"] == "over"
    submit(runner, "round_set_up", {"players": h.PLAYERS, "format": {"kind": "deals", "deals": 2}})
    submit(runner, "first_cut_recorded", {"card": "7s"})
    submit(runner, "drawing_finished", {"counts": {"N": 10, "E": 1, "S": 1, "W": 1}})
    submit(runner, "cards_played", {"seat": "N", "cards": BOMB}, source="camera")
    for seat in ("W", "S", "E"):
        submit(runner, "passed", {"seat": seat})
    submit(runner, "cards_played", {"seat": "S", "cards": ["5s"]}, source="camera")
    submit(runner, "drawing_finished", {"counts": ONE_EACH})
    st = runner.state()
    assert st["round"]["no"] == 2 and st["deal"]["no"] == 2 and st["deal"]["phase"] == "tribute"


# ---------------------------------------------------------------------- 1. duplicate release by tap


def test_duplicate_release_is_one_tap_per_ended_deal(page, make_app, runner, serve_app, h):
    app = make_app(TABLES={"1": runner}, FEED_DUPLICATE=True)
    two_rounds(runner, h)
    submit(runner, "deal_released", {"round": 1, "deal": 1}, role="chief")  # released already: not offered
    srv = serve_app(app)
    h.log_in_page(page, srv.url, "chen", then="/tables/1")
    page.wait_for_selector("#release-list button.release-deal")
    offered = page.eval_on_selector_all("#release-list button.release-deal",
                                        "bs => bs.map(b => [Number(b.dataset.round), Number(b.dataset.deal)])")
    # Every ended deal not yet released, of this round and the round before; not deal 2 of round 2
    # (being played), not round 1's deal 1 (released).
    assert offered == [[1, 2], [2, 1]]
    assert page.inner_text('#release-list button[data-round="1"][data-deal="2"]') == "公开 第 1 轮第 2 副"
    # Nothing to type: the old round / deal number form is gone.
    assert page.query_selector("#f-release") is None
    assert page.query_selector('#actions input[name="deal"]') is None
    shot(page, "release-buttons")

    # A tap asks first; cancelling releases nothing.
    page.click('#release-list button[data-round="2"][data-deal="1"]')
    page.wait_for_selector("#play-dialog .confirm-box")
    assert "公开第 2 轮第 1 副" in page.inner_text("#play-dialog")
    page.click("#play-dialog .confirm-cancel")
    assert [(r["round"], r["deal"]) for r in runner.state()["released_deals"]] == [(1, 1)]

    page.click('#release-list button[data-round="2"][data-deal="1"]')
    page.click("#play-dialog .confirm-ok")
    page.wait_for_selector(".toast.show.ok")
    released = [e for e in runner.events() if e["type"] == "deal_released"]
    assert released[-1]["data"] == {"round": 2, "deal": 1} and released[-1]["role"] == "chief"
    page.wait_for_selector('#release-list button[data-round="2"][data-deal="1"]', state="detached")
    assert page.eval_on_selector_all("#release-list button.release-deal",
                                     "bs => bs.map(b => b.dataset.deal)") == ["2"]

    # A referee (not the chief) has no release box at all.
    c = app.test_client()
    h.login(c, "rita")
    html = c.get("/tables/1").get_data(as_text=True)
    assert 'id="release-card"' not in html and 'id="release-list"' not in html


def test_release_box_says_so_when_no_deal_has_ended(page, make_app, runner, serve_app, h):
    app = make_app(TABLES={"1": runner}, FEED_DUPLICATE=True)
    h.setup_deal(runner)  # deal 1 is being played: nothing to release yet
    srv = serve_app(app)
    h.log_in_page(page, srv.url, "chen", then="/tables/1")
    page.wait_for_selector("#release-list .release-none")
    assert page.query_selector("#release-list button") is None
    assert page.inner_text("#release-list") == "没有待公开的已结束牌局"


def test_a_duplicate_boards_deals_get_release_buttons_without_the_tables_setting(page, make_app, runner, serve_app, h):
    """The s36 broadcast audit: a round the hub set up as a duplicate board is held by the feed whatever
    the table's setting, so the chief's release box shows for it (it showed only with FEED_DUPLICATE)."""
    app = make_app(TABLES={"1": runner})
    submit(runner, "round_set_up", {"players": h.PLAYERS, "format": {"kind": "deals", "deals": 3}, "board": "R1-M1"})
    submit(runner, "first_cut_recorded", {"card": "7s"})
    submit(runner, "drawing_finished", {"counts": ONE_EACH})
    for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s")):
        h.play(runner, seat, [card])
    assert runner.state()["deal"]["phase"] == "over"
    srv = serve_app(app)
    h.log_in_page(page, srv.url, "chen", then="/tables/1")
    page.wait_for_selector('#release-card:not([hidden]) #release-list button[data-round="1"][data-deal="1"]')


def test_the_release_box_says_the_hub_released_a_deal_and_when(page, make_app, runner, serve_app, h):
    """A button vanished from the chief's box when the hub released its deal, and nothing said who
    had: a chief could take it for a colleague's tap, or a fault. The box now lists the latest
    releases, each with who made it (赛事中心已公布 for the hub) and its time."""
    app = make_app(TABLES={"1": runner}, FEED_DUPLICATE=True)
    two_rounds(runner, h)
    submit(runner, "deal_released", {"round": 1, "deal": 1}, role="chief")  # the chief's tap
    submit(runner, "deal_released", {"round": 1, "deal": 2}, source="hub", role="chief")  # the hub's
    hub_ms = runner.state()["released_deals"][-1]["t_ms"]
    srv = serve_app(app)
    h.log_in_page(page, srv.url, "chen", then="/tables/1")
    page.wait_for_selector("#release-done li.release-done-item")
    items = page.eval_on_selector_all("#release-done li.release-done-item",
                                      "ls => ls.map(l => [l.dataset.round, l.dataset.deal, l.className, l.innerText])")
    hhmmss = page.evaluate("ms => GT.clockTime(ms)", hub_ms)
    assert items[0][:3] == ["1", "2", "release-done-item by-hub"]  # newest first
    assert items[0][3] == f"第 1 轮第 2 副 · 赛事中心已公布 {hhmmss}"
    assert items[1][:3] == ["1", "1", "release-done-item by-chief"] and "裁判长已公布" in items[1][3]
    assert page.eval_on_selector_all("#release-list button.release-deal",
                                     "bs => bs.map(b => b.dataset.round + ':' + b.dataset.deal)") == ["2:1"]
    page.click('[data-action="toggle-lang"]')  # English: the same line in the other language
    page.wait_for_selector("#release-done li:has-text('released by the hub')")
    assert page.inner_text("#release-done li") == f"Round 1 deal 2 · released by the hub {hhmmss}"
    shot(page, "release-by-hub")


# ------------------------------------------------------------------- 2. past deals, for an appeal


def test_past_deals_on_the_score_sheet_on_a_phone(open_page, app, runner, serve_app, h):
    two_rounds(runner, h)
    srv = serve_app(app)
    page, errors = open_page(390, 844)
    h.log_in_page(page, srv.url, "rita", then="/tables/1/scoresheet")
    page.wait_for_selector("#past-deals details.past-deal")
    deals = page.eval_on_selector_all("#past-deals details.past-deal",
                                      "ds => ds.map(d => [Number(d.dataset.round), Number(d.dataset.deal), d.open])")
    # This round first, then the round before; every deal folded to one line.
    assert deals == [[2, 1, False], [1, 1, False], [1, 2, False]]
    assert page.eval_on_selector_all("#past-deals h3.past-round", "hs => hs.map(h => h.textContent)") == \
        ["第 2 轮", "第 1 轮"]
    r1d2 = '#past-deals details[data-round="1"][data-deal="2"]'
    summary = page.inner_text(f"{r1d2} > summary")
    assert "第 2 副" in summary and "级牌 4" in summary and "1 圈" in summary
    page.click(f"{r1d2} > summary")
    text = page.inner_text(r1d2)
    assert "进贡：东 E → 北 N" in text and "还贡：北 N → 东 E" in text
    assert page.query_selector(f'{r1d2} .past-tribute [data-card="Kd"]') is not None
    assert page.query_selector(f'{r1d2} .past-tribute [data-card="3d"]') is not None
    plays = page.eval_on_selector_all(
        f"{r1d2} .past-trick .play",
        "ps => ps.map(p => [p.dataset.seat, [...p.querySelectorAll('[data-card]')].map(c => c.dataset.card).join(' '),"
        " !!p.querySelector('.pass')])")
    assert plays == [["E", "9h", False], ["N", "", True], ["W", "Th", False]]
    assert "名次：上游 东 E · 二游 西 W · 三游 南 S · 下游 北 N" in text

    # The ten-card bomb of round 2 wraps inside a 390 px screen.
    r2d1 = '#past-deals details[data-round="2"][data-deal="1"]'
    page.click(f"{r2d1} > summary")
    cards = page.eval_on_selector_all(f'{r2d1} .past-trick .play[data-seat="N"] [data-card]',
                                      "cs => cs.map(c => c.getBoundingClientRect().right)")
    assert len(cards) == 10 and max(cards) <= 390, cards
    assert page.eval_on_selector(r2d1, "d => d.scrollWidth <= d.clientWidth")
    shot(page, "past-deals-phone")

    # A new event redraws nothing the referee opened.
    submit(runner, "tribute_given", {"seat": "W", "card": "Ad"})
    page.wait_for_function(f"Number(document.getElementById('app').dataset.lastSeq) >= {runner.state()['last_seq']}")
    assert page.eval_on_selector(r1d2, "d => d.open") and page.eval_on_selector(r2d1, "d => d.open")
    # English: English only in the section (the players' names aside).
    page.click("#lang-toggle")
    page.wait_for_function("document.querySelector('#past-deals h3.past-round').textContent === 'Round 2'")
    assert "Tribute: East → North" in page.inner_text(r1d2)
    assert page.eval_on_selector(r1d2, "d => d.open")
    assert errors == [], errors


def test_past_deals_say_so_before_any_deal_ended(page, app, runner, serve_app, h):
    h.setup_deal(runner)
    srv = serve_app(app)
    h.log_in_page(page, srv.url, "vera", then="/tables/1/scoresheet")  # a viewer (an official) may read them too
    page.wait_for_selector("#past-deals p.muted")
    assert page.inner_text("#past-deals") == "还没有打完的牌局"


# ---------------------------------------------------------------------- 3. the deck file's link


class FakePipeline:
    """What the panel uses of ``CameraPipeline`` here: where the table keeps its deck file."""

    def __init__(self, deck: Path) -> None:
        self.enrollment_path = str(deck)

    def latest_frame(self) -> None:
        return None

    def recalibrate(self) -> None:
        pass


def camera_health(enrolled: bool) -> Any:
    deck = {"enrolled": enrolled, "cards": 54 if enrolled else 0, "warn": False, "check": None, "answers": 0,
            "sure": 0, "tuned": False, "learn": True,
            "text": "读牌用登记的牌组 / reading with the enrolled deck" if enrolled else "未登记牌组 / deck not enrolled"}
    return lambda: {"state": "reading", "lag_s": 0.1, "last_read_ms": None, "dropped": 0,
                    "text": "摄像头读牌中 / camera reading", "deck": deck}


def test_deck_file_link_where_the_table_reads_with_an_enrolled_deck(page, app, runner, serve_app, h, tmp_path):
    deck = tmp_path / "deck-enrollment.npz"
    deck.write_bytes(b"PK\x03\x04 the enrolled deck")
    runner.camera_pipeline = FakePipeline(deck)
    runner.camera_health = camera_health(True)
    h.setup_deal(runner)
    srv = serve_app(app)
    h.log_in_page(page, srv.url, "chen", then="/tables/1")
    page.wait_for_selector("#deck-download", state="visible")
    assert page.inner_text("#deck-download") == "下载牌组文件"
    assert "比赛用牌" in page.inner_text("#deck-file")
    href = page.get_attribute("#deck-download", "href")
    assert href == "/api/tables/1/enroll/deck.npz"
    got = page.request.get(srv.url + href)
    assert got.status == 200 and got.body() == deck.read_bytes()
    shot(page, "deck-link")
    # A referee has no link (the file is the chief's: web/enroll.py).
    c = app.test_client()
    h.login(c, "rita")
    assert 'id="deck-download"' not in c.get("/tables/1").get_data(as_text=True)


def test_deck_file_link_after_an_enrolment_at_the_panel(page, app, runner, serve_app, h, tmp_path, monkeypatch):
    from table_service.web import enroll as enroll_bp

    runner.camera_pipeline = FakePipeline(tmp_path / "deck-enrollment.npz")
    runner.camera_health = camera_health(False)  # not enrolled yet: no link
    h.setup_deal(runner)
    srv = serve_app(app)
    h.log_in_page(page, srv.url, "chen", then="/tables/1")
    page.wait_for_selector("#camera-deck", state="visible")
    assert not page.is_visible("#deck-download")
    # The enrolment finished (web/enroll.py's session says so): its result shows the link at once.
    monkeypatch.setitem(enroll_bp._sessions, "1", enroll_bp._Session(
        status="done", result={"faces": 54, "enrolled": 54, "file": "deck-enrollment.npz", "not_enrolled": [],
                               "check_warn": False, "check_text": "fan check: 90/90"}))
    page.click("#enroll-open")
    page.wait_for_selector("#enroll-deck-download", state="visible")
    assert page.get_attribute("#enroll-deck-download", "href") == "/api/tables/1/enroll/deck.npz"
    assert "比赛用牌" in page.inner_text("#enroll-deck")
    assert page.is_visible("#deck-download")


# ------------------------------------------------------------ 5. camera buttons with the page


def test_camera_buttons_show_before_the_first_clock_reading(page, app, runner, serve_app, h, tmp_path):
    runner.camera_pipeline = FakePipeline(tmp_path / "deck.npz")
    runner.camera_health = camera_health(False)
    h.setup_deal(runner)
    srv = serve_app(app)
    h.log_in_page(page, srv.url, "chen")
    held: list[Any] = []
    page.route("**/api/tables/1/clock", lambda route: held.append(route))  # no clock reading comes
    try:
        page.goto(f"{srv.url}/tables/1")
        page.wait_for_selector('#app[data-connected="1"]')
        page.wait_for_selector("#enroll-open", state="visible", timeout=5_000)
        assert page.is_visible("#camera-recalibrate")
        assert held and page.evaluate("document.documentElement.dataset.clockSynced") is None
    finally:
        for route in held:
            route.abort()
        page.unroute("**/api/tables/1/clock")


def test_the_record_pages_links_are_fingers_wide(page, app, runner, serve_app, h, small_controls):
    """The s36 tap audit: 只看被拒绝的 and 刷新 were 15 px tall on the record page."""
    h.setup_deal(runner)
    srv = serve_app(app)
    h.log_in_page(page, srv.url, "rita", then="/tables/1/record")
    page.wait_for_selector("#record")
    assert small_controls(page, ".record") == []


def test_the_record_pages_language_button_says_it_in_the_other_language_at_once(open_page, app, runner, serve_app, h):
    """The record page's 中文/English button set the cookie and changed nothing until a reload: the page
    is said in the other language at once, as the main panel is, and stays where the referee was. With
    the page's Content-Security-Policy on (polled from the test: the policy refuses wait_for_function)."""
    page, errors = open_page(bypass_csp=False)
    h.setup_deal(runner)
    warned = runner.submit({"type": "penalty_given", "source": "panel", "role": "referee", "data": {
        "side": "NS", "level": "warning", "seat": "N", "article": "越序出牌 / playing out of turn"}})
    assert warned.accepted, warned.error
    srv = serve_app(app)
    h.log_in_page(page, srv.url, "rita", then="/tables/1/record")
    row = f'#record tr[data-seq="{warned.seq}"]'
    assert "越序出牌" in page.inner_text(row) and "playing out of turn" not in page.inner_text(row)
    page.evaluate("window.sameRecordPage = true")  # gone if the page is loaded again
    page.click("#lang-toggle")
    said = h.wait_for(lambda: (t := page.inner_text(row)) and "playing out of turn" in t and t, timeout=15,
                      interval=0.1)
    assert f"North {h.PLAYERS['N']}" in said and "Warning" in said and "越序出牌" not in said, said
    assert page.inner_text(".record h1").startswith("Record") and "What" in page.inner_text("#record thead")
    assert page.inner_text("#lang-toggle") == "中文"
    assert page.evaluate("window.sameRecordPage") is True
    page.click("#lang-toggle")
    h.wait_for(lambda: "越序出牌" in page.inner_text(row), timeout=15, interval=0.1)
    assert page.inner_text(".record h1").startswith("记录") and page.evaluate("window.sameRecordPage") is True
    assert errors == []


def test_pass_rows_and_the_tables_page_are_fingers_wide(page, app, runner, serve_app, h,
                                                                      small_controls):
    """The s36 tap audit: a tappable pass row in the trick 19 px tall, the tables page's links 19 px tall
    (a flag's evidence #seq link, 28 px wide, is now 44 px by the same stylesheet: panel.css .seq-link)."""
    h.setup_deal(runner)  # North leads
    h.play(runner, "N", ["3s"])
    seat = runner.state()["deal"]["turn"]
    assert runner.submit({"type": "passed", "source": "panel", "data": {"seat": seat}}).accepted
    srv = serve_app(app)
    h.log_in_page(page, srv.url, "rita", then="/")
    page.wait_for_selector("ul.tables a")
    assert small_controls(page, "ul.tables") == []
    page.goto(f"{srv.url}/tables/1")
    page.wait_for_selector("#trick-plays .play.tappable")
    assert small_controls(page, "#trick-plays") == []
