"""The deck a table reads with survives a restart as it was: the hub's retained deck, sent again when
the table reconnects, does not replace a deck enrolled at the table since (it did: after a restart the
camera read with the hub's deck again); a new deck from the hub does. Each change is in the log."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from table_service.table.deck import load_saved_deck, take_deck
from table_service.views.camera_note import camera_noted


def _enrolment(cards: tuple[str, ...], path: Path) -> bytes:
    from vision import enroll
    from vision.artwork import load_deck

    deck = load_deck("anglo")
    with pytest.MonkeyPatch.context() as mp:  # a short fit: these files are kept and compared, never read with
        mp.setattr("vision.cardnet.enrol.ENROL_STEPS", 50)
        enroll({c: deck.bgr(c) for c in cards}, px_per_mm=6.0, rows=4, check_plays=0).save(path)
    return path.read_bytes()


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    folder = tmp_path_factory.mktemp("decks")
    return {name: _enrolment(cards, folder / f"{name}.npz")
            for name, cards in {"hub": ("Ah", "Kh"), "own": ("2c", "3c", "4c"), "hub2": ("5d", "6d")}.items()}


def _camera(path: Path) -> Any:
    """What the deck functions need of a camera pipeline: where the deck lives and the watcher."""
    return SimpleNamespace(enrollment_path=str(path), watcher=SimpleNamespace(enrollment=None))


def test_the_deck_enrolled_at_the_table_outlives_the_hubs_retained_deck(tmp_path: Path, files: dict[str, bytes]) -> None:
    import hashlib

    def sha(b: bytes) -> str:
        return hashlib.sha256(b).hexdigest()

    path = tmp_path / "deck-enrollment.npz"
    cam = _camera(path)
    assert take_deck(cam, files["hub"], sha(files["hub"]))  # the hub's deck, taken
    path.write_bytes(files["own"])  # then the chief enrols the table's own deck at its panel
    cam = _camera(path)  # the Pi restarts
    assert load_saved_deck(cam) and cam.watcher.enrollment.cards == ("2c", "3c", "4c")
    assert not take_deck(cam, files["hub"], sha(files["hub"]))  # the retained deck comes again on connect
    assert path.read_bytes() == files["own"] and cam.watcher.enrollment.cards == ("2c", "3c", "4c")
    assert take_deck(cam, files["hub2"], sha(files["hub2"]))  # a new deck from the hub replaces it
    assert path.read_bytes() == files["hub2"] and cam.watcher.enrollment.cards == ("5d", "6d")
    cam = _camera(path)  # restart again: the hub's deck it had taken is read, and taken again as is
    assert take_deck(cam, files["hub2"], sha(files["hub2"])) and cam.watcher.enrollment.cards == ("5d", "6d")


def test_a_camera_note_keeps_the_camera_status_and_says_what_changed() -> None:
    ev = camera_noted({"devices": {"camera": "offline"}}, "x" * 600)
    assert ev["type"] == "device_status_changed" and ev["data"]["status"] == "offline"
    assert len(ev["data"]["detail"]) == 500
    assert camera_noted({}, "deck")["data"]["status"] == "online"


def test_the_hubs_deck_is_in_the_log_before_it_is_used_and_unused_when_the_log_refuses(
        tmp_path: Path, files: dict[str, bytes]) -> None:
    """The durability audit of 2026-12-06 (finding 6): the deck was saved and read with before its note
    was even queued (``wait=False``): plays could be read with a deck the log did not name yet, or never,
    the note lost to a kill. ``take_deck`` now asks for the note first, with the deck checked and written
    whole beside its place, and takes it only once the log has it."""
    import hashlib

    sha = hashlib.sha256(files["hub"]).hexdigest()
    path = tmp_path / "deck-enrollment.npz"
    path.write_bytes(files["own"])
    cam = _camera(path)
    at_note: list[tuple[Any, bytes]] = []
    assert not take_deck(cam, files["hub"], sha, note=lambda: at_note.append((cam.watcher.enrollment,
                                                                               path.read_bytes())) and False)
    assert at_note == [(None, files["own"])]  # asked before anything changed ...
    assert path.read_bytes() == files["own"] and cam.watcher.enrollment is None  # ... and refused: nothing did
    assert sorted(p.name for p in tmp_path.iterdir()) == ["deck-enrollment.npz"]  # no staged file left
    at_note.clear()
    assert take_deck(cam, files["hub"], sha, note=lambda: at_note.append((cam.watcher.enrollment,
                                                                          path.read_bytes())) is None)
    assert at_note == [(None, files["own"])]
    assert path.read_bytes() == files["hub"] and cam.watcher.enrollment.cards == ("Ah", "Kh")
