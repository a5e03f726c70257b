"""Real browser (Playwright, Debian's Chromium, the hub's pages on cheroot, a tablet with touch): the
chief moves a failed table's match to a spare table with two choices and a tap on the organiser page (the
form filled in from the chosen table's last report, said where it came from), confirms, and reads the
verdict in both languages; a referee sees the part but not its controls.
Every control of the form is at least 44 px. Screenshot in test-artifacts/event/hub-spare-moved.png."""

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
    cfg = validate({"event": {"id": "sp", "name": "备用桌赛", "rounds": 2},
                    "teams": [{"id": f"T{i}", "name": f"队{i}"} for i in range(1, 5)],
                    "tables": [{"id": str(i)} for i in range(1, 5)]})
    hub = HubService(cfg, tmp_path / "hub", connect=False)
    hub.draw_next("o", "chief")
    hub.publish_draw(1, "o", "chief")
    web = serve_with_accounts(hub, tmp_path, {"rita": "referee", "chen": "chief"})
    try:
        yield hub, web.url
    finally:
        web.stop()
        hub.stop()


def test_the_chief_moves_a_match_to_a_spare_table_with_a_tap(live: Any, open_page: Any, small_controls: Any) -> None:
    hub, url = live
    page, errors = open_page(1024, 768, bypass_csp=False, mobile=True)
    log_in(page, url, "chen", "/hub/admin")
    page.wait_for_selector("#move-form")
    page.locator("#move-form").scroll_into_view_if_needed()
    assert small_controls(page, "#move-form") == []
    assert page.locator("#move-to option").all_inner_texts() == ["3 号桌 / table 3", "4 号桌 / table 4"]
    assert "1 号桌未报告过本场比赛" in page.inner_text("#move-report")  # the first match's, until another is chosen
    page.select_option("#move-slot", "1|2")  # the page comes back with table 2's report filled in
    page.wait_for_selector("#move-report:has-text('2 号桌未报告过本场比赛')")
    assert "table 2 never reported this match: the default is the round's start" in page.inner_text("#move-report")
    assert page.input_value("#move-ns-level") == "2" and page.input_value("#move-deals") == "0"
    assert small_controls(page, "#move-form") == []
    page.select_option("#move-to", "4")
    page.fill("#move-reason", "隔板屏故障")
    asked: list[str] = []
    page.on("dialog", lambda d: (asked.append(d.message), d.accept()))
    page.tap("#move-submit")
    page.wait_for_selector("#flash-ok")
    assert asked and "原桌的编排将被撤回" in asked[0]
    assert page.inner_text("#flash-ok").startswith("第 1 轮 2 号桌的比赛已移至 4 号桌")
    assert "moved to table 4" in page.inner_text("#flash-ok")
    assert sorted(t["table"] for t in hub.core.draws[1]["tables"]) == ["1", "4"]
    assert "2 号桌 → 4 号桌" in page.inner_text("#moves") and "隔板屏故障" in page.inner_text("#moves")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "hub-spare-moved.png"), full_page=True)
    assert errors == []


def test_a_referee_sees_that_only_the_chief_moves_a_match(live: Any, open_page: Any) -> None:
    _hub, url = live
    page, errors = open_page(1024, 768, bypass_csp=False, mobile=True)
    log_in(page, url, "rita", "/hub/admin")
    page.wait_for_selector("#spare-chief-only")
    assert page.locator("#move-form").count() == 0 and page.locator("#credential-form").count() == 0
    assert errors == []
