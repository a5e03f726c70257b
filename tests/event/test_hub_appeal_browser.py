"""Real browser (Playwright, Debian's Chromium, the hub's pages on cheroot): the organiser page's
appeal form offers only the two teams of the table chosen, so its defaults are a valid appeal and
a tap on another table changes the team list with it (the hub refuses a team that did not play
there: "T01 不在 3 号桌"). Screenshot in test-artifacts/event/hub-appeal.png."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.web import serve_hub
from table_service.web import users

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "event"
PASSWORD = "correct-horse-9"


@pytest.fixture
def page(open_page: Any) -> Iterator[Any]:
    """A phone-sized page with the page's CSP left on (nothing here evals)."""
    pg, errors = open_page(390, 844, bypass_csp=False)
    yield pg
    assert errors == [], f"JavaScript errors: {errors}"


def team_options(page: Any) -> list[str]:
    """The team options a referee can pick (shown and enabled)."""
    return page.eval_on_selector_all("#appeal-team option",
                                     "os => os.filter(o => !o.hidden && !o.disabled).map(o => o.value)")


def test_appeal_form_offers_the_chosen_tables_teams(tmp_path: Path, page: Any) -> None:
    cfg = validate({"event": {"id": "ap", "name": "申诉赛", "rounds": 2},
                    "teams": [{"id": f"T{i:02d}", "name": f"队{i}"} for i in range(1, 8)]})
    hub = HubService(cfg, tmp_path / "hub", connect=False)
    db = str(tmp_path / "users.sqlite3")
    conn = users.connect(db)
    users.add_user(conn, "rita", PASSWORD, "referee")
    conn.close()
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    tables = hub.core.draws[1]["tables"]
    assert len(tables) == 3
    for t in tables:
        hub.hand_result({"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 3,
                         "ew_levels": 1}, "org", "referee")
    web = serve_hub(hub, port=0, users_db=db)
    try:
        page.goto(f"{web.url}/auth/login?next=/hub/admin")
        page.fill("#username", "rita")
        page.fill("#password", PASSWORD)
        page.click("#login-submit")
        page.wait_for_selector("#appeal-form")
        by_slot = {f"1|{t['table']}": t for t in tables}
        # The table shown first: its two teams only, one of them chosen.
        first = by_slot[page.input_value("#appeal-slot")]
        assert sorted(team_options(page)) == sorted([first["ns"], first["ew"]])
        assert page.input_value("#appeal-team") in (first["ns"], first["ew"])
        # Another table: the list follows, and a team of the table before is no longer chosen.
        for slot, t in by_slot.items():
            page.select_option("#appeal-slot", slot)
            assert sorted(team_options(page)) == sorted([t["ns"], t["ew"]]), slot
            assert page.input_value("#appeal-team") in (t["ns"], t["ew"])
        # Whatever table is chosen, the defaults make an appeal the hub takes.
        other = next(s for s in by_slot if s != page.input_value("#appeal-slot"))
        page.select_option("#appeal-slot", other)
        page.fill("#appeal-text", "对方越序出牌 / out of turn")
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "hub-appeal.png"), full_page=True)
        page.click("#appeal-submit")
        page.wait_for_selector("#flash-ok, #flash-error, .flash")
        assert page.query_selector("#flash-error") is None, page.inner_text(".flash")
        assert len(hub.core.appeals) == 1
        a = hub.core.appeals[0]
        t = by_slot[other]
        assert a["table"] == t["table"] and a["team"] in (t["ns"], t["ew"])
    finally:
        web.stop()
        hub.stop()
