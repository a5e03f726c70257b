"""The demo's dealer and organiser: rounds set up, the first cut, each deal's hands, a restart resumed.

A mixin of :class:`~table_service.demo.bot_table.BotTable`, whose state it shares (``dealer``,
``bots``, ``truth``, ``opt``, the deal counters); the events it submits go in as the referee's.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from table_service.demo.options import BOT_NAMES
from table_service.rules.cards import parse_cards
from table_service.rules.seats import PLAY_ORDER


class DealerDuties:
    """Rounds, cuts and deals of the simulated table."""

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
