"""A correction is made against the result its referee saw (issue 26 audit, s06_two_chiefs): two
chief referees with the organiser page open both correct the same table; the second is refused
with what changed, by whom and when, instead of silently replacing the first. A double tap of the
same correction is recorded once; a client that sends no basis corrects the result as first
recorded, and is refused once it has been corrected."""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

import pytest
from hub_accounts import users_db

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import EventInputError
from table_service.event.web import create_hub_app

from .test_hub_web import login

JSON = {"Accept": "application/json"}


def _hub(tmp_path: Path) -> tuple[HubService, dict[str, Any], dict[str, Any]]:
    """A hub with round 1 published and every table's result entered by hand; one table and its line."""
    cfg = validate({"event": {"id": "cb", "name": "更正赛", "rounds": 2},
                    "teams": [{"id": f"T{i:02d}", "name": f"队{i}"} for i in range(1, 7)]})
    hub = HubService(cfg, tmp_path / "hub", connect=False)
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    lines = {}
    for t in hub.core.draws[1]["tables"]:
        lines[t["table"]] = {"round": 1, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": 1,
                             "ew_levels": 2}
        hub.hand_result(lines[t["table"]], "rita", "referee")
    t = hub.core.draws[1]["tables"][0]
    return hub, t, lines[t["table"]]


def _correct(hub: HubService, t: dict[str, Any], line: dict[str, Any], basis: int | None, reason: str,
             who: str) -> dict[str, Any] | None:
    """What the organiser page's action does: the basis check and the correction under the hub's lock."""
    with hub.lock:
        if hub.core.check_correction_basis(1, t["table"], basis, line, reason, who):
            return None
        return hub.correct(1, t["table"], line, reason, who, "chief")


# ------------------------------------------------------------------ core


def test_second_correction_against_the_same_result_is_refused_naming_the_first(tmp_path: Path) -> None:
    hub, t, line = _hub(tmp_path)
    seen = hub.core.results[(1, t["table"])].seq  # both chiefs' pages show the hand-entered 1:2
    assert seen > 0
    first = _correct(hub, t, {**line, "ns_levels": 3, "ew_levels": 1}, seen, "记分表誊写错 / sheet copied wrong",
                     "chen")
    assert first is not None and first["data"]["basis"] == seen
    with pytest.raises(EventInputError) as exc:
        _correct(hub, t, {**line, "ns_levels": 2, "ew_levels": 0}, seen, "东西少记一级", "zhou")
    msg = str(exc.value)
    # Chinese first, then English; who changed it, to what, and what the second chief saw.
    assert msg.index("未纠正") < msg.index(" / not corrected")
    ns, ew = hub.core.team_names()[t["ns"]], hub.core.team_names()[t["ew"]]  # teams by name, as the pages say
    assert "chen" in msg and f"{ns} 3:1 {ew}" in msg and f"{ns} 1:2 {ew}" in msg and t["ns"] not in msg
    assert "记分表誊写错" in msg and "reload" in msg.lower()
    tr = hub.core.results[(1, t["table"])]
    assert (tr.line["ns_levels"], tr.line["ew_levels"], tr.by) == (3, 1, "chen")
    assert [h["source"] for h in tr.history] == ["hand", "correction"]
    # Reloaded, the second chief corrects the result now in force: that goes through.
    again = _correct(hub, t, {**line, "ns_levels": 2, "ew_levels": 0}, tr.seq, "东西少记一级", "zhou")
    assert again is not None and hub.core.results[(1, t["table"])].line["ns_levels"] == 2
    # A basis that is no result of this table at all (another table's, a typo) is refused too.
    other = next(k for k in hub.core.results if k != (1, t["table"]))
    with pytest.raises(EventInputError, match="is not a result of table"):
        _correct(hub, t, {**line, "ns_levels": 5}, hub.core.results[other].seq, "x", "zhou")


def test_a_double_tap_is_recorded_once_and_an_old_client_corrects_only_the_first_result(tmp_path: Path) -> None:
    hub, t, line = _hub(tmp_path)
    seen = hub.core.results[(1, t["table"])].seq
    fixed = {**line, "ns_levels": 3, "ew_levels": 1}
    assert _correct(hub, t, fixed, seen, "抄错 / typo", "chen") is not None
    assert _correct(hub, t, fixed, seen, "抄错 / typo", "chen") is None  # the same form again: nothing logged
    assert len(hub.core.results[(1, t["table"])].history) == 2
    # The same basis with another result (or by another chief) is no double tap: refused.
    with pytest.raises(EventInputError, match="chen"):
        _correct(hub, t, {**fixed, "ew_levels": 0}, seen, "抄错 / typo", "chen")
    with pytest.raises(EventInputError, match="chen"):
        _correct(hub, t, fixed, seen, "抄错 / typo", "zhou")

    # No basis (an API client from before the field): the result as first recorded.
    t2 = hub.core.draws[1]["tables"][1]
    line2 = {**line, "table": t2["table"], "ns": t2["ns"], "ew": t2["ew"]}
    assert _correct(hub, t2, {**line2, "ns_levels": 4}, None, "录错 / typo", "chen") is not None
    assert _correct(hub, t2, {**line2, "ns_levels": 4}, None, "录错 / typo", "chen") is None  # its double tap
    with pytest.raises(EventInputError, match="basis") as exc:
        _correct(hub, t2, {**line2, "ns_levels": 6}, None, "又错", "zhou")
    assert "chen" in str(exc.value) and hub.core.results[(1, t2["table"])].line["ns_levels"] == 4

    # The basis is the log's: a restarted hub knows the same seqs and refuses the same stale form.
    cfg = hub.core.loaded_cfg
    hub.stop()
    again = HubService(cfg, tmp_path / "hub", connect=False)
    try:
        assert again.core.results[(1, t["table"])].history[1]["basis"] == seen
        with pytest.raises(EventInputError, match="chen"):
            _correct(again, t, {**fixed, "ew_levels": 0}, seen, "抄错 / typo", "zhou")
    finally:
        again.stop()


# ------------------------------------------------------------------ the organiser page's action, two sessions


@pytest.fixture
def hub_app(tmp_path: Path) -> Any:
    hub, t, line = _hub(tmp_path)
    app = create_hub_app(hub, users_db=users_db(tmp_path / "users.sqlite3", {"chen": "chief", "zhou": "chief"}))
    app.config["TESTING"] = True
    yield app, hub, t
    hub.stop()


def correction_form(client: Any, slot: str) -> dict[str, str]:
    """The correction form as the organiser page fills it in for ``slot`` (what hub_admin.js copies
    from the table's option): its basis and the current result."""
    page = client.get("/hub/admin").get_data(as_text=True)
    opt = re.search(r'<option value="' + re.escape(slot) + r'"([^>]*)>', page)
    assert opt is not None, slot
    data = {k: html.unescape(v) for k, v in re.findall(r'data-([a-z-]+)="([^"]*)"', opt.group(1))}
    # An empty field's data-* is left out of the option (the page sends 1,200 of them at 200 tables);
    # hub_admin.js reads it as "".
    return {"slot": slot, "basis": data["basis"], "ns_levels": data["ns-levels"], "ew_levels": data["ew-levels"],
            "forfeit": data.get("forfeit", ""), "ns_score": data.get("ns-score", ""),
            "ew_score": data.get("ew-score", "")}


def flashes(client: Any) -> list[tuple[str, str]]:
    """The verdicts shown on the organiser page: ``(ok|error, text)``."""
    return [(cat, html.unescape(text)) for cat, text in re.findall(r'<p class="flash ([a-z]+)"[^>]*>(.*?)</p>',
                                                                     client.get("/hub/admin").get_data(as_text=True))]


def test_two_chiefs_correcting_from_open_pages(hub_app: Any) -> None:
    app, hub, t = hub_app
    slot = f"1|{t['table']}"
    a, b = app.test_client(), app.test_client()
    atok, btok = login(a, "chen"), login(b, "zhou")
    fa, fb = correction_form(a, slot), correction_form(b, slot)  # both pages open before either submits
    assert (fa["ns_levels"], fa["ew_levels"]) == ("1", "2") and fa == fb
    r = a.post("/hub/action/correct", data={**fa, "ns_levels": "3", "ew_levels": "1", "csrf_token": atok,
                                            "reason": "记分表誊写错 / sheet copied wrong"})
    [(cat, said)] = flashes(a)
    assert r.status_code == 302 and cat == "ok" and "corrected" in said, said
    r = b.post("/hub/action/correct", data={**fb, "ns_levels": "2", "ew_levels": "0", "csrf_token": btok,
                                            "reason": "东西少记一级"})
    [(cat, said)] = flashes(b)
    assert r.status_code == 302 and cat == "error", said
    assert said.startswith("未纠正") and "chen" in said and "3:1" in said and "reload" in said.lower()
    tr = hub.core.results[(1, t["table"])]
    assert (tr.line["ns_levels"], tr.line["ew_levels"], tr.by) == (3, 1, "chen") and len(tr.history) == 2
    # The same as a script (JSON): 400 with the reason.
    r = b.post("/hub/action/correct", data={**fb, "ns_levels": "2", "ew_levels": "0", "csrf_token": btok,
                                            "reason": "东西少记一级"}, headers=JSON)
    assert r.status_code == 400 and "chen" in r.get_json()["error"]
    # Reloaded, the page shows chen's 3:1 and its new basis; zhou's correction of that goes through.
    fb = correction_form(b, slot)
    assert (fb["ns_levels"], fb["ew_levels"]) == ("3", "1") and fb["basis"] == str(tr.seq)
    r = b.post("/hub/action/correct", data={**fb, "ew_levels": "0", "csrf_token": btok, "reason": "东西少记一级"},
               headers=JSON)
    assert r.status_code == 200 and r.get_json()["ok"], r.get_json()
    assert hub.core.results[(1, t["table"])].line["ew_levels"] == 0


def test_double_tap_and_a_client_without_basis(hub_app: Any) -> None:
    app, hub, t = hub_app
    slot = f"1|{t['table']}"
    a = app.test_client()
    tok = login(a, "chen")
    form = {**correction_form(a, slot), "ns_levels": "3", "ew_levels": "1", "reason": "录错 / typo", "csrf_token": tok}
    first = a.post("/hub/action/correct", data=form, headers=JSON)
    second = a.post("/hub/action/correct", data=form, headers=JSON)
    assert first.status_code == second.status_code == 200, (first.get_json(), second.get_json())
    assert "recorded once" in second.get_json()["message"]
    assert len(hub.core.results[(1, t["table"])].history) == 2
    # An older client sends no basis: it corrects a table not corrected yet, and is refused after.
    t2 = hub.core.draws[1]["tables"][1]
    old = {"slot": f"1|{t2['table']}", "ns_levels": "5", "ew_levels": "2", "reason": "录错", "csrf_token": tok}
    assert a.post("/hub/action/correct", data=old, headers=JSON).status_code == 200
    r = a.post("/hub/action/correct", data={**old, "ns_levels": "6"}, headers=JSON)
    assert r.status_code == 400 and "basis" in r.get_json()["error"]
    assert hub.core.results[(1, t2["table"])].line["ns_levels"] == 5
    # The overview JSON gives a script the basis to send.
    ov = a.get("/hub/api/overview").get_json()
    row = next(x for x in ov["tables"] if x["table"] == t2["table"])
    assert row["result_seq"] == hub.core.results[(1, t2["table"])].seq
    r = a.post("/hub/action/correct", data={**old, "ns_levels": "6", "basis": str(row["result_seq"])}, headers=JSON)
    assert r.status_code == 200 and hub.core.results[(1, t2["table"])].line["ns_levels"] == 6
    # A basis that is not a number is a bad field.
    r = a.post("/hub/action/correct", data={**old, "basis": "１２"}, headers=JSON)
    assert r.status_code == 400 and "basis must be a whole number" in r.get_json()["error"]


def test_two_chiefs_sending_what_the_old_page_sent_lose_nothing(hub_app: Any) -> None:
    """The audit's s06 as the page before the fix posted it (no basis): the first correction
    stands and the second chief is told, rather than both reading "已纠正"."""
    app, hub, t = hub_app
    a, b = app.test_client(), app.test_client()
    atok, btok = login(a, "chen"), login(b, "zhou")
    slot = f"1|{t['table']}"
    ra = a.post("/hub/action/correct", data={"slot": slot, "ns_levels": "3", "ew_levels": "1", "csrf_token": atok,
                                             "reason": "记分表誊写错"}, headers=JSON)
    rb = b.post("/hub/action/correct", data={"slot": slot, "ns_levels": "2", "ew_levels": "0", "csrf_token": btok,
                                             "reason": "东西少记一级"}, headers=JSON)
    assert ra.status_code == 200, ra.get_json()
    assert rb.status_code == 400, rb.get_json()
    assert rb.get_json()["error"].startswith("未纠正") and "chen" in rb.get_json()["error"]
    tr = hub.core.results[(1, t["table"])]
    assert (tr.line["ns_levels"], tr.line["ew_levels"], tr.by) == (3, 1, "chen")


def test_a_refused_result_names_the_teams_by_name_drawn_and_sent(tmp_path: Path) -> None:
    """The chief reads the refusal on the organiser page: "编排 T09 对 T27" made them look both up."""
    hub, t, line = _hub(tmp_path)
    names = hub.core.team_names()
    other = next(tid for tid in names if tid not in (t["ns"], t["ew"]))
    verdict, reason = hub.core.classify_result({**line, "ns": other}, "r-x")
    assert verdict == "refuse"
    assert f"编排 {names[t['ns']]}(南北) 对 {names[t['ew']]}(东西)，收到 {names[other]}(南北)" in reason
    assert f"got NS {names[other]} v EW {names[t['ew']]}" in reason
