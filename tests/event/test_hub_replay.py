"""Random organiser sessions against the hub: whatever happens, a published draw never changes, and
a hub started again on its log has exactly the same state and standings."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import EventInputError

ACTIONS = ("draw", "publish", "result", "result", "result", "correct", "publish_results", "appeal", "wait",
           "table_msg")


def snapshot(hub: HubService) -> dict[str, Any]:
    c = hub.core
    return {"draws": json.dumps(c.draws, sort_keys=True),
            "results": sorted((k, json.dumps(v.line, sort_keys=True), v.source, len(v.history))
                              for k, v in c.results.items()),
            "refusals": len(c.refusals), "appeals": json.dumps(c.appeals, sort_keys=True),
            "published": c.results_published, "standings": hub.standings_json()}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**6), steps=st.integers(5, 60), n=st.integers(3, 7))
def test_random_sessions_replay_exactly(tmp_path_factory: Any, seed: int, steps: int, n: int) -> None:
    rng = random.Random(seed)
    folder: Path = tmp_path_factory.mktemp("hub")
    now = [1_795_000_000_000]
    cfg = validate({"event": {"id": "r", "rounds": 3, "seed": seed},
                    "teams": [{"id": f"T{i}"} for i in range(n)]})
    hub = HubService(cfg, folder, clock_ms=lambda: now[0], connect=False)
    published: dict[int, str] = {}
    role = lambda: rng.choice(["referee", "referee", "chief"])  # noqa: E731
    for _ in range(steps):
        action = rng.choice(ACTIONS)
        c = hub.core
        try:
            if action == "draw":
                hub.draw_next("o", role())
            elif action == "publish":
                draft = [r for r, d in c.draws.items() if not d["published"]]
                if draft:
                    hub.publish_draw(draft[0], "o", role())
            elif action in ("result", "correct", "appeal", "table_msg"):
                slots = [(r, t) for r in c.published_rounds for t in c.draws[r]["tables"]]
                if not slots:
                    continue
                rnd, t = rng.choice(slots)
                line = {"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"],
                        "ns_levels": rng.randint(0, 13), "ew_levels": rng.randint(0, 13)}
                if rng.random() < 0.1:
                    line["forfeit"] = rng.choice(["ns", "ew"])
                if action == "result":
                    hub.hand_result(line, "o", role())
                elif action == "correct":
                    hub.correct(rnd, t["table"], line, "更正 / fix", "o", role())
                elif action == "appeal":
                    hub.file_appeal(rnd, t["table"], t["ns"], "申诉 / appeal", "o", role())
                else:
                    bad_round = rnd + rng.choice([0, 0, 1])
                    msg = {"result_id": f"r{bad_round}-s{rng.randint(1, 5)}", "result": {**line, "round": bad_round}}
                    hub.handle_batch([(t["table"], "result", json.dumps(msg).encode(), False)])
            elif action == "publish_results":
                done = [r for r in c.published_rounds if c.round_complete(r) and r not in c.results_published]
                if done:
                    hub.publish_results(done[0], "o", role())
            else:
                now[0] += rng.choice([60_000, 5 * 60_000, 25 * 60_000])
        except EventInputError:
            pass  # a refused action changes nothing (checked below through the published draws)
        for r, d in hub.core.draws.items():
            if d["published"]:
                frozen = json.dumps(d, sort_keys=True)
                assert published.setdefault(r, frozen) == frozen
    before = snapshot(hub)
    hub.stop()
    again = HubService(cfg, folder, clock_ms=lambda: now[0], connect=False)
    try:
        assert snapshot(again) == before
    finally:
        again.stop()
