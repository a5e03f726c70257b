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
        raise EventRejected(str(exc) if "/" in str(exc) else f"规则无效 / bad ruleset: {exc}") from None
    raise EventRejected(f"规则无效 / ruleset must be a preset name or an object, got {spec!r}")


def rules_of(options: dict[str, Any]) -> Ruleset:
    """The ``Ruleset`` for stored options (cached: the same options give the same object)."""
    key = json.dumps(options, sort_keys=True)
    rules = _CACHE.get(key)
    if rules is None:
        rules = Ruleset.from_dict(options)
        _CACHE[key] = rules
    return rules
