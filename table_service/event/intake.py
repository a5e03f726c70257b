"""Field-by-field checks of every message a table sends the hub, before it touches the hub's log.

The hub reads three topics of each table (``guandan/<event>/<table>/{result,status,summary}``,
documented in ``docs/hub-protocol.md``). Anything on them may be wrong: a table's bug, a broken
Pi, a person on the venue network. So each payload is checked here — size, UTF-8, JSON without
repeated keys or ``NaN``, an object, every known field of the right type and range, no unknown
field, and the table inside the message equal to the table in the topic — and comes out as a
*clean* dict holding only checked values (numbers as numbers, bounded strings, no nesting the
overview does not show). A message that fails raises :class:`BadMessage` with one reason line;
the hub logs it once as that table's fault, acknowledges it and carries on (see
:meth:`~table_service.event.table_messages.TableMessages.handle_batch`): one bad message never blocks another.

Semantic checks (is this round drawn, are these the drawn teams, is there a result already) stay
in :meth:`~table_service.event.core.HubCore.classify_result`; this module only decides whether a
message is well formed.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote, urlsplit

from table_service.event.model import EventInputError, parse_result
from table_service.rules.cards import RANKS
from table_service.rules.seats import SEATS, SIDES
from table_service.views.deck_wire import SHA256_RE
from table_service.views.panel_url import panel_url_problem
from table_service.views.wire import SEGMENT_RE, loads_strict

#: The largest payload read at all (a summary is ~400 bytes, a result ~250).
MAX_PAYLOAD = 16 * 1024
#: Counts on the overview (open flags, questions, clocks over, penalty counters).
MAX_COUNT = 10_000
MAX_ROUND = 999
MAX_SEQ = 2**53
#: Wall-clock stamps in Unix ms, up to 2286-11-20 (a table's clock may be wrong, never a 30-digit number).
MIN_WALL_MS, MAX_WALL_MS = 0, 9_999_999_999_999
#: A side's level as the engine writes it (``rules.cards.RANKS``: "T" for 10), and "10" as a person writes it.
#: Only "10" was taken: every summary of a table at level 10 was refused as a bad message (the s38 audit).
_RANKS = frozenset(RANKS) | {"10"}
#: The two sides of :data:`table_service.rules.seats.SIDES` in the order the hub writes them, NS before
#: EW (as its results lines, ns then ew, and the table's own summary); the order is the order a summary's
#: fields are checked in, so one wrong on both sides is refused naming NS.
_SIDES: tuple[str, ...] = tuple(sorted(SIDES, reverse=True))


class BadMessage(ValueError):
    """A table message that is not well formed; ``str()`` is the reason, Chinese first."""


def _bad(zh: str, en: str) -> BadMessage:
    return BadMessage(f"{zh} / {en}")


def _show(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def load_object(payload: bytes) -> dict[str, Any]:
    """The payload as a JSON object, or :class:`BadMessage` saying why not."""
    if len(payload) > MAX_PAYLOAD:
        raise _bad(f"消息过大（{len(payload)} 字节）", f"message too large ({len(payload)} bytes, at most {MAX_PAYLOAD})")
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError:
        raise _bad("消息不是 UTF-8", "message is not UTF-8") from None
    try:
        data = loads_strict(text)
    except json.JSONDecodeError as exc:
        raise _bad("消息不是 JSON", f"message is not JSON ({exc.msg})") from None
    except ValueError as exc:  # repeated key, NaN, 1e400, 5,000-digit number, deep nesting: said in both halves
        zh, _sep, en = str(exc).partition(" / ")
        raise _bad(f"消息不是可用的 JSON：{zh[:60]}", f"unusable JSON: {en[:100]}") from None
    if not isinstance(data, dict):
        raise _bad("消息须为 JSON 对象", f"message must be a JSON object, got {type(data).__name__}")
    return data


def _fields(data: dict[str, Any], known: frozenset[str], what: str) -> None:
    unknown = set(data) - known
    if unknown:
        names = sorted(str(k)[:20] for k in unknown)[:5]
        raise _bad(f"{what} 有未知字段 {names}", f"{what} has unknown field(s) {names}")


def _int(data: dict[str, Any], key: str, lo: int, hi: int, *, optional: bool = True) -> int | None:
    v = data.get(key)
    if v is None and optional:
        return None
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        raise _bad(f"{key} 须为 {lo}–{hi} 的整数，得到 {_show(v)}", f"{key} must be an integer {lo}-{hi}, got {_show(v)}")
    return v


def _str(data: dict[str, Any], key: str, max_len: int, *, optional: bool = True,
         choices: frozenset[str] | tuple[str, ...] | None = None) -> str | None:
    v = data.get(key)
    if v is None and optional:
        return None
    if not isinstance(v, str) or not v or len(v) > max_len or not v.isprintable():
        raise _bad(f"{key} 须为 1–{max_len} 个可打印字符，得到 {_show(v)}",
                   f"{key} must be 1-{max_len} printable characters, got {_show(v)}")
    if choices is not None and v not in choices:
        raise _bad(f"{key} 须为 {sorted(choices)} 之一，得到 {_show(v)}", f"{key} must be one of {sorted(choices)}, "
                   f"got {_show(v)}")
    return v


def _side_map(data: dict[str, Any], key: str, check: Any, must: tuple[str, str] | None = None
              ) -> dict[str, Any] | None:
    """``{"NS": …, "EW": …}`` with both sides checked by ``check(value) -> clean``; ``None`` absent.
    ``must`` (Chinese, English) says what a side's value must be, for the refusal's reason."""
    v = data.get(key)
    if v is None:
        return None
    if not isinstance(v, dict) or set(v) - set(_SIDES):
        raise _bad(f"{key} 须为 {{NS, EW}} 对象，得到 {_show(v)}", f"{key} must be an object of NS and EW, got {_show(v)}")
    out = {}
    for side in _SIDES:
        if side in v:
            try:
                out[side] = check(v[side])
            except (TypeError, ValueError):
                if must is not None:
                    raise _bad(f"{key}.{side} 须为 {must[0]}，得到 {_show(v[side])}",
                               f"{key}.{side} must be {must[1]}, got {_show(v[side])}") from None
                raise _bad(f"{key}.{side} 无效 {_show(v[side])}", f"invalid {key}.{side} {_show(v[side])}") from None
    return out


def _team_id(v: Any) -> str:
    if not isinstance(v, str) or not v.strip() or len(v) > 64 or not v.isprintable():
        raise ValueError(v)
    return v


def _rank(v: Any) -> str:
    if not isinstance(v, str) or v not in _RANKS:
        raise ValueError(v)
    return v


def _counters(v: Any) -> dict[str, int]:
    if v is None:
        return {}
    if not isinstance(v, dict) or len(v) > 16:
        raise ValueError(v)
    out = {}
    for k, n in v.items():
        if not isinstance(k, str) or not SEGMENT_RE.match(k) or isinstance(n, bool) or not isinstance(n, int) \
                or not 0 <= n <= MAX_COUNT:
            raise ValueError(v)
        out[k] = n
    return out


def _signed(v: Any) -> bool:
    """A side's signature: a JSON boolean only. ``bool()`` of anything else would read the text
    ``"no"`` (or ``"false"``, ``1``, ``{}`` …) as signed on the chief referee's overview."""
    if isinstance(v, bool):
        return v
    raise ValueError(v)


def _same_table(data: dict[str, Any], table: str, what: str) -> None:
    if "table" in data and data["table"] != table:
        raise _bad(f"{what} 的桌号 {_show(data['table'])} 与主题桌号 {table} 不符",
                   f"{what} names table {_show(data['table'])}, its topic table {table}")


def check_panel(url: Any, table: str) -> str | None:
    """The address of ``table``'s own panel page, or ``None``: ``http(s)://host[:port]/tables/<table>``
    (what :func:`~table_service.table.mqtt_bridge.announced_panel_url` announces), nothing else — no other
    scheme, no user:password@, no query or fragment, no other table's page."""
    if url is None:
        return None
    problem = panel_url_problem(url, table)
    if problem is not None:
        raise BadMessage(problem)
    assert isinstance(url, str)
    return url


def panel_link(table: str, organiser: str | None, announced: str | None) -> str | None:
    """The overview's link to ``table``'s panel: the organiser's ``[[tables]] panel`` (EVENT.toml; a
    base ending in ``/`` gets ``tables/<table>``), else what the table announced (already checked
    by :func:`check_panel`); only ever ``http(s)``, else no link."""
    if organiser:
        url = organiser + f"tables/{quote(table, safe='')}" if organiser.endswith("/") else organiser
        parts = urlsplit(url)
        # A user or password in the address would be shown to every viewer of the hub's pages.
        return url if parts.scheme in ("http", "https") and "@" not in parts.netloc else None
    if announced:
        try:
            return check_panel(announced, table)
        except BadMessage:
            return None
    return None


STATUS_KEYS = frozenset({"table", "event", "status", "reason", "wall_ms", "panel"})
SUMMARY_KEYS = frozenset({"table", "round", "round_status", "teams", "deal", "levels", "open_flags", "doubts",
                          "clocks_over", "penalties", "signed", "finished", "panel", "deck", "camera",
                          "last_seq", "wall_ms", "deals_ended", "feed_delay_s", "feed_holds", "log", "standing"})
RESULT_KEYS = frozenset({"result_id", "result", "table_seq", "reason", "wall_ms", "feed_delay_s"})
#: The longest broadcast delay a table may have (``views.feed.FeedView`` refuses more).
MAX_FEED_DELAY_S = 3600


def check_status(table: str, data: dict[str, Any], event: str | None = None) -> dict[str, Any]:
    """``{"status": "online"|"offline", "wall_ms", "panel"}`` checked (see docs/hub-protocol.md).

    ``event``: the hub's event id. A status naming another event is a table set up for another
    event (or a forgery): it says nothing true about this event's table, so it is refused."""
    _fields(data, STATUS_KEYS, "status")
    _same_table(data, table, "status")
    named = _str(data, "event", 64)
    if event is not None and named is not None and named != event:
        raise _bad(f"status 的赛事 {_show(named)} 不是本赛事 {event}",
                   f"status names event {_show(named)}, this hub's event is {event}")
    _str(data, "reason", 200)
    return {"status": _str(data, "status", 16, optional=False, choices=("online", "offline")),
            "wall_ms": _int(data, "wall_ms", MIN_WALL_MS, MAX_WALL_MS),
            "panel": check_panel(data.get("panel"), table)}


def check_summary(table: str, data: dict[str, Any]) -> dict[str, Any]:
    """The overview's counts, every one an integer in range, every text bounded."""
    _fields(data, SUMMARY_KEYS, "summary")
    _same_table(data, table, "summary")
    finished = data.get("finished", False)
    if not isinstance(finished, bool):
        raise _bad(f"finished 须为 true/false，得到 {_show(finished)}", f"finished must be true or false, got "
                   f"{_show(finished)}")
    camera = data.get("camera")  # absent from a table of an older release: unknown
    if camera is not None and not isinstance(camera, bool):
        raise _bad(f"camera 须为 true/false，得到 {_show(camera)}", f"camera must be true or false, got {_show(camera)}")
    teams = _side_map(data, "teams", _team_id)
    if teams and teams.get("NS") is not None and teams.get("NS") == teams.get("EW"):
        raise _bad(f"队伍 {_show(teams['NS'])} 不能与自己对局", f"a team cannot play itself: {_show(teams)}")
    # A duplicate board's tables only (absent from others and from a table of an older release): the
    # deals of the round that have ended, which the hub releases at both rooms (event/release.py).
    ended, deal = _int(data, "deals_ended", 0, MAX_COUNT), _int(data, "deal", 0, MAX_COUNT)
    # The table's public broadcast (absent from a table of an older release, or with none): its delay,
    # and whether it holds deals for release (a duplicate board) — the hub's 直播 page says both.
    delay = _feed_delay(data)
    holds = data.get("feed_holds", False)
    if not isinstance(holds, bool):
        raise _bad(f"feed_holds 须为 true/false，得到 {_show(holds)}", f"feed_holds must be true or false, got {_show(holds)}")
    if ended is not None and ended > (deal or 0):
        raise _bad(f"deals_ended {ended} 超过当前副数 {deal}", f"deals_ended {ended} is more than the deal {deal} "
                   "the table is at")
    return {"table": table, "round": _int(data, "round", 1, MAX_ROUND),
            "round_status": _str(data, "round_status", 32),
            "teams": teams,
            "deal": _int(data, "deal", 0, MAX_COUNT),
            "levels": _side_map(data, "levels", _rank),
            "open_flags": _int(data, "open_flags", 0, MAX_COUNT) or 0,
            "doubts": _int(data, "doubts", 0, MAX_COUNT) or 0,
            "clocks_over": _int(data, "clocks_over", 0, MAX_COUNT) or 0,
            "penalties": _side_map(data, "penalties", _counters),
            "signed": _side_map(data, "signed", _signed, ("true 或 false", "true or false")),
            "finished": finished,
            "panel": check_panel(data.get("panel"), table),
            "deck": _deck_sha(data.get("deck")),
            "camera": camera,
            "last_seq": _int(data, "last_seq", 0, MAX_SEQ),
            "wall_ms": _int(data, "wall_ms", MIN_WALL_MS, MAX_WALL_MS),
            "deals_ended": ended,
            "feed_delay_s": delay,
            "feed_holds": holds,
            # The table's log (absent from a table of an older release: None): its seqs are numbered in it.
            "log": _str(data, "log", 64),
            # Where the round stands beyond its levels (engine.resume.standing): what a move to a spare
            # table carries. Absent before a deal of the round has ended, and from an older release.
            "standing": _standing(data.get("standing"))}


#: A ``standing``'s keys: engine.resume.standing's (the levels are the summary's own ``levels``).
_STANDING_KEYS = frozenset({"deals", "next_side", "last_order", "failed_at_a", "elapsed_s"})


def _standing(v: Any) -> dict[str, Any] | None:
    """A summary's ``standing``, each field checked for its kind and range (the engine checks the
    sense again when a spare table sets the round up from it)."""
    if v is None:
        return None
    if not isinstance(v, dict) or set(v) - _STANDING_KEYS:
        raise _bad(f"standing 须为对象，仅含 {sorted(_STANDING_KEYS)}，得到 {_show(v)}",
                   f"standing must be an object of {sorted(_STANDING_KEYS)}, got {_show(v)}")
    out: dict[str, Any] = {"deals": _int(v, "deals", 0, MAX_COUNT) or 0}
    side = _str(v, "next_side", 2, choices=_SIDES)
    if side is not None:
        out["next_side"] = side
    order = v.get("last_order")
    if order is not None:
        if not isinstance(order, list) or not 2 <= len(order) <= 4 or len(set(map(str, order))) != len(order) \
                or any(s not in SEATS for s in order):
            raise _bad(f"standing.last_order 须为座位名次，得到 {_show(order)}",
                       f"standing.last_order must be seats in finishing order, got {_show(order)}")
        out["last_order"] = list(order)
    fails = _side_map(v, "failed_at_a", _count)
    if fails:
        out["failed_at_a"] = fails
    elapsed = _int(v, "elapsed_s", 0, 10_000_000)
    if elapsed is not None:
        out["elapsed_s"] = elapsed
    return out


def _count(v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= MAX_COUNT:
        raise ValueError(v)
    return v


def _deck_sha(value: Any) -> str | None:
    """The SHA-256 of the deck a table reads with (hex), or None (zero-shot, or no camera)."""
    if value is None:
        return None
    if not isinstance(value, str) or not SHA256_RE.match(value):
        raise _bad(f"deck 须为 SHA-256 十六进制，得到 {_show(value)}", f"deck must be a SHA-256 in hex, got {_show(value)}")
    return value


def check_result(table: str, data: dict[str, Any]) -> dict[str, Any]:
    """A signed round's result: its id, the RESULTS line (every field, :func:`~.model.parse_result`)
    for this topic's table, and the table's own sequence number."""
    _fields(data, RESULT_KEYS, "result")
    rid = _str(data, "result_id", 64, optional=False)
    line = data.get("result")
    try:
        res = parse_result(line, "result: ")
    except EventInputError as exc:
        raise BadMessage(str(exc)) from None
    if res.ew is None:
        raise _bad("轮空不需要成绩", "a bye has no result to report")
    if res.table != table:
        raise _bad(f"主题桌号 {table} 与成绩桌号 {_show(res.table)} 不符", f"topic table {table} differs from the "
                   f"result's table {_show(res.table)}")
    _str(data, "reason", 32)
    return {"result_id": rid, "result": res.to_dict(), "table_seq": _int(data, "table_seq", 0, MAX_SEQ),
            "wall_ms": _int(data, "wall_ms", MIN_WALL_MS, MAX_WALL_MS), "feed_delay_s": _feed_delay(data)}


def _feed_delay(data: dict[str, Any]) -> float:
    """A message's ``feed_delay_s`` (the table's broadcast delay), 0 when absent (a table of an
    older release, or one without a delay)."""
    delay = data.get("feed_delay_s")
    if delay is None:
        delay = 0
    if isinstance(delay, bool) or not isinstance(delay, (int, float)) or not 0 <= delay <= MAX_FEED_DELAY_S:
        raise _bad(f"feed_delay_s 须为 0–{MAX_FEED_DELAY_S} 秒，得到 {_show(delay)}",
                   f"feed_delay_s must be 0-{MAX_FEED_DELAY_S} seconds, got {_show(delay)}")
    return float(delay)


CHECKS = {"status": check_status, "summary": check_summary, "result": check_result}


def check_message(table: str, name: str, payload: bytes, tables: frozenset[str] | None = None,
                  event: str | None = None) -> dict[str, Any]:
    """One table message, checked: the topic's table (a topic segment; one of ``tables`` when the
    event lists its tables), the topic name, then the payload field by field; a ``status`` naming
    an event must name ``event`` (the hub's own, when given).

    :raises BadMessage: with the reason, one line."""
    if not SEGMENT_RE.match(table):
        raise _bad(f"主题桌号无效 {_show(table)}", f"invalid table id in the topic: {_show(table)}")
    if tables and table not in tables:
        raise _bad(f"赛事没有 {table} 号桌", f"table {table} is not one of the event's [[tables]]")
    check = CHECKS.get(name)
    if check is None:
        raise _bad(f"未知主题 {_show(name)}", f"unknown topic {_show(name)}")
    data = load_object(payload)
    if name == "status":
        return check_status(table, data, event)
    return check(table, data)
