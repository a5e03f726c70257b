"""The public broadcast feed: no login, read-only, delayed (see :mod:`table_service.views.feed`).

``/feed/<table>/state.json``, ``/feed/<table>/events.json``, ``/feed/<table>/stream`` (SSE),
``/feed/<table>/clock.json`` and ``/feed/<table>/overlay`` (an HTML page for an OBS browser source). Only GET exists here, so the
feed cannot change anything; CORS is open because broadcast tools load it from other origins.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request

from table_service.views.fanout import parse_last_event_id

from .api import _int_arg
from .panel import table_clock
from .streams import client_gone, sse_response
from .tables import get_table, web_state

bp = Blueprint("feed", __name__, url_prefix="/feed")


@bp.after_request
def _cors(resp: Response) -> Response:
    resp.headers["Access-Control-Allow-Origin"] = "*"
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/")
def index() -> Any:
    """Tables that have a feed, with the delay and mode each applies, and, for a table that holds
    deals for release, its latest release the public may know of (who made it — the hub or the
    chief — and when: :meth:`~table_service.views.feed.FeedView.last_release`)."""
    out: list[dict[str, Any]] = []
    for tid, e in sorted(web_state().tables.items()):
        row: dict[str, Any] = {"id": tid, "delay_s": e.feed.delay_ms / 1000.0, "duplicate": e.feed.holds_deals()}
        last = e.feed.last_release()
        if last is not None:
            row["last_release"] = last
        out.append(row)
    return jsonify(tables=out)


@bp.get("/<table_id>/state.json")
def state(table_id: str) -> Any:
    """The public table as of now − delay."""
    entry = get_table(table_id)
    return jsonify(delay_s=entry.feed.delay_ms / 1000.0, state=entry.feed.state())


@bp.get("/<table_id>/events.json")
def events(table_id: str) -> Any:
    """Public events with ``seq > after`` that are already due."""
    entry = get_table(table_id)
    after = _int_arg("after", 0, 0, 2**62)
    limit = _int_arg("limit", 500, 1, 5000)
    return jsonify(events=entry.feed.events(after=after, limit=limit))


@bp.get("/<table_id>/stream")
def stream(table_id: str) -> Response:
    """SSE: a snapshot of the public state, then one ``update`` per public event as it falls due."""
    entry = get_table(table_id)
    state = web_state()
    # Everything that can fail is done before a slot is taken: a request that errors out after
    # taking one would hold it forever (45 bad Last-Event-IDs once locked every viewer out).
    last = parse_last_event_id(request.headers.get("Last-Event-ID") or request.args.get("last_event_id"))
    heartbeat = float(current_app.config["SSE_HEARTBEAT_S"])
    gone = client_gone()
    client = request.remote_addr or ""
    if not state.acquire_feed_stream(int(current_app.config["FEED_MAX_STREAMS"]), client):
        abort(503, description="直播连接已满，请稍后再试或轮询 state.json / too many feed streams open; "
                               "retry later or poll state.json")
    try:
        entry.feed.pump()
        resp = sse_response(entry.feed.broadcaster.stream(last, heartbeat, state.stop, gone))
    except BaseException:
        state.release_feed_stream(client)
        raise
    resp.call_on_close(lambda: state.release_feed_stream(client))  # runs even if the stream never started
    return resp


@bp.get("/<table_id>/clock.json")
def clock(table_id: str) -> Any:
    """The public clock: ``now_ms`` is the table time the public state shows (now − delay), so the
    overlay counts a seat's countdown down as it ran then; ``speed`` is table ms per wall ms."""
    entry = get_table(table_id)
    _fn, speed = table_clock(entry)
    return jsonify(now_ms=int(entry.feed.cutoff_ms()), speed=speed, delay_s=entry.feed.delay_ms / 1000.0)


@bp.get("/<table_id>/overlay")
def overlay(table_id: str) -> Any:
    """Overlay page for OBS (1920×1080 browser source, transparent): seat plates, score bug,
    the current trick, flag and ruling pop-ups, the delay mark. ``?lang=en`` for English."""
    entry = get_table(table_id)
    return render_template("overlay.html", table_id=table_id, delay_s=entry.feed.delay_ms / 1000.0)
