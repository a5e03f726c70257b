"""The public board's and standings' JSON are kept once per change of the hub, answered with an ETag
(``304`` to a poll that names it) and gzipped for a client that accepts it (event/polled.py): the
s39 audit saw 120 phones polling a board made afresh each time slow the chief's pages to 1–3 s.
A kept board that outlives a change would be a defect: each change a board shows is tested here."""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_hub_core import Clock, event_cfg, line_for

from table_service.event.hub import HubService
from table_service.event.web import create_hub_app


@pytest.fixture
def board(tmp_path: Path) -> Iterator[tuple[HubService, Any, Clock]]:
    """A hub with round 1 published (4 teams, 2 tables), its public pages' client and its clock."""
    clock = Clock()
    hub = HubService(event_cfg(n=4, rounds=2), tmp_path, clock_ms=clock, connect=False)
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    yield hub, create_hub_app(hub, users_db=str(tmp_path / "users.sqlite3")).test_client(), clock
    hub.stop()


def finished(client: Any) -> dict[str, bool]:
    return {t["table"]: t["finished"] for t in client.get("/hub/api/board").get_json()["tables"]}


@pytest.mark.parametrize("path", ["/hub/api/board", "/hub/api/standings"])
def test_a_poll_naming_the_etag_gets_304_until_a_result_is_recorded(board: Any, path: str) -> None:
    hub, client, _clock = board
    first = client.get(path)
    tag = first.headers["ETag"]
    assert first.status_code == 200 and tag and first.headers["Cache-Control"] == "no-cache"
    again = client.get(path, headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.data == b"" and again.headers["ETag"] == tag
    assert client.get(path, headers={"If-None-Match": 'W/"another"'}).status_code == 200
    for i, t in enumerate(hub.core.draws[1]["tables"]):
        hub.hand_result(line_for(t, 1, 3 + i, 1), "rita", "referee")
    hub.publish_results(1, "org", "chief")
    after = client.get(path, headers={"If-None-Match": tag})
    assert after.status_code == 200 and after.headers["ETag"] != tag
    assert after.get_json() != first.get_json()


def test_the_board_shows_a_result_the_moment_it_is_recorded(board: Any) -> None:
    """Kept per version of the hub: the poll right after a result is logged shows it."""
    hub, client, _clock = board
    t1, t2 = hub.core.draws[1]["tables"]
    assert finished(client) == {t1["table"]: False, t2["table"]: False}
    hub.hand_result(line_for(t1, 1, 5, 2), "rita", "referee")
    assert finished(client) == {t1["table"]: True, t2["table"]: False}
    msg = json.dumps({"result_id": "r1-s9", "result": line_for(t2, 1, 2, 5), "wall_ms": hub.clock_ms()}).encode()
    hub.handle_batch([(t2["table"], "result", msg, False)])  # a table's own result, over MQTT
    assert finished(client) == {t1["table"]: True, t2["table"]: True}


def test_the_board_shows_a_table_going_online(board: Any) -> None:
    """Who is online is no logged event: a table's status message makes the board again."""
    hub, client, clock = board
    t1 = hub.core.draws[1]["tables"][0]["table"]
    online = {t["table"]: t["online"] for t in client.get("/hub/api/board").get_json()["tables"]}
    assert online[t1] is None
    status = {"table": t1, "event": hub.event_id, "status": "online", "wall_ms": clock.now}
    hub.handle_batch([(t1, "status", json.dumps(status).encode(), False)])
    online = {t["table"]: t["online"] for t in client.get("/hub/api/board").get_json()["tables"]}
    assert online[t1] is True


def test_a_delayed_result_goes_public_by_the_clock_alone(board: Any) -> None:
    """Nothing is logged when a table's delayed broadcast reaches its last deal: the kept board is
    made again at that moment (``HubState.next_public_ms``)."""
    hub, client, clock = board
    t1 = hub.core.draws[1]["tables"][0]
    msg = json.dumps({"result_id": "r1-s9", "result": line_for(t1, 1, 9, 4), "wall_ms": clock.now,
                      "feed_delay_s": 60}).encode()
    hub.handle_batch([(t1["table"], "result", msg, False)])
    tag = client.get("/hub/api/board").headers["ETag"]
    assert finished(client)[t1["table"]] is False
    clock.now += 59_999
    assert client.get("/hub/api/board", headers={"If-None-Match": tag}).status_code == 304
    clock.now += 1
    assert finished(client)[t1["table"]] is True


def test_gzip_only_for_a_client_that_accepts_it(board: Any) -> None:
    _hub, client, _clock = board
    plain = client.get("/hub/api/board")
    assert "Content-Encoding" not in plain.headers and plain.get_json()["round"] == 1
    assert "Accept-Encoding" in plain.headers["Vary"]
    zipped = client.get("/hub/api/board", headers={"Accept-Encoding": "gzip, deflate, br"})
    assert zipped.headers["Content-Encoding"] == "gzip" and zipped.headers["ETag"] == plain.headers["ETag"]
    assert json.loads(gzip.decompress(zipped.data)) == plain.get_json()
    refused = client.get("/hub/api/board", headers={"Accept-Encoding": "gzip;q=0, identity"})
    assert "Content-Encoding" not in refused.headers and refused.get_json() == plain.get_json()
    assert "Content-Encoding" not in client.get("/hub/api/board", headers={"Accept-Encoding": "br"}).headers


@pytest.mark.parametrize("path", ["/hub/api/overview", "/hub/api/broadcast"])
def test_the_chiefs_polled_json_is_gzipped_when_accepted(tmp_path: Path, path: str) -> None:
    """The chief's overview and the producers' page (made for each poll: they carry the hub's clock
    and the tables' live counts) go gzipped to a tablet that accepts it, as they are otherwise."""
    from test_hub_web import app_with_users, login

    hub = HubService(event_cfg(n=4, rounds=2), tmp_path / "hub", connect=False)
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    client = app_with_users(hub, tmp_path).test_client()
    login(client, "vera")
    plain = client.get(path)
    zipped = client.get(path, headers={"Accept-Encoding": "gzip"})
    assert "Content-Encoding" not in plain.headers and zipped.headers["Content-Encoding"] == "gzip"
    got, want = json.loads(gzip.decompress(zipped.data)), plain.get_json()
    got.pop("now_ms", None), want.pop("now_ms", None)
    assert got == want and [t["table"] for t in got["tables"]] == [t["table"] for t in hub.core.draws[1]["tables"]]
    hub.stop()


def test_the_organiser_pages_poll_is_the_logs_last_seq_alone(tmp_path: Path) -> None:
    """The organiser page asked the whole overview (~90 KB at 200 tables) every 5 s for its
    ``last_seq`` alone: ``/hub/api/last-seq`` answers just that, ``304`` until the log moves, and
    ungzipped (gzip makes its 17 bytes 37); a script logged out gets 401 JSON, not the login page."""
    from test_hub_web import app_with_users, login

    hub = HubService(event_cfg(n=4, rounds=2), tmp_path / "hub", connect=False)
    hub.draw_next("org", "chief")
    hub.publish_draw(1, "org", "chief")
    client = app_with_users(hub, tmp_path).test_client()
    out = client.get("/hub/api/last-seq")
    assert out.status_code == 401 and out.get_json()["status"] == 401
    login(client, "vera")
    first = client.get("/hub/api/last-seq", headers={"Accept-Encoding": "gzip"})
    assert first.get_json() == {"last_seq": hub.core.last_seq} and "Content-Encoding" not in first.headers
    assert first.get_json()["last_seq"] == client.get("/hub/api/overview").get_json()["last_seq"]
    tag = first.headers["ETag"]
    assert client.get("/hub/api/last-seq", headers={"If-None-Match": tag}).status_code == 304
    hub.hand_result(line_for(hub.core.draws[1]["tables"][0], 1, 3, 1), "rita", "referee")
    moved = client.get("/hub/api/last-seq", headers={"If-None-Match": tag})
    assert moved.status_code == 200 and moved.get_json()["last_seq"] > first.get_json()["last_seq"]
    hub.stop()
