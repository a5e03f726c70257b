"""The camera set-ups of the annotated examples, and ``config check`` on a camera whose px/mm nobody
worked out (the s37 docs audit, finding 21): examples/table-gpio.toml and table-screen.toml asked
for 1920×1080 with no mounting (1.07 px/mm, the reader misses about half the cards of an unseen
design), and ``config check`` passed them with a note, no warning."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from table_service.cli.hardware import cmd_config_check
from table_service.table.placement import MIN_PX_PER_MM

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BASE = 'table_id = "C"\n[seats]\nE = "a"\nS = "b"\nW = "c"\nN = "d"\n'


def _check(path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    assert cmd_config_check(argparse.Namespace(path=str(path), offline=True)) == 0
    return capsys.readouterr().out


def _zones(out: str) -> list[float]:
    line = next(ln for ln in out.splitlines() if "px/mm on the play zones (" in ln)
    english = line[line.index("px/mm on the play zones ("):]  # the Chinese half names each zone too
    return [float(v) for v in re.findall(r"\b[ESWN]=([0-9.]+)", english)]


def test_a_camera_without_its_mounting_is_warned_of(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    path.write_text(BASE + '[camera]\nsource = "device"\ndevice = 0\nwidth = 1920\nheight = 1080\n', encoding="utf-8")
    warned = [ln for ln in _check(path, capsys).splitlines() if "警告 / warning" in ln and "px/mm" in ln]
    assert len(warned) == 1, warned
    assert f"至少 {MIN_PX_PER_MM} px/mm" in warned[0] and f"at least {MIN_PX_PER_MM} px/mm" in warned[0]
    assert warned[0].index("未知") < warned[0].index("unknown")  # Chinese first
    assert "mount_height_mm" in warned[0]


def test_the_screen_example_reads(capsys: pytest.CaptureFixture[str]) -> None:
    """The guide's Camera Module 3 at 1,370 mm: every zone at or above the reader's minimum, no warning."""
    out = _check(EXAMPLES / "table-screen.toml", capsys)
    zones = _zones(out)
    assert len(zones) == 4 and min(zones) >= MIN_PX_PER_MM
    assert "warning" not in out


def test_the_gpio_example_s_usb_camera_is_worked_out_and_its_shortfall_said(capsys: pytest.CaptureFixture[str]) -> None:
    """A 4K USB camera with the table in view stays under the minimum: the example says why, the check warns."""
    out = _check(EXAMPLES / "table-gpio.toml", capsys)
    zones = _zones(out)
    assert len(zones) == 4 and min(zones) < MIN_PX_PER_MM and min(zones) > 2.0  # 4K, not 1080p's 1.07
    assert f"under {MIN_PX_PER_MM}" in out
    assert "Why not a set-up that reads" in (EXAMPLES / "table-gpio.toml").read_text(encoding="utf-8")
