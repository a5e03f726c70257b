"""The hub's results set against the tables' own logs: which agree, which differ, which are missing.

The hub records what arrives on a table's topic; the table's SQLite log holds what was played
and signed at the table. The event demo once printed "4 results (4 from the tables' logs)"
while one of the four was a forgery (issue 26): it counted where the hub *thought* a result came
from. This compares the lines themselves, round by round and table by table, and names every
difference — a forgery, a correction made at the hub, a result entered by hand, or a table whose
signed result never reached the hub.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from table_service.views.wire import table_result

#: The fields of a RESULTS line that decide the standings.
_FIELDS = ("round", "table", "ns", "ew", "ns_levels", "ew_levels", "forfeit", "ns_score", "ew_score")


def table_log_results(state: Mapping[str, Any], table_id: str) -> dict[int, dict[str, Any]]:
    """Every signed round in a table's state (archived rounds and the current one), as the
    RESULTS line the table sends the hub (:func:`~table_service.views.wire.table_result`)."""
    out: dict[int, dict[str, Any]] = {}
    rounds = [dict(r) for r in state.get("rounds") or []] + [dict(state)]
    for r in rounds:
        msg = table_result({"round": r.get("round"), "result": r.get("result"), "signatures": r.get("signatures")},
                           table_id)
        if msg is not None:
            out[msg["result"]["round"]] = msg["result"]
    return out


def _same(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    return all(a.get(k) == b.get(k) for k in _FIELDS)


def _score(line: Mapping[str, Any] | None) -> str:
    if line is None:
        return "—"
    if line.get("forfeit"):
        return f"forfeit {line['forfeit']}"
    if line.get("ns_score") is not None:
        return f"{line['ns_score']}:{line['ew_score']} (score)"
    return f"{line.get('ns', '?')} {line.get('ns_levels')}:{line.get('ew_levels')} {line.get('ew', '?')}"


def compare(hub_results: Mapping[tuple[int, str], Any], tables: Iterable[tuple[str, Mapping[str, Any]]]
            ) -> dict[str, Any]:
    """``hub_results``: ``(round, table) → TableResult`` (the hub core's); ``tables``: ``(table id,
    that table's state)`` for the tables whose logs are at hand. Returns ``agree`` (count) and
    ``differ``: one entry per (round, table) where the hub and the table's log do not hold the
    same line, with both lines and the hub's source."""
    own: dict[tuple[int, str], dict[str, Any]] = {}
    for tid, state in tables:
        for rnd, line in table_log_results(state, tid).items():
            own[(rnd, tid)] = line
    agree, differ = 0, []
    for key in sorted(set(own) | set(hub_results), key=lambda k: (k[0], str(k[1]))):
        hub = hub_results.get(key)
        hub_line = hub.line if hub is not None else None
        log_line = own.get(key)
        if hub_line is not None and log_line is not None and _same(hub_line, log_line):
            agree += 1
            continue
        differ.append({"round": key[0], "table": key[1], "hub": hub_line, "table_log": log_line,
                       "source": hub.source if hub is not None else None,
                       "text": f"第 {key[0]} 轮 {key[1]} 号桌 / round {key[0]} table {key[1]}: 赛事中心 / hub "
                               f"{_score(hub_line)}"
                               f"{f' ({hub.source})' if hub is not None else ''}, 桌面记录 / table's log "
                               f"{_score(log_line)}"})
    return {"agree": agree, "differ": differ}
