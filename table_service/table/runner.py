"""``TableRunner``: one engine thread over one queue and the table's SQLite event log.

Every input (camera, serial reader, GPIO callbacks, web handlers) only *submits* events; the
single engine thread decides each one on a copy of the state (``engine.apply`` is pure), appends
it to the store with its verdict and commits, and only then makes the new state current and
tells subscribers. So nothing takes effect that is not already durable, and the log folds to the
live state after any crash (an event is in the log before it takes effect; state is the fold of the log).

    with TableRunner("data/table-01.sqlite3") as runner:
        result = runner.submit({"type": "passed", "source": "screen", "data": {"seat": "N"}})
        if not result.accepted:
            print(result.error)
"""

from __future__ import annotations

import json
import logging
import queue
import reprlib
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from table_service.engine.apply import apply, device_effects, replay
from table_service.engine.errors import EventRejected, RoleRejected
from table_service.engine.events import check_data
from table_service.engine.flags import stamp_flag_of
from table_service.engine.ruleset import stamp_generation
from table_service.engine.state import State, state_to_json
from table_service.store.event_log import EventStore
from table_service.web.expect import STALE_PREFIX

log = logging.getLogger(__name__)

StateListener = Callable[[dict[str, Any], dict[str, Any]], None]
EffectListener = Callable[[list[dict[str, Any]], dict[str, Any]], None]


@dataclass(frozen=True)
class SubmitResult:
    """The verdict on one submitted event."""

    accepted: bool
    """True when the event was applied (it is in the log as accepted)."""
    seq: int | None
    """Its place in the log (rejected events have one too); None if not decided yet."""
    error: str | None
    """Why it was rejected (Chinese, then English), or why there is no verdict."""
    event: dict[str, Any] | None
    """The event as stored (with ``seq`` and ``t_ms``), or None."""
    queued: bool = False
    """True when the event is queued and its verdict not known: ``wait=False``, or the wait timed out
    (it will still be applied or refused; a caller must not submit it again as new, see ``key``)."""
    stale: bool = False
    """True when the caller's ``precondition`` refused it: the table had moved on from what the caller
    saw (a second tap, another referee first), not a ruling of the engine."""
    conflict: bool = False
    """True when the caller's ``key`` already named another action (other type or data): refused,
    never answered with that action's verdict as if this one had been done."""
    role: bool = False
    """True when the engine refused it for the role that sent it (:class:`RoleRejected`): the panel's 403."""


#: A caller's check of the state an event would be applied to: a message (Chinese, then English) refuses it.
Precondition = Callable[[State], str | None]

#: Callers' action keys remembered for :meth:`TableRunner.submit` (a panel retries within seconds).
KEYS_KEPT = 1000
#: Largest ``data`` a rejected event is logged with whole (bytes of compact JSON).
REJECTED_DATA_BYTES = 64 * 1024


#: What the runner adds to an event's data before logging it (``stamp_generation``, ``stamp_flag_of``):
#: not the caller's, so not part of what the caller sent.
_STAMPED = ("engine", "flag_of")


def _fingerprint(event: Any) -> str:
    """What makes two submissions one action: its type and data as the caller sent them (a retry sends
    both again; the copy logged, read back after a restart, carries the runner's stamps, left out here)."""
    if not isinstance(event, dict):
        return repr(event)
    data = event.get("data")
    if data is None:
        data = {}
    if isinstance(data, dict):
        data = {k: v for k, v in data.items() if k not in _STAMPED}
    return json.dumps([event.get("type"), data], sort_keys=True, ensure_ascii=False, default=repr)


def _bounded(data: Any) -> dict[str, Any]:
    """The ``data`` a rejected event is logged with: as sent when it is a small JSON object, else
    a short ``raw`` excerpt — a refused 30 MB body must not be stored whole."""
    if data is None:
        return {}
    try:
        # allow_nan=False: data with NaN is logged as a raw excerpt, never as a bare NaN token (no JSON).
        size = len(json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False))
    except (TypeError, ValueError, RecursionError):
        size = REJECTED_DATA_BYTES + 1
    if isinstance(data, dict) and size <= REJECTED_DATA_BYTES:
        return data
    return {"raw": reprlib.repr(data)[:2000], "bytes": size}


def wall_clock_ms() -> int:
    """Milliseconds since the Unix epoch: the default clock for events without ``t_ms``."""
    return int(time.time() * 1000)


_STOP = object()


class TableRunner:
    """The engine thread of one table.

    :param db_path: the table's SQLite event log (created if missing).
    :param clock: gives ``t_ms`` to events submitted without one (default: wall clock, ms).
    :param tick_ms: if set, a helper thread submits ``clock_ticked`` this often, so time-over is
        noticed without any other input.
    :raises StoreCorruptError: when the database file is damaged (it is left untouched).
    """

    def __init__(self, db_path: str | Path, *, clock: Callable[[], int] = wall_clock_ms, tick_ms: int | None = None) -> None:
        self._store = EventStore(db_path)
        self._clock = clock
        self._tick_ms = tick_ms
        self._lock = threading.RLock()
        self._events: list[dict[str, Any]] = self._store.events()
        # replay, not fold: an event of an older release's log that these rules refuse is passed over
        # and named (state "not_applied"), so the table still starts (apply.replay says why).
        self._state: State = replay(self._events)
        for gone in self._state["not_applied"]:
            log.warning("logged event %s (%s) does not apply under this release: %s", gone["seq"], gone["type"],
                        gone["error"])
        self._view: dict[str, Any] = state_to_json(self._state)
        self._queue: queue.Queue[Any] = queue.Queue()
        self._keys: OrderedDict[str, Future[SubmitResult]] = OrderedDict()
        #: What each key's action was (:func:`_fingerprint`): the same key for another action is refused.
        self._prints: dict[str, str] = {}
        self._keys_lock = threading.Lock()
        # The actions logged before a restart keep their verdicts: a retry of one is not a second action.
        for key, ev in self._store.actions(KEYS_KEPT):
            self._prints[key] = _fingerprint(ev)
            done: Future[SubmitResult] = Future()
            error = ev.get("rejected")
            done.set_result(SubmitResult(error is None, ev["seq"], error, {k: v for k, v in ev.items() if k != "rejected"},
                                         stale=bool(error) and error.startswith(STALE_PREFIX)))
            self._keys[key] = done
        self._listeners: list[StateListener] = []
        self._effect_listeners: list[EffectListener] = []
        self._thread: threading.Thread | None = None
        self._ticker: threading.Thread | None = None
        self._stopping = threading.Event()
        self._closed = False

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> TableRunner:
        """Start the engine thread (and the ticker, if ``tick_ms`` was given)."""
        if self._closed:
            raise RuntimeError("runner was stopped; create a new one")
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name=f"engine:{self._store.path.name}", daemon=True)
            self._thread.start()
            if self._tick_ms:
                self._ticker = threading.Thread(target=self._tick, name="engine-ticker", daemon=True)
                self._ticker.start()
        return self

    def stop(self, timeout: float = 5.0) -> None:
        """Finish the queued events, stop the thread, close the store (idempotent)."""
        if self._closed:
            return
        self._stopping.set()
        if self._thread is not None:
            self._queue.put(_STOP)
            self._thread.join(timeout)
        if self._ticker is not None:
            self._ticker.join(timeout)
        self._closed = True
        self._store.close()

    def __enter__(self) -> TableRunner:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def db_path(self) -> Path:
        """The table's database file."""
        return self._store.path

    @property
    def log_id(self) -> str | None:
        """The log's identity (:attr:`EventStore.log_id`): a page that kept a seq of another log
        (a new day's, a replaced Pi's) must start again, since seqs restart there."""
        return self._store.log_id

    # ------------------------------------------------------------------ submitting

    def submit(self, event: dict[str, Any], wait: bool = True, timeout: float = 5.0,
               key: str | None = None, precondition: Precondition | None = None,
               on_done: Callable[[SubmitResult], None] | None = None) -> SubmitResult:
        """Queue ``event`` for the engine thread; with ``wait``, return its verdict.

        ``t_ms`` is filled from the clock when missing; ``seq`` is given by the store. From the
        engine thread itself (inside a subscriber) the event is only queued.

        ``key``: the caller's id for this one action.  The same key submitted again (a panel that
        timed out and retries) is not queued twice: it gets the first submission's verdict, waited
        for as long as this call waits.  The last :data:`KEYS_KEPT` keys are remembered.

        ``precondition``: run on the engine thread on the state the event would be applied to, just
        before it; a message back refuses the event (logged as rejected with it, ``stale``). Why on
        the engine thread: a check made by the caller before queuing would race with the event queued
        just ahead (a double tap; two referees' panels), which is the case it is for.

        ``on_done``: called with the verdict once it is decided, on the engine thread, so it must be
        quick; never when the engine is not running. A verdict with a ``seq`` is in the log (accepted
        or refused); one without (the store failed) is not. For a caller that must not wait: the link's
        reader, which holds a screen press's acknowledgement until it is in the log.
        """
        if self._closed or self._thread is None:
            return SubmitResult(False, None, "引擎未运行 / engine is not running", None)
        if isinstance(event, dict) and event.get("t_ms") is None:
            event = {**event, "t_ms": self._clock()}
        with self._keys_lock:
            fut = self._keys.get(key) if key is not None else None
            if fut is not None and key is not None and self._prints.get(key) != _fingerprint(event):
                return SubmitResult(False, None, "此操作编号已用于另一操作，未执行 / action_id already names a "
                                    "different action: this one was not done (send it under a new id)", None,
                                    conflict=True)
            if fut is None:
                fut = Future()
                self._queue.put((event, fut, precondition, key))
                if key is not None:
                    self._keys[key] = fut
                    self._prints[key] = _fingerprint(event)
                    while len(self._keys) > KEYS_KEPT:
                        self._prints.pop(self._keys.popitem(last=False)[0], None)
        if on_done is not None:
            fut.add_done_callback(lambda f: on_done(f.result()))
        if not wait or threading.current_thread() is self._thread:
            return SubmitResult(False, None, None, None, queued=True)
        try:
            return fut.result(timeout)
        except TimeoutError:
            return SubmitResult(False, None, "仍在处理，结果未知 / still queued for the engine: outcome not known yet",
                                None, queued=True)

    # ------------------------------------------------------------------ reading

    def state(self) -> dict[str, Any]:
        """The JSON-ready referee view of the current state (a copy)."""
        with self._lock:
            return state_to_json(self._state)

    def raw_state(self) -> State:
        """The engine's own state dict (read-only by convention; for replay comparisons)."""
        with self._lock:
            return self._state

    def events(self, after: int = 0) -> list[dict[str, Any]]:
        """Accepted events with ``seq > after``, in order."""
        with self._lock:
            return [e for e in self._events if e["seq"] > after]

    def rejected(self) -> list[dict[str, Any]]:
        """Rejected events as stored, each with its ``rejected`` message."""
        return self._store.rejected()

    def device_effects(self) -> list[dict[str, Any]]:
        """Effects that set every display and lamp to the current state (after a restart)."""
        with self._lock:
            return device_effects(self._state)

    def subscribe(self, fn: StateListener) -> Callable[[], None]:
        """Call ``fn(event, state_view)`` on the engine thread after each applied event.

        ``fn`` must be quick (hand work to another thread). Returns the unsubscribe function.
        """
        with self._lock:
            self._listeners.append(fn)

        def unsubscribe() -> None:
            with self._lock:
                if fn in self._listeners:
                    self._listeners.remove(fn)

        return unsubscribe

    def subscribe_effects(self, fn: EffectListener) -> Callable[[], None]:
        """Call ``fn(effects, event)`` on the engine thread after each applied event."""
        with self._lock:
            self._effect_listeners.append(fn)

        def unsubscribe() -> None:
            with self._lock:
                if fn in self._effect_listeners:
                    self._effect_listeners.remove(fn)

        return unsubscribe

    # ------------------------------------------------------------------ the engine thread

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            event, fut, precondition, key = item
            try:
                result = self._decide(event, precondition, key)
            except Exception as exc:  # a store failure: report it, keep the thread alive
                log.exception("engine failed on %r", event)
                result = SubmitResult(False, None, f"内部错误（{exc}） / internal error: {exc}", None)
            if not fut.done():
                fut.set_result(result)

    def _decide(self, event: Any, precondition: Precondition | None = None, key: str | None = None) -> SubmitResult:
        with self._lock:
            state = self._state
        seq = self._store.next_seq()
        stamped = {**event, "seq": seq} if isinstance(event, dict) else {"seq": seq, "data": {"raw": repr(event)}}
        # A ruling on a flag names the flag it was given on, not only its id (flags.resolve_flag).
        stamped = stamp_flag_of(state, stamped)
        stamped = stamp_generation(stamped)
        stale = precondition(state) if precondition is not None else None
        if stale:
            stored = self._normalise_rejected(stamped)
            self._store.append(stored, status="rejected", error=stale, action=key)
            return SubmitResult(False, seq, stale, stored, stale=True)
        try:
            if isinstance(stamped, dict):
                check_data(stamped.get("type"), stamped.get("data"))  # the schema, before the log
            new_state, effects = apply(state, stamped)
        except EventRejected as exc:
            stored = self._normalise_rejected(stamped)
            self._store.append(stored, status="rejected", error=str(exc), action=key)
            return SubmitResult(False, seq, str(exc), stored, role=isinstance(exc, RoleRejected))
        except Exception as exc:  # an engine bug: keep the event (as rejected) and the thread alive
            log.exception("engine failed on %r", event)
            stored = self._normalise_rejected(stamped)
            error = f"引擎内部错误（{exc!r}） / internal engine error: {exc!r}"
            self._store.append(stored, status="rejected", error=error, action=key)
            return SubmitResult(False, seq, error, stored)
        stored = {k: stamped.get(k) for k in ("seq", "t_ms", "type", "source", "role")}
        stored["data"] = stamped.get("data") or {}
        if stored["type"] == "clock_ticked" and all(fx["kind"] == "overtime" for fx in effects):
            # A tick that changes nothing but the time is not worth a row per second: it is not
            # applied and not stored (so replay still equals the live state); the overtime
            # counts it produced still reach the displays.
            self._emit_effects(effects, stored)
            return SubmitResult(True, None, None, {**stored, "seq": None})
        self._store.append(stored, action=key)  # committed before it takes effect
        with self._lock:
            self._state = new_state
            self._events.append(stored)
            listeners = list(self._listeners)
            effect_listeners = list(self._effect_listeners)
        view = state_to_json(new_state) if listeners else None
        for fn in listeners:
            try:
                fn(stored, view)  # type: ignore[arg-type]
            except Exception:
                log.exception("state subscriber failed")
        self._emit_effects(effects, stored, effect_listeners)
        return SubmitResult(True, seq, None, stored)

    def _emit_effects(
        self, effects: list[dict[str, Any]], event: dict[str, Any], listeners: list[EffectListener] | None = None
    ) -> None:
        if listeners is None:
            with self._lock:
                listeners = list(self._effect_listeners)
        if not effects:
            return
        for fn in listeners:
            try:
                fn(effects, event)
            except Exception:
                log.exception("effect subscriber failed")

    def _normalise_rejected(self, event: dict[str, Any]) -> dict[str, Any]:
        t = event.get("t_ms")
        data = event.get("data")
        return {
            "seq": event["seq"],
            "t_ms": t if isinstance(t, int) and not isinstance(t, bool) and t >= 0 else self._clock(),
            "type": str(event.get("type"))[:64],
            "source": str(event.get("source"))[:32],
            "role": event.get("role") if isinstance(event.get("role"), str) else None,
            "data": _bounded(data),
        }

    def _tick(self) -> None:
        assert self._tick_ms
        while not self._stopping.wait(self._tick_ms / 1000):
            self.submit({"type": "clock_ticked", "source": "clock", "data": {}}, wait=False)
