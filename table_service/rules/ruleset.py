"""Rule presets: one dataclass of options, because events run under different rule texts.

The default is ``jiangsu-2013`` (the rules file the project enforces). An organiser picks a
preset and overrides single options, e.g. ``get_ruleset("national-2022", tries_at_a=3)``;
an unknown option is an error that names it, so a typo in an event's configuration never
silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
import difflib
from dataclasses import dataclass
from typing import Any

TIEBREAK_KEYS: tuple[str, ...] = (
    "match_points",
    "progressive_points",
    "rounds_won",
    "level_difference_points",
    "levels_gained",
    "head_to_head",
    "net_level_difference",
)

#: The ranking order unless an event's ruleset says otherwise (the one default: the hub's
#: ``ScoringOptions`` starts from it too).
DEFAULT_TIEBREAK: tuple[str, ...] = (
    "match_points", "progressive_points", "rounds_won", "level_difference_points", "levels_gained",
)

#: Values of ``Ruleset.report_missing_penalty``.
REPORT_MISSING_PENALTIES: tuple[str, ...] = ("warning", "warning_then_violation", "referee")
#: Options that take one of a few words.
CHOICES: dict[str, tuple[str, ...]] = {
    "return_smallest_by": ("power", "face"),
    "equal_tributes": ("payer_clockwise", "first_clockwise"),
    "unstated_reading": ("strongest", "ask"),
}


#: Ranks an option may name (``return_max_rank``, ``start_level``).
_RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
#: Largest whole-number option (a clock of a day is a typo, not a rule).
_MAX_INT_OPTION = 86_400


@dataclass(frozen=True)
class Ruleset:
    """Every option on which the rule texts differ. Times are seconds."""

    name: str = "jiangsu-2013"
    """Preset this ruleset started from."""

    # --- tribute and return (进贡 / 还贡)
    return_max_rank: str = "T"
    """Highest rank a returned card may have (10)."""
    return_level_card_by_face: bool = True
    """A level card of rank ≤ 10 may be returned (its rank counts by face value)."""
    return_smallest_if_none: bool = True
    """A player holding nothing ≤ 10 returns the smallest card."""
    return_smallest_by: str = "power"
    """How "the smallest card" (``return_smallest_if_none``) ranks a level card: ``power`` (as in
    play: above A, so a level card is never the smallest of cards above 10 unless only level
    cards and jokers are left) or ``face`` (at its face value: a level J is below a Q)."""
    return_any_to_opponent: bool = False
    """The ≤ 10 limit only when returning to one's partner: an event option for a text that says so.
    No preset sets it: the rules enforced here (docs/rules.md) list the Huai'an text's differences,
    and the return is not one of them (until 2026-12-05 the Huai'an preset set it; a round set up
    then keeps it, its options being stored in the log)."""
    double_down_leader: str = "payer_to_first"
    """Who leads after a double-down tribute: ``payer_to_first`` (the one who paid 上游) or
    ``first_next`` (上游's 下家, Huai'an 2017)."""
    anti_tribute: bool = True
    """Both big jokers on the paying side cancel the tribute (抗贡); 上游 then leads."""
    anti_tribute_waivable: bool = False
    """May the paying side pay tribute although it holds both big jokers? The text says "no
    tribute is paid" (not waivable): a tribute paid by a side later seen to have held both big
    jokers is flagged (``anti_tribute_missed``). ``True``: anti-tribute is the side's choice."""
    equal_tributes: str = "payer_clockwise"
    """After a double-down, "equal tributes go clockwise": ``payer_clockwise`` (each payer gives
    to the receiver on its clockwise side, the seat that plays just before it) or
    ``first_clockwise`` (上游 takes the tribute of the payer on 上游's clockwise side — the seat
    that plays just before 上游 — and 上游's partner the other)."""

    # --- reading a play
    unstated_reading: str = "strongest"
    """A wild-card play with several readings left after the row order, none stated: assume the
    strongest that beats the trick (``strongest``), or ask the referee (``ask``: a question the
    referee answers with ``reading_declared``)."""

    # --- clocks
    clock_tribute_s: int = 20
    """Tribute within 20 s after the drawing ends."""
    clock_return_s: int = 40
    """Return within 40 s after the tribute."""
    clock_first_lead_s: int = 40
    """The first lead of a deal: 40 s after the return (首圈领出者应在还牌后40秒内领出牌), or
    after the drawing in a deal without tribute."""
    clock_lead_s: int = 20
    """Leading any later trick: 20 s after the previous play, like any other play
    (下家应在上家出牌后20秒内出牌; only the first lead of a deal has 40 s). Kept apart from
    ``clock_follow_s`` so that an event may give leads more time."""
    clock_follow_s: int = 20
    """Every other play or pass: 20 s after the previous play."""
    overtime_warning_s: int = 10
    """Overtime after which a warning is applied automatically (when ``auto_time_warning``)."""
    auto_time_warning: bool = True
    overtime_violation_s: int | None = None
    """Further overtime after the warning that makes a violation (Huai'an: 10 s); ``None``: never."""

    # --- report card (报牌)
    report_threshold: int = 10
    """A play that leaves this many cards or fewer must be followed by the report card."""
    report_missing_penalty: str = "warning"
    """What a forgotten report card earns when the referee confirms its flag: ``warning`` (each
    time a warning on the side's ladder), ``warning_then_violation`` (Huai'an 2017: a warning, the
    second time in the round for that side a violation and one turn lost) or ``referee`` (nothing
    automatic: the referee gives what the table rules say with ``penalty_given``)."""

    # --- levels and the A rule
    tries_at_a: int | None = None
    """``None``: unlimited tries at A; ``3``: back to 2 after three failed deals at A."""
    start_level: str = "2"

    # --- scoring
    match_points_win: int = 2
    match_points_draw: int = 1
    match_points_loss: int = 0
    match_points_forfeit: int = 0
    match_points_bye: int = 2
    tiebreak: tuple[str, ...] = DEFAULT_TIEBREAK

    # --- penalties
    warnings_per_violation: int = 2
    violations_per_foul: int = 2
    fouls_per_loss: int = 2
    late_warning_min: int = 5
    late_foul_min: int = 10

    def __post_init__(self) -> None:
        self._check_types()
        if self.double_down_leader not in ("payer_to_first", "first_next"):
            raise ValueError(
                f"规则选项错误：double_down_leader={self.double_down_leader!r}（应为 payer_to_first 或 first_next） / "
                f"bad option double_down_leader={self.double_down_leader!r} "
                "(expected payer_to_first or first_next)"
            )
        for key, allowed in CHOICES.items():
            if getattr(self, key) not in allowed:
                raise ValueError(
                    f"规则选项错误：{key}={getattr(self, key)!r}（应为 {' 或 '.join(allowed)}） / "
                    f"bad option {key}={getattr(self, key)!r} (expected {' or '.join(allowed)})"
                )
        if self.report_missing_penalty not in REPORT_MISSING_PENALTIES:
            raise ValueError(
                f"规则选项错误：report_missing_penalty={self.report_missing_penalty!r}"
                f"（应为 {', '.join(REPORT_MISSING_PENALTIES)}） / "
                f"bad option report_missing_penalty={self.report_missing_penalty!r} "
                f"(expected {', '.join(REPORT_MISSING_PENALTIES)})"
            )
        for key in self.tiebreak:
            if key not in TIEBREAK_KEYS:
                raise ValueError(f"规则选项错误：未知的同分比较项 {key!r}（已知：{', '.join(TIEBREAK_KEYS)}） / "
                                 f"unknown tie-break key {key!r} (known: {', '.join(TIEBREAK_KEYS)})")
        if self.tries_at_a is not None and self.tries_at_a < 1:
            raise ValueError(f"规则选项错误：tries_at_a 须 ≥ 1 或为 None，收到 {self.tries_at_a!r} / "
                             f"tries_at_a must be ≥ 1 or None, got {self.tries_at_a!r}")

    def _check_types(self) -> None:
        """Every option has the type its annotation says, within a range a table can honour.

        Rulesets come from EVENT.toml, table.toml and round set-up events: a clock of ``"x"`` or
        ``-5`` seconds, or a flag of ``"no"`` (a true string), would otherwise reach the engine and
        fail there, mid-deal, or silently mean the opposite of what the organiser typed.
        """
        for f in dataclasses.fields(self):
            value = getattr(self, f.name)
            kind = str(f.type)
            if kind == "bool":
                ok = isinstance(value, bool)
                zh_want, want = "true 或 false", "true or false"
            elif kind in ("int", "int | None"):
                ok = (value is None and kind != "int") or (
                    isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= _MAX_INT_OPTION)
                zh_want = f"0–{_MAX_INT_OPTION} 的整数" + ("或 none" if kind != "int" else "")
                want = f"a whole number 0-{_MAX_INT_OPTION}" + (" or none" if kind != "int" else "")
            elif kind == "str":
                ok = isinstance(value, str)
                zh_want, want = "文本", "text"
            else:  # tiebreak: a sequence of names, checked below
                ok = isinstance(value, tuple) and all(isinstance(k, str) for k in value)
                zh_want, want = "同分比较项名称的列表", "a list of tie-break names"
            if not ok:
                raise ValueError(f"规则选项类型错误：{f.name}={value!r}（应为 {zh_want}） / "
                                 f"bad option {f.name}={value!r} (expected {want})")
        for key in ("return_max_rank", "start_level"):
            if getattr(self, key) not in _RANKS:
                raise ValueError(f"规则选项错误：{key}={getattr(self, key)!r}（应为 {' '.join(_RANKS)} 之一） / "
                                 f"bad option {key}={getattr(self, key)!r} (expected one of {' '.join(_RANKS)})")
        for key in ("clock_tribute_s", "clock_return_s", "clock_first_lead_s", "clock_lead_s", "clock_follow_s",
                    "warnings_per_violation", "violations_per_foul", "fouls_per_loss"):
            if getattr(self, key) < 1:
                raise ValueError(f"规则选项错误：{key}={getattr(self, key)!r}（至少为 1） / "
                                 f"bad option {key}={getattr(self, key)!r} (must be at least 1)")

    def replace(self, **changes: Any) -> Ruleset:
        """A copy with ``changes`` applied; unknown option names are an error naming them."""
        known = {f.name for f in dataclasses.fields(self)}
        for key in changes:
            if key not in known:
                close = difflib.get_close_matches(key, known, n=1)
                zh_hint, hint = (f"（是不是 {close[0]!r}？）", f" (did you mean {close[0]!r}?)") if close else ("", "")
                raise ValueError(f"未知规则选项 {key!r}{zh_hint} / unknown ruleset option {key!r}{hint}")
        if isinstance(changes.get("tiebreak"), list):
            changes["tiebreak"] = tuple(changes["tiebreak"])
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form, as stored in the round set-up event."""
        d = dataclasses.asdict(self)
        d["tiebreak"] = list(self.tiebreak)
        return d

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Ruleset:
        """Inverse of :meth:`to_dict`; starts from the named preset so old logs stay readable."""
        data = dict(data)
        base = get_ruleset(data.pop("name", "jiangsu-2013"))
        return base.replace(**data)


PRESETS: dict[str, Ruleset] = {
    "jiangsu-2013": Ruleset(),
    "huaian-2017": Ruleset(
        name="huaian-2017",
        double_down_leader="first_next",
        clock_tribute_s=15,
        clock_return_s=30,
        clock_follow_s=20,
        overtime_warning_s=0,
        overtime_violation_s=10,
        report_missing_penalty="warning_then_violation",
    ),
    "national-2022": Ruleset(
        name="national-2022",
        return_smallest_if_none=True,
        double_down_leader="payer_to_first",
    ),
}
DEFAULT_RULESET = "jiangsu-2013"


def get_ruleset(name: str = DEFAULT_RULESET, /, **overrides: Any) -> Ruleset:
    """A preset by name with optional overrides.

    :raises ValueError: naming an unknown preset or option.
    """
    if "name" in overrides:  # the preset's own name, not an option (was a TypeError's words)
        raise ValueError('name 不是规则选项，预设另行指定 / "name" is not an option: the preset is named separately')
    try:
        base = PRESETS[name]
    except KeyError:
        raise ValueError(f"未知规则预设 {name!r}（已知：{', '.join(PRESETS)}） / "
                         f"unknown ruleset preset {name!r} (known: {', '.join(PRESETS)})") from None
    return base.replace(**overrides) if overrides else base
