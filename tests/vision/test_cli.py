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


def test_board_to_a_name_no_image_writer_takes_is_a_clear_error(tmp_path, capsys):
    for name in ("b.txt", "bnoext"):
        assert main(["vision", "board", "--out", str(tmp_path / name)]) == 2
        assert "use .png or .jpg" in capsys.readouterr().err
        assert not (tmp_path / name).exists()


def test_a_json_nested_too_deep_is_an_input_error_not_an_internal_one(tmp_path, capsys):
    (tmp_path / "deep.jsonl").write_text("[" * 100_000)
    assert main(["replay", str(tmp_path / "deep.jsonl")]) == 2
    assert "nested too deeply" in capsys.readouterr().err


def test_read_command_bad_file_is_a_clear_error(tmp_path, capsys):
    (tmp_path / "x.png").write_text("not an image")
    rc = main(["vision", "read", str(tmp_path / "x.png")])
    assert rc != 0
    err = capsys.readouterr().err
    assert "cannot read image" in err


def test_enroll_command_saves_an_enrolment_that_read_uses(tmp_path, capsys, monkeypatch):
    """54 face photos named by card -> an enrolment file; `vision read --enrollment` reads with it."""
    import vision.cardnet.enrol as enrol_mod

    monkeypatch.setattr(enrol_mod, "ENROL_ROWS", 24)  # a short fit: the test checks the path, not the fit
    monkeypatch.setattr(enrol_mod, "ENROL_STEPS", 500)
    monkeypatch.setattr("vision.cardnet.fancheck.FAN_CHECK_PLAYS", 6)
    from vision.artwork import load_deck
    from vision.cardnet.deckfile import Enrollment
    from vision.cards import ALL_CARDS

    deck = load_deck("anglo")
    faces = tmp_path / "faces"
    faces.mkdir()
    for c in ALL_CARDS:
        cv2.imwrite(str(faces / f"{c}.png"), cv2.resize(deck.bgr(c), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA))
    out = tmp_path / "deck.npz"
    assert main(["vision", "enroll", str(faces), "--out", str(out)]) == 0
    assert "fan check: about" in capsys.readouterr().out  # what the organiser is told of the deck
    e = Enrollment.load(out)
    assert set(e.cards) == set(ALL_CARDS) and e.check is not None and e.check["plays"] == 6
    zr = render_zone(["7d", "7s", "Kh"], "anglo", 3.0, seed=8, realism=Realism.clean())
    cv2.imwrite(str(tmp_path / "zone.png"), zr.image)
    capsys.readouterr()
    assert main(["vision", "read", str(tmp_path / "zone.png"), "--enrollment", str(out)]) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["cards"] == ["7d", "7s", "Kh"]


def test_enroll_command_names_missing_and_misnamed_faces(tmp_path, capsys):
    faces = tmp_path / "faces"
    faces.mkdir()
    img = render_zone(["Ah"], "anglo", 3.0, seed=1).image
    cv2.imwrite(str(faces / "Ah.png"), img)
    assert main(["vision", "enroll", str(faces), "--out", str(tmp_path / "d.npz")]) != 0
    assert "53 faces missing" in capsys.readouterr().err
    cv2.imwrite(str(faces / "ace-of-hearts.png"), img)
    assert main(["vision", "enroll", str(faces), "--out", str(tmp_path / "d.npz")]) != 0
    assert "ace-of-hearts.png" in capsys.readouterr().err
    assert not (tmp_path / "d.npz").exists()


def test_read_command_error_is_one_clean_line(tmp_path):
    """No OpenCV ``[ WARN ]`` line before the message (issue #18 item 12): run as a user would."""
    import subprocess
    import sys

    for name, content in (("missing.png", None), ("junk.png", b"not an image"), ("empty.png", b"")):
        path = tmp_path / name
        if content is not None:
            path.write_bytes(content)
        p = subprocess.run([sys.executable, "-m", "table_service", "vision", "read", str(path)],
                           capture_output=True, text=True, timeout=300)
        assert p.returncode != 0
        lines = [ln for ln in p.stderr.splitlines() if ln.strip()]
        assert len(lines) == 1 and "cannot read image" in lines[0] and "WARN" not in p.stderr, p.stderr


def test_every_vision_option_has_help_text():
    """Every option and argument of every ``vision`` sub-command says what it is (issue #18 item 12)."""
    import argparse

    from vision.cli import register

    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    vision = next(a for a in parser._subparsers._group_actions[0].choices.values())
    subs = next(a for a in vision._actions if isinstance(a, argparse._SubParsersAction))
    assert subs.choices
    for name, sub in subs.choices.items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, f"vision {name} {action.option_strings or action.dest}: no help text"


def test_markers_that_cannot_be_written_name_the_file_and_fail(tmp_path, capsys):
    (tmp_path / "table-marker-2.png").mkdir()  # a folder named like the PNG: cv2.imwrite said False, ignored
    assert main(["vision", "markers", "--out", str(tmp_path)]) == 2
    assert "table-marker-2.png" in capsys.readouterr().err


def test_board_and_markers_write_to_a_path_that_is_not_utf8(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    repo = Path(__file__).resolve().parents[2]
    env = {"PYTHONPATH": str(repo), "PATH": "/usr/bin:/bin"}
    for argv in (["board", "--out", "b\udcff.png"], ["markers", "--out", "m\udcff"]):  # OpenCV segfaulted (rc 139)
        proc = subprocess.run([sys.executable, "-m", "table_service", "vision", *argv], cwd=tmp_path, env=env,
                              capture_output=True, timeout=120)
        assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "b\udcff.png").stat().st_size > 0
    assert len(list((tmp_path / "m\udcff").iterdir())) == 4


def test_board_keeps_a_file_it_did_not_make_unless_forced(tmp_path, capsys):
    photo = tmp_path / "board.png"
    photo.write_bytes(b"\x89PNG a photo of the table")
    assert main(["vision", "board", "--out", str(photo)]) == 2
    assert "not overwritten" in capsys.readouterr().err
    assert photo.read_bytes() == b"\x89PNG a photo of the table"
    assert main(["vision", "board", "--out", str(photo), "--force"]) == 0
    assert main(["vision", "board", "--out", str(photo)]) == 0  # its own board: written again
