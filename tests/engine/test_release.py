"""``deal_released``: the chief referee releases an ended deal to the public (duplicate / 复式 play).

The release is an event in the table's log like every other state change, so a replay and a
restarted runner reach the same ``released_deals``."""

from __future__ import annotations

from pathlib import Path

import pytest
from engine_helpers import ONE_EACH, Table

from table_service.engine.apply import apply, fold
from table_service.engine.errors import EventRejected
from table_service.engine.state import initial_state, state_to_json
from table_service.table.runner import TableRunner


def _deal_one_over() -> Table:
    """Round 1, deal 1 played out (one card each: E then W finish, EW +3)."""
    t = Table(fmt={"kind": "deals", "deals": 2})
    t.first_deal("E", ONE_EACH)
    t.play("E", "3s")
    t.pass_("N")
    t.play("W", "4s")
    assert t.deal["phase"] == "over"
    return t


def test_only_the_chief_may_release_and_only_an_ended_deal() -> None:
    t = Table()
    assert "no deal 1" in t.reject("deal_released", {"deal": 1}, role="chief")
    t.first_deal("E", ONE_EACH)
    assert t.reject("deal_released", {"deal": 1}, role="chief") == (
        "deal_released：第 1 轮第 1 副尚未结束 / deal_released: deal 1 of round 1 has not ended")
    t.play("E", "3s")
    t.pass_("N")
    t.play("W", "4s")
    assert "referee role" in t.reject("deal_released", {"deal": 1})
    assert "only the chief referee" in t.reject("deal_released", {"deal": 1}, role="referee")
    assert t.reject("deal_released", {"deal": 2}, role="chief").startswith("deal_released：第 1 轮没有第 2 副（已开始 1 副） / ")
    assert "no deal 0" in t.reject("deal_released", {"deal": 0}, role="chief")
    assert t.reject("deal_released", {"deal": 1, "round": 7}, role="chief").startswith("deal_released：本桌没有第 7 轮 / ")
    assert "must be an integer" in t.reject("deal_released", {"deal": "1"}, role="chief")
    assert "must be an integer" in t.reject("deal_released", {"deal": 1, "round": "1"}, role="chief")
    assert "missing field 'deal'" in t.reject("deal_released", {}, role="chief")
    fx = t.do("deal_released", {"deal": 1}, role="chief")
    assert fx == [{"kind": "deal_released", "round": 1, "deal": 1}]
    release = {"round": 1, "deal": 1, "seq": t.events[-1]["seq"], "t_ms": t.t, "role": "chief",
               "source": t.events[-1]["source"]}
    assert t.state["released_deals"] == [release]
    assert state_to_json(t.state)["released_deals"] == [release]
    assert t.reject("deal_released", {"deal": 1, "round": 1}, role="chief").startswith("deal_released：第 1 轮第 1 副已公开 / ")
    assert t.replay_matches()


def test_release_before_any_round_is_refused() -> None:
    with pytest.raises(EventRejected, match="no round"):
        apply(initial_state(), {"t_ms": 0, "type": "deal_released", "source": "panel", "role": "chief",
                                "data": {"deal": 1}})


def test_release_is_table_wide_and_outlives_a_correction_of_the_deal_in_progress() -> None:
    t = _deal_one_over()
    t.next_deal(ONE_EACH)  # deal 2: tribute owed by S (last) to E
    assert t.deal["no"] == 2 and t.state["round"]["deals_started"] == 2
    t.do("deal_released", {"deal": 1}, role="chief")
    rel_seq = t.events[-1]["seq"]
    # not part of deal 2: it cannot be voided, and a re-fold of deal 2 keeps it
    assert "not an event of the current deal" in t.reject("event_voided", {"ref": rel_seq, "reason": "x"}, role="referee")
    t.do("tribute_given", {"seat": "S", "card": "5s"})
    t.do("event_voided", {"ref": t.events[-1]["seq"], "reason": "wrong seat"}, role="referee")
    assert t.deal["tributes"] == []
    assert [(r["round"], r["deal"], r["seq"]) for r in t.state["released_deals"]] == [(1, 1, rel_seq)]
    assert t.replay_matches()


def test_deals_of_an_earlier_round_even_an_abandoned_one_can_be_released() -> None:
    t = _deal_one_over()
    t.next_deal(ONE_EACH)
    t.do("round_ended", {"reason": "time"}, role="referee")  # deal 2 abandoned, never scored
    assert t.state["result"] is not None and len(t.state["score_sheet"]) == 1
    t.do("round_set_up", {"players": {s: s for s in "ESWN"}, "round": 2}, role="referee")
    assert "no deal 1" in t.reject("deal_released", {"deal": 1}, role="chief")  # round 2 has none yet
    assert "no deal 3" in t.reject("deal_released", {"deal": 3, "round": 1}, role="chief")
    t.do("deal_released", {"deal": 2, "round": 1}, role="chief")
    t.do("deal_released", {"deal": 1, "round": 1}, role="chief")
    # releases are table-wide: a new round does not reset them
    assert [(r["round"], r["deal"]) for r in t.state["released_deals"]] == [(1, 2), (1, 1)]
    assert t.replay_matches()


def test_a_release_survives_a_restart_because_it_is_in_the_log(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite3"
    script = _deal_one_over().events
    with TableRunner(db) as r:
        for ev in script:
            assert r.submit({k: v for k, v in ev.items() if k != "seq"}).accepted
        refused = r.submit({"type": "deal_released", "source": "panel", "role": "referee", "data": {"deal": 1}})
        assert not refused.accepted and "only the chief referee" in refused.error
        res = r.submit({"type": "deal_released", "source": "panel", "role": "chief", "data": {"deal": 1}})
        assert res.accepted, res.error
        live = r.state()
    with TableRunner(db) as r2:  # a fresh process would fold the same log
        assert r2.state() == live
        assert [(x["round"], x["deal"], x["seq"]) for x in r2.state()["released_deals"]] == [(1, 1, res.seq)]
        assert [e["type"] for e in r2.events()][-1] == "deal_released"
        assert [e["seq"] for e in r2.rejected()] == [refused.seq]
        assert state_to_json(fold(r2.events())) == live
