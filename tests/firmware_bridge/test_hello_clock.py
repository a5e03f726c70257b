"""HELLO's optional ``clock_ms``: the controller's clock at a moment the host knows is "now".

Why it exists: a press the controller kept through an outage is dated on the host by its
``controller_ms`` against the controller's clock; after a host restart the host used to learn that
clock from the first press it heard of, which is the kept press itself (docs/protocol.md §3). The
field is an optional tail after ``ident``, so it must stay readable both ways: by a version-1 reader
that stops at ``ident`` and by a new host talking to firmware that sends none.
"""

from __future__ import annotations

import struct

from bare_hal import BareHal

from firmware_bridge.emulator import ScreenEmulator
from firmware_bridge.firmware.controller import Config, Controller
from firmware_bridge.firmware.wire import (
    BUTTON,
    HELLO,
    HELLO_CONTROLLER,
    HELLO_REQUEST,
    Decoder,
    HelloInfo,
    encode_frame,
    pack_hello,
    unpack_button,
    unpack_hello,
)
from firmware_bridge.screen import ScreenController


def v1_0_hello(fw: bytes = b"1.0.0", ident: bytes = b"SCREEN-1") -> bytes:
    """A HELLO payload byte for byte as firmware 1.0.0 sent it (written out here, not packed by the
    code under test, so the test holds the old layout fixed)."""
    return (bytes((1, len(fw))) + fw + struct.pack(">BIIHHB", HELLO_CONTROLLER, 0xCAFEF00D, 7, 12, 34, 4)
            + bytes((len(ident),)) + ident)


def test_a_hello_without_the_clock_from_older_firmware_still_parses() -> None:
    h = unpack_hello(v1_0_hello())
    assert (h.protocol_version, h.fw_version, h.flags, h.boot_id, h.rx_boot, h.rx_seq, h.tx_base, h.seats,
            h.ident) == (1, "1.0.0", HELLO_CONTROLLER, 0xCAFEF00D, 7, 12, 34, 4, "SCREEN-1")
    assert h.clock_ms is None and h.received_ticks is None
    # one to three stray bytes after ident are no clock: read as none, never a broken link
    for tail in (b"\x01", b"\x01\x02", b"\x01\x02\x03"):
        assert unpack_hello(v1_0_hello() + tail).clock_ms is None


def test_the_clock_is_a_tail_an_old_reader_never_sees() -> None:
    """Everything up to ``ident`` is unchanged, so a reader that stops there (every v1 reader) reads
    the same HELLO; the new reader gets the clock, and ignores what a later field may append."""
    with_clock = HelloInfo(1, "1.0.0", HELLO_CONTROLLER, 0xCAFEF00D, 7, 12, 34, 4, "SCREEN-1", clock_ms=123_456)
    payload = pack_hello(with_clock)
    assert payload == v1_0_hello() + struct.pack(">I", 123_456)
    assert unpack_hello(payload).clock_ms == 123_456
    assert unpack_hello(payload + b"future field").clock_ms == 123_456
    # u32 on the wire, as BUTTON's controller_ms
    assert unpack_hello(pack_hello(HelloInfo(1, "x", 0, 1, 0, 0, 1, 4, "y", clock_ms=2**32 + 5))).clock_ms == 5
    # a sender without a clock (the host) sends the old layout exactly
    assert pack_hello(HelloInfo(1, "1.0.0", HELLO_CONTROLLER, 0xCAFEF00D, 7, 12, 34, 4, "SCREEN-1")) == v1_0_hello()


def test_the_firmware_sends_in_hello_the_clock_of_its_button_events() -> None:
    hal = BareHal(t=1_000_000)  # ticks do not start at 0: the clock is ms since *boot*
    ctrl = Controller(hal, Config())
    hal.t += 5_000
    hal.inbox += encode_frame(HELLO, 0, 0, pack_hello(HelloInfo(1, "host", HELLO_REQUEST, 0x55, 0, 0, 1, 4, "pi")))
    ctrl.step()
    hellos = [unpack_hello(f.payload) for f in Decoder().feed(bytes(hal.sent)) if f.type == HELLO]
    assert hellos and hellos[-1].clock_ms == 5_000 and hellos[-1].is_controller
    assert ctrl.endpoint.peer.clock_ms is None  # the host sends none
    hal.sent.clear()
    hal.t += 2_000
    hal.levels[4] = True  # S.pass, held through the debouncer's samples (the clock stands still)
    for _ in range(6):
        ctrl.step()
    buttons = [unpack_button(f.payload) for f in Decoder().feed(bytes(hal.sent)) if f.type == BUTTON]
    assert buttons and buttons[0][1] == 7_000  # same clock as HELLO's: 2 s after it


def test_controller_info_sets_the_hello_clock_against_the_host_clock() -> None:
    """On the host, ``controller_info`` carries the HELLO's clock and the host's monotonic ms when it
    came in. The emulator's board counts ``time.monotonic()`` ms too, so their difference is the
    controller's boot instant, overstated by no more than the HELLO's trip."""
    with ScreenEmulator() as emu, ScreenController(emu.port) as sc:
        assert sc.wait_for_connected(30), sc.last_error
        info = sc.controller_info
        assert info is not None and info["firmware"] == "1.1.0"
        assert isinstance(info["clock_ms"], int) and isinstance(info["clock_host_ms"], int)
        gap = info["clock_host_ms"] - info["clock_ms"] - emu.controller.boot_ticks
        assert -1 <= gap < 5_000  # ms truncation on either side; a loaded machine's delay


def test_a_controller_that_sends_no_clock_links_up_as_before() -> None:
    with ScreenEmulator(hello_clock=False, firmware_version="1.0.0") as emu, ScreenController(emu.port) as sc:
        assert sc.wait_for_connected(30), sc.last_error
        info = sc.controller_info
        assert info is not None and info["clock_ms"] is None and info["clock_host_ms"] is None
        emu.press("W", "pass")
        ev = sc.events.get(timeout=30)
        assert (ev.seat, ev.button, ev.event_no) == ("W", "pass", 1)
