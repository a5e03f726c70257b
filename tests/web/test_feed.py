"""The public feed: no login, read-only, delayed on the Pi, confirmed flags only, duplicate mode.

The delay tests share one controllable clock between the real TableRunner (which stamps ``t_ms``)
and the feed, so "earlier than its delay allows" is checked to the millisecond, not by sleeping.
"""

from __future__ import annotations

import tempfile
import threading
import time
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from table_service.runner import TableRunner
from table_service.web import web_state
from table_service.web.feed import PUBLIC_EVENT_FIELDS, FeedView
from table_service.web.sseclient import SSEClient


def feed_app(make_app, make_runner, h, **cfg):
    clock = h.FakeClockMs()
    runner = make_runner(clock=clock)
    app = make_app(TABLES={"1": runner}, FEED_CLOCK=clock, **cfg)
    return app, runner, clock


def test_feed_needs_no_login_and_is_read_only(make_app, make_runner, h):
    app, runner, _ = feed_app(make_app, make_runner, h)
    c = app.test_client()
    assert c.get("/feed/").get_json() == {"tables": [{"id": "1", "delay_s": 0.0, "duplicate": False}]}
    resp = c.get("/feed/1/state.json")
    assert resp.status_code == 200 and resp.headers["Access-Control-Allow-Origin"] == "*"
    assert c.get("/feed/1/events.json").get_json() == {"events": []}
    assert c.get("/feed/1/overlay").status_code == 200
    for method in ("post", "put", "delete"):
        assert getattr(c, method)("/feed/1/state.json").status_code == 405
    assert c.get("/feed/1/events.json?after=zz").status_code == 400


def test_delay_exact_to_the_millisecond(make_app, make_runner, h):
    app, runner, clock = feed_app(make_app, make_runner, h, FEED_DELAY_S=30)
    c = app.test_client()
    t0 = clock()
    h.setup_deal(runner)                    # seq 1-3 at t0
    clock.advance(5_000)
    h.play(runner, "N", ["3s"])             # seq 4 at t0+5 s
    assert c.get("/feed/1/events.json").get_json()["events"] == []
    assert c.get("/feed/1/state.json").get_json()["state"]["players"] is None
    clock.advance(30_000 - 5_000 - 1)       # t0 + 30 s - 1 ms: still nothing
    assert c.get("/feed/1/events.json").get_json()["events"] == []
    clock.advance(1)                        # t0 + 30 s: the set-up is public, the play is not
    evs = c.get("/feed/1/events.json").get_json()["events"]
    assert [e["seq"] for e in evs] == [1, 2, 3]
    state = c.get("/feed/1/state.json").get_json()["state"]
    assert state["players"] == h.PLAYERS and state["deal"]["trick"]["plays"] == []
    clock.advance(5_000)                    # t0 + 35 s: the play too
    state = c.get("/feed/1/state.json").get_json()["state"]
    assert state["deal"]["trick"]["plays"][0]["cards"] == ["3s"]
    assert state["last_seq"] == 4 and t0 + 5_000 + 30_000 <= clock()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    delay_s=st.integers(0, 20),
    steps=st.lists(st.tuples(st.integers(0, 8_000), st.sampled_from(["play", "pass", "call", "tick", "report"]),
                             st.sampled_from("ESWN"),
                             st.one_of(st.integers(0, 8_000), st.sampled_from(["edge-1", "edge"]))),
                   min_size=1, max_size=25),
)
def test_feed_never_contains_an_event_earlier_than_its_delay_allows(h, delay_s, steps):
    """Property: at any moment, the public feed holds exactly the public events with
    ``t_ms + delay <= now``, and its state is the fold of exactly the events up to ``now - delay``."""
    clock = h.FakeClockMs()
    delay_ms = delay_s * 1000
    with tempfile.TemporaryDirectory() as tmp, TableRunner(Path(tmp) / "t.sqlite3", clock=clock) as runner:
        feed = FeedView(runner, delay_s=delay_s, clock=clock, pump_thread=False)
        try:
            h.setup_deal(runner)
            ranks = iter("3456789TJQKA" * 10)
            for gap, kind, seat, look_later in steps:
                clock.advance(gap)
                if kind == "play":
                    runner.submit({"type": "cards_played", "source": "camera",
                                   "data": {"seat": seat, "cards": [next(ranks) + "s"]}})
                elif kind == "pass":
                    runner.submit({"type": "passed", "source": "screen", "data": {"seat": seat}})
                elif kind == "call":
                    runner.submit({"type": "referee_called", "source": "screen", "data": {"seat": seat}})
                elif kind == "report":
                    runner.submit({"type": "report_pressed", "source": "screen", "data": {"seat": seat}})
                else:
                    runner.submit({"type": "clock_ticked", "source": "clock", "data": {}})
                last_t = runner.events()[-1]["t_ms"]
                if look_later == "edge-1":  # 1 ms before the newest event may go public
                    look_later = max(0, last_t + delay_ms - 1 - clock())
                elif look_later == "edge":  # exactly when it may
                    look_later = max(0, last_t + delay_ms - clock())
                for probe in (0, look_later):
                    clock.advance(probe)
                    now = clock()
                    published = feed.events()
                    accepted = runner.events()
                    # Never early:
                    assert all(e["t_ms"] + delay_ms <= now for e in published)
                    # Never missing (nothing held back longer than the delay):
                    due = [e for e in accepted if e["t_ms"] + delay_ms <= now]
                    expect = [e["seq"] for e in due if e["type"] in PUBLIC_EVENT_FIELDS]
                    assert [e["seq"] for e in published] == expect
                    # The public state is the fold of exactly the due events:
                    assert feed.state()["last_seq"] == (due[-1]["seq"] if due else 0)
        finally:
            feed.close()


def test_only_confirmed_flags_are_public(make_app, make_runner, h):
    app, runner, _ = feed_app(make_app, make_runner, h)
    c = app.test_client()
    h.setup_deal(runner)
    h.play(runner, "E", ["3s"])  # out of turn -> F4 (open)
    runner.submit({"type": "referee_called", "source": "screen", "data": {"seat": "W", "reason": "秘密"}})
    h.play(runner, "N", ["7d"], confidence=[0.2], uncertain=True, crop=h.crop_data_url(["7d"]))
    text = c.get("/feed/1/state.json").get_data(as_text=True) + c.get("/feed/1/events.json").get_data(as_text=True)
    assert "F4" not in text and "秘密" not in text and "7d" not in text and "confidence" not in text
    assert "base64" not in text
    h.login(c, "rita")
    assert h.post_json(c, "/api/tables/1/actions", {"type": "flag_confirmed", "data": {"flag": "F4"}}).status_code == 200
    assert h.post_json(c, "/api/tables/1/actions", {"type": "flag_dismissed", "data": {"flag": "F5"}}).status_code == 200
    state = c.get("/feed/1/state.json").get_json()["state"]
    assert [f["id"] for f in state["flags"]] == ["F4"]
    assert state["flags"][0]["rule"] == "out_of_turn"
    evs = c.get("/feed/1/events.json").get_json()["events"]
    assert [e["type"] for e in evs if "flag" in e["type"]] == ["flag_confirmed"]


def test_duplicate_mode_holds_each_deal_until_released(make_app, make_runner, h, users_db):
    app, runner, _ = feed_app(make_app, make_runner, h, FEED_DUPLICATE=True)
    c = app.test_client()
    h.setup_deal(runner)
    h.play(runner, "N", ["3s"])
    evs = c.get("/feed/1/events.json").get_json()["events"]
    assert [e["type"] for e in evs] == ["round_set_up", "first_cut_recorded"]  # before the deal
    state = c.get("/feed/1/state.json").get_json()["state"]
    assert state["players"] == h.PLAYERS and state["deal"] is None
    h.login(c, "chen")
    assert h.post_json(c, "/api/tables/1/feed/release", {"round": 1, "deal": 1}).status_code == 200
    state = c.get("/feed/1/state.json").get_json()["state"]
    assert state["deal"]["no"] == 1 and state["deal"]["trick"]["plays"][0]["cards"] == ["3s"]
    # The release is recorded: a restarted web app (same DB) still publishes the deal.
    app2 = make_app(FEED_DUPLICATE=True)
    from table_service.web import attach_table

    attach_table(app2, "1", runner)
    assert app2.test_client().get("/feed/1/state.json").get_json()["state"]["deal"]["no"] == 1


def test_feed_stream_respects_real_delay(make_app, runner, serve_app, h):
    """End to end over HTTP with the wall clock: no event arrives before t_ms + delay."""
    delay_ms = 400
    app = make_app(TABLES={"1": runner}, FEED_DELAY_S=delay_ms / 1000)
    srv = serve_app(app)
    with SSEClient(srv.host, srv.port, "/feed/1/stream") as sse:
        assert sse.get().event == "snapshot"
        h.setup_deal(runner)
        h.play(runner, "N", ["3s"])
        got = [sse.get(timeout=5.0) for _ in range(4)]
    sent = {e["seq"]: e["t_ms"] for e in runner.events()}
    assert [int(m.id) for m in got] == [1, 2, 3, 4]
    for m in got:
        assert m.received * 1000 >= sent[int(m.id)] + delay_ms, (m.id, m.received * 1000 - sent[int(m.id)])
    assert got[-1].json()["state"]["deal"]["trick"]["plays"][0]["cards"] == ["3s"]


def test_feed_pump_thread_publishes_without_requests(make_app, runner, h):
    """With nobody reading, the pump thread still publishes each event when it falls due."""
    app = make_app(TABLES={"1": runner}, FEED_DELAY_S=0.3)
    feed = web_state(app).tables["1"].feed
    first_seen: dict[str, float] = {}

    def watch() -> None:
        deadline = time.monotonic() + 8
        while time.monotonic() < deadline:
            got = feed.broadcaster.wait(0, 1.0)
            if got and got[0]:
                first_seen["ms"] = time.time() * 1000
                return

    t = threading.Thread(target=watch)
    t.start()
    h.setup_deal(runner)
    t.join(10)
    assert "ms" in first_seen, "the pump never published"
    assert first_seen["ms"] >= runner.events()[0]["t_ms"] + 300


def test_public_streams_are_capped_so_referees_keep_a_worker(make_app, runner, serve_app, h):
    # A dropped client is noticed at the next write (event or keep-alive): short heartbeat here.
    app = make_app(TABLES={"1": runner}, FEED_MAX_STREAMS=2, SERVER_THREADS=8, SSE_HEARTBEAT_S=0.2)
    srv = serve_app(app)
    a = SSEClient(srv.host, srv.port, "/feed/1/stream")
    b = SSEClient(srv.host, srv.port, "/feed/1/stream")
    third = SSEClient(srv.host, srv.port, "/feed/1/stream")
    assert (a.status, b.status, third.status) == (200, 200, 503)
    third.close()
    a.get()
    a.close()  # a closed stream frees its slot
    h.wait_for(lambda: web_state(app).feed_streams == 1)
    c = SSEClient(srv.host, srv.port, "/feed/1/stream")
    assert c.status == 200
    b.close()
    c.close()
