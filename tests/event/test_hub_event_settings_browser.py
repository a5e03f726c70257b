"""Real browser (Playwright, Debian's Chromium, the hub's pages on cheroot, a tablet with touch): the
chief changes the event's rounds, draw method and match points with taps on the organiser page. A
round robin longer than its circle is refused in both languages, Chinese first, and what was chosen
comes back in the form; corrected, the settings are saved and the page shows them. Every control of
the form is at least 44 px. Screenshot in test-artifacts/event/hub-event-settings-refused.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hub_browser import log_in, serve_with_accounts

from table_service.event.config import validate
from table_service.event.hub import HubService

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "event"


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[HubService, str]]:
    cfg = validate({"event": {"id": "es", "name": "设置赛", "rounds": 3, "draw": "swiss"},
                    "teams": [{"id": f"T{i:02d}", "name": f"队{i}"} for i in range(1, 7)]})
    hub = HubService(cfg, tmp_path / "hub", connect=False)
    web = serve_with_accounts(hub, tmp_path, {"chen": "chief"})
    try:
        yield hub, web.url
    finally:
        web.stop()
        hub.stop()


def test_the_chief_changes_rounds_draw_method_and_match_points_with_taps(
        live: Any, open_page: Any, small_controls: Any) -> None:
    hub, url = live
    page, errors = open_page(1024, 768, bypass_csp=False, mobile=True)
    log_in(page, url, "chen", "/hub/admin")
    page.wait_for_selector("#event-form")
    page.locator("#event-form").scroll_into_view_if_needed()
    assert small_controls(page, "#event-form") == []
    page.select_option("#event-draw", "round-robin")
    page.fill("#event-rounds", "6")  # one past the circle of 6 teams
    page.select_option("#event-match-points", "3-2-1-0")
    page.tap("#event-submit")
    page.wait_for_selector("#flash-error")
    assert page.inner_text("#flash-error") == (
        "6 队的循环赛最多 5 轮（再多就从头循环，第 6 轮与第 1 轮同桌同向）；要更多轮请选瑞士制 / a round robin of 6 teams has at "
        "most 5 rounds (the circle then starts over: round 6 would repeat round 1's tables); for more rounds choose Swiss")
    page.wait_for_selector("#event-form #form-kept")
    assert [page.input_value(s) for s in ("#event-rounds", "#event-draw", "#event-match-points")] == [
        "6", "round-robin", "3-2-1-0"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "hub-event-settings-refused.png"), full_page=True)
    assert hub.core.cfg["event"]["rounds"] == 3 and hub.core.edits == {}
    page.fill("#event-rounds", "5")
    page.tap("#event-submit")
    page.wait_for_selector("#flash-ok")
    assert page.inner_text("#flash-ok") == (
        "赛事设置已修改，自下一次公布编排起生效；轮数 3→5、编排方法 瑞士制→循环赛、比赛分方案 2-1-0→3-2-1-0，即时生效 / event "
        "settings changed (from the next published draw); rounds 3 → 5, draw method Swiss → round robin, match points "
        "2-1-0 → 3-2-1-0, in force now")
    assert page.query_selector("#form-kept") is None
    assert [page.input_value(s) for s in ("#event-rounds", "#event-draw", "#event-match-points")] == [
        "5", "round-robin", "3-2-1-0"]
    ev = hub.core.cfg["event"]
    assert (ev["rounds"], ev["draw"], ev["match_points"], ev["scoring"]["win"]) == (5, "round-robin", "3-2-1-0", 3)
    assert errors == []
