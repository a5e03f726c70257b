"""EVENT.toml: the organiser's description of an event, checked before the hub starts.

Example (``examples/event.toml``)::

    [event]
    id = "js2026"                 # MQTT topic segment: letters, digits, _ . -
    name = "江苏省掼蛋公开赛"
    rounds = 5
    draw = "auto"                 # auto | swiss | round-robin (auto: round robin when it fits)
    ruleset = "jiangsu-2013"      # preset; [ruleset_options] overrides single options (not match_points_*)
    format = { kind = "deals", deals = 8 }   # what each table plays per round (round_set_up)
    match_points = "2-1-0"        # or "3-2-1-0": the hub ranks by it and hands it to every table
    bye_points = 2                # optional: match points of a bye
    seed = 2026                   # seed of the lots (recorded as events when drawn)
    first_round = "lots"          # round 1 drawn by lots (default), or "order": as [[teams]] lists them

    [mqtt]                        # the hub's credential: hub.toml of `guandan-table event provision`
    host = "127.0.0.1"
    port = 1883
    username = "js2026-hub"
    password = "…"
    ca_file = "ca.crt"            # optional: TLS, the broker's certificate checked against this CA

    [hub]
    host = "127.0.0.1"
    port = 8090
    data = "hub-data"             # relative to EVENT.toml

    [[teams]]
    id = "T01"
    name = "南京一队"
    players = ["张三", "李四"]

    [[tables]]                    # optional: physical tables in draw order, with their panel URLs
    id = "1"
    panel = "http://10.0.0.11:8080/"

Duplicate (复式) events: ``duplicate = "levels"`` (or ``"level_points"``) in ``[event]``; teams
of four players (the first two play room A, the last two room B); two tables a match.

Every unknown key is an error naming it (a typo must not silently fall back to a default).

Match points have one source: ``[event] match_points`` (the scheme) and ``bye_points``. The
ruleset's ``match_points_*`` options are refused in ``[ruleset_options]``, naming the setting to
use; the hub hands the scheme's values to every table with its assignment, so the tables' round
results and the hub's standings score alike.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any

from hardware.errors import not_regular_file
from table_service.engine.errors import halves
from table_service.engine.names import is_name, says_something
from table_service.event.draw import FIRST_ROUND
from table_service.event.model import MAX_ID, MAX_NAME, EventInputError
from table_service.event.standings import MATCH_POINT_SCHEMES, ScoringOptions
from table_service.rules.ruleset import get_ruleset
from table_service.views.wire import SEGMENT_RE, control_character, is_host

_SECTIONS: dict[str, set[str]] = {
    "event": {"id", "name", "rounds", "draw", "ruleset", "format", "match_points", "bye_points", "seed",
              "bye_level_points", "duplicate", "first_round"},
    "ruleset_options": set(),
    "mqtt": {"host", "port", "username", "password", "keepalive", "ca_file"},
    "hub": {"host", "port", "data"},
    "teams": {"id", "name", "players"},
    "tables": {"id", "panel"},
}
DRAW_METHODS = ("auto", "swiss", "round-robin")
#: ``[event] first_round`` (:data:`~.draw.FIRST_ROUND`) as the pages and sheets say it: round 1 (and a
#: round robin's circle) drawn by lots, or in the order of ``[[teams]]`` (an organiser who seeded the list).
FIRST_ROUND_WORDS = {"lots": ("首轮抽签", "round 1 by lots"), "order": ("首轮按名单顺序", "round 1 in entry order")}


def _unknown(where: str, keys: set[str], known: set[str]) -> None:
    for key in sorted(keys - known):
        close = difflib.get_close_matches(key, known, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        hint_zh = f"（是否想写 {close[0]!r}？）" if close else ""
        raise EventInputError(f"EVENT.toml [{where}]: 未知配置项 {key!r}{hint_zh} / unknown key {key!r}{hint}")


def _need(d: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if key not in d:
        raise EventInputError(f"EVENT.toml [{where}]: 缺少 {key} / missing {key!r}")
    v = d[key]
    if not isinstance(v, kind) or isinstance(v, bool) and kind is not bool:
        raise EventInputError(f"EVENT.toml [{where}]: {key} 类型错误（{v!r:.60}） / {key!r} has the wrong type ({v!r:.60})")
    return v


def _opt(d: dict[str, Any], key: str, kind: type | tuple[type, ...], where: str, default: Any,
         lo: int | None = None, hi: int | None = None, max_len: int = 200) -> Any:
    """An optional key of the right type (a bool is not an int), within ``lo``–``hi`` or
    ``max_len`` characters; ``default`` when absent."""
    if key not in d:
        return default
    v = _need(d, key, kind, where)
    if isinstance(v, int) and not isinstance(v, bool) and lo is not None and hi is not None and not lo <= v <= hi:
        raise EventInputError(f"EVENT.toml [{where}]: {key} 须为 {lo}–{hi}，收到 {v!r} / {key!r} must be {lo}-{hi}, "
                              f"got {v!r}")
    if isinstance(v, str) and len(v) > max_len:
        raise EventInputError(f"EVENT.toml [{where}]: {key} 过长（至多 {max_len} 个字符） / {key!r} is longer than "
                              f"{max_len} characters")
    if isinstance(v, str) and control_character(v) is not None:
        # It would reach every table's assignment and the printed draw as it is.
        raise EventInputError(f"EVENT.toml [{where}]: {key} 含控制字符：{v!r:.60} / {key!r} holds a control "
                              f"character: {v!r}"[:300])
    return v


#: What ``format`` takes for each kind, and the range of each number.
FORMATS: dict[str, dict[str, tuple[int, int]]] = {"deals": {"deals": (1, 99)}, "time": {"minutes": (1, 600)},
                                                   "past_a": {}}


def _format(fmt: Any) -> dict[str, Any]:
    """``format = {kind = "deals", deals = 8}`` (or ``time`` with ``minutes``, or ``past_a``),
    every number present and in range: the tables play what this says."""
    if not isinstance(fmt, dict) or not isinstance(fmt.get("kind"), str) or fmt["kind"] not in FORMATS:
        raise EventInputError(f"EVENT.toml [event]: format 须为 {{kind = deals|past_a|time, …}}，收到 {fmt!r:.60} / "
                              f"format must be {{kind = deals|past_a|time, …}}, got {fmt!r}"[:300])
    need = FORMATS[fmt["kind"]]
    _unknown("event.format", set(fmt), {"kind", *need})
    for key, (lo, hi) in need.items():
        _opt(fmt, key, int, "event.format", None, lo, hi)
        if key not in fmt:
            raise EventInputError(f"EVENT.toml [event.format]: kind = \"{fmt['kind']}\" 需要 {key}（{lo}–{hi}） / needs {key} "
                                  f"({lo}-{hi})")
    return dict(fmt)


#: Ruleset options an event sets in ``[event]`` instead (the hub ranks by those, and hands them to
#: the tables): the option -> the setting to use, ``(Chinese, English)``.
EVENT_SCORING_OPTIONS: dict[str, tuple[str, str]] = {
    **{f"match_points_{k}": ('[event] match_points = "2-1-0" 或 "3-2-1-0"', '[event] match_points = "2-1-0" or "3-2-1-0"')
       for k in ("win", "draw", "loss", "forfeit")},
    "match_points_bye": ("[event] bye_points（0 至胜一轮的分）", "[event] bye_points (0 up to a win's points)"),
}


def _refuse_event_scoring(opts: dict[str, Any]) -> None:
    """A ``match_points_*`` key in ``[ruleset_options]`` is refused, naming the ``[event]`` setting
    that gives it (the hub ranked by the scheme while the tables scored by the option)."""
    for key in opts:
        if key in EVENT_SCORING_OPTIONS:
            zh, en = EVENT_SCORING_OPTIONS[key]
            raise EventInputError(f"EVENT.toml [ruleset_options]: {key} 不能在此设置，比赛分请用 {zh}，各桌与赛事中心都按它"
                                  f"计分 / {key} cannot be set here: an event's match points come from {en}, which "
                                  "the tables and the hub both score by")


def _check_ruleset_options(preset: Any, opts: dict[str, Any]) -> None:
    """Each ``[ruleset_options]`` key is an option of the ruleset, and each value one the ruleset
    takes: the types and bounds are the ``Ruleset``'s own (one set for the engine, table.toml and
    EVENT.toml), worded here with the file and section, so a table never fails on it mid-round."""
    known = {f.name for f in fields(preset)} - {"name"}
    _unknown("ruleset_options", set(opts), known)
    for key, value in opts.items():
        try:
            preset.replace(**{key: value})
        except (ValueError, TypeError) as exc:
            raise EventInputError(f"EVENT.toml [ruleset_options]: {key}: {exc}"[:300]) from None


def team_players(players: Any, duplicate: bool) -> list[str]:
    """A team's players as the event needs them, stripped: 2 or 4 names of 1-64 characters, and 4
    in a duplicate event (each team's second pair plays room B). One rule for EVENT.toml and for
    the hub's team edit: a duplicate team edited down to 2 players could not be seated in room B,
    and publishing the next draw failed (the long hub fuzz found it)."""
    if not isinstance(players, list) or len(players) not in (2, 4) or not all(isinstance(p, str) for p in players):
        raise EventInputError("选手须为 2 或 4 人 / players must be 2 or 4 names")
    if duplicate and len(players) != 4:
        raise EventInputError("复式每队须 4 名选手 / duplicate play needs 4 players a team")
    if any(len(p.strip()) > MAX_ID for p in players):
        raise EventInputError("选手名过长 / a player's name is longer than 64 characters")
    if any(control_character(p) is not None for p in players):
        raise EventInputError("选手名含控制字符 / a player's name holds a control character")
    bad = next((p for p in players if not is_name(p)), None)
    if bad is not None:  # the tables' engine refuses it: the round sent would start at none of them
        raise EventInputError(f"选手名 {bad!r} 无效：须有可见文字，不含控制或格式字符 / the player's name {bad!r} must "
                              "be visible text with no control or format character")
    return [p.strip() for p in players]


def name_key(name: str) -> str:
    """What makes two team names the same to a reader: case and spacing aside."""
    return " ".join(name.split()).casefold()


def duplicate_name_message(name: str, other: str, where: str = "") -> str:
    """Two teams of one name: the board, the overlay and the standings show names only, so the
    hall could not tell them apart (Chinese first)."""
    return (f"{where}队名 {name.strip()!r} 与 {other} 队重复 / team name {name.strip()!r} is already team {other}'s: "
            "the board and the standings show names only")


def team_name(name: str, teams: list[dict[str, Any]], team: str) -> str:
    """A team's name as the hub takes it (an edit, a late entry), stripped: 1-64 printable
    characters and no other team's (``teams``: the event's; ``team``: the id it is for). One rule
    for both forms and for a reload that carries them over a changed EVENT.toml."""
    # A team's name never reaches a table's engine (the assignment seats teams by id; the name is for
    # the pages and sheets), so it keeps the hub's rule: something visible, no control character — an
    # emoji with its zero-width joiner is a name. A player's name is the engine's (team_players).
    if not says_something(name) or len(name) > MAX_ID or control_character(name) is not None:
        raise EventInputError("队名无效（1–64 个可打印字符） / a team's name is 1-64 printable characters")
    other = next((t["id"] for t in teams if t["id"] != team and name_key(t["name"]) == name_key(name)), None)
    if other is not None:
        raise EventInputError(duplicate_name_message(name, other))
    return name.strip()


def tables_needed(teams: int, duplicate: bool) -> int:
    """The physical tables a round of ``teams`` teams needs (an odd field's last team has a bye;
    a duplicate match is two tables)."""
    return (teams // 2) * (2 if duplicate else 1)


def team_id(tid: str) -> str:
    """A team's id as EVENT.toml, the late entry and the teams import take it: 1-64 ASCII letters,
    digits, ``_ . -`` — it names the team in every MQTT message and assignment (a topic segment,
    :data:`~table_service.views.wire.SEGMENT_RE`). A Chinese id ("一队") is refused saying what an
    id may be and that the Chinese goes in the team's name."""
    if not SEGMENT_RE.match(tid):
        raise EventInputError(f"队号 {tid[:64]!r} 无效：队号只能用英文字母 A–Z a–z、数字 0–9 和 _ . -（1–64 个，如 T01），"
                              f"中文请写在队名里 / invalid team id {tid[:64]!r}: an id is 1-64 ASCII letters A-Z a-z, "
                              "digits 0-9 and _ . - (e.g. T01), as the tables' messages name teams by it; a Chinese "
                              "name goes in the team's name")
    return tid


def team_entry(teams: list[dict[str, Any]], dup: bool, team: str, name: str, players: list[str]) -> dict[str, Any]:
    """A team entered at the hub (a late entry, a line of the teams import), checked as EVENT.toml's
    ``[[teams]]`` are: its id (:func:`team_id`) no team of ``teams`` has, a name no other team has
    (:func:`team_name`), 2 or 4 players (:func:`team_players`; 4 when ``dup``, a duplicate event).
    Returns ``{"team", "name", "players"}`` (``team_added``'s data); refusals name teams by their names."""
    team = team_id(team.strip())
    same = next((t for t in teams if t["id"] == team), None)
    if same is not None:
        raise EventInputError(f"队号 {team} 已是「{same['name']}」的，请换一个 / the id {team} is already "
                              f"{same['name']}'s: choose another")
    return {"team": team, "name": team_name(name, teams, team),
            "players": team_players([p for p in players if p.strip()], dup)}


def tables_short(cfg: dict[str, Any], more: int) -> str | None:
    """Why ``[[tables]]``, when it lists the tables, is too few for ``more`` teams more than ``cfg``
    has (a draw with a table too few could not be sent to the tables); None when they fit."""
    dup = bool(cfg["event"]["scoring"].get("duplicate"))
    n = len(cfg["teams"]) + more
    tables, need = cfg.get("tables") or [], tables_needed(n, dup)
    if tables and len(tables) < need:
        return (f"EVENT.toml 只列了 {len(tables)} 张桌，{n} 队需要 {need} 张：请先在 [[tables]] 加桌 / EVENT.toml's "
                f"[[tables]] lists {len(tables)} tables and {n} teams need {need}: add a table there first")
    return None


def late_team(cfg: dict[str, Any], team: str, name: str, players: list[str]) -> dict[str, Any]:
    """A team entered at the hub after EVENT.toml was loaded (a late registration), checked as
    EVENT.toml's ``[[teams]]`` are (:func:`team_entry`) and against ``[[tables]]``, when it lists
    the tables (:func:`tables_short`). Returns ``team_added``'s data."""
    clean = team_entry(cfg["teams"], bool(cfg["event"]["scoring"].get("duplicate")), team, name, players)
    short = tables_short(cfg, 1)
    if short is not None:
        raise EventInputError(short)
    return clean


def validate(raw: dict[str, Any]) -> dict[str, Any]:
    """Check a parsed EVENT.toml and return it normalised (defaults filled, JSON-ready): the
    form the hub logs in its first event."""
    _unknown("top level", set(raw), set(_SECTIONS))
    ev = raw.get("event")
    if not isinstance(ev, dict):
        raise EventInputError("EVENT.toml: 缺少 [event] / missing the [event] table")
    _unknown("event", set(ev), _SECTIONS["event"])
    eid = str(_need(ev, "id", str, "event"))
    if not SEGMENT_RE.match(eid):
        raise EventInputError(f"EVENT.toml [event]: id 无效 {eid!r} / invalid id (1-64 letters, digits, _ . -)")
    rounds = _need(ev, "rounds", int, "event")
    if not 1 <= rounds <= 99:
        raise EventInputError(f"EVENT.toml [event]: rounds 须为 1–99，收到 {rounds} / rounds must be 1-99, got {rounds}")
    draw = ev.get("draw", "auto")
    if not isinstance(draw, str) or draw not in DRAW_METHODS:
        raise EventInputError(f"EVENT.toml [event]: draw 须为 {'/'.join(DRAW_METHODS)}，收到 {draw!r} / draw must be one of "
                              f"{DRAW_METHODS}, got {draw!r}")
    scheme = ev.get("match_points", "2-1-0")
    if not isinstance(scheme, str) or scheme not in MATCH_POINT_SCHEMES:
        raise EventInputError(f"EVENT.toml [event]: match_points 须为 {'/'.join(MATCH_POINT_SCHEMES)}，收到 {scheme!r} / "
                              f"match_points must be one of {list(MATCH_POINT_SCHEMES)}, got {scheme!r}")
    fmt = _format(ev.get("format", {"kind": "deals", "deals": 8}))
    name = _opt(ev, "name", str, "event", eid, max_len=MAX_NAME)
    if not says_something(name):  # the hub's own edit form refuses it too: every page and sheet is titled by it
        raise EventInputError("EVENT.toml [event]: name 为空 / 'name' is empty (leave it out to use the id)")
    ruleset_name = _opt(ev, "ruleset", str, "event", "jiangsu-2013", max_len=MAX_ID)
    rs_opts = raw.get("ruleset_options", {})
    if not isinstance(rs_opts, dict):
        raise EventInputError("EVENT.toml [ruleset_options] 须为表 / must be a table")
    _refuse_event_scoring(rs_opts)

    try:
        _check_ruleset_options(get_ruleset(ruleset_name), rs_opts)
        ruleset = get_ruleset(ruleset_name, **rs_opts)
    except EventInputError:
        raise  # already names the file, section and key: wrapped again it read "bad ruleset: EVENT.toml …" twice
    except (KeyError, ValueError, TypeError) as exc:
        raise EventInputError(f"EVENT.toml 规则无效：{halves(str(exc))[0]} / bad ruleset: {exc}"[:400]) from None
    scoring_opts: dict[str, Any] = dict(MATCH_POINT_SCHEMES[scheme])
    dup = ev.get("duplicate", False)
    if dup not in (False, "levels", "level_points"):
        raise EventInputError(f"EVENT.toml [event]: duplicate 须为 false、\"levels\" 或 \"level_points\"，收到 {dup!r} / "
                              f"duplicate must be "
                              f"false, \"levels\" or \"level_points\", got {dup!r}")
    if dup:
        scoring_opts["duplicate"] = dup
    for key, opt, hi in (("bye_points", "bye", MATCH_POINT_SCHEMES[scheme]["win"]),
                         ("bye_level_points", "bye_level_points", 26)):
        if key in ev:
            scoring_opts[opt] = _opt(ev, key, int, "event", None, 0, hi)
    ScoringOptions.from_ruleset(ruleset, **scoring_opts)  # checks the combination
    seed = ev.get("seed", 0)
    if not isinstance(seed, int | str) or isinstance(seed, bool) or len(str(seed)) > 64:
        raise EventInputError(f"EVENT.toml [event]: seed 须为整数或至多 64 个字符的字符串：{seed!r:.60} / seed must be an "
                              f"integer or string (at most 64 characters): {seed!r}"[:300])
    first_round = ev.get("first_round", "lots")
    if not isinstance(first_round, str) or first_round not in FIRST_ROUND:
        raise EventInputError(f"EVENT.toml [event]: first_round 须为 \"lots\"（首轮抽签）或 \"order\"（首轮按 [[teams]] 的顺序"
                              f"编排），收到 {first_round!r:.40} / first_round must be \"lots\" (round 1 drawn by lots, the default) or \"order\" "
                              f"(round 1 paired in the order [[teams]] lists them), got {first_round!r}"[:300])

    mqtt = raw.get("mqtt", {})
    hub = raw.get("hub", {})
    for sec_name, section in (("mqtt", mqtt), ("hub", hub)):
        if not isinstance(section, dict):
            raise EventInputError(f"EVENT.toml [{sec_name}] 须为表 / must be a table")
        _unknown(sec_name, set(section), _SECTIONS[sec_name])
    # The broker's port is one to connect to (1-65535); the hub's own may be 0, "any free port".
    for where, section, default, lowest in (("mqtt", mqtt, 1883, 1), ("hub", hub, 8090, 0)):
        port = section.get("port", default)
        if isinstance(port, bool) or not isinstance(port, int) or not lowest <= port <= 65535:
            raise EventInputError(f"EVENT.toml [{where}]: port 无效：{port!r}（{lowest}–65535） / invalid port {port!r} "
                                  f"({lowest}-65535)")
        host = _opt(section, "host", str, where, None, max_len=255)
        if host is not None and not is_host(host):
            raise EventInputError(f"EVENT.toml [{where}]: host 无效：{host!r}（须为主机名或地址，不含空格） / invalid host "
                                  f"{host!r} (a name or an address, no spaces)")
    for key in ("username", "password", "ca_file"):
        _opt(mqtt, key, str, "mqtt", None, max_len=255)
    keepalive = _opt(mqtt, "keepalive", int, "mqtt", 15, 5, 3600)
    _opt(hub, "data", str, "hub", None, max_len=1000)

    # No [[teams]] at all is an event whose teams are imported on the hub's organiser page (a list
    # of 400 from a spreadsheet); the draw needs two, and says so.
    teams_raw = raw.get("teams", [])
    if not isinstance(teams_raw, list):
        raise EventInputError("EVENT.toml: teams 须写成 [[teams]] / teams must be [[teams]] entries")
    teams: list[dict[str, Any]] = []
    seen: set[str] = set()
    names: dict[str, str] = {}  # name_key(name) -> the team that has it
    for i, t in enumerate(teams_raw, 1):
        where = f"teams #{i}"
        if not isinstance(t, dict):
            raise EventInputError(f"EVENT.toml [{where}] 须为表 / must be a table")
        _unknown(where, set(t), _SECTIONS["teams"])
        tid = str(_need(t, "id", (str, int), where))
        try:
            team_id(tid)
        except EventInputError as exc:
            raise EventInputError(f"EVENT.toml [{where}]: {exc}") from None
        if tid in seen:
            raise EventInputError(f"EVENT.toml [{where}]: 队号重复 {tid!r} / duplicate team id {tid!r}")
        seen.add(tid)
        try:
            players = team_players(t.get("players", [f"{tid}-1", f"{tid}-2"]), bool(dup))
        except EventInputError as exc:
            raise EventInputError(f"EVENT.toml [{where}]: {exc}") from None
        tname = _opt(t, "name", str, where, tid, max_len=MAX_ID)
        if not says_something(tname):
            raise EventInputError(f"EVENT.toml [{where}]: 队名为空 / 'name' is empty (leave it out to use the id)")
        other = names.setdefault(name_key(tname), tid)
        if other != tid:
            raise EventInputError(duplicate_name_message(tname, other, f"EVENT.toml [{where}]: "))
        teams.append({"id": tid, "name": tname, "players": players})
    tables: list[dict[str, Any]] = []
    tables_raw = raw.get("tables", [])
    if not isinstance(tables_raw, list):
        raise EventInputError("EVENT.toml: tables 须写成 [[tables]] / tables must be [[tables]] entries")
    for i, t in enumerate(tables_raw, 1):
        where = f"tables #{i}"
        if not isinstance(t, dict):
            raise EventInputError(f"EVENT.toml [{where}] 须为表 / must be a table")
        _unknown(where, set(t), _SECTIONS["tables"])
        tid = str(_need(t, "id", (str, int), where))
        if not SEGMENT_RE.match(tid):
            raise EventInputError(f"EVENT.toml [{where}]: 桌号无效 {tid!r} / invalid table id")
        panel = _opt(t, "panel", str, where, None, max_len=500)
        if panel is not None and not re.match(r"^https?://[^\s/@]+(/[^\s]*)?$", panel):
            raise EventInputError(f"EVENT.toml [{where}]: panel 须为不含 user:password@ 的 http(s):// 地址，收到 {panel!r:.80} / "
                                  f"panel must be an http(s):// "
                                  f"address without user:password@, got {panel!r}"[:300])
        tables.append({"id": tid, "panel": panel})
    if len({t["id"] for t in tables}) != len(tables):
        raise EventInputError("EVENT.toml: 桌号重复 / duplicate table ids in [[tables]]")
    need = tables_needed(len(teams), bool(dup))
    if tables and len(tables) < need:
        raise EventInputError(f"EVENT.toml: {len(teams)} 队需要 {need} 张桌，只列了 {len(tables)} / "
                              f"{len(teams)} teams need {need} tables, [[tables]] lists {len(tables)}")
    return {
        "event": {"id": eid, "name": name, "rounds": rounds, "draw": draw,
                  "ruleset": ruleset_name, "ruleset_options": dict(rs_opts), "format": fmt,
                  "match_points": scheme, "scoring": scoring_opts, "seed": seed,
                  # Only when the file says it: a configuration logged without it (the default, or a
                  # release before the option) reads as lots, and EVENT.toml unchanged stays the
                  # configuration the hub logged (no reload, no "changed after the first draw").
                  **({"first_round": first_round} if "first_round" in ev else {})},
        "mqtt": {"host": str(mqtt.get("host", "127.0.0.1")), "port": int(mqtt.get("port", 1883)),
                 "username": mqtt.get("username"), "password": mqtt.get("password"),
                 "keepalive": keepalive, "ca_file": mqtt.get("ca_file")},
        "hub": {"host": str(hub.get("host", "127.0.0.1")), "port": int(hub.get("port", 8090)),
                "data": hub.get("data")},
        "teams": teams,
        "tables": tables,
    }


def load_event(path: str | Path, *, provisioned: bool = True) -> dict[str, Any]:
    """Read and check EVENT.toml; one clear line on any problem.

    :param provisioned: take the hub's connection from ``mqtt-<event>/hub.toml`` when EVENT.toml names
        no user (the hub); False for ``event provision`` itself, which reads EVENT.toml's own host and
        port (the hub.toml of a TLS provision made the next ``--force`` plain port the TLS one)."""
    p = Path(path)
    if (problem := not_regular_file(p)) is not None:
        zh, en = halves(problem)
        raise EventInputError(f"无法读取赛事文件：{zh} / cannot read event file: {en}")
    try:
        raw = tomllib.loads(p.read_text(encoding="utf-8-sig"))  # -sig: the BOM Windows Notepad writes
    except FileNotFoundError:
        raise EventInputError(f"找不到赛事文件：{p} / event file not found: {p}") from None
    except tomllib.TOMLDecodeError as exc:
        raise EventInputError(f"EVENT.toml 格式错误（{p}）：{exc} / not valid TOML ({p}): {exc}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EventInputError(f"无法读取赛事文件 {p}：{exc} / cannot read event file {p}: {exc}") from None
    kept = provisioned_hub_mqtt(p, raw) if provisioned else None
    ca_base = p.resolve().parent
    if kept is not None:
        # No credential in EVENT.toml and `event provision` wrote the hub's: taken as it is, so the
        # organiser copies no password by hand (its ca_file is relative to that file). Its host, port
        # and ca_file go together: EVENT.toml's plain port beside hub.toml's ca_file had the hub try
        # TLS on the plain listener for ever (the security audit of 2026-12-06).
        raw = {**raw, "mqtt": {**(raw.get("mqtt") or {}), **kept[1]}}
        ca_base = kept[0].parent
    cfg = validate(raw)
    ca = cfg["mqtt"]["ca_file"]
    if ca is not None:  # relative to the file that names it, as provision writes it
        ca_path = Path(ca) if Path(ca).is_absolute() else ca_base / ca
        if not ca_path.is_file():
            raise EventInputError(f"EVENT.toml [mqtt]: 找不到 ca_file：{ca_path} / ca_file not found: {ca_path}")
        cfg["mqtt"]["ca_file"] = str(ca_path)
    if kept is not None:
        cfg["mqtt"]["source"] = str(kept[0])  # for the hub's banner: where its credential came from
    return cfg


def provisioned_hub_mqtt(event_path: str | Path, raw: dict[str, Any]) -> tuple[Path, dict[str, Any]] | None:
    """The hub's ``[mqtt]`` that ``event provision`` wrote (``mqtt-<event>/hub.toml`` beside EVENT.toml),
    when EVENT.toml's own ``[mqtt]`` names no user; None otherwise (or when it cannot be read: the
    broker then refuses the hub, which says so)."""
    mqtt = raw.get("mqtt") if isinstance(raw.get("mqtt"), dict) else {}
    event = raw.get("event") if isinstance(raw.get("event"), dict) else {}
    eid = event.get("id")
    if mqtt.get("username") is not None or not isinstance(eid, str) or not SEGMENT_RE.match(eid):
        return None
    path = Path(event_path).resolve().parent / f"mqtt-{eid}" / "hub.toml"
    try:
        kept = tomllib.loads(path.read_text(encoding="utf-8")).get("mqtt")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    return (path, dict(kept)) if isinstance(kept, dict) else None


def scoring_of(cfg: dict[str, Any]) -> ScoringOptions:
    """The scoring options an (already validated) config describes."""
    ev = cfg["event"]
    rs = get_ruleset(ev["ruleset"], **ev.get("ruleset_options", {}))
    return ScoringOptions.from_ruleset(rs, **ev["scoring"])


def round_robin_rounds(teams: int) -> int:
    """The rounds of one whole circle (:func:`~.draw.round_robin`) over ``teams`` teams: n − 1 for
    an even field, n for an odd one (a bye a round). Past it the circle starts over: round n (or
    n + 1) repeats round 1's tables, the same teams at the same sides."""
    return teams - 1 if teams % 2 == 0 else teams


def draw_method(cfg: dict[str, Any]) -> str:
    """``auto`` resolves to round robin when the whole round robin fits in the event's rounds."""
    ev = cfg["event"]
    if ev["draw"] != "auto":
        return str(ev["draw"])
    n = len(cfg["teams"])  # none yet (to be imported at the hub): nothing fits a circle
    return "round-robin" if n >= 2 and ev["rounds"] >= round_robin_rounds(n) else "swiss"


def first_round_of(cfg: dict[str, Any]) -> str:
    """How the event draws round 1: ``lots`` (absent: the default) or ``order``."""
    return str(cfg["event"].get("first_round", "lots"))


def scheme_scoring(event: dict[str, Any], scheme: str) -> dict[str, Any]:
    """``event``'s scoring (``[event] scoring`` as :func:`validate` wrote it) under the match points
    ``scheme``: its win, draw, loss and forfeit; a bye the scheme's too, unless the event's bye
    differs from its current scheme's (EVENT.toml's ``bye_points``: the organiser's own number,
    kept; :func:`validate` holds it below its scheme's win, so below the other scheme's too). The
    duplicate comparison and ``bye_level_points`` stay. One rule for the hub's edit, its fold and a
    reload that carries the edit over a changed file."""
    now = MATCH_POINT_SCHEMES.get(str(event.get("match_points", "2-1-0")), MATCH_POINT_SCHEMES["2-1-0"])
    scoring = dict(event["scoring"])
    new = dict(MATCH_POINT_SCHEMES[scheme])
    if scoring.get("bye", now["bye"]) != now["bye"]:
        del new["bye"]
    scoring.update(new)
    return scoring
