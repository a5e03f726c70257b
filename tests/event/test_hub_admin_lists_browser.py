"""The organiser page sends each long list once (the s39 audit: 460–870 KB at 200 tables, 7.6–12 s on a
tablet): the appeal form's tables are the correction list's, its teams and the team-edit list are the
teams table's rows, and one withdrawal form serves every row. Real browser (Playwright, Debian's
Chromium, the page's CSP on): the page's script builds them, so the organiser must still find every
table and team there, and withdraw, appeal and edit by taps; and every action is still on the page
(the Flask test client)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hub_browser import log_in, serve_with_accounts
from test_hub_web import app_with_users, login

from table_service.event.admin_actions import ACTIONS
from table_service.event.config import validate
from table_service.event.hub import HubService

TEAMS = 30


def _event(folder: Path, *, published: bool = False) -> HubService:
    """30 teams at 15 tables and a spare (table 16, where a failed table's match may move): round 1
    played, round 2 published and half played; ``published``: round 1's results too."""
    cfg = validate({"event": {"id": "lists", "name": "列表赛", "rounds": 3},
                    "teams": [{"id": f"T{i:02d}", "name": f"队{i}", "players": [f"甲{i}", f"乙{i}"]}
                              for i in range(1, TEAMS + 1)],
                    "tables": [{"id": str(i)} for i in range(1, TEAMS // 2 + 2)]})
    hub = HubService(cfg, folder, connect=False)
    for rnd in (1, 2):
        hub.draw_next("org", "chief")
        hub.publish_draw(rnd, "org", "chief")
        tables = hub.core.draws[rnd]["tables"]
        hub.import_results("\n".join(["round,table,ns,ew,ns_levels,ew_levels"] + [  # one transaction
            f"{rnd},{t['table']},{t['ns']},{t['ew']},{i % 14},3"
            for i, t in enumerate(tables if rnd == 1 else tables[: len(tables) // 2])]), "rita", "referee")
        if rnd == 1 and published:
            hub.publish_results(1, "org", "chief")
    return hub


@pytest.fixture
def live(tmp_path: Path) -> Iterator[tuple[HubService, str]]:
    hub = _event(tmp_path / "hub", published=True)
    web = serve_with_accounts(hub, tmp_path, {"chen": "chief"})
    try:
        yield hub, web.url
    finally:
        web.stop()
        hub.stop()


def _values(page: Any, select: str) -> list[str]:
    return page.eval_on_selector_all(f"{select} option", "os => os.map(o => o.value)")


def _every_round(page: Any, select: str) -> list[str]:
    """The tables of a list that holds one round at a time: its own and its template's (hub_admin.js)."""
    return page.eval_on_selector(select, """s => [...s.options].concat([...document.getElementById(
        s.dataset.rounds).content.querySelectorAll("option")]).map(o => o.value)""")


@pytest.mark.browser
def test_the_lists_sent_once_hold_every_table_and_team(live: Any, open_page: Any) -> None:
    hub, url = live
    page, errors = open_page(1280, 1000, bypass_csp=False)
    log_in(page, url, "chen", "/hub/admin")
    page.wait_for_selector("#appeal-slot option", state="attached")
    finished = sorted(f"{r}|{t}" for (r, t) in hub.core.results)
    assert sorted(_every_round(page, "#correct-slot")) == finished
    assert sorted(_every_round(page, "#appeal-slot")) == finished  # the same tables, copied
    # One round at a time in each list (Chromium lays a select of 1,200 options out for seconds).
    assert {v.split("|")[0] for v in _values(page, "#correct-slot")} == {"2"}
    assert {v.split("|")[0] for v in _values(page, "#appeal-slot")} == {"2"}
    assert _values(page, "#team-id") == hub.core.teams
    # The appeal form still offers only the chosen table's two teams.
    t = hub.core.draws[1]["tables"][4]
    page.select_option("#appeal-slot-round", "1")  # an earlier round's table, through the round chooser
    page.select_option("#appeal-slot", f"1|{t['table']}")
    offered = page.eval_on_selector_all("#appeal-team option:not([disabled])", "os => os.map(o => o.value)")
    assert sorted(offered) == sorted([t["ns"], t["ew"]])
    page.select_option("#appeal-team", t["ew"])
    page.fill("#appeal-text", "对方越序 / out of turn")
    page.click("#appeal-submit")
    page.wait_for_selector("#flash-ok")
    assert [(a["round"], a["table"], a["team"]) for a in hub.core.appeals] == [(1, t["table"], t["ew"])]
    # The team-edit list holds each team's name and players.
    page.select_option("#team-id", "T07")
    assert page.input_value("#team-name") == "队7" and page.input_value("#team-players") == "甲7, 乙7"
    assert errors == []


@pytest.mark.browser
def test_a_team_is_withdrawn_from_its_row(live: Any, open_page: Any) -> None:
    hub, url = live
    page, errors = open_page(1280, 1000, bypass_csp=False)
    log_in(page, url, "chen", "/hub/admin")
    page.wait_for_selector("#withdraw-T05")
    assert not page.is_visible("#withdraw-form")
    asked: list[str] = []

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.accept()

    page.on("dialog", answer)
    page.click("#withdraw-T05")
    assert page.is_visible('#teams-table tr[data-team="T05"] #withdraw-form')
    assert page.inner_text("#withdraw-who") == "队5 (T05)"
    page.fill("#withdraw-reason", "病 / ill")
    page.click("#withdraw-submit")
    page.wait_for_selector("#withdrawn-T05")
    assert asked and asked[0].startswith("队5（T05）退赛：自第 3 轮起不再编排") and "队5 (T05) withdraws" in asked[0]
    assert hub.core.withdrawn["T05"]["reason"] == "病 / ill"
    assert errors == []


def test_the_organiser_page_offers_every_action(tmp_path: Path) -> None:
    """Before round 1 (the teams' own forms) and in play (the rest): every organiser action is a
    form on the page, but the deck's withdrawal (test_hub_web.py, with a deck handed out)."""
    fresh = HubService(validate({"event": {"id": "w0", "name": "开赛前", "rounds": 3},
                                 "teams": [{"id": f"T{i}"} for i in range(1, 6)]}), tmp_path / "before", connect=False)
    before = app_with_users(fresh, tmp_path / "before").test_client()
    login(before, "chen")
    hub = _event(tmp_path / "hub")  # in play: round 2 half done, round 1's results not yet published
    t = hub.core.draws[1]["tables"][0]
    hub.file_appeal(1, t["table"], t["ns"], "越序 / out of turn", "rita", "referee")
    hub.handle_batch([("16", "result", b'{"result_id": "x", "result": {"round": 1, "table": "16", "ns": "T01", '
                                       b'"ew": "T02", "ns_levels": 1, "ew_levels": 2}}', False)])
    during = app_with_users(hub, tmp_path).test_client()
    login(during, "chen")
    pages = [before.get("/hub/admin").get_data(as_text=True), during.get("/hub/admin").get_data(as_text=True)]
    # Each list sent once: a finished table is one option (the correction's), a team one row.
    assert [pages[1].count(f'<option value="{r}|{t}"') for (r, t) in hub.core.results] == [1] * len(hub.core.results)
    assert [pages[1].count(f'<option value="{tm}"') for tm in hub.core.teams] == [0] * TEAMS
    assert [pages[1].count(f'<tr data-team="{tm}"') for tm in hub.core.teams] == [1] * TEAMS
    hub.import_results("\n".join(["round,table,ns,ew,ns_levels,ew_levels"] + [  # round 2 all in, round 3
        f"2,{t['table']},{t['ns']},{t['ew']},2,{i % 14}"                      # drawn, a team withdrawn
        for i, t in enumerate(hub.core.draws[2]["tables"]) if (2, t["table"]) not in hub.core.results]), "rita", "referee")
    hub.draw_next("org", "chief")
    hub.withdraw_team("T09", "", "chen", "chief")
    pages.append(during.get("/hub/admin").get_data(as_text=True))
    offered = {name for page in pages for name in re.findall(r'<form method="post" action="/hub/action/([a-z_]+)"', page)}
    assert offered == set(ACTIONS) - {"withdraw_deck"}
    fresh.stop()
    hub.stop()
