"""Events for the arbiter's tests (``test_standings_arbiter``, ``test_draw_arbiter``): random results
with ties on every column, and whole events played through a hub (draws, hand entry, corrections,
withdrawals, publishing), its standings checked against the arbiter's sheet after every round."""

from __future__ import annotations

import copy
import random
import tempfile
from pathlib import Path
from typing import Any

import pytest
from arbiter_sheet import COLUMNS, ranked_groups, sheet

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import EventInputError

SCHEMES = ("2-1-0", "3-2-1-0")


def agrees(order: list[str], lines: list[dict[str, Any]], teams: list[str], scheme: str,
            duplicate: str | None = None) -> None:
    """The hub's order is the arbiter's, lots deciding only inside a group tied on every column."""
    groups = ranked_groups(lines, teams, scheme, duplicate)
    i = 0
    for g in groups:
        assert sorted(order[i:i + len(g)]) == g, (i, g, order[i:i + len(g)])
        i += len(g)
    assert i == len(order) == len(teams)


def random_line(rng: random.Random, rnd: int, table: str, ns: str, ew: str) -> dict[str, Any]:
    """A result from a small set of values, so that ties come on every column: draws, narrow wins,
    one side or both absent, penalty losses at the score the rules give."""
    a, b = rng.choice((0, 1, 2, 3, 3, 13)), rng.choice((0, 1, 2, 3))
    roll = rng.random()
    line: dict[str, Any] = {"round": rnd, "table": table, "ns": ns, "ew": ew}
    if roll < 0.08:
        return line | {"forfeit": rng.choice(("ns", "ew"))}
    if roll < 0.11:
        return line | {"forfeit": "both"}
    if roll < 0.35:
        b = a
    line |= {"ns_levels": a, "ew_levels": b}
    if rng.random() < 0.1:
        # 判负: the offender's level + 4, a larger lead kept: 13 + d : 13 − d with d = max(4, lead).
        ns_wins = rng.random() < 0.5
        won, lost = (a, b) if ns_wins else (b, a)
        d = max(4, won - lost)
        line |= {"ns_score": 13 + d, "ew_score": 13 - d} if ns_wins else {"ns_score": 13 - d, "ew_score": 13 + d}
    return line


def random_lines(rng: random.Random, teams: list[str], rounds: int, gone: float = 0.0) -> list[dict[str, Any]]:
    """Random pairings (a bye for an odd field), and now and then a team that has left (no line)."""
    lines: list[dict[str, Any]] = []
    left: set[str] = set()
    for rnd in range(1, rounds + 1):
        if rng.random() < gone and len(teams) - len(left) > 3:
            left.add(rng.choice([t for t in teams if t not in left]))
        order = [t for t in teams if t not in left]
        rng.shuffle(order)
        if len(order) % 2:
            lines.append({"round": rnd, "bye": order.pop()})
        lines += [random_line(rng, rnd, str(i // 2 + 1), order[i], order[i + 1]) for i in range(0, len(order), 2)]
    return lines


def random_duplicate_lines(rng: random.Random, teams: list[str], rounds: int) -> list[dict[str, Any]]:
    """Random team matches of two rooms (sides swapped), each room a :func:`random_line`; a bye for an
    odd field; now and then a match with only one room in (it does not count yet)."""
    lines: list[dict[str, Any]] = []
    for rnd in range(1, rounds + 1):
        order = teams[:]
        rng.shuffle(order)
        if len(order) % 2:
            lines.append({"round": rnd, "bye": order.pop()})
        for k in range(0, len(order), 2):
            x, y = order[k], order[k + 1]
            rooms = (("A", x, y), ("B", y, x))
            for room, ns, ew in rooms[:1] if rng.random() < 0.05 else rooms:
                lines.append(random_line(rng, rnd, f"{k // 2 + 1}{room}", ns, ew))
    return lines


def event_config(n: int, rounds: int, scheme: str, seed: int, method: str = "swiss", duplicate: str | None = None
         ) -> dict[str, Any]:
    dup = {"duplicate": duplicate} if duplicate else {}
    four = ("甲", "乙", "丙", "丁") if duplicate else ()
    return validate({"event": {"id": "arb", "name": "裁判核对赛", "rounds": rounds, "draw": method,
                               "match_points": scheme, "seed": seed, **dup},
                     "teams": [{"id": f"T{i:03d}", "name": f"队{i}", **({"players": [f"{i}{p}" for p in four]} if four else {})}
                               for i in range(1, n + 1)]})


def play_through_hub(n: int, rounds: int, scheme: str, seed: int, check_draw: Any = None,
                     method: str = "swiss", duplicate: str | None = None) -> None:
    """Draw, publish and enter every round at a hub, correcting and withdrawing now and then; after
    each round the hub's standings must be the arbiter's sheet of the results as they now stand
    (``duplicate``: a 复式 event, each match two rooms compared so)."""
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as tmp:
        hub = HubService(event_config(n, rounds, scheme, seed, method, duplicate), Path(tmp) / "hub", connect=False)
        teams = list(hub.core.teams)
        lines: dict[tuple[int, str], dict[str, Any]] = {}
        byes: list[dict[str, Any]] = []
        published: dict[int, list[dict[str, Any]]] = {}
        for rnd in range(1, rounds + 1):
            if rnd > 1 and rng.random() < 0.2 and len(hub.core.active_teams) > 4:
                hub.withdraw_team(rng.choice(hub.core.active_teams), "退赛 / withdrew", "chief", "chief")
            hub.draw_next("org", "chief")
            draw = hub.core.draws[rnd]
            if check_draw is not None:
                check_draw(hub, draw, [*lines.values(), *byes])
            hub.publish_draw(rnd, "org", "chief")
            byes += [{"round": rnd, "bye": b} for b in draw["byes"]]
            for t in draw["tables"]:
                line = random_line(rng, rnd, t["table"], t["ns"], t["ew"])
                hub.hand_result(line, "rita", "referee")
                lines[(rnd, t["table"])] = line
            # Corrections: a table of this round, now and then one of an earlier round.
            for (r, tb), old in list(lines.items()):
                if rng.random() < (0.1 if r == rnd else 0.02):
                    new = random_line(rng, r, tb, old["ns"], old["ew"])
                    if new != old:
                        hub.correct(r, tb, new, "记分表誊写错 / sheet copied wrong", "chen", "chief")
                        lines[(r, tb)] = new
            if rng.random() < 0.5:  # results are published in order: every round not yet published
                for r in range(1, rnd + 1):
                    if r not in hub.core.results_published:
                        hub.publish_results(r, "org", "chief")
            # A correction made after the next round's Swiss draft: the draft is stale and is not published
            # ("corrections never change a published draw"; an unpublished one is drawn again, from the
            # corrected results, and checked as every draw is).
            if rnd < rounds and rng.random() < 0.2:
                hub.draw_next("org", "chief")
                (r, tb), old = rng.choice(sorted(lines.items()))
                new = random_line(rng, r, tb, old["ns"], old["ew"])
                if new != old:
                    hub.correct(r, tb, new, "记分表誊写错 / sheet copied wrong", "chen", "chief")
                    lines[(r, tb)] = new
                    if method == "swiss":  # a round robin's schedule depends on no result
                        with pytest.raises(EventInputError, match="重新编排"):
                            hub.publish_draw(rnd + 1, "org", "chief")
            assert {r: hub.core.draws[r]["tables"] for r in published} == published, "a published draw is final"
            published[rnd] = copy.deepcopy(draw["tables"])
            all_lines = [*lines.values(), *byes]
            board = hub.standings_json()["standings"]
            cols = sheet(all_lines, teams, scheme, duplicate)
            assert [{c: row[c] for c in COLUMNS} for row in board] == [cols[row["team"]] for row in board]
            st_ = hub.core.standings()
            assert [row["team"] for row in board] == [r.team for r in st_.rows]
            cols = sheet(all_lines, teams, scheme, duplicate)
            for row in st_.to_json()["standings"]:
                assert {c: row[c] for c in COLUMNS} == cols[row["team"]], (rnd, row["team"])
            agrees([r.team for r in st_.rows], all_lines, teams, scheme, duplicate)
            # A tie recorded by lots when the round's results were published is kept as published.
            for group, order in hub.core.lots.items():
                pos = [r.team for r in st_.rows]
                if all(t in pos for t in group) and any(sorted(g) == sorted(group)
                                                         for g in ranked_groups(all_lines, teams, scheme, duplicate)):
                    assert sorted(group, key=pos.index) == list(order)
