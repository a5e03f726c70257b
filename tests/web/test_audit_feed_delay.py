"""The feed's delay is measured on the clock that stamps the table's events (docs/security.md §3).

The outside audit attached a table whose clock ran an hour behind the wall, without ``FEED_CLOCK``
(the service passes its ``TableClock``; any other wiring did not): the feed measured "now" on the
wall clock, every event was an hour overdue, and a 30 s delay showed the table at once."""

from __future__ import annotations

import time
from typing import Any


def test_the_delay_holds_on_the_runners_own_clock_without_feed_clock(make_app: Any, make_runner: Any, h: Any) -> None:
    lag = {"ms": 3_600_000}

    def table_clock() -> int:  # the table's time: an hour behind the wall, then moved on by the test
        return int(time.time() * 1000) - lag["ms"]

    runner = make_runner(clock=table_clock)
    app = make_app(TABLES={"1": runner}, FEED_DELAY_S=30)
    h.setup_deal(runner)
    c = app.test_client()
    assert c.get("/feed/1/events.json").get_json()["events"] == []
    assert c.get("/feed/1/state.json").get_json()["state"]["players"] is None
    clock = c.get("/feed/1/clock.json").get_json()
    assert abs(clock["now_ms"] - (table_clock() - 30_000)) < 5_000  # the overlay's clock and the cutoff agree
    lag["ms"] -= 31_000  # 31 s of table time later
    assert [e["type"] for e in c.get("/feed/1/events.json").get_json()["events"]] == [
        "round_set_up", "first_cut_recorded", "drawing_finished"]


def test_a_query_number_too_long_is_out_of_range_not_not_a_number(app: Any) -> None:
    # 20 digits answered "must be an integer": true of "12a", not of 99999999999999999999.
    c = app.test_client()
    for url, says in (("/feed/1/events.json?limit=99999999999999999999", "1–5000"),
                      ("/feed/1/events.json?after=-" + "9" * 5000, "0–"),
                      ("/feed/1/events.json?limit=12a", "须为整数")):
        r = c.get(url)
        assert r.status_code == 400 and says in r.get_json()["error"], r.get_json()
