"""``event provision`` killed at any moment leaves a consistent set of files (the durability audit of
2026-12-06, finding 4): ``--force`` rewrote the ACL and every credential in place while
``mosquitto_passwd`` and ``openssl`` ran, the password file renamed last, so a kill in between left the
old passwords beside the new credentials: everyone locked out. Now every file is staged whole first
and the renames follow at once; a kill among them is named by ``event broker`` and ``event provision``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from table_service.cli import main
from table_service.event.config import validate
from table_service.event.provision import RENAMING, provision

REPO = Path(__file__).resolve().parents[2]
CFG = {"event": {"id": "cup", "rounds": 1}, "teams": [{"id": "A"}, {"id": "B"}]}


def _killed_run(folder: Path, kill_at: str) -> None:
    """``provision --force`` in a child killed (SIGKILL) at ``kill_at``: ``credentials`` as it makes the
    last table's credential, ``renames`` at its second rename of a staged file."""
    script = f"""
import os, signal
import table_service.event.provision as prov
from table_service.event.config import validate
cfg = validate({CFG!r})
if {kill_at!r} == "credentials":
    real = prov.mqtt_section
    def killed(*a, **k):
        if not k.get("hub"):
            os.kill(os.getpid(), signal.SIGKILL)
        return real(*a, **k)
    prov.mqtt_section = killed
else:
    real_replace, seen = os.replace, []
    def replace(src, dst):
        if (prov.Path({str(folder)!r}) / "broker" / prov.RENAMING).exists():
            seen.append(src)
            if len(seen) == 2:
                os.kill(os.getpid(), signal.SIGKILL)
        return real_replace(src, dst)
    os.replace = replace
prov.provision(cfg, {str(folder)!r}, force=True)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=REPO)
    assert done.returncode == -9, done.stderr


def test_a_force_killed_before_its_renames_leaves_the_earlier_provision_whole(tmp_path: Path) -> None:
    folder = tmp_path / "pv"
    provision(validate(CFG), folder)
    before = {p: p.read_bytes() for p in (folder / "hub.toml", folder / "broker" / "passwd", folder / "broker" / "acl",
                                          folder / "tables" / "1.toml")}
    _killed_run(folder, "credentials")
    after = {p: p.read_bytes() for p in before}
    assert after == before, "a kill half-way left new credentials beside the old password file"
    again = provision(validate(CFG), folder, force=True)  # and a new run puts everything in place
    assert not list(folder.rglob("*.new")) and not (folder / "broker" / RENAMING).exists()
    assert again.hub.password in (folder / "hub.toml").read_text()


def test_a_force_killed_among_its_renames_is_named_by_event_broker_and_provision(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    ev = tmp_path / "EVENT.toml"
    ev.write_text('[event]\nid = "cup"\nrounds = 1\n[[teams]]\nid = "A"\n[[teams]]\nid = "B"\n', encoding="utf-8")
    folder = tmp_path / "mqtt-cup"
    assert main(["event", "provision", "--event", str(ev)]) == 0
    _killed_run(folder, "renames")
    capsys.readouterr()
    for argv in (["event", "broker", "--event", str(ev)], ["event", "provision", "--event", str(ev)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.index("被中断") < err.index("was interrupted") and "event provision --force" in err, err
    assert main(["event", "provision", "--event", str(ev), "--force"]) == 0
    assert not (folder / "broker" / RENAMING).exists()


def test_a_credential_rewritten_by_force_keeps_mode_0600_and_its_owner(tmp_path: Path) -> None:
    """Written by rename now, not in place: still 0600 from the first byte, and (as root) still the account
    it was given to (§6: give hub.toml to the hub's user)."""
    import os
    folder = tmp_path / "pv"
    provision(validate(CFG), folder)
    hub = folder / "hub.toml"
    hub.chmod(0o644)
    if os.geteuid() == 0:
        os.chown(hub, 65534, 65534)
    provision(validate(CFG), folder, force=True)
    assert hub.stat().st_mode & 0o777 == 0o600
    if os.geteuid() == 0:
        assert (hub.stat().st_uid, hub.stat().st_gid) == (65534, 65534)
