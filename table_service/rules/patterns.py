"""Patterns (牌型): what a set of cards can be read as, and what beats what.

``classify`` returns *every* reading of exactly the given cards: each way the heart level card
(逢人配, the wild card) can stand in. Readings are identified by ``(kind, rank, cards)``; when
the wild card could stand for several faces giving the same identity (two wild cards as "any
pair" in a full house), one canonical reading is returned, with the wild cards read as
themselves wherever that is legal.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

from table_service.rules.cards import (
    NATURAL_VALUE,
    RANK_NAMES_ZH,
    RANKS,
    Card,
    card,
    check_level,
    check_possible,
    format_cards,
    parse_cards,
    power,
    sort_key,
)

KINDS: tuple[str, ...] = (
    "single",
    "pair",
    "triple",
    "full_house",
    "straight",
    "three_pairs",
    "two_triples",
    "bomb",
    "straight_flush",
    "joker_bomb",
)
KIND_NAMES_ZH: dict[str, str] = {
    "single": "单张",
    "pair": "对子",
    "triple": "三同张",
    "full_house": "三带二",
    "straight": "顺子",
    "three_pairs": "三连对",
    "two_triples": "二连三",
    "bomb": "炸弹",
    "straight_flush": "同花顺",
    "joker_bomb": "四大天王",
}
BOMB_FAMILY: frozenset[str] = frozenset({"bomb", "straight_flush", "joker_bomb"})
SEQUENCE_KINDS: frozenset[str] = frozenset({"straight", "straight_flush", "three_pairs", "two_triples"})

#: (width in ranks, copies per rank) of each sequence kind.
SEQUENCE_SHAPE: dict[str, tuple[int, int]] = {
    "straight": (5, 1),
    "straight_flush": (5, 1),
    "three_pairs": (3, 2),
    "two_triples": (2, 3),
}


def position_rank(pos: int) -> str:
    """Rank at a sequence position: 1 is the low ace, 2..14 are 2..A."""
    return "A" if pos == 1 else RANKS[pos - 2]


class Play(NamedTuple):
    """One reading of a physical play.

    A ``NamedTuple`` rather than a dataclass because ``legal_plays`` builds thousands of them
    per call and tuple construction is several times cheaper; it is immutable and hashable all
    the same. ``faces`` is derived on access from the other fields, so two plays with the same
    ``(kind, rank, cards, level)`` are the same value.
    """

    kind: str
    """One of :data:`KINDS`."""
    rank: str
    """The rank that orders plays of this kind (highest rank of a sequence, ``5`` for
    A-2-3-4-5, the triple's rank of a full house, ``BJ`` for the joker bomb)."""
    cards: tuple[Card, ...]
    """The physical cards, in canonical order (natural rank, then suit)."""
    level: str
    """The deal's level the reading was made at."""

    @property
    def faces(self) -> tuple[Card, ...]:
        """What each card of ``cards`` counts as, position by position."""
        return _faces(self.kind, self.rank, self.cards, self.level)

    @property
    def size(self) -> int:
        """Number of cards."""
        return len(self.cards)

    @property
    def is_bomb(self) -> bool:
        """Bombs, straight flushes and the joker bomb beat every ordinary pattern."""
        return self.kind in BOMB_FAMILY

    @property
    def wild_count(self) -> int:
        """How many heart level cards the play uses."""
        lv = self.level
        return sum(1 for c in self.cards if c.suit == "h" and c.rank == lv)

    def notation(self) -> str:
        """``kind rank: cards`` — compact, for logs and the CLI."""
        return f"{self.kind} {self.rank}: {format_cards(self.cards)}"

    def describe_zh(self) -> str:
        """Chinese then English description, for referees. The joker bomb has one form, so no rank
        (it read "四大天王（大王）", a rank that means nothing)."""
        if self.kind == "joker_bomb":
            return f"{KIND_NAMES_ZH[self.kind]} / {self.kind}"
        rank = RANK_NAMES_ZH.get(self.rank, self.rank)
        return f"{KIND_NAMES_ZH[self.kind]}（{rank}） / {self.kind} ({self.rank})"

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return (
            f"Play(kind={self.kind!r}, rank={self.rank!r}, "
            f"cards=tuple(parse_cards({format_cards(self.cards)!r})), level={self.level!r})"
        )


def make_play(kind: str, rank: str, cards: Iterable[Card], level: str) -> Play:
    """Build a play with its cards in canonical order (no legality check: see ``classify``)."""
    return Play(kind, rank, tuple(sorted(cards, key=sort_key)), level)


# --------------------------------------------------------------------------- faces


def _faces(kind: str, rank: str, cards: tuple[Card, ...], level: str) -> tuple[Card, ...]:
    wild_idx = [i for i, c in enumerate(cards) if c.suit == "h" and c.rank == level]
    if not wild_idx or len(wild_idx) == len(cards) or kind == "joker_bomb":
        return cards
    out = list(cards)
    if kind in ("single", "pair", "triple", "bomb"):
        for i in wild_idx:
            out[i] = card(rank, "h")
        return tuple(out)
    if kind == "full_house":
        naturals = [c for i, c in enumerate(cards) if i not in wild_idx]
        tn = sum(1 for c in naturals if c.rank == rank)
        need = 3 - tn
        others = [c for c in naturals if c.rank != rank]
        pair_rank = others[0].rank if others else (level if level != rank else ("2" if rank != "2" else "3"))
        for k, i in enumerate(wild_idx):
            out[i] = card(rank, "h") if k < need else card(pair_rank, "h")
        return tuple(out)
    # sequences
    width, copies = SEQUENCE_SHAPE[kind]
    top = NATURAL_VALUE[rank]
    low = top - width + 1
    have: dict[int, int] = {}
    suit = "h"
    for i, c in enumerate(cards):
        if i in wild_idx:
            continue
        v = c.value
        pos = 1 if (v == 14 and low <= 1) else v
        have[pos] = have.get(pos, 0) + 1
        if kind == "straight_flush":
            suit = c.suit
    missing: list[int] = []
    for pos in range(low, top + 1):
        missing.extend([pos] * (copies - have.get(pos, 0)))
    for i, pos in zip(wild_idx, missing, strict=False):
        out[i] = card(position_rank(pos), suit)
    return tuple(out)


# --------------------------------------------------------------------------- classify


def _seq_fits(nat_counts: dict[str, int], low: int, top: int, copies: int) -> bool:
    """Do the natural cards fit a sequence window [low, top] with at most ``copies`` each?"""
    for r, n in nat_counts.items():
        v = NATURAL_VALUE[r]
        if v > 14:
            return False
        pos = 1 if (v == 14 and low <= 1) else v
        if pos < low or pos > top or n > copies:
            return False
    return True


def classify(cards: Iterable[Card] | str, level: str) -> list[Play]:
    """Every reading of exactly these cards at ``level``; ``[]`` if they form no pattern.

    :raises ImpossibleCardsError: for a face given more than twice (two decks hold two).

    >>> [p.notation() for p in classify("2h 2h 5s", "2")]
    ['triple 5: 2h 2h 5s']
    """
    cs = parse_cards(cards) if isinstance(cards, str) else list(cards)
    level = check_level(level)
    check_possible(cs)
    n = len(cs)
    if n == 0 or n > 10:
        return []
    canon = tuple(sorted(cs, key=sort_key))
    w = 0
    nat: dict[str, int] = {}
    suits: set[str] = set()
    for c in canon:
        if c.suit == "h" and c.rank == level:
            w += 1
        else:
            nat[c.rank] = nat.get(c.rank, 0) + 1
            suits.add(c.suit)
    out: list[Play] = []
    if w == n:  # wild cards on their own are plain level cards
        out.append(Play("single" if n == 1 else "pair", level, canon, level))
        return out
    jokers = nat.get("SJ", 0) + nat.get("BJ", 0)
    if n == 1:
        out.append(Play("single", canon[0].rank, canon, level))
        return out
    if len(nat) == 1:
        (r,) = nat
        if r in ("SJ", "BJ"):
            if n == 2 and w == 0:
                out.append(Play("pair", r, canon, level))
        elif n == 2:
            out.append(Play("pair", r, canon, level))
        elif n == 3:
            out.append(Play("triple", r, canon, level))
        elif n >= 4:
            out.append(Play("bomb", r, canon, level))
    if n == 4 and nat.get("SJ") == 2 and nat.get("BJ") == 2:
        out.append(Play("joker_bomb", "BJ", canon, level))
    if n == 5:
        for t, tn in nat.items():
            if t in ("SJ", "BJ") or tn > 3 or 3 - tn > w:
                continue
            wr = w - (3 - tn)
            rest = [(r, k) for r, k in nat.items() if r != t]
            if not rest:
                ok = wr == 2
            elif len(rest) == 1:
                p, pk = rest[0]
                ok = pk + wr == 2 and (wr == 0 or p not in ("SJ", "BJ"))
            else:
                ok = False
            if ok:
                out.append(Play("full_house", t, canon, level))
        if jokers == 0 and all(k == 1 for k in nat.values()):
            flush = len(suits) == 1
            for top in range(5, 15):
                if _seq_fits(nat, top - 4, top, 1):
                    r = RANKS[top - 2]
                    out.append(Play("straight", r, canon, level))
                    if flush:
                        out.append(Play("straight_flush", r, canon, level))
    if n == 6 and jokers == 0:
        for top in range(3, 15):
            if _seq_fits(nat, top - 2, top, 2):
                out.append(Play("three_pairs", RANKS[top - 2], canon, level))
        for top in range(2, 15):
            if _seq_fits(nat, top - 1, top, 3):
                out.append(Play("two_triples", RANKS[top - 2], canon, level))
    return out


def is_pattern(tokens: Iterable[str], level: str) -> bool:
    """Whether ``tokens`` form any pattern at ``level``; cards two decks cannot give (a third
    copy) or tokens that are no card form none.  Why a boolean of its own: the card reader weighs
    a reading by whether a player could lay it (``vision.cardnet.shape``) and must not raise."""
    try:
        return bool(classify(parse_cards(list(tokens)), level))
    except ValueError:  # RulesError: a token no card, or a face more than twice
        return False


# --------------------------------------------------------------------------- comparison


def bomb_tier(play: Play) -> float:
    """Place in the bomb family: 4-card bomb 4 … 10-card bomb 10; straight flush 5.5 (between
    5- and 6-card bombs); joker bomb 100. Ordinary patterns are 0."""
    if play.kind == "bomb":
        return float(len(play.cards))
    if play.kind == "straight_flush":
        return 5.5
    if play.kind == "joker_bomb":
        return 100.0
    return 0.0


def beats(a: Play, b: Play, level: str) -> bool:
    """May ``a`` be played on ``b`` at ``level``?

    Ordinary patterns beat only the same kind and size of higher rank; any bomb beats any
    ordinary pattern; within the bomb family more cards first (the straight flush sits between
    5- and 6-card bombs), then rank; the joker bomb beats everything.
    """
    ka, kb = a.kind, b.kind
    if ka in BOMB_FAMILY:
        if kb not in BOMB_FAMILY:
            return True
        ta, tb = bomb_tier(a), bomb_tier(b)
        if ta != tb:
            return ta > tb
        if ka == "joker_bomb":
            return False
        if ka == "straight_flush":
            return NATURAL_VALUE[a.rank] > NATURAL_VALUE[b.rank]
        return power(a.rank, level) > power(b.rank, level)
    if kb in BOMB_FAMILY or ka != kb or len(a.cards) != len(b.cards):
        return False
    if ka in SEQUENCE_KINDS:
        return NATURAL_VALUE[a.rank] > NATURAL_VALUE[b.rank]
    return power(a.rank, level) > power(b.rank, level)


def strength(play: Play, level: str) -> tuple[float, int]:
    """A total order consistent with ``beats`` among plays that can be compared at all; used to
    pick the strongest reading of a play."""
    tier = bomb_tier(play)
    if play.kind in SEQUENCE_KINDS or play.kind == "straight_flush":
        return (tier, NATURAL_VALUE[play.rank])
    return (tier, power(play.rank, level))
