"""End to end through a real provisioned Mosquitto: the two rooms of a duplicate (复式) match play
deal 1 of their board; room A's public feed holds it until room B has ended it too, then shows it.

Before, the only release was the chief's tap on each table's panel, and at 50 tables the broadcast
stayed empty; now the hub releases each deal at both rooms from their summaries.
"""

from __future__ import annotations

import copy
import time
from pathlib import Path
from typing import Any

from event_helpers import BROKER_HANG_S, SecureBroker, wait_for

from table_service.demo.event_demo import BotEventTable
from table_service.engine.self_play import SelfPlayTable
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.views.assignment import set_up_data
from table_service.views.wire import table_result

HANG = BROKER_HANG_S


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


def released(t: BotEventTable) -> list[tuple[int, int, str]]:
    """``(round, deal, source)`` of every ``deal_released`` in room ``t``'s log."""
    return [(e["data"]["round"], e["data"]["deal"], e["source"]) for e in t.runner.events()
            if e["type"] == "deal_released"]


def sign(t: BotEventTable) -> None:
    for side in ("NS", "EW"):
        t._submit("score_sheet_signed", {"side": side})


def duplicate_event(broker: SecureBroker) -> dict[str, Any]:
    """Two boards of two rooms (1A/1B on Pis, 2A/2B entered by hand), two rounds of two deals."""
    return validate({"event": {"id": "fz", "name": "复式测试", "rounds": 2, "duplicate": "levels",
                               "format": {"kind": "deals", "deals": 2}},
                     "mqtt": broker.hub_mqtt("fz"),
                     "teams": [{"id": f"T{i}", "players": [f"{i}a", f"{i}b", f"{i}c", f"{i}d"]} for i in range(4)],
                     "tables": [{"id": t} for t in ("1A", "1B", "2A", "2B")]})


def round_two_with_room_b_away(hub: HubService, broker: SecureBroker, tmp_path: Path,
                               tables: list[BotEventTable]) -> tuple[BotEventTable, BotEventTable, dict[str, Any], int]:
    """Rooms A and B (started into ``tables``, which the caller stops) play round 1; B's network goes
    down during its last deal, so the hub never sees B end it and holds deal 2. Round 1's results go
    in (A's from its table, the others at the hub: B's as B will send it), round 2 is drawn and
    published (A reads it, B's is entered at its panel) and both rooms play its deal 1.
    Returns (room A, room B, round 2's assignments, the hub's seq of round 2's publication)."""
    assert hub.wait_connected(HANG)
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    for i, tid in enumerate(("1A", "1B")):
        tables.append(BotEventTable(tid, tmp_path / "tables", port=broker.port, event_id="fz", seed=i + 1,
                                    auto=False, login=broker.login("fz", tid)).start())
    room_a, room_b = tables
    for t in tables:
        t._submit("round_set_up", set_up_data(wait_for(lambda t=t: t.bridge.assignment, "assignment")))
    play_deal(room_a, 1)
    play_deal(room_b, 2)
    for t in tables:
        wait_for(lambda t=t: released(t) == [(1, 1, "hub")], f"round 1 deal 1 released at {t.table_id}")
    room_b.bridge.stop()  # B's network is down from here
    play_deal(room_a, 3)
    play_deal(room_b, 4)
    wait_for(lambda: hub.live["1A"].summary.get("finished"), "room A's round 1 over at the hub")
    time.sleep(0.5)
    assert released(room_a) == [(1, 1, "hub")], "B's deal 2 is not known to be over: held"
    sign(room_a)
    sign(room_b)
    wait_for(lambda: (1, "1A") in hub.core.results, "room A's result")
    for t in hub.core.draws[1]["tables"]:
        if t["table"] != "1A":
            line = {"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 0, "ew_levels": 0}
            if t["table"] == "1B":
                line = dict(table_result(room_b.runner.state(), "1B")["result"])  # type: ignore[index]
            hub.hand_result(line, "org", "chief")
    hub.draw_next("org", "chief")
    hub.publish_draw(2, "org", "chief")
    published_seq = hub.core.last_seq
    a2 = hub.core.draws[2]["assignments"]
    assert a2["1A"]["board"] == a2["1B"]["board"]
    room_a._submit("round_set_up", set_up_data(wait_for(
        lambda: (room_a.bridge.assignment or {}).get("round") == 2 and room_a.bridge.assignment, "A's round 2")))
    room_b._submit("round_set_up", set_up_data(a2["1B"]))  # entered at B's panel: no network
    play_deal(room_a, 5)
    play_deal(room_b, 6)
    return room_a, room_b, a2, published_seq


ROUND_1_DEAL_2_AND_ROUND_2_DEAL_1 = [(1, 1, "hub"), (1, 2, "hub"), (2, 1, "hub")]


def test_a_room_away_for_a_rounds_last_deal_gets_it_released_from_the_next_round(
        tmp_path: Path, broker: SecureBroker) -> None:
    """Room B's network goes down during round 1's last deal and comes back only in round 2 (its
    round entered by hand): the hub never saw B end round 1, and no summary was at round 1 any more,
    so deal 2 of round 1 stayed held at both rooms. Now the hub remembers round 1, and the retained
    release (one a table) carries it in ``earlier`` beside round 2's deal."""
    hub = HubService(duplicate_event(broker), tmp_path / "hub").start()
    tables: list[BotEventTable] = []
    try:
        room_a, room_b, _, _ = round_two_with_room_b_away(hub, broker, tmp_path, tables)
        room_b.reconnect()  # back: its summary is of round 2
        for t in tables:
            wait_for(lambda t=t: sorted(released(t)) == ROUND_1_DEAL_2_AND_ROUND_2_DEAL_1,
                     f"round 1 deal 2 and round 2 deal 1 at {t.table_id}")
        assert hub.core.faults == {}
    finally:
        for t in tables:
            t.stop()
        hub.stop()


def test_a_hub_restarted_while_a_room_is_away_still_releases_that_rounds_last_deal(
        tmp_path: Path, broker: SecureBroker) -> None:
    """As above, and the hub is stopped and started again on its folder while room B is away (the
    durability audit: kill -9 and a clean stop lose the same, the hub's memory). Its memory of round
    1 — room A ended 2 deals, room B 1 — was gone, the summaries the broker held of round 2 (A's)
    or of B's deal 1, so round 1 was released "through 1" and deal 2 never went public at either
    room. Now a round both rooms are done with is every deal: known from their results in the hub's
    log, which a restart keeps. And the restarted hub sends each assignment as it first did
    (``hub_seq`` included), so B, back, reads the message the hub published."""
    cfg = duplicate_event(broker)
    hub = HubService(cfg, tmp_path / "hub").start()
    tables: list[BotEventTable] = []
    try:
        room_a, room_b, a2, published_seq = round_two_with_room_b_away(hub, broker, tmp_path, tables)
        wait_for(lambda: hub.live["1A"].summary.get("round") == 2, "room A's round 2 at the hub")
        hub.stop()  # the hub goes down and comes back on its folder; B is still away
        hub = HubService(cfg, tmp_path / "hub").start()
        assert hub.wait_connected(HANG)
        room_b.reconnect()  # back: its summary is of round 2
        for t in tables:
            wait_for(lambda t=t: sorted(released(t)) == ROUND_1_DEAL_2_AND_ROUND_2_DEAL_1,
                     f"round 1 deal 2 and round 2 deal 1 at {t.table_id}")
        got = wait_for(lambda: room_b.bridge.assignment, "B's assignment from the restarted hub")
        assert got == {**a2["1B"], "hub_seq": published_seq}
        assert hub.core.faults == {}
    finally:
        for t in tables:
            t.stop()
        hub.stop()
