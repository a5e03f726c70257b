"""The OpenAPI 3.1 document of the table service's HTTP interface, built from the app itself.

Paths and methods come from the Flask URL map; what each operation takes and answers comes from
:data:`OPERATIONS` below, and the body of a referee action from the engine's own event schema
(:data:`table_service.engine.events.DATA_SCHEMAS`). :func:`build_openapi` refuses a route that
:data:`OPERATIONS` does not describe, and a test checks the reverse, so the document cannot drift
from the code. Served at ``GET /api/openapi.json``; a copy lives in ``docs/openapi.json``
(``python -m table_service.cli.openapi > docs/openapi.json``; a test keeps it equal).
"""

from __future__ import annotations

import re
from typing import Any

from table_service.engine.errors import halves
from table_service.engine.events import DATA_SCHEMAS, EVENT_TYPES, Spec
from table_service.engine.roles import ACTION_ROLES

#: Routes the document leaves out: static files (not an API), the pages' words' script among them.
UNDOCUMENTED_ENDPOINTS = frozenset({"static", "words_script"})

_ERROR = {"$ref": "#/components/schemas/Error"}
_JSON_OBJ = {"type": "object"}
_HTML = {"text/html": {"schema": {"type": "string"}}}
_SSE = {"text/event-stream": {"schema": {"type": "string"}}}


def _err(description: str) -> dict[str, Any]:
    # JSON under /api/ and /feed/ (and for a client that asks for JSON); an HTML page for a browser.
    return {"description": description, "content": {"application/json": {"schema": _ERROR}, **_HTML}}


def _ok(schema: dict[str, Any], description: str = "OK") -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _page(description: str) -> dict[str, Any]:
    return {"description": description, "content": dict(_HTML)}


# Error answers every operation may give. A page (HTML) route answers errors as an HTML page too.
_COMMON = {"404": _err("没有该桌 / unknown table or resource"), "405": _err("wrong method"),
           "413": _err("body larger than MAX_CONTENT_LENGTH")}
_LOGIN = {"401": _err("请先登录 / login required"), "403": _err("权限不足 / role too low")}
_POST = {"400": _err("malformed request, off-schema data or missing CSRF token")}

_INT_Q = {"type": "string", "pattern": "^[0-9]+$"}


def _q(name: str, description: str, schema: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"name": name, "in": "query", "required": False, "description": description,
            "schema": schema or _INT_Q}


_TABLES = _ok({"type": "object", "required": ["tables"], "properties": {"tables": {"type": "array", "items": _JSON_OBJ}}})
_ACCEPTED = _ok({"type": "object", "required": ["accepted"], "properties": {
    "accepted": {"type": "boolean"}, "seq": {"type": ["integer", "null"]}, "event": _JSON_OBJ}},
    "in the log and applied")
_REJECTED = {"description": "the engine refused it (kept in the log as rejected)", "content": {"application/json": {
    "schema": {"type": "object", "required": ["accepted", "error"], "properties": {
        "accepted": {"const": False}, "seq": {"type": ["integer", "null"]}, "error": {"type": "string"}}}}}}

_PENDING = {"description": "still queued for the engine after 5 s: it will be applied or refused (look at the events; "
                           "retry only with the same action_id)", "content": {"application/json": {
    "schema": {"type": "object", "required": ["accepted", "pending", "error"], "properties": {
        "accepted": {"const": False}, "pending": {"const": True}, "error": {"type": "string"}}}}}}

_STALE = {"description": "the table moved on from what `expect` said the page showed (a second tap, another "
                         "referee first): refused and logged as rejected, nothing done; or (`conflict`) the "
                         "`action_id` already names a different action: not done, not logged",
          "content": {"application/json": {
    "schema": {"type": "object", "required": ["accepted", "error"], "properties": {
        "accepted": {"const": False}, "stale": {"const": True}, "conflict": {"const": True},
        "seq": {"type": ["integer", "null"]}, "error": {"type": "string"}}}}}}
_EXPECT = {"type": "object", "additionalProperties": False,
           "description": "what the page showed, checked just before the action is applied (web/expect.py)",
           "properties": {"turn": {"enum": ["E", "S", "W", "N", None],
                                   "description": "the seat whose turn the page showed (null: nobody's)"},
                          "question": {"type": "integer", "minimum": 0,
                                       "description": "the camera question answered: it must still be open"}}}

#: ``(METHOD, flask rule)`` -> the OpenAPI operation (without the path parameters, added from the rule).
#: Keys of ours, left out of the document: ``login``, ``csrf``, ``stream``, and ``endpoint`` (the
#: operationId's name where it is not the route's endpoint: a route moved to another blueprint).
OPERATIONS: dict[tuple[str, str], dict[str, Any]] = {
    ("GET", "/"): {"summary": "裁判台首页 / panel home (tables)", "tags": ["pages"],
                   "responses": {"200": _page("the page"), "302": {"description": "to the login page"}}},
    ("GET", "/favicon.ico"): {"summary": "favicon", "tags": ["pages"],
                              "responses": {"200": {"description": "the icon", "content": {"image/svg+xml": {}}}}},
    ("GET", "/tables/<table_id>"): {"summary": "一桌的裁判台 / the referee panel of a table", "tags": ["pages"],
                                    "responses": {"200": _page("the page"), "302": {"description": "to login"},
                                                  "403": _page("role too low"), "404": _page("unknown table")}},
    ("GET", "/tables/<table_id>/scoresheet"): {"summary": "记分表 / score sheet", "tags": ["pages"], "responses": {
        "200": _page("the page"), "302": {"description": "to login"}, "403": _page("role too low"),
        "404": _page("unknown table")}},
    ("GET", "/tables/<table_id>/record"): {
        "summary": "记录 / the table's record: every event, accepted or refused, newest first", "tags": ["pages"],
        "login": "viewer", "parameters": [_q("refused", "1: the refused ones only (0, the default: all)", {"type": "string", "enum": ["0", "1"]})],
        "responses": {"200": _page("the page"), "302": {"description": "to login"},
                      "400": _page("refused is neither 0 nor 1"), "403": _page("role too low"),
                      "404": _page("unknown table")}},
    ("GET", "/auth/login"): {"summary": "登录页 / login form", "tags": ["auth"], "responses": {"200": _page("the form")}},
    ("POST", "/auth/login"): {
        "summary": "登录 / log in (form post with the CSRF token)", "tags": ["auth"],
        "requestBody": {"content": {"application/x-www-form-urlencoded": {"schema": {
            "type": "object", "properties": {"username": {"type": "string"}, "password": {"type": "string"},
                                             "csrf_token": {"type": "string"}, "next": {"type": "string"}}}}}},
        "responses": {"200": _ok({"type": "object", "properties": {"user": {"type": "string"}, "role": {
            "type": "string"}, "csrf_token": {"type": "string"}}}, "logged in (JSON client)"),
            "302": {"description": "logged in: to the panel"}, "400": _err("missing CSRF token"),
            "401": _err("wrong user or password (the form again, for a browser)"),
            "429": _err("too many failed logins (Retry-After)")}},
    ("POST", "/auth/logout"): {"summary": "注销 / log out (ends the session on the server)", "tags": ["auth"],
                               "responses": {"302": {"description": "to the login page"},
                                             "400": _err("missing CSRF token")}},
    ("GET", "/auth/whoami"): {"summary": "当前用户与 CSRF 令牌 / who is logged in, and the CSRF token",
                              "tags": ["auth"], "responses": {"200": _ok({"type": "object", "required": ["csrf_token"],
                                                                          "properties": {
                                                                              "user": {"type": ["string", "null"]},
                                                                              "role": {"type": ["string", "null"]},
                                                                              "csrf_token": {"type": "string"}}})}},
    ("GET", "/api/openapi.json"): {"summary": "本文档 / this document", "tags": ["api"],
                                   "responses": {"200": _ok(_JSON_OBJ)}},
    ("GET", "/api/tables"): {"summary": "本服务的桌 / the tables served", "tags": ["api"], "login": "viewer",
                             "responses": {"200": _TABLES}},
    ("GET", "/api/tables/<table_id>/state"): {"summary": "裁判视图 / the referee view of the table",
                                              "tags": ["api"], "login": "viewer", "responses": {"200": _ok(_JSON_OBJ)}},
    ("GET", "/api/tables/<table_id>/events"): {
        "summary": "已接受的事件 / accepted events after a seq", "tags": ["api"], "login": "viewer",
        "parameters": [_q("after", "seq to start after (0–2^62)"), _q("limit", "at most this many (1–5000)")],
        "responses": {"200": _ok({"type": "object", "required": ["events", "more"], "properties": {
            "events": {"type": "array", "items": _JSON_OBJ}, "more": {"type": "boolean"}}}),
            "400": _err("bad query parameter")}},
    ("GET", "/api/tables/<table_id>/events/<int:seq>/crop"): {
        "summary": "摄像头证据图 / the camera picture of an event", "tags": ["api"], "login": "viewer",
        "responses": {"200": {"description": "the image", "content": {"image/jpeg": {}, "image/png": {}, "image/webp": {}}}}},
    ("GET", "/api/tables/<table_id>/clock"): {"summary": "桌钟 / the table clock", "tags": ["api"], "login": "viewer",
                                              "responses": {"200": _ok(_JSON_OBJ)}},
    ("GET", "/api/tables/<table_id>/stream"): {
        "summary": "裁判台实时流 / the panel's live stream (SSE)", "tags": ["api"], "login": "viewer", "stream": True,
        "parameters": [_q("last_event_id", "resume after this seq (also the Last-Event-ID header)",
                          {"type": "string"})],
        "responses": {"200": {"description": "Server-Sent Events", "content": _SSE}}},
    ("POST", "/api/tables/<table_id>/actions"): {
        "summary": "裁判操作 / submit a referee action as an engine event", "tags": ["api"], "login": "referee",
        "csrf": True, "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/Action"}}}},
        "responses": {"200": _ACCEPTED, "202": _PENDING, "409": _STALE, "422": _REJECTED, "503": _REJECTED}},
    ("POST", "/api/tables/<table_id>/feed/release"): {
        "summary": "公开一副牌 / release a duplicate deal to the public feed (chief)", "tags": ["api"],
        "login": "chief", "csrf": True, "requestBody": {"required": True, "content": {"application/json": {"schema": {
            "type": "object", "required": ["round", "deal"], "properties": {
                "round": {"type": "integer", "minimum": 0}, "deal": {"type": "integer", "minimum": 1}}}}}},
        "responses": {"200": _ok({"type": "object", "properties": {"released": _JSON_OBJ, "seq": {"type": "integer"}}}),
                      "422": _REJECTED, "503": _REJECTED}},
    ("GET", "/api/tables/<table_id>/assignment"): {"summary": "赛事中心的编排 / the hub's assignment", "tags": ["api"],
                                                   "login": "viewer", "responses": {"200": _ok(_JSON_OBJ)}},
    ("POST", "/api/tables/<table_id>/assignment/start"): {
        "summary": "按编排开始一轮 / start the round the hub assigned", "tags": ["api"], "login": "referee",
        "csrf": True, "responses": {"200": _ok(_JSON_OBJ), "409": _err("no assignment, or the engine refused it")}},
    ("POST", "/api/tables/<table_id>/enroll/start"): {
        "summary": "从桌面登记牌组：开始 / enrol a deck from the table: look at the laid-out cards",
        "tags": ["api"], "login": "chief", "csrf": True,
        "responses": {"202": _ok(_JSON_OBJ, "started"), "409": _err("no camera, or an enrolment is running")}},
    ("GET", "/api/tables/<table_id>/enroll"): {
        "summary": "登记进度与待答的牌 / the enrolment's progress and the cards to name", "tags": ["api"],
        "login": "viewer", "responses": {"200": _ok(_JSON_OBJ), "404": _err("no enrolment started")}},
    ("GET", "/api/tables/<table_id>/enroll/deck.npz"): {
        "summary": "本桌读牌用的牌组文件 / the deck file this table reads with (to hand to every table at the hub)",
        "tags": ["api"], "login": "chief",
        "responses": {"200": {"description": "the enrolment file", "content": {"application/octet-stream": {}}},
                      "404": _err("no enrolled deck"), "409": _err("no camera")}},
    ("GET", "/api/tables/<table_id>/enroll/card/<int:card_id>.png"): {
        "summary": "待答牌的图像 / the picture of a card to name", "tags": ["api"], "login": "viewer",
        "responses": {"200": {"description": "the image", "content": {"image/png": {}}},
                      "404": _err("no enrolment, or no such card")}},
    ("POST", "/api/tables/<table_id>/enroll/answer"): {
        "summary": "说出一张牌 / name one card (null: leave it to the zero-shot reader)", "tags": ["api"],
        "login": "chief", "csrf": True, "requestBody": {"required": True, "content": {"application/json": {
            "schema": {"type": "object", "required": ["id"], "properties": {
                "id": {"type": "integer", "minimum": 0}, "card": {"type": ["string", "null"]}}}}}},
        "responses": {"200": _ok(_JSON_OBJ), "400": _err("bad body or card name"),
                      "404": _err("no enrolment started"), "409": _err("nothing to answer now")}},
    ("POST", "/api/tables/<table_id>/enroll/finish"): {
        "summary": "完成登记 / fit and check the enrolment", "tags": ["api"], "login": "chief", "csrf": True,
        "responses": {"202": _ok(_JSON_OBJ, "fitting"), "404": _err("no enrolment started"),
                      "409": _err("nothing to enrol now")}},
    ("POST", "/api/tables/<table_id>/camera/recalibrate"): {
        "summary": "重新标定摄像头 / recalibrate the camera: exposure and focus converge, markers fitted, "
                   "controls locked again", "tags": ["api"], "login": "referee", "csrf": True,
        "responses": {"202": _ok(_JSON_OBJ, "started"), "409": _err("no camera at this table")}},
    ("POST", "/api/tables/<table_id>/camera/relearn"): {
        "summary": "重新学牌 / a different deck: the reader forgets what it learned of the deck in play",
        "tags": ["api"], "login": "referee", "csrf": True,
        "responses": {"200": _ok({"type": "object", "required": ["forgot"], "properties": {"forgot": {
            "type": "object", "properties": {k: {"type": "integer"} for k in ("answers", "sure", "faces")}}}},
            "what was forgotten"), "409": _err("no camera at this table, or its reader does not learn")}},
    ("GET", "/feed/"): {"summary": "有直播的桌 / tables with a public feed", "tags": ["feed"], "responses": {
        "200": _TABLES}},
    ("GET", "/feed/<table_id>/state.json"): {"summary": "公开状态（延迟后） / the public state as of now − delay",
                                             "tags": ["feed"], "responses": {"200": _ok(_JSON_OBJ)}},
    ("GET", "/feed/<table_id>/events.json"): {
        "summary": "公开事件 / public events already due", "tags": ["feed"],
        "parameters": [_q("after", "seq to start after"), _q("limit", "at most this many (1–5000)")],
        "responses": {"200": _ok({"type": "object", "required": ["events"], "properties": {
            "log": {"type": ["string", "null"], "description": "the identity of the table's log (seqs restart in another)"},
            "events": {"type": "array", "items": _JSON_OBJ}}}), "400": _err("bad query parameter")}},
    ("GET", "/feed/<table_id>/clock.json"): {"summary": "公开时钟 / the public clock", "tags": ["feed"],
                                             "responses": {"200": _ok(_JSON_OBJ)}},
    ("GET", "/feed/<table_id>/stream"): {
        "summary": "公开实时流 / the public live stream (SSE, delayed): hello {log, heartbeat_s}, snapshot, "
                   "update per public event, ping each idle heartbeat; 503 with Retry-After when full",
        "tags": ["feed"], "stream": True,
        "parameters": [_q("last_event_id", "resume after this seq (also the Last-Event-ID header)",
                          {"type": "string"})],
        "responses": {"200": {"description": "Server-Sent Events", "content": _SSE},
                      "503": _err("too many feed streams open")}},
    ("GET", "/feed/<table_id>/overlay"): {
        "summary": "直播叠加层 / the broadcast overlay page (OBS); its language from ?lang= alone, never the cookie",
        "tags": ["feed"], "parameters": [_q("lang", "en for English, anything else Chinese", {"type": "string"}),
                                         _q("popup_s", "seconds a pop-up stays (default 8)", {"type": "string"})],
        "responses": {"200": _page("the page")}},
    ("GET", "/feed/<table_id>/commentator"): {
        "summary": "解说页 / the commentator's page: the delayed public feed only (spectator and up)",
        "tags": ["feed"], "responses": {"200": _page("the page"), "302": {"description": "to login"},
                                        "404": _err("unknown table")}},
}

# The chief referee's accounts page (table_service/web/accounts.py): a form post answers a redirect
# to the page with the message (a browser) or JSON ``{"ok", "message"}``; a refusal is 400: the
# page again with the message, or ``{"ok": false, "error"}`` to a client that asks for JSON.
_ACC_FIELD = {"type": "string", "maxLength": 64}
_ACC_PASSWORD = {"type": "string", "minLength": 8, "maxLength": 1024, "description": "at least 8 characters"}
_ACC_ROLE = {"type": "string", "enum": ["spectator", "viewer", "referee", "chief"]}
_ACC_EVENT = {"type": "string", "enum": ["1", "on", "0", ""], "description":
              "赛事账号 / event account (the hub only; 1 or on: valid at every table)"}
_ACC_DONE = {"200": _ok({"type": "object", "required": ["ok", "message"], "properties": {
    "ok": {"const": True}, "message": {"type": "string"}}}, "done (a client that asked for JSON)"),
    "302": {"description": "done: to the accounts page, the message on it"},
    "400": {"description": "refused (one line, Chinese first): the page again with the message, or JSON; or a "
                           "missing/invalid CSRF token", "content": {"application/json": {"schema": {
                               "type": "object", "required": ["error"], "properties": {
                                   "ok": {"const": False}, "error": {"type": "string"},
                                   "status": {"type": "integer"}}}}, **_HTML}}}


def _acc_form(summary: str, fields: dict[str, Any], required: list[str]) -> dict[str, Any]:
    schema = {"type": "object", "properties": {**fields, "csrf_token": {"type": "string"}}, "required": required,
              "additionalProperties": False}
    return {"summary": summary, "tags": ["accounts"], "login": "chief", "csrf": True,
            "requestBody": {"required": True, "content": {"application/x-www-form-urlencoded": {"schema": schema}}},
            "responses": dict(_ACC_DONE)}


OPERATIONS.update({
    ("GET", "/accounts/"): {
        "summary": "账号管理 / the accounts page: every account, its role and login lock-out (chief)",
        "tags": ["accounts"], "login": "chief", "responses": {
            "200": {"description": "the page, or its data to a client that asks for JSON", "content": {
                **_HTML, "application/json": {"schema": {
                    "type": "object", "required": ["users", "locked_addresses", "roles"], "properties": {
                        "users": {"type": "array", "items": {"type": "object", "required": [
                            "name", "role", "you", "locked", "failures", "retry_after_s", "scope"], "properties": {
                            "name": {"type": "string"}, "role": _ACC_ROLE, "you": {"type": "boolean"},
                            "locked": {"type": "boolean"}, "failures": {"type": "integer", "minimum": 0},
                            "retry_after_s": {"type": "integer", "minimum": 0},
                            "scope": {"type": "string", "enum": ["local", "event", "hub"], "description":
                                      "local: this server's only; event (the hub): sent to every table; "
                                      "hub (a table): from the event hub, read-only"},
                            "can_event": {"type": "boolean"}}}},
                        "locked_addresses": {"type": "array", "items": {"type": "object", "properties": {
                            "address": {"type": "string"}, "failures": {"type": "integer"},
                            "retry_after_s": {"type": "integer"}}}},
                        "roles": {"type": "array", "items": {"type": "string"}},
                        "min_password": {"type": "integer"}, "chiefs": {"type": "integer"},
                        "hub": {"type": "boolean", "description": "this is the event hub's page"},
                        "event_roles": {"type": "array", "items": {"type": "string"}},
                        "event_set": {"type": ["object", "null"], "description":
                                      "the event accounts' set: at the hub the version sent; at a table the "
                                      "version received, when, and the hub's names a local account shadows"}}}}}},
            "302": {"description": "to the login page"}}},
    ("POST", "/accounts/add"): _acc_form(
        "添加账号 / add an account (as `guandan-table user add`)",
        {"name": {**_ACC_FIELD, "description": "1-64 letters, digits, . _ -"}, "role": _ACC_ROLE,
         "password": _ACC_PASSWORD, "password2": {**_ACC_PASSWORD, "description": "the password again"},
         "event": _ACC_EVENT}, ["name", "role", "password"]),
    ("POST", "/accounts/password"): _acc_form(
        "修改密码 / change an account's password; every session of it ends (the chief's own tablet "
        "goes on with a new one)",
        {"name": _ACC_FIELD, "password": _ACC_PASSWORD,
         "password2": {**_ACC_PASSWORD, "description": "the password again"}}, ["name", "password"]),
    ("POST", "/accounts/role"): _acc_form(
        "修改角色 / give an account another role (never your own; never the last chief)",
        {"name": _ACC_FIELD, "role": _ACC_ROLE}, ["name", "role"]),
    ("POST", "/accounts/remove"): _acc_form(
        "删除账号 / remove an account and end its sessions (never yourself; never the last chief)",
        {"name": _ACC_FIELD}, ["name"]),
    ("POST", "/accounts/unlock"): _acc_form(
        "解除登录锁定 / lift a lock-out by failed logins: of an account (`name`) or of an address (`address`)",
        {"name": _ACC_FIELD, "address": {"type": "string", "maxLength": 64}}, []),
    ("POST", "/accounts/event"): _acc_form(
        "赛事账号 / at the event hub: make an account an event account, valid at every table (`event` 1), or "
        "not (0); the hub then sends the set to the tables. A spectator cannot be one; a table refuses (400)",
        {"name": _ACC_FIELD, "event": _ACC_EVENT}, ["name", "event"]),
})

_RULE_PARAM = re.compile(r"<(?:(\w+):)?(\w+)>")


def spec_schema(spec: Spec) -> dict[str, Any]:
    """The JSON Schema of one field spec of the engine's event schema."""
    k = spec.kind
    out: dict[str, Any]
    if k == "str":
        out = {"type": "string", "maxLength": spec.max_len}
        if spec.choices is not None:
            out = {"type": "string", "enum": list(spec.choices)}
    elif k in ("int", "num"):
        out = {"type": "integer" if k == "int" else "number"}
        if spec.lo is not None:
            out["minimum"] = spec.lo if k == "num" else int(spec.lo)
        if spec.hi is not None:
            out["maximum"] = spec.hi if k == "num" else int(spec.hi)
    elif k == "bool":
        out = {"type": "boolean"}
    elif k == "cards":
        out = {"anyOf": [{"type": "array", "minItems": spec.min_len, "maxItems": spec.max_len,
                          "items": {"type": "string", "minLength": 1, "maxLength": 8}},
                         {"type": "string", "maxLength": spec.max_len * 9}]}
    elif k == "list":
        assert spec.item is not None
        out = {"type": "array", "minItems": spec.min_len, "maxItems": spec.max_len, "items": spec_schema(spec.item)}
    elif k == "map":
        assert spec.item is not None and spec.keys is not None
        out = {"type": "object", "properties": {key: spec_schema(spec.item) for key in spec.keys},
               "additionalProperties": False}
    elif k == "obj":
        fields = spec.fields or {}
        out = {"type": "object", "properties": {n: spec_schema(f) for n, f in fields.items()},
               "required": [n for n, f in fields.items() if f.required], "additionalProperties": False}
    else:  # free-form JSON, bounded by the engine's size and depth checks
        out = {"description": f"any JSON up to {spec.max_len} bytes"}
    if spec.alt is not None:
        out = {"anyOf": [out, spec_schema(spec.alt)]}
    return out


def data_schema(etype: str) -> dict[str, Any]:
    """The JSON Schema of ``data`` of one event type."""
    return spec_schema(Spec("obj", fields=DATA_SCHEMAS[etype]))


def action_schema() -> dict[str, Any]:
    """The body of ``POST /api/tables/{table_id}/actions``: one variant per type the panel may submit."""
    variants = [{"type": "object", "title": etype, "additionalProperties": False, "required": ["type"],
                 "properties": {"type": {"const": etype}, "data": data_schema(etype),
                                "action_id": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,64}$",
                                              "description": "the caller's id for this action: a retry with it "
                                                             "is answered with the first submission's verdict"},
                                "expect": _EXPECT}}
                for etype in EVENT_TYPES if etype in ACTION_ROLES]
    return {"oneOf": variants}


def _path_of(rule: str) -> tuple[str, list[dict[str, Any]]]:
    params = []
    for conv, name in _RULE_PARAM.findall(rule):
        schema = {"type": "integer", "minimum": 0} if conv == "int" else {"type": "string"}
        params.append({"name": name, "in": "path", "required": True, "schema": schema})
    return _RULE_PARAM.sub(lambda m: "{" + m.group(2) + "}", rule), params


def build_openapi(app: Any, *, strict: bool = True) -> dict[str, Any]:
    """The OpenAPI document of ``app``'s routes.

    :param strict: refuse a route :data:`OPERATIONS` does not describe (the tests). The served
        document is built with ``strict=False``: an app with more blueprints (the event hub's)
        still gets its document, those routes marked ``x-undescribed``.
    :raises KeyError: naming a route that :data:`OPERATIONS` does not describe (strict only).
    """
    # An app built on create_app with more blueprints (the event hub's) brings its own entries.
    operations = {**OPERATIONS, **app.extensions.get("guandan_openapi", {})}
    paths: dict[str, dict[str, Any]] = {}
    missing = []
    for rule in sorted(app.url_map.iter_rules(), key=lambda r: r.rule):
        if rule.endpoint in UNDOCUMENTED_ENDPOINTS:
            continue
        path, params = _path_of(rule.rule)
        for method in sorted((rule.methods or set()) - {"HEAD", "OPTIONS"}):
            op = operations.get((method, rule.rule))
            if op is None:
                missing.append(f"{method} {rule.rule}")
                if strict:
                    continue
                op = {"summary": rule.endpoint, "x-undescribed": True,
                      "responses": {"default": {"description": "not described in table_service.web.openapi"}}}
            out = {k: v for k, v in op.items() if k not in ("login", "csrf", "stream", "endpoint")}
            # One view behind several rules (``defaults`` name which): one id per rule. An entry's
            # ``endpoint`` keeps the id a route was published with after it moved to another
            # blueprint: a client that keys on the id must not see it renamed by a refactor.
            variant = "".join(f"_{v}" for v in (rule.defaults or {}).values())
            out["operationId"] = f"{op.get('endpoint', rule.endpoint)}{variant}.{method.lower()}"
            responses = {**_COMMON, **(_POST if method == "POST" else {}), **out["responses"]}
            security: list[dict[str, list[str]]] = []
            if op.get("login"):
                responses = {**_LOGIN, **responses}
                security.append({"session": []})
                # The operation's own note is "中文 / English" too: each half after its own half.
                note_zh, note_en = halves(op["description"]) if op.get("description") else ("", "")
                out["description"] = (f"需要角色 {op['login']}{'；' + note_zh if note_zh else ''}"
                                      f" / needs role: {op['login']}{'; ' + note_en if note_en else ''}")
            if op.get("csrf") or method == "POST":
                security = [{**s, "csrf": []} for s in security] or [{"csrf": []}]
            if security:
                out["security"] = security
            out["responses"] = dict(sorted(responses.items()))
            if op.get("stream"):
                out["x-stream"] = True
            all_params = params + list(op.get("parameters", []))
            if all_params:
                out["parameters"] = all_params
            paths.setdefault(path, {})[method.lower()] = out
    if missing and strict:
        raise KeyError(f"routes missing from table_service.web.openapi.OPERATIONS: {', '.join(missing)}")
    return {
        "openapi": "3.1.0",
        "info": {"title": "guandan-table referee panel and broadcast feed / 掼蛋裁判台与直播接口",
                 "version": "1", "description": "See docs/api.md for the prose; docs/events.md for event data.",
                 **app.extensions.get("guandan_openapi_info", {})},
        "paths": paths,
        "components": {
            "schemas": {
                "Error": {"type": "object", "required": ["error"], "properties": {
                    "error": {"type": "string"}, "status": {"type": "integer"}}},
                "Action": action_schema(),
            },
            "securitySchemes": {
                "session": {"type": "apiKey", "in": "cookie", "name": app.config.get("SESSION_COOKIE_NAME", "guandan_session"),
                            "description": "登录后的会话 / the session of POST /auth/login; ends at logout"},
                "csrf": {"type": "apiKey", "in": "header", "name": "X-CSRF-Token",
                         "description": "the session's CSRF token (GET /auth/whoami)"},
            },
        },
    }
