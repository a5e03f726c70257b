"""Serving the app with cheroot, in-process, on a background thread.

cheroot (the CherryPy WSGI server) is a production, pure-Python, thread-pool HTTP/1.1 server. It is
chosen because it streams: each chunk a WSGI iterable yields is written and flushed to the socket at
once (chunked transfer encoding), which is what Server-Sent Events need. It runs inside the table
service's own process, so the web handlers can reach the TableRunner directly (no IPC), and it has
no C dependencies, so it installs the same on a Pi and on a laptop. Every open SSE stream holds one
worker thread; ``SERVER_THREADS`` sizes the pool (default 80: 50 panels/feeds plus requests).
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from cheroot import server as cheroot_server
from cheroot import wsgi
from cheroot.workers import threadpool
from flask import Flask

from .app import create_app
from .streams import CLIENT_GONE_KEY
from .tables import attach_table, web_state


def _peer_closed(sock: Any) -> bool:
    """True when the peer has closed ``sock`` (readable, and a peek reads end-of-file).

    Never consumes data: a client that sent more bytes (pipelining) is simply still there.
    """
    try:
        readable, _, _ = select.select([sock], [], [], 0)
        return bool(readable) and sock.recv(1, socket.MSG_PEEK) == b""
    except ValueError:  # a TLS socket cannot peek: leave it to the next write
        return False
    except OSError:  # reset or already closed
        return True


class _Gateway(wsgi.Gateway_10):
    """cheroot's WSGI 1.0 gateway, plus :data:`CLIENT_GONE_KEY` in the environ.

    A Server-Sent-Events stream otherwise learns that its client left only when a write fails
    (the next event or keep-alive, up to ``SSE_HEARTBEAT_S`` later), holding a worker thread and,
    on the public feed, one of the capped stream slots all that time.
    """

    def start_response(self, status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
        """Close the connection after this answer when the request's body was left unread.

        Why: an answer given before the body is read (a refusal, a 404) leaves it on the socket.
        cheroot drains a body of known length, but all of it, into memory, however large the
        client claims it is; and a chunked body it does not drain at all, so its next bytes are
        parsed as the next request on the connection and answered with cheroot's own plain-text
        "400 Malformed Request-Line" (what the hub's fuzz run once met). Closing loses nothing: the
        answer is sent first, and a client opens a new connection for its next request. A body no
        larger than the app accepts (``MAX_CONTENT_LENGTH``) is still drained, as HTTP/1.1 asks."""
        rfile = self.req.rfile
        accepted = int(self.req.server.wsgi_app.config.get("MAX_CONTENT_LENGTH") or 0)
        unread = (not getattr(rfile, "closed", True)) if self.req.chunked_read else getattr(rfile, "remaining", 0) > accepted
        if unread:
            self.req.close_connection = True
        return super().start_response(status, headers, exc_info)

    def get_environ(self) -> dict[str, Any]:
        env = super().get_environ()
        sock = getattr(self.req.conn, "socket", None)
        if sock is not None:
            env[CLIENT_GONE_KEY] = lambda: _peer_closed(sock)
        return env


class _OneLength(dict):  # type: ignore[type-arg]
    """The request's headers as cheroot reads them, refusing a second ``Content-Length``."""

    def __setitem__(self, key: bytes, value: bytes) -> None:
        if key == b"Content-Length" and key in self:
            raise ValueError("Content-Length given twice")  # cheroot's plain answer: Latin-1 only
        super().__setitem__(key, value)


class _StrictHeaderReader(cheroot_server.HeaderReader):
    """cheroot's header reader, refusing a body whose length two headers state differently.

    Why: cheroot keeps the last of two ``Content-Length`` headers and takes ``Content-Length`` beside
    ``Transfer-Encoding: chunked`` as it comes, where a proxy in front may read the other one: the
    same bytes are then two different requests (request smuggling). Both are a 400 (cheroot's
    reader says the ``ValueError``), and the connection is closed."""

    def __call__(self, rfile: Any, hdict: Any = None) -> Any:
        strict = super().__call__(rfile, _OneLength())
        if b"Content-Length" in strict and b"Transfer-Encoding" in strict:
            raise ValueError("Content-Length with Transfer-Encoding")
        if hdict is None:
            return strict
        hdict.update(strict)
        return hdict


log = logging.getLogger(__name__)

#: Seconds a stop gives the workers to finish the answer they are writing (cheroot's ``shutdown_timeout``),
#: then seconds it gives a worker whose connection it has cut to notice; the workers still busy after
#: both are left to end with the process (they are daemon threads). A stop so takes at most their sum.
SHUTDOWN_GRACE_S = 2.0
CUT_GRACE_S = 1.0


class _BoundedPool(threadpool.ThreadPool):
    """cheroot's worker pool, with daemon workers and a stop that waits a bounded time.

    Why: ``guandan-table hub`` once hung after one Ctrl-C (a hall full of polling phones). cheroot's
    own stop waits ``shutdown_timeout`` for each busy worker, then shuts its connection for *reading*
    only and waits for the worker with no limit: a worker writing to a phone that reads slowly (a
    request mid-write, 33 KB of board to a phone on poor Wi-Fi) writes on, each ``send`` under its own
    10 s socket timeout, for as long as the phone keeps reading. And its workers are not daemon
    threads, so even a stop that gave up would have left Python waiting for them at exit. Here the
    connection of a worker still busy after the grace is shut both ways (a blocked ``send`` then
    fails at once), and a worker that even so goes on is left behind: a daemon thread ends with the
    process, and what it was answering is a page view, never a state change (the event log commits
    each event before its answer is written)."""

    def _spawn_worker(self) -> threadpool.WorkerThread:
        worker = threadpool.WorkerThread(self.server)
        worker.name = f"CP Server {worker.name}"
        worker.daemon = True
        worker.start()
        return worker

    def stop(self, timeout: float | None = SHUTDOWN_GRACE_S) -> None:
        workers, self._threads[:] = [w for w in self._threads if w is not threading.current_thread()], []
        for _worker in workers:
            self._queue.put(threadpool._SHUTDOWNREQUEST)
        grace = SHUTDOWN_GRACE_S if timeout is None or timeout < 0 else timeout
        _join_all(workers, grace)
        busy = [w for w in workers if w.is_alive()]
        for worker in busy:
            _cut(worker.conn)
        _join_all(busy, CUT_GRACE_S)
        left = sum(w.is_alive() for w in busy)
        if left:
            log.warning("网页服务停止时 %d 个工作线程仍未结束，随进程退出 / %d web worker thread(s) still busy at stop, "
                        "left to end with the process", left, left)


def _join_all(threads: list[threading.Thread], seconds: float) -> None:
    """Wait for ``threads`` at most ``seconds`` in all (not each)."""
    deadline = time.monotonic() + seconds
    for thread in threads:
        thread.join(max(0.0, deadline - time.monotonic()))


def _cut(conn: Any) -> None:
    """Shut ``conn``'s socket both ways: a worker blocked reading or writing it wakes with an error."""
    sock = getattr(conn, "socket", None)
    if sock is not None:
        with contextlib.suppress(OSError, TypeError):
            sock.shutdown(socket.SHUT_RDWR)


class _Request(cheroot_server.HTTPRequest):
    header_reader = _StrictHeaderReader()


class _Connection(cheroot_server.HTTPConnection):
    RequestHandlerClass = _Request


@dataclass
class ServerHandle:
    """A running server. ``stop()`` ends open streams, then the server; it is idempotent."""

    app: Flask
    host: str
    port: int
    _server: wsgi.Server = field(repr=False)
    _thread: threading.Thread = field(repr=False)
    _stopped: bool = field(default=False, repr=False)

    @property
    def url(self) -> str:
        """Base URL, e.g. ``http://127.0.0.1:8080`` (IPv6 hosts are bracketed)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}"

    def stop(self, timeout: float = 5.0) -> None:
        """Close every SSE stream, stop accepting, and wait for the server thread: in bounded time
        (:class:`_BoundedPool`), whatever the clients do, so one Ctrl-C is enough."""
        if self._stopped:
            return
        self._stopped = True
        web_state(self.app).begin_shutdown()
        self._server.stop()
        self._thread.join(timeout)

    def __enter__(self) -> ServerHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def serve(app: Flask, host: str = "127.0.0.1", port: int = 8080) -> ServerHandle:
    """Start serving ``app`` with cheroot on a daemon thread and return once the socket listens.

    ``port=0`` picks a free port (tests); the handle's ``port`` is the real one.

    :raises OSError: when the address cannot be bound (port in use, bad host).
    """
    web_state(app).stop.clear()  # an app served again after a stop streams again
    threads = int(app.config.get("SERVER_THREADS", 80))
    server = wsgi.Server((host, port), app, numthreads=threads, max=threads,
                         server_name="guandan-table", shutdown_timeout=SHUTDOWN_GRACE_S)
    server.requests = _BoundedPool(server, min=threads, max=threads)  # a stop that cannot hang (its docstring)
    server.gateway = _Gateway
    server.ConnectionClass = _Connection
    server.prepare()  # binds now, so a bind error raises here, in the caller's thread
    bound_host, bound_port = server.bind_addr[:2]
    thread = threading.Thread(target=server.serve, name=f"web-{bound_port}", daemon=True)
    thread.start()
    return ServerHandle(app, bound_host, bound_port, server, thread)


def start(runners: Mapping[str, Any], *, host: str = "127.0.0.1", port: int = 8080,
          config_file: str | None = None, settings: Mapping[str, Any] | None = None) -> ServerHandle:
    """Build the app, attach every runner (``{"1": runner, …}``) and serve it: the one call the
    table service needs. ``handle.app`` is the Flask app (e.g. to attach a table later).

    :raises table_service.web.config.ConfigError: for a bad setting.
    :raises ValueError: for a bad table id.
    :raises OSError: when the port cannot be bound.
    """
    app = create_app(settings, config_file=config_file)
    for table_id, runner in runners.items():
        attach_table(app, table_id, runner)
    return serve(app, host, port)
