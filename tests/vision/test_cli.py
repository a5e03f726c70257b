"""``guandan-table vision …`` commands."""

from __future__ import annotations

import json

import cv2

from table_service.cli import main
from vision.calibration import detect_markers
from vision.synth import Realism, render_zone


def test_markers_command_writes_detectable_markers(tmp_path):
    assert main(["vision", "markers", "--out", str(tmp_path)]) == 0
    for i in range(4):
        img = cv2.imread(str(tmp_path / f"table-marker-{i}.png"))
        assert list(detect_markers(img)) == [i]


def test_board_and_read_commands(tmp_path, capsys):
    assert main(["vision", "board", "--out", str(tmp_path / "board.png")]) == 0
    assert cv2.imread(str(tmp_path / "board.png")) is not None
    zr = render_zone(["Jc", "Qc"], "anglo", 3.0, seed=4, realism=Realism.clean())
    cv2.imwrite(str(tmp_path / "zone.png"), zr.image)
    capsys.readouterr()
    assert main(["vision", "read", str(tmp_path / "zone.png")]) == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert out["cards"] == ["Jc", "Qc"]


def test_read_command_bad_file_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "x.png").write_text("not an image")
    rc = main(["vision", "read", str(tmp_path / "x.png")])
    assert rc != 0
    err = capsys.readouterr().err
    assert "cannot read image" in err
