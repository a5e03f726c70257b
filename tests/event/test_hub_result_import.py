"""The results import on the organiser page (导入成绩): CSV as well as RESULTS lines, lines already
recorded skipped, every bad line named at once, the pasted text given back after a refusal.

The organiser audit at 200 tables: the import took JSON lines only (a federation's sheet had to be
turned into JSON by hand), refused a file whose lines were partly recorded already (imported twice,
or entered by hand meanwhile), stopped at the first bad line (40 bad lines, 40 tries), and the pasted
text was gone with the refusal. Whole or nothing stays: one bad line and nothing is taken.
"""

from __future__ import annotations

import html
import io
import json
from pathlib import Path
from typing import Any

import pytest

from table_service.event.bulk_text import LinesRefused
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import EventInputError
from table_service.event.result_import import read_results

from .test_hub_web import app_with_users, login

JSON = {"Accept": "application/json"}
START_MS = 1_795_000_000_000


@pytest.fixture
def hub(tmp_path: Path) -> HubService:
    """Eight teams, round 1 published: tables 1–4 (order: the lots'; the tests read the draw)."""
    clock = iter(range(START_MS, START_MS + 10**9, 1000))
    h = HubService(validate({"event": {"id": "imp", "rounds": 3, "seed": 3},
                             "teams": [{"id": f"T{i}", "name": f"队{i}"} for i in range(1, 9)]}),
                   tmp_path / "hub", clock_ms=lambda: next(clock), connect=False)
    h.draw_next("org", "referee")
    h.publish_draw(1, "org", "referee")
    return h


def tables(hub: HubService) -> list[dict[str, Any]]:
    return sorted(hub.core.draws[1]["tables"], key=lambda t: int(t["table"]))


def csv_text(rows: list[str], header: str = "round,table,ns,ew,ns_levels,ew_levels,forfeit,ns_score,ew_score") -> str:
    return "\n".join([header, *rows]) + "\n"


def test_a_spreadsheet_s_csv_is_imported_with_forfeits_and_penalty_scores(hub: HubService) -> None:
    t = tables(hub)
    text = csv_text([f"1,{t[0]['table']},{t[0]['ns']},{t[0]['ew']},9,4,,,",
                     f"1,{t[1]['table']},{t[1]['ns']},{t[1]['ew']},,,ew,,",
                     f"1,{t[2]['table']},{t[2]['ns']},{t[2]['ew']},3,5,,9,17",
                     f"1,{t[3]['table']},{t[3]['ns']},{t[3]['ew']},,,双方,,"])
    assert hub.import_results(text, "rita", "referee") == (4, 0)
    got = {k[1]: v.line for k, v in hub.core.results.items()}
    assert got[t[0]["table"]] == {"round": 1, "table": t[0]["table"], "ns": t[0]["ns"], "ew": t[0]["ew"],
                                  "ns_levels": 9, "ew_levels": 4}
    assert got[t[1]["table"]]["forfeit"] == "ew" and got[t[3]["table"]]["forfeit"] == "both"
    assert (got[t[2]["table"]]["ns_score"], got[t[2]["table"]]["ew_score"]) == (9, 17)
    assert all(v.source == "hand" and v.by == "rita" for v in hub.core.results.values())


@pytest.mark.parametrize("header,sep", [
    ("轮次\t桌号\t南北\t东西\t南北升级\t东西升级", "\t"),  # cells copied from a spreadsheet: tabs
    ("轮次 / round,桌号 / table,南北 / NS,东西 / EW,南北升级 / NS levels,东西升级 / EW levels", ","),
    ("Round, Table, NS, EW, NS_levels, EW_levels", ","),
])
def test_chinese_and_bilingual_headings_and_tabs_are_read(hub: HubService, header: str, sep: str) -> None:
    t = tables(hub)
    rows = [sep.join(["1", x["table"], x["ns"], x["ew"], "6", "2"]) for x in t]
    assert hub.import_results("\ufeff" + "\n".join([header, *rows]), "rita", "referee") == (4, 0)


def test_lines_already_recorded_as_they_are_are_skipped_and_counted(hub: HubService) -> None:
    t = tables(hub)
    line = [json.dumps({"round": 1, "table": x["table"], "ns": x["ns"], "ew": x["ew"], "ns_levels": 5, "ew_levels": i})
            for i, x in enumerate(t)]
    hub.hand_result(json.loads(line[0]), "chen", "chief")  # entered by hand meanwhile
    assert hub.import_results("\n".join(line[:2]), "rita", "referee") == (1, 1)
    seq = hub.core.last_seq
    assert hub.import_results("\n".join(line[:2]), "rita", "referee") == (0, 2)  # the same file again
    assert hub.core.last_seq == seq  # nothing logged
    assert hub.import_results("\n".join(line), "rita", "referee") == (2, 2)
    assert len(hub.core.results) == 4


def test_a_line_that_differs_from_the_recorded_result_is_refused_as_a_correction(hub: HubService) -> None:
    t = tables(hub)
    hub.hand_result({"round": 1, "table": t[0]["table"], "ns": t[0]["ns"], "ew": t[0]["ew"], "ns_levels": 5,
                     "ew_levels": 1}, "chen", "chief")
    text = csv_text([f"1,{x['table']},{x['ns']},{x['ew']},5,{2 if i == 0 else 1},,," for i, x in enumerate(t)])
    seq = hub.core.last_seq
    with pytest.raises(LinesRefused) as exc:
        hub.import_results(text, "rita", "referee")
    assert [n for n, _ in exc.value.problems] == [2]
    assert "已有成绩" in exc.value.problems[0][1] and "a change is a correction" in exc.value.problems[0][1]
    assert hub.core.last_seq == seq and len(hub.core.results) == 1  # whole or nothing: the good lines too


def test_every_bad_line_is_named_at_once_and_nothing_is_imported(hub: HubService) -> None:
    t = tables(hub)
    text = csv_text([
        f"1,{t[0]['table']},{t[0]['ns']},{t[0]['ew']},9,4,,,",          # line 2: good
        f"1,{t[1]['table']},{t[1]['ns']},{t[1]['ew']},x,4,,,",          # line 3: levels not a number
        "",                                                               # line 4: blank, skipped
        f"1,{t[2]['table']},{t[2]['ew']},{t[2]['ns']},9,4,,,",          # line 5: sides swapped
        f"1,99,{t[3]['ns']},{t[3]['ew']},9,4,,,",                          # line 6: no table 99
        f"1,{t[0]['table']},{t[0]['ns']},{t[0]['ew']},9,4,,,",          # line 7: table on line 2 already
        f"2,{t[3]['table']},{t[3]['ns']},{t[3]['ew']},9,4,,,",          # line 8: round 2 not published
        f"1,{t[3]['table']},{t[3]['ns']},{t[3]['ew']},9,4,,,,extra",    # line 9: a cell too many
        f"1,{t[3]['table']},{t[3]['ns']},{t[3]['ew']},9,14,,,",         # line 10: 14 levels
    ])
    seq = hub.core.last_seq
    with pytest.raises(LinesRefused) as exc:
        hub.import_results(text, "rita", "referee")
    problems = dict(exc.value.problems)
    assert sorted(problems) == [3, 5, 6, 7, 8, 9, 10]
    for n, needle in ((3, "ns_levels must be an integer 0-13"), (5, "teams do not match the draw"),
                      (6, "table 99 is not drawn"), (7, "is on line 2 already"), (8, "round 2 has no published draw"),
                      (9, "10 cells, the header has 9"), (10, "ew_levels must be an integer 0-13")):
        assert needle in problems[n], (n, problems[n])
    msg = str(exc.value)
    assert msg.startswith("未导入：7 行有误，全部未导入") and "nothing imported: 7 bad line(s)" in msg and "\n" not in msg
    assert "第 3 行：" in msg and "line 10: " in msg
    assert hub.core.last_seq == seq and not hub.core.results


@pytest.mark.parametrize("text,needle", [
    ("1,1,T1,T2,9,4\n", "the first line must be a header row and it has no round, table, ns, ew column"),
    ("round,table,home,away\n1,1,T1,T2\n", "the header 'home' names no column"),
    ("round,table,ns,ns,ew\n", "the header names 'ns' twice"),
])
def test_a_table_without_a_usable_header_is_refused_saying_what_a_header_is(text: str, needle: str) -> None:
    results, problems = read_results(text)
    assert not results and problems and needle in problems[0][1] and problems[0][0] == 1
    assert "twice" in needle or "round,table,ns,ew,ns_levels,ew_levels" in problems[0][1]  # what a header is


def test_an_empty_paste_is_still_refused(hub: HubService) -> None:
    with pytest.raises(EventInputError, match="nothing to import"):
        hub.import_results("round,table,ns,ew,ns_levels,ew_levels\n\n", "rita", "referee")


def test_the_page_lists_every_bad_line_and_gives_the_pasted_text_back(hub: HubService, tmp_path: Path) -> None:
    t = tables(hub)
    c = app_with_users(hub, tmp_path).test_client()
    tok = login(c, "rita")
    text = csv_text([f"1,{t[0]['table']},{t[0]['ns']},{t[0]['ew']},9,4,,,", f"1,99,{t[1]['ns']},{t[1]['ew']},9,4,,,",
                     f"1,{t[2]['table']},{t[2]['ns']},{t[2]['ew']},9,x,,,"])
    r = c.post("/hub/action/import", data={"lines": text, "csrf_token": tok})  # a browser's form post
    page = r.get_data(as_text=True)
    assert r.status_code == 400 and 'id="import-problems"' in page
    assert '<li data-line="3">第 3 行：' in page and '<li data-line="4">第 4 行：' in page
    assert 'id="flash-error">未导入：2 行有误' in page
    assert 'id="import-lines" rows="4" cols="80"' in page and html.escape(text) in page  # the box, as typed
    assert not hub.core.results
    r = c.post("/hub/action/import", data={"lines": text, "csrf_token": tok}, headers=JSON)
    assert r.status_code == 400
    assert [p["line"] for p in r.get_json()["problems"]] == [3, 4] and "第 4 行：" in r.get_json()["error"]
    # Fixed and sent again: imported, and the page says how many, and how many were already there
    hub.hand_result({"round": 1, "table": t[0]["table"], "ns": t[0]["ns"], "ew": t[0]["ew"], "ns_levels": 9,
                     "ew_levels": 4}, "rita", "referee")
    fixed = csv_text([f"1,{t[0]['table']},{t[0]['ns']},{t[0]['ew']},9,4,,,",
                      f"1,{t[2]['table']},{t[2]['ns']},{t[2]['ew']},9,3,,,"])
    r = c.post("/hub/action/import", data={"csrf_token": tok, "file": (io.BytesIO(("\ufeff" + fixed).encode()),
                                                                        "results.csv")},
               content_type="multipart/form-data", headers=JSON)
    assert r.get_json() == {"ok": True, "message": "已导入 1 条成绩；1 行与已记录的成绩相同，已跳过 / 1 result(s) "
                                                   "imported; 1 line(s) already recorded as they are, skipped"}
