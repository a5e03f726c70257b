"""The event's draw settings changed at the hub: the number of rounds, the draw method and the match
points scheme — when each may change, and within what.

Before, these were EVENT.toml's alone: changing one meant editing the file and restarting the hub,
and after the first draw the file's change was ignored. Now the chief changes them on the organiser
page (``event_edited``, with the event's name, ruleset and format), each under its own rule:

- **Rounds**: at any time, but never below a round already drawn (a draft counts: it would be a
  round past the event's last), and within EVENT.toml's 1–99. A round robin — chosen, ``auto``
  resolving to it, or the method round 1 was published with — has at most the circle's rounds
  (:func:`~.config.round_robin_rounds`: n − 1 teams' worth, n for an odd field): past it the circle
  starts over and the next round repeats round 1's tables, same teams, same sides, which a tap on a
  number should never make. A double round robin is a file's decision, not the page's.
- **Draw method**: only until round 1's draw is published. A Swiss after a round robin's round 1
  (or the reverse) would be another event: the circle's schedule assumes every round of it, and a
  Swiss pairs on the standings of rounds drawn to another plan. Once published, the method is round
  1's (:meth:`~.state.HubState.method_now`), whatever ``auto`` would resolve to with another number
  of rounds.
- **Match points**: only until round 1's draw is published: the assignments carry the points and
  each table scores and signs its round with them, so a scheme changed after would rank by other
  points than the tables' own sheets (and, once results are public, re-rank what the hall has seen).

A setting given as it is now is not a change: it is neither checked nor logged, so a page that
posts every field (the form does) renames the event after round 1 without asking about the draw
method it shows, fixed. A change refused is refused whole, nothing logged, in words, Chinese first.
"""

from __future__ import annotations

from typing import Any

from table_service.event.config import DRAW_METHODS, draw_method, round_robin_rounds
from table_service.event.model import EventInputError
from table_service.event.standings import MATCH_POINT_SCHEMES
from table_service.event.state import HubState

#: The draw methods as the pages and the refusals name them: (Chinese, English).
METHOD_WORDS = {"auto": ("自动", "auto"), "swiss": ("瑞士制", "Swiss"), "round-robin": ("循环赛", "round robin")}
#: The fields of ``event_edited`` this module decides, as the pages name them: (Chinese, English).
SETTING_WORDS = {"rounds": ("轮数", "rounds"), "draw": ("编排方法", "draw method"),
                 "match_points": ("比赛分方案", "match points")}
SETTINGS = tuple(SETTING_WORDS)


def check_settings(state: HubState, rounds: int | None, draw: str | None, match_points: str | None
                   ) -> dict[str, Any]:
    """The settings among ``rounds``, ``draw`` and ``match_points`` that change what is in force,
    checked (None: left as it is): ``event_edited``'s new fields. Raises :class:`EventInputError`."""
    assert state.cfg is not None
    ev = state.cfg["event"]
    wanted = {"rounds": rounds, "draw": draw, "match_points": match_points}
    changed = {k: v for k, v in wanted.items() if v is not None and v != ev.get(k)}
    if "draw" in changed:
        if changed["draw"] not in DRAW_METHODS:
            raise EventInputError(f"编排方法须为 {'、'.join(DRAW_METHODS)} / the draw method must be one of "
                                  f"{', '.join(DRAW_METHODS)}")
        if state.published_rounds:
            zh, en = METHOD_WORDS.get(state.method_now(), (state.method_now(),) * 2)
            raise EventInputError(f"第 1 轮编排已公布（{zh}），编排方法不能再改：中途换编排方法就成了另一场比赛 / round 1's "
                                  f"draw is published ({en}): the draw method can no longer change, as a switch "
                                  "mid-event would make it another event")
    if "match_points" in changed:
        if changed["match_points"] not in MATCH_POINT_SCHEMES:
            raise EventInputError(f"比赛分方案须为 {'、'.join(MATCH_POINT_SCHEMES)} / match points must be "
                                  f"{' or '.join(MATCH_POINT_SCHEMES)}")
        if state.published_rounds:
            # The published round's assignments carry the points (the tables score and sign their round
            # with them): a change now would rank by other points than the tables' own sheets.
            first = min(state.published_rounds)
            raise EventInputError(f"第 {first} 轮编排已公布，比赛分方案不能再改：各桌已按原方案计分 / round {first}'s draw "
                                  "is published: the match points can no longer change, as the tables score their "
                                  "rounds with the points their assignment gave")
    if "rounds" in changed:
        n = changed["rounds"]
        if not isinstance(n, int) or isinstance(n, bool) or not 1 <= n <= 99:
            raise EventInputError("轮数须为 1–99 / rounds must be 1-99")
        drawn = max(state.draws, default=0)
        if n < drawn:
            what = "已公布" if state.draws[drawn]["published"] else "已有草案"
            raise EventInputError(f"第 {drawn} 轮{what}，轮数不能少于 {drawn} / round {drawn} is drawn "
                                  f"({'published' if what == '已公布' else 'a draft'}): the event cannot have fewer "
                                  f"than {drawn} rounds")
    if "rounds" in changed or "draw" in changed:
        event = {**ev, **{k: v for k, v in changed.items() if k in ("rounds", "draw")}}
        method = state.method_now() if state.published_rounds else draw_method({**state.cfg, "event": event})
        round_robin_fits(event["rounds"], len(state.cfg["teams"]), method, fixed=bool(state.published_rounds))
    return changed


def round_robin_fits(rounds: int, teams: int, method: str, *, fixed: bool = False) -> None:
    """Refuse more ``rounds`` than one circle over ``teams`` teams when the event is drawn by
    ``method`` = round robin (``fixed``: since round 1 was published). Why: past the circle
    :func:`~.draw.round_robin` starts over, and the next round repeats round 1's tables."""
    most = round_robin_rounds(teams)
    if method != "round-robin" or rounds <= most or teams < 2:  # no teams yet: they are imported before round 1
        return
    if fixed:
        zh, en = "本赛事自第 1 轮起按循环赛编排", "the event is drawn as a round robin since round 1"
    else:
        zh, en = "要更多轮请选瑞士制", "for more rounds choose Swiss"
    raise EventInputError(f"{teams} 队的循环赛最多 {most} 轮（再多就从头循环，第 {most + 1} 轮与第 1 轮同桌同向）；{zh} / a "
                          f"round robin of {teams} teams has at most {most} rounds (the circle then starts over: round "
                          f"{most + 1} would repeat round 1's tables); {en}")


def draft_settings_words(state: HubState, draft: dict[str, Any]) -> list[tuple[str, str]]:
    """What of the settings a draft was drawn under is no longer in force, ``[(Chinese, English)]``:
    its method (the draw method changed, or ``auto`` resolves otherwise with another number of
    rounds), or, for a Swiss draft paired on standings (round 2 on), its match points. Empty: none."""
    assert state.cfg is not None
    out: list[tuple[str, str]] = []
    was, now = draft.get("method"), state.method_now()
    if was is not None and was != now:
        (w_zh, w_en), (n_zh, n_en) = (METHOD_WORDS.get(m, (m, m)) for m in (was, now))
        out.append((f"编排方法由{w_zh}改为{n_zh}", f"the draw method changed from {w_en} to {n_en}"))
    scheme = state.cfg["event"]["match_points"]
    old = draft.get("match_points", scheme)  # a draft logged before the field: as now
    if was == "swiss" and draft["round"] > 1 and old != scheme:
        out.append((f"比赛分由 {old} 改为 {scheme}", f"the match points changed from {old} to {scheme}"))
    return out
