"""The problem collector ``table.toml`` is checked with: every problem, not the first one.

Apart from :mod:`hardware.config` because it knows no section of the file: it checks a key's
type, a number's range, a table's unknown keys (with a "did you mean"), and gathers the
bilingual messages and warnings, so that ``config check`` lists every mistake at once. The
sections' rules are :mod:`hardware.config`'s.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """A hint for a misspelt key or value (the closest allowed word), or ``""``: a problem list
    read on a Pi's console should say what was meant, not only what was wrong."""
    close = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"（是不是 '{close[0]}'？ / did you mean '{close[0]}'?）" if close else ""


class ConfigChecker:
    """Collects problems instead of stopping at the first one."""

    def __init__(self) -> None:
        self.problems: list[str] = []
        self.warnings: list[str] = []

    def error(self, msg: str) -> None:
        self.problems.append(msg)

    def keys(self, table: Mapping[str, Any], allowed: Iterable[str], where: str) -> None:
        allowed = list(allowed)
        for key in table:
            if key not in allowed:
                self.error(
                    f"{where} 中的未知项 '{key}' / unknown key '{key}' in {where}"
                    f"{did_you_mean(key, allowed)}；可用：{', '.join(allowed)} / allowed: {', '.join(allowed)}"
                )

    def table(self, data: Mapping[str, Any], key: str, where: str) -> dict[str, Any]:
        value = data.get(key, {})
        if not isinstance(value, dict):
            self.error(f"[{where}] 必须是表，收到 {type(value).__name__} / "
                       f"must be a table, got {type(value).__name__}")
            return {}
        return value

    def typed(self, data: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str,
              default: Any = None) -> Any:
        if key not in data:
            return default
        value = data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        # bool is an int in Python; a pin or size given as `true` is a mistake.
        if isinstance(value, bool) and bool not in kinds:
            ok = False
        elif float in kinds and isinstance(value, int) and not isinstance(value, bool):
            ok = True
        else:
            ok = isinstance(value, kinds)
        if not ok:
            names = " / ".join(k.__name__ for k in kinds)
            self.error(f"{where}.{key} 类型应为 {names}，收到 {value!r} / must be {names}, got {value!r}")
            return default
        return value

    def number(self, data: Mapping[str, Any], key: str, where: str, default: Any, lo: float, hi: float,
               kind: type = float) -> Any:
        """A number within ``lo``–``hi``. Why a range for every one: TOML has nan and inf, and a
        negative or zero wait makes a blink or reconnect thread spin instead of waiting."""
        value = self.typed(data, key, kind, where, default)
        if key in data and value is not None and not lo <= value <= hi:  # nan fails too
            self.error(f"{where}.{key} = {value}: 应在 {lo:g}–{hi:g} / must be {lo:g}–{hi:g}")
            return default
        return value
