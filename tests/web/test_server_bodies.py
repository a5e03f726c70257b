"""A request body the app answers without reading never spills into the next request on the
connection (the real cheroot server, raw sockets): it came back as cheroot's own
plain-text "400 Malformed Request-Line" to the next request (the hub's fuzz run met that answer once)."""

from __future__ import annotations

import re
import socket
from typing import Any


def _exchange(handle: Any, first: bytes, second: bytes | None) -> bytes:
    """Send ``first`` (and ``second`` once the first answer has begun) on one connection; all it
    answers until the server closes or goes quiet."""
    with socket.create_connection((handle.host, handle.port), timeout=5) as s:
        s.sendall(first)
        got = s.recv(65536)
        if second is not None:
            try:
                s.sendall(second)
            except OSError:  # already closed: nothing of the second request was taken
                return got
        s.settimeout(1.0)
        try:
            while chunk := s.recv(65536):
                got += chunk
        except (TimeoutError, ConnectionResetError):
            pass
        return got


def _statuses(raw: bytes) -> list[str]:
    return [m.decode() for m in re.findall(rb"HTTP/1\.1 (\d{3}) ", raw)]  # an answer's body ends without a newline


def test_an_unread_chunked_body_closes_the_connection_instead_of_becoming_the_next_request(
        make_app: Any, serve_app: Any) -> None:
    handle = serve_app(make_app())
    refused = (b"POST /nowhere HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n"
               b"Content-Type: application/x-www-form-urlencoded\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
    raw = _exchange(handle, refused, b"GET /auth/whoami HTTP/1.1\r\nHost: t\r\n\r\n")
    assert _statuses(raw) == ["404"], raw[:300]
    assert b"Connection: close" in raw and b"Malformed" not in raw


def test_a_read_chunked_body_keeps_the_connection(make_app: Any, serve_app: Any) -> None:
    handle = serve_app(make_app())
    login = (b"POST /auth/login HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n"
             b"Content-Type: application/x-www-form-urlencoded\r\n\r\n5\r\na=b&c\r\n0\r\n\r\n")
    raw = _exchange(handle, login, b"GET /auth/whoami HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    assert _statuses(raw) == ["400", "200"], raw[:300]  # no CSRF token; then the next request, answered


def test_an_unread_body_the_app_would_accept_is_drained_and_a_huge_one_is_not_waited_for(make_app: Any, serve_app: Any) -> None:
    app = make_app()
    handle = serve_app(app)
    body = b"x" * 100
    small = (b"POST /nowhere HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\n"
             b"Content-Length: 100\r\n\r\n" + body)
    raw = _exchange(handle, small, b"GET /auth/whoami HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
    assert _statuses(raw) == ["404", "200"], raw[:300]
    # A client that claims a gigabyte and sends a little: answered at once, and the connection
    # closed rather than read to the end (cheroot would read the rest into memory).
    huge = (b"POST /nowhere HTTP/1.1\r\nHost: t\r\nContent-Type: application/x-www-form-urlencoded\r\n"
            b"Content-Length: %d\r\n\r\n" % (2**30) + b"x" * 1000)
    assert int(app.config["MAX_CONTENT_LENGTH"]) < 2**30
    raw = _exchange(handle, huge, None)
    assert _statuses(raw) in (["404"], ["413"]) and b"Connection: close" in raw, raw[:300]


def _action(headers: bytes, body: bytes) -> bytes:
    return (b"POST /api/tables/1/actions HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\n" + headers
            + b"\r\n" + body)


def test_a_chunked_body_over_the_limit_is_refused_not_cut(make_app: Any, serve_app: Any) -> None:
    """A chunked body is held to the same limit as one with a Content-Length: a 200 KB action was cut
    at 64 KiB by werkzeug and then applied (or answered "JSON invalid" for a body nobody wrote)."""
    app = make_app()
    handle = serve_app(app)
    limit = int(app.config["MAX_CONTENT_LENGTH"])
    body = b'{"type":"passed","data":{"seat":"N"}}' + b" " * (3 * limit)
    chunked = b"%x\r\n" % len(body) + body + b"\r\n0\r\n\r\n"
    raw = _exchange(handle, _action(b"Transfer-Encoding: chunked\r\n", chunked), None)
    assert _statuses(raw) == ["413"], raw[:300]
    assert "请求内容过大".encode() in raw
    # Under the limit, chunked is read whole (the login check answers: no session here).
    small = b'{"type":"passed","data":{"seat":"N"}}'
    raw = _exchange(handle, _action(b"Transfer-Encoding: chunked\r\n", b"%x\r\n" % len(small) + small + b"\r\n0\r\n\r\n"),
                    None)
    assert _statuses(raw) == ["400"] and b"CSRF" in raw, raw[:600]  # read whole: the next check (CSRF) answers


def test_a_body_whose_length_two_headers_state_is_refused(make_app: Any, serve_app: Any) -> None:
    """Two Content-Length headers (cheroot took the last), or Content-Length beside chunked: a proxy
    in front may read the other, and the same bytes are two requests. 400, connection closed."""
    handle = serve_app(make_app())
    body = b'{"type":"passed","data":{"seat":"N"}}'
    for headers in (b"Content-Length: 5\r\nContent-Length: %d\r\n" % len(body),
                    b"Content-Length: %d\r\nContent-Length: 3\r\n" % len(body),
                    b"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n" % len(body)):
        raw = _exchange(handle, _action(headers, body), b"GET /auth/whoami HTTP/1.1\r\nHost: t\r\n\r\n")
        assert _statuses(raw) == ["400"], (headers, raw[:300])
        assert b"Content-Length" in raw
