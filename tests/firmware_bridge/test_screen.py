"""ScreenController against the real firmware running in the emulator, over a real pty."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from firmware_bridge.emulator import ScreenEmulator
from firmware_bridge.errors import VersionMismatchError
from firmware_bridge.firmware.wire import SET_COUNTDOWN, SET_LAMP, SHOW_TEXT
from firmware_bridge.screen import ScreenButtonEvent, ScreenController

from .conftest import Recorder, wait_until

SEATS = "ESWN"
BUTTONS = ("report", "pass", "referee")


def counting(text: str, start: int, slack: int = 3) -> bool:
    """The display shows a countdown from ``start`` that has run at most ``slack`` seconds
    (generous, because a loaded 2-core machine may take a while to get the frame through)."""
    return text.strip().isdigit() and start - slack <= int(text) <= start


def test_commands_drive_displays_lamps_and_buzzer(emulator: ScreenEmulator, screen: ScreenController,
                                                 recorder: Recorder) -> None:
    screen.set_countdown("E", 20)
    screen.set_countdown("S", 40, start_ms=int(time.time() * 1000) - 5000)  # started 5 s ago
    screen.show_overtime("W", 12)
    screen.show_text("N", "err")
    screen.set_lamp("E", "report", "on")
    screen.set_lamp("S", "turn", "blink")
    screen.set_lamp(None, "referee", "on")
    screen.buzz(300)
    assert wait_until(lambda: counting(emulator.read_display("E"), 20)), _diagnose(emulator, screen, recorder)
    assert wait_until(lambda: counting(emulator.read_display("S"), 35))  # 5 of its 40 s were gone
    assert wait_until(lambda: emulator.read_display("W") == " -12")
    assert wait_until(lambda: emulator.read_display("N") == "ERR ")
    assert wait_until(lambda: emulator.read_lamp("E", "report") == "on")
    assert wait_until(lambda: emulator.read_lamp("S", "turn") == "blink")
    assert wait_until(lambda: emulator.read_lamp(None, "referee") == "on")
    assert emulator.read_lamp("W", "report") == "off"
    assert wait_until(lambda: emulator.lamp_is_lit("S.turn")) and wait_until(lambda: not emulator.lamp_is_lit("S.turn"))
    assert wait_until(lambda: [on for _, on in emulator.output_changes("buzzer")][-2:] == [True, False], 3)
    (t_on, _), (t_off, _) = emulator.output_changes("buzzer")[-2:]
    assert t_off - t_on >= 0.29  # sounded for its 300 ms

    state = screen.query_state()
    assert state["displays"]["E"]["mode"] == "countdown" and state["displays"]["E"]["blink"] is False
    assert counting(state["displays"]["E"]["text"], 20)
    assert state["displays"]["N"]["mode"] == "text"
    assert state["lamps"]["E"] == {"report": "on", "turn": "off"}
    assert state["lamps"]["S"]["turn"] == "blink"
    assert state["lamps"]["referee"] == "on"
    assert state["controller"]["ident"] == "EMU-SCREEN-1"
    assert state["controller"]["boot_id"] == emulator.controller.boot_id

    screen.set_blink("E", True)
    assert wait_until(lambda: emulator.read_display("E") == "    ")
    assert wait_until(lambda: emulator.read_display("E").strip().isdigit())
    screen.clear("E")
    assert wait_until(lambda: emulator.read_display("E") == "    " and not emulator.controller.displays[0].mode)


def test_button_presses_arrive_numbered_with_controller_time(emulator: ScreenEmulator, screen: ScreenController,
                                                             recorder: Recorder) -> None:
    emulator.press("E", "report")
    assert recorder.wait(lambda: len(recorder.buttons) == 2)
    emulator.press("N", "referee")  # (pressed together, two buttons would interleave)
    assert recorder.wait(lambda: len(recorder.buttons) == 4)
    evs = recorder.buttons
    assert [(e.seat, e.button, e.pressed, e.event_no) for e in evs] == [
        ("E", "report", True, 1), ("E", "report", False, 2), ("N", "referee", True, 3), ("N", "referee", False, 4)]
    assert all(isinstance(e, ScreenButtonEvent) and e.controller_ms >= 0 for e in evs)
    assert evs[0].controller_ms <= evs[1].controller_ms
    assert [screen.events.get(timeout=1) for _ in range(4)] == evs  # the queue carries the same events


def test_bad_arguments_are_clear_errors(screen: ScreenController, emulator: ScreenEmulator) -> None:
    with pytest.raises(ValueError, match="unknown seat"):
        screen.set_countdown("X", 20)
    with pytest.raises(ValueError, match="seconds must be"):
        screen.set_countdown("E", -1)
    with pytest.raises(ValueError, match="cannot show"):
        screen.show_text("E", "MMMMM")
    with pytest.raises(ValueError, match="lamp mode"):
        screen.set_lamp("E", "turn", "flash")
    with pytest.raises(ValueError, match="table-wide"):
        screen.set_lamp(None, "turn", "on")
    with pytest.raises(ValueError, match="seat lamps"):
        screen.set_lamp("E", "referee", "on")
    with pytest.raises(ValueError, match="buzz duration"):
        screen.buzz(0)
    with pytest.raises(ValueError, match="unknown button"):
        emulator.press("E", "jump")
    assert screen.is_connected


def _diagnose(emulator: ScreenEmulator, screen: ScreenController, recorder: Recorder) -> str:
    """What both ends think, for a failure message."""
    h, c = screen.link.ep, emulator.controller.endpoint
    return (f"delivered={len(recorder.buttons)} generated={len(emulator.generated)} applied={emulator.applied[:20]}\n"
            f"host: synced={h.synced} rx_last={h.rx_last} rx_buf={sorted(h.rx_buf)[:8]} queued={len(h.tx)} "
            f"{h.counters}\nctrl: synced={c.synced} rx_last={c.rx_last} inflight={c.inflight} queued={len(c.tx)} "
            f"head={[(e[0], e[3], e[4], e[5]) for e in c.tx[:6]]} rto={c.rto} {c.counters}\n"
            f"link={screen.link.stats()} faults={emulator.faults}\n"
            f"statuses={[(st.kind, st.message) for st in recorder.statuses if st.kind != 'connected']}\n"
            f"dups={screen.duplicates_dropped} lost={screen.events_lost}")


def _soak(emulator: ScreenEmulator, screen: ScreenController, recorder: Recorder, presses: int,
          cycles: int) -> None:
    emulator.flip_rate = 0.01  # 1 % of bytes, both directions, get one bit flipped
    unplug_at = {presses * (k + 1) // (cycles + 1) for k in range(cycles)}
    sent_commands: list[tuple[int, tuple]] = []
    down_presses = 0
    for i in range(presses):
        emulator.press(SEATS[i % 4], BUTTONS[(i // 4) % 3])
        if i % 40 == 0:
            seat, secs = SEATS[(i // 40) % 4], 10 + (i // 40) % 50
            screen.set_countdown(seat, secs)
            sent_commands.append((SET_COUNTDOWN, (seat, secs)))
        if i % 40 == 20:
            seat, mode = SEATS[(i // 40) % 4], ("on", "off", "blink")[(i // 40) % 3]
            screen.set_lamp(seat, "turn", mode)
            sent_commands.append((SET_LAMP, (f"{seat}.turn", ("off", "on", "blink").index(mode))))
        if i in unplug_at:
            emulator.unplug()
            assert recorder.wait(lambda: not screen.is_connected, 5)
            down_presses = 40  # these presses happen while the cable is out
        if down_presses:
            down_presses -= 1
            if down_presses == 0:
                emulator.replug()
            continue
        assert recorder.wait(lambda i=i: len(recorder.buttons) >= 2 * (i + 1) - 100, 30), (i, len(recorder.buttons))
    screen.show_text("E", "END")
    sent_commands.append((SHOW_TEXT, ("E", "END")))
    assert recorder.wait(lambda: len(recorder.buttons) == 2 * presses, 60), _diagnose(emulator, screen, recorder)
    assert wait_until(lambda: emulator.read_display("E") == "END ", 10)

    # every press delivered exactly once, in the controller's order
    generated = emulator.controller_events()
    assert len(generated) == 2 * presses
    assert [(e.event_no, e.seat, e.button, e.pressed) for e in recorder.buttons] == [
        (g.event_no, g.seat, g.button, g.pressed) for g in generated]
    # every display/lamp command applied exactly once, in order
    applied = [(t, args) for _, t, args in emulator.applied if t in (SET_COUNTDOWN, SET_LAMP, SHOW_TEXT)]
    assert applied == sent_commands
    stats = screen.link.stats()
    assert stats["rx_errors"] > 0 and emulator.faults["flipped_out"] > 0  # corruption really happened
    assert stats["port_losses"] == cycles
    rec = stats["recovery_times"][1:]  # [0] is the first connect
    assert len(rec) == cycles
    print(f"\n{presses} presses, {cycles} replugs: recovery after replug (s) = {[round(r, 3) for r in rec]}, "
          f"host retransmits={stats['retransmits']}, dup frames dropped={stats['duplicates']}, "
          f"decode errors={stats['rx_errors']}, controller retransmits="
          f"{emulator.controller.endpoint.counters['retransmits']}")


def test_presses_with_noise_and_replugs(emulator: ScreenEmulator, screen: ScreenController,
                                        recorder: Recorder) -> None:
    """The soak's short run (every press once, through noise and a replug); the full one is slow."""
    _soak(emulator, screen, recorder, presses=2_000, cycles=2)


@pytest.mark.slow
def test_ten_thousand_presses_with_noise_and_replugs(emulator: ScreenEmulator, screen: ScreenController,
                                                     recorder: Recorder) -> None:
    _soak(emulator, screen, recorder, presses=10_000, cycles=3)


def test_presses_during_outage_are_delivered_late_never_twice(emulator: ScreenEmulator, screen: ScreenController,
                                                              recorder: Recorder) -> None:
    emulator.press("E", "pass")
    assert recorder.wait(lambda: len(recorder.buttons) == 2)
    emulator.unplug()
    assert recorder.wait(lambda: "disconnected" in recorder.kinds())
    assert not os.path.exists(emulator.port)
    for k in range(100):
        emulator.press(SEATS[k % 4], "report")
    assert emulator.wait_for(lambda: len(emulator.generated) == 202)
    assert len(recorder.buttons) == 2  # nothing can arrive while unplugged
    emulator.replug()
    assert recorder.wait(lambda: len(recorder.buttons) == 202)
    assert [e.event_no for e in recorder.buttons] == list(range(1, 203))
    assert screen.link.recovery_times[-1] < 10
    assert screen.duplicates_dropped == 0


def test_ring_overflow_is_reported_not_silent(emulator: ScreenEmulator, screen: ScreenController,
                                              recorder: Recorder) -> None:
    emulator.unplug()
    assert recorder.wait(lambda: not screen.is_connected)
    for _ in range(200):  # 400 events into a 256-event ring
        emulator.press("W", "pass")
    assert emulator.wait_for(lambda: len(emulator.generated) == 400)
    emulator.replug()
    assert recorder.wait(lambda: len(recorder.buttons) == 256)
    assert [e.event_no for e in recorder.buttons] == list(range(145, 401))
    assert recorder.wait(lambda: recorder.status("controller_error") is not None
                         or any("144 button events lost" in s.message for s in recorder.statuses))
    lost = [s for s in recorder.statuses if s.kind == "events_lost"]
    assert any("144" in s.message for s in lost), [s.message for s in recorder.statuses]


def test_heartbeats_declare_the_link_down_after_three_missed(recorder: Recorder) -> None:
    with ScreenEmulator(heartbeat_ms=100) as emu, ScreenController(
            emu.port, on_status=recorder.on_status, heartbeat_s=0.1) as sc:
        assert sc.wait_for_connected(60)
        silent_from = time.monotonic()
        emu.drop_rate = 1.0  # the cable is in, but nothing gets through
        assert recorder.wait(lambda: "disconnected" in recorder.kinds(), 60)
        took = time.monotonic() - silent_from
        assert took >= 0.3, took  # not before three heartbeat intervals
        assert "heartbeat" in recorder.status("disconnected").message
        emu.drop_rate = 0.0
        assert sc.wait_for_connected(60)
        assert emu.wait_for(lambda: emu.controller.endpoint.synced)


def test_version_mismatch_names_both_versions_and_recovers_after_reflash(recorder: Recorder) -> None:
    with ScreenEmulator(protocol_version=2, firmware_version="2.0.0") as emu, ScreenController(
            emu.port, on_status=recorder.on_status) as sc:
        assert recorder.wait(lambda: recorder.status("version_mismatch") is not None, 60)
        msg = recorder.status("version_mismatch").message
        assert "v1" in msg and "v2" in msg and "2.0.0" in msg and "协议版本不匹配" in msg
        assert not sc.is_connected and sc.last_error == msg
        with pytest.raises(VersionMismatchError, match="v2"):
            sc.query_state(timeout=1)
        sc.set_countdown("N", 30)  # kept, shown once a compatible controller answers
        sc.set_lamp("N", "report", "on")
        emu.reboot(protocol_version=1, firmware_version="1.0.0")
        assert sc.wait_for_connected(60)
        assert wait_until(lambda: counting(emu.read_display("N"), 30))
        assert wait_until(lambda: emu.read_lamp("N", "report") == "on")
        assert sc.query_state()["controller"]["firmware"] == "1.0.0"


def test_reboot_mid_stream_restores_state_and_numbering(emulator: ScreenEmulator, screen: ScreenController,
                                                        recorder: Recorder) -> None:
    screen.set_countdown("E", 45)
    screen.set_lamp("S", "report", "on")
    screen.show_text("W", "P")
    assert wait_until(lambda: emulator.read_display("W") == "P   ")
    first_boot = emulator.controller.boot_id
    for k in range(60):
        emulator.press(SEATS[k % 4], "pass")
    assert recorder.wait(lambda: len(recorder.buttons) >= 10)
    emulator.reboot()  # mid-stream: presses still on their way
    assert recorder.wait(lambda: sum(s.kind == "controller_new" for s in recorder.statuses) >= 2, 5)
    assert screen.wait_for_connected(60)
    # the screen shows again what the program asked for, without being told twice
    assert wait_until(lambda: emulator.read_display("W") == "P   ")
    assert wait_until(lambda: counting(emulator.read_display("E"), 45))
    assert wait_until(lambda: emulator.read_lamp("S", "report") == "on")
    applied = [args for boot, _, args in emulator.applied if boot == emulator.controller.boot_id]
    assert applied.count(("S.report", 1)) == 1  # re-sent once, not once per queued copy
    n_before = len(recorder.buttons)
    for _ in range(10):
        emulator.press("N", "report")
    assert recorder.wait(lambda: len(recorder.buttons) == n_before + 20)
    first = [(g.seat, g.button, g.pressed, g.event_no) for g in emulator.controller_events()
             if g.boot_id == first_boot]
    # the first boot's events that made it are a gap-free prefix of what it generated (the rest died
    # with its RAM), and the new boot counts from 1 again
    assert [(e.seat, e.button, e.pressed, e.event_no) for e in recorder.buttons[:n_before]] == first[:n_before]
    assert n_before >= 10
    assert [e.event_no for e in recorder.buttons[n_before:]] == list(range(1, 21))
    assert screen.duplicates_dropped == 0
    assert screen.controller_info["boot_id"] == emulator.controller.boot_id != first_boot


def test_garbage_flood_is_counted_and_the_link_recovers(emulator: ScreenEmulator, screen: ScreenController,
                                                        recorder: Recorder) -> None:
    for round_ in range(5):
        emulator.garbage(20_000, to_host=True, to_controller=True)
        for k in range(40):
            emulator.press(SEATS[k % 4], BUTTONS[round_ % 3])
        assert recorder.wait(lambda r=round_: len(recorder.buttons) == 80 * (r + 1), 30), len(recorder.buttons)
    assert [e.event_no for e in recorder.buttons] == list(range(1, 401))
    assert screen.link.stats()["rx_errors"] > 0
    assert emulator.controller.endpoint.decoder.errors > 0
    assert screen.wait_for_connected(60)
    assert screen.query_state()["rx_errors"] > 0


def test_spy_url_logs_traffic(emulator: ScreenEmulator, recorder: Recorder, tmp_path) -> None:
    log = tmp_path / "traffic.txt"
    with ScreenController(f"spy://{emulator.port}?file={log}", on_button=recorder.on_button) as sc:
        assert sc.wait_for_connected(60)
        emulator.press("S", "referee")
        assert recorder.wait(lambda: len(recorder.buttons) == 2)
    text = log.read_text()
    assert "RX" in text or "TX" in text, text[:200]


def test_missing_port_is_a_clear_error_and_connects_when_it_appears(tmp_path, recorder: Recorder) -> None:
    path = str(tmp_path / "ttyLater")
    with ScreenController(path, on_status=recorder.on_status, reconnect_s=0.05) as sc:
        assert not sc.wait_for_connected(0.3)
        assert recorder.wait(lambda: recorder.status("port_error") is not None)
        assert "无法打开串口" in sc.last_error and "ttyLater" in sc.last_error
        with ScreenEmulator(path):
            assert sc.wait_for_connected(60)


def test_cli_emulate_screen_prints_a_port_that_works(tmp_path) -> None:
    port = str(tmp_path / "ttyCli")
    proc = subprocess.Popen([sys.executable, "-m", "table_service", "emulate-screen", "--port", port,
                             "--duration", "30"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline().strip()
        assert line == port
        with ScreenController(line) as sc:
            assert sc.wait_for_connected(60)
            sc.show_text("E", "42")
            assert sc.query_state()["displays"]["E"]["text"] == "42  "
    finally:
        proc.terminate()
        proc.wait(10)
    assert not os.path.exists(port)


def test_delays_and_dropped_bytes_lose_nothing(emulator: ScreenEmulator, screen: ScreenController,
                                               recorder: Recorder) -> None:
    emulator.delay_ms = 40  # each way
    emulator.drop_rate = 0.005
    for k in range(50):
        emulator.press(SEATS[k % 4], BUTTONS[k % 3])
        screen.show_text(SEATS[k % 4], str(k))
        assert recorder.wait(lambda k=k: len(recorder.buttons) >= 2 * (k + 1) - 40, 20)
    assert recorder.wait(lambda: len(recorder.buttons) == 100, 20)
    assert screen.link.wait_idle(20)
    assert [e.event_no for e in recorder.buttons] == list(range(1, 101))
    texts = [args for _, t, args in emulator.applied if t == SHOW_TEXT]
    assert texts == [(SEATS[k % 4], str(k)) for k in range(50)]
    assert emulator.faults["dropped_in"] + emulator.faults["dropped_out"] > 0


def test_emulator_never_overwrites_a_real_file(tmp_path) -> None:
    victim = tmp_path / "notes.txt"
    victim.write_text("keep me")
    with pytest.raises(ValueError, match="not a symlink"):
        ScreenEmulator(str(victim))
    assert victim.read_text() == "keep me"


def _controller_sends(emulator: ScreenEmulator, ftype: int, payload: bytes) -> None:
    """The controller's own endpoint sends a frame the firmware never would (a newer or faulty one)."""
    with emulator._lock:
        assert emulator.controller.endpoint.send(ftype, payload)
    emulator._wake()


def test_a_frame_type_the_host_does_not_know_is_said_and_holds_nothing_back(
        emulator: ScreenEmulator, screen: ScreenController, recorder: Recorder) -> None:
    """A newer firmware's reliable frame of a type this host does not know: acknowledged in its turn
    and reported; the presses after it arrive (they waited behind it for good, silently)."""
    _controller_sends(emulator, 0x30, b"\x01\x02")
    emulator.press("E", "report")
    assert recorder.wait(lambda: len(recorder.buttons) == 2)
    assert recorder.wait(lambda: any("unknown frame type 0x30" in s.message for s in recorder.statuses))


def test_an_impossible_event_number_is_refused_not_taken_as_the_mark(
        emulator: ScreenEmulator, screen: ScreenController, recorder: Recorder) -> None:
    """A BUTTON numbered 4294967295 a millisecond after press 2 (no buttons make four billion
    presses in a millisecond): refused as the controller's fault; the presses after it arrive."""
    from firmware_bridge.firmware.wire import BUTTON, pack_button

    emulator.press("E", "report")
    assert recorder.wait(lambda: len(recorder.buttons) == 2)
    _controller_sends(emulator, BUTTON, pack_button(0xFFFFFFFF, recorder.buttons[-1].controller_ms + 1, 1, 0, True))
    emulator.press("W", "pass")
    assert recorder.wait(lambda: len(recorder.buttons) == 4)
    assert [b.event_no for b in recorder.buttons] == [1, 2, 3, 4] and screen.duplicates_dropped == 0
    assert any("more presses than the buttons could make" in s.message for s in recorder.statuses)


class _SlowLog:
    """An ``on_button`` that holds the first press the way a slow log would, until released."""

    def __init__(self) -> None:
        import threading

        self.entered, self.release = threading.Event(), threading.Event()

    def __call__(self, ev: ScreenButtonEvent) -> None:
        if ev.pressed and not self.entered.is_set():
            self.entered.set()
            self.release.wait(5)


def test_a_press_is_acknowledged_only_after_on_button_returns(emulator: ScreenEmulator) -> None:
    """While ``on_button`` (the service writing the press to its log) runs, nothing the host sends
    acknowledges the press, not even a command another thread sends meanwhile: a Pi dying then
    leaves it in the controller's queue, to be sent again (it was acknowledged by the command)."""
    import threading

    from firmware_bridge.firmware.wire import BUTTON, unpack_button

    slow = _SlowLog()
    with ScreenController(emulator.port, on_button=slow, reconnect_s=0.05) as sc:
        assert sc.wait_for_connected(10)
        emulator.press("E", "pass")
        assert slow.entered.wait(10)
        threading.Thread(target=lambda: sc.set_countdown("S", 15)).start()  # the driver, meanwhile
        assert emulator.wait_for(lambda: emulator.read_display("S").strip() in ("15", "14", "13"), timeout=10)

        def press_kept() -> bool:  # the press (event 1) still in the controller's queue
            with emulator._lock:
                return any(e[1] == BUTTON and unpack_button(bytes(e[2]))[0] == 1
                           for e in emulator.controller.endpoint.tx)

        time.sleep(0.3)  # heartbeats and the command's own acknowledgement go back and forth meanwhile
        assert press_kept()
        slow.release.set()
        assert emulator.wait_for(lambda: not press_kept(), timeout=10)


def test_a_held_press_stays_with_the_controller_until_released(emulator: ScreenEmulator) -> None:
    """``hold`` keeps a press unacknowledged after ``on_button`` returned (the service writing it
    in another thread): the reader goes on (a later press is delivered meanwhile), nothing the host
    sends acknowledges the held press or any after it, and the release lets both go."""
    import threading

    from firmware_bridge.firmware.wire import BUTTON, unpack_button

    releases: list = []
    seen: list[int] = []
    got_second = threading.Event()

    def on_button(ev: ScreenButtonEvent) -> None:
        seen.append(ev.event_no)
        if ev.pressed and ev.seat == "E":
            assert ev.hold is not None
            releases.append(ev.hold())
        if ev.seat == "S":
            got_second.set()

    def kept() -> set[int]:  # event numbers still in the controller's queue
        with emulator._lock:
            return {unpack_button(bytes(e[2]))[0] for e in emulator.controller.endpoint.tx if e[1] == BUTTON}

    with ScreenController(emulator.port, on_button=on_button, reconnect_s=0.05) as sc:
        assert sc.wait_for_connected(10)
        emulator.press("E", "pass", bounce=False)
        emulator.press("S", "pass", bounce=False)
        assert got_second.wait(10), "the reader stopped at the held press"
        time.sleep(1.5)  # heartbeats and acknowledgements go back and forth meanwhile
        assert 1 in kept() and max(seen) in kept()
        assert sc.is_connected
        assert len(releases) == 1
        releases[0]()
        assert emulator.wait_for(lambda: not kept(), timeout=10)
        releases[0]()  # a second release changes nothing


def test_heartbeats_go_on_while_a_press_is_being_handled(emulator: ScreenEmulator) -> None:
    """The reader waits in ``on_button`` (the service logging the press); the timer thread still
    sends its heartbeats, so the controller does not declare the link down (it did after 3.5 s)."""
    slow = _SlowLog()
    with ScreenController(emulator.port, on_button=slow, reconnect_s=0.05) as sc:
        assert sc.wait_for_connected(10)
        emulator.press("E", "pass")
        assert slow.entered.wait(10)
        time.sleep(4.0)
        with emulator._lock:
            ep = emulator.controller.endpoint
            synced, missed = ep.synced, ep.counters["heartbeats_missed"]
        slow.release.set()
        assert synced and missed == 0


def test_a_buzz_asked_for_while_unplugged_does_not_sound_when_plugged_back(emulator: ScreenEmulator) -> None:
    """The audit: unplugged, a buzz was queued and sounded 0.04 s after the cable came back, 8 s later,
    in the middle of someone's turn. A buzz is for now; the lamps and displays (state) are re-sent."""
    with ScreenController(emulator.port, reconnect_s=0.05) as sc:
        assert sc.wait_for_connected(10)
        emulator.unplug()
        assert wait_until(lambda: not sc.is_connected, 10)
        sc.buzz(300)
        sc.set_lamp("S", "report", "on")
        emulator.replug()
        assert sc.wait_for_connected(10)
        assert emulator.wait_for(lambda: emulator.lamp_is_lit("S.report"), timeout=10)
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            assert not emulator.buzzer_on, "a buzz from before the cable came back sounded"
            time.sleep(0.01)


def test_emulator_never_replaces_a_link_to_anything_but_a_pseudo_terminal(tmp_path) -> None:
    """A mistyped --port naming a /dev/serial/by-id/… link was replaced, then deleted on exit."""
    link = tmp_path / "usb-screen-if00"
    link.symlink_to("../../ttyACM0")
    with pytest.raises(ValueError, match="not an emulator's pseudo-terminal"):
        ScreenEmulator(str(link))
    assert os.readlink(link) == "../../ttyACM0"


def test_emulator_replaces_its_own_link_left_behind(tmp_path) -> None:
    link = tmp_path / "ttyScreen0"
    link.symlink_to("/dev/pts/9999")  # an emulator killed before it could remove its link
    emulator = ScreenEmulator(str(link))
    emulator.start()
    try:
        assert os.readlink(link).startswith("/dev/pts/") and os.readlink(link) != "/dev/pts/9999"
    finally:
        emulator.stop()
