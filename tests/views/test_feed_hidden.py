"""Hidden information the public feed must not show, found by the outside audit (docs/security.md §3).

Each case is projected from real engine states (the pure fold the feed itself runs) and, for the
return cards, read through a real :class:`FeedView` as ``state.json``/``events.json`` serve it.
"""

from __future__ import annotations

import json
from typing import Any

from table_service.engine.apply import apply
from table_service.engine.self_play import SelfPlayTable
from table_service.engine.state import initial_state, state_to_json
from table_service.views.feed import FeedView, public_event, public_state

PLAYERS = {"E": "张", "S": "李", "W": "王", "N": "赵"}


class _Log:
    """A runner as the feed sees it (``subscribe``, ``events``, ``state``) over a fixed event list."""

    def __init__(self, events: list[dict[str, Any]], state: dict[str, Any]) -> None:
        self._events, self._state = events, state

    def subscribe(self, _fn: Any) -> Any:
        return lambda: None

    def events(self, after: int = 0) -> list[dict[str, Any]]:
        return [e for e in self._events if e["seq"] > after]

    def state(self) -> dict[str, Any]:
        return self._state


def _double_down_returns(seed: int = 0) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """A self-played round (four rule-following bots) and the ``return_given`` events of its
    double-down deals that left a return still to come."""
    table = SelfPlayTable(seed)
    events: list[dict[str, Any]] = []
    partial = []
    for ev in table.run_deals(4):
        events.append(ev)
        deal = table.state["deal"] or {}
        if ev["type"] == "return_given" and len(deal["returns"]) < len(deal["tributes"]):
            partial.append(ev)
    return events, partial


def test_a_double_down_return_stays_face_down_until_both_are_given() -> None:
    # Rules (tribute and return): after a double-down "returns are placed face down and the two
    # tributors show them at once". The feed showed the first return's card, in the state and in
    # its event, however long the second took: with a short delay the hall saw it first.
    events, partial = _double_down_returns()
    assert partial, "the seeded round has a double-down deal"
    first = partial[0]
    upto = [e for e in events if e["seq"] <= first["seq"]]
    feed = FeedView(_Log(upto, {}), pump_thread=False, clock=lambda: 1e15)
    try:
        deal = feed.state()["deal"]
        assert deal["returns"] == [{"from": first["data"]["seat"], "to": deal["returns"][0]["to"], "card": None}]
        last = feed.events()[-1]
        assert last["type"] == "return_given" and last["data"] == {"seat": first["data"]["seat"]}
    finally:
        feed.close()
    # Once the second return is given both cards are shown, as at the table.
    second = next(e for e in events if e["type"] == "return_given" and e["seq"] > first["seq"])
    feed = FeedView(_Log([e for e in events if e["seq"] <= second["seq"]], {}), pump_thread=False,
                    clock=lambda: 1e15)
    try:
        cards = {r["from"]: r["card"] for r in feed.state()["deal"]["returns"]}
        assert cards == {first["data"]["seat"]: first["data"]["card"], second["data"]["seat"]: second["data"]["card"]}
        assert feed.events()[-1]["data"]["card"] == second["data"]["card"]
    finally:
        feed.close()


def test_no_return_card_is_public_while_a_return_is_owed_over_many_rounds() -> None:
    seen = 0
    for seed in range(6):
        table = SelfPlayTable(seed)
        for ev in table.run_deals(4):
            st = state_to_json(table.state)
            deal = st.get("deal") or {}
            if len(deal.get("returns") or ()) < len(deal.get("tributes") or ()):
                seen += 1
                pub = public_state(st)
                assert all(r["card"] is None for r in pub["deal"]["returns"])
                pe = public_event(ev, st)
                assert pe is None or "card" not in pe["data"] or ev["type"] != "return_given"
    assert seen >= 2


def _fold(*steps: tuple[str, dict[str, Any], int, str]) -> tuple[dict[str, Any], dict[str, Any]]:
    s = initial_state()
    ev: dict[str, Any] = {}
    for seq, (etype, data, t, source) in enumerate(steps, 1):
        ev = {"seq": seq, "t_ms": t, "type": etype, "source": source,
              "role": "referee" if etype == "round_set_up" else None, "data": data}
        s, _ = apply(s, ev)
    return ev, state_to_json(s)


SETUP: tuple[tuple[str, dict[str, Any], int, str], ...] = (
    ("round_set_up", {"players": PLAYERS, "ruleset": "jiangsu", "format": {"kind": "deals", "deals": 2}}, 1000, "panel"),
    ("first_cut_recorded", {"card": "7s"}, 2000, "panel"),  # North leads
)


def test_a_withdrawn_time_over_warning_is_not_a_public_penalty() -> None:
    # The ticks gave West an automatic warning; West's play, stamped at the deadline by the camera,
    # shows it was in time, so the engine withdrew it (the ladder is 0 again). The public state
    # still listed it as a warning given.
    _, st = _fold(*SETUP, ("drawing_finished", {}, 3000, "panel"), ("cards_played", {"seat": "N", "cards": ["3s"]}, 4000, "camera"))
    deadline = st["deal"]["timers"]["W"]["deadline_ms"]
    steps = (*SETUP, ("drawing_finished", {}, 3000, "panel"), ("cards_played", {"seat": "N", "cards": ["3s"]}, 4000, "camera"),
             ("clock_ticked", {}, deadline + 2000, "clock"), ("clock_ticked", {}, deadline + 11_000, "clock"))
    _, ticked = _fold(*steps)
    assert [p["level"] for p in public_state(ticked)["penalties"]] == ["warning"]  # stands: shown
    _, st = _fold(*steps, ("cards_played", {"seat": "W", "cards": ["4s"]}, deadline, "camera"))
    assert st["penalties"]["records"][0]["withdrawn"] is True and st["penalties"]["EW"]["warnings"] == 0
    assert public_state(st)["penalties"] == []


def test_whether_a_report_was_late_is_not_public() -> None:
    # North plays down to 10 and West acts before North's report card: the engine raises an open
    # report_missing flag (the referee's) and marks the report, when it comes, ``late``. The count
    # North states is public; the engine's "late" is not, as the open flag is not.
    _, st = _fold(*SETUP, ("drawing_finished", {"counts": {"E": 27, "S": 27, "W": 27, "N": 11}}, 3000, "panel"),
                  ("cards_played", {"seat": "N", "cards": ["3s"]}, 4000, "camera"),
                  ("cards_played", {"seat": "W", "cards": ["4s"]}, 5000, "camera"),
                  ("report_pressed", {"seat": "N"}, 6000, "screen"))
    assert st["deal"]["reports"]["N"]["late"] is True
    assert any(f["rule"] == "report_missing" and f["status"] == "open" for f in st["flags"])
    pub = public_state(st)
    assert pub["deal"]["reports"] == {"N": {"seq": 6, "count": 10}} and pub["deal"]["report_lamps"]["N"]
    assert "late" not in json.dumps(pub)


def test_a_penalty_names_its_flag_in_public_only_once_the_flag_is_confirmed() -> None:
    """A referee's warning is public as given; the open flag it cites is the referee's (the public
    event named "F4" while the public flag list was empty)."""
    s = initial_state()
    steps = [*SETUP, ("drawing_finished", {}, 3000, "panel"),
             ("cards_played", {"seat": "E", "cards": ["5s"]}, 4000, "camera")]  # North leads: out of turn
    for seq, (etype, data, t, source) in enumerate(steps, 1):
        s, _ = apply(s, {"seq": seq, "t_ms": t, "type": etype, "source": source,
                         "role": "referee" if etype == "round_set_up" else None, "data": data})
    flag = next(f for f in state_to_json(s)["flags"] if f["rule"] == "out_of_turn")
    assert flag["status"] == "open"
    pen = {"seq": 10, "t_ms": 5000, "type": "penalty_given", "source": "panel", "role": "referee",
           "data": {"side": "EW", "level": "warning", "article": "越序出牌 / out of turn", "seat": "E",
                    "flag": flag["id"]}}
    s, _ = apply(s, pen)
    out = public_event(pen, state_to_json(s))
    assert out is not None and out["data"]["level"] == "warning" and "flag" not in out["data"]
    conf = {"seq": 11, "t_ms": 6000, "type": "flag_confirmed", "source": "panel", "role": "referee",
            "data": {"flag": flag["id"]}}
    s, _ = apply(s, conf)
    assert public_event(pen, state_to_json(s))["data"]["flag"] == flag["id"]  # type: ignore[index]
