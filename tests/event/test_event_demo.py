"""The event demo end to end: 8 teams × 3 rounds over a real Mosquitto, and the hub's pages."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from table_service.event_demo import EventDemo


def login(client: Any, name: str, password: str) -> None:
    token = client.get("/auth/whoami").get_json()["csrf_token"]
    resp = client.post("/auth/login", data={"username": name, "password": password, "csrf_token": token})
    assert resp.status_code == 302, resp.data[:300]


def test_eight_teams_three_rounds_end_to_end(tmp_path: Path) -> None:
    demo = EventDemo(4, rounds=3, seed=11, data=tmp_path / "demo", web=True, port=0)
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
        assert hub.get("/hub/").status_code == 302  # the overview needs a login
        login(hub, *demo.login)
        ov = hub.get("/hub/api/overview").get_json()
        assert ov["round"] == 3 and len(ov["tables"]) == 4 and ov["connected"]
        assert all(t["online"] and t["panel"].startswith(demo.tables_url) for t in ov["tables"])
        page = hub.get("/hub/").get_data(as_text=True)
        assert "裁判长总览" in page and "Overview" in page
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
