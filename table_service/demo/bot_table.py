"""The demo's bot driver: four bots, the dealer and the demo referee acting on one table.

:class:`BotTable` watches the engine's state and makes the bots act, the referee answer, and the
dealer deal. What it touches goes through an :class:`Actuator`; the demo's is
:class:`~table_service.demo.scene.SceneActuator`. Everything the bots really did is in
:attr:`BotTable.truth`, which :func:`~table_service.demo.scorecard.compare_with_log` compares with
the engine's log.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import logging
import random
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from table_service.demo.bots import BotPlayer, Dealer, Decision, TruthLog, make_bots
from table_service.demo.options import BOT_NAMES, DemoOptions
from table_service.rules.cards import parse_cards
from table_service.rules.patterns import Play, classify
from table_service.rules.ruleset import get_ruleset
from table_service.rules.seats import PLAY_ORDER, partner
from table_service.rules.tribute import is_anti_tribute

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



@dataclass(order=True)
class _Job:
    due: float
    """Table ms at which the job is due (the simulated moment its actor chose)."""
    n: int
    key: tuple = field(compare=False)
    fn: Callable[[], None] = field(compare=False)
    hold: int | None = field(default=None, compare=False)
    """The clock's hold at ``due`` (an :class:`~table_service.table.clock.ActorClock`), or None."""


class BotTable:
    """Bots, dealer and demo referee driving one table through an :class:`Actuator`.

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

    def _schedule(self, key: tuple, delay_table_s: float, fn: Callable[[], None]) -> None:
        """Run ``fn`` ``delay_table_s`` table seconds from now (at least ``min_gap_real_s`` real
        seconds, so a very high speed keeps actions ordered), holding the clock there."""
        if key in self._job_keys:
            return
        delay = max(self.clock.table_s(self.opt.min_gap_real_s), delay_table_s)
        due = int(self.clock.now_ms() + delay * 1000.0)  # whole ms, as the clock reads
        hold = self._hold_fn(due) if self._hold_fn is not None else None
        self._job_keys.add(key)
        heapq.heappush(self._jobs, _Job(due, next(self._n), key, fn, hold))

    def _release(self, token: int | None) -> None:
        if token is not None and self._release_fn is not None:
            self._release_fn(token)

    def _release_later(self, token: int | None) -> None:
        """Release ``token`` once the driver has stepped on the state that follows."""
        if token is not None:
            self._to_release.append(token)
            with self._cond:
                self._cond.notify_all()

    def _release_held(self) -> None:
        todo, self._to_release = self._to_release, []
        for token in todo:
            self._release(token)

    def _drop_inflight(self) -> None:
        """Forget the action in flight (its hold goes with it)."""
        f, self._inflight = self._inflight, None
        if f is not None:
            self._release_later(f.get("hold"))

    def _cancel(self, pred: Callable[[tuple], bool]) -> None:
        keep = [j for j in self._jobs if not pred(j.key)]
        for j in self._jobs:
            if pred(j.key):
                self._release(j.hold)
        self._job_keys = {j.key for j in keep}
        self._jobs = keep
        heapq.heapify(self._jobs)

    def _run_due(self) -> None:
        now = self.clock.now_ms()
        waiting: list[_Job] = []
        while self._jobs and self._jobs[0].due <= now and not self._stop.is_set():
            job = heapq.heappop(self._jobs)
            # Bot actions wait for the previous physical action to be seen by the engine (the
            # clock, held by that action, waits with them); the referee's jobs do not.
            if job.key[0] == "bot" and self._inflight is not None:
                if self._inflight.get("question") is not None and job.hold is not None:
                    # The action in flight is a question the referee answers in table time, later
                    # than this job: holding the clock here would stop it short of the answer for
                    # ever (the demo hung at an uncertain read in deal 3 of seed 21). The job runs
                    # when the answer has come; the clock goes on meanwhile.
                    self._release(job.hold)
                    job.hold = None
                waiting.append(job)
                continue
            self._job_keys.discard(job.key)
            before = self._inflight
            job.fn()
            if self._inflight is not None and self._inflight is not before and self._inflight.get("hold") is None:
                # A physical action is on its way: the clock stays at its moment until the
                # engine has applied it (see _after_action).
                self._inflight["hold"] = job.hold
            else:
                self._release_later(job.hold)
        for job in waiting:
            heapq.heappush(self._jobs, job)

    def _think(self) -> float:
        lo, hi = self.opt.think_s
        return self.rng.uniform(lo, hi)

    def _referee_delay(self) -> float:
        lo, hi = self.opt.referee_s
        return self.rng.uniform(lo, hi)

    def _ruling_delay(self) -> float:
        """Table seconds before the demo referee answers a question or rules on a flag: its own
        pace plus the pause left to a person at the panel (real seconds, whatever the speed)."""
        return self._referee_delay() + self.clock.table_s(max(0.0, self.opt.referee_pause_s))

    def _ref(self, etype: str, data: dict[str, Any]) -> Any:
        res = self._submit({"type": etype, "source": "panel", "role": "referee", "data": data})
        if res is not None and getattr(res, "accepted", True) is False:
            self.errors.append(f"referee {etype} {data} rejected: {res.error}")
        return res

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
            # holding the clock at its own time; this action's hold ends here).
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

    def _check_stuck(self) -> None:
        f = self._inflight
        if f is None or f.get("question") is not None:
            return
        if time.monotonic() - f["since"] < self.opt.stuck_real_s:
            return
        deal = self._state_fn().get("deal") or {}
        self.errors.append(f"{f['kind']} by {f['seat']} not seen by the engine within {self.opt.stuck_real_s} s "
                           f"(zone {self.actuator.zone(f['seat'])}, phase {deal.get('phase')}, "
                           f"cards {f.get('cards')})")
        self._referee_enters(f, "not_seen")

    def _referee_enters(self, f: dict[str, Any], why: str) -> None:
        """The referee enters at the panel what the camera/buttons did not deliver (looking at
        the zone for the cards)."""
        if self._inflight is not f:
            return
        seat, kind = f["seat"], f["kind"]
        if kind in ("play", "tribute", "return"):
            f["cards"] = self.actuator.zone(seat) or f["cards"]
        if kind == "play":
            res = self._ref("cards_played", {"seat": seat, "cards": f["cards"]})
        elif kind == "pass":
            res = self._ref("passed", {"seat": seat})
        elif kind == "tribute":
            res = self._ref("tribute_given", {"seat": seat, "card": f["cards"][0]})
        elif kind == "return":
            res = self._ref("return_given", {"seat": seat, "card": f["cards"][0]})
        else:
            res = self._ref("report_pressed", {"seat": seat})
        self.referee_entered.append({"seat": seat, "kind": kind, "cards": f.get("cards"), "why": why})
        if res is not None and getattr(res, "accepted", False):
            self._after_action(f, res.seq)
        else:
            self._drop_inflight()

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

    def _maybe_new_round(self, st: dict[str, Any]) -> None:
        if self.opt.deals is not None and self.deals_done >= self.opt.deals:
            self.done.set()
            return
        self._schedule(("ref", "round", self.rounds_started), 1.0, self._new_round)

    def _new_round(self) -> None:
        st = self._state_fn()
        if st.get("round") is not None and st["round"].get("status") != "over":
            return
        if self._next_round is not None:
            data = self._next_round(st)
            if data is not None:
                self.rounds_started += 1
                self._ref("round_set_up", data)
            return
        fmt: dict[str, Any]
        if self.opt.deals is not None:
            fmt = {"kind": "deals", "deals": max(1, self.opt.deals - self.deals_done)}
        else:
            fmt = {"kind": "past_a"}
        self.rounds_started += 1
        self._ref("round_set_up", {"players": dict(BOT_NAMES), "ruleset": self.opt.ruleset, "format": fmt,
                                   "teams": {"EW": "东西 / EW", "NS": "南北 / NS"}})

    def _cut(self) -> None:
        st = self._state_fn()
        if (st.get("round") or {}).get("status") != "cutting":
            return
        deck = self.dealer.shuffled(self._deal_counter)
        k = self.rng.randrange(6, len(deck) - 6)
        while deck[k].is_joker or (deck[k].rank == "2" and deck[k].suit == "h"):
            k += 1
        self._cut_index = k
        self._ref("first_cut_recorded", {"card": str(deck[k])})

    def _deal(self) -> None:
        st = self._state_fn()
        rnd = st.get("round") or {}
        if rnd.get("status") not in ("drawing", "deal_over"):
            return
        data: dict[str, Any] = {}
        cut = st.get("first_cut")
        n = self._deal_counter
        if rnd.get("status") == "drawing" and cut and not cut.get("recut"):
            # The cards are drawn from E on; whoever drew the turned card leads.
            k = getattr(self, "_cut_index", 0)
            data["cut_card_holder"] = PLAY_ORDER[k % 4]
        hands = self.dealer.deal(n)
        self._deal_counter += 1
        self.actuator.clear()
        self._drop_inflight()
        self._turn_token = None
        self._tricks_seen = 0
        res = self._ref("drawing_finished", data)
        if res is None or not getattr(res, "accepted", False):
            return
        after = self._state_fn()
        deal = after["deal"]
        self._dealt = ((after.get("round") or {}).get("no"), deal["no"])
        for seat, bot in self.bots.items():
            bot.receive(hands[seat], deal["level"])
        self.truth.record("deal", deal=deal["no"], round=self._dealt[0],
                          hands={s: [str(c) for c in h] for s, h in hands.items()}, level=deal["level"])

    def _resume(self, st: dict[str, Any]) -> bool:
        """Pick up a deal in progress after a restart (the same data folder).

        The hands are the dealer's (seeded, numbered by the ``drawing_finished`` events in the
        log); what each seat has played, given and received is in the engine's state, so the bots
        get back exactly the cards they still hold. Returns False when that does not add up (the
        round is then ended and a fresh one starts).
        """
        if self._events_fn is None:
            return False
        deal = st["deal"]
        events = self._events_fn()
        drawn = [e for e in events if e["type"] == "drawing_finished"]
        if not drawn:
            return False
        k = len(drawn) - 1
        hands = {s: Counter(str(c) for c in h) for s, h in self.dealer.deal(k).items()}
        for s in PLAY_ORDER:
            hands[s].subtract(deal.get("by_seat", {}).get(s, []))
        for t in deal.get("tributes") or []:
            hands[t["from"]][t["card"]] -= 1
            if t.get("to"):
                hands[t["to"]][t["card"]] += 1
        for r in deal.get("returns") or []:
            hands[r["from"]][r["card"]] -= 1
            hands[r["to"]][r["card"]] += 1
        for s in PLAY_ORDER:
            if any(n < 0 for n in hands[s].values()) or sum(hands[s].values()) != deal["counts"][s]:
                self.errors.append(f"resume: {s}'s hand does not match the log")
                return False
        threshold = int(((st.get("round") or {}).get("ruleset") or {}).get("report_threshold", 10))
        for s, bot in self.bots.items():
            bot.receive(parse_cards(list(hands[s].elements())), deal["level"])
            bot.reported = s in (deal.get("reports") or {}) or s in (deal.get("report_due") or {}) or (
                len(bot.hand) <= threshold and len(bot.hand) < 27)
        self._dealt = ((st.get("round") or {}).get("no"), deal["no"])
        self._deal_counter = k + 1
        self.deals_done = k
        self._transfers_done = {t["seq"] for t in deal.get("tributes") or [] if t.get("to")} | {
            r["seq"] for r in deal.get("returns") or []}
        self._tricks_seen = len(deal.get("tricks") or [])
        self.truth.record("resume", deal=deal["no"], round=self._dealt[0])
        return True

    # --------------------------------------------------------------------- tribute/return

    def _take_transfers(self, deal: dict[str, Any]) -> None:
        """Move tribute and return cards between the bots once the engine has settled them."""
        tributes = deal.get("tributes") or []
        if tributes and all(t.get("to") for t in tributes):
            for t in tributes:
                if t["seq"] not in self._transfers_done:
                    self._transfers_done.add(t["seq"])
                    self.bots[t["to"]].add(parse_cards([t["card"]])[0])
        for r in deal.get("returns") or []:
            if r["seq"] not in self._transfers_done:
                self._transfers_done.add(r["seq"])
                self.bots[r["to"]].add(parse_cards([r["card"]])[0])

    def _tribute_phase(self, deal: dict[str, Any]) -> None:
        plan = deal.get("tribute_plan") or {}
        payers = list(plan.get("payers") or [])
        given = {t["from"] for t in deal.get("tributes") or []}
        if not given and is_anti_tribute([self.bots[p].hand for p in payers]):
            holders = [p for p in payers if any(c.rank == "BJ" for c in self.bots[p].hand)]
            self._schedule(("ref", "anti", deal["no"]), self._referee_delay(),
                           lambda: self._ref("anti_tribute_declared", {"seats": holders, "cards": ["BJ", "BJ"]}))
            return
        for p in payers:
            if p not in given:
                self._schedule(("bot", "tribute", deal["no"], p), self._think(), lambda p=p: self._give(p, "tribute"))

    def _return_phase(self, deal: dict[str, Any]) -> None:
        returned = {r["from"] for r in deal.get("returns") or []}
        for t in deal.get("tributes") or []:
            to = t.get("to")
            if to and to not in returned:
                self._schedule(("bot", "return", deal["no"], to), self._think(),
                               lambda s=to, payer=t["from"]: self._give(s, "return", payer))

    def _give(self, seat: str, kind: str, payer: str | None = None) -> None:
        st = self._state_fn()
        deal = st.get("deal") or {}
        if deal.get("phase") != kind:
            return
        # Still owed? (A job scheduled while this seat's card was on its way must not give twice.)
        if kind == "tribute":
            owed = seat in ((deal.get("tribute_plan") or {}).get("payers") or []) and not any(
                t["from"] == seat for t in deal.get("tributes") or [])
        else:
            owed = any(t.get("to") == seat for t in deal.get("tributes") or []) and not any(
                r["from"] == seat for r in deal.get("returns") or [])
        if not owed:
            return
        bot = self.bots[seat]
        if kind == "tribute":
            card = bot.tribute()
        else:
            card = bot.return_card(self.rules, to_partner=payer == partner(seat))
        bot.remove([card])
        entry = self.truth.record(kind, seat=seat, deal=deal["no"], cards=[str(card)])
        self._inflight = {"seat": seat, "types": {f"{kind}_given"}, "kind": kind, "deal": deal["no"],
                          "cards": [str(card)], "since": time.monotonic(), "truth": entry["n"]}
        self.actuator.lay(seat, [str(card)])

    # ------------------------------------------------------------------------------ play

    def _play_phase(self, st: dict[str, Any], deal: dict[str, Any]) -> None:
        tricks = len(deal.get("tricks") or [])
        if tricks != self._tricks_seen and self._inflight is None:
            self._tricks_seen = tricks
            self.actuator.clear()  # the trick is over: its cards are turned face down
        if self._inflight is not None or deal.get("questions"):
            return
        turn = deal.get("turn")
        if turn is None:
            return
        token = (deal["no"], tricks, len(deal["trick"]["plays"]), turn)
        if token == self._turn_token:
            return
        self._turn_token = token
        self._cancel(lambda k: k[:2] == ("bot", "play"))
        # A seat that cannot wait may play out of turn (a mistake) before the seat to act.
        others = [s for s in PLAY_ORDER if s != turn and s not in deal["finish_order"]]
        if others and self.opt.mistakes > 0:
            y = self.rng.choice(others)
            d = self.bots[y].out_of_turn()
            if d is not None:
                self._schedule(("bot", "play", token, y), self._think() * 0.5,
                               lambda y=y, d=d, t=token: self._carry_out(y, d, t))
                return
        bot = self.bots[turn]
        delay = self._think()
        # Too slow is only a mistake against a running clock (after a wrong play the engine stops
        # it); the bot then overruns the engine's own deadline by a few seconds (under the grace
        # after which the warning is automatic).
        timer = (deal.get("timers") or {}).get(turn)
        slow = timer is not None and bot.slow()
        if slow:
            left_s = (int(timer["deadline_ms"]) - self.clock.now_ms()) / 1000.0
            delay = max(0.0, left_s) + self.rng.uniform(2.5, 6.0)
        self._schedule(("bot", "play", token, turn), delay, lambda s=turn, t=token, slow=slow: self._act(s, t, slow))

    def _top(self, deal: dict[str, Any]) -> tuple[Play | None, str | None]:
        trick = deal["trick"]
        if trick.get("top") is None:
            return None, None
        entry = trick["plays"][trick["top"]]
        for p in classify(parse_cards(entry["cards"]), deal["level"]):
            if p.kind == entry["kind"] and p.rank == entry["rank"]:
                return p, entry["seat"]
        raise RuntimeError(f"top play {entry} has no matching reading")

    def _act(self, seat: str, token: tuple, slow: bool) -> None:
        st = self._state_fn()
        deal = st.get("deal") or {}
        if deal.get("phase") != "play" or deal.get("turn") != seat:
            return
        top, top_seat = self._top(deal)
        d = self.bots[seat].decide(top, top_seat, dict(deal["counts"]))
        if slow:
            self.truth.record("mistake", mistake="slow", seat=seat, deal=deal["no"])
        self._carry_out(seat, d, token)

    def _carry_out(self, seat: str, d: Decision, token: tuple) -> None:
        st = self._state_fn()
        deal = st.get("deal") or {}
        if deal.get("phase") != "play":
            return
        if d.mistake:
            self.truth.record("mistake", mistake=d.mistake, seat=seat, deal=deal["no"],
                              cards=[str(c) for c in d.cards])
        cards = [str(c) for c in d.cards]
        if d.action == "pass":
            entry = self.truth.record("pass", seat=seat, deal=deal["no"])
            self._inflight = {"seat": seat, "types": {"passed"}, "kind": "pass", "deal": deal["no"],
                              "since": time.monotonic(), "truth": entry["n"]}
            self.actuator.press(seat, "pass")
            return
        entry = self.truth.record("play", seat=seat, deal=deal["no"], cards=cards,
                                  kind=d.play.kind if d.play else None, rank=d.play.rank if d.play else None,
                                  mistake=d.mistake)
        self.bots[seat].note_played(d)
        self._inflight = {"seat": seat, "types": {"cards_played"}, "kind": "play", "deal": deal["no"],
                          "cards": cards, "report": d.report, "since": time.monotonic(), "truth": entry["n"]}
        self.actuator.lay(seat, cards)

    # --------------------------------------------------------------------------- referee

    def _referee_duties(self, st: dict[str, Any]) -> None:
        deal = st.get("deal")
        human = self.opt.referee == "human"  # questions and flags are the panel user's
        if deal and not human:
            for q in deal.get("questions") or []:
                if q["seq"] not in self._answered:
                    self._schedule(("ref", "q", q["seq"]), self._ruling_delay(), lambda q=q: self._answer(q))
        for f in st.get("flags") or []:
            if f.get("status") == "open" and f["id"] not in self._ruled and not human:
                self._schedule(("ref", "flag", f["id"]), self._ruling_delay(), lambda f=f: self._rule(f))
            if f.get("rule") == "report_missing" and f["id"] not in self._late_reports and deal:
                # Reminded by the flag, the player puts the report card down late (once).
                self._late_reports.add(f["id"])
                seat = f.get("seat")
                if seat and seat not in (deal.get("reports") or {}) and deal.get("counts", {}).get(seat, 0) > 0:
                    self._schedule(("bot", "late_report", f["id"]), self._think() * 0.5,
                                   lambda seat=seat, no=deal["no"]: self._late_report(seat, no))

    def _late_report(self, seat: str, deal_no: int) -> None:
        deal = self._state_fn().get("deal") or {}
        if deal.get("no") != deal_no or deal.get("phase") != "play" or seat in (deal.get("reports") or {}):
            return
        entry = self.truth.record("report", seat=seat, deal=deal_no, late=True)
        self._inflight = {"seat": seat, "types": {"report_pressed"}, "kind": "report", "deal": deal_no,
                          "since": time.monotonic(), "truth": entry["n"]}
        self.actuator.press(seat, "report")

    def _answer(self, q: dict[str, Any]) -> None:
        if q["seq"] in self._answered:
            return
        self._answered.add(q["seq"])
        deal = self._state_fn().get("deal") or {}
        if not any(o["seq"] == q["seq"] for o in deal.get("questions") or []):
            return  # a person at the panel answered it first
        truth = self.actuator.zone(q["seat"])
        right = Counter(truth) == Counter(q["cards"]) and list(truth) == list(q["cards"])
        self.truth.record("question", seq=q["seq"], seat=q["seat"], camera=list(q["cards"]), truth=list(truth),
                          right=right)
        if right:
            self._ref("play_confirmed", {"ref": q["seq"]})
        else:
            self._ref("play_corrected", {"ref": q["seq"], "cards": list(truth)})

    def _rule(self, f: dict[str, Any]) -> None:
        if f["id"] in self._ruled:
            return
        self._ruled.add(f["id"])
        now = next((o for o in self._state_fn().get("flags") or [] if o.get("id") == f["id"]), None)
        if now is None or now.get("status") != "open":
            return  # ruled on at the panel meanwhile
        # The demo referee upholds what the engine saw; penalties are the chief's business and
        # the demo gives none (a foul would end deals early and hide the rest of the play).
        self._ref("flag_confirmed", {"flag": f["id"], "note": "演示裁判 / demo referee"})

    # --------------------------------------------------------------------------- summary

    def hands_consistent(self, st: dict[str, Any]) -> bool:
        """Do the engine's card counts match the bots' hands (the camera missed nothing)?"""
        deal = st.get("deal")
        if not deal or self._dealt != ((st.get("round") or {}).get("no"), deal.get("no")):
            return True
        return all(deal["counts"][s] == len(self.bots[s].hand) for s in PLAY_ORDER)
