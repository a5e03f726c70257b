"""Event accounts (赛事账号) end to end through a real provisioned Mosquitto: an account the chief
makes on the hub's accounts page logs in at a table's panel; a new password, a demotion and a
removal at the hub reach the table and end the sessions there. Only the hub writes the accounts
topic; the event's tables read it, the broadcast watcher does not.

Before, accounts were per server: every referee's account was typed on every Pi.
"""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
from event_helpers import BROKER_HANG_S, SecureBroker, wait_for

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.web import create_hub_app
from table_service.table.mqtt_bridge import MqttBridge
from table_service.table.runner import TableRunner
from table_service.web import users
from table_service.web.app import create_app
from table_service.web.event_accounts import accounts_topic

HANG = BROKER_HANG_S
PW = "chief-at-the-hub-1"


def role_at(db: str, name: str) -> str | None:
    conn = users.connect(db)
    try:
        u = users.get_user(conn, name)
        return u.role if u else None
    finally:
        conn.close()


def log_in(app: Any, name: str, password: str) -> Any:
    c = app.test_client()
    c.get("/auth/login")
    with c.session_transaction() as s:
        csrf = s.get("csrf")
    r = c.post("/auth/login", data={"username": name, "password": password, "csrf_token": csrf})
    return c, r


def post(c: Any, url: str, data: dict[str, str]) -> Any:
    with c.session_transaction() as s:
        csrf = s["csrf"]
    return c.post(url, data={"csrf_token": csrf, **data}, headers={"Accept": "application/json"})


def whoami(c: Any) -> dict[str, Any]:
    return c.get("/auth/whoami").get_json()


def test_an_account_made_on_the_hubs_page_logs_in_at_a_tables_panel(tmp_path: Path, broker: SecureBroker) -> None:
    hub_db, table_db = str(tmp_path / "hub-users.sqlite3"), str(tmp_path / "table-users.sqlite3")
    conn = users.connect(hub_db)
    users.add_user(conn, "chen", PW, "chief")  # the hub's first chief: `guandan-table user add`
    conn.close()
    conn = users.connect(table_db)
    users.add_user(conn, "pi-chief", "table-own-chief-1", "chief")  # the table's own account stays
    conn.close()
    cfg = validate({"event": {"id": "ev", "name": "账号测试", "rounds": 1}, "mqtt": broker.hub_mqtt("ev"),
                    "teams": [{"id": "A"}, {"id": "B"}]})
    hub = HubService(cfg, tmp_path / "hub").start()
    runner = TableRunner(tmp_path / "t1.sqlite3").start()
    user, password = broker.login("ev", "1")
    bridge = MqttBridge(runner, port=broker.port, event_id="ev", table_id="1", username=user, password=password,
                        users_db=table_db).start()
    try:
        hub_app = create_hub_app(hub, users_db=hub_db, secret_key="h")
        table_app = create_app({"USERS_DB": table_db, "SECRET_KEY": "t", "TABLES": {"1": runner}})
        assert hub.wait_connected(HANG) and bridge.wait_connected(HANG)
        chief, r = log_in(hub_app, "chen", PW)
        assert r.status_code == 302

        # Made on the hub's page, ticked as an event account (the box is ticked by default).
        r = post(chief, "/accounts/add", {"name": "rita", "role": "referee", "password": "rita-pass-123",
                                          "password2": "rita-pass-123", "event": "1"})
        assert r.status_code == 200 and "已发往各比赛桌" in r.get_json()["message"], r.get_json()
        wait_for(lambda: role_at(table_db, "rita") == "referee", "rita at the table")
        rita, r = log_in(table_app, "rita", "rita-pass-123")
        assert r.status_code == 302 and whoami(rita)["role"] == "referee"
        assert rita.get("/tables/1").status_code == 200  # the table's panel

        # A new password at the hub: the table's session of the old one ends, the new one logs in.
        post(chief, "/accounts/password", {"name": "rita", "password": "rita-pass-456", "password2": "rita-pass-456"})
        wait_for(lambda: whoami(rita)["user"] is None, "rita's session at the table ended")
        assert log_in(table_app, "rita", "rita-pass-123")[1].status_code == 401
        rita, r = log_in(table_app, "rita", "rita-pass-456")
        assert r.status_code == 302

        # Demoted at the hub: demoted at the table, the session ended.
        post(chief, "/accounts/role", {"name": "rita", "role": "viewer"})
        wait_for(lambda: role_at(table_db, "rita") == "viewer", "rita demoted at the table")
        assert whoami(rita)["user"] is None

        # Removed at the hub: gone at the table; the table's own chief untouched throughout.
        post(chief, "/accounts/remove", {"name": "rita"})
        wait_for(lambda: role_at(table_db, "rita") is None, "rita removed at the table")
        assert log_in(table_app, "rita", "rita-pass-456")[1].status_code == 401
        assert role_at(table_db, "pi-chief") == "chief"
        assert role_at(table_db, "chen") is None  # the hub's chief, not ticked, stays the hub's
        assert bridge.accounts.refused == 0
    finally:
        bridge.stop()
        runner.stop()
        hub.stop()


def _client(broker: SecureBroker, username: str, password: str) -> tuple[mqtt.Client, list[tuple[str, bytes]]]:
    got: list[tuple[str, bytes]] = []
    subscribed, connected = threading.Event(), threading.Event()
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="", clean_session=True)
    c.username_pw_set(username, password)
    c.on_connect = lambda *_a: connected.set()
    c.on_subscribe = lambda *_a: subscribed.set()
    c.on_message = lambda _c, _u, m: got.append((m.topic, bytes(m.payload)))
    c.connect("127.0.0.1", broker.port, keepalive=15)
    c.loop_start()
    assert connected.wait(HANG)
    c.subscribe([(accounts_topic("ev"), 1), ("guandan/ev/#", 1)])
    assert subscribed.wait(HANG)
    return c, got


def test_only_the_hub_writes_the_accounts_and_only_the_events_tables_read_them(broker: SecureBroker) -> None:
    creds = broker.creds["ev"]
    clients: dict[str, tuple[mqtt.Client, list[tuple[str, bytes]]]] = {
        who: _client(broker, c.username, c.password)
        for who, c in (("1", creds.tables["1"]), ("2", creds.tables["2"]), ("watch", creds.watch))}
    hub, _ = _client(broker, creds.hub.username, creds.hub.password)
    try:
        forged = json.dumps({"event": "ev", "version": 99, "accounts": [{"name": "mallory", "role": "chief",
                                                                          "password_hash": "x"}]}).encode()
        for c, _ in clients.values():  # a table's own credential, another's, the watcher's
            c.publish(accounts_topic("ev"), forged, qos=1, retain=True).wait_for_publish(HANG)
        real = json.dumps({"event": "ev", "version": 1, "accounts": []}).encode()
        hub.publish(accounts_topic("ev"), real, qos=1, retain=True).wait_for_publish(HANG)
        for who in ("1", "2"):
            wait_for(lambda who=who: [p for t, p in clients[who][1] if t == accounts_topic("ev")], f"table {who}")
        time.sleep(0.3)  # anything else on its way arrives meanwhile
        for who in ("1", "2"):
            assert [p for t, p in clients[who][1] if t == accounts_topic("ev")] == [real], "a forged set went through"
        assert not [t for t, _ in clients["watch"][1] if t == accounts_topic("ev")], "the watcher read the accounts"
    finally:
        for c in [hub, *(c for c, _ in clients.values())]:
            c.disconnect()
            c.loop_stop()
