"""The chief's overview and the hall board at a large field (the s39 audit: an organiser's day at 200
tables, real Mosquitto and Chromium). Each test names what the audit found:

- a table whose Pi never connected this round counted as "playing": at a round's start nothing said
  which tables were silent;
- past 24 tables the overview's cards re-sorted on every poll (those needing the chief first, the
  finished last): a card moved while the chief reached for it;
- the hall board's lots line (round 1's lots tie the whole field) ran 2,600 px off the 1080 screen.

Real browser (Playwright, Debian's Chromium, the pages' CSP on) for what the pages' scripts do. The hub
runs without a broker: table messages are handed to :meth:`HubService.handle_batch` as the broker
would deliver them; its clock stands still, so a card changes only when its table does."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hub_browser import PASSWORD, log_in, serve_with_accounts, table_message
from page_checks import outside_safe

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.web import create_hub_app

T0 = 1_760_000_000_000  # the hub's clock (ms), and the tables' wall clock in their messages
TABLES = 26  # more than the 24 past which the overview once sorted its cards


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubService]:
    """52 teams at 26 tables, round 1 published at ``T0``; a chief referee ``chen``."""
    cfg = validate({"event": {"id": "ev", "name": "江苏省掼蛋公开赛", "rounds": 3},
                    "teams": [{"id": f"T{i:02d}", "name": f"南京第{i}掼蛋俱乐部代表队"} for i in range(1, 2 * TABLES + 1)]})
    h = HubService(cfg, tmp_path / "hub", connect=False, clock_ms=lambda: T0)
    h.draw_next("org", "chief")
    h.publish_draw(1, "org", "chief")
    yield h
    h.stop()


@pytest.fixture
def web(hub: HubService, tmp_path: Path) -> Iterator[str]:
    handle = serve_with_accounts(hub, tmp_path, {"chen": "chief"})
    try:
        yield handle.url
    finally:
        handle.stop()


def _status(table: str, online: bool) -> tuple[str, str, bytes, bool]:
    return table_message(table, "status", {
        "table": table, "event": "ev", "status": "online" if online else "offline",
        "reason": None if online else "connection lost", "wall_ms": T0, "panel": None})


def _summary(table: str, open_flags: int) -> tuple[str, str, bytes, bool]:
    return table_message(table, "summary", {
        "table": table, "round": 1, "round_status": "playing", "teams": None, "deal": 3,
        "levels": {"NS": "5", "EW": "4"}, "open_flags": open_flags, "doubts": 0, "clocks_over": 0,
        "penalties": None, "signed": None, "finished": False, "panel": None, "deck": None, "last_seq": 40,
        "wall_ms": T0})


def _done(hub: HubService, t: dict[str, Any]) -> None:
    hub.hand_result({"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 3, "ew_levels": 2},
                    "rita", "referee")


def _round_start(hub: HubService) -> dict[str, Any]:
    """The start of round 1 as the audit saw it: most Pis online, one gone offline (its last will),
    four never heard from — one of those with its result entered by hand — and one table whose open
    flag needs the chief. Returns the tables by what they are."""
    tables = hub.core.draws[1]["tables"]
    ids = [t["table"] for t in tables]
    offline, never, handed, flagged = ids[7], ids[20:23], ids[23], ids[2]
    hub.handle_batch([_status(i, i != offline) for i in ids if i not in (*never, handed)])
    hub.handle_batch([_summary(flagged, 1)])
    _done(hub, tables[ids.index(handed)])
    return {"ids": ids, "offline": offline, "never": never, "handed": handed, "flagged": flagged,
            "silent": [offline, *never]}


def _until(page: Any, expression: str, timeout_s: float = 15.0) -> None:
    """Until ``expression`` is true in the page, polled from here (the page's CSP refuses the eval
    ``wait_for_function`` needs); each wait is a Playwright call, so the page goes on polling."""
    end = time.monotonic() + timeout_s
    while not page.evaluate(expression):
        assert time.monotonic() < end, f"never true: {expression}"
        page.wait_for_timeout(100)


def _shown(page: Any) -> list[str]:
    return page.eval_on_selector_all("#ov-grid .tcard", "cs => cs.map(c => c.dataset.table)")


def _card_says(table: str, needle: str) -> str:
    return (f"Array.from(document.querySelectorAll('#ov-grid .tcard')).some(c => c.dataset.table === "
            f"{json.dumps(table)} && c.textContent.includes({json.dumps(needle)}))")


# ------------------------------------------------------------------ 1. 未连接 / not connected


def test_the_overview_says_whether_each_tables_pi_is_connected(hub: HubService) -> None:
    """One rule, the hub's: connected is the last status saying online; never heard from and gone
    offline (the broker's last will) are both not connected, in the round's tables and the others."""
    day = _round_start(hub)
    ov = hub.overview()
    connected = {t["table"]: t["connected"] for t in ov["tables"]}
    assert {t for t, c in connected.items() if not c} == {*day["silent"], day["handed"]}
    hub.handle_batch([_status(day["never"][0], True)])  # a Pi comes up late
    assert next(t for t in hub.overview()["tables"] if t["table"] == day["never"][0])["connected"] is True


@pytest.mark.browser
def test_the_tables_not_connected_are_counted_and_shown_alone_with_one_tap(
        hub: HubService, web: str, pages: Any) -> None:
    day = _round_start(hub)
    page = pages()
    log_in(page, web, "chen", "/hub/")
    page.wait_for_selector("#ov-only-silent")
    counts = page.inner_text("#ov-counts")
    # 26 tables: 1 done (by hand, its Pi never heard from), 4 not connected, 20 connected and not started,
    # 1 playing (the flagged one, whose summary says so).
    assert "未连接 4 / not connected 4" in counts and "进行中 1 / playing 1" in counts, counts
    assert "未开始 20 / not started 20" in counts and "已完赛 1 / done 1" in counts, counts
    page.click("#ov-only-waiting")
    assert len(_shown(page)) == 20 and all(
        w == "未开始 / not started" for w in page.eval_on_selector_all(
            "#ov-grid .tcard .st", "ss => ss.map(s => s.textContent.split(' · ')[0])")), "only the tables not started"
    page.click("#ov-only-waiting")
    page.click("#ov-only-silent")
    assert _shown(page) == day["silent"]
    words = page.eval_on_selector_all("#ov-grid .tcard .st", "ss => ss.map(s => s.textContent)")
    assert words == ["未连接（已离线） / not connected (went offline)"] + \
        ["未连接（尚无消息） / not connected (never heard from)"] * 3
    # A silent table's Pi comes up: it leaves the list at the next poll, and the count follows.
    hub.handle_batch([_status(day["never"][0], True)])
    _until(page, f"document.querySelectorAll('#ov-grid .tcard').length === {len(day['silent']) - 1}")
    assert "未连接 3 / not connected 3" in page.inner_text("#ov-counts")
    page.click("#ov-only-silent")  # pressed again: every table
    assert len(_shown(page)) == TABLES


def test_the_server_drawn_overview_says_not_connected_too(hub: HubService, web: str, tmp_path: Path) -> None:
    """Before the page's first poll (and without its script) a silent table's card says so."""
    day = _round_start(hub)
    app = create_hub_app(hub, users_db=str(tmp_path / "users.sqlite3"))
    app.config["TESTING"] = True
    c = app.test_client()
    token = c.get("/auth/whoami").get_json()["csrf_token"]
    c.post("/auth/login", data={"username": "chen", "password": PASSWORD, "csrf_token": token})
    html = c.get("/hub/").get_data(as_text=True)
    for table, words in ((day["offline"], "未连接（已离线） / not connected (went offline)"),
                         (day["never"][0], "未连接（尚无消息） / not connected (never heard from)")):
        card = html.split(f'id="table-{table}"', 1)[1].split("</a>", 1)[0]
        assert words in card and "silent" in html.split(f'id="table-{table}"', 1)[0].rsplit("<a ", 1)[1]


# ------------------------------------------------------------------ 2. nothing moves under a finger


@pytest.mark.browser
def test_the_cards_keep_their_order_while_tables_change_and_the_chiefs_order_stays(
        hub: HubService, web: str, pages: Any) -> None:
    day = _round_start(hub)
    ids = day["ids"]
    page = pages()
    log_in(page, web, "chen", "/hub/")
    page.wait_for_selector("#ov-only-silent")  # the first poll is drawn
    assert _shown(page) == ids  # table order, a done table and a flagged one where they stand
    # A card that does not change stays the very element under the finger across polls.
    silent = day["never"][1]
    page.eval_on_selector(f'#ov-grid .tcard[data-table="{silent}"]', "c => { c.dataset.mark = 'kept'; }")
    _done(hub, hub.core.draws[1]["tables"][4])  # tables change while the chief looks
    hub.handle_batch([_summary(ids[10], 2)])
    _until(page, _card_says(ids[4], "已完赛") + " && " + _card_says(ids[10], "待处理"))
    assert _shown(page) == ids
    assert page.get_attribute(f'#ov-grid .tcard[data-table="{silent}"]', "data-mark") == "kept"

    # The chief's tap: those needing the chief first, then not connected, then playing, then done.
    page.click("#ov-order-attention")
    need = [day["flagged"], ids[10]]
    done = [ids[4], day["handed"]]
    taken = need + day["silent"] + [i for i in ids if i not in (*need, *day["silent"], *done)] + done
    assert _shown(page) == taken
    assert page.get_attribute("#ov-order-attention", "aria-pressed") == "true"
    # It stays as tables change (a playing table finishes: it keeps its place), and over a reload.
    _done(hub, hub.core.draws[1]["tables"][12])
    _until(page, _card_says(ids[12], "已完赛"))
    assert _shown(page) == taken
    page.reload()
    page.wait_for_selector("#ov-only-silent")
    _until(page, f"document.querySelector('#ov-grid .tcard').dataset.table === {json.dumps(taken[0])}")
    assert _shown(page) == taken
    page.click("#ov-order-table")  # and back to table order with a tap
    assert _shown(page) == ids


# ------------------------------------------------------------------ 3. the hall board's lots line


@pytest.mark.browser
def test_the_boards_lots_line_stays_on_the_hall_screen_and_names_the_pages_teams(
        tmp_path: Path, pages: Any) -> None:
    """Round 1's lots tie the whole field: 100 teams with long names. At the hall's 1920x1080 the line
    lies within the screen, and names the teams of the page shown, in the lots' order."""
    name = "江苏省南京市玄武区第{}届职工掼蛋俱乐部代表队暨全民健身运动会参赛队"
    cfg = validate({"event": {"id": "big", "name": "大赛", "rounds": 3},
                    "teams": [{"id": f"T{i:03d}", "name": name.format(i)} for i in range(1, 101)]})
    h = HubService(cfg, tmp_path / "hub", connect=False)
    h.draw_next("org", "chief")
    h.publish_draw(1, "org", "chief")
    assert [len(g["teams"]) for g in h.standings_json(public=True)["lots"]] == [100]
    handle = serve_with_accounts(h, tmp_path, {})
    try:
        page = pages(1920, 1080)
        page.goto(f"{handle.url}/hub/board")
        page.wait_for_selector("#b-standings tbody tr")
        _until(page, "document.getElementById('b-lots').textContent.length > 0")
        assert page.evaluate(outside_safe("#b-lots", margin=0)) == []
        rows = page.eval_on_selector_all("#b-standings tbody td.b-team", "ts => ts.map(t => t.title)")
        line = page.eval_on_selector("#b-lots", "p => p.textContent")  # the whole text, cut or not
        assert line.startswith("抽签 / lots: ")
        assert line[len("抽签 / lots: "):].split(" > ") == rows + ["…"]  # the lots run on to the next page
    finally:
        handle.stop()
        h.stop()
