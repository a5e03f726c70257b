"""The public broadcast feed: delayed on the Pi, filtered, and held back per deal in duplicate mode.

Nothing reaches the public before ``t_ms + delay`` of the event, measured on the Pi. The feed keeps
its own *public* engine state: it folds the accepted events, one by one with the engine's pure
``apply``, only once each is due, so the public state is exactly "the table as of now − delay" and
never holds anything later. Because ``apply`` is pure, duplicate (复式) mode is simple: the feed
applies the next event to a copy, reads which deal that event belongs to, and keeps the result only
if that deal has been released; otherwise the cursor stops there until a release arrives.

Releases are engine events (``deal_released``, chief referee) in the table's log, like every other
state change: the feed reads them from the runner's live state (``released_deals``), never from a
store of its own, so a restart keeps them and nothing else can publish a deal. A release takes
effect at its own ``t_ms`` and is **not** delayed again: the delay hides live play from the table,
and a release is the organiser's word that the deal is over at every table — each event of the
released deal still waits for its own ``t_ms + delay``. (Reading releases from the *public* fold
instead would also deadlock: a release logged after the next deal began sits behind that deal's
held events.)

What is public (see ``docs/api.md``): seats and players, the teams by name, levels, the deal's level,
whose turn, cards left, report lamps, the current trick, recent plays, tribute/return, confirmed flags
and penalties, the score sheet, and — while a duplicate deal waits for its release — that it does
(``held``: the deal's number and why, nothing of its content). Never public: open or dismissed
flags, uncertain camera reads (questions) and confidence values, cards seen/unseen counters, device
status, evidence images, clock ticks, a return card still face down (double-down: until both are
given), whether a report was late (an open flag), a penalty withdrawn.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from table_service.engine.apply import apply
from table_service.engine.state import initial_state
from table_service.rules.seats import SEATS

from .fanout import Broadcaster

log = logging.getLogger(__name__)

#: Event types that appear in the public event stream (after delay/release), with the data
#: fields they keep. Types not listed still change the public *state* (e.g. ``clock_ticked``
#: starts overtime) but are not listed as events.
PUBLIC_EVENT_FIELDS: dict[str, tuple[str, ...]] = {
    "round_set_up": ("players", "teams", "team_names", "format", "levels", "round", "board"),
    "first_cut_recorded": ("card",),
    "drawing_finished": ("counts",),
    "anti_tribute_declared": ("seats", "cards"),
    "tribute_given": ("seat", "card"),
    "return_given": ("seat", "card"),
    "cards_played": ("seat", "cards", "reading"),
    "passed": ("seat",),
    "report_pressed": ("seat",),
    "play_confirmed": ("ref",),
    "play_corrected": ("ref", "cards"),
    "reading_declared": ("ref", "kind", "rank"),
    "tribute_corrected": ("ref", "card"),
    "event_voided": ("ref",),
    "flag_confirmed": ("flag",),
    "penalty_given": ("side", "level", "article", "seat", "flag", "lose_turn", "next_leader"),
    "late_arrival_recorded": ("side", "minutes"),
    "score_sheet_signed": ("side",),
    "round_ended": (),
    "deal_redrawn": (),
}


def public_event(event: dict, state_json: dict) -> dict | None:
    """The public form of an accepted event, or None when it is not for the public.

    ``state_json`` is the public engine view right after the event (used to describe a confirmed
    flag: its rule and seat, never its evidence).
    """
    etype = event.get("type")
    fields = PUBLIC_EVENT_FIELDS.get(etype)
    if fields is None:
        return None
    data = event.get("data") or {}
    if etype == "cards_played" and (data.get("uncertain") or any(
            q.get("seq") == event.get("seq") for q in (state_json.get("deal") or {}).get("questions") or ())):
        # A question to the referee, not (yet) a play: the camera's doubt, or a read the engine
        # doubts (a third copy of a face, a play with readings nobody stated).
        return None
    out = {k: data[k] for k in fields if k in data}
    deal = state_json.get("deal")
    if etype == "return_given" and not returns_shown(deal):
        out.pop("card", None)  # face down until every return is given (double-down: shown together)
    if etype == "play_corrected" and not returns_shown(deal) and any(
            r.get("seq") == data.get("ref") for r in (deal or {}).get("returns") or ()):
        out.pop("cards", None)  # a misread return corrected while still face down: its card stays hidden
    if etype == "penalty_given" and out.get("flag") is not None and not any(
            f.get("id") == out["flag"] and f.get("status") == "confirmed" for f in state_json.get("flags") or ()):
        out.pop("flag")  # a ruling is public; the flag it cites only once confirmed (open flags are the referee's)
    if etype == "flag_confirmed":
        flag = next((f for f in state_json.get("flags", []) if f.get("id") == data.get("flag")), None)
        if flag is not None:
            out.update({k: flag.get(k) for k in ("rule", "article", "seat")})
    return {"seq": event.get("seq"), "t_ms": event.get("t_ms"), "type": etype, "data": out}


def returns_shown(deal: dict | None) -> bool:
    """Whether the deal's return cards are face up yet: once every tribute has been returned.

    After a double-down the returns "are placed face down and the two tributors show them at once"
    (rules, tribute and return): the first return's card is hidden at the table until the second
    is given, so the public (however short its delay) must not see it before either."""
    if not deal:
        return True
    return len(deal.get("returns") or ()) >= len(deal.get("tributes") or ())


def _standing(record: dict) -> bool:
    """A penalty record that still stands: an automatic time-over penalty the action's own time
    withdrew (``withdrawn``) no longer counts on the ladder, so the public must not show it either."""
    return not record.get("withdrawn")


def _plays_of(trick: dict | list | None) -> list[dict]:
    if not trick:
        return []
    plays = trick.get("plays", []) if isinstance(trick, dict) else trick
    return [p for p in plays if isinstance(p, dict)]


def _public_play(p: dict) -> dict:
    if p.get("pass"):
        return {"seq": p.get("seq"), "seat": p.get("seat"), "pass": True}
    return {"seq": p.get("seq"), "seat": p.get("seat"), "cards": list(p.get("cards") or []),
            "kind": p.get("kind"), "rank": p.get("rank")}


#: Why a deal is held back from the public (the one reason there is): ``held.reason``.
HELD_DUPLICATE = "duplicate board"


def public_teams(rnd: dict | None) -> dict | None:
    """The round's teams as the public knows them: by name. A round set up from the hub's assignment
    holds the hub's ids in ``teams`` ("T01", what the result line must carry) and the names in
    ``team_names``; a round typed at the panel holds the names in ``teams``. The s37 producer's audit
    saw "EW T01 / NS T20" on air at every hub-run table."""
    if not rnd:
        return None
    return rnd.get("team_names") or rnd.get("teams")


def public_state(s: dict, recent_plays: int = 8, held: dict | None = None) -> dict:
    """Project the engine's referee view onto what the public may see.

    ``held``: the feed's word that the next deal is held for a duplicate release
    (``FeedView._held_word``), else None; the engine state alone cannot say it (it is where the
    feed's cursor waits, not a fold of the log)."""
    rnd = s.get("round") or {}
    deal = s.get("deal")
    out_deal = None
    recent: list[dict] = []
    if deal:
        trick = deal.get("trick") or {}
        for t in deal.get("tricks") or []:
            recent.extend(_public_play(p) for p in _plays_of(t) if not p.get("pass"))
        recent.extend(_public_play(p) for p in _plays_of(trick) if not p.get("pass"))
        reports = deal.get("reports") or {}
        shown = returns_shown(deal)
        out_deal = {
            "no": deal.get("no"),
            "level": deal.get("level"),
            "level_side": deal.get("level_side"),
            "phase": deal.get("phase"),
            "counts": deal.get("counts"),
            "finish_order": deal.get("finish_order"),
            "turn": deal.get("turn"),
            "leader": deal.get("leader"),
            "trick": {"leader": trick.get("leader"),
                      "plays": [_public_play(p) for p in _plays_of(trick)]},
            "report_lamps": {seat: seat in reports for seat in SEATS},
            # What the player stated (the count); not ``late``: that is the engine's open
            # ``report_missing`` flag, which is the referee's until confirmed.
            "reports": {seat: {k: r.get(k) for k in ("seq", "count")} for seat, r in reports.items()},
            "tributes": [{k: t.get(k) for k in ("from", "to", "card")} for t in deal.get("tributes") or []],
            "returns": [{"from": t.get("from"), "to": t.get("to"), "card": t.get("card") if shown else None}
                        for t in deal.get("returns") or []],
            "anti_tribute": deal.get("anti_tribute"),
            # The seats' running clocks (the overlay's seat plates count them down).
            "timers": {seat: {"deadline_ms": t.get("deadline_ms"), "started_ms": t.get("started_ms"),
                              "phase": t.get("phase")}
                       for seat, t in (deal.get("timers") or {}).items()},
        }
    penalties = s.get("penalties") or {}
    return {
        "schema": 1,
        "last_seq": s.get("last_seq"),
        "t_ms": s.get("t_ms"),
        "round": ({k: rnd.get(k) for k in ("no", "status", "board", "format")} if rnd else None),
        "players": rnd.get("players") if rnd else None,
        "teams": public_teams(rnd),
        "levels": s.get("levels"),
        "deal": out_deal,
        "recent_plays": recent[-recent_plays:] if recent_plays > 0 else [],
        "flags": [{k: f.get(k) for k in ("id", "seq", "rule", "article", "seat", "deal", "t_ms")}
                  for f in s.get("flags") or [] if f.get("status") == "confirmed"],
        "penalties": [{k: r.get(k) for k in ("seq", "t_ms", "deal", "side", "level", "article", "seat", "auto")}
                      for r in penalties.get("records") or [] if _standing(r)],
        "score_sheet": s.get("score_sheet") or [],
        "result": s.get("result"),
        "held": held,
    }


def deal_key(state_json: dict) -> tuple[int, int] | None:
    """``(round no, deal no)`` the state is in, or None between deals' scope (no deal yet).

    The first deal's cut card (``first_cut``, turned before any deal began) belongs to deal 1: it is
    a card of that deal's hands, which the other room of a duplicate board draws too (the s38 audit:
    it was public while deal 1 was held)."""
    rnd = state_json.get("round") or {}
    deal = state_json.get("deal")
    if not deal:
        if rnd and state_json.get("first_cut") and not state_json.get("score_sheet"):
            return int(rnd.get("no") or 0), 1
        return None
    return int(rnd.get("no") or 0), int(deal.get("no") or 0)


def is_board(state_json: dict) -> bool:
    """Whether the state's round was set up as a duplicate (复式) board: the hub's assignment names
    one (``round.board``). Its deals are held for release whatever the table's own ``duplicate``
    setting: the other room plays the same cards, and a feed that a table set up from the hub's
    assignment (settings left as deployed) published every hand of the board to it."""
    rnd = state_json.get("round") or {}
    return bool(rnd.get("board"))


def release_key(entry: dict) -> tuple[int, int] | None:
    """The :func:`deal_key` a ``released_deals`` entry of the engine state releases."""
    try:
        return int(entry.get("round") or 0), int(entry["deal"])
    except (KeyError, TypeError, ValueError):
        return None


def _wall_ms() -> float:
    return time.time() * 1000.0


#: Who released a deal, as the feed's index says it (Chinese first): the hub once both rooms of the
#: board ended the deal (``deal_released`` source ``hub``), else the chief's tap on the panel.
RELEASED_BY = {"hub": "赛事中心已公布 / released by the hub",
               "chief": "裁判长已公布 / released by the chief referee"}

#: Public events a feed keeps for :meth:`FeedView.events` (more than a table's day: a round is
#: ~1,000 events, an event day ≤ 9 rounds).
PUBLIC_EVENTS_KEPT = 16_384


class FeedView:
    """Delayed, filtered public view of one table, with its own SSE broadcaster.

    :param runner: the table's TableRunner (``subscribe``, ``events``).
    :param delay_s: broadcast delay, 0-3600 s.
    :param duplicate: hold each deal until a ``deal_released`` event in the runner's log names it.
    :param clock: returns "now" in the runner's ``t_ms`` units (default: Unix epoch ms, as the
        service stamps events); tests pass a controllable clock.
    :param pump_thread: run a background thread that publishes events when they fall due; tests
        with a fake clock may turn it off and call :meth:`pump` themselves.
    :param kept: public events kept for :meth:`events` (the MQTT bridge's catch-up after a broker
        outage or a restart): a table's whole day is ~10,000 at most, ~400 bytes each. The SSE
        replay keeps ``buffer`` (each with a public state, so far fewer).
    """

    def __init__(self, runner: Any, *, delay_s: float = 0.0, duplicate: bool = False,
                 recent_plays: int = 8, clock: Callable[[], float] | None = None, buffer: int = 4096,
                 pump_thread: bool = True, kept: int = PUBLIC_EVENTS_KEPT) -> None:
        self._apply = apply
        self.delay_ms = float(delay_s) * 1000.0
        self.duplicate = duplicate
        self._board_now = False  # the table's newest state is a duplicate board's (is_board)
        self.recent_plays = recent_plays
        self._clock = clock or _wall_ms
        self._lock = threading.RLock()  # public state, pending queue, published list
        # The engine thread only ever takes this small lock (never the pump's, which may be held
        # for a long catch-up fold), so the feed can never delay the referee panel's push.
        self._inbox_lock = threading.Lock()
        self._inbox: list[dict] = []
        # The engine state's ``released_deals`` (with ``t_ms``), from the newest state seen, and
        # that state's ``last_seq``; guarded by the inbox lock (written on the engine thread).
        self._releases: list[dict] = []
        self._releases_seq = -1
        self._kick = threading.Event()  # wakes the pump thread
        self._pending: deque[dict] = deque()
        self._max_seq = 0
        self._state = initial_state()
        self._public = public_state(self._state, recent_plays)
        self._held: tuple[int, Any, tuple[int, int] | None] | None = None  # tentative apply
        self._closed = False
        self._blocked = False  # duplicate mode: waiting for a release
        self._held_said: dict | None = None  # the ``held`` the broadcaster last carried
        self._published: deque[dict] = deque(maxlen=max(int(kept), int(buffer)))
        #: The newest seq that fell out of :attr:`_published` (0: none): a reader behind it missed events.
        self.evicted_seq = 0
        self.broadcaster = Broadcaster(self._snapshot, buffer)
        # Subscribe first, then read history; events arriving meanwhile are merged by seq.
        self._ready = False
        self._early: list[dict] = []
        self._unsubscribe = runner.subscribe(self._on_applied)
        history = runner.events(after=0)
        self._note_releases(runner.state())
        with self._lock, self._inbox_lock:
            for ev in sorted(history + self._early, key=lambda e: int(e["seq"])):
                self._enqueue(ev)
            self._early.clear()
            self._ready = True
        self._thread: threading.Thread | None = None
        if pump_thread:
            self._thread = threading.Thread(target=self._run, name="feed-pump", daemon=True)
            self._thread.start()
        self.pump()

    # -- input -------------------------------------------------------------------------------
    def _enqueue(self, event: dict) -> None:
        seq = int(event["seq"])
        if seq <= self._max_seq:
            return  # seen already (history and live callback overlap)
        self._max_seq = seq
        self._pending.append(event)

    def _note_releases(self, state: Any) -> None:
        """Keep the releases of ``state`` (the engine's JSON view), and whether it plays a duplicate
        board, unless a newer one was seen."""
        if not isinstance(state, dict):
            return
        seq = int(state.get("last_seq") or 0)
        with self._inbox_lock:
            if seq >= self._releases_seq:
                self._releases_seq = seq
                self._releases = list(state.get("released_deals") or ())
                self._board_now = is_board(state)

    def _on_applied(self, event: dict, state: dict) -> None:
        """Runner callback (engine thread): queue the event; the pump decides when it is public."""
        self._note_releases(state)
        with self._inbox_lock:
            if not self._ready:
                self._early.append(event)
                return
            self._inbox.append(event)
        self._kick.set()

    def _release_keys(self, now: float) -> tuple[set[tuple[int, int]], float | None]:
        """Deals released as of ``now`` (a release counts from its own ``t_ms``, undelayed), and
        when the next not-yet-effective release takes effect (None: none waiting)."""
        with self._inbox_lock:
            entries = self._releases
        keys: set[tuple[int, int]] = set()
        later: float | None = None
        for entry in entries:
            key = release_key(entry)
            if key is None:
                continue
            t = float(entry.get("t_ms") or 0)
            if t <= now:
                keys.add(key)
            elif later is None or t < later:
                later = t
        return keys, later

    @property
    def released(self) -> set[tuple[int, int]]:
        """``(round, deal)`` pairs released to the public as of now (from the engine's log)."""
        return self._release_keys(self.now_ms())[0]

    def last_release(self) -> dict[str, Any] | None:
        """The latest release the public may know of, for the feed's index: ``{"round", "deal",
        "by": "hub"|"chief", "t_ms", "text"}`` (None: none yet). Why: a broadcaster whose board deal
        stays dark needs to see whether the hub released it (both rooms ended it) or the chief's tap
        did, and when. Counted like the deal's events, from ``t_ms + delay``: the index never says a
        deal has ended before the delayed broadcast could have shown it."""
        cutoff = self.cutoff_ms()
        with self._inbox_lock:
            entries = self._releases
        for entry in reversed(entries):
            key = release_key(entry)
            if key is None or float(entry.get("t_ms") or 0) > cutoff:
                continue
            by = "hub" if entry.get("source") == "hub" else "chief"
            return {"round": key[0], "deal": key[1], "by": by, "t_ms": int(entry.get("t_ms") or 0),
                    "text": RELEASED_BY[by]}
        return None

    # -- output ------------------------------------------------------------------------------
    def now_ms(self) -> float:
        """The feed's notion of now, in ``t_ms`` units."""
        return float(self._clock())

    def holds_deals(self) -> bool:
        """Whether deals wait for the chief's release now: the table's duplicate setting, or the round
        it plays is a duplicate board (:func:`is_board`). What the panel's release box and the
        feed's index say."""
        return self.duplicate or self._board_now

    def cutoff_ms(self) -> float:
        """Events with ``t_ms`` at or before this may be public now."""
        return self.now_ms() - self.delay_ms

    def pump(self) -> int:
        """Publish every event that is due (and released); return how many were folded.

        Called by the background thread (woken by every applied event, a release included) and
        before every public read, so a reader never sees less than is due, and never more. In
        duplicate mode a deal's events pass only once the engine's ``released_deals`` names it, as
        of now (not now − delay). The projection reads the engine's own
        state dict (same keys as ``state_to_json`` minus internal ``_`` keys, never mutated by
        ``apply``), so no full JSON copy is made per event; a catch-up over a long log stays linear.
        """
        done = 0
        with self._lock:
            with self._inbox_lock:
                inbox, self._inbox = self._inbox, []
            for ev in inbox:
                self._enqueue(ev)
            self._blocked = False
            now = self.now_ms()
            cutoff = now - self.delay_ms
            released: set[tuple[int, int]] | None = None  # read once, where a deal is held
            stale = False  # public projection older than self._state
            while self._pending:
                ev = self._pending[0]
                if float(ev.get("t_ms") or 0) > cutoff:
                    break
                if self._held is not None and self._held[0] == int(ev["seq"]):
                    _, new_state, key = self._held
                else:
                    try:
                        new_state = self._apply(self._state, ev)[0]
                    except ValueError as exc:  # an older release's event these rules refuse (engine.apply.replay)
                        log.warning("feed: logged event %s passed over, as the table does: %s", ev.get("seq"), exc)
                        self._pending.popleft()
                        continue
                    key = deal_key(new_state)
                    self._held = (int(ev["seq"]), new_state, key)
                if key is not None and (self.duplicate or is_board(new_state)):
                    if released is None:
                        released = self._release_keys(now)[0]
                    if key not in released:
                        self._blocked = True
                        break  # this deal stays private until the organiser releases it
                self._pending.popleft()
                self._held = None
                self._state = new_state
                done += 1
                pub = public_event(ev, new_state)
                if pub is None:
                    stale = True
                    continue
                self._public = public_state(new_state, self.recent_plays)
                self._held_said = None  # this message carries no hold: the cursor moved
                stale = False
                if len(self._published) == self._published.maxlen:
                    self.evicted_seq = int(self._published[0]["seq"])
                self._published.append(pub)
                self.broadcaster.publish(int(ev["seq"]), {"event": pub, "state": self._public}, self._public)
            held = self._held_word()
            if stale or held != self._public.get("held"):
                self._public = public_state(self._state, self.recent_plays, held)
            if held != self._held_said:
                # Said at once, with no event (the hold folds nothing): the overlay's "第 2 副 复式保留"
                # replaces a delay mark that claimed a few seconds' delay while the deal was kept for
                # minutes (the s37 producer's audit), and leaves when the release lets the deal through.
                self._held_said = held
                self.broadcaster.publish(int(self._public.get("last_seq") or 0),
                                         {"event": None, "state": self._public}, self._public)
        return done

    def _held_word(self) -> dict | None:
        """``held`` of the public state: the deal the cursor waits at, while it waits for a release.

        Only what the public may know: that deal ``n`` began at least the delay ago and is kept until
        the other room has played it — its number and why, never an event or a count of them. Set
        only once the deal's first event is due (the pump stops at a hold only then), so it tells no
        earlier than the delay what the table is doing."""
        if not self._blocked or self._held is None or self._held[2] is None:
            return None
        return {"deal": self._held[2][1], "reason": HELD_DUPLICATE}

    def _snapshot(self) -> tuple[int, dict]:
        with self._lock:
            return int(self._public.get("last_seq") or 0), self._public

    def state(self) -> dict:
        """The public state as of now − delay."""
        self.pump()
        with self._lock:
            return self._public

    def events(self, after: int = 0, limit: int = 1000) -> list[dict]:
        """Public events published so far with ``seq > after`` (oldest first, at most ``limit``).
        A reader whose ``after`` is below :attr:`evicted_seq` has missed some (it can tell)."""
        self.pump()
        with self._lock:
            out = [ev for ev in self._published if int(ev["seq"]) > after]
        return out[:limit]

    def next_due_ms(self) -> float | None:
        """When the next pending event falls due (None: nothing pending, or held for a release
        not yet made; a logged release whose ``t_ms`` is still ahead is when the hold ends)."""
        with self._lock:
            if not self._pending:
                return None
            if self._blocked:
                return self._release_keys(self.now_ms())[1]
            return float(self._pending[0].get("t_ms") or 0) + self.delay_ms

    def _run(self) -> None:
        while not self._closed:
            self._kick.clear()  # before pumping: an event arriving later sets it again
            self.pump()
            due = self.next_due_ms()
            wait = 1.0 if due is None else min(max((due - self.now_ms()) / 1000.0, 0.0), 1.0)
            if wait > 0:
                self._kick.wait(wait)

    def wake(self) -> None:
        """Wake the pump and the streams (shutdown, or a test that moved its clock)."""
        self._kick.set()
        self.broadcaster.wake()

    def close(self) -> None:
        """Unsubscribe, stop the pump thread and end every stream."""
        try:
            self._unsubscribe()
        finally:
            self._closed = True
            self._kick.set()
            self.broadcaster.close()
            if self._thread is not None and self._thread is not threading.current_thread():
                self._thread.join(2.0)
