"""``guandan-table demo``: a whole simulated table, on any machine, with no hardware.

Four :mod:`bots <table_service.bots>` sit at the table. They act only *physically*: a play is
cards laid in the seat's play zone of a synthetic overhead scene, which the synthetic camera
renders from real card artwork and the real vision pipeline reads; a pass, a report card or a call
for the referee is a button pressed on the emulated screen controller (on a pseudo-terminal) or on
mock GPIO pins. The engine therefore learns of the bots' cards exactly as it would at a real
table, through the camera — the demo never hands it the cards. A demo referee answers the
engine's questions (uncertain reads) by looking at the zone, as a person would, and rules on flags.

:class:`BotTable` is that driver: it watches the engine's state and makes the bots act, the
referee answer, and the dealer deal. What it touches goes through an :class:`Actuator`; the demo's
is :class:`SceneActuator`. Everything the bots really did is in :attr:`BotTable.truth`, which the
summary compares with the engine's log (recognition accuracy; flags raised against mistakes).
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

from table_service.bots import MISTAKE_KINDS, BotPlayer, Dealer, Decision, TruthLog, make_bots
from table_service.rules import (
    PLAY_ORDER,
    Card,
    Play,
    classify,
    get_ruleset,
    is_anti_tribute,
    parse_cards,
    partner,
)

log = logging.getLogger(__name__)

#: Which flag rule each injected mistake should raise.
MISTAKE_FLAGS: dict[str, str] = {
    "out_of_turn": "out_of_turn",
    "missed_report": "report_missing",
    "slow": "time_over",
    "non_beating": "does_not_beat",
}
#: Flags that are not violations by a player (a referee call, the engine asking the chief).
NEUTRAL_FLAGS: frozenset[str] = frozenset({"referee_call", "penalty_escalation"})

BOT_NAMES: dict[str, str] = {"E": "东 · 机器人", "S": "南 · 机器人", "W": "西 · 机器人", "N": "北 · 机器人"}


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


@dataclass
class DemoOptions:
    """Options of a simulated table (the demo's command line)."""

    seed: int = 0
    speed: float = 1.0
    deals: int | None = None
    """Stop after this many deals; ``None``: play on (new rounds) until stopped."""
    mistakes: float = 0.0
    mistake_kinds: tuple[str, ...] = MISTAKE_KINDS
    think_s: tuple[float, float] = (1.0, 3.0)
    """Table seconds a bot thinks before acting (uniform in this range)."""
    referee_s: tuple[float, float] = (1.0, 2.0)
    """Table seconds the demo referee takes to answer a question or rule on a flag."""
    between_deals_s: float = 4.0
    min_gap_real_s: float = 0.05
    """A floor under every pause in real seconds, so a very high speed keeps actions ordered."""
    stuck_real_s: float = 12.0
    """A physical action not seen by the engine within this many real seconds is entered by the
    referee at the panel (and counted as a miss of the camera)."""
    ruleset: str = "jiangsu"


@dataclass(order=True)
class _Job:
    due: float
    n: int
    key: tuple = field(compare=False)
    fn: Callable[[], None] = field(compare=False)


class BotTable:
    """Bots, dealer and demo referee driving one table through an :class:`Actuator`.

    :param submit: submits an event to the engine (the service's ``submit``); used by the demo
        referee only (round set-up, drawing finished, answers, rulings).
    :param state: returns the engine's state view.
    :param subscribe: the runner's ``subscribe``.
    :param clock: the service's :class:`~table_service.service.TableClock`.
    """

    def __init__(self, submit: Callable[..., Any], state: Callable[[], dict[str, Any]],
                 subscribe: Callable[[Callable[[dict, dict], None]], Callable[[], None]],
                 actuator: Actuator, clock: Any, options: DemoOptions,
                 events: Callable[[], list[dict[str, Any]]] | None = None) -> None:
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
                    timeout = 0.5
                    if self._jobs:
                        timeout = max(0.0, min(timeout, self._jobs[0].due - time.monotonic()))
                    if not self._events and timeout > 0:
                        self._cond.wait(timeout)
                    events = list(self._events)
                    self._events.clear()
                for ev in events:
                    self._on_applied(ev)
                self._check_stuck()
                self._step(self._state_fn())
                self._run_due()
        except Exception as exc:  # the demo must say why it stopped, not hang silently
            log.exception("bot table stopped")
            self.errors.append(f"driver crashed: {exc!r}")
            self.done.set()

    def _schedule(self, key: tuple, delay_table_s: float, fn: Callable[[], None]) -> None:
        if key in self._job_keys:
            return
        due = time.monotonic() + max(self.opt.min_gap_real_s, self.clock.real_s(delay_table_s))
        self._job_keys.add(key)
        heapq.heappush(self._jobs, _Job(due, next(self._n), key, fn))

    def _cancel(self, pred: Callable[[tuple], bool]) -> None:
        keep = [j for j in self._jobs if not pred(j.key)]
        self._job_keys = {j.key for j in keep}
        self._jobs = keep
        heapq.heapify(self._jobs)

    def _run_due(self) -> None:
        now = time.monotonic()
        while self._jobs and self._jobs[0].due <= now and not self._stop.is_set():
            job = heapq.heappop(self._jobs)
            self._job_keys.discard(job.key)
            # Bot actions wait for the previous physical action to be seen by the engine.
            if job.key[0] == "bot" and self._inflight is not None:
                job.due = now + 0.02
                self._job_keys.add(job.key)
                heapq.heappush(self._jobs, job)
                return
            job.fn()

    def _think(self) -> float:
        lo, hi = self.opt.think_s
        return self.rng.uniform(lo, hi)

    def _referee_delay(self) -> float:
        lo, hi = self.opt.referee_s
        return self.rng.uniform(lo, hi)

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
                inflight["question"] = ev["seq"]
                return
            self._after_action(inflight, ev["seq"])
        elif ev["type"] in ("play_confirmed", "play_corrected") and inflight.get("question") == data.get("ref"):
            self._after_action(inflight, inflight["question"])
        elif ev["type"] == "referee_called" and data.get("seat") == inflight["seat"] and inflight["kind"] in (
                "tribute", "return", "play") and ev.get("source") == "camera":
            # The camera could not read the cards: the referee looks and enters them.
            self._schedule(("ref", "enter", inflight["seat"], ev["seq"]), self._referee_delay(),
                           lambda f=inflight: self._referee_enters(f, "unreadable"))

    def _after_action(self, inflight: dict[str, Any], seq: int) -> None:
        self._inflight = None
        self.truth.entries[inflight["truth"]]["seq"] = seq
        if inflight.get("report"):
            seat = inflight["seat"]
            self.truth.record("report", seat=seat, deal=inflight["deal"], after_seq=seq)
            self._inflight = {"seat": seat, "types": {"report_pressed"}, "kind": "report", "deal": inflight["deal"],
                              "since": time.monotonic(), "truth": len(self.truth.entries) - 1}
            self.actuator.press(seat, "report")

    def _check_stuck(self) -> None:
        f = self._inflight
        if f is None or f.get("question") is not None:
            return
        if time.monotonic() - f["since"] < self.opt.stuck_real_s:
            return
        self.errors.append(f"{f['kind']} by {f['seat']} not seen by the engine within {self.opt.stuck_real_s} s")
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
            self._inflight = None

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
        self._inflight = None
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
        if deal:
            for q in deal.get("questions") or []:
                if q["seq"] not in self._answered:
                    self._schedule(("ref", "q", q["seq"]), self._referee_delay(), lambda q=q: self._answer(q))
        for f in st.get("flags") or []:
            if f.get("status") == "open" and f["id"] not in self._ruled:
                self._schedule(("ref", "flag", f["id"]), self._referee_delay(), lambda f=f: self._rule(f))
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


def compare_with_log(truth: TruthLog, events: list[dict[str, Any]], flags: list[dict[str, Any]]) -> dict[str, Any]:
    """The demo's scorecard: how the engine's record (camera reads, questions, flags) compares
    with what the bots really did.

    * ``plays``: bot plays; ``read_right``: plays whose camera read was right as read (certain and
      equal to the truth); ``asked``: plays that became a referee question; ``wrong_certain``:
      plays read wrongly *without* doubt (silent errors: should be 0); ``missing``: plays the
      engine has no camera event for.
    * ``flags``: flags raised per rule; ``mistakes``: mistakes injected per kind; ``flag_match``:
      whether every injected mistake raised its flag and no other (non-neutral) flag was raised.
    """
    by_seq = {e["seq"]: e for e in events}
    plays = [p for p in truth.plays if p.get("seq") is not None]
    read_right = asked = wrong_certain = 0
    cards_total = cards_right = 0
    for p in plays:
        ev = by_seq.get(p["seq"])
        if ev is None or ev["type"] != "cards_played":
            continue
        d = ev["data"]
        seen = list(d.get("cards") or [])
        if ev.get("source") != "camera":
            continue
        cards_total += len(p["cards"])
        if len(seen) == len(p["cards"]):
            cards_right += sum(1 for a, b in zip(seen, p["cards"], strict=True) if a == b)
        if d.get("uncertain"):
            asked += 1
        elif seen == p["cards"]:
            read_right += 1
        else:
            wrong_certain += 1
    missing = len(truth.plays) - len(plays)
    mistakes = Counter(m["mistake"] for m in truth.mistakes)
    raised = Counter(f["rule"] for f in flags if f.get("status") != "withdrawn")
    expected = Counter({MISTAKE_FLAGS[k]: n for k, n in mistakes.items()})
    relevant = Counter({k: n for k, n in raised.items() if k not in NEUTRAL_FLAGS})
    return {
        "plays": len(truth.plays),
        "read_right": read_right,
        "asked": asked,
        "wrong_certain": wrong_certain,
        "missing": missing,
        "card_accuracy": (cards_right / cards_total) if cards_total else None,
        "exact_read_rate": (read_right / len(plays)) if plays else None,
        "mistakes": dict(mistakes),
        "flags": dict(raised),
        "expected_flags": dict(expected),
        "flag_match": relevant == expected,
    }


def _hand_str(hand: list[Card]) -> str:
    return " ".join(str(c) for c in hand)


# ------------------------------------------------------------------------- synthetic camera


SKIN_BGR: tuple[int, int, int] = (118, 150, 200)


@dataclass
class _CameraStatus:
    """Health of the synthetic camera, in the shape of ``hardware.camera.CameraStatus``."""

    source: str = "synthetic"
    connected: bool = True
    frames: int = 0
    outages: int = 0
    error: str | None = None


class SceneCamera:
    """The synthetic overhead camera of the demo: a ``hardware.camera``-style frame source
    (``frames()``, ``close()``, ``status``) whose frames :class:`vision.synth.TableRenderer` draws
    from real card artwork.

    The bots change the scene (:meth:`set_zones`); each change is filmed as a player does it: an
    arm reaches over the zone, the cards appear under it, the arm withdraws, then the table lies
    still. A full render happens once per change (the cards), the arm is drawn over it, and a
    still table repeats its last frame, so the cost is per play, not per frame.

    ``realtime``: frames come at ``fps`` on the wall clock (the service on a real table, the
    benchmark). Otherwise (the demo at a higher speed) frames come as fast as the pipeline
    takes them while something is happening and at ``idle_fps`` while the table is still; frame
    time always advances ``1/fps`` per frame, so the watcher's settle time means the same.

    Frame time is the camera's own; :meth:`frame_wall` says when (wall clock) each frame was
    taken, as a real camera's capture instant: the first frame of a change at the moment the bot
    made it (rendering is the simulation's cost, not the player's), any other frame when it is
    handed out, but never after a change not yet filmed (the frame shows the table before it).
    """

    def __init__(self, renderer: Any, *, fps: float = 15.0, realtime: bool = True, idle_fps: float = 2.0,
                 busy_frames: int = 10, seed: int = 0) -> None:
        import numpy as np

        self._np = np
        self.renderer = renderer
        self.fps = float(fps)
        self.realtime = realtime
        self.idle_fps = idle_fps
        self.busy_frames = busy_frames
        self.seed = seed
        self._lock = threading.Condition()
        self._changes: deque[tuple[dict[str, list[str]], list[str], float]] = deque()
        self._taken: dict[float, float] = {}
        self._taken_keys: deque[float] = deque()
        self._plays: dict[str, list[str]] = {}
        self._desired: dict[str, list[str]] = {}
        self._frame: Any = None
        self._light: Any = None
        self._noise: Any = None
        self._closed = False
        self.frames_out = 0
        self.renders = 0
        self.render_s = 0.0
        #: (frame time, wall time, plays) of the first still frame after each change: the frame
        #: in which the play settles physically (the benchmark measures from here).
        self.settled_marks: deque[tuple[float, float, dict[str, list[str]]]] = deque(maxlen=10000)
        self._status = _CameraStatus()

    @property
    def status(self) -> Any:
        return self._status

    def set_zones(self, changes: dict[str, list[str]]) -> None:
        """Change what lies in some zones (seat -> cards left to right; [] empties the zone)."""
        with self._lock:
            for seat, cards in changes.items():
                if cards:
                    self._desired[seat] = list(cards)
                else:
                    self._desired.pop(seat, None)
            self._changes.append((dict(self._desired), list(changes), time.time()))
            self._lock.notify_all()

    def zones(self) -> dict[str, list[str]]:
        """What lies on the table once every queued change has happened."""
        with self._lock:
            return dict(self._desired)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self._lock.notify_all()

    @property
    def closed(self) -> bool:
        return self._closed

    def _render(self, plays: dict[str, list[str]]) -> Any:
        """One camera frame of the table with ``plays``.

        The cards, felt, markers and their layout are :class:`vision.synth.TableRenderer`'s
        (real artwork); the camera model after that is a cheaper one than
        ``TableRenderer.render``'s (same perspective, a fixed lighting gradient, fixed sensor
        noise, JPEG), because the demo renders once per play on a 2-core machine.
        """
        import cv2

        from vision.synth import TableScene

        np = self._np
        t0 = time.perf_counter()
        r = self.renderer
        top = r.table_image(TableScene(plays))
        if self._light is None:
            from dataclasses import replace

            from vision.synth import apply_lighting

            rng = np.random.default_rng(self.seed + 5)
            light = apply_lighting(np.ones(top.shape, np.float32), rng, replace(r.realism, glare_prob=0.0))
            self._light = np.ascontiguousarray(light, dtype=np.float32)
            noise = np.empty((r.camera.size[1], r.camera.size[0], 3), np.int16)
            cv2.setRNGSeed(self.seed + 11)
            cv2.randn(noise, 0, 3.0)
            self._noise = noise
        top8 = cv2.convertScaleAbs(cv2.multiply(np.asarray(top, np.float32), self._light, dtype=cv2.CV_32F))
        h = r.H @ np.diag([1.0 / r.ppm, 1.0 / r.ppm, 1.0])
        frame = cv2.warpPerspective(top8, h, r.camera.size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                    borderValue=(45, 45, 50))
        frame = cv2.add(frame, self._noise, dtype=cv2.CV_8U)
        ok, buf = cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 88])
        if ok:
            frame = cv2.imdecode(buf, cv2.IMREAD_COLOR)
        self.render_s += time.perf_counter() - t0
        self.renders += 1
        return frame

    def _arm(self, frame: Any, seats: list[str], reach: float) -> Any:
        """``frame`` with a forearm reaching from each seat's edge ``reach`` (0..1) into its zone."""
        import cv2

        np = self._np
        out = frame.copy()
        layout = self.renderer.layout
        for seat in seats:
            zone = layout.zones[seat]
            zw, zh = zone.size_mm
            tip_y = zh * (1.0 - reach)
            poly = np.array([[zw / 2 - 45, zh + 420], [zw / 2 + 45, zh + 420], [zw / 2 + 40, tip_y],
                             [zw / 2 - 40, tip_y]], np.float64)
            pts = zone.to_table(poly)
            px = cv2.perspectiveTransform(pts.reshape(1, -1, 2), self.renderer.H)[0]
            cv2.fillConvexPoly(out, np.round(px).astype(np.int32), SKIN_BGR, lineType=cv2.LINE_AA)
        return out

    def frame_wall(self, t: float) -> float | None:
        """Wall-clock instant (``time.time()``) at which the frame with time ``t`` was taken
        (None for a frame too old to remember)."""
        return self._taken.get(t)

    def _stamp(self, t: float, change_wall: float | None) -> None:
        with self._lock:
            wall = time.time() if change_wall is None else change_wall
            if self._changes:
                wall = min(wall, self._changes[0][2])
        if self._taken_keys:
            wall = max(wall, self._taken[self._taken_keys[-1]])
        self._taken[t] = wall
        self._taken_keys.append(t)
        while len(self._taken_keys) > 256:
            self._taken.pop(self._taken_keys.popleft(), None)

    def frames(self) -> Any:
        """Yield ``(t, frame)`` until closed."""
        t = 0.0
        t_wall0 = time.monotonic()
        if self._frame is None:
            self._frame = self._render(self._plays)
        # A few frames of the table as it lies before anything changes: the watcher calibrates
        # on them and takes them as its reference.
        script: deque[Any] = deque([self._frame] * 5)
        since_change = 10**9
        while not self._closed:
            change_wall: float | None = None
            if not script:
                with self._lock:
                    change = self._changes.popleft() if self._changes else None
                if change is not None:
                    target, seats, change_wall = change
                    old = self._frame
                    new = self._render(target)
                    script.extend([self._arm(old, seats, 0.7), self._arm(new, seats, 0.8),
                                   self._arm(new, seats, 0.3)])
                    script.append(("settle", new, target))
                    since_change = 0
            if script:
                item = script.popleft()
                if isinstance(item, tuple):
                    _, frame, target = item
                    self._frame = frame
                    self._plays = target
                    self.settled_marks.append((t + 1.0 / self.fps, time.time(), dict(target)))
                else:
                    frame = item
            else:
                frame = self._frame
            t += 1.0 / self.fps
            since_change += 1
            if self.realtime:
                delay = t_wall0 + t - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
            elif since_change > self.busy_frames:
                with self._lock:
                    if not self._changes and not self._closed:
                        self._lock.wait(1.0 / self.idle_fps)
            self.frames_out += 1
            self._status.frames = self.frames_out
            self._stamp(t, change_wall)
            # A real camera delivers a new image every frame: in real time, so does this one
            # (the pipeline then does all its per-frame work, as it would on the Pi).
            yield t, (frame.copy() if self.realtime else frame)


class SceneActuator:
    """The bots' hands on the simulated table: cards into the synthetic scene, buttons pressed on
    the emulated screen controller or on mock GPIO pins (whichever backend the table config put
    that button on)."""

    def __init__(self, camera: SceneCamera, devices: Any, emulator: Any = None) -> None:
        self.camera = camera
        self.devices = devices
        self.emulator = emulator
        self.presses: list[tuple[float, str, str, str]] = []

    def lay(self, seat: str, cards: list[str]) -> None:
        if self.camera.zones().get(seat) == list(cards):
            # The same faces again (the second copy): the player first turns the old ones down,
            # else the zone would look unchanged.
            self.camera.set_zones({seat: []})
        self.camera.set_zones({seat: list(cards)})

    def clear(self, seats: list[str] | None = None) -> None:
        now = self.camera.zones()
        todo = [s for s in (seats or list(now)) if now.get(s)]
        if todo:
            self.camera.set_zones({s: [] for s in todo})

    def zone(self, seat: str) -> list[str]:
        return list(self.camera.zones().get(seat, []))

    def press(self, seat: str, button: str) -> None:
        dev = self.devices.seats[seat].buttons.get(button)
        backend = getattr(dev, "backend", None)
        self.presses.append((time.time(), seat, button, str(backend)))
        if backend == "gpio":
            dev.simulate_press()
        elif backend == "screen" and self.emulator is not None:
            self.emulator.press(seat, button)
        elif backend == "sim":
            dev.click()
        else:
            raise ValueError(f"{seat}.{button}: 无法按下 / cannot press a {backend} button")


# ------------------------------------------------------------------------------ the demo


DEMO_STATE_FILE = "demo.json"


def demo_table_toml(data_dir: str, screen_port: str, *, web_port: int, speed: float) -> dict[str, Any]:
    """The table config of the simulated table (as ``table.toml`` would say it).

    The countdowns, lamps, buzzer and the report and call-referee buttons are on the emulated
    screen controller; the pass buttons and the status LED on (mock) GPIO pins, so both backends
    carry real traffic.
    """
    pins = {"E": 5, "S": 6, "W": 13, "N": 19}
    return {
        "table_id": "DEMO",
        "data_dir": data_dir,
        "seats": dict(BOT_NAMES),
        "devices": {"default": "screen", "pass_button": "gpio", "status_led": "gpio"},
        "screen": {"port": screen_port, "connect_timeout_s": 5.0},
        "gpio": {"pins": {"status_led": 18, **{s: {"pass_button": p} for s, p in pins.items()}}},
        "camera": {"source": "none"},
        "service": {"speed": speed},
        "web": {"host": "127.0.0.1", "port": web_port},
    }


class Demo:
    """The whole simulated table: service, emulated screen controller, mock GPIO, synthetic camera,
    real vision, bots and the demo referee.

    :param data_dir: where the event log, the panel's users and the clock live; a fresh temporary
        folder when ``None``. Starting again on the same folder continues the same match.
    :param headless: no web panel.
    :param port: the panel's port (0: any free port).
    :param camera_size: synthetic frame size; the table spans about ``px_per_mm`` px per mm.
    """

    def __init__(self, options: DemoOptions, data_dir: str | None = None, *, headless: bool = False,
                 port: int = 8080, host: str = "127.0.0.1", design: str = "anglo",
                 camera_size: tuple[int, int] = (2400, 1800), px_per_mm: float = 2.0, fps: float = 15.0,
                 realtime: bool | None = None, out: Callable[[str], None] = print,
                 mqtt: str | None = None) -> None:
        import json
        import tempfile
        from pathlib import Path

        self.options = options
        self._tmp = None
        if data_dir is None:
            self._tmp = tempfile.mkdtemp(prefix="guandan-demo-")
            data_dir = self._tmp
        self.data_dir = Path(data_dir)
        self.data_dir.mkdir(parents=True, exist_ok=True)
        state_file = self.data_dir / DEMO_STATE_FILE
        if state_file.exists():
            # A demo resumed on its data folder keeps the seed its hands were dealt from.
            try:
                saved = json.loads(state_file.read_text(encoding="utf-8"))
                self.options.seed = int(saved["seed"])
            except (OSError, ValueError, KeyError) as exc:
                raise ValueError(f"演示状态文件无法读取 / demo state {state_file} is unreadable: {exc}") from exc
        else:
            state_file.write_text(json.dumps({"seed": options.seed}), encoding="utf-8")
        self.headless = headless
        self.port, self.host = port, host
        self.design = design
        self.camera_size, self.px_per_mm, self.fps = camera_size, px_per_mm, fps
        self.realtime = (options.speed == 1.0) if realtime is None else realtime
        self.out = out
        self.mqtt = mqtt
        self.service: Any = None
        self.emulator: Any = None
        self.devices: Any = None
        self.table: BotTable | None = None
        self.camera: SceneCamera | None = None
        self.pipeline: Any = None
        self.login: tuple[str, str] | None = None
        self.display_log: list[tuple[float, str, str]] = []
        self._started = False

    def start(self) -> Demo:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        from firmware_bridge.emulator import ScreenEmulator
        from hardware.table import TableDevices
        from table_service.service import (
            CameraPipeline,
            TableClock,
            TableService,
            make_watcher,
            parse_service_config,
        )
        from vision.geometry import default_layout
        from vision.synth import CameraView, TableRenderer

        opt = self.options
        self.emulator = ScreenEmulator(seed=opt.seed).start()
        self.emulator.on_applied = self._on_screen_applied
        cfg_data = demo_table_toml(str(self.data_dir), self.emulator.port, web_port=self.port, speed=opt.speed)
        cfg_data["web"]["host"] = self.host
        if self.mqtt:
            host, _, port = self.mqtt.rpartition(":")
            if not host or not port.isdigit():
                raise ValueError(f"--mqtt 应为 主机:端口 / --mqtt must be HOST:PORT, got {self.mqtt!r}")
            cfg_data["mqtt"] = {"enabled": True, "host": host, "port": int(port), "event": "demo"}
        cfg = parse_service_config(cfg_data, base_dir=self.data_dir)
        clock = TableClock(opt.speed, self.data_dir / "clock.json")
        self.devices = TableDevices(cfg.hardware, pin_factory=MockFactory(pin_class=MockPWMPin))
        self.devices.open(wait=True)
        # Tidy players: the synthetic rows lie in the inner part of each play zone (the watcher
        # watches the full zone, whose border band tells a hand reaching in from cards at rest).
        renderer = TableRenderer(default_layout(zone_mm=(280.0, 130.0)),
                                 camera=CameraView(size=self.camera_size, px_per_mm=self.px_per_mm),
                                 design=self.design, seed=opt.seed)
        self.camera = SceneCamera(renderer, fps=self.fps, realtime=self.realtime, seed=opt.seed)
        holder: dict[str, Any] = {}
        watcher = make_watcher(cfg.vision, possible=lambda seat: holder["svc"].possible(seat),
                               settle_s=None if self.realtime else 0.25,
                               # A still synthetic table repeats one frame: voting over copies of
                               # it would read the same picture three times.
                               read_frames=3 if self.realtime else 1)
        self.pipeline = CameraPipeline(self.camera, watcher)
        self.service = TableService(cfg, devices=self.devices, clock=clock, camera=self.pipeline,
                                    web=not self.headless, mqtt=bool(self.mqtt))
        holder["svc"] = self.service
        self.service.start()
        self.pipeline.on_status = self.service._on_camera_status
        self.service._device_status("camera", "online")
        if not self.headless:
            self.login = self._make_login()
        actuator = SceneActuator(self.camera, self.devices, self.emulator)
        runner = self.service.runner
        self.table = BotTable(self.service.submit, runner.state, runner.subscribe, actuator, clock, opt,
                              events=runner.events)
        self.table.start()
        self._started = True
        self.resumed = self._resume_report(runner.state(), clock)
        return self

    def _resume_report(self, st: dict[str, Any], clock: Any) -> str | None:
        """After a restart on a data folder with a deal in progress: what the table resumed
        (the countdown comes from the log's deadline, shown on the emulated display)."""
        deal = st.get("deal")
        if not deal or deal.get("phase") in (None, "over") or not deal.get("timers"):
            return None
        self.service.driver.wait_idle(3.0)
        seat, timer = next(iter(sorted(deal["timers"].items())))
        left = (int(timer["deadline_ms"]) - clock.now_ms()) / 1000.0
        ok = self.emulator.wait_for(lambda: self.emulator.read_display(seat).strip() != "", 2.0)
        shown = self.emulator.read_display(seat) if ok else ""
        return (f"继续第 {deal['no']} 副 / resumed deal {deal['no']} at seq {st.get('last_seq')}: "
                f"seat {seat} {timer['phase']} deadline_ms={timer['deadline_ms']} left={left:.1f}s "
                f"display={shown.strip()!r}")

    def _on_screen_applied(self, _boot: int, _args: tuple) -> None:
        # Sample the displays as the firmware applies commands (tests check the countdowns).
        if self.emulator is None or len(self.display_log) > 200000:
            return
        for seat in ("E", "S", "W", "N"):
            text = self.emulator.read_display(seat)
            if not self.display_log or self.display_log[-1][1:] != (seat, text):
                self.display_log.append((time.time(), seat, text))

    def _make_login(self) -> tuple[str, str]:
        import secrets

        from table_service.web import users

        app = self.service.app
        conn = users.connect(app.config["USERS_DB"])
        try:
            name = "demo-referee"
            password = secrets.token_urlsafe(12)
            with contextlib.suppress(users.UserError):
                users.remove_user(conn, name)
            users.add_user(conn, name, password, "chief")
        finally:
            conn.close()
        return name, password

    def banner(self) -> str:
        """What the demo prints when it is up."""
        lines = [
            "掼蛋裁判桌演示 / guandan-table demo",
            f"  数据目录 / data folder: {self.data_dir}",
            f"  隔板屏模拟器 / emulated screen controller: {self.emulator.port}",
            f"  速度 / speed: ×{self.options.speed:g}   种子 / seed: {self.options.seed}   "
            f"失误率 / mistake rate: {self.options.mistakes:g}",
        ]
        if self.service.url:
            table = self.service.config.table_id
            lines += [
                f"  裁判面板 / referee panel: {self.service.url}/",
                f"  登录 / login: {self.login[0]}  密码 / password: {self.login[1]}",
                f"  直播叠加页 / overlay: {self.service.url}/feed/{table}/overlay",
                f"  公开数据流 / public feed: {self.service.url}/feed/{table}/stream "
                f"({self.service.url}/feed/{table}/state.json)",
            ]
        if getattr(self, "resumed", None):
            lines.append(f"  {self.resumed}")
        if self.service.mqtt is not None:
            m = self.service.mqtt
            lines.append(f"  MQTT: {m.host}:{m.port} {m.prefix}/state|events|status")
        lines.append("  按 Ctrl-C 结束 / press Ctrl-C to stop")
        return "\n".join(lines)

    def stop(self) -> None:
        if self.table is not None:
            self.table.stop()
        if self.service is not None:
            self.service.stop()
        if self.devices is not None:
            with contextlib.suppress(Exception):
                self.devices.close()
        if self.emulator is not None:
            with contextlib.suppress(Exception):
                self.emulator.stop()
        if self._tmp is not None:
            import shutil

            shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self) -> Demo:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def summary(self) -> dict[str, Any]:
        """Deals, plays, recognition against the bots' truth, flags raised against mistakes."""
        runner = self.service.runner
        st = runner.state()
        assert self.table is not None
        out = compare_with_log(self.table.truth, runner.events(), st.get("flags") or [])
        out["deals"] = self.table.deals_done
        out["referee_entered"] = len(self.table.referee_entered)
        out["errors"] = list(self.table.errors)
        out["rejected_events"] = len(self.service.submit_errors)
        out["frames"] = self.pipeline.frames if self.pipeline else 0
        out["renders"] = self.camera.renders if self.camera else 0
        return out


def format_summary(s: dict[str, Any]) -> str:
    """The headless demo's closing report, Chinese then English."""
    acc = s.get("card_accuracy")
    rate = s.get("exact_read_rate")
    lines = [
        "演示结束 / demo finished",
        f"  牌局 / deals: {s['deals']}",
        f"  出牌 / plays: {s['plays']}  (摄像头直接读对 / read right by the camera: {s['read_right']}, "
        f"询问裁判 / asked the referee: {s['asked']}, 无声读错 / wrong without doubt: {s['wrong_certain']}, "
        f"未读到 / not seen: {s['missing']})",
        f"  识别准确率 / recognition accuracy: per card {acc:.2%}" if acc is not None else "  识别准确率 / recognition accuracy: -",
        f"  整手直接读对率 / exact plays read without asking: {rate:.2%}" if rate is not None else "",
        f"  注入失误 / mistakes injected: {s['mistakes']}",
        f"  标记违规 / flags raised: {s['flags']}",
        f"  失误与标记相符 / flags match mistakes: {'是 / yes' if s['flag_match'] else '否 / no'}",
    ]
    if s.get("referee_entered"):
        lines.append(f"  裁判手工录入 / entered by the referee: {s['referee_entered']}")
    if s.get("errors"):
        lines.append(f"  问题 / problems: {s['errors'][:5]}")
    return "\n".join(x for x in lines if x)
