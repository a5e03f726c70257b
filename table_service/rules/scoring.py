"""Scoring a round: 级差分, match points, forfeit, a round lost by penalty.

Ranking teams over rounds (累进分, the tie-breaks, lots) is the event's: :mod:`table_service.event.standings`
is its one source.
"""

from __future__ import annotations

from table_service.rules.ruleset import Ruleset

FORFEIT_SCORE: tuple[int, int] = (17, 0)
J_POSITION = 11
#: A round lost by penalty is scored as the offender's level + this many.
PENALTY_LOSS_GAP = 4


def level_difference_points(winner_pos: int, loser_pos: int) -> tuple[int, int]:
    """级差分 on the 13-level, 26-point scale: difference d (0–13) scores 13 + d : 13 − d."""
    d = max(0, min(13, winner_pos - loser_pos))
    return (13 + d, 13 - d)


def penalty_loss_positions(winner_pos: int, offender_pos: int) -> tuple[int, int]:
    """A round lost by penalty (判负) is scored as the offender's level + 4, the offender taken
    down to J if needed; a larger gap already on the table stands.

    :raises ValueError: a position off the 13-level scale (2 … A = 14, past A = 15).
    """
    for pos in (winner_pos, offender_pos):
        if isinstance(pos, bool) or not isinstance(pos, int) or not 2 <= pos <= 15:
            raise ValueError(f"级位无效：须为 2（打 2）… 14（A），过 A 为 15；收到 {pos!r} / "
                             f"a level position is 2 (level 2) … 14 (A), 15 past A; got {pos!r}")
    if winner_pos - offender_pos > PENALTY_LOSS_GAP:
        return (winner_pos, offender_pos)
    off = min(offender_pos, J_POSITION)
    return (off + PENALTY_LOSS_GAP, off)


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
        raise ValueError(f"未知结果 {result!r}（应为 {', '.join(table)} 之一） / "
                         f"unknown result {result!r} (expected one of {', '.join(table)})") from None
