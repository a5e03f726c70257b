"""TableRunner: one engine thread, the store underneath, subscribers, restart."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from table_service.engine.apply import fold
from table_service.engine.self_play import SelfPlayTable
from table_service.engine.state import state_to_json
from table_service.store.event_log import EventStore, StoreCorruptError
from table_service.table.runner import SubmitResult, TableRunner

SETUP = {"type": "round_set_up", "source": "panel", "role": "referee",
         "data": {"players": {s: s for s in "ESWN"}, "format": {"kind": "past_a"}}}


class Clock:
    """A settable clock for events submitted without t_ms."""

    def __init__(self) -> None:
        self.now = 1_000_000

    def __call__(self) -> int:
        return self.now


def test_submit_accept_reject_and_events(tmp_path: Path) -> None:
    clock = Clock()
    with TableRunner(tmp_path / "t.sqlite3", clock=clock) as r:
        res = r.submit(SETUP)
        assert res.accepted and res.seq == 1 and res.event["t_ms"] == 1_000_000
        bad = r.submit({"type": "passed", "source": "screen", "data": {"seat": "Q"}})
        assert bad == SubmitResult(False, 2, bad.error, bad.event)
        assert "unknown seat 'Q'" in bad.error
        assert r.submit("not even a dict").accepted is False
        clock.now += 500
        res = r.submit({"type": "drawing_finished", "source": "panel", "data": {"cut_card_holder": "S"}})
        assert res.accepted and res.seq == 4
        assert [e["seq"] for e in r.events()] == [1, 4]
        assert [e["seq"] for e in r.events(after=1)] == [4]
        assert r.state()["deal"]["turn"] == "S"
        assert [e["seq"] for e in r.rejected()] == [2, 3]
    with EventStore(tmp_path / "t.sqlite3") as store:
        assert [e["seq"] for e in store.events(include_rejected=True)] == [1, 2, 3, 4]


def test_subscribers_run_on_the_engine_thread_after_commit(tmp_path: Path) -> None:
    seen: list[tuple[str, int, str]] = []
    effects: list[list[dict]] = []
    with TableRunner(tmp_path / "t.sqlite3") as r:
        db = r.db_path

        def on_event(event: dict, state: dict) -> None:
            # committed already: a second connection sees it
            with EventStore(db) as other:
                assert other.events()[-1]["seq"] == event["seq"]
            seen.append((event["type"], state["last_seq"], threading.current_thread().name))

        unsubscribe = r.subscribe(on_event)
        r.subscribe_effects(lambda fx, ev: effects.append(fx))
        r.submit(SETUP)
        r.submit({"type": "drawing_finished", "source": "panel", "data": {"cut_card_holder": "E"}})
        unsubscribe()
        r.submit({"type": "cards_played", "source": "camera", "data": {"seat": "E", "cards": ["3s"]}})
    assert [s[:2] for s in seen] == [("round_set_up", 1), ("drawing_finished", 2)]
    assert all(s[2].startswith("engine:") for s in seen)
    flat = [f for fx in effects for f in fx]
    assert {"kind": "lamp", "seat": "E", "lamp": "turn", "mode": "on"} in flat
    assert any(f["kind"] == "countdown" and f["seat"] == "E" and f["seconds"] == 40 for f in flat)
    assert {"kind": "lamp", "seat": "N", "lamp": "turn", "mode": "on"} in flat


def test_restart_resumes_state_and_countdowns(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    bots = SelfPlayTable(3)
    stream = list(bots.run_deals(2))
    with TableRunner(path) as r:
        for ev in stream:
            assert r.submit({k: v for k, v in ev.items() if k != "seq"}).accepted
        live = r.state()
        fx = r.device_effects()
    with TableRunner(path) as r2:
        assert r2.state() == live == state_to_json(bots.state)
        assert r2.device_effects() == fx
        assert r2.events() == [{**e, "role": e.get("role")} for e in stream]
    assert state_to_json(fold(stream)) == live


def test_wait_false_and_submit_from_a_subscriber(tmp_path: Path) -> None:
    done = threading.Event()
    with TableRunner(tmp_path / "t.sqlite3") as r:
        def chain(event: dict, state: dict) -> None:
            if event["type"] == "round_set_up":
                res = r.submit({"type": "device_status_changed", "source": "system", "data": {"device": "camera", "status": "online"}})
                assert res.queued
            else:
                done.set()

        r.subscribe(chain)
        res = r.submit(SETUP, wait=False)
        assert res.queued and res.seq is None
        assert done.wait(5)
        assert r.state()["devices"]["camera"] == "online"


def test_ticker_notices_time_over_and_idle_ticks_are_not_stored(tmp_path: Path) -> None:
    clock = Clock()
    flagged = threading.Event()
    with TableRunner(tmp_path / "t.sqlite3", clock=clock, tick_ms=20) as r:
        r.subscribe(lambda ev, st: flagged.set() if any(f["rule"] == "time_over" for f in st["flags"]) else None)
        r.submit(SETUP)
        r.submit({"type": "drawing_finished", "source": "panel", "data": {"cut_card_holder": "E"}})
        clock.now += 30_000  # within 40 s: ticks change nothing
        res = r.submit({"type": "clock_ticked", "source": "clock"})
        assert res.accepted and res.seq is None
        assert [e["type"] for e in r.events()] == ["round_set_up", "drawing_finished"]
        clock.now += 11_000  # past the lead deadline
        assert flagged.wait(5)
    with EventStore(tmp_path / "t.sqlite3") as store:
        types = [e["type"] for e in store.events()]
    assert types[:2] == ["round_set_up", "drawing_finished"] and "clock_ticked" in types


def test_corrupt_database_refuses_to_start(tmp_path: Path) -> None:
    path = tmp_path / "t.sqlite3"
    path.write_bytes(b"\x00garbage" * 512)
    with pytest.raises(StoreCorruptError, match=str(path)):
        TableRunner(path)
    assert path.read_bytes() == b"\x00garbage" * 512


def test_submit_when_not_running(tmp_path: Path) -> None:
    r = TableRunner(tmp_path / "t.sqlite3")
    assert "not running" in r.submit(SETUP).error
    r.start()
    r.stop()
    r.stop()
    assert "not running" in r.submit(SETUP).error


def test_an_event_the_log_cannot_keep_does_not_take_effect(tmp_path: Path) -> None:
    """The log is written before the state changes: when SQLite cannot write the row (here another
    process holds the real file's write lock past the busy timeout, as a stuck backup would), the
    submit is refused with the store's error, the state is the state before, and no subscriber
    hears of it. Once the file is free the same event is accepted under the same number."""
    import sqlite3

    heard: list[int] = []
    effects: list[list[dict]] = []
    with TableRunner(tmp_path / "t.sqlite3") as r:
        assert r.submit(SETUP).accepted
        r.subscribe(lambda ev, _st: heard.append(ev["seq"]))
        r.subscribe_effects(lambda fx, _ev: effects.append(fx))
        before_state, before_events = r.state(), r.events()
        other = sqlite3.connect(r.db_path, isolation_level=None)
        other.execute("BEGIN IMMEDIATE")  # the write lock, held
        event = {"type": "drawing_finished", "source": "panel", "role": "referee", "data": {"cut_card_holder": "S"}}
        res = r.submit(event, timeout=120.0)  # SQLite's busy timeout (5 s) runs out first
        assert not res.accepted and "locked" in (res.error or ""), res
        assert r.state() == before_state and r.events() == before_events
        assert heard == [] and effects == []
        other.execute("ROLLBACK")
        other.close()
        again = r.submit(event, timeout=120.0)
        assert again.accepted and again.seq == 2 and heard == [2], again
        assert r.state()["deal"]["turn"] == "S"


def penalty(side: str, level: str) -> dict:
    """A referee's penalty as the panel submits it."""
    return {"type": "penalty_given", "source": "panel", "role": "referee",
            "data": {"side": side, "level": level, "article": "x"}}


def test_an_action_id_used_for_another_action_is_refused_not_answered(tmp_path: Path) -> None:
    """An id reused for a different action (a page's bug, a script) was answered with the first
    action's verdict — "accepted", seq 7 — though nothing was done. It is refused as a conflict,
    before a restart and after; the same action under its id still gets its first verdict."""
    path = tmp_path / "t.sqlite3"
    warning = penalty("NS", "warning")
    other = penalty("EW", "warning")
    with TableRunner(path) as r:
        r.submit(SETUP)
        first = r.submit(warning, key="rita:tap-1")
        clash = r.submit(other, key="rita:tap-1")
        assert first.accepted and not clash.accepted and clash.conflict and clash.seq is None
        assert "different action" in (clash.error or "")
        assert r.submit(warning, key="rita:tap-1").seq == first.seq
        assert [p["side"] for p in r.state()["penalties"]["records"]] == ["NS"]
    with TableRunner(path) as r:
        assert r.submit(other, key="rita:tap-1").conflict
        assert r.submit(warning, key="rita:tap-1").seq == first.seq
        assert [p["side"] for p in r.state()["penalties"]["records"]] == ["NS"]


def test_a_retry_after_a_restart_matches_its_action_though_the_log_stamped_it(tmp_path: Path) -> None:
    """The review: after a restart the action's record was the logged event, which the runner had
    stamped (``engine`` on a round's set-up, ``flag_of`` on a ruling; no data as ``{}``): the panel's
    identical retry of those was refused as a conflict."""
    path = tmp_path / "t.sqlite3"
    with TableRunner(path) as r:
        first = r.submit(SETUP, key="chen:setup")
        call = r.submit({"type": "referee_called", "source": "panel", "role": "referee", "data": {"seat": "E"}})
        flag = r.state()["flags"][-1]["id"]
        ruling = {"type": "flag_dismissed", "source": "panel", "role": "referee", "data": {"flag": flag}}
        ruled = r.submit(ruling, key="rita:dismiss")
        assert first.accepted and call.accepted and ruled.accepted
        assert "flag_of" in r.events()[-1]["data"]
    with TableRunner(path) as r:
        again = r.submit(SETUP, key="chen:setup")
        assert not again.conflict and again.seq == first.seq
        again = r.submit(ruling, key="rita:dismiss")
        assert not again.conflict and again.seq == ruled.seq


def test_an_action_retried_after_a_restart_is_not_done_twice(tmp_path: Path) -> None:
    """The service killed as it answered: the panel got nothing and retries its tap with the same id
    against the restarted service. It gets the first verdict; the log holds the action once. A refused
    action is remembered as refused (its retry is not run again either)."""
    path = tmp_path / "t.sqlite3"
    warning = penalty("NS", "warning")
    bad = penalty("NS", "foul")
    with TableRunner(path) as r:
        r.submit(SETUP)
        first = r.submit(warning, key="rita:tap-1")
        refused = r.submit(bad, key="rita:tap-2")
        assert first.accepted and not refused.accepted
    with TableRunner(path) as r:
        again = r.submit(warning, key="rita:tap-1")
        assert again.accepted and again.seq == first.seq
        assert not r.submit(bad, key="rita:tap-2").accepted
        assert len(r.state()["penalties"]["records"]) == 1
        assert r.submit(warning, key="rita:tap-3").seq > first.seq  # a new tap is a new action
        assert len(r.state()["penalties"]["records"]) == 2
