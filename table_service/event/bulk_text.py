"""Lines pasted or uploaded on the organiser page (the results import, the teams import): a
spreadsheet's rows as it copies them, and one refusal naming every bad line.

Pure: no Flask, no I/O. A spreadsheet copies a selection as tab-separated text and saves a file
as comma-separated: the header row says which (a tab in it, else a comma, else a Chinese "，").
Each line is read on its own (``csv`` with its quoting: a cell in ``"…"`` may hold the separator),
so a line number is the line the organiser sees in the box or the file, blank lines counted. The
header's cells are matched to fields by name, English or Chinese, either half of a "中文 / English"
heading (the hub's own sheets are headed so).

Every bad line is found before anything is logged and refused together
(:class:`LinesRefused`: the line numbers and why, Chinese first): 40 bad lines of 400 are fixed
in one go, not found one refusal at a time.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from table_service.engine.errors import halves
from table_service.event.model import EventInputError

#: Separators a header row may use, in the order they are tried.
SEPARATORS = ("\t", ",", "，")


class LinesRefused(EventInputError):
    """Some lines of a paste or file are bad: nothing of it is taken. ``problems``: ``(line, why)``
    for every bad line, in line order (line 0: the text as a whole); the message is one line,
    Chinese first, naming each."""

    def __init__(self, what: tuple[str, str], problems: list[tuple[int, str]]) -> None:
        self.problems = sorted(problems, key=lambda p: p[0])
        n = len({line for line, _ in self.problems})
        self.head = (f"未{what[0]}：{n} 行有误，全部未{what[0]}（改正后再{what[0]}） / nothing {what[1]}: {n} bad "
                     f"line(s), none taken (fix them, then try again)")
        # Each half whole (the pages show one language, split at the first " / "): every line's Chinese
        # in the Chinese half, its English in the English one.
        zh_head, en_head = halves(self.head)
        named = [line_halves(line, why) for line, why in self.problems]
        super().__init__(f"{zh_head}：" + "；".join(zh for zh, _ in named) + f" / {en_head}: "
                         + "; ".join(en for _, en in named))


def line_halves(line: int, why: str) -> tuple[str, str]:
    """A problem as the refusal names it, in two halves: ("第 3 行：…", "line 3: …") (line 0: the text
    as a whole)."""
    zh, en = halves(why)
    return (zh, en) if line == 0 else (f"第 {line} 行：{zh}", f"line {line}: {en}")


def line_words(line: int, why: str) -> str:
    """A problem as the organiser page lists it: "第 3 行：… / line 3: …"."""
    zh, en = line_halves(line, why)
    return f"{zh} / {en}"


def header_key(cell: str) -> list[str]:
    """The names a header cell may be matched by: the whole cell and each half of "中文 / English",
    case, spaces and a trailing "（…）" note aside."""
    parts = [cell, *cell.split("/")]
    out = []
    for p in parts:
        p = re.sub(r"[（(].*?[)）]\s*$", "", p)
        out.append("".join(p.split()).casefold())
    return [p for p in out if p]


@dataclass
class Table:
    """A pasted or uploaded table: its header row's line and fields, and each row's line and cells
    by field (a column the header did not name is not in ``rows``)."""

    header_line: int
    fields: list[str]
    rows: list[tuple[int, dict[str, str]]] = field(default_factory=list)
    problems: list[tuple[int, str]] = field(default_factory=list)


def read_table(text: str, aliases: Mapping[str, str], need: tuple[str, ...], example: str) -> Table:
    """``text`` as a table with a header row: each header cell one of ``aliases`` (a name → its
    field), every field of ``need`` present. Blank lines are skipped; a row with more cells than the
    header is a problem of its line; fewer are empty. Problems of the header refuse the whole text
    at once (a header that is not one says what a header looks like: ``example``)."""
    lines = text.removeprefix("\ufeff").splitlines()
    first = next((i for i, ln in enumerate(lines) if ln.strip()), None)
    if first is None:
        return Table(0, [])
    head = lines[first]
    sep = next((s for s in SEPARATORS if s in head), ",")
    cells = _cells(head, sep)
    fields: list[str] = []
    problems: list[tuple[int, str]] = []
    for c in cells:
        f = next((aliases[k] for k in header_key(c) if k in aliases), None)
        if f is None:
            problems.append((first + 1, f"表头 {c[:40]!r} 不是可用的列名（表头如：{example}） / the header {c[:40]!r} names no column "
                                        f"this import takes (a header row: {example})"))
        elif f in fields:
            problems.append((first + 1, f"表头有两列 {c[:40]!r} / the header names {c[:40]!r} twice"))
        fields.append(f or "")
    missing = [n for n in need if n not in fields]
    if not any(fields):  # no heading at all: a table pasted without its header row (or no table)
        problems = []
    if missing and not problems:
        problems.append((first + 1, f"第一行须为表头，缺 {', '.join(missing)} 列：{example} / the first line must be a header row "
                                    f"and it has no {', '.join(missing)} column: {example}"))
    table = Table(first + 1, fields, problems=problems)
    if problems:
        return table
    for i in range(first + 1, len(lines)):
        row = _cells(lines[i], sep)
        if not any(row):
            continue
        extra = row[len(fields):]
        if any(extra):
            table.problems.append((i + 1, f"有 {len(row)} 格，表头只有 {len(fields)} 格 / {len(row)} cells, the header has "
                                          f"{len(fields)}"))
            continue
        table.rows.append((i + 1, {f: (row[k] if k < len(row) else "") for k, f in enumerate(fields)}))
    return table


def _cells(line: str, sep: str) -> list[str]:
    try:
        row = next(csv.reader([line], delimiter=sep, skipinitialspace=True), [])
    except csv.Error:  # a quote left open: the cells as the separator splits them
        row = line.split(sep)
    return [c.strip() for c in row]
