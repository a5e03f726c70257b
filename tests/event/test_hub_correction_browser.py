"""Real browser (Playwright, Debian's Chromium, the hub's pages on cheroot): the organiser page's
correction form fills in the chosen table's current result and basis, and two chief referees
correcting the same table from pages opened before either submitted (the audit's s06) no longer
both read "已纠正": the second is told who changed it to what, and nothing of the first is lost.
Screenshot in test-artifacts/event/hub-correction-refused.png."""

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
    cfg = validate({"event": {"id": "cb", "name": "更正赛", "rounds": 2},
                    "teams": [{"id": f"T{i:02d}", "name": f"队{i}"} for i in range(1, 7)]})
    hub = HubService(cfg, tmp_path / "hub", connect=False)
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    for i, t in enumerate(hub.core.draws[1]["tables"]):
        line = {"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": i + 1, "ew_levels": 2}
        if i == 2:
            line.update(ns_levels=0, ew_levels=0, forfeit="ew")
        hub.hand_result(line, "rita", "referee")
    web = serve_with_accounts(hub, tmp_path, {"chen": "chief", "zhou": "chief"})
    try:
        yield hub, web.url
    finally:
        web.stop()
        hub.stop()


def admin_page(open_page: Any, url: str, who: str) -> tuple[Any, list[str]]:
    page, errors = open_page(1280, 1000, bypass_csp=False)
    log_in(page, url, who, "/hub/admin")
    page.wait_for_selector("#correct-form")
    return page, errors


def form(page: Any) -> tuple[str, ...]:
    return tuple(page.input_value(s) for s in ("#correct-basis", "#correct-ns", "#correct-ew", "#correct-forfeit"))


def fill_corrections(entries: Any, slot: str) -> None:
    """Each ``(page, ns, ew, reason)``: the correction form filled in for table ``slot``, not sent."""
    for page, ns, ew, why in entries:
        page.select_option("#correct-slot", slot)
        page.fill("#correct-ns", ns)
        page.fill("#correct-ew", ew)
        page.fill("#correct-reason", why)


def test_correction_form_prefills_and_the_second_chief_is_refused(live: Any, open_page: Any) -> None:
    hub, url = live
    a, a_err = admin_page(open_page, url, "chen")
    b, b_err = admin_page(open_page, url, "zhou")
    tables = hub.core.draws[1]["tables"]
    # Picking a table fills in its current result and the hub's record of it.
    for t in tables:
        a.select_option("#correct-slot", f"1|{t['table']}")
        tr = hub.core.results[(1, t["table"])]
        assert form(a) == (str(tr.seq), str(tr.line["ns_levels"]), str(tr.line["ew_levels"]),
                           tr.line.get("forfeit", "")), t
    t = tables[0]
    slot = f"1|{t['table']}"
    fill_corrections(((a, "3", "1", "记分表誊写错 / sheet copied wrong"), (b, "2", "0", "东西少记一级")), slot)
    a.click("#correct-submit")
    a.wait_for_selector("p.flash")
    assert a.query_selector("#flash-error") is None, a.inner_text("p.flash")
    b.click("#correct-submit")
    b.wait_for_selector("p.flash")
    said = b.inner_text("#flash-error")
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    b.screenshot(path=str(ARTIFACTS / "hub-correction-refused.png"), full_page=True)
    assert said.startswith("未纠正") and "chen" in said and "3:1" in said, said
    tr = hub.core.results[(1, t["table"])]
    assert (tr.line["ns_levels"], tr.line["ew_levels"], tr.by) == (3, 1, "chen")
    # The refused page is the reloaded one: picking the table shows chen's result, ready to decide on.
    b.select_option("#correct-slot", slot)
    assert form(b)[:3] == (str(tr.seq), "3", "1")
    assert a_err == [] and b_err == [], (a_err, b_err)


def test_a_refused_correction_put_back_is_refused_again_until_the_table_is_picked_afresh(
        live: Any, open_page: Any) -> None:
    """The page puts a refused form back as typed; a correction's basis went back as the newer one the
    table's choice filled in, so one more tap replaced chen's correction with zhou's numbers typed
    against the older result (the review of 2026-12-06). The basis it was sent with goes back too."""
    hub, url = live
    a, _ = admin_page(open_page, url, "chen")
    b, _ = admin_page(open_page, url, "zhou")
    slot = f"1|{hub.core.draws[1]['tables'][0]['table']}"
    fill_corrections(((a, "3", "1", "记分表誊写错"), (b, "2", "0", "东西少记一级")), slot)
    a.click("#correct-submit")
    a.wait_for_selector("p.flash")
    b.click("#correct-submit")
    b.wait_for_selector("#flash-error")
    b.wait_for_selector("#form-kept")
    assert form(b)[1:3] == ("2", "0")  # what zhou typed is back, against the basis it was typed on
    b.click("#correct-submit")
    b.wait_for_selector("#flash-error")
    tr = hub.core.results[(1, slot.split("|")[1])]
    assert (tr.line["ns_levels"], tr.line["ew_levels"], tr.by) == (3, 1, "chen")
