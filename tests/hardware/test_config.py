"""table.toml: the examples are valid, and every kind of mistake gets a clear error."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from hardware.config import load_config, parse_config
from hardware.config_model import DEVICE_KINDS
from hardware.errors import ConfigError
from table_service.cli import main as cli_main

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"

MINIMAL = """
table_id = "T9"
[seats]
E = "a"
S = "b"
W = "c"
N = "d"
"""


def _problems(text: str, write_toml, **kw) -> list[str]:
    with pytest.raises(ConfigError) as info:
        load_config(write_toml(text), **kw)
    return info.value.problems


@pytest.mark.parametrize("name", ["table-gpio.toml", "table-screen.toml", "table-sim.toml"])
def test_examples_are_valid(name: str) -> None:
    cfg = load_config(EXAMPLES / name, check_devices=False)
    assert set(cfg.seat_names) == {"E", "S", "W", "N"}
    assert set(cfg.backends) == set(DEVICE_KINDS)


def test_gpio_example_pins() -> None:
    cfg = load_config(EXAMPLES / "table-gpio.toml", check_devices=False)
    assert cfg.backends["turn_lamp"] == "none"
    assert cfg.gpio.pins[("E", "report_button")] == 5
    assert cfg.gpio.pins[(None, "status_led")] == 18
    # four displays share one clock line, each with its own DIO
    assert {p.clk for p in cfg.gpio.displays.values()} == {27}
    assert len({p.dio for p in cfg.gpio.displays.values()}) == 4


def test_screen_example_needs_its_port(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        load_config(EXAMPLES / "table-screen.toml")
    assert any("usb-guandan_screen_controller-if00" in p and "does not exist" in p for p in info.value.problems)


def test_minimal_defaults_to_sim(write_toml) -> None:
    cfg = load_config(write_toml(MINIMAL))
    assert set(cfg.backends.values()) == {"sim"}
    assert cfg.camera.source == "none"
    assert cfg.data_dir == write_toml(MINIMAL).parent / "data"


def test_unknown_key_did_you_mean(write_toml) -> None:
    problems = _problems(MINIMAL + '[devices]\ndefault = "sim"\nreport_buton = "gpio"\n', write_toml)
    assert len(problems) == 1
    assert "unknown key 'report_buton'" in problems[0]
    assert "did you mean 'report_button'" in problems[0]


def test_unknown_top_level_key(write_toml) -> None:
    problems = _problems('tabel_id = "x"\n' + MINIMAL, write_toml)
    assert any("'tabel_id'" in p and "did you mean 'table_id'" in p for p in problems)


def test_unknown_backend(write_toml) -> None:
    problems = _problems(MINIMAL + '[devices]\ndefault = "gpoi"\n', write_toml)
    assert any("unknown backend" in p and "did you mean 'gpio'" in p for p in problems)


def test_seat_missing(write_toml) -> None:
    text = 'table_id = "T1"\n[seats]\nE = "a"\nS = "b"\nW = "c"\n'
    problems = _problems(text, write_toml)
    assert problems == [p for p in problems if "seat N missing" in p]


def test_seat_name_empty_and_unknown_seat(write_toml) -> None:
    text = 'table_id = "T1"\n[seats]\nE = ""\nS = "b"\nW = "c"\nN = "d"\nX = "e"\n'
    problems = _problems(text, write_toml)
    assert any("[seats].E" in p and "non-empty" in p for p in problems)
    assert any("unknown key 'X'" in p for p in problems)


def test_pin_used_twice(write_toml) -> None:
    text = MINIMAL + """
[devices]
default = "sim"
report_button = "gpio"
[gpio.pins.E]
report_button = 5
[gpio.pins.S]
report_button = 6
[gpio.pins.W]
report_button = 5
[gpio.pins.N]
report_button = 7
"""
    problems = _problems(text, write_toml)
    assert len(problems) == 1
    assert "BCM 5" in problems[0] and "used twice" in problems[0]
    assert "[gpio.pins.E].report_button" in problems[0] and "[gpio.pins.W].report_button" in problems[0]


def test_display_dio_may_not_be_shared_but_clk_may(write_toml) -> None:
    base = MINIMAL + '[devices]\ndefault = "sim"\ncountdown = "gpio"\n'
    seats = "".join(f"[gpio.pins.{s}]\ncountdown = {{ clk = 27, dio = {d} }}\n"
                    for s, d in zip("ESWN", (22, 23, 24, 25), strict=True))
    cfg = load_config(write_toml(base + seats))
    assert cfg.gpio.displays["W"].dio == 24
    bad = seats.replace("dio = 25", "dio = 22")
    problems = _problems(base + bad, write_toml)
    assert any("BCM 22" in p and "used twice" in p for p in problems)


def test_gpio_pin_missing_and_out_of_range(write_toml) -> None:
    text = MINIMAL + """
[devices]
buzzer = "gpio"
status_led = "gpio"
[gpio.pins]
status_led = 40
"""
    problems = _problems(text, write_toml)
    assert any("buzzer is on gpio but [gpio.pins].buzzer is missing" in p for p in problems)
    assert any("status_led = 40" in p and "0–27" in p for p in problems)


def test_port_does_not_exist(write_toml, tmp_path: Path) -> None:
    text = MINIMAL + '[devices]\ndefault = "screen"\nstatus_led = "sim"\n[screen]\nport = "/dev/ttyNOPE9"\n'
    problems = _problems(text, write_toml)
    assert len(problems) == 1 and "/dev/ttyNOPE9 does not exist" in problems[0]
    # the same file is fine when checked for another machine
    assert load_config(write_toml(text), check_devices=False).screen.url == "/dev/ttyNOPE9"
    # and fine here once the port exists (a terminal device, as a USB serial port is)
    port = tmp_path / "ttyFAKE"
    with _pty() as tty:
        port.symlink_to(tty)  # as /dev/serial/by-id/… names its port
        cfg = load_config(write_toml(text.replace("/dev/ttyNOPE9", str(port))))
    assert cfg.screen.is_port and cfg.screen.url == str(port)


@contextlib.contextmanager
def _pty() -> Iterator[str]:
    """A pseudo-terminal's device path (a character device, as a USB serial port is)."""
    main_fd, tty_fd = os.openpty()
    try:
        yield os.ttyname(tty_fd)
    finally:
        os.close(tty_fd)
        os.close(main_fd)


def test_port_must_be_a_serial_device(write_toml, tmp_path: Path) -> None:
    """A regular file or /dev/null as the port passed `config check`; selftest then failed 14 steps with
    "Inappropriate ioctl". The online check wants a character device that is not /dev/null."""
    text = MINIMAL + '[devices]\ndefault = "screen"\nstatus_led = "sim"\n[screen]\nport = "{}"\n'
    plain = tmp_path / "ttyFILE"
    plain.write_bytes(b"")
    for bad, what in (("/dev/null", "/dev/null"), (plain, "regular file"), (tmp_path, "folder")):
        problems = _problems(text.format(bad), write_toml)
        assert len(problems) == 1 and f"{bad} is not a serial port" in problems[0] and what in problems[0], problems
        assert problems[0].startswith("[screen].port")
        assert load_config(write_toml(text.format(bad)), check_devices=False).screen.url == str(bad)  # offline: fine
    with _pty() as tty:
        assert load_config(write_toml(text.format(tty))).screen.url == tty
    # a pyserial URL is not a file to check
    assert load_config(write_toml(text.replace("port = ", "url = ").format("loop://"))).screen.url == "loop://"


def test_data_dir_empty_is_refused(write_toml) -> None:
    """`data_dir = ""` became the config's own folder: the table's log among its config files."""
    for check in (True, False):
        problems = _problems('data_dir = ""\n' + MINIMAL, write_toml, check_devices=check)
        assert len(problems) == 1 and "data_dir" in problems[0] and "empty" in problems[0], problems
        problems = _problems('data_dir = "  "\n' + MINIMAL, write_toml, check_devices=check)
        assert len(problems) == 1 and "data_dir" in problems[0], problems


def test_unknown_default_backend_is_said_once(write_toml) -> None:
    problems = _problems(MINIMAL + '[devices]\ndefault = "nope"\n', write_toml)
    assert problems == [p for p in problems if "'nope'" in p] and len(problems) == 1, problems
    # a kind given its own (good) backend stays; a kind given its own bad one is named on its own
    problems = _problems(MINIMAL + '[devices]\ndefault = "nope"\nbuzzer = "sim"\nturn_lamp = "gpoi"\n', write_toml)
    assert len(problems) == 2, problems
    assert "[devices].default = 'nope'" in problems[0] and "[devices].turn_lamp = 'gpoi'" in problems[1]


def test_screen_url_scheme_checked(write_toml) -> None:
    text = MINIMAL + '[devices]\ndefault = "screen"\nstatus_led = "none"\n[screen]\nurl = "sokcet://h:1"\n'
    problems = _problems(text, write_toml)
    assert any("'sokcet'" in p and "did you mean 'socket'" in p for p in problems)
    ok = load_config(write_toml(text.replace("sokcet", "socket")))
    assert ok.screen.url == "socket://h:1" and not ok.screen.is_port


@pytest.mark.parametrize("url", ["loop://?foo=1", "socket://host", "rfc2217://"])
def test_a_screen_url_pyserial_cannot_read_is_refused(write_toml, url: str) -> None:
    """The audit: these passed config check and failed at every reconnect as a port error."""
    text = MINIMAL + f'[devices]\ndefault = "screen"\nstatus_led = "none"\n[screen]\nurl = "{url}"\n'
    problems = _problems(text, write_toml)
    assert any(f"[screen].url = {url!r}" in p and "incomplete" in p for p in problems), problems


def test_screen_has_no_status_led(write_toml) -> None:
    text = MINIMAL + '[devices]\ndefault = "screen"\n[screen]\nurl = "loop://"\n'
    problems = _problems(text, write_toml)
    assert any("no status LED" in p for p in problems)


def test_screen_needs_port_or_url(write_toml) -> None:
    problems = _problems(MINIMAL + '[devices]\nbuzzer = "screen"\n', write_toml)
    assert any("neither port nor url" in p for p in problems)


def test_camera_checks(write_toml, tmp_path: Path) -> None:
    problems = _problems(MINIMAL + '[camera]\nsource = "device"\ndevice = "/dev/video97"\n', write_toml)
    assert any("/dev/video97 does not exist" in p for p in problems)
    problems = _problems(MINIMAL + '[camera]\nsource = "fiel"\n', write_toml)
    assert any("did you mean 'file'" in p for p in problems)
    problems = _problems(MINIMAL + '[camera]\nsource = "folder"\npath = "nope"\nfps = 0\n', write_toml)
    assert any("image folder" in p and "does not exist" in p for p in problems)
    assert any("fps" in p for p in problems)
    (tmp_path / "shots").mkdir()
    cfg = load_config(write_toml(MINIMAL + '[camera]\nsource = "folder"\npath = "shots"\n'))
    assert cfg.camera.path == tmp_path / "shots"


def test_type_errors(write_toml) -> None:
    text = MINIMAL + '[devices]\nbuzzer = "gpio"\n[gpio]\ndebounce_ms = "fast"\n[gpio.pins]\nbuzzer = true\n'
    problems = _problems(text, write_toml)
    assert any("debounce_ms" in p for p in problems)
    assert any("buzzer" in p and "BCM pin number" in p for p in problems)


def test_all_problems_reported_at_once(write_toml) -> None:
    text = 'table_id = "bad id!"\n[seats]\nE = "a"\n[devices]\ndefault = "sim"\nbuzer = "sim"\n'
    with pytest.raises(ConfigError) as info:
        load_config(write_toml(text))
    assert len(info.value.problems) >= 5  # id, three seats, the typo
    assert "problems" in str(info.value)


def test_toml_syntax_error_has_position(write_toml) -> None:
    problems = _problems(MINIMAL + "[devices\n", write_toml)
    assert "TOML" in problems[0] and "line" in problems[0]


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "nope.toml")


def test_config_error_is_value_error() -> None:
    with pytest.raises(ValueError):
        parse_config({})


def test_cli_config_check(capsys, write_toml) -> None:
    assert cli_main(["config", "check", "--offline", str(EXAMPLES / "table-gpio.toml")]) == 0
    out = capsys.readouterr().out
    assert "config OK" in out and "E:27/26" in out
    bad = write_toml(MINIMAL + '[devices]\nreport_buton = "gpio"\n')
    assert cli_main(["config", "check", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "did you mean 'report_button'" in err and "config invalid" in err


def test_config_check_warns_when_an_event_table_broadcasts_with_no_delay(capsys, write_toml) -> None:
    """The s36 broadcast audit: a table.toml with [mqtt] but no [web] feed_delay_s put every play on the
    public feed as it was laid (the default, 0, is the embedded demo's), and nothing said so."""
    mqtt = '[mqtt]\nenabled = true\nhost = "hub.local"\nport = 1883\nevent = "x"\n'
    assert cli_main(["config", "check", "--offline", str(write_toml(MINIMAL + mqtt))]) == 0
    out = capsys.readouterr().out
    assert "warning: [web] feed_delay_s 未设置" in out and "has no delay" in out
    assert cli_main(["config", "check", "--offline",
                     str(write_toml(MINIMAL + "[web]\nfeed_delay_s = 60\n" + mqtt))]) == 0
    assert "feed_delay_s" not in capsys.readouterr().out
    assert cli_main(["config", "check", "--offline", str(write_toml(MINIMAL))]) == 0  # a lone table: no event
    assert "feed_delay_s" not in capsys.readouterr().out


# One schema for table.toml (issue 18 item 10): `run` (service_config), `config check` and
# `selftest` accept and refuse exactly the same files.
SERVICE_VARIANTS = [
    ("", True),
    ('[service]\nruleset = "jiangsu"\nformat = "deals"\ndeals = 4\n', True),
    ('[web]\nhost = "0.0.0.0"\nport = 8080\nfeed_delay_s = 60\n', True),
    ('[mqtt]\nenabled = true\nhost = "hub.local"\nport = 1883\nevent = "x"\n', True),
    ("[vision]\nfps = 5\n", True),
    ("[web]\nport = true\n", False),
    ("[web]\nport = 70000\n", False),
    ('[web]\nfeed_delay_s = "abc"\n', False),
    ('[service]\nspeed = "fast"\n', False),
    ('[service]\nruleset = "nosuch"\n', False),
    ('[service]\nformat = "deals"\n', False),
    ("[mqtt]\nport = 1.5\n", False),
    ("[vision]\nfps = nan\n", False),
    ("[web]\nsecret = 1\n", False),
    ("[service]\ncamera_grace_s = 61\n", False),
]


@pytest.mark.parametrize(("extra", "ok"), SERVICE_VARIANTS)
def test_run_config_check_and_selftest_share_one_schema(write_toml, capsys, extra, ok) -> None:
    from table_service.table.config import load_service_config

    path = write_toml(MINIMAL + '[devices]\ndefault = "sim"\n' + extra)
    try:
        load_service_config(path, check_devices=False)
        run_ok = True
    except ValueError:
        run_ok = False
    check_ok = cli_main(["config", "check", "--offline", str(path)]) == 0
    err = capsys.readouterr().err
    assert (run_ok, check_ok) == (ok, ok), err
    if not ok:
        section = extra.split("]")[0].lstrip("[")
        assert f"[{section}]" in err and "Traceback" not in err
        selftest = cli_main(["selftest", "--config", str(path)])
        assert selftest == 1 and "config invalid" in capsys.readouterr().err


@pytest.mark.parametrize(("section", "key", "value"), [
    ("gpio", "blink_on_s", "-1"),  # gpiozero's blink thread waited -1 s: a busy loop toggling the pin
    ("gpio", "blink_off_s", "0"),
    ("gpio", "blink_on_s", "inf"),
    ("screen", "connect_timeout_s", "-5"),
    ("screen", "connect_timeout_s", "nan"),
    ("camera", "reconnect_s", "-3"),
    ("camera", "exposure", "nan"),
    ("camera", "camera_num", "-4"),
])
def test_numbers_out_of_range_are_named(write_toml, section: str, key: str, value: str) -> None:
    """These were accepted: ``config check`` said OK and the table spun or never waited at run time."""
    text = MINIMAL + '[devices]\nreferee_lamp = "gpio"\nbuzzer = "screen"\n[gpio]\n[gpio.pins]\nreferee_lamp = 4\n'
    text += '[camera]\nsource = "synthetic"\n[screen]\nurl = "socket://h:1"\n'
    text = text.replace(f"[{section}]\n", f"[{section}]\n{key} = {value}\n", 1)
    problems = _problems(text, write_toml, check_devices=False)
    assert problems == [p for p in problems if f"[{section}].{key} = {value}" in p and "must be" in p]
    assert len(problems) == 1


@pytest.mark.parametrize("index", [-1, 256, 2**63 - 1])
def test_a_camera_index_no_linux_has_is_refused_offline_too(write_toml, index: int) -> None:
    """``config check --offline`` passed ``device = -1`` (the check of /dev/videoN ran online only)."""
    problems = _problems(f'[camera]\nsource = "device"\ndevice = {index}\n', write_toml, check_devices=False)
    assert any("0-255" in p and "摄像头编号" in p for p in problems), problems
