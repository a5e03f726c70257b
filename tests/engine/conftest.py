"""Engine test fixtures; the helpers live in ``engine_helpers`` beside this file."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from engine_helpers import Table


@pytest.fixture
def table() -> Table:
    """A round set up under the Jiangsu preset, to past A, no deal yet."""
    return Table()
