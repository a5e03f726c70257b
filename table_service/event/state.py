"""The hub's state, folded from its event log: what the hub knows, and the one way it changes.

Pure: no clock, no SQLite, no MQTT. :class:`HubState` holds everything the hub knows and folds a
logged event into it with :meth:`HubState.apply`; a replay of the log through ``apply`` rebuilds
exactly the same state (so the same standings). It is apart from the checks
(:mod:`table_service.event.core`) because the fold must read every event ever logged, by any
release, while the checks only decide what may be logged next: :class:`~.core.HubCore` adds them
on top of this state.

Hub event types (documented in ``docs/hub-protocol.md``):
``event_loaded`` · ``round_drawn`` (a draft, may be redrawn) · ``round_published`` (final: never
changed again) · ``result_recorded`` · ``result_refused`` · ``message_refused`` (a table message that is not well
formed: that table's fault) · ``refusal_acknowledged`` ·
``result_corrected`` · ``results_published`` · ``appeal_filed`` · ``appeal_decided`` ·
``lots_drawn`` · ``team_edited`` · ``event_edited`` (name, ruleset, format; and, when
changed, rounds, draw method, match points: :mod:`.settings`) · ``team_added`` (a late entry, before the first
draw is published) · ``team_withdrawn`` (退赛: the chief's, from the
next round to draw) · ``team_reinstated`` (the chief's, before any round is published without it) ·
``deck_published`` · ``deck_withdrawn``.

The hub's own edits of the configuration (``team_edited``, ``event_edited``, ``team_added``) are
kept in :attr:`HubState.hub_edits` as well as applied: a later ``event_loaded`` (EVENT.toml changed,
reloaded before anything was drawn) names, in its ``kept``, which of them — and which of their
fields — go on over the new file, and the fold applies exactly those (:func:`edit_config`, the one
place an edit changes the configuration). What to keep is decided before the reload is logged
(:mod:`.reload`); the fold only follows the log, so a replay never decides again. An
``event_loaded`` without ``kept`` (every first load, and every reload an earlier release logged)
keeps none, as reloads always did.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Self

from table_service.engine.errors import halves
from table_service.event.config import draw_method, scheme_scoring, scoring_of
from table_service.event.model import Result, parse_result
from table_service.event.moves import MOVE_EVENT, apply_move
from table_service.event.standings import Standings, compute_standings

#: How many refusals already cleared by the chief referee, and how many of the latest bad messages,
#: stay in memory (the log keeps them all). An open refusal is never dropped: another table's flood
#: of bad results must not push one off the chief's list before it is dealt with.
MAX_REFUSALS_KEPT = 500
#: One table's bad messages logged one by one: at most this many in :data:`FLOOD_WINDOW_MS`; more in
#: that window are counted (the table's fault count on the overview) but not logged, so one table's
#: credential cannot grow the hub's log and memory without bound (the security audit of 2026-12-06:
#: 155,000 distinct bad summaries made a 40 MB log, a 324 MB hub and a 6 s restart).
FLOOD_LIMIT = 30
FLOOD_WINDOW_MS = 10 * 60 * 1000
#: While a table floods, one log line (not the event log) says so at most this often.
FLOOD_SAID_MS = 60 * 1000
#: Open refused results one table may have on the chief's list: past it, a table's further refused
#: results are counted as its bad messages, not listed one by one (5,000 forged results made 5,005
#: entries to clear one tap each and a 4 MB organiser page).
MAX_OPEN_REFUSALS_PER_TABLE = 10


@dataclass
class TableResult:
    """The current result of one table in one round, with where it came from."""

    line: dict[str, Any]
    source: str
    """``table`` (the table's own log), ``hand`` (entered at the hub) or ``correction``."""
    result_id: str
    t_ms: int
    by: str | None
    history: list[dict[str, Any]] = field(default_factory=list)
    seq: int = 0
    """The seq of the hub event that set ``line`` (``result_recorded`` or the latest
    ``result_corrected``): the ``basis`` a correction of this result names."""
    public_ms: int = 0
    """When the public pages may show it: a table's result once that table's delayed broadcast has
    shown the deal that decided it (its arrival plus the table's ``feed_delay_s``); 0, at once."""


@dataclass
class HubState:
    """Everything the hub knows, rebuilt from its log."""

    cfg: dict[str, Any] | None = None
    loaded_cfg: dict[str, Any] | None = None
    """EVENT.toml as last loaded (``cfg`` is that plus the edits made at the hub)."""
    draws: dict[int, dict[str, Any]] = field(default_factory=dict)
    results: dict[tuple[int, str], TableResult] = field(default_factory=dict)
    seen_ids: set[tuple[int, str, str]] = field(default_factory=set)
    refusals: list[dict[str, Any]] = field(default_factory=list)
    """Every open ``result_refused`` and the latest ``MAX_REFUSALS_KEPT`` cleared ones, oldest first."""
    refused_ids: set[tuple[str, str]] = field(default_factory=set)
    """``(table, result_id)`` of every refused result ever logged: a redelivered refused result
    (QoS 1, the retained copy on a reconnect) is a duplicate however many refusals came since."""
    results_published: dict[int, int] = field(default_factory=dict)
    lots: dict[tuple[str, ...], list[str]] = field(default_factory=dict)
    appeals: list[dict[str, Any]] = field(default_factory=list)
    faults: dict[str, int] = field(default_factory=dict)
    """Per table: messages refused (``message_refused``) plus results refused (``result_refused``)."""
    fault_digests: set[tuple[str, str]] = field(default_factory=set)
    fault_times: dict[str, deque[int]] = field(default_factory=dict)
    """Per table: the times of its latest ``message_refused`` (at most :data:`FLOOD_LIMIT`)."""
    bad_messages: list[dict[str, Any]] = field(default_factory=list)
    """The latest ``message_refused`` (at most ``MAX_REFUSALS_KEPT``), newest last."""
    deck: dict[str, Any] | None = None
    """The event's enrolled deck handed to every table (``deck_published``), or None (zero-shot)."""
    deck_withdrawn: str | None = None
    """SHA-256 of the deck last withdrawn (``deck_withdrawn``) while none is published: the hub
    keeps saying so to the tables, which drop the file they saved of it."""
    team_changes: list[dict[str, Any]] = field(default_factory=list)
    """Every ``team_withdrawn``, ``team_reinstated`` and ``team_added``, oldest first (``kind``
    ``withdrawn`` | ``reinstated`` | ``added``, ``team``, ``from_round``, ``seq``, …): what a
    draft drawn before it did not know."""
    edits: dict[str, dict[str, Any]] = field(default_factory=dict)
    """The last ``team_edited`` or ``team_added`` of each team (keyed by team id) and the last
    ``event_edited`` (key ``""``): ``seq``, ``by``, ``t_ms`` — what an edit form from a page shown
    before it is refused by."""
    hub_edits: list[dict[str, Any]] = field(default_factory=list)
    """The hub's own edits of the configuration in force, oldest first: ``{"seq", "type", "data"}``
    of each ``team_edited``, ``event_edited`` and ``team_added`` (``data`` cut to the fields a reload
    kept). What a reload of a changed EVENT.toml merges onto the new file (:mod:`.reload`)."""
    load_notes: list[list[str]] = field(default_factory=list)
    """``[Chinese, English]`` for each hub edit (or field of one) the last ``event_loaded`` did not
    keep because the new EVENT.toml says otherwise; shown with the hub's ``config_note``."""
    inputs_seq: int = 0
    """The seq of the last event that changed what a draw is made from (a result recorded or
    corrected, a team withdrawn, reinstated or added); a draft drawn before it is stale."""
    last_seq: int = 0

    # ------------------------------------------------------------------ derived views

    @property
    def teams(self) -> list[str]:
        return [t["id"] for t in (self.cfg or {}).get("teams", [])]

    def team(self, tid: str) -> dict[str, Any]:
        return next(t for t in (self.cfg or {})["teams"] if t["id"] == tid)

    def team_names(self) -> dict[str, str]:
        """Team id -> its name now (the pages show a team by its name, the id in brackets)."""
        return {t["id"]: t["name"] for t in (self.cfg or {}).get("teams", [])}

    @property
    def withdrawn(self) -> dict[str, dict[str, Any]]:
        """Teams withdrawn (退赛) and not reinstated, folded from :attr:`team_changes`:
        ``{"from_round", "reason", "t_ms", "by", "seq"}``; never drawn from ``from_round`` on, their
        results so far kept."""
        out: dict[str, dict[str, Any]] = {}
        for c in self.team_changes:
            if c["kind"] == "withdrawn":
                out[c["team"]] = {k: c[k] for k in ("from_round", "reason", "seq", "t_ms", "by")}
            elif c["kind"] == "reinstated":
                out.pop(c["team"], None)
        return out

    @property
    def active_teams(self) -> list[str]:
        """The teams still in play: every team but the withdrawn ones."""
        return [t for t in self.teams if t not in self.withdrawn]

    @property
    def published_rounds(self) -> list[int]:
        return sorted(r for r, d in self.draws.items() if d["published"])

    def method_now(self) -> str:
        """The method the next round is drawn by: round 1's once it is published (a Swiss after a
        round robin's round 1, or the reverse, would be another event; and ``auto`` resolved again
        after the rounds changed would switch mid-event); before that, the configuration's."""
        assert self.cfg is not None
        pub = self.published_rounds
        if pub and self.draws[pub[0]].get("method"):
            return str(self.draws[pub[0]]["method"])
        return draw_method(self.cfg)

    def next_round(self) -> int:
        """The round the next draw is of (a draft of it may exist)."""
        return max(self.published_rounds, default=0) + 1

    def result_objects(self, upto: int | None = None) -> list[Result]:
        """Results of published rounds (byes included) in the RESULTS form."""
        out: list[Result] = []
        for rnd in self.published_rounds:
            if upto is not None and rnd > upto:
                continue
            d = self.draws[rnd]
            for bye in byes_of(d):
                out.append(Result(round=rnd, table="bye", ns=bye, ew=None))
            for t in d["tables"]:
                tr = self.results.get((rnd, t["table"]))
                if tr is not None:
                    out.append(parse_result(tr.line, stored=True))
        return out

    def last_complete_round(self) -> int:
        """The last round whose every table has a result, it and every round before it (0: none)."""
        done = 0
        for rnd in sorted(self.published_rounds):
            if not self.round_complete(rnd):
                break
            done = rnd
        return done

    def public_round(self, now_ms: int) -> int:
        """The last complete round whose results the chief has published (公布成绩, it and every
        round before it) and whose every result the public may see at ``now_ms``
        (:attr:`TableResult.public_ms`): the public standings stop there, so the hall's board never
        shows a round still under review (a hand entry, a correction, an appeal: the usability walk
        of 2026-12-06 saw round 4 on the board before its results were published), nor tells who
        won before a table's delayed broadcast has shown the last deal."""
        done = 0
        while done < self.last_complete_round() and done + 1 in self.results_published:
            done += 1
        # Every round up to it counts, not only the last: round 1's table under an hour's delay is
        # still hidden when round 2, played without one, is all public (the audit of 2026-12-06).
        hidden = [rnd for (rnd, _t), tr in self.results.items() if rnd <= done and tr.public_ms > now_ms]
        return min(done, min(hidden) - 1) if hidden else done

    def next_public_ms(self, now_ms: int) -> int | None:
        """The next moment after ``now_ms`` a logged result becomes public (its
        :attr:`TableResult.public_ms`), or None: until then the public pages change only with the log
        (what the board's kept JSON is kept by, :mod:`.polled`)."""
        return min((tr.public_ms for tr in self.results.values() if tr.public_ms > now_ms), default=None)

    def standings(self, upto: int | None = None) -> Standings:
        """The standings after the last complete round (:meth:`last_complete_round`), or after ``upto``
        (an earlier one). Why not every result so far: during a round, a team yet to play would count
        that round's running total again in its progressive points (8 on the hall's board against 4 on
        the round's sheet), and a bye team would collect its points before anyone had played."""
        assert self.cfg is not None
        last = self.last_complete_round() if upto is None else min(upto, self.last_complete_round())
        return compute_standings(self.result_objects(upto=last), self.teams,
                                 scoring_of(self.cfg), seed=self.cfg["event"]["seed"], recorded_lots=self.lots)

    def standings_marked(self, upto: int | None = None) -> tuple[Standings, dict[str, Any]]:
        """The standings and their JSON, each row with ``withdrawn``: the first round a team withdrawn
        (退赛) is not drawn in, or None; the team keeps its place and its results. What the hub's pages
        and ``guandan-table event export --standings`` both show."""
        st = self.standings(upto)
        out = st.to_json()
        for row in out["standings"]:
            w = self.withdrawn.get(row["team"])
            row["withdrawn"] = w["from_round"] if w else None
        return st, out

    def round_complete(self, rnd: int) -> bool:
        d = self.draws.get(rnd)
        return bool(d and d["published"] and all((rnd, t["table"]) in self.results for t in d["tables"]))

    def current_round(self) -> int:
        return max(self.published_rounds, default=0)

    def table_of(self, rnd: int, table: str) -> dict[str, Any] | None:
        d = self.draws.get(rnd)
        if d is None:
            return None
        return next((t for t in d["tables"] if t["table"] == table), None)

    # ------------------------------------------------------------------ fold

    def apply(self, ev: dict[str, Any]) -> None:
        """Fold one logged event into the state (the only way the state changes)."""
        et, d = ev["type"], ev["data"]
        self.last_seq = ev["seq"]
        if et == "event_loaded":
            self._load(d)
        elif et in CONFIG_EDITS:
            assert self.cfg is not None
            edit_config(self.cfg, et, d)
            self.hub_edits.append({"seq": ev["seq"], "type": et, "data": copy.deepcopy(d)})
            self.edits[d.get("team", "")] = {"seq": ev["seq"], "by": ev.get("actor"), "t_ms": ev.get("t_ms") or 0}
            if et == "team_added":
                self.team_changes.append({"kind": "added", "team": d["team"], "from_round": 1, "reason": None,
                                          "seq": ev["seq"], "t_ms": ev["t_ms"], "by": ev["actor"]})
                self.inputs_seq = ev["seq"]
        elif et == "round_drawn":
            # A log from before inputs_seq: the fold is where it was when the draft was drawn.
            self.draws[d["round"]] = {**d, "published": False, "drawn_ms": ev["t_ms"], "published_ms": None,
                                      "assignments": {}, "inputs_seq": d.get("inputs_seq", self.inputs_seq),
                                      "drawn_seq": ev["seq"], "drawn_by": ev.get("actor")}
        elif et == "round_published":
            dr = self.draws[d["round"]]
            dr["published"], dr["published_ms"], dr["assignments"] = True, ev["t_ms"], d["assignments"]
            dr["published_seq"] = ev["seq"]  # the assignments' hub_seq, sent again on every reconnect
        elif et == "result_recorded":
            line = d["result"]
            key = (line["round"], line["table"])
            entry = {"source": d["source"], "t_ms": ev["t_ms"], "by": ev["actor"], "result": line,
                     "result_id": d["result_id"], "table_seq": d.get("table_seq"), "seq": ev["seq"]}
            self.results[key] = TableResult(line=line, source=d["source"], result_id=d["result_id"], t_ms=ev["t_ms"],
                                            by=ev["actor"], history=[entry], seq=ev["seq"],
                                            public_ms=int(d.get("public_ms") or 0))
            self.seen_ids.add((line["round"], line["table"], d["result_id"]))
            self.inputs_seq = ev["seq"]
        elif et == "result_corrected":
            tr = self.results[(d["round"], d["table"])]
            tr.line, tr.source, tr.t_ms, tr.by = d["result"], "correction", ev["t_ms"], ev["actor"]
            tr.seq = ev["seq"]
            tr.history.append({"source": "correction", "t_ms": ev["t_ms"], "by": ev["actor"], "result": d["result"],
                               "reason": d["reason"], "late": d["late"], "role": ev["role"], "seq": ev["seq"],
                               "basis": d.get("basis")})  # a log from before the basis: None
            self.inputs_seq = ev["seq"]
        elif et in ("team_withdrawn", "team_reinstated"):
            change = {"kind": "withdrawn" if et == "team_withdrawn" else "reinstated", "team": d["team"],
                      "from_round": d["from_round"], "reason": d.get("reason"), "seq": ev["seq"], "t_ms": ev["t_ms"],
                      "by": ev["actor"]}
            self.team_changes.append(change)
            self.inputs_seq = ev["seq"]
        elif et == "result_refused":
            self.refusals.append({**d, "seq": ev["seq"], "t_ms": ev["t_ms"], "acknowledged": False})
            self.refused_ids.add((d["table"], d.get("result_id") or ""))
            self.faults[d["table"]] = self.faults.get(d["table"], 0) + 1
        elif et == "message_refused":
            self.fault_digests.add((d["table"], d["digest"]))
            self.fault_times.setdefault(d["table"], deque(maxlen=FLOOD_LIMIT)).append(ev["t_ms"])
            self.bad_messages.append({**d, "seq": ev["seq"], "t_ms": ev["t_ms"]})
            del self.bad_messages[:-MAX_REFUSALS_KEPT]
            self.faults[d["table"]] = self.faults.get(d["table"], 0) + 1
        elif et == "refusal_acknowledged":
            for r in self.refusals:
                if r["seq"] == d["seq"] and not r["acknowledged"]:
                    r["acknowledged"] = True
                    # Cleared: no longer the table's problem on the overview (its tile stayed yellow
                    # for the rest of the event).
                    self.faults[r["table"]] = max(0, self.faults.get(r["table"], 0) - 1)
            self._forget_cleared_refusals()
        elif et == "results_published":
            self.results_published[d["round"]] = ev["t_ms"]
        elif et == "appeal_filed":
            self.appeals.append({**d, "t_ms": ev["t_ms"], "by": ev["actor"], "decision": None})
        elif et == "appeal_decided":
            ap = next(a for a in self.appeals if a["id"] == d["id"])
            ap.update(decision=d["decision"], note=d["note"], decided_ms=ev["t_ms"], decided_by=ev["actor"])
        elif et == "lots_drawn":
            self.lots[tuple(d["teams"])] = list(d["order"])
        elif et == "deck_published":
            self.deck = {**d, "t_ms": ev["t_ms"], "by": ev["actor"]}
            self.deck_withdrawn = None
        elif et == "deck_withdrawn":
            self.deck, self.deck_withdrawn = None, d["sha256"]
        elif et == MOVE_EVENT:
            apply_move(self.draws, d, ev)
        else:
            raise ValueError(f"未知赛事事件类型 {et!r} / unknown hub event type {et!r}")

    def _load(self, d: dict[str, Any]) -> None:
        """``event_loaded``: EVENT.toml's configuration, then the hub's edits its ``kept`` names
        (``[{"seq", "fields"}]``), each cut to those fields, in their order. A load without ``kept``
        keeps none (a first load; a reload logged by a release that dropped the hub's edits)."""
        self.loaded_cfg = d["config"]
        self.cfg = copy.deepcopy(d["config"])
        kept = {k["seq"]: set(k["fields"]) for k in d.get("kept") or ()}
        carried = []
        for e in self.hub_edits:
            if e["seq"] in kept:
                data = {k: v for k, v in e["data"].items() if k == "team" or k in kept[e["seq"]]}
                edit_config(self.cfg, e["type"], data)
                carried.append({**e, "data": data})
        self.hub_edits = carried
        self.load_notes = [list(n) for n in d.get("notes") or ()]

    def flooding(self, table: str, now_ms: int, more: int = 0) -> bool:
        """Whether ``table`` has had :data:`FLOOD_LIMIT` bad messages logged (``more`` of them not yet
        applied) within :data:`FLOOD_WINDOW_MS` before ``now_ms``: the next is counted, not logged."""
        recent = sum(1 for t in self.fault_times.get(table, ()) if now_ms - t < FLOOD_WINDOW_MS)
        return recent + more >= FLOOD_LIMIT

    def open_refusals(self, table: str) -> int:
        """Refused results of ``table`` still on the chief's list."""
        return sum(1 for r in self.refusals if r["table"] == table and not r["acknowledged"])

    def _forget_cleared_refusals(self) -> None:
        """Keep at most ``MAX_REFUSALS_KEPT`` cleared refusals, dropping the oldest first. Only a
        cleared one may go: the chief referee must still see, and be able to clear, every open one."""
        cleared = sum(1 for r in self.refusals if r["acknowledged"])
        if cleared > MAX_REFUSALS_KEPT:
            drop = cleared - MAX_REFUSALS_KEPT
            kept = []
            for r in self.refusals:
                if drop and r["acknowledged"]:
                    drop -= 1
                    continue
                kept.append(r)
            self.refusals = kept

    def replay(self, events: Sequence[dict[str, Any]]) -> Self:
        """Fold a hub log. A row that reads as JSON but does not fit its type (a field missing or of
        the wrong kind: a hand-edited or damaged file) is named by its seq, as an unreadable row is,
        never an internal error."""
        for ev in events:
            try:
                self.apply(ev)
            except (KeyError, TypeError, IndexError, AttributeError, ValueError) as exc:
                seq = ev.get("seq") if isinstance(ev, dict) else None
                raise HubLogDamaged(f"赛事日志已损坏（第 {seq} 条：{type(exc).__name__}：{halves(str(exc))[0][:80]}） / "
                                    f"the hub event log is "
                                    f"damaged at seq {seq} ({type(exc).__name__}: {str(exc)[:80]})") from None
        return self


#: The hub's own edits of the configuration: kept in :attr:`HubState.hub_edits`, merged onto a
#: changed EVENT.toml when it is reloaded before the first draw.
CONFIG_EDITS = ("team_edited", "event_edited", "team_added")


def edit_config(cfg: dict[str, Any], etype: str, d: dict[str, Any]) -> None:
    """Apply one hub edit (``etype`` of :data:`CONFIG_EDITS`) to a configuration, in place: the one
    place an edit changes it, whether logged just now or carried over a reload. ``d`` may hold only
    some of the edit's fields (a reload kept those): the others stay as the configuration has them."""
    if etype == "event_edited":
        if "match_points" in d:  # the scheme's points with it (before the update: from the scheme they were)
            cfg["event"]["scoring"] = scheme_scoring(cfg["event"], d["match_points"])
        cfg["event"].update(d)
    elif etype == "team_edited":
        t = next((t for t in cfg["teams"] if t["id"] == d["team"]), None)
        if t is None:  # a damaged log (the check names only teams there): named by its seq, as any
            raise KeyError(f"no team {d['team']!r}")
        t.update({k: (list(v) if k == "players" else v) for k, v in d.items() if k in ("name", "players")})
    elif etype == "team_added":
        cfg["teams"].append({"id": d["team"], "name": d["name"], "players": list(d["players"])})
    else:
        raise ValueError(f"not a configuration edit: {etype!r}")


class HubLogDamaged(ValueError):
    """A hub log row that does not fold (see :meth:`HubState.replay`)."""


def byes_of(draw: dict[str, Any]) -> list[str]:
    """Every team with a bye in a hub draw (``byes``; a draw logged before it: its ``bye``)."""
    if draw.get("byes") is not None:
        return list(draw["byes"])
    return [draw["bye"]] if draw.get("bye") else []
