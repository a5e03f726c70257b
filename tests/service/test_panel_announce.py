"""A table announces its own panel address to the hub, so the chief referee's overview links every
table with one tap without anyone typing 500 addresses into EVENT.toml."""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from table_service.table.clock import TableClock
from table_service.table.config import parse_service_config
from table_service.table.mqtt_bridge import announced_panel_url
from table_service.table.service import TableService


def _config(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "table_id": "T-7", "data_dir": str(tmp_path / "data"),
        "seats": {"E": "e", "S": "s", "W": "w", "N": "n"},
        "devices": {"default": "sim"}, "camera": {"source": "none"},
    }
    cfg.update(extra)
    return cfg


def first_message(port: int, topic: str, want: Callable[[dict[str, Any]], bool], timeout: float = 30.0
                  ) -> dict[str, Any]:
    """The first JSON message on ``topic`` (retained ones included) that ``want`` accepts."""
    got: queue.Queue[dict[str, Any]] = queue.Queue()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.on_connect = lambda c, *_: c.subscribe(topic, qos=1)
    client.on_message = lambda _c, _u, msg: got.put(json.loads(msg.payload.decode("utf-8")))
    client.connect("127.0.0.1", port)
    client.loop_start()
    try:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                msg = got.get(timeout=0.5)
            except queue.Empty:
                continue
            if want(msg):
                return msg
        raise AssertionError(f"no such message on {topic} within {timeout} s")
    finally:
        client.loop_stop()
        client.disconnect()


def _status(port: int, topic: str) -> dict[str, Any]:
    return first_message(port, topic, lambda m: m.get("status") == "online")


def test_address_of_a_panel_on_every_interface_is_the_one_towards_the_broker() -> None:
    # On one interface: that interface. On all: the address the route to the broker leaves from
    # (loopback here), never "0.0.0.0", which no tablet can open.
    assert announced_panel_url("10.0.0.12", 8080, "12", broker="10.0.0.1") == "http://10.0.0.12:8080/tables/12"
    assert announced_panel_url("0.0.0.0", 8080, "12", broker="127.0.0.1") == "http://127.0.0.1:8080/tables/12"
    assert announced_panel_url("::1", 80, "A 1", broker="::1") == "http://[::1]:80/tables/A%201"
    assert "0.0.0.0" not in announced_panel_url("0.0.0.0", 80, "1", broker="no-such-host.invalid")


def test_the_service_announces_its_panel_unless_table_toml_names_one(tmp_path: Path, mosquitto: int) -> None:
    mq = {"enabled": True, "host": "127.0.0.1", "port": mosquitto, "event": "ev"}
    web = {"enabled": True, "host": "0.0.0.0", "port": 0}
    cfg = parse_service_config(_config(tmp_path / "a", mqtt=mq, web=web))
    with TableService(cfg, clock=TableClock(1.0)) as svc:
        status = _status(mosquitto, "guandan/ev/T-7/status")
        assert status["panel"] == f"http://127.0.0.1:{svc.server.port}/tables/T-7"
    named = {**mq, "panel_url": "https://hall.example/tables/T-7"}
    cfg = parse_service_config(_config(tmp_path / "b", mqtt=named, web=web))
    with TableService(cfg, clock=TableClock(1.0)):
        assert _status(mosquitto, "guandan/ev/T-7/status")["panel"] == "https://hall.example/tables/T-7"


@pytest.mark.parametrize("bad", ["ftp://x/tables/7", "hall/tables/7", 5, "http://a b/",
                                 # passed config check, then the hub refused every status and summary
                                 # naming them: the table never showed on the chief referee's overview
                                 "http://host/tables/OTHER", "https://hall.example/tables/7", "http://",
                                 "http://host:99999/x?y#z", "http://u:p@host/tables/T-7"])
def test_a_panel_url_that_is_no_web_address_is_refused(tmp_path: Path, bad: Any) -> None:
    with pytest.raises(ValueError, match=r"\[mqtt\]\.panel_url"):
        parse_service_config(_config(tmp_path, mqtt={"panel_url": bad}))


def test_a_base_address_is_completed_to_this_table_s_page(tmp_path: Path) -> None:
    from table_service.views.panel_url import own_panel_url, panel_url_problem

    cfg = parse_service_config(_config(tmp_path, mqtt={"panel_url": "http://pi7.hall.lan:8080/"}))
    announced = own_panel_url(cfg.mqtt["panel_url"], "T-7")
    assert announced == "http://pi7.hall.lan:8080/tables/T-7" and panel_url_problem(announced, "T-7") is None


@pytest.mark.parametrize("key", ["x", "short-secret", 5])
def test_a_secret_key_too_short_to_keep_logins_safe_is_refused_unshown(tmp_path: Path, key: Any) -> None:
    """The probe: ``[web] secret_key = "x"`` passed config check; with it every login's cookie can be
    forged. Refused, and the value is not written back (it is a secret)."""
    with pytest.raises(ValueError, match=r"\[web\]\.secret_key") as err:
        parse_service_config(_config(tmp_path, web={"secret_key": key}))
    assert repr(key) not in str(err.value)
    assert parse_service_config(_config(tmp_path, web={"secret_key": "k" * 16})).web["secret_key"] == "k" * 16


def test_a_vision_file_that_is_not_a_file_is_said_so(tmp_path: Path) -> None:
    cfg = _config(tmp_path, camera={"source": "synthetic"}, vision={"calibration": "/dev/null"})
    with pytest.raises(ValueError, match="not a file: /dev/null"):
        parse_service_config(cfg, check_devices=False)
