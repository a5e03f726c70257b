"""The demo's state file (``demo.json``: the seed a resumed demo deals from) is written whole or not at
all (the durability audit of 2026-12-06, finding 4): written in place, a kill mid-write left a torn file
and every later ``demo --data`` on that folder refused it as unreadable."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

from table_service.demo.options import DemoOptions
from table_service.demo.table_demo import DEMO_STATE_FILE, Demo

REPO = Path(__file__).resolve().parents[2]


def test_a_demo_killed_writing_its_state_file_starts_again_on_the_folder(tmp_path: Path) -> None:
    data = tmp_path / "d"
    data.mkdir()
    script = f"""
import resource, signal
from table_service.demo.options import DemoOptions
from table_service.demo.table_demo import Demo
signal.signal(signal.SIGXFSZ, signal.SIG_DFL)  # Python ignores it: the kernel then kills, as a kill -9 would
resource.setrlimit(resource.RLIMIT_FSIZE, (5, 5))
Demo(DemoOptions(seed=7), {str(data)!r}, headless=True, port=0)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == -signal.SIGXFSZ, done.stderr
    assert not (data / DEMO_STATE_FILE).exists(), (data / DEMO_STATE_FILE).read_bytes()
    demo = Demo(DemoOptions(seed=7), str(data), headless=True, port=0)
    assert demo.options.seed == 7
    assert (data / DEMO_STATE_FILE).read_text() == '{"seed": 7}'
