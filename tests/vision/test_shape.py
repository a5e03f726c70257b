"""A play's shape weighed in its reading (vision.cardnet.shape): the properties Bayes gives, with
the rules' own test of a pattern (table_service.rules.patterns.is_pattern)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_service.rules.patterns import is_pattern
from vision.cardnet import shape
from vision.cardnet.read import read_play
from vision.cardnet.shape import weigh
from vision.cards import ALL_CARDS, CARD_INDEX
from vision.synth import Realism, render_zone


def at_level(level: str):
    return lambda cards: is_pattern(cards, level)


def probs(rows: list[dict[str, float]], floor: float = 1e-7) -> np.ndarray:
    """(n, 54) face probabilities: each row's named faces, the rest at ``floor``, rows summing to 1."""
    p = np.full((len(rows), len(ALL_CARDS)), floor)
    for i, row in enumerate(rows):
        for card, v in row.items():
            p[i, CARD_INDEX[card]] = v
    return p / p.sum(axis=1, keepdims=True)


def test_the_rules_test_of_a_pattern():
    assert is_pattern(["5s", "5h"], "2") and is_pattern(["3s", "4h", "5d", "6c", "7s"], "9")
    assert is_pattern(["9h", "5s"], "9")  # the level's heart is wild: a pair of fives
    assert not is_pattern(["3s", "4h", "3d", "6c", "7s"], "2")
    assert not is_pattern(["5s", "5s", "5s"], "2")  # a third copy: two decks hold two
    assert not is_pattern(["xx"], "2") and not is_pattern([], "2")


def test_a_lawful_reading_among_unlawful_neighbours_is_surer():
    straight = ["3s", "4h", "5d", "6c", "7s"]
    p = probs([{"3s": 1}, {"4h": 1}, {"5d": 0.95, "3d": 0.05}, {"6c": 1}, {"7s": 1}])
    ev = weigh(p, [CARD_INDEX[c] for c in straight], at_level("2"))
    assert ev.lawful
    assert ev.joint > 0.99  # alone 0.95; the 3 would make no pattern: the 5 is far surer
    assert ev.marginals[2] == pytest.approx(ev.joint, abs=1e-6)


def test_two_lawful_readings_keep_their_doubt():
    """A pair's second card ♠ or ♣: both a pair, the shape tells nothing."""
    p = probs([{"5s": 0.9, "5c": 0.1}, {"5h": 1}])
    ev = weigh(p, [CARD_INDEX["5s"], CARD_INDEX["5h"]], at_level("2"))
    assert ev.joint == pytest.approx(0.9, abs=1e-3)


def test_an_unlawful_reading_next_to_a_lawful_one_is_doubted_and_never_changed():
    read = ["3s", "4h", "3d", "6c", "7s"]  # the 3d might be the 5d of a straight
    p = probs([{"3s": 1}, {"4h": 1}, {"3d": 0.9, "5d": 0.1}, {"6c": 1}, {"7s": 1}])
    ev = weigh(p, [CARD_INDEX[c] for c in read], at_level("2"))
    assert not ev.lawful and ev.joint < 0.2  # the straight is likelier once shapes are weighed
    alone = probs([{"3s": 1}, {"4h": 1}, {"3d": 1}, {"6c": 1}, {"7s": 1}])
    sure = weigh(alone, [CARD_INDEX[c] for c in read], at_level("2"))
    assert sure.joint > 0.9  # read surely as laid: a foul the referee engine flags


def test_a_card_too_many_is_doubted_when_the_play_without_it_is_a_pattern():
    """A spot of the art read as a 9♣ beside four tens (the learning bench, plastic seed 8): every
    face there leaves five cards that are no pattern, so weighing the faces alone kept it sure;
    weighed with whether a card lies there at all, the bomb without it is the likelier play."""
    read = ["Tc", "9c", "Ts", "Tc", "Ts"]
    p = probs([{"Tc": 1}, {"9c": 0.99, "9s": 0.01}, {"Ts": 1}, {"Tc": 1}, {"Ts": 1}])
    idx = [CARD_INDEX[c] for c in read]
    assert weigh(p, idx, at_level("2")).joint > 0.98  # before: the five cards read sure
    ev = weigh(p, idx, at_level("2"), present=[1.0, 0.98, 1.0, 1.0, 1.0])
    assert not ev.lawful and ev.joint < 0.5 and ev.marginals[1] < 0.5
    # Where the cards are a pattern, presence is only multiplied in: a pair read 0.97-sure stays so.
    pair = weigh(probs([{"5s": 1}, {"5h": 1}]), [CARD_INDEX["5s"], CARD_INDEX["5h"]], at_level("2"),
                 present=[1.0, 0.97])
    assert pair.joint == pytest.approx(0.97, abs=1e-3)
    # And a lawful reading whose card, dropped, would leave no pattern comes out no less sure.
    straight = ["3s", "4h", "5d", "6c", "7s"]
    st5 = weigh(probs([{c: 1} for c in straight]), [CARD_INDEX[c] for c in straight], at_level("2"),
                present=[1.0, 1.0, 0.97, 1.0, 1.0])
    assert st5.lawful and st5.joint > 0.99


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**31 - 1), st.sampled_from(["2", "5", "T", "A"]),
       st.floats(0.05, 3.0))
def test_weighing_moves_a_reading_only_the_way_its_shape_says(n, seed, level, sharpness):
    """Whatever the classifier's probabilities: a lawful reading never comes out less sure than the
    product of its cards, an unlawful one never surer; marginals are probabilities, each at least
    the whole reading's."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(len(ALL_CARDS), sharpness * 0.05), size=n)
    chosen = [int(k) for k in p.argmax(axis=1)]
    lawful = at_level(level)
    ev = weigh(p, chosen, lawful)
    plain = float(np.prod(p[np.arange(n), chosen]))
    if ev.lawful:
        assert ev.joint >= plain * (1 - 1e-9)
    else:
        assert ev.joint <= plain * (1 + 1e-9)
    assert all(-1e-12 <= m <= 1 + 1e-9 for m in ev.marginals)
    assert all(m >= ev.joint - 1e-9 for m in ev.marginals)
    assert ev.lawful == lawful([ALL_CARDS[k] for k in chosen])


def test_the_rules_are_asked_a_bounded_number_of_times():
    rng = np.random.default_rng(3)
    p = rng.dirichlet(np.full(len(ALL_CARDS), 0.05), size=10)  # ten cards, none sure
    calls = []

    def counting(cards):
        calls.append(tuple(cards))
        return is_pattern(cards, "2")

    weigh(p, [int(k) for k in p.argmax(axis=1)], counting)
    assert 0 < len(calls) <= shape.MAX_READINGS


def test_read_play_weighs_the_shape_and_never_changes_the_cards():
    cards = ["9s", "9d", "9c"]
    zr = render_zone(cards, "anglo", 3.0, seed=4242, realism=Realism.clean())
    plain = read_play(zr.image)
    shaped = read_play(zr.image, lawful=at_level("2"))
    assert shaped.cards == plain.cards == cards
    assert shaped.joint >= plain.joint
    with pytest.raises(ValueError, match="lawful"):
        read_play(zr.image, lawful="yes")  # type: ignore[arg-type]


def test_the_likeliest_readings_put_the_lawful_one_first():
    """Offered to the referee as answers: the straight the 3 might be, before the read itself."""
    read = ["3s", "4h", "3d", "6c", "7s"]
    p = probs([{"3s": 1}, {"4h": 1}, {"3d": 0.9, "5d": 0.1}, {"6c": 1}, {"7s": 1}])
    ev = weigh(p, [CARD_INDEX[c] for c in read], at_level("2"))
    (first, p_first), *rest = ev.likeliest
    assert [ALL_CARDS[k] for k in first] == ["3s", "4h", "5d", "6c", "7s"] and p_first > 0.9
    assert [ALL_CARDS[k] for k in rest[0][0]] == read
    assert len(ev.likeliest) <= shape.LIKELIEST
