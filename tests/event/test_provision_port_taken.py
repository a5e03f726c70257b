"""``event provision`` says so when the port its broker is to listen on is already taken on this
machine (the s37 docs audit, finding 4): ``apt install mosquitto`` starts Debian's own
``mosquitto.service`` on localhost:1883, the provisioned broker then cannot listen there, and the
hub on 127.0.0.1:1883 reached the system broker instead, without a word."""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

import pytest

from table_service.cli import main


def _event(tmp_path: Path) -> Path:
    if not shutil.which("mosquitto_passwd") and not Path("/usr/bin/mosquitto_passwd").exists():
        pytest.skip("mosquitto_passwd is not installed (bash scripts/install.sh --test)")
    ev = tmp_path / "EVENT.toml"
    ev.write_text('[event]\nid = "cup"\nrounds = 1\n' + "".join(f'\n[[teams]]\nid = "T{i}"\n' for i in range(1, 5)),
                  encoding="utf-8")
    return ev


def test_a_port_something_already_listens_on_is_warned_of(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ev = _event(tmp_path)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as squatter:  # the system's mosquitto, say
        squatter.bind(("127.0.0.1", 0))
        squatter.listen(4)
        port = squatter.getsockname()[1]
        assert main(["event", "provision", "--event", str(ev), "--port", str(port)]) == 0
    err = capsys.readouterr().err
    assert f"端口 {port}" in err and f"listens on port {port}" in err
    assert "sudo systemctl disable --now mosquitto" in err
    assert err.index("注意") < err.index("warning")  # Chinese first


def test_a_free_port_is_not_warned_of(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ev = _event(tmp_path)
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    assert main(["event", "provision", "--event", str(ev), "--port", str(port)]) == 0
    captured = capsys.readouterr()
    assert "systemctl" not in captured.err
    assert "/mosquitto -c " in captured.out  # the broker's command as a user types it (Debian: /usr/sbin)
