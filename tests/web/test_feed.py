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

from table_service.table.runner import TableRunner
from table_service.views.feed import HELD_DUPLICATE, PUBLIC_EVENT_FIELDS, FeedView
from table_service.web.sseclient import SSEClient
from table_service.web.tables import web_state


def feed_app(make_app, make_runner, h, **cfg):
    clock = h.FakeClockMs()
    runner = make_runner(clock=clock)
    app = make_app(TABLES={"1": runner}, FEED_CLOCK=clock, **cfg)
    return app, runner, clock


def test_feed_needs_no_login_and_is_read_only(make_app, make_runner, h):
    app, runner, _ = feed_app(make_app, make_runner, h)
    c = app.test_client()
    assert c.get("/feed/").get_json() == {"tables": [{
        "id": "1", "delay_s": 0.0, "duplicate": False, "overlay": "/feed/1/overlay?lang=zh",
        "commentator": "/feed/1/commentator"}]}
    resp = c.get("/feed/1/state.json")
    assert resp.status_code == 200 and resp.headers["Access-Control-Allow-Origin"] == "*"
    assert c.get("/feed/1/events.json").get_json() == {"events": [], "log": runner.log_id}
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


ONE_EACH = {"E": 1, "S": 1, "W": 1, "N": 1}


def short_deal(runner, h, clock, *, first: bool) -> None:
    """One deal with one card each, a second apart: N 3s, W 4s, S 5s (N and S out: deal over)."""
    if first:
        for ev in (
            {"type": "round_set_up", "source": "panel", "role": "referee",
             "data": {"players": h.PLAYERS, "format": {"kind": "deals", "deals": 3}}},
            {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
        ):
            assert runner.submit(ev).accepted
    assert runner.submit({"type": "drawing_finished", "source": "panel", "data": {"counts": ONE_EACH}}).accepted
    if not first:  # E, last in the first deal, owes N a tribute; N returns it
        assert runner.submit({"type": "tribute_given", "source": "panel", "data": {"seat": "E", "card": "Kd"}}).accepted
        assert runner.submit({"type": "return_given", "source": "panel", "data": {"seat": "N", "card": "3d"}}).accepted
        return  # deal 2 stays in progress
    for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s")):
        clock.advance(1_000)
        h.play(runner, seat, [card])
    assert runner.state()["deal"]["phase"] == "over"


def public_text(c) -> str:
    return c.get("/feed/1/state.json").get_data(as_text=True) + c.get("/feed/1/events.json").get_data(as_text=True)


def test_duplicate_mode_holds_each_deal_until_its_release_event(make_app, make_runner, h, tmp_path):
    """Nothing of an unreleased deal is public, however old; the chief's release is an engine
    event that takes effect at its own time (each event still waits for its own delay), and,
    being in the table's log, it survives a restart of runner and web app."""
    clock = h.FakeClockMs()
    runner = make_runner("dup", clock=clock)
    app = make_app(TABLES={"1": runner}, FEED_CLOCK=clock, FEED_DUPLICATE=True, FEED_DELAY_S=10)
    c = app.test_client()
    t0 = clock()
    short_deal(runner, h, clock, first=True)     # seq 1-2 at t0; deal 1: seq 3 at t0, plays at t0+1..3 s
    clock.advance(1_000)
    short_deal(runner, h, clock, first=False)    # deal 2 begins before anyone releases deal 1
    clock.advance(60_000)                        # long past the delay: both deals are held
    evs = c.get("/feed/1/events.json").get_json()["events"]
    assert [e["type"] for e in evs] == ["round_set_up"]  # the cut card is deal 1's: held with it
    state = c.get("/feed/1/state.json").get_json()["state"]
    assert state["players"] == h.PLAYERS and state["deal"] is None and state["last_seq"] == 1
    assert all(card not in public_text(c) for card in ("3s", "4s", "5s", "Kd", "3d"))
    # a referee cannot release; a chief can, and it is logged before it takes effect
    h.login(c, "rita")
    assert h.post_json(c, "/api/tables/1/feed/release", {"round": 1, "deal": 1}).status_code == 403
    assert c.get("/feed/1/state.json").get_json()["state"]["deal"] is None
    c.post("/auth/logout", data={"csrf_token": h.csrf_of(c)})
    h.login(c, "chen")
    assert h.post_json(c, "/api/tables/1/feed/release", {"round": 1, "deal": 2}).status_code == 422  # in progress
    resp = h.post_json(c, "/api/tables/1/feed/release", {"round": 1, "deal": 1})
    assert resp.status_code == 200
    assert runner.events()[-1]["type"] == "deal_released" and runner.events()[-1]["t_ms"] == clock()
    # effective at once (the release is not delayed again): every deal-1 event is long due. The
    # release event itself sits behind deal 2 in the log, so the feed reads releases from the
    # engine's live state, not from its own (held) public fold.
    state = c.get("/feed/1/state.json").get_json()["state"]
    assert state["deal"]["no"] == 1 and state["deal"]["phase"] == "over"
    assert [p["cards"] for p in state["recent_plays"]] == [["3s"], ["4s"], ["5s"]]
    held = runner.events(after=state["last_seq"])
    assert held[0]["type"] == "drawing_finished" and held[-1]["type"] == "deal_released"
    clock.advance(60_000)
    assert c.get("/feed/1/state.json").get_json()["state"]["deal"]["no"] == 1
    assert "Kd" not in public_text(c) and "3d" not in public_text(c)

    # Restart: a new runner on the same log and a new web app with a *fresh* web database.
    runner.stop()
    runner2 = make_runner("dup", clock=clock)
    app2 = make_app(TABLES={"1": runner2}, FEED_CLOCK=clock, FEED_DUPLICATE=True, FEED_DELAY_S=10,
                    USERS_DB=str(tmp_path / "fresh-web.sqlite3"))
    c2 = app2.test_client()
    state = c2.get("/feed/1/state.json").get_json()["state"]
    assert state["deal"]["no"] == 1 and [p["cards"] for p in state["recent_plays"]] == [["3s"], ["4s"], ["5s"]]
    assert state["last_seq"] == held[0]["seq"] - 1 and "Kd" not in public_text(c2)
    assert [e["seq"] for e in c2.get("/feed/1/events.json").get_json()["events"]] == \
        [e["seq"] for e in c.get("/feed/1/events.json").get_json()["events"]]
    assert t0 + 120_000 < clock()


def test_duplicate_release_counts_from_its_own_time_and_deal_events_keep_their_delay(make_app, make_runner, h):
    clock = h.FakeClockMs()
    runner = make_runner(clock=clock)
    app = make_app(TABLES={"1": runner}, FEED_CLOCK=clock, FEED_DUPLICATE=True, FEED_DELAY_S=10)
    feed = web_state(app).tables["1"].feed
    c = app.test_client()
    t0 = clock()
    short_deal(runner, h, clock, first=True)     # plays at t0+1, +2, +3 s
    # a release stamped 2 s ahead (e.g. entered from another clock) counts from that time only
    res = runner.submit({"type": "deal_released", "source": "panel", "role": "chief", "t_ms": clock() + 2_000,
                         "data": {"round": 1, "deal": 1}})
    assert res.accepted, res.error
    feed.pump()  # the events reach the feed's queue on its pump thread; a loaded machine may not have run it yet
    assert feed.released == set() and feed.next_due_ms() == t0 + 10_000  # the set-up falls due first
    clock.advance(9_999 - 3_000)                 # t0 + 9.999 s: nothing due, nothing released yet
    assert c.get("/feed/1/events.json").get_json()["events"] == []
    clock.advance(1)                              # t0 + 10 s: set-up and drawing due, the release in force
    assert feed.released == {(1, 1)}
    evs = c.get("/feed/1/events.json").get_json()["events"]
    assert [e["type"] for e in evs] == ["round_set_up", "first_cut_recorded", "drawing_finished"]
    clock.advance(1_000)                          # t0 + 11 s: N's play (t0 + 1 s) is due, W's is not
    state = c.get("/feed/1/state.json").get_json()["state"]
    assert [p["cards"] for p in state["recent_plays"]] == [["3s"]]
    published = c.get("/feed/1/events.json").get_json()["events"]
    assert all(e["t_ms"] + 10_000 <= clock() for e in published)
    clock.advance(2_000)
    state = c.get("/feed/1/state.json").get_json()["state"]
    assert state["deal"]["phase"] == "over"
    assert t0 + 13_000 == clock()


def test_release_not_yet_effective_holds_the_feed_until_its_time(h):
    """``next_due_ms`` of a held feed is the time its pending release takes effect."""
    clock = h.FakeClockMs()
    with tempfile.TemporaryDirectory() as tmp, TableRunner(Path(tmp) / "t.sqlite3", clock=clock) as runner:
        feed = FeedView(runner, duplicate=True, clock=clock, pump_thread=False)
        try:
            short_deal(runner, h, clock, first=True)
            assert feed.state()["deal"] is None and feed.next_due_ms() is None  # held, no release
            due = clock() + 5_000
            assert runner.submit({"type": "deal_released", "source": "panel", "role": "chief", "t_ms": due,
                                  "data": {"deal": 1}}).accepted
            assert feed.state()["deal"] is None and feed.next_due_ms() == due
            clock.advance(4_999)
            assert feed.state()["deal"] is None
            clock.advance(1)
            assert feed.state()["deal"]["phase"] == "over" and feed.released == {(1, 1)}
        finally:
            feed.close()


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    delay_s=st.integers(0, 5),
    steps=st.lists(st.tuples(st.sampled_from(["round", "round", "release", "wait"]), st.integers(0, 4_000),
                             st.integers(1, 4)), min_size=1, max_size=12),
)
def test_duplicate_feed_never_shows_an_unreleased_deal(h, delay_s, steps):
    """Property (duplicate mode): at any moment the feed holds exactly the log's longest prefix whose
    events are due (``t_ms + delay <= now``) and whose deal, if any, the engine's log has released
    as of now; so nothing of an unreleased deal is ever public, and nothing early."""
    from table_service.engine.apply import apply
    from table_service.engine.state import initial_state

    clock = h.FakeClockMs()
    delay_ms = delay_s * 1000

    def expected(runner) -> tuple[list[int], int]:
        now = clock()
        released = {(r["round"], r["deal"]) for r in runner.state()["released_deals"] if r["t_ms"] <= now}
        state, seqs, last = initial_state(), [], 0
        for ev in runner.events():
            if ev["t_ms"] + delay_ms > now:
                break
            state, _ = apply(state, ev)
            # A deal's events, and the first deal's cut card (a card of its hands), wait for its release.
            deal = state["deal"]["no"] if state["deal"] is not None else \
                1 if state.get("first_cut") and not state["score_sheet"] else None
            if deal is not None and (state["round"]["no"], deal) not in released:
                break
            last = ev["seq"]
            if ev["type"] in PUBLIC_EVENT_FIELDS:
                seqs.append(ev["seq"])
        return seqs, last

    with tempfile.TemporaryDirectory() as tmp, TableRunner(Path(tmp) / "t.sqlite3", clock=clock) as runner:
        feed = FeedView(runner, delay_s=delay_s, duplicate=True, clock=clock, pump_thread=False)
        try:
            for kind, gap, which in steps:
                if kind == "round":  # a one-deal round, played out: its deal is (round, 1)
                    for ev in (
                        {"type": "round_set_up", "source": "panel", "role": "referee",
                         "data": {"players": h.PLAYERS, "format": {"kind": "deals", "deals": 1}}},
                        {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
                        {"type": "drawing_finished", "source": "panel", "data": {"counts": ONE_EACH}},
                        {"type": "cards_played", "source": "camera", "data": {"seat": "N", "cards": ["3s"]}},
                        {"type": "cards_played", "source": "camera", "data": {"seat": "W", "cards": ["4s"]}},
                        {"type": "cards_played", "source": "camera", "data": {"seat": "S", "cards": ["5s"]}},
                    ):
                        clock.advance(gap // 4)
                        assert runner.submit(ev).accepted
                elif kind == "release":  # may be refused (no such round yet, or already released)
                    clock.advance(gap)
                    runner.submit({"type": "deal_released", "source": "panel", "role": "chief",
                                   "data": {"round": which, "deal": 1}})
                else:
                    clock.advance(gap * which)
                for _ in range(2):
                    seqs, last = expected(runner)
                    assert [e["seq"] for e in feed.events()] == seqs
                    assert feed.state()["last_seq"] == last
                    clock.advance(gap // 2)
        finally:
            feed.close()


def test_an_old_feed_releases_table_in_the_web_database_is_ignored(make_app, make_runner, h, users_db):
    """Releases used to live in the web database; a table left there publishes nothing."""
    import sqlite3

    conn = sqlite3.connect(users_db)
    with conn:
        conn.execute("CREATE TABLE feed_releases (table_id TEXT NOT NULL, round_no INTEGER NOT NULL, "
                     "deal_no INTEGER NOT NULL, released_ms INTEGER NOT NULL, released_by TEXT NOT NULL, "
                     "PRIMARY KEY (table_id, round_no, deal_no))")
        conn.execute("INSERT INTO feed_releases VALUES ('1', 1, 1, 0, 'chen')")
    conn.close()
    app, runner, clock = feed_app(make_app, make_runner, h, FEED_DUPLICATE=True)
    c = app.test_client()
    short_deal(runner, h, clock, first=True)
    assert c.get("/feed/1/state.json").get_json()["state"]["deal"] is None
    assert "3s" not in public_text(c)
    assert h.login(c, "chen").status_code in (302, 303)  # the old database still serves accounts
    assert web_state(app).tables["1"].feed.released == set()


def test_feed_stream_respects_real_delay(make_app, runner, serve_app, h):
    """End to end over HTTP with the wall clock: no event arrives before t_ms + delay."""
    delay_ms = 400
    app = make_app(TABLES={"1": runner}, FEED_DELAY_S=delay_ms / 1000)
    srv = serve_app(app)
    with SSEClient(srv.host, srv.port, "/feed/1/stream") as sse:
        assert sse.get().event == "snapshot"
        h.setup_deal(runner)
        h.play(runner, "N", ["3s"])
        got = [sse.get(timeout=60.0) for _ in range(4)]
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
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            got = feed.broadcaster.wait(0, 1.0)
            if got and got[0]:
                first_seen["ms"] = time.time() * 1000
                return

    t = threading.Thread(target=watch)
    t.start()
    h.setup_deal(runner)
    t.join(70)
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


def test_one_address_cannot_take_every_public_stream(make_app, runner, h):
    """40 streams from one script turned every overlay away (503): a quarter of the slots is kept
    for other addresses, and a slot freed goes back to its own address's count."""
    from table_service.web.tables import FEED_KEPT_FOR_OTHERS

    state = web_state(make_app(TABLES={"1": runner}))
    limit = 8
    mine = limit - limit // FEED_KEPT_FOR_OTHERS
    assert all(state.acquire_feed_stream(limit, "10.0.0.9") for _ in range(mine))
    assert not state.acquire_feed_stream(limit, "10.0.0.9")
    assert all(state.acquire_feed_stream(limit, f"10.0.0.{k}") for k in range(1, limit - mine + 1))
    assert not state.acquire_feed_stream(limit, "10.0.0.77")  # the whole cap still holds
    state.release_feed_stream("10.0.0.9")
    assert state.acquire_feed_stream(limit, "10.0.0.9") and state.feed_streams == limit


def test_a_duplicate_board_is_held_for_release_whatever_the_tables_setting(h):
    """The s36 broadcast audit: a table set up from the hub's duplicate assignment (board R1-M1, room A)
    with its settings as deployed (duplicate off, 60 s delay) published every play of the board 60 s
    later, anonymously, to the room still playing the same cards. A round set up with a board is held
    deal by deal until the chief releases it; the feed's index and the panel say deals are held."""
    clock = h.FakeClockMs()
    with tempfile.TemporaryDirectory() as tmp, TableRunner(Path(tmp) / "t.sqlite3", clock=clock) as runner:
        feed = FeedView(runner, delay_s=60, duplicate=False, clock=clock, pump_thread=False)
        try:
            assert not feed.holds_deals()
            for ev in ({"type": "round_set_up", "source": "panel", "role": "referee",
                        "data": {"players": h.PLAYERS, "format": {"kind": "deals", "deals": 3}, "board": "R1-M1"}},
                       {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}}):
                assert runner.submit(ev).accepted
            assert feed.holds_deals()
            clock.advance(3_600_000)
            # The cut card is one of deal 1's cards (the s38 audit: it was public while deal 1 was held).
            assert "first_cut_recorded" not in {e["type"] for e in feed.events()}
            assert feed.state()["held"] == {"deal": 1, "reason": HELD_DUPLICATE}
            assert runner.submit({"type": "drawing_finished", "source": "panel", "data": {"counts": ONE_EACH}}).accepted
            for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s")):
                clock.advance(1_000)
                h.play(runner, seat, [card])
            clock.advance(3_600_000)  # an hour later: long past the delay
            assert feed.state()["deal"] is None
            assert not any(e["type"] == "cards_played" for e in feed.events())
            assert runner.submit({"type": "deal_released", "source": "panel", "role": "chief",
                                  "data": {"deal": 1}}).accepted
            assert feed.state()["deal"]["phase"] == "over"
            assert sum(e["type"] == "cards_played" for e in feed.events()) == 3
            cut = [e for e in feed.events() if e["type"] == "first_cut_recorded"]
            assert [e["data"]["card"] for e in cut] == ["7s"]  # released with its deal
        finally:
            feed.close()


def test_the_feeds_index_and_the_chiefs_panel_say_a_boards_deals_are_held(make_app, make_runner, h):
    """The audit's feed index said ``duplicate: false`` on a board, and the chief's panel had no
    release box (it showed only with the table's setting on): nobody could release the board."""
    clock = h.FakeClockMs()
    runner = make_runner("board", clock=clock)
    app = make_app(TABLES={"1": runner}, FEED_CLOCK=clock, FEED_DELAY_S=60)
    c = app.test_client()
    h.login(c, "chen")
    assert c.get("/feed/").get_json()["tables"][0]["duplicate"] is False
    assert 'id="release-card" data-duplicate="0" hidden' in c.get("/tables/1").get_data(as_text=True)
    assert runner.submit({"type": "round_set_up", "source": "panel", "role": "referee", "data": {
        "players": h.PLAYERS, "format": {"kind": "deals", "deals": 3}, "board": "R1-M1"}}).accepted
    assert c.get("/feed/").get_json()["tables"][0]["duplicate"] is True
    page = c.get("/tables/1").get_data(as_text=True)
    assert 'id="release-card" data-duplicate="0">' in page


def test_the_feeds_index_says_the_hub_released_a_deal_and_when(make_app, make_runner, h):
    """A broadcaster whose board stayed dark could not tell whether anyone had released it: the
    index showed only ``duplicate``. It now names the latest release — the hub's (both rooms ended
    it) or the chief's tap — with its time, once the delayed broadcast could have shown it."""
    clock = h.FakeClockMs()
    runner = make_runner("board", clock=clock)
    app = make_app(TABLES={"1": runner}, FEED_CLOCK=clock, FEED_DELAY_S=60)
    c = app.test_client()
    assert runner.submit({"type": "round_set_up", "source": "panel", "role": "referee", "data": {
        "players": h.PLAYERS, "format": {"kind": "deals", "deals": 3}, "board": "R1-M1"}}).accepted
    for etype, data in (("first_cut_recorded", {"card": "7s"}), ("drawing_finished", {"counts": ONE_EACH})):
        assert runner.submit({"type": etype, "source": "panel", "role": "referee", "data": data}).accepted
    for seat, card in (("N", "3s"), ("W", "4s"), ("S", "5s")):
        h.play(runner, seat, [card])
    assert "last_release" not in c.get("/feed/").get_json()["tables"][0]
    t_rel = clock()
    assert runner.submit({"type": "deal_released", "source": "hub", "role": "chief",
                          "data": {"round": 1, "deal": 1}}).accepted
    assert "last_release" not in c.get("/feed/").get_json()["tables"][0], "not before the delay has passed"
    clock.advance(60_000)
    row = c.get("/feed/").get_json()["tables"][0]
    assert row["last_release"] == {"round": 1, "deal": 1, "by": "hub", "t_ms": t_rel,
                                   "text": "赛事中心已公布 / released by the hub"}
