"""The public broadcast feed: no login, read-only, delayed (see :mod:`table_service.views.feed`).

``/feed/<table>/state.json``, ``/feed/<table>/events.json``, ``/feed/<table>/stream`` (SSE),
``/feed/<table>/clock.json`` and ``/feed/<table>/overlay`` (an HTML page for an OBS browser source). Only GET exists here, so the
feed cannot change anything; CORS is open because broadcast tools load it from other origins.

``/feed/<table>/commentator`` is the one page here behind a login (a spectator's is enough): the
commentator's tablet, drawn from exactly the data above and nothing else, so it can never show
more than the broadcast does.

Every answer that carries the state says which log it comes from (``log``): seqs start again in
another log (a new day's, a replaced Pi's), and a page that kept the seq it showed would otherwise
ignore the new log's lower ones for ever.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify, make_response, render_template, request, url_for

from table_service.views.fanout import parse_last_event_id

from .api import _int_arg
from .auth import require_role
from .i18n import language_from_address
from .panel import table_clock
from .security import CSP, csp_nonce
from .streams import PING, client_gone, log_id_of, sse_response, stream_hello
from .tables import get_table, table_sort_key, web_state

bp = Blueprint("feed", __name__, url_prefix="/feed")


@bp.after_request
def _cors(resp: Response) -> Response:
    resp.headers["Access-Control-Allow-Origin"] = "*"
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/")
def index() -> Any:
    """Tables that have a feed, in the order people count them (2 before 10), with the delay and
    mode each applies, the addresses of its overlay and commentator page, and, for a table that
    holds deals for release, its latest release the public may know of (who made it — the hub or
    the chief — and when: :meth:`~table_service.views.feed.FeedView.last_release`)."""
    out: list[dict[str, Any]] = []
    for tid, e in sorted(web_state().tables.items(), key=lambda kv: table_sort_key(kv[0])):
        row: dict[str, Any] = {"id": tid, "delay_s": e.feed.delay_ms / 1000.0, "duplicate": e.feed.holds_deals(),
                               "overlay": url_for("feed.overlay", table_id=tid, lang="zh"),
                               "commentator": url_for("feed.commentator", table_id=tid)}
        last = e.feed.last_release()
        if last is not None:
            row["last_release"] = last
        out.append(row)
    return jsonify(tables=out)


@bp.get("/<table_id>/state.json")
def state(table_id: str) -> Any:
    """The public table as of now − delay, and the log it comes from."""
    entry = get_table(table_id)
    return jsonify(delay_s=entry.feed.delay_ms / 1000.0, log=log_id_of(entry.runner), state=entry.feed.state())


@bp.get("/<table_id>/events.json")
def events(table_id: str) -> Any:
    """Public events with ``seq > after`` that are already due (``log``: whose seqs they are)."""
    entry = get_table(table_id)
    after = _int_arg("after", 0, 0, 2**62)
    limit = _int_arg("limit", 500, 1, 5000)
    return jsonify(log=log_id_of(entry.runner), events=entry.feed.events(after=after, limit=limit))


@bp.get("/<table_id>/stream")
def stream(table_id: str) -> Response:
    """SSE: ``hello`` (the log, the heartbeat), a snapshot of the public state, then one ``update``
    per public event as it falls due, and a ``ping`` each idle heartbeat.

    All slots taken: ``503`` with ``Retry-After``. A browser's EventSource never retries an HTTP
    error by itself, so the pages' client (``static/common.js``) retries with backoff and reads
    ``state.json`` meanwhile; the header says when to for any other client.
    """
    entry = get_table(table_id)
    state = web_state()
    # Everything that can fail is done before a slot is taken: a request that errors out after
    # taking one would hold it forever (45 bad Last-Event-IDs once locked every viewer out).
    last = parse_last_event_id(request.headers.get("Last-Event-ID") or request.args.get("last_event_id"))
    heartbeat = float(current_app.config["SSE_HEARTBEAT_S"])
    hello = stream_hello(entry.runner, heartbeat)
    gone = client_gone()
    client = request.remote_addr or ""
    if not state.acquire_feed_stream(int(current_app.config["FEED_MAX_STREAMS"]), client):
        resp = jsonify(error="直播连接已满，请稍后再试或轮询 state.json / too many feed streams open; "
                             "retry later or poll state.json", status=503)
        resp.status_code = 503
        resp.headers["Retry-After"] = "5"
        return resp
    try:
        entry.feed.pump()
        resp = sse_response(entry.feed.broadcaster.stream(last, heartbeat, state.stop, gone,
                                                          hello=hello, keepalive=PING))
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
    the current trick, flag and ruling pop-ups, the delay mark. ``?lang=en`` for English, Chinese
    otherwise: never the ``lang`` cookie, which every OBS browser source shares."""
    entry = get_table(table_id)
    language_from_address()
    return render_template("overlay.html", table_id=table_id, delay_s=entry.feed.delay_ms / 1000.0)


@bp.get("/<table_id>/commentator")
@require_role("spectator")
def commentator(table_id: str) -> Any:
    """解说 / Commentator: the commentator's tablet or phone view of one table, from the delayed
    public feed only (the same stream, state and clock as the overlay: what the audience will see,
    never the live table), so a commentator's login needs no more than a spectator's.

    Behind a login, so it is not framed as the overlay may be (its own policy, not the feed's)."""
    entry = get_table(table_id)
    resp = make_response(render_template("commentator.html", table_id=table_id,
                                         delay_s=entry.feed.delay_ms / 1000.0))
    resp.headers["Content-Security-Policy"] = CSP.format(nonce=csp_nonce(), frames="'none'", styles="'self'")
    resp.headers["X-Frame-Options"] = "DENY"
    return resp
