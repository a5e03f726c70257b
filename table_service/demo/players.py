"""The four bots at the table: tribute, return and play, through the table's actuator.

Each action is laid on the table (or a button pressed) and stays *in flight* until the engine has
applied what the camera or the buttons made of it. A mixin of
:class:`~table_service.demo.bot_table.BotTable`, whose state it shares (``bots``, ``truth``,
``actuator``, ``_inflight``, the scheduler).
"""

from __future__ import annotations

import time
from typing import Any

from table_service.demo.bots import Decision
from table_service.rules.cards import parse_cards
from table_service.rules.patterns import Play, classify
from table_service.rules.seats import PLAY_ORDER, partner
from table_service.rules.tribute import is_anti_tribute


class BotPlayers:
    """What the four bots do at their turns."""

    def _think(self) -> float:
        lo, hi = self.opt.think_s
        return self.rng.uniform(lo, hi)

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

    def hands_consistent(self, st: dict[str, Any]) -> bool:
        """Do the engine's card counts match the bots' hands (the camera missed nothing)?"""
        deal = st.get("deal")
        if not deal or self._dealt != ((st.get("round") or {}).get("no"), deal.get("no")):
            return True
        return all(deal["counts"][s] == len(self.bots[s].hand) for s in PLAY_ORDER)
