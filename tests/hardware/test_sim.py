"""The sim backend and the backend-independent parts: countdown rendering, mixing, events."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from hardware.backends.sim import SimButton, SimDisplay, SimLamp
from hardware.config import load_config
from hardware.devices import NullDisplay, NullLamp, render_countdown
from hardware.table import TableDevices

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture
def sim_table():
    with TableDevices(load_config(EXAMPLES / "table-sim.toml")) as table:
        yield table


@pytest.mark.parametrize(
    ("mode", "seconds", "elapsed", "shown"),
    [
        ("countdown", 20, 0.0, "  20"),
        ("countdown", 20, 0.999, "  20"),
        ("countdown", 20, 1.0, "  19"),
        ("countdown", 20, 19.5, "   1"),
        ("countdown", 20, 20.0, "   0"),
        ("countdown", 20, 95.0, "   0"),
        ("countdown", 12000, 0.0, "9999"),
        ("overtime", 5, 0.0, "-  5"),
        ("overtime", 5, 2.4, "-  7"),
        ("overtime", 0, 5000.0, "-999"),
        (None, 0, 0.0, "    "),
    ],
)
def test_render_countdown(mode, seconds, elapsed, shown) -> None:
    assert render_countdown(mode, seconds, 100.0, 100.0 + elapsed) == shown


def test_render_text() -> None:
    assert render_countdown("text", 0, 0, 0, "ok") == "ok  "
    assert render_countdown("text", 0, 0, 0, "toolong") == "tool"


def test_sim_devices(sim_table) -> None:
    seat = sim_table.seats["N"]
    assert seat.name == "Bot N"
    assert isinstance(seat.report_lamp, SimLamp) and isinstance(seat.countdown, SimDisplay)
    seat.report_lamp.blink()
    seat.report_lamp.off()
    assert [m for _t, m in seat.report_lamp.history] == ["blink", "off"]
    assert seat.lamp("report") is seat.report_lamp and seat.lamp("turn") is seat.turn_lamp
    sim_table.buzzer.buzz(10_000)
    assert sim_table.buzzer.is_active and sim_table.buzzer.buzzes[-1][1] == 10_000
    sim_table.status_led.set("pulse")  # the status LED has the extra mode
    with pytest.raises(ValueError):
        sim_table.referee_lamp.set("pulse")


def test_sim_display_counts_down(sim_table) -> None:
    d = sim_table.seats["E"].countdown
    d.set_countdown(1)
    assert d.wait_for_text("   1", 1)
    assert d.wait_for_text("   0", 3)
    d.show_overtime(3)
    assert d.wait_for_text("-  3", 1)
    d.show_text("E")
    assert d.wait_for_text("E   ", 1)
    shown = d.history
    assert shown.index("   1") < shown.index("   0") < shown.index("-  3") < shown.index("E   ")


def test_sim_buttons_and_press(sim_table) -> None:
    events, _unsub = sim_table.event_queue()
    sim_table.press("S", "report")
    down, up = events.get(timeout=1), events.get(timeout=1)
    assert (down.seat, down.button, down.pressed, down.source) == ("S", "report", True, "sim")
    assert (up.seat, up.pressed) == ("S", False)
    b = sim_table.seats["S"].buttons["pass"]
    assert isinstance(b, SimButton)
    b.press()
    b.press()  # already down: no second event
    b.release()
    assert [e.pressed for e in (events.get(timeout=1), events.get(timeout=1))] == [True, False]
    assert events.empty()


def test_wait_for_button_from_another_thread(sim_table) -> None:
    threading.Timer(0.05, sim_table.press, args=("W", "pass")).start()
    ev = sim_table.wait_for_button(button="pass", timeout=3)
    assert ev is not None and ev.seat == "W"
    assert sim_table.wait_for_button("E", timeout=0.01) is None


def test_inventory(sim_table) -> None:
    assert [label for label, _ in sim_table.lamps()][:2] == ["E.report_lamp", "E.turn_lamp"]
    assert len(list(sim_table.lamps())) == 10
    assert len(list(sim_table.buttons())) == 12
    assert [label for label, _ in sim_table.displays()] == ["E.countdown", "S.countdown", "W.countdown", "N.countdown"]
    assert "SIM1" in repr(sim_table)
    assert sim_table.status()["backends"]["countdown"] == "sim"


def test_none_backend_and_press_errors(write_toml) -> None:
    text = """
table_id = "N1"
[seats]
E = "a"
S = "b"
W = "c"
N = "d"
[devices]
default = "none"
pass_button = "sim"
"""
    with TableDevices(load_config(write_toml(text))) as table:
        assert isinstance(table.seats["E"].countdown, NullDisplay)
        assert isinstance(table.referee_lamp, NullLamp)
        table.seats["E"].countdown.set_countdown(20)  # accepted, does nothing
        table.buzzer.buzz()
        assert table.seats["E"].buttons["report"] is None
        assert len(list(table.buttons())) == 4
        with pytest.raises(ValueError, match="not a sim button"):
            table.press("E", "report")
        table.press("E", "pass")
        assert table.open_camera() is None


@pytest.mark.parametrize(("call", "args"), [
    ("set_countdown", (float("nan"),)), ("set_countdown", (float("inf"),)),
    ("set_countdown", (20, float("-inf"))), ("show_overtime", (float("nan"),)),
])
def test_a_non_finite_time_is_refused_and_every_display_keeps_ticking(sim_table, call: str, args: tuple) -> None:
    """nan or inf was stored before it failed: every later refresh raised, the one shared ticker
    thread died of it, and no Pi-driven display of the table counted down again."""
    with pytest.raises(ValueError, match="must be a finite number"):
        getattr(sim_table.seats["E"].countdown, call)(*args)
    south = sim_table.seats["S"].countdown
    south.set_countdown(1)
    deadline = time.monotonic() + 5
    while south.read_text() != "   0" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert south.read_text() == "   0"


def test_a_display_whose_refresh_fails_does_not_stop_the_others(sim_table, caplog) -> None:
    east, south = sim_table.seats["E"].countdown, sim_table.seats["S"].countdown
    east.refresh = lambda: 1 / 0  # a bug in one display (instance attribute: the ticker calls it)
    south.set_countdown(1)
    deadline = time.monotonic() + 5
    while south.read_text() != "   0" and time.monotonic() < deadline:
        time.sleep(0.01)
    assert south.read_text() == "   0"
    assert any("refresh failed" in r.getMessage() for r in caplog.records)
