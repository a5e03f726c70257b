"""The table's side of the hub's release: a valid ``release`` message becomes ``deal_released``
events in the table's log (source ``hub``, role ``chief``) for its ended deals, once each.

Why: a duplicate board's deals are held from the public feed until released, and the chief's tap on
each panel was the only release (table_service/table/hub_release.py).
"""

from __future__ import annotations

import copy
import itertools
import json
import logging
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from table_service.engine.self_play import SelfPlayTable
from table_service.table.mqtt_bridge import MqttBridge, table_summary
from table_service.table.runner import TableRunner

SETUP = {"players": {"N": "a", "S": "b", "E": "c", "W": "d"}, "teams": {"NS": "T1", "EW": "T2"}, "round": 1,
         "ruleset": {"preset": "jiangsu-2013", "options": {}}, "format": {"kind": "deals", "deals": 4},
         "board": "R1-M1"}


def submit(runner: TableRunner, ev: dict[str, Any]) -> None:
    res = runner.submit({"type": ev["type"], "source": ev.get("source", "panel"), "role": ev.get("role", "referee"),
                         "data": ev["data"]})
    assert res.accepted, res.error


def play(runner: TableRunner, seed: int, *, stop_after: int | None = None) -> Iterator[dict[str, Any]]:
    """One deal by four bots; ``stop_after``: only that many of its events (the deal stays live), and
    the rest are returned to be played later."""
    bots = SelfPlayTable(seed, step_ms=(5, 20))
    bots.state = copy.deepcopy(runner.raw_state())
    deal = iter(bots.deal())
    for ev in itertools.islice(deal, stop_after):
        submit(runner, ev)
    return deal


def releases(runner: TableRunner) -> list[tuple[int, int, str, str]]:
    return [(e["data"]["round"], e["data"]["deal"], e["source"], e["role"]) for e in runner.events()
            if e["type"] == "deal_released"]


def deliver(bridge: MqttBridge, payload: Any) -> None:
    """What paho hands the bridge for a message on ``<prefix>/release``."""
    raw = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    bridge._on_release(None, None, SimpleNamespace(topic=bridge.topic("release"), payload=raw))


def settle(runner: TableRunner) -> None:
    """Wait until the engine has applied what was queued (a no-op event behind it)."""
    runner.submit({"type": "clock_ticked", "source": "clock", "data": {}})


@pytest.fixture
def table(tmp_path: Path) -> Any:
    runner = TableRunner(tmp_path / "t.sqlite3").start()
    bridge = MqttBridge(runner, event_id="fz", table_id="1A")  # not connected: messages handed in
    yield runner, bridge
    bridge.feed.close()
    runner.stop()


def test_a_release_logs_the_ended_deals_once(table: Any, caplog: pytest.LogCaptureFixture) -> None:
    runner, bridge = table
    submit(runner, {"type": "round_set_up", "data": SETUP})
    play(runner, 1)
    play(runner, 2)
    rest = play(runner, 3, stop_after=6)  # deal 3 is being played
    live = runner.state()["deal"]
    assert (live["no"], live["phase"] != "over") == (3, True)
    assert table_summary(runner.state(), "1A", None)["deals_ended"] == 2
    assert bridge.feed.state()["deal"] is None, "a board's deal is held before any release"
    # Malformed: logged once however often it comes, nothing submitted.
    caplog.set_level(logging.WARNING, "table_service.table.hub_release")
    bad_ones: list[Any] = [b"\xff", b"[1]", b"[" * 100_000, b'{"round": 1, "through": NaN, "board": "R1-M1"}',
                           b'{"round": 1, "round": 1, "through": 3, "board": "R1-M1"}',
                           {"round": 1, "through": "3", "board": "R1-M1"}, {"round": 1, "through": 3},
                           {"round": 1, "through": 3, "board": "R1-M1", "deal": 3},
                           {"round": 0, "through": 3, "board": "x"}]
    for bad in bad_ones:
        deliver(bridge, bad)
        deliver(bridge, bad)
    assert len([r for r in caplog.records if "release refused" in r.getMessage()]) == len(bad_ones)
    deliver(bridge, {"round": 1, "through": 3, "board": "R1-M2"})  # another board's: not this table's to act on
    deliver(bridge, {"round": 2, "through": 3, "board": "R1-M1"})  # a round this table has not played
    settle(runner)
    assert releases(runner) == []
    deliver(bridge, {"round": 1, "through": 3, "board": "R1-M1"})
    deliver(bridge, {"round": 1, "through": 3, "board": "R1-M1"})  # retained, redelivered at once
    settle(runner)
    assert releases(runner) == [(1, 1, "hub", "chief"), (1, 2, "hub", "chief")], "deal 3 is not over: held"
    assert bridge.feed.state()["deal"]["no"] == 2  # the public feed goes on through deal 2, not into deal 3
    # Deal 3 ends: the kept release lets it out at the bridge's next pass, without a new message.
    for ev in rest:
        submit(runner, ev)
    bridge.releases.apply()
    settle(runner)
    assert [r[1] for r in releases(runner)] == [1, 2, 3]
    deliver(bridge, {"round": 1, "through": 3, "board": "R1-M1"})
    settle(runner)
    assert len(releases(runner)) == 3 and runner.rejected() == []


def test_an_archived_round_and_a_plain_round(table: Any) -> None:
    runner, bridge = table
    submit(runner, {"type": "round_set_up", "data": {**SETUP, "format": {"kind": "deals", "deals": 1}}})
    play(runner, 5)
    for side in ("NS", "EW"):
        submit(runner, {"type": "score_sheet_signed", "data": {"side": side}})
    plain = {k: v for k, v in SETUP.items() if k != "board"}
    submit(runner, {"type": "round_set_up", "data": {**plain, "round": 2}})
    assert "deals_ended" not in table_summary(runner.state(), "1A", None)  # an older hub refuses new fields
    deliver(bridge, {"round": 1, "through": 1, "board": "R1-M1"})  # round 1 archived: still released
    settle(runner)
    assert releases(runner) == [(1, 1, "hub", "chief")]


def test_a_table_back_after_its_rounds_last_release_releases_every_round_it_missed(table: Any) -> None:
    """The table was away when round 1's last release went out; by the time it is back, round 2's
    release has replaced the retained message (one a table). The message carries round 1 in
    ``earlier``: both rounds' ended deals are released, the one the chief tapped meanwhile is not
    submitted again, and a round the table played under another board (or not at all) is left."""
    runner, bridge = table
    submit(runner, {"type": "round_set_up", "data": {**SETUP, "format": {"kind": "deals", "deals": 2}}})
    play(runner, 1)
    play(runner, 2)
    for side in ("NS", "EW"):
        submit(runner, {"type": "score_sheet_signed", "data": {"side": side}})
    submit(runner, {"type": "round_set_up", "data": {**SETUP, "round": 2, "board": "R2-M1"}})
    play(runner, 3)
    rest = play(runner, 4, stop_after=6)  # round 2's deal 2 is being played
    submit(runner, {"type": "deal_released", "role": "chief", "data": {"round": 1, "deal": 1}})  # the chief's tap
    deliver(bridge, {"round": 2, "through": 2, "board": "R2-M1",
                     "earlier": {"1": {"through": 2, "board": "R1-M1"}}})
    settle(runner)
    assert releases(runner) == [(1, 1, "panel", "chief"), (1, 2, "hub", "chief"), (2, 1, "hub", "chief")]
    # Another board's round, and a round this table never played: nothing; an older message (a
    # restarted hub's, round 2 only) takes nothing back, and round 2's deal 2 goes once it ends.
    deliver(bridge, {"round": 3, "through": 4, "board": "R3-M1", "earlier": {"1": {"through": 2, "board": "R1-M9"}}})
    deliver(bridge, {"round": 2, "through": 2, "board": "R2-M1"})
    for ev in rest:
        submit(runner, ev)
    bridge.releases.apply()
    settle(runner)
    assert releases(runner)[3:] == [(2, 2, "hub", "chief")] and len(releases(runner)) == 4
    assert runner.rejected() == [], "no deal was submitted twice"
