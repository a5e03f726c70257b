"""The bad-input corpus (issue 19, "make it stay fixed"): every bad input the probe found, and its
kind, run against the command line. Each answer must be one clear line naming the problem (argparse
may add its usage line), a non-zero exit, no traceback, and every input file byte-identical
afterwards (no ``-wal``/``-shm`` left beside a database that was only read).

Commands run in-process through ``table_service.cli`` (fast); a few run as real processes
(``.venv/bin/guandan-table``) to prove the installed entry point behaves the same, and the
read-only-folder cases run as an unprivileged user (root ignores file permissions).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from table_service.cli import main
from table_service.store.event_log import EventStore

REPO = Path(__file__).resolve().parents[1]
EXE = REPO / ".venv" / "bin" / "guandan-table"
SEATS = '[seats]\nE = "e"\nS = "s"\nW = "w"\nN = "n"\n[devices]\ndefault = "sim"\n'


def _event_log(path: Path, n: int = 3) -> Path:
    with EventStore(path) as store:
        store.append({"type": "round_set_up", "source": "panel", "role": "referee", "t_ms": 1,
                      "data": {"players": {"E": "a", "S": "b", "W": "c", "N": "d"}}})
        for i in range(n - 1):
            store.append({"type": "passed", "source": "screen", "t_ms": 2 + i, "data": {"seat": "E"}},
                         status="rejected", error="x")
    return path


def _export(tmp: Path) -> Path:
    db = _event_log(tmp / "T.sqlite3")
    out = tmp / "T.jsonl"
    assert main(["export", str(db), "-o", str(out)]) == 0
    (tmp / "T.sqlite3").unlink()
    return out


def _truncated_export(tmp: Path) -> Path:
    db = _event_log(tmp / "T.sqlite3", 1)
    with EventStore(db) as store:
        for i in range(5):
            store.append({"type": "clock_ticked", "source": "clock", "t_ms": 10 + i, "data": {}})
    full = tmp / "full.jsonl"
    assert main(["export", str(db), "-o", str(full)]) == 0
    cut = tmp / "cut.jsonl"
    cut.write_text("".join(full.read_text(encoding="utf-8").splitlines(keepends=True)[:3]), encoding="utf-8")
    return cut


def _damaged_db(tmp: Path) -> Path:
    db = _event_log(tmp / "D.sqlite3")
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA journal_mode=DELETE")
    conn.executemany("INSERT INTO meta (key, value) VALUES (?, ?)", [(f"k{i}", "v" * 400) for i in range(60)])
    conn.commit()
    conn.close()
    raw = bytearray(db.read_bytes())
    for off in range(4096 + 100, len(raw), 4096):  # scribble over every page but the first
        raw[off:off + 64] = b"\xa5" * 64
    db.write_bytes(bytes(raw))
    return db


def _toml(tmp: Path, body: str) -> Path:
    p = tmp / "table.toml"
    p.write_text(f'table_id = "T1"\ndata_dir = "{tmp / "data"}"\n{SEATS}{body}', encoding="utf-8")
    return p


@dataclass
class Case:
    name: str
    kind: str  # what class of fault: crash (traceback), changed-input, silent, unclear
    argv: Callable[[Path], list[str]]
    needle: str  # the problem the one line must name


#: Appended to SEATS' [devices] table: the report buttons on the screen controller at port {0}.
_SCREEN_PORT = 'report_button = "screen"\n[screen]\nport = "{0}"\n'


CASES: list[Case] = [
    Case("replay-dir", "crash", lambda t: ["replay", str(t)], "folder"),
    Case("export-dir", "crash", lambda t: ["export", str(t)], "folder"),
    Case("export-to-missing-folder", "crash",
         lambda t: ["export", str(_event_log(t / "T.sqlite3")), "-o", str(t / "missing" / "x.jsonl")], "does not exist"),
    Case("export-to-a-folder", "crash",
         lambda t: ["export", str(_event_log(t / "T.sqlite3")), "-o", str(t)], "folder"),
    Case("replay-empty-file", "silent", lambda t: ["replay", str(_touch(t / "empty.jsonl"))], "empty"),
    Case("replay-truncated-export", "silent", lambda t: ["replay", str(_truncated_export(t))], "cut short"),
    Case("replay-damaged-db", "unclear", lambda t: ["replay", str(_damaged_db(t))], "damaged"),
    Case("replay-garbage", "unclear", lambda t: ["replay", str(_write(t / "g.bin", b"\x00\xff" * 500))],
         "neither a table database"),
    Case("user-add-into-event-log", "changed-input",
         lambda t: ["user", "add", "li", "--db", str(_event_log(t / "T.sqlite3")), "--password-stdin"],
         "not a users database"),
    Case("user-list-garbage", "crash", lambda t: ["user", "list", "--db", str(_write(t / "u.db", b"junk" * 300))],
         "users database"),
    Case("user-list-directory", "crash", lambda t: ["user", "list", "--db", str(t)], "folder"),
    Case("config-web-port-true", "silent", lambda t: ["config", "check", "--offline", str(_toml(t, "[web]\nport = true\n"))],
         "[web].port"),
    Case("config-ruleset-nosuch", "silent",
         lambda t: ["config", "check", "--offline", str(_toml(t, '[service]\nruleset = "nosuch"\n'))], "unknown ruleset"),
    Case("config-speed-text", "unclear",
         lambda t: ["config", "check", "--offline", str(_toml(t, '[service]\nspeed = "fast"\n'))], "[service].speed"),
    Case("config-feed-delay-text", "unclear",
         lambda t: ["config", "check", "--offline", str(_toml(t, '[web]\nfeed_delay_s = "abc"\n'))], "[web].feed_delay_s"),
    Case("selftest-web-port-true", "silent",
         lambda t: ["selftest", "--config", str(_toml(t, "[web]\nport = true\n"))], "[web].port"),
    Case("vision-board-negative", "crash", lambda t: ["vision", "board", "--squares-x", "-3", "--out", str(t / "b.png")],
         "squares"),
    Case("vision-board-missing-folder", "silent",
         lambda t: ["vision", "board", "--out", str(t / "missing" / "b.png")], "does not exist"),
    Case("demo-speed-inf", "crash", lambda t: ["demo", "--speed", "inf", "--deals", "1", "--headless"], "positive"),
    Case("demo-data-file", "crash",
         lambda t: ["demo", "--data", str(_write(t / "f", b"x")), "--deals", "1", "--headless"], "is a file"),
    Case("demo-tables-zero", "silent", lambda t: ["demo", "--tables", "0", "--headless", "--deals", "1"], "1-64"),
    Case("demo-tables-huge", "crash", lambda t: ["demo", "--tables", "100000", "--headless"], "1-64"),
    Case("demo-design-nosuch", "unclear",
         lambda t: ["demo", "--design", "nosuch", "--deals", "1", "--headless", "--data", str(t / "d")], "'nosuch'"),
    Case("demo-other-speed", "silent",
         lambda t: ["demo", "--data", str(_clock(t / "d", 4)), "--speed", "8", "--deals", "1", "--headless"],
         "--speed 4"),
    Case("emulate-protocol-999", "crash", lambda t: ["emulate-screen", "--protocol-version", "999", "--duration", "1"],
         "0-255"),
    Case("emulate-port-missing", "crash",
         lambda t: ["emulate-screen", "--port", str(t / "missing" / "tty"), "--duration", "1"], "does not exist"),
    # Numbers TOML allows that made a thread spin or never wait (hardware.config's ranges).
    Case("config-blink-negative", "silent",
         lambda t: ["config", "check", "--offline", str(_toml(t, "[gpio]\nblink_on_s = -1\n"))], "[gpio].blink_on_s"),
    Case("config-screen-timeout-nan", "silent",
         lambda t: ["config", "check", "--offline", str(_toml(t, "[screen]\nconnect_timeout_s = nan\n"))],
         "[screen].connect_timeout_s"),
    Case("selftest-camera-reconnect-negative", "silent",
         lambda t: ["selftest", "--config", str(_toml(t, '[camera]\nsource = "synthetic"\nreconnect_s = -3\n'))],
         "[camera].reconnect_s"),
    Case("emulate-heartbeat-huge", "silent",
         lambda t: ["emulate-screen", "--heartbeat-ms", "99999999999", "--duration", "1"], "50-3000"),
    # The event commands (their full corpus, and `hub`'s: tests/event/test_event_cli.py).
    Case("event-standings-deep-json", "crash",
         lambda t: ["event", "standings", str(_write(t / "R.jsonl", b"[" * 100_000))], "unusable JSON"),
    Case("event-pair-teams-directory", "crash",
         lambda t: ["event", "pair", str(_write(t / "R.jsonl", b"")), "--teams", str(t)], "cannot read TEAMS"),
    Case("event-export-a-file", "unclear", lambda t: ["event", "export", str(_write(t / "f", b"x"))], "not a file"),
    # Third probe (2026-12-06): each was an internal error (exit 3) naming a Python exception.
    Case("event-format-kind-list", "crash",
         lambda t: ["event", "provision", "--event", str(_event_toml(t, "{ kind = [] }")), "--out", str(t / "p")], "format"),
    Case("event-format-kind-table", "crash",
         lambda t: ["event", "provision", "--event", str(_event_toml(t, "{ kind = { deals = 8 } }")),
                    "--out", str(t / "p")], "format"),
    Case("vision-read-png-bomb", "crash", lambda t: ["vision", "read", str(_png_bomb(t / "bomb.png"))], "image too large"),
    Case("event-export-row-that-does-not-fold", "crash",
         lambda t: ["event", "export", str(_hub_log_with_row(t / "hub"))], "damaged at seq 1"),
    # Second probe (the whole command line given empty strings, devices, odd text): each case below
    # exited 0, wrote into the working folder, printed a traceback, or lost an earlier file.
    Case("rules-classify-empty-card", "unclear", lambda t: ["rules", "classify", "--level", "7", ""], "no cards"),
    Case("rules-legal-empty-hand", "silent", lambda t: ["rules", "legal", "--level", "7", ""], "no cards"),
    Case("rules-legal-previous-empty", "silent",
         lambda t: ["rules", "legal", "--level", "7", "--previous", "", "7h", "8h"], "--previous"),
    Case("replay-empty-path", "unclear", lambda t: ["replay", ""], "empty path"),
    Case("replay-dev-zero", "crash", lambda t: ["replay", "/dev/zero"], "not a regular file"),
    Case("replay-a-fifo", "crash", lambda t: ["replay", str(_fifo(t / "fifo"))], "not a regular file"),
    Case("replay-lone-surrogate", "unclear", lambda t: ["replay", str(_surrogate_export(t))], "line 2"),
    Case("replay-export-data-null", "silent",
         lambda t: ["replay", str(_export_plus(t, {"type": "passed", "source": "screen", "t_ms": 9, "data": None}))],
         "line 3 is a malformed event"),
    Case("replay-export-unknown-type", "silent",
         lambda t: ["replay", str(_export_plus(t, {"type": "nonsense", "source": "screen", "t_ms": 9, "data": {}}))],
         "unknown type 'nonsense'"),
    Case("replay-export-seq-not-a-number", "silent",
         lambda t: ["replay", str(_export_plus(t, {"type": "passed", "source": "screen", "t_ms": 9, "seq": "x",
                                                   "data": {"seat": "E"}}))], "seq = 'x'"),
    Case("replay-hub-log", "unclear", lambda t: ["replay", str(_hub_log(t))], "not an event store"),
    Case("export-o-empty", "silent", lambda t: ["export", str(_event_log(t / "T.sqlite3")), "-o", ""], "-o"),
    Case("export-o-fifo", "crash",
         lambda t: ["export", str(_event_log(t / "T.sqlite3")), "-o", str(_fifo(t / "fifo"))], "not a regular file"),
    Case("export-keeps-the-old-export", "changed-input",
         lambda t: ["export", str(_surrogate_export(t)), "-o", str(_export(t))], "line 2"),
    Case("user-add-db-empty", "changed-input",
         lambda t: ["user", "add", "zz", "--db", "", "--password-stdin"], "--db"),
    Case("user-list-config-empty", "silent", lambda t: ["user", "list", "--config", ""], "--config"),
    # s43 probe: a web settings file that names no USERS_DB (here an empty one) put the account in
    # data/ of the working folder, as --config "" did, and said "added".
    Case("user-add-config-names-no-db", "silent",
         lambda t: ["user", "add", "zz", "--config", str(_write(t / "web.toml", b"")), "--password-stdin"],
         "sets no USERS_DB"),
    Case("emulate-controller-id-not-utf8", "crash",
         lambda t: ["emulate-screen", "--controller-id", "a\udcff", "--duration", "0.1"], "--controller-id"),
    Case("emulate-controller-id-too-long", "silent",
         lambda t: ["emulate-screen", "--controller-id", "x" * 41, "--duration", "0.1"], "40"),
    Case("emulate-port-empty", "unclear", lambda t: ["emulate-screen", "--port", "", "--duration", "0.1"], "empty"),
    Case("demo-data-empty", "changed-input",
         lambda t: ["demo", "--data", "", "--deals", "1", "--headless", "--speed", "10"], "--data"),
    Case("demo-mqtt-empty", "silent", lambda t: ["demo", "--mqtt", "", "--deals", "1", "--headless", "--speed", "10"], "--mqtt"),
    Case("demo-event-port-70000", "silent",
         lambda t: ["demo", "--tables", "2", "--port", "70000", "--headless", "--deals", "1", "--speed", "10"],
         "70000"),
    Case("vision-board-too-many-squares", "crash",
         lambda t: ["vision", "board", "--squares-x", "40", "--squares-y", "40", "--square-mm", "200",
                    "--marker-mm", "150", "--out", str(t / "b.png")], "markers"),
    Case("vision-calibrate-squares-zero", "crash",
         lambda t: ["vision", "calibrate", str(_photos(t)), "--squares-x", "0", "--out", str(t / "l.json")], "squares"),
    Case("vision-calibrate-marker-over-square", "crash",
         lambda t: ["vision", "calibrate", str(_photos(t)), "--marker-mm", "50", "--out", str(t / "l.json")],
         "marker-mm"),
    Case("vision-calibrate-empty-path", "unclear", lambda t: ["vision", "calibrate", ""], "empty"),
    Case("vision-calibrate-out-a-folder", "unclear",
         lambda t: ["vision", "calibrate", str(_photos(t)), "--out", str(t)], "folder"),
    Case("vision-markers-out-a-file", "unclear",
         lambda t: ["vision", "markers", "--out", str(_write(t / "f", b"x"))], "is a file"),
    Case("vision-markers-out-empty", "changed-input", lambda t: ["vision", "markers", "--out", ""], "empty"),
    Case("vision-read-enrollment-empty", "silent",
         lambda t: ["vision", "read", str(_write(t / "z.png", b"x")), "--enrollment", ""], "--enrollment"),
    Case("vision-enroll-out-a-folder", "unclear",
         lambda t: ["vision", "enroll", str(_folder(t / "faces")), "--out", str(t)], "folder"),
    Case("vision-enroll-out-another-file", "changed-input",
         lambda t: ["vision", "enroll", str(_folder(t / "faces")), "--out", str(_event_log(t / "T.sqlite3"))],
         "not an enrolment"),
    # Third probe: table.toml values `config check` accepted that the table then could not use.
    Case("config-screen-port-dev-null", "silent",
         lambda t: ["config", "check", str(_toml(t, _SCREEN_PORT.format("/dev/null")))], "not a serial port"),
    Case("config-screen-port-a-file", "silent",
         lambda t: ["config", "check", str(_toml(t, _SCREEN_PORT.format(_write(t / "tty", b""))))],
         "not a serial port"),
    Case("config-data-dir-empty", "silent",
         lambda t: ["config", "check", "--offline", str(_write(t / "table.toml", f'table_id = "T1"\ndata_dir = ""\n'
                                                                                  f'{SEATS}'.encode()))], "data_dir"),
    Case("config-devices-default-unknown", "unclear",
         lambda t: ["config", "check", "--offline", str(_write(t / "table.toml", f'table_id = "T1"\n{SEATS}'.replace(
             'default = "sim"', 'default = "nope"').encode()))], "[devices].default = 'nope'"),
    # Fourth probe: an unknown section's hint named only the hardware's sections; deals and minutes
    # without their format were taken and never used.
    Case("config-unknown-top-key-hint", "unclear",
         lambda t: ["config", "check", "--offline", str(_write(t / "table.toml", f'table_id = "T1"\nwebb = 1\n'
                                                                                  f'{SEATS}'.encode()))],
         "did you mean 'web'?）；可用：table_id, data_dir, seats, devices, screen, gpio, camera, service, web, "
         "mqtt, vision / allowed: table_id"),
    Case("config-deals-without-format", "silent",
         lambda t: ["config", "check", "--offline", str(_write(t / "table.toml", f'table_id = "T1"\n{SEATS}'
                                                                                  f'[service]\ndeals = 5\n'.encode()))],
         'add format = "deals"'),
    Case("config-minutes-without-format", "silent",
         lambda t: ["config", "check", "--offline", str(_write(t / "table.toml", f'table_id = "T1"\n{SEATS}'
                                                                                  f'[service]\nminutes = 30\n'.encode()))],
         'add format = "time"'),
]


def _export_plus(tmp: Path, event: dict) -> Path:
    """An export of one round set up, with ``event`` added by hand and the header's count kept true
    (so only the event itself is wrong: replay passed over it and exited 0)."""
    db = _event_log(tmp / "E.sqlite3", 1)
    out = tmp / "E.jsonl"
    assert main(["export", str(db), "-o", str(out)]) == 0
    (tmp / "E.sqlite3").unlink()
    head, *rest = out.read_text(encoding="utf-8").splitlines()
    header = json.loads(head)
    header["events"] += 1
    out.write_text("\n".join([json.dumps(header), *rest, json.dumps(event)]) + "\n", encoding="utf-8")
    return out


def _touch(p: Path) -> Path:
    p.write_bytes(b"")
    return p


def _write(p: Path, data: bytes) -> Path:
    p.write_bytes(data)
    return p


def _fifo(p: Path) -> Path:
    os.mkfifo(p)
    return p


def _folder(p: Path) -> Path:
    p.mkdir()
    return p


def _photos(tmp: Path) -> Path:
    """A folder with one (blank) photo: the board's options are checked before any photo is read."""
    import cv2
    import numpy as np

    folder = _folder(tmp / "photos")
    cv2.imwrite(str(folder / "a.png"), np.full((60, 80, 3), 255, np.uint8))
    return folder


def _surrogate_export(tmp: Path) -> Path:
    """An export whose second line holds a lone UTF-16 surrogate (valid JSON, not UTF-8 text)."""
    p = tmp / "s.jsonl"
    p.write_text('{"format": "guandan-table-match", "version": 1, "events": 1}\n'
                 '{"type": "round_set_up", "t_ms": 1, "data": {"players": {"E": "\\ud800", "S": "b", "W": "c", '
                 '"N": "d"}}}\n', encoding="utf-8")
    return p


def _hub_log(tmp: Path) -> Path:
    from table_service.event.store import HubStore

    HubStore(tmp / "hub-events.sqlite3").close()
    return tmp / "hub-events.sqlite3"


def _clock(folder: Path, speed: float) -> Path:
    folder.mkdir()
    (folder / "clock.json").write_text(json.dumps({"speed": speed, "origin_wall": 1.0, "origin_table": 1.0}))
    return folder


def _snapshot(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _check_answer(rc: int, err: str, needle: str) -> None:
    assert rc not in (0, None), "a bad input must end with a non-zero exit"
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith(("用法 / usage:", "  "))]
    assert len(lines) == 1, f"not one clear line: {err!r}"
    assert needle in lines[0], f"{needle!r} not named in {lines[0]!r}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_cli_bad_input(case: Case, tmp_path: Path, capsys, monkeypatch) -> None:
    import io

    monkeypatch.setattr(sys, "stdin", io.StringIO("a-long-password\n"))
    monkeypatch.chdir(tmp_path)  # a command that fell back to the working folder changes the snapshot
    monkeypatch.delenv("GUANDAN_WEB_CONFIG", raising=False)
    argv = case.argv(tmp_path)
    capsys.readouterr()
    before = _snapshot(tmp_path)
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse's own refusal (exit 2 with a usage line)
        rc = exc.code
    err = capsys.readouterr().err
    _check_answer(rc, err, case.needle)
    assert _snapshot(tmp_path) == before, f"{case.name} changed its input files ({case.kind})"


def test_reading_a_database_leaves_nothing_beside_it(tmp_path: Path, capsys) -> None:
    db = _event_log(tmp_path / "T.sqlite3")
    before = _snapshot(tmp_path)
    assert main(["export", str(db)]) == 0
    main(["replay", str(db)])
    capsys.readouterr()
    assert _snapshot(tmp_path) == before  # no -wal, no -shm, the file unchanged


def test_a_table_toml_with_a_bom_passes_config_check(tmp_path: Path, capsys) -> None:
    # Windows Notepad starts a UTF-8 file with a BOM: it was a cryptic TOML syntax error.
    toml = _write(tmp_path / "table.toml", b"\xef\xbb\xbf" + f'table_id = "T1"\n{SEATS}'.encode())
    assert main(["config", "check", "--offline", str(toml)]) == 0, capsys.readouterr().err


def test_deploy_table_toml_passes_config_check(capsys) -> None:
    # One schema for table.toml: what `run` accepts, `config check` accepts (issue 18 item 10).
    assert main(["config", "check", "--offline", str(REPO / "deploy" / "table.toml")]) == 0, capsys.readouterr().err


@pytest.mark.parametrize("argv", [["replay", "/nonexistent/x.sqlite3"], ["user", "list", "--db", "/"]])
def test_the_installed_command_answers_in_one_line(argv) -> None:
    proc = subprocess.run([str(EXE), *argv], capture_output=True, text=True, timeout=300)
    _check_answer(proc.returncode, proc.stderr, "")


# --------------------------------------------------------------------- read-only data folder


def _as_nobody(argv: list[str]) -> list[str]:
    """``argv`` run as an unprivileged user when the tests run as root (root ignores permissions)."""
    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without util-linux setpriv: cannot drop privileges")
    drop = [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
    if (why := _nobody_cannot_run(tuple(drop))) is not None:  # e.g. the checkout under a 0700 home folder
        pytest.skip(f"an unprivileged user cannot run {EXE}: {why}")
    return [*drop, *argv]


@functools.cache
def _nobody_cannot_run(drop: tuple[str, ...]) -> str | None:
    """Why the unprivileged user cannot start the command, or None; asked once per session (a whole
    process start each time it was asked, once per read-only test)."""
    probe = subprocess.run([*drop, str(EXE), "--help"], capture_output=True, timeout=300)
    return None if probe.returncode == 0 else probe.stderr.decode(errors="replace")[:120]


@pytest.fixture
def open_folder():
    """A folder an unprivileged user can read (tmp_path is root's own)."""
    path = Path(tempfile.mkdtemp(prefix="guandan-ro-"))
    path.chmod(0o755)
    yield path
    for p in path.rglob("*"):
        if p.is_dir():
            p.chmod(0o755)
    shutil.rmtree(path, ignore_errors=True)


def _killed_table(data: Path) -> Path:
    """An event log with -wal/-shm left beside it, as a kill -9 leaves them."""
    code = ("import os, sys\nfrom table_service.store.event_log import EventStore\n"
            f"s = EventStore({str(data / 'T1.sqlite3')!r})\n"
            "s.append({'type': 'clock_ticked', 'source': 'clock', 't_ms': 1, 'data': {}})\nos._exit(0)\n")
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)
    assert (data / "T1.sqlite3-wal").exists()
    return data / "T1.sqlite3"


@pytest.mark.parametrize("killed", [True, False], ids=["wal-left-by-a-kill", "cleanly-closed"])
def test_run_refuses_a_read_only_data_folder(open_folder: Path, killed: bool) -> None:
    data = open_folder / "data"
    data.mkdir()
    if killed:
        _killed_table(data)
    else:
        _event_log(data / "T1.sqlite3")
    cfg = open_folder / "table.toml"
    cfg.write_text(f'table_id = "T1"\ndata_dir = "{data}"\n{SEATS}[web]\nport = 0\n', encoding="utf-8")
    cfg.chmod(0o644)
    for p in data.iterdir():
        p.chmod(0o644)
    data.chmod(0o555)
    before = _snapshot(data)
    proc = subprocess.run(_as_nobody([str(EXE), "run", "--config", str(cfg), "--no-web"]), capture_output=True,
                          text=True, timeout=300)
    _check_answer(proc.returncode, proc.stderr, "read-only")
    assert "damaged" not in proc.stderr
    assert _snapshot(data) == before


def test_demo_on_a_read_only_folder_says_so(open_folder: Path) -> None:
    data = open_folder / "demo"
    data.mkdir(mode=0o555)
    data.chmod(0o555)
    proc = subprocess.run(_as_nobody([str(EXE), "demo", "--data", str(data), "--deals", "1", "--headless"]),
                          capture_output=True, text=True, timeout=300)
    _check_answer(proc.returncode, proc.stderr, "read-only")


def test_run_on_a_web_port_in_use_says_so(tmp_path: Path, capsys) -> None:
    """The panel's port taken by another program: "file or device error" in Chinese named neither the
    port nor what was wrong with it. The table's data is left as it was."""
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        db = _event_log(tmp_path / "data" / "T1.sqlite3")
        cfg = _toml(tmp_path, f"[web]\nport = {port}\n")
        before = db.read_bytes()
        rc = main(["run", "--config", str(cfg)])
    err = capsys.readouterr().err
    _check_answer(rc, err, f"端口 {port} 被占用")
    assert db.read_bytes() == before and not db.with_name("T1.sqlite3-wal").exists()


def _event_toml(tmp: Path, fmt: str) -> Path:
    p = tmp / "EVENT.toml"
    p.write_text(f'[event]\nid = "e"\nrounds = 2\nformat = {fmt}\n[[teams]]\nid = "A"\nplayers = ["a", "b"]\n'
                 f'[[teams]]\nid = "B"\nplayers = ["c", "d"]\n', encoding="utf-8")
    return p


def _hub_log_with_row(tmp: Path) -> Path:
    """A hub log whose one row is JSON that fits no event of its type (a hand edit)."""
    import sqlite3

    tmp.mkdir()
    path = _hub_log(tmp)
    conn = sqlite3.connect(path)
    conn.execute("INSERT INTO hub_events (t_ms, type, actor, role, data) VALUES (1, 'round_published', NULL, NULL, "
                 "'{\"round\": \"x\"}')")
    conn.commit()
    conn.close()
    return tmp


def _tiny_png(p: Path) -> Path:
    """A real 8 × 8 grey PNG."""
    import struct
    import zlib

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    rows = b"".join(b"\x00" + b"\x80" * 8 for _ in range(8))
    p.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 0, 0, 0, 0))
                  + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
    return p


def _png_bomb(p: Path) -> Path:
    """A PNG whose header declares 25,000 × 25,000 pixels (decoded, 1.9 GB: more than a Pi has)."""
    import struct
    import zlib

    ihdr = struct.pack(">IIBBBBB", 25_000, 25_000, 8, 2, 0, 0, 0)
    chunk = b"IHDR" + ihdr
    p.write_bytes(b"\x89PNG\r\n\x1a\n" + struct.pack(">I", len(ihdr)) + chunk + struct.pack(">I", zlib.crc32(chunk)))
    return p


# ------------------------------------------------- /dev/zero and a FIFO given as an input file

# Each read /dev/zero as one endless line (memory grew until the machine stalled) or waited on a
# FIFO for a writer forever; now each refuses it: "不是普通文件 / not a regular file".
_NOT_REGULAR = {
    "config-check": ["config", "check", "{src}"],
    "run-config": ["run", "--config", "{src}"],
    "selftest-config": ["selftest", "--config", "{src}"],
    "hub-event": ["hub", "--event", "{src}"],
    "event-provision": ["event", "provision", "--event", "{src}", "--out", "{tmp}/p"],
    "event-broker": ["event", "broker", "--event", "{src}"],
    "event-standings": ["event", "standings", "{src}"],
    "event-pair-teams": ["event", "pair", "{tmp}/R.jsonl", "--teams", "{src}"],
    "vision-read-enrollment": ["vision", "read", "{tmp}/x.png", "--enrollment", "{src}"],
    "vision-enroll-camera-config": ["vision", "enroll", "--camera", "--config", "{src}"],
    "vision-enroll-layout": ["vision", "enroll", "--out", "{tmp}/d.npz", "--frames", "{tmp}/zone.png", "--layout", "{src}"],
    "vision-enroll-calibration": ["vision", "enroll", "--out", "{tmp}/d.npz", "--frames", "{tmp}/zone.png",
                                  "--calibration", "{src}"],
    "user-add-config": ["user", "add", "zz", "--config", "{src}", "--password-stdin"],
}


#: One command per reader that makes the check (the check itself is hardware.errors.not_regular_file,
#: or the enrolment file's own): table.toml (table_service.table.config: config check, run, selftest,
#: vision enroll --camera), EVENT.toml (table_service.event.config: hub, event provision, event broker),
#: a results or teams file (table_service.event.model: event standings, event pair --teams), the web's
#: users config (table_service.web.config: user add --config), an enrolment (vision.cardnet.deckfile) and
#: the camera's layout and lens calibration (vision.files.read_small_text: vision enroll --layout, --calibration).
#: Each of these runs by default on both kinds of input; the other commands, which reach the same reader
#: by another entry, each start a process of their own and run with ``-m slow``.
_NOT_REGULAR_BY_DEFAULT = frozenset({"config-check", "hub-event", "event-standings", "user-add-config",
                                     "vision-read-enrollment", "vision-enroll-layout"})


@pytest.mark.parametrize(("name", "source"), [
    pytest.param(name, source, id=f"{name}-{source}",
                 marks=() if name in _NOT_REGULAR_BY_DEFAULT else pytest.mark.slow)
    for name in sorted(_NOT_REGULAR) for source in ("dev-zero", "fifo")])
def test_a_device_or_fifo_as_input_is_refused(name: str, source: str, tmp_path: Path) -> None:
    """Each command refuses /dev/zero and a FIFO in one line and at once (a real process: a reader
    that regressed would hang or eat memory, and the timeout must be able to end it). By default one
    command per reader (:data:`_NOT_REGULAR_BY_DEFAULT`), the rest with ``-m slow``."""
    src = "/dev/zero" if source == "dev-zero" else str(_fifo(tmp_path / "in.toml"))
    (tmp_path / "R.jsonl").write_bytes(b"")
    (tmp_path / "x.png").write_bytes(b"x")
    _tiny_png(tmp_path / "zone.png")  # a frame that reads, so that the command goes on to its --layout
    argv = [a.format(src=src, tmp=tmp_path) for a in _NOT_REGULAR[name]]
    try:
        proc = subprocess.run([sys.executable, "-m", "table_service", *argv], capture_output=True, text=True,
                              timeout=60, input="a-long-password\n", cwd=tmp_path,
                              env={**os.environ, "PYTHONPATH": str(REPO)})
    except subprocess.TimeoutExpired:
        pytest.fail(f"{name} hung on {src}")
    _check_answer(proc.returncode, proc.stderr, "not a regular file")


def test_password_stdin_without_an_end_of_line_is_refused(tmp_path: Path) -> None:
    with open("/dev/zero", "rb") as zero:
        try:
            proc = subprocess.run([sys.executable, "-m", "table_service", "user", "add", "zz", "--db",
                                   str(tmp_path / "u.db"), "--password-stdin"], stdin=zero, capture_output=True,
                                  text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(REPO)})
        except subprocess.TimeoutExpired:
            pytest.fail("--password-stdin drained /dev/zero forever")
    _check_answer(proc.returncode, proc.stderr, "longer than")
    assert not (tmp_path / "u.db").exists()
