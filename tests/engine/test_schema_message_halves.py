"""A schema refusal says the field and what is expected in both halves: the Chinese panel showed only
"数据无效" (the field and the expectation were in the English half alone); a number over a huge upper
limit read "must be within ≥ 0"."""

from __future__ import annotations

import pytest

from table_service.engine.errors import EventRejected, halves
from table_service.engine.events import check_data

CASES = [
    ("cards_played", {"seat": "X", "cards": ["7s"]}, "data.seat", "E、S、W 或 N"),
    ("penalty_given", {"level": [1]}, "data.level", "文字"),
    ("passed", {"pad": 1, "seat": "N"}, "'pad'", "seat、press"),
    ("flag_confirmed", {"flag": 99999999999999999999}, "data.flag", "过大"),
    ("flag_confirmed", {"flag": -1}, "data.flag", "不小于 0"),
]


@pytest.mark.parametrize("etype, data, field, expected", CASES)
def test_the_chinese_half_names_the_field_and_the_expectation(etype, data, field, expected):
    with pytest.raises(EventRejected) as info:
        check_data(etype, data)
    zh, en = halves(str(info.value))
    assert zh.startswith(f"数据无效：{etype} 的 ") and field in zh and expected in zh, zh
    assert en.startswith(f"{etype}: ") and field.strip("'") in en
    assert "within ≥" not in en


def test_the_example_of_the_brief():
    with pytest.raises(EventRejected) as info:
        check_data("cards_played", {"seat": "X", "cards": ["7s"]})
    assert str(info.value) == ("数据无效：cards_played 的 data.seat 为未知座位 'X'（应为 E、S、W 或 N） / "
                               "cards_played: unknown seat 'X' in data.seat (expected E, S, W or N)")
