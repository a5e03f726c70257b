"""Where the table's ``events`` topic stands with the broker, kept across restarts.

The bridge publishes every public event on ``guandan/<event>/<table>/events`` with QoS 1. Before
this file existed it started each process at seq 0, so a Pi rebooted mid-event, after thousands
of events, sent the table's whole public history again: 3,000 events are 3,000 messages (about
220 KB of JSON) in a burst of one to three seconds, which every broadcast watcher receives again —
an ``events`` consumer that trusts "in order" sees the table jump back to its first deal, and a
broker whose per-client queue is smaller than the burst (Mosquitto's default is 1,000) drops
messages for a slow watcher, the new ones among them.

What may be skipped at a restart is exactly what the broker has **acknowledged** (PUBACK): from
then on delivering it is the broker's job (MQTT 3.1.1 §4.3.2). An event the bridge handed to paho
but whose PUBACK never came — the broker was down, the connection dropped, the Pi lost power with
messages in paho's memory — must go out again. So this module keeps the **acknowledged mark**: the
highest seq such that that event *and every event published before it* was acknowledged, and
writes it to a small JSON file beside the table's log. The next process resumes after it.

Why each choice:

* **A contiguous mark, not "the highest seq acked".** The broker answers PUBLISH packets of one
  connection in order (§4.6), but the bridge does not depend on it: paho re-sends what was in
  flight after a reconnect, holds back what is beyond its in-flight window, and a publish paho
  refused (its queue full) is tried again later, after others. A mark that only advances over an
  unbroken run of acknowledged events can never cover one that was not.
* **Acknowledgements are matched by the bridge, never on paho's thread.** ``on_publish`` runs on
  paho's network thread and may fire before ``publish()`` has even returned the message id to the
  bridge; taking the bridge's lock there, while the bridge holds it around ``publish()``, could
  deadlock against paho's own lock. So ``on_publish`` only appends the id to a deque (atomic), and
  :meth:`AckedEvents.advance` matches the ids to the events. The bridge holds one lock around each
  ``publish()`` *and* its :meth:`AckedEvents.sent`, and around every ``advance()``, so an id is
  never matched before its event is registered. Ids of other topics (state, summary, status)
  match nothing and are dropped; paho never hands out an id still waiting for its PUBACK, so an id
  cannot be confused with a pending one.
* **The file is written atomically and at most once a second** (``interval_s``): a temporary file
  in the same folder, ``fsync``, ``os.replace``, ``fsync`` of the folder — a power cut leaves the
  old mark or the new one, never half a file. Writing after every PUBACK would double the Pi's
  SD-card writes during play for nothing: a mark that lags by a second only means that the last
  second's events are sent again after a crash, which QoS 1 (at least once) allows anyway. A
  clean stop writes the last mark.
* **The mark names the log event it stands for** (its ``seq``, ``t_ms`` and ``type``) and the
  event, table and broker it was acknowledged by. At start it is used only if the table's log
  holds that very event at that seq and the bridge talks to the same broker for the same event
  and table; a log that was replaced (shorter: the seq is past its end; or another log of the same
  length), another broker, another event: start again from 0, as before, with a log line.
* **A missing, unreadable or damaged file never stops the table**: it means "start from 0" (the
  old behaviour: a burst of repeats, nothing lost), said once in the log. A file that cannot be
  written (disk full, folder read-only) is logged once and the table carries on publishing.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_service.store.durable import write_durably

log = logging.getLogger(__name__)

#: The file's format; another number is read as "unknown: start from 0".
ACKED_FILE_VERSION = 1


def acked_file_for(db_path: str | os.PathLike[str]) -> Path:
    """The mark's file for the table log at ``db_path``: beside it (the table's data folder), named
    after it, so that whatever moves or replaces the log's folder moves or replaces the mark too."""
    p = Path(db_path)
    return p.with_name(p.name + ".mqtt-acked.json")


@dataclass(frozen=True)
class AckMark:
    """One public event, as the log knows it: enough to tell whether a log still holds it."""

    seq: int
    t_ms: int | None
    type: str | None


@dataclass
class _Sent:
    mark: AckMark
    mid: int
    acked: bool = False


class AckedEvents:
    """The acknowledged mark of one bridge's ``events`` topic, and its file.

    :param path: the file (``None``: keep the mark in memory only, nothing resumes).
    :param event_id, table_id, broker: what the acknowledgements came from; a file written for
        another event, table or broker (``host:port``) is not resumed.
    :param interval_s: write the file at most this often (a clean stop writes at once).
    :param clock: monotonic seconds (tests).
    """

    def __init__(self, path: str | os.PathLike[str] | None, *, event_id: str, table_id: str, broker: str,
                 interval_s: float = 1.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.path = None if path is None else Path(path)
        self.identity = {"event": str(event_id), "table": str(table_id), "broker": str(broker)}
        self.interval_s = float(interval_s)
        self._clock = clock
        self._lock = threading.Lock()  # the bridge's thread and stop(), never paho's thread
        self._sent: deque[_Sent] = deque()
        self._by_mid: dict[int, _Sent] = {}
        self._acks: deque[int] = deque()  # message ids from paho's thread (deque.append is atomic)
        self.mark: AckMark | None = None
        self._saved: AckMark | None = None
        self._last_write = float("-inf")
        self._write_failed = False

    # ------------------------------------------------------------------------------ resume

    def resume(self, log_event: Callable[[int], dict[str, Any] | None]) -> int:
        """The seq to publish after: the saved mark when the file is sound, was written for this
        event, table and broker, and ``log_event(seq)`` (the table's log) still holds that very
        event; else 0, with the reason in the log."""
        if self.path is None:
            return 0
        saved = self._read()
        if saved is None:
            return 0
        mark, identity = saved
        if identity != self.identity:
            log.warning("mqtt: 已确认记录属于另一场赛事、桌或代理 %s，从头发送 / the acknowledged mark in %s was "
                        "written for %s, not %s: publishing the public events from the start",
                        identity, self.path, identity, self.identity)
            return 0
        try:
            ev = log_event(mark.seq)
        except Exception:  # a log that cannot answer must not stop the table: the safe side is 0
            log.exception("mqtt: reading event %s of the table's log failed", mark.seq)
            ev = None
        if ev is None or ev.get("t_ms") != mark.t_ms or ev.get("type") != mark.type:
            log.warning("mqtt: 事件库已不是确认时的那个（第 %s 条不同或不存在），从头发送 / the table's log no longer "
                        "holds the acknowledged event %s (%s) — the log was replaced: publishing the public "
                        "events from the start", mark.seq, mark.seq, self.path)
            return 0
        self.mark = self._saved = mark
        log.info("mqtt: 代理已确认到第 %s 条，从其后继续 / the broker acknowledged the events up to seq %s: "
                 "publishing from there (%s)", mark.seq, mark.seq, self.path)
        return mark.seq

    def _read(self) -> tuple[AckMark, dict[str, str]] | None:
        assert self.path is not None
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            log.info("mqtt: 没有已确认记录，从头发送 / no acknowledged mark yet (%s): publishing the public "
                     "events from the start", self.path)
            return None
        except OSError as exc:
            log.warning("mqtt: 已确认记录无法读取，从头发送 / cannot read the acknowledged mark %s (%s): "
                        "publishing the public events from the start", self.path, exc)
            return None
        try:
            data = json.loads(raw.decode("utf-8"))
            if not isinstance(data, dict) or data.get("version") != ACKED_FILE_VERSION:
                raise ValueError(f"not a version {ACKED_FILE_VERSION} mark")
            seq, t_ms, etype = data["seq"], data.get("t_ms"), data.get("type")
            if type(seq) is not int or seq < 1 or not (t_ms is None or type(t_ms) is int) \
                    or not (etype is None or isinstance(etype, str)):
                raise ValueError("seq, t_ms or type of the wrong kind")
            identity = {k: data[k] for k in ("event", "table", "broker")}
            if not all(isinstance(v, str) for v in identity.values()):
                raise ValueError("event, table or broker is not a text")
        except (UnicodeDecodeError, ValueError, KeyError, TypeError, RecursionError) as exc:
            log.warning("mqtt: 已确认记录损坏，从头发送 / the acknowledged mark %s is damaged (%s): publishing "
                        "the public events from the start", self.path, exc)
            return None
        return AckMark(seq, t_ms, etype), identity

    # ---------------------------------------------------------------------------- tracking

    def sent(self, event: dict[str, Any], mid: int) -> None:
        """``event`` (a public event) was handed to paho as message ``mid``. The caller holds one
        lock around ``publish()`` and this call, and around :meth:`advance` (an acknowledgement
        matched in between would find no event and be lost: the mark would stall there)."""
        entry = _Sent(AckMark(int(event["seq"]), event.get("t_ms"), event.get("type")), int(mid))
        with self._lock:
            self._sent.append(entry)
            self._by_mid[entry.mid] = entry

    def on_publish(self, mid: int) -> None:
        """paho's network thread: the broker acknowledged message ``mid`` (any topic's)."""
        self._acks.append(int(mid))

    def advance(self) -> AckMark | None:
        """Match the acknowledgements that came and move the mark over the unbroken run of
        acknowledged events at the front; returns the mark."""
        with self._lock:
            while self._acks:
                entry = self._by_mid.pop(self._acks.popleft(), None)
                if entry is not None:
                    entry.acked = True
            while self._sent and self._sent[0].acked:
                self.mark = self._sent.popleft().mark
            return self.mark

    @property
    def waiting(self) -> int:
        """Events published and not yet acknowledged (or behind one that is not)."""
        with self._lock:
            return len(self._sent)

    def checkpoint(self, *, force: bool = False) -> bool:
        """Write the mark if it moved and ``interval_s`` passed since the last write (or ``force``).
        Returns True when the file was written."""
        mark = self.advance()
        if self.path is None or mark is None:
            return False
        now = self._clock()
        with self._lock:
            if mark == self._saved or (not force and now - self._last_write < self.interval_s):
                return False
            self._last_write = now
        try:
            self._write(mark)
        except OSError as exc:
            if not self._write_failed:
                log.warning("mqtt: 已确认记录写不进去（桌继续发送；重启后会重发） / cannot write the acknowledged "
                            "mark %s (%s): the table carries on; after a restart it will send again what the "
                            "broker already has", self.path, exc)
            self._write_failed = True
            return False
        if self._write_failed:
            log.info("mqtt: acknowledged mark %s written again", self.path)
        self._write_failed = False
        with self._lock:
            self._saved = mark
        return True

    def _write(self, mark: AckMark) -> None:
        """Atomically: a temporary file beside it, fsync, rename over, fsync the folder."""
        assert self.path is not None
        body = json.dumps({"version": ACKED_FILE_VERSION, **self.identity, "seq": mark.seq, "t_ms": mark.t_ms,
                           "type": mark.type, "wall_ms": int(time.time() * 1000)},
                          ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        write_durably(self.path, body, mode=0o600)  # as it was (mkstemp's): the table's own business
