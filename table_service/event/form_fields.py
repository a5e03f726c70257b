"""The hub's organiser forms, field by field: whole numbers and free text as the pages send them.

Apart from :mod:`table_service.event.web` (the routes) because every action reads its fields the
same way: a refusal names the field as its label does, Chinese first, and nothing a person typed
reaches the log unchecked.
"""

from __future__ import annotations

import re

from flask import request

from table_service.event.model import EventInputError
from table_service.views.wire import control_character

#: The form's fields as its labels name them (Chinese, English): an error names what the organiser
#: sees, not the field's key ("ew_score 须为整数", "players 过长").
FIELD_WORDS = {"ns_levels": ("南北升级数", "NS levels gained"), "ew_levels": ("东西升级数", "EW levels gained"),
               "ns_score": ("南北判负比分", "NS penalty-loss score"), "ew_score": ("东西判负比分", "EW penalty-loss score"),
               "round": ("轮次", "round"), "draft": ("草案", "draft"), "basis": ("所纠正的成绩", "basis"),
               "deals": ("副数", "deals"), "deals_played": ("已打副数", "deals played"), "minutes": ("分钟", "minutes"), "name": ("名称", "name"),
               "players": ("选手", "players"), "team": ("队号", "team id"), "text": ("书面理由", "the appeal in writing"),
               "note": ("说明", "note"), "reason": ("原因", "reason"), "kind": ("赛制", "format"),
               "ruleset": ("规则", "ruleset"), "decision": ("裁决", "decision"), "appeal": ("申诉", "appeal"),
               "refusal": ("拒收的成绩", "refused result"),
               "settles": ("所处理的拒收", "refused result settled"), "seen": ("页面版本", "page version"),
               "rounds": ("轮数", "rounds"), "draw": ("编排方法", "draw method"),
               "match_points": ("比赛分方案", "match points"), "to": ("新桌", "new table"),
               "ns_level": ("南北级数", "NS level"), "ew_level": ("东西级数", "EW level"),
               "next_side": ("下一副打哪方的级", "whose level the next deal is at")}


def form_int(name: str, lo: int = 0, hi: int = 10**9) -> int:
    """A whole number from the form: ASCII digits only (``int()`` would also take "１２", "1_0"
    and raise on "²"), within ``lo``–``hi``."""
    raw = request.form.get(name, "")
    zh, en = FIELD_WORDS.get(name, (name, name))
    if not re.fullmatch(r"[0-9]{1,10}", raw):
        shown = raw if len(raw) <= 20 else raw[:20] + "…"
        raise EventInputError(f"{zh}须为整数（收到 {shown!r}） / {en} must be a whole number (got {shown!r})")
    v = int(raw)
    if not lo <= v <= hi:
        raise EventInputError(f"{zh}须在 {lo}–{hi} / {en} must be {lo}-{hi}")
    return v


def form_text(name: str, max_len: int) -> str:
    """A text field, refused (not cut) when longer than ``max_len`` characters, and refused when it
    holds a control or direction-override character (a line break or a tab excepted): what is
    typed here reaches the log, the pages and the printed sheets."""
    raw = request.form.get(name, "")
    zh, en = FIELD_WORDS.get(name, (name, name))
    if len(raw) > max_len:
        raise EventInputError(f"{zh}过长（最多 {max_len} 字） / {en} is longer than {max_len} characters")
    bad = control_character(raw, lines=True)
    if bad is not None:
        raise EventInputError(f"{zh}含控制字符 {bad} / {en} holds the control character {bad}")
    return raw
