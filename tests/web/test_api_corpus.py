"""The HTTP half of the bad-input corpus (issue 19; the command-line half is
``tests/test_bad_input_corpus.py``): every bad request the probe found, and its kind. Each answer is
a 4xx JSON error naming the problem (or, for a stream, a snapshot), and the table's log is unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

ACTIONS = "/api/tables/1/actions"


@dataclass
class HttpCase:
    name: str
    kind: str  # crash (500 before), denial (slot leak), stored (reached the log), unchecked
    method: str
    path: str
    body: Any = None  # JSON-able, or bytes sent as is
    headers: dict[str, str] | None = None
    status: int = 400
    needle: str = ""


CASES = [
    HttpCase("penalty-level-list", "crash", "POST", ACTIONS,
             {"type": "penalty_given", "data": {"side": "NS", "level": ["foul"], "article": "x"}}, needle="data.level"),
    HttpCase("seat-is-a-dict", "crash", "POST", ACTIONS, {"type": "passed", "data": {"seat": {"E": 1}}},
             needle="data.seat"),
    HttpCase("hundred-thousand-brackets", "crash", "POST", ACTIONS, b"[" * 60_000, needle="nested too deeply"),
    HttpCase("five-thousand-levels", "crash", "POST", ACTIONS,
             ('{"type":"round_ended","data":{"reason":' + "[" * 5000 + "1" + "]" * 5000 + "}}").encode()),
    HttpCase("passed-with-pad", "stored", "POST", ACTIONS, {"type": "passed", "data": {"seat": "N", "pad": "x"}},
             needle="unknown key 'pad'"),
    HttpCase("thirty-mib-body", "stored", "POST", ACTIONS,
             {"type": "passed", "data": {"seat": "N", "pad": "x" * (200 * 1024)}}, status=413),
    HttpCase("ten-thousand-cards", "unchecked", "POST", ACTIONS,
             {"type": "cards_played", "data": {"seat": "N", "cards": ["3h"] * 10_000}}, needle="1-27 cards"),
    HttpCase("twenty-eight-cards", "unchecked", "POST", ACTIONS,
             {"type": "cards_played", "data": {"seat": "N", "cards": ["3h"] * 28}}, needle="1-27 cards"),
    HttpCase("not-json", "crash", "POST", ACTIONS, b"\xff\xfe", needle="JSON"),
    HttpCase("events-after-huge", "crash", "GET", "/api/tables/1/events?after=" + "9" * 5000, status=400,
             needle="after"),
    HttpCase("feed-events-limit-text", "crash", "GET", "/feed/1/events.json?limit=abc", needle="limit"),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_http_bad_input(client, h, runner, case: HttpCase):
    h.setup_deal(runner)
    h.login(client, "chen")
    before = h.logged_rows(runner)
    headers = {"X-CSRF-Token": h.csrf_of(client), **(case.headers or {})}
    if case.method == "GET":
        resp = client.get(case.path, headers=headers)
    elif isinstance(case.body, bytes):
        resp = client.post(case.path, data=case.body, content_type="application/json", headers=headers)
    else:
        resp = client.post(case.path, json=case.body, headers=headers)
    assert resp.status_code == case.status, (case.name, case.kind, resp.get_data(as_text=True)[:300])
    body = resp.get_json()
    assert isinstance(body, dict) and body.get("error"), case.name
    assert case.needle in body["error"], (case.name, body["error"])
    assert h.logged_rows(runner) == before, f"{case.name}: something reached the log ({case.kind})"


@pytest.mark.parametrize("raw", ["²", "5" * 5000])
@pytest.mark.parametrize("path", ["/feed/1/stream", "/api/tables/1/stream"])
def test_streams_with_a_bad_last_event_id_answer_a_snapshot(client, h, raw, path):
    h.login(client, "vera")
    resp = client.get(path, headers={"Last-Event-ID": raw.encode("utf-8").decode("latin-1")}, buffered=False)
    assert resp.status_code == 200
    chunks = iter(resp.response)
    text = b""
    while b"event: snapshot" not in text:
        text += next(chunks)
    resp.close()
