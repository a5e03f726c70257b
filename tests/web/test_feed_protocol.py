"""What the public feed's answers carry for the pages that follow them (s37 producer's audit):
the identity of the table's log (seqs start again in another log), the streams' ``hello`` and
``ping``, a refusal a client can retry, tables in the order people count them, the overlay's
language from its address alone, and the commentator page's login and framing."""

from __future__ import annotations

import json
import re

from table_service.table.runner import TableRunner
from table_service.web.sseclient import SSEClient
from table_service.web.tables import table_sort_key


def test_each_log_has_its_own_identity_kept_with_it(tmp_path):
    with TableRunner(tmp_path / "a.sqlite3") as a, TableRunner(tmp_path / "b.sqlite3") as b:
        first = a.log_id
        assert re.fullmatch(r"[0-9]{16}", first) and b.log_id != first  # digits: never reads as a card
    with TableRunner(tmp_path / "a.sqlite3") as again:
        assert again.log_id == first  # a restart on the same file is the same log


def test_state_and_events_say_which_log_they_come_from(make_app, runner, h):
    c = make_app(TABLES={"1": runner}).test_client()
    h.setup_deal(runner)
    assert c.get("/feed/1/state.json").get_json()["log"] == runner.log_id
    body = c.get("/feed/1/events.json").get_json()
    assert body["log"] == runner.log_id and [e["seq"] for e in body["events"]] == [1, 2, 3]


def test_both_streams_open_with_hello_and_ping_when_idle(make_app, runner, serve_app, h):
    app = make_app(TABLES={"1": runner}, SSE_HEARTBEAT_S=0.2)
    h.setup_deal(runner)
    srv = serve_app(app)
    client = app.test_client()
    h.login(client, "vera")
    cookie = {"Cookie": h.session_cookie(client)}
    for path, headers in (("/feed/1/stream", {}), ("/api/tables/1/stream", cookie)):
        with SSEClient(srv.host, srv.port, path, headers=headers, control=True) as sse:
            hello = sse.get(10)
            assert hello.event == "hello" and hello.json() == {"log": runner.log_id, "heartbeat_s": 0.2}, path
            assert sse.get(10).event == "snapshot"
            assert sse.get(10).event == "ping"  # a named event: a page sees it, as it never sees a comment
        with SSEClient(srv.host, srv.port, path, headers=headers) as plain:  # a tool reading the data: as before
            assert plain.get(10).event == "snapshot"


def test_a_refused_stream_says_when_to_retry(make_app, runner, serve_app):
    app = make_app(TABLES={"1": runner}, FEED_MAX_STREAMS=1, SERVER_THREADS=8)
    srv = serve_app(app)
    with SSEClient(srv.host, srv.port, "/feed/1/stream") as held:
        assert held.status == 200
        refused = SSEClient(srv.host, srv.port, "/feed/1/stream")
        try:
            assert refused.status == 503 and refused._resp.getheader("Retry-After") == "5"
        finally:
            refused.close()


def test_tables_in_the_order_people_count_them(make_app, make_runner, h):
    ids = ["10", "2", "1", "1B", "1A", "11"]
    app = make_app(TABLES={tid: make_runner(f"t{tid}") for tid in ids})
    c = app.test_client()
    want = ["1", "1A", "1B", "2", "10", "11"]
    assert [t["id"] for t in c.get("/feed/").get_json()["tables"]] == want
    assert sorted(ids, key=table_sort_key) == want and sorted(["²", "2"], key=table_sort_key) == ["2", "²"]
    h.login(c, "vera")
    page = c.get("/").get_data(as_text=True)
    assert re.findall(r'href="/tables/([^"]+)" class="table-link"', page) == want


def test_the_overlay_takes_its_language_from_its_address_never_the_cookie(client):
    """OBS's browser sources share one cookie store: a producer who once clicked English on a panel
    got English overlays on air."""
    client.set_cookie("lang", "en")
    zh = client.get("/feed/1/overlay").get_data(as_text=True)
    assert 'window.LANG = "zh"' in zh and '<html lang="zh-CN">' in zh
    assert 'window.LANG = "en"' in client.get("/feed/1/overlay?lang=en").get_data(as_text=True)
    # A page a person reads keeps the cookie's choice.
    assert 'window.LANG = "en"' in client.get("/auth/login").get_data(as_text=True)


def test_the_commentator_page_needs_a_spectators_login_and_is_not_framed(make_app, runner, users_db, h):
    from table_service.web import users

    conn = users.connect(users_db)
    users.add_user(conn, "sam", "spectator-pw-1", "spectator")
    conn.close()
    app = make_app(TABLES={"1": runner}, FEED_DELAY_S=30)
    anon = app.test_client()
    r = anon.get("/feed/1/commentator")
    assert r.status_code == 302 and "/auth/login" in r.location
    for name, password in (("sam", "spectator-pw-1"), ("vera", h.PASSWORD)):
        c = app.test_client()
        h.login(c, name, password)
        r = c.get("/feed/1/commentator")
        assert r.status_code == 200 and "解说" in r.get_data(as_text=True)
        assert r.headers["X-Frame-Options"] == "DENY" and "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
        assert 'data-stream="/feed/1/stream"' in r.get_data(as_text=True)
        index = c.get("/").get_data(as_text=True)
        assert 'href="/feed/1/commentator"' in index and 'href="/feed/1/overlay?lang=zh"' in index
    assert "frame-ancestors *" in anon.get("/feed/1/overlay").headers["Content-Security-Policy"]
    assert json.loads(anon.get("/feed/").get_data())["tables"][0]["commentator"] == "/feed/1/commentator"
