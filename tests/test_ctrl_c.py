"""Ctrl-C stops a long command even when it was started with SIGINT ignored.

A non-interactive shell starts background jobs (``cmd &``) with SIGINT ignored, and Python then
installs no KeyboardInterrupt handler: the README's test command, run so, saw the demo ignore
the Ctrl-C of ``test_demo_with_panel_uses_the_documented_delay_and_reports_on_ctrl_c`` and print
no closing report. The command line takes SIGINT back (``table_service.cli._honour_ctrl_c``)."""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def _ignore_sigint() -> None:
    """In the child before exec: the disposition a background job of a script inherits."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_sigint_stops_a_command_started_with_sigint_ignored(tmp_path: Path) -> None:
    port = tmp_path / "ttyCtrlC"
    proc = subprocess.Popen([sys.executable, "-m", "table_service", "emulate-screen", "--port", str(port),
                             "--duration", "600"], cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, preexec_fn=_ignore_sigint)
    err: list[str] = []
    reader = threading.Thread(target=lambda: err.extend(iter(proc.stderr.readline, "")), daemon=True)
    reader.start()
    try:
        assert proc.stdout.readline().strip() == str(port)  # running
        proc.send_signal(signal.SIGINT)
        rc = proc.wait(120)  # bounds a hang only: without the fix it runs its whole 600 s
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(10)
    reader.join(10)
    assert rc == 0, "".join(err)
    assert not port.exists(), "the emulator did not clean up: it was killed, not stopped"


def test_ctrl_c_while_the_commands_load_is_a_quiet_130(monkeypatch) -> None:
    """The s38 audit: Ctrl-C in the first seconds (every command's modules loading, ``build_parser``)
    printed a Python traceback; it ends the command quietly, as it does once the command runs."""
    import table_service.cli as cli

    def interrupted() -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "build_parser", interrupted)
    assert cli.main(["user", "list"]) == 130
