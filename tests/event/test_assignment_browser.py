"""Real browser: the hub publishes a draw over a real Mosquitto, the table's referee panel shows the
assignment card, and one tap starts the round with the assigned players; the hub's overview and
board render without JavaScript errors. Screenshots go to test-artifacts/event/."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.web import serve_hub
from table_service.table.mqtt_bridge import MqttBridge
from table_service.table.runner import TableRunner
from table_service.web import users
from table_service.web.app import create_app
from table_service.web.server import serve
from table_service.web.tables import attach_table

pytestmark = pytest.mark.browser

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "event"
PASSWORD = "correct-horse-9"


@pytest.fixture
def page(open_page: Any) -> Iterator[Any]:
    """The shared page (tests/conftest.py) at 1280×900 with the page's CSP left on: nothing here evals."""
    pg, errors = open_page(1280, 900, bypass_csp=False)
    yield pg
    assert errors == [], f"JavaScript errors: {errors}"


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def login(page: Any, base: str, nxt: str) -> None:
    page.goto(f"{base}/auth/login?next={nxt}")
    page.fill("#username", "rita")
    page.fill("#password", PASSWORD)
    page.click("#login-submit")


def test_assignment_card_and_one_tap_start(tmp_path: Path, broker: Any, page: Any) -> None:
    db = str(tmp_path / "users.sqlite3")
    conn = users.connect(db)
    users.add_user(conn, "rita", PASSWORD, "referee")
    conn.close()
    cfg = validate({"event": {"id": "bw", "name": "浏览器赛", "rounds": 2, "format": {"kind": "deals", "deals": 2}},
                    "mqtt": broker.hub_mqtt("bw"),
                    "teams": [{"id": "T1", "name": "南京队", "players": ["张三", "李四"]},
                              {"id": "T2", "name": "常州队", "players": ["王五", "赵六"]}]})
    hub = HubService(cfg, tmp_path / "hub").start()
    runner = TableRunner(tmp_path / "t1.sqlite3").start()
    user, password = broker.login("bw", "1")
    bridge = MqttBridge(runner, port=broker.port, event_id="bw", table_id="1", username=user,
                        password=password).start()
    app = create_app({"USERS_DB": db})
    attach_table(app, "1", runner, hub_link=bridge)
    panel = serve(app, "127.0.0.1", 0)
    hub_web = serve_hub(hub, port=0, users_db=db)
    try:
        assert hub.wait_connected(10) and bridge.wait_connected(10)
        hub.draw_next("org", "chief")
        hub.publish_draw(1, "org", "chief")
        login(page, panel.url, "/tables/1")
        page.wait_for_selector("#assign-card")
        card = page.inner_text("#assign-card")
        assert "第 1 轮" in card and "张三" in card and "王五" in card
        shot(page, "panel-assignment")
        page.click("#assign-start")
        page.wait_for_selector(".assign-started")
        rnd = runner.state()["round"]
        t = hub.core.draws[1]["tables"][0]
        assert rnd["no"] == 1 and rnd["teams"] == {"NS": t["ns"], "EW": t["ew"]}
        ns_players = cfg["teams"][0]["players"] if t["ns"] == "T1" else cfg["teams"][1]["players"]
        assert rnd["players"]["N"] == ns_players[0] and rnd["players"]["S"] == ns_players[1]
        setups = [e for e in runner.events() if e["type"] == "round_set_up"]
        assert len(setups) == 1 and setups[0]["source"] == "panel"

        login(page, hub_web.url, "/hub/")
        page.wait_for_selector('.tcard.online[data-table="1"] .lv')
        assert "levels NS 2" in page.inner_text("#ov-grid")
        shot(page, "hub-overview")
        page.goto(f"{hub_web.url}/hub/admin")
        shot(page, "hub-admin")
        page.goto(f"{hub_web.url}/hub/board")
        page.wait_for_selector("#b-standings tbody tr")
        shot(page, "hub-board")
        page.goto(f"{hub_web.url}/hub/overlay?top=4")
        page.wait_for_selector("#ov-list li")
        assert len(page.query_selector_all("#ov-list li")) == 2
        shot(page, "hub-overlay")
    finally:
        hub_web.stop()
        panel.stop()
        bridge.stop()
        runner.stop()
        hub.stop()
