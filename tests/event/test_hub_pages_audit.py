"""The hub's pages after the issue-26 UX audit (a walk-through with a real broker, bot tables and
two chief referees). Each test names what the audit found:

- the overview threw away every answer that was not OK: after the login ended it went on showing
  round 1 with "MQTT: 已连接" while round 2 was being played;
- a forfeit read "0 : 0" on the hall's board and "done 0:0 (hand)" on the overview;
- the overview was empty until round 1 was published: tables coming online could not be watched;
- a table not yet started showed the panel's default "levels NS 2 · EW 2" as if playing;
- English-only words (the draw method, where a result came from, ruleset presets) and a refused
  result shown as raw JSON;
- the organiser page was 760 px wide on a 390 px phone (the import box), the broadcast page 572 px,
  the printed results 406 px, the board's tables off the screen;
- a referee was offered the deck's upload and withdraw forms, which only the chief may use.

The s35 audit's findings (fingers, words, names) are test_hub_pages_names.py's.

Real browser (Playwright, Debian's Chromium, the page's CSP on) where the page's script is what is
tested; the Flask test client for what the server renders."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hub_accounts import PASSWORD, users_db

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.web import create_hub_app, serve_hub
from table_service.web import users

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "event"
T0 = 1_760_000_000_000  # the hub's clock in these tests (ms)
LONG = "南京第{}掼蛋俱乐部代表队"


class Clock:
    """The hub's clock, moved by the test (how long ago a draw was published)."""

    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> int:
        return self.now


def audit_hub(tmp_path: Path) -> Iterator[HubService]:
    """Eight teams with long names, five tables in EVENT.toml (four play a round, one is spare),
    a chief referee ``chen`` and a referee ``rita``; no broker: table messages are handed to
    :meth:`HubService.handle_batch` as the broker would deliver them."""
    cfg = validate({"event": {"id": "ev", "name": "江苏省掼蛋公开赛 2026 第一站", "rounds": 3},
                    "teams": [{"id": f"T{i}", "name": LONG.format(i), "players": [f"选手{i}{s}" for s in "ABCD"]}
                              for i in range(1, 9)],
                    "tables": [{"id": str(i), "panel": f"http://10.0.0.{10 + i}:8080/tables/{i}"}
                               for i in range(1, 6)]})
    h = HubService(cfg, tmp_path / "hub", connect=False, clock_ms=Clock())
    h.users_db = users_db(tmp_path / "users.sqlite3", {"chen": "chief", "rita": "referee"})  # type: ignore[attr-defined]
    yield h
    h.stop()


def audit_web(hub: HubService) -> Iterator[str]:
    """The hub's pages served on a free port (cheroot), its users' database."""
    handle = serve_hub(hub, port=0, users_db=hub.users_db)  # type: ignore[attr-defined]
    try:
        yield handle.url
    finally:
        handle.stop()


# The fixtures, each a thin wrapper (test_hub_admin_forms_browser.py wraps the same two; ``pages`` is
# the conftest's).
@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubService]:
    yield from audit_hub(tmp_path)


@pytest.fixture
def web(hub: HubService) -> Iterator[str]:
    yield from audit_web(hub)


def login(page: Any, url: str, user: str = "chen", nxt: str = "/hub/") -> None:
    page.goto(f"{url}/auth/login?next={nxt}")
    page.fill("#username", user)
    page.fill("#password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_load_state("networkidle")


def wait_text(page: Any, selector: str, needle: str, timeout_s: float = 8.0) -> None:
    """Until ``selector`` says ``needle`` (polled from here: the page's CSP refuses the eval that
    ``wait_for_function`` needs)."""
    import time

    end = time.monotonic() + timeout_s
    while needle not in page.inner_text(selector):
        assert time.monotonic() < end, f"{selector} never said {needle!r}: {page.inner_text(selector)!r}"
        page.wait_for_timeout(200)


def client_for(hub: HubService, user: str) -> Any:
    app = create_hub_app(hub, users_db=hub.users_db)  # type: ignore[attr-defined]
    app.config["TESTING"] = True
    c = app.test_client()
    token = c.get("/auth/whoami").get_json()["csrf_token"]
    assert c.post("/auth/login", data={"username": user, "password": PASSWORD, "csrf_token": token}
                  ).status_code == 302
    return c


def status(table: str, online: bool = True) -> tuple[str, str, bytes, bool]:
    return (table, "status", json.dumps({"table": table, "event": "ev", "status": "online" if online else "offline",
                                         "reason": None, "wall_ms": T0,
                                         "panel": f"http://10.0.0.{10 + int(table)}:8080/tables/{table}"}).encode(),
            True)


def summary(table: str, rnd: int | None, levels: dict[str, str], deal: int | None) -> tuple[str, str, bytes, bool]:
    return (table, "summary", json.dumps({
        "table": table, "round": rnd, "round_status": "playing" if rnd else None, "teams": None, "deal": deal,
        "levels": levels, "open_flags": 0, "doubts": 0, "clocks_over": 0, "penalties": None, "signed": None,
        "finished": False, "panel": None, "deck": None, "last_seq": 5, "wall_ms": T0}).encode(), True)


def publish_round_1(hub: HubService) -> list[dict[str, Any]]:
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    return list(hub.core.draws[1]["tables"])


def enter_results(hub: HubService, tables: list[dict[str, Any]]) -> None:
    """Table 1 forfeited by EW, table 2 lost by NS on a penalty (9 : 17), table 3 played 9 : 4."""
    base = [{"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"]} for t in tables[:3]]
    hub.hand_result({**base[0], "forfeit": "ew"}, "rita", "referee")
    hub.hand_result({**base[1], "ns_levels": 3, "ew_levels": 5, "ns_score": 9, "ew_score": 17}, "rita", "referee")
    hub.hand_result({**base[2], "ns_levels": 9, "ew_levels": 4}, "rita", "referee")


FORFEIT = ("东西弃权，南北 17 : 0", "EW forfeits, 17 : 0 to NS")
PENALTY = ("南北判负，东西 17 : 9", "NS loses by penalty, 17 : 9 to EW")


# ------------------------------------------------------------------ 1. the overview's failed polls


@pytest.mark.browser
def test_the_overview_says_at_once_that_the_login_ended_and_leads_back_in(hub: HubService, web: str,
                                                                            pages: Any) -> None:
    publish_round_1(hub)
    hub.handle_batch([status("1")])
    page = pages()
    login(page, web)
    page.wait_for_selector('#ov-grid .tcard[data-table="1"]')
    assert page.is_hidden("#ov-stale")
    # The login ends (expired overnight, password changed, logged out elsewhere): the next poll is a 401.
    conn = users.connect(hub.users_db)  # type: ignore[attr-defined]
    users.close_sessions(conn, "chen")
    conn.close()
    page.wait_for_selector("#ov-stale:not([hidden])", timeout=8000)
    said = page.inner_text("#ov-stale")
    assert said.index("登录已结束") < said.index("Your login has ended"), said  # Chinese first
    assert re.search(r"自 \d\d:\d\d:\d\d 起不再更新", said) and "重新登录 / Log in again" in said
    assert "已连接" not in page.inner_text("#ov-mqtt")
    assert "stale" in (page.get_attribute("#ov", "class") or "")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "hub-overview-login-ended.png"), full_page=True)
    # One tap back in, and back on the overview, live again.
    page.click("#ov-relogin")
    page.fill("#username", "chen")
    page.fill("#password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_url(re.compile(r"/hub/$"))
    page.wait_for_selector('#ov-grid .tcard[data-table="1"]')
    page.wait_for_timeout(2500)
    assert page.is_hidden("#ov-stale")


@pytest.mark.browser
def test_the_overview_marks_its_data_stale_while_the_hub_does_not_answer(hub: HubService, web: str,
                                                                         pages: Any) -> None:
    publish_round_1(hub)
    page = pages()
    login(page, web)
    page.wait_for_selector('#ov-grid .tcard[data-table="1"]')
    page.route("**/hub/api/overview", lambda route: route.fulfill(
        status=500, content_type="application/json", body='{"error": "boom", "status": 500}'))
    page.wait_for_selector("#ov-stale:not([hidden])", timeout=8000)
    said = page.inner_text("#ov-stale")
    assert re.search(r"数据已过期：自 \d\d:\d\d:\d\d 起", said) and "HTTP 500" in said and "Stale data" in said, said
    assert page.query_selector("#ov-relogin") is None  # not a login matter: it retries by itself
    assert "已连接" not in page.inner_text("#ov-mqtt")
    since = re.search(r"\d\d:\d\d:\d\d", said).group(0)
    # The hub's laptop off the network: no answer at all; still stale since the same moment.
    page.unroute("**/hub/api/overview")
    page.route("**/hub/api/overview", lambda route: route.abort())
    wait_text(page, "#ov-stale", "连接中断")
    said = page.inner_text("#ov-stale")
    assert "no connection" in said and since in said, said
    page.unroute("**/hub/api/overview")
    page.wait_for_selector("#ov-stale", state="hidden", timeout=8000)
    assert "stale" not in (page.get_attribute("#ov", "class") or "")


# ------------------------------------------------------------------ 2. a forfeit is not "0 : 0"


@pytest.mark.browser
def test_a_forfeit_and_a_penalty_loss_read_the_same_on_the_board_the_overview_and_the_sheet(
        hub: HubService, web: str, pages: Any) -> None:
    tables = publish_round_1(hub)
    enter_results(hub, tables)
    ids = [t["table"] for t in tables]
    board = pages(1920, 1080)
    board.goto(f"{web}/hub/board")
    board.wait_for_selector("#b-tables tbody tr")

    def cells() -> dict[str, str]:  # table id -> its result cell (the last), as the hall sees them
        return dict(board.eval_on_selector_all("#b-tables tbody tr", "rows => rows.map(r => "
                                               "[r.cells[0].innerText, r.cells[r.cells.length - 1].innerText])"))

    cell = cells()  # the round's results are not published yet: finished, the score held back
    assert all("待公布" in cell[i] for i in ids[:3]) and "进行中" in cell[ids[3]], cell
    t4 = tables[3]
    hub.hand_result({"round": 1, "table": t4["table"], "ns": t4["ns"], "ew": t4["ew"], "ns_levels": 5, "ew_levels": 2},
                    "rita", "referee")
    hub.publish_results(1, "chen", "chief")
    board.reload()
    board.wait_for_selector("#b-tables tbody tr")
    cell = cells()
    assert all(w in cell[ids[0]] for w in FORFEIT) and "0 : 0" not in cell[ids[0]], cell
    assert all(w in cell[ids[1]] for w in PENALTY), cell
    assert cell[ids[2]] == "9 : 4" and cell[ids[3]] == "5 : 2"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    board.screenshot(path=str(ARTIFACTS / "hub-board-forfeit.png"))

    page = pages()
    login(page, web)
    page.wait_for_selector(f'#ov-grid .tcard[data-table="{ids[0]}"] .st')
    tile = {i: page.inner_text(f'#ov-grid .tcard[data-table="{i}"] .st') for i in ids[:3]}
    assert all(w in tile[ids[0]] for w in FORFEIT) and "0:0" not in tile[ids[0]], tile
    assert all(w in tile[ids[1]] for w in PENALTY), tile
    assert "9 : 4" in tile[ids[2]]
    # Where it came from, in both languages: not "(hand)".
    assert all("手工录入 / hand entry" in t and "(hand)" not in t for t in tile.values()), tile

    sheet = client_for(hub, "chen").get("/hub/print/results/1").get_data(as_text=True)
    assert all(w in sheet for w in FORFEIT + PENALTY), "the sheet says it in the same words"
    assert "17 : 0" in sheet and "9 : 17" in sheet  # its 级差分 column


# ------------------------------------------------------------------ 3. tables before the first draw


def test_the_overview_lists_the_tables_it_knows_before_and_beside_the_draw(hub: HubService) -> None:
    hub.handle_batch([status("1"), status("2"), status("3", online=False)])
    ov = hub.overview()
    assert ov["tables"] == [] and ov["round"] == 0
    assert [(t["table"], t["online"]) for t in ov["others"]] == [
        ("1", True), ("2", True), ("3", False), ("4", None), ("5", None)]
    assert ov["others"][0]["panel"] == "http://10.0.0.11:8080/tables/1"
    tables = publish_round_1(hub)
    ov = hub.overview()
    drawn = {t["table"] for t in tables}
    assert {t["table"] for t in ov["tables"]} == drawn
    assert [t["table"] for t in ov["others"]] == sorted({"1", "2", "3", "4", "5"} - drawn, key=int)


@pytest.mark.browser
def test_tables_coming_online_can_be_watched_before_round_1(hub: HubService, web: str, pages: Any) -> None:
    hub.handle_batch([status("1"), status("2"), status("3", online=False)])
    page = pages(390, 844)
    login(page, web)
    page.wait_for_selector('#ov-others .tcard[data-table="5"]')
    assert "已知的桌" in page.inner_text("#ov-others h2") and "2 / 5 在线 / online" in page.inner_text("#ov-others h2")
    assert "online" in (page.get_attribute('#ov-others .tcard[data-table="1"]', "class") or "")
    assert "offline" in (page.get_attribute('#ov-others .tcard[data-table="3"]', "class") or "")
    # Table 4 comes online while the organiser watches.
    hub.handle_batch([status("4")])
    page.wait_for_selector('#ov-others .tcard.online[data-table="4"]', timeout=8000)
    assert "3 / 5" in page.inner_text("#ov-others h2")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "hub-overview-before-draw.png"), full_page=True)


# ------------------------------------------------------------------ 4. not started, words, widths, deck


@pytest.mark.browser
def test_a_table_not_yet_started_says_so_not_the_panels_default_levels(hub: HubService, web: str,
                                                                       pages: Any) -> None:
    tables = publish_round_1(hub)
    a, b = tables[0]["table"], tables[1]["table"]
    hub.clock_ms.now = T0 + 7 * 60_000  # type: ignore[attr-defined]
    # Table a: a fresh panel (no round yet, the default levels 2 : 2); table b plays round 1.
    hub.handle_batch([status(a), summary(a, None, {"NS": "2", "EW": "2"}, None),
                      status(b), summary(b, 1, {"NS": "4", "EW": "2"}, 2)])
    row = {r["table"]: r for r in hub.overview()["tables"]}
    assert row[a]["started"] is False and row[a]["levels"] is None
    assert row[b]["started"] is True and row[b]["levels"] == {"NS": "4", "EW": "2"}
    page = pages()
    login(page, web)
    page.wait_for_selector(f'#ov-grid .tcard[data-table="{a}"] .st')
    tile_a = page.inner_text(f'#ov-grid .tcard[data-table="{a}"]')
    assert "未开始 / not started" in tile_a and "编排公布 7 分钟 / draw published 7 min ago" in tile_a, tile_a
    assert "levels" not in tile_a
    tile_b = page.inner_text(f'#ov-grid .tcard[data-table="{b}"]')
    assert "在线 / online" in tile_b and "levels NS 4 · EW 2" in tile_b and "未开始" not in tile_b


def test_the_organisers_words_are_chinese_first(hub: HubService) -> None:
    tables = publish_round_1(hub)
    t = tables[3]
    # A table that played NS/EW swapped: the hub refuses its result and shows it to the chief.
    swapped = {"round": 1, "table": t["table"], "ns": t["ew"], "ew": t["ns"], "ns_levels": 7, "ew_levels": 3}
    hub.handle_batch([(t["table"], "result", json.dumps({"result_id": "r1", "result": swapped, "table_seq": 9,
                                                         "reason": "deals", "wall_ms": T0}).encode(), True)])
    assert len(hub.core.refusals) == 1
    enter_results(hub, tables[:3])
    c = client_for(hub, "chen")
    page = c.get("/hub/admin").get_data(as_text=True)
    row = page.split('class="refusal-row"', 1)[1].split("</div>", 1)[0]
    shown = re.sub(r"<details>.*?</details>", "", row, flags=re.S)
    assert '{"' not in shown and "&#34;" not in shown, "no raw JSON outside the details"
    assert f"第 1 轮 / round 1 · {t['table']} 号桌 / table {t['table']}" in shown
    assert f"南北 / NS {LONG.format(t['ew'][1:])} ({t['ew']})" in shown and "7 : 3" in shown
    assert "江苏 2013 / Jiangsu 2013 (jiangsu-2013)" in page and "淮安 2017 / Huai'an 2017" in page.replace("&#39;", "'")
    # The draw method: the next round's draft on the organiser page and its sheet.
    hub.hand_result({"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 2,
                     "ew_levels": 2}, "rita", "referee")
    hub.draw_next("org", "chief")
    page = c.get("/hub/admin").get_data(as_text=True)
    assert "第 2 轮草案 / draft of round 2 (瑞士制 / Swiss)" in page
    sheet = c.get("/hub/print/draw/2").get_data(as_text=True)
    assert "编排方法 / method: 瑞士制 / Swiss" in sheet


@pytest.mark.browser
def test_the_organisers_broadcast_and_print_pages_fit_a_phone(hub: HubService, web: str, pages: Any) -> None:
    tables = publish_round_1(hub)
    hub.handle_batch([status(t["table"]) for t in tables])
    enter_results(hub, tables)
    page = pages(390, 844)
    login(page, web, nxt="/hub/admin")
    for url in ("/hub/admin", "/hub/broadcast", "/hub/print/results/1", "/hub/print/draw/1", "/hub/", "/hub/board"):
        page.goto(f"{web}{url}")
        page.wait_for_load_state("networkidle")
        width = page.evaluate("document.documentElement.scrollWidth")
        # Past the screen's edge, unless inside a bar that scrolls sideways within it (the hub's links, s36).
        over = page.evaluate("""() => Array.from(document.querySelectorAll('main *'))
            .filter(e => e.getBoundingClientRect().right > innerWidth + 1)
            .filter(e => !Array.from(document.querySelectorAll('main *')).some(s => s.contains(e) && s !== e
                && ['auto', 'scroll'].includes(getComputedStyle(s).overflowX) && s.getBoundingClientRect().right <= innerWidth + 1))
            .slice(0, 4).map(e => e.tagName + '#' + e.id + '.' + e.className)""")
        assert width <= 390 and over == [], f"{url}: {width} px wide; past the screen: {over}"


def _deck_file(tmp_path: Path) -> bytes:
    from vision import enroll
    from vision.artwork import load_deck

    deck = load_deck("anglo")
    enroll({"Ah": deck.bgr("Ah")}, px_per_mm=6.0, rows=4, check_plays=2).save(tmp_path / "deck.npz")
    return (tmp_path / "deck.npz").read_bytes()


def test_only_the_chief_is_offered_the_decks_forms(hub: HubService, tmp_path: Path) -> None:
    ref, chief = client_for(hub, "rita"), client_for(hub, "chen")
    page = ref.get("/hub/admin").get_data(as_text=True)
    assert 'id="deck-form"' not in page and 'id="deck-chief-only"' in page and "未发布" in page
    assert 'id="deck-form"' in chief.get("/hub/admin").get_data(as_text=True)
    hub.publish_deck(_deck_file(tmp_path), "chen", "chief")
    page = ref.get("/hub/admin").get_data(as_text=True)
    assert 'id="deck-current"' in page and hub.core.deck["sha256"][:12] in page  # the referee still sees it
    assert 'id="deck-withdraw-form"' not in page and 'id="deck-form"' not in page
    page = chief.get("/hub/admin").get_data(as_text=True)
    assert 'id="deck-withdraw-form"' in page and 'id="deck-form"' in page and 'id="deck-chief-only"' not in page


@pytest.mark.browser
def test_the_overview_finds_a_table_by_number_or_team_and_counts_them(hub: HubService, web: str, pages: Any) -> None:
    """At 500 tables table 37 was 15 screens down with nothing to find it by, and nothing said how many
    tables played, were done or offline (the usability walk of 2026-12-06)."""
    tables = publish_round_1(hub)
    t0 = tables[0]
    hub.hand_result({"round": 1, "table": t0["table"], "ns": t0["ns"], "ew": t0["ew"], "ns_levels": 3, "ew_levels": 1},
                    "rita", "referee")
    page = pages()
    login(page, web, nxt="/hub/")
    page.wait_for_selector("#ov-grid .tcard")
    wait_text(page, "#ov-counts", "共 4 桌")
    assert "已完赛 1" in page.inner_text("#ov-counts") and "4 tables" in page.inner_text("#ov-counts")
    box = page.locator("#ov-find").bounding_box()
    assert box["height"] >= 44
    page.fill("#ov-find", tables[2]["table"])
    page.wait_for_timeout(100)
    assert page.eval_on_selector_all("#ov-grid .tcard", "cs => cs.map(c => c.dataset.table)") == [tables[2]["table"]]
    team = tables[3]["ew"]
    name = next(t["name"] for t in hub.core.cfg["teams"] if t["id"] == team)
    page.fill("#ov-find", name[2:5])  # a part of a team's name: "第5掼"
    page.wait_for_timeout(2500)  # and it holds over the next poll
    assert page.eval_on_selector_all("#ov-grid .tcard", "cs => cs.map(c => c.dataset.table)") == [tables[3]["table"]]
    page.fill("#ov-find", "无此队")
    page.wait_for_selector("#ov-none")
    page.fill("#ov-find", "")
    page.wait_for_timeout(100)
    assert len(page.query_selector_all("#ov-grid .tcard")) == 4


@pytest.mark.browser
def test_the_organiser_page_says_when_the_hub_has_news_and_reloads_keeping_what_was_typed(
        hub: HubService, web: str, pages: Any) -> None:
    """Results came in for minutes while the organiser page, drawn once, showed none of them and no
    公布成绩 button (the usability walk of 2026-12-06)."""
    tables = publish_round_1(hub)
    page = pages()
    asked: list[str] = []
    page.on("request", lambda r: asked.append(r.url.split("?")[0].removeprefix(web)))
    login(page, web, nxt="/hub/admin")
    assert page.locator("#admin-changed").is_hidden()
    page.select_option("#hand-slot", f"1|{tables[1]['table']}")
    page.fill("#hand-ns", "4")
    t0 = tables[0]
    hub.hand_result({"round": 1, "table": t0["table"], "ns": t0["ns"], "ew": t0["ew"], "ns_levels": 3, "ew_levels": 1},
                    "rita", "referee")  # from another device
    page.wait_for_selector("#admin-changed", state="visible", timeout=15_000)
    # It asked the log's last seq alone, never the whole overview (~90 KB at 200 tables).
    assert "/hub/api/last-seq" in asked and "/hub/api/overview" not in asked
    page.click("#admin-reload")
    page.wait_for_selector("#form-kept")
    assert page.input_value("#hand-slot") == f"1|{tables[1]['table']}" and page.input_value("#hand-ns") == "4"
    assert page.locator("#admin-changed").is_hidden()


@pytest.mark.browser
def test_the_board_says_final_standings_once_the_last_round_is_published(hub: HubService, web: str,
                                                                       pages: Any) -> None:
    """After the last round the board still read "after round 3" as after any round: no word that the
    event was over (the usability walk of 2026-12-06)."""
    board = pages(1920, 1080)
    for rnd in (1, 2, 3):
        hub.draw_next("chen", "chief")
        hub.publish_draw(rnd, "chen", "chief")
        for t in hub.core.draws[rnd]["tables"]:
            hub.hand_result({"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 3,
                             "ew_levels": 1}, "rita", "referee")
        hub.publish_results(rnd, "chen", "chief")
        board.goto(f"{web}/hub/board")
        wait_text(board, "#b-after", f"after round {rnd}" if rnd < 3 else "final standings (3 rounds)")
    assert "最终排名" in board.inner_text("#b-after")
