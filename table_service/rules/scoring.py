"""Scoring a round and ranking teams: 级差分, match points, forfeit, tie-breaks."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass, field

from table_service.rules.ruleset import Ruleset

FORFEIT_SCORE: tuple[int, int] = (17, 0)
J_POSITION = 11


def level_difference_points(winner_pos: int, loser_pos: int) -> tuple[int, int]:
    """级差分 on the 13-level, 26-point scale: difference d (0–13) scores 13 + d : 13 − d."""
    d = max(0, min(13, winner_pos - loser_pos))
    return (13 + d, 13 - d)


def penalty_loss_positions(winner_pos: int, offender_pos: int) -> tuple[int, int]:
    """A round lost by penalty (判负) is scored as the offender's level + 4, the offender taken
    down to J if needed; a larger gap already on the table stands."""
    if winner_pos - offender_pos > 4:
        return (winner_pos, offender_pos)
    off = min(offender_pos, J_POSITION)
    return (off + 4, off)


def match_points(result: str, ruleset: Ruleset) -> int:
    """Match points for ``win``, ``draw``, ``loss``, ``forfeit`` or ``bye``."""
    table = {
        "win": ruleset.match_points_win,
        "draw": ruleset.match_points_draw,
        "loss": ruleset.match_points_loss,
        "forfeit": ruleset.match_points_forfeit,
        "bye": ruleset.match_points_bye,
    }
    try:
        return table[result]
    except KeyError:
        raise ValueError(f"未知结果 / unknown result {result!r} (expected one of {', '.join(table)})") from None


@dataclass(frozen=True)
class RoundRecord:
    """One team's result in one round."""

    opponent: str
    result: str
    """``win`` ``draw`` ``loss`` ``forfeit`` ``bye``."""
    level_difference_points: int
    levels_gained: int
    net_level_difference: int = 0


@dataclass
class TeamRecord:
    """A team's rounds, in order."""

    team: str
    rounds: list[RoundRecord] = field(default_factory=list)


def _points(rec: TeamRecord, ruleset: Ruleset) -> list[int]:
    return [match_points(r.result, ruleset) for r in rec.rounds]


def progressive_points(rec: TeamRecord, ruleset: Ruleset) -> int:
    """累进分: the running total of match points after each round, summed. It differs from the
    match points from round 2 on, and rewards points won early."""
    total, acc = 0, 0
    for p in _points(rec, ruleset):
        acc += p
        total += acc
    return total


def rank_teams(records: Sequence[TeamRecord], ruleset: Ruleset, *, seed: int = 0) -> list[str]:
    """Teams in ranking order by ``ruleset.tiebreak``, then lots (a seeded draw, so the
    published order can be reproduced)."""
    by_team = {r.team: r for r in records}
    lots = {t: random.Random(f"{seed}:{t}").random() for t in sorted(by_team)}

    def key_of(name: str, team: TeamRecord, tied: set[str]) -> float:
        if name == "match_points":
            return sum(_points(team, ruleset))
        if name == "progressive_points":
            return progressive_points(team, ruleset)
        if name == "rounds_won":
            return sum(1 for r in team.rounds if r.result in ("win", "bye"))
        if name == "level_difference_points":
            return sum(r.level_difference_points for r in team.rounds)
        if name == "levels_gained":
            return sum(r.levels_gained for r in team.rounds)
        if name == "net_level_difference":
            return sum(r.net_level_difference for r in team.rounds)
        if name == "head_to_head":
            return sum(match_points(r.result, ruleset) for r in team.rounds if r.opponent in tied)
        raise ValueError(f"未知排名依据 / unknown tie-break key {name!r}")

    def order(teams: list[str], keys: tuple[str, ...]) -> list[str]:
        if len(teams) <= 1:
            return teams
        if not keys:
            return sorted(teams, key=lambda t: lots[t])
        tied = set(teams)
        vals = {t: key_of(keys[0], by_team[t], tied) for t in teams}
        out: list[str] = []
        for v in sorted(set(vals.values()), reverse=True):
            group = [t for t in teams if vals[t] == v]
            out.extend(order(group, keys[1:]))
        return out

    keys = ruleset.tiebreak if ruleset.tiebreak and ruleset.tiebreak[0] == "match_points" else (
        ("match_points", *ruleset.tiebreak)
    )
    return order(sorted(by_team), tuple(keys))
