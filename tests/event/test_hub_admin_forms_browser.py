"""The organiser page's forms after the hub page audits (issue 26, s35, s36): a refused result put in
the hand-entry or correction form with one tap and cleared with it, a team edit's form holding the
team chosen, an upheld appeal leading to its correction, a form posted once however often it is
tapped, a refused or interrupted form coming back as typed, a hand entry over a table still playing
asked first. Apart from test_hub_pages_audit.py (the overview, the board and the pages' words and
widths) because these are the organiser's forms; the hub and its pages are that file's fixtures.

Real browser (Playwright, Debian's Chromium, the page's CSP on) where the page's script is what is
tested; the Flask test client for what the server renders."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from table_service.event.hub import HubService

from .test_hub_pages_audit import (
    LONG,
    PASSWORD,
    T0,
    audit_hub,
    audit_web,
    client_for,
    enter_results,
    login,
    publish_round_1,
)


@pytest.fixture
def hub(tmp_path: Path) -> Iterator[HubService]:
    yield from audit_hub(tmp_path)


@pytest.fixture
def web(hub: HubService) -> Iterator[str]:
    yield from audit_web(hub)


@pytest.mark.browser
def test_a_refused_result_goes_into_the_hand_entry_form_on_the_draws_sides_with_one_tap(
        hub: HubService, web: str, pages: Any) -> None:
    """The table played with NS and EW swapped; its result was refused. The chief taps the row's
    button, the form holds it turned to the draw's sides, one more tap enters it (nothing retyped,
    no scores swapped in anyone's head)."""
    tables = publish_round_1(hub)
    t = tables[3]
    swapped = {"round": 1, "table": t["table"], "ns": t["ew"], "ew": t["ns"], "ns_levels": 7, "ew_levels": 3}
    hub.handle_batch([(t["table"], "result", json.dumps({"result_id": "r1", "result": swapped, "table_seq": 9,
                                                         "reason": "deals", "wall_ms": T0}).encode(), True)])
    seq = hub.core.refusals[0]["seq"]
    page = pages()
    login(page, web, nxt="/hub/admin")
    page.click(f"#use-{seq}")
    assert page.input_value("#hand-slot") == f"1|{t['table']}"
    assert (page.input_value("#hand-ns"), page.input_value("#hand-ew")) == ("3", "7")  # turned to the draw
    page.click("#hand-submit")
    page.wait_for_load_state("networkidle")
    line = hub.core.results[(1, t["table"])].line
    assert (line["ns"], line["ew"], line["ns_levels"], line["ew_levels"]) == (t["ns"], t["ew"], 3, 7)
    # The chief's one tap entered it and cleared the refusal it came from: no second 已处理 tap (s36).
    assert hub.core.refusals[0]["acknowledged"] and page.query_selector(f"#refusal-{seq}") is None


@pytest.mark.browser
def test_a_refused_second_result_goes_into_the_correction_form_with_one_tap(
        hub: HubService, web: str, pages: Any) -> None:
    """The referee entered table 4's result by hand; the table then sent its own, different and
    with NS and EW swapped: refused (a change is a correction). The row's button puts the table's
    result in the correction form, on the draw's sides, over the result shown (its basis), the
    reason begun; one more tap corrects it."""
    tables = publish_round_1(hub)
    t = tables[3]
    hub.hand_result({"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 5, "ew_levels": 2},
                    "rita", "referee")
    swapped = {"round": 1, "table": t["table"], "ns": t["ew"], "ew": t["ns"], "ns_levels": 7, "ew_levels": 3}
    hub.handle_batch([(t["table"], "result", json.dumps({"result_id": "r1", "result": swapped, "table_seq": 9,
                                                         "reason": "deals", "wall_ms": T0}).encode(), True)])
    seq = hub.core.refusals[0]["seq"]
    page = pages()
    login(page, web, nxt="/hub/admin")
    assert page.query_selector(f"#use-{seq}") is None  # not an open table: no hand entry
    page.click(f"#correct-with-{seq}")
    assert page.input_value("#correct-slot") == f"1|{t['table']}"
    assert (page.input_value("#correct-ns"), page.input_value("#correct-ew")) == ("3", "7")  # turned to the draw
    assert f"#{seq}" in page.input_value("#correct-reason")
    page.click("#correct-submit")
    page.wait_for_load_state("networkidle")
    line = hub.core.results[(1, t["table"])].line
    assert (line["ns"], line["ew"], line["ns_levels"], line["ew_levels"]) == (t["ns"], t["ew"], 3, 7)
    assert hub.core.results[(1, t["table"])].source == "correction"
    assert hub.core.refusals[0]["acknowledged"]  # cleared with the chief's correction (s36)


def test_a_referees_entry_from_a_refusal_leaves_it_for_the_chief_and_one_of_another_table_is_refused(
        hub: HubService) -> None:
    """Clearing a refused result is the chief's: a referee's hand entry made from it is entered and
    says the refusal waits for the chief. A ``settles`` naming another table's refusal is refused
    before anything is logged."""
    tables = publish_round_1(hub)
    t, other = tables[3], tables[2]
    swapped = {"round": 1, "table": t["table"], "ns": t["ew"], "ew": t["ns"], "ns_levels": 7, "ew_levels": 3}
    hub.handle_batch([(t["table"], "result", json.dumps({"result_id": "r1", "result": swapped, "table_seq": 9,
                                                         "reason": "deals", "wall_ms": T0}).encode(), True)])
    seq = hub.core.refusals[0]["seq"]
    c = client_for(hub, "rita")
    token = c.get("/auth/whoami").get_json()["csrf_token"]
    before = hub.core.last_seq
    r = c.post("/hub/action/hand_result", headers={"Accept": "application/json"}, data={
        "csrf_token": token, "slot": f"1|{other['table']}", "ns_levels": "2", "ew_levels": "0", "settles": str(seq)})
    assert r.status_code == 400 and f"拒收 #{seq} 不是第 1 轮 {other['table']} 号桌的" in r.get_json()["error"]
    assert hub.core.last_seq == before and (1, other["table"]) not in hub.core.results
    r = c.post("/hub/action/hand_result", headers={"Accept": "application/json"}, data={
        "csrf_token": token, "slot": f"1|{t['table']}", "ns_levels": "3", "ew_levels": "7", "settles": str(seq)})
    assert r.status_code == 200 and f"refusal #{seq} is left for the chief referee to clear" in r.get_json()["message"]
    assert (1, t["table"]) in hub.core.results and not hub.core.refusals[0]["acknowledged"]


def test_a_hand_entry_or_correction_sent_twice_is_logged_once_and_clears_its_refusal_once(hub: HubService) -> None:
    """A double submit (two taps, or a retry after the answer was lost on the hall's network), both
    requests at once: the hand entry is logged once and its refusal cleared once, and the second
    is answered as done — it was refused as "the table already has a result", so the entry looked
    failed. A correction sent again still clears the refusal it names when that is open: it
    returned before clearing it, and the refusal stayed on the chief's list."""
    tables = publish_round_1(hub)
    t = tables[3]
    swapped = {"round": 1, "table": t["table"], "ns": t["ew"], "ew": t["ns"], "ns_levels": 7, "ew_levels": 3}

    def refused(rid: str, line: dict[str, Any]) -> int:
        hub.handle_batch([(t["table"], "result", json.dumps({"result_id": rid, "result": line, "table_seq": 9,
                                                             "reason": "deals", "wall_ms": T0}).encode(), True)])
        return int(hub.core.refusals[-1]["seq"])

    def logged(etype: str) -> list[dict[str, Any]]:
        return [e for e in hub.store.events() if e["type"] == etype]

    seq = refused("r1", swapped)
    clients = [client_for(hub, "chen") for _ in range(2)]
    form = {"slot": f"1|{t['table']}", "ns_levels": "3", "ew_levels": "7", "settles": str(seq)}
    answers: list[Any] = [None, None]
    go = threading.Barrier(2)

    def post(i: int) -> None:
        c = clients[i]
        token = c.get("/auth/whoami").get_json()["csrf_token"]
        go.wait()
        answers[i] = c.post("/hub/action/hand_result", headers={"Accept": "application/json"},
                            data={**form, "csrf_token": token})

    threads = [threading.Thread(target=post, args=(i,)) for i in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert [a.status_code for a in answers] == [200, 200], [a.get_json() for a in answers]
    said = sorted(a.get_json()["message"] for a in answers)
    assert any(f"refusal #{seq} cleared with it" in m for m in said)
    assert any("sent twice: recorded once" in m for m in said)
    assert len([e for e in logged("result_recorded") if e["data"]["source"] == "hand"]) == 1
    assert [e["data"]["seq"] for e in logged("refusal_acknowledged")] == [seq]

    # The table sends another result: refused (a change is a correction). The chief corrects the
    # table from the plain form (no refusal named), then sends the same correction from the
    # refusal's button: recorded once, and this time the refusal it names is cleared, once.
    other = {"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 2, "ew_levels": 6}
    seq2 = refused("r2", other)
    c = clients[0]
    token = c.get("/auth/whoami").get_json()["csrf_token"]
    basis = hub.core.results[(1, t["table"])].seq
    fix = {"slot": f"1|{t['table']}", "ns_levels": "2", "ew_levels": "6", "reason": "桌上记分有误 / table's sheet wrong",
           "basis": str(basis), "csrf_token": token}
    assert c.post("/hub/action/correct", headers={"Accept": "application/json"}, data=fix).status_code == 200
    assert not next(r for r in hub.core.refusals if r["seq"] == seq2)["acknowledged"]
    for _ in range(2):
        r = c.post("/hub/action/correct", headers={"Accept": "application/json"}, data={**fix, "settles": str(seq2)})
        assert r.status_code == 200 and "sent twice: recorded once" in r.get_json()["message"], r.get_json()
    assert len(logged("result_corrected")) == 1
    assert [e["data"]["seq"] for e in logged("refusal_acknowledged")] == [seq, seq2]


@pytest.mark.browser
def test_the_team_form_holds_the_chosen_teams_name_and_players(hub: HubService, web: str, pages: Any) -> None:
    """Changing one player meant retyping the whole team: the form started blank."""
    page = pages()
    login(page, web, nxt="/hub/admin")
    assert page.input_value("#team-name") == LONG.format(1) and page.input_value("#team-players").startswith("选手1A")
    page.select_option("#team-id", "T3")
    assert page.input_value("#team-name") == LONG.format(3)
    page.fill("#team-players", page.input_value("#team-players").replace("选手3B", "替补3B"))
    page.click("#team-submit")
    page.wait_for_load_state("networkidle")
    team = next(t for t in hub.core.cfg["teams"] if t["id"] == "T3")
    assert team["name"] == LONG.format(3) and team["players"][1] == "替补3B"


@pytest.mark.browser
def test_an_upheld_appeal_leads_to_its_tables_correction_with_one_tap(hub: HubService, web: str, pages: Any) -> None:
    tables = publish_round_1(hub)
    enter_results(hub, tables[:3])
    t = tables[2]
    a = hub.file_appeal(1, t["table"], t["ns"], "对方出牌违规 / the other side played out of turn", "chen", "chief")
    aid = a["data"]["id"]
    hub.decide_appeal(aid, "upheld", "改判 / result changed", "chen", "chief")
    page = pages()
    login(page, web, nxt="/hub/admin")
    row = page.inner_text(".appeal-row")
    assert LONG.format(t["ns"][1:]) in row and "申诉成立 / upheld" in row
    page.click(f"#to-correct-{aid}")
    assert page.input_value("#correct-slot") == f"1|{t['table']}"
    assert (page.input_value("#correct-ns"), page.input_value("#correct-ew")) == ("9", "4")  # its result, to change


@pytest.mark.browser
def test_a_form_submitted_twice_before_its_answer_posts_once(hub: HubService, web: str, pages: Any) -> None:
    """编排 tapped twice while the hub is slow to answer: one draw request leaves the browser. The
    first request is held (not answered) so that the second tap comes while it is on its way, as on
    a busy hall's network; without the page's guard the browser sends a second POST."""
    page = pages()
    login(page, web, nxt="/hub/admin")
    held: list[Any] = []
    page.route("**/hub/action/draw", lambda route: held.append(route))
    box = page.locator("#draw-next").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.mouse.click(x, y)  # the mouse, not a locator: a locator waits for the first tap's page to load
    for _ in range(100):
        if held:
            break
        page.wait_for_timeout(50)
    page.mouse.click(x, y)
    page.wait_for_timeout(500)  # a second request, had one gone, has reached the route
    assert len(held) == 1
    held[0].continue_()
    for _ in range(100):
        if hub.core.draws:
            break
        page.wait_for_timeout(50)
    assert 1 in hub.core.draws and not hub.core.draws[1]["published"]  # the one draw was made


@pytest.mark.browser
def test_a_refused_hand_entry_keeps_the_chosen_table_and_what_was_typed(hub: HubService, web: str,
                                                                        pages: Any) -> None:
    """A penalty score the rules do not give was refused and the form came back blank, the first table
    chosen again: a second tap then filed against the wrong table (the usability walk of 2026-12-06)."""
    tables = publish_round_1(hub)
    page = pages()
    login(page, web, nxt="/hub/admin")
    slot = f"1|{tables[2]['table']}"
    page.select_option("#hand-slot", slot)
    page.fill("#hand-ns", "3")
    page.fill("#hand-ew", "5")
    page.fill("#hand-ns-score", "10")
    page.fill("#hand-ew-score", "16")
    page.click("#hand-submit")
    page.wait_for_selector("#flash-error")
    page.wait_for_selector("#form-kept")
    assert page.input_value("#hand-slot") == slot
    assert [page.input_value(f"#hand-{k}") for k in ("ns", "ew", "ns-score", "ew-score")] == ["3", "5", "10", "16"]
    page.fill("#hand-ns-score", "9")
    page.fill("#hand-ew-score", "17")
    page.click("#hand-submit")
    page.wait_for_selector("#flash-ok")
    assert (1, tables[2]["table"]) in hub.core.results
    page.reload()
    assert page.query_selector("#form-kept") is None  # done: nothing is put back any more


@pytest.mark.browser
def test_a_form_sent_after_the_login_ended_leads_to_the_login_and_back_with_its_text(
        hub: HubService, web: str, pages: Any) -> None:
    """Logged out in another tab, the chief tapped 登记申诉: a raw "400 — CSRF token" page, and the
    appeal's text was lost. Now the login page says the action was not done, and after it the form is
    back as it was, not sent."""
    tables = publish_round_1(hub)
    enter_results(hub, tables)
    page = pages()
    login(page, web, nxt="/hub/admin")
    page.fill("#appeal-text", "第三副牌记分有误，请复核")
    other = page.context.new_page()
    other.goto(f"{web}/hub/admin")
    other.evaluate("""() => { const f = document.createElement('form'); f.method = 'post'; f.action = '/auth/logout';
        const t = document.createElement('input'); t.type = 'hidden'; t.name = 'csrf_token';
        t.value = document.querySelector('input[name=csrf_token]').value; f.appendChild(t);
        document.body.appendChild(f); f.submit(); }""")
    other.wait_for_url("**/auth/login**")
    other.close()
    page.click("#appeal-submit")
    page.wait_for_url("**/auth/login**")
    assert "刚才的操作未执行" in page.inner_text("body")
    assert not hub.core.appeals
    page.fill("#username", "chen")
    page.fill("#password", PASSWORD)
    page.click("#login-submit")
    page.wait_for_url("**/hub/admin**")
    page.wait_for_selector("#form-kept")
    assert page.input_value("#appeal-text") == "第三副牌记分有误，请复核"


@pytest.mark.browser
def test_a_hand_entry_for_a_table_still_playing_asks_first(hub: HubService, web: str, pages: Any) -> None:
    """A slow table, online and playing deal 2, had a result entered over its play without a word: the
    overview said "done" and its real result was refused later (the usability walk of 2026-12-06)."""
    tables = publish_round_1(hub)
    playing = tables[1]["table"]
    hub._status(playing, {"status": "online", "wall_ms": hub.clock_ms(), "panel": None})
    hub._summary(playing, {"round": 1, "deal": 2, "levels": {"NS": "5", "EW": "3"}, "finished": False,
                           "last_seq": 40, "wall_ms": 1, "panel": None}, hub.clock_ms())
    page = pages()
    login(page, web, nxt="/hub/admin")
    asked: list[str] = []

    def answer(dialog: Any) -> None:
        asked.append(dialog.message)
        dialog.dismiss() if len(asked) == 1 else dialog.accept()

    page.on("dialog", answer)
    page.select_option("#hand-slot", f"1|{playing}")
    page.fill("#hand-ns", "1")
    page.fill("#hand-ew", "0")
    page.click("#hand-submit")
    page.wait_for_timeout(300)
    assert len(asked) == 1 and f"{playing} 号桌在线，正在打第 2 副" in asked[0]
    assert (1, playing) not in hub.core.results  # "no": nothing entered, the form still usable
    page.click("#hand-submit")
    page.wait_for_selector("#flash-ok")
    assert len(asked) == 2 and (1, playing) in hub.core.results
    asked.clear()
    page.select_option("#hand-slot", f"1|{tables[0]['table']}")  # not heard from: entered without a question
    page.fill("#hand-ns", "2")
    page.fill("#hand-ew", "0")
    page.click("#hand-submit")
    page.wait_for_selector("#flash-ok")
    assert not asked and (1, tables[0]["table"]) in hub.core.results
