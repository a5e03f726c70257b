"""The s37 broadcast producer's audit, on air: a real browser (Playwright, headless Chromium) on the
real server, runner and delayed feed, at 1920×1080 and 1280×720.

- Team names, not the hub's ids, on the overlay, the panel and the score sheet (finding 1).
- A held duplicate deal says so instead of a false delay, shows nothing of itself, and its release
  goes straight to where the deal ended (finding 2).
- The tribute, the return (face down while it is) and the anti-tribute (finding 5); the deal's result
  between deals and the round's at its end (finding 6).
- Long team and player names fit, smaller, then cut in the middle (finding 8); no text under 14 px at
  720p, the jokers told apart (finding 9); "waiting for the round" and the seat once before a round
  (finding 10); an update changes only what changed and the report mark's glow runs on (finding 12);
  an idle plate has no clock row (finding 17).
Screenshots go to test-artifacts/web/overlay-s37-*.png."""

from __future__ import annotations

import json
import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from page_checks import outside_safe

from table_service.views.assignment import set_up_data

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "web"
CJK = re.compile(r"[\u4e00-\u9fff]")

#: Table 1's assignment as the hub sends it (event.core.HubCore.assignment; the real hub's is used in
#: test_feed_names_and_holds.py): the teams by id, their names beside.
ASSIGNMENT = {"event": "s37", "event_name": "名字赛", "round": 1, "table": "1",
              "teams": {"NS": "T20", "EW": "T01"}, "team_names": {"NS": "淮安二队", "EW": "江苏一队"},
              "players": {"N": "赵敏", "S": "李娜", "E": "张伟", "W": "王强"},
              "ruleset": {"preset": "jiangsu-2013", "options": {}}, "format": {"kind": "deals", "deals": 2},
              "panel": None}
LONG_TEAMS = {"EW": "江苏省淮安市清江浦区掼蛋协会一队", "NS": "江苏省淮安市清江浦区掼蛋协会二队"}
LONG_PLAYERS = {"E": "欧阳司马诸葛慕容春", "S": "欧阳司马诸葛慕容夏", "W": "欧阳司马诸葛慕容秋", "N": "欧阳司马诸葛慕容冬"}

#: Every visible element of the overlay inside the title-safe area (90 % of the frame)?
OUTSIDE_SAFE = outside_safe("#ov *")

#: Every piece of text shown on the overlay as it reaches the screen: its font size times every scale
#: on the way (the stage's, and any of its own), in screen px; those under 14 px.
SMALL_TEXT = """() => {
  const out = [];
  document.querySelectorAll('#ov *').forEach(e => {
    if (!Array.from(e.childNodes).some(n => n.nodeType === 3 && n.data.trim())) return;
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    if (!r.width || !r.height || cs.visibility === 'hidden' || e.closest('[hidden]')) return;
    const px = parseFloat(cs.fontSize) * (e.offsetWidth ? r.width / e.offsetWidth : 1);
    if (px < 14) out.push(e.className + ' "' + e.textContent.trim().slice(0, 16) + '" ' + px.toFixed(1) + 'px');
  });
  return out;
}"""


#: The overlay's boxes that lie on one another (the pop-ups aside: they come and go over the plates).
OVERLAPS = """() => {
  const sel = ['#ov-bug .bug-inner', '#ov-delay', '#ov-seat-N .plate-inner', '#ov-seat-W .plate-inner',
               '#ov-seat-E .plate-inner', '#ov-seat-S .plate-inner', '#ov-trick .rail-inner', '#ov-info .info-inner'];
  const boxes = sel.map(s => [s, document.querySelector(s)]).filter(([s, e]) => e && !e.closest('[hidden]') &&
    e.getBoundingClientRect().width > 0).map(([s, e]) => [s, e.getBoundingClientRect()]);
  const out = [];
  boxes.forEach(([a, r], i) => boxes.slice(i + 1).forEach(([b, q]) => {
    if (r.left < q.right && q.left < r.right && r.top < q.bottom && q.top < r.bottom) out.push(a + ' × ' + b);
  }));
  return out;
}"""


def shot(page: Any, name: str) -> None:
    """The overlay over a felt table, for review."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.add_style_tag(content="html { background: radial-gradient(#2e7d4f, #123d26) !important; }")
    page.screenshot(path=str(ARTIFACTS / f"overlay-s37-{name}.png"))
    page.evaluate("document.querySelectorAll('style').forEach(s => { if (s.textContent.includes('#2e7d4f')) s.remove(); })")


def submit(runner: Any, type_: str, data: dict[str, Any], **extra: Any) -> Any:
    res = runner.submit({"type": type_, "source": extra.pop("source", "panel"), "data": data, **extra})
    assert res.accepted, res.error
    return res


def play(runner: Any, seat: str, cards: list[str] | None) -> None:
    if cards is None:
        submit(runner, "passed", {"seat": seat}, source="screen")
    else:
        submit(runner, "cards_played", {"seat": seat, "cards": cards}, source="camera")


def open_overlay(open_page: Any, url: str, size: tuple[int, int], query: str = "") -> tuple[Any, list[str]]:
    page, errors = open_page(*size)
    page.goto(f"{url}/feed/1/overlay{query}")
    page.wait_for_selector('#ov[data-connected="1"]')
    return page, errors


def public(url: str) -> tuple[dict[str, Any], str]:
    """The public state as state.json serves it, and the raw text of state.json and events.json."""
    with urllib.request.urlopen(f"{url}/feed/1/state.json") as r:
        state_text = r.read().decode()
    with urllib.request.urlopen(f"{url}/feed/1/events.json") as r:
        events_text = r.read().decode()
    return json.loads(state_text)["state"], state_text + events_text


def test_the_teams_are_named_not_numbered_on_the_overlay_the_panel_and_the_score_sheet(
        make_app, runner, serve_app, open_page, h):
    """Finding 1: "EW T01 / NS T20" on air at every hub-run table. The round the one-tap start sets up
    from the hub's assignment keeps the names; nothing the public or the referee reads says an id."""
    submit(runner, "round_set_up", set_up_data(ASSIGNMENT), role="referee")
    submit(runner, "first_cut_recorded", {"card": "7s"})
    submit(runner, "drawing_finished", {})
    srv = serve_app(make_app(TABLES={"1": runner}))
    page, errors = open_overlay(open_page, srv.url, (1280, 720))
    page.wait_for_selector("#ov-seat-N .plate-inner.turn")
    bug = page.inner_text("#ov-bug")
    assert "江苏一队" in bug and "淮安二队" in bug and "T01" not in bug and "T20" not in bug, bug
    assert "T01" not in page.inner_text("#ov") and "T20" not in page.inner_text("#ov")
    # The panel's choices of a side, and the score sheet, name the teams too (no assignment attached:
    # after a restart the round's own names are what the page has).
    pg, errs = open_page(1280, 900)
    h.open_table(pg, srv.url, "rita")
    option = pg.inner_text('#penalty-side option[value="NS"]')
    assert "淮安二队" in option and "T20" not in option, option
    pg.goto(f"{srv.url}/tables/1/scoresheet")
    pg.wait_for_selector('#app[data-connected="1"]')
    pg.wait_for_function("document.getElementById('sheet-levels').textContent.includes('江苏一队')")
    sheet = pg.inner_text("#app")
    assert "T01" not in sheet and "T20" not in sheet and "淮安二队" in pg.inner_text("#signatures")
    assert errors == [] and errs == []


@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)], ids=["1080p", "720p"])
def test_long_team_and_player_names_are_set_smaller_then_cut_in_the_middle(
        make_app, runner, serve_app, open_page, size):
    """Finding 8: two teams of one region, cut after ~8 characters, looked the same; 9-character
    player names were cut on the plates."""
    submit(runner, "round_set_up", {"players": LONG_PLAYERS, "teams": LONG_TEAMS, "ruleset": "jiangsu",
                                    "format": {"kind": "deals", "deals": 2}}, role="referee")
    submit(runner, "first_cut_recorded", {"card": "7s"})
    submit(runner, "drawing_finished", {})
    srv = serve_app(make_app(TABLES={"1": runner}))
    page, errors = open_overlay(open_page, srv.url, size)
    page.wait_for_selector("#ov-seat-N .plate-inner.turn")
    got = page.evaluate("""() => {
      const scale = Number(document.getElementById('ov').dataset.scale);
      const team = s => document.querySelector('#ov-bug .bug-side[data-side="' + s + '"] .team');
      const px = e => parseFloat(getComputedStyle(e).fontSize) * scale;
      return {ew: team('EW').textContent, ns: team('NS').textContent, ewFull: team('EW').dataset.full,
              teamPx: px(team('EW')), bugW: document.querySelector('#ov-bug .bug-inner').getBoundingClientRect().width / scale,
              bugRight: document.querySelector('#ov-bug .bug-inner').getBoundingClientRect().right,
              northLeft: document.querySelector('#ov-seat-N .plate-inner').getBoundingClientRect().left,
              names: ['E', 'S', 'W', 'N'].map(s => document.querySelector('#ov-seat-' + s + ' .name').textContent),
              cut: ['E', 'S', 'W', 'N'].map(s => { const n = document.querySelector('#ov-seat-' + s + ' .name');
                                                   return n.scrollWidth > n.clientWidth + 1; })};
    }""")
    assert got["ew"] != got["ns"] and got["ew"].endswith("一队") and got["ns"].endswith("二队"), got
    assert got["ew"].startswith("江苏") and got["ewFull"] == LONG_TEAMS["EW"]
    assert got["bugW"] > 400 and got["bugRight"] < got["northLeft"], got  # grown, and clear of the north plate
    assert got["teamPx"] >= 14, got
    assert got["names"] == [LONG_PLAYERS[s] for s in "ESWN"] and not any(got["cut"]), got
    assert page.evaluate(OUTSIDE_SAFE) == [] and page.evaluate(SMALL_TEXT) == [] and page.evaluate(OVERLAPS) == []
    shot(page, f"long-names-{size[0]}")
    assert errors == []


def test_no_text_under_14px_at_720p_and_the_jokers_differ_by_more_than_the_star(
        make_app, runner, serve_app, open_page, h):
    """Finding 9: the joker label was 7.3 px at 720p, the play type 8.7, 张 9.3, the seat lines 10."""
    srv = serve_app(make_app(TABLES={"1": runner}, FEED_DELAY_S=1.0))
    page, errors = open_overlay(open_page, srv.url, (1280, 720), "?popup_s=30")
    page.wait_for_selector("#ov-bug .bug-wait:not([hidden])")
    assert page.evaluate(SMALL_TEXT) == []  # waiting for the round
    h.setup_deal(runner)
    play(runner, "N", ["SJ"])
    play(runner, "W", ["BJ"])
    submit(runner, "report_pressed", {"seat": "S"}, source="screen")
    bad = h.play(runner, "E", ["9d"])  # out of turn: a flag, confirmed, and a ruling pop up
    submit(runner, "flag_confirmed", {"flag": f"F{bad.seq}"}, role="referee")
    submit(runner, "penalty_given", {"side": "EW", "seat": "E", "level": "warning", "article": "越序出牌 / out of turn",
                                     "flag": f"F{bad.seq}"}, role="referee")
    page.wait_for_selector("#ov-pops .pop-penalty.in", timeout=15_000)
    page.wait_for_timeout(400)
    small = page.evaluate(SMALL_TEXT)
    assert small == [], small
    jokers = page.evaluate("""() => ['SJ', 'BJ'].map(c => { const e = document.querySelector('#ov-trick [data-card="' + c + '"]');
      const cs = getComputedStyle(e), scale = e.getBoundingClientRect().width / e.offsetWidth;
      return {text: e.querySelector('.rank').textContent, bg: cs.backgroundImage, ring: cs.boxShadow, color: cs.color,
              px: parseFloat(getComputedStyle(e.querySelector('.rank')).fontSize) * scale}; })""")
    assert [j["text"] for j in jokers] == ["小王", "大王"], jokers
    assert jokers[0]["bg"] != jokers[1]["bg"] and jokers[0]["ring"] != jokers[1]["ring"], jokers
    assert min(j["px"] for j in jokers) >= 14, jokers
    assert page.evaluate(OUTSIDE_SAFE) == [] and page.evaluate(OVERLAPS) == []
    shot(page, "720-jokers")
    assert errors == []


def test_before_the_first_round_the_bug_waits_and_each_plate_says_its_seat_once(
        make_app, runner, serve_app, open_page, h):
    """Finding 10: "东西 2 / 南北 2" and "北 北" before any round."""
    srv = serve_app(make_app(TABLES={"1": runner}))
    page, errors = open_overlay(open_page, srv.url, (1920, 1080))
    page.wait_for_selector("#ov-bug .bug-wait:not([hidden])")
    assert page.inner_text("#ov-bug").split() == ["第", "1", "桌", "等待开局"], page.inner_text("#ov-bug")
    assert [page.inner_text(f"#ov-seat-{s}").strip() for s in "ESWN"] == ["东", "南", "西", "北"]
    en, _ = open_overlay(open_page, srv.url, (1920, 1080), "?lang=en")
    en.wait_for_selector("#ov-bug .bug-wait:not([hidden])")
    assert "waiting for the round" in en.inner_text("#ov-bug") and not CJK.search(en.inner_text("#ov"))
    h.setup_deal(runner)
    page.wait_for_selector("#ov-bug .bug-wait", state="hidden")
    # The round's set-up and its first deal are two updates: on a loaded machine the page draws between them.
    page.wait_for_function("document.getElementById('ov-bug').innerText.includes('第 1 副')")
    assert "第 1 轮 · 第 1 副" in page.inner_text("#ov-bug") and "赵敏" in page.inner_text("#ov-seat-N")
    assert errors == []


def _long_deal(runner: Any) -> None:
    """A deal of 41 events: North leads its 10 cards one by one, everyone passing; South, on the lead
    after North went out, plays its one card: North first, South second, NS up 3."""
    submit(runner, "drawing_finished", {"counts": {"N": 10, "S": 1, "E": 27, "W": 27}})
    for rank in "3456789TJQ":
        play(runner, "N", [rank + "h"])
        for seat in "WSE":
            play(runner, seat, None)
    play(runner, "S", ["Kd"])


def test_a_held_duplicate_deal_says_so_and_its_release_shows_where_it_ended(
        make_app, runner, serve_app, open_page, h):
    """Finding 2: "第 1 轮 · 第 — 副" with empty plates under "延时 3 秒" while the deal was held, then
    175 updates in 0.6 s on release. Now: the hold said (state.json and screen), nothing of the deal,
    and on release one drawing of the deal's end."""
    srv = serve_app(make_app(TABLES={"1": runner}, FEED_DELAY_S=0.5))
    page, errors = open_overlay(open_page, srv.url, (1280, 720))
    submit(runner, "round_set_up", {"players": h.PLAYERS, "teams": {"EW": "江苏", "NS": "淮安"},
                                    "format": {"kind": "deals", "deals": 3}, "board": "R1-M1"}, role="referee")
    submit(runner, "first_cut_recorded", {"card": "7s"})
    _long_deal(runner)
    page.wait_for_selector("#ov-delay.held", timeout=15_000)
    mark = page.inner_text("#ov-delay")
    assert "本副复式保留，结束后公布" in mark and "延时" not in mark, mark
    assert "第 1 轮 · 第 1 副" in page.inner_text("#ov-bug")
    assert page.locator("#ov [data-card]").count() == 0 and page.locator("#ov-trick").is_hidden()
    assert all(page.locator(f"#ov-seat-{s} .stats").is_hidden() for s in "ESWN")
    state, text = public(srv.url)
    assert state["held"] == {"deal": 1, "reason": "duplicate board"} and state["deal"] is None
    assert not any(f'"{r}h"' in text for r in "3456789TJQ") and '"Kd"' not in text
    assert page.evaluate(SMALL_TEXT) == [] and page.evaluate(OUTSIDE_SAFE) == []
    shot(page, "held")

    # Count what the overlay draws from here on: the release is one drawing, not one per event.
    page.evaluate("""() => { window.__draws = [];
      new MutationObserver(() => window.__draws.push(document.getElementById('ov').dataset.drawnSeq))
        .observe(document.getElementById('ov'), {attributes: true, attributeFilter: ['data-drawn-seq']}); }""")
    last = runner.events()[-1]["seq"]
    submit(runner, "deal_released", {"deal": 1}, role="chief")
    page.wait_for_selector('#ov-info[data-kind="deal"]:not([hidden])', timeout=15_000)
    draws = page.evaluate("window.__draws")
    assert len(draws) <= 2 and draws[-1] == str(last), draws  # 41 events, drawn once where they ended
    assert not page.locator("#ov-delay").evaluate("e => e.classList.contains('held')")
    info = page.inner_text("#ov-info")
    assert "第 1 副结果" in info and "南北 升 3 级" in info and "上游" in info, info
    assert "上游" in page.inner_text("#ov-seat-N") and "二游" in page.inner_text("#ov-seat-S")
    assert page.evaluate(SMALL_TEXT) == [] and page.evaluate(OVERLAPS) == []
    shot(page, "released")
    # The next deal begins and is held in its turn: the mark says so, deal 1's result stays up.
    submit(runner, "drawing_finished", {})
    page.wait_for_selector("#ov-delay.held", timeout=15_000)
    assert "第 1 轮 · 第 2 副" in page.inner_text("#ov-bug") and "第 1 副结果" in page.inner_text("#ov-info")
    assert errors == []


def _two_card_deal(runner: Any, first: bool) -> None:
    """N and S go out first (N 3s, W passes, S 5s): EW owe a double tribute next deal."""
    submit(runner, "drawing_finished", {"counts": {"N": 1, "S": 1, "E": 2, "W": 2}})
    if first:
        for seat, cards in (("N", ["3s"]), ("W", None), ("S", ["5s"])):
            play(runner, seat, cards)


def test_tribute_return_and_results_are_shown_between_the_plays(make_app, runner, serve_app, open_page, h):
    """Findings 5 and 6: the tribute and the return (a return face down stays face down), the deal's
    places and levels gained, and the round's winner and match points."""
    srv = serve_app(make_app(TABLES={"1": runner}))
    page, errors = open_overlay(open_page, srv.url, (1280, 720))
    submit(runner, "round_set_up", {"players": h.PLAYERS, "teams": {"EW": "江苏", "NS": "淮安"},
                                    "format": {"kind": "deals", "deals": 2}}, role="referee")
    submit(runner, "first_cut_recorded", {"card": "7s"})
    _two_card_deal(runner, first=True)
    page.wait_for_selector('#ov-info[data-kind="deal"]:not([hidden])')
    info = page.inner_text("#ov-info")
    assert "第 1 副结果" in info and "南北 升 3 级" in info and "上游" in info and "赵敏" in info, info
    assert page.locator("#ov-trick").is_hidden()

    _two_card_deal(runner, first=False)
    submit(runner, "tribute_given", {"seat": "W", "card": "BJ"})
    submit(runner, "tribute_given", {"seat": "E", "card": "Ad"})
    submit(runner, "return_given", {"seat": "N", "card": "4c"})
    page.wait_for_selector('#ov-info[data-kind="tribute"] .down')
    info = page.inner_text("#ov-info")
    assert "进贡" in info and "西 王强" in info and "北 赵敏" in info and "还贡" in info and "扣牌" in info, info
    assert page.locator('#ov-info [data-card="BJ"]').count() == 1 and page.locator('#ov-info [data-card="Ad"]').count() == 1
    assert page.locator('#ov [data-card="4c"]').count() == 0 and '"4c"' not in public(srv.url)[1]  # face down
    assert page.evaluate(SMALL_TEXT) == [] and page.evaluate(OUTSIDE_SAFE) == [] and page.evaluate(OVERLAPS) == []
    shot(page, "tribute")
    submit(runner, "return_given", {"seat": "S", "card": "5c"})
    page.wait_for_selector('#ov-info [data-card="5c"]')
    assert page.locator('#ov-info [data-card="4c"]').count() == 1 and "扣牌" not in page.inner_text("#ov-info")
    play(runner, "W", ["3s"])  # the lead: the tribute box gives way to the trick
    page.wait_for_selector("#ov-trick:not([hidden]) [data-card='3s']")
    assert page.locator("#ov-info").is_hidden()
    for seat, cards in (("S", ["5s"]), ("E", None), ("N", ["6s"])):
        play(runner, seat, cards)
    page.wait_for_selector('#ov-info[data-kind="round"]:not([hidden])')
    info = page.inner_text("#ov-info")
    assert "第 1 轮结束" in info and "南北 淮安 胜" in info and "比赛分" in info and "东西 0 : 2 南北" in info, info
    assert page.evaluate(SMALL_TEXT) == [] and page.evaluate(OUTSIDE_SAFE) == [] and page.evaluate(OVERLAPS) == []
    shot(page, "round-over")
    assert errors == []


def test_an_anti_tribute_is_shown(make_app, runner, serve_app, open_page, h):
    srv = serve_app(make_app(TABLES={"1": runner}))
    page, errors = open_overlay(open_page, srv.url, (1920, 1080), "?lang=en")
    submit(runner, "round_set_up", {"players": {"E": "Zhang", "S": "Li", "W": "Wang", "N": "Zhao"},
                                    "format": {"kind": "deals", "deals": 3}}, role="referee")
    submit(runner, "first_cut_recorded", {"card": "7s"})
    _two_card_deal(runner, first=True)
    _two_card_deal(runner, first=False)
    submit(runner, "anti_tribute_declared", {"seats": ["E"], "cards": ["BJ", "BJ"]})
    page.wait_for_selector('#ov-info[data-kind="tribute"]')
    info = page.inner_text("#ov-info")
    assert "Anti-tribute" in info and "East Zhang" in info and not CJK.search(page.inner_text("#ov")), info
    assert page.locator('#ov-info [data-card="BJ"]').count() == 2
    assert errors == []


def test_an_update_redraws_only_what_changed_and_an_idle_plate_has_no_clock_row(
        make_app, runner, serve_app, open_page, h):
    """Finding 12: every event rebuilt the whole overlay, restarting the 报 mark's glow; finding 17:
    an idle plate kept its clock row's room."""
    srv = serve_app(make_app(TABLES={"1": runner}))
    page, errors = open_overlay(open_page, srv.url, (1920, 1080))
    submit(runner, "round_set_up", {"players": h.PLAYERS, "format": {"kind": "deals", "deals": 2}}, role="referee")
    submit(runner, "first_cut_recorded", {"card": "7s"})
    submit(runner, "drawing_finished", {"counts": {"N": 11, "S": 27, "E": 27, "W": 27}})
    play(runner, "N", ["3s"])  # down to 10: the report card is due (from generation 9, only after a play)
    submit(runner, "report_pressed", {"seat": "N"}, source="screen")
    page.wait_for_selector('#ov-seat-N .report-mark[data-on="1"]')
    page.wait_for_function("Number(document.querySelector('#ov-clock-W .clock-num').textContent) > 0")
    heights = page.evaluate("""() => ({clockE: getComputedStyle(document.getElementById('ov-clock-E')).display,
      e: document.querySelector('#ov-seat-E .plate-inner').offsetHeight, w: document.querySelector('#ov-seat-W .plate-inner').offsetHeight})""")
    assert heights["clockE"] == "none" and heights["e"] < heights["w"] - 20, heights
    page.evaluate("""() => { const m = document.querySelector('#ov-seat-N .report-mark');
      m.dataset.probe = 'kept'; window.__glow = m.getAnimations()[0].startTime; window.__added = 0;
      new MutationObserver(rs => rs.forEach(r => r.addedNodes.forEach(n => { if (n.nodeType === 1) window.__added += 1; })))
        .observe(document.getElementById('ov-bug'), {childList: true, subtree: true});
      ['E', 'S', 'W', 'N'].forEach(s => new MutationObserver(rs => rs.forEach(r => r.addedNodes.forEach(n => {
        if (n.nodeType === 1) window.__added += 1; }))).observe(document.getElementById('ov-seat-' + s), {childList: true, subtree: true})); }""")
    seq = runner.events()[-1]["seq"]
    for seat in "WSE":
        play(runner, seat, None)
    play(runner, "N", ["4s"])  # the trick was N's: N leads again
    page.wait_for_function(f"Number(document.getElementById('ov').dataset.lastSeq) >= {seq + 4}")
    kept = page.evaluate("""() => { const m = document.querySelector('#ov-seat-N .report-mark');
      return {probe: m.dataset.probe || null, same: m.getAnimations()[0].startTime === window.__glow, added: window.__added}; }""")
    assert kept == {"probe": "kept", "same": True, "added": 0}, kept
    assert page.inner_text("#ov-seat-N .cards-left") == "9"
    assert errors == []
