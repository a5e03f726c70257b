"""A minimal Server-Sent-Events client (standard library only).

Used by the tests, the benchmark and command-line tools to follow a panel or feed stream the way
a browser's ``EventSource`` does: it parses ``id``/``event``/``data`` fields and remembers the last
id so that a reconnect can send ``Last-Event-ID``. The streams' control messages (``hello``, ``ping``:
see :mod:`table_service.web.streams`) are passed over, as comments are, unless ``control=True``.
"""

from __future__ import annotations

import http.client
import json
import queue
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

#: The streams' own messages, not the table's (passed over unless asked for).
CONTROL_EVENTS = frozenset({"hello", "ping"})


@dataclass
class SSEMessage:
    """One received message; ``received`` is ``time.time()`` when its blank line arrived."""

    id: str | None
    event: str
    data: str
    received: float

    def json(self) -> Any:
        return json.loads(self.data)


class SSEClient:
    """Follow ``path`` on ``host:port`` on a background thread; messages arrive in ``.messages``.

    :param headers: extra request headers (e.g. ``Cookie`` for the panel stream).
    :param last_event_id: sent as ``Last-Event-ID`` to resume.
    :param control: keep the ``hello`` and ``ping`` messages too (a tool reading the table's data
        wants neither: the first message it gets is the snapshot, as before they existed).
    """

    def __init__(self, host: str, port: int, path: str, *, headers: dict[str, str] | None = None,
                 last_event_id: str | int | None = None, timeout: float = 30.0, control: bool = False) -> None:
        self.messages: queue.Queue[SSEMessage] = queue.Queue()
        self._skip = frozenset() if control else CONTROL_EVENTS
        self.status: int | None = None
        self.last_id: str | None = None
        self._conn = http.client.HTTPConnection(host, port, timeout=timeout)
        hdrs = {"Accept": "text/event-stream", **(headers or {})}
        if last_event_id is not None:
            hdrs["Last-Event-ID"] = str(last_event_id)
        self._conn.request("GET", path, headers=hdrs)
        self._resp = self._conn.getresponse()
        self.status = self._resp.status
        self.content_type = self._resp.getheader("Content-Type", "")
        self._closed = threading.Event()
        self._thread = threading.Thread(target=self._read, name="sse-client", daemon=True)
        self._thread.start()

    def _read(self) -> None:
        ev_id: str | None = None
        ev_type = "message"
        data: list[str] = []
        try:
            while not self._closed.is_set():
                raw = self._resp.readline()
                if not raw:
                    return
                line = raw.decode("utf-8").rstrip("\r\n")
                if line == "":
                    if data and ev_type not in self._skip:
                        if ev_id is not None:
                            self.last_id = ev_id
                        self.messages.put(SSEMessage(ev_id, ev_type, "\n".join(data), time.time()))
                    ev_id, ev_type, data = None, "message", []
                    continue
                if line.startswith(":"):
                    continue
                name, _, value = line.partition(":")
                value = value[1:] if value.startswith(" ") else value
                if name == "id":
                    ev_id = value
                elif name == "event":
                    ev_type = value
                elif name == "data":
                    data.append(value)
        except (OSError, ValueError, AttributeError, http.client.HTTPException):
            # AttributeError: http.client's chunked reader after close() from another thread.
            return

    @property
    def ended(self) -> bool:
        """True once the stream is over: the server ended the response, or :meth:`close` was called."""
        return not self._thread.is_alive()

    def get(self, timeout: float = 5.0) -> SSEMessage:
        """The next message; raises ``queue.Empty`` after ``timeout`` s."""
        return self.messages.get(timeout=timeout)

    def close(self) -> None:
        """Drop the connection (as a browser tab that closes)."""
        self._closed.set()
        try:
            if self._conn.sock is not None:
                self._conn.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self._thread.join(2.0)
        self._conn.close()

    def __enter__(self) -> SSEClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
