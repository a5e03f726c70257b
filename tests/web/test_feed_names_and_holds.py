"""The s37 broadcast producer's audit, at the public feed (no browser; the overlay's side is
test_overlay_producer_audit.py).

1. Every hub-run table put the hub's team ids on air ("EW T01 / NS T20"): the assignment's
   ``team_names`` never reached the round. A round set up from the assignment as the hub sends it
   now keeps the names beside the ids: the public state says the names, the hub's result line and
   summary still carry the ids, and a log of a round set up without names folds as it did.
2. A duplicate board's deal was held for minutes with nothing in ``state.json`` saying so. The
   public state says ``held: {deal, reason}`` — nothing more, and no earlier than the delay — and the
   stream carries it the moment the hold begins and the moment it ends.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest

from table_service.engine.errors import EventRejected
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.table.mqtt_bridge import table_summary
from table_service.table.runner import TableRunner
from table_service.views.assignment import set_up_data, started
from table_service.views.feed import FeedView, public_state
from table_service.views.wire import table_result

TEAMS = [("T01", "江苏省淮安市清江浦区掼蛋协会一队"), ("T20", "江苏省淮安市清江浦区掼蛋协会二队"),
         ("T07", "南京队"), ("T09", "常州队")]
ONE_EACH = {"E": 1, "S": 1, "W": 1, "N": 1}


def hub_assignment(tmp_path: Path) -> dict[str, Any]:
    """Table 1's assignment for round 1, made by a real hub from an EVENT.toml (one deal a round)."""
    raw = {"event": {"id": "s37", "name": "名字赛", "rounds": 2, "seed": 3, "format": {"kind": "deals", "deals": 1}},
           "teams": [{"id": tid, "name": name, "players": [f"甲{i}", f"乙{i}"]} for i, (tid, name) in enumerate(TEAMS)]}
    hub = HubService(validate(raw), tmp_path / "hub", connect=False)
    try:
        hub.draw_next("org", "chief")
        hub.publish_draw(1, "org", "chief")
        assignments = hub.core.draws[1]["assignments"]
        return json.loads(json.dumps(assignments[sorted(assignments)[0]]))  # as it travels: JSON
    finally:
        hub.stop()


def submit(runner: Any, ev: dict[str, Any]) -> Any:
    res = runner.submit(ev)
    assert res.accepted, res.error
    return res


def test_a_round_from_the_hubs_assignment_is_named_by_its_teams_and_reported_by_their_ids(tmp_path: Path) -> None:
    a = hub_assignment(tmp_path)
    ids, names = a["teams"], a["team_names"]
    assert set(ids.values()) <= {t for t, _ in TEAMS} and ids != names
    with TableRunner(tmp_path / "t.sqlite3") as runner:
        feed = FeedView(runner, pump_thread=False)
        try:
            submit(runner, {"type": "round_set_up", "source": "panel", "role": "referee", "data": set_up_data(a)})
            rnd = runner.state()["round"]
            assert rnd["teams"] == ids and rnd["team_names"] == names and started(runner.state(), a)
            pub = feed.state()
            assert pub["teams"] == names  # what the overlay and any other graphics print
            assert not any(tid in json.dumps(pub, ensure_ascii=False) for tid in ids.values())
            setup = next(e for e in feed.events() if e["type"] == "round_set_up")
            assert setup["data"]["team_names"] == names
            # The hub still gets its ids where it needs them: the summary and the signed result line.
            assert table_summary(runner.state(), "1", None)["teams"] == ids
            submit(runner, {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}})
            submit(runner, {"type": "drawing_finished", "source": "panel", "data": {"counts": ONE_EACH}})
            for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s")):
                submit(runner, {"type": "cards_played", "source": "camera", "data": {"seat": seat, "cards": [card]}})
            for side in ("NS", "EW"):
                submit(runner, {"type": "score_sheet_signed", "source": "panel", "role": "referee", "data": {"side": side}})
            line = table_result(runner.state(), "1")["result"]
            assert (line["ns"], line["ew"]) == (ids["NS"], ids["EW"])
        finally:
            feed.close()


def test_a_team_name_the_hub_takes_with_an_emojis_joiner_starts_the_round() -> None:
    """The hub takes an emoji's zero-width joiner in a team's name (the s36 review): so does the table."""
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467 队"
    data = set_up_data({"round": 1, "players": {"E": "张", "S": "李", "W": "王", "N": "赵"},
                        "teams": {"EW": "T1", "NS": "T2"}, "team_names": {"EW": family, "NS": "常州队"},
                        "ruleset": {"preset": "jiangsu-2013"}, "format": {"kind": "deals", "deals": 1}})
    assert data["team_names"]["EW"] == family


def test_a_round_set_up_without_names_folds_and_shows_as_it_did() -> None:
    """An older log (and a round typed at the panel): ``teams`` are what is shown, no ``team_names``."""
    from table_service.engine.apply import apply
    from table_service.engine.state import initial_state

    data = {"players": {"E": "张", "S": "李", "W": "王", "N": "赵"}, "teams": {"EW": "江苏", "NS": "淮安"}}
    state, _ = apply(initial_state(), {"seq": 1, "t_ms": 0, "type": "round_set_up", "source": "panel",
                                       "role": "referee", "data": data})
    assert state["round"]["team_names"] is None
    assert public_state(state)["teams"] == {"EW": "江苏", "NS": "淮安"}


@pytest.mark.parametrize("names", [{"EW": "江苏"}, {"EW": "江苏", "NS": "\u200b"}, {"EW": "江苏", "NS": "a\u202eb"},
                                   {"EW": "江苏", "NS": "a\x1bb"}])
def test_team_names_that_are_not_both_sides_visible_names_are_refused(names: dict[str, str]) -> None:
    from table_service.engine.apply import apply
    from table_service.engine.state import initial_state

    data = {"players": {"E": "张", "S": "李", "W": "王", "N": "赵"}, "teams": {"EW": "T1", "NS": "T2"},
            "team_names": names}
    with pytest.raises(EventRejected, match="队名"):
        apply(initial_state(), {"seq": 1, "t_ms": 0, "type": "round_set_up", "source": "panel", "role": "referee",
                                "data": data})
    with pytest.raises(ValueError, match="编排无效"):
        set_up_data({"round": 1, "players": data["players"], "teams": data["teams"], "team_names": names,
                     "ruleset": {"preset": "jiangsu-2013"}, "format": {"kind": "deals", "deals": 1}})


def _board_round(runner: Any, h: Any) -> None:
    submit(runner, {"type": "round_set_up", "source": "panel", "role": "referee", "data": {
        "players": h.PLAYERS, "format": {"kind": "deals", "deals": 3}, "board": "R1-M1"}})
    submit(runner, {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}})


def _one_card_deal(runner: Any, h: Any, clock: Any) -> None:
    submit(runner, {"type": "drawing_finished", "source": "panel", "data": {"counts": ONE_EACH}})
    for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s")):
        clock.advance(1_000)
        h.play(runner, seat, [card])


def test_a_held_deal_is_said_in_the_public_state_and_nothing_of_it(h) -> None:
    clock = h.FakeClockMs()
    with tempfile.TemporaryDirectory() as tmp, TableRunner(Path(tmp) / "t.sqlite3", clock=clock) as runner:
        feed = FeedView(runner, delay_s=30, clock=clock, pump_thread=False)
        try:
            _board_round(runner, h)
            t_deal = clock()
            _one_card_deal(runner, h, clock)
            assert feed.state()["held"] is None  # nothing due yet: the hold tells nothing before the delay
            clock.advance(t_deal + 30_000 - 1 - clock())
            assert feed.state()["held"] is None
            clock.advance(1)  # the deal's first event is due: the feed stops there, and says so
            pub = feed.state()
            assert pub["held"] == {"deal": 1, "reason": "duplicate board"} and pub["deal"] is None
            text = json.dumps(pub) + json.dumps(feed.events())
            assert not any(c in text for c in ('"3s"', '"4s"', '"5s"', "counts", "drawing_finished"))
            # The stream learns it at once (no event carries it): its newest message is the held state.
            assert feed.broadcaster.snapshot()[1]["held"] == pub["held"]
            submit(runner, {"type": "deal_released", "source": "panel", "role": "chief", "data": {"deal": 1}})
            clock.advance(60_000)
            pub = feed.state()
            assert pub["held"] is None and pub["deal"]["phase"] == "over"
            assert feed.broadcaster.snapshot()[1]["held"] is None
            submit(runner, {"type": "drawing_finished", "source": "panel", "data": {}})  # deal 2: E owes N a tribute
            clock.advance(60_000)
            assert feed.state()["held"] == {"deal": 2, "reason": "duplicate board"}
            assert feed.state()["deal"]["no"] == 1  # the public still sees deal 1 as it ended
        finally:
            feed.close()


def test_a_plain_tables_feed_never_says_held(h) -> None:
    clock = h.FakeClockMs()
    with tempfile.TemporaryDirectory() as tmp, TableRunner(Path(tmp) / "t.sqlite3", clock=clock) as runner:
        feed = FeedView(runner, delay_s=1, clock=clock, pump_thread=False)
        try:
            h.setup_deal(runner)
            clock.advance(5_000)
            assert feed.state()["held"] is None and feed.state()["deal"]["no"] == 1
        finally:
            feed.close()


def test_the_referees_record_names_a_side_by_its_teams_name_not_the_hubs_id(client, h, runner) -> None:
    """The record page said "方 南北 T20" for a round the hub's assignment set up."""
    a = {"round": 1, "players": h.PLAYERS, "teams": {"EW": "T01", "NS": "T20"},
         "team_names": {"EW": "江苏一队", "NS": "淮安二队"}, "ruleset": {"preset": "jiangsu-2013"},
         "format": {"kind": "deals", "deals": 2}}
    submit(runner, {"type": "round_set_up", "source": "panel", "role": "referee", "data": set_up_data(a)})
    h.login(client, "rita")
    ok = h.post_json(client, "/api/tables/1/actions", {"type": "penalty_given", "data": {
        "side": "NS", "level": "warning", "article": "越序出牌 / playing out of turn"}})
    assert ok.status_code == 200
    row = client.get("/tables/1/record").get_data(as_text=True).split(f'data-seq="{ok.get_json()["seq"]}"', 1)[1]
    row = row.split("</tr>", 1)[0]
    assert "方 南北 淮安二队" in row and "T20" not in row
