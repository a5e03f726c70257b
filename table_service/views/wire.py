"""What a table and its hub agree on over MQTT, below both (neither imports the other).

The topic segment rule (event and table ids) and the RESULTS line a table signs and sends: the
hub checks messages against the first and reconciles its results with the tables' own logs
through the second, so each has one source.
"""

from __future__ import annotations

import ipaddress
import json
import re
import time
from typing import Any

from hardware.config_model import ID_SEGMENT_RE

#: An event or table id as an MQTT topic segment: no wildcards, no separators (an id with ``/`` or
#: ``#`` would publish somewhere else or be refused by the broker). The same rule as ``table.toml``'s
#: ``table_id``, from the one place hardware's config check can also read it.
SEGMENT_RE = ID_SEGMENT_RE
#: A host name: dot-separated labels of letters, digits, ``-`` and ``_`` (a label neither starts nor
#: ends with ``-``).
_HOST_RE = re.compile(r"[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?(?:\.[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*")


#: Characters nobody types into a name, a reason or a note: C0 and C1 controls (an ESC or NUL went
#: into the log, the pages and the printed sheets as sent) and the bidirectional overrides and
#: isolates (which turn a player's name around on screen). Not Python's "not printable": that also
#: refuses the ideographic space (U+3000) with which Chinese lists align two-character names
#: ("张\u3000三" under "欧阳明"), and a no-break space.
_CONTROL_RE = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
#: The same, where a line break or a tab is text (a reason, a note).
_CONTROL_IN_TEXT_RE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def control_character(text: str, *, lines: bool = False) -> str | None:
    """The first character of ``text`` a person typing it never means (as ``ascii()`` writes it:
    ``'\\x1b'``), else None; ``lines``: tab and line breaks are text here. One rule for every name,
    reason and note the panel, the hub's pages and ``EVENT.toml`` take."""
    m = (_CONTROL_IN_TEXT_RE if lines else _CONTROL_RE).search(text)
    return None if m is None else ascii(m.group(0))


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook``: a key given twice is refused (``json.loads`` would keep
    the last one silently), for a RESULTS line, an MQTT message and a panel action alike."""
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"字段重复 {key!r} / field {key!r} given twice")
        out[key] = value
    return out


def _not_a_number(name: str) -> Any:
    raise ValueError(f"{name} 不是 JSON 数 / {name} is not a JSON number")


#: The most digits a whole number in a message or a RESULTS line may have (Python refuses over 4,300
#: with an English sentence about "integer string conversion"; no count we take needs 20).
MAX_INT_DIGITS = 30


def _whole(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"数字过长（{len(text)} 位） / a number of {len(text)} digits is too long")
    return int(text)


def _finite(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise ValueError(f"数值超出范围：{text[:20]} / number out of range: {text[:20]}")
    return value


def loads_strict(text: str) -> Any:
    """``json.loads`` as both ends of the MQTT link read a message: a key given twice, NaN, Infinity,
    a number too large for a float (``1e400``) or too long, and nesting deeper than Python's stack
    are each a :class:`ValueError` (``json.JSONDecodeError`` for what is not JSON at all).

    Why one reader: ``json.loads`` alone takes NaN and ``1e400`` (which a page's ``JSON.parse`` of
    our answer then refuses), and raises ``RecursionError`` on ``[[[…`` — which ended the MQTT
    client's network thread for good when it escaped a message handler."""
    try:
        return json.loads(text, object_pairs_hook=no_duplicate_keys, parse_constant=_not_a_number,
                          parse_float=_finite, parse_int=_whole)
    except RecursionError:
        raise ValueError("JSON 嵌套过深 / JSON nested too deep") from None


def is_host(text: object) -> bool:
    """Whether ``text`` names a host a client can reach: an IP address or a host name. One rule for
    the broker in EVENT.toml and table.toml, the panel's address, and ``event provision``'s
    ``--host``/``--tls`` (an empty host or one with a space reached paho-mqtt and failed there)."""
    if not isinstance(text, str) or not text or len(text) > 253:
        return False
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return bool(_HOST_RE.fullmatch(text))
    return True


def table_result(state: dict[str, Any], table_id: str, log: str | None = None) -> dict[str, Any] | None:
    """The result message of a finished, signed round, in the hub's RESULTS form plus its id
    (``None`` while the round runs or a side has not signed).

    The id is the round and the result's seq in the table's log, and with ``log`` (the log's
    identity, :attr:`~table_service.store.event_log.EventStore.log_id`) its first 8 characters:
    a replacement Pi numbers its seqs from 1 again, and its refused result of the same round at
    the same seq as one the hub refused from the old Pi was answered as that one's redelivery,
    never listed for the chief referee."""
    rnd, res = state.get("round"), state.get("result")
    sig = state.get("signatures") or {}
    if not rnd or not res or not (sig.get("NS") and sig.get("EW")):
        return None
    teams = rnd.get("teams") or {}
    gained = res.get("gained") or {}
    line: dict[str, Any] = {"round": int(rnd.get("no") or 1), "table": table_id, "ns": teams.get("NS"),
                            "ew": teams.get("EW"), "ns_levels": max(0, min(13, int(gained.get("NS", 0)))),
                            "ew_levels": max(0, min(13, int(gained.get("EW", 0))))}
    if res.get("reason") == "forfeit":
        line["forfeit"] = "EW" if res.get("winner") == "NS" else "NS"
        line["forfeit"] = line["forfeit"].lower()
    elif res.get("reason") == "loss":
        lp = res.get("level_points") or {}
        line["ns_score"], line["ew_score"] = int(lp.get("NS", 0)), int(lp.get("EW", 0))
    rid = f"r{line['round']}-s{res.get('seq')}" + (f"-{log[:8]}" if log else "")
    return {"result_id": rid, "result": line, "table_seq": res.get("seq"),
            "reason": res.get("reason"), "wall_ms": int(time.time() * 1000)}
