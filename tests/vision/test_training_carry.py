"""The training recipe's parts for a lent machine: decks carried as rasters, sheets carried scaled
down and restored, shards rendered for a time and written whole, held-out designs refused.

(Training itself never runs in the default suite: torch is the ``[train]`` extra.)"""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.artwork import SHEET_WIDTH_PX, Deck, load_deck, sheet_path
from vision.cards import ALL_CARDS
from vision.training import carry
from vision.training.make_data import _work, load_shards
from vision.training.svg_decks import deck_from_rasters, save_rasters, svg_decks

ROOT = Path(__file__).resolve().parents[2]


def _deck(name: str, n: int = 54) -> Deck:
    rng = np.random.default_rng(3)
    faces = {}
    for card in ALL_CARDS[:n]:
        f = rng.integers(0, 256, (528, 378, 4), dtype=np.uint8)
        f[..., 3] = 255
        faces[card] = f
    return Deck(name, faces, (63.0, 88.0))


def test_a_deck_saved_as_rasters_reads_back_face_for_face(tmp_path: Path) -> None:
    deck = _deck("svg-test-deck")
    save_rasters([deck], tmp_path)
    back = deck_from_rasters(tmp_path / "svg-test-deck")
    assert back is not None and back.design == "svg-test-deck"
    assert set(back.faces) == set(deck.faces)
    for card, face in deck.faces.items():
        np.testing.assert_array_equal(back.faces[card], face)  # lossless
    # The recipe's --svg-decks finds raster folders as it finds SVG folders.
    assert [d.design for d in svg_decks(tmp_path)] == ["svg-test-deck"]


def test_a_raster_folder_of_too_few_cards_is_no_deck(tmp_path: Path) -> None:
    save_rasters([_deck("short", n=30)], tmp_path)
    (tmp_path / "short" / "notes.webp").write_bytes(b"not an image")
    assert deck_from_rasters(tmp_path / "short") is None
    assert svg_decks(tmp_path) == []


def test_a_sheet_carried_scaled_down_is_restored_at_full_width(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    load_deck("anglo")  # the sheet is rendered and cached here
    original = cv2.imread(str(sheet_path("anglo")), cv2.IMREAD_UNCHANGED)
    carry.pack(tmp_path / "pack", ["anglo"], None, 0.7, fonts=False)
    assert (tmp_path / "pack" / carry.SHEETS / "anglo.webp").exists()
    assert not (tmp_path / "pack" / carry.FONTS).exists()
    monkeypatch.setenv("GUANDAN_TABLE_CACHE", str(tmp_path / "cache"))
    assert carry.unpack(tmp_path / "pack", font_root=tmp_path / "fonts") == ["anglo"]
    restored = cv2.imread(str(tmp_path / "cache" / f"sheet-anglo-{SHEET_WIDTH_PX}.png"), cv2.IMREAD_UNCHANGED)
    assert restored.shape[1] == SHEET_WIDTH_PX and abs(restored.shape[0] - original.shape[0]) <= 1
    h = min(restored.shape[0], original.shape[0])
    diff = np.abs(restored[:h].astype(np.int16) - original[:h].astype(np.int16))
    assert float(diff.mean()) < 4.0  # softer at the edges of the ink, the same picture


def test_held_out_designs_are_never_packed_or_rendered(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="held-out"):
        carry.pack(tmp_path, ["anglo", "plastic"], None, 0.7, fonts=False)
    r = subprocess.run([sys.executable, "-m", "vision.training.make_data", "--designs", "tango", "--zones", "1",
                        "--shards", "1", "--out", str(tmp_path / "d")], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 2 and "held-out" in r.stderr
    assert not list((tmp_path / "d").glob("shard-*"))


def test_a_shard_rendered_for_a_time_holds_at_least_one_zone_and_is_written_whole(tmp_path: Path) -> None:
    line = _work((5, 10_000, ["anglo"], 0, str(tmp_path), None, 0.0, False))
    assert "1 zones" in line  # the time was spent before the first zone: one is still rendered
    assert [p.name for p in tmp_path.iterdir()] == ["shard-5.pkl"]  # no part file left
    with open(tmp_path / "shard-5.pkl", "rb") as f:
        shard = pickle.load(f)
    assert shard["det_x"] == []  # classifier only
    data = load_shards(tmp_path)
    assert len(data["cls_x"]) == 1 and len(data["cls_x"][0]) == len(data["cls_y"][0]) >= 4
    assert set(data["cls_design"]) == {"anglo"}  # a re-print keeps its design's name
