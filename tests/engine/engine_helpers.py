"""Helpers for the engine tests: a scripted table driven through the pure ``apply``.

Imported by name (``tests/engine`` is put on ``sys.path`` by this folder's conftest, because
pytest runs with ``--import-mode=importlib``)."""

from __future__ import annotations

from typing import Any

import pytest

from table_service.engine.apply import apply, fold
from table_service.engine.errors import EventRejected
from table_service.engine.ruleset import ENGINE_GENERATION
from table_service.engine.state import initial_state, state_to_json

SINGLES = ["3s", "4s", "5s", "6s", "7s", "8s", "9s", "Ts", "Js", "Qs", "Ks"]


class Table:
    """A table scripted event by event; every accepted event is kept for replay checks."""

    def __init__(self, *, ruleset: Any = "jiangsu", fmt: dict[str, Any] | None = None,
                 levels: dict[str, str] | None = None, t0: int = 100_000,
                 generation: int | None = ENGINE_GENERATION, resume: dict[str, Any] | None = None) -> None:
        self.state = initial_state()
        self.t = t0
        self.events: list[dict[str, Any]] = []
        self.fx: list[dict[str, Any]] = []
        data: dict[str, Any] = {"players": {s: f"p{s}" for s in "ESWN"}, "ruleset": ruleset, "format": fmt or {"kind": "past_a"}}
        if levels:
            data["levels"] = levels
        if resume is not None:  # a match moved from another table (engine/resume.py)
            data["resume"] = resume
        if generation is not None:  # as the runner stamps it; None: a round logged before the stamp
            data["engine"] = generation
        self.do("round_set_up", data, role="referee")

    # -------------------------------------------------------------- raw events

    def event(self, etype: str, data: dict[str, Any] | None = None, *, source: str = "panel",
              role: str | None = None, dt: int = 1000, t: int | None = None) -> dict[str, Any]:
        self.t = t if t is not None else self.t + dt
        return {"t_ms": self.t, "type": etype, "source": source, "role": role, "data": data or {}}

    def do(self, etype: str, data: dict[str, Any] | None = None, **kw: Any) -> list[dict[str, Any]]:
        ev = self.event(etype, data, **kw)
        self.state, self.fx = apply(self.state, ev)
        ev["seq"] = self.state["last_seq"]
        self.events.append(ev)
        return self.fx

    def reject(self, etype: str, data: dict[str, Any] | None = None, **kw: Any) -> str:
        """Submit an event that must be rejected; checks the state is unchanged."""
        before = state_to_json(self.state)
        ev = self.event(etype, data, **kw)
        with pytest.raises(EventRejected) as info:
            apply(self.state, ev)
        assert state_to_json(self.state) == before
        return str(info.value)

    # -------------------------------------------------------------- table actions

    def first_deal(self, leader: str = "E", counts: dict[str, int] | None = None) -> None:
        self.do("drawing_finished", {"cut_card_holder": leader, **({"counts": counts} if counts else {})})

    def next_deal(self, counts: dict[str, int] | None = None) -> None:
        self.do("drawing_finished", {"counts": counts} if counts else {})

    def play(self, seat: str, cards: str, **kw: Any) -> list[dict[str, Any]]:
        data = {"seat": seat, "cards": cards.split()}
        data.update(kw.pop("data", {}))
        return self.do("cards_played", data, source=kw.pop("source", "camera"), **kw)

    def pass_(self, seat: str, **kw: Any) -> list[dict[str, Any]]:
        return self.do("passed", {"seat": seat}, source="screen", **kw)

    def report(self, seat: str, **kw: Any) -> list[dict[str, Any]]:
        return self.do("report_pressed", {"seat": seat}, source="screen", **kw)

    # -------------------------------------------------------------- looking

    @property
    def deal(self) -> dict[str, Any]:
        return self.state["deal"]

    def flags(self, rule: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        return [f for f in self.state["flags"] if (rule is None or f["rule"] == rule) and (status is None or f["status"] == status)]

    def rules_raised(self) -> set[str]:
        return {f["rule"] for f in self.state["flags"] if f["rule"] != "wrong_count"}

    def finish_in_order(self, order: list[str]) -> None:
        """With one card per seat, play the deal out so that seats finish in ``order``."""
        k = 0
        guard = 0
        while self.deal["phase"] == "play":
            guard += 1
            assert guard < 50, "deal did not end"
            seat = self.deal["turn"]
            remaining = [s for s in order if s not in self.deal["finish_order"]]
            if seat == remaining[0] or self.deal["trick"]["top"] is None:
                self.play(seat, SINGLES[k])
                k += 1
            else:
                self.pass_(seat)

    def replay_matches(self) -> bool:
        return state_to_json(fold(self.events)) == state_to_json(self.state)


ONE_EACH = {"E": 1, "S": 1, "W": 1, "N": 1}
