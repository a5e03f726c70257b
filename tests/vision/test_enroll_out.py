"""Where ``guandan-table vision enroll`` saves the deck (the s37 docs audit, findings 7 and 8): with
a table's config and no ``--out``, the file that table's service reads its deck from at start
(``[vision] enrollment``, else ``<data_dir>/deck-enrollment.npz``). Before, it went to
``./data/deck-enrollment.npz`` of whatever folder the command ran in, while the guide said
``[vision] enrollment``: the table went on reading without the deck it had just enrolled."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import cv2
import numpy as np
import pytest

import vision.cli as vision_cli
from table_service.cli import main
from table_service.table.config import load_service_config

TABLE = ('table_id = "T1"\ndata_dir = "data/T1"\n[seats]\nE = "a"\nS = "b"\nW = "c"\nN = "d"\n'
         '[devices]\ndefault = "sim"\n')


@pytest.fixture
def saved(tmp_path, monkeypatch) -> list[Path]:
    """Where the command saves, with the deck's learning (minutes) left out: only the path is tested."""
    paths: list[Path] = []
    monkeypatch.setattr("vision.cardnet.enrol.enroll", lambda faces, px_per_mm: SimpleNamespace())
    monkeypatch.setattr(vision_cli, "_save_and_report", lambda e, n, out: paths.append(Path(out)))
    monkeypatch.setattr(vision_cli, "cmd_enroll_table", lambda args: (paths.append(Path(args.out)), 0)[1])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)  # the command runs in another folder than the table's
    return paths


def _faces(tmp_path: Path) -> str:
    faces = tmp_path / "faces"
    faces.mkdir()
    cv2.imwrite(str(faces / "Ah.png"), np.full((88, 63, 3), 255, np.uint8))
    return str(faces)


def test_with_the_table_s_config_the_deck_goes_where_the_table_reads_it(tmp_path, saved, capsys):
    toml = tmp_path / "etc" / "table.toml"
    toml.parent.mkdir()
    toml.write_text(TABLE, encoding="utf-8")
    assert main(["vision", "enroll", _faces(tmp_path), "--allow-missing", "--config", str(toml)]) == 0
    assert saved[-1] == load_service_config(toml).enrollment_file == tmp_path / "etc" / "data" / "T1" / "deck-enrollment.npz"
    assert "the deck file the table reads" in capsys.readouterr().out
    # --camera takes its frames from the same config and saves to the same file.
    assert main(["vision", "enroll", "--camera", "--config", str(toml)]) == 0
    assert saved[-1] == tmp_path / "etc" / "data" / "T1" / "deck-enrollment.npz"
    # A table that names its deck file: that one.
    toml.write_text(TABLE + '[vision]\nenrollment = "decks/event.npz"\n', encoding="utf-8")
    assert main(["vision", "enroll", _faces(tmp_path / "etc"), "--allow-missing", "--config", str(toml)]) == 0
    assert saved[-1] == tmp_path / "etc" / "decks" / "event.npz"


def test_out_wins_and_without_a_config_the_old_default_stays(tmp_path, saved):
    toml = tmp_path / "table.toml"
    toml.write_text(TABLE, encoding="utf-8")
    out = tmp_path / "mine.npz"
    assert main(["vision", "enroll", _faces(tmp_path), "--allow-missing", "--config", str(toml), "--out", str(out)]) == 0
    assert saved[-1] == out
    assert main(["vision", "enroll", _faces(tmp_path / "elsewhere"), "--allow-missing"]) == 0
    assert saved[-1] == Path("data/deck-enrollment.npz")


def test_an_empty_config_is_refused(tmp_path, saved, capsys):
    assert main(["vision", "enroll", _faces(tmp_path), "--allow-missing", "--config", ""]) != 0
    assert "--config" in capsys.readouterr().err and not saved
