"""Clock ticks: when the engine next needs a ``clock_ticked``, and the thread that sends it.

Deadlines live in the engine's state (event time), so after a restart the ticks fall on the same
deadlines as before it. A tick that would put a seat over time may wait briefly for the camera
(:func:`held_for`), so a play already on the table is not flagged late for the machine's delay.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from table_service.table.clock import TableClock
from table_service.table.config import DEFAULT_CAMERA_GRACE_S

log = logging.getLogger(__name__)


def next_tick_ms(state: dict[str, Any], now_ms: int) -> int | None:
    """When the engine next needs a ``clock_ticked`` (table ms), or None when no clock runs.

    A tick is due at each countdown's deadline (time-over is noticed then, not up to a second
    late) and every table second while a seat is over its time (the overtime count on its
    display) or while a timed round runs (its time limit).
    """
    deal = state.get("deal")
    rnd = state.get("round")
    due: list[int] = []
    if deal and deal.get("phase") != "over":
        for timer in (deal.get("timers") or {}).values():
            deadline = int(timer["deadline_ms"])
            if deadline >= now_ms:
                due.append(deadline + 1)
            else:  # overtime: once per second, on the second
                over = now_ms - deadline
                due.append(now_ms + 1000 - over % 1000 + 1)
    if rnd and (rnd.get("format") or {}).get("kind") == "time" and rnd.get("status") != "over":
        due.append(now_ms + 1000)
    return min(due) if due else None


#: The shortest sleep before a tick not yet due (real seconds).
MIN_WAIT_S = 0.005
#: How often a held tick looks again whether the camera has caught up (real seconds).
HOLD_POLL_S = 0.02


def held_for(state: dict[str, Any], now_ms: int, witness: Callable[[dict[str, Any], str, int], str | None] | None,
             grace_ms: float) -> str | None:
    """Why the tick due now must wait for the camera, or None to tick.

    Only a tick that would put a seat over time for the first time waits: for each timer past
    its deadline and not yet flagged, within ``grace_ms`` (table ms) of that deadline, ask
    ``witness(state, seat, deadline_ms)``. Past the grace the tick goes whatever the camera says,
    so a hand held over the zone cannot stop the clock.
    """
    if witness is None or grace_ms <= 0:
        return None
    deal = state.get("deal")
    if not deal or deal.get("phase") == "over":
        return None
    for seat, timer in sorted((deal.get("timers") or {}).items()):
        deadline = int(timer["deadline_ms"])
        if timer.get("flagged") or now_ms <= deadline or now_ms - deadline >= grace_ms:
            continue
        why = witness(state, seat, deadline)
        if why:
            return f"{seat}: {why}"
    return None


def run_ticker(get_runner: Callable[[], Any], clock: TableClock, stop: threading.Event, *,
               witness: Callable[[dict[str, Any], str, int], str | None] | None = None,
               grace_s: float = DEFAULT_CAMERA_GRACE_S,
               paused: Callable[[dict[str, Any]], str | None] | None = None) -> None:
    """Submit ``clock_ticked`` when :func:`next_tick_ms` says, until ``stop`` is set.

    Deadlines come from the engine's state, so after a restart the ticks fall on the same
    deadlines as before it. With ``witness`` (the camera), a tick that would put a seat over time
    is held while :func:`held_for` says so, for at most ``grace_s`` real seconds past the
    deadline (the camera's lag is real time, whatever the table's speed); the tick owed is sent
    as soon as the hold ends (unless the play that came in has stopped the timer).

    ``paused(state)``: a reason to hold every tick, without bound, while it lasts (the partition
    screen offline: the countdowns are dark and the pass buttons dead, so no one can be over time);
    the tick owed goes when it ends."""
    grace_ms = clock.table_s(grace_s) * 1000.0
    owed = False  # a tick fell due while held: send it as soon as the hold ends
    while not stop.is_set():
        runner = get_runner()
        if runner is None:
            stop.wait(0.1)
            continue
        now = clock.now_ms()
        due = next_tick_ms(runner.raw_state(), now)
        if owed:
            due = now if due is not None else None
            owed = due is not None
        # Wake at the due time, but look again at least every real 0.2 s: a play changes the timers.
        # A clock standing still (the demo's ActorClock) can leave a tick a few table ms away for a
        # while: the floor keeps this loop from spinning on it.
        wait = 0.2 if due is None else min(0.2, max(0.0, clock.real_s((due - now) / 1000.0)))
        if due is not None and due > now:
            wait = max(wait, MIN_WAIT_S)
        if wait > 0 and stop.wait(wait):
            return
        now = clock.now_ms()
        if due is None or now < due:
            continue
        why = (paused(runner.raw_state()) if paused is not None else None) or \
            held_for(runner.raw_state(), now, witness, grace_ms)
        if why:
            if not owed:
                log.debug("tick held: %s", why)
            owed = True
            if stop.wait(HOLD_POLL_S):
                return
            continue
        owed = False
        runner.submit({"type": "clock_ticked", "source": "clock", "data": {}}, wait=True, timeout=2.0)
