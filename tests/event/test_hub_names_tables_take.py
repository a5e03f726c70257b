"""A name the hub takes is a name every table takes, and text the hub calls blank is blank however
it is spelt (audit of 2026-12-06, seventh session).

Before: the hub judged names and texts with ``str.strip``/``isprintable``-free checks while the
tables' engine judged them with its own. A player named by zero-width spaces was accepted at the hub
and refused by the table the round went to; a team "江苏　一队" (the full-width space a Chinese
input method types) was accepted at the hub and refused by every table; an appeal or a correction
of nothing but zero-width spaces was filed as written. One rule now: ``engine.names.is_name`` for
names, ``says_something`` for texts.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from table_service.engine.names import is_name, says_something
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import EventInputError
from table_service.views.assignment import set_up_data

from .test_hub_web import app_with_users, login

ZW = "\u200b\u200b"


def _raw(teams: list[dict]) -> dict:
    return {"event": {"id": "names", "name": "名字赛", "rounds": 2, "seed": 3}, "teams": teams}


def _started_at_every_table(hub: HubService) -> None:
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    for assignment in hub.core.draws[1]["assignments"].values():
        set_up_data(assignment)  # raises ValueError where the table's engine refuses the round


def test_names_with_spaces_of_any_script_are_taken_by_the_hub_and_by_every_table(tmp_path: Path) -> None:
    names = ["江苏\u3000一队", "南京\u00a0二队", "安徽 三队", "合肥四队"]
    teams = [{"id": f"T{i}", "name": n, "players": [f"张\u3000{i}", f"李 {i}"]} for i, n in enumerate(names, 1)]
    hub = HubService(validate(_raw(teams)), tmp_path / "hub", connect=False)
    _started_at_every_table(hub)
    assert {t["name"] for t in hub.core.cfg["teams"]} == set(names)
    hub.stop()


@pytest.mark.parametrize("bad", [ZW, "\u00ad", "\u2060\u2060", "\ufeff", "张\u200b三", "a\u2028b"])
def test_a_name_no_table_would_take_is_refused_in_event_toml_and_at_the_hub(tmp_path: Path, bad: str) -> None:
    assert not is_name(bad)
    teams = [{"id": f"T{i}", "players": ["a", "b"]} for i in range(1, 5)]
    with pytest.raises(EventInputError, match="选手名 .* 无效"):
        validate(_raw([{**teams[0], "players": [bad, "b"]}, *teams[1:]]))
    if not says_something(bad):  # a team's name never reaches a table: only one of nothing visible is refused
        with pytest.raises(EventInputError, match="队名"):
            validate(_raw([{**teams[0], "name": bad}, *teams[1:]]))
    hub = HubService(validate(_raw(teams)), tmp_path / "hub", connect=False)
    with pytest.raises(EventInputError, match="选手名 .* 无效"):
        hub.edit_team("T1", "一队", [bad, "b"], "org", "chief")
    if not says_something(bad):
        with pytest.raises(EventInputError, match="队名无效"):
            hub.edit_team("T1", bad, ["a", "b"], "org", "chief")
    with pytest.raises(EventInputError, match="选手名 .* 无效"):
        hub.add_team("T5", "五队", ["a", bad], "org", "chief")
    assert hub.core.team("T1")["players"] == ["a", "b"] and "T5" not in {t["id"] for t in hub.core.cfg["teams"]}
    _started_at_every_table(hub)  # nothing refused reached a round
    hub.stop()


def test_an_appeal_or_a_correction_of_invisible_text_is_refused_and_the_slot_is_never_echoed(tmp_path: Path) -> None:
    hub = HubService(validate(_raw([{"id": f"T{i}", "players": ["a", "b"]} for i in range(1, 5)])),
                     tmp_path / "hub", connect=False)
    app = app_with_users(hub, tmp_path)
    c = app.test_client()
    tok = login(c, "chen")
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    t = hub.core.draws[1]["tables"][0]
    hub.hand_result({"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 3, "ew_levels": 1},
                    "org", "chief")
    seq = hub.core.last_seq

    def post(action: str, **form: str):
        r = c.post(f"/hub/action/{action}", data={"csrf_token": tok, **form}, headers={"Accept": "application/json"})
        return r.status_code, r.get_json()

    slot = f"1|{t['table']}"
    code, body = post("appeal", slot=slot, team=t["ns"], text=ZW)
    assert code == 400 and "申诉须有书面理由" in body["error"]
    code, body = post("correct", slot=slot, ns_levels="2", ew_levels="1", reason=ZW)
    assert code == 400 and "请写明纠正原因" in body["error"]
    code, body = post("edit_event", name=ZW, ruleset=hub.core.cfg["event"]["ruleset"], kind="deals", deals="8")
    assert code == 400
    code, body = post("hand_result", slot="1|\x1b[2J\u202eX", ns_levels="1", ew_levels="0")
    assert code == 400 and "\x1b" not in body["error"] and "\u202e" not in body["error"]
    assert hub.core.last_seq == seq  # nothing logged
    hub.stop()


def test_a_team_name_with_an_emojis_zero_width_joiner_is_a_name_at_the_hub(tmp_path: Path) -> None:
    """The s36 review: team names never reach a table's engine (rounds seat teams by id), so the tables'
    stricter rule for players' names refused an emoji's zero-width joiner in a team's name that the last
    release took, and an upgraded hub would not start on that EVENT.toml."""
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467 队"
    teams = [{"id": f"T{i}", "players": ["a", "b"]} for i in range(1, 5)]
    cfg = validate(_raw([{**teams[0], "name": family}, *teams[1:]]))
    hub = HubService(cfg, tmp_path / "hub", connect=False)
    assert hub.core.team_names()["T1"] == family
    _started_at_every_table(hub)
    hub.stop()
