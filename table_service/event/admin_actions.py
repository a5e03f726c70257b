"""The organiser's actions on the hub's pages: one function per form, each behind its own URL
(``POST /hub/action/<name>``, routed by :mod:`table_service.event.web`), so the OpenAPI document
describes each form exactly.

Each reads its form, asks the hub, and returns the message shown when it is done; the hub's refusal
is an :class:`~table_service.event.model.EventInputError`. Kept apart from the page routes so that
what an action does and how a page is drawn are each read in one place.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from flask import request

from table_service.engine.errors import halves
from table_service.event.form_fields import form_int, form_text
from table_service.event.model import FORFEIT_SIDES, MAX_ID, MAX_NAME, MAX_TEXT, EventInputError, RoleRefused
from table_service.event.moves import level_words
from table_service.event.settings import METHOD_WORDS, SETTING_WORDS, SETTINGS
from table_service.event.spare import move_match


def _slot() -> tuple[int, str]:
    raw = request.form.get("slot", "")
    rnd, _, table = raw.partition("|")
    # Not printable: refused before any message echoes it (an escape sequence or a direction mark
    # in "no table … in round 1" reached the page and the JSON answer as sent).
    if not re.fullmatch(r"[0-9]{1,3}", rnd) or not table or len(table) > MAX_ID or not table.isprintable():
        raise EventInputError("请选择轮次与桌号 / choose a round and table")
    return int(rnd), table


def _line(h: Any, rnd: int, table: str) -> dict[str, Any]:
    t = h.core.table_of(rnd, table)
    if t is None:
        raise EventInputError(f"第 {rnd} 轮没有 {table} 号桌 / no table {table} in round {rnd}")
    line: dict[str, Any] = {"round": rnd, "table": table, "ns": t["ns"], "ew": t["ew"]}
    forfeit = request.form.get("forfeit") or None
    if forfeit is not None and forfeit not in FORFEIT_SIDES:
        raise EventInputError("弃权方须为南北、东西或双方 / forfeit must be ns, ew or both")
    if forfeit:
        line["forfeit"] = forfeit
    line["ns_levels"] = form_int("ns_levels", 0, 13) if request.form.get("ns_levels") else 0
    line["ew_levels"] = form_int("ew_levels", 0, 13) if request.form.get("ew_levels") else 0
    if not forfeit and not (request.form.get("ns_levels") and request.form.get("ew_levels")):
        raise EventInputError("请填写双方升级数 / enter both sides' levels gained")
    if request.form.get("ns_score") or request.form.get("ew_score"):
        if not (request.form.get("ns_score") and request.form.get("ew_score")):
            raise EventInputError("判负须填双方比分（13+d : 13−d） / a penalty loss needs both scores (13+d : 13-d)")
        line["ns_score"], line["ew_score"] = form_int("ns_score", 0, 26), form_int("ew_score", 0, 26)
    return line


def _do_draw(h: Any, who: str, role: str) -> str:
    ev = h.draw_next(who, role)
    rnd = ev["data"]["round"]
    zh, en = f"第 {rnd} 轮已编排（草案）", f"round {rnd} drawn (draft)"
    unpublished = [r for r in range(1, rnd) if r not in h.core.results_published]
    if unpublished:  # the hall and the teams wait for them: said where the organiser looks
        zh += f"；第 {'、'.join(map(str, unpublished))} 轮成绩尚未公布"
        en += f"; round(s) {', '.join(map(str, unpublished))}: results not published yet"
    return f"{zh} / {en}"


def _do_publish(h: Any, who: str, role: str) -> str:
    """Publish the draft the page showed (``draft``: the seq of its draw): a round drawn again since,
    from another page, is refused (the organiser would publish pairings never checked)."""
    rnd = form_int("round", 1)
    draft = form_int("draft", 1) if request.form.get("draft") else None
    h.publish_draw(rnd, who, role, draft=draft)
    return f"第 {rnd} 轮编排已公布并下发各桌 / round {rnd} published and sent to the tables"


def _settles(h: Any, rnd: int, table: str) -> int | None:
    """The refused result a hand entry or a correction was made from (``settles``: the page's "put it
    in the form" button fills it in), checked before anything is logged: an open refusal of this
    round and table. None where the form names none."""
    if not request.form.get("settles", "").strip():
        return None
    seq = form_int("settles", 1, 2**62)
    r = next((r for r in h.core.refusals if r["seq"] == seq and not r["acknowledged"]), None)
    if r is None:
        return None  # cleared meanwhile (another chief): the result is still what was asked for
    res = r.get("result") if isinstance(r.get("result"), dict) else {}
    if (res.get("round"), r.get("table")) != (rnd, table):
        raise EventInputError(f"拒收 #{seq} 不是第 {rnd} 轮 {table} 号桌的 / refusal #{seq} is not of table {table}, "
                              f"round {rnd}")
    return seq


def _settled_words(h: Any, seq: int | None, who: str, role: str) -> tuple[str, str]:
    """After the result is in: the refusal it came from cleared with it where the role may clear one
    (the chief's: the same tap, so the chief's list does not keep a refusal already acted on), else
    said to be left for the chief; ``(Chinese, English)`` to add to the message, empty for none."""
    if seq is None:
        return "", ""
    try:
        h.acknowledge_refusal(seq, who, role)
    except RoleRefused:
        return f"；拒收 #{seq} 待裁判长点「已处理」", f"; refusal #{seq} is left for the chief referee to clear"
    return f"；拒收 #{seq} 已一并处理", f"; refusal #{seq} cleared with it"


def _do_hand_result(h: Any, who: str, role: str) -> str:
    """A result entered at the hub, and the refusal it settles cleared with it. The same entry sent
    again by the same person (a double submit) is answered as done, logged once: it was refused as
    "the table already has a result", which read as a failed entry. Either way the refusal is
    settled by whichever submit finds it still open, under the hub's lock: cleared exactly once."""
    rnd, table = _slot()
    line = _line(h, rnd, table)
    with h.lock:  # the result and the refusal it settles, nothing logged between them
        seq = _settles(h, rnd, table)
        repeated = h.core.repeated_hand_entry(line, who)
        if not repeated:
            h.hand_result(line, who, role)
        s_zh, s_en = _settled_words(h, seq, who, role)
    if repeated:
        return (f"第 {rnd} 轮 {table} 号桌已是这次录入的成绩（重复提交，只记录一次）{s_zh} / table {table}, round "
                f"{rnd} already holds this entry (sent twice: recorded once){s_en}")
    return f"已录入第 {rnd} 轮 {table} 号桌成绩{s_zh} / result of table {table}, round {rnd} entered{s_en}"


def _do_correct(h: Any, who: str, role: str) -> str:
    """A correction of the result the referee saw: the form's ``basis`` is the seq of the hub event
    that set it (the page fills it in for the table chosen). One whose basis is no longer the
    table's result is refused with what changed since (two chiefs, two open pages); the same
    correction again (a double tap) is answered as done, logged once — and still settles the refusal
    it names when that is open (it returned before clearing it, and the refusal stayed on the chief's
    list with its correction long made). Without ``basis`` (an older client) the correction is
    taken to be of the result as first recorded
    (:meth:`~table_service.event.core.HubCore.check_correction_basis`)."""
    rnd, table = _slot()
    line, reason = _line(h, rnd, table), form_text("reason", MAX_TEXT)
    basis = form_int("basis", 1) if request.form.get("basis") else None
    with h.lock:  # the basis check and the correction as one step: nothing is logged between them
        seq = _settles(h, rnd, table)
        if h.core.check_correction_basis(rnd, table, basis, line, reason, who):
            s_zh, s_en = _settled_words(h, seq, who, role)  # open only if no earlier submit cleared it
            return (f"第 {rnd} 轮 {table} 号桌已是这次纠正的结果（重复提交，只记录一次）{s_zh} / table {table}, "
                    f"round {rnd} already holds this correction (sent twice: recorded once){s_en}")
        ev = h.correct(rnd, table, line, reason, who, role)
        s_zh, s_en = _settled_words(h, seq, who, role)
    zh, en = f"已纠正第 {rnd} 轮 {table} 号桌", f"table {table}, round {rnd} corrected"
    if ev["data"]["late"]:
        zh, en = zh + "（逾期，裁判长纠正）", en + " (late: chief referee)"
    later = [r for r in h.core.published_rounds if r > rnd]
    if later:  # published draws are final: the organiser should know they were made on the old result
        zh += f"；第 {later[0]}–{later[-1]} 轮的编排按纠正前的成绩排出，不变" if len(later) > 1 else \
            f"；第 {later[0]} 轮的编排按纠正前的成绩排出，不变"
        en += f"; round(s) {', '.join(map(str, later))} were drawn on the result before it and stand"
    return f"{zh}{s_zh} / {en}{s_en}"


def _do_publish_results(h: Any, who: str, role: str) -> str:
    rnd = form_int("round", 1)
    h.publish_results(rnd, who, role)
    return f"第 {rnd} 轮成绩已公布 / round {rnd} results published"


def _do_appeal(h: Any, who: str, role: str) -> str:
    rnd, table = _slot()
    ev = h.file_appeal(rnd, table, form_text("team", MAX_ID), form_text("text", MAX_TEXT), who, role)
    return f"申诉 #{ev['data']['id']} 已登记 / appeal #{ev['data']['id']} filed"


def _do_decide(h: Any, who: str, role: str) -> str:
    aid = form_int("appeal", 1)
    h.decide_appeal(aid, form_text("decision", 20), form_text("note", MAX_TEXT), who, role)
    return f"申诉 #{aid} 已裁决 / appeal #{aid} decided"


def _do_acknowledge(h: Any, who: str, role: str) -> str:
    seq = form_int("refusal", 1)
    h.acknowledge_refusal(seq, who, role)
    return f"拒收 #{seq} 已处理 / refusal #{seq} cleared"


def _seen() -> int | None:
    """The log's seq the edit form's page was rendered at (``seen``), or None (a client without it)."""
    return form_int("seen", 0, 2**62) if request.form.get("seen", "").strip() else None


def _do_edit_event(h: Any, who: str, role: str) -> str:
    """The event's settings: name, ruleset and format (from the next published draw), and the
    rounds, draw method and match points, each optional (absent or empty: left as it is). The
    answer names the ones that changed, from what to what: the number of rounds and the match
    points are in force at once (the board's 最终排名, the standings)."""
    kind = form_text("kind", 20)
    fmt: dict[str, Any] = {"kind": kind}
    if kind == "deals":
        fmt["deals"] = form_int("deals", 1, 99)
    elif kind == "time":
        fmt["minutes"] = form_int("minutes", 1, 600)
    rounds = form_int("rounds", 1, 99) if request.form.get("rounds", "").strip() else None
    draw, points = (form_text(k, 20).strip() or None for k in ("draw", "match_points"))
    name, ruleset, seen = form_text("name", MAX_NAME), form_text("ruleset", MAX_ID), _seen()
    with h.lock:  # what it was, and the edit, with nothing logged between
        before = dict(h.core.cfg["event"])
        ev = h.edit_event(name, ruleset, fmt, who, role, seen=seen, rounds=rounds, draw=draw, match_points=points)
    zh, en = "赛事设置已修改，自下一次公布编排起生效", "event settings changed (from the next published draw)"
    changed = [k for k in SETTINGS if k in ev["data"]]
    if changed:
        def shown(key: str, v: Any) -> tuple[str, str]:
            return METHOD_WORDS.get(v, (str(v), str(v))) if key == "draw" else (str(v), str(v))
        zh += "；" + "、".join(f"{SETTING_WORDS[k][0]} {shown(k, before.get(k))[0]}→{shown(k, ev['data'][k])[0]}"
                              for k in changed) + "，即时生效"
        en += "; " + ", ".join(f"{SETTING_WORDS[k][1]} {shown(k, before.get(k))[1]} → {shown(k, ev['data'][k])[1]}"
                               for k in changed) + ", in force now"
    return f"{zh} / {en}"


def _do_edit_team(h: Any, who: str, role: str) -> str:
    team = form_text("team", MAX_ID)
    players = form_text("players", 4 * (MAX_ID + 1)).replace("，", ",").split(",")
    h.edit_team(team, form_text("name", MAX_ID), players, who, role, seen=_seen())
    return f"队伍 {team} 已修改，自下一次公布编排起生效 / team {team} changed (from the next published draw)"


def _do_add_team(h: Any, who: str, role: str) -> str:
    """A late entry from the desk: the team's id, name and players as the edit form takes them
    (a Chinese comma too). The answer names it by its name, and says when a draft must be redrawn."""
    players = form_text("players", 4 * (MAX_ID + 1)).replace("，", ",").split(",")
    ev = h.add_team(form_text("team", MAX_ID), form_text("name", MAX_ID), players, who, role)
    name = ev["data"]["name"]
    zh, en = f"已添加队伍「{name}」，自第 1 轮起编排", f"team {name} added: drawn from round 1"
    if h.core.draws.get(1) is not None:  # a draft of round 1 without it: stale now
        zh, en = zh + "；第 1 轮草案须重新编排", en + "; redraw round 1's draft"
    return f"{zh} / {en}"


def _do_withdraw_team(h: Any, who: str, role: str) -> str:
    team = form_text("team", MAX_ID)
    ev = h.withdraw_team(team, form_text("reason", MAX_TEXT), who, role)
    n = ev["data"]["from_round"]
    return (f"{team} 已退赛：自第 {n} 轮起不再编排，已赛成绩保留 / {team} withdrawn: not drawn from round {n} on, "
            "its results so far stand")


def _do_reinstate_team(h: Any, who: str, role: str) -> str:
    team = form_text("team", MAX_ID)
    ev = h.reinstate_team(team, who, role)
    n = ev["data"]["from_round"]
    return f"{team} 已恢复参赛，第 {n} 轮起照常编排 / {team} reinstated: drawn again from round {n}"


def _pasted_or_file(what: tuple[str, str]) -> str:
    """The text of an import: the lines pasted (``lines``) or the file chosen (``file``; UTF-8, a BOM
    allowed), one or the other. ``what``: the file's kind as the refusal names it (Chinese, English)."""
    text = request.form.get("lines", "")
    upload = request.files.get("file")
    if upload is not None and upload.filename:
        if text.strip():
            raise EventInputError("请只用一种方式：粘贴或选择文件 / paste the lines or choose a file, not both")
        try:
            text = upload.read().decode("utf-8-sig")
        except UnicodeDecodeError:
            raise EventInputError(f"{what[0]}须为 UTF-8 文本 / {what[1]} must be UTF-8 text") from None
    return text


def _do_import(h: Any, who: str, role: str) -> str:
    """The lines pasted, or a file chosen: RESULTS lines (the export of another hub) or a table with
    a header row (a spreadsheet saved as CSV, or its cells copied): an organiser with 500 lines
    should not have to paste them, nor turn a federation's sheet into JSON. Lines already recorded
    as they are are skipped and counted; bad lines refuse the import, every one named."""
    text = _pasted_or_file(("成绩文件（RESULTS 行或带表头的 CSV）", "the results file (RESULTS lines or CSV with a header "
                                                                "row)"))
    n, skipped = h.import_results(text, who, role)
    if not skipped:
        return f"已导入 {n} 条成绩 / {n} result(s) imported"
    return (f"已导入 {n} 条成绩；{skipped} 行与已记录的成绩相同，已跳过 / {n} result(s) imported; {skipped} line(s) "
            "already recorded as they are, skipped")


@dataclass(frozen=True)
class Shown:
    """An answer the organiser page draws at once rather than after a redirect: a preview whose
    rows would not fit the session cookie a redirect carries its message in. ``context``: what the
    page adds (:func:`~table_service.event.web.admin_context`); ``data``: what a JSON client gets."""

    message: str
    context: dict[str, Any]
    data: dict[str, Any]


def _do_import_teams(h: Any, who: str, role: str) -> str | Shown:
    """The entry list from a spreadsheet (``step`` ``preview``: checked and shown, nothing logged;
    ``import``, the preview's one tap: every team added, all or nothing). Every bad row refuses it,
    each named (:mod:`~table_service.event.team_import`)."""
    text = _pasted_or_file(("队伍文件", "the teams file"))
    step = request.form.get("step", "import")
    if step not in ("preview", "import"):
        raise EventInputError("step 须为 preview 或 import / step must be preview or import")
    teams = h.import_teams(text, who, role, preview=step == "preview")
    n = len(teams)
    teams_en = f"{n} team" if n == 1 else f"{n} teams"
    if step == "preview":
        button = "Import this team" if n == 1 else f"Import these {n} teams"  # the button's own words
        return Shown(f"预览：{n} 队无误，核对后点「导入这 {n} 队」 / preview: {teams_en}, no errors: check them, then tap "
                     f"{button}", {"team_preview": {"text": text, "typed": request.form.get("lines", ""),
                                                       "teams": teams}}, {"teams": teams})
    zh, en = f"已导入 {n} 队，自第 1 轮起编排", f"{teams_en} imported: drawn from round 1"
    if h.core.draws.get(1) is not None:  # a draft of round 1 without them: stale now
        zh, en = zh + "；第 1 轮草案须重新编排", en + "; redraw round 1's draft"
    return f"{zh} / {en}"


def _do_deck(h: Any, who: str, role: str) -> str:
    f = request.files.get("deck")
    if f is None or not f.filename:
        raise EventInputError("请选择登记文件（deck.npz） / choose the enrolment file (deck.npz)")
    ev = h.publish_deck(f.read(), who, role)
    d, m = ev["data"], ev["data"]["meta"]
    # The fan check's verdict is itself "中文 / English": each half goes to its own language's half
    # (appended whole, it was the English reader's alone).
    v_zh, v_en = halves(m["verdict"])
    return (f"比赛用牌已发给各桌：登记 {m['cards']} 张牌面，{d['sha256'][:12]}。{v_zh} / the event's deck goes to every "
            f"table: {m['cards']} faces enrolled, {d['sha256'][:12]}. {v_en}")


def _do_withdraw_deck(h: Any, who: str, role: str) -> str:
    ev = h.withdraw_deck(who, role)
    return (f"比赛用牌 {ev['data']['sha256'][:12]} 已撤回：各桌不登记读牌、边打边学 / the event's deck "
            f"{ev['data']['sha256'][:12]} is withdrawn: the tables read unenrolled and learn the deck in play")


def _do_move_match(h: Any, who: str, role: str) -> str:
    """A failed table's match of the current round moved to a spare table (``to``), the reason said."""
    rnd, table = _slot()
    to = form_text("to", MAX_ID).strip()
    if not to:
        raise EventInputError("请选择新桌 / choose the table to move the match to")
    ev = move_match(h, rnd, table, to, form_text("reason", MAX_TEXT).strip(), who, role, _move_correction())
    resume = ev["data"]["standing"]["resume"]
    zh, en = "从第 1 副开始", "from deal 1"
    if resume is not None:
        lv = {side: level_words(v) for side, v in resume["levels"].items()}
        zh, en = (f"接着打：已打 {resume['deals']} 副，南北 {lv['NS']}，东西 {lv['EW']}",
                  f"it goes on: {resume['deals']} deals played, NS {lv['NS']}, EW {lv['EW']}")
    return (f"第 {rnd} 轮 {table} 号桌的比赛已移至 {to} 号桌，{zh}：编排已发给 {to} 号桌，{table} 号桌的编排已撤回，成绩由 {to} "
            f"号桌上报 / round {rnd}'s match at table {table} moved to table {to}, {en}: the assignment went to table "
            f"{to}, table {table}'s was withdrawn, and the result comes from table {to}")


def _move_correction() -> dict[str, Any] | None:
    """What the chief read on the failed table's score sheet (the move form, prefilled with the
    table's last report): each side's level, the deals played, whose level the next deal is at.
    A field left out or blank keeps the report's (a client that posts none moves the match as the
    table last reported it); each is checked by :func:`~.moves.carried_standing`."""
    fix: dict[str, Any] = {}
    levels = {side: form_text(f"{side.lower()}_level", 2).strip() for side in ("NS", "EW")}
    if any(levels.values()):
        fix["levels"] = {side: v for side, v in levels.items() if v}
    if request.form.get("deals_played", "").strip():
        fix["deals"] = form_int("deals_played", 0, 10_000)
    side = form_text("next_side", 2).strip()
    if side:
        fix["next_side"] = side
    return fix or None


ACTIONS: dict[str, Callable[[Any, str, str], str | Shown]] = {
    "draw": _do_draw, "publish": _do_publish, "hand_result": _do_hand_result, "correct": _do_correct,
    "publish_results": _do_publish_results, "appeal": _do_appeal, "decide": _do_decide,
    "acknowledge": _do_acknowledge, "import": _do_import, "import_teams": _do_import_teams, "edit_team": _do_edit_team,
    "add_team": _do_add_team,
    "edit_event": _do_edit_event,
    "deck": _do_deck, "withdraw_deck": _do_withdraw_deck, "withdraw_team": _do_withdraw_team,
    "reinstate_team": _do_reinstate_team, "move_match": _do_move_match}
