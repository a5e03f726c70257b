"""A table starts from a log an older release wrote, even where today's rules refuse one of its events.

The logs in ``data/logs_of_an_older_release.json`` were written by the release of 2026-12-04 (be3d435),
before that night's rulings: a time flag raised while a referee call was open (today: nobody is over
time then) and ruled on, and rounds numbered 0, 1000 or twice (today refused as they are set up).
With those rulings ungated, today's table refused to start from them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table_service.engine.apply import fold, replay
from table_service.engine.errors import EventRejected
from table_service.engine.state import state_to_json
from table_service.store.event_log import EventStore
from table_service.table.runner import TableRunner

LOGS: dict[str, list[dict[str, Any]]] = json.loads(
    (Path(__file__).with_name("data") / "logs_of_an_older_release.json").read_text(encoding="utf-8"))["logs"]


def _table(tmp_path: Path, name: str) -> Path:
    db = tmp_path / f"{name}.sqlite3"
    with EventStore(db) as store:
        for ev in LOGS[name]:
            store.append(ev)
    return db


@pytest.mark.parametrize("name", sorted(LOGS))
def test_the_table_starts_from_an_older_releases_log(tmp_path: Path, name: str) -> None:
    db = _table(tmp_path, name)
    with TableRunner(db) as runner:
        state = runner.state()
        assert state["last_seq"] == LOGS[name][-1]["seq"]
        # It goes on: the next event is logged after the old ones.
        res = runner.submit({"type": "device_status_changed", "source": "screen", "role": None,
                             "data": {"device": "screen", "status": "online"}})
        assert res.accepted and res.seq == LOGS[name][-1]["seq"] + 1
    # The same log, started again, folds to the same state (the events passed over are the same).
    with TableRunner(db) as again:
        assert again.state()["not_applied"] == state["not_applied"]


@pytest.mark.parametrize("name", ["call_open_over_deadline_ruled", "call_open_over_deadline_penalised"])
def test_a_ruling_on_a_flag_these_rules_never_raise_is_passed_over_and_named(tmp_path: Path, name: str) -> None:
    events = LOGS[name]
    with pytest.raises(EventRejected, match="no such flag: 'F5'"):
        fold(events)
    state = state_to_json(replay(events))
    (gone,) = state["not_applied"]
    assert gone["seq"] == 7 and gone["type"] in ("flag_confirmed", "penalty_given") and "F5" in gone["error"]
    assert not [f for f in state["flags"] if f["rule"] == "time_over"]  # no clock ran while N waited for the ruling
    assert state["penalties"]["records"] == []  # the penalty (or the automatic one) cited that flag
    # The plays after it still apply.
    assert [p["seat"] for p in state["deal"]["trick"]["plays"]] == ["E", "N", "W"]


def test_rounds_numbered_before_the_check_still_replay_and_new_ones_are_checked(tmp_path: Path) -> None:
    assert state_to_json(replay(LOGS["round_number_zero"]))["round"]["no"] == 0
    assert state_to_json(replay(LOGS["round_number_large"]))["round"]["no"] == 1000
    repeated = state_to_json(replay(LOGS["round_number_repeated"]))
    assert [r["round"]["no"] for r in repeated["rounds"]] == [3] and repeated["round"]["no"] == 3
    assert repeated["not_applied"] == []
    # A round set up now is stamped with today's generation and checked.
    with TableRunner(_table(tmp_path, "round_number_repeated")) as runner:
        players = runner.state()["round"]["players"]
        runner.submit({"type": "round_ended", "source": "panel", "role": "chief", "data": {"reason": "test"}})
        for bad, why in ((3, "played round 3 already"), (0, "'round' must be")):
            res = runner.submit({"type": "round_set_up", "source": "panel", "role": "referee",
                                 "data": {"players": players, "round": bad}})
            assert not res.accepted and why in res.error
        res = runner.submit({"type": "round_set_up", "source": "panel", "role": "referee",
                             "data": {"players": players, "round": 4}})
        assert res.accepted and runner.state()["round"]["no"] == 4


def test_a_log_this_release_wrote_passes_nothing_over() -> None:
    from table_service.engine.self_play import SelfPlayTable

    stream = list(SelfPlayTable(3).run_deals(3))
    assert state_to_json(replay(stream)) == state_to_json(fold(stream))
    assert state_to_json(replay(stream))["not_applied"] == []


def test_the_public_feed_of_an_older_log_passes_over_the_same_events(tmp_path: Path) -> None:
    from table_service.views.feed import FeedView

    with TableRunner(_table(tmp_path, "call_open_over_deadline_penalised")) as runner:
        feed = FeedView(runner, delay_s=0, pump_thread=False)
        try:
            public = feed.state()
            assert [p["seat"] for p in public["deal"]["trick"]["plays"]] == ["E", "N", "W"]
            assert [e["seq"] for e in feed.events()][-1] == 9  # every later public event went out
        finally:
            feed.close()
