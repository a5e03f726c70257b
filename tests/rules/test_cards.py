"""Notation: parse/format round trip, aliases, precise errors."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_service.rules.cards import (
    DECK_FACES,
    Card,
    card_name_zh,
    format_cards,
    full_deck,
    parse_card,
    parse_cards,
)
from table_service.rules.errors import InvalidCardError


def test_every_face_round_trips():
    for c in DECK_FACES:
        assert parse_card(str(c)) is c
        assert eval(repr(c), {"Card": Card}) is c
    assert len(DECK_FACES) == 54
    assert len(full_deck()) == 108


@pytest.mark.parametrize(
    ("token", "expected"),
    [("10h", "Th"), ("T♥", "Th"), ("♠", None), ("7♠", "7s"), ("a♦", "Ad"), ("小王", "SJ"), ("大王", "BJ"),
     ("sj", "SJ"), ("BJ", "BJ"), ("qc", "Qc"), ("10♣", "Tc")],
)
def test_aliases(token, expected):
    if expected is None:
        with pytest.raises(InvalidCardError):
            parse_card(token)
    else:
        assert str(parse_card(token)) == expected


@pytest.mark.parametrize("bad", ["7x", "11h", "1s", "Zs", "", "SJh", "h7"])
def test_bad_token_names_it(bad):
    with pytest.raises(ValueError) as exc:
        parse_cards(f"5s {bad} 6s") if bad else parse_card(bad)
    if bad:
        assert repr(bad) in str(exc.value)


def test_order_is_kept_and_separators():
    assert format_cards(parse_cards("7h, 5s，6s  8s 9s")) == "7h 5s 6s 8s 9s"


def test_chinese_names():
    assert card_name_zh(parse_card("7h")) == "红桃7"
    assert card_name_zh(parse_card("Td")) == "方块10"
    assert card_name_zh(parse_card("BJ")) == "大王"


@given(st.lists(st.sampled_from(DECK_FACES), max_size=27))
def test_round_trip_property(cards):
    assert parse_cards(format_cards(cards)) == cards
