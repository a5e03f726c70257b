"""The hub releases a duplicate (复式) board's deal at both rooms once both have ended it.

A board's deals are held from each table's public feed until ``deal_released`` is in its log; only
the chief's tap on every table's panel released them, and at 50 tables the broadcast stayed empty.
The hub computes the release from both rooms' summaries (``deals_ended``, checked at the intake)
and publishes ``{"round", "through", "board"}`` to both tables (table_service/event/release.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.intake import BadMessage, check_message
from table_service.event.release import releases
from table_service.views.release_wire import check_release


class Published:
    """Stands for the hub's MQTT client: what it published, per (table, topic)."""

    def __init__(self) -> None:
        self.sent: list[tuple[str, str, dict[str, Any]]] = []

    def publish(self, table: str, name: str, payload: bytes, *, retain: bool = True) -> None:
        self.sent.append((table, name, json.loads(payload) if payload else {}))

    def releases(self) -> list[tuple[str, dict[str, Any]]]:
        out = [(t, m) for t, n, m in self.sent if n == "release"]
        self.sent.clear()
        return out


def duplicate_cfg() -> dict[str, Any]:
    return validate({"event": {"id": "fz", "rounds": 2, "duplicate": "levels", "format": {"kind": "deals", "deals": 4}},
                     "teams": [{"id": f"T{i}", "players": [f"{i}a", f"{i}b", f"{i}c", f"{i}d"]} for i in range(4)],
                     "tables": [{"id": t} for t in ("1A", "1B", "2A", "2B")]})


@pytest.fixture
def hub(tmp_path: Path) -> Any:
    h = HubService(duplicate_cfg(), tmp_path, connect=False)
    h.draw_next("org", "chief")
    h.publish_draw(1, "org", "chief")
    h.mqtt = Published()  # type: ignore[assignment]
    yield h
    h.mqtt = None
    h.stop()


def summary(hub: HubService, table: str, *, deal: int, ended: int | None, seq: int, rnd: int = 1,
            finished: bool = False, teams: dict[str, str] | None = None) -> tuple[str, str, bytes, bool]:
    """The summary message a table of round ``rnd``'s draw sends (``ended`` None: an older table's,
    without ``deals_ended``)."""
    a = hub.core.draws[rnd]["assignments"][table]
    msg: dict[str, Any] = {"table": table, "round": rnd, "round_status": "playing", "teams": teams or a["teams"],
                           "deal": deal, "finished": finished, "last_seq": seq, "wall_ms": 1_760_000_000_000}
    if ended is not None:
        msg["deals_ended"] = ended
    return (table, "summary", json.dumps(msg).encode(), True)


def test_a_deal_is_released_at_both_rooms_once_both_have_ended_it(hub: HubService) -> None:
    pub: Published = hub.mqtt  # type: ignore[assignment]
    a = hub.core.draws[1]["assignments"]
    assert (a["1A"]["board"], a["1B"]["board"]) == ("R1-M1", "R1-M1")
    hub.handle_batch([summary(hub, "1A", deal=1, ended=1, seq=30), summary(hub, "1B", deal=1, ended=0, seq=20)])
    assert pub.releases() == [], "room B is still playing deal 1: nothing of it may go public"
    hub.handle_batch([summary(hub, "1B", deal=1, ended=1, seq=31)])
    want = {"round": 1, "through": 1, "board": "R1-M1"}
    assert pub.releases() == [("1A", want), ("1B", want)]
    assert check_release(want) == want  # what the tables accept
    # The same summary again (retained, a reconnect) and room A ahead by one: nothing new.
    hub.handle_batch([summary(hub, "1B", deal=1, ended=1, seq=31), summary(hub, "1A", deal=3, ended=2, seq=60)])
    assert pub.releases() == []
    hub.handle_batch([summary(hub, "1B", deal=2, ended=2, seq=62)])
    assert pub.releases() == [("1A", {**want, "through": 2}), ("1B", {**want, "through": 2})]
    # An older summary arriving late never takes a release back.
    hub.handle_batch([summary(hub, "1B", deal=1, ended=1, seq=10)])
    assert pub.releases() == []
    # The other match's tables are untouched, and a (re)connect sends every release again.
    hub._republish()
    assert sorted(t for t, _ in pub.releases()) == ["1A", "1B"]
    assert hub.core.faults == {}


def test_an_older_table_room_a_later_round_and_another_board(hub: HubService) -> None:
    pub: Published = hub.mqtt  # type: ignore[assignment]
    # Without deals_ended (a table of an older release): deal 3 started proves 1 and 2 ended.
    hub.handle_batch([summary(hub, "2A", deal=3, ended=None, seq=50), summary(hub, "2B", deal=3, ended=2, seq=50)])
    assert pub.releases() == [("2A", {"round": 1, "through": 2, "board": "R1-M2"}),
                              ("2B", {"round": 1, "through": 2, "board": "R1-M2"})]
    # A table playing other teams than the board's assignment is not that board: it ends nothing of it.
    other = {"NS": "X1", "EW": "X2"}
    hub.handle_batch([summary(hub, "1A", deal=2, ended=2, seq=40, teams=other),
                      summary(hub, "1B", deal=2, ended=2, seq=40)])
    assert pub.releases() == []
    # Pure computation: a room that moved on to round 2 has ended round 1 — the other room limits.
    draws = {1: hub.core.draws[1], 2: {"published": False}}
    s1a = {"round": 2, "teams": {"NS": "Z", "EW": "Y"}, "deal": 1, "deals_ended": 0}
    s1b = {"round": 1, "teams": hub.core.draws[1]["assignments"]["1B"]["teams"], "deal": 4, "deals_ended": 4}
    assert releases(draws, {"1A": s1a, "1B": s1b})["1A"] == {"round": 1, "through": 4, "board": "R1-M1"}
    assert releases(draws, {"1A": s1a, "1B": {**s1b, "round": 2}}) == {}  # both moved on: nothing new
    # A room that stopped at 3 deals (the round's time limit) holds back none of the other room's 4th.
    s1a = {**s1b, "round": 1, "teams": hub.core.draws[1]["assignments"]["1A"]["teams"], "deal": 3, "deals_ended": 3,
           "finished": True}
    assert releases(draws, {"1A": s1a, "1B": {**s1b, "deals_ended": 3}})["1B"]["through"] == 3  # 4th being played
    assert releases(draws, {"1A": s1a, "1B": {**s1b, "finished": True}})["1A"]["through"] == 4


def test_a_plain_event_gets_no_release(tmp_path: Path) -> None:
    cfg = validate({"event": {"id": "ev", "rounds": 2}, "teams": [{"id": f"T{i}"} for i in range(4)]})
    h = HubService(cfg, tmp_path, connect=False)
    try:
        h.draw_next("org", "chief")
        h.publish_draw(1, "org", "chief")
        h.mqtt = Published()  # type: ignore[assignment]
        t = h.core.draws[1]["tables"][0]["table"]
        h.handle_batch([summary(h, t, deal=3, ended=None, seq=9)])
        assert h.mqtt.releases() == []  # type: ignore[attr-defined]
    finally:
        h.mqtt = None
        h.stop()


@pytest.mark.parametrize("value", ["2", -1, 2.0, True, 10_001])
def test_the_intake_checks_deals_ended(value: Any) -> None:
    base = {"table": "1A", "round": 1, "deal": 3, "last_seq": 4}
    assert check_message("1A", "summary", json.dumps({**base, "deals_ended": 2}).encode())["deals_ended"] == 2
    assert check_message("1A", "summary", json.dumps(base).encode())["deals_ended"] is None
    with pytest.raises(BadMessage, match="deals_ended"):
        check_message("1A", "summary", json.dumps({**base, "deals_ended": value}).encode())
    with pytest.raises(BadMessage, match="deals_ended"):  # more deals ended than the table is at
        check_message("1A", "summary", json.dumps({**base, "deals_ended": 4}).encode())
