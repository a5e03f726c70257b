"""The demo's bot driver: four bots, the dealer and the demo referee acting on one table.

Split by concern: scheduler, dealer, players and referee are mixins in modules of their own.

:class:`BotTable` watches the engine's state and makes the bots act, the referee answer, and the
dealer deal. What it touches goes through an :class:`Actuator`; the demo's is
:class:`~table_service.demo.scene.SceneActuator`. Everything the bots really did is in
:attr:`BotTable.truth`, which :func:`~table_service.demo.scorecard.compare_with_log` compares with
the engine's log.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
import random
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from table_service.demo.bots import BotPlayer, Dealer, TruthLog, make_bots
from table_service.demo.dealer import DealerDuties
from table_service.demo.options import DemoOptions
from table_service.demo.players import BotPlayers
from table_service.demo.referee import DemoReferee
from table_service.demo.scheduler import JobScheduler, _Job
from table_service.rules.ruleset import get_ruleset

log = logging.getLogger(__name__)


class Actuator(Protocol):
    """What a bot (or the demo referee) can do to the physical table."""

    def lay(self, seat: str, cards: list[str]) -> None:
        """Put ``cards`` (left to right) in ``seat``'s play zone, replacing what lay there."""

    def clear(self, seats: list[str] | None = None) -> None:
        """Turn the played cards face down (zones empty); all zones when ``seats`` is None."""

    def press(self, seat: str, button: str) -> None:
        """Press and release one of ``seat``'s buttons (report, pass, referee)."""

    def zone(self, seat: str) -> list[str]:
        """What lies face up in ``seat``'s zone now (the referee looks at the table)."""



class BotTable(JobScheduler, DealerDuties, BotPlayers, DemoReferee):
    """Bots, dealer and demo referee driving one table through an :class:`Actuator`.

    The rooms: :mod:`~table_service.demo.scheduler` (jobs in table time, clock holds),
    :mod:`~table_service.demo.dealer`, :mod:`~table_service.demo.players` (the four bots),
    :mod:`~table_service.demo.referee`; this class holds their shared state, runs the driver's
    thread and matches what the engine applied to the action in flight.

    :param submit: submits an event to the engine (the service's ``submit``); used by the demo
        referee only (round set-up, drawing finished, answers, rulings).
    :param state: returns the engine's state view.
    :param subscribe: the runner's ``subscribe``.
    :param clock: the service's :class:`~table_service.table.service.TableClock`. With an
        :class:`~table_service.table.clock.ActorClock` (the demo's) every job holds the clock at
        its due time, and an action's hold lasts until the engine has applied it and the driver
        has scheduled what follows: the machine's lag (this thread woken late, the camera's
        render-settle-read, a button through the pty) then never counts as a player's time, so
        the only late turns are the injected slow ones. The hold is bounded: an action the
        engine has not seen within ``stuck_real_s`` is entered by the referee (and counted).
    :param next_round: where a new round's ``round_set_up`` data comes from, given the state
        (the event demo's camera table: the hub's assignment); ``None`` from it means "not yet"
        (asked again shortly). Without it the referee sets up the bots' own rounds.
    """

    def __init__(self, submit: Callable[..., Any], state: Callable[[], dict[str, Any]],
                 subscribe: Callable[[Callable[[dict, dict], None]], Callable[[], None]],
                 actuator: Actuator, clock: Any, options: DemoOptions,
                 events: Callable[[], list[dict[str, Any]]] | None = None,
                 next_round: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None) -> None:
        self._next_round = next_round
        self._submit = submit
        self._events_fn = events
        self._state_fn = state
        self.actuator = actuator
        self.clock = clock
        self.opt = options
        self.bots: dict[str, BotPlayer] = make_bots(options.seed, options.mistakes, options.mistake_kinds)
        self.dealer = Dealer(options.seed)
        self.truth = TruthLog()
        self.rng = random.Random(f"demo:{options.seed}")
        self.rules = get_ruleset("jiangsu-2013")
        self._cond = threading.Condition()
        self._events: deque[dict[str, Any]] = deque()
        self._jobs: list[_Job] = []
        self._job_keys: set[tuple] = set()
        self._n = itertools.count()
        self._stop = threading.Event()
        self.done = threading.Event()
        self._thread: threading.Thread | None = None
        self._inflight: dict[str, Any] | None = None
        self._turn_token: tuple | None = None
        self._answered: set[int] = set()
        self._ruled: set[str] = set()
        self._late_reports: set[str] = set()
        self._transfers_done: set[int] = set()
        self._dealt: tuple[int, int] | None = None  # (round no, deal no) whose hands the bots hold
        self._deal_counter = 0
        self._tricks_seen = 0
        self._ended: set[tuple] = set()
        self.deals_done = 0
        self.rounds_started = 0
        self.errors: list[str] = []
        self.referee_entered: list[dict[str, Any]] = []
        self._hold_fn: Callable[[float | None], int] | None = getattr(clock, "hold", None)
        self._release_fn: Callable[[int | None], None] | None = getattr(clock, "release", None)
        self._to_release: list[int] = []
        self._unsub = subscribe(self._on_event)

    # ---------------------------------------------------------------------------- running

    def start(self) -> BotTable:
        self._thread = threading.Thread(target=self._run, name="bot-table", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        with self._cond:
            self._cond.notify_all()
        if self._thread is not None:
            self._thread.join(5)
        with contextlib.suppress(Exception):
            self._unsub()

    def wait_done(self, timeout: float | None = None) -> bool:
        """Block until the requested number of deals has been played."""
        return self.done.wait(timeout)

    def _on_event(self, event: dict[str, Any], _state: dict[str, Any]) -> None:
        """Runner subscriber (engine thread): just queue and wake the driver."""
        with self._cond:
            self._events.append(event)
            self._cond.notify_all()

    def _run(self) -> None:
        try:
            while not self._stop.is_set():
                with self._cond:
                    timeout = 0.0 if self._to_release else 0.2
                    if self._jobs:
                        ahead = (self._jobs[0].due - self.clock.now_ms()) / 1000.0
                        # A due job waiting for the action in flight is woken by its event.
                        timeout = min(timeout, max(0.0, self.clock.real_s(ahead)) if ahead > 0 else 0.05)
                    if not self._events and timeout > 0:
                        self._cond.wait(timeout)
                    events = list(self._events)
                    self._events.clear()
                for ev in events:
                    self._on_applied(ev)
                self._check_stuck()
                self._step(self._state_fn())
                # Only now, with what follows scheduled (and holding the clock at its own time),
                # does the clock go on from the moment the finished action was made.
                self._release_held()
                self._run_due()
        except Exception as exc:  # the demo must say why it stopped, not hang silently
            log.exception("bot table stopped")
            self.errors.append(f"driver crashed: {exc!r}")
            self.done.set()

    def _drop_inflight(self) -> None:
        """Forget the action in flight (its hold goes with it)."""
        f, self._inflight = self._inflight, None
        if f is not None:
            self._release_later(f.get("hold"))

    # -------------------------------------------------------------------- engine feedback

    def _on_applied(self, ev: dict[str, Any]) -> None:
        """Match an applied event to the physical action in flight, if it is its result."""
        inflight = self._inflight
        data = ev.get("data") or {}
        if inflight is None:
            return
        if ev["type"] in inflight["types"] and data.get("seat") == inflight["seat"]:
            if ev["type"] == "cards_played" and data.get("uncertain") and ev.get("source") == "camera":
                # The play is on the record (its time included); what it is goes to the referee,
                # whose answer is a job of its own: the clock goes on.
                inflight["question"] = ev["seq"]
                self._release_later(inflight.pop("hold", None))
                return
            self._after_action(inflight, ev["seq"])
        elif ev["type"] in ("play_confirmed", "play_corrected") and inflight.get("question") == data.get("ref"):
            self._after_action(inflight, inflight["question"])
        elif ev["type"] == "referee_called" and data.get("seat") == inflight["seat"] and inflight["kind"] in (
                "tribute", "return", "play") and ev.get("source") == "camera":
            # The camera could not read the cards: the referee looks and enters them (a job
            # holding the clock at its own time; this action's hold ends here, and the bots'
            # next actions wait for the entry without holding the clock short of it).
            inflight["referee_call"] = ev["seq"]
            self._release_later(inflight.pop("hold", None))
            self._schedule(("ref", "enter", inflight["seat"], ev["seq"]), self._referee_delay(),
                           lambda f=inflight: self._referee_enters(f, "unreadable"))

    def _after_action(self, inflight: dict[str, Any], seq: int) -> None:
        self._inflight = None
        self._release_later(inflight.get("hold"))
        self.truth.entries[inflight["truth"]]["seq"] = seq
        if inflight.get("report"):
            seat = inflight["seat"]
            self.truth.record("report", seat=seat, deal=inflight["deal"], after_seq=seq)
            self._inflight = {"seat": seat, "types": {"report_pressed"}, "kind": "report", "deal": inflight["deal"],
                              "since": time.monotonic(), "truth": len(self.truth.entries) - 1,
                              "hold": self._hold_fn(None) if self._hold_fn is not None else None}
            self.actuator.press(seat, "report")

    # ---------------------------------------------------------------------------- the step

    def _step(self, st: dict[str, Any]) -> None:
        self._referee_duties(st)
        rnd = st.get("round")
        deal = st.get("deal")
        if rnd is not None and deal is not None and deal.get("phase") == "over":
            key = (rnd.get("no"), deal.get("no"))
            if key not in self._ended:
                self._ended.add(key)
                self.deals_done += 1
                self.actuator.clear()
        if rnd is None or rnd.get("status") == "over":
            self._maybe_new_round(st)
            return
        status = rnd.get("status")
        deal = st.get("deal")
        if status == "cutting":
            self._schedule(("ref", "cut", self.rounds_started), 1.0, self._cut)
            return
        if status in ("drawing", "deal_over"):
            if self.opt.deals is not None and self.deals_done >= self.opt.deals:
                self.done.set()
                return
            self._schedule(("ref", "deal", rnd.get("no"), len(st.get("score_sheet") or [])),
                           self.opt.between_deals_s if status == "deal_over" else 1.0, self._deal)
            return
        if deal is None:
            return
        key = (rnd.get("no"), deal.get("no"))
        if self._dealt != key:
            # A deal this driver did not deal (a restart on an old log): it cannot go on with
            # hands it does not know; the referee ends the round so a fresh one starts.
            if self._dealt is None and not self._resume(st):
                self._schedule(("ref", "end", key), 1.0,
                               lambda: self._ref("round_ended", {"reason": "演示重启 / demo restarted"}))
            return
        self._take_transfers(deal)
        phase = deal.get("phase")
        if phase == "tribute":
            self._tribute_phase(deal)
        elif phase == "return":
            self._return_phase(deal)
        elif phase == "play":
            self._play_phase(st, deal)






















