"""An unknown frame type gets an ``unknown_type`` error like every other unknown command (issue 19):
0x7F used to be dropped silently by the link while 0x20/0x04 were answered."""

from __future__ import annotations

import pytest
from bare_hal import BareHal

from firmware_bridge.firmware.controller import Config, Controller
from firmware_bridge.firmware.wire import (
    ERROR,
    HELLO,
    HELLO_REQUEST,
    Decoder,
    HelloInfo,
    encode_frame,
    pack_hello,
    unpack_error,
)


# 0x20 (BUTTON) and 0x04 (ERROR) are types the controller sends, never takes; 0x7F and 0xFE exist nowhere.
@pytest.mark.parametrize("ftype", [0x7F, 0xFE, 0x20, 0x04])
def test_every_unknown_type_is_answered_unknown_type(ftype):
    hal = BareHal()
    ctrl = Controller(hal, Config())
    ctrl.step()
    hal.inbox += encode_frame(HELLO, 0, 0, pack_hello(HelloInfo(1, "host", HELLO_REQUEST, 0x55, 0, 0, 1, 4, "pi")))
    hal.inbox += encode_frame(ftype, 1, 0, b"\x01\x02")
    ctrl.step()
    errors = [unpack_error(f.payload) for f in Decoder().feed(bytes(hal.sent)) if f.type == ERROR]
    assert errors, f"type {ftype:#x} was dropped without an answer"
    assert any("unknown type" in e[1] for e in errors)
