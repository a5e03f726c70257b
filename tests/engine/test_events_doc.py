"""docs/events.md documents every event type, flag rule and state key the engine has."""

from __future__ import annotations

import re
from pathlib import Path

from engine_helpers import Table

from table_service.engine.events import EVENT_TYPES
from table_service.engine.flags import ARTICLES
from table_service.engine.state import state_to_json

DOC = (Path(__file__).resolve().parents[2] / "docs" / "events.md").read_text(encoding="utf-8")


def test_every_event_type_is_documented() -> None:
    documented = set(re.findall(r"^\| `([a-z_]+)`", DOC, flags=re.M))
    missing = [t for t in EVENT_TYPES if t not in documented]
    assert missing == []


def test_every_flag_rule_is_documented() -> None:
    assert [r for r in ARTICLES if f"| `{r}` |" not in DOC] == []


def _keys(value: object, out: set[str]) -> None:
    if isinstance(value, dict):
        for k, v in value.items():
            if not re.fullmatch(r"[A-Z]{1,2}|[0-9A-Za-z]{2}", k):  # seats, sides, card faces
                out.add(k)
            _keys(v, out)
    elif isinstance(value, list):
        for v in value:
            _keys(v, out)


def test_every_state_key_is_documented() -> None:
    t = Table()
    t.first_deal("E", {"E": 1, "S": 1, "W": 1, "N": 1})
    t.finish_in_order(["E", "N", "W", "S"])
    t.next_deal()
    t.do("deal_released", {"deal": 1}, role="chief")
    t.do("tribute_given", {"seat": "S", "card": "BJ"})
    t.do("return_given", {"seat": "E", "card": "9c"})
    t.play("S", "8s", data={"confidence": [0.9]})
    t.play("E", "9s", data={"uncertain": True})
    t.do("clock_ticked", {}, source="clock", dt=60_000)
    t.do("penalty_given", {"side": "EW", "level": "warning", "article": "x"}, role="referee")
    keys: set[str] = set()
    _keys(state_to_json(t.state), keys)
    missing = sorted(k for k in keys if f'"{k}"' not in DOC)
    assert missing == []
