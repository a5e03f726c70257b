"""Fixtures of the event tests: ``tests/event`` on ``sys.path`` (for ``event_brute`` and
``event_helpers``), a real Mosquitto broker that a test can stop and start again, and the hub's
pages in Chromium with their CSP on (``pages``: one copy for the hub's browser tests, a module that
needs other pages defines its own)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

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


@pytest.fixture
def pages(open_page: Any) -> Iterator[Any]:
    """``pages(width, height, mobile=False) -> page`` with the page's CSP on; no page may throw."""
    opened: list[list[str]] = []

    def _open(width: int = 1280, height: int = 900, mobile: bool = False) -> Any:
        pg, errors = open_page(width, height, bypass_csp=False, timeout_ms=20_000, mobile=mobile)
        opened.append(errors)
        return pg

    yield _open
    assert [e for errs in opened for e in errs] == [], "JavaScript errors"
