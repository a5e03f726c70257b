"""The server stops in bounded time whatever its clients do (the real cheroot server, raw sockets).

``guandan-table hub`` hung once after one Ctrl-C: cheroot's own stop waits for a worker still
writing an answer with no limit, and a phone reading slowly (poor Wi-Fi) keeps that write going for
as long as there is answer left; and its workers were threads Python waits for at exit, so even a
stop that gave up left the process. ``web.server._BoundedPool`` cuts such a connection after
``SHUTDOWN_GRACE_S`` and gives up on its worker after ``CUT_GRACE_S``; the table's panel (``run``,
``demo --panel``) stops through the same code."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Iterator
from typing import Any

from table_service.web.server import CUT_GRACE_S, SHUTDOWN_GRACE_S

#: A hang, not a timing: the stop takes SHUTDOWN_GRACE_S + a moment here.
HANG_S = 20


def test_a_stop_cuts_an_answer_a_slow_client_is_still_reading(make_app: Any, serve_app: Any) -> None:
    app = make_app()

    @app.get("/long")
    def long() -> Iterator[bytes]:  # a long answer (a big board on poor Wi-Fi, compressed into one test)
        return (b"x" * 65536 for _ in range(100_000))

    handle = serve_app(app)
    workers = [t for t in threading.enumerate() if t.name.startswith("CP Server")]
    assert workers and all(t.daemon for t in workers), "a worker Python waits for at exit"
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.settimeout(5)
    with client:
        client.connect((handle.host, handle.port))
        client.sendall(b"GET /long HTTP/1.1\r\nHost: t\r\n\r\n")
        assert client.recv(4096).startswith(b"HTTP/1.1 200")
        stopping = threading.Thread(target=handle.stop, daemon=True)
        started = time.monotonic()
        stopping.start()
        client.settimeout(0.05)
        while stopping.is_alive() and time.monotonic() - started < HANG_S:
            stopping.join(0.05)  # the client reads on, 4 KB a 50 ms, while the server stops
            with contextlib.suppress(TimeoutError):
                client.recv(4096)
        took = time.monotonic() - started
        assert not stopping.is_alive(), f"the stop still waits after {HANG_S} s for a worker writing to a slow client"
        assert _ends(client), "the answer was not cut: its worker writes on"
    assert SHUTDOWN_GRACE_S * 0.9 <= took < SHUTDOWN_GRACE_S + CUT_GRACE_S + 5  # its grace, then cut


def _ends(client: socket.socket) -> bool:
    """True when what is left on ``client`` ends (closed or reset) within a few seconds."""
    client.settimeout(5)
    try:
        while client.recv(65536):
            pass
    except TimeoutError:
        return False
    except OSError:
        pass
    return True
