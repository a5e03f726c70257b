"""The panel's live stream over the real cheroot server: live updates, resume, access rules."""

from __future__ import annotations

import http.client
import queue

import pytest

from table_service.web.sseclient import SSEClient


def next_of(client, kind, timeout=5.0):
    while True:
        msg = client.get(timeout)
        if msg.event == kind:
            return msg


def test_stream_needs_login(app, serve_app):
    srv = serve_app(app)
    conn = http.client.HTTPConnection(srv.host, srv.port, timeout=5)
    conn.request("GET", "/api/tables/1/stream")
    resp = conn.getresponse()
    assert resp.status == 401
    assert "login" in resp.read().decode()


def test_play_reaches_open_stream_and_resume_after_drop(app, client, runner, serve_app, h):
    h.setup_deal(runner)
    h.login(client, "vera")
    srv = serve_app(app)
    cookie = {"Cookie": h.session_cookie(client)}
    sse = SSEClient(srv.host, srv.port, "/api/tables/1/stream", headers=cookie)
    assert sse.status == 200 and sse.content_type.startswith("text/event-stream")
    snap = next_of(sse, "snapshot")
    assert snap.id == "3" and snap.json()["state"]["deal"]["turn"] == "N"

    res = h.play(runner, "N", ["3s"])
    upd = next_of(sse, "update")
    assert upd.id == str(res.seq)
    body = upd.json()
    assert body["event"]["data"]["cards"] == ["3s"]
    assert body["state"]["deal"]["trick"]["plays"][0]["cards"] == ["3s"]
    last = sse.last_id
    sse.close()

    # While disconnected, two more things happen; a reconnect with Last-Event-ID gets exactly them.
    r1 = runner.submit({"type": "passed", "source": "screen", "data": {"seat": "W"}})
    r2 = h.play(runner, "S", ["5s"])
    sse2 = SSEClient(srv.host, srv.port, "/api/tables/1/stream", headers=cookie, last_event_id=last)
    got = [next_of(sse2, "update"), next_of(sse2, "update")]
    assert [m.id for m in got] == [str(r1.seq), str(r2.seq)]
    assert got[1].json()["state"]["deal"]["trick"]["plays"][-1]["cards"] == ["5s"]
    with pytest.raises(queue.Empty):
        sse2.get(timeout=0.3)  # and nothing else: no snapshot, no duplicates
    sse2.close()


def test_resume_from_unknown_id_gets_snapshot(app, client, runner, serve_app, h):
    h.setup_deal(runner)
    h.login(client, "vera")
    srv = serve_app(app)
    with SSEClient(srv.host, srv.port, "/api/tables/1/stream", headers={"Cookie": h.session_cookie(client)},
                   last_event_id="9999") as sse:
        snap = sse.get()
        assert snap.event == "snapshot" and snap.json()["state"]["last_seq"] == 3


def test_server_stop_ends_open_streams(app, client, runner, serve_app, h):
    h.login(client, "vera")
    srv = serve_app(app)
    sse = SSEClient(srv.host, srv.port, "/api/tables/1/stream", headers={"Cookie": h.session_cookie(client)})
    sse.get()
    srv.stop()
    sse._thread.join(5.0)
    assert not sse._thread.is_alive()  # the server closed the stream
    sse.close()


def test_serve_reports_bind_errors_and_stop_is_idempotent(app, serve_app):
    from table_service.web.server import serve

    srv = serve_app(app)
    with pytest.raises(OSError):
        serve(app, srv.host, srv.port)  # the port is taken
    assert srv.url == f"http://127.0.0.1:{srv.port}"
    srv.stop()
    srv.stop()


def test_start_is_the_one_call_for_the_service(runner, users_db, h):
    from table_service.web.server import start

    h.setup_deal(runner)
    handle = start({"7": runner}, host="127.0.0.1", port=0, settings={"USERS_DB": users_db})
    try:
        conn = http.client.HTTPConnection(handle.host, handle.port, timeout=5)
        conn.request("GET", "/feed/7/state.json")
        resp = conn.getresponse()
        assert resp.status == 200
        import json

        assert json.loads(resp.read())["state"]["players"] == h.PLAYERS
    finally:
        handle.stop()
        from table_service.web.tables import detach_table

        detach_table(handle.app, "7")


def test_streams_through_the_test_client(client, h, runner):
    """Both SSE endpoints answer text/event-stream with a snapshot first (no server needed)."""
    h.setup_deal(runner)
    h.login(client, "vera")
    for url in ("/api/tables/1/stream", "/feed/1/stream"):
        resp = client.get(url, buffered=False)
        assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
        assert resp.headers["Cache-Control"].startswith("no-")
        chunks = iter(resp.response)
        first = next(chunks)  # the retry time, then hello: the log served and the heartbeat
        assert first.startswith(b"retry: 1000\n\nevent: hello\n") and b'"heartbeat_s"' in first
        snap = next(chunks).decode()
        assert snap.startswith("id: 3\nevent: snapshot\n")
        if url.startswith("/api/"):  # the next event too: a server that cannot tell a client gone is no fault
            assert runner.submit({"type": "referee_called", "source": "panel", "role": "referee",
                                  "data": {"reason": "x"}}).accepted
            assert b"event: update" in next(chunks)
        resp.close()


def test_login_as_json_client(make_app, h):
    c = make_app().test_client()
    token = h.csrf_of(c)
    resp = c.post("/auth/login", data={"username": "chen", "password": h.PASSWORD, "csrf_token": token},
                  headers={"Accept": "application/json"})
    body = resp.get_json()
    assert resp.status_code == 200 and body["user"] == "chen" and body["role"] == "chief" and body["csrf_token"]
    bad = c.post("/auth/login", data={"username": "chen", "password": "nope", "csrf_token": token},
                 headers={"Accept": "application/json"})
    assert bad.status_code == 401 and "wrong" in bad.get_json()["error"]
