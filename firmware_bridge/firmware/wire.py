"""Wire format of the screen-controller protocol (see docs/protocol.md).

This module runs unchanged on MicroPython (the Pico firmware) and on CPython (the Pi side and the
emulator), so it uses only ``struct`` and plain classes: no dataclasses, no typing, no enum.

A frame on the wire is::

    COBS(header + payload) | trailer(4) | 0x00

* header: version u8, type u8, seq u16, ack u16, length u8 (big-endian, 7 bytes);
* trailer: the COBS body length (1 byte, never 0) and the CRC-16/CCITT of the *encoded* body in
  three bytes of the form 0x80|bits, so that the trailer can never contain the 0x00 delimiter.

Why the CRC covers the encoded body rather than the decoded bytes: a flipped COBS code byte moves
a zero somewhere else in the decoded frame, which is a multi-byte error pattern a CRC-16 is not
guaranteed to catch; over the encoded bytes the same flip is a single-bit error, which every CRC
detects. The body length in the trailer rejects the fragments a flipped-to-zero byte leaves behind.
"""

import struct

#: Protocol version spoken by this code. Bump on any incompatible change (docs/protocol.md).
PROTOCOL_VERSION = 1

HEADER_FMT = ">BBHHB"
HEADER_LEN = 7
TRAILER_LEN = 4
#: Largest payload a frame may carry; checked before anything in a frame is trusted.
MAX_PAYLOAD = 200
MAX_RAW = HEADER_LEN + MAX_PAYLOAD
#: Largest encoded frame (body + trailer, without the delimiter). Longer runs are dropped.
MAX_WIRE = MAX_RAW + 1 + TRAILER_LEN

# Frame types. Types below 0x04 are link-level and unsequenced; the others are reliable.
HELLO = 0x01
HEARTBEAT = 0x02
ACK = 0x03
ERROR = 0x04
SET_COUNTDOWN = 0x10
SHOW_OVERTIME = 0x11
SHOW_TEXT = 0x12
SET_BLINK = 0x13
SET_LAMP = 0x14
BUZZ = 0x15
QUERY_STATE = 0x16
BUTTON = 0x20
STATE = 0x21

TYPE_NAMES = {
    HELLO: "HELLO", HEARTBEAT: "HEARTBEAT", ACK: "ACK", ERROR: "ERROR",
    SET_COUNTDOWN: "SET_COUNTDOWN", SHOW_OVERTIME: "SHOW_OVERTIME", SHOW_TEXT: "SHOW_TEXT",
    SET_BLINK: "SET_BLINK", SET_LAMP: "SET_LAMP", BUZZ: "BUZZ", QUERY_STATE: "QUERY_STATE",
    BUTTON: "BUTTON", STATE: "STATE",
}
RELIABLE_TYPES = (ERROR, SET_COUNTDOWN, SHOW_OVERTIME, SHOW_TEXT, SET_BLINK, SET_LAMP, BUZZ,
                  QUERY_STATE, BUTTON, STATE)
COMMAND_TYPES = (SET_COUNTDOWN, SHOW_OVERTIME, SHOW_TEXT, SET_BLINK, SET_LAMP, BUZZ, QUERY_STATE)

# HELLO flags
HELLO_REQUEST = 0x01  # "answer with your HELLO"
HELLO_CONTROLLER = 0x02  # sent by the controller (not the host)

# Table layout shared by both ends.
SEATS = "ESWN"
BUTTONS = ("report", "pass", "referee")
SEAT_LAMPS = ("report", "turn")
LAMP_CODES = {"report": 0, "turn": 1, "referee": 2}
LAMP_NAMES = ("report", "turn", "referee")
LAMP_MODES = ("off", "on", "blink")
TABLE_WIDE = 0xFF  # seat byte for table-wide outputs (the referee lamp)

# Display modes reported in STATE.
DISPLAY_MODES = ("blank", "text", "countdown", "overtime")

# Error codes carried by ERROR frames.
E_BAD_COMMAND = 1
E_EVENTS_LOST = 2
E_VERSION = 3
E_UNKNOWN_TYPE = 4
ERROR_NAMES = {E_BAD_COMMAND: "bad_command", E_EVENTS_LOST: "events_lost", E_VERSION: "version_mismatch",
               E_UNKNOWN_TYPE: "unknown_type"}


class FrameError(ValueError):
    """A frame or payload that does not follow the protocol."""


# ---------------------------------------------------------------------------------------------
# CRC-16/CCITT (CCITT-FALSE: poly 0x1021, init 0xFFFF, no reflection, no final xor)

def _make_table():
    table = []
    for i in range(256):
        crc = i << 8
        for _ in range(8):
            crc = ((crc << 1) ^ 0x1021) if crc & 0x8000 else (crc << 1)
        table.append(crc & 0xFFFF)
    return tuple(table)


_CRC_TABLE = _make_table()


def crc16_ccitt(data, crc=0xFFFF):
    """CRC-16/CCITT-FALSE of ``data``; ``crc16_ccitt(b"123456789") == 0x29B1``."""
    table = _CRC_TABLE
    for b in data:
        crc = ((crc << 8) & 0xFFFF) ^ table[((crc >> 8) ^ b) & 0xFF]
    return crc


# ---------------------------------------------------------------------------------------------
# COBS

def cobs_encode(data):
    """Consistent Overhead Byte Stuffing: the result contains no 0x00 byte."""
    out = bytearray()
    block = bytearray()
    for b in data:
        if b == 0:
            out.append(len(block) + 1)
            out.extend(block)
            block = bytearray()
        else:
            block.append(b)
            if len(block) == 254:
                out.append(255)
                out.extend(block)
                block = bytearray()
    out.append(len(block) + 1)
    out.extend(block)
    return bytes(out)


def cobs_decode(data):
    """Inverse of :func:`cobs_encode`.

    :raises FrameError: on a zero byte or a code byte that runs past the end.
    """
    out = bytearray()
    i = 0
    n = len(data)
    while i < n:
        code = data[i]
        if code == 0:
            raise FrameError("zero byte inside COBS data")
        end = i + code
        if end > n:
            raise FrameError("COBS block runs past the end")
        chunk = data[i + 1:end]
        if 0 in chunk:
            raise FrameError("zero byte inside COBS data")
        out.extend(chunk)
        i = end
        if code != 255 and i < n:
            out.append(0)
    return bytes(out)


# ---------------------------------------------------------------------------------------------
# Frames

class Frame:
    """One decoded frame: ``version``, ``type``, ``seq``, ``ack``, ``payload``."""

    __slots__ = ("ack", "payload", "seq", "type", "version")

    def __init__(self, version, ftype, seq, ack, payload):
        self.version = version
        self.type = ftype
        self.seq = seq
        self.ack = ack
        self.payload = payload

    def __eq__(self, other):
        return (isinstance(other, Frame) and self.version == other.version and self.type == other.type
                and self.seq == other.seq and self.ack == other.ack and self.payload == other.payload)

    def __hash__(self):
        return hash((self.version, self.type, self.seq, self.ack, self.payload))

    def __repr__(self):
        return (f"Frame(version={self.version}, type={TYPE_NAMES.get(self.type, hex(self.type))}, "
                f"seq={self.seq}, ack={self.ack}, payload={self.payload!r})")


def encode_frame(ftype, seq, ack, payload=b"", version=PROTOCOL_VERSION):
    """Build the wire bytes of one frame, delimiter included.

    :raises FrameError: if the payload is longer than :data:`MAX_PAYLOAD`.
    """
    if len(payload) > MAX_PAYLOAD:
        raise FrameError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    raw = struct.pack(HEADER_FMT, version & 0xFF, ftype & 0xFF, seq & 0xFFFF, ack & 0xFFFF, len(payload))
    body = cobs_encode(raw + bytes(payload))
    crc = crc16_ccitt(body)
    return body + bytes((len(body), 0x80 | (crc >> 9), 0x80 | ((crc >> 2) & 0x7F), 0x80 | (crc & 0x03), 0))


def decode_wire(chunk):
    """Decode one delimiter-free chunk into a :class:`Frame`.

    :raises FrameError: naming what is wrong (length, trailer, CRC, COBS, header length).
    """
    n = len(chunk)
    if n > MAX_WIRE:
        raise FrameError(f"oversize frame ({n} bytes)")
    if n < TRAILER_LEN + HEADER_LEN + 1:
        raise FrameError(f"short frame ({n} bytes)")
    body_len, c1, c2, c3 = chunk[n - 4], chunk[n - 3], chunk[n - 2], chunk[n - 1]
    if body_len != n - TRAILER_LEN:
        raise FrameError("length mismatch")
    if not (c1 & 0x80 and c2 & 0x80 and (c3 & 0xFC) == 0x80):
        raise FrameError("bad trailer")
    body = chunk[:n - TRAILER_LEN]
    crc = ((c1 & 0x7F) << 9) | ((c2 & 0x7F) << 2) | (c3 & 0x03)
    if crc16_ccitt(body) != crc:
        raise FrameError("CRC mismatch")
    raw = cobs_decode(body)
    if len(raw) < HEADER_LEN:
        raise FrameError("short header")
    version, ftype, seq, ack, length = struct.unpack(HEADER_FMT, raw[:HEADER_LEN])
    if length > MAX_PAYLOAD or length != len(raw) - HEADER_LEN:
        raise FrameError(f"header length {length} does not match {len(raw) - HEADER_LEN} payload bytes")
    return Frame(version, ftype, seq, ack, bytes(raw[HEADER_LEN:]))


class Decoder:
    """Incremental frame decoder: feed it any bytes, get whole valid frames back.

    The buffer never grows past :data:`MAX_WIRE`: a longer run without a delimiter is counted as
    ``oversize`` and skipped up to the next 0x00. Nothing fed to it raises.
    """

    def __init__(self):
        self.buf = bytearray()
        self.skipping = False
        self.frames = 0
        self.errors = 0
        self.crc_errors = 0
        self.oversize = 0
        self.last_error = ""
        #: Called with the reason of every refused frame (the host logs them); None: not called.
        self.on_error = None

    def _refused(self, msg):
        self.errors += 1
        self.last_error = msg
        if self.on_error is not None:
            self.on_error(msg)

    def reset(self):
        """Forget a partial frame (the port was reopened)."""
        self.buf = bytearray()
        self.skipping = False

    def feed(self, data):
        """Return the list of valid frames completed by ``data``."""
        out = []
        start = 0
        n = len(data)
        while start < n:
            z = data.find(b"\x00", start)
            if z < 0:
                piece = data[start:]
                start = n
                if not self.skipping:
                    self.buf.extend(piece)
                    if len(self.buf) > MAX_WIRE:
                        self.oversize += 1
                        self.buf = bytearray()
                        self._refused("oversize frame")
                        self.skipping = True
                continue
            piece = data[start:z]
            start = z + 1
            if self.skipping:
                self.skipping = False
                self.buf = bytearray()
                continue
            self.buf.extend(piece)
            chunk = bytes(self.buf)
            self.buf = bytearray()
            if not chunk:
                continue  # an empty frame: back-to-back delimiters are legal padding
            try:
                frame = decode_wire(chunk)
            except FrameError as exc:
                msg = str(exc)
                if msg.startswith("CRC"):
                    self.crc_errors += 1
                elif msg.startswith("oversize"):
                    self.oversize += 1
                self._refused(msg)
                continue
            except Exception as exc:
                self._refused(f"undecodable frame: {exc!r}")
                continue
            self.frames += 1
            out.append(frame)
        return out


def seq_diff(a, b):
    """Signed distance ``a - b`` in 16-bit sequence space."""
    d = (a - b) & 0xFFFF
    return d - 0x10000 if d >= 0x8000 else d


# ---------------------------------------------------------------------------------------------
# Payloads. Each ``pack_*`` has an ``unpack_*`` that raises FrameError on a malformed payload.

def _text_bytes(text, limit):
    b = text.encode("utf-8") if isinstance(text, str) else bytes(text)
    return b[:limit]


class HelloInfo:
    """Contents of a HELLO frame.

    The first two fields (protocol version, firmware version) are laid out the same in every
    protocol version, so that a mismatch can always be reported with both versions named.

    ``clock_ms`` is the sender's clock (ms since its boot, the clock of its BUTTON events) when
    the HELLO left, or None when the sender put none in (the host; firmware before 1.1.0). It is
    an optional field after ``ident``: a reader that predates it never looks past ``ident``. It
    lets the host place presses the controller kept through an outage on its own time line from
    the first one on, even after the host itself restarted (docs/protocol.md §3).

    ``received_ticks`` is not on the wire: the receiving end's ``ticks_ms()`` when it took the
    HELLO in (set by the endpoint), so that ``clock_ms`` can be set against the receiver's clock.
    """

    __slots__ = ("boot_id", "clock_ms", "flags", "fw_version", "ident", "protocol_version", "received_ticks",
                 "rx_boot", "rx_seq", "seats", "tx_base")

    def __init__(self, protocol_version, fw_version, flags=0, boot_id=0, rx_boot=0, rx_seq=0, tx_base=0,
                 seats=0, ident="", clock_ms=None):
        self.protocol_version = protocol_version
        self.fw_version = fw_version
        self.flags = flags
        self.boot_id = boot_id
        self.rx_boot = rx_boot
        self.rx_seq = rx_seq
        self.tx_base = tx_base
        self.seats = seats
        self.ident = ident
        self.clock_ms = clock_ms
        self.received_ticks = None

    @property
    def is_controller(self):
        return bool(self.flags & HELLO_CONTROLLER)

    def __repr__(self):
        return (f"HelloInfo(protocol_version={self.protocol_version}, fw_version={self.fw_version!r}, "
                f"ident={self.ident!r}, seats={self.seats}, boot_id={self.boot_id:#010x}, "
                f"clock_ms={self.clock_ms})")


def pack_hello(info):
    fw = _text_bytes(info.fw_version, 40)
    ident = _text_bytes(info.ident, 40)
    out = (bytes((info.protocol_version, len(fw))) + fw
           + struct.pack(">BIIHHB", info.flags, info.boot_id, info.rx_boot, info.rx_seq, info.tx_base, info.seats)
           + bytes((len(ident),)) + ident)
    if info.clock_ms is not None:
        out += struct.pack(">I", info.clock_ms & 0xFFFFFFFF)
    return out


def unpack_hello_prefix(payload):
    """(protocol version, firmware version) from any version's HELLO payload."""
    if len(payload) < 2 or len(payload) < 2 + payload[1]:
        raise FrameError("HELLO too short")
    return payload[0], bytes(payload[2:2 + payload[1]]).decode("utf-8", "replace")


def unpack_hello(payload):
    """A :class:`HelloInfo`; ``clock_ms`` is None when the sender put no clock after ``ident``.

    Bytes past the fields this code knows are ignored, as every version-1 reader has ignored
    them: that is what lets a field be added at the end without a new protocol version.
    """
    version, fw = unpack_hello_prefix(payload)
    i = 2 + payload[1]
    if len(payload) < i + 15:
        raise FrameError("HELLO too short")
    flags, boot_id, rx_boot, rx_seq, tx_base, seats = struct.unpack(">BIIHHB", payload[i:i + 14])
    n = payload[i + 14]
    end = i + 15 + n
    if len(payload) < end:
        raise FrameError("HELLO ident truncated")
    ident = bytes(payload[i + 15:end]).decode("utf-8", "replace")
    # Fewer than 4 bytes cannot be a clock: read as none (an optional field never costs the link).
    clock_ms = struct.unpack(">I", payload[end:end + 4])[0] if len(payload) >= end + 4 else None
    return HelloInfo(version, fw, flags, boot_id, rx_boot, rx_seq, tx_base, seats, ident, clock_ms)


def pack_ack(sack):
    return struct.pack(">I", sack & 0xFFFFFFFF)


def unpack_ack(payload):
    if len(payload) != 4:
        raise FrameError("ACK payload must be 4 bytes")
    return struct.unpack(">I", payload)[0]


def pack_error(code, text):
    return bytes((code,)) + _text_bytes(text, MAX_PAYLOAD - 1)


def unpack_error(payload):
    if len(payload) < 1:
        raise FrameError("empty ERROR")
    return payload[0], bytes(payload[1:]).decode("utf-8", "replace")


def pack_countdown(seat, seconds, elapsed_ms):
    # elapsed_ms is clamped to its u32 field: a start over 49.7 days back (or a start_ms given in
    # seconds) means a countdown long over, shown as 0, not a struct.error at every (re)send that
    # stopped the host's timer thread and froze the whole link.
    return struct.pack(">BHI", seat, seconds, max(0, min(0xFFFFFFFF, elapsed_ms)))


def unpack_countdown(payload):
    if len(payload) != 7:
        raise FrameError("SET_COUNTDOWN payload must be 7 bytes")
    return struct.unpack(">BHI", payload)


def pack_overtime(seat, seconds):
    return struct.pack(">BH", seat, seconds)


def unpack_overtime(payload):
    if len(payload) != 3:
        raise FrameError("SHOW_OVERTIME payload must be 3 bytes")
    return struct.unpack(">BH", payload)


def pack_text(seat, text):
    return bytes((seat,)) + _text_bytes(text, 8)


def unpack_text(payload):
    if len(payload) < 1 or len(payload) > 9:
        raise FrameError("SHOW_TEXT payload must be 1..9 bytes")
    return payload[0], bytes(payload[1:]).decode("ascii", "replace")


def pack_blink(seat, on):
    return bytes((seat, 1 if on else 0))


def unpack_blink(payload):
    if len(payload) != 2:
        raise FrameError("SET_BLINK payload must be 2 bytes")
    return payload[0], bool(payload[1])


def pack_lamp(seat, lamp, mode):
    return bytes((seat, lamp, mode))


def unpack_lamp(payload):
    if len(payload) != 3:
        raise FrameError("SET_LAMP payload must be 3 bytes")
    return payload[0], payload[1], payload[2]


def pack_buzz(ms):
    return struct.pack(">H", ms)


def unpack_buzz(payload):
    if len(payload) != 2:
        raise FrameError("BUZZ payload must be 2 bytes")
    return struct.unpack(">H", payload)[0]


def pack_query(token):
    return struct.pack(">H", token & 0xFFFF)


def unpack_query(payload):
    if len(payload) != 2:
        raise FrameError("QUERY_STATE payload must be 2 bytes")
    return struct.unpack(">H", payload)[0]


BUTTON_FMT = ">IIBBB"


def pack_button(event_no, ms, seat, button, pressed):
    return struct.pack(BUTTON_FMT, event_no, ms & 0xFFFFFFFF, seat, button, 1 if pressed else 0)


def unpack_button(payload):
    if len(payload) != 11:
        raise FrameError("BUTTON payload must be 11 bytes")
    event_no, ms, seat, button, pressed = struct.unpack(BUTTON_FMT, payload)
    return event_no, ms, seat, button, bool(pressed)


STATE_HEAD = ">HIIHIHIB"
STATE_SEAT = ">4sBBBB"


def pack_state(token, boot_id, uptime_ms, pending, events_lost, rx_errors, next_event_no, seats, referee,
               buzzer):
    """``seats`` is a list of (text4, display_mode, blink, report_mode, turn_mode)."""
    out = struct.pack(STATE_HEAD, token, boot_id, uptime_ms & 0xFFFFFFFF, pending, events_lost,
                      rx_errors & 0xFFFF, next_event_no, len(seats))
    for text, mode, blink, rep, turn in seats:
        out += struct.pack(STATE_SEAT, _text_bytes(text, 4), mode, 1 if blink else 0, rep, turn)
    return out + bytes((referee, 1 if buzzer else 0))


def unpack_state(payload):
    head = struct.calcsize(STATE_HEAD)
    if len(payload) < head:
        raise FrameError("STATE too short")
    token, boot_id, uptime, pending, lost, rx_errors, next_no, n = struct.unpack(STATE_HEAD, payload[:head])
    size = struct.calcsize(STATE_SEAT)
    if len(payload) != head + n * size + 2:
        raise FrameError("STATE length does not match seat count")
    seats = []
    for k in range(n):
        text, mode, blink, rep, turn = struct.unpack(STATE_SEAT, payload[head + k * size:head + (k + 1) * size])
        seats.append((text.decode("ascii", "replace"), mode, bool(blink), rep, turn))
    return {"token": token, "boot_id": boot_id, "uptime_ms": uptime, "pending": pending, "events_lost": lost,
            "rx_errors": rx_errors, "next_event_no": next_no, "seats": seats,
            "referee": payload[-2], "buzzer": bool(payload[-1])}
