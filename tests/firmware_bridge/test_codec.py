"""Wire format: CRC, COBS, frames, payloads; the decoder survives anything fed to it."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from firmware_bridge.firmware import seg7
from firmware_bridge.firmware.wire import (
    BUTTON,
    HELLO,
    MAX_PAYLOAD,
    MAX_WIRE,
    PROTOCOL_VERSION,
    SET_COUNTDOWN,
    Decoder,
    Frame,
    FrameError,
    HelloInfo,
    cobs_decode,
    cobs_encode,
    crc16_ccitt,
    decode_wire,
    encode_frame,
    pack_button,
    pack_hello,
    pack_state,
    seq_diff,
    unpack_button,
    unpack_countdown,
    unpack_hello,
    unpack_hello_prefix,
    unpack_state,
)

frames = st.builds(
    Frame,
    st.integers(0, 255),
    st.integers(0, 255),
    st.integers(0, 0xFFFF),
    st.integers(0, 0xFFFF),
    st.binary(max_size=MAX_PAYLOAD),
)


def wire(f: Frame) -> bytes:
    return encode_frame(f.type, f.seq, f.ack, f.payload, f.version)


def test_crc_check_value() -> None:
    # CRC-16/CCITT-FALSE catalogue check value
    assert crc16_ccitt(b"123456789") == 0x29B1


@given(st.binary(max_size=600))
def test_cobs_round_trip(data: bytes) -> None:
    enc = cobs_encode(data)
    assert 0 not in enc
    assert cobs_decode(enc) == data


@given(frames)
def test_frame_round_trip(f: Frame) -> None:
    data = wire(f)
    assert data.count(0) == 1 and data.endswith(b"\x00")
    assert len(data) - 1 <= MAX_WIRE
    assert Decoder().feed(data) == [f]


@given(st.lists(frames, max_size=8), st.data())
def test_stream_split_anywhere(fs: list[Frame], data: st.DataObject) -> None:
    stream = b"".join(wire(f) for f in fs)
    cuts = sorted(data.draw(st.lists(st.integers(0, len(stream)), max_size=6)))
    dec = Decoder()
    out: list[Frame] = []
    prev = 0
    for c in [*cuts, len(stream)]:
        out += dec.feed(stream[prev:c])
        prev = c
    assert out == fs
    assert dec.errors == 0


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=2000))
def test_arbitrary_bytes_never_raise(junk: bytes) -> None:
    dec = Decoder()
    out = dec.feed(junk)
    assert len(dec.buf) <= MAX_WIRE
    for f in out:  # a frame can only come out of junk if it carries a valid CRC and length
        assert isinstance(f, Frame)
    # and the decoder is still in step afterwards
    good = Frame(PROTOCOL_VERSION, BUTTON, 7, 3, b"after")
    assert dec.feed(b"\x00" + wire(good))[-1] == good


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames)
def test_every_single_bit_flip_is_detected(f: Frame) -> None:
    data = wire(f)
    follower = Frame(f.version, f.type, (f.seq + 1) & 0xFFFF, f.ack, b"next")
    tail = wire(follower)
    for bit in range(len(data) * 8):
        bad = bytearray(data)
        bad[bit // 8] ^= 1 << (bit % 8)
        dec = Decoder()
        out = dec.feed(bytes(bad) + tail)
        # nothing but the untouched follower may come out, and the damage is counted
        assert all(g == follower for g in out), (bit, out)
        assert dec.errors >= 1, bit


def test_oversize_run_is_dropped_and_decoder_recovers() -> None:
    dec = Decoder()
    good = Frame(PROTOCOL_VERSION, SET_COUNTDOWN, 1, 0, b"\x00\x00\x14\x00\x00\x00\x00")
    out = dec.feed(b"\x55" * 5000 + b"\x00" + wire(good))
    assert out == [good]
    assert dec.oversize == 1
    assert len(dec.buf) == 0


def test_length_and_trailer_checked() -> None:
    data = wire(Frame(PROTOCOL_VERSION, BUTTON, 1, 0, b"abc"))[:-1]
    with pytest.raises(FrameError, match="length"):
        decode_wire(data[:-5] + data[-4:])
    with pytest.raises(FrameError, match="short"):
        decode_wire(b"\x01\x02")
    with pytest.raises(FrameError, match="exceeds"):
        encode_frame(BUTTON, 0, 0, bytes(MAX_PAYLOAD + 1))


def test_seq_diff_wraps() -> None:
    assert seq_diff(1, 0xFFFF) == 2
    assert seq_diff(0xFFFF, 1) == -2
    assert seq_diff(5, 5) == 0


def test_hello_round_trip_and_stable_prefix() -> None:
    info = HelloInfo(1, "1.2.3", 3, 0xDEADBEEF, 42, 65535, 7, 4, "SCREEN-9")
    back = unpack_hello(pack_hello(info))
    assert (back.protocol_version, back.fw_version, back.flags, back.boot_id, back.rx_boot, back.rx_seq,
            back.tx_base, back.seats, back.ident) == (1, "1.2.3", 3, 0xDEADBEEF, 42, 65535, 7, 4, "SCREEN-9")
    # a future version's HELLO: only the prefix is readable, and it names the versions
    future = bytes([9, 5]) + b"9.0.0" + b"\xff\xee anything else"
    assert unpack_hello_prefix(future) == (9, "9.0.0")
    with pytest.raises(FrameError):
        unpack_hello(pack_hello(info)[:10])


@given(st.integers(0, 2**32 - 1), st.integers(0, 2**32 - 1), st.integers(0, 3), st.integers(0, 2), st.booleans())
def test_button_payload_round_trip(no: int, ms: int, seat: int, button: int, pressed: bool) -> None:
    assert unpack_button(pack_button(no, ms, seat, button, pressed)) == (no, ms, seat, button, pressed)


def test_state_payload_round_trip_and_malformed() -> None:
    seats = [("  20", 2, False, 1, 0), ("PASS", 1, True, 0, 2), ("    ", 0, False, 0, 0), (" -12", 3, False, 2, 1)]
    p = pack_state(5, 77, 1234, 3, 1, 9, 100, seats, 2, True)
    s = unpack_state(p)
    assert s["seats"] == seats and s["token"] == 5 and s["referee"] == 2 and s["buzzer"] is True
    with pytest.raises(FrameError):
        unpack_state(p[:-1])
    with pytest.raises(FrameError):
        unpack_countdown(b"\x00")


def test_seven_segment_glyphs() -> None:
    assert seg7.decode(seg7.encode("  20")) == "  20"
    assert seg7.decode(seg7.encode("-12")) == "-12 "
    assert seg7.decode(seg7.encode("pass")) == "PA55"  # S and 5 look the same on 7 segments
    assert seg7.can_show("ERR") and not seg7.can_show("MAX") and not seg7.can_show("TOOLONG")


def test_hello_type_is_frozen() -> None:
    # docs/protocol.md promises HELLO = 0x01 with the version prefix in every protocol version
    assert HELLO == 0x01
