"""The organiser's day by taps (the s36 audit: 16 tables, Chromium at a tablet's 1024 px and a phone's
390 px). Each test names what the audit found:

- the chief's overview listed its alerts (a refused result, an appeal, a bad message) and counted the
  tables needing the chief or offline, but none of it was a link: the chief searched for each by hand;
- correcting an earlier round's result: the correction list's table-number box chose the latest
  round only, and the list named teams by their ids beside the names;
- the results board cut every long team name on the hall's 1024 px screen ("南京…");
- the top bar wrapped into three lines on a 390 px phone and the hub's links into seven;
- hover titles showed team ids ("T07 – T12") over names.

Real browser (Playwright, Debian's Chromium, the pages' CSP on) for what the pages' scripts do, the
Flask test client for what the server renders. The hub runs without a broker: table messages are
handed to :meth:`HubService.handle_batch` as the broker would deliver them."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hub_browser import PASSWORD, log_in, serve_with_accounts, table_message

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import MAX_ID
from table_service.event.web import create_hub_app

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "event"
#: The longest team name EVENT.toml and the team form take (``MAX_ID`` characters), all Chinese.
LONGEST = ("江苏省南京市玄武区第一届职工掼蛋俱乐部代表队" * 4)[:MAX_ID]
TABLET, PHONE = (1024, 768), (390, 844)


def team_name(i: int) -> str:
    return LONGEST if i == 1 else f"南京第{i}掼蛋俱乐部代表队"


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubService]:
    """32 teams at 16 tables: round 1 played, its results published; round 2 published, its first four
    tables done."""
    cfg = validate({"event": {"id": "ev", "name": "江苏省掼蛋公开赛", "rounds": 3},
                    "teams": [{"id": f"T{i:02d}", "name": team_name(i)} for i in range(1, 33)],
                    "tables": [{"id": str(i), "panel": f"http://10.0.0.{10 + i}:8080/tables/{i}"}
                               for i in range(1, 17)]})
    h = HubService(cfg, tmp_path / "hub", connect=False)
    for rnd, done in ((1, 16), (2, 4)):
        h.draw_next("org", "chief")
        h.publish_draw(rnd, "org", "chief")
        for i, t in enumerate(h.core.draws[rnd]["tables"][:done]):
            h.hand_result({"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 1 + i % 9,
                           "ew_levels": 2}, "rita", "referee")
        if rnd == 1:
            h.publish_results(1, "chen", "chief")
    yield h
    h.stop()


@pytest.fixture
def web(hub: HubService, tmp_path: Path) -> Iterator[str]:
    handle = serve_with_accounts(hub, tmp_path, {"chen": "chief", "vera": "viewer"})
    try:
        yield handle.url
    finally:
        handle.stop()


@pytest.fixture
def pages(open_page: Any) -> Iterator[Any]:
    """``pages(width, height) -> page`` with the page's CSP on (a phone's browser below 500 px); no page
    may throw."""
    opened: list[list[str]] = []

    def _open(width: int, height: int) -> Any:
        pg, errors = open_page(width, height, bypass_csp=False, timeout_ms=20_000, mobile=width < 500)
        opened.append(errors)
        return pg

    yield _open
    assert [e for errs in opened for e in errs] == [], "JavaScript errors"


def _status(table: str, online: bool) -> tuple[str, str, bytes, bool]:
    return table_message(table, "status", {
        "table": table, "event": "ev", "status": "online" if online else "offline", "reason": None,
        "wall_ms": int(time.time() * 1000), "panel": f"http://10.0.0.{10 + int(table)}:8080/tables/{table}"})


def _summary(table: str, open_flags: int) -> tuple[str, str, bytes, bool]:
    return table_message(table, "summary", {
        "table": table, "round": 2, "round_status": "playing", "teams": None, "deal": 3,
        "levels": {"NS": "5", "EW": "4"}, "open_flags": open_flags, "doubts": 0, "clocks_over": 0,
        "penalties": None, "signed": None, "finished": False, "panel": None, "deck": None, "last_seq": 40,
        "wall_ms": int(time.time() * 1000)})


def _alerts_day(hub: HubService) -> dict[str, Any]:
    """Round 2 in play with one of each thing the chief is alerted to: a table whose open flag needs
    the chief, an offline table, a bad message, a refused result (a table that already has one sent
    another) and an appeal. Returns the tables and ids concerned."""
    tables = hub.core.draws[2]["tables"]
    flagged, offline, faulty, refused, appealed = (tables[i] for i in (14, 15, 12, 3, 2))
    hub.handle_batch([_status(t["table"], t is not offline) for t in tables])
    hub.handle_batch([_summary(flagged["table"], 2)])
    hub.handle_batch([(faulty["table"], "summary", b"{not json", True)])
    line = {"round": 2, "table": refused["table"], "ns": refused["ns"], "ew": refused["ew"], "ns_levels": 6,
            "ew_levels": 1}
    hub.handle_batch([table_message(refused["table"], "result", {
        "result_id": "r2-s9", "result": line, "table_seq": 9, "reason": "deals",
        "wall_ms": int(time.time() * 1000)})])
    appeal = hub.file_appeal(2, appealed["table"], appealed["ew"], "对方越序 / out of turn", "chen", "chief")
    assert len(hub.core.refusals) == 1 and hub.core.bad_messages
    return {"flagged": flagged["table"], "offline": offline["table"], "faulty": faulty["table"],
            "refused": refused["table"], "refusal": hub.core.refusals[0]["seq"], "appeal": appeal["data"]["id"]}


def _in_view(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    vp = page.viewport_size
    return box is not None and box["y"] >= 0 and box["y"] + min(box["height"], 40) <= vp["height"]


def _shown(page: Any) -> list[str]:
    return page.eval_on_selector_all("#ov-grid .tcard", "cs => cs.map(c => c.dataset.table)")


# ------------------------------------------------------------------ 1. the overview's alerts lead somewhere


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [TABLET, PHONE], ids=["tablet", "phone"])
def test_each_alert_on_the_overview_leads_with_one_tap_to_where_it_is_dealt_with(
        viewport: tuple[int, int], hub: HubService, web: str, pages: Any, small_controls: Any) -> None:
    day = _alerts_day(hub)
    page = pages(*viewport)
    log_in(page, web, "chen", "/hub/")
    page.wait_for_selector("#ov-counts button")
    page.wait_for_timeout(300)
    assert small_controls(page, "#ov") == []
    # A refused result: its row on the organiser page, in view, where 已处理 and the correction are.
    page.click("#ov-alerts a.refusal")
    page.wait_for_selector(f"#refusal-{day['refusal']}")
    assert page.url.endswith(f"/hub/admin#refusal-{day['refusal']}")
    assert _in_view(page, f"#refusal-{day['refusal']}")
    page.go_back()
    # An appeal: its row on the organiser page, where it is decided.
    page.wait_for_selector("#ov-alerts a.appeal")
    page.click("#ov-alerts a.appeal")
    page.wait_for_selector(f"#appeal-{day['appeal']}")
    assert page.url.endswith(f"/hub/admin#appeal-{day['appeal']}")
    assert _in_view(page, f"#appeal-{day['appeal']}")
    page.go_back()
    # A bad message: its table's card here (its faults counted, its panel one tap on), in view and marked.
    page.wait_for_selector("#ov-alerts a.fault")
    page.click("#ov-alerts a.fault")
    card = f'#ov-grid .tcard[data-table="{day["faulty"]}"]'
    page.wait_for_selector(f"{card}.pointed")
    assert _in_view(page, card)
    # The tables needing the chief: only they, with one tap; each card is its panel's link.
    page.click("#ov-only-attention")
    assert set(_shown(page)) == {day["flagged"], day["faulty"], day["refused"]}  # refused: a fault of its table
    assert page.get_attribute(f'#ov-grid .tcard[data-table="{day["flagged"]}"]', "href") == \
        f"http://10.0.0.{10 + int(day['flagged'])}:8080/tables/{day['flagged']}"
    page.wait_for_timeout(2500)  # and so over the next poll
    assert set(_shown(page)) == {day["flagged"], day["faulty"], day["refused"]}
    page.click("#ov-only-attention")  # pressed again: every table
    assert len(_shown(page)) == 16
    # The tables not connected (here one gone offline): only they.
    page.click("#ov-only-silent")
    assert _shown(page) == [day["offline"]] and _in_view(page, f'#ov-grid .tcard[data-table="{day["offline"]}"]')
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"hub-overview-alerts-{viewport[0]}.png"))


def test_the_overviews_alerts_are_links_as_the_server_draws_them(hub: HubService, web: str) -> None:
    """Before the page's first poll (and without its script) the alerts lead there too; a viewer, who
    may not open the organiser page, is led to the table's card instead."""
    day = _alerts_day(hub)
    for who, refusal, appeal in (("chen", f'href="/hub/admin#refusal-{day["refusal"]}"',
                                  f'href="/hub/admin#appeal-{day["appeal"]}"'),
                                 ("vera", f'href="#table-{day["refused"]}"', 'data-card="')):
        c = _client(hub, web, who)
        page = c.get("/hub/").get_data(as_text=True)
        alerts = page.split('id="ov-alerts"', 1)[1].split('id="ov-grid"', 1)[0]
        assert refusal in alerts and appeal in alerts and f'href="#table-{day["faulty"]}"' in alerts, alerts
        assert "<p class=\"alert" not in alerts
        assert f'id="table-{day["faulty"]}"' in page  # the card a link leads to


def _client(hub: HubService, web: str, who: str) -> Any:
    app = create_hub_app(hub, users_db=str(hub.data_dir.parent / "users.sqlite3"))
    app.config["TESTING"] = True
    c = app.test_client()
    token = c.get("/auth/whoami").get_json()["csrf_token"]
    assert c.post("/auth/login", data={"username": who, "password": PASSWORD, "csrf_token": token}).status_code == 302
    return c


# ------------------------------------------------------------------ 2. an earlier round's result corrected


def test_the_correction_list_holds_every_published_rounds_tables_by_round_and_team_names(
        hub: HubService, web: str) -> None:
    page = _client(hub, web, "chen").get("/hub/admin").get_data(as_text=True)
    # The latest round in the list, the earlier ones in its template (the round chooser swaps them in).
    listing = page.split('id="correct-slot"', 1)[1].split("</template>", 1)[0]
    assert '<template id="correct-rounds">' in listing
    groups = listing.split("<optgroup")[1:]
    assert [g.split(">", 1)[0].strip() for g in groups] == [
        'label="第 2 轮 / round 2" data-round="2"', 'label="第 1 轮 / round 1" data-round="1"']
    assert [g.count("<option") for g in groups] == [4, 16]  # round 2's four finished tables, round 1's sixteen
    t = hub.core.draws[1]["tables"][0]
    names = hub.core.team_names()
    option = next(o for o in groups[1].split("<option")[1:] if f'value="1|{t["table"]}"' in o)
    assert f'data-basis="{hub.core.results[(1, t["table"])].seq}"' in option
    assert f"{names[t['ns']]} " in option and f" {names[t['ew']]} " in option
    assert f"({t['ns']})" not in listing and f"({t['ew']})" not in listing  # names, not ids


@pytest.mark.browser
def test_an_earlier_rounds_result_is_corrected_by_round_and_table_number_over_its_own_basis(
        hub: HubService, web: str, pages: Any, small_controls: Any) -> None:
    page = pages(*TABLET)
    log_in(page, web, "chen", "/hub/admin")
    page.wait_for_selector("#correct-slot-round")
    assert page.input_value("#correct-slot-round") == "2"  # the latest round's tables first
    target = hub.core.draws[1]["tables"][2]
    also_in_2 = next(t for t in hub.core.draws[2]["tables"][:4] if t["table"] != target["table"])
    # The table number alone chooses in the round chosen: round 2's first, then the same number in round 1.
    page.fill("#correct-slot-jump", also_in_2["table"])
    assert page.input_value("#correct-slot") == f"2|{also_in_2['table']}"
    page.select_option("#correct-slot-round", "1")
    assert page.input_value("#correct-slot") == f"1|{also_in_2['table']}"
    assert page.input_value("#correct-basis") == str(hub.core.results[(1, also_in_2["table"])].seq)
    page.fill("#correct-slot-jump", target["table"])
    assert page.input_value("#correct-slot") == f"1|{target['table']}"
    shown = hub.core.results[(1, target["table"])]
    assert page.input_value("#correct-basis") == str(shown.seq)  # the basis follows the table chosen
    assert (page.input_value("#correct-ns"), page.input_value("#correct-ew")) == (
        str(shown.line["ns_levels"]), str(shown.line["ew_levels"]))
    assert small_controls(page, "#correct-form") == []
    page.fill("#correct-ns", "7")
    page.fill("#correct-reason", "录入有误 / typo")
    page.click("#correct-submit")
    page.wait_for_selector("#flash-ok")
    line = hub.core.results[(1, target["table"])].line
    assert (line["ns_levels"], hub.core.results[(1, target["table"])].source) == (7, "correction")
    assert hub.core.results[(2, also_in_2["table"])].source == "hand"  # round 2's table of that number untouched


# ------------------------------------------------------------------ 3. the board names every team whole

#: Cells whose text is cut (wider or taller than the box that clips it) or set to end in an ellipsis.
CUT_JS = """cells => cells.filter(c => {
  const cs = getComputedStyle(c);
  const clips = cs.overflow !== 'visible' || cs.overflowX !== 'visible';
  return cs.textOverflow === 'ellipsis' && clips || clips && (c.scrollWidth > c.clientWidth + 1 ||
         c.scrollHeight > c.clientHeight + 1) || c.getBoundingClientRect().right > innerWidth;
}).map(c => c.innerText)"""


@pytest.mark.browser
def test_the_board_shows_the_longest_team_name_whole_on_the_halls_1024_screen(
        hub: HubService, web: str, pages: Any) -> None:
    board = pages(*TABLET)
    board.goto(f"{web}/hub/board")
    board.wait_for_selector("#b-tables tbody tr")
    table = next(t["table"] for t in hub.core.draws[2]["tables"] if "T01" in (t["ns"], t["ew"]))
    row = f'#b-tables tbody tr[data-table="{table}"]'
    names = board.eval_on_selector_all(f"{row} td", "cs => cs.map(c => c.innerText)")
    assert LONGEST in names, names
    assert board.eval_on_selector_all(f"{row} td", CUT_JS) == []
    assert board.eval_on_selector_all("#b-tables tbody td", CUT_JS) == []  # nor any other team's
    board.fill("#b-find", LONGEST[:8])  # its standings row (the standings page themselves by 16)
    board.wait_for_timeout(300)
    assert LONGEST in board.inner_text("#b-standings tbody")
    assert board.eval_on_selector_all("#b-standings tbody td", CUT_JS) == []
    assert board.evaluate("document.documentElement.scrollWidth") <= TABLET[0]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    board.fill("#b-find", "")
    board.wait_for_timeout(300)
    board.screenshot(path=str(ARTIFACTS / "hub-board-1024-long-names.png"))


# ------------------------------------------------------------------ 4. the phone's bars on one line


@pytest.mark.browser
def test_the_top_bar_and_the_hubs_links_keep_one_line_on_a_phone(
        hub: HubService, web: str, pages: Any, small_controls: Any, one_line: Any) -> None:
    page = pages(*PHONE)
    log_in(page, web, "chen", "/hub/")
    for url in ("/hub/", "/hub/admin", "/hub/broadcast"):
        page.goto(f"{web}{url}")
        page.wait_for_load_state("networkidle")
        for bar in (".topbar", ".hub-nav"):
            assert one_line(page, bar) is None, url
            assert small_controls(page, bar) == [], url
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0], url
    # The bar's links past the screen's edge are reached by scrolling the bar, not the page.
    nav = page.locator(".hub-nav")
    assert nav.evaluate("n => n.scrollWidth > n.clientWidth && getComputedStyle(n).overflowX") == "auto"
    page.locator("#nav-standings").scroll_into_view_if_needed()
    box = page.locator("#nav-standings").bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE[0] + 1
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "hub-phone-bars.png"))


# ------------------------------------------------------------------ 5. hover titles name teams


@pytest.mark.browser
def test_hover_titles_on_the_overview_and_the_board_name_teams_not_ids(
        hub: HubService, web: str, pages: Any) -> None:
    names = hub.core.team_names()
    page = pages(*TABLET)
    log_in(page, web, "chen", "/hub/")
    for url, selector in (("/hub/", "#ov-grid .tcard .teams"), ("/hub/board", "#b-tables tbody td")):
        page.goto(f"{web}{url}")
        page.wait_for_selector(selector)
        page.wait_for_timeout(2500 if url == "/hub/" else 300)  # the overview's own poll has drawn it again
        titles = page.eval_on_selector_all("[title]", "els => els.map(e => e.title)")
        assert titles and not [t for t in titles if any(tid in t.split() for tid in names)], titles
        t = hub.core.draws[2]["tables"][0]
        assert f"{names[t['ns']]} – {names[t['ew']]}" in titles or names[t["ns"]] in titles, titles
