"""The demo referee: answers the camera's questions, rules on flags, enters what never arrived.

With ``--referee human`` the questions and flags are left to the person at the panel. A mixin of
:class:`~table_service.demo.bot_table.BotTable`, whose state it shares (``_submit``,
``actuator``, ``truth``, ``_inflight``, the scheduler).
"""

from __future__ import annotations

import time
from collections import Counter
from typing import Any


class DemoReferee:
    """The referee's side of the simulated table."""

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

    def _check_stuck(self) -> None:
        f = self._inflight
        if f is None or f.get("question") is not None or f.get("referee_call") is not None:
            return  # the referee is on it (a question to answer, or a call to enter the cards for)
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
