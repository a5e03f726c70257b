"""Fixtures for the vision tests: rendered artwork is cached on disk (~/.cache/guandan-table),
so a fresh machine renders each design once (about a second per design) and later runs reuse it;
``tests/vision`` on ``sys.path`` for ``vision_kit`` (the render-seed shift and face helpers)."""

from __future__ import annotations

import functools
import sys
from pathlib import Path

import cv2
import pytest

from vision.artwork import load_deck
from vision.geometry import default_layout
from vision.synth import CameraView, TableRenderer, TableScene

sys.path.insert(0, str(Path(__file__).parent))
cv2.setNumThreads(1)


@pytest.fixture(scope="session")
def layout():
    return default_layout()


@pytest.fixture(scope="session")
def anglo():
    return load_deck("anglo")


@pytest.fixture(scope="session")
def readable_camera():
    """A camera sharp enough to read from (~2 px/mm on the table), small enough to render fast."""
    return CameraView(size=(2200, 1900), px_per_mm=2.0, tilt_px=25, rotation_deg=1.0, seed=3)


def _table_renderer(layout, camera):
    return TableRenderer(layout, "anglo", camera, seed=11)


@pytest.fixture()
def renderer(layout, readable_camera):
    return _table_renderer(layout, readable_camera)


@pytest.fixture(scope="session")
def empty_table(layout, readable_camera):
    """``empty_table(seed)``: the ``renderer`` fixture's table with nothing on it, rendered at ``seed``
    once a session (a render costs about half a second of CPU, and the watcher's tests each begin by
    calibrating on the empty table). Read-only, so no test can change what the next one is fed."""
    r = _table_renderer(layout, readable_camera)

    @functools.cache
    def render(seed: int):
        frame = r.render(TableScene({}), seed=seed)
        frame.flags.writeable = False
        return frame

    return render
