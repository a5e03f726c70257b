"""A team withdraws (退赛) at the hub (audit repro_withdrawn_bye): before, a team that had left kept
being drawn, and with an odd field the Swiss bye — a free win — went to it while a playing team
was denied. Now the chief referee withdraws it (logged: who, when, from which round); it is never
drawn again nor given a bye, its place in a published draw stays (its table is entered as a
forfeit), its results stay in the standings marked withdrawn, a restarted hub replays it, and the
chief may reinstate it until a round is published without it."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import EventInputError

from .test_hub_web import app_with_users, login

START_MS = 1_795_000_000_000
W = "T5"


def _open(folder: Path, n: int = 9, draw: str = "swiss", rounds: int = 5) -> HubService:
    cfg = validate({"event": {"id": "wd", "name": "退赛赛", "rounds": rounds, "seed": 1, "draw": draw},
                    "teams": [{"id": f"T{i}", "name": f"队{i}", "players": [f"T{i}a", f"T{i}b"]}
                              for i in range(1, n + 1)]})
    clock = iter(range(START_MS, START_MS + 10**9, 1000))
    return HubService(cfg, folder, clock_ms=lambda: next(clock), connect=False)


def _play(hub: HubService, rnd: int, forfeit_of: str | None = None) -> None:
    """Draw, publish and enter round ``rnd`` (``forfeit_of``'s table, if drawn, as its forfeit)."""
    hub.draw_next("org", "referee")
    hub.publish_draw(rnd, "org", "referee")
    _enter(hub, rnd, forfeit_of)


def _enter(hub: HubService, rnd: int, forfeit_of: str | None = None) -> None:
    for i, t in enumerate(hub.core.draws[rnd]["tables"]):
        line = {"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 6,
                "ew_levels": 3 + i % 4}
        if forfeit_of in (t["ns"], t["ew"]):
            line = {"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"],
                    "forfeit": "ns" if t["ns"] == forfeit_of else "ew"}
        hub.hand_result(line, "org", "referee")
    hub.publish_results(rnd, "org", "referee")


def _drawn(hub: HubService, rnd: int) -> set[str]:
    d = hub.core.draws[rnd]
    return {x for t in d["tables"] for x in (t["ns"], t["ew"])} | set(d["byes"])


def _row(hub: HubService, team: str) -> dict[str, Any]:
    return next(r for r in hub.standings_json()["standings"] if r["team"] == team)


def test_a_withdrawn_team_is_never_drawn_again_and_the_bye_goes_to_a_team_in_play(tmp_path: Path) -> None:
    hub = _open(tmp_path / "hub", n=10)  # 10 teams, one withdraws: 9 in play, one bye a round
    _play(hub, 1)
    after_one = _row(hub, W)
    ev = hub.withdraw_team(W, "家中有事 / family matter", "chen", "chief")
    assert (ev["type"], ev["actor"], ev["role"], ev["data"]) == (
        "team_withdrawn", "chen", "chief", {"team": W, "from_round": 2, "reason": "家中有事 / family matter"})
    assert hub.core.withdrawn[W]["t_ms"] == ev["t_ms"] > START_MS
    for rnd in range(2, 6):
        _play(hub, rnd)
        d = hub.core.draws[rnd]
        assert W not in _drawn(hub, rnd) and len(_drawn(hub, rnd)) == 9
        assert len(d["byes"]) == 1 and d["bye"] == d["byes"][0] != W
    byes = [hub.core.draws[r]["bye"] for r in range(2, 6)]
    assert len(set(byes)) == 4  # nobody had a second bye
    # Its results so far stay in the standings (nothing after round 1), marked withdrawn from round 2.
    row = _row(hub, W)
    assert row["withdrawn"] == 2
    assert {k: row[k] for k in ("match_points", "rounds_won", "level_points", "levels_gained")} == {
        k: after_one[k] for k in ("match_points", "rounds_won", "level_points", "levels_gained")}
    assert all(r["withdrawn"] is None for r in hub.standings_json()["standings"] if r["team"] != W)
    standings = hub.standings_json()
    hub.stop()
    # A restarted hub replays the withdrawal: same standings, and the team stays out.
    again = _open(tmp_path / "hub", n=10)
    assert again.core.withdrawn[W]["from_round"] == 2 and again.core.withdrawn[W]["by"] == "chen"
    assert again.standings_json() == standings
    again.stop()


def test_withdrawn_during_a_published_round_its_table_stays_and_is_a_forfeit(tmp_path: Path) -> None:
    hub = _open(tmp_path / "hub")  # 9 teams: one bye a round
    _play(hub, 1)
    hub.draw_next("org", "referee")
    hub.publish_draw(2, "org", "referee")
    before = [dict(t) for t in hub.core.draws[2]["tables"]]
    plays = W in {x for t in before for x in (t["ns"], t["ew"])}
    hub.withdraw_team(W, "", "chen", "chief")
    assert hub.core.withdrawn[W]["from_round"] == 3
    assert hub.core.draws[2]["tables"] == before  # the published draw is final
    _enter(hub, 2, forfeit_of=W)  # its table in round 2 is entered as its forfeit, as any result
    if plays:
        t = next(t for t in before if W in (t["ns"], t["ew"]))
        assert hub.core.results[(2, t["table"])].line["forfeit"] in ("ns", "ew")
    for rnd in (3, 4, 5):
        _play(hub, rnd)
        assert W not in _drawn(hub, rnd)
        assert not hub.core.draws[rnd]["byes"]  # 8 in play: nobody sits out
    hub.stop()


def test_only_the_chief_withdraws_and_reinstates_and_only_before_the_next_draw(tmp_path: Path) -> None:
    hub = _open(tmp_path / "hub")
    _play(hub, 1)
    with pytest.raises(EventInputError, match="requires role chief"):
        hub.withdraw_team(W, "", "rita", "referee")
    with pytest.raises(EventInputError, match="no team 'T99'"):
        hub.withdraw_team("T99", "", "chen", "chief")
    hub.withdraw_team(W, "", "chen", "chief")
    with pytest.raises(EventInputError, match="withdrew already"):
        hub.withdraw_team(W, "", "chen", "chief")
    with pytest.raises(EventInputError, match="requires role chief"):
        hub.reinstate_team(W, "rita", "referee")
    # A draft drawn without it, then the chief reinstates it: the draft is stale, the redraw has it.
    hub.draw_next("org", "referee")
    assert W not in _drawn(hub, 2)
    ev = hub.reinstate_team(W, "chen", "chief")
    assert (ev["type"], ev["data"]) == ("team_reinstated", {"team": W, "from_round": 2})
    assert [c["kind"] for c in hub.core.draft_changes(2)] == ["reinstated"]
    with pytest.raises(EventInputError, match=f"team {hub.core.team_names()[W]} was reinstated"):
        hub.publish_draw(2, "org", "referee")
    hub.draw_next("org", "referee")
    assert W in _drawn(hub, 2)
    hub.publish_draw(2, "org", "referee")
    _enter(hub, 2)
    # Withdrawn again; once round 3 is published without it, it cannot come back.
    hub.withdraw_team(W, "", "chen", "chief")
    _play(hub, 3)
    with pytest.raises(EventInputError, match="round 3 is published without T5"):
        hub.reinstate_team(W, "chen", "chief")
    with pytest.raises(EventInputError, match="has not withdrawn"):
        hub.reinstate_team("T1", "chen", "chief")
    hub.stop()


def test_a_withdrawal_makes_an_earlier_draft_stale(tmp_path: Path) -> None:
    hub = _open(tmp_path / "hub")
    _play(hub, 1)
    hub.draw_next("org", "referee")
    assert W in _drawn(hub, 2)
    hub.withdraw_team(W, "", "chen", "chief")
    assert [c["kind"] for c in hub.core.draft_changes(2)] == ["withdrawn"]
    with pytest.raises(EventInputError, match=f"team {hub.core.team_names()[W]} withdrew.*it pairs the teams as they were"):
        hub.publish_draw(2, "org", "referee")
    hub.draw_next("org", "referee")
    assert W not in _drawn(hub, 2)
    hub.publish_draw(2, "org", "referee")
    hub.stop()


@pytest.mark.parametrize("n", [8, 9])
def test_round_robin_keeps_its_schedule_and_the_withdrawn_teams_opponent_has_the_bye(tmp_path: Path, n: int) -> None:
    hub = _open(tmp_path / "hub", n=n, draw="round-robin", rounds=n - 1 if n % 2 == 0 else n)
    _play(hub, 1)
    hub.withdraw_team(W, "", "chen", "chief")
    met: set[frozenset[str]] = {frozenset((t["ns"], t["ew"])) for t in hub.core.draws[1]["tables"]}
    byes: dict[str, int] = {}
    for rnd in range(2, hub.core.cfg["event"]["rounds"] + 1):
        _play(hub, rnd)
        d = hub.core.draws[rnd]
        assert W not in _drawn(hub, rnd) and len(_drawn(hub, rnd)) == n - 1
        for t in d["tables"]:
            pair = frozenset((t["ns"], t["ew"]))
            assert pair not in met  # the schedule stays: nobody meets anyone twice
            met.add(pair)
        for b in d["byes"]:
            byes[b] = byes.get(b, 0) + 1
    # Every team in play met every other one, and each had the rounds it did not play as byes.
    active = [t for t in hub.core.teams if t != W]
    assert all(frozenset((a, b)) in met for i, a in enumerate(active) for b in active[i + 1:])
    rows = {r["team"]: r for r in hub.standings_json()["standings"]}
    assert rows[W]["withdrawn"] == 2
    hub.stop()


# ------------------------------------------------------------------ the pages


@pytest.fixture
def app_hub(tmp_path: Path) -> Any:
    hub = _open(tmp_path / "hub")
    yield app_with_users(hub, tmp_path), hub
    hub.stop()


def test_the_chief_withdraws_a_team_from_its_row_on_the_team_list(app_hub: Any) -> None:
    """Each row has a 退赛 button; one withdrawal form serves them all (400 forms were a third of the
    organiser page at 400 teams): the browser brings it to the row, its question naming the team
    (test_hub_admin_lists_browser.py taps it through)."""
    app, hub = app_hub
    _play(hub, 1)
    ref = app.test_client()
    rtok = login(ref, "rita")
    page = ref.get("/hub/admin").get_data(as_text=True)
    assert 'id="teams-table"' in page and 'id="withdraw-chief-only"' in page and f'id="withdraw-{W}"' not in page
    ref.post("/hub/action/withdraw_team", data={"csrf_token": rtok, "team": W})
    assert "退赛需要裁判长权限 / requires role chief" in html.unescape(ref.get("/hub/admin").get_data(as_text=True))
    assert W not in hub.core.withdrawn

    c = app.test_client()
    tok = login(c, "chen")
    page = html.unescape(c.get("/hub/admin").get_data(as_text=True))
    row = page[page.index(f'<tr data-team="{W}"'):]
    assert f'id="withdraw-{W}" data-team="{W}"' in row[:row.index("</tr>")]
    form = page[page.rindex("<form", 0, page.index('id="withdraw-form"')):]
    form = form[:form.index("</form>")]
    # The browser's confirmation first (hub_admin.js: form[data-confirm], the row's team put in it).
    assert 'action="/hub/action/withdraw_team"' in form and 'name="reason"' in form
    assert "{name}（{id}）退赛：自第 2 轮起不再编排" in form and "Withdraw?" in form
    assert page.count("<form") == page.count('<form method="post"') < 20  # not one a team
    c.post("/hub/action/withdraw_team", data={"csrf_token": tok, "team": W, "reason": "病 / ill"})
    page = html.unescape(c.get("/hub/admin").get_data(as_text=True))
    assert "T5 已退赛：自第 2 轮起不再编排" in page and "T5 withdrawn: not drawn from round 2 on" in page
    row = page[page.index(f'<tr data-team="{W}"'):]
    row = row[:row.index("</tr>")]
    assert 'class="withdrawn"' in row and "退赛 / withdrawn" in row and "chen" in row and "病 / ill" in row
    assert f'id="reinstate-{W}"' in row and "data-confirm=" in row
    ev = hub.store.events()[-1]
    assert (ev["type"], ev["actor"], ev["data"]["from_round"]) == ("team_withdrawn", "chen", 2)
    # The public standings keep its row, marked; the printed results sheet says so.
    board = c.get("/hub/api/board").get_json()
    assert next(r for r in board["standings"]["standings"] if r["team"] == W)["withdrawn"] == 2
    sheet = c.get("/hub/print/results/1").get_data(as_text=True)
    assert re.search(r"队5 <small class=\"wd\">已退赛 / withdrawn</small>", sheet)
    # The draw leaves it out; the chief reinstates it with one tap before the next round is published.
    c.post("/hub/action/draw", data={"csrf_token": tok})
    assert W not in _drawn(hub, 2)
    c.post("/hub/action/reinstate_team", data={"csrf_token": tok, "team": W})
    page = html.unescape(c.get("/hub/admin").get_data(as_text=True))
    assert "T5 已恢复参赛" in page and 'id="draft-stale"' in page
    js = c.post("/hub/action/reinstate_team", data={"csrf_token": tok, "team": W}, headers={"Accept": "application/json"})
    assert js.status_code == 400 and "has not withdrawn" in js.get_json()["error"]


def test_no_withdrawal_once_every_round_is_drawn_and_no_reinstating_a_team_not_in_the_event(tmp_path: Path) -> None:
    hub = _open(tmp_path / "hub", n=5, rounds=2)
    _play(hub, 1)
    _play(hub, 2)
    with pytest.raises(EventInputError, match="no round left to withdraw from"):
        hub.withdraw_team("T1", "", "chen", "chief")
    with pytest.raises(EventInputError, match="no team 'T99'"):
        hub.reinstate_team("T99", "chen", "chief")
    assert not any(e["type"] in ("team_withdrawn", "team_reinstated") for e in hub.store.events())
    hub.stop()


def test_a_withdrawal_form_with_a_control_character_or_a_field_twice_is_refused(app_hub: Any) -> None:
    app, hub = app_hub
    c = app.test_client()
    tok = login(c, "chen")
    before = len(hub.store.events())
    js = {"Accept": "application/json"}
    r = c.post("/hub/action/withdraw_team", data={"csrf_token": tok, "team": W, "reason": "病\x1b[2J\u202egnp"}, headers=js)
    assert r.status_code == 400 and "control character" in r.get_json()["error"]
    r = c.post("/hub/action/withdraw_team", data={"csrf_token": tok, "team": [W, "T6"]}, headers=js)
    assert r.status_code == 400 and "field 'team' was sent 2 times" in r.get_json()["error"]
    assert len(hub.store.events()) == before and not hub.core.withdrawn
    r = c.post("/hub/action/withdraw_team", data={"csrf_token": tok, "team": W, "reason": "病了\r\n下午回家"}, headers=js)
    assert r.status_code == 200 and hub.core.withdrawn[W]["reason"] == "病了\r\n下午回家"  # a line break is text


def test_the_standings_exported_from_the_hub_log_mark_the_withdrawn_team(tmp_path: Path,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    from table_service.cli import main

    hub = _open(tmp_path / "hub")
    _play(hub, 1)
    hub.withdraw_team(W, "", "chen", "chief")
    shown = {r["team"]: r["withdrawn"] for r in hub.standings_json()["standings"]}
    hub.stop()
    assert main(["event", "export", str(tmp_path / "hub"), "--standings"]) == 0
    exported = {r["team"]: r["withdrawn"] for r in json.loads(capsys.readouterr().out)["standings"]}
    assert exported == shown and exported[W] == 2 and sum(v is not None for v in exported.values()) == 1


def test_the_team_list_offers_no_withdrawal_once_every_round_is_drawn(app_hub: Any) -> None:
    app, hub = app_hub
    for rnd in range(1, 6):
        _play(hub, rnd)
    c = app.test_client()
    login(c, "chen")
    page = c.get("/hub/admin").get_data(as_text=True)
    assert 'id="teams-table"' in page and f'id="withdraw-{W}"' not in page


def test_the_standings_download_from_the_nav_is_the_boards_table_with_the_withdrawn_marked(app_hub: Any) -> None:
    """An organiser's final report is a spreadsheet: one tap on the hub's nav gives the standings as
    CSV (UTF-8 with BOM, so the Chinese names show), the board's figures, rank order, 退赛 marked."""
    import csv
    import io

    app, hub = app_hub
    _play(hub, 1)
    hub.withdraw_team(W, "", "chen", "chief")
    _play(hub, 2, forfeit_of=W)
    assert app.test_client().get("/hub/standings.csv").status_code in (302, 401)  # behind a login
    c = app.test_client()
    login(c, "chen")
    assert 'href="/hub/standings.csv"' in c.get("/hub/admin").get_data(as_text=True)
    r = c.get("/hub/standings.csv")
    assert r.status_code == 200 and r.mimetype == "text/csv" and "attachment" in r.headers["Content-Disposition"]
    text = r.get_data(as_text=True)
    assert text.startswith("\ufeff名次 / rank,")
    rows = list(csv.DictReader(io.StringIO(text[1:])))
    want = hub.standings_json()["standings"]
    assert [row["队号 / team"] for row in rows] == [s["team"] for s in want]
    for row, s in zip(rows, want, strict=True):
        assert row["队名 / name"] == s["name"] and int(row["比赛分 / match points"]) == s["match_points"]
        assert int(row["名次 / rank"]) == s["rank"] and int(row["累进分 / progressive"]) == s["progressive"]
        assert int(row["胜轮 / rounds won"]) == s["rounds_won"]  # the column said 胜局 where every page says 胜轮
        assert row["退赛（自第几轮） / withdrawn from round"] == ("" if s["withdrawn"] is None else str(s["withdrawn"]))
    assert next(row for row in rows if row["队号 / team"] == W)["退赛（自第几轮） / withdrawn from round"] == "2"


def test_a_withdrawn_leader_keeps_its_place_marked_on_every_view_and_export(app_hub: Any,
                                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """The audit: a withdrawn team stood among the others with nothing to tell it apart. It keeps
    the place the rules give it (its results stand: the order is the one before it withdrew), and
    the board's data, the printed results, the CSV and the exported JSON all mark it."""
    import csv
    import io

    from table_service.cli import main

    app, hub = app_hub
    _play(hub, 1)
    _play(hub, 2)
    before = hub.standings_json()["standings"]
    leader = before[0]["team"]
    hub.withdraw_team(leader, "", "chen", "chief")
    after = hub.standings_json()["standings"]
    assert [(r["rank"], r["team"]) for r in after] == [(r["rank"], r["team"]) for r in before]
    assert [{**r, "withdrawn": None} for r in after] == before and after[0]["withdrawn"] == 3
    c = app.test_client()
    login(c, "chen")
    board = c.get("/hub/api/board").get_json()["standings"]["standings"]
    assert (board[0]["team"], board[0]["rank"], board[0]["withdrawn"]) == (leader, 1, 3)
    sheet = html.unescape(c.get("/hub/print/results/2").get_data(as_text=True))
    first = sheet[sheet.index('id="standings-sheet"'):]
    first = first[first.index("<tr", first.index("<tbody")):first.index("</tr>", first.index("<tbody"))]
    name = after[0]["name"]
    assert 'class="withdrawn"' in first and f'{name} <small class="wd">已退赛 / withdrawn</small>' in first
    assert sheet.count("已退赛 / withdrawn") == 1  # the others in play: unmarked
    rows = list(csv.DictReader(io.StringIO(c.get("/hub/standings.csv").get_data(as_text=True)[1:])))
    assert (rows[0]["队号 / team"], rows[0]["名次 / rank"], rows[0]["退赛（自第几轮） / withdrawn from round"]) == (
        leader, "1", "3")
    assert all(r["退赛（自第几轮） / withdrawn from round"] == "" for r in rows[1:])
    assert main(["event", "export", str(hub.data_dir), "--standings"]) == 0
    exported = json.loads(capsys.readouterr().out)["standings"]
    assert (exported[0]["team"], exported[0]["rank"], exported[0]["withdrawn"]) == (leader, 1, 3)
