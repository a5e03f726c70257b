"""The demo's clock waits for its simulated players (:class:`ActorClock`): it runs freely up to
the earliest hold, stands still there, and goes on from where it stood once released — the
machine's lag is never table time (issue #20 item 7)."""

from __future__ import annotations

import json
import time
from pathlib import Path

from table_service.table.clock import ActorClock, TableClock

SPEED = 100.0  # 10 ms real = 1 table s


def frozen(clock: ActorClock) -> tuple[int, int]:
    """Stop ``clock`` now and return (token, the instant it stands at).

    WHY: at ×100 a hold a few table seconds ahead is a few ms of real time; on a busy machine the
    test thread can be descheduled that long between reading the clock and placing the hold, and
    the hold then lands in the past (a CI-like load made exactly that). Holds placed while the
    clock stands still are ahead of it whatever the load.
    """
    token = clock.hold()
    return token, clock.now_ms()


def test_runs_freely_until_the_earliest_hold_then_stands_still(tmp_path: Path) -> None:
    clock = ActorClock(SPEED, tmp_path / "clock.json")
    freeze, start = frozen(clock)
    at = start + 2_000
    later = clock.hold(at + 3_000)
    token = clock.hold(at)
    clock.release(freeze)
    time.sleep(0.08)  # 8 table s free-running: it stops at the earlier hold
    assert clock.now_ms() == at
    time.sleep(0.2)
    assert clock.now_ms() == at, "a held clock does not move, however long the machine takes"
    released_wall = time.time()
    clock.release(token)
    after = clock.now_ms()
    ran_ms = (time.time() - released_wall) * 1000.0 * SPEED
    # Free-running it would read at + 26 s or more; released, it may only have run for as long
    # as the wall clock ran since the release (however slow the machine was in between).
    assert at <= after <= at + ran_ms + 1, "released, it goes on from where it stood (no jump)"
    time.sleep(0.08)
    assert clock.now_ms() == at + 3_000  # the next hold stops it again
    clock.release(later)
    clock.release(later)  # twice is harmless
    assert clock.held_real_s >= 0.1 and clock.holds == 3  # the freeze, then the two holds


def test_a_hold_in_the_past_stops_the_clock_now() -> None:
    clock = ActorClock(SPEED)
    time.sleep(0.02)
    now = clock.now_ms()
    token = clock.hold(now - 5_000)
    held = clock.now_ms()
    assert held >= now, "the clock never goes back"
    time.sleep(0.03)
    assert clock.now_ms() == held
    clock.release(token)


def test_at_wall_maps_instants_through_the_standstill() -> None:
    clock = ActorClock(SPEED)
    freeze, t0 = frozen(clock)
    token = clock.hold(t0 + 1_000)
    clock.release(freeze)
    time.sleep(0.1)
    during = time.time()  # the clock stands at t0 + 1000 now
    time.sleep(0.1)
    released_wall = time.time()
    clock.release(token)
    time.sleep(0.02)
    after = time.time()
    assert clock.at_wall(during) == t0 + 1_000, "a frame taken while it stood is put where it stood"
    assert clock.at_wall(after) <= clock.now_ms()
    assert clock.at_wall(after) >= t0 + 1_000 + 1_000  # 20 ms real after the release = 2 table s
    # The free-running time line would put it 20 s later still: after the release, only the wall
    # time since the release counts (measured, so a slow machine cannot fail it).
    ran_ms = (after - released_wall) * 1000.0 * SPEED
    assert clock.at_wall(after) - (t0 + 1_000) <= ran_ms + 1, "not the free-running time line (no jump)"


def test_a_restart_continues_the_shifted_time_line(tmp_path: Path) -> None:
    path = tmp_path / "clock.json"
    clock = ActorClock(SPEED, path)
    freeze, t0 = frozen(clock)
    token = clock.hold(t0 + 500)
    clock.release(freeze)
    time.sleep(0.2)  # 20 table s of free running held back to 0.5 s
    released_wall = time.time()
    clock.release(token)
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["speed"] == SPEED and saved["origin_table"] == t0 + 500
    again = ActorClock(SPEED, path)
    now = again.now_ms()
    ran_ms = (time.time() - released_wall) * 1000.0 * SPEED
    assert t0 + 500 <= now <= t0 + 500 + ran_ms + 1  # not the 20 s of free running
    # The production clock reads the same file format (a demo folder opened at the same speed):
    # both read the same instant, up to the wall time between the two readings.
    before_wall = time.time()
    production, actor = TableClock(SPEED, path).now_ms(), again.now_ms()
    between_ms = (time.time() - before_wall) * 1000.0 * SPEED
    assert 0 <= actor - production <= between_ms + 1
