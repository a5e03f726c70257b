"""Chinese-first labels with an English toggle.

One dictionary, used by the templates (``t('key')``) and handed to the page scripts as JSON, so a
label is written once. The language comes from the ``lang`` cookie (set by the toggle in the page,
client-side) or the ``DEFAULT_LANG`` setting.
"""

from __future__ import annotations

from flask import current_app, has_request_context, request

STRINGS: dict[str, tuple[str, str]] = {
    "app_title": ("掼蛋裁判台", "Guandan referee panel"),
    "login": ("登录", "Log in"),
    "logout": ("退出", "Log out"),
    "username": ("用户名", "User name"),
    "password": ("密码", "Password"),
    "login_failed": ("用户名或密码错误 / wrong user name or password", "Wrong user name or password"),
    "login_locked": ("登录失败次数过多，请 {s} 秒后再试 / too many failed logins, retry in {s} s",
                     "Too many failed logins, retry in {s} s"),
    "tables": ("比赛桌", "Tables"),
    "table": ("桌", "Table"),
    "no_tables": ("尚无比赛桌", "No tables yet"),
    "lang_toggle": ("English", "中文"),
    "round": ("轮次", "Round"),
    "deal": ("副", "Deal"),
    "status": ("状态", "Status"),
    "levels": ("级数", "Levels"),
    "level_card": ("级牌", "Level card"),
    "wild": ("逢人配", "wild"),
    "turn": ("轮到", "Turn"),
    "cards_left": ("余牌", "Cards left"),
    "report": ("报牌", "Report"),
    "current_trick": ("当前一圈", "Current trick"),
    "deal_so_far": ("本副牌记录", "The deal so far"),
    "tribute": ("进贡", "Tribute"),
    "return": ("还贡", "Return"),
    "anti_tribute": ("抗贡", "Anti-tribute"),
    "flags": ("标记", "Flags"),
    "no_flags": ("无待处理标记", "No open flags"),
    "rule": ("规则", "Rule"),
    "evidence": ("证据", "Evidence"),
    "timer_reading": ("计时读数", "Timer reading"),
    "confirm": ("确认", "Confirm"),
    "dismiss": ("驳回", "Dismiss"),
    "questions": ("待确认读牌", "Reads to confirm"),
    "read_ok": ("读牌正确", "Read is right"),
    "correct_to": ("更正为", "Correct to"),
    "actions": ("裁判操作", "Referee actions"),
    "penalty": ("判罚", "Penalty"),
    "warning": ("警告", "Warning"),
    "violation": ("违例", "Violation"),
    "foul": ("犯规", "Foul"),
    "loss": ("判负", "Loss"),
    "chief_only": ("仅裁判长", "chief referee only"),
    "side": ("方", "Side"),
    "seat": ("座位", "Seat"),
    "article": ("条款/原因", "Rule / reason"),
    "lose_turn": ("失去一次出牌权", "loses one turn"),
    "next_leader": ("下副首出", "Next leader"),
    "give": ("判罚", "Give"),
    "correct_play": ("更正出牌", "Correct a play"),
    "event_seq": ("事件号", "Event no."),
    "cards": ("牌", "Cards"),
    "declare_reading": ("宣告逢人配牌型", "Declare a wild-card reading"),
    "kind": ("牌型", "Pattern"),
    "rank": ("点数", "Rank"),
    "void_event": ("撤销事件", "Void an event"),
    "reason": ("原因", "Reason"),
    "late_arrival": ("迟到", "Late arrival"),
    "minutes": ("分钟", "Minutes"),
    "end_round": ("结束本轮", "End the round"),
    "enter_play": ("录入出牌", "Enter a play"),
    "pass": ("过", "Pass"),
    "submit": ("提交", "Submit"),
    "score_sheet": ("记分表", "Score sheet"),
    "sign": ("签字", "Sign"),
    "signed": ("已签字", "Signed"),
    "level_points": ("级差分", "Level-difference points"),
    "match_points": ("比赛分", "Match points"),
    "result": ("结果", "Result"),
    "finish_order": ("名次", "Finishing order"),
    "gain": ("升级", "Gain"),
    "levels_after": ("之后级数", "Levels after"),
    "level_diff": ("级差 · 级差分 EW:NS", "Level diff · points EW:NS"),
    "note": ("备注", "Note"),
    "penalties": ("判罚记录", "Penalties"),
    "live": ("实时", "live"),
    "reconnecting": ("重新连接中…", "reconnecting…"),
    "recent_plays": ("最近出牌", "Recent plays"),
    "overtime": ("超时", "overtime"),
    "devices": ("设备", "Devices"),
    "event_log": ("事件记录", "Event log"),
    "back": ("返回", "Back"),
    "done": ("已提交", "Submitted"),
    "rejected": ("被拒绝", "Rejected"),
    "release_deal": ("公开此副（复式）", "Release deal (duplicate)"),
    "feed": ("直播数据", "Broadcast feed"),
    "overlay": ("直播画面", "Overlay"),
    "role_viewer": ("观众", "viewer"),
    "role_referee": ("裁判", "referee"),
    "role_chief": ("裁判长", "chief referee"),
    "seat_E": ("东", "East"),
    "seat_S": ("南", "South"),
    "seat_W": ("西", "West"),
    "seat_N": ("北", "North"),
    "side_EW": ("东西", "EW"),
    "side_NS": ("南北", "NS"),
}


def _add_words() -> None:
    """Status words and pattern names the pages show (keys ``st_<value>`` and ``kind_<kind>``)."""
    from table_service.rules import KIND_NAMES_ZH

    for kind, zh in KIND_NAMES_ZH.items():
        STRINGS[f"kind_{kind}"] = (zh, kind.replace("_", " "))
    words = {
        "cutting": ("切牌", "cutting"), "drawing": ("抓牌", "drawing"), "tribute": ("进贡", "tribute"),
        "return": ("还贡", "return"), "play": ("出牌", "play"), "deal_over": ("本副结束", "deal over"),
        "over": ("已结束", "over"), "open": ("待处理", "open"), "confirmed": ("已确认", "confirmed"),
        "dismissed": ("已驳回", "dismissed"), "withdrawn": ("已撤回", "withdrawn"),
        "online": ("在线", "online"), "offline": ("离线", "offline"), "unknown": ("未知", "unknown"),
        "camera": ("摄像头", "camera"), "screen": ("隔板屏", "screen"), "gpio": ("GPIO", "GPIO"),
        "foul": ("犯规", "foul"), "ended": ("中止", "ended"), "past_a": ("过A", "past A"),
        "deals": ("副数到", "deals played"), "time": ("时间到", "time"), "loss": ("判负", "loss"),
        "forfeit": ("弃权", "forfeit"),
    }
    for key, pair in words.items():
        STRINGS[f"st_{key}"] = pair


_add_words()


def current_lang() -> str:
    """``zh`` or ``en`` for this request."""
    lang = request.cookies.get("lang") if has_request_context() else None
    if lang not in ("zh", "en"):
        lang = current_app.config.get("DEFAULT_LANG", "zh")
    return lang


def tr(key: str) -> str:
    """The label ``key`` in the request's language (the key itself if unknown, so gaps show)."""
    pair = STRINGS.get(key)
    if pair is None:
        return key
    return pair[0] if current_lang() == "zh" else pair[1]


def strings_for_js() -> dict[str, list[str]]:
    """Both languages of every label, for the page scripts."""
    return {k: list(v) for k, v in STRINGS.items()}
