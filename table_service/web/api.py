"""JSON API of the referee panel (documented in ``docs/api.md``) and the panel's SSE stream.

Every state-changing endpoint submits one engine event through ``TableRunner.submit``; the answer
is the engine's verdict. Malformed requests get a 4xx with a message in Chinese then English.
"""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from flask import Blueprint, Response, abort, current_app, g, jsonify, request

from table_service.engine.errors import EventRejected, halves
from table_service.engine.events import check_data
from table_service.engine.roles import ACTION_ROLES, required_role, rules_in_force
from table_service.store.event_log import is_utf8_text
from table_service.views.fanout import parse_last_event_id
from table_service.views.wire import control_character, loads_strict

from . import users
from .auth import require_role, session_holds
from .expect import ExpectError, parse_expect
from .openapi import build_openapi
from .streams import PING, client_gone, sse_response, stream_hello
from .tables import get_table, web_state

bp = Blueprint("api", __name__, url_prefix="/api")

def _json_body() -> dict:
    """The request's JSON object, or a 400 naming the problem (never a 500: a body of 100,000
    ``[`` makes the JSON parser recurse too deep, and that is the client's fault)."""
    if not request.is_json:
        abort(400, description="请求体须为 JSON 对象 / the request body must be a JSON object "
                               "(Content-Type: application/json)")
    raw = request.get_data(cache=True)
    try:
        # UTF-8 only (docs/api.md): json.loads of bytes also takes UTF-16 and UTF-32, which no page sends.
        # loads_strict: NaN, Infinity and 1e400 are no JSON numbers (json.loads took them, and a refused
        # event was logged with a bare NaN token); a key given twice is refused, as on the MQTT link.
        body = loads_strict(raw.decode("utf-8"))
    except RecursionError:
        abort(400, description="JSON 嵌套过深 / the JSON body is nested too deeply")
    except ValueError as exc:  # UnicodeDecodeError included
        if str(exc).startswith("JSON 嵌套过深"):  # loads_strict's RecursionError
            abort(400, description="JSON 嵌套过深 / the JSON body is nested too deeply")
        zh, sep, en = str(exc).partition(" / ")
        if sep:  # our own reason, already in two halves (a key given twice): each half in its place
            abort(400, description=f"JSON 无效：{zh[:60]} / the body is not valid JSON: {en[:120]}")
        abort(400, description=f"JSON 无效：{str(exc)[:120]} / the body is not valid JSON: {str(exc)[:120]}")
    if not isinstance(body, dict):
        abort(400, description="请求体须为 JSON 对象 / the request body must be a JSON object "
                               "(Content-Type: application/json)")
    fault = _text_fault(body)
    if fault == "surrogate":
        # JSON may escape half a UTF-16 pair ("\ud800"): no UTF-8 text holds it, so the event log could not.
        abort(400, description="JSON 含无效字符（半个代理对） / the JSON holds a lone UTF-16 surrogate, which is no character")
    if fault is not None:
        abort(400, description=f"文字含控制字符 {fault} / the text holds the control character {fault}")
    return body


def _text_fault(value: object) -> str | None:
    """What is wrong with the strings in ``value`` (keys too): ``"surrogate"`` for text UTF-8 cannot
    hold, the escaped control character (``'\\x1b'``) for one no person types
    (:func:`table_service.views.wire.control_character`), else None."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            if not is_utf8_text(v):
                return "surrogate"
            bad = control_character(v, lines=True)
            if bad is not None:
                return bad
        elif isinstance(v, dict):
            stack.extend(v.keys())
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
    return None


def _whole(body: dict, key: str, lo: int, hi: int) -> int:
    """``body[key]`` as an integer within ``lo``–``hi`` (a JSON integer, or the ASCII digits a form's
    number field sends), or a 400 naming it: never a float, a boolean or ``"٣"`` quietly turned into one."""
    v = body.get(key)
    if isinstance(v, str) and v.isascii() and v.isdigit() and len(v) <= 6:
        v = int(v)
    if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
        abort(400, description=f"{key} 须为 {lo}–{hi} 的整数，收到 {str(v)[:40]!r}"
                               f" / '{key}' must be an integer {lo}–{hi}, got {str(v)[:40]!r}")
    return v


def _int_arg(name: str, default: int, lo: int, hi: int) -> int:
    raw = request.args.get(name)
    if raw is None:
        return default
    if not re.fullmatch(r"-?[0-9]+", raw):  # int() would take " 1", "1_0", "٣"
        abort(400, description=f"参数 {name} 须为整数 / query parameter {name!r} must be an integer")
    # Twenty digits are an integer out of range, not "not an integer"; 19 digits bound what int() reads.
    # Leading zeros are no size: "000…001" (20 characters) is 1, not out of range.
    digits = raw.lstrip("-").lstrip("0") or "0"
    value = int(raw) if len(digits) <= 19 else (hi + 1 if not raw.startswith("-") else lo - 1)
    if not lo <= value <= hi:
        abort(400, description=f"参数 {name} 须在 {lo}–{hi} 之间 / {name!r} must be within {lo}-{hi}")
    return value


def _action_wait_s() -> float:
    """How long an action waits for the engine's verdict before it is answered 202 (pending)."""
    return float(current_app.config.get("ACTION_WAIT_S", 5.0))


#: A caller's id for one action (a UUID, or any short token): a retry with it is not a second action.
_ACTION_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")

@bp.get("/openapi.json")
def openapi() -> Any:
    """The OpenAPI document of this app (public: it describes, it holds no table data)."""
    return jsonify(build_openapi(current_app, strict=False))


@bp.get("/tables")
@require_role("viewer")
def tables() -> Any:
    """The tables this service runs."""
    out = []
    for tid, entry in sorted(web_state().tables.items()):
        st = entry.runner.state()
        rnd = st.get("round") or {}
        out.append({"id": tid, "round": rnd.get("no"), "status": rnd.get("status"),
                    "last_seq": st.get("last_seq")})
    return jsonify(tables=out)


@bp.get("/tables/<table_id>/state")
@require_role("viewer")
def state(table_id: str) -> Any:
    """The referee view of the table (engine ``state_to_json``), with the camera's health as
    ``camera`` where the table has a camera pipeline (``reading``/``lagging``/…, docs/api.md)."""
    runner = get_table(table_id).runner
    st = runner.state()
    health = getattr(runner, "camera_health", None)
    if callable(health):
        st["camera"] = health()
    return jsonify(st)


@bp.get("/tables/<table_id>/events")
@require_role("viewer")
def events(table_id: str) -> Any:
    """Accepted events with ``seq > after``, oldest first, at most ``limit``."""
    entry = get_table(table_id)
    after = _int_arg("after", 0, 0, 2**62)
    limit = _int_arg("limit", 500, 1, 5000)
    evs = entry.runner.events(after=after)
    return jsonify(events=evs[:limit], more=len(evs) > limit)


_CROP_RE = re.compile(r"^data:(image/(?:jpeg|png|webp));base64,([A-Za-z0-9+/=\s]+)$")


@bp.get("/tables/<table_id>/events/<int:seq>/crop")
@require_role("viewer")
def event_crop(table_id: str, seq: int) -> Any:
    """The camera crop stored with event ``seq`` (``data.crop``, a base64 ``data:`` URL), as an image.

    This is the evidence picture of a flag raised by a camera read, and of a one-tap question.
    """
    entry = get_table(table_id)
    evs = entry.runner.events(after=seq - 1) if seq > 0 else []
    event = evs[0] if evs and evs[0].get("seq") == seq else None
    if event is None:
        abort(404, description=f"没有已接受的事件 #{seq} / no accepted event #{seq}")
    crop = (event.get("data") or {}).get("crop")
    m = _CROP_RE.match(crop) if isinstance(crop, str) else None
    if m is None:
        abort(404, description=f"事件 #{seq} 没有摄像头图像 / event #{seq} has no camera image")
    try:
        raw = base64.b64decode(m.group(2), validate=False)
    except (binascii.Error, ValueError):
        abort(404, description=f"事件 #{seq} 的图像数据损坏 / the image of event #{seq} is damaged")
    resp = Response(raw, mimetype=m.group(1))
    resp.headers["Cache-Control"] = "no-store"  # evidence of a login: not kept in a shared tablet's cache
    return resp


@bp.post("/tables/<table_id>/actions")
@require_role("referee")
def submit_action(table_id: str) -> Any:
    """Submit one referee action as an engine event; answers with the engine's verdict."""
    entry = get_table(table_id)
    body = _json_body()
    etype = body.get("type")
    if not isinstance(etype, str) or etype not in ACTION_ROLES:
        allowed = ", ".join(sorted(ACTION_ROLES))
        abort(400, description=f"未知操作类型 {etype!r}（可用：{allowed}）"
                               f" / unknown action type {etype!r}; allowed: {allowed}")
    data = body.get("data", {})
    if not isinstance(data, dict):
        abort(400, description="data 须为 JSON 对象 / 'data' must be a JSON object")
    unknown = set(body) - {"type", "data", "action_id", "expect"}
    if unknown:
        abort(400, description=f"未知字段：{sorted(unknown)} / unknown fields: {sorted(unknown)}")
    action_id = body.get("action_id")
    if action_id is not None and not (isinstance(action_id, str) and _ACTION_ID_RE.fullmatch(action_id)):
        abort(400, description="action_id 须为 1–64 个字母、数字、_ - / 'action_id' must be 1-64 letters, digits, _ -")
    try:
        check_data(etype, data)  # the engine's own schema table: the same check the runner makes
        precondition = parse_expect(body.get("expect"))
    except (EventRejected, ExpectError) as exc:
        abort(400, description=str(exc))
    need = required_role(etype, data, rules_in_force(entry.runner.state()))
    if not g.user.can(need):
        abort(403, description=f"权限不足，需要{users.role_label(need)[0]} / this action requires role {need}")
    event = {"type": etype, "source": "panel", "role": g.user.role, "data": data}
    key = f"{g.user.name}:{action_id}" if action_id else None
    result = entry.runner.submit(event, wait=True, timeout=_action_wait_s(), key=key, precondition=precondition)
    if result.accepted:
        current_app.logger.info("table %s: %s by %s accepted as #%s", table_id, etype, g.user.name, result.seq)
        return jsonify(accepted=True, seq=result.seq, event=result.event)
    return _rejection(result)


def _rejection(result: Any) -> tuple[Response, int]:
    """The answer to an event the engine did not accept: 202 when it is still queued (outcome not
    known yet), 503 when it never reached the log,
    403 for a role the engine refused, 422 for anything else (with the engine's message)."""
    error = result.error or "未被接受 / not accepted"
    if result.queued:
        # Still queued: it will be applied or refused. Not a 503, which says "try again": a retry
        # is a second action unless it carries the same action_id. The hint goes into each half: added
        # after the whole text, its Chinese landed in the English half (the toast read "仍在处理，结果未知").
        zh, en = halves(error)
        return jsonify(accepted=False, pending=True, seq=None,
                       error=f"{zh}；请查看事件列表后再决定是否重试 / {en}; look at the event list before trying again"), 202
    if getattr(result, "conflict", False):
        # The action_id names another action: this one was not done (and the other's verdict is not its).
        return jsonify(accepted=False, conflict=True, seq=None, error=error), 409
    if getattr(result, "stale", False):
        # The table moved on from what the page showed (web/expect.py): nothing was done twice.
        return jsonify(accepted=False, stale=True, seq=result.seq, error=error), 409
    if result.seq is None and not result.event:
        # Never reached the log (queue full / runner stopped): a service problem, not the request's.
        return jsonify(accepted=False, seq=None, error=error), 503
    # 403 only where the engine said the refusal is about the role (RoleRejected), never from the
    # wording: "…请由裁判长在记分表上更正" to a chief is a ruling on the event, not on the chief.
    status = 403 if getattr(result, "role", False) else 422
    return jsonify(accepted=False, seq=result.seq, error=error), status


@bp.post("/tables/<table_id>/feed/release")
@require_role("chief")
def release_deal(table_id: str) -> Any:
    """Duplicate (复式) mode: the organiser releases one ended deal to the public feed.

    Submitted as the engine event ``deal_released`` (like every state change, it is in the table's
    log before it takes effect, so a restart keeps it); the feed reads releases from the engine.
    """
    entry = get_table(table_id)
    body = _json_body()
    extra = sorted(set(body) - {"round", "deal"})
    if extra:
        abort(400, description=f"未知字段：{', '.join(extra)[:80]}（应为 round、deal）"
                               f" / unknown field(s): {', '.join(extra)[:80]} (expected round, deal)")
    round_no = _whole(body, "round", 0, 10_000)
    deal_no = _whole(body, "deal", 1, 10_000)
    event = {"type": "deal_released", "source": "panel", "role": g.user.role,
             "data": {"round": round_no, "deal": deal_no}}
    result = entry.runner.submit(event, wait=True, timeout=_action_wait_s())
    if result.accepted:
        current_app.logger.info("table %s: round %s deal %s released by %s as #%s",
                                table_id, round_no, deal_no, g.user.name, result.seq)
        return jsonify(released={"round": round_no, "deal": deal_no}, seq=result.seq)
    return _rejection(result)


@bp.get("/tables/<table_id>/stream")
@require_role("viewer")
def stream(table_id: str) -> Response:
    """The panel's live stream: snapshot, then one ``update`` per applied event (id = seq).

    Resumes after ``Last-Event-ID`` (header, or ``?last_event_id=`` for clients that cannot set it).
    """
    entry = get_table(table_id)
    last = parse_last_event_id(request.headers.get("Last-Event-ID") or request.args.get("last_event_id"))
    cfg = current_app.config
    gone, holds = client_gone(), session_holds("viewer")  # gone: None where the server cannot tell
    heartbeat = float(cfg["SSE_HEARTBEAT_S"])
    return sse_response(entry.hub.stream(last, heartbeat, web_state().stop,
                                         lambda: (gone is not None and gone()) or not holds(),
                                         hello=stream_hello(entry.runner, heartbeat), keepalive=PING))
