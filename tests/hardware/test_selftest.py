"""The self-test against sim devices and mock pins: passes when the table works, fails where it does not."""

from __future__ import annotations

import io
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from hardware.backends.tm1637 import MockTM1637
from hardware.config import load_config
from hardware.selftest import SelfTest
from hardware.table import TableDevices
from table_service.cli import main as cli_main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
FAST = {"lamp_s": 0.0, "countdown_from": 1, "displays_together": True, "button_timeout_s": 2.0,
        "camera_timeout_s": 3.0}


def test_sim_table_passes() -> None:
    out = io.StringIO()
    with TableDevices(load_config(EXAMPLES / "table-sim.toml")) as table:
        report = SelfTest(table, out=out, **FAST).run()
    assert report.ok, report.format()
    assert len(report.results) == 10 + 4 + 1 + 12 + 1
    assert all(r.ok for r in report.results)
    text = out.getvalue()
    assert "通过 PASS" in text and "28 passed, 0 failed" in text
    assert "all four corner markers found" in report.result("摄像头 / camera").detail
    assert report.result("东 E 倒计时 / countdown").detail == "sim: 1 0"


def test_gpio_table_on_mock_pins(mock_factory) -> None:
    """Presses come from the mock pins through the prompt hook, like a technician's finger."""
    cfg = load_config(EXAMPLES / "table-gpio.toml", check_devices=False)
    asked: list[tuple[str, str]] = []
    with TableDevices(cfg, display_bit_delay=0) as table:
        def press(seat: str, button: str) -> None:
            asked.append((seat, button))
            table.seats[seat].buttons[button].simulate_press()

        report = SelfTest(table, steps=("lamps", "displays", "buzzer", "buttons"), prompt=press, out=None,
                          **FAST).run()
        chips = table.mock_displays
        assert all("0" in "".join(str(f) for f in c.frames) for c in chips.values())
    assert report.ok, report.format()
    assert len(asked) == 12
    assert report.result("东 E 出牌灯 / turn lamp").ok is None  # not fitted on this table
    assert report.result("北 N 呼叫裁判 / call referee").detail.startswith("gpio:")
    assert report.result("西 W 倒计时 / countdown").detail == "gpio: 1 0"


def test_failures_are_reported(mock_factory) -> None:
    MockTM1637(27, 22, ack=False)  # S's display unplugged
    cfg = load_config(EXAMPLES / "table-gpio.toml", check_devices=False)
    with TableDevices(cfg, display_bit_delay=0) as table:
        def press(seat: str, button: str) -> None:
            if (seat, button) == ("W", "pass"):
                table.seats["N"].buttons["pass"].simulate_press()  # wrong button
            elif (seat, button) != ("N", "report"):  # N's report button is broken: nothing happens
                table.seats[seat].buttons[button].simulate_press()

        report = SelfTest(table, steps=("displays", "buttons"), prompt=press, out=None,
                          **{**FAST, "button_timeout_s": 0.3}).run()
    assert not report.ok
    failed = {r.item for r in report.failed()}
    assert failed == {"南 S 倒计时 / countdown", "西 W 过牌 / pass", "北 N 报牌 / report"}
    assert "did not acknowledge" in report.result("南 S 倒计时 / countdown").detail
    assert "other buttons pressed: N.pass" in report.result("西 W 过牌 / pass").detail
    assert "not pressed within 0.3 s" in report.result("北 N 报牌 / report").detail


def test_camera_without_markers_fails(tmp_path: Path, write_toml) -> None:
    blank = tmp_path / "shots"
    blank.mkdir()
    cv2.imwrite(str(blank / "0.png"), np.full((240, 320, 3), 90, np.uint8))
    text = f"""
table_id = "CAM"
[seats]
E = "a"
S = "b"
W = "c"
N = "d"
[devices]
default = "none"
[camera]
source = "folder"
path = "{blank}"
"""
    with TableDevices(load_config(write_toml(text))) as table:
        report = SelfTest(table, out=None, **FAST).run()
    cam = report.result("摄像头 / camera")
    assert cam.ok is False and "missing corner markers 0, 1, 2, 3" in cam.detail
    assert all(r.ok is None for r in report.results if r.step != "camera")  # nothing else fitted


def test_sequential_displays(write_toml) -> None:
    """The technician's mode: one display after another."""
    text = 'table_id = "SEQ"\n[seats]\nE = "a"\nS = "b"\nW = "c"\nN = "d"\n'
    with TableDevices(load_config(write_toml(text))) as table:
        report = SelfTest(table, steps=("displays",), out=None, countdown_from=1).run()
        histories = [table.seats[s].countdown.history for s in "ESWN"]
    assert report.ok
    assert all(h[-2:] == ["   0", "    "] for h in histories)


def test_cli_selftest(capsys) -> None:
    rc = cli_main(["selftest", "--config", str(EXAMPLES / "table-sim.toml"), "--countdown-from", "1",
                   "--lamp-seconds", "0", "--displays-together"])
    out = capsys.readouterr().out
    assert rc == 0, out
    assert "合格 OK" in out and "请按 东 E（Bot E）" in out
    assert "事件日志 / event log" in out and "SIM1.sqlite3" in out  # run's start-up checks, first


def test_cli_selftest_mock_gpio_reports_missing_camera(capsys) -> None:
    rc = cli_main(["selftest", "--config", str(EXAMPLES / "table-gpio.toml"), "--mock-gpio", "--countdown-from",
                   "1", "--lamp-seconds", "0", "--displays-together", "--camera-timeout", "0.3"])
    out = capsys.readouterr().out
    assert rc == 1
    lines = [ln for ln in out.splitlines() if ln.startswith("摄像头 / camera")]
    assert lines and "失败 FAIL" in lines[0] and "/dev/video0" in lines[0]
    assert "27 passed, 1 failed, 4 skipped" in out  # 23 devices + run's 4 start-up checks (folder, log, users, panel)


@pytest.mark.parametrize("opt", [["--button-timeout", "-1"], ["--button-timeout", "nan"], ["--camera-timeout", "nan"],
                                 ["--lamp-seconds", "-1"], ["--countdown-from", "-3"], ["--countdown-from", "999999999"]])
def test_selftest_numbers_are_checked_before_any_device_is_touched(opt: list[str], capsys) -> None:
    """A negative wait failed every button and blamed the hardware; nan or a huge countdown never ended."""
    with pytest.raises(SystemExit) as exc:
        cli_main(["selftest", "--config", str(EXAMPLES / "table-sim.toml"), *opt])
    assert exc.value.code == 2 and "must be" in capsys.readouterr().err


def test_cli_selftest_makes_the_start_up_checks_of_run_and_writes_nothing(tmp_path: Path, write_toml,
                                                                          capsys) -> None:
    """A technician runs the self-test to learn whether the table will start: its devices all passed
    while ``run`` refused the table at start (a garbage event log, another program's users database),
    and the test said "OK". It now lists ``run``'s start-up checks (table_service/table/preflight.py)
    one by one, fails on the garbage log naming the file, and writes nothing into the data folder."""
    import sqlite3

    data = tmp_path / "data"
    data.mkdir()
    (data / "T9.sqlite3").write_bytes(b"junk" * 300)
    other = sqlite3.connect(data / "web-users.sqlite3")  # another program's database where the accounts go
    other.execute("CREATE TABLE events (seq INTEGER)")
    other.commit()
    other.close()
    path = write_toml("""
        table_id = "T9"
        data_dir = "data"
        [seats]
        E = "a"
        S = "b"
        W = "c"
        N = "d"
        [devices]
        default = "sim"
        [camera]
        source = "none"
        [web]
        port = 0
        """)

    def files() -> dict[Path, tuple[bytes, int]]:
        return {p: (p.read_bytes(), p.stat().st_mtime_ns) for p in tmp_path.rglob("*") if p.is_file()}

    before = files()
    rc = cli_main(["selftest", "--config", str(path), "--skip", "lamps", "--skip", "displays", "--skip", "buzzer",
                   "--skip", "buttons", "--skip", "camera"])
    out = capsys.readouterr().out
    assert rc == 1, out
    rows = {ln.split("  ")[0]: ln for ln in out.splitlines() if "PASS" in ln or "FAIL" in ln}
    assert "通过 PASS" in rows["数据目录 / data folder"]
    assert "失败 FAIL" in rows["事件日志 / event log"] and "T9.sqlite3" in rows["事件日志 / event log"]
    assert "失败 FAIL" in rows["用户数据库 / users database"] and "is not a users database" in out
    assert "通过 PASS" in rows["裁判面板地址 / panel address"]
    assert "2 passed, 2 failed, 0 skipped" in out and "不合格 NOT OK" in out
    assert files() == before and sorted(p.name for p in data.iterdir()) == ["T9.sqlite3", "web-users.sqlite3"]


def test_devices_that_cannot_open_still_leave_the_start_up_checks_said(tmp_path: Path, monkeypatch, capsys) -> None:
    """A GPIO table whose pins cannot be opened (no pin factory: a Pi image without lgpio) ended the
    self-test at "cannot open devices", and the technician learned nothing of the garbage event log
    that would stop ``run`` next. The start-up checks need no device: they are said all the same."""
    from gpiozero import Device

    monkeypatch.setattr(Device, "pin_factory", None)
    monkeypatch.setenv("GPIOZERO_PIN_FACTORY", "no-such-pin-factory")
    data = tmp_path / "data"
    data.mkdir()
    (data / "T9.sqlite3").write_bytes(b"junk" * 300)
    text = (EXAMPLES / "table-gpio.toml").read_text(encoding="utf-8")
    text = re.sub(r'(?m)^table_id = .*$', 'table_id = "T9"\ndata_dir = "data"', text, count=1)
    text = re.sub(r'(?m)^data_dir = (?!"data").*\n', "", text)
    (tmp_path / "table.toml").write_text(text + "\n[web]\nport = 0\n" if "[web]" not in text else text, encoding="utf-8")
    rc = cli_main(["selftest", "--config", str(tmp_path / "table.toml"), "--skip", "camera"])
    captured = capsys.readouterr()
    assert rc == 1 and "cannot open devices" in captured.err, captured
    rows = {ln.split("  ")[0]: ln for ln in captured.out.splitlines() if "PASS" in ln or "FAIL" in ln}
    assert "失败 FAIL" in rows["事件日志 / event log"] and "T9.sqlite3" in rows["事件日志 / event log"], captured.out
    assert "通过 PASS" in rows["数据目录 / data folder"] and "不合格 NOT OK" in captured.out
    assert sorted(p.name for p in data.iterdir()) == ["T9.sqlite3"]
