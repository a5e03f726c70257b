"""The screen backend against firmware_bridge's emulated controller on a real pseudo-terminal."""

from __future__ import annotations

import dataclasses
import queue
import re
import time
from collections.abc import Callable, Iterator

import pytest

from firmware_bridge.emulator import ScreenEmulator
from hardware.config import load_config
from hardware.devices import ButtonEvent
from hardware.selftest import SelfTest
from hardware.table import TableDevices

SCREEN_TABLE = """
table_id = "S1"
[seats]
E = "a"
S = "b"
W = "c"
N = "d"
[devices]
default = "screen"
status_led = "sim"
[screen]
port = "{port}"
"""


def wait_until(cond: Callable[[], bool], timeout: float = 5.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.005)
    return cond()


@pytest.fixture
def emulator() -> Iterator[ScreenEmulator]:
    with ScreenEmulator(heartbeat_ms=200) as emu:
        yield emu


@pytest.fixture
def screen_table(emulator, write_toml) -> Iterator[TableDevices]:
    cfg = load_config(write_toml(SCREEN_TABLE.format(port=emulator.port)))
    table = TableDevices(cfg, screen_kwargs={"heartbeat_s": 0.2})
    with table:
        assert table.screen.is_connected
        yield table


def next_event(events: queue.Queue[ButtonEvent], timeout: float = 5.0) -> ButtonEvent:
    return events.get(timeout=timeout)


def test_screen_buttons_become_events(screen_table, emulator) -> None:
    events, _unsub = screen_table.event_queue()
    emulator.press("W", "pass")
    down, up = next_event(events), next_event(events)
    assert (down.seat, down.button, down.pressed, down.source) == ("W", "pass", True, "screen")
    assert (up.seat, up.button, up.pressed) == ("W", "pass", False)
    assert down.event_no is not None and up.event_no == down.event_no + 1
    assert down.controller_ms is not None
    assert down.as_data()["event_no"] == down.event_no


def test_lamps_buzzer_and_displays(screen_table, emulator) -> None:
    seat = screen_table.seats["S"]
    seat.turn_lamp.blink()
    assert emulator.wait_for(lambda: emulator.read_lamp("S", "turn") == "blink")
    assert seat.turn_lamp.read_back() == "blink"
    screen_table.referee_lamp.on()
    assert emulator.wait_for(lambda: emulator.read_lamp(None, "referee") == "on")
    assert screen_table.referee_lamp.read_back() == "on"
    screen_table.buzzer.buzz(300)
    assert emulator.wait_for(lambda: emulator.buzzer_on)

    east = screen_table.seats["E"].countdown
    # 5 s, and each reading compared with the one before: a test thread stalled for a second on
    # a loaded machine used to miss the one second "   1" was shown.
    east.set_countdown(5)
    seen: list[str] = []
    assert emulator.wait_for(lambda: bool(seen.append(emulator.read_display("E")) or re.fullmatch(r"   [1-5]", seen[-1])),
                             timeout=60)
    first = int(seen[-1])
    assert emulator.wait_for(lambda: re.fullmatch(rf"   [0-{first - 1}]", emulator.read_display("E")), timeout=60)
    assert re.fullmatch(rf"   [0-{first - 1}]", east.read_text() or ""), east.read_text()
    seat.countdown.show_text("pk")  # K has no glyph: shown blank, as on a GPIO display
    assert emulator.wait_for(lambda: emulator.read_display("S").strip() == "P")
    assert seat.countdown.error is None
    seat.countdown.clear()
    assert emulator.wait_for(lambda: emulator.read_display("S") == "    ")


def test_presses_during_link_outage_arrive_after_replug(screen_table, emulator) -> None:
    events, _unsub = screen_table.event_queue()
    emulator.unplug()
    assert wait_until(lambda: not screen_table.screen.is_connected)
    assert screen_table.status()["screen"]["connected"] is False
    emulator.press("N", "referee")  # kept in the controller's ring buffer
    screen_table.seats["N"].report_lamp.on()  # kept as desired state by firmware_bridge
    emulator.replug()
    ev = next_event(events, timeout=10)
    assert (ev.seat, ev.button, ev.pressed, ev.source) == ("N", "referee", True, "screen")
    assert emulator.wait_for(lambda: emulator.read_lamp("N", "report") == "on")
    assert screen_table.status()["screen"]["connected"] is True


def test_buttons_on_gpio_ignore_the_screens(emulator, write_toml, mock_factory) -> None:
    text = SCREEN_TABLE.format(port=emulator.port).replace('status_led = "sim"',
                                                           'status_led = "sim"\nreport_button = "gpio"')
    text += "\n".join(f"[gpio.pins.{s}]\nreport_button = {p}" for s, p in zip("ESWN", (5, 6, 12, 13), strict=True))
    with TableDevices(load_config(write_toml(text))) as table:
        events, _unsub = table.event_queue()
        emulator.press("E", "report")  # the screen's report buttons are not this table's
        emulator.press("E", "pass")
        ev = next_event(events)
        assert (ev.seat, ev.button, ev.source) == ("E", "pass", "screen")
        table.seats["S"].buttons["report"].simulate_press()
        evs = [next_event(events) for _ in range(3)]
        assert [(e.seat, e.button, e.source) for e in evs if e.pressed] == [("S", "report", "gpio")]
        assert all(e.button != "report" or e.source == "gpio" for e in evs)


def test_selftest_over_the_emulator(screen_table, emulator) -> None:
    report = SelfTest(screen_table, prompt=emulator.press, out=None, lamp_s=0.0, countdown_from=1,
                      displays_together=True, button_timeout_s=5.0).run()
    assert report.ok, report.format()
    lamp = report.result("南 S 出牌灯 / turn lamp")
    assert lamp.ok and "screen: 开/关已读回" in lamp.detail
    assert report.result("西 W 倒计时 / countdown").detail == "screen: 1 0"
    assert report.result("北 N 呼叫裁判 / call referee").detail.startswith("screen:")
    assert report.result("摄像头 / camera").ok is None


def test_screen_absent_at_start(write_toml, tmp_path) -> None:
    """A table whose controller is unplugged starts anyway and says so."""
    port = tmp_path / "ttyGone"
    cfg = load_config(write_toml(SCREEN_TABLE.format(port=port)), check_devices=False)
    cfg = dataclasses.replace(cfg, screen=dataclasses.replace(cfg.screen, connect_timeout_s=0.2))
    with TableDevices(cfg) as table:
        assert table.status()["screen"] == {"url": str(port), "connected": False}
        table.seats["E"].turn_lamp.on()  # accepted, delivered when the controller appears
        assert table.seats["E"].turn_lamp.read_back() is None


def test_selftest_fails_the_screen_devices_when_no_controller_answers(write_toml, tmp_path) -> None:
    """Nothing on the port: every screen lamp, display, the buzzer and each button used to PASS
    ("no read-back, check by eye"; the buttons each waited out their timeout) and the table was "OK"."""
    port = tmp_path / "ttyGone"
    cfg = load_config(write_toml(SCREEN_TABLE.format(port=port)), check_devices=False)
    cfg = dataclasses.replace(cfg, screen=dataclasses.replace(cfg.screen, connect_timeout_s=0.2))
    with TableDevices(cfg) as table:
        t0 = time.monotonic()
        report = SelfTest(table, out=None, lamp_s=0.0, countdown_from=1, button_timeout_s=5.0).run()
        assert time.monotonic() - t0 < 5.0  # no button waited out its timeout
    assert not report.ok
    failed = {r.item for r in report.failed()}
    assert len(failed) == 4 * 2 + 1 + 4 + 1 + 4 * 3  # seat lamps, referee lamp, displays, buzzer, buttons
    assert all("screen controller not connected" in r.detail and str(port) in r.detail for r in report.failed())
    assert report.result("状态灯 / status LED").ok  # the sim status LED is checked as before


def test_a_non_finite_countdown_on_the_screen_is_a_value_error(screen_table) -> None:
    """inf raised OverflowError, which no caller of a display expects (bad values are ValueError)."""
    display = screen_table.seats["E"].countdown
    for args in ((float("inf"),), (float("nan"),), (20, float("inf"))):
        with pytest.raises(ValueError, match="must be a finite number"):
            display.set_countdown(*args)
    with pytest.raises(ValueError, match="must be a finite number"):
        display.show_overtime(float("-inf"))
