"""The draw's promises checked from the results alone, as an arbiter would (``check_swiss_draw``):
Swiss rounds drawn by the hub (with corrections, withdrawals, byes, forfeits) and by ``draw.swiss``
alone for 8–500 teams, round robins and duplicate (复式) events through the hub."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import networkx as nx
import pytest
from arbiter_events import SCHEMES, play_through_hub, random_line
from arbiter_sheet import sheet
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_service.event.draw import swiss
from table_service.event.hub import HubService
from table_service.event.model import parse_results_text
from table_service.event.standings import compute_standings

# ------------------------------------------------------------------ the draw's promises


def _rematch_free_exists(teams: list[str], met: set[frozenset[str]], can_bye: set[str]) -> bool:
    """Whether the field can be paired with no rematch, the bye (an odd field) to one of ``can_bye``."""
    g = nx.Graph()
    g.add_nodes_from(teams)
    g.add_edges_from((a, b) for i, a in enumerate(teams) for b in teams[i + 1:] if frozenset((a, b)) not in met)
    if len(teams) % 2:
        g.add_edges_from((t, "<bye>") for t in can_bye)
    m = nx.max_weight_matching(g, maxcardinality=True)
    return 2 * len(m) == len(teams) + len(teams) % 2


def check_swiss_draw(ranked: list[str], history: list[dict[str, Any]], tables: list[tuple[str, str]],
                     byes: list[str], withdrawn: set[str], directions: bool = True,
                     mp: dict[str, int] | None = None) -> None:
    """What draw.py's module doc and docs/architecture.md promise of a Swiss round, checked from the
    lines alone. ``ranked``: the standings the round is drawn from (every team, best first; the
    arbiter agrees with it up to lots, checked above); ``tables``: ``(ns, ew)`` in table order;
    ``mp``: the arbiter's match points, for the exact fields' smallest gap."""
    active = [t for t in ranked if t not in withdrawn]
    n = len(active)
    place = {t: i for i, t in enumerate(active)}
    seated = [t for pair in tables for t in pair] + byes
    assert sorted(seated) == sorted(active), "every team in play once, no withdrawn team"
    assert len(byes) == n % 2
    last = max((x["round"] for x in history), default=0)
    met = {frozenset((x["ns"], x["ew"])) for x in history if "ns" in x}
    had_bye = {x["bye"] for x in history if "bye" in x}
    no_show = {t for x in history if x["round"] == last and x.get("forfeit")
               for t, side in ((x["ns"], "ns"), (x["ew"], "ew")) if x["forfeit"] in (side, "both")} & set(active)
    rematches = sum(frozenset(p) in met for p in tables)
    second_bye = [b for b in byes if b in had_bye]
    # Tables numbered from the top: each table's higher-ranked team below the one of the table before.
    tops = [min(place[a], place[b]) for a, b in tables]
    assert tops == sorted(tops)
    # 1. no rematch, no second bye, where the field allows it. Small fields by a matching; past
    # them the field's own size guarantees it (Dirac: every team can still meet more than half).
    small = n <= 40
    no_bye_yet = {t for t in active if t not in had_bye}
    if not small:
        assert n >= 2 * (last + 2), "a field this size always has a rematch-free draw"
    if not small or _rematch_free_exists(active, met, no_bye_yet):
        assert rematches == 0 and not second_bye, (rematches, second_bye)
        # 2. no bye to a no-show of the round before while another team can take it.
        if byes and (not small or _rematch_free_exists(active, met, no_bye_yet - no_show)):
            assert byes[0] not in no_show
            # 3. the bye to the lowest-ranked team that can take it.
            for t in reversed(active):
                if t in no_bye_yet - no_show:
                    rest = [x for x in active if x != t]
                    if not small or _rematch_free_exists(rest, met, set()):
                        assert byes[0] == t, (byes[0], t)
                        break
    # 5. the adjacent pairing (1-2, 3-4, …, the bye to the last) whenever it is clean.
    adjacent = [frozenset(active[i:i + 2]) for i in range(0, n - 1, 2)]
    if not any(p in met for p in adjacent) and not (n % 2 and active[-1] in had_bye | no_show):
        assert {frozenset(p) for p in tables} == set(adjacent)
        assert byes == ([active[-1]] if n % 2 else [])
    # 4. and 5. in a field solved whole (up to 24 teams): with the bye where it is, no pairing free of
    # rematches has a smaller match-point gap, nor with that gap a smaller distance in the ranking.
    if mp is not None and n <= 24 and rematches == 0 and not second_bye:
        rest = [t for t in active if t not in byes]
        k = n * n + 1

        def cost(a: str, b: str) -> int:
            return abs(mp[a] - mp[b]) * k + abs(place[a] - place[b])

        top = max(mp.values()) * k + n * k + 1
        g = nx.Graph()
        g.add_weighted_edges_from((a, b, top - cost(a, b)) for i, a in enumerate(rest) for b in rest[i + 1:]
                                  if frozenset((a, b)) not in met)
        best = nx.max_weight_matching(g, maxcardinality=True)
        assert 2 * len(best) == len(rest)
        assert sum(cost(a, b) for a, b in tables) == sum(cost(a, b) for a, b in best)
    if directions:
        check_directions(history, tables, place)


def check_directions(history: list[dict[str, Any]], tables: list[tuple[str, str]], place: dict[str, int]) -> None:
    """Directions (draw.py's module doc): the team that has sat NS fewer times (net of EW) sits NS;
    then the one that sat EW at its last table (or whose opponent sat NS at its last); then the
    higher ranked (``place``: lower is higher)."""
    bal: Counter[str] = Counter()
    last_dir: dict[str, str] = {}
    for x in sorted((x for x in history if "ns" in x), key=lambda x: x["round"]):
        bal[x["ns"]] += 1
        bal[x["ew"]] -= 1
        last_dir[x["ns"]], last_dir[x["ew"]] = "ns", "ew"
    for ns, ew in tables:
        if bal[ns] != bal[ew]:
            assert bal[ns] < bal[ew], (ns, ew)
        elif last_dir.get(ns) != last_dir.get(ew):
            assert last_dir.get(ns) == "ew" or last_dir.get(ew) == "ns", (ns, ew)
        else:
            assert place[ns] < place[ew]


def check_round_robin_draw(circle: list[str], history: list[dict[str, Any]], tables: list[tuple[str, str]],
                           byes: list[str], withdrawn: set[str]) -> None:
    """A round robin (draw.py): within one circle nobody meets anyone twice nor has a second bye from
    the odd field; a withdrawn team is never drawn, and the team the schedule sets against it has a
    bye; every team in play is at a table or has a bye, once."""
    active = [t for t in circle if t not in withdrawn]
    seated = [t for pair in tables for t in pair] + byes
    assert sorted(seated) == sorted(active)
    n = len(circle)
    per_circle = n - 1 if n % 2 == 0 else n
    rnd = max((x["round"] for x in history), default=0) + 1
    start = rnd - (rnd - 1) % per_circle  # the first round of this circle
    now = [x for x in history if x["round"] >= start]
    met = {frozenset((x["ns"], x["ew"])) for x in now if "ns" in x}
    assert not any(frozenset(p) in met for p in tables)
    assert len(byes) <= n % 2 + len(withdrawn)
    if not withdrawn:  # the odd field's bye: once a team a circle
        assert not {x["bye"] for x in now if "bye" in x} & set(byes)
    check_directions(history, tables, {t: i for i, t in enumerate(circle)})


def _check_hub_draw(hub: HubService, draw: dict[str, Any], history: list[dict[str, Any]]) -> None:
    duplicate = bool(draw["info"].get("duplicate"))
    if duplicate:  # two rooms a match, sides swapped: the pairing is room A's
        rooms = {t["match"]: {} for t in draw["tables"]}
        for t in draw["tables"]:
            rooms[t["match"]][t["room"]] = (t["ns"], t["ew"])
        assert all(r["B"] == r["A"][::-1] for r in rooms.values())
        draw = {**draw, "info": {}, "tables": [{"ns": r["A"][0], "ew": r["A"][1]} for _m, r in sorted(rooms.items())]}
    if draw["method"] == "round-robin":
        check_round_robin_draw(hub.core.draws[1]["lots"], history, [(t["ns"], t["ew"]) for t in draw["tables"]],
                               list(draw["byes"]), set(hub.core.withdrawn))
        return
    # Round 1 by lots: the lots' order is the ranking.
    ranked = [r.team for r in hub.core.standings().rows] if history else hub.core.draws[1]["lots"]
    # In duplicate play each team sits both directions every round (room B swaps): the docs promise
    # nothing of room A's directions, so only the pairing is checked there.
    ev = hub.core.cfg["event"]
    mp = {t: c["match_points"] for t, c in sheet(history, hub.core.teams, ev["match_points"],
                                                   ev["scoring"].get("duplicate")).items()}
    check_swiss_draw(ranked, history, [(t["ns"], t["ew"]) for t in draw["tables"]], list(draw["byes"]),
                     set(hub.core.withdrawn), directions=not duplicate, mp=mp)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(8, 21), rounds=st.integers(3, 8), seed=st.integers(0, 10**6), scheme=st.sampled_from(SCHEMES))
def test_the_hub_s_draws_keep_the_swiss_promises(n: int, rounds: int, seed: int, scheme: str) -> None:
    play_through_hub(n, rounds, scheme, seed, check_draw=_check_hub_draw)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(8, 11), seed=st.integers(0, 10**6), scheme=st.sampled_from(SCHEMES))
def test_the_hub_s_round_robin_keeps_its_promises_and_ranks_as_the_arbiter(n: int, seed: int, scheme: str) -> None:
    play_through_hub(n, n - 1 if n % 2 == 0 else n, scheme, seed, check_draw=_check_hub_draw, method="round-robin")


def swiss_event(n: int, rounds: int, seed: int) -> None:
    """A whole Swiss event of ``n`` teams drawn by draw.py alone (results random, forfeits, penalty
    losses, now and then a withdrawal), every round checked by :func:`check_swiss_draw`."""
    rng = random.Random(seed)
    teams = [f"T{i:03d}" for i in range(n)]
    lines: list[dict[str, Any]] = []
    withdrawn: set[str] = set()
    for rnd in range(1, rounds + 1):
        if rnd > 1 and rng.random() < 0.3:
            withdrawn.add(rng.choice([t for t in teams if t not in withdrawn]))
        res = parse_results_text("\n".join(json.dumps(x) for x in lines))
        d = swiss(teams, res, seed=seed, withdrawn=withdrawn)
        ranked = [r.team for r in compute_standings(res, teams, seed=seed).rows] if lines else d.info["lots"]
        mp = {t: c["match_points"] for t, c in sheet(lines, teams).items()}
        check_swiss_draw(ranked, lines, [(ns, ew) for _t, ns, ew in d.tables], d.byes, withdrawn, mp=mp)
        lines += [random_line(rng, rnd, t, ns, ew) for t, ns, ew in d.tables]
        lines += [{"round": rnd, "bye": b} for b in d.byes]


@settings(max_examples=12, deadline=None)
@given(n=st.integers(8, 64), rounds=st.integers(5, 9), seed=st.integers(0, 10**6))
def test_swiss_events_of_8_to_64_teams_keep_the_promises(n: int, rounds: int, seed: int) -> None:
    swiss_event(n, rounds, seed)


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@given(n=st.integers(65, 500), rounds=st.integers(5, 9), seed=st.integers(0, 10**6))
def test_swiss_events_of_up_to_500_teams_keep_the_promises(n: int, rounds: int, seed: int) -> None:
    swiss_event(n, rounds, seed)


def test_a_500_team_event_keeps_the_promises() -> None:
    swiss_event(500, 7, 20261207)


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(6, 13), rounds=st.integers(3, 6), seed=st.integers(0, 10**6), scheme=st.sampled_from(SCHEMES),
       compare=st.sampled_from(("levels", "level_points")))
def test_a_duplicate_event_through_the_hub_ranks_as_the_arbiter(n: int, rounds: int, seed: int, scheme: str,
                                                                 compare: str) -> None:
    play_through_hub(n, rounds, scheme, seed, check_draw=_check_hub_draw, duplicate=compare)
