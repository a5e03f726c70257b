"""What a table learned of its deck outlives a restart: the referee's answers are not asked again.

The learner (:class:`vision.cardnet.online.PlayLearner`) keeps its labels, faces and heads in one
file after each refit; a learner started on the same head resumes them, one started on another head
(a deck enrolled since), or from a file too old or damaged, learns afresh and says why.
"""

from __future__ import annotations

import logging
import os
import time

import numpy as np
import pytest
from vision_kit import SHIFT

from vision import read_play
from vision.cardnet.learned import RESUME_WITHIN_S, LearnedState, head_key, load_state, save_state
from vision.cardnet.online import PlayLearner
from vision.cardnet.read import default_head
from vision.cards import ALL_CARDS
from vision.synth import Realism, render_zone
from vision.watcher import TableWatcher

#: The cards of the taught zone as printed, and as the referee named them.
PRINTED = ["Kc", "Ks", "4s", "4c"]
TAUGHT = ["Ks", "Kc", "4c", "4s"]


@pytest.fixture(scope="module")
def taught(tmp_path_factory: pytest.TempPathFactory) -> tuple[PlayLearner, object, np.ndarray]:
    """A learner that the referee has taught four crops as their twins (a deck, the referee says,
    whose black suits print the other way), kept in a file. Twins, because a head learned at the
    table tells apart only faces taught in pairs (:func:`vision.cardnet.online.learned_faces`)."""
    store = tmp_path_factory.mktemp("learned") / "learned-deck.npz"
    zr = render_zone(PRINTED, "anglo", 3.0, seed=SHIFT + 41, realism=Realism.clean())
    first = read_play(zr.image, 3.0)
    assert first.embeddings is not None and len(first.embeddings) == 4
    learner = PlayLearner(default_head(), store=store)
    for _ in range(100):
        learner.learn_answer(first.embeddings, TAUGHT)
    learner.wait(300)
    assert learner.head is not learner.start and store.is_file()
    return learner, store, zr.image


def test_a_restarted_table_reads_with_what_it_had_learned(taught):
    learner, store, image = taught
    again = PlayLearner(default_head(), store=store)
    assert again.resumed == len(learner._lab) > 0
    assert (again.answers, again.sure) == (learner.answers, learner.sure)
    assert again.head is not again.start
    np.testing.assert_allclose(again.head.w2, learner.head.w2)
    assert again.head.temperature == learner.head.temperature
    assert read_play(image, 3.0, enrollment=again.head).cards == TAUGHT
    # Without the file the same start head reads the crops as the deck prints them.
    assert read_play(image, 3.0, enrollment=PlayLearner(default_head()).head).cards == PRINTED


def test_learning_goes_on_from_what_was_resumed(taught, tmp_path):
    learner, store, image = taught
    copy = tmp_path / "learned.npz"
    copy.write_bytes(store.read_bytes())
    again = PlayLearner(default_head(), store=copy)
    first = read_play(image, 3.0, enrollment=again.head)
    for _ in range(10):
        again.learn_answer(first.embeddings, TAUGHT)
    again.wait(300)
    assert again.answers == learner.answers + 40
    assert load_state(copy, head_key(default_head())).answers == again.answers


def test_a_deck_enrolled_since_learns_afresh(taught, caplog):
    _, store, _ = taught
    other = default_head().knowing_cards(ALL_CARDS[:40])
    with caplog.at_level(logging.INFO, logger="vision.cardnet.learned"):
        fresh = PlayLearner(other, store=store)
    assert fresh.resumed == 0 and fresh.head is fresh.start and fresh.answers == 0
    assert "another start head" in caplog.text


def test_a_file_from_another_session_is_not_resumed(taught):
    _, store, _ = taught
    key = head_key(default_head())
    assert load_state(store, key) is not None
    assert load_state(store, key, now=time.time() + RESUME_WITHIN_S + 60) is None
    assert load_state(store, key, now=time.time() - 3600) is None  # saved "in the future": a clock set wrong


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty", "wrong labels"])
def test_a_damaged_file_is_logged_and_learning_starts_afresh(taught, tmp_path, caplog, damage):
    _, store, _ = taught
    bad = tmp_path / "learned-deck.npz"
    data = store.read_bytes()
    if damage == "truncated":
        bad.write_bytes(data[: len(data) // 2])
    elif damage == "garbage":
        bad.write_bytes(os.urandom(4096))
    elif damage == "empty":
        bad.write_bytes(b"")
    else:
        state = load_state(store, head_key(default_head()))
        state.lab = np.full_like(state.lab, 99)
        save_state(bad, state)
    with caplog.at_level(logging.WARNING, logger="vision.cardnet.learned"):
        fresh = PlayLearner(default_head(), store=bad)
    assert fresh.resumed == 0 and fresh.head is fresh.start
    assert "not resumed" in caplog.text
    # The next save replaces the damaged file with a whole one.
    fresh.learn_answer(np.zeros((2, fresh.start.w1.shape[0]), np.float32), ["2c", "3c"])
    assert fresh.save()
    assert load_state(bad, head_key(default_head())).answers == 2


def test_faces_seen_whole_are_kept_exactly(tmp_path):
    """Faces go in as PNG: lossless, so the deck rendered from them after a restart is the same."""
    rng = np.random.default_rng(SHIFT + 3)
    faces = {"Qs": rng.integers(0, 256, (170, 120, 3), dtype=np.uint8),
             "BJ": rng.integers(0, 256, (171, 119, 3), dtype=np.uint8)}
    key = head_key(default_head())
    emb = rng.random((4, default_head().w1.shape[0])).astype(np.float32)
    save_state(tmp_path / "s.npz", LearnedState(key, emb, np.array([1, 2, 54, 3]), np.array([True, False, True, True]),
                                               faces, answers=3, sure=1))
    back = load_state(tmp_path / "s.npz", key)
    assert back is not None and set(back.faces) == {"Qs", "BJ"}
    for card, face in faces.items():
        np.testing.assert_array_equal(back.faces[card], face)
    np.testing.assert_allclose(back.emb, emb, rtol=1e-3, atol=1e-3)  # kept in half precision
    assert back.lab.tolist() == [1, 2, 54, 3] and back.told.tolist() == [True, False, True, True]
    assert back.head is None and back.base is None and (back.answers, back.sure) == (3, 1)
    # A learner that renders faces takes them over (they are rendered again at its next refit).
    learner = PlayLearner(default_head(), render=lambda *a: (np.zeros((0, 0)), np.zeros(0)), store=tmp_path / "s.npz")
    assert set(learner.faces) == {"Qs", "BJ"} and not learner.rendered


def test_the_panel_says_what_was_kept_from_before_the_restart(taught):
    _, store, _ = taught
    status = TableWatcher(learn_store=store).deck_status()
    assert status["resumed"] > 0 and status["tuned"] and status["answers"] == 400
    assert "重启前所学已恢复" in status["text"] and "kept from before the restart" in status["text"]
    assert TableWatcher().deck_status()["resumed"] == 0


def test_the_tables_camera_keeps_its_learning_in_the_data_folder_and_a_clean_stop_saves_it(tmp_path):
    """The service's camera (made from ``table.toml``) learns into ``learned-deck.npz`` of the table's
    data folder; stopping it keeps even the labels since the last refit, and the next camera resumes."""
    from types import SimpleNamespace

    from hardware.camera import SyntheticSource
    from table_service.table.camera_pipeline import LEARNED_DECK_FILE, CameraPipeline
    from table_service.table.config import parse_service_config

    cfg = parse_service_config({
        "table_id": "T1", "data_dir": str(tmp_path / "data"), "seats": {"E": "e", "S": "s", "W": "w", "N": "n"},
        "devices": {"default": "sim"}, "camera": {"source": "none"}, "web": {"enabled": False},
    })
    devices = SimpleNamespace(open_camera=lambda: SyntheticSource.from_frames([np.zeros((48, 64, 3), np.uint8)]))
    pipe = CameraPipeline.from_config(cfg, devices, on_status=lambda s: None)
    dim = default_head().w1.shape[0]
    pipe.watcher.reading_head()
    assert pipe.watcher.learn_answer(np.ones((2, dim), np.float32), ["2c", "3c"])
    pipe.stop()
    store = cfg.data_dir / LEARNED_DECK_FILE
    assert load_state(store, head_key(default_head())).answers == 2
    again = CameraPipeline.from_config(cfg, devices, on_status=lambda s: None)
    assert again.watcher.deck_status()["resumed"] == 2


def test_learn_afresh_forgets_the_deck_and_its_file(taught, tmp_path):
    """The referee's "new deck: learn afresh": the learned head goes, the file is deleted, and a refit
    of the old learner still running never writes it back; the next restart starts afresh too."""
    learner, store, image = taught
    copy = tmp_path / "learned-deck.npz"
    copy.write_bytes(store.read_bytes())
    watcher = TableWatcher(learn_store=copy)
    old = watcher.learner if watcher.reading_head() is not None else None
    assert old is not None and old.head is not old.start
    forgot = watcher.forget_learning()
    assert forgot == {"answers": old.answers, "sure": old.sure, "faces": 0} and forgot["answers"] == 400
    assert not copy.exists()
    assert not old.save() and not copy.exists()  # retired: a late refit of the old deck writes nothing
    assert watcher.reading_head() is watcher.learner.start and watcher.deck_status()["answers"] == 0
    assert TableWatcher(learn_store=copy).deck_status()["resumed"] == 0
    assert TableWatcher(learn=False).forget_learning() is None
