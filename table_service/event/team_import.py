"""The teams import on the organiser page (导入队伍): the entry list from a spreadsheet, before
round 1's draw is published.

Pure: it reads the hub's state and logs nothing; the hub logs what it returns, one ``team_added``
a team, all in one transaction (:meth:`~.hub.HubService.import_teams`). The text is a table with a
header row (CSV as a spreadsheet saves it, or its cells copied: tabs) naming

- the id: ``id`` | ``team`` | 队号 | 编号 (1-64 ASCII letters, digits, ``_ . -``: it names the team in
  the tables' messages; a Chinese name goes in the name),
- the name: ``name`` | 队名 | 队伍名称,
- the players: ``player1`` … ``player4`` | 选手1 … 选手4 | 队员1 … 队员4, or one ``players`` | 选手 |
  队员 column of names separated by ``,`` ``，`` ``、`` ``;`` or ``/``.

Each row is checked as EVENT.toml's ``[[teams]]`` and a late entry are (:func:`~.config.team_entry`:
one source for the rules) against the teams already there and the rows above it — a duplicate id or
name, an empty name, not 2 or 4 players (4 in a duplicate event), a control character — and the lot
against ``[[tables]]`` when it lists the tables. Every bad row is named at once
(:class:`~.bulk_text.LinesRefused`); nothing is taken unless every row is good.
"""

from __future__ import annotations

import copy
import re
from typing import Any

from table_service.event.bulk_text import LinesRefused, read_table
from table_service.event.config import tables_short, team_entry
from table_service.event.core import need_role
from table_service.event.model import EventInputError

#: A teams table's header names (casefolded, no spaces) -> the field.
TEAM_COLUMNS: dict[str, str] = {
    **{k: "id" for k in ("id", "team", "teamid", "队号", "编号", "队伍编号")},
    **{k: "name" for k in ("name", "teamname", "队名", "队伍名称", "队伍", "名称")},
    **{k: "players" for k in ("players", "选手", "队员", "选手名单")},
    **{f"{w}{i}": f"p{i}" for i in range(1, 5) for w in ("player", "p", "选手", "队员")},
}
TEAMS_HEADER = "队号,队名,选手1,选手2,选手3,选手4（或 id,name,player1,player2…）"
_NAMES_SPLIT = re.compile(r"[,，、;；/]")


def read_teams(text: str, cfg: dict[str, Any], withdrawn: Any = ()) -> tuple[list[dict[str, Any]],
                                                                             list[tuple[int, str]]]:
    """The teams of ``text`` checked against ``cfg`` (the configuration in force) and each other:
    ``({"line", "team", "name", "players"}, …)`` for the good rows and ``(line, why)`` for each bad
    one (line 0: the lot, e.g. too few ``[[tables]]``)."""
    table = read_table(text, TEAM_COLUMNS, ("id", "name"), TEAMS_HEADER)
    problems = list(table.problems)
    if not problems and not any(f == "players" or f.startswith("p") for f in table.fields):
        problems.append((table.header_line, f"表头没有选手列：{TEAMS_HEADER} / the header has no players column: {TEAMS_HEADER}"))
    teams = copy.deepcopy(cfg["teams"])  # those there, then each good row: a later row is checked against it
    dup = bool(cfg["event"]["scoring"].get("duplicate"))
    good: list[dict[str, Any]] = []
    lines: dict[str, int] = {}
    for n, cells in [] if problems else table.rows:
        tid = cells.get("id", "")
        players = [p.strip() for p in _NAMES_SPLIT.split(cells.get("players", "")) if p.strip()]
        players += [cells[f"p{i}"] for i in range(1, 5) if cells.get(f"p{i}")]
        try:
            if not tid:
                raise EventInputError("队号为空 / the team's id is empty")
            if tid in lines:
                raise EventInputError(f"队号 {tid} 已在第 {lines[tid]} 行 / the id {tid} is on line {lines[tid]} already")
            if tid in withdrawn:  # a withdrawn team's id (one EVENT.toml no longer lists): not reused
                raise EventInputError(f"队号 {tid} 属于已退赛的队，请换一个 / the id {tid} is a withdrawn team's: "
                                      "choose another")
            entry = team_entry(teams, dup, tid, cells.get("name", ""), players)
        except EventInputError as exc:
            problems.append((n, str(exc)))
            continue
        lines[entry["team"]] = n
        teams.append({"id": entry["team"], "name": entry["name"], "players": entry["players"]})
        good.append({"line": n, **entry})
    short = tables_short(cfg, len(good)) if good and not problems else None
    if short is not None:
        problems.append((0, short))
    return good, problems


def check_teams_import(core: Any, text: str, role: str | None) -> list[dict[str, Any]]:
    """The teams ``text`` adds, every row checked (:func:`read_teams`), or a refusal: the chief
    referee's, and only until round 1's draw is published (as a late entry: a round robin's circle
    and a Swiss round 1 are drawn from the teams there then).

    :raises LinesRefused: naming every bad row (nothing is then logged).
    :raises EventInputError: the role, a round published, or nothing to import."""
    need_role(role, "chief", "导入队伍")
    assert core.cfg is not None
    if core.published_rounds:
        raise EventInputError(f"第 {core.published_rounds[0]} 轮编排已公布，不能再导入队伍（须在第一轮公布前） / round "
                              f"{core.published_rounds[0]} is published: teams can only be imported before the "
                              "first draw is published")
    if not text.strip():
        raise EventInputError(f"没有可导入的队伍：请粘贴带表头的队伍表（{TEAMS_HEADER}） / "
                              f"nothing to import: paste the teams with a header "
                              f"row ({TEAMS_HEADER})")
    good, problems = read_teams(text, core.cfg, set(core.withdrawn))
    if problems:
        raise LinesRefused(("导入", "imported"), problems)
    if not good:
        raise EventInputError(f"表中没有队伍，只有表头（{TEAMS_HEADER}） / the table has a header and no team "
                              f"({TEAMS_HEADER})")
    return good
