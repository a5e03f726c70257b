"""The panel's list of named breaches (``rules.breaches``) against the rules text: "Named breaches
include: wrong tribute/return, wrong drawing, acting out of turn, wrong card count, exposed card
(暴露张), wrong play (出错牌 …), playing out of turn (越序出牌), hiding or slipping cards (藏牌, 夹带)"."""

from __future__ import annotations

from table_service.rules.breaches import NAMED_BREACHES

#: Each breach the text names, by the words its article carries (Chinese, then English).
NAMED_IN_THE_TEXT = {
    "wrong tribute or return": "进贡还贡错误",
    "wrong drawing": "抓牌错误",
    "wrong card count": "牌数错误",
    "exposed card": "暴露张",
    "wrong play": "出错牌",
    "playing out of turn": "越序出牌",
    "hiding or slipping cards": "藏牌、夹带",
}


def test_every_breach_the_rules_name_is_on_the_panel_s_list() -> None:
    """A wrong full-hand count is a foul the chief gives by hand (docs/rules.md §11): its article was
    missing, so the chief had to type it."""
    missing = [en for en, zh in NAMED_IN_THE_TEXT.items()
               if not any(b.startswith(zh + " / ") and en in b for b in NAMED_BREACHES)]
    assert missing == []


def test_every_breach_is_chinese_then_english_and_listed_once() -> None:
    assert len(set(NAMED_BREACHES)) == len(NAMED_BREACHES)
    for b in NAMED_BREACHES:
        zh, en = b.split(" / ")
        assert any("\u4e00" <= ch <= "\u9fff" for ch in zh) and en.isascii()
