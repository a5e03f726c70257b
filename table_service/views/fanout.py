"""Fan-out of a table's applied events to Server-Sent-Event streams.

:class:`Broadcaster` holds a ring buffer of encoded SSE messages and wakes every waiting stream
through one condition variable, so 50 open panels cost one ``json.dumps`` and one ``notify_all`` per
event, not 50. :class:`TableHub` is the broadcaster of the referee panel: it subscribes once to the
:class:`~table_service.table.runner.TableRunner` and publishes each applied event with the new state.
The public feed (:mod:`table_service.views.feed`) feeds its own broadcaster with delayed, filtered
events.

Messages carry the engine's ``seq`` as the SSE ``id``. A browser that lost its connection reconnects
with ``Last-Event-ID``; the broadcaster replays what it still holds after that id, or — when the id
is older than its buffer or unknown (service restarted) — sends a full snapshot of the current state
first. Panels and overlays render from state, so a snapshot is always a correct place to resume.
"""

from __future__ import annotations

import bisect
import json
import re
import threading
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any


def sse_message(data: Any, *, event: str, msg_id: int | None = None) -> bytes:
    """Encode one SSE message (JSON data on one line, since JSON never holds a raw newline)."""
    head = f"id: {msg_id}\n" if msg_id is not None else ""
    body = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return f"{head}event: {event}\ndata: {body}\n\n".encode()


#: A usable ``Last-Event-ID``: a seq of at most 18 ASCII digits (seqs are SQLite integers, < 2**63).
_LAST_ID_RE = re.compile(r"[0-9]{1,18}")

#: An idle stream's keep-alive by default: an SSE comment.
KEEPALIVE = b": keep-alive\n\n"

#: Longest a waiting stream goes without checking that its client is still there (seconds).
CLIENT_CHECK_S = 0.5


def parse_last_event_id(raw: str | None) -> int | None:
    """The integer seq in a ``Last-Event-ID`` header/query value, or None when absent or garbage.

    Garbage is treated as absent (the client gets a snapshot) rather than an error, because browsers
    resend whatever id they last saw and the stream must recover on its own.
    """
    if raw is None:
        return None
    # ASCII digits only, and few of them: ``str.isdigit`` accepts "²" (which ``int`` then refuses)
    # and ``int`` refuses more than 4,300 digits — either used to end the request in a 500.
    m = _LAST_ID_RE.fullmatch(raw.strip())
    return int(m.group(0)) if m else None


class Broadcaster:
    """Ring buffer of encoded messages with ids, plus the latest snapshot, shared by many streams.

    :param snapshot: returns ``(seq, state)`` of the current state when nothing was published yet.
    :param buffer: how many messages to keep for resuming.
    :param max_bytes: and at most this many bytes of them (panel messages carry the full state,
        which grows over a match; a Pi must not keep hundreds of MB for resuming — beyond the
        buffer a reconnecting client simply gets a snapshot).
    """

    def __init__(self, snapshot: Callable[[], tuple[int, Any]], buffer: int = 4096,
                 max_bytes: int = 8 * 1024 * 1024) -> None:
        self._snapshot_fn = snapshot
        self._cond = threading.Condition()
        self._max_msgs = max(1, buffer)
        self._max_bytes = max_bytes
        self._bytes = 0
        self._seqs: deque[int] = deque()
        self._msgs: deque[bytes] = deque()
        self._count = 0  # messages ever appended; a stream's cursor counts in these units
        self._latest_seq = -1  # unknown until the first message passes through
        self._latest_state: Any = None
        self._closed = False

    def publish(self, seq: int, payload: Any, state: Any) -> None:
        """Append one message (``payload`` as JSON) and wake all streams."""
        msg = sse_message(payload, event="update", msg_id=seq)
        with self._cond:
            self._seqs.append(seq)
            self._msgs.append(msg)
            self._bytes += len(msg)
            while len(self._msgs) > 1 and (len(self._msgs) > self._max_msgs or self._bytes > self._max_bytes):
                self._bytes -= len(self._msgs.popleft())
                self._seqs.popleft()
            self._count += 1
            self._latest_seq = max(self._latest_seq, seq)
            self._latest_state = state
            self._cond.notify_all()

    def wake(self) -> None:
        """Wake waiting streams without closing (they then notice the app's stop flag)."""
        with self._cond:
            self._cond.notify_all()

    def close(self) -> None:
        """Make every stream end."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    def snapshot(self) -> tuple[int, Any, int]:
        """``(seq, state, cursor)``: the current state, its seq, and the cursor just after it."""
        with self._cond:
            if self._latest_state is not None:
                return self._latest_seq, self._latest_state, self._count
            cursor = self._count
        # Nothing published yet: ask the source. A message published meanwhile is in the buffer
        # at index >= cursor, so the stream sends it after this snapshot (clients keep the state
        # with the higher seq; a duplicate is harmless).
        seq, state = self._snapshot_fn()
        return seq, state, cursor

    def cursor_after(self, seq: int) -> int | None:
        """The cursor that resumes just after ``seq``; None when the buffer cannot prove no gap."""
        with self._cond:
            if seq > self._latest_seq:
                return None
            if seq == self._latest_seq:
                return self._count
            if not self._seqs or self._seqs[0] > seq + 1:
                # The oldest message held is newer than seq+1: something in between may have left
                # the buffer (ids may skip, e.g. rejected events; then a snapshot is the safe choice).
                return None
            first = self._count - len(self._seqs)
            return first + bisect.bisect_right(self._seqs, seq)

    def wait(self, cursor: int, timeout: float) -> tuple[list[bytes], int] | None:
        """Messages from ``cursor`` on, blocking up to ``timeout`` s when there are none.

        Returns ``(messages, new_cursor)``; an empty list means the timeout passed (time for a
        keep-alive). Returns None when closed, or when the stream fell so far behind that its cursor
        left the buffer (it must take a snapshot).
        """
        with self._cond:
            if self._count <= cursor and not self._closed:
                self._cond.wait(timeout)
            if self._closed:
                return None
            first = self._count - len(self._msgs)
            if cursor < first:
                return None
            return [self._msgs[i - first] for i in range(cursor, self._count)], self._count

    def stream(self, last_event_id: int | None, heartbeat_s: float,
               stop: threading.Event, gone: Callable[[], bool] | None = None, *,
               hello: bytes = b"", keepalive: bytes = KEEPALIVE) -> Iterator[bytes]:
        """The SSE byte stream for one client: optional snapshot, then updates and keep-alives.

        ``hello``: sent first, before any snapshot or replay (the web streams say which log they
        serve and their heartbeat, so a page can tell another log, or a stream gone quiet);
        ``keepalive``: what an idle heartbeat writes (a comment by default, which a browser never
        shows its page; the web streams send a named ``ping`` event instead).

        ``gone`` (from the server, see :mod:`table_service.web.server`) says whether the client
        has closed its connection (for the panel's stream, also whether its login has ended: the
        stream is then closed). It is asked before each write, and a stream waiting for the next event checks it every
        :data:`CLIENT_CHECK_S`, so a closed client frees its worker thread (and its public feed
        slot) within a second instead of at the next keep-alive write.
        """
        yield b"retry: 1000\n\n" + hello
        cursor = self.cursor_after(last_event_id) if last_event_id is not None else None
        step = heartbeat_s if gone is None else min(heartbeat_s, CLIENT_CHECK_S)
        while not stop.is_set():
            if cursor is None:
                seq, state, cursor = self.snapshot()
                yield sse_message({"event": None, "state": state}, event="snapshot", msg_id=seq)
            deadline = time.monotonic() + heartbeat_s
            while True:
                got = self.wait(cursor, min(step, max(deadline - time.monotonic(), 0.0)))
                if got is None or got[0] or time.monotonic() >= deadline or stop.is_set():
                    break
                if gone is not None and gone():
                    return
            if got is None:
                if self._closed:
                    return
                cursor = None
                continue
            msgs, cursor = got
            if gone is not None and gone():
                return  # asked before every write too: a busy stream never waits long enough to ask
            yield b"".join(msgs) if msgs else keepalive


class TableHub(Broadcaster):
    """The referee panel's broadcaster for one table: every applied event with the full state."""

    def __init__(self, runner: Any, buffer: int = 4096, max_bytes: int = 8 * 1024 * 1024) -> None:
        super().__init__(self._runner_snapshot, buffer, max_bytes)
        self.runner = runner
        self._unsubscribe = runner.subscribe(self.on_applied)

    def _runner_snapshot(self) -> tuple[int, Any]:
        state = self.runner.state()
        return int(state.get("last_seq") or 0), state

    def on_applied(self, event: dict, state: dict) -> None:
        """Subscriber callback, run on the engine thread after each applied event; must be quick."""
        self.publish(int(event.get("seq") or 0), {"event": event, "state": state}, state)

    def close(self) -> None:
        """Unsubscribe from the runner and end every stream."""
        try:
            self._unsubscribe()
        finally:
            super().close()
