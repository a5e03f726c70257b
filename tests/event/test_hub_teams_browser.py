"""The organiser page at 400 teams, in a real browser (Playwright, Chromium, the page's CSP on): the
entry list imported with a preview and one tap, a team found by id, name or player in the teams list
and in the team-edit list, and a refused results import giving back every bad line and the text.

The organiser audit at 200 tables / 400 teams: withdrawing T100 meant scrolling a 400-row table, and
修改队伍 was a 400-option list; a refused import lost what was pasted."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table_service.event.config import validate
from table_service.event.hub import HubService

from .hub_browser import serve_with_accounts
from .test_hub_pages_audit import login

START_MS = 1_795_000_000_000


def entry_list(n: int) -> str:
    """A spreadsheet's copy (tabs): clubs of four, their players named by team."""
    rows = [f"T{i:03d}\t俱乐部{(i - 1) // 4 + 1}-{i}\t张{i}甲\t李{i}乙" for i in range(1, n + 1)]
    return "\n".join(["队号\t队名\t选手1\t选手2", *rows]) + "\n"


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubService]:
    clock = iter(range(START_MS, START_MS + 10**9, 1000))
    h = HubService(validate({"event": {"id": "big", "name": "四百队公开赛", "rounds": 7, "seed": 2026}}),
                   tmp_path / "hub", clock_ms=lambda: next(clock), connect=False)
    yield h
    h.stop()


@pytest.fixture
def web(hub: HubService, tmp_path: Path) -> Iterator[str]:
    handle = serve_with_accounts(hub, tmp_path, {"chen": "chief", "rita": "referee"})
    try:
        yield handle.url
    finally:
        handle.stop()


def visible_rows(page: Any) -> list[str]:
    """The teams list's rows shown (a box, not hidden), in one call: 400 rows asked one by one took
    30 s of the suite."""
    return page.eval_on_selector_all(
        "#teams-table tbody tr", "rs => rs.filter(r => { const b = r.getBoundingClientRect(); "
        "return b.width > 0 && b.height > 0 && getComputedStyle(r).visibility !== 'hidden'; })"
        ".map(r => r.dataset.team)")


@pytest.mark.browser
def test_four_hundred_teams_are_imported_by_paste_preview_and_one_tap(hub: HubService, web: str, pages: Any) -> None:
    page = pages()
    login(page, web, nxt="/hub/admin")
    page.fill("#team-import-text", entry_list(400).replace("T007\t", "七队\t"))
    page.click("#team-import-preview")
    page.wait_for_selector("#team-import-problems")
    assert page.inner_text("#team-import-problems li[data-line='8']").startswith("第 8 行：队号 '七队' 无效")
    assert "七队\t俱乐部2-7" in page.input_value("#team-import-text") and not hub.core.teams  # the text, as typed
    page.fill("#team-import-text", entry_list(400))
    page.click("#team-import-preview")
    page.wait_for_selector("#team-preview")
    assert len(page.query_selector_all("#team-preview tbody tr")) == 400 and not hub.core.teams
    assert page.inner_text("#team-import-confirm") == "导入这 400 队 / Import these 400 teams"
    page.click("#team-import-confirm")
    page.wait_for_selector("#flash-ok")
    assert "已导入 400 队" in page.inner_text("#flash-ok") and len(hub.core.teams) == 400
    assert hub.core.team("T400") == {"id": "T400", "name": "俱乐部100-400", "players": ["张400甲", "李400乙"]}


@pytest.mark.browser
def test_a_team_is_found_by_id_name_or_player_in_the_list_and_the_edit_form(hub: HubService, web: str,
                                                                             pages: Any) -> None:
    hub.import_teams(entry_list(400), "chen", "chief")
    page = pages()
    login(page, web, nxt="/hub/admin")
    assert len(visible_rows(page)) == 400
    page.fill("#teams-find", "t100")  # an id, in any case
    page.wait_for_timeout(100)
    assert visible_rows(page) == ["T100"] and page.is_visible("#withdraw-T100")
    assert page.inner_text("#teams-find-count") == " 1 队 / 1 team(s)"
    page.fill("#teams-find", "俱乐部25-")  # a club's name: its four teams
    page.wait_for_timeout(100)
    assert visible_rows(page) == ["T097", "T098", "T099", "T100"]
    page.fill("#teams-find", "李250乙")  # a player
    page.wait_for_timeout(100)
    assert visible_rows(page) == ["T250"]
    page.fill("#teams-find", "无此队")
    page.wait_for_timeout(100)
    assert visible_rows(page) == [] and "nomatch" in (page.get_attribute("#teams-find", "class") or "")
    page.fill("#teams-find", "")
    page.wait_for_timeout(100)
    assert len(visible_rows(page)) == 400
    # The edit form: the list keeps the teams found and holds the first of them, its name and players filled in
    page.fill("#team-id-find", "张321甲")
    page.wait_for_timeout(100)
    assert page.input_value("#team-id") == "T321"
    assert page.input_value("#team-name") == "俱乐部81-321" and page.input_value("#team-players") == "张321甲, 李321乙"
    kept = [o.get_attribute("value") for o in page.query_selector_all("#team-id option")
            if o.get_attribute("hidden") is None]
    assert kept == ["T321"]
    page.fill("#team-name", "俱乐部81-321 改")
    page.click("#team-submit")
    page.wait_for_selector("#flash-ok")
    assert hub.core.team("T321")["name"] == "俱乐部81-321 改"


@pytest.mark.browser
def test_a_refused_results_import_lists_every_bad_line_and_keeps_the_paste(hub: HubService, web: str,
                                                                           pages: Any) -> None:
    hub.import_teams(entry_list(8), "chen", "chief")
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    t = sorted(hub.core.draws[1]["tables"], key=lambda x: int(x["table"]))
    text = "\n".join(["round,table,ns,ew,ns_levels,ew_levels",
                      f"1,{t[0]['table']},{t[0]['ns']},{t[0]['ew']},9,4",
                      f"1,{t[1]['table']},{t[1]['ew']},{t[1]['ns']},9,4",
                      f"1,{t[2]['table']},{t[2]['ns']},{t[2]['ew']},9,99"])
    page = pages()
    login(page, web, user="rita", nxt="/hub/admin")
    page.fill("#import-lines", text)
    page.click("#import-submit")
    page.wait_for_selector("#import-problems")
    lines = [li.get_attribute("data-line") for li in page.query_selector_all("#import-problems li")]
    assert lines == ["3", "4"] and "teams do not match the draw" in page.inner_text("#import-problems li[data-line='3']")
    assert page.input_value("#import-lines") == text and not hub.core.results
    page.fill("#import-lines", text.replace(f"{t[1]['ew']},{t[1]['ns']}", f"{t[1]['ns']},{t[1]['ew']}")[:-2] + "3")
    page.click("#import-submit")
    page.wait_for_selector("#flash-ok")
    assert "已导入 3 条成绩" in page.inner_text("#flash-ok") and len(hub.core.results) == 3
    assert page.input_value("#import-lines") == ""  # done: nothing put back
