"""Round results and teams: the one format the CLI, the hub's import/export and the tables share.

A RESULTS file is JSON Lines. Each line is one table's round result::

    {"round": 1, "table": "3", "ns": "T1", "ew": "T7", "ns_levels": 9, "ew_levels": 4}

with optional ``"forfeit": "ns"|"ew"|"both"`` (the side that forfeits: 17:0; both sides absent:
0:0, a forfeit for each) and optional
``"ns_score"``/``"ew_score"`` when a penalty loss (判负) fixed the level-difference score. A bye
is a line ``{"round": 2, "bye": "T5"}``. Every field is checked here, so a bad line is refused
with its line number before anything is ranked or paired.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hardware.errors import not_regular_file
from table_service.engine.events import MAX_TEXT as ENGINE_MAX_TEXT
from table_service.rules.levels import level_position
from table_service.rules.scoring import (
    FORFEIT_SCORE,
    PENALTY_LOSS_GAP,
    level_difference_points,
    penalty_loss_positions,
)
from table_service.views.wire import loads_strict

#: Who forfeits a table (``forfeit``): one side (17 : 0 to the other), or ``both`` when both are
#: absent past the late-arrival limit (0 : 0, each side's a forfeit; the event went on, not stalled
#: waiting for a result nobody could enter).
FORFEIT_SIDES = ("ns", "ew", "both")

#: Level 2's place on the 13-level scale: a line's levels gained count from it.
LEVEL_2 = level_position("2")

#: The hub's form limits (its pages, its OpenAPI description and EVENT.toml read these):
#: the longest free text a form field takes (appeal text, correction reason, decision note): the
#: longest text a table's event takes (a reason typed at the hub is held as one typed at the panel),
#: from the engine, so that the two cannot drift apart,
MAX_TEXT = ENGINE_MAX_TEXT
#: the longest event name,
MAX_NAME = 120
#: the longest id or short name (team id and name, table id, player, ruleset preset).
MAX_ID = 64

MAX_LEVELS = 13
MAX_SCORE = 26


class EventInputError(ValueError):
    """Bad event input (a results line, a teams file, EVENT.toml); the message is one line,
    Chinese first, and names where the problem is."""


class RoleRefused(EventInputError):
    """An organiser action the user's role may not take: the pages answer 403, as the panel does."""


@dataclass(frozen=True)
class Result:
    """One table's result of one round (or a bye when ``ew`` is ``None``)."""

    round: int
    table: str
    ns: str
    ew: str | None
    ns_levels: int = 0
    ew_levels: int = 0
    forfeit: str | None = None
    ns_score: int | None = None
    ew_score: int | None = None

    @property
    def is_bye(self) -> bool:
        return self.ew is None

    def to_dict(self) -> dict[str, Any]:
        """The RESULTS line (inverse of :func:`parse_result`)."""
        if self.ew is None:
            return {"round": self.round, "bye": self.ns}
        d: dict[str, Any] = {"round": self.round, "table": self.table, "ns": self.ns, "ew": self.ew,
                             "ns_levels": self.ns_levels, "ew_levels": self.ew_levels}
        if self.forfeit is not None:
            d["forfeit"] = self.forfeit
        if self.ns_score is not None:
            d["ns_score"], d["ew_score"] = self.ns_score, self.ew_score
        return d

    def forfeited_by(self) -> tuple[str, ...]:
        """The teams that forfeited this table (弃权: absent past the late-arrival limit): the side
        ``forfeit`` names, both for ``"both"``, none for a bye or a played table. The one reading of
        ``forfeit`` the standings (a duplicate match lost) and the draw (no bye after a no-show) share."""
        if self.ew is None or self.forfeit is None:
            return ()
        return tuple(t for t, side in ((self.ns, "ns"), (self.ew, "ew")) if self.forfeit in (side, "both"))

    def outcome(self) -> tuple[str, str]:
        """``(ns, ew)`` outcomes: ``win``/``draw``/``loss``/``forfeit`` (the forfeiting side)."""
        if self.forfeit == "both":
            return ("forfeit", "forfeit")
        if self.forfeit == "ns":
            return ("forfeit", "win")
        if self.forfeit == "ew":
            return ("win", "forfeit")
        if self.ns_score is not None and self.ew_score is not None:
            a, b = self.ns_score, self.ew_score
        else:
            a, b = self.ns_levels, self.ew_levels
        if a > b:
            return ("win", "loss")
        if a < b:
            return ("loss", "win")
        return ("draw", "draw")

    def level_points(self) -> tuple[int, int]:
        """级差分 ``(ns, ew)``: 13 + d : 13 − d by the levels gained, 17 : 0 on a forfeit, or the
        score a penalty loss fixed."""
        won, lost = FORFEIT_SCORE  # the rules' (winner, forfeiting side), e.g. 17 : 0
        if self.forfeit == "both":  # both sides absent: each the forfeiting side's score, nobody's win
            return (lost, lost)
        if self.forfeit == "ns":
            return (lost, won)
        if self.forfeit == "ew":
            return (won, lost)
        if self.ns_score is not None and self.ew_score is not None:
            return (self.ns_score, self.ew_score)
        d = min(MAX_LEVELS, abs(self.ns_levels - self.ew_levels))
        if self.ns_levels >= self.ew_levels:
            return (13 + d, 13 - d)
        return (13 - d, 13 + d)


def _err(where: str, zh: str, en: str) -> EventInputError:
    return EventInputError(f"{where}{zh} / {en}")


def _show(value: Any) -> str:
    """``repr`` of a bad value, cut to 40 characters: the error stays one short line."""
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _team(value: Any, field: str, where: str) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_ID or not value.isprintable():
        raise _err(where, f"队名无效 {field}={_show(value)}（须为 1–64 个可打印字符）",
                   f"invalid team id in {field!r} (1-64 printable characters), got {_show(value)}")
    return value.strip()


def _int(value: Any, field: str, where: str, lo: int, hi: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise _err(where, f"{field} 须为 {lo}–{hi} 的整数，得到 {_show(value)}",
                   f"{field} must be an integer {lo}-{hi}, got {_show(value)}")
    return value


KNOWN_KEYS = frozenset({"round", "table", "ns", "ew", "ns_levels", "ew_levels", "forfeit", "ns_score", "ew_score"})


def parse_result(obj: Any, where: str = "", *, stored: bool = False) -> Result:
    """Check one RESULTS object and return it as a :class:`Result`.

    ``stored``: a line the hub's log already holds (read again to rank, print, compare): a penalty
    loss's score is taken as logged — a hub before 2026-12-06 took any 13+d : 13−d with d ≥ 4, and
    its log must still rank and print — while every line offered now is held to the rules' score.

    :raises EventInputError: naming the field (and ``where``, e.g. ``"line 4: "``)."""
    if not isinstance(obj, dict):
        raise _err(where, "每行须为 JSON 对象", "each line must be a JSON object")
    rnd = _int(obj.get("round"), "round", where, 1, 999)
    if "bye" in obj:
        extra = set(obj) - {"round", "bye", "table"}
        if extra:
            raise _err(where, f"轮空行不应有 {sorted(extra)}", f"a bye line takes only round and bye, not {sorted(extra)}")
        return Result(round=rnd, table="bye", ns=_team(obj["bye"], "bye", where), ew=None)
    unknown = set(obj) - KNOWN_KEYS
    if unknown:
        raise _err(where, f"未知字段 {sorted(unknown)}", f"unknown field(s) {sorted(unknown)}")
    for key in ("table", "ns", "ew"):
        if key not in obj:
            raise _err(where, f"缺少字段 {key}", f"missing field {key!r}")
    table = obj["table"]
    if isinstance(table, int) and not isinstance(table, bool):
        table = str(table)
    if not isinstance(table, str) or not table.strip() or len(table) > MAX_ID or not table.isprintable():
        raise _err(where, f"桌号无效 {_show(table)}", f"invalid table {_show(table)} (1-64 printable characters)")
    ns, ew = _team(obj["ns"], "ns", where), _team(obj["ew"], "ew", where)
    if ns == ew:
        raise _err(where, f"同一队不能自己对阵 {ns!r}", f"a team cannot play itself ({ns!r})")
    forfeit = obj.get("forfeit")
    if forfeit is not None and forfeit not in FORFEIT_SIDES:
        raise _err(where, f"forfeit 须为 ns、ew 或 both，得到 {_show(forfeit)}",
                   f"forfeit must be 'ns', 'ew' or 'both', got {_show(forfeit)}")
    need_levels = forfeit is None
    levels = []
    for key in ("ns_levels", "ew_levels"):
        if key not in obj:
            if need_levels:
                raise _err(where, f"缺少字段 {key}", f"missing field {key!r}")
            levels.append(0)
        else:
            levels.append(_int(obj[key], key, where, 0, MAX_LEVELS))
    has_ns, has_ew = "ns_score" in obj, "ew_score" in obj
    if has_ns != has_ew:
        raise _err(where, "ns_score 与 ew_score 须同时给出", "ns_score and ew_score go together")
    ns_score = ew_score = None
    if has_ns:
        if forfeit is not None:
            score = ":".join(map(str, FORFEIT_SCORE))
            raise _err(where, f"弃权已定 {score}，不能再给分", f"a forfeit is {score}; do not give ns_score/ew_score too")
        ns_score = _int(obj["ns_score"], "ns_score", where, 0, MAX_SCORE)
        ew_score = _int(obj["ew_score"], "ew_score", where, 0, MAX_SCORE)
        # A penalty loss (判负) is scored 13 + d : 13 − d with a gap of at least 4 levels (the
        # offender's level + 4, or the larger gap on the table): one side wins, the two make 26.
        if ns_score + ew_score != MAX_SCORE or abs(ns_score - ew_score) < 2 * PENALTY_LOSS_GAP:
            raise _err(where, f"判负比分无效 {ns_score}:{ew_score}（须为 13+d : 13−d，d ≥ {PENALTY_LOSS_GAP}）",
                       f"a penalty loss scores 13+d : 13-d with d >= {PENALTY_LOSS_GAP}, not {ns_score}:{ew_score}")
    # And d is the one the rules give for the levels on the line (what the table's engine scores:
    # the winner's levels gained against the offender's, at least 4, a larger lead kept): 17:9 for a
    # side 7 levels ahead was ranked as given, against the 20:6 the rules give.
    if ns_score is not None and ew_score is not None and not stored:
        ns_won = ns_score > ew_score
        won, lost = (levels[0], levels[1]) if ns_won else (levels[1], levels[0])
        pts = level_difference_points(*penalty_loss_positions(LEVEL_2 + won, LEVEL_2 + lost))
        want = pts if ns_won else pts[::-1]
        if (ns_score, ew_score) != want:
            raise _err(where, f"判负比分 {ns_score}:{ew_score} 与级数 {levels[0]}:{levels[1]} 不符，应为 {want[0]}:{want[1]}",
                       f"a penalty loss with levels gained {levels[0]}:{levels[1]} scores {want[0]}:{want[1]} "
                       f"(the offender's level + {PENALTY_LOSS_GAP}, or the larger lead on the table), "
                       f"not {ns_score}:{ew_score}")
    return Result(round=rnd, table=table.strip(), ns=ns, ew=ew, ns_levels=levels[0], ew_levels=levels[1],
                  forfeit=forfeit, ns_score=ns_score, ew_score=ew_score)


def check_results(results: Iterable[Result], *, duplicate: bool = False) -> list[Result]:
    """Check the results together: a team plays at most once per round (in duplicate play: at
    the two tables of one team match, sides swapped), a table at most once per round. Returns
    them sorted by round then table.

    :raises EventInputError: naming the round and the team or table."""
    seen_team: dict[tuple[int, str], Result] = {}
    seen_table: set[tuple[int, str]] = set()
    twice: set[tuple[int, str]] = set()
    out = sorted(results, key=lambda r: (r.round, r.ew is None, table_order(r.table)))
    for r in out:
        for team in (r.ns, r.ew):
            if team is None:
                continue
            prev = seen_team.get((r.round, team))
            if prev is not None and not (duplicate and _other_room(prev, r) and (r.round, team) not in twice):
                # Both tables named: in 500 pasted lines, "appears twice" alone left the organiser searching.
                raise EventInputError(f"第 {r.round} 轮 {team!r} 出现两次（{prev.table} 号桌与 {r.table} 号桌） / team "
                                      f"{team!r} appears twice in round {r.round} (tables {prev.table} and {r.table})"
                                      + (" (复式须为同一对手、换方向 / duplicate: same opponent, sides swapped)"
                                         if duplicate else ""))
            if prev is not None:
                twice.add((r.round, team))
            seen_team[(r.round, team)] = r
        if r.ew is not None:
            if (r.round, r.table) in seen_table:
                raise EventInputError(f"第 {r.round} 轮 {r.table} 号桌出现两次 / table {r.table!r} appears twice "
                                      f"in round {r.round}")
            seen_table.add((r.round, r.table))
    return out


def _other_room(a: Result, b: Result) -> bool:
    """``b`` is the other room of ``a``'s duplicate match: same teams, sides swapped."""
    return a is not b and a.ew is not None and (b.ns, b.ew) == (a.ew, a.ns)


def table_order(table: str) -> tuple[int, int, str]:
    """Table ids in the order people count them (2 before 10), then the others by name: the one order
    of results, the overview and the board.  ASCII digits only: "²".isdigit() is true, and int("²") raises."""
    return (0, int(table), table) if table.isascii() and table.isdigit() else (1, 0, table)


def parse_results_text(text: str, name: str = "RESULTS", *, duplicate: bool = False) -> list[Result]:
    """Every non-blank line of a RESULTS file, checked (see the module doc)."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        if line.strip():
            out.append(parse_result_line(line, f"{name} 第 {i} 行 line {i}: "))
    return check_results(out, duplicate=duplicate)


def parse_result_line(line: str, where: str = "") -> Result:
    """One RESULTS line (JSON) checked (:func:`parse_result`); ``where`` begins the refusal."""
    try:
        obj = loads_strict(line)
    except json.JSONDecodeError as exc:
        raise EventInputError(f"{where}不是 JSON（{exc.msg}） / not JSON ({exc.msg})") from None
    except ValueError as exc:  # a 5,000-digit number, 100,000 "[", a key twice, NaN: said in both halves
        zh, _sep, en = str(exc).partition(" / ")
        raise EventInputError(f"{where}不是可用的 JSON：{zh[:60]} / unusable JSON: {en[:100]}") from None
    return parse_result(obj, where)


def read_text(path: str | Path, what: str) -> str:
    """A UTF-8 file, or one clear error line."""
    if not Path(path).is_dir() and (problem := not_regular_file(path)) is not None:  # a folder: said below
        raise EventInputError(problem)
    try:
        return Path(path).read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise EventInputError(f"找不到 {what} 文件：{path} / {what} file not found: {path}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise EventInputError(f"无法读取 {what} 文件 {path}：{exc} / cannot read {what} file {path}: {exc}") from None


def load_results(path: str | Path, *, duplicate: bool = False) -> list[Result]:
    """A RESULTS.jsonl file (``-`` is not special: pass a real path)."""
    return parse_results_text(read_text(path, "RESULTS"), str(path), duplicate=duplicate)


def parse_teams_text(text: str, name: str = "TEAMS") -> list[str]:
    """One team id per line; blank lines and ``#`` comments skipped; duplicates refused."""
    teams: list[str] = []
    seen: set[str] = set()
    for i, line in enumerate(text.splitlines(), 1):
        s = line.split("#", 1)[0].strip()
        if not s:
            continue
        team = _team(s, "team", f"{name} 第 {i} 行 line {i}: ")
        if team in seen:
            raise EventInputError(f"{name} 第 {i} 行 line {i}: 队名重复 {team!r} / duplicate team {team!r}")
        seen.add(team)
        teams.append(team)
    if len(teams) < 2:
        raise EventInputError(f"{name}: 至少需要两队，收到 {len(teams)} 队 / at least two teams are needed (got {len(teams)})")
    return teams


def load_teams(path: str | Path) -> list[str]:
    return parse_teams_text(read_text(path, "TEAMS"), str(path))


def results_to_jsonl(results: Iterable[Result]) -> str:
    """RESULTS lines, as the hub exports them."""
    return "".join(json.dumps(r.to_dict(), ensure_ascii=False) + "\n" for r in results)


def reused_id_reason(result_id: str) -> str:
    """Why a result is refused whose id is already recorded with a different result (Chinese first)."""
    return (f"成绩编号 {result_id} 已记录为另一成绩：未采用，请核对桌面记录，改动须走纠正 / result id {result_id} is "
            "already recorded with a different result: not taken; check the table's log, a change is a correction")
