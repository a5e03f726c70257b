"""The hub's pages after the s35 audit: every control a finger hits is at least 44 px, the error page's
way back is in both languages, and the pages name teams and a table's own result, not ids ("T10 – T31",
"by table:16"). Apart from test_hub_pages_audit.py (the issue-26 walk-through), whose hub and pages
are these tests' fixtures.

Real browser (Playwright, Debian's Chromium, the page's CSP on) where the page's script is what is
tested; the Flask test client for what the server renders."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table_service.event.hub import HubService
from table_service.event.web import create_hub_app

from .test_hub_pages_audit import (
    LONG,
    T0,
    audit_hub,
    audit_web,
    client_for,
    login,
    publish_round_1,
    wait_text,
)


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubService]:
    yield from audit_hub(tmp_path)


@pytest.fixture
def web(hub: HubService) -> Iterator[str]:
    yield from audit_web(hub)


def _table_result(line: dict[str, Any], rid: str) -> tuple[str, str, bytes, bool]:
    """A table's own result message, as the broker delivers it."""
    return (line["table"], "result", json.dumps({"result_id": rid, "result": line, "table_seq": 9, "reason": "deals",
                                                 "wall_ms": T0}).encode(), True)


def _event_in_play(hub: HubService) -> list[dict[str, Any]]:
    """Round 1 published: table a forfeited (by hand), table b's own result in (by its message),
    table c waiting for one, table d's refused (it played NS and EW swapped), an appeal filed at b:
    every form and list of the organiser page is there."""
    a, b, c, d = tables = publish_round_1(hub)
    hub.hand_result({"round": 1, "table": a["table"], "ns": a["ns"], "ew": a["ew"], "forfeit": "ew"}, "rita", "referee")
    hub.handle_batch([_table_result({"round": 1, "table": b["table"], "ns": b["ns"], "ew": b["ew"], "ns_levels": 9,
                                     "ew_levels": 4}, "r9")])
    hub.handle_batch([_table_result({"round": 1, "table": d["table"], "ns": d["ew"], "ew": d["ns"], "ns_levels": 7,
                                     "ew_levels": 3}, "r1")])
    assert len(hub.core.refusals) == 1 and (1, b["table"]) in hub.core.results
    hub.file_appeal(1, b["table"], b["ew"], "对方越序 / out of turn", "chen", "chief")
    # Table b announces its panel: the broadcast page lists its overlay and feed links.
    hub.handle_batch([(b["table"], "status", json.dumps({"table": b["table"], "event": hub.event_id, "status": "online",
                                                        "reason": None, "wall_ms": T0,
                                                        "panel": "http://10.0.0.12:8080/"}).encode(), True)])
    return tables


@pytest.mark.browser
@pytest.mark.parametrize("viewport", [(1024, 768), (390, 844)], ids=["tablet", "phone"])
def test_every_control_a_finger_hits_on_the_hubs_pages_is_at_least_44_px(
        viewport: tuple[int, int], hub: HubService, web: str, pages: Any, small_controls: Any) -> None:
    """The s35 tap audit: the login page's fields 38 px, the organiser page's 第N轮编排表 / 成绩表 links
    19, the board's find box 37, the error page's 返回 link 19, the bar's 账号 link 31 px wide on a
    phone, the penalty score's EW field 38 px wide on a phone; the broadcast page's feed links (s36). Each
    page whole, on a tablet and a phone."""
    _event_in_play(hub)
    page = pages(*viewport, mobile=viewport[0] < 500)
    found = {}
    page.goto(f"{web}/auth/login?next=/hub/")
    found["login"] = small_controls(page)
    login(page, web)
    for name, url in (("overview", "/hub/"), ("admin", "/hub/admin"), ("board", "/hub/board"),
                      ("broadcast", "/hub/broadcast"), ("error", "/hub/print/draw/99")):
        page.goto(f"{web}{url}")
        page.wait_for_load_state("networkidle")
        found[name] = small_controls(page)
    assert page.query_selector("main a[href]"), "the error page leads somewhere"
    assert {k: v for k, v in found.items() if v} == {}


def test_the_error_pages_back_link_is_in_both_languages_and_leads_back(hub: HubService) -> None:
    """The audit: the error page's 返回 (Chinese only) led to "/", not to the page the organiser came
    from. It says 返回 / Back and leads to the page this hub's user came from, else to the hub's home."""
    c = client_for(hub, "chen")

    def back(**headers: str) -> str:
        r = c.get("/hub/print/draw/99", headers=headers)
        assert r.status_code == 404
        page = r.get_data(as_text=True)
        m = re.search(r'<a class="back" id="error-back" href="([^"]*)">([^<]*)</a>', page)
        assert m, page
        assert m.group(2) == "返回 / Back"
        return m.group(1)

    assert back(Referer="http://localhost/hub/admin?x=1") == "/hub/admin?x=1"
    assert back() == "/hub/"  # no page before it: the hub's overview
    assert back(Referer="http://elsewhere.example/hub/admin") == "/hub/"  # never another site's page
    assert back(Referer="http://localhost//elsewhere.example/x") == "/hub/"
    assert back(Referer="http://localhost/hub/print/draw/99") == "/hub/"  # not the failing page again
    anonymous = create_hub_app(hub, users_db=hub.users_db).test_client()  # type: ignore[attr-defined]
    page = anonymous.get("/hub/nowhere").get_data(as_text=True)
    assert 'id="error-back" href="/hub/board"' in page  # a visitor: the public board


def test_the_organiser_page_names_the_teams_and_a_tables_own_result(hub: HubService) -> None:
    """The audit: the hand-entry list read "T10 – T31", and a table's own result was "by table:16"
    in the correction list, the results sheet and the refusal of a second entry."""
    a, b, c, d = _event_in_play(hub)
    chen = client_for(hub, "chen")
    page = chen.get("/hub/admin").get_data(as_text=True)
    hand = page.split('id="hand-slot"', 1)[1].split("</select>", 1)[0]
    name = {t: LONG.format(t[1:]) for t in hub.core.teams}
    assert f"{c['table']} 号桌 · {name[c['ns']]} ({c['ns']}) – {name[c['ew']]} ({c['ew']})" in hand, hand
    correct = page.split('id="correct-slot"', 1)[1].split("</select>", 1)[0]
    assert f"{b['table']} 号桌 / table {b['table']}" in correct and "table:" not in correct, correct
    # The appeal form's list is this one, copied in the browser (test_hub_admin_lists_browser.py).
    assert f"{name[b['ns']]} " in correct and f" {name[b['ew']]} (" in correct, correct
    assert 'id="appeal-slot" data-copy="correct-slot"' in page
    # A second person enters table b by hand: refused, naming who entered it in words.
    with pytest.raises(Exception) as refused:
        hub.hand_result({"round": 1, "table": b["table"], "ns": b["ns"], "ew": b["ew"], "ns_levels": 2,
                         "ew_levels": 2}, "rita", "referee")
    assert f"（{b['table']} 号桌 " in str(refused.value) and f"(table {b['table']}, " in str(refused.value)
    assert "table:" not in str(refused.value)
    hub.correct(1, b["table"], {"round": 1, "table": b["table"], "ns": b["ns"], "ew": b["ew"], "ns_levels": 9,
                                "ew_levels": 3}, "录入有误 / typo", "chen", "chief")
    sheet = chen.get("/hub/print/results/1").get_data(as_text=True)
    shown = re.sub(r"<script.*?</script>", "", sheet, flags=re.S)  # the pages' words (i18n) say "every table: …"
    assert f"{b['table']} 号桌 / table {b['table']}" in shown and "table:" not in shown


def test_a_refused_team_edit_names_the_field_as_the_form_labels_it(hub: HubService) -> None:
    """The audit: three players refused with "players 须为 2 或 4 个名字", the field's key in the
    Chinese half; the form labels it 选手."""
    c = client_for(hub, "chen")
    tok = c.get("/auth/whoami").get_json()["csrf_token"]
    r = c.post("/hub/action/edit_team", data={"csrf_token": tok, "team": "T1", "name": LONG.format(1),
                                               "players": "甲, 乙, 丙"}, follow_redirects=True)
    flash = r.get_data(as_text=True).split('id="flash-error">', 1)[1].split("</p>", 1)[0]
    assert "选手须为 2 或 4 人 / players must be 2 or 4 names" in flash and "players 须为" not in flash, flash
    r = c.post("/hub/action/edit_team", data={"csrf_token": tok, "team": "T1", "name": LONG.format(1),
                                               "players": "甲" * 400}, follow_redirects=True)
    flash = r.get_data(as_text=True).split('id="flash-error">', 1)[1].split("</p>", 1)[0]
    assert flash.startswith("选手过长"), flash


@pytest.mark.browser
def test_the_board_and_the_overview_name_teams_and_rounds_in_both_languages(
        hub: HubService, web: str, pages: Any) -> None:
    """The audit: the board's lots read "T10 > T31", the overview's appeal "T02", and both headings
    "第 1 / 5 轮 round" (neither Chinese then English nor a pair)."""
    tables = publish_round_1(hub)
    for t in tables:  # every table 9 : 4: the winners tie in full, and so do the losers: lots decide
        hub.hand_result({"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 9,
                         "ew_levels": 4}, "rita", "referee")
    hub.publish_results(1, "chen", "chief")
    t = tables[0]
    hub.file_appeal(1, t["table"], t["ew"], "对方越序 / out of turn", "chen", "chief")
    board = pages(1024, 768)
    board.goto(f"{web}/hub/board")
    board.wait_for_selector("#b-standings tbody tr")
    wait_text(board, "#b-lots", "抽签 / lots:")
    lots = board.inner_text("#b-lots")
    assert LONG.format(1) in lots and not re.search(r"\bT\d", lots), lots
    assert board.inner_text("#b-round") == "第 1 / 3 轮 / round 1 of 3"
    page = pages()
    login(page, web)
    page.wait_for_selector("#ov-alerts .appeal")
    page.wait_for_timeout(2500)  # the overview's own poll has drawn the alerts again
    alert = page.inner_text("#ov-alerts .appeal")
    assert f"第 1 轮 / round 1 · {t['table']} 号桌 / table {t['table']} · {LONG.format(t['ew'][1:])} ({t['ew']})" in alert
    assert page.inner_text("#ov h1").endswith("第 1 / 3 轮 / round 1 of 3")
