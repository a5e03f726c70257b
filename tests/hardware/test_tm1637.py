"""TM1637 driver against the chip's side decoded from the mock pins' levels."""

from __future__ import annotations

import pytest
from gpiozero import DigitalOutputDevice

from hardware.backends.tm1637 import FONT, TM1637, MockTM1637, decode, encode
from hardware.errors import DisplayNotAcknowledged


def test_encode_decode_roundtrip() -> None:
    assert encode("12") == [FONT["1"], FONT["2"], 0, 0]
    assert decode(encode("  20")) == "  20"
    assert decode(encode("-  5")) == "-  5"
    assert encode("88", colon=True)[1] & 0x80
    assert decode(encode("abcdef")) == "ABCD"  # upper-cased, truncated to four digits
    assert encode("~") == [0, 0, 0, 0]  # outside the font: blank


def test_frames_on_the_wire(mock_factory) -> None:
    chip = MockTM1637(20, 21)
    with TM1637(20, 21, brightness=5, bit_delay=0) as display:
        display.show("  20")
        assert chip.text == "  20"
        # data command, address + 4 digits, display control — as the datasheet orders them
        assert chip.frames == [[0x40], [0xC0, 0, 0, FONT["2"], FONT["0"]], [0x88 | 5]]
        assert chip.brightness == 5 and chip.display_on
        display.show_number(-5)
        assert chip.text == "  -5"
        display.show_number(123456)
        assert chip.text == "9999"
        display.brightness = 1
        assert chip.brightness == 1 and chip.text == "9999"
        display.off()
        assert not chip.display_on and chip.text == "    "
        assert "showing '9999'" in repr(display)
    assert repr(display) == "<hardware.TM1637 object closed>"


def test_lsb_first_bit_order(mock_factory) -> None:
    chip = MockTM1637(20, 21)
    with TM1637(20, 21, bit_delay=0) as display:
        display.write_segments([0x01, 0x80, 0x0F, 0xF0])
    assert chip.memory[:4] == [0x01, 0x80, 0x0F, 0xF0]


def test_missing_display_is_not_acknowledged(mock_factory) -> None:
    MockTM1637(5, 6, ack=False)
    with TM1637(5, 6, bit_delay=0) as display:
        with pytest.raises(DisplayNotAcknowledged, match="did not acknowledge byte 1"):
            display.show("1")
        assert display.nacks == 1
        assert display.text == "    "  # a refused frame is not remembered as shown


def test_unchecked_ack_still_writes(mock_factory) -> None:
    MockTM1637(5, 6, ack=False)
    with TM1637(5, 6, bit_delay=0, check_ack=False) as display:
        display.show("12")
        assert display.text == "12  "


def test_shared_clock_line(mock_factory) -> None:
    """Two chips on one CLK: each listens only after a start on its own DIO."""
    a, b = MockTM1637(27, 22), MockTM1637(27, 23)
    clk = DigitalOutputDevice(27, initial_value=True)
    with TM1637(clk, 22, bit_delay=0) as da, TM1637(clk, 23, bit_delay=0) as db:
        da.show("1111")
        db.show("2222")
        da.show("3333")
    assert a.text == "3333" and b.text == "2222"
    assert not clk.closed  # the displays do not close a clock they do not own
    clk.close()


def test_brightness_validated(mock_factory) -> None:
    with pytest.raises(ValueError):
        TM1637(20, 21, brightness=8)
