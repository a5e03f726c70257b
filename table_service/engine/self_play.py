"""Self-play: a seeded table of four rule-following bots that produces a real event stream.

Used by the engine's tests (1,000 random legal deals, replay identity, card conservation) and by
its benchmark. The bots hold real hands; the events they produce carry only what the table
would see (plays, passes, buttons, tribute cards), never the hands. The bots decide from the
engine's own state (whose turn, the trick's top play, who owes tribute), so the stream is legal
by construction and any flag the engine raises on it is an engine bug.
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from table_service.engine.apply import apply_in_place
from table_service.engine.ruleset import ENGINE_GENERATION
from table_service.engine.state import State, initial_state
from table_service.rules.cards import NATURAL_VALUE, Card, full_deck, parse_cards, power
from table_service.rules.legal import legal_plays
from table_service.rules.seats import SEATS


class SelfPlayTable:
    """Four bots and an engine state; :meth:`run_round` yields every event it applies.

    :param seed: makes the deals and the choices reproducible.
    :param pass_rate: chance a bot passes when it could follow (keeps tricks varied).
    :param tick_every_ms: emit ``clock_ticked`` at least this often of event time (0 = never).
    """

    def __init__(self, seed: int, *, pass_rate: float = 0.3, step_ms: tuple[int, int] = (500, 6000), tick_every_ms: int = 0) -> None:
        self.rng = random.Random(seed)
        self.pass_rate = pass_rate
        self.step_ms = step_ms
        self.tick_every_ms = tick_every_ms
        self.state: State = initial_state()
        self.t = 1_000_000
        self.hands: dict[str, list[Card]] = {s: [] for s in SEATS}
        self.effects: list[dict[str, Any]] = []
        self._last_tick = self.t

    # ------------------------------------------------------------------ plumbing

    def _emit(self, etype: str, data: dict[str, Any], source: str = "bot", role: str | None = None) -> dict[str, Any]:
        self.t += self.rng.randint(*self.step_ms)
        ev = {"t_ms": self.t, "type": etype, "source": source, "role": role, "data": data}
        self.effects = apply_in_place(self.state, ev)
        ev["seq"] = self.state["last_seq"]
        return ev

    def _ticks(self) -> Iterator[dict[str, Any]]:
        if self.tick_every_ms and self.t - self._last_tick >= self.tick_every_ms:
            self._last_tick = self.t
            yield self._emit("clock_ticked", {}, source="clock")

    # ------------------------------------------------------------------ a round

    def set_up(self, fmt: dict[str, Any] | None = None, ruleset: Any = "jiangsu") -> dict[str, Any]:
        """The ``round_set_up`` event (applied)."""
        return self._emit(
            "round_set_up",
            {"players": {s: f"bot-{s}" for s in SEATS}, "ruleset": ruleset, "format": fmt or {"kind": "past_a"},
             "engine": ENGINE_GENERATION},  # as the runner stamps a round it logs
            source="panel",
            role="referee",
        )

    def deal(self) -> Iterator[dict[str, Any]]:
        """Shuffle, draw, tribute/return and play one deal to its end."""
        deck = full_deck()
        self.rng.shuffle(deck)
        st = self.state
        first = st["next_deal"] is None and st["deal"] is None  # a moved match may owe a tribute at once
        if first:
            level = st["round"]["first_level"]
            while True:
                cut = self.rng.choice(deck)
                ev = self._emit("first_cut_recorded", {"card": str(cut)}, source="panel")
                yield ev
                if not st["first_cut"]["recut"]:
                    break
            del level
        for i, seat in enumerate(SEATS):
            self.hands[seat] = deck[i * 27 : (i + 1) * 27]
        data: dict[str, Any] = {"counts": {s: 27 for s in SEATS}}
        if first:
            data["cut_card_holder"] = self.rng.choice(SEATS)
        yield self._emit("drawing_finished", data, source="panel")
        deal = st["deal"]
        level = deal["level"]
        if deal["phase"] == "tribute":
            yield from self._tribute(level)
        guard = 0
        while st["deal"]["phase"] == "play" and st["result"] is None:
            guard += 1
            if guard > 2000:
                raise RuntimeError("bot deal did not end")
            yield from self._ticks()
            yield from self._act(level)

    def _tribute(self, level: str) -> Iterator[dict[str, Any]]:
        st = self.state
        plan = st["deal"]["tribute_plan"]
        payers = plan["payers"]
        big = sum(1 for s in payers for c in self.hands[s] if c.rank == "BJ")
        if big == 2:
            yield self._emit("anti_tribute_declared", {"seats": [s for s in payers if any(c.rank == "BJ" for c in self.hands[s])], "cards": ["BJ", "BJ"]})
            return
        for payer in payers:
            hand = self.hands[payer]
            best = max((c for c in hand if not c.is_wild(level)), key=lambda c: power(c.rank, level))
            hand.remove(best)
            yield self._emit("tribute_given", {"seat": payer, "card": str(best)})
        for t in st["deal"]["tributes"]:
            self.hands[t["to"]].append(parse_cards([t["card"]])[0])
        for t in list(st["deal"]["tributes"]):
            receiver = t["to"]
            hand = self.hands[receiver]
            low = [c for c in hand if not c.is_joker and NATURAL_VALUE[c.rank] <= 10]
            card = self.rng.choice(low) if low else min(hand, key=lambda c: NATURAL_VALUE[c.rank])
            hand.remove(card)
            self.hands[t["from"]].append(card)
            yield self._emit("return_given", {"seat": receiver, "card": str(card)})

    def _act(self, level: str) -> Iterator[dict[str, Any]]:
        st = self.state
        deal = st["deal"]
        seat = deal["turn"]
        hand = self.hands[seat]
        top = deal["_top"]
        options = legal_plays(hand, level, previous=top)
        if top is not None and (not options or self.rng.random() < self.pass_rate):
            yield self._emit("passed", {"seat": seat}, source=self.rng.choice(["screen", "gpio"]))
            return
        play = self.rng.choice(options)
        cards = list(play.faces)
        order = sorted(range(len(play.cards)), key=lambda i: (NATURAL_VALUE[cards[i].rank], i))
        laid = [play.cards[i] for i in order]
        for c in play.cards:
            hand.remove(c)
        data: dict[str, Any] = {"seat": seat, "cards": [str(c) for c in laid], "confidence": [0.99] * len(laid)}
        if play.wild_count:
            data["reading"] = {"kind": play.kind, "rank": play.rank}
        yield self._emit("cards_played", data, source="camera")
        count = len(hand)
        if 0 < count <= st["round"]["_rules"].report_threshold and seat not in st["deal"]["reports"]:
            yield self._emit("report_pressed", {"seat": seat}, source="screen")

    def run_round(self, fmt: dict[str, Any] | None = None, max_deals: int = 200) -> Iterator[dict[str, Any]]:
        """Set up a round and play deals until it has a result (or ``max_deals``)."""
        yield self.set_up(fmt)
        for _ in range(max_deals):
            if self.state["result"] is not None:
                return
            yield from self.deal()

    def run_deals(self, n: int) -> Iterator[dict[str, Any]]:
        """Play ``n`` deals, starting new rounds (to past A) whenever one ends."""
        played = 0
        while played < n:
            if self.state["round"] is None or self.state["result"] is not None:
                yield self.set_up()
            yield from self.deal()
            played += 1
