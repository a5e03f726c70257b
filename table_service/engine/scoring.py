"""Levels gained in a round and who leads by them (the rest of the scoring — 级差分, match
points, the A rule — is ``table_service.rules``'s ``levels`` and ``scoring``)."""

from __future__ import annotations

from typing import Any

from table_service.engine.errors import halves
from table_service.rules.cards import RANKS
from table_service.rules.seats import side_zh

#: Level index of a side that has won past A (one above A).
PAST_A = 13


def gained_levels(levels: dict[str, str], start: dict[str, str], past_a: str | None) -> dict[str, int]:
    """Levels gained in the round per side (a side past A counts one level above A)."""
    out: dict[str, int] = {}
    for side in ("EW", "NS"):
        idx = PAST_A if past_a == side else RANKS.index(levels[side])
        out[side] = idx - RANKS.index(start[side])
    return out


def leader_by_levels(gained: dict[str, int]) -> str | None:
    """The side with more levels gained, or None on a tie."""
    if gained["EW"] == gained["NS"]:
        return None
    return "EW" if gained["EW"] > gained["NS"] else "NS"


#: What ended a round (``result.reason``), Chinese then English: the CLI prints it, the panel's words
#: (``web.i18n``, ``st_<reason>``) come from here. ``ended``: the referee ended the round (``round_ended``),
#: a tie then decided by the extra deal included (engine generation 7).
RESULT_REASONS: dict[str, str] = {
    "past_a": "过A / past A", "deals": "副数到 / deals played", "time": "时间到 / time", "loss": "判负 / loss",
    "forfeit": "弃权 / forfeit", "ended": "中止 / ended",
}


def describe_result(result: dict[str, Any]) -> str:
    """One line, Chinese then English, for the CLI (the Chinese half says the side: "东西胜", not "EW 胜")."""
    w = result["winner"]
    pts = result["level_points"]
    why_zh, why_en = halves(RESULT_REASONS.get(result["reason"], result["reason"]))
    who_zh, who_en = (f"{side_zh(w)}胜", f"{w} wins") if w else ("平局", "draw")
    return (f"{who_zh}（{why_zh}），级差分 东西 {pts['EW']} : 南北 {pts['NS']} / "
            f"{who_en} ({why_en}); level points EW {pts['EW']} : NS {pts['NS']}")
