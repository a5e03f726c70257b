"""Ctrl-C stops a long command even when it was started with SIGINT ignored.

A non-interactive shell starts background jobs (``cmd &``) with SIGINT ignored, and Python then
installs no KeyboardInterrupt handler: the README's test command, run so, saw the demo ignore
the Ctrl-C of ``test_demo_with_panel_uses_the_documented_delay_and_reports_on_ctrl_c`` and print
no closing report. The command line takes SIGINT back (``table_service.cli._honour_ctrl_c``)."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _ignore_sigint() -> None:
    """In the child before exec: the disposition a background job of a script inherits."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


#: ``guandan-table emulate-screen`` in a process that cannot wind down after it: a thread Python waits
#: for at exit never ends (as a hub's worker that hangs in its stop would), so a second Ctrl-C comes
#: while it winds down. It says when main has returned.
WINDING_DOWN = """
import sys, threading
from table_service.cli import main
threading.Thread(target=threading.Event().wait).start()
rc = main(["emulate-screen", "--duration", "600"])
print("main returned", rc, flush=True)
sys.exit(rc)
"""

#: A command whose clean-up takes its time, in a process a thread would hold (one the clean-up would
#: have stopped): a second Ctrl-C during the clean-up must end it, not leave it waiting for the thread.
CUT_SHORT = """
import sys, threading
import table_service.cli as cli

def command(_args):
    threading.Thread(target=threading.Event().wait).start()
    try:
        print("running", flush=True)
        threading.Event().wait()
    finally:
        print("cleaning up", flush=True)
        threading.Event().wait()

parser = cli.BilingualParser(prog="t")
parser.set_defaults(func=command)
cli.build_parser = lambda *_modules: parser
sys.exit(cli.main([]))
"""


def _start(argv: list[str], **kw: object) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "table_service", *argv], cwd=REPO, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kw)  # type: ignore[call-overload]


def _finish(proc: subprocess.Popen[str], sig: int) -> tuple[int, str]:
    """Send ``sig`` and wait for the end; (exit status, stderr). The wait bounds a hang only."""
    try:
        proc.send_signal(sig)
        _out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=10)
    return proc.returncode, err


def test_ctrl_c_is_a_quiet_130_and_sigterm_cleans_the_emulator(tmp_path: Path) -> None:
    """Ctrl-C reaches a command started with SIGINT ignored, and the command answers it with 130 even
    where it takes Ctrl-C as its stop and returns: the s39 audit found ``emulate-screen``, ``hub`` and
    ``event broker`` exiting 0 on it, the others 130 (``table_service.cli.main`` now says 130 for all).
    And SIGTERM ends ``emulate-screen`` as Ctrl-C does, through its clean-up: Python's default for
    SIGTERM (die at once) left its /tmp/guandan-screen-* folder behind."""
    # All at once: each start costs a second or more.
    interrupted = _start(["emulate-screen", "--duration", "600"], preexec_fn=_ignore_sigint)
    terminated = _start(["emulate-screen", "--duration", "600"])
    # A second Ctrl-C while Python winds down (here for ever: a thread it waits for never ends), and one
    # while the command cleans up.
    twice = subprocess.Popen([sys.executable, "-c", WINDING_DOWN], cwd=REPO, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    cut_short = subprocess.Popen([sys.executable, "-c", CUT_SHORT], cwd=REPO, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
    ports = {}
    try:
        for name, proc in (("interrupted", interrupted), ("terminated", terminated), ("twice", twice)):
            ports[name] = Path(proc.stdout.readline().strip())  # its port: it is running
            assert ports[name].parent.name.startswith("guandan-screen-"), ports[name]
        twice.send_signal(signal.SIGINT)
        assert twice.stdout.readline().strip() == "main returned 130"
        assert cut_short.stdout.readline().strip() == "running"
        cut_short.send_signal(signal.SIGINT)
        assert cut_short.stdout.readline().strip() == "cleaning up"
    except BaseException:
        for proc in (interrupted, terminated, twice, cut_short):
            proc.kill()
            proc.communicate(timeout=10)
        raise
    # Without the Ctrl-C handler the interrupted emulator ran its whole 600 s: it never saw the Ctrl-C.
    results = {"interrupted": _finish(interrupted, signal.SIGINT), "terminated": _finish(terminated, signal.SIGTERM),
               "twice": _finish(twice, signal.SIGINT), "cut short": _finish(cut_short, signal.SIGINT)}
    assert {name: rc for name, (rc, _err) in results.items()} == {"interrupted": 130, "terminated": 0, "twice": 130,
                                                                  "cut short": 130}, results
    assert not any("Traceback" in err or "KeyboardInterrupt" in err for _rc, err in results.values()), results
    for name, port in ports.items():
        assert not port.parent.exists(), f"the {name} emulator left {port.parent}"


def _http_answer(sock: socket.socket) -> bytes:
    """One whole HTTP answer read off ``sock`` (headers, then the body its Content-Length says)."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"Content-Length: (\d+)", head, re.I)[1])
    while len(body) < length:
        body += sock.recv(65536)
    return head


def test_one_ctrl_c_stops_the_hub_while_phones_hold_connections(tmp_path: Path) -> None:
    """``guandan-table hub`` hung once after one Ctrl-C in a hall of polling phones: cheroot's stop
    waited with no limit for a worker still writing to a phone, and its workers were threads Python
    waits for at exit. One Ctrl-C ends it with 130 while phones hold idle keep-alive connections,
    half-sent requests, and boards mid-write to a phone that reads none of them (its worker was
    waited for until its socket's 10 s timeout; a phone reading slowly kept it for ever:
    tests/web/test_server_stop.py). The bound only catches a hang: ~3 s here."""
    event = tmp_path / "EVENT.toml"
    event.write_text('[event]\nid = "x"\nrounds = 3\n[[teams]]\nid = "A"\n[[teams]]\nid = "B"\n', encoding="utf-8")
    hub = _start(["hub", "--event", str(event), "--data", str(tmp_path / "hub"), "--port", "0"])
    phones: list[socket.socket] = []

    def phone(sent: bytes, *, rcvbuf: int = 0) -> socket.socket:
        sock = socket.socket()
        phones.append(sock)
        if rcvbuf:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        sock.settimeout(30)
        sock.connect(("127.0.0.1", port))
        sock.sendall(sent)
        return sock

    board = b"GET /hub/board HTTP/1.1\r\nHost: hall\r\n\r\n"
    try:
        port = int(re.search(r":(\d+)/hub/", hub.stdout.readline())[1])
        for _ in range(2):  # a page read whole, the connection kept open (keep-alive)
            assert _http_answer(phone(board)).startswith(b"HTTP/1.1 200")
        for _ in range(2):  # a request half sent: a worker waits for its end
            phone(board[:-2])
        slow = phone(board * 500, rcvbuf=4096)  # ~16 MB of boards: its worker blocks writing them
        assert slow.recv(4096).startswith(b"HTTP/1.1 200")
        hub.send_signal(signal.SIGINT)
        _out, err = hub.communicate(timeout=20)
    finally:
        for sock in phones:
            sock.close()
        if hub.poll() is None:
            hub.kill()
            hub.communicate(timeout=10)
    assert hub.returncode == 130, err[-2000:]
    assert "Traceback" not in err, err


def test_ctrl_c_while_the_commands_load_is_a_quiet_130(monkeypatch) -> None:
    """The s38 audit: Ctrl-C in the first seconds (every command's modules loading, ``build_parser``)
    printed a Python traceback; it ends the command quietly, as it does once the command runs."""
    import table_service.cli as cli

    def interrupted(*_modules: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["user", "list"]) == 130
