"""A table service on a real Mosquitto takes the event's deck the hub left retained: its camera reads
with it, the file is kept for a restart, and the summary tells the hub which deck the table uses."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from table_service.table.clock import TableClock
from table_service.table.config import parse_service_config
from table_service.table.service import TableService
from table_service.views.deck_wire import deck_message, deck_topic, sha256_hex

from .test_panel_announce import first_message


class _Camera:
    """The camera pipeline's face to the service (the reading itself is not this test's)."""

    clock = None
    on_sighting = None
    enrollment_path = None

    def __init__(self) -> None:
        self.watcher = SimpleNamespace(enrollment=None)

    def start(self, _observe: Any) -> None:
        pass

    def stop(self) -> None:
        pass

    def health(self) -> dict[str, Any]:
        return {"state": "reading", "lag_s": 0.0, "last_read_ms": None, "text": "摄像头读牌中 / camera reading"}


@pytest.fixture(autouse=True)
def _short_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every deck enrolled here is made for its file (which faces, which bytes), never read with: a
    50-step fit, not the product's 1500 (about 1.5 s of CPU less each)."""
    monkeypatch.setattr("vision.cardnet.enrol.ENROL_STEPS", 50)


def _retained(port: int, topic: str, payload: bytes) -> None:
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    c.connect("127.0.0.1", port)
    c.loop_start()
    try:
        c.publish(topic, payload, qos=1, retain=True).wait_for_publish(5)
    finally:
        c.loop_stop()
        c.disconnect()


def test_the_service_reads_with_the_deck_the_hub_left_retained(tmp_path: Path, mosquitto: int) -> None:
    from vision import enroll
    from vision.artwork import load_deck

    enroll({"Kd": load_deck("anglo").bgr("Kd")}, px_per_mm=6.0, rows=4, check_plays=0).save(tmp_path / "d.npz")
    data = (tmp_path / "d.npz").read_bytes()
    _retained(mosquitto, deck_topic("ev"), deck_message(data, {"cards": 1}))
    cfg = parse_service_config({
        "table_id": "T-7", "data_dir": str(tmp_path / "data"), "seats": {"E": "e", "S": "s", "W": "w", "N": "n"},
        "devices": {"default": "sim"}, "camera": {"source": "none"},
        "mqtt": {"enabled": True, "host": "127.0.0.1", "port": mosquitto, "event": "ev"}})
    cam = _Camera()
    with TableService(cfg, clock=TableClock(1.0), camera=cam, web=False):
        summary = first_message(mosquitto, "guandan/ev/T-7/summary", lambda m: bool(m.get("deck")))
        assert summary["deck"] == sha256_hex(data)
        assert cam.watcher.enrollment is not None and cam.watcher.enrollment.cards == ("Kd",)
        assert (tmp_path / "data" / "deck-enrollment.npz").read_bytes() == data


def _service_config(tmp_path: Path, vision: dict[str, Any] | None = None) -> Any:
    return parse_service_config({
        "table_id": "T-8", "data_dir": str(tmp_path / "data"), "seats": {"E": "e", "S": "s", "W": "w", "N": "n"},
        "devices": {"default": "sim"}, "camera": {"source": "none"}, **({"vision": vision} if vision else {})})


def test_a_restarted_table_reads_with_the_deck_it_saved(tmp_path: Path) -> None:
    """A deck enrolled at the panel (saved where the table keeps its deck) is read again after a
    restart, though ``table.toml`` names no enrolment file."""
    from vision import enroll
    from vision.artwork import load_deck

    (tmp_path / "data").mkdir()
    enroll({"Qs": load_deck("anglo").bgr("Qs")}, px_per_mm=6.0, rows=4, check_plays=0).save(
        tmp_path / "data" / "deck-enrollment.npz")
    cam = _Camera()
    with TableService(_service_config(tmp_path), clock=TableClock(1.0), camera=cam, web=False):
        assert cam.enrollment_path == str(tmp_path / "data" / "deck-enrollment.npz")
        assert cam.watcher.enrollment is not None and cam.watcher.enrollment.cards == ("Qs",)


def test_an_unreadable_saved_deck_leaves_the_table_reading_zero_shot(tmp_path: Path, caplog: Any) -> None:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "deck-enrollment.npz").write_bytes(b"PK\x03\x04 not a zip")
    cam = _Camera()
    with TableService(_service_config(tmp_path), clock=TableClock(1.0), camera=cam, web=False):
        assert cam.watcher.enrollment is None
    assert "saved deck" in caplog.text and "not used" in caplog.text


def test_a_deck_named_in_the_config_is_not_replaced_by_the_saved_one(tmp_path: Path) -> None:
    """The config's file was loaded with the watcher; the saved default file is then left alone."""
    from vision import enroll
    from vision.artwork import load_deck

    (tmp_path / "data").mkdir()
    named = tmp_path / "named.npz"
    enroll({"Qs": load_deck("anglo").bgr("Qs")}, px_per_mm=6.0, rows=4, check_plays=0).save(
        tmp_path / "data" / "deck-enrollment.npz")
    cam = _Camera()
    cam.watcher.enrollment = chosen = SimpleNamespace(cards=("Kd",))
    with TableService(_service_config(tmp_path, {"enrollment": str(named)}), clock=TableClock(1.0), camera=cam, web=False):
        assert cam.enrollment_path == str(named)
        assert cam.watcher.enrollment is chosen


def test_without_the_panel_the_bridge_s_feed_is_delayed_and_held_as_the_panel_s(
        tmp_path: Path, mosquitto: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """With [web] enabled = false the MQTT bridge makes its own public feed: it used to ignore
    [web] duplicate and the documented GUANDAN_WEB_FEED_DELAY_S, and would publish every deal."""
    monkeypatch.setenv("GUANDAN_WEB_FEED_DELAY_S", "45")
    cfg = parse_service_config({
        "table_id": "T-9", "data_dir": str(tmp_path / "data"), "seats": {"E": "e", "S": "s", "W": "w", "N": "n"},
        "devices": {"default": "sim"}, "camera": {"source": "none"}, "web": {"enabled": False, "duplicate": True},
        "mqtt": {"enabled": True, "host": "127.0.0.1", "port": mosquitto, "event": "ev"}})
    with TableService(cfg, clock=TableClock(1.0), web=False) as svc:
        assert svc.mqtt.feed.duplicate is True and svc.mqtt.feed.delay_ms == 45_000
