"""Real browser (Playwright, Debian's Chromium, the hub's pages on cheroot): the organiser of a large
event (an audit walked 500 tables) finds a table by its number, and the chief's overview shows the
tables that need the chief first.

Before, the hand-entry, correction and appeal forms were lists of 500 options (3,500 by round 7)
with no way to jump to a table, and the overview was 500 cards in table order."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hub_browser import log_in, serve_with_accounts

from table_service.event.config import validate
from table_service.event.hub import HubService

pytestmark = pytest.mark.browser


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[HubService, str]]:
    cfg = validate({"event": {"id": "big", "name": "大赛", "rounds": 2},
                    "teams": [{"id": f"T{i:02d}", "name": f"队{i}"} for i in range(1, 53)]})
    hub = HubService(cfg, tmp_path / "hub", connect=False)
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    for t in hub.core.draws[1]["tables"][:3]:  # three tables done: the rest still playing
        hub.hand_result({"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 3,
                         "ew_levels": 2}, "rita", "referee")
    web = serve_with_accounts(hub, tmp_path, {"chen": "chief"})
    try:
        yield hub, web.url
    finally:
        web.stop()
        hub.stop()


def _login(open_page: Any, url: str, target: str) -> tuple[Any, list[str]]:
    page, errors = open_page(1280, 1000, bypass_csp=False)
    log_in(page, url, "chen", target)
    return page, errors


def test_a_table_number_chooses_the_table_in_a_long_list(live: Any, open_page: Any) -> None:
    hub, url = live
    page, errors = _login(open_page, url, "/hub/admin")
    page.wait_for_selector("#hand-slot-jump")
    tables = [t["table"] for t in hub.core.draws[1]["tables"]]
    page.fill("#hand-slot-jump", tables[20])
    assert page.input_value("#hand-slot") == f"1|{tables[20]}"
    page.fill("#hand-slot-jump", "999")  # no such table: the choice stays, the box says so
    assert page.input_value("#hand-slot") == f"1|{tables[20]}"
    assert "nomatch" in (page.get_attribute("#hand-slot-jump", "class") or "")
    assert errors == []


def _until(page: Any, expression: str, timeout_s: float = 15.0) -> None:
    """Until ``expression`` is true in the page, polled from here: ``wait_for_function`` polls with an
    eval the hub pages' CSP refuses, whenever its first try is not already true (a loaded run)."""
    end = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        assert time.monotonic() < end, f"never true: {expression}"
        page.wait_for_timeout(100)


def test_the_overview_of_many_tables_puts_the_finished_ones_last_with_a_tap(live: Any, open_page: Any) -> None:
    """Table order while the page is live (the s39 audit: sorted on every poll, cards moved under the
    finger); one tap on 需处理的在前 puts the finished tables last."""
    hub, url = live
    page, errors = _login(open_page, url, "/hub/")
    page.wait_for_selector(".tcard")
    _until(page, "document.getElementById('ov-counts').textContent.length > 0")  # the first poll drawn
    tables = [t["table"] for t in hub.core.draws[1]["tables"]]
    assert page.eval_on_selector_all(".tcard:not(.other)", "els => els.map(e => e.dataset.table)") == tables
    page.click("#ov-order-attention")
    order = page.eval_on_selector_all(".tcard:not(.other)", "els => els.map(e => e.dataset.table)")
    done = tables[:3]
    assert len(order) == 26 and order[-3:] == done and order[0] not in done
    assert errors == []


def test_a_player_finds_a_team_on_the_board(live: Any, open_page: Any) -> None:
    """52 teams page for minutes on a hall's screen: typed into the board's find box, a team's name
    keeps its row (and its table) and the paging stops."""
    hub, url = live
    page, errors = open_page(390, 800, bypass_csp=False)  # a phone
    page.goto(f"{url}/hub/board")
    page.wait_for_selector("#b-standings tbody tr")
    page.fill("#b-find", "队37")
    _until(page, "document.querySelectorAll('#b-standings tbody tr').length === 1")
    assert "队37" in page.inner_text("#b-standings tbody")
    tables = page.eval_on_selector_all("#b-tables tbody tr", "rs => rs.map(r => r.dataset.table)")
    mine = [t["table"] for t in hub.core.draws[1]["tables"] if "T37" in (t["ns"], t["ew"])]
    assert tables == mine
    assert errors == []


def test_a_double_tapped_appeal_is_filed_once(live: Any, open_page: Any) -> None:
    """The organiser's forms post once: a double tap on 申诉 filed two appeals (and on 编排 drew twice, on
    发给各桌 sent the deck twice)."""
    hub, url = live
    page, errors = _login(open_page, url, "/hub/admin")
    t = hub.core.draws[1]["tables"][0]
    page.wait_for_selector("#appeal-slot")
    page.select_option("#appeal-slot", f"1|{t['table']}")
    page.select_option("#appeal-team", t["ew"])
    page.fill('form [name="text"]', "对方越序 / out of turn")
    before = hub.core.last_seq
    posts: list[str] = []
    page.on("request", lambda r: posts.append(r.url) if r.method == "POST" and "/hub/action/appeal" in r.url else None)
    page.locator('form:has(#appeal-slot) button[type="submit"]').dblclick()
    page.wait_for_load_state("load")
    page.wait_for_timeout(1000)
    assert len(posts) == 1  # the page sent it once (the hub would refuse the same appeal again anyway)
    assert len(hub.core.appeals) == 1 and hub.core.last_seq == before + 1
    assert errors == []


def test_a_table_panel_on_the_same_host_does_not_log_the_hub_out(live: Any, open_page: Any, tmp_path: Path) -> None:
    """The tap audit: with the hub and the tables' panels on one host (the event demo; a one-machine
    event), opening a table from the overview replaced the hub's cookie (both were "guandan_session"):
    back on the hub, the chief was at the login page."""
    from hub_browser import PASSWORD

    from table_service.web import users
    from table_service.web.app import create_app
    from table_service.web.server import serve

    hub, url = live
    db = str(tmp_path / "table-users.sqlite3")
    conn = users.connect(db)
    users.add_user(conn, "chen", PASSWORD, "chief")
    conn.close()
    tables = serve(create_app({"USERS_DB": db}), "127.0.0.1", 0)
    try:
        page, errors = _login(open_page, url, "/hub/")
        page.wait_for_selector("#overview, .overview, main")
        log_in(page, tables.url, "chen", "/")
        page.wait_for_load_state("load")
        page.goto(f"{url}/hub/")
        assert "/auth/login" not in page.url, page.url
        assert errors == []
    finally:
        tables.stop()


def test_the_organiser_s_controls_are_finger_sized(live: Any, open_page: Any) -> None:
    """The tap audit: the organiser page's selects were 19 px tall, its inputs 21, its navigation 19."""
    hub, url = live
    page, errors = _login(open_page, url, "/hub/admin")
    page.wait_for_selector("#appeal-slot")
    small = page.evaluate("""() => [...document.querySelectorAll(
            '.admin select, .admin input:not([type=hidden]):not([type=checkbox]):not([type=file]), .admin button, .hub-nav a')]
        .filter(e => e.offsetParent !== null)
        .map(e => [e.id || e.name || e.tagName, e.getBoundingClientRect().height])
        .filter(r => r[1] > 0 && r[1] < 43.5)""")
    assert small == [], small
    assert page.locator(".admin select").count() >= 3 and page.locator(".hub-nav a").count() >= 3
    assert errors == []
