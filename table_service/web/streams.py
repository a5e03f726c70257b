"""Server-sent event responses: the streaming response, and whether its client has gone.

Shared by the panel's stream (``api``) and the public feed (``broadcast``); the server
(:mod:`table_service.web.server`) puts the "client gone" check into the WSGI environ under
:data:`CLIENT_GONE_KEY`.
"""

from __future__ import annotations

from typing import Any

from flask import Response, request

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
