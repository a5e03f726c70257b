"""The overlay's stream client (``static/common.js`` ``GT.connect``) in a real browser against the real
server: what a producer's audit found an EventSource alone does not do (s37).

- A stream refused (503: every public slot taken) is retried with backoff, the overlay reading
  ``state.json`` meanwhile; it comes alive once a slot frees (EventSource never retries an HTTP error).
- A service restarted on a new log (another day, a replaced Pi) is shown, though its seqs are lower
  than the ones the page had (the stream's ``hello`` names the log).
- A stream gone quiet (no ``ping`` for several heartbeats: a half-open connection, a hung Pi) is
  closed and opened again.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from table_service.web.tables import attach_table, detach_table, web_state

pytestmark = pytest.mark.browser

PLAYERS_EN = {"E": "Zhang Wei", "S": "Li Na", "W": "Wang Qiang", "N": "Zhao Min"}


def _until(cond: Any, timeout: float, what: str) -> None:
    """Poll ``cond`` from Python (not ``wait_for_function``: no eval needed, the CSP may stay on)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.1)
    raise AssertionError(f"not within {timeout} s: {what}")


def _attr(page: Any, name: str) -> str | None:
    return page.get_attribute("#ov", name)


def test_a_refused_overlay_polls_then_comes_alive_once_a_slot_frees(make_app, runner, serve_app, h, open_page):
    app = make_app(TABLES={"1": runner}, FEED_MAX_STREAMS=2, SERVER_THREADS=8, SSE_HEARTBEAT_S=0.5)
    h.setup_deal(runner)
    srv = serve_app(app)
    url = f"{srv.url}/feed/1/overlay"
    first, second = open_page(1280, 720)[0], open_page(1280, 720)[0]
    for page in (first, second):
        page.goto(url)
        _until(lambda p=page: _attr(p, "data-connected") == "1", 30, "the first two overlays connect")
    third, errors = open_page(1280, 720)
    third.goto(url)
    # Refused (503): it says so, and reads state.json meanwhile, so the table is on screen at once.
    _until(lambda: int(_attr(third, "data-polled") or 0) >= 1, 30, "the refused overlay polls state.json")
    assert _attr(third, "data-connected") == "0" and "赵敏" in third.inner_text("#ov-seat-N")
    h.play(runner, "N", ["3s"])
    _until(lambda: third.locator('#ov-trick [data-card="3s"]').count() == 1, 30, "a play reaches it by polling")
    assert web_state(app).feed_streams == 2
    first.close()  # a slot frees: the third comes alive on its next try (backoff at most 15 s)
    _until(lambda: _attr(third, "data-connected") == "1", 40, "the third overlay's stream opens")
    h.play(runner, "W", ["4s"])
    _until(lambda: third.locator('#ov-trick [data-card="4s"]').count() == 1, 30, "the stream carries the next play")
    assert errors == []


def test_a_restart_on_a_new_log_is_shown_though_its_seqs_are_lower(make_app, make_runner, serve_app, h, open_page):
    old = make_runner("day1")
    h.setup_deal(old)
    for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s"), ("E", "6s")):
        h.play(old, seat, [card])
    app = make_app(TABLES={"1": old})
    srv = serve_app(app)
    page, errors = open_page(1280, 720)
    page.goto(f"{srv.url}/feed/1/overlay")
    _until(lambda: _attr(page, "data-last-seq") == "7", 30, "the first log's state")
    # The table restarts on another log (a new day's file, a replaced Pi): seqs start again.
    new = make_runner("day2")
    for ev in ({"type": "round_set_up", "source": "panel", "role": "referee",
                "data": {"players": PLAYERS_EN, "format": {"kind": "deals", "deals": 2}}},
               {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
               {"type": "drawing_finished", "source": "panel", "data": {}}):
        assert new.submit(ev).accepted
    assert new.log_id != old.log_id
    detach_table(app, "1")  # its streams end: the browser reconnects with the old log's last id
    attach_table(app, "1", new)
    _until(lambda: "Zhao Min" in page.inner_text("#ov-seat-N"), 30, "the new log's state shown")
    assert _attr(page, "data-last-seq") == "3" and _attr(page, "data-log") == new.log_id
    assert page.locator('#ov-trick [data-card="6s"]').count() == 0
    assert errors == []


def test_a_stream_gone_quiet_is_closed_and_opened_again(make_app, runner, serve_app, h, open_page):
    app = make_app(TABLES={"1": runner}, SSE_HEARTBEAT_S=0.5)
    h.setup_deal(runner)
    srv = serve_app(app)
    page, errors = open_page(1280, 720)
    page.goto(f"{srv.url}/feed/1/overlay")
    _until(lambda: _attr(page, "data-connected") == "1", 30, "the overlay connects")
    assert _attr(page, "data-reconnects") is None
    feed = web_state(app).tables["1"].feed
    # The stream goes quiet without closing (as a hung Pi's, or a connection a network change left
    # half open): nothing, not even its ping, comes while the broadcaster is held.
    with feed.broadcaster._cond:
        _until(lambda: int(_attr(page, "data-reconnects") or 0) >= 1, 30, "the page notices the silence")
    _until(lambda: _attr(page, "data-connected") == "1", 30, "it is live again")
    h.play(runner, "N", ["3s"])
    _until(lambda: page.locator('#ov-trick [data-card="3s"]').count() == 1, 30, "and shows the next play")
    assert errors == []
