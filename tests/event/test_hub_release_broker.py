"""End to end through a real provisioned Mosquitto: the two rooms of a duplicate (复式) match play
deal 1 of their board; room A's public feed holds it until room B has ended it too, then shows it.

Before, the only release was the chief's tap on each table's panel, and at 50 tables the broadcast
stayed empty; now the hub releases each deal at both rooms from their summaries.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from event_helpers import SecureBroker

from table_service.demo.event_demo import BotEventTable
from table_service.engine.self_play import SelfPlayTable
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.views.assignment import set_up_data

HANG = 30.0


def wait_for(cond: Callable[[], Any], what: str, timeout: float = HANG) -> Any:
    deadline = time.monotonic() + timeout
    while not (got := cond()):
        if time.monotonic() > deadline:
            raise AssertionError(f"{what}: not within {timeout} s")
        time.sleep(0.05)
    return got


def play_deal(t: BotEventTable, seed: int) -> None:
    """Four bots play one deal at ``t``, straight into its runner (as the event demo's tables do)."""
    bots = SelfPlayTable(seed, step_ms=(5, 20))
    bots.state = copy.deepcopy(t.runner.raw_state())
    for ev in bots.deal():
        t._submit(ev["type"], ev["data"], source=ev["source"], role=ev.get("role"))


def public_deal(t: BotEventTable) -> int | None:
    """The deal room ``t``'s public feed shows (None: none yet)."""
    return (t.bridge.feed.state().get("deal") or {}).get("no")


def test_room_a_shows_deal_1_once_room_b_has_ended_it(tmp_path: Path, broker: SecureBroker) -> None:
    cfg = validate({"event": {"id": "fz", "name": "复式测试", "rounds": 1, "duplicate": "levels",
                              "format": {"kind": "deals", "deals": 2}},
                    "mqtt": broker.hub_mqtt("fz"),
                    "teams": [{"id": f"T{i}", "players": [f"{i}a", f"{i}b", f"{i}c", f"{i}d"]} for i in range(4)],
                    "tables": [{"id": t} for t in ("1A", "1B", "2A", "2B")]})
    hub = HubService(cfg, tmp_path / "hub").start()
    tables: list[BotEventTable] = []
    try:
        assert hub.wait_connected(HANG)
        hub.draw_next("org", "chief")
        hub.publish_draw(1, "org", "chief")
        for tid in ("1A", "1B"):
            t = BotEventTable(tid, tmp_path / "tables", port=broker.port, event_id="fz", seed=len(tables) + 1,
                              auto=False, login=broker.login("fz", tid))
            tables.append(t.start())
        room_a, room_b = tables
        for t in tables:
            a = wait_for(lambda t=t: t.bridge.assignment, f"table {t.table_id}'s assignment")
            assert a["board"] == "R1-M1"
            t._submit("round_set_up", set_up_data(a))

        play_deal(room_a, 1)
        wait_for(lambda: (hub.live.get("1A") and hub.live["1A"].summary.get("deals_ended")) == 1,
                 "room A's ended deal at the hub")
        time.sleep(0.5)  # a release, were one wrongly sent, would arrive meanwhile
        assert public_deal(room_a) is None, "room A's broadcast showed deal 1 while room B still plays it"
        assert not [e for e in room_a.runner.events() if e["type"] == "deal_released"]

        play_deal(room_b, 2)
        wait_for(lambda: public_deal(room_a) == 1, "room A's feed showing deal 1")
        wait_for(lambda: public_deal(room_b) == 1, "room B's feed showing deal 1")
        for t in tables:
            rel = [e for e in t.runner.events() if e["type"] == "deal_released"]
            assert [(e["data"], e["source"], e["role"]) for e in rel] == [({"round": 1, "deal": 1}, "hub", "chief")]
        assert hub.core.faults == {}
    finally:
        for t in tables:
            t.stop()
        hub.stop()
