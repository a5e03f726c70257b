"""Match points have one source (audit repro_ruleset_mp_ignored): EVENT.toml's ``[ruleset_options]
match_points_*`` reached the tables' ruleset while the hub ranked by the event's 2-1-0 / 3-2-1-0
scheme, so the tables showed one thing and the standings another. Now those keys are refused,
naming the ``[event]`` setting to use, and the hub hands the scheme's match points to every table
with its assignment, so a table's round result scores what the hub ranks by."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from table_service.event.config import scoring_of, validate
from table_service.event.hub import HubService
from table_service.event.model import EventInputError
from table_service.rules.ruleset import get_ruleset
from table_service.rules.scoring import match_points
from table_service.views.assignment import set_up_data

TEAMS = [{"id": t, "players": [t + "1", t + "2"]} for t in "ABC"]


@pytest.mark.parametrize("key,setting", [
    ("match_points_win", '[event] match_points = "2-1-0" or "3-2-1-0"'),
    ("match_points_draw", '[event] match_points = "2-1-0" or "3-2-1-0"'),
    ("match_points_loss", '[event] match_points = "2-1-0" or "3-2-1-0"'),
    ("match_points_forfeit", '[event] match_points = "2-1-0" or "3-2-1-0"'),
    ("match_points_bye", "[event] bye_points"),
])
def test_match_points_in_ruleset_options_are_refused_naming_the_event_setting(key: str, setting: str) -> None:
    with pytest.raises(EventInputError) as refused:
        validate({"event": {"id": "mp", "rounds": 2}, "ruleset_options": {"clock_lead_s": 30, key: 1},
                  "teams": TEAMS})
    msg = str(refused.value)
    zh, _, en = msg.partition(" / ")
    assert msg.startswith(f"EVENT.toml [ruleset_options]: {key} 不能在此设置") and re.search(r"[\u4e00-\u9fff]", zh)
    assert f"{key} cannot be set here" in en and setting in en


def test_other_ruleset_options_still_pass() -> None:
    cfg = validate({"event": {"id": "mp", "rounds": 2}, "ruleset_options": {"clock_lead_s": 30, "tries_at_a": 3},
                    "teams": TEAMS})
    assert cfg["event"]["ruleset_options"] == {"clock_lead_s": 30, "tries_at_a": 3}


@pytest.mark.parametrize("scheme,bye", [("2-1-0", None), ("3-2-1-0", None), ("3-2-1-0", 1)])
def test_the_tables_score_the_match_points_the_hub_ranks_by(tmp_path: Path, scheme: str, bye: int | None) -> None:
    ev = {"id": "mp", "rounds": 2, "match_points": scheme, **({"bye_points": bye} if bye is not None else {})}
    cfg = validate({"event": ev, "ruleset_options": {"clock_lead_s": 30}, "teams": TEAMS})
    hub = HubService(cfg, tmp_path / "hub", connect=False)
    hub.draw_next("o", "chief")
    hub.publish_draw(1, "o", "chief")
    hub_scoring = scoring_of(hub.core.cfg)
    for a in hub.core.draws[1]["assignments"].values():
        data = set_up_data(a)  # what the table's one-tap start sets up
        rules = get_ruleset(data["ruleset"]["preset"], **data["ruleset"]["options"])
        assert rules.clock_lead_s == 30
        for outcome in ("win", "draw", "loss", "forfeit", "bye"):
            assert match_points(outcome, rules) == hub_scoring.points(outcome), outcome
    t = hub.core.draws[1]["tables"][0]
    hub.hand_result({"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 5, "ew_levels": 2},
                    "o", "chief")
    rows = {r["team"]: r["match_points"] for r in hub.standings_json()["standings"]}
    assert rows[t["ns"]] == match_points("win", rules) and rows[t["ew"]] == match_points("loss", rules)
    assert rows[hub.core.draws[1]["bye"]] == match_points("bye", rules)
    hub.stop()
