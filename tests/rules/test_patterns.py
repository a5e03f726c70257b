"""One test per line of the pattern table and the comparison rules (rules-jiangsu.md)."""

from __future__ import annotations

import pytest

from table_service.rules.cards import format_cards, parse_cards
from table_service.rules.errors import InvalidCardError
from table_service.rules.patterns import Play, beats, classify


def only(cards: str, level: str) -> tuple[str, str]:
    plays = classify(cards, level)
    assert len(plays) == 1, [p.notation() for p in plays]
    return plays[0].kind, plays[0].rank


def reading(cards: str, level: str, kind: str, rank: str) -> Play:
    for p in classify(cards, level):
        if (p.kind, p.rank) == (kind, rank):
            return p
    raise AssertionError(f"no {kind} {rank} reading of {cards} at {level}")


# --- the issue's examples --------------------------------------------------------------


def test_issue_examples(kr):
    assert kr("2h 5s 6s 7s 8s", "2") == {
        ("straight", "8"), ("straight", "9"), ("straight_flush", "8"), ("straight_flush", "9")
    }
    assert kr("2h 2h 5s", "2") == {("triple", "5")}
    assert kr("2h 2h", "2") == {("pair", "2")}
    assert kr("7h 7h 7s 7d 7c", "7") == {("bomb", "7"), ("full_house", "7")}
    assert kr("7h 5s 6s 8s 9s", "7") == {("straight", "9"), ("straight_flush", "9")}


def test_faces_show_what_the_wild_stands_for():
    p = reading("2h 5s 6s 7s 8s", "2", "straight_flush", "9")
    assert format_cards(p.faces) == "9s 5s 6s 7s 8s"
    p = reading("2h 5s 6s 7s 8s", "2", "straight", "8")
    assert [c.rank for c in p.faces] == ["4", "5", "6", "7", "8"]
    assert format_cards(reading("2h 2h 5s", "2", "triple", "5").faces) == "5h 5h 5s"


# --- single, pair, triple ---------------------------------------------------------------


@pytest.mark.parametrize(("cards", "rank"), [("As", "A"), ("SJ", "SJ"), ("BJ", "BJ"), ("7h", "7"), ("2c", "2")])
def test_single(cards, rank):
    assert only(cards, "7") == ("single", rank)


def test_pairs_including_joker_pairs():
    assert only("9s 9d", "2") == ("pair", "9")
    assert only("SJ SJ", "2") == ("pair", "SJ")
    assert only("BJ BJ", "2") == ("pair", "BJ")
    assert classify("SJ BJ", "2") == []  # a small + big joker is not a pair
    assert classify("9s Ts", "2") == []


def test_wild_pairs_with_any_suit_card_not_a_joker():
    assert only("2h 9s", "2") == ("pair", "9")
    assert classify("2h SJ", "2") == []  # the wild card may not stand for a joker
    assert classify("2h BJ", "2") == []


def test_heart_level_cards_on_their_own_are_level_cards():
    assert only("5h", "5") == ("single", "5")
    assert only("5h 5h", "5") == ("pair", "5")


def test_triple_no_jokers():
    assert only("Ks Kd Kc", "2") == ("triple", "K")
    assert classify("SJ SJ 2h", "2") == []
    assert only("2h Ks Kd", "2") == ("triple", "K")


# --- full house ---------------------------------------------------------------------------


def test_full_house_compared_by_triple_only():
    assert only("5s 5d 5c 9s 9d", "2") == ("full_house", "5")
    a = reading("6s 6d 6c 3s 3d", "2", "full_house", "6")
    b = reading("5s 5d 5c As Ad", "2", "full_house", "5")
    assert beats(a, b, "2") and not beats(b, a, "2")


def test_full_house_joker_pair_may_be_the_pair():
    assert only("5s 5d 5c SJ SJ", "2") == ("full_house", "5")
    assert only("5s 5d 5c BJ BJ", "2") == ("full_house", "5")
    assert classify("5s 5d 5c SJ BJ", "2") == []


def test_full_house_with_wild_either_part():
    assert {("full_house", "5"), ("full_house", "9")} == {(p.kind, p.rank) for p in classify("2h 5s 5d 9s 9d", "2")}


# --- straights ----------------------------------------------------------------------------


def test_straight_a_low_is_lowest_and_ranked_5():
    assert {(p.kind, p.rank) for p in classify("As 2d 3c 4s 5s", "9")} == {("straight", "5")}


def test_straight_a_high_is_highest():
    assert only("Ts Jd Qc Ks Ad", "9") == ("straight", "A")
    low = reading("As 2d 3c 4s 5s", "9", "straight", "5")
    high = reading("Ts Jd Qc Ks Ad", "9", "straight", "A")
    assert beats(high, low, "9")


def test_no_wrap_around():
    assert classify("Js Qd Kc As 2s", "9") == []
    assert classify("Qs Kd Ac 2s 3s", "9") == []


def test_straight_exactly_five():
    assert classify("3s 4d 5c 6s", "9") == []
    assert classify("3s 4d 5c 6s 7s 8d", "9") == []


def test_level_card_counts_at_natural_rank_in_sequences():
    assert only("5s 6d 7c 8s 9d", "7") == ("straight", "9")
    assert {(p.kind, p.rank) for p in classify("6s 6d 7s 7c 8s 8d", "7")} == {("three_pairs", "8")}


def test_straight_no_jokers():
    assert classify("SJ 3d 4c 5s 6s", "9") == []


def test_straight_flush():
    assert {(p.kind, p.rank) for p in classify("5d 6d 7d 8d 9d", "2")} == {("straight", "9"), ("straight_flush", "9")}
    assert {(p.kind, p.rank) for p in classify("Ac 2c 3c 4c 5c", "9")} == {("straight", "5"), ("straight_flush", "5")}
    # the wild heart 2 may stand for the 4 or the 9 of clubs (or of any suit: a plain straight)
    assert {(p.kind, p.rank) for p in classify("2h 5c 6c 7c 8c", "2")} == {
        ("straight", "8"), ("straight", "9"), ("straight_flush", "8"), ("straight_flush", "9")
    }


# --- runs of pairs and triples ------------------------------------------------------------


def test_three_pairs_exactly_three_consecutive():
    assert only("3s 3d 4s 4d 5s 5d", "2") == ("three_pairs", "5")
    assert classify("3s 3d 4s 4d", "2") == []
    assert classify("3s 3d 4s 4d 6s 6d", "2") == []


def test_three_pairs_a_low_and_a_high():
    assert only("As Ad 2s 2c 3s 3d", "9") == ("three_pairs", "3")
    assert only("Qs Qd Ks Kd As Ad", "9") == ("three_pairs", "A")
    assert classify("Ks Kd As Ad 2s 2d", "9") == []


def test_two_triples():
    assert only("3s 3d 3c 4s 4d 4c", "9") == ("two_triples", "4")
    assert only("As Ad Ac 2s 2d 2c", "9") == ("two_triples", "2")
    assert only("Ks Kd Kc As Ad Ac", "9") == ("two_triples", "A")
    assert classify("Ks Kd Kc 2s 2d 2c", "9") == []


def test_runs_with_wild():
    # two wild cards: 33-44-55, 44-55-66, or 444-555
    assert {(p.kind, p.rank) for p in classify("2h 2h 4s 4d 5s 5d", "2")} == {
        ("three_pairs", "5"), ("three_pairs", "6"), ("two_triples", "5")
    }
    assert {(p.kind, p.rank) for p in classify("2h 3s 3d 3c 4s 4d", "2")} == {("two_triples", "4")}


# --- bombs ----------------------------------------------------------------------------------


def test_bombs_four_to_ten():
    assert only("9s 9d 9c 9s", "2") == ("bomb", "9")
    assert only("9s 9d 9c 9s 9d 9c 9h 9h", "2") == ("bomb", "9")
    assert only("2h 2h 9s 9d 9c 9s 9d 9c 9h 9h", "2") == ("bomb", "9")
    assert classify("9s 9d 9c 9s 9d 9c 9h 9h 2h 2h 3s", "2") == []  # 11 cards: never a pattern


def test_joker_bomb():
    assert only("SJ SJ BJ BJ", "2") == ("joker_bomb", "BJ")
    assert classify("SJ SJ BJ", "2") == []


# --- comparison -------------------------------------------------------------------------------


def P(cards: str, level: str, kind: str | None = None) -> Play:
    plays = classify(cards, level)
    if kind:
        plays = [p for p in plays if p.kind == kind]
    assert plays, cards
    return max(plays, key=lambda p: (p.kind, p.rank))


def test_rank_order_for_singles():
    lv = "7"
    order = ["2s", "3s", "Ks", "As", "7s", "SJ", "BJ"]
    for lo, hi in zip(order, order[1:], strict=False):
        assert beats(P(hi, lv), P(lo, lv), lv), (hi, lo)
        assert not beats(P(lo, lv), P(hi, lv), lv)


def test_level_card_pair_above_aces():
    assert beats(P("7s 7d", "7"), P("As Ad", "7"), "7")
    assert beats(P("7h 7h", "7"), P("As Ad", "7"), "7")


def test_ordinary_patterns_beat_only_same_kind():
    assert not beats(P("9s 9d", "2"), P("3s", "2"), "2")
    assert not beats(P("9s 9d 9c 3s 3d", "2"), P("3s 3d 3c", "2"), "2")
    assert not beats(P("Ks Kd", "2"), P("Ks Kd", "2"), "2")  # equal does not beat


def test_bomb_family_order():
    lv = "2"
    chain = [
        P("3s 3d 3c 3s", lv),
        P("As Ad Ac As", lv),
        P("2s 2d 2c 2s", lv),  # level-rank bomb above the A bomb of the same size
        P("3s 3d 3c 3s 3d", lv),
        P("Ac 2c 3c 4c 5c", lv, "straight_flush"),
        P("Tc Jc Qc Kc Ac", lv, "straight_flush"),
        P("3s 3d 3c 3s 3d 3c", lv),
        P("3s 3d 3c 3s 3d 3c 3h", lv),
        P("3s 3d 3c 3s 3d 3c 3h 3h", lv),
        P("2h 3s 3d 3c 3s 3d 3c 3h 3h", lv),
        P("2h 2h 3s 3d 3c 3s 3d 3c 3h 3h", lv),
        P("SJ SJ BJ BJ", lv),
    ]
    for i, weaker in enumerate(chain):
        for stronger in chain[i + 1 :]:
            assert beats(stronger, weaker, lv), (stronger.notation(), weaker.notation())
            assert not beats(weaker, stronger, lv), (weaker.notation(), stronger.notation())


def test_any_bomb_beats_any_ordinary_pattern():
    bomb = P("3s 3d 3c 3s", "2")
    for ordinary in ["BJ", "BJ BJ", "As Ad Ac", "Ts Jd Qc Ks Ad", "Qs Qd Ks Kd As Ad", "Ks Kd Kc As Ad Ac"]:
        assert beats(bomb, P(ordinary, "2"), "2")


def test_parse_errors_are_value_errors():
    with pytest.raises(InvalidCardError):
        classify("7h 7x", "7")
    with pytest.raises(ValueError, match="level"):
        classify("7h", "1")


def test_play_value_semantics():
    a = classify("5s 6s 7s 8s 9s", "2")[0]
    b = classify(parse_cards("9s 8s 7s 6s 5s"), "2")[0]
    assert a == b and hash(a) == hash(b)
    assert eval(repr(a), {"Play": Play, "parse_cards": parse_cards}) == a


def test_the_description_says_the_rank_as_a_card_does_and_none_for_the_joker_bomb():
    """``rules classify`` printed "四大天王（大王）": the joker bomb has one form, its "rank" means nothing."""
    (bomb,) = classify("SJ SJ BJ BJ", "7")
    assert bomb.describe_zh() == "四大天王 / joker_bomb"
    (straight,) = classify("Ts Jd Qc Kh As", "7")
    assert straight.describe_zh() == "顺子（A） / straight (A)"
    assert [p.describe_zh() for p in classify("Ts Td", "7")] == ["对子（10） / pair (T)"]
