"""A seeded bot table plays random legal deals through the engine.

Nothing the bots do is wrong, so the engine must raise no flag; replaying each log must give
the identical state; every deal must conserve the 108 cards (cards played + cards left in hand
= the two decks, never more than 2 copies of a card seen).
"""

from __future__ import annotations

from collections import Counter

import pytest

from table_service.engine.apply import apply, fold
from table_service.engine.self_play import BotTable
from table_service.engine.state import initial_state, state_to_json
from table_service.rules.cards import full_deck

DECK = Counter(str(c) for c in full_deck())


def _run(seed: int, deals: int) -> None:
    bots = BotTable(seed, tick_every_ms=15_000)
    events = []
    shadow = initial_state()  # the same events through the pure apply, event by event
    done = 0
    for ev in bots.run_deals(deals):
        events.append(ev)
        shadow, _fx = apply(shadow, ev)
        st = bots.state
        deal = st["deal"]
        if deal is not None and deal["phase"] in ("play", "over"):
            for seat in "ESWN":
                assert deal["counts"][seat] == len(bots.hands[seat]), (seed, ev)
            assert all(n <= 2 for n in deal["seen"].values())
        if ev["type"] in ("cards_played", "passed") and deal["phase"] == "over":
            done += 1
            played = Counter(c for cards in deal["by_seat"].values() for c in cards)
            held = Counter(str(c) for h in bots.hands.values() for c in h)
            assert played + held == DECK, f"seed {seed} deal {deal['no']}: cards not conserved"
            assert sum(deal["counts"].values()) + sum(played.values()) == 108
            rec = st["deal_records"][-1]
            assert sorted(c for t in rec["tricks"] for p in t for c in p.get("cards", [])) == sorted(played.elements())
            if done % 10 == 0:
                assert state_to_json(shadow) == state_to_json(st)
    assert done == deals
    flags = [f for f in bots.state["flags"] if f["rule"] != "time_over"]
    assert flags == [], f"seed {seed}: legal play raised {flags[:3]}"
    # replaying the whole log gives the identical state
    assert state_to_json(fold(events)) == state_to_json(bots.state) == state_to_json(shadow)


@pytest.mark.parametrize("seed", range(4))
def test_bot_deals_default(seed: int) -> None:
    """200 deals in all by default (4 seeds x 50)."""
    _run(seed, 50)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_bot_deals_thousand(seed: int) -> None:
    """1,000 deals (10 seeds x 100)."""
    _run(1000 + seed, 100)


def test_bot_rounds_reach_a_result() -> None:
    """Whole rounds to past A end with a winner past A and consistent level points."""
    for seed in range(3):
        bots = BotTable(50 + seed)
        events = list(bots.run_round({"kind": "past_a"}))
        result = bots.state["result"]
        assert result is not None and result["reason"] == "past_a"
        assert result["winner"] == result["past_a"]
        assert sum(result["level_points"].values()) == 26
        assert result["level_points"][result["winner"]] > 13
        assert result["match_points"][result["winner"]] == 2
        assert state_to_json(fold(events)) == state_to_json(bots.state)


def test_apply_never_changes_its_input() -> None:
    """``apply`` is pure: the state passed in is the same afterwards, for every kind of event
    the bots produce and for a referee correction that re-folds the deal."""
    bots = BotTable(5, tick_every_ms=15_000)
    events = list(bots.run_deals(2))
    state = initial_state()
    for ev in events:
        before = state_to_json(state)
        log_len = len(state["_deal_log"])
        new, _fx = apply(state, ev)
        assert state_to_json(state) == before and len(state["_deal_log"]) == log_len
        state = new
    last_play = next(e for e in reversed(events) if e["type"] == "cards_played")
    before = state_to_json(state)
    fix = {"t_ms": events[-1]["t_ms"] + 1, "type": "event_voided", "source": "panel", "role": "referee",
           "data": {"ref": last_play["seq"], "reason": "test"}}
    new, _fx = apply(state, fix)
    assert state_to_json(state) == before
    assert state_to_json(new) != before and new["deal"]["phase"] == "play"
