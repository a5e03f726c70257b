"""Chinese-first labels with an English toggle.

One dictionary, used by the templates (``t('key')``) and handed to the page scripts as JSON, so a
label is written once. The language comes from the ``lang`` cookie (set by the toggle in the page,
client-side) or the ``DEFAULT_LANG`` setting.
"""

from __future__ import annotations

from flask import current_app, has_request_context, request

from table_service.engine.flags import ARTICLES
from table_service.rules.patterns import KIND_NAMES_ZH

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
    "redraw_deal": ("牌数有误，重新洗牌抓牌", "Cards miscounted: shuffle and draw again"),
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
    "role_spectator": ("观众", "spectator"),
    "role_viewer": ("旁观官员", "viewer"),
    "role_referee": ("裁判", "referee"),
    "role_chief": ("裁判长", "chief referee"),
    "seat_E": ("东", "East"),
    "seat_S": ("南", "South"),
    "seat_W": ("西", "West"),
    "seat_N": ("北", "North"),
    "side_EW": ("东西", "EW"),
    "side_NS": ("南北", "NS"),
    # --- one-tap paths and the forms of every referee event
    "next_step": ("下一步", "Next step"),
    "start_round": ("开始新一轮", "Start a round"),
    "start_same_players": ("同样选手再开一轮", "Start again with the same players"),
    "players": ("选手", "Players"),
    "teams": ("队名", "Teams"),
    "ruleset": ("规则", "Rules"),
    "format": ("赛制", "Format"),
    "fmt_past_a": ("打过A为止", "Until a side passes A"),
    "fmt_deals": ("固定副数", "A number of deals"),
    "fmt_time": ("限时", "Time limit"),
    "deals_count": ("副数", "Deals"),
    "start_levels": ("起始级数", "Starting levels"),
    "round_no": ("轮次号", "Round no."),
    "board": ("牌局编号（复式）", "Board (duplicate)"),
    "first_cut": ("切牌（南家切出的牌）", "First cut (South's cut card)"),
    "recut": ("需重新切牌", "Re-cut needed"),
    "first_drawer": ("首先抓牌", "First to draw"),
    "drawing_finished": ("抓牌完成", "Drawing finished"),
    "counts": ("各家张数", "Cards per seat"),
    "cut_card_holder": ("翻牌持有者（首出）", "Holder of the turned card (leads)"),
    "tribute_seen": ("进贡（看到的牌）", "Tribute seen"),
    "return_seen": ("还贡（看到的牌）", "Return seen"),
    "anti_tribute_declared": ("抗贡（亮出两张大王）", "Anti-tribute declared (both big jokers shown)"),
    "tribute_by": ("{s} 进贡", "Tribute by {s}"),
    "return_by": ("{s} 还贡", "Return by {s}"),
    "enter_as_read": ("按摄像头读数录入：{c}", "Enter as the camera read it: {c}"),
    "entered_as_read": ("已按摄像头读数录入", "entered as the camera read it"),
    "pass_for": ("{s} 过牌", "Pass for {s}"),
    "play_for": ("{s} 出牌", "Play for {s}"),
    "report_for": ("{s} 报牌", "Report card for {s}"),
    "report_pressed": ("报牌（代按）", "Report card (on behalf)"),
    "card_exposed": ("暴露张", "Exposed card"),
    "card": ("牌", "Card"),
    "pick_cards": ("点选牌", "Tap the cards"),
    "clear": ("清除", "Clear"),
    "send": ("确定", "Enter"),
    "cancel": ("取消", "Cancel"),
    "all_events": ("全部裁判录入", "Every referee entry"),
    "sign_sheet": ("记分表签字", "Sign the score sheet"),
    "waiting_next_deal": ("等待下一副", "Waiting for the next deal"),
    "round_over": ("本轮已结束", "The round is over"),
    "no_round": ("尚未开始比赛", "No round yet"),
    "candidates": ("可能的读法（点选即确认）", "Likely readings (tap to answer)"),
    "doubt_reason": ("存疑原因", "Why in doubt"),
    "other_cards": ("其他：", "Other:"),
    "as_read": ("按读出", "as read"),
    "deal_no": ("第 {n} 副", "Deal {n}"),
    "between_deals": ("副间", "Between deals"),
    "tap_to_correct": ("点一手牌可更正或撤销", "Tap a play to correct or void it"),
    "correct_this": ("更正这手牌", "Correct this play"),
    "void_this": ("撤销这手牌", "Void this play"),
    "declare_this": ("宣告牌型", "Declare its pattern"),
    "ladder": ("处罚阶梯", "Penalty ladder"),
    "warnings": ("警告", "warnings"),
    "violations": ("违例", "violations"),
    "fouls": ("犯规", "fouls"),
    "give_warning": ("警告", "Warning"),
    "give_violation": ("违例", "Violation"),
    "give_foul": ("犯规…", "Foul…"),
    "auto": ("自动", "auto"),
    "deadline": ("时限", "Deadline"),
    "over_by": ("超出", "Over by"),
    "at_time": ("时间", "Time"),
    "seconds": ("秒", "s"),
    "camera_state": ("摄像头", "Camera"),
    "cam_reading": ("正常读牌", "reading"),
    "cam_lagging": ("读牌滞后", "lagging"),
    "cam_not_reading": ("未在读牌", "not reading"),
    "cam_offline": ("离线", "offline"),
    "delayed": ("延时 {n} 秒", "delayed {n} s"),
    "score_bug_round": ("第 {n} 轮", "Round {n}"),
    "left": ("剩", "left"),
    "finished_place": ("第 {n} 名", "#{n} out"),
    "ruling": ("裁判判罚", "Ruling"),
    "flag_called": ("裁判标记", "Referee flag"),
    "ev_turn": ("应出牌者", "Whose turn"),
    "ev_cards": ("牌", "Cards"),
    "ev_top": ("要管的牌", "Top play"),
    "ev_card": ("牌", "Card"),
    "ev_earlier": ("之前出现", "Seen before at"),
    "ev_count": ("余牌", "Cards left"),
    "ev_play_seq": ("出牌", "Play"),
    "ev_next_actor": ("下一位出牌", "Next to act"),
    "ev_first_seq": ("第一次报牌", "First report"),
    "ev_tribute": ("进贡的牌", "Tribute"),
    "ev_tribute_seq": ("进贡", "Tribute event"),
    "ev_held": ("持有", "Held"),
    "ev_settled": ("已定论", "Settled"),
    "ev_level": ("级牌", "Level"),
    "ev_to": ("给", "To"),
    "ev_legal_if": ("合法条件", "Legal if"),
    "ev_proof_card": ("证明的牌", "Proof card"),
    "ev_proof_seq": ("证明事件", "Proof event"),
    "ev_proof": ("证明", "Proof"),
    "ev_phase": ("阶段", "Phase"),
    "ev_deadline_ms": ("时限", "Deadline"),
    "ev_overtime_ms": ("超时", "Overtime"),
    "ev_counts": ("张数", "Counts"),
    "ev_reason": ("原因", "Reason"),
    "ev_side": ("方", "Side"),
    "ev_source": ("来源", "Source"),
    "ev_position_mm": ("位置", "Position"),
    "ev_seconds": ("时长", "Duration"),
    "ev_trick": ("第几圈", "Trick"),
    "ev_cards_declared": ("声明的牌", "Declared cards"),
    "phase_lead": ("领出", "lead"),
    "phase_follow": ("跟牌", "follow"),
    "src_camera": ("摄像头", "camera"),
    "src_panel": ("面板", "panel"),
    "src_screen": ("隔板屏", "screen"),
    "src_gpio": ("按钮", "button"),
    "src_clock": ("时钟", "clock"),
    "place_1": ("上游", "1st"),
    "place_2": ("二游", "2nd"),
    "place_3": ("三游", "3rd"),
    "place_4": ("下游", "4th"),
    "cards_unit": ("张", "cards"),
    "report_mark": ("报", "LAST"),
    "earlier_plays": ("前 {n} 手", "+{n} earlier"),
    "ruled": ("判", "ruled"),
    "live_delayed": ("延时 {n} 秒", "DELAYED {n}s"),
    "ov_table": ("第 {n} 桌", "TABLE {n}"),
    "ov_round_deal": ("第 {r} 轮 · 第 {d} 副", "R{r} · DEAL {d}"),
    "yes": ("是", "yes"),
    "no": ("否", "no"),
}


#: Pattern names in English (the Chinese names come from the rules package).
KIND_NAMES_EN: dict[str, str] = {
    "single": "single", "pair": "pair", "triple": "triple", "full_house": "full house",
    "straight": "straight", "three_pairs": "three pairs in a row", "two_triples": "two triples in a row",
    "bomb": "bomb", "straight_flush": "straight flush", "joker_bomb": "four jokers",
}


def split_pair(text: str) -> tuple[str, str]:
    """``"中文 / English"`` as its two halves (the whole text twice when it has no ``" / "``)."""
    zh, sep, en = str(text).partition(" / ")
    return (zh.strip(), en.strip()) if sep else (str(text), str(text))


def _add_words() -> None:
    """Status words, pattern names and rule names the pages show (keys ``st_<value>``,
    ``kind_<kind>`` and ``rule_<rule>``): both languages in the data, one shown per view."""
    for kind, zh in KIND_NAMES_ZH.items():
        STRINGS[f"kind_{kind}"] = (zh, KIND_NAMES_EN.get(kind, kind.replace("_", " ")))
    for rule, article in ARTICLES.items():
        STRINGS[f"rule_{rule}"] = split_pair(article)
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
    """``zh`` or ``en`` for this request: ``?lang=`` (the overlay's browser source), else the
    ``lang`` cookie, else ``DEFAULT_LANG``."""
    lang = None
    if has_request_context():
        lang = request.args.get("lang")
        if lang not in ("zh", "en"):
            lang = request.cookies.get("lang")
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
