"""A hub or a table that cannot reach the event's broker says so in its log (the security audit of
2026-12-06: a hub trying TLS on the plain listener retried for ever and wrote not one line)."""

from __future__ import annotations

import logging
import socket
import time
from pathlib import Path

import pytest

from table_service.event.mqtt import HubMqtt
from table_service.event.provision import make_tls
from table_service.table.mqtt_bridge import MqttBridge
from table_service.table.runner import TableRunner
from table_service.views.broker_reach import UNREACHABLE_LOG_S, BrokerReach


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _said(caplog: pytest.LogCaptureFixture, needle: str, timeout: float = 10.0) -> list[str]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        lines = [r.getMessage() for r in caplog.records if needle in r.getMessage()]
        if lines:
            return lines
        time.sleep(0.05)
    return []


def test_failures_are_said_at_once_then_once_a_minute_and_the_return_once() -> None:
    now = [100.0]
    log = logging.getLogger("test.reach")
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda r: lines.append(r.getMessage())  # type: ignore[method-assign]
    log.addHandler(handler)
    try:
        reach = BrokerReach("hub mqtt", "10.0.0.1", 8883, True, log, clock=lambda: now[0])
        reach.failed()
        for _ in range(5):
            now[0] += 10
            reach.failed()
        assert len(lines) == 1 and "cannot reach the broker at 10.0.0.1:8883 (TLS, 1 tries)" in lines[0]
        now[0] += UNREACHABLE_LOG_S
        reach.failed()
        assert len(lines) == 2 and "7 tries" in lines[1]
        reach.reached()
        reach.reached()
        assert len(lines) == 3 and "after 7 failed tries" in lines[2]
        reach.failed()
        assert len(lines) == 4 and "1 tries" in lines[3]
    finally:
        log.removeHandler(handler)


def test_a_hub_pointed_at_no_broker_says_so(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    hub = HubMqtt("ev", lambda _batch: None, port=_closed_port()).start()
    try:
        assert _said(caplog, "cannot reach the broker"), "the hub retried in silence"
    finally:
        hub.stop()


def test_a_hub_trying_tls_on_the_plain_listener_says_so(mosquitto: int, tmp_path: Path,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    make_tls(tmp_path / "tls", ["127.0.0.1"])
    hub = HubMqtt("ev", lambda _batch: None, port=mosquitto, ca_file=str(tmp_path / "tls" / "ca.crt")).start()
    try:
        lines = _said(caplog, "cannot reach the broker")
        assert lines and "TLS" in lines[0]
        assert not hub.connected.is_set()
    finally:
        hub.stop()


def test_a_table_pointed_at_no_broker_says_so(runner: TableRunner, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.WARNING)
    bridge = MqttBridge(runner, port=_closed_port(), event_id="ev1", table_id="T9").start()
    try:
        lines = _said(caplog, "cannot reach the broker")
        assert lines and "mqtt table T9" in lines[0]
    finally:
        bridge.stop()
