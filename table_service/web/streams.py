"""Server-sent event responses: the streaming response, and whether its client has gone.

Shared by the panel's stream (``api``) and the public feed (``broadcast``); the server
(:mod:`table_service.web.server`) puts the "client gone" check into the WSGI environ under
:data:`CLIENT_GONE_KEY`.

Both streams open with a ``hello`` event (the log's identity and the heartbeat) and keep alive
with a ``ping`` event, not a comment: a browser hides comments from its page, so a page could not
tell a quiet table from a stream gone dead (a half-open connection, a hung Pi), nor a restarted
service's new log, whose seqs start again, from the one it was showing (``static/common.js``).
"""

from __future__ import annotations

from typing import Any

from flask import Response, request

from table_service.views.fanout import sse_message

#: WSGI environ key of a callable that tells whether the client closed its connection.
CLIENT_GONE_KEY = "guandan.client_gone"


def client_gone() -> Any:
    """The server's "has this client closed its connection?" check, or None (test client, other
    servers: the stream then notices at its next write)."""
    return request.environ.get(CLIENT_GONE_KEY)


def sse_response(stream: Any) -> Response:
    """Wrap an SSE byte iterator as a streaming response that proxies will not buffer."""
    resp = Response(stream, mimetype="text/event-stream")
    resp.headers["Cache-Control"] = "no-cache"
    resp.headers["X-Accel-Buffering"] = "no"
    return resp


#: An idle stream's keep-alive, as an event the page sees (its watchdog: no message for several
#: heartbeats means the stream is dead, and the page reconnects).
PING = sse_message({}, event="ping")


def log_id_of(runner: Any) -> str | None:
    """The identity of the log a table's runner writes (None where the runner keeps none)."""
    value = getattr(runner, "log_id", None)
    return value if isinstance(value, str) else None


def stream_hello(runner: Any, heartbeat_s: float) -> bytes:
    """The ``hello`` a stream opens with: which log it serves (``log``; a page showing another
    log's state starts again, as a seq there means nothing here) and how often it pings
    (``heartbeat_s``; the page reconnects when several go by with nothing)."""
    return sse_message({"log": log_id_of(runner), "heartbeat_s": heartbeat_s}, event="hello")
