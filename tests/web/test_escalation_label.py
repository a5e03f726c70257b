"""Confirming a ``penalty_escalation`` flag applies nothing (the chief gives the foul with 犯规… / Foul…),
so the panel's tap on it says that — "已阅，不加罚 / Noted, no penalty" — not "确认 / Confirm", which on
every other flag upholds the breach (audit s37, finding 9)."""

from __future__ import annotations

import re
from pathlib import Path

from table_service.web.words import STRINGS

STATIC = Path(__file__).resolve().parents[2] / "table_service" / "web" / "static"


def test_the_escalation_flag_s_confirm_tap_says_it_gives_no_penalty() -> None:
    zh, en = STRINGS["escalation_noted"]
    assert "不加罚" in zh and "no penalty" in en
    js = (STATIC / "panel_flags.js").read_text(encoding="utf-8")
    assert re.search(r'f\.rule === "penalty_escalation"', js)
    assert re.search(r'GT\.t\(noted \? "escalation_noted" : "confirm"\)', js)
