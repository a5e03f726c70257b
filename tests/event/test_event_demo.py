"""The event demo end to end: 8 teams × 3 rounds over a real Mosquitto, and the hub's pages;
its table 1 on the full camera path (synthetic camera, real vision, demo referee)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from table_service.demo.event_demo import EventDemo
from table_service.demo.options import DemoOptions

REPO = Path(__file__).resolve().parents[2]


def login(client: Any, name: str, password: str) -> None:
    token = client.get("/auth/whoami").get_json()["csrf_token"]
    resp = client.post("/auth/login", data={"username": name, "password": password, "csrf_token": token})
    assert resp.status_code == 302, resp.data[:300]


def test_eight_teams_three_rounds_end_to_end(tmp_path: Path) -> None:
    # The bot tables only (the camera table has its own tests below: it reads each play).
    demo = EventDemo(4, rounds=3, seed=11, data=tmp_path / "demo", web=True, port=0, camera_tables=0)
    try:
        demo.start()
        demo.run_rounds(timeout_s=120)
        s = demo.summary()
        assert s["errors"] == [] and s["refused"] == 0
        assert s["results"] == 12 and s["from_table_log"] == 12
        assert [r["rank"] for r in s["standings"]] == list(range(1, 9))
        assert sum(r["match_points"] for r in s["standings"]) == 3 * 4 * 2  # 2 points a table (win or 1+1)
        pairs = [frozenset((t["ns"], t["ew"])) for d in demo.hub.core.draws.values() for t in d["tables"]]
        assert len(set(pairs)) == 12
        # Every table played every round from its assignment, in its own log.
        for t in demo.tables:
            assert t.rounds_played == [1, 2, 3]
            rounds = [e["data"].get("round") for e in t.runner.events() if e["type"] == "round_set_up"]
            assert rounds == [1, 2, 3]
        # Where each result came from, and when.
        for tr in demo.hub.core.results.values():
            assert tr.source == "table" and tr.history[0]["table_seq"] and tr.t_ms > 0

        hub = demo.handles[-1].app.test_client()
        board = hub.get("/hub/api/board").get_json()  # public: the hall's screen
        assert [r["team"] for r in board["standings"]["standings"]] == [r["team"] for r in s["standings"]]
        assert all("家队 / Team" in t["ns_name"] and "家队 / Team" in t["ew_name"] for t in board["tables"])
        assert hub.get("/hub/").status_code == 302  # the overview needs a login
        login(hub, *demo.login)
        ov = hub.get("/hub/api/overview").get_json()
        assert ov["round"] == 3 and len(ov["tables"]) == 4 and ov["connected"]
        assert all(t["online"] and t["panel"].startswith(demo.tables_url) for t in ov["tables"])
        # The chief referee reads team names, not ids; the event's own name heads the page.
        assert all("家队 / Team" in t["ns_name"] and "家队 / Team" in t["ew_name"] for t in ov["tables"])
        assert ov["event"]["name"] == "掼蛋演示赛 / Guandan demo event"
        page = hub.get("/hub/").get_data(as_text=True)
        assert "裁判长总览" in page and "Overview" in page and "掼蛋演示赛" in page
        for url in ("/hub/admin", "/hub/print/draw/2", "/hub/print/results/3", "/hub/board"):
            assert hub.get(url).status_code == 200, url
        sheet = hub.get("/hub/print/results/3").get_data(as_text=True)
        assert "桌面记录 / table log" in sheet and "@media print" not in sheet
        exported = hub.get("/hub/results.jsonl").get_data(as_text=True)
        assert len(exported.strip().splitlines()) == 12

        # The table's panel shows its assignment (last round, already started).
        panel = demo.handles[0].app.test_client()
        login(panel, *demo.login)
        deadline = time.monotonic() + 10
        while True:  # the ack follows the hub's commit over the broker: it may still be on its way
            a = panel.get("/api/tables/1/assignment").get_json()
            if (a["result_ack"] or {}).get("result_id", "").startswith("r3-") or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert a["hub"] and a["assignment"]["round"] == 3 and a["started"] is True
        assert a["result_ack"]["status"] == "accepted"
    finally:
        demo.stop()


def _camera_table_reached_the_hub(demo: EventDemo, rounds: int) -> dict[str, Any]:
    """Table 1 played each round from the hub's assignment through the camera, and its signed
    results are the hub's (from its own log). Returns its camera summary."""
    cam = demo.tables[0]
    assert cam.camera and not any(t.camera for t in demo.tables[1:])
    assert cam.rounds_played == list(range(1, rounds + 1))
    events = cam.runner.events()
    setups = [e for e in events if e["type"] == "round_set_up"]
    assert [e["data"]["round"] for e in setups] == list(range(1, rounds + 1))
    for e in setups:  # the teams the hub drew for table 1, as the one-tap button sets them up
        drawn = next(t for t in demo.hub.core.draws[e["data"]["round"]]["tables"] if t["table"] == "1")
        assert e["data"]["teams"] == {"NS": drawn["ns"], "EW": drawn["ew"]}
    signed = [e["data"]["side"] for e in events if e["type"] == "score_sheet_signed"]
    assert sorted(signed) == sorted(["NS", "EW"] * rounds)
    for rnd in range(1, rounds + 1):
        tr = demo.hub.core.results[(rnd, "1")]
        assert tr.source == "table" and tr.result_id.startswith(f"r{rnd}-s")
        assert tr.history[0]["table_seq"] in {e["seq"] for e in events}
    # Plays read by the camera: in the table's log, as camera events.
    from_camera = [e for e in events if e["type"] == "cards_played" and e["source"] == "camera"]
    c = next(c for c in demo.summary()["camera"] if c["table"] == "1")
    assert len(from_camera) == c["camera_read"] + c["camera_asked"] and c["camera_read"] > 0
    assert c["camera_read"] + c["camera_asked"] + c["by_hand"] == c["plays"] >= 40 * rounds
    assert c["camera_read"] >= 0.75 * c["plays"], c
    # Every question the camera put was answered by the demo referee (as in the one-table demo).
    assert c["confirmed"] + c["corrected"] == c["camera_asked"]
    assert c["wrong_certain"] == 0 and c["deals"] == rounds
    return c


def test_rounds_of_several_deals(tmp_path: Path) -> None:
    # `demo --tables 2 --deals 2`: each round is two deals (the event's format), at every table.
    demo = EventDemo(2, rounds=2, seed=5, data=tmp_path / "demo", web=False, port=0, camera_tables=0, deals=2)
    try:
        demo.start()
        demo.run_rounds(timeout_s=120)
        s = demo.summary()
        assert s["errors"] == [] and s["results"] == 4 and s["from_table_log"] == 4
        for t in demo.tables:
            events = t.runner.events()
            set_ups = [e for e in events if e["type"] == "round_set_up"]
            assert [e["data"]["format"] for e in set_ups] == [{"kind": "deals", "deals": 2}] * 2
            st = t.runner.state()  # earlier rounds in "rounds", the last one still on the table
            rounds = [*st["rounds"], {"score_sheet": st["score_sheet"], "result": st["result"]}]
            assert len(rounds) == 2
            for rnd in rounds:
                sheet, result = rnd["score_sheet"], rnd["result"]
                assert len(sheet) == result["deals"]
                # Two deals, or a third when the two left the sides level (a tie plays one more deal).
                gained = {"NS": 0, "EW": 0}
                for d in sheet[:2]:
                    if d["gain"]:
                        gained[d["gain"]["side"]] += d["gain"]["levels"]
                assert len(sheet) == 2 or (len(sheet) > 2 and gained["NS"] == gained["EW"]), (sheet, gained)
    finally:
        demo.stop()


def test_camera_table_plays_through_the_camera_and_reports_to_the_hub(tmp_path: Path) -> None:
    """Two tables, one round of one deal: table 1 on the camera path (×20), table 2 on bots.  The
    camera table going on to the next rounds is the slow test below (and the bot tables' rounds
    are test_eight_teams_three_rounds_end_to_end): the short one keeps the suite in its budget."""
    opts = DemoOptions(speed=20.0, think_s=(0.6, 1.8), mistakes=0.0, stuck_real_s=60.0)
    demo = EventDemo(2, rounds=1, seed=3, data=tmp_path / "demo", web=True, port=0, camera_tables=1,
                     camera_options=opts)
    try:
        demo.start()
        demo.run_rounds(timeout_s=240)
        s = demo.summary()
        # A card the camera never saw, entered by the referee, is the only error allowed (counted
        # against the camera below); see tests/service/test_demo.py.
        assert [e for e in s["errors"] if "not seen by the engine" not in e] == [] and s["refused"] == 0
        assert s["results"] == 2 and s["from_table_log"] == 2
        c = _camera_table_reached_the_hub(demo, 1)
        assert c["frames"] > 0 and c["renders"] > 0
        # Its panel is in the event's tables app (one login): the assignment and the camera's health.
        panel = demo.handles[0].app.test_client()
        login(panel, *demo.login)
        a = panel.get("/api/tables/1/assignment").get_json()
        assert a["hub"] and a["assignment"]["round"] == 1 and a["started"] is True
        assert panel.get("/api/tables/1/state").get_json()["camera"]["state"] in ("reading", "lagging", "not_reading")
    finally:
        demo.stop()


def test_the_event_demo_s_tables_broadcast_with_the_delay_asked(tmp_path: Path) -> None:
    """``demo --tables N --feed-delay 30``: every table's public feed and its MQTT state are 30 s
    behind (they were live, whatever the command said)."""
    demo = EventDemo(2, rounds=2, seed=3, data=tmp_path / "demo", web=True, port=0, camera_tables=0,
                     feed_delay_s=30.0)
    try:
        demo.start()
        feeds = demo.handles[0].app.test_client().get("/feed/").get_json()
        assert [t["delay_s"] for t in feeds["tables"]] == [30.0, 30.0]
        assert all(t.bridge.feed.delay_ms == 30_000 for t in demo.tables)
        assert "30 s" in demo.banner()
    finally:
        demo.stop()


def test_camera_tables_option_is_checked() -> None:
    with pytest.raises(ValueError, match="camera-tables must be 0-2"):
        EventDemo(2, camera_tables=3, web=False)


@pytest.mark.slow
def test_cli_event_demo_four_tables_with_the_camera_table(tmp_path: Path) -> None:
    """``guandan-table demo --tables 4``: 8 teams × 3 rounds, table 1 through the camera."""
    cmd = [sys.executable, "-m", "table_service", "demo", "--tables", "4", "--headless", "--json", "--seed", "11",
           "--speed", "20", "--data", str(tmp_path / "ev")]
    out = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=900, check=False)
    assert out.returncode == 0, out.stderr[-2000:]
    s = json.loads(out.stdout.strip().splitlines()[-1])
    assert s["results"] == 12 and s["from_table_log"] == 12 and s["errors"] == []
    [c] = s["camera"]
    assert c["table"] == "1" and c["deals"] == 3 and c["camera_read"] > 0.75 * c["plays"] > 0
