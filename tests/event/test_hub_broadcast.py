"""直播 / Broadcast: the hub lists every table's broadcast overlay and public feed (served by that
table's own Pi), built from the panel address the hub knows — EVENT.toml's ``[[tables]] panel``
or what the table announced — and says so where it knows none. Viewer and up."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
from hub_accounts import login, users_db

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.web import UNKNOWN_PANEL, create_hub_app, feed_links

ACCOUNTS = {"sam": "spectator", "vera": "viewer", "chen": "chief"}


def _status(table: str, panel: str | None) -> tuple[str, str, bytes, bool]:
    return (table, "status", json.dumps({"table": table, "event": "bc", "status": "online", "reason": None,
                                         "wall_ms": 1_760_000_000_000, "panel": panel}).encode(), True)


@pytest.fixture
def hub_app(tmp_path: Path) -> Iterator[tuple[Any, HubService]]:
    cfg = validate({"event": {"id": "bc", "name": "直播赛", "rounds": 2},
                    "teams": [{"id": f"T{i}", "name": f"队{i}"} for i in range(1, 7)],
                    "tables": [{"id": "1", "panel": "http://10.0.0.11:8080/"},  # the organiser's base
                               {"id": "2"}, {"id": "3"},
                               {"id": "4", "panel": "http://10.0.0.14/somewhere"},
                               {"id": "10"}]})
    hub = HubService(cfg, tmp_path / "hub", connect=False)
    hub.draw_next("o", "chief")
    hub.publish_draw(1, "o", "chief")
    app = create_hub_app(hub, users_db=users_db(tmp_path / "users.sqlite3", ACCOUNTS), secret_key="t")
    app.config["TESTING"] = True
    yield app, hub
    hub.stop()


def _rows(page: str) -> dict[str, str]:
    return dict(re.findall(r'<tr data-table="([^"]+)"(.*?)</tr>', page, re.S))


def test_each_table_s_overlay_and_feed_from_the_panel_address_the_hub_knows(hub_app: Any) -> None:
    app, hub = hub_app
    hub.handle_batch([_status("2", "https://pi-2.hall.lan:8443/tables/2"),
                      _status("3", "javascript:alert(1)")])  # refused by the hub: no link from it
    c = app.test_client()
    login(c, "vera")
    r = c.get("/hub/broadcast")
    assert r.status_code == 200
    rows = _rows(r.get_data(as_text=True))
    drawn = [t["table"] for t in hub.core.draws[1]["tables"]]
    assert list(rows)[:len(drawn)] == drawn and set(rows) == {"1", "2", "3", "4", "10"}
    assert list(rows)[len(drawn):] == sorted(set(rows) - set(drawn), key=int)  # 4 before 10
    # From the organiser's base address, and from what table 2 announced.
    assert 'href="http://10.0.0.11:8080/feed/1/overlay?lang=zh"' in rows["1"]
    assert 'href="http://10.0.0.11:8080/feed/1/overlay?lang=en"' in rows["1"]
    assert 'href="http://10.0.0.11:8080/feed/1/state.json"' in rows["1"]
    assert 'data-copy="https://pi-2.hall.lan:8443/feed/2/overlay?lang=zh"' in rows["2"]
    assert 'href="https://pi-2.hall.lan:8443/feed/2/stream"' in rows["2"] and "在线 / online" in rows["2"]
    # Unknown: said so, and no link at all (a forged address never becomes one).
    for tid in ("3", "10"):
        assert "面板地址未知" in rows[tid] and "panel address unknown" in rows[tid] and "href" not in rows[tid]
    assert "javascript" not in r.get_data(as_text=True)
    assert "不以 /tables/4 结尾" in rows["4"] and "href" not in rows["4"]
    # Teams by name where the table is drawn this round.
    t = hub.core.draws[1]["tables"][0]
    assert f"队{t['ns'][1:]} – 队{t['ew'][1:]}" in rows[t["table"]]


def test_viewer_and_up_and_linked_from_the_overview(hub_app: Any) -> None:
    app, _hub = hub_app
    anon = app.test_client()
    r = anon.get("/hub/broadcast")
    assert r.status_code == 302 and "/auth/login" in r.location
    sam = app.test_client()
    login(sam, "sam")
    assert sam.get("/hub/broadcast").status_code == 403
    for who in ("vera", "chen"):
        c = app.test_client()
        login(c, who)
        assert '<a href="/hub/broadcast" id="nav-broadcast" ' in c.get("/hub/").get_data(as_text=True)
        assert c.get("/hub/broadcast").status_code == 200


def test_no_tables_yet_is_said(tmp_path: Path) -> None:
    cfg = validate({"event": {"id": "bc", "name": "空赛", "rounds": 1}, "teams": [{"id": f"T{i}"} for i in range(1, 5)]})
    hub = HubService(cfg, tmp_path / "hub", connect=False)
    try:
        app = create_hub_app(hub, users_db=users_db(tmp_path / "u.sqlite3", ACCOUNTS), secret_key="t")
        c = app.test_client()
        login(c, "vera")
        assert 'id="broadcast-none"' in c.get("/hub/broadcast").get_data(as_text=True)
    finally:
        hub.stop()


@pytest.mark.parametrize(("table", "panel", "overlay"), [
    ("1", "http://10.0.0.11:8080/tables/1", "http://10.0.0.11:8080/feed/1/overlay"),
    ("1", "http://10.0.0.11:8080/", "http://10.0.0.11:8080/feed/1/overlay"),
    ("1", "http://10.0.0.11", "http://10.0.0.11/feed/1/overlay"),
    ("7", "https://hall.lan/t7/tables/7", "https://hall.lan/t7/feed/7/overlay"),  # behind a proxy's prefix
    ("A-1", "http://[fd00::5]:8080/tables/A-1", "http://[fd00::5]:8080/feed/A-1/overlay"),
])
def test_feed_links_from_a_panel_address(table: str, panel: str, overlay: str) -> None:
    links, why = feed_links(table, panel)
    assert why is None and links is not None and links["overlay"] == overlay + "?lang=zh"
    assert links["overlay_en"] == overlay + "?lang=en" and links["commentator"] == overlay.replace("/overlay", "/commentator")
    assert links["state"] == overlay.replace("/overlay", "/state.json")


@pytest.mark.parametrize("panel", [None, "", "ftp://h/tables/1", "http:///tables/1", "http://h/tables/2",
                                   "http://h/tables/1/x"])
def test_no_feed_links_without_a_usable_panel_address(panel: str | None) -> None:
    links, why = feed_links("1", panel)
    assert links is None and why and ("/ " in why)
    if not panel:
        assert why == UNKNOWN_PANEL


def test_the_links_reach_a_real_table_s_feed(tmp_path: Path, hub_app: Any) -> None:
    """A real table app served by cheroot announces its panel; the hub's overlay link opens the
    table's overlay and its state.json link the public state, with no login."""
    from table_service.table.runner import TableRunner
    from table_service.web.app import create_app
    from table_service.web.server import serve

    app, hub = hub_app
    runner = TableRunner(tmp_path / "t2.sqlite3").start()
    table_app = create_app({"USERS_DB": str(tmp_path / "t2-users.sqlite3"), "SECRET_KEY": "t", "TABLES": {"2": runner}})
    srv = serve(table_app, "127.0.0.1", 0)
    try:
        hub.handle_batch([_status("2", f"{srv.url}/tables/2")])
        c = app.test_client()
        login(c, "vera")
        row = _rows(c.get("/hub/broadcast").get_data(as_text=True))["2"]
        overlay = re.search(r'class="overlay-link" href="([^"]+)"', row).group(1)
        state = re.search(r'class="feed-state" href="([^"]+)"', row).group(1)
        assert overlay == f"{srv.url}/feed/2/overlay?lang=zh"
        page = requests.get(overlay, timeout=10)
        assert page.status_code == 200 and 'data-table="2"' in page.text
        resp = requests.get(state, timeout=10)
        assert resp.status_code == 200 and "state" in resp.json()
    finally:
        srv.stop()
        runner.stop()


def test_an_organisers_panel_address_with_a_password_is_never_a_link() -> None:
    """EVENT.toml's ``panel = "http://admin:s3cret@host/"`` would show the password to every viewer."""
    from table_service.event.intake import panel_link

    assert panel_link("3", "http://admin:s3cret@10.0.0.3/", None) is None
    assert panel_link("3", "http://10.0.0.3/", None) == "http://10.0.0.3/tables/3"
