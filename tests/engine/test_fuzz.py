"""Fuzzed events against a table in mid-deal: every event is either applied or rejected with
``EventRejected`` — never another exception — the input state never changes, and an applied
event replays to the same state."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_service.engine.apply import apply, fold
from table_service.engine.errors import EventRejected
from table_service.engine.events import EVENT_TYPES
from table_service.engine.self_play import BotTable
from table_service.engine.state import state_to_json

_bots = BotTable(99)
_EVENTS = list(_bots.run_deals(1)) + []
# a second deal, stopped in the middle of its play (tribute and return done)
_gen = _bots.deal()
for _ in range(40):
    _EVENTS.append(next(_gen))
BASE = fold(_EVENTS)
BASE_JSON = json.dumps(state_to_json(BASE), sort_keys=True)
LAST_T = BASE["t_ms"]

good_seat = st.sampled_from(["E", "S", "W", "N"])
seats = st.one_of(good_seat, good_seat, st.sampled_from(["X", "", None, 3]))
good_card = st.sampled_from(["3s", "3d", "4c", "5h", "6s", "9d", "Ts", "Jc", "Qh", "Kd", "Ah", "As", "2h", "2d", "BJ", "SJ"])
card = st.one_of(good_card, good_card, st.sampled_from(["10h", "大王", "7x", "", 7]))
card_list = st.one_of(st.lists(good_card, min_size=1, max_size=6), st.lists(card, max_size=4), st.just("3s 3d"))
junk = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-5, 100), st.floats(allow_nan=True), st.text(max_size=4)),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=6,
)


def maybe(good: st.SearchStrategy) -> st.SearchStrategy:
    """Mostly a sensible value, sometimes junk."""
    return st.one_of(good, good, good, junk)


FIELDS = {
    "seat": maybe(seats), "cards": maybe(card_list), "card": maybe(card), "confidence": maybe(st.lists(st.floats(0, 1), max_size=6)),
    "uncertain": maybe(st.booleans()), "reading": maybe(st.fixed_dictionaries({"kind": st.sampled_from(["single", "pair", "straight", "bomb"]), "rank": st.sampled_from(["3", "9", "A", "2"])})),
    "counts": maybe(st.fixed_dictionaries({s: st.integers(0, 30) for s in "ESWN"})), "cut_card_holder": maybe(seats),
    "seats": maybe(st.lists(good_seat, max_size=2)), "side": maybe(st.sampled_from(["EW", "NS", "WE"])),
    "level": maybe(st.sampled_from(["warning", "violation", "foul", "loss", "slap"])), "article": maybe(st.text(max_size=5)),
    "lose_turn": maybe(st.booleans()), "next_leader": maybe(seats), "flag": maybe(st.sampled_from(["F1", "F2", "F50"])),
    "ref": maybe(st.integers(1, 260)), "reason": maybe(st.text(max_size=5)), "kind": maybe(st.sampled_from(["single", "pair", "straight"])),
    "rank": maybe(st.sampled_from(["3", "9", "A"])), "minutes": maybe(st.integers(0, 15)),
    "device": maybe(st.sampled_from(["camera", "screen", "gpio", "radio"])), "status": maybe(st.sampled_from(["online", "offline", "meh"])),
    "deal": maybe(st.one_of(st.integers(-1, 6), st.text(max_size=2))), "round": maybe(st.one_of(st.integers(0, 3), st.just(True))),
    "players": maybe(st.just({s: s for s in "ESWN"})), "format": maybe(st.sampled_from([{"kind": "past_a"}, {"kind": "deals", "deals": 2}, {"kind": "x"}])),
}
datas = st.fixed_dictionaries({}, optional=FIELDS)
good_t = st.integers(LAST_T, LAST_T + 100_000)
events = st.fixed_dictionaries({
    "t_ms": st.one_of(good_t, good_t, good_t, good_t, st.integers(LAST_T - 10_000, LAST_T), st.just(-1), st.text(max_size=2)),
    "type": st.one_of(st.sampled_from(EVENT_TYPES), st.sampled_from(EVENT_TYPES), st.sampled_from(EVENT_TYPES), st.text(max_size=8)),
    "source": st.sampled_from(["camera", "screen", "gpio", "panel", "bot", "clock", "system"] * 3 + ["radio"]),
    "role": st.sampled_from([None, "viewer", "referee", "referee", "referee", "chief", "chief", "boss"]),
    "data": datas,
})

# events with a valid envelope and mostly valid fields, so that many are applied
LAST_SEQ = BASE["last_seq"]
valid_events = st.fixed_dictionaries({
    "t_ms": good_t,
    "type": st.sampled_from(["cards_played", "cards_played", "passed", "report_pressed", "play_corrected", "event_voided",
                             "reading_declared", "penalty_given", "referee_called", "flag_confirmed", "clock_ticked"]),
    "source": st.sampled_from(["camera", "panel", "screen"]),
    "role": st.sampled_from(["referee", "chief"]),
    "data": st.fixed_dictionaries(
        {"seat": good_seat},
        optional={
            "cards": st.lists(good_card, min_size=1, max_size=5), "uncertain": st.booleans(),
            "ref": st.integers(LAST_SEQ - 40, LAST_SEQ), "reason": st.just("fuzz"),
            "side": st.sampled_from(["EW", "NS"]), "level": st.sampled_from(["warning", "violation", "foul"]),
            "article": st.just("x"), "lose_turn": st.booleans(), "next_leader": good_seat,
            "kind": st.sampled_from(["single", "pair", "straight"]), "rank": st.sampled_from(["3", "9", "A"]),
        },
    ),
})


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(events, valid_events))
def test_fuzzed_event_is_applied_or_rejected_cleanly(event: dict) -> None:
    try:
        new, _fx = apply(BASE, event)
    except EventRejected as exc:
        assert " / " in str(exc)  # Chinese / English
    else:
        json.dumps(state_to_json(new))
        stamped = {**event, "seq": new["last_seq"]}
        assert state_to_json(fold([stamped], BASE)) == state_to_json(new)
    assert json.dumps(state_to_json(BASE), sort_keys=True) == BASE_JSON
