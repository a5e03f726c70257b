#!/usr/bin/env bash
# Installs guandan-table into ./.venv on a fresh Debian/Raspberry Pi OS machine.
#   bash scripts/install.sh          -> the service and the demo
#   bash scripts/install.sh --test   -> plus what the test suite needs (Mosquitto, Chromium, card artwork)
#   bash scripts/install.sh --dry-run [--test]  -> only print what would be installed, change nothing
# Needs root (or sudo) for the system packages; everything Python goes into .venv.
# On Raspberry Pi OS the camera modules' library (picamera2, over libcamera) comes from apt, not pip:
# python3-picamera2 is installed and .venv is made with --system-site-packages so it can import it.
set -euo pipefail
cd "$(dirname "$0")/.."

#: The picamera2 release whose source the fake camera is checked against (tests).
PICAMERA2_SOURCE=0.3.38
#: On Raspberry Pi OS, apt's picamera2 imports apt's simplejpeg, built for the system's numpy (1.24 on
#: bookworm), while .venv holds numpy 2 (the pinned OpenCV needs it): "numpy.dtype size changed" at
#: import, so no Pi camera. A simplejpeg built for numpy 2 goes into .venv, ahead of apt's.
PI_SIMPLEJPEG="simplejpeg>=1.8.1"
WITH_TEST=0
DRY_RUN=0
for arg in "$@"; do
    case "$arg" in
        --test) WITH_TEST=1 ;;
        --dry-run) DRY_RUN=1 ;;
        *) echo "install.sh: unknown option $arg (--test, --dry-run)" >&2; exit 2 ;;
    esac
done

# Before anything is installed: a Python the project cannot run on (Ubuntu 22.04's 3.10) is said at once.
PY="${PYTHON:-python3}"
if ! "$PY" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "install.sh: 需要 Python 3.11 或更高版本 / needs Python >= 3.11; $PY is $("$PY" -V 2>&1)." \
         "安装后用 PYTHON=python3.11 重试 / install one and run again with PYTHON=python3.11" >&2
    exit 1
fi

# Raspberry Pi OS: Raspbian (32-bit) says so in os-release; the 64-bit release says "debian" there
# and is told by /etc/rpi-issue. (Paths overridable for the test of this script.)
is_raspberry_pi_os() {
    local osr="${OS_RELEASE_FILE:-/etc/os-release}" issue="${RPI_ISSUE_FILE:-/etc/rpi-issue}"
    [[ -f "$issue" ]] && return 0
    [[ -f "$osr" ]] && grep -qE '^ID=raspbian$|^ID="raspbian"$' "$osr"
}
RPI_OS=0
is_raspberry_pi_os && RPI_OS=1
# Ubuntu has no Debian chromium package (only a snap behind "chromium-browser"): there the tests'
# browser is Playwright's own build, which the test fixture falls back to.
is_ubuntu() {
    local osr="${OS_RELEASE_FILE:-/etc/os-release}"
    [[ -f "$osr" ]] && grep -qE '^ID="?ubuntu"?$|^ID_LIKE=.*ubuntu' "$osr"
}
UBUNTU=0
is_ubuntu && UBUNTU=1

SUDO=""
if [[ "$(id -u)" != "0" ]]; then SUDO="sudo"; fi

# gnome-cards-data: real card artwork the synthetic camera renders (demo and tests);
# librsvg2-bin: rsvg-convert renders that artwork; mosquitto: the event demo's private broker.
# python3-venv: Debian's python3 makes no venv without it (and leaves a .venv with no pip behind).
APT_PKGS=(python3-venv gnome-cards-data librsvg2-bin mosquitto)
BROWSER=none
if [[ $WITH_TEST == 1 ]]; then
    # fonts-wqy-microhei: Chinese glyphs in the panel screenshots;
    # fonts-dejavu-core, fonts-liberation: index fonts of the synthetic training decks (vision).
    APT_PKGS+=(fonts-wqy-microhei fonts-dejavu-core fonts-liberation)
    # chromium-headless-shell: real browser for the panel tests (Debian's; Playwright's own build on
    # Ubuntu). The shell, not the full browser: the same engine without the UI, a third less CPU a page.
    if [[ $UBUNTU == 1 ]]; then BROWSER=playwright; else BROWSER=apt; APT_PKGS+=(chromium-headless-shell); fi
fi
# ONNX Runtime runs the card reader's networks in half of OpenCV's time; it has wheels for 64-bit x86
# and ARM Pythons only (a 32-bit Raspberry Pi OS, even on a 64-bit kernel, gets OpenCV alone).
# FAST_READER=0/1 overrides what the Python says (the test of this script).
if [[ -z "${FAST_READER:-}" ]]; then
    FAST_READER=0
    "$PY" -c 'import platform, struct, sys; sys.exit(not (struct.calcsize("P") == 8 and platform.machine().lower() in ("x86_64", "amd64", "aarch64", "arm64")))' && FAST_READER=1
fi
EXTRAS=()
[[ $WITH_TEST == 1 ]] && EXTRAS+=(test)
[[ $FAST_READER == 1 ]] && EXTRAS+=(fast-reader)
TARGET="."
if (( ${#EXTRAS[@]} )); then TARGET=".[$(IFS=,; echo "${EXTRAS[*]}")]"; fi
VENV_ARGS=()
if [[ $RPI_OS == 1 ]]; then
    # picamera2 needs libcamera's Python bindings, which exist only as Raspberry Pi OS packages.
    APT_PKGS+=(python3-picamera2)
    VENV_ARGS+=(--system-site-packages)
fi
if [[ $DRY_RUN == 1 ]]; then
    echo "raspberry_pi_os=$RPI_OS"
    echo "apt: ${APT_PKGS[*]}"
    echo "browser: $BROWSER"
    echo "venv: python3 -m venv ${VENV_ARGS[*]} .venv"
    if [[ $WITH_TEST == 1 && $RPI_OS == 0 ]]; then echo "pip: -e $TARGET; --no-deps picamera2==$PICAMERA2_SOURCE"
    elif [[ $RPI_OS == 1 ]]; then echo "pip: -e $TARGET; $PI_SIMPLEJPEG"
    else echo "pip: -e $TARGET"; fi
    exit 0
fi
missing=()
for p in "${APT_PKGS[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if (( ${#missing[@]} )); then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [[ ! -x .venv/bin/python ]]; then
    "$PY" -m venv "${VENV_ARGS[@]}" .venv
elif ! .venv/bin/python -m pip --version >/dev/null 2>&1; then
    # A venv left half-made (python3-venv was missing when it was first made): make it again.
    "$PY" -m venv --clear "${VENV_ARGS[@]}" .venv
fi
if [[ $RPI_OS == 1 ]] && grep -q '^include-system-site-packages = false' .venv/pyvenv.cfg; then
    # A venv made before this script knew the Pi's camera: let it see apt's picamera2 too.
    sed -i 's/^include-system-site-packages = false/include-system-site-packages = true/' .venv/pyvenv.cfg
fi
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
if [[ $WITH_TEST == 1 ]]; then
    .venv/bin/python -m pip install -q -e "$TARGET"
    # The picamera2 contract test reads the library's source (tests/hardware/test_picamera2_contract.py);
    # off a Pi it cannot be installed with its dependencies (python-prctl needs libcap headers,
    # libcamera does not exist), and is never imported here: the source alone, pinned.
    [[ $RPI_OS == 1 ]] || .venv/bin/python -m pip install -q --no-deps "picamera2==$PICAMERA2_SOURCE"
    if [[ $BROWSER == playwright ]]; then .venv/bin/python -m playwright install --with-deps chromium; fi
else
    .venv/bin/python -m pip install -q -e "$TARGET"
fi
if [[ $RPI_OS == 1 ]]; then
    .venv/bin/python -m pip install -q "$PI_SIMPLEJPEG"
    # The camera library is apt's: say now, not at the first deal, if .venv cannot import it.
    if ! why=$(.venv/bin/python -c 'import picamera2' 2>&1); then
        echo "install.sh: 警告：.venv 无法导入 picamera2，树莓派摄像头不可用（USB 摄像头不受影响）/ warning: .venv cannot" \
             "import picamera2, so no Pi camera module (a USB camera is unaffected): $(tail -n 1 <<<"$why")" >&2
    fi
fi
