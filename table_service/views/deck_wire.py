"""The event's deck as the hub hands it to every table over MQTT (below both: neither imports the other).

Why one message for the whole event: the organiser enrols the event's deck once (``guandan-table
vision enroll``, or at one table's panel) and every table reads with it. The file is ~0.5 MB; one
retained message on ``guandan/<event>/deck`` costs the broker that once, where a copy per table
would cost it that 500 times. The message carries the file's SHA-256, so a table knows it got the
bytes the hub checked, and reports which deck it reads with in its summary.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import re
from typing import Any

from table_service.views.wire import loads_strict

#: The event-wide topic's last segment: ``guandan/<event>/deck`` (three levels, apart from the
#: tables' ``guandan/<event>/<table>/<name>``).
DECK_NAME = "deck"
#: The largest enrolment file handed on (a head is ~0.5 MB compressed; a fan check adds a few kB).
MAX_DECK_BYTES = 4 * 1024 * 1024
#: A SHA-256 as hex, as the summary carries it.
SHA256_RE = re.compile(r"^[0-9a-f]{64}$")
#: A withdrawal is ``{"withdrawn": "<sha256>"}``: anything longer is not one.
MAX_WITHDRAWAL_BYTES = 256


def deck_topic(event_id: str) -> str:
    return f"guandan/{event_id}/{DECK_NAME}"


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def deck_message(data: bytes, meta: dict[str, Any]) -> bytes:
    """The retained message: the file (base64), its digest and size, and what the hub says of it."""
    if not data or len(data) > MAX_DECK_BYTES:
        raise ValueError(f"登记文件大小须为 1–{MAX_DECK_BYTES} 字节，收到 {len(data)} / "
                         f"enrolment file must be 1 byte to {MAX_DECK_BYTES} bytes, got {len(data)}")
    return json.dumps({"sha256": sha256_hex(data), "size": len(data), "meta": meta,
                       "file": base64.b64encode(data).decode("ascii")}, separators=(",", ":")).encode("utf-8")


def withdrawal_message(sha: str) -> bytes:
    """The retained message that replaces a withdrawn deck: its digest, so a table that comes up
    later still knows the deck it saved from the hub is no longer the event's (an empty retained
    message would say nothing to it)."""
    if not SHA256_RE.match(sha):
        raise ValueError(f"不是 SHA-256：{sha!r} / not a SHA-256: {sha!r}")
    return json.dumps({"withdrawn": sha}, separators=(",", ":")).encode("utf-8")


def read_withdrawal(payload: bytes) -> str | None:
    """The withdrawn deck's SHA-256 if ``payload`` is a withdrawal, else None (a deck message, or
    one :func:`read_deck_message` refuses with why)."""
    if len(payload) > MAX_WITHDRAWAL_BYTES:
        return None
    try:
        msg = loads_strict(payload.decode("utf-8"))
    except ValueError:  # not UTF-8 or not usable JSON
        return None
    sha = msg.get("withdrawn") if isinstance(msg, dict) else None
    return sha if isinstance(sha, str) and SHA256_RE.match(sha) else None


def read_deck_message(payload: bytes) -> tuple[bytes, str, dict[str, Any]]:
    """``(file bytes, sha256, meta)`` of a deck message.

    :raises ValueError: not a deck message, too large, or bytes that are not the ones its digest names
        (Chinese / English, for the table's log).
    """
    if len(payload) > MAX_DECK_BYTES * 2:  # base64 is 4/3 of the file, plus the fields
        raise ValueError(f"牌组消息过大：{len(payload)} 字节 / deck message too large: {len(payload)} bytes")
    try:
        msg = loads_strict(payload.decode("utf-8"))
    except ValueError:  # not UTF-8 or not usable JSON (nested too deep, NaN, a key twice)
        raise ValueError("牌组消息不是 JSON / deck message is not JSON") from None
    if not isinstance(msg, dict) or not isinstance(msg.get("file"), str) or not isinstance(msg.get("sha256"), str):
        raise ValueError("牌组消息缺少 file 或 sha256 / deck message lacks file or sha256")
    try:
        data = base64.b64decode(msg["file"], validate=True)
    except (binascii.Error, ValueError):
        raise ValueError("牌组文件不是 base64 / deck file is not base64") from None
    if not data or len(data) > MAX_DECK_BYTES:
        raise ValueError(f"登记文件大小 {len(data)} 超出范围 / enrolment file size {len(data)} out of range")
    sha = sha256_hex(data)
    if sha != msg["sha256"]:
        raise ValueError("牌组文件与其摘要不符 / deck file does not match its SHA-256")
    meta = msg.get("meta")
    return data, sha, meta if isinstance(meta, dict) else {}
