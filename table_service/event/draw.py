"""The draw (编排): round robin for small groups, Swiss for the rest.

Swiss pairing is a maximum-weight perfect matching (networkx's blossom algorithm) over the
teams ranked by the standings so far. The matching minimises, in strict order of priority:

1. rematches and second byes (a pairing that can avoid them always does), a bye weighing once for
   each bye its team has had (a small field over many rounds gives it to a team with the fewest);
2. no bye to a no-show: a team that forfeited the round before (弃权, a result with ``forfeit``
   naming it — :meth:`~.model.Result.forfeited_by`, the one reading the standings use too: the rules'
   17 : 0 for absence, or over 10 minutes late) does not get the bye while another team can take it;
3. the bye goes to the lowest-ranked team that can take it (as Swiss practice has it: a bye is a
   free win, never the leader's while a team below has had none);
4. the total match-point gap over all tables;
5. the distance in the ranking (so inside a match-point group 1 meets 2, 3 meets 4 — the
   adjacent pairing Guandan events use).

Why the no-show weighs where it does. A forfeit leaves a team at the bottom of the standings (no
match points, no 级差分), so priority 3 alone handed it the next round's bye: a free win for being
absent, which Swiss practice never gives. It weighs above 3, so the bye passes over every no-show
to the lowest-ranked team that played. It weighs below 1 because a rematch and a second bye are the
pairing's absolute rules (the optimality argument below and the tests' brute force rest on "a
pairing that can avoid them always does"), and they are no smaller a wrong: a second bye is the same
free win, to a team that has had one already, and a rematch spoils a round for two teams where a
no-show's bye favours one. So in a small field where every other team has had a bye (or could only
be paired again), the no-show takes it, and :func:`bye_note` says why. Only the round before counts:
a team that forfeited earlier and has played since has come back. A withdrawn team (below) is never
drawn at all.

Each priority is scaled above the largest possible sum of the ones below, so the integer weights
encode exactly that lexicographic order (tests check it against a brute force over every
matching of small fields).

Scale: the blossom algorithm is cubic, and a complete graph on 1,000 teams has 500,000 edges —
tens of seconds in pure Python (``benchmarks/draw_bench.py``: 200 teams already take ~4 s).
Teams sorted by standing only ever want neighbours, and the adjacent pairing (1-2, 3-4, …, the
bye to the last team) is itself optimal whenever it holds no rematch and no second bye and the last
team is no no-show. So only the places where it does are solved: a region of ``window`` pairs either
side of each bad pair (and of the bye) is matched on its own (overlapping regions merged), with edges
between teams at most ``2·window + 1`` places apart; if a region still holds a rematch, a second bye
or a no-show's bye (the bottom of the standings may hold more no-shows than one window), the window
doubles and the regions are solved again, up to the whole field. Fields of up to ``EXACT_N`` teams
are always one complete matching, so they are exact (the tests check them against a brute force);
for larger fields the result is locally optimal, which in practice never needed a rematch (1,000
teams, 7 rounds: none) nor a no-show's bye (1,001 teams, 2 % of tables forfeited: none).

The draw says what it did about a no-show in ``info`` (``no_shows_passed``: the teams that forfeited
the round before and rank below the bye, passed over; ``no_show_byes``: the bye's team when it
forfeited the round before, as nobody else could take it), and :func:`bye_note` words it for the
pairing sheet and ``guandan-table event pair``.

Directions: the team that has sat NS fewer times (net of EW) sits NS; then the one that sat EW
last round; then the higher-ranked one. Tables are numbered from the top of the standings.

Round 1 (首轮抽签): with no results there is nothing to rank by, so the teams are put in an order
drawn by lots (:func:`first_round_order`: the standings' own lots, :func:`~.standings.draw_lots`,
over the whole field, seeded by the event's seed, so the hub, a replay and ``guandan-table event pair``
all draw the same order) and paired as a ranking would be: 1-2, 3-4, …, the bye to the last. A
round robin's circle is that order too (each round's schedule follows from it). ``first_round =
"order"`` keeps the order the teams are listed in (an organiser who seeded the list). The hub logs the
order it drew with round 1 and draws a round robin's later rounds from that record
(:meth:`~.core.HubCore.check_draw`), so an event whose round 1 was drawn in entry order keeps its circle.

Withdrawn teams (退赛, ``withdrawn``): never drawn again and never given a bye. Their results so far
stay in the standings the Swiss draw ranks by (their opponents' records keep them); only the
active teams are paired, the bye going to an active one. A round robin keeps its schedule (the
circle over every team, so nobody meets anyone twice): whoever the schedule sets against a
withdrawn team has a bye that round, as the odd field's team does (:attr:`Draw.extra_byes` when
a round has more than one).

A round robin gives no bye by choice: with an odd field each team's bye is fixed by the circle, one
each over the schedule. A no-show keeps its scheduled bye (moving it would break the schedule: the
team that took it would meet its scheduled opponent of that round again, or never); ``info`` says so
(``no_show_byes``), and so does :func:`bye_note`.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import networkx as nx

from table_service.event.model import EventInputError, Result
from table_service.event.standings import ScoringOptions, compute_standings, draw_lots

BYE = "\x00bye"
DEFAULT_WINDOW = 4
#: Fields up to this size are always solved as one complete matching (exact).
EXACT_N = 24
METHODS = ("swiss", "round-robin")
#: How round 1 is drawn (EVENT.toml ``[event] first_round``): by lots (the default), or in the order
#: the teams are listed (a seeded list).
FIRST_ROUND = ("lots", "order")


def first_round_order(teams: Sequence[str], seed: int | str = 0, first_round: str = "lots") -> list[str]:
    """The order round 1 pairs by (and a round robin's circle): the teams' lots drawn from ``seed``
    (independent of the order given: the same field and seed always draw the same), or ``teams`` as
    listed for ``first_round="order"``."""
    if first_round not in FIRST_ROUND:
        raise EventInputError(f"首轮编排须为 lots（抽签）或 order（按名单顺序），收到 {first_round!r} / "
                              f"first_round must be lots or order, "
                              f"got {first_round!r}")
    return draw_lots(teams, seed) if first_round == "lots" and len(teams) > 1 else list(teams)


@dataclass(frozen=True)
class Draw:
    """One round's pairing."""

    round: int
    tables: list[tuple[str, str, str]]
    """``(table, ns, ew)``, tables "1", "2", … from the top."""
    bye: str | None = None
    method: str = "swiss"
    info: dict[str, Any] = field(default_factory=dict)
    extra_byes: tuple[str, ...] = ()
    """Byes past the first (a round robin with withdrawn teams: each team the schedule sets against
    one); scored as ``bye`` is."""

    @property
    def byes(self) -> list[str]:
        """Every team with a bye this round (``bye`` first)."""
        return ([self.bye] if self.bye else []) + list(self.extra_byes)

    def to_json(self) -> dict[str, Any]:
        """``{"round": n, "tables": [{"table": "1", "ns": T, "ew": T}, ...], "bye": T|null, "method",
        "info", "bye_note": "中文 / English"|null}`` (``guandan-table event pair --json``): with the draw's
        explanation, so a script sees what the printed draw says — a no-show passed over for the bye or
        why one took it (:func:`bye_note`), round 1's lots — and not only its outcome. ``info`` without
        its ``regions`` (the solver's working, which the hub does not log either)."""
        note = bye_note(self.method, self.round, self.info)
        return {"round": self.round, "tables": [{"table": t, "ns": ns, "ew": ew} for t, ns, ew in self.tables],
                "bye": self.bye, "method": self.method,
                "info": {k: v for k, v in self.info.items() if k != "regions"},
                "bye_note": f"{note[0]} / {note[1]}" if note else None}

    @classmethod
    def from_json(cls, d: dict[str, Any], method: str = "swiss") -> Draw:
        return cls(round=int(d["round"]), tables=[(str(t["table"]), t["ns"], t["ew"]) for t in d["tables"]],
                   bye=d.get("bye"), method=method)


@dataclass
class History:
    """What the draw needs to know about the rounds so far."""

    met: set[frozenset[str]] = field(default_factory=set)
    byes: dict[str, int] = field(default_factory=dict)
    balance: dict[str, int] = field(default_factory=dict)
    """NS sittings minus EW sittings."""
    last_dir: dict[str, str] = field(default_factory=dict)
    rounds: int = 0
    forfeits: dict[int, set[str]] = field(default_factory=dict)
    """The teams that forfeited a table of each round (:meth:`~.model.Result.forfeited_by`)."""

    def no_shows(self, rnd: int) -> set[str]:
        """The teams that forfeited round ``rnd - 1``: the round before the one drawn."""
        return set(self.forfeits.get(rnd - 1, ()))

    @classmethod
    def of(cls, results: Iterable[Result]) -> History:
        h = cls()
        for r in sorted(results, key=lambda x: x.round):
            h.rounds = max(h.rounds, r.round)
            if r.ew is None:
                h.byes[r.ns] = h.byes.get(r.ns, 0) + 1
                continue
            h.met.add(frozenset((r.ns, r.ew)))
            if gone := r.forfeited_by():
                h.forfeits.setdefault(r.round, set()).update(gone)
            h.balance[r.ns] = h.balance.get(r.ns, 0) + 1
            h.balance[r.ew] = h.balance.get(r.ew, 0) - 1
            h.last_dir[r.ns], h.last_dir[r.ew] = "ns", "ew"
        return h


def _check_teams(teams: Sequence[str], results: Sequence[Result], withdrawn: Collection[str] = ()) -> None:
    known = set(teams)
    if len(known) != len(teams):
        raise EventInputError("队名重复 / duplicate team ids")
    if len(teams) < 2:
        raise EventInputError("至少需要两队 / at least two teams are needed")
    if len(known - set(withdrawn)) < 2:
        raise EventInputError("退赛后在赛的队不足两队，无法编排 / fewer than two teams are still in play "
                              "(the others withdrew): nothing to draw")
    for r in results:
        for t in (r.ns, r.ew):
            if t is not None and t not in known:
                raise EventInputError(f"第 {r.round} 轮成绩中的队 {t!r} 不在队名单中 / team {t!r} of round {r.round} "
                                      "is not in the teams list")


def orient(a: str, b: str, hist: History) -> tuple[str, str]:
    """``(ns, ew)`` for two teams, ``a`` ranked above ``b`` (see the module doc)."""
    ba, bb = hist.balance.get(a, 0), hist.balance.get(b, 0)
    if ba != bb:
        return (a, b) if ba < bb else (b, a)
    la, lb = hist.last_dir.get(a), hist.last_dir.get(b)
    if la != lb:
        if la == "ew" or lb == "ns":
            return (a, b)
        return (b, a)
    return (a, b)


def _number(pairs: list[tuple[int, str, str]], hist: History) -> list[tuple[str, str, str]]:
    pairs.sort()
    return [(str(i), *orient(a, b, hist)) for i, (_, a, b) in enumerate(pairs, 1)]


def round_robin(teams: Sequence[str], results: Sequence[Result] = (), *, round_no: int | None = None,
                withdrawn: Collection[str] = (), seed: int | str = 0, first_round: str = "lots",
                order: Sequence[str] | None = None) -> Draw:
    """The circle method: the first team stays, the others turn one place a round. A field of
    n teams (n even) meets everyone in n − 1 rounds; an odd field gives one bye a round. Past
    the last round the cycle starts again. A ``withdrawn`` team keeps its place in the circle
    (the schedule stays) but is not drawn: the team set against it has a bye. The circle is
    ``order`` when given (the one round 1 was drawn with), else :func:`first_round_order`."""
    results = list(results)
    out = set(withdrawn)
    _check_teams(teams, results, out)
    hist = History.of(results)
    rnd = round_no if round_no is not None else hist.rounds + 1
    circle = _circle(teams, order, seed, first_round)
    arr: list[str | None] = list(circle) + ([None] if len(teams) % 2 else [])
    n = len(arr)
    k = (rnd - 1) % (n - 1)
    rest = arr[1:]
    rest = rest[-k:] + rest[:-k] if k else rest
    ring = [arr[0], *rest]
    pos = {t: i for i, t in enumerate(circle)}
    pairs: list[tuple[int, str, str]] = []
    free: list[str] = []
    for i in range(n // 2):
        a, b = ring[i], ring[n - 1 - i]
        a, b = (None if a in out else a), (None if b in out else b)
        if a is None or b is None:
            other = a if b is None else b  # the odd field's bye, or the team set against a withdrawn one
            if other is not None:
                free.append(other)
            continue
        if pos[a] > pos[b]:
            a, b = b, a
        pairs.append((pos[a], a, b))
    free.sort(key=lambda t: pos[t])
    # The schedule's byes stand, a no-show's too (see the module doc): said, not moved.
    info = {**_first_round_info(rnd, order, first_round, circle),
            "no_show_byes": [t for t in free if t in hist.no_shows(rnd)]}
    return Draw(round=rnd, tables=_number(pairs, hist), bye=free[0] if free else None, method="round-robin",
                extra_byes=tuple(free[1:]), info=info)


def _circle(teams: Sequence[str], order: Sequence[str] | None, seed: int | str, first_round: str) -> list[str]:
    """The order to draw by: ``order`` (a recorded one: each of ``teams`` once), else round 1's."""
    if order is None:
        return first_round_order(teams, seed, first_round)
    if sorted(order) != sorted(teams):
        raise EventInputError("首轮抽签的顺序与队伍名单不符 / the order round 1 was drawn by does not hold the teams "
                              "listed now")
    return list(order)


def _first_round_info(rnd: int, order: Sequence[str] | None, first_round: str, drawn: list[str]) -> dict[str, Any]:
    """Round 1's ``info``: how it was drawn (``first_round``) and, by lots, the order drawn (``lots``)."""
    if rnd != 1:
        return {}
    return {"first_round": first_round, **({"lots": list(drawn)} if first_round == "lots" else {})}


def pairing_cost_scales(n: int, max_gap: int) -> tuple[int, int, int, int]:
    """``(R, F, B, G)``: the weight of a rematch/second bye, of a no-show's bye, of the bye's place
    above the last team, and of one match point of gap, chosen so each priority outweighs every
    possible sum of the lower ones (one bye a draw: ``F`` counts once at most, so ``2F`` is above it
    and everything below it)."""
    tiny_total = (n // 2 + 1) * (n + 1)
    g = tiny_total + 1
    b = g * (max_gap + 1) * (n // 2 + 1) + 1
    f = b * (n + 1) + 1
    return 2 * f, f, b, g


def _solve_region(ranked: Sequence[str], lo_i: int, hi_i: int, with_bye: bool, mp: dict[str, int], lo: int,
                  hist: History, band: int | None = None, no_show: Collection[str] = ()
                  ) -> tuple[list[tuple[str, str]], int]:
    """Matching of ``ranked[lo_i:hi_i]`` (plus the bye node), with edges between teams at most
    ``band`` places apart (``None``: all pairs, exact): returns the pairs and how many of them are
    rematches, second byes or a bye to one of ``no_show`` (what a wider region may avoid)."""
    part = ranked[lo_i:hi_i]
    n = len(ranked)
    gap = max(mp[t] for t in part) - min(min(mp[t] for t in part), lo)
    big_r, f_w, b_w, g = pairing_cost_scales(max(n, len(part) + with_bye), gap)
    costs: dict[tuple[str, str], int] = {}
    for i, a in enumerate(part):
        for j in range(i + 1, len(part) if band is None else min(len(part), i + band + 1)):
            b = part[j]
            costs[(a, b)] = big_r * (frozenset((a, b)) in hist.met) + g * abs(mp[a] - mp[b]) + (j - i)
        if with_bye:
            # A bye more weighs as a rematch does, per bye had: once every team has had one (a small field over
            # many rounds), the bye goes to a team with the fewest, never a third to one while another has one.
            # A no-show's bye weighs below that, above the bye's place (the module doc says why).
            costs[(a, BYE)] = (big_r * hist.byes.get(a, 0) + f_w * (a in no_show) + b_w * (n - 1 - lo_i - i)
                               + g * (mp[a] - lo))
    top = max(costs.values()) + 1
    graph = nx.Graph()
    for (a, b), c in costs.items():
        graph.add_edge(a, b, weight=top - c)
    matching = nx.max_weight_matching(graph, maxcardinality=True)
    pairs = [(a, b) if (a, b) in costs else (b, a) for a, b in matching]
    return pairs, sum(costs[p] >= f_w for p in pairs)


def swiss(teams: Sequence[str], results: Sequence[Result] = (), opts: ScoringOptions | None = None, *,
          seed: int | str = 0, window: int = DEFAULT_WINDOW, round_no: int | None = None,
          recorded_lots: Mapping[tuple[str, ...], Sequence[str]] | None = None,
          withdrawn: Collection[str] = (), first_round: str = "lots", order: Sequence[str] | None = None) -> Draw:
    """The next Swiss round from the results so far (see the module doc); ``recorded_lots``
    (the hub's drawn lots) order full ties exactly as published. ``withdrawn`` teams are ranked
    with their results (the standings are everyone's) but left out of the pairing and the bye.
    With no results (round 1) the teams are ranked by ``order`` when given, else by
    :func:`first_round_order` (lots from ``seed``, or the list's order)."""
    results = list(results)
    out = set(withdrawn)
    _check_teams(teams, results, out)
    hist = History.of(results)
    rnd = round_no if round_no is not None else hist.rounds + 1
    drawn: list[str] = []
    if results:
        st = compute_standings(results, teams, opts, seed=seed, recorded_lots=recorded_lots)
        ranked = [row.team for row in st.rows if row.team not in out]
        mp = {row.team: row.match_points for row in st.rows if row.team not in out}
    else:
        drawn = _circle(teams, order, seed, first_round)
        ranked = [t for t in drawn if t not in out]
        mp = {t: 0 for t in ranked}
    n = len(ranked)
    pos = {t: i for i, t in enumerate(ranked)}
    lo = min(mp.values())
    odd = n % 2 == 1
    no_show = hist.no_shows(rnd) & set(ranked)
    # The adjacent pairing (1-2, 3-4, …; the last team's bye) is the optimum whenever it holds no
    # rematch and no second bye; only the places where it does are solved as matchings.
    bad_blocks = [k for k in range(n // 2) if frozenset((ranked[2 * k], ranked[2 * k + 1])) in hist.met]
    bye_bad = odd and (hist.byes.get(ranked[-1], 0) > 0 or ranked[-1] in no_show)
    if n <= EXACT_N:
        bad_blocks, bye_bad, w = list(range(n // 2)), odd, n
    chosen: dict[int, list[tuple[str, str]]] = {}
    w, tries, regions = (n if n <= EXACT_N else max(1, window)), 0, []
    while bad_blocks or bye_bad:
        tries += 1
        spans = [(max(0, 2 * k - 2 * w), min(n, 2 * k + 2 + 2 * w)) for k in bad_blocks]
        if bye_bad:
            spans.append((max(0, n - 1 - 2 * w), n))
        spans.sort()
        regions = []
        for a, b in spans:
            a -= a % 2
            if b != n and b % 2:
                b += 1
            if b >= n - 1:
                b = n
            if regions and a <= regions[-1][1]:
                regions[-1] = (regions[-1][0], max(regions[-1][1], b))
            else:
                regions.append((a, b))
        worst, chosen = 0, {}
        for a, b in regions:
            pairs, bad = _solve_region(ranked, a, b, odd and b == n, mp, lo, hist,
                                       None if n <= EXACT_N else 2 * w + 1, no_show)
            chosen[a] = pairs
            worst = max(worst, bad)
        if worst == 0 or (regions == [(0, n)] and (n <= EXACT_N or 2 * w + 1 >= n)):
            break
        w *= 2
    covered: set[int] = set()
    raw: list[tuple[str, str]] = []
    for a, b in regions if chosen else []:
        covered.update(range(a, b))
        raw.extend(chosen[a])
    for k in range(n // 2):
        if 2 * k not in covered:
            raw.append((ranked[2 * k], ranked[2 * k + 1]))
    pairs: list[tuple[int, str, str]] = []
    bye = ranked[-1] if odd and n - 1 not in covered else None
    for a, b in raw:
        if BYE in (a, b):
            bye = a if b == BYE else b
            continue
        if pos[a] > pos[b]:
            a, b = b, a
        pairs.append((pos[a], a, b))
    info = {"rematches": sum(frozenset((a, b)) in hist.met for _, a, b in pairs),
            "repeat_byes": int(bye is not None and hist.byes.get(bye, 0) > 0),
            "no_show_byes": [bye] if bye in no_show else [],
            "no_shows_passed": [t for t in ranked if t in no_show and bye is not None and pos[t] > pos[bye]],
            "gap": sum(abs(mp[a] - mp[b]) for _, a, b in pairs) + (mp[bye] - lo if bye else 0),
            "regions": [list(r) for r in regions] if chosen else [], "tries": tries}
    if not results:
        info.update(_first_round_info(1, order, first_round, drawn))
    return Draw(round=rnd, tables=_number(pairs, hist), bye=bye, method="swiss", info=info)


def bye_note(method: str, rnd: int, info: Mapping[str, Any], names: Mapping[str, str] | None = None
             ) -> tuple[str, str] | None:
    """What the draw of round ``rnd`` did about no-shows (teams that forfeited round ``rnd - 1``), in
    Chinese and English, from its ``info`` (a :class:`Draw`'s, or the one the hub logged): the ones
    the bye passed over, or the no-show that took it and why; ``None`` when there were none to say.
    ``names``: team id -> name, shown as "name (id)"."""
    names = names or {}

    def who(teams: Sequence[str]) -> tuple[str, str]:
        shown = [f"{names[t]} ({t})" if names.get(t, t) != t else t for t in teams]
        return "、".join(shown), ", ".join(shown)

    prev = rnd - 1
    took = list(info.get("no_show_byes") or [])
    passed = list(info.get("no_shows_passed") or [])
    if took and method != "swiss":
        zh, en = who(took)
        return (f"循环赛赛程固定：{zh} 第 {prev} 轮弃权，仍按赛程轮空",
                f"a round robin's schedule is fixed: {en} forfeited round {prev} and keeps its scheduled bye")
    if took:
        zh, en = who(took)
        return (f"轮空给了第 {prev} 轮弃权的 {zh}：其他安排都要重复轮空或重复对阵",
                f"the bye goes to {en}, which forfeited round {prev}: any other draw needs a second bye or a rematch")
    if passed:
        zh, en = who(passed)
        return (f"第 {prev} 轮弃权的 {zh} 不轮空（缺席不得轮空）",
                f"{en} forfeited round {prev}: passed over for the bye (an absence earns no bye)")
    return None


def duplicate_rooms(draw: Draw) -> Draw:
    """Duplicate (复式) play: each team match at two tables, ``<n>A`` (room A, as drawn) and
    ``<n>B`` (room B, sides swapped; the same deals are replayed there)."""
    tables: list[tuple[str, str, str]] = []
    for t, ns, ew in draw.tables:
        tables += [(f"{t}A", ns, ew), (f"{t}B", ew, ns)]
    return Draw(round=draw.round, tables=tables, bye=draw.bye, method=draw.method, info={**draw.info, "duplicate": True},
                extra_byes=draw.extra_byes)


def make_draw(method: str, teams: Sequence[str], results: Sequence[Result] = (),
              opts: ScoringOptions | None = None, *, seed: int | str = 0, round_no: int | None = None,
              recorded_lots: Mapping[tuple[str, ...], Sequence[str]] | None = None,
              withdrawn: Collection[str] = (), first_round: str = "lots", order: Sequence[str] | None = None
              ) -> Draw:
    """Dispatch by method name (``swiss`` or ``round-robin``); duplicate events get two rooms a
    match; ``withdrawn`` teams are never drawn; round 1 (and a round robin's circle) by lots from
    ``seed`` or in the list's order (``first_round``), or by a recorded ``order`` (see the module doc)."""
    dup = bool(opts and opts.duplicate)
    if method == "swiss":
        d = swiss(teams, results, opts, seed=seed, round_no=round_no, recorded_lots=recorded_lots,
                  withdrawn=withdrawn, first_round=first_round, order=order)
        return duplicate_rooms(d) if dup else d
    if method in ("round-robin", "round_robin"):
        d = round_robin(teams, results, round_no=round_no, withdrawn=withdrawn, seed=seed, first_round=first_round,
                        order=order)
        return duplicate_rooms(d) if dup else d
    raise EventInputError(f"未知编排方法 {method!r}（须为 swiss 或 round-robin） / unknown draw method {method!r} "
                          f"(swiss or round-robin)")
