"""A draft knows the results it was drawn from (audit repro_stale_draft): a result corrected after
the next round was drawn as a draft made that draft pair on stale standings, and publishing it sent
them out unremarked. Now the draft is marked stale on the hub's pages and publishing it is refused,
naming what changed, with the one-tap redraw; the chief checks the new draft, then publishes. A
published draw stays as it is whatever is corrected later (the rules: final)."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest

from table_service.event.config import draw_method, scoring_of, validate
from table_service.event.draw import make_draw
from table_service.event.hub import HubService
from table_service.event.model import EventInputError

from .test_hub_web import app_with_users, login

START_MS = 1_795_000_000_000


def _cfg(teams: int = 8, draw: str = "swiss") -> dict[str, Any]:
    return validate({"event": {"id": "stale", "name": "草案赛", "rounds": 3, "seed": 1, "draw": draw},
                     "teams": [{"id": f"T{i}", "players": [f"T{i}a", f"T{i}b"]} for i in range(1, teams + 1)]})


def _open(folder: Path, teams: int = 8, draw: str = "swiss") -> HubService:
    clock = iter(range(START_MS, START_MS + 10**9, 1000))
    return HubService(_cfg(teams, draw), folder, clock_ms=lambda: next(clock), connect=False)


def _enter(hub: HubService, rnd: int, tables: list[dict[str, Any]]) -> None:
    """Each of ``tables`` of round ``rnd`` won 5:2 by NS, entered by hand."""
    for t in tables:
        hub.hand_result({"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 5,
                         "ew_levels": 2}, "org", "referee")


def _round_one(hub: HubService) -> None:
    """Round 1 drawn, published, every table won 5:2 by NS, results published."""
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    _enter(hub, 1, hub.core.draws[1]["tables"])
    hub.publish_results(1, "org", "referee")


def _correct_first_table(hub: HubService) -> dict[str, Any]:
    """Table 1 of round 1 was really 2:5 (the chief corrects it, late)."""
    t = hub.core.draws[1]["tables"][0]
    hub.correct(1, t["table"], {"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 2,
                                "ew_levels": 5}, "entry error", "chen", "chief")
    return t


def _pairs(hub: HubService, rnd: int) -> set[frozenset[str]]:
    return {frozenset((t["ns"], t["ew"])) for t in hub.core.draws[rnd]["tables"]}


def _fresh(hub: HubService, rnd: int) -> set[frozenset[str]]:
    """The draw the results now in force give."""
    core = hub.core
    d = make_draw(draw_method(core.cfg), core.teams, core.result_objects(), scoring_of(core.cfg),
                  seed=core.cfg["event"]["seed"], round_no=rnd, recorded_lots=core.lots)
    return {frozenset((ns, ew)) for _, ns, ew in d.tables}


def test_a_draft_drawn_before_a_correction_is_refused_at_publication_until_redrawn(tmp_path: Path) -> None:
    hub = _open(tmp_path / "hub")
    _round_one(hub)
    hub.draw_next("org", "referee")  # round 2: a draft
    assert hub.core.draft_changes(2) == [] and hub.overview()["draft"]["stale"] == []
    t = _correct_first_table(hub)
    assert _pairs(hub, 2) != _fresh(hub, 2)  # the draft pairs on the standings before the correction
    changes = hub.core.draft_changes(2)
    assert [(c["kind"], c["round"], c["table"], c["by"]) for c in changes] == [("corrected", 1, t["table"], "chen")]
    draft = hub.overview()["draft"]
    assert draft["round"] == 2 and draft["stale"] == changes
    assert f"第 1 轮 {t['table']} 号桌纠正为" in draft["stale_text"] and "corrected to" in draft["stale_text"]
    with pytest.raises(EventInputError) as refused:
        hub.publish_draw(2, "org", "referee")
    msg = str(refused.value)
    assert re.search(r"[\u4e00-\u9fff]", msg.split(" / ")[0]), "Chinese first"
    assert "重新编排" in msg and "Tap Redraw" in msg and f"table {t['table']}, round 1 corrected" in msg
    assert not hub.core.draws[2]["published"]
    # The one-tap redraw draws from the results now in force; that draft publishes.
    hub.draw_next("chen", "chief")
    assert hub.core.draft_changes(2) == [] and hub.overview()["draft"]["stale_text"] is None
    assert _pairs(hub, 2) == _fresh(hub, 2)
    hub.publish_draw(2, "chen", "chief")
    assert hub.core.draws[2]["published"]
    hub.stop()


def test_a_published_draw_is_never_redrawn_nor_marked_by_a_later_correction(tmp_path: Path) -> None:
    hub = _open(tmp_path / "hub")
    _round_one(hub)
    hub.draw_next("org", "referee")
    hub.publish_draw(2, "org", "referee")
    before = [dict(t) for t in hub.core.draws[2]["tables"]]
    _correct_first_table(hub)
    assert hub.core.draws[2]["tables"] == before and hub.core.draft_changes(2) == []
    assert hub.overview()["draft"] is None
    hub.stop()


def test_a_draft_with_nothing_changed_since_publishes(tmp_path: Path) -> None:
    """Results published (and any lots drawn) after the draft change nothing it was drawn from."""
    hub = _open(tmp_path / "hub")
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    for t in hub.core.draws[1]["tables"]:
        hub.hand_result({"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 3,
                         "ew_levels": 3}, "org", "referee")
    hub.draw_next("org", "referee")  # before the round's results are published: every pair drew, lots decide
    hub.publish_results(1, "org", "referee")
    assert hub.core.lots  # the lots were recorded after the draft
    assert hub.core.draft_changes(2) == []
    hub.publish_draw(2, "org", "referee")
    hub.stop()


def test_a_restarted_hub_still_knows_the_draft_is_stale(tmp_path: Path) -> None:
    hub = _open(tmp_path / "hub")
    _round_one(hub)
    hub.draw_next("org", "referee")
    _correct_first_table(hub)
    hub.stop()
    again = _open(tmp_path / "hub")
    assert [c["kind"] for c in again.core.draft_changes(2)] == ["corrected"]
    assert again.core.draws[2]["inputs_seq"] < again.core.inputs_seq
    with pytest.raises(EventInputError, match="Redraw"):
        again.publish_draw(2, "org", "referee")
    again.stop()


# ------------------------------------------------------------------ the pages


@pytest.fixture
def app_hub(tmp_path: Path) -> Any:
    hub = _open(tmp_path / "hub")
    yield app_with_users(hub, tmp_path), hub
    hub.stop()


def test_the_pages_mark_a_stale_draft_and_redraw_it_with_one_tap(app_hub: Any) -> None:
    app, hub = app_hub
    _round_one(hub)
    c = app.test_client()
    tok = login(c, "rita")
    c.post("/hub/action/draw", data={"csrf_token": tok})
    page = c.get("/hub/admin").get_data(as_text=True)
    assert 'id="draft-stale"' not in page and 'id="publish-draw">' in page  # current: publishable
    t = _correct_first_table(hub)
    page = html.unescape(c.get("/hub/admin").get_data(as_text=True))
    banner = page[page.index('id="draft-stale"'):]
    banner = banner[:banner.index("</div>")]
    assert "草案已过时，不能公布 / This draft is out of date" in banner
    assert f"第 1 轮 {t['table']} 号桌纠正为" in banner and 'id="stale-redraw"' in banner
    assert re.search(r'id="publish-draw" disabled', page)
    assert 'id="draft-stale"' in c.get("/hub/print/draw/2").get_data(as_text=True)
    assert 'id="ov-draft-stale"' in c.get("/hub/").get_data(as_text=True)
    # Publishing it anyway (a page opened before the correction, a script) is refused, saying why.
    c.post("/hub/action/publish", data={"csrf_token": tok, "round": "2"})
    page = html.unescape(c.get("/hub/admin").get_data(as_text=True))
    assert re.search(r'id="flash-error">未公布：第 2 轮草案编排之后成绩或队伍有变', page) and "Tap Redraw" in page
    js = c.post("/hub/action/publish", data={"csrf_token": tok, "round": "2"}, headers={"Accept": "application/json"})
    assert js.status_code == 400 and "Redraw" in js.get_json()["error"]
    assert not hub.core.draws[2]["published"]
    # The banner's button is the draw action: one tap, then the new draft publishes.
    assert 'action="/hub/action/draw"' in banner
    c.post("/hub/action/draw", data={"csrf_token": tok})
    page = c.get("/hub/admin").get_data(as_text=True)
    assert 'id="draft-stale"' not in page
    assert _pairs(hub, 2) == _fresh(hub, 2)
    c.post("/hub/action/publish", data={"csrf_token": tok, "round": "2"})
    assert hub.core.draws[2]["published"]
    api = c.get("/hub/api/overview").get_json()
    assert api["draft"] is None


def test_a_round_robin_draft_is_not_stale_for_a_result(tmp_path: Path) -> None:
    """A round robin's schedule depends on the teams alone: a correction made its draft "out of date,
    it pairs on the old standings" and refused to publish it, although a redraw paired the same. A
    withdrawal still makes it stale (the withdrawn team's opponent gets the bye)."""
    hub = _open(tmp_path / "hub", teams=4, draw="round-robin")
    try:
        _round_one(hub)
        hub.draw_next("org", "referee")
        _correct_first_table(hub)
        assert hub.core.draft_changes(2) == [] and hub.core.stale_words(2) is None
        hub.withdraw_team("T4", "ill", "chen", "chief")
        assert [c["kind"] for c in hub.core.draft_changes(2)] == ["withdrawn"]
    finally:
        hub.stop()


def test_the_standings_during_a_round_are_those_after_the_last_complete_one(tmp_path: Path) -> None:
    """The hall's board counted the round in play: a team yet to play took that round's running total
    again in its progressive points (8 on the board, 4 on the round's sheet), and the bye team its
    points before anyone had played. It shows the standings after the last complete round."""
    hub = _open(tmp_path / "hub", teams=5)  # a bye each round
    try:
        _round_one(hub)
        after_one = hub.standings_json()
        hub.draw_next("org", "referee")
        hub.publish_draw(2, "org", "referee")
        _enter(hub, 2, hub.core.draws[2]["tables"][:1])
        during = hub.standings_json()
        assert during["rounds"] == 1 and during["standings"] == after_one["standings"]
        _enter(hub, 2, hub.core.draws[2]["tables"][1:])
        assert hub.standings_json()["rounds"] == 2
    finally:
        hub.stop()


def test_a_correction_after_later_rounds_were_published_says_they_stand(app_hub: Any) -> None:
    """A late correction of round 1 after round 2 was published said only "corrected": the organiser is
    told that round 2 was drawn on the result before it and stands (published draws are final)."""
    app, hub = app_hub
    _round_one(hub)
    hub.draw_next("org", "referee")
    hub.publish_draw(2, "org", "referee")
    t = hub.core.draws[1]["tables"][0]
    c = app.test_client()
    tok = login(c, "chen")
    r = c.post("/hub/action/correct", data={"csrf_token": tok, "slot": f"1|{t['table']}", "ns_levels": "2",
                                            "ew_levels": "5", "reason": "entry error",
                                            "basis": str(hub.core.results[(1, t["table"])].seq)},
               headers={"Accept": "application/json"})
    msg = r.get_json()["message"]
    assert "第 2 轮的编排按纠正前的成绩排出，不变" in msg and "round(s) 2 were drawn on the result before it and stand" in msg
