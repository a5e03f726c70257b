"""Chinese-first labels with an English toggle.

One dictionary, used by the templates (``t('key')``) and handed to the page scripts as JSON, so a
label is written once. The language comes from the ``lang`` cookie (set by the toggle in the page,
client-side) or the ``DEFAULT_LANG`` setting.
"""

from __future__ import annotations

import re

from flask import current_app, g, has_request_context, request

from table_service.engine.errors import halves
from table_service.engine.flags import ARTICLES
from table_service.engine.scoring import RESULT_REASONS
from table_service.rules.patterns import KIND_NAMES_ZH

STRINGS: dict[str, tuple[str, str]] = {
    # The chief referee's accounts page (web/accounts.py, accounts.html, accounts.js).
    "accounts": ("账号", "Accounts"),
    "acc_title": ("账号管理", "Accounts"),
    "acc_here": ("本页管理本服务器的账号（本桌的 Pi 或赛事中心，各有一份）。删除账号或修改密码会立即结束其登录。",
                 "The accounts of this server (this table's Pi or the event hub: each keeps its own). "
                 "Removing an account or changing its password ends its sessions at once."),
    "acc_name": ("用户名", "User name"),
    "acc_role": ("角色", "Role"),
    "acc_lock": ("登录锁定", "Login lock-out"),
    "acc_ok": ("正常", "not locked"),
    "acc_locked": ("已锁定", "locked out"),
    "acc_failures": ("近期登录失败次数", "recent failed logins"),
    "acc_auto_s": ("秒后自动解除", "s until it ends by itself"),
    "acc_unlock": ("解除锁定", "Unlock"),
    "acc_actions": ("操作", "Actions"),
    "acc_you": ("（本人）", "(you)"),
    "acc_self_note": ("不能修改自己的角色或删除自己", "You cannot change your own role or remove yourself"),
    "acc_set_role": ("修改角色", "Change role"),
    "acc_set_password": ("修改密码", "Change password"),
    "acc_new_password": ("新密码", "New password"),
    "acc_repeat": ("再次输入", "Repeat"),
    "acc_pw_hint": ("至少 8 位", "at least 8 characters"),
    "acc_pw_mismatch": ("两次输入的密码不一致", "The passwords differ"),
    "acc_remove": ("删除账号", "Remove"),
    "acc_confirm_remove": ("确定删除账号 {name}？其登录将立即失效。", "Remove the account {name}? Its sessions end at once."),
    "acc_confirm_chief": ("确定把 {name} 设为裁判长？裁判长可以管理所有账号。",
                          "Make {name} a chief referee? A chief referee manages every account."),
    "acc_add": ("添加账号", "Add an account"),
    "acc_addresses": ("被整体锁定的地址", "Addresses locked as a whole"),
    "acc_address": ("地址", "Address"),
    "acc_none": ("无", "none"),
    # Event accounts (赛事账号, web/event_accounts.py): the hub's marks, a table's accounts from the hub.
    "acc_event": ("赛事账号", "Event account"),
    "acc_event_note": ("赛事账号在每张比赛桌有效：勾选的账号（裁判长、裁判、旁观官员）连同其密码散列（从不发送密码本身）"
                       "由赛事中心发往各比赛桌；修改密码、降级或删除后，各桌随之更新并结束其登录。",
                       "Event accounts are valid at every table: the hub sends the marked accounts (chief referee, "
                       "referee, viewer) with their password hashes (never a password) to every table; a new "
                       "password, a demotion or a removal follows them there and ends their sessions."),
    "acc_version_sent": ("已发往各比赛桌的版本", "version sent to the tables"),
    "acc_event_on": ("每张比赛桌有效", "valid at every table"),
    "acc_event_mark": ("设为赛事账号", "Make an event account"),
    "acc_event_unmark": ("取消赛事账号", "Stop sending to the tables"),
    "acc_event_no_spectator": ("观众账号不发往比赛桌", "spectator accounts are not sent to the tables"),
    "acc_event_box": ("赛事账号 — 在每张比赛桌有效", "Event account — valid at every table"),
    "acc_confirm_event_chief": ("确定把裁判长 {name} 设为赛事账号？其在每张比赛桌都是裁判长。",
                                "Make the chief referee {name} an event account? They will be chief referee at every table."),
    "acc_from_hub": ("来自赛事中心", "from the event hub"),
    "acc_hub_note": ("来自赛事中心的账号在此只读，请在赛事中心的账号页修改。",
                     "Accounts from the event hub are read-only here: change them on the hub's accounts page."),
    "acc_version_received": ("收到的赛事中心账号版本", "version of the hub's accounts received"),
    "acc_local_wins": ("同名的本机账号优先。", "A local account of the same name wins."),
    "acc_shadowed": ("因本机同名账号而未生效的赛事中心账号", "the hub's accounts not in force here (a local account has the name)"),
    "acc_hub_readonly": ("来自赛事中心：只读", "From the event hub: read-only"),
    "app_title": ("掼蛋裁判台", "Guandan referee panel"),
    "hub_title": ("掼蛋赛事中心", "Guandan event hub"),
    "login": ("登录", "Log in"),
    "logout": ("退出", "Log out"),
    "username": ("用户名", "User name"),
    "password": ("密码", "Password"),
    "login_ended_action": ("登录已过期，刚才的操作未执行：请登录后再做一次 / your login had ended and the action was "
                           "not done: log in, then do it again", "Your login had ended and the action was not done: "
                           "log in, then do it again"),
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
    "deal_so_far": ("本副记录", "The deal so far"),
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
    # A penalty_escalation flag: confirming it applies nothing (the chief gives the foul with 犯规…).
    "escalation_noted": ("已阅，不加罚", "Noted, no penalty"),
    "escalation_noted_title": ("确认此标记不判任何处罚；判犯规请用“犯规…”",
                               "Confirming this flag gives no penalty; to give the foul use Foul…"),
    "questions": ("识别存疑", "Camera questions"),
    "read_ok": ("读牌正确", "Read is right"),
    "correct_to": ("纠正为", "Correct to"),
    "actions": ("裁判操作", "Referee actions"),
    "penalty": ("处罚", "Penalty"),
    "penalty_level": ("处罚等级", "Penalty level"),
    "give_penalty": ("判罚", "Give a penalty"),
    "warning": ("警告", "Warning"),
    "violation": ("违例", "Violation"),
    "foul": ("犯规", "Foul"),
    "foul_chief": ("犯规（仅裁判长）", "Foul (chief referee only)"),
    "loss_chief": ("判负（仅裁判长）", "Loss (chief referee only)"),
    "loss": ("判负", "Loss"),
    "chief_only": ("仅裁判长", "chief referee only"),
    "side": ("方", "Side"),
    "seat": ("座位", "Seat"),
    "article": ("条款/原因", "Rule / reason"),
    "lose_turn": ("失去一次出牌权", "loses one turn"),
    "next_leader": ("下副领出", "Next leader"),
    "give": ("判罚", "Give"),
    "cards": ("牌", "Cards"),
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
    "sign_for": ("签字 · {side}", "Sign for {side}"),
    "signature_of": ("{side} 签字", "Signature of {side}"),
    "level_points": ("级差分", "Level-difference points"),
    "match_points": ("比赛分", "Match points"),
    "result": ("结果", "Result"),
    "finish_order": ("名次", "Finishing order"),
    "gain": ("升级", "Gain"),
    "levels_after": ("之后级数", "Levels after"),
    "level_diff": ("级差 · 级差分", "Level diff · points"),
    "note": ("备注", "Note"),
    "penalties": ("处罚记录", "Penalties"),
    "live": ("实时", "live"),
    "reconnecting": ("重新连接中…", "reconnecting…"),
    "recent_plays": ("最近出牌", "Recent plays"),
    "overtime": ("超时", "overtime"),
    "devices": ("设备", "Devices"),
    "event_log": ("事件记录", "Event log"),
    "back": ("返回", "Back"),
    "done": ("已提交", "Submitted"),
    "rejected": ("被拒绝", "Rejected"),
    "http_error": ("服务器未能处理（HTTP {n}）", "The server could not answer (HTTP {n})"),
    "not_done": ("未执行", "Not done"),
    "already_done": ("之前那次点击已完成", "The earlier tap had been done"),
    "late_chief_hint": ("超过警告时限（本轮规则，江苏为 5 分钟）的迟到由裁判长判罚",
                        "A late arrival over the warning limit (the round's rules; 5 min under Jiangsu's) is the chief referee's"),
    "record": ("记录", "Record"),
    "record_all": ("全部", "Everything"),
    "record_refused": ("只看被拒绝的", "Refused only"),
    "record_what": ("操作", "What"),
    "record_who": ("谁", "Who"),
    "record_details": ("内容", "Details"),
    "clock_time": ("时间", "Time"),
    "refresh": ("刷新", "Refresh"),
    "stop_play": ("叫停", "Stop play"),
    "pick_cards_first": ("请先选出实际打出的牌", "Pick the cards that were played first"),
    "outcome_unknown": ("结果未知", "Outcome not known yet"),
    "network_down": ("网络中断，未能确认是否提交：请检查网络后再点一次（同一操作不会执行两次）",
                     "Network down, not confirmed: check the connection and tap again (one action is never done twice)"),
    "login_ended": ("登录已失效，请重新登录", "Your login has ended: log in again"),
    "feed": ("公开数据", "Public feed"),
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
    "by_tap_hint": ("纠正出牌、声明逢人配牌型、撤销：点一下牌桌或事件列表中的那一手",
                    "Correct a play, state a wild card's pattern, void: tap that play on the table or in the events"),
    "next_round_from_hub": ("下一轮由赛事中心编排，请在上方的编排卡上一键开始",
                            "The next round comes from the event hub: start it with one tap on the assignment card above"),
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
    "board": ("牌号（复式）", "Board (duplicate)"),
    "first_cut": ("翻牌（南家切牌后翻出）", "Cut card (turned up after South cuts)"),
    "recut": ("需重新切牌", "Re-cut needed"),
    "first_drawer": ("首先抓牌", "First to draw"),
    "drawing_finished": ("抓牌完毕", "Drawing finished"),
    "counts": ("各家张数", "Cards per seat"),
    "cut_card_holder": ("翻牌持有者（领出）", "Holder of the turned card (leads)"),
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
    "tap_to_correct": ("点一手牌可纠正或撤销", "Tap a play to correct or void it"),
    "correct_this": ("纠正这手牌", "Correct this play"),
    "void_this": ("撤销这手牌", "Void this play"),
    "correct_tribute": ("纠正贡牌", "Correct the tribute"),
    "correct_tribute_title": ("纠正贡牌 #{seq}：{s} 进贡了", "Correct tribute #{seq}: {s} gave"),
    "correct_tribute_text": ("错贡的牌退回进贡者，点选应贡的牌；已出的牌照旧有效。随后在标记上给警告。",
                             "The wrong card goes back to the tributor; tap the card given now. The plays stand. "
                             "Then give the warning on the flag."),
    "correct_tribute_reason": ("错贡，收回重贡", "wrong tribute taken back and given again"),
    "tribute_given_first": ("原贡 {c}", "first given {c}"),
    "correct_return_title": ("纠正识别 #{seq}：{s} 还贡了", "Correct the reading of return #{seq}: {s} returned"),
    "correct_return_text": ("识别有误：点选实际还的牌。无人犯规，不给处罚；已出的牌照旧有效。",
                            "Misread: tap the card actually returned. Nobody erred: no penalty. The plays stand."),
    "misread_card": ("识别有误：本来就是这张（无人犯规）", "Misread: this card was given (nobody erred)"),
    "correct_reading": ("纠正识别", "Correct the reading"),
    "declare_this": ("声明牌型", "Declare its pattern"),
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
    "ev_corrected_card": ("纠正后的贡牌", "Corrected to"),
    "ev_corrected_seq": ("纠正", "Correction"),
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
    "report_mark": ("报", "≤10"),
    "earlier_plays": ("前 {n} 手", "+{n} earlier"),
    "ruled": ("判", "ruled"),
    "live_delayed": ("延时 {n} 秒", "DELAYED {n}s"),
    "ov_table": ("第 {n} 桌", "TABLE {n}"),
    "ov_round_deal": ("第 {r} 轮 · 第 {d} 副", "R{r} · DEAL {d}"),
    # the broadcast overlay's between-deal and round-end boxes, the duplicate hold, the wait (s37 audit)
    "ov_round": ("第 {r} 轮", "ROUND {r}"),
    "ov_waiting": ("等待开局", "waiting for the round"),
    "ov_held": ("本副复式保留，结束后公布", "duplicate board: shown after both rooms finish"),
    "ov_deal_result": ("第 {d} 副结果", "Deal {d} result"),
    "ov_gain": ("{side} 升 {n} 级", "{side} up {n}"),
    "ov_no_gain": ("本副不升级", "no level gained"),
    "ov_round_over": ("第 {r} 轮结束", "Round {r} over"),
    "ov_wins": ("{side} 胜", "{side} win"),
    "ov_draw": ("平局", "draw"),
    "ov_face_down": ("扣牌", "face down"),
    "ov_tribute_title": ("进贡 · 还贡", "Tribute · return"),
    "yes": ("是", "yes"),
    "no": ("否", "no"),
    # --- the audit's fixes: confirmations, undo, the pending badge, hints (issue: panel audit)
    "confirm_end_round": ("确定结束第 {n} 轮？结束后不能撤销。", "End round {n}? This cannot be undone."),
    "confirm_end_round_text": ("结束本轮会立即结算成绩，之后无法恢复本轮。", "The round is scored at once and cannot be resumed."),
    "undo": ("撤销", "Undo"),
    "undo_title": ("撤销 #{seq}：{what}？", "Undo #{seq}: {what}?"),
    "undo_text": ("撤销后本副按其余事件重新计算。", "The deal is counted again without it."),
    "undo_reason_default": ("裁判撤销", "undone by the referee"),
    "ruling_confirmed": ("确认标记 {f}", "flag {f} confirmed"),
    "ruling_dismissed": ("驳回标记 {f}", "flag {f} dismissed"),
    "undo_ruling": ("撤销裁定", "Undo ruling"),
    "undo_penalty": ("撤销处罚", "Undo penalty"),
    "reports_pressed": ("报牌记录", "Report cards pressed"),
    "question_first": ("先答复识别存疑", "Answer the camera question first"),
    "question_first_hint": ("识别存疑待裁判答复：{s} 的出牌在答复后再录入。",
                            "A camera read waits for the referee: answer it before entering {s}'s play."),
    "pending_badge": ("待处理 {n} · 识别存疑 {m}", "open {n} · questions {m}"),
    "next_leader_hint": ("犯规时必填：下副不进贡，由犯规者的下家领出（或裁判长另定）。",
                         "Needed for a foul: no tribute next deal; the seat after the offender in play order leads, or whom the chief names."),
    "penalty_done": ("已判罚", "Given"),
    "enrol_deck": ("登记牌组", "Enrol deck"),
    "recalibrate": ("重新标定摄像头", "Recalibrate camera"),
    "recalibrate_confirm": ("摄像头将重新对焦、测光并找桌角标记（约 2 秒）。继续？",
                            "The camera will refocus, re-meter and find the table markers again (about 2 s). Go on?"),
    "recalibrating": ("标定中…", "Recalibrating…"),
    "not_applied": ("记录中有 {n} 个事件按本版本规则不再适用：仍保留在记录中，但不计入局面；仍成立的判罚请重新作出。",
                    "{n} logged events do not apply under this release: kept in the log, not in the state; give "
                    "again any ruling that still stands."),
    "relearn": ("换牌重新学牌", "New deck: learn afresh"),
    "relearn_confirm": ("换了不同的牌组？摄像头将忘掉本桌已学的牌面（重启后也不再恢复），从下一手牌起重新学。继续？",
                        "A different deck at the table? The camera forgets what it learned of the deck here (a "
                        "restart no longer brings it back) and learns afresh from the next play. Go on?"),
    "relearned": ("已重新开始学牌", "Learning afresh"),
    "session_expired": ("未登录或登录已过期，请重新登录", "Not logged in (the session has ended): log in again"),
    "cannot_reach": ("连不上裁判台服务器", "Cannot reach the table's server"),
    "error": ("错误", "Error"),
    "assign_waiting": ("等待赛事中心编排", "Waiting for the hub's assignment"),
    "assign_title": ("{e} · 第 {r} 轮 · {t} 号桌", "{e} · round {r} · table {t}"),
    "assign_start": ("按编排开始本轮", "Start this round"),
    "assign_behind": ("本桌第 {n} 轮尚未结束，赛事中心已公布第 {m} 轮（本桌成绩已在赛事中心录入）：请裁判长先结束第 {n} 轮，再开始第 {m} 轮。",
                      "Round {n} is not over at this table, and the hub has published round {m} (this table's "
                      "result was entered at the hub): the chief referee ends round {n} first, then starts round {m}."),
    "assign_go_end": ("去结束本轮", "Go to End round"),
    "assign_end_reason": ("赛事中心已录入第 {n} 轮成绩", "round {n}'s result was entered at the hub"),
    "assign_started": ("已开始", "Started"),
    "assign_result": ("成绩", "Result"),
    "ack_accepted": ("赛事中心已接收", "accepted by the hub"),
    "ack_refused": ("赛事中心拒收", "refused by the hub"),
    "fmt_deals_n": ("{n} 副", "{n} deals"),
    "fmt_minutes_n": ("{n} 分钟", "{n} min"),
    "ev_top_seq": ("要管的那手", "Play to beat"),
    "ev_pass": ("过牌", "Pass"),
    "ev_would_be": ("累进为", "Would be"),
    "ev_article": ("条款", "Rule"),
    "ev_flag": ("标记", "Flag"),
    "ev_given": ("处罚", "Penalty"),
    "ev_payers": ("进贡方", "Payers"),
    "ev_tribute_seqs": ("进贡事件", "Tribute events"),
    "ev_declared_by": ("声明者", "Declared by"),
    "ev_declared_seq": ("抗贡声明", "Declaration"),
    "ev_penalty_seq": ("所涉处罚", "Penalty event"),
    # --- duplicate release by tap, past deals for appeals, the deck file link (panel records)
    "release_title": ("公开复式牌局", "Release duplicate deals"),
    "release_hint": ("各桌都打完该副后再公开；公开后直播即可看到，不能撤销。",
                     "Release a deal once every table has played it: the broadcast shows it, and it cannot be taken back."),
    "release_btn": ("公开 第 {r} 轮第 {d} 副", "Release round {r} deal {d}"),
    "release_none": ("没有待公开的已结束牌局", "No ended deal waiting for release"),
    "release_now": ("公开", "Release"),
    "confirm_release": ("公开第 {r} 轮第 {d} 副？", "Release round {r} deal {d}?"),
    "confirm_release_text": ("直播将显示这一副的全部出牌；公开后不能撤销。",
                             "The broadcast will show every play of this deal; a release cannot be taken back."),
    "released": ("已公开", "Released"),
    "released_deal": ("第 {r} 轮第 {d} 副", "Round {r} deal {d}"),
    "released_by_hub": ("赛事中心已公布 {t}", "released by the hub {t}"),
    "released_by_chief": ("裁判长已公布 {t}", "released by the chief referee {t}"),
    "past_deals": ("往副记录", "Past deals"),
    "past_deals_hint": ("申诉时查看：点开一副，看进贡、每圈出牌和名次。",
                        "For appeals: open a deal to see its tribute, each trick and the finishing order."),
    "no_past_deals": ("还没有打完的牌局", "No deal finished yet"),
    "past_round": ("第 {n} 轮", "Round {n}"),
    "tricks_count": ("{n} 圈", "{n} tricks"),
    "deck_download": ("下载牌组文件", "Download the deck file"),
    "deck_download_hint": ("在赛事中心「比赛用牌」上传，即发给每一桌。",
                           "Upload it on the hub's organiser page under “The event's deck” to hand it to every table."),
    # Where the table is (the status bar, the commentator): "第 1 轮 · 第 1 副 · 出牌阶段"; cards in words.
    "stage_cutting": ("切牌阶段", "cutting"), "stage_drawing": ("抓牌阶段", "drawing"),
    "stage_tribute": ("进贡阶段", "tribute"), "stage_return": ("还贡阶段", "return"), "stage_play": ("出牌阶段", "play"),
    "stage_deal_over": ("本副已结束", "deal over"), "stage_over": ("本轮已结束", "round over"),
    "flag_count": ("{n} 个标记", "{n} flags"), "open_count": ("{n} 个待处理", "{n} open"),
    "big_joker": ("大王", "big joker"), "small_joker": ("小王", "small joker"),
    # Enrolling the deck at the table (enroll.js): the chief's box follows the page's language.
    "enrol_title": ("从桌面登记牌组", "Enrol the deck from the table"),
    "enrol_hint": ("把整副牌正面朝上成行摆在桌上，然后开始。", "Lay the whole deck face up in rows on the table, then start."),
    "enrol_start": ("开始", "Start"), "enrol_finish": ("完成登记", "Finish"), "enrol_close": ("关闭", "Close"),
    "enrol_ok": ("确定", "OK"), "enrol_skip": ("跳过", "Skip"), "enrol_invalid": ("无效", "invalid"),
    "enrol_failed": ("失败", "failed"), "enrol_no_connection": ("连接失败", "connection failed"),
    "enrol_finding": ("正在找牌…", "finding the cards…"),
    "enrol_asking": ("找到 {found} 张，自动识别 {named} 张，待确认 {open} 张", "found {found}, named {named}, {open} to confirm"),
    "enrol_enrolling": ("正在登记（需几分钟，可继续比赛）…", "enrolling (a few minutes; play may go on)…"),
    "enrol_done": ("登记完成：{n} 张牌面", "enrolled: {n} faces"),
    "enrol_not_enrolled": ("（未登记 {cards}，按通用模型读）", " (not enrolled: {cards}, read zero-shot)"),
    "enrol_which": ("这是哪张牌？", "Which card is this?"), "enrol_card_alt": ("待确认的牌 {n}", "card {n} to confirm"),
    # The event hub's pages (event/web.py templates, hub_overview.js, hub_board.js): one wording of a
    # result for the overview, the hall's board and the printed results sheet. {side} is the side
    # that forfeited or lost by penalty, {other} the side that scores; {win} : {lose} the 级差分.
    "hub_side_ns": ("南北", "NS"),
    "hub_side_ew": ("东西", "EW"),
    "hub_res_both_forfeit": ("双方弃权 0 : 0", "both sides forfeit, 0 : 0"),
    "hub_res_forfeit": ("{side}弃权，{other} {win} : {lose}", "{side} forfeits, {win} : {lose} to {other}"),
    "hub_res_penalty": ("{side}判负，{other} {win} : {lose}", "{side} loses by penalty, {win} : {lose} to {other}"),
    "hub_src_table": ("桌面记录", "table log"),
    "hub_src_hand": ("手工录入", "hand entry"),
    "hub_src_correction": ("更正", "correction"),
    "hub_method_swiss": ("瑞士制", "Swiss"),
    "hub_method_round-robin": ("循环赛", "round robin"),
    "hub_preset_jiangsu-2013": ("江苏 2013", "Jiangsu 2013"),
    "hub_preset_huaian-2017": ("淮安 2017", "Huai'an 2017"),
    "hub_preset_national-2022": ("全国 2022", "national 2022"),
}


#: Each event type in both languages: the record page's "what" column, and the words that replace an
#: event's internal name at the head of the engine's refusal ("round_set_up: the current round has no
#: result yet" reads "New round: …"; :func:`in_words`, common.js ``GT.bi``).
EVENT_NAMES: dict[str, tuple[str, str]] = {
    "round_set_up": ("开始一轮", "new round"), "first_cut_recorded": ("翻牌", "cut card"),
    "drawing_finished": ("抓牌完毕", "drawing finished"), "anti_tribute_declared": ("抗贡", "anti-tribute"),
    "tribute_given": ("进贡", "tribute"), "return_given": ("还贡", "return"), "cards_played": ("出牌", "play"),
    "passed": ("过牌", "pass"), "report_pressed": ("报牌", "report card"), "referee_called": ("呼叫裁判", "referee called"),
    "card_exposed": ("暴露张", "exposed card"), "zone_obstructed": ("出牌区遮挡", "zone obstructed"),
    "clock_ticked": ("计时", "clock"), "device_status_changed": ("设备状态", "device status"),
    "flag_confirmed": ("确认标记", "flag upheld"), "flag_dismissed": ("驳回标记", "flag dismissed"),
    "play_confirmed": ("确认识别", "read confirmed"), "play_corrected": ("纠正出牌", "play corrected"),
    "reading_declared": ("声明牌型", "pattern declared"), "tribute_corrected": ("纠正贡牌", "tribute corrected"),
    "event_voided": ("撤销", "voided"),
    "penalty_given": ("判罚", "penalty"), "late_arrival_recorded": ("迟到", "late arrival"),
    "score_sheet_signed": ("签字", "score sheet signed"), "round_ended": ("结束本轮", "round ended"),
    "deal_released": ("公开牌局", "deal released"), "deal_redrawn": ("重新抓牌", "deal redrawn"),
}


#: The head of an engine refusal's English half: the event type that refused ("round_set_up: ").
_EVENT_HEAD = re.compile(r"^([a-z]+(?:_[a-z]+)+): ")


def in_words(half: str, lang: str) -> str:
    """One language's half of an engine message with the event's internal name at its head said in
    words (``round_set_up: …`` -> ``New round: …``); any other text as it is."""
    m = _EVENT_HEAD.match(half)
    names = EVENT_NAMES.get(m.group(1)) if m else None
    if m is None or names is None:
        return half
    word = names[0] if lang == "zh" else names[1][:1].upper() + names[1][1:]
    return f"{word}{'：' if lang == 'zh' else ': '}{half[m.end():]}"


#: Pattern names in English (the Chinese names come from the rules package).
KIND_NAMES_EN: dict[str, str] = {
    "single": "single", "pair": "pair", "triple": "triple", "full_house": "full house",
    "straight": "straight", "three_pairs": "three pairs in a row", "two_triples": "two triples in a row",
    "bomb": "bomb", "straight_flush": "straight flush", "joker_bomb": "four jokers",
}


def split_pair(text: str) -> tuple[str, str]:
    """``"中文 / English"`` as its two halves, trimmed (the whole text twice when it has no ``" / "``):
    the engine's own split (:func:`table_service.engine.errors.halves`), one rule for both."""
    zh, en = halves(str(text))
    return zh.strip(), en.strip()


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
        "dismissed": ("已驳回", "dismissed"), "withdrawn": ("已撤销", "withdrawn"),
        "online": ("在线", "online"), "offline": ("离线", "offline"), "unknown": ("未知", "unknown"),
        "camera": ("摄像头", "camera"), "screen": ("隔板屏", "screen"), "gpio": ("GPIO", "GPIO"),
        "foul": ("犯规", "foul"),
        **{reason: split_pair(words) for reason, words in RESULT_REASONS.items()},
    }
    for key, pair in words.items():
        STRINGS[f"st_{key}"] = pair
    for etype, pair in EVENT_NAMES.items():
        STRINGS[f"evt_{etype}"] = pair



#: The commentator's page (``/feed/<t>/commentator``): kept apart from the panel's labels above.
STRINGS.update({
    "cm_title": ("解说", "Commentator"),
    "cm_seats": ("座位与余牌", "Seats and cards left"),
    "cm_tribute": ("进贡 · 还贡 · 抗贡", "Tribute · return · anti-tribute"),
    "cm_rulings": ("已确认的标记与处罚", "Confirmed flags and rulings"),
    "cm_results": ("本副与本轮结果", "Deal and round results"),
    "cm_hint": ("本页只显示延时播出的公开数据，与直播画面相同：没有手牌，也没有裁判尚未处理的事项。",
                "This page shows only the delayed public feed, as the broadcast does: no hands, nothing the "
                "referee has still to rule on."),
    "cm_no_deal": ("尚未开始发牌", "No deal yet"),
    "cm_no_plays": ("尚无出牌", "No plays yet"),
    "cm_none": ("无", "None"),
    "cm_leads": ("领出", "leads"),
    "cm_to_play": ("该出牌", "to play"),
    "cm_reported": ("报牌 {n} 张", "reported {n} left"),
    "cm_face_down": ("扣着，尚未亮出", "face down, not shown yet"),
    "cm_playing_level": ("本副打{side}的级", "this deal plays {side}'s level"),
    "cm_gain": ("{side} 升 {n} 级", "{side} up {n}"),
    "cm_winner": ("胜方：{side}", "Winner: {side}"),
    "cm_held": ("复式：其余牌局在两个房间都打完后公开", "Duplicate: the other deals are shown once both rooms have played them"),
    "cm_seconds": ("{n} 秒", "{n} s"),
})

_add_words()


def language_from_address() -> None:
    """This request's page takes its language from its address alone (``?lang=``, else
    ``DEFAULT_LANG``), never the ``lang`` cookie: a broadcast overlay, whose OBS browser sources all
    share one cookie store, so one English click on a panel once turned every table's overlay
    English on air (the hub's overlay has always ignored the cookie)."""
    g.lang_from_address = True


def current_lang() -> str:
    """``zh`` or ``en`` for this request: ``?lang=`` (the overlay's browser source), else the
    ``lang`` cookie (not on a page that :func:`language_from_address`), else ``DEFAULT_LANG``."""
    lang = None
    if has_request_context():
        lang = request.args.get("lang")
        if lang not in ("zh", "en") and not g.get("lang_from_address"):
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
