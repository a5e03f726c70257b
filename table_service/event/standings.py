"""Standings exactly as the rules file ranks teams over rounds.

Match points (win 2, draw 1, loss 0 by default; a preset or the event's options may change them,
e.g. 3/2/1/0), then progressive points (累进分) with the first round cut, rounds won,
level-difference points (级差分), levels gained, and finally lots. The order of the tie-break
keys comes from the ruleset (``Ruleset.tiebreak``), so a preset that ranks by head-to-head and
net level difference is honoured too.

累进分 "from round 2, the running total after each round, summed": with running totals
c1, c2, …, cn the progressive points are c2 + c3 + … + cn. Cutting round 1 means a team's first
round counts once per later round (it is inside every running total) but never on its own.

Lots are drawn with a seeded generator over the tied group's sorted names, so the hub can
record the drawn order as an event and a replay gives the same order; an order already recorded
is always reused (a later re-seed never reshuffles a published tie).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from table_service.event.model import EventInputError, Result
from table_service.rules.ruleset import DEFAULT_TIEBREAK, Ruleset, get_ruleset


@dataclass(frozen=True)
class ScoringOptions:
    """What a round is worth. Built from the ruleset plus the event's options."""

    # The ruleset's defaults, not copies of them: a preset or default changed there changes these.
    win: int = Ruleset.match_points_win
    draw: int = Ruleset.match_points_draw
    loss: int = Ruleset.match_points_loss
    forfeit: int = Ruleset.match_points_forfeit
    bye: int = Ruleset.match_points_bye
    bye_level_points: int = 13
    """级差分 credited for a bye (the rules file is silent; 13 = a drawn table)."""
    bye_levels: int = 0
    tiebreak: tuple[str, ...] = DEFAULT_TIEBREAK
    duplicate: str | None = None
    """Duplicate (复式) team matches: ``None`` (every table is a match), ``"levels"`` (a team match
    is won on the levels gained at its two tables together) or ``"level_points"`` (on the two
    tables' 级差分 together)."""

    @classmethod
    def from_ruleset(cls, ruleset: Ruleset | None = None, **event_options: int) -> ScoringOptions:
        rs = ruleset or get_ruleset()
        keys = tuple(rs.tiebreak)
        if not keys or keys[0] != "match_points":
            keys = ("match_points", *keys)
        base = cls(win=rs.match_points_win, draw=rs.match_points_draw, loss=rs.match_points_loss,
                   forfeit=rs.match_points_forfeit, bye=rs.match_points_bye, tiebreak=keys)
        return base.with_options(**event_options)

    def with_options(self, **opts: Any) -> ScoringOptions:
        from dataclasses import fields, replace

        known = {f.name for f in fields(self)}
        bad = set(opts) - known
        if bad:
            raise EventInputError(f"未知计分选项 {sorted(bad)}（可用：{sorted(known)}） / unknown scoring option(s) "
                                  f"{sorted(bad)} (known: {sorted(known)})")
        if opts.get("duplicate") not in DUPLICATE_COMPARE:
            raise EventInputError(f"复式比较方式须为 levels 或 level_points，收到 {opts.get('duplicate')!r} / "
                                  f"duplicate must be levels or level_points, "
                                  f"got {opts.get('duplicate')!r}")
        return replace(self, **opts)

    def points(self, outcome: str) -> int:
        return {"win": self.win, "draw": self.draw, "loss": self.loss, "forfeit": self.forfeit,
                "bye": self.bye}[outcome]


DUPLICATE_COMPARE = (None, "levels", "level_points")

#: Preset match-point schemes an event may pick (``match_points = "3-2-1-0"``).
MATCH_POINT_SCHEMES: dict[str, dict[str, int]] = {
    "2-1-0": {"win": 2, "draw": 1, "loss": 0, "forfeit": 0, "bye": 2},
    "3-2-1-0": {"win": 3, "draw": 2, "loss": 1, "forfeit": 0, "bye": 3},
}


@dataclass
class TeamLine:
    """One team's record so far (every column of the standings)."""

    team: str
    per_round: dict[int, int] = field(default_factory=dict)
    """Match points by round."""
    opponents: dict[int, str | None] = field(default_factory=dict)
    rounds_won: int = 0
    level_points: int = 0
    levels_gained: int = 0
    net_levels: int = 0
    """Level-difference points scored minus conceded (the net level difference: see :data:`Game`)."""
    rank: int = 0
    progressive: int = 0

    @property
    def match_points(self) -> int:
        return sum(self.per_round.values())


@dataclass
class Standings:
    """The ranked table, and the lots that decided ties (``{"teams": [...], "order": [...]}``)."""

    rows: list[TeamLine]
    lots: list[dict[str, list[str]]]
    rounds: int

    def to_json(self) -> dict[str, list[dict[str, object]]]:
        """``{"standings": [{"rank", "team", "match_points", "progressive", "rounds_won",
        "level_points", "levels_gained"}, ...]}`` — the CLI's and the hub's export shape."""
        return {"standings": [
            {"rank": r.rank, "team": r.team, "match_points": r.match_points, "progressive": r.progressive,
             "rounds_won": r.rounds_won, "level_points": r.level_points, "levels_gained": r.levels_gained}
            for r in self.rows]}


def progressive_points(per_round: Sequence[int]) -> int:
    """累进分 with the first round cut: the running totals after rounds 2…n, summed."""
    total, acc = 0, 0
    for i, p in enumerate(per_round):
        acc += p
        if i >= 1:
            total += acc
    return total


def draw_lots(group: Sequence[str], seed: int | str) -> list[str]:
    """A seeded, reproducible order of a tied group (independent of the order given)."""
    names = sorted(group)
    random.Random(f"guandan-lots:{seed}:{'|'.join(names)}").shuffle(names)
    return names


Game = tuple[int, str, "str | None", str, int, int, int]
"""``(round, team, opponent, outcome, level points, opponent's level points, levels gained)``.

The net level difference (a tie-break an event may choose; the rules name it and do not define it)
is the level-difference points a team scored minus those its opponents scored: a forfeit then counts
17 : 0 and a penalty loss its fixed score, as the rules score them, not the levels the table showed
when it stopped (a team that forfeited while ahead must not gain by it)."""


def _table_games(r: Result) -> Iterator[Game]:
    o_ns, o_ew = r.outcome()
    lp_ns, lp_ew = r.level_points()
    assert r.ew is not None
    yield (r.round, r.ns, r.ew, o_ns, lp_ns, lp_ew, r.ns_levels)
    yield (r.round, r.ew, r.ns, o_ew, lp_ew, lp_ns, r.ew_levels)


def duplicate_matches(results: Iterable[Result]) -> dict[tuple[int, frozenset[str]], list[Result]]:
    """The tables of each duplicate team match (room A and room B), keyed by round and teams."""
    out: dict[tuple[int, frozenset[str]], list[Result]] = {}
    for r in results:
        if r.ew is not None:
            out.setdefault((r.round, frozenset((r.ns, r.ew))), []).append(r)
    return out


def _match_games(tables: list[Result], compare: str) -> Iterator[Game]:
    """One game per team for a duplicate match: its two tables compared together. A forfeit at
    either table loses the match for the side that forfeited; a table ended by a penalty loss counts
    the gap its fixed score gives (13 + d : 13 − d), not the levels it showed when it stopped."""
    a, b = tables
    x, y = a.ns, a.ew
    lv = {x: 0, y: 0}
    lp = {x: 0, y: 0}
    gap = {x: 0, y: 0}
    forfeited: set[str] = set()
    for r in tables:
        assert r.ew is not None
        lv[r.ns] += r.ns_levels
        lv[r.ew] += r.ew_levels
        p_ns, p_ew = r.level_points()
        lp[r.ns] += p_ns
        lp[r.ew] += p_ew
        d = (p_ns - p_ew) // 2 if r.ns_score is not None else r.ns_levels - r.ew_levels
        gap[r.ns] += d
        gap[r.ew] -= d
        forfeited.update(r.forfeited_by())
    if len(forfeited) == 1:
        loser = next(iter(forfeited))
        outcome = {loser: "forfeit", (y if loser == x else x): "win"}
    elif len(forfeited) == 2:
        outcome = {x: "forfeit", y: "forfeit"}
    else:
        vx, vy = (gap[x], gap[y]) if compare == "levels" else (lp[x], lp[y])
        outcome = {x: "win", y: "loss"} if vx > vy else {x: "loss", y: "win"} if vx < vy else {x: "draw", y: "draw"}
    for team, other in ((x, y), (y, x)):
        yield (a.round, team, other, outcome[team], lp[team], lp[other], lv[team])


def games(results: Iterable[Result], opts: ScoringOptions) -> Iterator[Game]:
    """Each team's game of each round. In duplicate mode a match counts once both rooms are in."""
    results = list(results)
    if not opts.duplicate:
        for r in results:
            if r.ew is not None:
                yield from _table_games(r)
        return
    for tables in duplicate_matches(results).values():
        if len(tables) == 2:
            yield from _match_games(tables, opts.duplicate)


def tally(results: Iterable[Result], teams: Iterable[str] = (), opts: ScoringOptions | None = None
          ) -> dict[str, TeamLine]:
    """Every team's columns (unranked). Teams without a result so far get zeros."""
    opts = opts or ScoringOptions()
    lines: dict[str, TeamLine] = {t: TeamLine(t) for t in teams}
    results = list(results)
    rounds = max((r.round for r in results), default=0)
    for r in results:
        if r.ew is None:
            ln = lines.setdefault(r.ns, TeamLine(r.ns))
            ln.per_round[r.round] = opts.bye
            ln.opponents[r.round] = None
            ln.rounds_won += opts.bye >= opts.win  # a bye worth less than a win is not a round won
            ln.level_points += opts.bye_level_points
            ln.levels_gained += opts.bye_levels
    for rnd, team, other, outcome, lp, olp, lv in games(results, opts):
        ln = lines.setdefault(team, TeamLine(team))
        ln.per_round[rnd] = opts.points(outcome)
        ln.opponents[rnd] = other
        ln.rounds_won += outcome == "win"
        ln.level_points += lp
        ln.levels_gained += lv
        ln.net_levels += lp - olp
    for ln in lines.values():
        ln.progressive = progressive_points([ln.per_round.get(k, 0) for k in range(1, rounds + 1)])
    return lines


def _key(name: str, ln: TeamLine, tied: set[str]) -> int:
    if name == "match_points":
        return ln.match_points
    if name == "progressive_points":
        return ln.progressive
    if name == "rounds_won":
        return ln.rounds_won
    if name == "level_difference_points":
        return ln.level_points
    if name == "levels_gained":
        return ln.levels_gained
    if name == "net_level_difference":
        return ln.net_levels
    if name == "head_to_head":
        return sum(p for rnd, p in ln.per_round.items() if ln.opponents.get(rnd) in tied)
    raise EventInputError(f"未知排名依据 {name!r} / unknown tie-break key {name!r}")


def compute_standings(results: Iterable[Result], teams: Iterable[str] = (), opts: ScoringOptions | None = None,
                      *, seed: int | str = 0, recorded_lots: Mapping[tuple[str, ...], Sequence[str]] | None = None
                      ) -> Standings:
    """Rank the teams. Ties after every key go to lots: a recorded order for exactly that
    group is reused, otherwise one is drawn from ``seed`` and reported in ``Standings.lots``."""
    opts = opts or ScoringOptions()
    results = list(results)
    lines = tally(results, teams, opts)
    recorded = dict(recorded_lots or {})
    lots: list[dict[str, list[str]]] = []

    def order(group: list[str], keys: tuple[str, ...]) -> list[str]:
        if len(group) <= 1:
            return group
        if not keys:
            k = tuple(sorted(group))
            drawn = list(recorded.get(k) or draw_lots(group, seed))
            if k not in recorded:
                recorded[k] = drawn
            lots.append({"teams": list(k), "order": drawn})
            return drawn
        tied = set(group)
        vals = {t: _key(keys[0], lines[t], tied) for t in group}
        out: list[str] = []
        for v in sorted(set(vals.values()), reverse=True):
            out.extend(order([t for t in group if vals[t] == v], keys[1:]))
        return out

    ranked = order(sorted(lines), tuple(opts.tiebreak))
    rows = []
    for i, team in enumerate(ranked, 1):
        lines[team].rank = i
        rows.append(lines[team])
    return Standings(rows=rows, lots=lots, rounds=max((r.round for r in results), default=0))
