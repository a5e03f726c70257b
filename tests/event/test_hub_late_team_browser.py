"""Real browser (Playwright, Debian's Chromium, the hub's pages on cheroot, a tablet with touch): a
referee at the desk adds a late team with taps on the organiser page. A wrong id is refused in both
languages, Chinese first, and what was typed comes back in the form; corrected, the team is added
and listed. Every control of the form is at least 44 px. Screenshot in
test-artifacts/event/hub-late-team-refused.png."""

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
    cfg = validate({"event": {"id": "lt", "name": "迟到赛", "rounds": 2},
                    "teams": [{"id": f"T{i:02d}", "name": f"队{i}"} for i in range(1, 6)]})
    hub = HubService(cfg, tmp_path / "hub", connect=False)
    web = serve_with_accounts(hub, tmp_path, {"rita": "referee"})
    try:
        yield hub, web.url
    finally:
        web.stop()
        hub.stop()


def test_a_late_team_is_added_with_taps_and_a_refusal_keeps_what_was_typed(
        live: Any, open_page: Any, small_controls: Any) -> None:
    hub, url = live
    page, errors = open_page(1024, 768, bypass_csp=False, mobile=True)
    log_in(page, url, "rita", "/hub/admin")
    page.wait_for_selector("#add-team-form")
    page.locator("#add-team-form").scroll_into_view_if_needed()
    assert small_controls(page, "#add-team-form") == []
    assert page.input_value("#add-team-id") == "T06"  # offered: nothing to invent at the desk
    page.fill("#add-team-id", "T02")  # a slip: another team's id
    page.fill("#add-team-name", "迟到队")
    page.fill("#add-team-players", "甲，乙")
    page.tap("#add-team-submit")
    page.wait_for_selector("#flash-error")
    said = page.inner_text("#flash-error")
    assert said == "队号 T02 已是「队2」的，请换一个 / the id T02 is already 队2's: choose another"
    page.wait_for_selector("#add-team-form #form-kept")
    assert [page.input_value(s) for s in ("#add-team-id", "#add-team-name", "#add-team-players")] == [
        "T02", "迟到队", "甲，乙"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "hub-late-team-refused.png"), full_page=True)
    assert len(hub.core.teams) == 5
    page.fill("#add-team-id", "T06")
    page.tap("#add-team-submit")
    page.wait_for_selector("#flash-ok")
    assert page.inner_text("#flash-ok") == "已添加队伍「迟到队」，自第 1 轮起编排 / team 迟到队 added: drawn from round 1"
    assert page.inner_text('#teams-table tr[data-team="T06"]').split("\t")[:3] == ["T06", "迟到队", "甲, 乙"]
    assert page.query_selector("#form-kept") is None and page.input_value("#add-team-name") == ""
    assert hub.core.team("T06") == {"id": "T06", "name": "迟到队", "players": ["甲", "乙"]}
    assert errors == []
