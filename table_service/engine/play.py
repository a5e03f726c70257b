"""Tricks: plays, passes, report cards, turn order, 接风, and the flags they raise.

A wrong play is not bad input: it happened on the table. It is accepted, stays on the record
(a play seen cannot be taken back: the cards leave the hand and count as seen) and raises a
flag. It does not become the trick's top play and the turn stays where it was, so the referee
can void it, correct a misread, or rule that the offender loses the turn (``penalty_given``
with ``lose_turn``).
"""

from __future__ import annotations

import math
from typing import Any

from table_service.engine.deal_end import finish_deal
from table_service.engine.errors import EventRejected
from table_service.engine.events import card_field, cards_field, field, seat_field
from table_service.engine.flags import raise_flag
from table_service.engine.ruleset import since
from table_service.engine.state import HAND_SIZE, PHASE_ZH, State, leader_after_trick, next_active
from table_service.engine.timers import set_turn, stop_and_check
from table_service.engine.tribute_phase import check_anti_tribute_missed, prove_return_wrong
from table_service.rules.cards import RANK_NAMES_ZH, cards_zh, parse_cards
from table_service.rules.patterns import KIND_NAMES_ZH, Play, beats, classify, strength
from table_service.rules.reading import consistent_with_order, reading_for, row_readings
from table_service.rules.seats import seat_zh, seats_from, side_of
from table_service.rules.tribute import tribute_proved_wrong, tribute_settled

Effects = list[dict[str, Any]]


def _reading_zh(kind: Any, rank: Any) -> str:
    """A reading as the Chinese half says it (``顺子 10``): the pattern's name, the rank as a card says it."""
    return f"{KIND_NAMES_ZH.get(kind, kind) if isinstance(kind, str) else kind} " \
           f"{RANK_NAMES_ZH.get(rank, rank) if isinstance(rank, str) else rank}"


def require_play_phase(state: State, etype: str) -> dict[str, Any]:
    """The deal, if it is in its play phase."""
    deal = state.get("deal")
    if state.get("round") is None or deal is None:
        raise EventRejected(f"{etype}：牌局未开始 / {etype}: no deal in progress")
    if deal["phase"] != "play":
        raise EventRejected(f"{etype}：当前不是出牌阶段（现在：{PHASE_ZH.get(deal['phase'], deal['phase'])}）"
                            f" / {etype}: the deal is in its {deal['phase']} phase, not play")
    return deal


def choose_reading(cards: list[str], level: str, top: Play | None, declared: dict[str, Any] | None,
                   copies_apart: bool = True, row_decides: bool = True) -> tuple[Play | None, list[Play]]:
    """The reading of a play and all its readings.

    With a declared reading (the player's statement, or the referee's ``reading_declared``) that
    reading is taken. Otherwise ``rules.reading_for`` decides: the readings the wild card's
    position in the row leaves, one that beats the trick, the strongest if several are left.
    ``row_decides`` (rounds from generation 3): when none of the row's readings beats, the play is
    read by the row and does not beat; before, a reading the row ruled out was taken if it beat.

    :raises EventRejected: when the declared reading is not a reading of these cards.
    """
    plays = classify(parse_cards(cards), level)
    if not plays:
        return None, []
    if declared:
        for p in plays:
            if p.kind == declared.get("kind") and p.rank == declared.get("rank"):
                return p, plays
        options = ", ".join(f"{p.kind} {p.rank}" for p in plays)
        raise EventRejected(
            f"声明的牌型{_reading_zh(declared.get('kind'), declared.get('rank'))} 不成立：{cards_zh(cards)} 只可读作"
            f"{'、'.join(_reading_zh(p.kind, p.rank) for p in plays)} / declared reading {declared.get('kind')} {declared.get('rank')} "
            f"is not a reading of {' '.join(cards)} (possible: {options})"
        )
    if len(plays) == 1:
        return plays[0], plays
    reading = reading_for(plays[0].cards, level, previous=top, order=parse_cards(cards), copies_apart=copies_apart,
                          row_decides=row_decides)
    if reading.play is not None:
        return reading.play, plays
    # Nothing the row allows beats the trick: keep the strongest of the row's readings for the
    # record (flagged by the caller: none of them beats).
    pool = row_readings(plays, parse_cards(cards), copies_apart=copies_apart) if row_decides else plays
    return max(pool, key=lambda p: strength(p, level)), plays


def _readings_left(cards: list[str], level: str, top: Play | None, copies_apart: bool = True,
                   row_decides: bool = True) -> list[str]:
    """The distinct readings ``kind rank`` still possible after the trick and the row order."""
    r = reading_for(parse_cards(cards), level, previous=top, order=parse_cards(cards), copies_apart=copies_apart,
                    row_decides=row_decides)
    if not r.ambiguous:
        return []
    pool = [p for p in r.candidates
            if consistent_with_order(p, parse_cards(cards), copies_apart=copies_apart)] or list(r.candidates)
    return sorted({f"{p.kind} {p.rank}" for p in pool})


def _check_report_missing(state: State, ev: dict[str, Any], actor: str, fx: Effects) -> None:
    """Another seat acted while a report card was due: flag it, once per seat per deal.

    The report card is once per deal (rules: "never again, and nobody may ask again"), so a
    missed report is one breach: the seat goes into ``report_missed`` and its later plays at
    ≤ 10 cards make no new report due (see ``on_cards_played``). Generation 9: only when the seat to
    act acts (docs/rules.md §6: "when the next seat acts first")."""
    deal = state["deal"]
    if since(state, 9) and deal["turn"] != actor:
        # Generation 9: missed when the seat to act acts (play has moved on), not when another seat acts
        # out of turn (that is its own breach); before, any other seat's action.
        return
    for seat in sorted(deal["report_due"]):
        if seat != actor:
            play_seq = deal["report_due"].pop(seat)
            deal["report_missed"] = [*deal["report_missed"], seat]
            raise_flag(
                state, ev, "report_missing", seat,
                {"count": deal["counts"][seat], "play_seq": play_seq, "next_actor": actor}, fx,
            )


def _check_time(state: State, ev: dict[str, Any], seat: str, fx: Effects) -> int:
    """Stop the seat's timer; flag time-over if it acted late and no tick had noticed yet."""
    return stop_and_check(state, ev, seat, fx)


def _check_tribute(state: State, ev: dict[str, Any], seat: str, cards: list[str], fx: Effects) -> None:
    """Tribute not the highest card: proved when the tributor plays a card of strictly higher
    power (not the heart level card; the card returned to it excepted, one copy per return). A
    corrected tribute (``tribute_corrected``) is checked as it stands: the card given until the
    correction, the corrected card after it."""
    deal = state["deal"]
    level = deal["level"]
    for i, trib in enumerate(deal["tributes"]):
        if trib["from"] != seat or trib.get("check", "open") != "open":
            continue
        received = [r["card"] for r in deal["returns"] if r["to"] == seat]
        earlier = list(deal["by_seat"][seat])
        for c in earlier:  # a returned card already played is no longer in hand
            if c in received:
                received.remove(c)
        tribute = parse_cards([trib["card"]])[0]
        for c in parse_cards(cards):
            s = str(c)
            if s in received:
                received.remove(s)
                continue
            if tribute_proved_wrong(tribute, c, level):
                evidence = {"tribute": trib["card"], "card": s, "tribute_seq": trib["seq"]}
                if trib.get("corrected"):  # the card the referee had given in place of a wrong one
                    evidence["corrected_seq"] = trib["corrected"]["seq"]
                raise_flag(state, ev, "tribute_not_highest", seat, evidence, fx)
                deal["tributes"][i] = dict(trib, check="wrong")
                break


def _settle_tribute(state: State, ev: dict[str, Any], seat: str, fx: Effects) -> None:
    """The tributor has played out: every card it held when paying has been seen, so the check
    is decided, not left open. ``check`` becomes ``highest`` (legal) or ``wrong`` (flagged, if no
    later play had proved it already). Left open when the seat's cards do not add up to a full
    hand (a wrong count at the drawing): then not every card was seen. A corrected tribute is
    settled against the cards played after the correction, the hand it was given from."""
    deal = state["deal"]
    level = deal["level"]
    received = [r["card"] for r in deal["returns"] if r["to"] == seat]
    given = [t for t in deal["tributes"] if t["from"] == seat]
    played = list(deal["by_seat"][seat])
    if not given or len(played) != HAND_SIZE - len(given) + len(received):
        return
    for i, trib in enumerate(deal["tributes"]):
        if trib["from"] != seat or trib.get("check", "open") != "open":
            continue
        held = _held_after(played, received, (trib.get("corrected") or {}).get("played_before", 0))
        if tribute_settled(parse_cards([trib["card"]])[0], parse_cards(held), level):
            deal["tributes"][i] = dict(trib, check="highest")
            continue
        evidence = {"tribute": trib["card"], "held": held, "tribute_seq": trib["seq"], "settled": True}
        if trib.get("corrected"):
            evidence["corrected_seq"] = trib["corrected"]["seq"]
        raise_flag(state, ev, "tribute_not_highest", seat, evidence, fx)
        deal["tributes"][i] = dict(trib, check="wrong")


def _held_after(played: list[str], received: list[str], before: int) -> list[str]:
    """The cards a tributor played from its ``before``-th play on, less the cards returned to it
    that it had not played by then (one copy per return): what it held, besides the tribute, when
    it paid (``before`` 0) or when the referee had its tribute corrected."""
    earlier = list(played[:before])
    held = list(played[before:])
    for c in received:
        if c in earlier:
            earlier.remove(c)
        elif c in held:
            held.remove(c)
    return held


def _beyond_the_decks(deal: dict[str, Any], seat: str, cards: list[str]) -> list[str]:
    """Faces of ``cards`` that would be more copies than two decks hold: copies in this play,
    plus copies already seen this deal, plus copies declared (抗贡) in another seat's hand."""
    seen = deal["seen"]
    declared = deal.get("declared") or {}
    out = []
    for c in sorted(set(cards)):
        elsewhere = sum(held.count(c) for s, held in declared.items() if s != seat)
        if cards.count(c) + seen.get(c, 0) + elsewhere > 2:
            out.append(c)
    return out


def _check_declared(state: State, ev: dict[str, Any], seat: str, cards: list[str], fx: Effects) -> None:
    """Cards declared for anti-tribute (抗贡) are seen cards, held by the declarers: a declarer
    playing one takes it out of ``declared``; anyone else playing a copy that the declaration
    accounts for (two decks hold two big jokers) contradicts it — a false declaration or a misread,
    for the referee. One flag per play."""
    deal = state["deal"]
    declared = deal.get("declared") or {}
    if not declared:
        return
    mine = list(declared.get(seat, ()))
    seen = dict(deal["seen"])
    flagged = False
    for c in cards:
        if c in mine:
            mine.remove(c)
            seen[c] = seen.get(c, 0) + 1
            continue
        holders = [s for s, held in declared.items() if s != seat and c in held]
        elsewhere = sum(declared[s].count(c) for s in holders)
        if holders and not flagged and seen.get(c, 0) + elsewhere >= 2:
            anti = deal["anti_tribute"] or {}
            raise_flag(state, ev, "declared_card_contradiction", seat,
                       {"card": c, "declared_by": holders, "declared_seq": anti.get("seq")}, fx)
            flagged = True
        seen[c] = seen.get(c, 0) + 1
    if seat in declared:
        deal["declared"] = {**declared, seat: mine}


def _see_cards(state: State, ev: dict[str, Any], seat: str, cards: list[str], fx: Effects) -> None:
    deal = state["deal"]
    seen = deal["seen"]
    seen_at = deal["_seen_at"]
    for c in cards:
        seen[c] = seen.get(c, 0) + 1
        seen_at[c] = [*seen_at.get(c, ()), ev["seq"]]
        if seen[c] == 3:
            raise_flag(state, ev, "card_seen_third_time", seat, {"card": c, "earlier": sorted(set(seen_at[c][:-1]))}, fx)


def on_cards_played(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``cards_played``: an uncertain camera read opens a question; anything else is a play."""
    data = ev["data"]
    seat = seat_field(data, "seat", ev["type"])
    cards = cards_field(data, "cards", ev["type"])
    deal = require_play_phase(state, ev["type"])
    declared = data.get("reading")
    if declared is not None and not isinstance(declared, dict):
        raise EventRejected("牌型声明无效 / reading must be an object {kind, rank}")
    beyond = _beyond_the_decks(deal, seat, cards)
    ruled = bool(ev.get("_referee")) and bool(data.get("confirmed") or data.get("corrected"))
    third_copy = bool(beyond) and ev["source"] == "camera" and not ruled
    if (data.get("uncertain") and ev["source"] == "camera") or third_copy:
        question = {
            "seq": ev["seq"],
            "seat": seat,
            "cards": cards,
            "confidence": data.get("confidence"),
            "t_ms": state["t_ms"],
        }
        if third_copy:
            # Two decks hold two of each face: a read that would be a third copy (counting cards
            # played and cards declared in another hand) is a misread until the referee says not.
            question["reason"] = "third_copy"
            question["beyond"] = beyond
        deal["questions"].append(question)
        fx.append({"kind": "question_opened", "question": dict(question)})
        fx.append({"kind": "lamp", "seat": None, "lamp": "referee", "mode": "blink"})
        return
    twice = sorted({c for c in cards if cards.count(c) > 2})
    if twice:
        raise EventRejected(
            f"牌不可能：{cards_zh(twice, '、')} 在一手中超过两张（两副牌每张只有两张） / impossible cards: {' '.join(twice)} more than twice in one play (two decks hold 2)"
        )
    level = deal["level"]
    trick = deal["trick"]
    top: Play | None = deal["_top"]
    finished_before = seat in deal["finish_order"]
    in_turn = deal["turn"] == seat and not finished_before
    apart = since(state, 2)  # two wild cards read apart: rounds set up under generation 2 (ruleset.py)
    by_row = since(state, 3)  # the row decides even when its reading does not beat: generation 3
    reading, _all = choose_reading(cards, level, top if in_turn else None, declared, apart, by_row)
    if (
        reading is not None
        and not declared
        and not (ev.get("_referee") and data.get("confirmed"))
        and state["round"]["_rules"].unstated_reading == "ask"
    ):
        left = _readings_left(cards, level, top if in_turn else None, apart, by_row)
        if len(left) > 1:
            # Several readings are still possible and nobody stated one: ask the referee, who
            # answers with ``reading_declared`` (or ``play_corrected``).
            question = {"seq": ev["seq"], "seat": seat, "cards": cards, "confidence": data.get("confidence"),
                        "t_ms": state["t_ms"], "reason": "reading", "readings": left}
            deal["questions"].append(question)
            fx.append({"kind": "question_opened", "question": dict(question)})
            fx.append({"kind": "lamp", "seat": None, "lamp": "referee", "mode": "blink"})
            return

    _check_report_missing(state, ev, seat, fx)
    rules: list[str] = []
    out_of_turn = None
    if finished_before:
        rules.append("finished_seat_acted")
        raise_flag(state, ev, "finished_seat_acted", seat, {"cards": cards}, fx)
    elif not in_turn:
        rules.append("out_of_turn")
        out_of_turn = raise_flag(state, ev, "out_of_turn", seat, {"turn": deal["turn"], "cards": cards}, fx)
    if reading is None:
        rules.append("not_a_pattern")
        raise_flag(state, ev, "not_a_pattern", seat, {"cards": cards}, fx)
    elif in_turn and top is not None and not beats(reading, top, level):
        rules.append("does_not_beat")
        top_entry = trick["plays"][trick["top"]]
        raise_flag(state, ev, "does_not_beat", seat, {"cards": cards, "top": top_entry["cards"], "top_seq": top_entry["seq"]}, fx)
    overtime = _check_time(state, ev, seat, fx) if in_turn else 0
    _check_declared(state, ev, seat, cards, fx)
    _see_cards(state, ev, seat, cards, fx)
    _check_tribute(state, ev, seat, cards, fx)
    check_anti_tribute_missed(state, ev, seat, cards, fx)
    prove_return_wrong(state, ev, seat, cards, fx)

    entry = {
        "seq": ev["seq"],
        "seat": seat,
        "cards": cards,
        "kind": reading.kind if reading else None,
        "rank": reading.rank if reading else None,
        "flagged": bool(rules),
        "flags": rules,
        "source": ev["source"],
        "t_ms": state["t_ms"],
        "overtime_ms": overtime,
    }
    if data.get("confidence") is not None:
        entry["confidence"] = data["confidence"]
    trick["plays"].append(entry)
    deal["by_seat"][seat] = deal["by_seat"][seat] + cards
    count = max(0, deal["counts"][seat] - len(cards))
    deal["counts"][seat] = count
    if count == 0 and not finished_before and out_of_turn is not None and since(state, 9):
        # Generation 9: the breach is for the referee, and the deal goes on until the ruling
        # (finish_pending); before, the last card played out of turn ended and scored the deal.
        deal["pending_out"] = {**deal.get("pending_out", {}), seat: out_of_turn["id"]}
    elif count == 0 and not finished_before:
        deal["finish_order"].append(seat)
        _settle_tribute(state, ev, seat, fx)
    threshold = state["round"]["_rules"].report_threshold
    if (
        0 < count <= threshold
        and seat not in deal["reports"]
        and seat not in deal["report_due"]
        and seat not in deal["report_missed"]
    ):
        deal["report_due"][seat] = ev["seq"]

    if rules:
        # A wrong play: on the record, not the trick's top; the turn stays for the referee
        # (its countdown stopped) unless the play emptied the hand.
        if _maybe_end(state, ev, fx):
            return
        if in_turn and count == 0:
            _advance_after_play(state, ev, seat, fx)
        return
    trick["top"] = len(trick["plays"]) - 1
    trick["passed"] = []
    deal["_top"] = reading
    if _maybe_end(state, ev, fx):
        return
    _advance_after_play(state, ev, seat, fx)


def _maybe_end(state: State, ev: dict[str, Any], fx: Effects) -> bool:
    """End the deal at three finished, or at 1st and 2nd of one side."""
    deal = state["deal"]
    order = deal["finish_order"]
    if len(order) >= 3 or (len(order) == 2 and side_of(order[0]) == side_of(order[1])):
        finish_deal(state, ev, fx, ended_by="play")
        return True
    return False


def _advance_after_play(state: State, ev: dict[str, Any], seat: str, fx: Effects) -> None:
    deal = state["deal"]
    nxt = next_active(deal, seat)
    arrive_turn(state, ev, nxt, fx)


def arrive_turn(state: State, ev: dict[str, Any], seat: str | None, fx: Effects) -> None:
    """Give the turn to ``seat``, unless the trick is over or the seat must lose this turn."""
    deal = state["deal"]
    for _ in range(8):
        if seat is None:
            set_turn(state, None, fx)
            return
        trick = deal["trick"]
        top = trick["top"]
        if top is not None:
            top_seat = trick["plays"][top]["seat"]
            others = [s for s in _active(deal) if s != top_seat]
            if all(s in trick["passed"] for s in others):
                _close_trick(state, top_seat)
                seat = leader_after_trick(deal, top_seat)
                continue
        if seat in deal["skip_turn"]:
            deal["skip_turn"].remove(seat)
            if trick["top"] is None:
                # The offender was to lead: the non-offending side leads instead.
                trick["plays"].append({"seq": ev["seq"], "seat": seat, "pass": True, "skipped": True, "t_ms": state["t_ms"]})
                seat = _next_opponent(deal, seat)
                trick["leader"] = seat
                deal["leader"] = seat
                continue
            trick["plays"].append({"seq": ev["seq"], "seat": seat, "pass": True, "skipped": True, "t_ms": state["t_ms"]})
            trick["passed"].append(seat)
            seat = next_active(deal, seat)
            continue
        if trick["top"] is None and not trick["plays"]:
            trick["leader"] = seat
            deal["leader"] = seat
        set_turn(state, seat, fx)
        return
    set_turn(state, seat, fx)


def _next_opponent(deal: dict[str, Any], seat: str) -> str | None:
    """The first seat after ``seat`` in play order that is on the other side and still playing.

    Why not :func:`next_active`: when the offender's 下家 has finished, the next seat still playing
    is the offender's own partner, and the rule gives the lead to the non-offending side.
    """
    side = side_of(seat)
    return next((s for s in seats_from(seat)[1:] if side_of(s) != side and s not in deal["finish_order"]), None)


def _active(deal: dict[str, Any]) -> list[str]:
    return [s for s in ("E", "N", "W", "S") if s not in deal["finish_order"]]


def _close_trick(state: State, winner: str) -> None:
    deal = state["deal"]
    trick = deal["trick"]
    deal["tricks"].append(dict(trick, winner=winner))
    deal["trick"] = {"leader": None, "plays": [], "top": None, "passed": []}
    deal["_top"] = None


def on_passed(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``passed``: a pass in turn moves the trick on; a wrong pass is flagged and recorded."""
    seat = seat_field(ev["data"], "seat", ev["type"])
    deal = require_play_phase(state, ev["type"])
    trick = deal["trick"]
    _check_report_missing(state, ev, seat, fx)
    entry = {"seq": ev["seq"], "seat": seat, "pass": True, "t_ms": state["t_ms"]}
    if seat in deal["finish_order"]:
        raise_flag(state, ev, "finished_seat_acted", seat, {"pass": True}, fx)
        trick["plays"].append(dict(entry, flagged=True))
        return
    if deal["turn"] != seat:
        raise_flag(state, ev, "out_of_turn", seat, {"turn": deal["turn"], "pass": True}, fx)
        trick["plays"].append(dict(entry, flagged=True))
        return
    if trick["top"] is None:
        raise_flag(state, ev, "leader_passed", seat, {}, fx)
        trick["plays"].append(dict(entry, flagged=True))
        return
    entry["overtime_ms"] = _check_time(state, ev, seat, fx)
    trick["plays"].append(entry)
    trick["passed"].append(seat)
    arrive_turn(state, ev, next_active(deal, seat), fx)


def on_report_pressed(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``report_pressed``: the electronic report card (报牌), once per deal, at ≤ 10 cards."""
    seat = seat_field(ev["data"], "seat", ev["type"])
    deal = require_play_phase(state, ev["type"])
    count = deal["counts"][seat]
    threshold = state["round"]["_rules"].report_threshold
    if seat in deal["reports"]:
        raise_flag(state, ev, "report_twice", seat, {"first_seq": deal["reports"][seat]["seq"], "count": count}, fx)
        return
    if count == 0 and since(state, 9):
        raise EventRejected(f"{seat_zh(seat)}已出完，无牌可报 / report_pressed: {seat} has played out; there is nothing to report")
    if count > threshold:
        raise_flag(state, ev, "report_too_early", seat, {"count": count}, fx)
        return
    if not deal["by_seat"][seat] and since(state, 9):
        raise EventRejected(f"{seat_zh(seat)}尚未出牌，无需报牌 / report_pressed: {seat} has not played yet; the report card "
                            "comes right after a play that leaves 10 cards or fewer")
    deal["reports"][seat] = {"seq": ev["seq"], "count": count, "late": seat not in deal["report_due"]}
    deal["report_due"].pop(seat, None)
    fx.append({"kind": "lamp", "seat": seat, "lamp": "report", "mode": "on"})


# ------------------------------------------------------------------------- camera sightings


def _sighting_source(ev: dict[str, Any], allowed: tuple[str, ...]) -> None:
    if ev["source"] not in allowed:
        raise EventRejected(
            f"{ev['type']}：来源无效，须为 {' 或 '.join(allowed)}，收到 {ev['source']!r}"
            f" / {ev['type']}: source must be {' or '.join(allowed)}, got {ev['source']!r}"
        )


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def on_card_exposed(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``card_exposed``: a card lying face up outside every play zone (暴露张, a named breach).

    The camera (or the referee at the panel) reports it; the engine raises an ``exposed_card``
    flag for the referee and changes nothing else: the card does not count as seen or played,
    because nobody knows yet whose hand it belongs to or whether it goes back. A repeat sighting
    of the same card near the same seat while that flag is still open raises nothing new (the
    camera sees a card lying there on every frame)."""
    etype = ev["type"]
    _sighting_source(ev, ("camera", "panel"))
    data = ev["data"]
    card = card_field(data, "card", etype) if data.get("card") is not None else None
    seat = seat_field(data, "seat", etype, required=False)
    pos = data.get("position_mm")
    if pos is not None and not (isinstance(pos, list) and len(pos) == 2 and all(_number(v) for v in pos)):
        raise EventRejected(f"{etype}：位置无效，position_mm 须为以毫米计的 [x, y]，收到 {pos!r}"
                            f" / {etype}: position_mm must be [x, y] in millimetres, got {pos!r}")
    deal = state.get("deal")
    if state.get("round") is None or deal is None or deal["phase"] == "over":
        raise EventRejected(f"{etype}：牌局未进行 / {etype}: no deal in progress")
    for flag in state["flags"]:
        if (
            flag["rule"] == "exposed_card"
            and flag["status"] == "open"
            and flag["deal"] == deal["no"]
            and flag["seat"] == seat
            and flag["evidence"].get("card") == card
        ):
            return
    evidence: dict[str, Any] = {"source": ev["source"]}
    if card is not None:
        evidence["card"] = card
    if pos is not None:
        evidence["position_mm"] = list(pos)
    raise_flag(state, ev, "exposed_card", seat, evidence, fx)


def on_zone_obstructed(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """``zone_obstructed``: the camera saw a hand or an object over a seat's play zone too long.

    The camera decides what "too long" is; the engine records the seconds. It raises a
    ``zone_obstructed`` flag at most once per seat per trick (``deal.obstructed`` keeps, per seat,
    the index of the trick last flagged), so a camera that keeps reporting one long obstruction
    does not flood the referee."""
    etype = ev["type"]
    _sighting_source(ev, ("camera",))
    data = ev["data"]
    seat = seat_field(data, "seat", etype)
    seconds = field(data, "seconds", etype)
    if not _number(seconds) or seconds <= 0:
        raise EventRejected(f"{etype}：秒数无效，须为正数，收到 {seconds!r}"
                            f" / {etype}: seconds must be a positive number, got {seconds!r}")
    deal = require_play_phase(state, etype)
    trick_no = len(deal["tricks"])
    if deal["obstructed"].get(seat) == trick_no:
        return
    deal["obstructed"][seat] = trick_no
    raise_flag(state, ev, "zone_obstructed", seat, {"seconds": seconds, "trick": trick_no + 1}, fx)


def finish_pending(state: State, ev: dict[str, Any], fx: Effects) -> None:
    """Generation 9: a seat whose out-of-turn play emptied its hand finishes once the referee has ruled
    on that play's flag without voiding it (confirmed, dismissed or penalised): the breach is for the
    referee, and the deal goes on until then. A void of the play re-folds the deal without it."""
    deal = state.get("deal")
    if deal is None or deal["phase"] != "play" or not deal.get("pending_out"):
        return
    status = {f["id"]: f["status"] for f in state["flags"]}
    for seat, flag_id in sorted(deal["pending_out"].items()):
        if status.get(flag_id) in ("confirmed", "dismissed"):
            del deal["pending_out"][seat]
            deal["finish_order"].append(seat)
            _settle_tribute(state, ev, seat, fx)
            if _maybe_end(state, ev, fx):
                return
            if deal["turn"] == seat:
                _advance_after_play(state, ev, seat, fx)
