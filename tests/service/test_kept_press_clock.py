"""Dating a screen press the controller kept through an outage (TableService._pressed_at).

The controller stamps each press with its own clock (``controller_ms``, ms since its boot); the
service sets it against the host's clock to know when a press that arrives late was made. The
reference is the least (host ms − controller ms) seen for the controller's boot: from its HELLO
(``controller_info``'s ``clock_ms``/``clock_host_ms``, firmware 1.1.0 on) and from presses
delivered at once. Without the HELLO's clock a Pi that restarted took the first press it heard of,
the kept one, as the reference and dated it "now": a pass made in time was flagged time_over.
"""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from firmware_bridge.emulator import ScreenEmulator
from hardware.devices import ButtonEvent
from table_service.table.clock import TableClock
from table_service.table.config import parse_service_config
from table_service.table.service import TableService

from .test_service import sim_config, start_round

#: Table time runs this many times faster than real time: a seat's 20 s to answer is 5 s real,
#: long enough to stop the service and press within it on a loaded machine.
SPEED = 4.0


def standing_time_over(svc: TableService) -> list[dict[str, Any]]:
    """time_over flags still standing (a tick's flag that the press's own time withdrew is not)."""
    return [f for f in svc.runner.state()["flags"] if f["rule"] == "time_over" and f["status"] != "withdrawn"]


def test_a_pass_kept_through_a_pi_restart_is_dated_by_the_controller_clock(wait_for: Any, tmp_path: Path) -> None:
    """The Pi goes down while a seat's countdown runs; the seat presses pass in time; the Pi comes
    back after the deadline. The kept press is the first the new process hears of that controller
    boot: it is dated by the clock the controller gave in its HELLO, so the pass is in time (logged
    at the deadline) and no one stands flagged over time."""
    clock_file = tmp_path / "clock.json"  # the table's time line goes on while the Pi is down
    with ScreenEmulator(heartbeat_ms=200) as emu:
        cfg = parse_service_config(sim_config(tmp_path, devices={"default": "screen", "status_led": "sim"},
                                              screen={"port": emu.port, "connect_timeout_s": 5.0}))
        with TableService(cfg, clock=TableClock(SPEED, clock_file)) as svc:
            wait_for(lambda: svc.runner.state()["devices"]["screen"] == "online", what="screen online")
            turn = start_round(svc)
            assert svc.submit({"type": "cards_played", "source": "panel",
                               "data": {"seat": turn, "cards": ["4d"]}}).accepted
            st = svc.runner.state()
            nxt = st["deal"]["turn"]
            deadline = int(st["deal"]["timers"][nxt]["deadline_ms"])
        clock = TableClock(SPEED, clock_file)  # the Pi is down: the same time line, read here
        emu.press(nxt, "pass", bounce=False)
        assert emu.wait_for(lambda: any(g.seat == nxt and g.button == "pass" for g in emu.generated))
        pressed_ms = clock.now_ms()
        assert pressed_ms < deadline - 2_000, "the machine took the whole countdown to stop the service"
        wait_for(lambda: clock.now_ms() > deadline + 5_000, what="the deadline well past, the Pi still down")
        with TableService(cfg, clock=clock) as svc:
            passed = wait_for(lambda: next((e for e in svc.runner.events() if e["type"] == "passed"), None),
                              what="the pass the controller kept")
            assert svc._screen_boot_id() == str(emu.controller.boot_id)  # no controller restart here
            assert passed["data"]["seat"] == nxt and passed["source"] == "screen"
            assert passed["t_ms"] == deadline, (
                f"dated {passed['t_ms'] - deadline} ms after the deadline; pressed {pressed_ms - deadline} ms from it")
            assert standing_time_over(svc) == []


# ------------------------------------------------------------------------------------------------
# _pressed_at alone, with a controller_info as the screen would give it (no threads, no waiting)


def bare_service(tmp_path: Path, info: dict[str, Any] | None, deadline_ms: int) -> TableService:
    """A service that is not started: a seat ``S`` whose deadline is ``deadline_ms`` on the wall
    clock, and a screen controller whose ``controller_info`` is ``info``."""
    svc = TableService(parse_service_config(sim_config(tmp_path)), clock=TableClock(1.0))
    state = {"deal": {"timers": {"S": {"deadline_ms": deadline_ms}}}}
    svc.runner = SimpleNamespace(state=lambda: state)  # type: ignore[assignment]
    svc.devices = SimpleNamespace(screen=SimpleNamespace(controller=SimpleNamespace(controller_info=info)))
    return svc


def kept_press(controller_ms: int) -> ButtonEvent:
    return ButtonEvent("S", "pass", True, time.monotonic(), "screen", controller_ms=controller_ms, event_no=1)


def test_the_hello_clock_dates_the_first_press_heard_of(tmp_path: Path) -> None:
    host_ms = time.monotonic() * 1000.0
    # HELLO came 20 s ago with the controller's clock at 100 s; the press was made 10 s after it,
    # i.e. 10 s ago, and the deadline passed 5 s ago: in time.
    info = {"boot_id": 77, "clock_ms": 100_000, "clock_host_ms": int(host_ms - 20_000)}
    deadline = TableClock(1.0).now_ms() - 5_000
    svc = bare_service(tmp_path, info, deadline)
    assert svc._pressed_at(kept_press(110_000), "S") == deadline
    # a press made 2 s ago, after the deadline, is not moved ("now")
    assert svc._pressed_at(kept_press(118_000), "S") is None


def test_without_the_hello_clock_presses_delivered_at_once_are_the_reference(tmp_path: Path) -> None:
    """Firmware before 1.1.0 sends no clock: the service falls back on the least gap its presses
    show, as before (so the first press it hears of after a Pi restart is dated on arrival)."""
    deadline = TableClock(1.0).now_ms() - 5_000
    old_firmware = {"boot_id": 77, "clock_ms": None, "clock_host_ms": None}
    svc = bare_service(tmp_path, old_firmware, deadline)
    assert svc._pressed_at(kept_press(500_000), "S") is None  # the only reference: itself, "now"
    # a press now known (from that reference) to have been made 10 s ago: in time
    assert svc._pressed_at(kept_press(490_000), "S") == deadline
    # no controller_info at all (a screen object without one): the same fallback
    svc = bare_service(tmp_path, None, deadline)
    assert svc._pressed_at(kept_press(500_000), "S") is None
    assert svc._pressed_at(kept_press(490_000), "S") == deadline
