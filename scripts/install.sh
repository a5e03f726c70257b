#!/usr/bin/env bash
# Installs guandan-table into ./.venv on a fresh Debian/Raspberry Pi OS machine.
#   bash scripts/install.sh          -> the service and the demo
#   bash scripts/install.sh --test   -> plus what the test suite needs (Mosquitto, Chromium, card artwork)
# Needs root (or sudo) for the system packages; everything Python goes into .venv.
set -euo pipefail
cd "$(dirname "$0")/.."

WITH_TEST=0
[[ "${1:-}" == "--test" ]] && WITH_TEST=1

SUDO=""
if [[ "$(id -u)" != "0" ]]; then SUDO="sudo"; fi

# gnome-cards-data: real card artwork the synthetic camera renders (demo and tests);
# librsvg2-bin: rsvg-convert renders that artwork; mosquitto: the event demo's private broker.
APT_PKGS=(gnome-cards-data librsvg2-bin mosquitto)
if [[ $WITH_TEST == 1 ]]; then
    # chromium: real browser for the panel tests;
    # fonts-wqy-microhei: Chinese glyphs in the panel screenshots;
    # fonts-dejavu-core, fonts-liberation: index fonts of the synthetic training decks (vision).
    APT_PKGS+=(chromium fonts-wqy-microhei fonts-dejavu-core fonts-liberation)
fi
missing=()
for p in "${APT_PKGS[@]}"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if (( ${#missing[@]} )); then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

PY="${PYTHON:-python3}"
[[ -x .venv/bin/python ]] || "$PY" -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
if [[ $WITH_TEST == 1 ]]; then
    .venv/bin/python -m pip install -q -e ".[test]"
else
    .venv/bin/python -m pip install -q -e .
fi
