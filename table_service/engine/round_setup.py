"""The round's start and each deal's start: ``round_set_up``, the first cut, ``drawing_finished``
and the hand-over of the lead.

What every later stage of a round stands on lives here: the guard that a round is set up and not
over (``require_round``), the round's ruleset (``rules_of_round``) and the start of play
(``start_play``, which the tribute phase calls too, once the cards have changed hands). It is apart
from ``tribute_phase`` and ``deal_end`` so that both can import it while it imports neither: the
start of a round knows nothing of how a deal is paid for or scored.
"""

from __future__ import annotations

from typing import Any

from table_service.engine.errors import EventRejected
from table_service.engine.events import card_field, field, seat_field
from table_service.engine.flags import raise_flag
from table_service.engine.names import is_name, is_team_name
from table_service.engine.resume import apply_resume, check_resume
from table_service.engine.ruleset import resolve_ruleset
from table_service.engine.state import HAND_SIZE, State, initial_state, new_deal
from table_service.engine.timers import set_turn, start_timer
from table_service.rules.cards import check_level, parse_cards
from table_service.rules.ruleset import Ruleset
from table_service.rules.seats import SEATS, seats_from, side_of
from table_service.rules.tribute import first_drawer as rules_first_drawer

Effects = list[dict[str, Any]]

#: Round-scoped keys reset by a new ``round_set_up`` (the old values are archived in ``rounds``).
_ROUND_KEYS = ("levels", "failed_at_a", "first_cut", "deal", "next_deal", "penalties", "flags",
               "score_sheet", "deal_records", "signatures", "result", "corrections")


def require_round(state: State, etype: str) -> dict[str, Any]:
    """The round an event acts on, refused when none is set up or it has its result: every stage of
    a round (the cut, drawing, tribute, the referee's end) asks it first."""
    rnd = state.get("round")
    if rnd is None:
        raise EventRejected(f"{etype}：本轮未设置 / {etype}: no round has been set up")
    if state["result"] is not None:
        raise EventRejected(f"{etype}：本轮已结束 / {etype}: the round is over")
    return rnd


def ended_by_time_now(state: State, ev: dict[str, Any]) -> bool:
    """Whether the round's time limit, passed between deals with no tick to notice it, ended the round as
    ``ev`` was about to apply (generation 7, ``apply._dispatch``)."""
    result = state["result"]
    return result is not None and result["seq"] == ev["seq"] and result["reason"] == "time"


def rules_of_round(state: State) -> Ruleset:
    """The round's ``Ruleset`` object."""
    return state["round"]["_rules"]


# ------------------------------------------------------------------------- round set-up


def _check_format(fmt: Any) -> dict[str, Any]:
    if fmt is None:
        return {"kind": "past_a"}
    if not isinstance(fmt, dict) or fmt.get("kind") not in ("past_a", "deals", "time"):
        raise EventRejected(f"赛制无效：须为 {{kind: past_a | deals | time}}，收到 {fmt!r} / format must be {{kind: past_a | deals | time}}, got {fmt!r}")
    if fmt["kind"] == "deals":
        n = fmt.get("deals")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise EventRejected(f"赛制无效：按副数的赛制须有正数 deals，收到 {n!r} / format deals needs a positive 'deals', got {n!r}")
        return {"kind": "deals", "deals": n}
    if fmt["kind"] == "time":
        m = fmt.get("minutes")
        if not isinstance(m, int | float) or isinstance(m, bool) or m <= 0:
            raise EventRejected(f"赛制无效：按时间的赛制须有正数 minutes，收到 {m!r} / format time needs positive 'minutes', got {m!r}")
        return {"kind": "time", "minutes": m}
    return {"kind": "past_a"}


def _check_names(players: dict[str, Any], teams: dict[str, Any]) -> None:
    """Names go to the score sheet, the public feed and the broadcast overlay as they are: each must
    be text one can print (no control or direction-changing character) and not blank — the hub's own
    rule for the names in EVENT.toml (:func:`~table_service.engine.names.is_name`)."""
    for zh, en, names in (("选手名", "player", players), ("队名", "team", teams)):
        for key, name in names.items():
            # is_name takes every name the older check took (isprintable, not blank) and spaces of
            # any script besides, so a log of any generation folds as it was played.
            if not is_name(name):
                raise EventRejected(f"{zh}无效（{key}）：须为可打印文字，不可为空，收到 {name!r} / round_set_up: the {en} name for "
                                    f"{key} must be printable text, not blank: {name!r}"[:240])


#: The keys each form of ``ruleset`` and ``format`` may hold: a key beyond them was logged and then
#: ignored (``{"preset": "jiangsu", "clock_lead_s": 10}`` set no clock), so it is refused.
_RULESET_KEYS = frozenset({"preset", "options"})
_FORMAT_KEYS = {"past_a": frozenset({"kind"}), "deals": frozenset({"kind", "deals"}),
                "time": frozenset({"kind", "minutes"})}


def _check_no_other_keys(ruleset: Any, fmt: Any) -> None:
    if isinstance(ruleset, dict) and "name" not in ruleset and set(ruleset) - _RULESET_KEYS:
        extra = sorted(set(ruleset) - _RULESET_KEYS)
        raise EventRejected(f"规则含未知项 {extra}（选项请放在 options 内） / round_set_up: ruleset holds unknown keys "
                            f"{extra} (options go inside 'options')")
    if isinstance(fmt, dict) and fmt.get("kind") in _FORMAT_KEYS and set(fmt) - _FORMAT_KEYS[fmt["kind"]]:
        extra = sorted(set(fmt) - _FORMAT_KEYS[fmt["kind"]])
        raise EventRejected(f"赛制 {fmt['kind']} 含多余项 {extra} / round_set_up: format {fmt['kind']} does not take {extra}")


def on_round_set_up(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``round_set_up``: players, teams, ruleset and format (and, for a moved match, the standing it
    goes on from: ``resume``); archives a finished round."""
    data = ev["data"]
    if state["round"] is not None and state["result"] is None:
        raise EventRejected("本轮尚未结束 / round_set_up: the current round has no result yet")
    players = field(data, "players", ev["type"])
    if not isinstance(players, dict) or set(players) != set(SEATS) or not all(isinstance(v, str) and v for v in players.values()):
        raise EventRejected(f"选手无效：须为东南西北四座（E S W N）各一名，收到 {players!r} / round_set_up: players must name all four seats E S W N, got {players!r}")
    teams = data.get("teams") or {"EW": "EW", "NS": "NS"}
    if not isinstance(teams, dict) or set(teams) != {"EW", "NS"}:
        raise EventRejected(f"队伍无效：须为 {{EW: …, NS: …}}，收到 {teams!r} / round_set_up: teams must be {{EW: …, NS: …}}, got {teams!r}")
    # ``team_names``: an event's round names its teams by the hub's ids in ``teams`` (the result line
    # the hub scores must carry them) and by name here (what people read). Optional, added later than
    # every other field: a log without it folds as it did, its ``teams`` shown as they are.
    team_names = data.get("team_names")
    if team_names is not None and (not isinstance(team_names, dict) or set(team_names) != {"EW", "NS"}):
        raise EventRejected(f"队名无效：须为 {{EW: …, NS: …}}，收到 {team_names!r} / round_set_up: team_names must be {{EW: …, NS: …}}, got {team_names!r}"[:240])
    # Checks added with the engine's generation 2, for rounds stamped with it (an older log holds
    # rounds set up without them, and must still replay).
    checked = int(data.get("engine", 1)) >= 2
    if team_names is not None:  # a new field: checked in every round that carries it, by the hub's rule
        for side, name in team_names.items():
            if not is_team_name(name):
                raise EventRejected(f"队名无效（{side}）：须有可见文字，不含控制字符，收到 {name!r} / round_set_up: the team name for "
                                    f"{side} must be visible text with no control character: {name!r}"[:240])
    if checked:
        _check_names(players, teams)
        _check_no_other_keys(data.get("ruleset"), data.get("format"))
    rules = resolve_ruleset(data.get("ruleset"))
    fmt = _check_format(data.get("format"))
    levels_in = data.get("levels") or {"EW": rules.start_level, "NS": rules.start_level}
    try:
        levels = {side: check_level(str(levels_in[side])) for side in ("EW", "NS")}
    except (KeyError, TypeError, ValueError) as exc:
        raise EventRejected(f"级数无效：须为 {{EW: 2…A, NS: 2…A}}（{exc}） / round_set_up: levels must be {{EW: 2…A, NS: 2…A}} ({exc})") from None
    # ``resume``: a match moved from a failed table goes on where it stood (engine/resume.py); ``levels``
    # stay the round's real start, which the levels gained count from.
    resume = check_resume(data.get("resume"), rules)
    no = data.get("round", len(state["rounds"]) + (2 if state["round"] is not None else 1))
    if checked and (isinstance(no, bool) or not isinstance(no, int) or not 1 <= no <= 999):
        raise EventRejected(f"轮次须为 1–999 的整数，收到 {no!r} / round_set_up: 'round' must be a whole number 1-999, got {no!r}")
    played = [a["round"]["no"] for a in state["rounds"]] + ([state["round"]["no"]] if state["round"] else [])
    if checked and no in played:
        # A deal is known by its round and number (duplicate play releases it so): a round played
        # twice under one number would let its deals go public under the first one's releases.
        raise EventRejected(f"本桌已打过第 {no} 轮 / round_set_up: this table has played round {no} already")
    if state["round"] is not None:
        archived = {k: state[k] for k in ("result", "score_sheet", "penalties", "flags", "deal_records", "levels", "signatures")}
        archived["round"] = state["round"]
        state["rounds"].append(archived)
    fresh = initial_state()
    for key in _ROUND_KEYS:
        state[key] = fresh[key]
    state["levels"] = levels
    state["_deal_base"] = None
    state["_deal_log"] = []
    state["_overrides"] = {}
    state["round"] = {
        "no": no,
        "players": dict(players),
        "teams": dict(teams),
        "team_names": dict(team_names) if team_names is not None else None,
        "ruleset": rules.to_dict(),
        "_rules": rules,
        "format": fmt,
        "status": "cutting",
        "started_ms": state["t_ms"],
        "time_up": False,
        "extra_deal": False,
        "board": data.get("board"),
        # Which generation of the engine's rulings the round was set up under (ruleset.py's
        # ENGINE_GENERATION, stamped by the runner): a log written before a ruling changed folds as
        # it was played. Absent: the first generation.
        "engine": data.get("engine", 1),
        "deals_started": 0,
        "start_levels": dict(levels),
        "first_level": levels["EW"] if levels["EW"] == levels["NS"] else rules.start_level,
    }
    if resume is not None:
        apply_resume(state, state["round"], resume)
    fx.append({"kind": "round_started", "round": state["round"]["no"]})


def first_drawer(cut: str) -> str | None:
    """Counting counter-clockwise from South by the cut card's rank (A = 1, J 11, Q 12, K 13);
    None when the card must be cut again (a joker or the heart 2)."""
    try:
        return rules_first_drawer(parse_cards([cut])[0])
    except ValueError:
        return None


def on_first_cut(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``first_cut_recorded``: South's cut card before the first deal."""
    rnd = require_round(state, ev["type"])
    if state["score_sheet"] or (state["deal"] is not None):
        raise EventRejected("只有第一副牌需要翻牌 / first_cut_recorded: only the first deal has a cut card")
    cut = card_field(ev["data"], "card", ev["type"])
    drawer = first_drawer(cut)
    recut = drawer is None
    state["first_cut"] = {"card": cut, "first_drawer": drawer, "recut": recut, "seq": ev["seq"]}
    rnd["status"] = "cutting" if recut else "drawing"


# ------------------------------------------------------------------------- deal start


def on_drawing_finished(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``drawing_finished``: the deal starts — tribute, return, or straight to the lead."""
    if ended_by_time_now(state, ev):
        # Generation 7 (apply._dispatch): the time limit passed before this deal was drawn, with no tick to
        # end the round then; it ended by its time, and no further deal starts.
        raise EventRejected("时间已到，本轮已结束，不再开始新的一副 / drawing_finished: the round's time limit passed "
                            "before this deal; the round ended with the deal before it, and no further deal starts")
    rnd = require_round(state, ev["type"])
    if state["deal"] is not None and state["deal"]["phase"] != "over":
        raise EventRejected("上一副牌未结束 / drawing_finished: the current deal has not ended")
    data = ev["data"]
    counts_in = data.get("counts") or {s: HAND_SIZE for s in SEATS}
    if not isinstance(counts_in, dict) or set(counts_in) != set(SEATS) or not all(
        isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= 108 for v in counts_in.values()
    ):
        raise EventRejected(f"牌数无效：东南西北各须为 0…108，收到 {counts_in!r} / drawing_finished: counts must give 0…108 for E S W N, got {counts_in!r}")
    plan = state["next_deal"]
    # Every deal started gets its own number, an abandoned one too (a round that ends on a tie while a
    # deal is played plays one more): in duplicate play the feed releases a deal by its number, and
    # the extra deal must not take the abandoned one's, released already.
    no = rnd["deals_started"] + 1
    if plan is None:
        holder = seat_field(data, "cut_card_holder", ev["type"], required=False)
        cut = state["first_cut"]
        if holder is None and (cut is None or cut["recut"]):
            raise EventRejected("第一副牌需要翻牌或领出者 / drawing_finished: the first deal needs a cut card or cut_card_holder")
        leader = holder or cut["first_drawer"]
        plan = {"kind": "first", "leader": leader, "payers": [], "top": None}
        # A moved match's first deal here is at the level of the side that won the last one there.
        level, level_side = rnd["first_level"], (rnd.get("resumed") or {}).get("next_side")
    else:
        level_side = side_of(plan["top"])
        level = state["levels"][level_side]
    deal = new_deal(no, level, level_side, state["t_ms"], counts_in)
    # The deal's first event: what "an event of this deal" means (a correction or a void reaches only
    # those, apply._target), for the panel too, which must not guess it from times.
    deal["first_seq"] = ev["seq"]
    state["deal"] = deal
    rnd["deals_started"] = no
    rnd["status"] = "play"
    deal["tribute_plan"] = {k: v for k, v in plan.items() if k not in ("kind", "skip_turn")} | {"kind": plan["kind"]}
    # A violation ruled between the deals took a turn of this one (generation 5, penalties.take_turn_away).
    deal["skip_turn"] = list(plan.get("skip_turn", ()))
    wrong = {s: n for s, n in counts_in.items() if n != HAND_SIZE}
    if wrong:
        raise_flag(state, ev, "wrong_count", None, {"counts": dict(counts_in)}, fx)
    fx.append({"kind": "deal_started", "deal": no, "level": level})
    for seat in SEATS:
        fx.append({"kind": "lamp", "seat": seat, "lamp": "report", "mode": "off"})
    if plan["kind"] in ("single", "double"):
        deal["phase"] = "tribute"
        rnd["status"] = "tribute"
        for payer in plan["payers"]:
            start_timer(state, payer, "tribute", fx)
        return
    start_play(state, ev, plan["leader"], fx)


def start_play(state: State, ev: dict[str, Any], leader: str, fx: Effects, *, first_lead: bool = True) -> None:
    """Hand the lead to ``leader`` and start its clock: straight after drawing when no tribute is
    due, or when the tribute phase ends (an anti-tribute, the last return)."""
    deal = state["deal"]
    if leader in deal["skip_turn"]:
        # A violation during the tribute cost the leader its turn: the non-offending side leads
        # (everyone still holds cards, so the leader's 下家).
        deal["skip_turn"].remove(leader)
        deal["trick"]["plays"].append({"seq": ev["seq"], "seat": leader, "pass": True, "skipped": True,
                                       "t_ms": state["t_ms"]})
        leader = seats_from(leader)[1]
    deal["phase"] = "play"
    state["round"]["status"] = "play"
    deal["trick"]["leader"] = leader
    deal["leader"] = leader
    set_turn(state, leader, fx, first_lead=first_lead)
