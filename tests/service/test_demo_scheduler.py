"""The demo's job scheduler: a bot waits for the action in flight; it holds the clock only when no
referee is on that action (else the referee's entry, due later in table time, would never come)."""

from __future__ import annotations

import itertools
import threading
from types import SimpleNamespace
from typing import Any

import pytest

from table_service.demo.scheduler import JobScheduler


class _Clock:
    def __init__(self) -> None:
        self.ms = 0

    def now_ms(self) -> int:
        return self.ms

    def table_s(self, real_s: float) -> float:
        return real_s


class _Table(JobScheduler):
    def __init__(self) -> None:
        self.clock = _Clock()
        self.opt = SimpleNamespace(min_gap_real_s=0.0)
        self._jobs: list[Any] = []
        self._job_keys: set[tuple] = set()
        self._n = itertools.count()
        self._inflight: dict[str, Any] | None = None
        self._to_release: list[int] = []
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self.held: set[int] = set()
        self._tokens = itertools.count(1)
        self.ran: list[str] = []

    def _hold_fn(self, due: int | None) -> int:
        token = next(self._tokens)
        self.held.add(token)
        return token

    def _release_fn(self, token: int) -> None:
        self.held.discard(token)


@pytest.mark.parametrize("inflight, holds", [
    ({"seat": "N", "kind": "tribute"}, True),  # the engine has not seen it yet: the clock waits with the bot
    ({"seat": "N", "kind": "play", "question": 12}, False),  # the referee answers a question
    ({"seat": "N", "kind": "tribute", "referee_call": 14}, False),  # the referee enters a doubted tribute
])
def test_a_waiting_bot_holds_the_clock_only_while_no_referee_is_on_the_action(inflight, holds):
    t = _Table()
    t._inflight = inflight
    t._schedule(("bot", "play", "E"), 1.0, lambda: t.ran.append("bot"))
    t._schedule(("ref", "enter", "N", 14), 3.0, lambda: t.ran.append("ref"))
    t.clock.ms = 1000
    t._run_due()
    assert t.ran == [] and len(t._jobs) == 2  # the bot waits for the action in flight either way
    bot_hold = 1
    assert (bot_hold in t.held) is holds
    t.clock.ms = 3000  # the clock went on (it could only if the bot no longer held it at 1 s)
    t._run_due()
    assert t.ran == ["ref"]
    t._inflight = None
    t._run_due()
    assert t.ran == ["ref", "bot"]
