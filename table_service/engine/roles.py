"""Who may submit what: the least role for each action a referee enters, read from the ruleset.

One source for the panel's gate and the engine's own checks: a foul or a loss is the chief
referee's (so is a late arrival longer than the round's ``Ruleset.late_warning_min``, and a round
set up with single options changed: they move those very gates), everything else a referee's.
The panel asks :func:`required_role` with the ruleset of the round in play, so an event that
changes that option moves the panel's gate and the engine's together.
"""

from __future__ import annotations

from typing import Any

from table_service.engine.ruleset import rules_of
from table_service.rules.ruleset import DEFAULT_RULESET, Ruleset, get_ruleset

#: Event types the panel may submit, and the least role each needs. Referee rulings, and table
#: events a referee enters by hand (camera offline, misread, deal set-up) — all as ``source: panel``.
ACTION_ROLES: dict[str, str] = {
    # rulings
    "flag_confirmed": "referee",
    "flag_dismissed": "referee",
    "play_confirmed": "referee",
    "play_corrected": "referee",
    "reading_declared": "referee",
    "tribute_corrected": "referee",  # a wrong tribute found in play: the card exchanged (as a void is)
    "event_voided": "referee",
    "penalty_given": "referee",
    "late_arrival_recorded": "referee",
    "score_sheet_signed": "referee",
    "round_ended": "chief",  # before its format ends it (deals, levels, time): not undone, the chief's call
    "round_set_up": "referee",
    "deal_redrawn": "referee",  # cards miscounted: shuffle and draw again
    # table events entered at the panel
    "first_cut_recorded": "referee",
    "drawing_finished": "referee",
    "anti_tribute_declared": "referee",
    "tribute_given": "referee",
    "return_given": "referee",
    "cards_played": "referee",
    "passed": "referee",
    "report_pressed": "referee",
    "card_exposed": "referee",  # 暴露张 the referee saw (the camera reports its own)
    "referee_called": "referee",  # the referee, called over by voice, stops play (the clocks hold)
}

#: Penalty levels only the chief referee gives (given as such, or escalated into).
CHIEF_PENALTIES = frozenset({"foul", "loss"})


def is_late_for_chief(minutes: Any, rules: Ruleset) -> bool:
    """A late arrival of ``minutes`` is past the warning the table referee may give alone."""
    return isinstance(minutes, int | float) and not isinstance(minutes, bool) and minutes > rules.late_warning_min


def required_role(etype: str, data: dict[str, Any], rules: Ruleset) -> str:
    """The least role that may submit this action under ``rules`` (chief for fouls, losses, long
    late arrivals).

    Never raises on odd data (a list where the level belongs): an unknown level asks for the
    chief, the most demanding role, and the schema check then names the bad field.
    """
    role = ACTION_ROLES[etype]
    level = data.get("level")
    if etype == "penalty_given" and not (isinstance(level, str) and level in ("warning", "violation")):
        return "chief"
    if etype == "late_arrival_recorded" and is_late_for_chief(data.get("minutes"), rules):
        return "chief"
    if etype == "round_set_up" and not _preset_only(data.get("ruleset")):
        # Single options move the chief's own gates (late_warning_min, the ladder's counts): a
        # referee picks a preset; an event's options come with the hub's assignment, not this way.
        return "chief"
    return role


def _preset_only(spec: Any) -> bool:
    """Whether a ``round_set_up``'s ruleset names a preset and changes none of its options."""
    if spec is None or isinstance(spec, str):
        return True
    return isinstance(spec, dict) and set(spec) <= {"preset", "options"} and not spec.get("options")


def rules_in_force(state: dict[str, Any]) -> Ruleset:
    """The ruleset of the round in ``state`` (the engine state or its JSON view), else the default
    preset's (no round set up yet: the round's own options will apply once it is)."""
    options = (state.get("round") or {}).get("ruleset")
    return rules_of(options) if options else get_ruleset(DEFAULT_RULESET)
