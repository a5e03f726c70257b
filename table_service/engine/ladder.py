"""The penalty ladder, counted per side per round: 2 warnings → violation, 2 violations → foul,
2 fouls → loss (the steps come from the round's ``Ruleset``).

Its own module because both the penalties and the timers count it (a time-over warning withdrawn
when the late action's own stamp proves it in time is taken off the ladder again), and the timers
sit below the penalties, which end deals and rounds.
"""

from __future__ import annotations

from typing import Any

from table_service.engine.events import PENALTY_LEVELS
from table_service.engine.state import State
from table_service.rules.ruleset import Ruleset

LEVEL_NAMES = {"warning": "警告 / warning", "violation": "违例 / violation", "foul": "犯规 / foul", "loss": "判负 / loss"}
#: The Chinese names alone, for the Chinese half of a "中文 / English" message: a name with its own
#: " / " inside that half splits the message there (the panel shows the half of the reader's language).
LEVEL_ZH = {k: v.split(" / ")[0] for k, v in LEVEL_NAMES.items()}


def escalate(ladder: dict[str, int], level: str, rules: Ruleset | None = None) -> tuple[str, dict[str, int]]:
    """The level a penalty of ``level`` amounts to on this ladder, and the ladder after it
    (steps from the ruleset: 2 warnings per violation, 2 violations per foul, 2 fouls per loss)."""
    rules = rules or Ruleset()
    lad = dict(ladder)
    if level == "warning":
        lad["warnings"] += 1
        if lad["warnings"] < rules.warnings_per_violation:
            return "warning", lad
        lad["warnings"] = 0
        level = "violation"
    if level == "violation":
        lad["violations"] += 1
        if lad["violations"] < rules.violations_per_foul:
            return "violation", lad
        lad["violations"] = 0
        level = "foul"
    if level == "foul":
        lad["fouls"] += 1
        return ("foul" if lad["fouls"] < rules.fouls_per_loss else "loss"), lad
    return "loss", lad


def counted_levels(state: State, side: str, leave_out: frozenset[int] = frozenset()) -> dict[int, str]:
    """What each standing penalty record of ``side`` amounts to on the ladder, by its place in the
    round's records, counted in order by the level each was given as; the records at ``leave_out``
    not counted (what the ladder would say had they never been given)."""
    return _fold(state, side, leave_out)[0]


def _fold(state: State, side: str, leave_out: frozenset[int] = frozenset()) -> tuple[dict[int, str], dict[str, int]]:
    """``side``'s standing records (but those at ``leave_out``) counted in order by the level each was
    given as: what each amounts to, by its place, and the ladder they make."""
    ladder = {"warnings": 0, "violations": 0, "fouls": 0}
    rules = state["round"]["_rules"]
    out: dict[int, str] = {}
    for i, r in enumerate(state["penalties"]["records"]):
        if r["side"] == side and not r.get("withdrawn") and i not in leave_out and r["given"] in PENALTY_LEVELS:
            out[i], ladder = escalate(ladder, r["given"], rules)
    return out, ladder


def escalated_on(state: State, places: set[int]) -> dict[str, Any] | None:
    """The first standing record, other than those at ``places``, that amounts to something else
    without them — a later penalty the ladder made a violation, a foul or a loss on top of them (or one
    that would become more once they are gone). None when withdrawing them changes no other record.

    Why: such a record has been acted upon (a lost turn, a deal ended by a foul, the round lost), and
    the public saw it at its level; withdrawing what it stands on would leave it saying one thing while
    the ladder counts another (engine generation 7)."""
    records = state["penalties"]["records"]
    leave_out = frozenset(places)
    for side in sorted({records[i]["side"] for i in places}):
        now = counted_levels(state, side)
        then = counted_levels(state, side, leave_out)
        for i in sorted(then):
            if then[i] != now[i]:
                return records[i]
    return None


def recount_ladder(state: State, side: str) -> None:
    """Count ``side``'s ladder again from its penalty records of the round that stand (a record
    marked ``withdrawn`` no longer counts), in order, by the level each was given as."""
    state["penalties"][side] = _fold(state, side)[1]
