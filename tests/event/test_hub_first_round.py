"""Round 1 drawn by lots (首轮抽签), seeded by the event's seed and logged with the draw.

The organiser audit at 200 tables / 400 teams: round 1 was paired in EVENT.toml's order (T001–T002,
T003–T004, …) and a redraw gave the same, so clubmates entered side by side met in round 1. Now the
order round 1 pairs by is the field's lots (the standings' own, from the event's seed): the hub, a
replay and ``guandan-table event pair`` draw the same; ``first_round = "order"`` keeps the list's
order for an organiser who seeded it. A log from before (round 1 drawn in the list's order, no
record of lots) replays as it was and a round robin goes on round its entry-order circle.
"""

from __future__ import annotations

import json
import sqlite3
from itertools import combinations
from pathlib import Path
from typing import Any

import pytest

from table_service.event.cli import register
from table_service.event.config import validate
from table_service.event.draw import first_round_order, make_draw
from table_service.event.hub import HubService
from table_service.event.model import EventInputError
from table_service.event.standings import compute_standings

from .test_hub_web import app_with_users, login

START_MS = 1_795_000_000_000


def raw_cfg(n: int = 400, **event: Any) -> dict[str, Any]:
    """EVENT.toml as parsed: ``n`` teams T001… listed club by club (four a club)."""
    return {"event": {"id": "lots", "rounds": 7, "seed": 2026, "draw": "swiss", **event},
            "teams": [{"id": f"T{i:03d}", "name": f"队{i}"} for i in range(1, n + 1)]}


def open_hub(folder: Path, raw: dict[str, Any]) -> HubService:
    clock = iter(range(START_MS, START_MS + 10**9, 1000))
    return HubService(validate(raw), folder, clock_ms=lambda: next(clock), connect=False)


def pairs(tables: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(t["ns"], t["ew"]) for t in tables]


def clubmates(tables: list[dict[str, Any]]) -> int:
    """Tables whose two teams are of one club (four consecutive entries: T001–T004, …)."""
    return sum((int(t["ns"][1:]) - 1) // 4 == (int(t["ew"][1:]) - 1) // 4 for t in tables)


def play(hub: HubService, rnd: int) -> None:
    hub.draw_next("org", "referee")
    hub.publish_draw(rnd, "org", "referee")
    for i, t in enumerate(hub.core.draws[rnd]["tables"]):
        hub.hand_result({"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 6,
                         "ew_levels": i % 5}, "org", "referee")


def test_round_1_of_400_teams_is_drawn_by_seeded_lots_and_logged(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub", raw_cfg())
    ev = hub.draw_next("org", "referee")
    d = ev["data"]
    teams = [f"T{i:03d}" for i in range(1, 401)]
    # Not the list's order: T001–T002, T003–T004 … put every club's four together in round 1 (200 tables of clubmates)
    assert pairs(d["tables"])[:3] != [("T001", "T002"), ("T003", "T004"), ("T005", "T006")]
    assert clubmates(d["tables"]) < 10  # by lots: about 200 × 3/399 ≈ 1.5; in the list's order, 200
    # In the log: how it was drawn and the lots' order (the tables follow it, 1-2, 3-4, …)
    assert d["first_round"] == "lots" and sorted(d["lots"]) == teams
    assert d["lots"] == first_round_order(teams, 2026) != teams
    assert [x for t in d["tables"] for x in sorted((t["ns"], t["ew"]), key=d["lots"].index)] == d["lots"]
    assert hub.store.events()[-1]["data"]["lots"] == d["lots"]
    # The standings with no results rank the field by the very same lots (one source of lots)
    assert [r.team for r in compute_standings([], teams, seed=2026).rows] == d["lots"]
    # Seeded: a redraw draws the same, another seed another
    assert hub.draw_next("org", "referee")["data"]["tables"] == d["tables"]
    other = open_hub(tmp_path / "other", raw_cfg(seed=7)).draw_next("org", "referee")["data"]
    assert other["lots"] != d["lots"]


def test_the_cli_reproduces_the_hub_s_round_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An independent check: ``guandan-table event pair`` with the event's seed and no results."""
    import argparse

    hub = open_hub(tmp_path / "hub", raw_cfg(21))
    d = hub.draw_next("org", "referee")["data"]
    (tmp_path / "TEAMS.txt").write_text("\n".join(hub.core.teams) + "\n")
    (tmp_path / "RESULTS.jsonl").write_text("")
    parser = argparse.ArgumentParser()
    register(parser.add_subparsers())
    for extra in ([], ["--json"]):
        args = parser.parse_args(["event", "pair", str(tmp_path / "RESULTS.jsonl"), "--teams",
                                  str(tmp_path / "TEAMS.txt"), "--seed", "2026", *extra])
        assert args.func(args) == 0
    text, js = capsys.readouterr().out.rsplit("\n", 2)[:2]
    assert "首轮抽签（种子 2026） / round 1 by lots (seed 2026)" in text
    got = json.loads(js)
    assert [(t["table"], t["ns"], t["ew"]) for t in got["tables"]] == [(t["table"], t["ns"], t["ew"])
                                                                       for t in d["tables"]]
    assert got["bye"] == d["bye"] is not None  # 21 teams: the last of the lots sits out
    assert got["info"]["first_round"] == "lots" and got["info"]["lots"] == d["lots"]  # the lots the hub logged


def test_first_round_order_keeps_the_list_s_order(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub", raw_cfg(8, first_round="order"))
    d = hub.draw_next("org", "referee")["data"]
    assert pairs(d["tables"]) == [("T001", "T002"), ("T003", "T004"), ("T005", "T006"), ("T007", "T008")]
    assert d["first_round"] == "order" and "lots" not in d


@pytest.mark.parametrize("value", ["random", "", 1, True, ["lots"]])
def test_a_bad_first_round_is_refused_saying_what_it_may_be(value: Any) -> None:
    with pytest.raises(EventInputError) as exc:
        validate(raw_cfg(4, first_round=value))
    msg = str(exc.value)
    assert msg.startswith("EVENT.toml [event]: first_round 须为") and 'first_round must be "lots"' in msg
    assert '"order"' in msg and "\n" not in msg


def test_an_unchanged_event_toml_without_first_round_is_not_a_changed_file(tmp_path: Path) -> None:
    """The option is written into the configuration only when the file gives it: an event the hub
    logged before the option (or without it) restarts with no reload and no "EVENT.toml changed"."""
    assert "first_round" not in validate(raw_cfg(4))["event"]
    assert validate(raw_cfg(4, first_round="lots"))["event"]["first_round"] == "lots"
    hub = open_hub(tmp_path / "hub", raw_cfg(4))
    hub.draw_next("org", "referee")
    hub.store.close()
    again = open_hub(tmp_path / "hub", raw_cfg(4))
    assert again.config_note is None and again.core.draws[1]["first_round"] == "lots"


@pytest.mark.parametrize("n", [6, 7])
def test_a_round_robin_goes_round_the_circle_its_lots_drew(tmp_path: Path, n: int) -> None:
    rounds = n - 1 + n % 2
    raw = raw_cfg(n, draw="round-robin", rounds=rounds)
    hub = open_hub(tmp_path / "hub", raw)
    for rnd in range(1, rounds + 1):
        play(hub, rnd)
    lots = hub.core.draws[1]["lots"]
    assert lots != hub.core.teams and hub.core.draws[1]["first_round"] == "lots"
    met = [frozenset((t["ns"], t["ew"])) for r in range(1, rounds + 1) for t in hub.core.draws[r]["tables"]]
    assert sorted(met, key=sorted) == sorted({frozenset(p) for p in combinations(hub.core.teams, 2)}, key=sorted)
    # Round 2 on is the circle of round 1's lots (not of the list)
    assert [{t["ns"], t["ew"]} for t in hub.core.draws[2]["tables"]] == [
        {t[1], t[2]} for t in make_draw("round-robin", hub.core.teams, (), seed=0, round_no=2, order=lots).tables]
    assert "first_round" not in hub.core.draws[2]  # said once, with round 1
    draws = json.dumps(hub.core.draws, sort_keys=True)
    hub.store.close()
    assert json.dumps(open_hub(tmp_path / "hub", raw).core.draws, sort_keys=True) == draws  # the replay


def _forget_first_round(db: Path) -> None:
    """Make round 1's ``round_drawn`` as a release before the lots logged it: no ``first_round``, no ``lots``."""
    conn = sqlite3.connect(db)
    for seq, data in conn.execute("SELECT seq, data FROM hub_events WHERE type = 'round_drawn'").fetchall():
        d = json.loads(data)
        d.pop("first_round", None)
        d.pop("lots", None)
        conn.execute("UPDATE hub_events SET data = ? WHERE seq = ?", (json.dumps(d, ensure_ascii=False), seq))
    conn.commit()
    conn.close()


def test_an_earlier_release_s_log_replays_its_draws_and_keeps_its_circle(tmp_path: Path) -> None:
    """A round robin whose round 1 an earlier release drew in the list's order (its log has no lots):
    the hub started on the new release reads the logged draws, never redraws them, and draws round 2
    on from the same entry-order circle — lots there would pair teams that already met."""
    raw = raw_cfg(6, draw="round-robin", rounds=5, first_round="order")
    hub = open_hub(tmp_path / "hub", raw)
    play(hub, 1)
    hub.draw_next("org", "referee")  # a draft of round 2 too: logged, read back as it is
    before = json.dumps(hub.core.draws, sort_keys=True)
    hub.store.close()
    _forget_first_round(tmp_path / "hub" / "hub-events.sqlite3")
    del raw["event"]["first_round"]  # and EVENT.toml as that release knew it: lots now, by default
    old = open_hub(tmp_path / "hub", raw_cfg(6, draw="round-robin", rounds=5, first_round="order"))
    assert "first_round" not in old.core.draws[1]
    drafted = json.loads(before)["2"]["tables"]
    assert old.core.draws[2]["tables"] == drafted  # the logged draft, not a redraw
    old.store.close()
    hub = open_hub(tmp_path / "hub", raw)
    assert hub.config_note is not None  # the file changed after the first draw: the logged one stays
    assert hub.core.first_round_now() == ("order", hub.core.teams)
    assert hub.draw_next("org", "referee")["data"]["tables"] == drafted  # redrawn: the same circle
    for rnd in range(2, 6):
        if rnd > 2:
            hub.draw_next("org", "referee")
        hub.publish_draw(rnd, "org", "referee")
        for t in hub.core.draws[rnd]["tables"]:
            hub.hand_result({"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 3,
                             "ew_levels": 1}, "org", "referee")
    met = [frozenset((t["ns"], t["ew"])) for r in range(1, 6) for t in hub.core.draws[r]["tables"]]
    assert len(met) == len(set(met)) == 15  # everyone met everyone once


def test_the_printed_draw_and_the_organiser_page_say_round_1_was_drawn_by_lots(tmp_path: Path) -> None:
    hub = open_hub(tmp_path / "hub", raw_cfg(8))
    c = app_with_users(hub, tmp_path).test_client()
    tok = login(c, "rita")
    assert c.post("/hub/action/draw", data={"csrf_token": tok}).status_code == 302
    sheet = c.get("/hub/print/draw/1").get_data(as_text=True)
    assert '<p id="first-round"><b>首轮抽签 / round 1 by lots</b></p>' in sheet
    assert 'id="draft-first-round">首轮抽签 / round 1 by lots<' in c.get("/hub/admin").get_data(as_text=True)
    hub.publish_draw(1, "org", "referee")
    for t in hub.core.draws[1]["tables"]:
        hub.hand_result({"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 2,
                         "ew_levels": 1}, "org", "referee")
    hub.draw_next("org", "referee")
    assert 'id="first-round"' not in c.get("/hub/print/draw/2").get_data(as_text=True)  # round 1's alone
    (tmp_path / "o").mkdir()
    c2 = app_with_users(open_hub(tmp_path / "ordered", raw_cfg(8, first_round="order")), tmp_path / "o").test_client()
    c2.post("/hub/action/draw", data={"csrf_token": login(c2, "rita")})
    assert "<b>首轮按名单顺序 / round 1 in entry order</b>" in c2.get("/hub/print/draw/1").get_data(as_text=True)
