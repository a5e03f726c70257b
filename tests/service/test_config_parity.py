"""``config check``, ``selftest`` and ``run`` accept exactly the same table.toml, and ``run``
refuses before it creates anything (issue 26: ``[mqtt] event = "a/b"`` passed the first two and
was refused by ``run`` after it had created its event log)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from table_service.cli import main

BASE = ('table_id = "{table}"\ndata_dir = "data"\n[seats]\nE = "e"\nS = "s"\nW = "w"\nN = "n"\n'
        '[devices]\ndefault = "sim"\n[camera]\nsource = "{camera}"\n')

BAD: dict[str, tuple[dict[str, Any], str]] = {
    "event with a slash": ({"mqtt": 'event = "a/b"\nport = 1883\n'}, "[mqtt].event"),
    "event with a wildcard": ({"mqtt": 'event = "ev#"\n'}, "[mqtt].event"),
    "table id with a space": ({"table": "T 7", "mqtt": 'event = "ev"\n'}, "table_id"),
    "missing CA file": ({"mqtt": 'event = "ev"\nca_file = "no-such-ca.crt"\n'}, "ca_file"),
    "missing camera layout": ({"camera": "synthetic", "vision": 'layout = "no-such-layout.json"\n'}, "[vision].layout"),
    "missing lens calibration": ({"camera": "synthetic", "vision": 'calibration = "nope.npz"\n'}, "calibration"),
    "empty broker host": ({"mqtt": 'event = "ev"\nhost = ""\n'}, "[mqtt].host"),
    "empty web host": ({"web": 'host = ""\n'}, "[web].host"),
    "renderer not installed": ({"camera": 'synthetic"\nrenderer = "nosuchmod:f'}, "nosuchmod"),
    "users database under a file": ({"web": 'users_db = "table.toml/users.sqlite3"\n'}, "[web].users_db"),
    "users database a folder": ({"web": 'users_db = "."\n'}, "[web].users_db"),
    "event log under a file": ({"service": 'db = "table.toml/t7.sqlite3"\n'}, "[service].db"),
}

#: The self-test's steps that work the devices by hand (the camera's and the start-up checks stay).
SKIP_DEVICE_STEPS = ("--skip", "lamps", "--skip", "displays", "--skip", "buzzer", "--skip", "buttons")

#: Files that are there but unusable: read by ``config check`` as the camera reads them at start-up.
UNUSABLE: dict[str, tuple[str, str, str]] = {
    "layout not JSON": ("layout", "layout.json", "{not json"),
    "layout a list": ("layout", "layout.json", "[]"),
    "calibration without a matrix": ("calibration", "lens.json", '{"dist_coeffs": []}'),
    "enrolment not a deck file": ("enrollment", "deck.npz", "hello"),
}


@pytest.mark.parametrize("case", sorted(UNUSABLE))
def test_an_unusable_vision_file_is_refused_by_every_command(tmp_path: Path, case: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    key, name, body = UNUSABLE[case]
    (tmp_path / name).write_text(body, encoding="utf-8")
    path = write(tmp_path, camera="synthetic", vision=f'{key} = "{name}"\n')
    verdicts = {
        "config check": main(["config", "check", str(path)]),
        "run": main(["run", "--config", str(path), "--no-web"]),
    }
    assert all(v != 0 for v in verdicts.values()), verdicts
    assert capsys.readouterr().err.count(f"[vision].{key}") >= 2
    assert not (tmp_path / "data").exists(), "run created its data folder before refusing the file"


def write(tmp: Path, table: str = "T7", camera: str = "none", **sections: str) -> Path:
    text = BASE.format(table=table, camera=camera)
    for name, body in sections.items():
        text += f"[{name}]\n{body}"
    p = tmp / "table.toml"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("case", sorted(BAD))
def test_every_command_refuses_the_same_file_and_run_creates_nothing(tmp_path: Path, case: str,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    spec, needle = BAD[case]
    path = write(tmp_path, **spec)
    verdicts = {
        "config check": main(["config", "check", str(path)]),
        # The devices' own steps are left out: a file the self-test lets reach its steps (a camera renderer
        # not installed is a camera that fails, reported in its table) would spend 17 s on the displays.
        "selftest": main(["selftest", "--config", str(path), "--mock-gpio", *SKIP_DEVICE_STEPS]),
        "run": main(["run", "--config", str(path), "--no-web"]),
    }
    assert all(v != 0 for v in verdicts.values()), verdicts
    err = capsys.readouterr().err
    assert err.count(needle) >= 3, err
    assert not (tmp_path / "data").exists(), "run created its data folder before refusing the file"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.toml"]


def test_the_fixed_files_are_accepted_by_config_check(tmp_path: Path) -> None:
    (tmp_path / "ca.crt").write_text("not checked here: the broker's TLS is\n")
    path = write(tmp_path, mqtt='event = "ev-2026.final"\nca_file = "ca.crt"\nusername = "ev-table-T7"\n')
    assert main(["config", "check", str(path)]) == 0
    # A file written for another machine: --offline skips the files that live there.
    path = write(tmp_path, mqtt='event = "ev"\nca_file = "elsewhere/ca.crt"\n')
    assert main(["config", "check", "--offline", str(path)]) == 0
    assert main(["config", "check", str(path)]) == 1


def test_a_table_without_a_camera_is_not_refused_for_its_vision_files(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """With ``[camera] source = "none"`` nothing reads ``[vision]``: ``config check`` and ``run`` let a stale
    layout pass, and ``selftest`` refused the same file as "config invalid" (the three disagreed)."""
    (tmp_path / "layout.json").write_text("{not json", encoding="utf-8")
    path = write(tmp_path, vision='layout = "layout.json"\n')
    assert main(["config", "check", str(path)]) == 0
    rc = main(["selftest", "--config", str(path), "--countdown-from", "1", "--lamp-seconds", "0",
               "--displays-together"])
    captured = capsys.readouterr()
    assert "配置无效 / config invalid" not in captured.err, captured.err
    assert rc == 0, captured.out


def test_config_check_refuses_what_run_refuses_at_start_and_neither_writes(tmp_path: Path) -> None:
    """The s39 audit: ``config check`` passed a table ``run`` then refused at start (a garbage event log,
    a users database that is another program's, a clock file that does not read), and ``run`` made its
    session key and clock before it stopped. Both now make ``run``'s start-up checks
    (table_service/table/preflight.py), name every problem at once, and write nothing."""
    import sqlite3
    import subprocess
    import sys

    repo = Path(__file__).resolve().parents[2]
    path = write(tmp_path, service="speed = 2.0\n", web='host = "127.0.0.1"\nport = 0\nusers_db = "users.sqlite3"\n')
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "T7.sqlite3").write_bytes(b"junk" * 300)
    (tmp_path / "data" / "clock.json").write_text("{not json", encoding="utf-8")
    other = sqlite3.connect(tmp_path / "users.sqlite3")  # another program's database named as the accounts
    other.execute("CREATE TABLE events (seq INTEGER)")
    other.commit()
    other.close()
    def files() -> dict[Path, tuple[bytes, int] | None]:
        return {p: (p.read_bytes(), p.stat().st_mtime_ns) if p.is_file() else None for p in tmp_path.rglob("*")}

    before = files()
    procs = {name: subprocess.Popen([sys.executable, "-m", "table_service", *argv], cwd=repo, text=True,
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
             for name, argv in (("config check", ["config", "check", str(path)]), ("run", ["run", "--config", str(path)]))}
    results = {}
    for name, proc in procs.items():
        try:
            _out, err = proc.communicate(timeout=120)  # bounds a hang only (a run that started serves for ever)
        finally:
            if proc.poll() is None:
                proc.kill()
        results[name] = (proc.returncode, err)
    assert results["config check"][0] == 1 and results["run"][0] == 2, results
    for _rc, err in results.values():
        assert "Traceback" not in err, err
        for named in ("T7.sqlite3", "users.sqlite3", "clock.json"):
            assert named in err, (named, err)
    assert files() == before


#: ``config check`` of each file named, in a fresh interpreter; then its exit statuses and what it loaded
#: of the web layer's heavy modules.
LOADED = """
import sys
from table_service.cli import main
rcs = [main(["config", "check", path]) for path in sys.argv[1:]]
print(rcs, sorted(m for m in ("flask", "werkzeug", "cheroot", "table_service.web.app") if m in sys.modules))
"""


def test_config_check_makes_the_panel_checks_without_loading_the_web_layer(tmp_path: Path) -> None:
    """``config check`` made ``run``'s start-up checks through the web server's module, so it loaded
    Flask, every blueprint and werkzeug's server (1.1 s of CPU on a Pi) to bind a port and read a
    users database. It still makes both (a users database that is another program's is refused),
    loading none of them."""
    import sqlite3
    import subprocess
    import sys

    good, foreign = tmp_path / "good", tmp_path / "foreign"
    for folder in (good, foreign):
        folder.mkdir()
        write(folder, web='host = "127.0.0.1"\nport = 0\nusers_db = "users.sqlite3"\n')
    other = sqlite3.connect(foreign / "users.sqlite3")
    other.execute("CREATE TABLE events (seq INTEGER)")
    other.commit()
    other.close()
    proc = subprocess.run([sys.executable, "-c", LOADED, str(good / "table.toml"), str(foreign / "table.toml")],
                          cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=120)
    assert proc.stdout.splitlines()[-1] == "[0, 1] []", (proc.stdout, proc.stderr)
    assert "is not a users database" in proc.stderr, proc.stderr


def test_config_check_says_the_panel_address_run_cannot_serve(tmp_path: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    """``run`` refuses a ``[web]`` host that is not this machine's and a port in use before it starts;
    ``config check`` passed both. It now refuses the host, as ``run`` does, and warns of the port (a
    state of the moment: the running table itself may hold it), creating nothing either way."""
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        path = write(tmp_path, web=f'host = "127.0.0.1"\nport = {port}\n')
        assert main(["config", "check", str(path)]) == 0
        out = capsys.readouterr().out
        assert f"warning: 裁判面板的端口 127.0.0.1:{port} 此刻被占用" in out and "in use now" in out, out
    path = write(tmp_path, web='host = "192.0.2.1"\nport = 8080\n')  # TEST-NET-1: never this machine's
    assert main(["config", "check", str(path)]) == 1
    assert "192.0.2.1 is not an address of this machine" in capsys.readouterr().err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.toml"]
