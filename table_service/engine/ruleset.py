"""The round's rule options: ``table_service.rules.Ruleset``, resolved once at set-up.

``round_set_up`` names a preset (``"jiangsu-2013"``; the short names ``"jiangsu"``, ``"huaian"``,
``"national"`` are accepted too) and may override single options. The resolved options are
stored in the state as ``Ruleset.to_dict()`` (``round.ruleset``), so an old log replays under the
options it was played with even if a preset changes later; the ``Ruleset`` object itself is kept
beside it (``round._rules``, not part of the JSON view) for the rules helpers that take one.
"""

from __future__ import annotations

import json
from typing import Any

from table_service.engine.errors import EventRejected
from table_service.rules.ruleset import DEFAULT_RULESET, Ruleset, get_ruleset

#: The generation of the engine's own rulings (not the rules' options): raised when a ruling changes
#: so that an event the engine accepted before would now be refused or fold differently. A round
#: keeps the generation it was set up under (``round.engine``, stamped by the runner), so a table
#: upgraded mid-event replays its log as it was played. 2 (2026-12-05): a lost turn only with a
#: violation, one penalty per flag, a foul between deals, the 下家's choice of a lost turn
#: (``lose_turn_choice``), the screen's return re-arming the countdown, two wild cards in a row read
#: as standing for different faces (``rules.reading``'s ``copies_apart``). 3 (2026-12-05, later): a wild-card
#: row that fits a reading is read by the row even when that reading does not beat the trick
#: (``rules.reading``'s ``row_decides``); a late action judged by its own time alone — the
#: ``time_over`` flag and the automatic warning or violation it has earned by then, whether or not a
#: ``clock_ticked`` came first, and an automatic penalty a tick gave withdrawn when the action's own
#: time shows it had not earned it (``referee_time.late_by_own_time``, ``timers.stop_and_check``); a
#: paid tribute flagged ``anti_tribute_missed`` when both big jokers are given as tribute
#: (``tribute_phase.check_anti_tribute_missed``). 4 (2026-12-06): an event the chief referee entered is
#: voided or changed by the chief alone (``apply._supersede``). 5 (2026-12-06, fourth session): the referee's
#: time is nobody's in the tribute phase too — a call answered or the screen back gives each running
#: countdown of the tribute or return its whole length (``referee_time.rearm_turn_clock``), and a play, pass,
#: tribute or return voided is made again against a whole countdown (``timers.restart_timer``); a dismissed
#: ``time_over`` flag takes its automatic penalties with it; the 下家's choice of a lost turn asked in the
#: tribute phase too, and a lost turn ruled between deals taken in the next deal
#: (``penalties.take_turn_away``; before the first deal refused); a round lost by penalty scored on the
#: levels gained (``deal_end.end_round``); two referees at once — a penalty citing a dismissed flag and
#: the dismissal of a flag a referee gave a penalty on are refused (``penalties.refuse_dismissal_of_ruled``);
#: a ``time_over`` flag says how late the action came (``timers.stop_and_check``), not the tick's 0.04 s.
#: 6 (2026-12-06, fifth session): a foul keeps the real finishing order within each side (the 上游 who
#: went out stays 上游 on the score sheet and for the next deal, ``deal_end.finish_deal``); an anti-tribute
#: naming one seat twice, or two seats where one payer owes, is refused (``tribute_phase.on_anti_tribute``);
#: an article, a reason or a name with no visible character is refused as missing (``names.says_something``);
#: a penalty given on an open flag upholds it (``penalties.on_penalty_given``).
#: 7 (2026-12-06): a missed report card's flag upheld after the round's result earns nothing by itself;
#: a ruling acted upon is history — an automatic time penalty a later penalty was escalated
#: on is not withdrawn under it (a dismissal is refused until that penalty is voided, an in-time action
#: leaves it held, ``timers.withdraw_time_over``), nor after the round's result; the deal's first lead has its
#: 40 s by every path — after a lost turn ruled in play, after a ruling on a wrong lead (``timers.first_lead_due``);
#: a round's time limit judged by each event's own time, tick or no tick (``apply._dispatch``): a deal ending
#: past it ends the round, and no deal is drawn after it (but the tie's extra deal); a round ended by the referee
#: on a tie and decided by the extra deal has the reason ``ended``, not its format's (``deal_end.check_round_end``).
#: 8 (2026-12-06, later): a tribute, a return or an anti-tribute is not voided once the deal's first card is
#: played — the void re-folded the deal into the tribute phase and superseded the return and every play
#: since; a wrong tribute found in play is corrected with ``tribute_corrected`` instead (``tribute_correction``).
#: 9 (2026-12-06, s37): the referee's time is nobody's, whole (``referee_time``): play is stopped while a call,
#: a breach that stops play (``timers.STOPS_PLAY``) or a dark screen is open, lateness is judged at the moment
#: play stopped (a tick or the action's own stamp), and when play resumes — or any event is voided — the seat
#: to act gets a whole countdown whatever flag of its own is open; an out-of-turn play that empties the hand
#: finishes it only once its flag is ruled on (``play.finish_pending``); a violation the ladder makes between
#: deals asks the 下家's choice of a lost turn; ``report_missing`` only when the seat to act acts; the report
#: card refused where no play has left the seat ≤ 10 cards (or it has none); a late arrival of 0 minutes
#: refused; a penalty of an earlier deal of the round voided by the chief (``penalties.void_earlier``).
ENGINE_GENERATION = 9


def since(state: dict[str, Any], generation: int) -> bool:
    """Whether the round in ``state`` was set up under ``generation`` of the engine's rulings or later."""
    return int((state.get("round") or {}).get("engine", 1)) >= generation


def stamp_generation(event: dict[str, Any]) -> dict[str, Any]:
    """``event`` with ``data.engine`` set to this program's :data:`ENGINE_GENERATION` when it is a
    ``round_set_up`` (the runner stamps each round it logs), else as it is. Whatever generation the
    caller named is replaced: a round set up now is played under today's rulings, never an older one."""
    data = event.get("data")
    if event.get("type") != "round_set_up" or not isinstance(data, dict):
        return event
    return {**event, "data": {**data, "engine": ENGINE_GENERATION}}


#: Short names accepted for the presets.
ALIASES: dict[str, str] = {"jiangsu": "jiangsu-2013", "huaian": "huaian-2017", "national": "national-2022"}

_CACHE: dict[str, Ruleset] = {}


def resolve_ruleset(spec: Any) -> Ruleset:
    """Resolve ``spec``: ``None`` (the default preset), a preset name, ``{"preset": name,
    "options": {...}}``, or a stored ``Ruleset.to_dict()`` form (with ``"name"``).

    :raises EventRejected: for an unknown preset or option (the message names it), or a bad value.
    """
    try:
        if spec is None:
            return get_ruleset(DEFAULT_RULESET)
        if isinstance(spec, str):
            return get_ruleset(ALIASES.get(spec, spec))
        if isinstance(spec, dict):
            if "name" in spec and "preset" not in spec:
                data = dict(spec)
                data["name"] = ALIASES.get(data["name"], data["name"])
                return Ruleset.from_dict(data)
            options = spec.get("options") or {}
            if not isinstance(options, dict):
                raise EventRejected("规则选项无效 / ruleset options must be an object")
            preset = spec.get("preset", DEFAULT_RULESET)
            # Types and ranges are the Ruleset's own checks (one place for the engine, the
            # hub's EVENT.toml and table.toml).
            return get_ruleset(ALIASES.get(preset, preset), **options)
    except EventRejected:
        raise
    except (ValueError, TypeError) as exc:
        raise EventRejected(str(exc) if "/" in str(exc) else f"规则无效：{exc} / bad ruleset: {exc}") from None
    raise EventRejected(f"规则无效：须为预设名或对象，收到 {spec!r}"
                        f" / ruleset must be a preset name or an object, got {spec!r}")


def rules_of(options: dict[str, Any]) -> Ruleset:
    """The ``Ruleset`` for stored options (cached: the same options give the same object)."""
    key = json.dumps(options, sort_keys=True)
    rules = _CACHE.get(key)
    if rules is None:
        rules = Ruleset.from_dict(options)
        _CACHE[key] = rules
    return rules
