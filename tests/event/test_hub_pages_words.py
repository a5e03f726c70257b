"""The hub's pages after the s38 text audit: the overview said a table's levels "级 / levels NS 10 · EW 3"
(the compass letters, level 10 as the engine's T) and its penalties "罚 / penalties NS 警告 1 W · 违例 0 V"
(the two languages run together), "完 / done", "坏消息" (bad news) for a message it could not read, and
"MQTT:" alone; the organiser page "R1 · 3 号桌", "pairings R1", a bare "EW" before a score, "支持 / uphold"
for an appeal upheld, and that withdrawing the deck leaves the tables "不登记读牌".

Real browser (Playwright, Debian's Chromium, the page's CSP on) for what the overview's script draws;
the Flask test client for what the server renders. Fixtures: test_hub_pages_audit.py's."""

from __future__ import annotations

import html
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table_service.event.hub import HubService

from .test_hub_pages_audit import (
    T0,
    _deck_file,
    audit_hub,
    audit_web,
    client_for,
    enter_results,
    login,
    publish_round_1,
    status,
    wait_text,
)


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubService]:
    yield from audit_hub(tmp_path)


@pytest.fixture
def web(hub: HubService) -> Iterator[str]:
    yield from audit_web(hub)


def _summary(table: str, **extra: Any) -> tuple[str, str, bytes, bool]:
    body = {"table": table, "round": 1, "round_status": "playing", "teams": None, "deal": 3,
            "levels": {"NS": "10", "EW": "3"}, "open_flags": 1, "doubts": 0, "clocks_over": 0,
            "penalties": {"NS": {"warnings": 1}, "EW": {"violations": 1}}, "signed": None, "finished": False,
            "panel": None, "deck": None, "last_seq": 5, "wall_ms": T0, **extra}
    return (table, "summary", json.dumps(body).encode(), True)


@pytest.mark.browser
def test_the_overview_says_levels_penalties_and_states_in_words(hub: HubService, web: str, pages: Any) -> None:
    tables = publish_round_1(hub)
    enter_results(hub, tables)  # tables 1-3 done, the fourth plays
    playing, bad = tables[3]["table"], tables[2]["table"]
    hub.handle_batch([status(playing), _summary(playing), status(bad), _summary(bad, open_flags=99.5)])
    assert hub.overview()["bad_messages"], "the bad summary is kept as a bad message"
    page = pages()
    login(page, web)
    card = f'#ov-grid .tcard[data-table="{playing}"]'
    wait_text(page, card, "级数")
    said = page.inner_text(card)
    assert "级数 南北 10 · 东西 3 / levels NS 10 · EW 3" in said, said
    assert "处罚 南北 警告1·违例0·犯规0，东西 警告0·违例1·犯规0 / penalties NS W1 V0 F0, EW W0 V1 F0" in said, said
    assert "⚑ 1 待处理 / open flags" in said and " T " not in said, said
    assert "已完赛 / done" in page.inner_text(f'#ov-grid .tcard[data-table="{tables[0]["table"]}"]')
    assert "异常消息 / bad message" in page.inner_text("#ov-alerts") and "坏消息" not in page.inner_text("#ov")
    assert "拒收或异常消息 / refused or bad messages" in page.inner_text(f'#ov-grid .tcard[data-table="{bad}"]')
    assert page.inner_text("#ov > p.muted").startswith("赛事消息 / MQTT: ")


def test_the_organiser_page_says_rounds_sides_and_rulings_in_words(hub: HubService, tmp_path: Path) -> None:
    tables = publish_round_1(hub)
    enter_results(hub, tables)  # tables 1-3 done, the fourth to enter
    a, b = tables[0], tables[1]
    hub.file_appeal(1, a["table"], a["ns"], "对方越序 / out of turn", "chen", "chief")
    decided = hub.file_appeal(1, b["table"], b["ns"], "记分有误 / scored wrong", "chen", "chief")["data"]["id"]
    hub.decide_appeal(decided, "upheld", "改判 / result changed", "chen", "chief")
    hub.publish_deck(_deck_file(tmp_path), "chen", "chief")
    page = html.unescape(client_for(hub, "chen").get("/hub/admin").get_data(as_text=True))
    # The round in words (it said "R1 · 3 号桌", "pairings R1", "results R1").
    assert f">第 1 轮 · {tables[3]['table']} 号桌 · " in page and f">第 1 轮 · {a['table']} 号桌 · " in page
    assert ">第 1 轮编排表 / round 1 pairings</a>" in page and ">第 1 轮成绩表 / round 1 results</a>" in page
    assert "R1 ·" not in page and "pairings R1" not in page
    # Each score field names its side (the second said "EW" alone).
    for form in ("hand", "correct"):
        assert f'<label>判负定分 南北 / penalty score NS <input name="ns_score" id="{form}-ns-score"' in page
        assert f'<label>东西 / EW <input name="ew_score" id="{form}-ew-score"' in page
    # An appeal upheld is 申诉成立 (支持 read "support"), its button too.
    assert f'#{decided} 第 1 轮 / round 1 · {b["table"]} 号桌' in page
    assert "→ <b>申诉成立 / upheld</b>" in page and ">申诉成立 / uphold</button>" in page and "支持" not in page
    assert "撤回后各桌改用通用模型读牌" in page and "不登记读牌" not in page
