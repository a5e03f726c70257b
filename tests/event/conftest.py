"""Fixtures of the event tests: ``tests/event`` on ``sys.path`` (for ``event_brute`` and
``event_helpers``) and a real Mosquitto broker that a test can stop and start again."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from event_helpers import SecureBroker


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[SecureBroker]:
    """A real Mosquitto on a free loopback port, with persistence so a restart keeps sessions, and
    with the users and ACL ``event provision`` writes (no anonymous clients; see event_helpers)."""
    b = SecureBroker(tmp_path / "broker")
    b.start()
    try:
        yield b
    finally:
        b.stop()
