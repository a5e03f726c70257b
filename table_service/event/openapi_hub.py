"""The event hub's routes in the OpenAPI document (the table app's are in :mod:`table_service.web.openapi`).

:func:`table_service.event.web.create_hub_app` puts :data:`HUB_OPERATIONS` into the app's
``extensions["guandan_openapi"]``; :func:`~table_service.web.openapi.build_openapi` merges them
with the table app's, so the hub's served ``/api/openapi.json`` describes every route it has and
the strict build (the tests) refuses a hub route added without its entry here. A copy lives in
``docs/openapi-hub.json`` (``python -m table_service.cli.openapi --hub > docs/openapi-hub.json``;
a test keeps it equal).

Every organiser action is its own path (``POST /hub/action/draw`` …), so each form's fields are
described exactly. A form post answers a redirect to the admin page with the verdict flashed on it
(a browser), or JSON ``{"ok", "message"}`` / ``{"ok": false, "error"}`` when the client asks for
``application/json``. Errors name the problem, Chinese first then English.
"""

from __future__ import annotations

from typing import Any

from table_service.event.config import DRAW_METHODS
from table_service.event.model import FORFEIT_SIDES, MAX_ID, MAX_NAME, MAX_TEXT
from table_service.event.standings import MATCH_POINT_SCHEMES
from table_service.web.openapi import _err, _ok, _page

_STR_OR_NULL = {"type": ["string", "null"]}
_INT_OR_NULL = {"type": ["integer", "null"]}
_OBJ = {"type": "object"}
_DIGITS = {"type": "string", "pattern": "^[0-9]{1,9}$"}
_LEVELS = {"type": "string", "pattern": "^([0-9]|1[0-3])?$", "description": "升级数 / levels gained 0–13"}
_SCORE = {"type": "string", "pattern": "^([0-9]|1[0-9]|2[0-6])?$", "description": "判负定分 / fixed score 0–26"}
_SLOT = {"type": "string", "pattern": "^[0-9]{1,3}\\|[A-Za-z0-9_.\\-]{1,64}$",
         "description": "轮次|桌号 / ROUND|TABLE of a published round (the form's choice)"}
_CSRF = {"type": "string", "description": "the session's CSRF token (or the X-CSRF-Token header)"}

_RESULT_LINE = {"type": "object", "required": ["round"], "properties": {
    "round": {"type": "integer"}, "table": {"type": "string"}, "ns": {"type": "string"}, "ew": {"type": "string"},
    "bye": {"type": "string"}, "ns_levels": {"type": "integer", "minimum": 0, "maximum": 13},
    "ew_levels": {"type": "integer", "minimum": 0, "maximum": 13}, "forfeit": {"enum": list(FORFEIT_SIDES)},
    "ns_score": {"type": "integer"}, "ew_score": {"type": "integer"}}}
_STANDING_ROW = {"type": "object", "required": ["rank", "team", "match_points", "progressive", "rounds_won",
                                                "level_points", "levels_gained"], "properties": {
    "rank": {"type": "integer"}, "team": {"type": "string"}, "name": {"type": "string"},
    "match_points": {"type": "integer"}, "progressive": {"type": "integer"}, "rounds_won": {"type": "integer"},
    "level_points": {"type": "integer"}, "levels_gained": {"type": "integer"},
    "withdrawn": {"type": ["integer", "null"], "description": "退赛：自第 N 轮起不再编排，已赛成绩保留；null 为在赛 / "
                  "withdrawn: not drawn from round N on, its results so far kept; null: in play"}}}
STANDINGS = {"type": "object", "required": ["standings", "rounds", "lots", "published_rounds"], "properties": {
    "standings": {"type": "array", "items": _STANDING_ROW}, "rounds": {"type": "integer", "minimum": 0},
    "lots": {"type": "array", "items": {"type": "object", "properties": {
        "teams": {"type": "array", "items": {"type": "string"}},
        "order": {"type": "array", "items": {"type": "string"}}}}},
    "published_rounds": {"type": "array", "items": {"type": "integer"}}}}
_TABLE_ROW = {"type": "object", "required": ["table", "ns", "ew", "online", "finished", "result"], "properties": {
    "table": {"type": "string"}, "ns": {"type": "string"}, "ew": {"type": "string"},
    "ns_name": {"type": "string", "description": "the team's name (overview)"},
    "ew_name": {"type": "string", "description": "the team's name (overview)"},
    "online": {"type": ["boolean", "null"]},
    "connected": {"type": "boolean", "description": "the table's Pi is connected now (overview): its last status "
                  "said online; false when it never spoke or went offline (the broker's last will), which the "
                  "overview shows as 未连接 / not connected"},
    "round": _INT_OR_NULL, "deal": _INT_OR_NULL,
    "levels": {"description": "the table's levels as its summary says (any JSON)"}, "finished": {"type": "boolean"},
    "panel": _STR_OR_NULL, "result": {"anyOf": [_RESULT_LINE, {"type": "null"}]},
    "source": {"enum": ["table", "hand", "correction", None]}, "result_ms": _INT_OR_NULL,
    "result_seq": {"type": ["integer", "null"], "description": "the hub's record of the result (overview): the "
                   "basis a correction of it names (POST /hub/action/correct)"},
    "faults": {"type": "integer", "minimum": 0, "description": "messages and results of this table the hub refused"},
    "moved_from": {"type": ["string", "null"], "description": "由 N 号桌移来 / the table this match was moved from "
                   "(match_moved; null: it was drawn here)"}}}
OVERVIEW = {"type": "object", "required": ["event", "round", "rounds", "bye", "tables", "refusals", "appeals",
                                           "draft", "connected", "config_note"], "properties": {
    "event": {"type": ["object", "null"]}, "round": {"type": "integer", "minimum": 0},
    "rounds": _INT_OR_NULL, "bye": _STR_OR_NULL, "tables": {"type": "array", "items": _TABLE_ROW},
    "last_seq": {"type": "integer", "minimum": 0, "description": "the hub log's last event: a page that shows "
                 "an older one is out of date (the organiser page says so)"},
    "byes": {"type": "array", "items": {"type": "string"}, "description": "every team with a bye this round "
             "(a round robin with withdrawn teams may have several)"},
    "refusals": {"type": "array", "items": _OBJ}, "appeals": {"type": "array", "items": _OBJ},
    "draft": {"type": ["object", "null"], "description": "the unpublished draw; its `stale` lists what changed "
              "since it was drawn (results recorded or corrected, teams withdrawn, reinstated or added, the draw "
              "method or match points it was drawn under changed: `settings`) and `stale_text` "
              "says so: a stale draft is refused at publication until redrawn"},
    "withdrawn": {"type": "object", "additionalProperties": _OBJ, "description": "退赛的队 / withdrawn teams: "
                  "from_round, reason, by, t_ms"},
    "connected": {"type": "boolean"}, "config_note": _STR_OR_NULL,
    "bad_messages": {"type": "array", "items": _OBJ, "description": "the latest 20 table messages refused as not "
                     "well formed (docs/hub-protocol.md), of the last 30 minutes"},
    "faults": {"type": "object", "additionalProperties": {"type": "integer"}, "description": "refused messages and "
               "results by table"}}}
LAST_SEQ = {"type": "object", "required": ["last_seq"], "additionalProperties": False, "properties": {
    "last_seq": OVERVIEW["properties"]["last_seq"]}}
BROADCAST = {"type": "object", "required": ["round", "tables"], "properties": {
    "round": {"type": "integer", "minimum": 0},
    "tables": {"type": "array", "items": {"type": "object", "required": ["table", "online", "connected", "links", "why"],
                                          "properties": {
        "table": {"type": "string"}, "online": {"type": ["boolean", "null"], "description": "its last status (null: "
                                                "none came): went offline, or never heard from"},
        "connected": _TABLE_ROW["properties"]["connected"],
        "links": {"type": ["object", "null"], "description": "overlay (?lang=zh), overlay_en, commentator, state, "
                  "events, stream: on the table's own Pi"},
        "why": _STR_OR_NULL, "ns": _STR_OR_NULL, "ew": _STR_OR_NULL,
        "delay_s": {"type": ["number", "null"], "description": "the table's broadcast delay (its summary; null: none "
                    "came yet)"},
        "holds": {"type": "boolean", "description": "deals held until released (a duplicate board)"},
        "room": _STR_OR_NULL}}}}}
BOARD = {"type": "object", "required": ["standings", "round", "rounds", "tables", "bye", "event"], "properties": {
    "standings": STANDINGS, "round": {"type": "integer", "minimum": 0}, "rounds": _INT_OR_NULL,
    "tables": {"type": "array", "items": {"type": "object", "additionalProperties": False, "properties": {
        k: v for k, v in _TABLE_ROW["properties"].items()
        if k in ("table", "ns", "ew", "ns_name", "ew_name", "online", "result", "moved_from")} | {
        "finished": {"type": "boolean", "description": "the table's result is in and past its broadcast delay; "
                     "`result` shows it once the chief has published the round's results (公布成绩)"}}}},
    "bye": _STR_OR_NULL, "byes": {"type": "array", "items": {"type": "string"}}, "event": _STR_OR_NULL}}

_ACTION_OK = _ok({"type": "object", "required": ["ok", "message"], "properties": {
    "ok": {"const": True}, "message": {"type": "string"}}}, "done (a client that asked for JSON)")
_ACTION_REFUSED = {"description": "refused: the hub's reason, Chinese first then English (JSON client); or a "
                                  "missing/invalid CSRF token",
                   "content": {"application/json": {"schema": {"type": "object", "required": ["error"], "properties": {
                       "ok": {"const": False}, "error": {"type": "string"}, "status": {"type": "integer"}}}},
                       "text/html": {"schema": {"type": "string"}}}}
_LINES_REFUSED = {"description": "refused: every bad line at once, and nothing taken (whole or nothing): `error` "
                                 "names each, Chinese first, `problems` one entry a line (`line` 0: the text as a "
                                 "whole; JSON client); a browser gets the organiser page at once with the lines "
                                 "listed and the pasted text back in its box",
                  "content": {"application/json": {"schema": {"type": "object", "required": ["error"], "properties": {
                      "ok": {"const": False}, "error": {"type": "string"}, "status": {"type": "integer"},
                      "problems": {"type": "array", "items": {"type": "object", "required": ["line", "error"],
                                                               "properties": {"line": {"type": "integer", "minimum": 0},
                                                                              "error": {"type": "string"}}}}}}},
                      "text/html": {"schema": {"type": "string"}}}}
_TO_ADMIN = {"description": "a browser's form post: back to /hub/admin with the verdict (done or refused) shown"}
_TO_LOGIN = {"302": {"description": "not logged in (a browser): to the login page"}}
#: The polled public JSON's: kept once per change, a weak ETag, gzip when accepted (event/polled.py).
_NOT_MODIFIED = {"304": {"description": "没有变化 / not modified: If-None-Match names the current ETag (no body)"}}


def _form(fields: dict[str, dict[str, Any]], required: tuple[str, ...] = (), *, files: bool = False) -> dict[str, Any]:
    """A form body: the listed fields (strings, as a browser sends them) and the CSRF token;
    ``files``: a file upload (multipart)."""
    schema = {"type": "object", "properties": {**fields, "csrf_token": _CSRF}, "additionalProperties": False}
    if required:
        schema["required"] = list(required)
    kind = "multipart/form-data" if files else "application/x-www-form-urlencoded"
    return {"required": True, "content": {kind: {"schema": schema}}}


def _action(summary: str, fields: dict[str, dict[str, Any]], required: tuple[str, ...] = (),
            chief: bool = False, files: bool = False, lines: bool = False) -> dict[str, Any]:
    """One organiser action; ``lines``: a paste or file of many lines, every bad one named at once."""
    who = "裁判长 / chief referee only (a referee is refused with 403)" if chief else "裁判 / referee or chief"
    return {"summary": summary, "tags": ["hub-actions"], "login": "referee", "csrf": True,
            "x-hub-role": "chief" if chief else "referee", "description": who,
            "requestBody": _form(fields, required, files=files),
            "responses": {"200": _ACTION_OK, "302": _TO_ADMIN, "400": _LINES_REFUSED if lines else _ACTION_REFUSED,
                          "403": {**_ACTION_REFUSED, "description": "the role may not take this action"}}}


def _text(max_len: int, description: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {"type": "string", "maxLength": max_len}
    if description:
        out["description"] = description
    return out


_RESULT_FIELDS = {"slot": _SLOT, "ns_levels": _LEVELS, "ew_levels": _LEVELS,
                  "forfeit": {"type": "string", "enum": ["", *FORFEIT_SIDES], "description": "弃权方 / the side that forfeits (both: both absent)"},
                  "ns_score": _SCORE, "ew_score": _SCORE,
                  "settles": {"type": "string", "pattern": "^([1-9][0-9]{0,8})?$", "description":
                              "据以录入或纠正的拒收成绩号（页面「填入」按钮自动填写）：裁判长提交时一并处理该拒收，"
                              "裁判提交时留待裁判长；须为本轮本桌的拒收 / the refused result this entry or "
                              "correction was made from (the page's put-it-in button fills it in): cleared with "
                              "it when the chief sends it, left for the chief otherwise; must be a refusal of "
                              "this round and table"}}

#: ``(METHOD, flask rule)`` -> the OpenAPI operation, as in :data:`table_service.web.openapi.OPERATIONS`.
HUB_OPERATIONS: dict[tuple[str, str], dict[str, Any]] = {
    ("GET", "/hub/"): {"summary": "裁判长总览 / the chief referee's overview of every table", "tags": ["hub"],
                       "login": "viewer", "responses": {"200": _page("the page"), **_TO_LOGIN}},
    ("GET", "/hub/broadcast"): {
        "summary": "直播 / the tables' broadcast overlays and public feeds (on each table's Pi), from the panel "
                   "addresses the hub knows; a table whose address is unknown says so", "tags": ["hub"],
        "login": "viewer", "responses": {"200": _page("the page"), **_TO_LOGIN}},
    ("GET", "/hub/api/broadcast"): {
        "summary": "直播页数据 / the broadcast page's rows as JSON (polled every 5 s): each table's teams, online "
                   "status, broadcast delay and deal hold (from its summary), and its feed's addresses",
        "tags": ["hub"], "login": "viewer", "responses": {"200": _ok(BROADCAST)}},
    ("GET", "/hub/api/overview"): {"summary": "总览数据 / the overview as JSON (polled every 2 s)", "tags": ["hub"],
                                   "login": "viewer", "responses": {"200": _ok(OVERVIEW)}},
    ("GET", "/hub/api/last-seq"): {
        "summary": "日志最新记录号 / the hub log's last seq alone (the organiser page polls it every 5 s to say it "
                   "is out of date); a weak ETag, 304 while it is unchanged", "tags": ["hub"], "login": "viewer",
        "responses": {"200": _ok(LAST_SEQ), **_NOT_MODIFIED}},
    ("GET", "/hub/board"): {"summary": "成绩大屏 / the results board for the hall's screen (public)",
                            "tags": ["hub"], "responses": {"200": _page("the page")}},
    ("GET", "/hub/overlay"): {
        "summary": "直播记分叠加层 / broadcast scoreboard overlay (public)", "tags": ["hub"],
        "parameters": [{"name": "top", "in": "query", "required": False, "schema": {"type": "string"},
                        "description": "前 N 名 / show the top N teams (1–64; anything else: 8)"},
                       {"name": "lang", "in": "query", "required": False, "schema": {"type": "string"},
                        "description": "en 为英文，其他为中文 / en for English, anything else Chinese"},
                       {"name": "pos", "in": "query", "required": False, "schema": {"type": "string"},
                        "description": "排名框位置 / where the panel sits: right (default), left, bottom-right, "
                                       "bottom-left (the bottom ones short, beside a table overlay's plates)"}],
        "responses": {"200": _page("the page")}},
    ("GET", "/hub/api/board"): {"summary": "大屏数据 / standings and the current round's tables (public)",
                                "tags": ["hub"], "responses": {"200": _ok(BOARD), **_NOT_MODIFIED}},
    ("GET", "/hub/api/standings"): {"summary": "排名 / standings with every tie-break column (public)",
                                    "tags": ["hub"], "responses": {"200": _ok(STANDINGS), **_NOT_MODIFIED}},
    ("GET", "/hub/results.jsonl"): {
        "endpoint": "hub.export_results",  # its id from before web_sheets.py
        "summary": "导出成绩 / every published round's results as RESULTS.jsonl", "tags": ["hub"], "login": "viewer",
        "responses": {"200": {"description": "RESULTS lines (docs/hub-protocol.md)",
                              "content": {"application/x-ndjson": {"schema": {"type": "string"}}}}, **_TO_LOGIN}},
    ("GET", "/hub/standings.csv"): {
        "endpoint": "hub.export_standings",  # its id from before web_sheets.py
        "summary": "导出排名 / the standings as a spreadsheet (CSV, UTF-8 with BOM)", "tags": ["hub"], "login": "viewer",
        "responses": {"200": {"description": "one row a team in rank order; headings Chinese / English",
                              "content": {"text/csv": {"schema": {"type": "string"}}}}, **_TO_LOGIN}},
    ("GET", "/hub/print/draw/<int:rnd>"): {
        "endpoint": "hub.print_draw",  # its id from before web_sheets.py
        "summary": "打印编排表 / printable draw of a round", "tags": ["hub"], "login": "viewer",
        "responses": {"200": _page("the sheet"), "404": _err("第 N 轮尚未编排 / round N has not been drawn"),
                      **_TO_LOGIN}},
    ("GET", "/hub/print/results/<int:rnd>"): {
        "endpoint": "hub.print_results",  # its id from before web_sheets.py
        "summary": "打印成绩表 / printable results of a round, with the standings after it", "tags": ["hub"],
        "login": "viewer", "responses": {"200": _page("the sheet"),
                                         "404": _err("第 N 轮没有公布的编排 / round N has no published draw"),
                                         **_TO_LOGIN}},
    ("GET", "/hub/admin"): {"summary": "组织者操作页 / the organiser's forms", "tags": ["hub"], "login": "referee",
                            "responses": {"200": _page("the page"), **_TO_LOGIN}},
    ("POST", "/hub/action/draw"): _action("编排下一轮（草案） / draw the next round (a draft)", {}),
    ("POST", "/hub/action/publish"): _action(
        "公布编排并下发各桌 / publish a draft draw and send it to the tables (refused while the draft is stale: a "
        "result changed or a team withdrew since it was drawn; redraw first)", {"round": _DIGITS}, ("round",)),
    ("POST", "/hub/action/hand_result"): _action("手工录入成绩 / enter a table's result by hand", _RESULT_FIELDS,
                                                 ("slot",)),
    ("POST", "/hub/action/correct"): _action(
        "纠正成绩 / correct a result (past the 10/20-minute deadline: chief only)",
        {**_RESULT_FIELDS, "reason": _text(MAX_TEXT, "纠正原因 / why"),
         "basis": {"type": "string", "pattern": "^([1-9][0-9]{0,8})?$", "description":
                   "所纠正的成绩的记录号（总览的 result_seq，本页自动填写）；该桌成绩此后已被纠正则拒绝，"
                   "同一纠正重复提交只记录一次；不填则视为纠正最初录入的成绩 / the seq of the result this "
                   "corrects (the overview's result_seq; the page fills it in): refused if the table's result "
                   "was corrected since, the same correction sent twice is recorded once; left out, the "
                   "correction is taken to be of the result as first recorded (refused once it was corrected)"}},
        ("slot", "reason")),
    ("POST", "/hub/action/publish_results"): _action("公布一轮成绩 / publish a complete round's results",
                                                     {"round": _DIGITS}, ("round",)),
    ("POST", "/hub/action/appeal"): _action(
        "登记申诉 / file an appeal (past 30 minutes: chief only)",
        {"slot": _SLOT, "team": _text(MAX_ID, "申诉队 / the appealing team"), "text": _text(MAX_TEXT, "书面理由 / text")},
        ("slot", "team", "text")),
    ("POST", "/hub/action/decide"): _action(
        "裁决申诉 / decide an appeal (final)",
        {"appeal": _DIGITS, "decision": {"type": "string", "enum": ["upheld", "dismissed"]},
         "note": _text(MAX_TEXT)}, ("appeal", "decision"), chief=True),
    ("POST", "/hub/action/acknowledge"): _action("处理拒收的成绩 / clear a refused result from the list",
                                                 {"refusal": _DIGITS}, ("refusal",), chief=True),
    ("POST", "/hub/action/import"): _action(
        "导入成绩 / import results: RESULTS lines or a table with a header row (CSV or tabs: round,table,ns,ew,"
        "ns_levels,ew_levels[,forfeit,ns_score,ew_score], Chinese headings too); a line identical to a recorded "
        "result is skipped and counted, one that differs is refused (a correction); every bad line named, nothing "
        "imported (all or nothing)",
        {"lines": {"type": "string", "description": "RESULTS lines or CSV text (docs/hub-protocol.md)"},
         "file": {"type": "string", "format": "binary", "description": "或文件 / or the file (RESULTS.jsonl, .csv; "
                                                                        "UTF-8, a BOM allowed)"}},
        (), files=True, lines=True),
    ("POST", "/hub/action/edit_team"): _action(
        "修改队伍 / change a team's name or players (from the next published draw)",
        {"team": _text(MAX_ID), "name": _text(MAX_ID), "players": _text(4 * (MAX_ID + 1), "2 或 4 个名字（复式 4 个），逗号分隔 / "
                                                                          "2 or 4 names (4 in a duplicate event), "
                                                                          "comma-separated"),
         "seen": {**_DIGITS, "description": "页面显示时的日志序号 / the log's seq the page was shown at: refused "
                                            "when the team was edited since (optional)"}},
        ("team", "name", "players")),
    ("POST", "/hub/action/add_team"): _action(
        "添加队伍（迟到报名） / add a team (a late entry): drawn from round 1; refused once round 1 is published, "
        "for an id already taken or not 1-64 ASCII letters, digits, _ . -, a name another team has, or too few "
        "[[tables]] for one more team",
        {"team": _text(MAX_ID, "队号 / the new team's id"), "name": _text(MAX_ID, "队名 / its name"),
         "players": _text(4 * (MAX_ID + 1), "2 或 4 个名字（复式 4 个），逗号分隔 / 2 or 4 names (4 in a duplicate "
                                            "event), comma-separated")},
        ("team", "name", "players")),
    ("POST", "/hub/action/import_teams"): _action(
        "导入队伍 / import the teams (before round 1 is published): a table with a header row (CSV or tabs: "
        "id,name,player1,player2[,player3,player4], or a players column; Chinese headings too: 队号,队名,选手1,选手2), "
        "every row checked as EVENT.toml's [[teams]] are; step=preview answers the teams (nothing logged), "
        "step=import adds them all, one team_added a team in one transaction; every bad row named, nothing taken",
        {"lines": {"type": "string", "description": "the teams table as text"},
         "file": {"type": "string", "format": "binary", "description": "或文件 / or the file (.csv; UTF-8, a BOM allowed)"},
         "step": {"type": "string", "enum": ["preview", "import"],
                  "description": "preview: checked and shown, nothing logged; import (default): added"}},
        (), chief=True, files=True, lines=True),
    ("POST", "/hub/action/withdraw_team"): _action(
        "退赛 / withdraw a team: never drawn again (no bye), its results kept; a published draw stays",
        {"team": _text(MAX_ID, "队号 / the team's id"), "reason": _text(MAX_TEXT, "原因 / why (optional)")},
        ("team",), chief=True),
    ("POST", "/hub/action/reinstate_team"): _action(
        "恢复参赛 / reinstate a withdrawn team (until a round is published without it)",
        {"team": _text(MAX_ID, "队号 / the team's id")}, ("team",), chief=True),
    ("POST", "/hub/action/edit_event"): _action(
        "修改赛事设置 / change the event's name, ruleset or format (from the next published draw), and its rounds, "
        "draw method or match points (at once; each only where it changes: rounds never below a round drawn nor, "
        "in a round robin, past its circle; the draw method until round 1 is published; the match points until "
        "round 1's draw is published — refused in words otherwise, nothing saved)",
        {"name": _text(MAX_NAME), "ruleset": _text(MAX_ID, "规则预设 / ruleset preset"),
         "kind": {"type": "string", "enum": ["deals", "time", "past_a"]}, "deals": _DIGITS, "minutes": _DIGITS,
         "rounds": {"type": "string", "pattern": "^([1-9][0-9]?)?$",
                    "description": "轮数 1–99，空为不变 / rounds 1-99; empty or absent: as it is"},
         "draw": {"type": "string", "enum": ["", *DRAW_METHODS],
                  "description": "编排方法，空为不变 / draw method; empty or absent: as it is"},
         "match_points": {"type": "string", "enum": ["", *MATCH_POINT_SCHEMES],
                          "description": "比赛分方案，空为不变 / match points scheme; empty or absent: as it is"},
         "seen": {**_DIGITS, "description": "页面显示时的日志序号 / the log's seq the page was shown at: refused "
                                            "when the settings were edited since (optional)"}},
        ("name", "ruleset", "kind"), chief=True),
    ("POST", "/hub/action/deck"): _action(
        "发布比赛用牌 / hand the event's enrolled deck to every table (docs/hub-protocol.md)",
        {"deck": {"type": "string", "format": "binary",
                  "description": "登记文件 / the enrolment file from `guandan-table vision enroll` (.npz, at most 4 MiB)"}},
        ("deck",), chief=True, files=True),
    ("POST", "/hub/action/withdraw_deck"): _action(
        "撤回比赛用牌 / withdraw the event's deck: the tables drop it and read unenrolled (docs/hub-protocol.md)",
        {}, chief=True),
    ("POST", "/hub/action/move_match"): _action(
        "换桌 / move a failed table's match of the current round to an idle spare table: match_moved is logged, "
        "the assignment goes to the new table, the old table's is withdrawn, the result comes from the new table; "
        "refused for a table that already plays a match this round, or a match already finished. The match goes on "
        "from the old table's last summary, each field given here replacing the report's (the chief's reading of "
        "the score sheet); the standing is logged in match_moved and sent as the assignment's resume",
        {"slot": _SLOT, "to": {"type": "string", "pattern": "^[A-Za-z0-9_.\\-]{1,64}$",
                               "description": "新桌 / the idle table to move the match to (one of [[tables]])"},
         "reason": _text(MAX_TEXT, "原因 / why (optional)"),
         "ns_level": {"type": "string", "description": "南北级数 / NS's level reached, 2…A (10 or T); blank: the report's"},
         "ew_level": {"type": "string", "description": "东西级数 / EW's level reached, 2…A (10 or T); blank: the report's"},
         "deals_played": {"type": "string", "pattern": "^[0-9]{0,10}$",
                          "description": "已打副数 / deals finished at the old table; blank: the report's"},
         "next_side": {"type": "string", "enum": ["", "NS", "EW"],
                       "description": "下一副打哪方的级 / whose level the next deal is at; blank: the report's"}},
        ("slot", "to"), chief=True),
    ("GET", "/hub/table-mqtt.toml"): {
        "summary": "换机凭据 / a table's [mqtt] as event provision wrote it (its MQTT password: a secret), for a "
                   "replacement Pi's table.toml; no-store, an attachment", "tags": ["hub"], "login": "chief",
        "parameters": [{"name": "table", "in": "query", "required": True, "schema": {"type": "string"},
                        "description": "桌号 / the table"}],
        "responses": {"200": {"description": "the [mqtt] section with a header saying it holds a secret",
                              "content": {"application/toml": {"schema": {"type": "string"}}}},
                      "404": _err("没有该桌的凭据 / no credential for that table"), **_TO_LOGIN}},
    ("GET", "/hub/ca.crt"): {
        "summary": "经纪服务器的 CA 证书 / the broker's CA certificate (TLS) a table's ca_file names",
        "tags": ["hub"], "login": "chief",
        "responses": {"200": {"description": "PEM", "content": {"application/x-pem-file": {"schema": {"type": "string"}}}},
                      "404": _err("未启用 TLS / the broker was provisioned without TLS"), **_TO_LOGIN}},
}

#: The document's title for the hub app.
HUB_INFO = {"title": "guandan-table event hub, referee panel and feed / 掼蛋赛事中心、裁判台与直播接口",
            "description": "The hub's routes (/hub/…) and the table app's it is built on. See docs/hub-protocol.md "
                           "and docs/api.md."}
