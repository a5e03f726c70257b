"""Every legal play from a hand.

``legal_plays`` builds readings pattern by pattern from the hand's rank groups instead of
classifying every sub-multiset (a 27-card hand has millions of those). The test suite checks
it against exactly that brute force on small hands, so the two definitions cannot drift.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import combinations_with_replacement
from operator import attrgetter

from table_service.rules.cards import (
    HAND_SIZE,
    NATURAL_VALUE,
    RANKS,
    SUITS,
    Card,
    card,
    check_level,
    check_possible,
    parse_cards,
    power,
    sort_key,
)
from table_service.rules.patterns import Play, beats

_Option = tuple[tuple[Card, ...], int]  # (cards, wild cards among them)
_idx = attrgetter("key")


def _multisets(items: list[tuple[Card, int]], k: int) -> list[tuple[Card, ...]]:
    """Distinct multisets of ``k`` cards from ``items`` (card, copies)."""
    if k == 0:
        return [()]
    total = sum(n for _, n in items)
    if k > total:
        return []
    pool = [c for c, _ in items]
    limit = dict(items)
    out = []
    for combo in combinations_with_replacement(pool, k):
        ok = True
        for c in set(combo):
            if combo.count(c) > limit[c]:
                ok = False
                break
        if ok:
            out.append(combo)
    return out


class _Hand:
    """The hand split into rank groups, with memoised group options."""

    def __init__(self, cards: list[Card], level: str) -> None:
        self.level = level
        self.wild = card(level, "h")
        self.w = 0
        counts: dict[Card, int] = {}
        for c in cards:
            if c is self.wild:
                self.w += 1
            else:
                counts[c] = counts.get(c, 0) + 1
        self.counts = counts
        self.by_rank: dict[str, list[tuple[Card, int]]] = {}
        for c, n in sorted(counts.items(), key=lambda cn: sort_key(cn[0])):
            self.by_rank.setdefault(c.rank, []).append((c, n))
        self._ms: dict[tuple[str, int], list[tuple[Card, ...]]] = {}

    def nat(self, rank: str, k: int) -> list[tuple[Card, ...]]:
        key = (rank, k)
        got = self._ms.get(key)
        if got is None:
            got = _multisets(self.by_rank.get(rank, []), k)
            self._ms[key] = got
        return got

    def group_options(self, rank: str, size: int) -> list[_Option]:
        """Ways to make ``size`` cards of ``rank`` from naturals plus wild cards (at least one
        natural card: wild cards alone never stand for another rank)."""
        key = (rank, -size)
        got = self._ms.get(key)
        if got is None:
            got = []
            for j in range(0, min(self.w, size - 1) + 1):
                ws = (self.wild,) * j
                for m in self.nat(rank, size - j):
                    got.append((tuple(sorted(m + ws, key=_idx)) if j else m, j))
            self._ms[key] = got  # type: ignore[assignment]
        return got  # type: ignore[return-value]


def _product(options: list[list[_Option]], budget: int) -> list[_Option]:
    """Cartesian product of per-position options using at most ``budget`` wild cards in all."""
    partial: list[tuple[tuple[Card, ...], int]] = [((), 0)]
    for opts in options:
        nxt = []
        for cs, used in partial:
            for m, j in opts:
                u = used + j
                if u <= budget:
                    nxt.append((cs + m, u))
        partial = nxt
        if not partial:
            return []
    return partial  # type: ignore[return-value]


def legal_plays(hand: Iterable[Card] | str, level: str, previous: Play | None = None) -> list[Play]:
    """Every distinct ``(cards, kind, rank)`` reading playable from ``hand``: all readings of all
    sub-multisets when leading, or exactly those that beat ``previous``.

    :raises ImpossibleCardsError: for a hand two decks cannot give (a face more than twice, more
        than 27 cards).

    >>> len(legal_plays("SJ SJ BJ BJ", "2"))  # SJ BJ, pairs SJ/BJ, joker bomb
    5
    """
    # The interned card of each face: ``_Hand`` tells the wild card (and ``suited`` the hand's cards)
    # by identity, which a ``Card`` built with the class itself would fail.
    cards = [card(c.rank, c.suit) for c in parse_cards(hand)]
    level = check_level(level)
    check_possible(cards, max_cards=HAND_SIZE)
    h = _Hand(cards, level)
    out: list[Play] = []
    wild = h.wild

    new = tuple.__new__  # Play's own constructor is a Python function; this is the C one
    append = out.append

    def emit(kind: str, rank: str, cs: tuple[Card, ...]) -> None:
        """Add a reading whose cards are already in canonical order."""
        out.append(new(Play, (kind, rank, cs, level)))

    def emit_sorted(kind: str, rank: str, cs: tuple[Card, ...]) -> None:
        out.append(new(Play, (kind, rank, tuple(sorted(cs, key=_idx)), level)))

    want_all = previous is None
    pk = previous.kind if previous is not None else None

    def floor_power(kind: str) -> int:
        """Minimum power (exclusive) a reading of ``kind`` needs to beat ``previous``."""
        if previous is not None and pk == kind:
            return power(previous.rank, level)
        return -1

    # ---- single
    if want_all or pk == "single":
        fp = floor_power("single")
        for c in h.counts:
            if power(c.rank, level) > fp:
                emit("single", c.rank, (c,))
        if h.w and power(level, level) > fp:
            emit("single", level, (wild,))
    # ---- pair
    if want_all or pk == "pair":
        fp = floor_power("pair")
        for r in RANKS:
            if power(r, level) <= fp:
                continue
            for m, _ in h.group_options(r, 2):
                emit("pair", r, m)
        if h.w == 2 and power(level, level) > fp:
            emit("pair", level, (wild, wild))
        for j in ("SJ", "BJ"):
            if power(j, level) > fp and h.counts.get(card(j), 0) >= 2:
                emit("pair", j, (card(j), card(j)))
    # ---- triple
    if want_all or pk == "triple":
        fp = floor_power("triple")
        for r in RANKS:
            if power(r, level) > fp:
                for m, _ in h.group_options(r, 3):
                    emit("triple", r, m)
    # ---- full house
    if want_all or pk == "full_house":
        fp = floor_power("full_house")
        pair_opts: dict[str, list[_Option]] = {r: [o for o in h.group_options(r, 2) if o[1] <= 1] for r in RANKS}
        for j in ("SJ", "BJ"):
            if h.counts.get(card(j), 0) >= 2:
                pair_opts[j] = [((card(j), card(j)), 0)]
        # flattened once: (pair rank, cards) without and with one wild card
        plain = [(p, pm) for p, opts in pair_opts.items() for pm, pj in opts if pj == 0]
        with_wild = [(p, pm) for p, opts in pair_opts.items() for pm, pj in opts if pj == 1]
        for t in RANKS:
            if power(t, level) <= fp:
                continue
            for tm, tj in h.group_options(t, 3):
                left = h.w - tj  # inlined below: this loop makes most of the plays
                # both parts are sorted; they concatenate in order unless they interleave
                # (possible only when a wild card sits between them), which needs a sort
                lo, hi = tm[0].key, tm[-1].key
                for p, pm in plain if not left else plain + with_wild:
                    if p != t:
                        if hi <= pm[0].key:
                            cs = tm + pm
                        elif pm[-1].key <= lo:
                            cs = pm + tm
                        else:
                            cs = tuple(sorted(tm + pm, key=_idx))
                        append(new(Play, ("full_house", t, cs, level)))
                if left == 2:
                    emit_sorted("full_house", t, tm + (wild, wild))
    def emit_runs(kind: str, top: int, width: int, options_for: Callable[[str], list[_Option]]) -> None:
        """Every run of ``kind`` ending at position ``top``: one option per rank of the window."""
        opts = []
        for pos in range(top - width + 1, top + 1):
            o = options_for("A" if pos == 1 else RANKS[pos - 2])
            if not o:
                return
            opts.append(o)
        rank = RANKS[top - 2]
        a_low = top - width + 1 == 1  # the low ace sorts last, so the row needs ordering
        for cs, used in _product(opts, h.w):
            if used or a_low:
                append(new(Play, (kind, rank, tuple(sorted(cs, key=_idx)), level)))
            else:
                append(new(Play, (kind, rank, cs, level)))

    # ---- sequences: straights, three-pair runs, two-triple runs
    for kind, width, copies, lowest_top in (
        ("straight", 5, 1, 5),
        ("three_pairs", 3, 2, 3),
        ("two_triples", 2, 3, 2),
    ):
        if not (want_all or pk == kind):
            continue
        floor = NATURAL_VALUE[previous.rank] if previous is not None and pk == kind else 0
        extra: list[_Option] = []
        if copies == 1 and h.w:
            extra = [((wild,), 1)]
        elif copies == 2 and h.w == 2:
            extra = [((wild, wild), 2)]
        for top in range(max(lowest_top, floor + 1), 15):
            emit_runs(kind, top, width, lambda r, c=copies, x=extra: h.group_options(r, c) + x)
    # ---- bombs (they may always be played)
    for r in RANKS:
        avail = sum(n for _, n in h.by_rank.get(r, ())) + h.w
        for size in range(4, avail + 1):
            for m, _ in h.group_options(r, size):
                emit("bomb", r, m)
    # ---- straight flushes
    wild_opt: list[_Option] = [((wild,), 1)] if h.w else []

    def suited(r: str, s: str) -> list[_Option]:
        c = card(r, s)
        return ([((c,), 0)] if (c is not wild and h.counts.get(c, 0)) else []) + wild_opt

    for s in SUITS:
        for top in range(5, 15):
            emit_runs("straight_flush", top, 5, lambda r, s=s: suited(r, s))
    if h.counts.get(card("SJ"), 0) == 2 and h.counts.get(card("BJ"), 0) == 2:
        emit("joker_bomb", "BJ", (card("SJ"), card("SJ"), card("BJ"), card("BJ")))
    if previous is not None:
        out = [p for p in out if beats(p, previous, level)]
    return out
