"""Lists in the docs that must name everything the code has (the s37 docs audit): each was found
missing an entry the code had added since. Read from the code, so the next addition fails here
until the doc names it too."""

from __future__ import annotations

import re
from pathlib import Path

import firmware_bridge.link_values as link_values

ROOT = Path(__file__).resolve().parents[1]


def _section(doc: str, name: str) -> str:
    """The text between ``<!-- section:name -->`` and its end marker."""
    text = (ROOT / "docs" / doc).read_text(encoding="utf-8")
    return text.split(f"<!-- section:{name} -->", 1)[1].split(f"<!-- /section:{name} -->", 1)[0]


def test_every_link_status_kind_is_documented() -> None:
    """Finding 14: the kinds ``firmware_bridge`` emits (``_status("…")``, ``LinkStatus("…")``), each
    in ``LinkStatus``'s docstring and in architecture.md."""
    source = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "firmware_bridge").glob("*.py"))
    kinds = set(re.findall(r'(?:_status|LinkStatus)\(\s*"([a-z_]+)"', source))
    assert {"connected", "queue_dropped", "skipped", "events_lost", "controller_error"} <= kinds  # the scan works
    doc = link_values.LinkStatus.__doc__ or ""
    arch = _section("architecture.md", "firmware_bridge")
    assert not [k for k in sorted(kinds) if f"``{k}``" not in doc], "missing from LinkStatus's docstring"
    assert not [k for k in sorted(kinds) if f"`{k}`" not in arch], "missing from architecture.md"


def test_every_panel_action_is_in_the_api_s_action_table() -> None:
    """Finding 17: ``referee_called`` (accepted from the panel, ``roles.ACTION_ROLES``) was missing
    from docs/api.md's table of actions; every action the roles accept is a row there, with its role."""
    from table_service.engine.roles import ACTION_ROLES

    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    table = text.split("| type | data (see `docs/events.md`) | least role |", 1)[1].split("\n\n", 1)[0]
    cells = [re.split(r"(?<!\\)\|", row) for row in table.splitlines()[2:] if row.startswith("|")]  # not at \|
    rows = {c[1]: c[3] for c in cells}
    named = {t: role for first, role in rows.items() for t in re.findall(r"`([a-z_]+)`", first)}
    assert not sorted(set(ACTION_ROLES) - set(named)), "actions missing from docs/api.md"
    assert not [t for t, role in ACTION_ROLES.items() if role not in named[t]], "a row gives another least role"


def _config_reference() -> dict[str, set[str]]:
    """docs/config.md: section (``top`` for the top level) -> the keys its table's rows name."""
    out: dict[str, set[str]] = {}
    section = None
    for line in (ROOT / "docs" / "config.md").read_text(encoding="utf-8").splitlines():
        if line.startswith("### "):
            m = re.search(r"`\[([a-z.<>]+)\]`", line)
            section = m.group(1) if m else "top" if "top level" in line else None
            out.setdefault(section or "?", set())
        elif line.startswith("| `") and section is not None:
            out[section] |= set(re.findall(r"`([A-Za-z_]+)`", re.split(r"(?<!\\)\|", line)[1]))
    return out


def test_every_table_toml_key_the_loader_accepts_is_in_the_reference() -> None:
    """Finding 20: no user doc named [service] db/tick_s, [web] enabled/users_db, [mqtt] keepalive,
    [vision] enabled/fps/px_per_mm. docs/config.md lists every key of every section, and no other."""
    from firmware_bridge.firmware.wire import SEATS
    from hardware import config as hw
    from hardware.config_model import DEVICE_KINDS, SEAT_DEVICE_KINDS, TABLE_DEVICE_KINDS
    from table_service.table.config import SERVICE_SCHEMA

    sections = {"seats", "devices", "screen", "gpio", "camera"}
    assert set(hw.TOP_KEYS) - sections == {"table_id", "data_dir"}  # a new top-level key or section: add it here
    expected: dict[str, set[str]] = {
        "top": {"table_id", "data_dir"}, "seats": set(SEATS), "devices": {"default", *DEVICE_KINDS},
        "screen": set(hw.SCREEN_KEYS), "gpio": set(hw.GPIO_KEYS), "gpio.pins": {*TABLE_DEVICE_KINDS, *SEATS},
        "gpio.pins.<seat>": set(SEAT_DEVICE_KINDS), "camera": set(hw.CAMERA_KEYS),
        **{name: set(keys) for name, keys in SERVICE_SCHEMA.items()},
    }
    documented = _config_reference()
    assert sorted(documented) == sorted(expected)
    for name, keys in expected.items():
        assert not sorted(keys - documented[name]), f"[{name}] keys missing from docs/config.md"
        assert not sorted(documented[name] - keys), f"[{name}] keys in docs/config.md the loader refuses"
