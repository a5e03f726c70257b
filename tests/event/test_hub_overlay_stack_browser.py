"""The hub's standings overlay stacked over a table overlay in one OBS scene (s37 producer's audit):
at 1080p both sat top right, the standings panel (x 1144–1824, y 54–560) covering the table
overlay's delay mark, pop-ups and East plate. ``/hub/overlay?pos=bottom-right`` (and
``bottom-left``) puts a short panel in the gap the table overlay leaves, so no element of the table
overlay — plates, score bug, delay mark, three pop-ups, a long trick — lies under it. Measured in a real
browser on both pages at 1920×1080; a composite screenshot goes to test-artifacts/event/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.web import serve_hub
from table_service.table.runner import TableRunner
from table_service.web.app import create_app
from table_service.web.server import serve

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "event"
PLAYERS = {"E": "张伟", "S": "李娜", "W": "王强", "N": "赵敏"}
#: N leads, then W, S, E in turn: each beats the last; the last an 8-card bomb (the rail's widest).
TRICK = [["3s"], ["4s"], ["5s"], ["6s"], ["8s"], ["9s"], ["Ts"], ["Js"], ["Qs"], ["Ks"], ["As"], ["SJ"],
         ["7h", "7h", "7d", "7d", "7c", "7c", "7s", "7s"]]

#: The visible boxes of every element of a page below ``root`` (id or class, and its rectangle).
RECTS = """root => [...document.querySelectorAll(root + ' *')].filter(e => {
  const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
  return r.width > 0 && r.height > 0 && cs.visibility !== 'hidden' && cs.display !== 'none';
}).map(e => { const r = e.getBoundingClientRect();
  return [(e.id || e.className || e.tagName) + '', r.left, r.top, r.right, r.bottom]; })"""


@pytest.fixture
def table_url(tmp_path: Path) -> Iterator[str]:
    """A table whose overlay shows everything at once: plates with clocks, the bug, a 13-play trick
    ending in a bomb, the delay mark, and three pop-ups that stay (``?popup_s=600``)."""
    runner = TableRunner(tmp_path / "t.sqlite3").start()
    for ev in ({"type": "round_set_up", "source": "panel", "role": "referee",
                "data": {"players": PLAYERS, "teams": {"EW": "江苏省淮安市掼蛋协会 / Huai'an", "NS": "南京 / Nanjing"},
                         "format": {"kind": "deals", "deals": 2}}},
               {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
               {"type": "drawing_finished", "source": "panel", "data": {}}):
        assert runner.submit(ev).accepted
    for i, cards in enumerate(TRICK):
        assert runner.submit({"type": "cards_played", "source": "camera",
                              "data": {"seat": "NWSE"[i % 4], "cards": cards}}).accepted
    for seat in ("S", "N"):  # two out-of-turn plays, each flag confirmed; one ruling
        bad = runner.submit({"type": "cards_played", "source": "camera", "data": {"seat": seat, "cards": ["9d"]}})
        assert runner.submit({"type": "flag_confirmed", "source": "panel", "role": "referee",
                              "data": {"flag": f"F{bad.seq}"}}).accepted
    assert runner.submit({"type": "penalty_given", "source": "panel", "role": "referee",
                          "data": {"side": "NS", "seat": "S", "level": "warning", "article": "越序出牌 / out of turn"}}).accepted
    app = create_app({"USERS_DB": str(tmp_path / "u.sqlite3"), "SECRET_KEY": "t", "TABLES": {"1": runner},
                      "FEED_DELAY_S": 0.5})
    srv = serve(app, "127.0.0.1", 0)
    try:
        yield srv.url
    finally:
        srv.stop()
        runner.stop()


@pytest.fixture
def hub_url(tmp_path: Path) -> Iterator[str]:
    cfg = validate({"event": {"id": "st", "name": "江苏省掼蛋公开赛 / Jiangsu Guandan Open", "rounds": 3},
                    "teams": [{"id": f"T{i}", "name": f"江苏省南京市第{i}掼蛋俱乐部代表队"} for i in range(1, 9)]})
    hub = HubService(cfg, tmp_path / "hub", connect=False)
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    for k, t in enumerate(hub.core.draws[1]["tables"]):
        hub.hand_result({"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 3 + k,
                         "ew_levels": 2}, "org", "referee")
    hub.publish_results(1, "org", "chief")
    web = serve_hub(hub, port=0, users_db=str(tmp_path / "hu.sqlite3"))
    try:
        yield web.url
    finally:
        web.stop()
        hub.stop()


def _overlaps(a: list[Any], b: list[Any], tol: float = 1.0) -> bool:
    return a[1] < b[3] - tol and b[1] < a[3] - tol and a[2] < b[4] - tol and b[2] < a[4] - tol


def test_the_short_standings_panel_stacks_with_a_table_overlay(table_url: str, hub_url: str, open_page: Any) -> None:
    table, errors = open_page(1920, 1080)
    table.goto(f"{table_url}/feed/1/overlay?popup_s=600")
    table.wait_for_selector('#ov-trick [data-card="7c"]')
    table.wait_for_function("document.querySelectorAll('#ov-pops .pop.in').length === 3")
    table.wait_for_selector("#ov-delay:not([hidden])")
    table.wait_for_timeout(500)  # the pop-ups' slide-in has ended
    below = table.evaluate(RECTS, "#ov")
    assert len(below) > 40, below

    hub, hub_errors = open_page(1920, 1080)
    for pos, panel_x in (("bottom-right", (1100, 1824)), ("bottom-left", (96, 780))):
        hub.goto(f"{hub_url}/hub/overlay?pos={pos}&top=8")
        hub.wait_for_function("document.querySelectorAll('#ov-list li').length === 4")  # 4 a page
        panel = [pos, *hub.eval_on_selector(".hov-panel", "e => { const r = e.getBoundingClientRect();"
                                                          " return [r.left, r.top, r.right, r.bottom]; }")]
        assert panel_x[0] <= panel[1] and panel[3] <= panel_x[1], panel
        assert panel[2] >= 54 and panel[4] <= 1080 - 54, panel  # inside the title-safe area
        covered = [r for r in below if _overlaps(panel, r)]
        assert covered == [], (pos, panel, covered)
        inner = hub.evaluate(RECTS, ".hov-panel")
        assert all(r[4] <= panel[4] + 1 for r in inner), "a row spills out of the short panel"
    # Without a position the panel sits top right, over the delay mark and the pop-ups, as the audit found.
    hub.goto(f"{hub_url}/hub/overlay?top=8")
    hub.wait_for_function("document.querySelectorAll('#ov-list li').length === 8")
    right = ["right", *hub.eval_on_selector(".hov-panel", "e => { const r = e.getBoundingClientRect();"
                                                          " return [r.left, r.top, r.right, r.bottom]; }")]
    assert any(_overlaps(right, r) for r in below)

    # For review: both stacked, over felt.
    hub.goto(f"{hub_url}/hub/overlay?pos=bottom-right&top=8")
    hub.wait_for_function("document.querySelectorAll('#ov-list li').length === 4")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shot = ARTIFACTS / "hub-overlay-stacked-hub.png"
    hub.screenshot(path=str(shot), omit_background=True)
    table.add_style_tag(content=f"html {{ background: url('data:image/png;base64,{_b64(shot)}'), "
                                "radial-gradient(#2e7d4f, #123d26) !important; }")
    table.screenshot(path=str(ARTIFACTS / "hub-overlay-stacked-on-felt.png"))
    assert errors == [] and hub_errors == []


def _b64(path: Path) -> str:
    import base64

    return base64.b64encode(path.read_bytes()).decode()
