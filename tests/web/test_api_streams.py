"""Hardening of the SSE streams (issue 19, web items 1 and 6): a bad ``Last-Event-ID`` never
answers 500 nor keeps a public stream slot, and a client that closes frees its slot at once."""

from __future__ import annotations

import http.client
import time
from urllib.parse import quote

import pytest

from table_service.views.fanout import parse_last_event_id
from table_service.web.sseclient import SSEClient
from table_service.web.tables import web_state

BAD_IDS = ["²", "١٢", "5" * 5000, "-1", "1e3", " ", "0x10", "9" * 19]


@pytest.mark.parametrize("raw", BAD_IDS)
def test_garbage_last_event_id_is_unknown(raw):
    assert parse_last_event_id(raw) is None


def test_good_last_event_id_is_read():
    assert parse_last_event_id(" 42 ") == 42
    assert parse_last_event_id("0") == 0


def _raw_get(srv, path, headers=None):
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=5)
    conn.request("GET", path, headers=headers or {})
    resp = conn.getresponse()
    return conn, resp


@pytest.mark.parametrize("where", ["header", "query"])
def test_feed_stream_with_bad_id_gets_a_snapshot_and_frees_its_slot(make_app, runner, serve_app, h, where):
    # FEED_MAX_STREAMS=3 and 3 × more bad requests than slots: a leak would lock the feed.
    app = make_app(TABLES={"1": runner}, FEED_MAX_STREAMS=3)
    srv = serve_app(app)
    h.setup_deal(runner)
    for raw in ("²", "5" * 5000, "²") * 3:
        if where == "header":
            client = SSEClient(srv.host, srv.port, "/feed/1/stream", last_event_id=raw)
        else:
            client = SSEClient(srv.host, srv.port, "/feed/1/stream?last_event_id=" + quote(raw))
        assert client.status == 200
        assert client.get().event == "snapshot"
        client.close()
        h.wait_for(lambda: web_state(app).feed_streams == 0)


@pytest.mark.parametrize("raw", ["²", "5" * 5000])
def test_panel_stream_with_bad_id_gets_a_snapshot(app, client, serve_app, h, raw):
    h.login(client, "vera")
    srv = serve_app(app)
    cookie = h.session_cookie(client)
    sse = SSEClient(srv.host, srv.port, "/api/tables/1/stream", headers={"Cookie": cookie}, last_event_id=raw)
    assert sse.status == 200
    assert sse.get().event == "snapshot"
    sse.close()
    sse = SSEClient(srv.host, srv.port, "/api/tables/1/stream?last_event_id=" + quote(raw),
                    headers={"Cookie": cookie})
    assert sse.status == 200
    sse.close()


def test_a_closed_feed_client_frees_its_slot_long_before_the_heartbeat(make_app, runner, serve_app, h):
    # The slot must come back long before the next heartbeat would notice the close: with a
    # 600 s heartbeat, within the 60 s a loaded machine may take (the client check, every 0.5 s,
    # frees it within about a second on a free machine).
    heartbeat_s = 600.0
    app = make_app(TABLES={"1": runner}, FEED_MAX_STREAMS=1, SSE_HEARTBEAT_S=heartbeat_s)
    srv = serve_app(app)
    first = SSEClient(srv.host, srv.port, "/feed/1/stream")
    assert first.status == 200
    first.get()
    assert web_state(app).feed_streams == 1
    closed_at = time.monotonic()
    first.close()
    h.wait_for(lambda: web_state(app).feed_streams == 0, timeout=60)
    assert time.monotonic() - closed_at < heartbeat_s / 10
    second = SSEClient(srv.host, srv.port, "/feed/1/stream")
    assert second.status == 200
    second.close()


def test_a_stream_still_delivers_while_checking_its_client(make_app, runner, serve_app, h):
    # The client check must not eat events nor end a live stream.
    app = make_app(TABLES={"1": runner}, SSE_HEARTBEAT_S=15.0)
    srv = serve_app(app)
    with SSEClient(srv.host, srv.port, "/feed/1/stream") as sse:
        assert sse.get().event == "snapshot"
        time.sleep(1.2)  # a few client checks pass
        h.setup_deal(runner)
        assert sse.get(timeout=60).event == "update"
