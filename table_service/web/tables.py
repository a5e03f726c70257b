"""The tables an app serves: runner, panel hub and public feed per table id.

The service attaches each TableRunner it owns with :func:`attach_table`; tests do the same with a
real runner on a temp SQLite file. ``create_app`` also accepts ``TABLES={"1": runner}`` in its
config as a shortcut.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from typing import Any

from flask import Flask, abort, current_app

from hardware.config_model import ID_SEGMENT_RE, ID_SEGMENT_RULE
from table_service.engine.errors import halves
from table_service.views.fanout import TableHub
from table_service.views.feed import FeedView

from .security import LoginLimiter

#: A share (1/FEED_KEPT_FOR_OTHERS) of ``FEED_MAX_STREAMS`` public streams is kept for other addresses than
#: the one holding the most (10 of 40): one script opening every slot no longer turns the broadcast's
#: overlays away, and one broadcast PC may still open 30.
FEED_KEPT_FOR_OTHERS = 4


_NUMBER = re.compile(r"([0-9]+)")


def table_sort_key(table_id: str) -> tuple[tuple[int, int, str], ...]:
    """Table ids in the order people count them, numbers read as numbers: 1, 2, 10 (not 1, 10, 2),
    and a duplicate match's rooms 2A, 2B, 10A. ASCII digits only (``int("²")`` raises)."""
    return tuple((0, int(part), part) if _NUMBER.fullmatch(part) else (1, 0, part)
                 for part in _NUMBER.split(table_id) if part)


@dataclass
class TableEntry:
    """One served table."""

    table_id: str
    runner: Any
    hub: TableHub
    feed: FeedView
    #: The table's link to the event hub (its MQTT bridge: ``assignment``, ``result_ack``,
    #: ``is_connected``), set by whoever wires the table; None: no hub, no assignment card.
    hub_link: Any = None


@dataclass
class WebState:
    """Per-app mutable state (kept in ``app.extensions['guandan']``)."""

    limiter: LoginLimiter
    tables: dict[str, TableEntry] = field(default_factory=dict)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Open public feed streams by client address (their sum is capped by FEED_MAX_STREAMS).
    feed_streams_by_client: dict[str, int] = field(default_factory=dict)

    @property
    def feed_streams(self) -> int:
        """Open public feed streams, all addresses."""
        return sum(self.feed_streams_by_client.values())

    def acquire_feed_stream(self, limit: int, client: str = "") -> bool:
        """Count one more open public stream, unless ``limit`` are open already or ``client`` (its
        address) holds all but the share kept for others (:data:`FEED_KEPT_FOR_OTHERS`)."""
        with self.lock:
            mine = self.feed_streams_by_client.get(client, 0)
            if self.feed_streams >= limit or mine >= limit - limit // FEED_KEPT_FOR_OTHERS:
                return False
            self.feed_streams_by_client[client] = mine + 1
            return True

    def release_feed_stream(self, client: str = "") -> None:
        with self.lock:
            left = self.feed_streams_by_client.get(client, 0) - 1
            if left > 0:
                self.feed_streams_by_client[client] = left
            else:
                self.feed_streams_by_client.pop(client, None)

    def begin_shutdown(self) -> None:
        """Make every open stream end promptly (they wait on hub/feed conditions)."""
        self.stop.set()
        for entry in list(self.tables.values()):
            entry.hub.wake()
            entry.feed.wake()


def web_state(app: Flask | None = None) -> WebState:
    """The :class:`WebState` of ``app`` (default: the current app)."""
    return (app or current_app).extensions["guandan"]


def attach_table(app: Flask, table_id: str, runner: Any, *, hub_link: Any = None) -> TableEntry:
    """Serve ``runner`` as table ``table_id`` on the panel, API and feed (``hub_link``: see
    :attr:`TableEntry.hub_link`).

    :raises ValueError: for an id ``config check`` would refuse in ``table.toml`` (the one rule,
        :data:`hardware.config_model.ID_SEGMENT_RE`), or one already attached.
    """
    table_id = str(table_id)
    if not ID_SEGMENT_RE.match(table_id):
        rule_zh, rule_en = halves(ID_SEGMENT_RULE)  # the rule is "中文 / English": a half in each half
        raise ValueError(f"桌号无效：{table_id!r}，{rule_zh} / invalid table id {table_id!r}: {rule_en}")
    state = web_state(app)
    with state.lock:
        if table_id in state.tables:
            raise ValueError(f"桌号重复：{table_id!r} 已接入 / table {table_id!r} is already attached")
        cfg = app.config
        hub = TableHub(runner, buffer=int(cfg["SSE_BUFFER"]), max_bytes=int(cfg["SSE_BUFFER_BYTES"]))
        feed = FeedView(
            runner,
            delay_s=float(cfg["FEED_DELAY_S"]),
            duplicate=bool(cfg["FEED_DUPLICATE"]),
            recent_plays=int(cfg["FEED_RECENT_PLAYS"]),
            # The clock that stamps the runner's events, as ``panel.table_clock`` (and the feed's
            # clock.json) reads it: measured on the wall clock instead, a runner whose clock lags the
            # wall (a replayed or slowed table clock) had every event "long due", the delay bypassed.
            clock=cfg.get("FEED_CLOCK") or getattr(runner, "_clock", None),
            buffer=int(cfg["SSE_BUFFER"]),
        )
        entry = TableEntry(table_id, runner, hub, feed, hub_link)
        state.tables[table_id] = entry
    return entry


def detach_table(app: Flask, table_id: str) -> None:
    """Stop serving a table (its open streams end); the runner itself is left running."""
    state = web_state(app)
    with state.lock:
        entry = state.tables.pop(str(table_id), None)
    if entry is not None:
        entry.hub.close()
        entry.feed.close()


def get_table(table_id: str) -> TableEntry:
    """The table for a request, or a 404 with a clear message."""
    entry = web_state().tables.get(table_id)
    if entry is None:
        abort(404, description=f"没有该桌：{table_id!r} / unknown table {table_id!r}")
    return entry
