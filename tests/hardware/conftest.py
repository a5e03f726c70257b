"""Fixtures for the hardware tests: gpiozero's MockFactory, table configs written to tmp_path."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from gpiozero import Device
from gpiozero.pins.mock import MockFactory, MockPWMPin


@pytest.fixture
def mock_factory() -> Iterator[MockFactory]:
    """Install a fresh MockFactory (PWM-capable pins) as gpiozero's default; restore the old one.

    gpiozero's own test-suite pattern: reset in ``finally`` so a failing test cannot leak claimed
    pins or a factory into the next test.
    """
    saved = Device.pin_factory
    factory = MockFactory(pin_class=MockPWMPin)
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = saved


@pytest.fixture
def write_toml(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write a dedented TOML text to ``tmp_path/name`` and return its path."""

    def write(text: str, name: str = "table.toml") -> Path:
        path = tmp_path / name
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write
