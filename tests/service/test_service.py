"""The table service's wiring: clock, camera-to-event mapping, clock ticks, effects on devices,
button presses, device outages, config and the ``run`` command."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.emulator import ScreenEmulator
from table_service.table.clock import TableClock
from table_service.table.config import load_service_config, parse_service_config
from table_service.table.inputs import camera_event
from table_service.table.service import TableService
from table_service.table.ticker import next_tick_ms

REPO = Path(__file__).resolve().parents[2]


def sim_config(tmp_path: Path, **extra: Any) -> dict[str, Any]:
    cfg: dict[str, Any] = {
        "table_id": "T9", "data_dir": str(tmp_path / "data"),
        "seats": {"E": "e", "S": "s", "W": "w", "N": "n"},
        "devices": {"default": "sim"}, "camera": {"source": "none"},
        "web": {"enabled": False},
    }
    cfg.update(extra)
    return cfg


def shows_time_left(svc: TableService, seat: str, deadline_ms: int, slack_s: float = 1.0) -> bool:
    """Whether ``seat``'s display shows the seconds left to ``deadline_ms``, give or take
    ``slack_s``: the clock is read just before and just after the display, so however long the
    read takes on a loaded machine, the bounds hold what the display may rightly show."""
    left_before = (deadline_ms - svc.clock.now_ms()) / 1000
    shown = (svc.devices.seats[seat].countdown.read_text() or "").strip()
    left_after = (deadline_ms - svc.clock.now_ms()) / 1000
    return shown.isdigit() and left_after - slack_s <= int(shown) <= left_before + slack_s


def start_round(svc: TableService) -> str:
    for ev in (svc.round_event(), {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
               {"type": "drawing_finished", "source": "panel", "data": {}}):
        assert svc.submit(ev).accepted
    return svc.runner.state()["deal"]["turn"]


# ----------------------------------------------------------------------------- pure parts


def test_table_clock_keeps_its_time_line_across_restarts(tmp_path: Path) -> None:
    f = tmp_path / "clock.json"
    a = TableClock(10.0, f)
    t1 = a.now_ms()
    time.sleep(0.05)
    b = TableClock(10.0, f)  # a restart: same origin, so table time went on while "down"
    assert b.now_ms() - t1 >= 400
    assert b.origin_table == a.origin_table and b.origin_wall == a.origin_wall
    # Read b before c exists (not after: at x10 a thread descheduled for 5 ms moves b 50 ms on).
    b_now = b.now_ms()
    c = TableClock(4.0, f)  # another speed continues from where the old time line is now
    assert c.now_ms() >= b_now
    before = time.time() * 1000
    wall = TableClock(1.0).now_ms()
    assert before - 1 <= wall <= time.time() * 1000 + 1  # x1 is the wall clock
    with pytest.raises(ValueError, match="positive"):
        TableClock(0)
    f.write_text("not json")
    with pytest.raises(ValueError, match="unreadable"):
        TableClock(2.0, f)


def test_camera_reads_map_to_the_event_the_phase_calls_for() -> None:
    play = {"deal": {"phase": "play"}}
    ev = camera_event(play, "E", ["7s", "7h"], [0.99, 0.98])
    assert ev == {"type": "cards_played", "source": "camera",
                  "data": {"seat": "E", "cards": ["7s", "7h"], "confidence": [0.99, 0.98]}}
    assert camera_event(play, "E", ["7s"], [0.4], True)["data"]["uncertain"] is True
    assert camera_event(play, "E", []) is None
    tribute = {"deal": {"phase": "tribute", "tribute_plan": {"payers": ["S"]}, "tributes": []}}
    assert camera_event(tribute, "S", ["BJ"]) == {"type": "tribute_given", "source": "camera",
                                                  "data": {"seat": "S", "card": "BJ"}}
    called = camera_event(tribute, "S", ["BJ"], [0.5], True, extra={"crop": "data:image/jpeg;base64,AA==",
                                                                   "reasons": ["low"]})
    assert called["type"] == "referee_called"  # the camera's guess and picture, for a one-tap entry
    assert called["data"]["card"] == "BJ" and called["data"]["crop"] == "data:image/jpeg;base64,AA=="
    assert "reasons" not in called["data"]
    # Each half names the card (the Chinese half had said only "进贡牌识别不确定").
    assert called["data"]["reason"] == "进贡牌识别不确定：大王？ / tribute card read uncertain: BJ?"
    two = camera_event(tribute, "S", ["BJ", "5c"], [0.9, 0.9], False)  # two cards where one is due
    assert two["type"] == "referee_called" and "card" not in two["data"] and "2" in two["data"]["reason"]
    assert two["data"]["reason"] == "进贡区读到 2 张牌：大王 梅花5 / 2 cards read in the tribute zone: BJ 5c"
    assert camera_event(tribute, "E", ["BJ"]) is None  # E owes nothing
    ret = {"deal": {"phase": "return", "tributes": [{"from": "S", "to": "E", "card": "BJ"}], "returns": []}}
    assert camera_event(ret, "E", ["4c"])["type"] == "return_given"
    assert camera_event({"deal": None}, "E", ["4c"]) is None


def test_ticks_fall_on_deadlines_and_every_second_of_overtime() -> None:
    st = {"deal": {"phase": "play", "timers": {"N": {"deadline_ms": 20_000}}}, "round": {"format": {"kind": "past_a"}}}
    assert next_tick_ms(st, 5_000) == 20_001
    assert next_tick_ms(st, 21_300) == 22_001
    assert next_tick_ms({"deal": {"phase": "play", "timers": {}}, "round": {"format": {}}}, 0) is None
    timed = {"deal": None, "round": {"format": {"kind": "time"}, "status": "play"}}
    assert next_tick_ms(timed, 100) == 1_100


def test_config_errors_name_the_section_and_key(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match=r"\[service\].*'sped'"):
        parse_service_config(sim_config(tmp_path, service={"sped": 2}))
    with pytest.raises(ValueError, match=r"\[service\].format = 'deals'"):
        parse_service_config(sim_config(tmp_path, service={"format": "deals"}))
    with pytest.raises(ValueError, match=r"\[web\].port"):
        parse_service_config(sim_config(tmp_path, web={"port": 70000}))
    with pytest.raises(ValueError, match="unknown"):
        parse_service_config(sim_config(tmp_path, bogus=1))  # hardware's checker names it
    bad = tmp_path / "t.toml"
    bad.write_text("table_id = [")
    with pytest.raises(ValueError, match="TOML"):
        load_service_config(bad)
    cfg = load_service_config(REPO / "deploy" / "table.toml", check_devices=False)
    assert cfg.table_id == "T01" and cfg.mqtt["event"] and cfg.db_path.name == "T01.sqlite3"


# ---------------------------------------------------------------------------- the service


def test_buttons_become_events_and_effects_drive_the_devices(wait_for: Any, tmp_path: Path) -> None:
    cfg = parse_service_config(sim_config(tmp_path))
    with TableService(cfg, clock=TableClock(1.0)) as svc:
        turn = start_round(svc)
        dev = svc.devices
        # The seat to lead: turn lamp on, its 40 s countdown running on its display.
        wait_for(lambda: dev.seats[turn].turn_lamp.mode == "on", what="turn lamp")
        timer = svc.runner.state()["deal"]["timers"][turn]
        deadline = int(timer["deadline_ms"])
        assert deadline - int(timer["started_ms"]) == 40_000
        wait_for(lambda: shows_time_left(svc, turn, deadline), what="the countdown of the time left")
        assert svc.submit({"type": "cards_played", "source": "panel",
                           "data": {"seat": turn, "cards": ["3s"]}}).accepted
        nxt = svc.runner.state()["deal"]["turn"]
        wait_for(lambda: dev.seats[nxt].turn_lamp.mode == "on" and dev.seats[turn].turn_lamp.mode == "off",
                 what="turn lamp moved")
        wait_for(lambda: (dev.seats[turn].countdown.read_text() or "").strip() == "", what="old countdown blank")
        # The next seat presses pass (sim button): the engine gets "passed" from that seat.
        dev.press(nxt, "pass")
        wait_for(lambda: any(e["type"] == "passed" and e["data"]["seat"] == nxt for e in svc.runner.events()),
                 what="pass event")
        # A call for the referee: flag, referee lamp blinking, buzzer.
        dev.press("S", "referee")
        wait_for(lambda: dev.referee_lamp.mode == "blink", what="referee lamp")
        flags = svc.runner.state()["flags"]
        assert flags[-1]["rule"] == "referee_call" and flags[-1]["seat"] == "S"
        assert any(fx["kind"] == "buzz" for fx in svc.driver.history)


def test_a_replayed_screen_press_is_logged_once_even_across_a_restart(wait_for: Any, tmp_path: Path) -> None:
    from hardware.devices import ButtonEvent

    cfg = parse_service_config(sim_config(tmp_path))
    press = ButtonEvent("S", "referee", True, time.monotonic(), "screen", controller_ms=1200, event_no=7)

    def calls(svc: TableService) -> int:
        return sum(1 for e in svc.runner.events() if e["type"] == "referee_called")

    with TableService(cfg, clock=TableClock(1.0)) as svc:
        start_round(svc)
        svc._on_button(press)
        wait_for(lambda: calls(svc) == 1, what="the press in the log")
        svc._on_button(press)  # the controller replays a press the Pi had not acknowledged
        svc._on_button(ButtonEvent("S", "referee", True, time.monotonic(), "screen", controller_ms=1900, event_no=8))
        wait_for(lambda: calls(svc) == 2, what="the next press in the log")
    with TableService(cfg, clock=TableClock(1.0)) as svc:  # a Pi restart: the replay comes once more
        svc._on_button(press)
        svc._on_button(ButtonEvent("S", "referee", True, time.monotonic(), "screen", controller_ms=2500, event_no=9))
        wait_for(lambda: calls(svc) == 3, what="the new press after the restart")
        assert [e["data"]["press"] for e in svc.runner.events() if e["type"] == "referee_called"] == [
            "?:7", "?:8", "?:9"]  # the simulated devices have no screen controller, so no boot id


def test_a_refused_press_sent_again_after_a_restart_is_not_decided_twice(wait_for: Any, tmp_path: Path) -> None:
    """The audit: a pass pressed with no deal running was refused and logged; the controller, whose
    acknowledgement a kill -9 had cut off, sent it again to the restarted service, which decided it a
    second time (and, the table having moved on meanwhile, might have accepted it)."""
    from hardware.devices import ButtonEvent

    cfg = parse_service_config(sim_config(tmp_path))
    press = ButtonEvent("S", "pass", True, time.monotonic(), "screen", controller_ms=900, event_no=3)

    def decided(svc: TableService) -> list[Any]:
        return [e for e in [*svc.runner.events(), *svc.runner.rejected()] if e["data"].get("press") == "?:3"]

    with TableService(cfg, clock=TableClock(1.0)) as svc:
        svc._on_button(press)  # no round: refused, in the log as refused
        wait_for(lambda: decided(svc), what="the refused press in the log")
    with TableService(cfg, clock=TableClock(1.0)) as svc:
        start_round(svc)
        svc._on_button(press)
        time.sleep(0.5)
        assert len(decided(svc)) == 1


def test_overtime_is_counted_and_flagged_by_the_ticks(wait_for: Any, tmp_path: Path) -> None:
    clock = TableClock(20.0, tmp_path / "clock.json")
    cfg = parse_service_config(sim_config(tmp_path))
    with TableService(cfg, clock=clock) as svc:
        turn = start_round(svc)  # 40 s to lead = 2 s real at x20
        flag = wait_for(lambda: next((f for f in svc.runner.state()["flags"] if f["rule"] == "time_over"), None),
                        what="time_over flag")
        assert flag["seat"] == turn
        wait_for(lambda: (svc.devices.seats[turn].countdown.read_text() or "").strip().startswith("-"),
                 what="overtime on the display")


def test_restart_resumes_countdowns_at_their_deadlines(wait_for: Any, tmp_path: Path) -> None:
    clock_file = tmp_path / "clock.json"
    cfg = parse_service_config(sim_config(tmp_path))
    with TableService(cfg, clock=TableClock(2.0, clock_file)) as svc:
        turn = start_round(svc)
        deadline = svc.runner.state()["deal"]["timers"][turn]["deadline_ms"]
    time.sleep(0.5)  # one second of table time passes while the service is down
    with TableService(cfg, clock=TableClock(2.0, clock_file)) as svc:
        st = svc.runner.state()
        assert st["deal"]["timers"][turn]["deadline_ms"] == deadline
        # The display shows the time left on the same time line (the restart did not reset it);
        # read against the clock before and after, so a slow machine cannot put them apart.
        wait_for(lambda: shows_time_left(svc, turn, deadline, slack_s=1.5), what="the resumed countdown")
        assert svc.devices.seats[turn].turn_lamp.mode == "on"


def test_a_screen_controller_outage_is_an_event_and_play_goes_on(wait_for: Any, tmp_path: Path) -> None:
    with ScreenEmulator() as emu:
        cfg = screen_config(tmp_path, emu)
        with TableService(cfg, clock=TableClock(1.0)) as svc:
            wait_for(lambda: svc.runner.state()["devices"]["screen"] == "online", what="screen online")
            turn = start_round(svc)
            wait_for(lambda: emu.read_lamp(turn, "turn") == "on", what="turn lamp on the controller")
            emu.unplug()
            wait_for(lambda: svc.runner.state()["devices"]["screen"] == "offline", what="screen offline event")
            # The referee enters the play at the panel meanwhile; the table keeps going.
            assert svc.submit({"type": "cards_played", "source": "panel",
                               "data": {"seat": turn, "cards": ["4d"]}}).accepted
            emu.replug()
            wait_for(lambda: svc.runner.state()["devices"]["screen"] == "online", what="screen back")
            nxt = svc.runner.state()["deal"]["turn"]
            emu.press(nxt, "pass")
            wait_for(lambda: any(e["type"] == "passed" and e["source"] == "screen" for e in svc.runner.events()),
                     what="pass through the controller")
            statuses = [e["data"]["status"] for e in svc.runner.events()
                        if e["type"] == "device_status_changed" and e["data"]["device"] == "screen"]
            assert statuses[-3:] == ["online", "offline", "online"]


def test_presses_the_screen_lost_call_the_referee(wait_for: Any, tmp_path: Path) -> None:
    """The controller numbers every press; a gap in the numbers is presses the host never got (a
    pass, a report, a call). Before, that only reached the log; now the referee is called, once per
    gap, saying how many."""
    with ScreenEmulator() as emu:
        cfg = screen_config(tmp_path, emu)
        with TableService(cfg, clock=TableClock(1.0)) as svc:
            wait_for(lambda: svc.runner.state()["devices"]["screen"] == "online", what="screen online")
            turn = start_round(svc)
            emu.press(turn, "referee")
            wait_for(lambda: any(e["type"] == "referee_called" and e["source"] == "screen" and e["data"].get("seat")
                                 for e in svc.runner.events()), what="a press through the controller")
            assert emu.controller is not None
            emu.controller.next_event_no += 3  # three presses numbered and never sent
            time.sleep(0.3)
            emu.press(turn, "referee")
            wait_for(lambda: [e for e in svc.runner.events() if e["type"] == "referee_called"
                              and "lost about 2 button press" in e["data"].get("reason", "")],
                     what="the lost presses said")  # three events: a press is two (down, up)
            time.sleep(0.6)  # the monitor looks four times a second: said once, not again
            said = [e for e in svc.runner.events() if e["type"] == "referee_called" and "lost" in e["data"].get("reason", "")]
            assert len(said) == 1 and said[0]["data"]["reason"].startswith("隔板屏丢失约 2 次按键")


def test_presses_the_controller_lost_while_the_pi_was_down_call_the_referee(wait_for: Any, tmp_path: Path) -> None:
    """The audit: with the Pi down, presses overflowed the controller's ring. The restarted host has no
    number to see a gap from, and the controller's own report ("ring buffer overflow: 144 button
    events lost") only reached the log as a warning line: no referee was called."""
    with ScreenEmulator() as emu:
        cfg = screen_config(tmp_path, emu)
        with TableService(cfg, clock=TableClock(1.0)) as svc:
            wait_for(lambda: svc.runner.state()["devices"]["screen"] == "online", what="screen online")
            start_round(svc)
        assert emu.controller is not None
        with emu._lock:
            emu.controller.lost_unreported = 12  # the ring overflowed meanwhile: twelve events gone
        with TableService(cfg, clock=TableClock(1.0)) as svc:
            wait_for(lambda: [e for e in svc.runner.events() if e["type"] == "referee_called"
                              and "lost about 6 button press" in e["data"].get("reason", "")],
                     what="the controller's lost presses said")


def test_presses_after_the_controller_restarts_are_not_taken_for_repeats(wait_for: Any, tmp_path: Path) -> None:
    """A controller that restarts (a power glitch) numbers its presses from 1 again. Each press is
    keyed by the controller's boot id and its number, so the new boot's press 1 is a new press, not
    a replay of the old boot's press 1 (the boot id was read wrongly, always "?", and it was dropped)."""
    with ScreenEmulator(heartbeat_ms=200) as emu:
        cfg = screen_config(tmp_path, emu)
        with TableService(cfg, clock=TableClock(1.0)) as svc:
            wait_for(lambda: svc.runner.state()["devices"]["screen"] == "online", what="screen online")
            start_round(svc)

            def calls() -> list[tuple[str, str]]:
                return [(e["data"]["seat"], e["data"]["press"]) for e in svc.runner.events()
                        if e["type"] == "referee_called"]

            emu.press("S", "referee")
            wait_for(lambda: len(calls()) == 1, what="the first boot's press")
            first_boot = calls()[0][1].split(":")[0]
            assert first_boot == str(emu.controller.boot_id)
            emu.reboot()
            wait_for(lambda: svc._screen_boot_id() == str(emu.controller.boot_id), what="the new boot's HELLO")
            emu.press("N", "referee")
            wait_for(lambda: len(calls()) == 2, what="the new boot's press 1")
            assert calls()[1] == ("N", f"{emu.controller.boot_id}:1") and calls()[0][1] == f"{first_boot}:1"


def test_a_press_made_while_the_pi_is_down_is_logged_when_it_comes_back(wait_for: Any, tmp_path: Path) -> None:
    """The controller keeps a press made while the service is stopped and sends it the moment the
    link is up again; the service listens before it opens the link, and the press is acknowledged
    only once logged (it was acknowledged first, then reached no one: lost without a word)."""
    with ScreenEmulator() as emu:
        cfg = screen_config(tmp_path, emu)


        with TableService(cfg, clock=TableClock(1.0)) as svc:
            wait_for(lambda: svc.runner.state()["devices"]["screen"] == "online", what="screen online")
            start_round(svc)
            emu.press("E", "referee", bounce=False)
            wait_for(lambda: seats_calling(svc) == ["E"], what="E's press logged")
        emu.press("S", "referee", bounce=False)  # the Pi is down
        assert emu.wait_for(lambda: any(g.seat == "S" for g in emu.generated))
        with TableService(cfg, clock=TableClock(1.0)) as svc:
            wait_for(lambda: seats_calling(svc) == ["E", "S"], what="S's press, kept by the controller, logged")
            assert emu.wait_for(lambda: not emu.controller.endpoint.tx)  # and only then forgotten there


def screen_config(tmp_path: Path, emu: ScreenEmulator) -> Any:
    """A simulated table whose buttons and displays are the emulated screen controller's."""
    return parse_service_config(sim_config(tmp_path, devices={"default": "screen", "status_led": "sim"},
                                           screen={"port": emu.port, "connect_timeout_s": 5.0}))


def seats_calling(svc: TableService) -> list[str]:
    """The seats of the referee calls in the log, in order."""
    return [e["data"]["seat"] for e in svc.runner.events() if e["type"] == "referee_called"]


def press_kept(emu: ScreenEmulator) -> bool:
    """Whether a button frame is still in the controller's queue (not yet acknowledged by the host)."""
    from firmware_bridge.firmware.wire import BUTTON

    with emu._lock:
        return any(e[1] == BUTTON for e in emu.controller.endpoint.tx)


def test_a_press_waiting_behind_a_slow_engine_stays_with_the_controller(wait_for: Any, tmp_path: Path) -> None:
    """The engine is busy for 3 s (a long re-fold) when a referee button is pressed: the press is not
    acknowledged until it is in the log (it was acknowledged after 1 s, so a Pi dying in the next
    2 s lost a press the controller had forgotten), and the screen stays online meanwhile."""
    import threading

    with ScreenEmulator() as emu:
        cfg = screen_config(tmp_path, emu)

        with TableService(cfg, clock=TableClock(1.0)) as svc:
            wait_for(lambda: svc.runner.state()["devices"]["screen"] == "online", what="screen online")
            start_round(svc)
            busy, free = threading.Event(), threading.Event()

            def slow(_state: Any) -> None:  # runs on the engine thread, as a long re-fold would
                busy.set()
                free.wait(10)

            svc.runner.submit({"type": "referee_called", "source": "panel", "data": {"seat": "N", "reason": "x"}},
                              wait=False, precondition=slow)
            assert busy.wait(10)
            emu.press("E", "referee", bounce=False)
            assert emu.wait_for(lambda: any(g.seat == "E" for g in emu.generated))
            time.sleep(2.0)
            assert press_kept(emu), "acknowledged before it was in the log"
            assert not [e for e in svc.runner.events() if e["data"].get("seat") == "E"]
            assert svc.runner.state()["devices"]["screen"] == "online"
            free.set()
            wait_for(lambda: any(e["type"] == "referee_called" and e["data"]["seat"] == "E"
                                 for e in svc.runner.events()), what="the press logged")
            assert emu.wait_for(lambda: not press_kept(emu), timeout=10), "never acknowledged"


def test_a_press_the_log_could_not_take_is_kept_by_the_controller_for_the_next_start(wait_for: Any,
                                                                                     tmp_path: Path) -> None:
    """The review: the store failing (a full card) answered the press "internal error" and the link
    acknowledged it anyway: the controller forgot a press no log held. It stays unacknowledged, and
    the service started again (its card fixed) logs it from the controller's queue."""
    with ScreenEmulator() as emu:
        cfg = screen_config(tmp_path, emu)


        with TableService(cfg, clock=TableClock(1.0)) as svc:
            wait_for(lambda: svc.runner.state()["devices"]["screen"] == "online", what="screen online")
            start_round(svc)
            store = svc.runner._store
            append = store.append

            def full_card(ev: Any, *a: Any, **kw: Any) -> Any:  # the card refuses this one write
                if ev.get("type") == "referee_called":
                    raise OSError(28, "No space left on device")
                return append(ev, *a, **kw)

            store.append = full_card  # type: ignore[method-assign]
            emu.press("E", "referee", bounce=False)
            assert emu.wait_for(lambda: any(g.seat == "E" for g in emu.generated))
            time.sleep(1.5)
            assert seats_calling(svc) == [] and press_kept(emu), "acknowledged though no log holds it"
        with TableService(cfg, clock=TableClock(1.0)) as svc:
            wait_for(lambda: seats_calling(svc) == ["E"], what="the kept press logged at the next start")
            assert emu.wait_for(lambda: not press_kept(emu), timeout=10)


def test_a_pass_pressed_in_time_during_a_screen_outage_is_in_time(wait_for: Any, tmp_path: Path) -> None:
    """The cable is pulled; the seat to act passes 15 table-s before its deadline; the link returns
    after it. The controller kept the press with its own time: the pass is logged at the deadline
    (in time, as a camera play seen in time is), no one is flagged over time meanwhile (the
    countdowns were dark), and the next seat's countdown starts whole when the screen is back."""
    with ScreenEmulator(heartbeat_ms=200) as emu:
        cfg = screen_config(tmp_path, emu)
        with TableService(cfg, clock=TableClock(10.0)) as svc:
            wait_for(lambda: svc.runner.state()["devices"]["screen"] == "online", what="screen online")
            turn = start_round(svc)
            emu.press(turn, "report")  # a press delivered at once: the controller's clock is known
            wait_for(lambda: any(e["type"] == "report_pressed" for e in svc.runner.events()), what="report")
            assert svc.submit({"type": "cards_played", "source": "panel", "data": {"seat": turn, "cards": ["4d"]}}).accepted
            st = svc.runner.state()
            nxt = st["deal"]["turn"]
            deadline = st["deal"]["timers"][nxt]["deadline_ms"]
            emu.unplug()
            wait_for(lambda: svc.runner.state()["devices"]["screen"] == "offline", what="screen offline")
            wait_for(lambda: svc.clock.now_ms() >= deadline - 15_000, what="5 table-s into the countdown")
            emu.press(nxt, "pass")  # in time; kept by the controller
            wait_for(lambda: svc.clock.now_ms() > deadline + 10_000, what="the deadline long past")
            emu.replug()
            passed = wait_for(lambda: next((e for e in svc.runner.events() if e["type"] == "passed"), None),
                              what="the pass, delivered late")
            wait_for(lambda: svc.runner.state()["devices"]["screen"] == "online", what="screen back")
            assert passed["t_ms"] == deadline and passed["data"]["seat"] == nxt
            assert not [f for f in svc.runner.state()["flags"] if f["rule"] == "time_over"]


def test_run_command_starts_the_service_and_stops_on_sigterm(tmp_path: Path) -> None:
    toml = tmp_path / "table.toml"
    toml.write_text('table_id = "T5"\ndata_dir = "data"\n[seats]\nE = "a"\nS = "b"\nW = "c"\nN = "d"\n'
                    '[devices]\ndefault = "sim"\n[camera]\nsource = "none"\n[web]\nhost = "127.0.0.1"\nport = 0\n')
    proc = subprocess.Popen([sys.executable, "-m", "table_service", "run", "--config", str(toml)], cwd=REPO,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, PYTHONUNBUFFERED="1"))
    try:
        assert proc.stdout is not None
        lines = [proc.stdout.readline() for _ in range(3)]
        assert "T5" in lines[0] and "T5.sqlite3" in lines[1] and "http://127.0.0.1:" in lines[2], lines
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert (tmp_path / "data" / "T5.sqlite3").exists()
    bad = tmp_path / "bad.toml"
    bad.write_text(toml.read_text() + "[service]\nformat = \"bogus\"\n")
    res = subprocess.run([sys.executable, "-m", "table_service", "run", "--config", str(bad)], cwd=REPO,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 2 and "format" in res.stderr


def test_the_card_reader_is_told_the_shapes_of_this_deals_level(tmp_path: Path) -> None:
    """The watcher's ``lawful`` hook: no deal, no shapes; in a deal, the level's heart is wild."""
    cfg = parse_service_config(sim_config(tmp_path))
    with TableService(cfg, clock=TableClock(1.0)) as svc:
        assert svc.lawful("E") is None
        start_round(svc)
        lawful = svc.lawful("E")
        level = svc.runner.state()["deal"]["level"]
        assert lawful is not None
        other = "3" if level != "3" else "4"
        assert lawful([f"{level}h", f"{other}s"])  # the wild card makes a pair
        assert not lawful([f"{level}s", f"{other}s"]) and lawful([f"{other}s", f"{other}d"])
