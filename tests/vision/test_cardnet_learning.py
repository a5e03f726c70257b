"""The card-first reader learning its deck at the table: the referee's answers, the reads it was sure
of, and the faces of cards seen whole (:mod:`vision.cardnet.online`).

Bounds hold on any render seed (``VISION_SEED_SHIFT=50000 pytest ...``), as in ``test_cardnet.py``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from vision_kit import SHIFT

from vision import read_play
from vision.cardnet.deckfile import Enrollment
from vision.cardnet.head import Head
from vision.cardnet.online import PlayLearner
from vision.cardnet.read import default_head
from vision.cards import ALL_CARDS, CARD_INDEX
from vision.synth import Realism, render_zone

#: A zone of two pairs of twins as printed, and as the referee names them (each card as its twin:
#: a deck whose black suits print the other way). A head learned at the table tells apart only the
#: faces it was taught in pairs (:func:`vision.cardnet.online.learned_faces`).
TWINS_PRINTED = ["Kc", "Ks", "4s", "4c"]
TWINS_TAUGHT = ["Ks", "Kc", "4c", "4s"]


def _enrolled() -> Head:
    """The shipped head as if fitted on the deck in play (an enrolment's): every face its own, so a
    learned head's mechanics (temperature, spots of no card) are tested apart from the twins' rule."""
    return replace(default_head(), origin="anglo")


def _twins_zone() -> tuple[np.ndarray, np.ndarray]:
    zr = render_zone(TWINS_PRINTED, "anglo", 3.0, seed=SHIFT + 41, realism=Realism.clean())
    first = read_play(zr.image, 3.0)
    assert first.embeddings is not None and first.cards == TWINS_PRINTED
    return zr.image, first.embeddings


def test_the_referees_answers_teach_the_head():
    """Crops the shipped head reads as one card, answered by the referee as another, read as the
    answer afterwards: the table learns its deck from the questions it asked."""
    image, emb = _twins_zone()
    learner = PlayLearner(default_head())
    # A few answers are not enough to trust a learned head (they make it sure of the wrong suit).
    for _ in range(20):
        learner.learn_answer(emb, TWINS_TAUGHT)
    learner.wait(300)
    assert learner.head is learner.start
    # Pretend the referee said these are their twins, a hundred times over.
    for _ in range(80):
        learner.learn_answer(emb, TWINS_TAUGHT)
    learner.wait(300)
    assert learner.answers == 400
    assert learner.head is not learner.start
    assert read_play(image, 3.0, enrollment=learner.head).cards == TWINS_TAUGHT
    # A reading with a different count teaches nothing.
    assert not learner.learn_answer(emb, ["2c"])


def test_a_face_taught_without_its_twin_does_not_move_the_reading():
    """Taught K♠ and 4♣ (each crop named as its twin) but never K♣ or 4♠, a head learns "a black
    K is the K♠" and would read every K♣ so, sure: until both twins are taught, the shipped head
    keeps its word on them (at the demo's table, plastic seed 5, a T♠ read as T♣ so)."""
    image, emb = _twins_zone()
    learner = PlayLearner(default_head())
    for _ in range(150):  # enough held out to judge a learned head (online.VAL_MIN)
        learner.learn_answer(emb[[0, 3]], ["Ks", "4s"])  # the K♣ and 4♣ crops, named as their twins
    learner.wait(300)
    assert learner.answers == 300
    assert read_play(image, 3.0, enrollment=learner.head).cards == TWINS_PRINTED
    # Once the twins are taught too, the table's word on them is the learned head's.
    for _ in range(150):
        learner.learn_answer(emb[[1, 2]], ["Kc", "4c"])
    learner.wait(300)
    assert learner.head is not learner.start
    assert read_play(image, 3.0, enrollment=learner.head).cards == TWINS_TAUGHT


def test_a_face_the_enrolment_lacked_is_learned_once_the_referee_names_it():
    """Started from a deck enrolled without 2♣ and 5♣: answered 2♣ at the table, the learned head
    knows 2♣ as the table's own; 5♣, never answered, stays the shipped head's to read."""
    zr = render_zone(["Kh", "Qs", "4d"], "anglo", 3.0, seed=SHIFT + 41, realism=Realism.clean())
    e = read_play(zr.image, 3.0).embeddings
    assert e is not None and len(e) == 3
    known = np.ones(len(ALL_CARDS), bool)
    known[[CARD_INDEX["2c"], CARD_INDEX["5c"]]] = False
    learner = PlayLearner(default_head().knowing(known))
    for _ in range(100):
        learner.learn_answer(e, ["2c", "Qs", "4d"])
    learner.wait(300)
    assert learner.head is not learner.start
    assert learner.head.known is not None
    assert learner.head.known[CARD_INDEX["2c"]] and not learner.head.known[CARD_INDEX["5c"]]
    assert read_play(zr.image, 3.0, enrollment=learner.head).cards == ["2c", "Qs", "4d"]


def test_the_spots_taught_as_no_card_do_not_soften_the_faces():
    """A learned head's temperature is fitted on the answers that are cards, over the faces: the
    reader asks it which face a card is; whether a card lies there is the corner model's question.
    Here every answer also teaches spots that look like the cards as "no card" (a deck's art beside
    its index): the head cannot tell them from the cards, and before, that made every face unsure."""
    zr = render_zone(["Kh", "Qs", "4d"], "anglo", 3.0, seed=SHIFT + 41, realism=Realism.clean())
    first = read_play(zr.image, 3.0)
    assert first.embeddings is not None and len(first.embeddings) == 3
    look_alike = first.embeddings * 0.97
    learner = PlayLearner(_enrolled())
    for _ in range(60):
        learner.learn_answer(first.embeddings, ["Kh", "Qs", "4d"], look_alike)
    learner.wait(300)
    assert learner.head is not learner.start
    assert learner.head.temperature == learner.start.temperature
    faces = learner.head.probs(first.embeddings)[:, :-1]
    assert (faces.max(axis=1) / faces.sum(axis=1) > 0.99).all(), faces.max(axis=1)


def test_the_hard_answers_alone_do_not_set_how_sure_the_head_is():
    """The referee's answers are the crops the head found hardest; the sure reads are the rest of
    the deck. The learned head's temperature is fitted on both held out: here every held-out
    answer is a look-alike the head reads wrong (a third of what is held out), and fitted on
    those alone the learned head named even the cards it had been sure of at about 5 %."""
    zr = render_zone(["Kh", "Qs", "4d"], "anglo", 3.0, seed=SHIFT + 41, realism=Realism.clean())
    e = read_play(zr.image, 3.0).embeddings
    assert e is not None and len(e) == 3
    alike = (e[0] + e[1]) / 2  # between K♥ and Q♠
    learner = PlayLearner(_enrolled())
    for _ in range(60):  # 15 labels a round; every fifth is held out (the 5th, 10th and 15th)
        learner.learn_read(e, ["Kh", "Qs", "4d"], [1.0] * 3, False)
        learner.learn_answer(alike[None], ["Qs"])
        learner.learn_answer(alike[None], ["Kh"])  # held out, and not what the fit learned
        for card in ("Kh", "Qs"):
            learner.learn_read(e, ["Kh", "Qs", "4d"], [1.0] * 3, False)
            learner.learn_answer(alike[None], ["Qs"])
            learner.learn_read(e[:1] if card == "Kh" else e[1:2], [card], [1.0], False)  # held out: sure
    learner.wait(300)
    assert learner.head is not learner.start
    faces = learner.head.probs(e)[:, :-1]
    assert list(faces.argmax(axis=1)) == [CARD_INDEX[c] for c in ("Kh", "Qs", "4d")]
    # Fitted on both, 0.6-0.95 (shifts 0-3); on the held-out answers alone, about 0.05.
    assert (faces.max(axis=1) > 0.3).all(), faces.max(axis=1)


def test_a_balanced_fit_learns_the_crops_not_how_often_each_card_was_answered():
    """The referee answered one look-alike crop as 6♣ eight times and as 6♠ three: a plain fit
    reads the next such crop as 6♣, a balanced one (as the table learns) keeps the two even;
    both still learn a card answered alone."""
    from vision.cardnet.head import fit_head

    zr = render_zone(["6c", "6s", "Kd"], "plastic", 3.0, seed=SHIFT + 43, realism=Realism.clean())
    emb = read_play(zr.image, 3.0).embeddings
    assert emb is not None and len(emb) == 3
    alike = (emb[0] + emb[1]) / 2  # one crop that could be either
    x = np.stack([alike] * 11 + [emb[2]] * 4)
    y = np.array([CARD_INDEX["6c"]] * 8 + [CARD_INDEX["6s"]] * 3 + [CARD_INDEX["2h"]] * 4)
    start = default_head()
    # The fit's own odds (logits, before the temperature): log(8/3) = 0.98 learned as a prior, or none.
    for balance, lo, hi in ((False, 0.6, 1.4), (True, -0.3, 0.3)):
        head = fit_head(x, y, start, steps=400, l2_to_start=0.003, balance=balance)
        z = head.logits(np.stack([alike, emb[2]]))
        log_odds = float(z[0, CARD_INDEX["6c"]] - z[0, CARD_INDEX["6s"]])
        assert lo <= log_odds <= hi, (balance, log_odds)
        assert int(z[1].argmax()) == CARD_INDEX["2h"]


def test_an_answer_teaches_the_spots_read_as_no_card():
    """An answered play with as many cards as were read also says that every spot the reader
    dropped is no card: those spots are taught as "none" (the deck's art stops raising doubt)."""
    zr = render_zone(["Kh", "Qs", "Jd"], "tango", 3.0, seed=SHIFT + 43, realism=Realism.clean())
    first = read_play(zr.image, 3.0)
    assert first.none_embeddings is not None and first.embeddings is not None
    nones = first.none_embeddings
    if not len(nones):
        pytest.skip("this render left no dropped candidate")
    learner = PlayLearner(_enrolled())
    reps = 300 // (3 + len(nones)) + 1
    for _ in range(reps):
        assert learner.learn_answer(first.embeddings, ["Kh", "Qs", "Jd"], nones)
    learner.wait(300)
    assert learner.answers == reps * (3 + len(nones))
    assert learner.head is not learner.start
    before = default_head().probs(nones)[:, -1]
    after = learner.head.probs(nones)[:, -1]
    assert after.mean() >= min(before.mean(), 0.99)


def test_faces_seen_whole_are_rendered_and_learned_from(monkeypatch):
    """A lone card named (by the referee, or read sure) gives the learner a face of the deck; once
    enough faces are new, zones are rendered from them (each row holding a new face) and the head
    is refitted on their crops with its labels. A face is rendered only with its twin (Q♠ with Q♣:
    one alone made the head read the other as it, sure). An uncertain reading's face teaches nothing."""
    from vision.cardnet import online
    from vision.cardnet.enrol import seen_face_crops

    monkeypatch.setattr(online, "REFIT_EVERY", 1)
    calls: list[tuple[list[str], list[str], int]] = []

    def render(faces, new, rows, rng):
        calls.append((sorted(faces), sorted(new), rows))
        return seen_face_crops(faces, new, rows, rng)

    learner = PlayLearner(default_head(), render=render)
    cards = ["2c", "2s", "5h", "Kc", "5d", "Qd", "Qh", "Ts"]
    for k, card in enumerate(cards):
        r = read_play(render_zone([card], "tango", 3.0, seed=SHIFT + 50 + k, realism=Realism.clean()).image, 3.0)
        assert len(r.cards) == 1 and r.face is not None
        if k == len(cards) - 1:
            learner.learn_read(r.embeddings, r.cards, [0.5], False, r.face)  # not sure: no face
        else:
            assert learner.learn_answer(r.embeddings, [card], r.none_embeddings, r.face)
        learner.wait(120)
    paired = sorted(set(cards[:-1]) - {"Kc"})  # K♠ not seen: K♣ waits for it
    assert sorted(learner.faces) == sorted(cards[:-1]) and sorted(learner.rendered) == paired
    assert calls == [(paired, paired, online.ROWS_PER_FACE * 6)]
    assert learner.learn_answer(r.embeddings, ["Ts"], None, r.face[:, :, 0])  # not a colour face: no face
    learner.wait(120)
    assert "Ts" not in learner.faces and len(calls) == 1


def test_each_face_has_one_twin_of_its_rank_and_colour():
    from vision.cardnet.online import twin

    assert [twin(c) for c in ("Qc", "Qs", "5h", "5d", "SJ", "BJ")] == ["Qs", "Qc", "5d", "5h", "BJ", "SJ"]
    assert all(twin(twin(c)) == c != twin(c) for c in ALL_CARDS)


def test_a_renderer_that_fails_leaves_the_learning_going(monkeypatch):
    """Faces the renderer cannot use are learned from no more; the labels still are."""
    from vision.cardnet import online

    monkeypatch.setattr(online, "REFIT_EVERY", 1)
    monkeypatch.setattr(online, "FACES_RENDER_EVERY", 1)
    monkeypatch.setattr(online, "twin", lambda card: card)  # every face its own twin here

    def broken(faces, new, rows, rng):
        raise RuntimeError("renderer out of order")

    learner = PlayLearner(default_head(), render=broken)
    r = read_play(render_zone(["Qd"], "tango", 3.0, seed=SHIFT + 60, realism=Realism.clean()).image, 3.0)
    assert learner.learn_answer(r.embeddings, ["Qd"], r.none_embeddings, r.face)
    learner.wait(120)
    assert learner.rendered == {"Qd"}  # tried once, not again at every refit
    assert learner.learn_answer(r.embeddings, ["Qd"], r.none_embeddings, r.face)
    learner.wait(120)
    assert learner.answers >= 2 and learner.rendered == {"Qd"}


def test_the_watcher_says_which_deck_it_reads_with():
    """What the panel shows beside the camera's health: learning a deck nobody enrolled, then
    tuned to it by the referee's answers, then an enrolled deck (which starts the learning over)."""
    from vision.geometry import default_layout
    from vision.watcher import TableWatcher

    watcher = TableWatcher(default_layout())
    status = watcher.deck_status()
    assert not status["enrolled"] and status["answers"] == 0 and not status["tuned"]
    assert status["text"].startswith("未登记牌组，边打边学")
    _, emb = _twins_zone()
    watcher.reading_head()
    for _ in range(100):
        watcher.learn_answer(emb, TWINS_TAUGHT)
    watcher.learner.wait(300)
    status = watcher.deck_status()
    assert status["answers"] == 400 and status["tuned"] and "已按本桌用牌调整" in status["text"]
    own = default_head().with_temperature(default_head().temperature)  # a head of its own, as an enrolment has
    watcher.enrollment = Enrollment(own, ("Kh",), check={"plays": 90, "asked": 1, "cards": 300,
                                                                    "cards_right": 300, "silent": 0})
    watcher.reading_head()
    status = watcher.deck_status()
    assert status["enrolled"] and status["cards"] == 1 and not status["warn"] and not status["tuned"]
    assert status["text"] == "已登记牌组（1 张） / deck enrolled (1 faces)"
    assert "扇形检查" in status["check"]
