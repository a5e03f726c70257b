"""The results import on the organiser page (导入成绩): RESULTS lines or a spreadsheet, checked
line by line against the hub before anything is logged.

Pure: it reads the hub's state (:class:`~.core.HubCore`) and logs nothing; the hub logs what it
returns in one transaction (:meth:`~.hub.HubService.import_results`). The text is either

- RESULTS lines (JSON, docs/hub-protocol.md): its first line starts with ``{`` (or ``[``); or
- a table with a header row (CSV as a spreadsheet saves it, or its cells copied: tabs) naming the
  columns ``round,table,ns,ew,ns_levels,ew_levels`` and, where needed, ``forfeit`` (``ns`` | ``ew``
  | ``both``, or 南北 | 东西 | 双方; the levels then left empty), ``ns_score,ew_score`` (a penalty
  loss); Chinese headings too (轮次, 桌号, 南北, 东西, 南北升级, 东西升级, 弃权, 南北定分, 东西定分).

Each line is what a RESULTS line is (:func:`~.model.parse_result`: the same checks, the same words).
A line identical to the result a table already has (an export imported again, a file imported
twice, lines entered by hand meanwhile) is skipped and counted; one that differs from it is refused
(a change is a correction, 更正); a line for a round not published, a table not drawn, teams not
the draw's, or a table given twice in the text is refused. Every bad line is named at once
(:class:`~.bulk_text.LinesRefused`) and nothing is taken: whole or nothing, as before.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from table_service.event.bulk_text import LinesRefused, read_table
from table_service.event.model import EventInputError, Result, parse_result, parse_result_line

#: A results table's header names (casefolded, no spaces) -> the RESULTS field.
RESULT_COLUMNS: dict[str, str] = {
    **{k: "round" for k in ("round", "rnd", "轮", "轮次", "第几轮")},
    **{k: "table" for k in ("table", "桌", "桌号")},
    **{k: "ns" for k in ("ns", "南北", "南北队", "南北队号")},
    **{k: "ew" for k in ("ew", "东西", "东西队", "东西队号")},
    **{k: "ns_levels" for k in ("ns_levels", "nslevels", "南北升级", "南北升级数", "南北级数")},
    **{k: "ew_levels" for k in ("ew_levels", "ewlevels", "东西升级", "东西升级数", "东西级数")},
    **{k: "forfeit" for k in ("forfeit", "弃权", "弃权方")},
    **{k: "ns_score" for k in ("ns_score", "nsscore", "南北定分", "南北判负定分", "南北判负比分")},
    **{k: "ew_score" for k in ("ew_score", "ewscore", "东西定分", "东西判负定分", "东西判负比分")},
}
#: What the forfeit column may say (casefolded) -> the RESULTS value.
FORFEIT_WORDS = {"ns": "ns", "ew": "ew", "both": "both", "南北": "ns", "东西": "ew", "双方": "both"}
RESULTS_HEADER = "round,table,ns,ew,ns_levels,ew_levels（或 轮次,桌号,南北,东西,南北升级,东西升级）"
_NUMBERS = ("round", "ns_levels", "ew_levels", "ns_score", "ew_score")


@dataclass(frozen=True)
class ResultsImport:
    """What an import logs (``lines``, checked, in the order given) and what it skipped."""

    lines: list[dict[str, Any]]
    skipped: int
    """Lines identical to the result their table already has."""
    byes: int
    """Bye lines (``{"round", "bye"}``): the draw's, never logged."""


def read_results(text: str) -> tuple[list[tuple[int, Result]], list[tuple[int, str]]]:
    """Every non-blank line of ``text`` (RESULTS lines or a table with a header row), each checked on
    its own: the results with their line numbers, and ``(line, why)`` for each bad one."""
    body = text.removeprefix("\ufeff")
    first = next((ln for ln in body.splitlines() if ln.strip()), "")
    good: list[tuple[int, Result]] = []
    bad: list[tuple[int, str]] = []
    if first.lstrip()[:1] in ("{", "["):  # JSON (an array too: refused as a line that is no object)
        for i, line in enumerate(body.splitlines(), 1):
            if line.strip():
                try:
                    good.append((i, parse_result_line(line)))
                except EventInputError as exc:
                    bad.append((i, str(exc)))
        return good, bad
    table = read_table(body, RESULT_COLUMNS, ("round", "table", "ns", "ew"), RESULTS_HEADER)
    bad += table.problems
    for i, cells in table.rows:
        obj: dict[str, Any] = {}
        for f, v in cells.items():
            if v == "":
                continue
            if f in _NUMBERS and re.fullmatch(r"[0-9]{1,6}", v):
                obj[f] = int(v)
            elif f == "forfeit":
                obj[f] = FORFEIT_WORDS.get(v.casefold(), v)
            else:
                obj[f] = v
        try:
            good.append((i, parse_result(obj)))
        except EventInputError as exc:
            bad.append((i, str(exc)))
    return good, bad


def check_results_import(core: Any, text: str) -> ResultsImport:
    """The lines of ``text`` the hub (``core``, a :class:`~.core.HubCore`) would log now, checked
    as a hand entry is, and the ones it skips as already recorded.

    :raises LinesRefused: naming every bad line (nothing is then logged).
    :raises EventInputError: nothing to import at all."""
    results, problems = read_results(text)
    if not results and not problems:
        raise EventInputError("没有可导入的成绩行 / nothing to import: paste the RESULTS lines")
    lines: list[dict[str, Any]] = []
    skipped = byes = 0
    where: dict[tuple[int, str], int] = {}
    for n, res in results:
        if res.ew is None:  # a bye is the draw's, not a result to record
            byes += 1
            continue
        key = (res.round, res.table)
        if key in where:
            problems.append((n, f"第 {res.round} 轮 {res.table} 号桌已在第 {where[key]} 行 / table {res.table}, round "
                                f"{res.round} is on line {where[key]} already"))
            continue
        where[key] = n
        verdict, reason = core.classify_result(res.to_dict(), "import-check", agreeing_is_duplicate=True)
        if verdict == "duplicate":
            skipped += 1
        elif verdict == "accept":
            lines.append(res.to_dict())
        else:
            problems.append((n, reason or ""))
    if problems:
        raise LinesRefused(("导入", "imported"), problems)
    return ResultsImport(lines=lines, skipped=skipped, byes=byes)
