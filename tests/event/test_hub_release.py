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
from table_service.event.release import EVERY_DEAL, ReleaseBook, releases
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
    # Both moved on: every deal (each table releases only those it has itself ended), though the
    # summaries no longer say how many either ended.
    every = {"round": 1, "through": EVERY_DEAL, "board": "R1-M1"}
    assert releases(draws, {"1A": s1a, "1B": {**s1b, "round": 2}}) == {"1A": every, "1B": every}
    # A room that stopped at 3 deals (the round's time limit) holds back none of the other room's 4th.
    s1a = {**s1b, "round": 1, "teams": hub.core.draws[1]["assignments"]["1A"]["teams"], "deal": 3, "deals_ended": 3,
           "finished": True}
    assert releases(draws, {"1A": s1a, "1B": {**s1b, "deals_ended": 3}})["1B"]["through"] == 3  # 4th being played
    assert releases(draws, {"1A": s1a, "1B": {**s1b, "finished": True}})["1A"]["through"] == EVERY_DEAL


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


def enter_round(hub: HubService, rnd: int) -> None:
    """Round ``rnd``'s results entered at the hub, so that the next round can be drawn."""
    for t in hub.core.draws[rnd]["tables"]:
        hub.hand_result({"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 2,
                         "ew_levels": 0}, "org", "chief")


def test_every_round_a_table_missed_goes_with_its_next_release(hub: HubService) -> None:
    """Room 1B's network went down during round 1's last deal: the hub last saw it with one deal
    ended, then saw it again only in round 2. Both rooms had ended deal 2 of round 1, but no summary
    at the hub was at round 1 any more, so round 1 was never worked out again and deal 2 stayed held
    at both rooms until the chief tapped each panel; and the message, retained one a table, carried
    only the latest round. Now the hub remembers each round and sends every round in ``earlier``;
    and a room's result in the hub's log (1B's, entered at the hub) says it is done with the round."""
    pub: Published = hub.mqtt  # type: ignore[assignment]
    hub.handle_batch([summary(hub, "1A", deal=2, ended=1, seq=30), summary(hub, "1B", deal=2, ended=1, seq=30)])
    r1 = {"round": 1, "through": 1, "board": "R1-M1"}
    assert pub.releases() == [("1A", r1), ("1B", r1)]
    # 1A ends round 1 (seen); 1B ends it offline: its summary of deal 2 never reaches the hub.
    hub.handle_batch([summary(hub, "1A", deal=2, ended=2, seq=40, finished=True)])
    assert pub.releases() == [], "1B may still be playing deal 2"
    enter_round(hub, 1)  # 1B's result among them: both rooms are done with round 1, every deal of it
    every = {"round": 1, "through": EVERY_DEAL}
    assert pub.releases() == [("1A", {**every, "board": "R1-M1"}), ("1B", {**every, "board": "R1-M1"}),
                              ("2A", {**every, "board": "R1-M2"}), ("2B", {**every, "board": "R1-M2"})]
    hub.draw_next("org", "chief")
    hub.publish_draw(2, "org", "chief")
    a2 = hub.core.draws[2]["assignments"]
    assert (a2["1A"]["board"], a2["1B"]["board"]) == ("R2-M1", "R2-M1")
    hub.handle_batch([summary(hub, "1A", deal=2, ended=1, seq=60, rnd=2)])
    assert pub.releases() == []  # 1B is not at round 2 yet: nothing of round 2; round 1 as before
    # 1B is back, already in round 2 with deal 1 ended: round 1 goes with round 2's deal 1.
    hub.handle_batch([summary(hub, "1B", deal=2, ended=1, seq=70, rnd=2)])
    want = {"round": 2, "through": 1, "board": "R2-M1", "earlier": {"1": {"through": EVERY_DEAL, "board": "R1-M1"}}}
    assert pub.releases() == [("1A", want), ("1B", want)]
    assert check_release(want) == want
    # Round 2's next deal: the message still carries round 1 (one retained message a table).
    hub.handle_batch([summary(hub, "1A", deal=3, ended=2, seq=80, rnd=2), summary(hub, "1B", deal=3, ended=2,
                                                                                     seq=80, rnd=2)])
    assert pub.releases() == [("1A", {**want, "through": 2}), ("1B", {**want, "through": 2})]
    # A (re)connect sends each table its whole message again (the other match: its round 1).
    hub._republish()
    assert sorted(t for t, _ in pub.releases()) == ["1A", "1B", "2A", "2B"]
    # A restarted hub works out the same from the latest summaries alone, and from its log alone.
    latest = {t: live.summary for t, live in hub.live.items()}
    assert releases(hub.core.draws, latest)["1A"] == {**want, "through": 2}
    assert releases(hub.core.draws, {}, hub.core.results)["1B"] == {**every, "board": "R1-M1"}
    assert hub.core.faults == {}


def test_a_room_ahead_in_the_next_round_still_gets_the_earlier_rounds_release(hub: HubService) -> None:
    """Worked out from the same summaries, a table's later round replaced its earlier one: room 1A,
    already playing round 2 against another table, never got the round 1 deals that its round 1
    twin's last summary released."""
    a1 = hub.core.draws[1]["assignments"]
    t2 = {"1A": {"NS": "T1", "EW": "T3"}, "2A": {"NS": "T3", "EW": "T1"}, "1B": {"NS": "T0", "EW": "T2"},
          "2B": {"NS": "T2", "EW": "T0"}}
    draws = {1: hub.core.draws[1], 2: {"published": True, "assignments": {
        t: {"board": "R2-M1" if t in ("1A", "2A") else "R2-M2", "teams": teams} for t, teams in t2.items()}}}
    now = {"1A": {"round": 2, "teams": t2["1A"], "deal": 2, "deals_ended": 1},
           "2A": {"round": 2, "teams": t2["2A"], "deal": 2, "deals_ended": 1},
           "1B": {"round": 1, "teams": a1["1B"]["teams"], "deal": 2, "deals_ended": 2, "finished": True}}
    got = releases(draws, now)
    r1 = {"through": EVERY_DEAL, "board": "R1-M1"}  # 1A past round 1, 1B finished it: both done
    assert got["1A"] == {"round": 2, "through": 1, "board": "R2-M1", "earlier": {"1": r1}}
    assert got["1B"] == {"round": 1, **r1}
    assert got["2A"] == {"round": 2, "through": 1, "board": "R2-M1"}
    # The book: only the boards a summary can change are worked out again, and never less.
    book = ReleaseBook()
    for t, s in now.items():
        book.note(draws, t, s, s["round"])
    assert book.update(draws) == {"1A", "1B", "2A"}
    assert book.due["1A"] == {1: ("R1-M1", EVERY_DEAL), 2: ("R2-M1", 1)}
    assert book.update(draws) == set()  # nothing new: nothing to send
    book.note(draws, "2A", {**now["2A"], "deals_ended": 0, "deal": 1}, 2)  # an older summary, late
    assert book.update(draws) == set() and book.due["2A"] == {2: ("R2-M1", 1)}
    assert book.update(draws, everything=True) == set()  # worked out afresh: the same, never less


@pytest.mark.parametrize("earlier", [
    [], {"0": {"through": 1, "board": "R"}}, {"01": {"through": 1, "board": "R"}}, {"3": {"through": 1, "board": "R"}},
    {"2": {"through": 1, "board": "R"}}, {"1": {"through": 1}}, {"1": {"through": 1, "board": "R", "x": 1}},
    {"1": {"through": -1, "board": "R"}}, {"1": {"through": 1, "board": ""}}, {"1": [1, "R"]},
    {str(r): {"through": 1, "board": "R"} for r in range(1, 100)}])
def test_the_table_checks_earlier_rounds(earlier: Any) -> None:
    base = {"round": 2, "through": 1, "board": "R2-M1"}
    assert check_release(base) == base  # the old form: still read, as itself
    good = {**base, "earlier": {"1": {"through": 3, "board": "R1-M1"}}}
    assert check_release(good) == good
    with pytest.raises(ValueError, match="earlier"):
        check_release({**base, "round": 100 if len(earlier) == 99 else 2, "earlier": earlier})


class Raw(Published):
    """Also keeps each payload's bytes (the retained message as the broker holds it)."""

    def __init__(self) -> None:
        super().__init__()
        self.raw: list[tuple[str, str, bytes]] = []

    def publish(self, table: str, name: str, payload: bytes, *, retain: bool = True) -> None:
        self.raw.append((table, name, payload))
        super().publish(table, name, payload, retain=retain)

    def publish_deck(self, payload: bytes) -> None:
        pass

    def publish_accounts(self, payload: bytes) -> None:
        pass


def restarted(hub: HubService, tmp_path: Path) -> HubService:
    """The hub stopped (kill -9 or a clean stop: only its log stays) and started again on its folder."""
    hub.mqtt = None
    hub.stop()
    again = HubService(duplicate_cfg(), tmp_path, connect=False)
    again.mqtt = Raw()  # type: ignore[assignment]
    return again


def test_a_restarted_hub_still_releases_the_round_a_room_left_while_away(tmp_path: Path) -> None:
    """The durability audit's case: room 1B's network is down for round 1's last deal and comes back
    in round 2, and the hub restarts meanwhile. The hub's memory of round 1 (1A ended 2, 1B ended 1)
    was lost, its summaries now of round 2: round 1 was worked out again as "through 1" (the most
    a summary it still had showed) and deal 2 never went public at either room. Now a round both
    rooms are done with — by their results in the hub's log, or summaries past it — is every deal."""
    hub = HubService(duplicate_cfg(), tmp_path, connect=False)
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    hub.mqtt = Raw()  # type: ignore[assignment]
    hub.handle_batch([summary(hub, "1A", deal=2, ended=1, seq=30), summary(hub, "1B", deal=2, ended=1, seq=30)])
    hub.handle_batch([summary(hub, "1A", deal=2, ended=2, seq=40, finished=True)])
    enter_round(hub, 1)
    hub.draw_next("org", "chief")
    hub.publish_draw(2, "org", "chief")
    r2_1a = summary(hub, "1A", deal=2, ended=1, seq=60, rnd=2)
    r1_1b = summary(hub, "1B", deal=2, ended=1, seq=30)  # 1B's last summary the broker holds
    r2_1b = summary(hub, "1B", deal=2, ended=1, seq=70, rnd=2)
    hub.handle_batch([r2_1a])

    hub = restarted(hub, tmp_path)
    try:
        pub: Raw = hub.mqtt  # type: ignore[assignment]
        hub._republish()  # on connect, before any summary: from the log alone (both rooms' results)
        rel = dict(pub.releases())
        assert rel["1A"] == rel["1B"] == {"round": 1, "through": EVERY_DEAL, "board": "R1-M1"}
        hub.handle_batch([r2_1a, r1_1b])  # the retained summaries
        assert pub.releases() == []  # nothing taken back, nothing of round 2 while 1B is away
        hub.handle_batch([r2_1b])  # 1B is back
        got = dict(pub.releases())
        assert got["1A"] == got["1B"] == {"round": 2, "through": 1, "board": "R2-M1",
                                          "earlier": {"1": {"through": EVERY_DEAL, "board": "R1-M1"}}}
        assert got["1B"]["earlier"]["1"]["through"] >= 2, "round 1's deal 2, ended at both rooms, held"
    finally:
        hub.mqtt = None
        hub.stop()


def test_a_restart_without_results_still_releases_a_round_both_rooms_left() -> None:
    """The rebuild from the tables' latest summaries alone (no result logged yet, e.g. both rooms'
    results on their way): both summaries of round 2 say both rooms are done with round 1."""
    draws = {1: {"published": True, "assignments": {
        "1A": {"board": "R1-M1", "teams": {"NS": "T0", "EW": "T1"}},
        "1B": {"board": "R1-M1", "teams": {"NS": "T1", "EW": "T0"}}}},
             2: {"published": True, "assignments": {
                 "1A": {"board": "R2-M1", "teams": {"NS": "T0", "EW": "T2"}},
                 "1B": {"board": "R2-M1", "teams": {"NS": "T2", "EW": "T0"}}}}}
    latest = {t: {"round": 2, "teams": draws[2]["assignments"][t]["teams"], "deal": 1, "deals_ended": 0}
              for t in ("1A", "1B")}
    assert releases(draws, latest)["1A"] == {"round": 1, "through": EVERY_DEAL, "board": "R1-M1"}
    # One room still in round 1 (its latest summary, retained): it limits, as before the restart.
    latest["1B"] = {"round": 1, "teams": draws[1]["assignments"]["1B"]["teams"], "deal": 2, "deals_ended": 1}
    assert releases(draws, latest)["1A"] == {"round": 1, "through": 1, "board": "R1-M1"}
    # ... unless its result is in the hub's log: then it is done with the round.
    assert releases(draws, latest, {(1, "1B")})["1A"]["through"] == EVERY_DEAL


def test_a_restarted_hub_sends_each_assignment_as_it_was_published(tmp_path: Path) -> None:
    """A restarted hub re-published the current round's assignments without ``hub_seq``: the
    retained message changed under the tables with nothing changed at the hub."""
    hub = HubService(duplicate_cfg(), tmp_path, connect=False)
    hub.draw_next("org", "chief")
    hub.mqtt = Raw()  # type: ignore[assignment]
    hub.publish_draw(1, "org", "chief")
    first = {t: p for t, n, p in hub.mqtt.raw if n == "assignment"}  # type: ignore[attr-defined]
    seq = hub.core.last_seq
    assert set(first) == {"1A", "1B", "2A", "2B"}
    assert all(json.loads(p)["hub_seq"] == seq for p in first.values())
    hub._republish()  # a reconnect of the same hub
    again = {t: p for t, n, p in hub.mqtt.raw if n == "assignment"}  # type: ignore[attr-defined]
    assert again == first
    hub = restarted(hub, tmp_path)
    try:
        hub._republish()
        after = {t: p for t, n, p in hub.mqtt.raw if n == "assignment"}  # type: ignore[attr-defined]
        assert after == first
    finally:
        hub.mqtt = None
        hub.stop()
