"""examples/event.toml, the organiser's starting point, is an event the hub accepts."""

from __future__ import annotations


def test_the_example_event_toml_is_a_valid_event() -> None:
    """The file README and EVENT.toml's own docs point at (it did not exist)."""
    from pathlib import Path

    from table_service.event.config import load_event

    cfg = load_event(Path(__file__).resolve().parents[2] / "examples" / "event.toml")
    assert cfg["event"]["id"] == "js2026" and len(cfg["teams"]) == 12 and len(cfg["tables"]) == 6
