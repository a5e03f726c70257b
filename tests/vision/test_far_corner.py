"""The last card's far corner (vision.cardnet.read, step 3): weighed in where it agrees with the index,
a doubt where it does not.

Accuracy is the benchmark's; these bounds hold on any render seed (``VISION_SEED_SHIFT``).
"""

from __future__ import annotations

import numpy as np
import pytest
from vision_kit import SHIFT, face_probs

from vision import read_play
from vision.cardnet import read
from vision.cardnet.read import FAR_WEIGHED_RANKS, FarCorner, _weigh_far
from vision.cards import ALL_CARDS, CARD_INDEX
from vision.synth import Realism, render_zone


def test_the_far_corner_weighs_the_last_cards_faces_where_it_agrees_with_the_index():
    first = face_probs(Th=0.9, Td=0.1)
    last = face_probs(**{"7c": 0.6, "7s": 0.4})
    faces_p = np.stack([first, last])
    p = face_probs(**{"7c": 0.9, "7s": 0.05})
    p /= p.sum()
    out = _weigh_far(faces_p, FarCorner(True, p, "7c"), "7c")
    assert out[0].tolist() == first.tolist()  # only the last card lies whole
    ratio = out[1, CARD_INDEX["7c"]] / out[1, CARD_INDEX["7s"]]
    assert ratio == pytest.approx(0.6 * 0.9 / (0.4 * 0.05))
    # The far corner names another face than the index: nothing weighed (the caller doubts the play).
    assert _weigh_far(faces_p, FarCorner(True, p, "7c"), "7s") is faces_p
    assert _weigh_far(faces_p, FarCorner(True), "7c") is faces_p
    assert _weigh_far(faces_p, FarCorner(False), "7c") is faces_p


def test_the_far_corner_weighs_the_classifiers_word_not_the_index_networks():
    """The far corner is compared on the face it names with its suit read again from the index (as the
    near corner's), but what is weighed is the classifier's: the index network, misreading a design's pip,
    misreads it at both corners, and its word would count twice.  A far corner the network names 7♠ while
    the classifier leans 7♣ agrees with a 7♠ index and still pulls the last card toward the 7♣."""
    last = face_probs(**{"7c": 0.5, "7s": 0.5})
    p = face_probs(**{"7c": 0.6, "7s": 0.4})
    p /= p.sum()
    out = _weigh_far(last[None], FarCorner(True, p, "7s"), "7s")
    assert out[0, CARD_INDEX["7c"]] / out[0, CARD_INDEX["7s"]] == pytest.approx(0.6 / 0.4)


def test_a_courts_or_a_jokers_far_corner_is_not_weighed():
    """Their index is letters, and a joker's word begins with a J: both corners print it, and on tango
    both read a joker as J♣. Nor is a joker both corners name weighed: a card whose indices are rubbed
    off shows two blank corners, which the classifier reads alike (a 7♥ read as the big joker at both,
    0.998 when weighed: ``test_a_lone_card_with_its_indices_rubbed_off_is_always_a_question``)."""
    assert not set("JQKSB") & set(FAR_WEIGHED_RANKS) and set("A23456789T") == set(FAR_WEIGHED_RANKS)
    last = face_probs(Jc=0.7, SJ=0.3)
    p = face_probs(Jc=0.95, SJ=0.01)
    p /= p.sum()
    out = _weigh_far(last[None], FarCorner(True, p, "Jc"), "Jc")
    assert out[0, CARD_INDEX["Jc"]] / out[0, CARD_INDEX["SJ"]] == pytest.approx(0.7 / 0.3)
    last = face_probs(BJ=0.9, Jh=0.1)
    p = face_probs(BJ=0.99)
    p /= p.sum()
    assert _weigh_far(last[None], FarCorner(True, p, "BJ"), "BJ")[0, CARD_INDEX["BJ"]] == pytest.approx(0.9)


@pytest.mark.parametrize("design", ["tango", "plastic"])
def test_lone_jokers_and_jacks_of_unseen_designs_are_never_read_silently_wrong(design):
    """Tango's jokers read as jacks at both corners, plastic's jacks are a coin toss between ♣ and ♠:
    a lone joker or jack at 2–4 px/mm is read right or asked, the far corner never settling either."""
    rng = np.random.default_rng(SHIFT + 11)
    for k, card in enumerate(["SJ", "BJ", "Jc", "Js", "Jh", "SJ"]):
        ppm = (2.0, 3.0, 4.0)[k % 3]
        z = render_zone([card], design, ppm, seed=int(rng.integers(1 << 30)), realism=Realism())
        r = read_play(z.image, ppm)
        assert r.uncertain or r.cards == [card], (card, ppm, r)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_lone_card_whose_far_corner_is_its_suit_twins_is_never_read_silently(seed):
    """A 4♣ whose far corner shows the 4♠ (the bottom-right of the same render of a 4♠ pasted over it):
    the far corner may only add a doubt where it contradicts the index, never settle the suit."""
    a = render_zone(["4c"], "anglo", 3.0, seed=SHIFT + seed, realism=Realism.clean())
    b = render_zone(["4s"], "anglo", 3.0, seed=SHIFT + seed, realism=Realism.clean())
    (x, y), = [tuple(a.to_image(p.to_scene(np.array([[0.0, 0.0]])))[0]) for p in a.placements]
    mixed = a.image.copy()
    cx, cy = int(x + 30 * 3.0), int(y + 44 * 3.0)
    mixed[cy:, cx:] = b.image[cy:, cx:]
    r = read_play(mixed, 3.0)
    assert r.uncertain and any("two corners" in why for why in r.reasons), r


def test_lone_pip_cards_of_an_unseen_design_are_surer_for_their_far_corner(monkeypatch):
    """Tango's pip cards laid alone at 2–4 px/mm (a held-out design, as a camera sees it): reading the
    far corner too leaves no more of them in doubt than the index alone, and none silently wrong."""
    rng = np.random.default_rng(SHIFT + 5)
    cards = [f"{r}{s}" for r, s in zip(rng.choice(list(FAR_WEIGHED_RANKS), 24), rng.choice(list("shdc"), 24),
                                          strict=True)]
    zones = [(render_zone([c], "tango", ppm, seed=SHIFT + 100 + k, realism=Realism()), ppm)
             for k, (c, ppm) in enumerate(zip(cards, [2.0, 3.0, 4.0] * 8, strict=True))]
    shipped = read._FAR_WEIGHED

    def sure(weighed: bool) -> int:
        monkeypatch.setattr(read, "_FAR_WEIGHED", shipped if weighed else np.zeros(len(ALL_CARDS), bool))
        n = 0
        for (z, ppm), card in zip(zones, cards, strict=True):
            r = read_play(z.image, ppm)
            if not r.uncertain:
                assert r.cards == [card], (r, card)
                n += 1
        return n

    alone, weighed = sure(False), sure(True)
    assert weighed >= alone, (alone, weighed)
