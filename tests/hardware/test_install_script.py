"""scripts/install.sh on Raspberry Pi OS vs plain Debian, through its --dry-run (changes nothing)."""

from __future__ import annotations

import subprocess
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "install.sh"


def _plan(tmp_path: Path, os_release: str, rpi_issue: bool, *args: str, **more_env: str) -> dict[str, str]:
    osr = tmp_path / "os-release"
    osr.write_text(os_release)
    issue = tmp_path / "rpi-issue"
    if rpi_issue:
        issue.write_text("Raspberry Pi reference 2024-11-19\n")
    env = {"PATH": "/usr/bin:/bin", "OS_RELEASE_FILE": str(osr), "RPI_ISSUE_FILE": str(issue), **more_env}
    out = subprocess.run(["bash", str(SCRIPT), "--dry-run", *args], env=env, capture_output=True, text=True,
                         timeout=60, check=True).stdout
    return dict(line.split(": ", 1) if ": " in line else line.split("=", 1) for line in out.splitlines())


DEBIAN = 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nID=debian\n'


def test_raspberry_pi_os_64_bit_gets_apt_picamera2_and_system_site_packages(tmp_path):
    plan = _plan(tmp_path, DEBIAN, True)  # the 64-bit release says debian; /etc/rpi-issue tells it
    assert plan["raspberry_pi_os"] == "1"
    assert "python3-picamera2" in plan["apt"].split()
    assert "--system-site-packages" in plan["venv"]


def test_raspbian_32_bit_is_told_by_os_release(tmp_path):
    plan = _plan(tmp_path, 'ID=raspbian\nID_LIKE=debian\n', False, "--test")
    assert "python3-picamera2" in plan["apt"].split() and "--system-site-packages" in plan["venv"]
    assert "picamera2==" not in plan["pip"]  # on the Pi the apt package is the library itself


def test_plain_debian_is_unchanged(tmp_path):
    plan = _plan(tmp_path, DEBIAN, False, "--test")
    assert plan["raspberry_pi_os"] == "0"
    assert "python3-picamera2" not in plan["apt"] and "--system-site-packages" not in plan["venv"]
    assert "--no-deps picamera2==" in plan["pip"]  # the source the contract test reads


def test_unknown_option_is_refused(tmp_path):
    r = subprocess.run(["bash", str(SCRIPT), "--dryrun"], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "unknown option" in r.stderr


def test_every_plan_installs_python3_venv(tmp_path):
    """Debian's python3 makes no venv without python3-venv, and the half-made .venv it leaves has no pip."""
    for osr, issue in ((DEBIAN, False), (DEBIAN, True), (UBUNTU, False)):
        assert "python3-venv" in _plan(tmp_path, osr, issue)["apt"].split()


def test_debian_tests_use_debian_chromium(tmp_path):
    plan = _plan(tmp_path, DEBIAN, False, "--test")
    assert "chromium-headless-shell" in plan["apt"].split() and plan["browser"] == "apt"
    assert _plan(tmp_path, DEBIAN, False)["browser"] == "none"  # the service alone needs no browser


def test_a_64_bit_python_gets_onnx_runtime_for_the_reader_and_a_32_bit_one_opencv_alone(tmp_path):
    """ONNX Runtime has no wheel for a 32-bit Python (32-bit Raspberry Pi OS says "aarch64" on a 64-bit kernel),
    so it is an extra the script adds where the Python is 64-bit; the reader runs on OpenCV without it."""
    import platform
    import struct

    sixty_four = struct.calcsize("P") == 8 and platform.machine() in ("x86_64", "aarch64")
    for args in ((), ("--test",)):
        pip = _plan(tmp_path, DEBIAN, False, *args)["pip"].split(";")[0]
        assert ("fast-reader" in pip) == sixty_four, pip
        assert "fast-reader" not in _plan(tmp_path, DEBIAN, True, *args, FAST_READER="0")["pip"]
    assert _plan(tmp_path, DEBIAN, False, "--test", FAST_READER="1")["pip"].startswith("-e .[test,fast-reader];")


UBUNTU = 'PRETTY_NAME="Ubuntu 24.04.1 LTS"\nID=ubuntu\nID_LIKE=debian\n'


def test_ubuntu_has_no_chromium_deb_so_the_tests_use_playwrights(tmp_path):
    """Ubuntu's only "chromium" is a snap behind chromium-browser: apt-get install chromium fails there."""
    plan = _plan(tmp_path, UBUNTU, False, "--test")
    assert not {"chromium", "chromium-headless-shell"} & set(plan["apt"].split()) and plan["browser"] == "playwright"
    assert "fonts-wqy-microhei" in plan["apt"].split()


def test_a_python_too_old_is_refused_before_anything_is_installed(tmp_path):
    fake = tmp_path / "python3.10"
    fake.write_text('#!/bin/sh\n[ "$1" = -V ] && echo "Python 3.10.12" && exit 0\nexit 1\n')
    fake.chmod(0o755)
    r = subprocess.run(["bash", str(SCRIPT), "--dry-run"], env={"PATH": "/usr/bin:/bin", "PYTHON": str(fake)},
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.startswith("install.sh: 需要 Python 3.11") and "3.10.12" in r.stderr and "PYTHON=" in r.stderr


def test_raspberry_pi_os_gets_a_simplejpeg_for_the_venvs_numpy(tmp_path):
    """apt's simplejpeg is bookworm numpy 1's; .venv's numpy is 2 (the pinned OpenCV's): the Pi gets one
    built for numpy 2 in .venv, the spec the camera's error names too (one spec, checked here)."""
    import re

    from hardware.backends.picamera2_camera import PI_SIMPLEJPEG

    assert re.search(r'^PI_SIMPLEJPEG="(.+)"$', SCRIPT.read_text(), re.M).group(1) == PI_SIMPLEJPEG
    for i, args in enumerate(((), ("--test",))):
        (pi := tmp_path / f"pi{i}").mkdir()
        (plain := tmp_path / f"plain{i}").mkdir()
        assert PI_SIMPLEJPEG in _plan(pi, DEBIAN, True, *args)["pip"]
        assert "simplejpeg" not in _plan(plain, DEBIAN, False, *args)["pip"]
