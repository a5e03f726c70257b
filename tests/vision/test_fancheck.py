"""The fan check made at enrolment: what the organiser is told of a deck before the event.

The property that must hold on any deck: one whose corner prints no suit (gnome's tango_nuevo: the
suit sits at the card's top-right, covered in a fan) is warned of, and the warning says why.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from vision_kit import SHIFT, half_size_faces

from vision import enroll
from vision.artwork import load_deck
from vision.cardnet.deckfile import Enrollment
from vision.cardnet.fancheck import ASKED_WARN, verdict


def test_a_deck_without_the_suit_in_its_corner_is_warned_of_before_the_event(tmp_path, monkeypatch):
    # A quick fit (300 steps, as the enrolment tests that check what is said and saved): the corner
    # prints no suit, so no fit can read it; the verdict is what is checked.
    monkeypatch.setattr("vision.cardnet.enrol.ENROL_STEPS", 300)
    e = enroll(half_size_faces("tango_nuevo"), px_per_mm=3.0, rows=40, check_plays=12, seed=SHIFT)
    c = e.check
    assert c is not None and c["plays"] == 12 and c["asked"] / c["plays"] > ASKED_WARN
    assert c["silent"] == 0  # it asks; it does not guess
    warn, text = verdict(c)
    assert warn and "角标可能不印花色" in text and "corner may not print the suit" in text
    assert text.index("扇形检查") < text.index(" / fan check")  # Chinese first
    e.save(tmp_path / "d.npz")
    assert Enrollment.load(tmp_path / "d.npz").check == c  # the table that loads it can say so too


@pytest.mark.parametrize("check, warn", [
    (None, False),
    ({"plays": 0}, False),
    ({"plays": 90, "asked": 2, "silent": 0, "cards": 300, "cards_right": 300}, False),
    ({"plays": 90, "faces": 54, "asked": 2, "silent": 0, "cards": 300, "cards_right": 300}, False),
    # Three faces enrolled (a deck enrolled from the cards one play left on the felt): every check
    # play was made of those three, so its 100 % says nothing of the other 51.
    ({"plays": 90, "faces": 3, "asked": 0, "silent": 0, "cards": 300, "cards_right": 300}, True),
    ({"plays": 90, "asked": 30, "silent": 0, "cards": 300, "cards_right": 280,
      "doubted_pairs": [["6c", "6s", 9]], "suit_only_doubts": 2, "doubts": 20}, True),
])
def test_verdict(check, warn):
    w, text = verdict(check)
    assert w is warn and " / " in text
    assert ("only 3 faces enrolled" in text and "其余 51 张" in text) is bool(check and check.get("faces") == 3)
    assert ("角标可能不印花色" in text) is False  # rank doubts (2 of 20 suit-only) are no corner without a suit


@pytest.mark.parametrize("bad", [-1, 10_001, 2.5, True, "90"])
def test_bad_check_plays_is_a_clear_error(bad):
    with pytest.raises(ValueError, match="check_plays"):
        enroll({"As": load_deck("anglo").bgr("As")}, rows=2, check_plays=bad)


def test_a_damaged_fan_check_in_a_deck_file_is_refused_clearly(tmp_path):
    e = enroll({"As": load_deck("anglo").bgr("As")}, rows=2, check_plays=0)
    e.save(tmp_path / "d.npz")
    with np.load(tmp_path / "d.npz") as z:
        data = {k: z[k] for k in z.files}
    for bad in ("{not json", json.dumps([1, 2])):
        data["check"] = np.array(bad)
        np.savez_compressed(tmp_path / "bad.npz", **data)
        with pytest.raises(ValueError, match="enrolment file incomplete or damaged"):
            Enrollment.load(tmp_path / "bad.npz")
    assert Enrollment.load(tmp_path / "d.npz").check is None
    (tmp_path / "zip.npz").write_bytes(b"PK\x03\x04 a zip's first bytes and nothing after")
    with pytest.raises(ValueError, match="cannot read enrolment file"):
        Enrollment.load(tmp_path / "zip.npz")
