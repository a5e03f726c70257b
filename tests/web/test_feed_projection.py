"""What the public may see, projected from real engine states (the engine's pure fold)."""

from __future__ import annotations

from table_service.engine.apply import apply
from table_service.engine.state import initial_state, state_to_json
from table_service.views.feed import deal_key, public_event, public_state

PLAYERS = {"E": "张", "S": "李", "W": "王", "N": "赵"}


def run(events):
    s = initial_state()
    out = []
    for i, e in enumerate(events, 1):
        ev = {"seq": i, "t_ms": 1000 * i, "source": "panel", "role": None, **e}
        s, _ = apply(s, ev)
        out.append((ev, state_to_json(s)))
    return out


SETUP = [
    {"type": "round_set_up", "role": "referee", "data": {"players": PLAYERS, "ruleset": "jiangsu",
                                                          "format": {"kind": "deals", "deals": 2}}},
    {"type": "first_cut_recorded", "data": {"card": "7s"}},
    {"type": "drawing_finished", "data": {}},
]


def test_public_state_shows_table_not_secrets():
    steps = run([
        *SETUP,
        {"type": "cards_played", "source": "camera", "data": {"seat": "N", "cards": ["3s"], "confidence": [0.99]}},
        {"type": "cards_played", "source": "camera",
         "data": {"seat": "W", "cards": ["5h"], "confidence": [0.4], "uncertain": True}},
        {"type": "referee_called", "data": {"seat": "E", "reason": "x"}},
    ])
    ev, st = steps[-1]
    assert st["deal"]["questions"] and any(f["status"] == "open" for f in st["flags"])
    pub = public_state(st)
    assert pub["players"] == PLAYERS
    assert pub["deal"]["counts"]["N"] == 26
    assert pub["deal"]["trick"]["plays"][0]["cards"] == ["3s"]
    assert pub["recent_plays"][-1]["cards"] == ["3s"]
    assert pub["flags"] == []  # an open flag is not public
    text = repr(pub)
    for secret in ("questions", "confidence", "unseen", "evidence", "5h", "devices"):
        assert secret not in text
    assert deal_key(st) == (1, 1)
    assert deal_key(steps[0][1]) is None


def test_public_events_filter():
    steps = run([
        *SETUP,
        {"type": "cards_played", "source": "camera", "data": {"seat": "N", "cards": ["3s"], "confidence": [0.99]}},
        {"type": "cards_played", "source": "camera",
         "data": {"seat": "W", "cards": ["5h"], "confidence": [0.4], "uncertain": True}},
        {"type": "referee_called", "data": {"seat": "E"}},
        {"type": "flag_confirmed", "role": "referee", "data": {"flag": "F6", "note": "private note"}},
        {"type": "clock_ticked", "source": "clock", "data": {}},
    ])
    pubs = [public_event(ev, st) for ev, st in steps]
    assert pubs[0]["type"] == "round_set_up"
    assert pubs[3]["data"] == {"seat": "N", "cards": ["3s"]}  # confidence dropped
    assert pubs[4] is None  # uncertain read: a question, not a play
    assert pubs[5] is None  # referee call: an open flag
    assert pubs[6]["data"]["rule"] == "referee_call" and "note" not in pubs[6]["data"]
    assert "evidence" not in repr(pubs[6])
    assert pubs[7] is None  # clock ticks are not listed
    assert public_state(steps[6][1])["flags"][0]["id"] == "F6"


def test_a_read_the_engine_doubts_is_not_a_public_play():
    """A camera read the engine turns into a question without the camera's own doubt (a third copy
    of a face) was listed as a play in the public events; the public trick already left it out."""
    steps = run([
        *SETUP,
        {"type": "cards_played", "source": "camera", "data": {"seat": "N", "cards": ["3s"], "confidence": [0.99]}},
        {"type": "cards_played", "source": "camera", "data": {"seat": "W", "cards": ["3s"], "confidence": [0.99]}},
        {"type": "cards_played", "source": "camera", "data": {"seat": "S", "cards": ["3s"], "confidence": [0.99]}},
    ])
    (_, st) = steps[-1]
    assert [q.get("reason") for q in st["deal"]["questions"]] == ["third_copy"]
    pubs = [public_event(ev, st) for ev, st in steps]
    assert pubs[-1] is None and pubs[-2]["data"] == {"seat": "W", "cards": ["3s"]}
