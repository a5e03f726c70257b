"""The table service (``guandan-table run``) hands its bridge the panel's users database: the event
hub's accounts (赛事账号, retained on ``guandan/<event>/accounts``) become logins of this table's
panel, beside its own accounts."""

from __future__ import annotations

import json
import time
from pathlib import Path

import paho.mqtt.client as mqtt
from werkzeug.security import generate_password_hash

from table_service.table.clock import TableClock
from table_service.table.config import parse_service_config
from table_service.table.service import TableService
from table_service.web import users
from table_service.web.event_accounts import accounts_topic


def test_the_hubs_accounts_log_in_at_the_services_panel(tmp_path: Path, mosquitto: int) -> None:
    message = json.dumps({"event": "ev", "version": 1, "accounts": [
        {"name": "rita", "role": "referee", "password_hash": generate_password_hash("rita-pass-123")}]}).encode()
    hub = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    hub.connect("127.0.0.1", mosquitto)
    hub.loop_start()
    hub.publish(accounts_topic("ev"), message, qos=1, retain=True).wait_for_publish(10)
    hub.loop_stop()
    hub.disconnect()
    cfg = parse_service_config({
        "table_id": "T-7", "data_dir": str(tmp_path / "data"), "seats": {"E": "e", "S": "s", "W": "w", "N": "n"},
        "devices": {"default": "sim"}, "camera": {"source": "none"},
        "mqtt": {"enabled": True, "host": "127.0.0.1", "port": mosquitto, "event": "ev"},
        "web": {"enabled": True, "host": "127.0.0.1", "port": 0}})
    with TableService(cfg, clock=TableClock(1.0)) as svc:
        assert svc.app is not None
        db = svc.app.config["USERS_DB"]
        deadline = time.monotonic() + 30
        while True:
            conn = users.connect(db)
            try:
                got = users.get_user(conn, "rita")
            finally:
                conn.close()
            if got is not None or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert got == users.User("rita", "referee"), "the hub's account never reached the service's panel"
        c = svc.app.test_client()
        c.get("/auth/login")
        with c.session_transaction() as s:
            csrf = s["csrf"]
        r = c.post("/auth/login", data={"username": "rita", "password": "rita-pass-123", "csrf_token": csrf})
        assert r.status_code == 302 and c.get("/auth/whoami").get_json()["role"] == "referee"
