"""The hub's standings overlay as a producer puts it on air: a real browser (Playwright, Debian's
Chromium) at 1920×1080 and 1280×720 against the real hub and its JSON. The panel stays inside the
90 % title-safe area with the top 16 teams named by 20 CJK characters, more teams page themselves,
?lang=en is English only, the background is transparent, polls update the rows in place, and the
"delayed" mark shows only while the hub stops answering. Screenshots (bare, and over a felt-green
"video" for review) go to test-artifacts/event/hub-overlay-*."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from page_checks import outside_safe

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.web import create_hub_app, serve_hub

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "event"
CJK = re.compile(r"[\u3000-\u303f\u3400-\u9fff\uff00-\uffef]")
#: 20 CJK characters each (the longest a caption writer would type), and a long English half.
ZH_NAMES = ["江苏省南京市玄武区第一掼蛋俱乐部代表队", "江苏省苏州市姑苏区第二掼蛋俱乐部代表队",
            "江苏省无锡市梁溪区第三掼蛋俱乐部代表队", "江苏省常州市天宁区第四掼蛋俱乐部代表队"]
N_TEAMS = 40

#: Every visible element of the overlay inside the title-safe area (90 % of the frame)?
OUTSIDE_SAFE = outside_safe("#hov, #hov *")

#: Any element whose content is wider or taller than its box (a clipped name, a spilling panel)?
OVERFLOWING = """() => [...document.querySelectorAll('#hov *')].filter(e => e.offsetParent !== null
  && (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1) && e.clientWidth > 0)
  .map(e => (e.id || e.className) + ' ' + e.scrollWidth + '>' + e.clientWidth + ' ' + e.scrollHeight + '>' + e.clientHeight)"""


def team_name(i: int) -> str:
    zh = ZH_NAMES[i % len(ZH_NAMES)][:-1] + f"{i:02d}"[-2:].translate(str.maketrans("0123456789", "〇一二三四五六七八九"))
    return f"{zh} / Jiangsu Guandan Club Delegation No. {i}"


@pytest.fixture(scope="module")
def hub_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A hub with 40 long-named teams, rounds 1 and 2 drawn, played and published: real standings;
    the team second after them withdrawn."""
    tmp = tmp_path_factory.mktemp("hub-overlay")
    cfg = validate({"event": {"id": "ov", "name": "江苏省掼蛋公开赛 / Jiangsu Guandan Open", "rounds": 5},
                    "teams": [{"id": f"T{i}", "name": team_name(i)} for i in range(1, N_TEAMS + 1)]})
    hub = HubService(cfg, tmp / "hub", connect=False)
    for rnd in (1, 2):
        hub.draw_next("org", "chief")
        hub.publish_draw(rnd, "org", "chief")
        for k, t in enumerate(hub.core.draws[rnd]["tables"]):
            hub.hand_result({"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"],
                             "ns_levels": 3 + (k + rnd) % 10, "ew_levels": 2 + (3 * k) % 11}, "org", "referee")
        hub.publish_results(rnd, "org", "chief")
    # The second team withdraws (退赛): it keeps its rank and row, marked in the view's language.
    hub.withdraw_team(hub.standings_json(public=True)["standings"][1]["team"], "家中有事 / family matter",
                      "org", "chief")
    users_db = str(tmp / "users.sqlite3")
    web = serve_hub(hub, port=0, users_db=users_db)
    try:
        yield web.url
    finally:
        web.stop()
        hub.stop()


def shots(page: Any, name: str) -> None:
    """The overlay as it is (transparent), and composited over a felt table for review."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"hub-overlay-{name}.png"), omit_background=True)
    page.evaluate("document.documentElement.classList.add('felt-review')")
    page.add_style_tag(content="html.felt-review { background: radial-gradient(#2e7d4f, #123d26) !important; }")
    page.screenshot(path=str(ARTIFACTS / f"hub-overlay-{name}-on-felt.png"))
    page.evaluate("document.documentElement.classList.remove('felt-review')")


def check_on_air(page: Any) -> None:
    """Inside the title-safe area, nothing overflowing, every name shown whole."""
    outside = page.evaluate(OUTSIDE_SAFE)
    assert outside == [], outside
    over = page.evaluate(OVERFLOWING)
    assert over == [], over


@pytest.mark.browser
@pytest.mark.parametrize("size", [(1920, 1080), (1280, 720)], ids=["1080p", "720p"])
def test_top16_inside_title_safe_with_long_names(hub_url: str, open_page: Any, size: tuple[int, int]) -> None:
    w, hgt = size
    page, errors = open_page(w, hgt)
    page.goto(f"{hub_url}/hub/overlay?top=16")
    page.wait_for_function("document.querySelectorAll('#ov-list li').length === 16")
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") == "rgba(0, 0, 0, 0)"
    assert page.evaluate("getComputedStyle(document.documentElement).backgroundColor") == "rgba(0, 0, 0, 0)"
    text = page.inner_text("#hov")
    assert "江苏省掼蛋公开赛" in text and "第 2 / 5 轮" in text and "比赛分" in text and "累进分" in text
    assert "Jiangsu" not in text and "Club" not in text  # one language per view
    rows = page.eval_on_selector_all("#ov-list li", "ls => ls.map(l => [...l.children].map(c => c.textContent))")
    names = page.eval_on_selector_all("#ov-list li .n", "ns => ns.map(n => n.textContent)")
    assert [r[0] for r in rows][:1] == ["1"] and len(names) == 16 and all(len(n) == 20 for n in names), names
    # The withdrawn team: its rank, its name whole and 已退赛 under it (inside the safe area, uncut: check_on_air)
    assert page.eval_on_selector_all("#ov-list li .wd:not([hidden])", "ws => ws.map(w => w.textContent)") == ["已退赛"]
    assert page.inner_text("#ov-list li:nth-child(2) .c-rank") == "2" and page.is_visible("#ov-list li:nth-child(2) .wd")
    assert all(r[2].isdigit() and re.fullmatch(r"-?\d+", r[3]) for r in rows), rows
    assert page.is_hidden("#hov-delay")  # the hub answers: nothing is delayed
    assert "20 桌 · 已完成 20" in text
    check_on_air(page)
    shots(page, f"{w}")
    assert errors == [], errors


def _when_on_page(page: Any, n: int) -> dict[str, Any]:
    """What page ``n`` shows, read in one step once it shows: pages turn every 0.8 s, and on a
    loaded machine a second read can already be of the next page."""
    return page.wait_for_function(f"""(() => {{
        if (document.getElementById('hov').dataset.page !== '{n}') return null;
        const first = document.querySelector('#ov-list li:first-child .c-rank');
        return {{first: first && first.textContent, rows: document.querySelectorAll('#ov-list li').length,
                 label: document.getElementById('hov-page').innerText}};
    }})()""").json_value()


@pytest.mark.browser
def test_more_than_a_page_pages_itself(hub_url: str, open_page: Any) -> None:
    page, errors = open_page(1280, 720)
    page.goto(f"{hub_url}/hub/overlay?top=40&page_s=0.8")
    page.wait_for_function("document.getElementById('hov').dataset.pages === '3'")
    one, two, three = (_when_on_page(page, n) for n in (1, 2, 3))
    assert one["first"] == "1" and two["first"] != one["first"]
    assert one["rows"] == two["rows"] == 16 and "第 2/3 页" in two["label"]
    assert three["rows"] == N_TEAMS - 32  # the last page holds the rest
    check_on_air(page)
    assert errors == [], errors


@pytest.mark.browser
def test_english_is_english_only(hub_url: str, open_page: Any) -> None:
    page, errors = open_page(1920, 1080)
    page.goto(f"{hub_url}/hub/overlay?top=16&lang=en")
    page.wait_for_function("document.querySelectorAll('#ov-list li').length === 16")
    text = page.inner_text("#hov")
    assert not CJK.search(text), text
    assert "Jiangsu Guandan Open" in text and "ROUND 2 OF 5" in text and "PROG" in text and "Club" in text
    # A withdrawn team said in words a viewer reads ("WD" said nothing on air), under its name, not cut.
    assert page.inner_text("#ov-list li:nth-child(2) .wd") == "WITHDRAWN" and "WD" not in text.split()
    check_on_air(page)
    shots(page, "en")
    # Chinese unless the URL says otherwise: a producer's English panel cookie does not leak in.
    page.context.add_cookies([{"name": "lang", "value": "en", "url": hub_url}])
    page.goto(f"{hub_url}/hub/overlay?top=4")
    page.wait_for_selector("#ov-list li")
    assert "比赛分" in page.inner_text("#hov") and "Club" not in page.inner_text("#hov")
    assert errors == [], errors


@pytest.mark.browser
def test_polls_update_in_place_and_mark_only_real_delay(hub_url: str, open_page: Any) -> None:
    page, errors = open_page(1920, 1080)
    page.goto(f"{hub_url}/hub/overlay?top=8&poll_s=0.3")
    page.wait_for_selector("#ov-list li")
    page.evaluate("window.firstRow = document.querySelector('#ov-list li'); window.firstName ="
                  " document.querySelector('#ov-list .c-name')")
    polls = int(page.get_attribute("#hov", "data-polls") or 0)
    page.wait_for_function(f"Number(document.getElementById('hov').dataset.polls) >= {polls + 3}")
    # The same row elements, repainted in place: no rebuilt list blinking on every poll.
    assert page.evaluate("document.querySelector('#ov-list li') === window.firstRow")
    assert page.evaluate("document.querySelector('#ov-list .c-name') === window.firstName")
    assert page.is_hidden("#hov-delay")
    # The hub stops answering: the data on screen is now old, and the overlay says so ...
    page.route("**/hub/api/board", lambda route: route.abort())
    page.wait_for_selector("#hov-delay", state="visible", timeout=5_000)
    assert "DELAYED" not in page.inner_text("#hov-delay") and "数据延时" in page.inner_text("#hov-delay")
    assert page.locator("#ov-list li").count() == 8  # the last standings stay on air
    check_on_air(page)
    shots(page, "delayed")
    # ... and stops saying so once it answers again.
    page.unroute("**/hub/api/board")
    page.wait_for_selector("#hov-delay", state="hidden", timeout=5_000)
    assert errors == [], errors


@pytest.mark.browser
def test_results_board_shares_the_look(hub_url: str, open_page: Any) -> None:
    """The hall's board: the overlay's palette on an opaque page, the leader marked, a page of 16."""
    page, errors = open_page(1920, 1080)
    page.goto(f"{hub_url}/hub/board")
    page.wait_for_function("document.querySelectorAll('#b-standings tbody tr').length === 16")
    assert page.evaluate("getComputedStyle(document.body).backgroundImage").startswith("radial-gradient")
    assert page.locator("#b-standings tr.lead").count() == 1
    gold = page.evaluate("getComputedStyle(document.querySelector('#b-standings tr.lead td')).backgroundColor")
    assert gold == "rgb(255, 193, 7)", gold  # overlay.css's --gold
    # One line a team, so a page of 16 long names fits the hall's 1080 screen.
    bottom = page.evaluate("document.getElementById('b-standings').getBoundingClientRect().bottom")
    assert bottom <= 1080, bottom
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "hub-board-1920.png"))
    assert errors == [], errors


@pytest.mark.parametrize(("tiebreak", "column"), [
    (None, "progressive"),
    (["match_points", "rounds_won", "progressive_points"], "rounds_won"),
    (["match_points", "head_to_head", "level_difference_points"], "level_points"),
])
def test_second_column_is_the_events_next_tie_break(tmp_path: Path, tiebreak: list[str] | None,
                                                     column: str) -> None:
    """The column after match points is the one this event ranks by next (head-to-head has none)."""
    raw: dict[str, Any] = {"event": {"id": "tb", "name": "赛", "rounds": 2}, "teams": [{"id": "A"}, {"id": "B"}]}
    if tiebreak:
        raw["ruleset_options"] = {"tiebreak": tiebreak}
    hub = HubService(validate(raw), tmp_path / "hub", connect=False)
    try:
        html = create_hub_app(hub, users_db=str(tmp_path / "u.sqlite3")).test_client().get("/hub/overlay").text
        assert f'data-tiebreak="{column}"' in html and 'data-lang="zh"' in html
    finally:
        hub.stop()
