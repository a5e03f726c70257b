"""Cards and their notation.

Notation: rank then suit, ranks ``2 3 4 5 6 7 8 9 T J Q K A``, suits ``s h d c``,
jokers ``SJ`` (小王) and ``BJ`` (大王). The parser also accepts ``10`` for ``T``, the suit
symbols ``♠♥♦♣`` and ``小王``/``大王``; ``str(card)`` always gives the canonical form back, so
``parse_cards(format_cards(cards)) == cards``.

There are only 54 distinct faces, so ``Card`` values are interned: parsing the same token twice
returns the same object, which keeps hands cheap to copy and compare.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from table_service.rules.errors import ImpossibleCardsError, InvalidCardError

RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
SUITS: tuple[str, ...] = ("s", "h", "d", "c")
JOKERS: tuple[str, ...] = ("SJ", "BJ")
ALL_RANKS: tuple[str, ...] = RANKS + JOKERS

#: Natural value of a rank: 2..14 for 2..A, 15 small joker, 16 big joker. Level cards are
#: promoted only by :func:`power`, which knows the level.
NATURAL_VALUE: dict[str, int] = {r: i + 2 for i, r in enumerate(RANKS)} | {"SJ": 15, "BJ": 16}

SUIT_ORDER: dict[str, int] = {s: i for i, s in enumerate(SUITS)}
SUIT_NAMES_ZH: dict[str, str] = {"s": "黑桃", "h": "红桃", "d": "方块", "c": "梅花"}
RANK_NAMES_ZH: dict[str, str] = {"SJ": "小王", "BJ": "大王", "T": "10"}

_SUIT_ALIASES = {"♠": "s", "♥": "h", "♦": "d", "♣": "c", "♤": "s", "♡": "h", "♢": "d", "♧": "c"}
_JOKER_ALIASES = {"SJ": "SJ", "BJ": "BJ", "小王": "SJ", "大王": "BJ", "SMALLJOKER": "SJ", "BIGJOKER": "BJ"}
_SPLIT = re.compile(r"[\s,，、]+")


@dataclass(frozen=True, slots=True)
class Card:
    """One physical card face. ``suit`` is ``""`` for the jokers."""

    rank: str
    """``2``…``9``, ``T``, ``J``, ``Q``, ``K``, ``A``, ``SJ`` or ``BJ``."""
    suit: str
    """``s``, ``h``, ``d``, ``c``, or ``""`` for a joker."""
    key: int = field(default=-1, compare=False, repr=False)
    """Canonical sort position (natural value, then suit), precomputed because
    ``legal_plays`` sorts hundreds of thousands of small tuples."""

    def __post_init__(self) -> None:
        if self.key < 0:
            object.__setattr__(self, "key", NATURAL_VALUE[self.rank] * 8 + SUIT_ORDER.get(self.suit, 4))

    @classmethod
    def from_str(cls, token: str) -> Card:
        """Parse one token; see :func:`parse_card`."""
        return parse_card(token)

    def __str__(self) -> str:
        return self.rank + self.suit

    def __repr__(self) -> str:
        return f"Card.from_str({str(self)!r})"

    @property
    def is_joker(self) -> bool:
        """True for the small and the big joker."""
        return self.suit == ""

    @property
    def value(self) -> int:
        """Natural value (2..14, jokers 15/16), ignoring the level."""
        return NATURAL_VALUE[self.rank]

    def is_wild(self, level: str) -> bool:
        """The heart level card (逢人配) is the wild card."""
        return self.suit == "h" and self.rank == level


#: Copies of each face in play: two decks.
COPIES = 2
#: Cards in a full hand (全手牌): 108 cards among four players.
HAND_SIZE = 27

_INTERNED: dict[tuple[str, str], Card] = {}
for _r in RANKS:
    for _s in SUITS:
        _INTERNED[(_r, _s)] = Card(_r, _s)
for _j in JOKERS:
    _INTERNED[(_j, "")] = Card(_j, "")

#: The 54 distinct faces, in a fixed order (2s 2h 2d 2c … As Ah Ad Ac SJ BJ).
DECK_FACES: tuple[Card, ...] = tuple(_INTERNED.values())
#: Each face by its own notation (``"9s"``, ``"SJ"``): how the camera and the logs name cards, parsed
#: without the aliases' work (the card reader asks the rules about hundreds of readings a play).
_BY_NOTATION: dict[str, Card] = {str(c): c for c in DECK_FACES}


def card(rank: str, suit: str = "") -> Card:
    """The interned card of ``rank`` and ``suit`` (``suit`` empty for jokers); ``card("7h")``
    with one token also works."""
    try:
        return _INTERNED[(rank, suit)]
    except KeyError:
        if not suit and len(rank) >= 2:
            return parse_card(rank)
        raise InvalidCardError(f"无此牌：点数 {rank!r} 花色 {suit!r} / "
                               f"no such card: rank {rank!r} suit {suit!r}") from None


def parse_card(token: str) -> Card:
    """Parse one card token (``"7h"``, ``"10♥"``, ``"Td"``, ``"SJ"``, ``"大王"``).

    :raises InvalidCardError: naming the token, when it is not a card.
    """
    known = _BY_NOTATION.get(token) if isinstance(token, str) else None
    if known is not None:
        return known
    raw = token
    t = token.strip()
    if not t:
        raise InvalidCardError(f"空的牌：{raw!r} / empty card token: {raw!r}")
    upper = t.upper()
    if upper in _JOKER_ALIASES:
        return _INTERNED[(_JOKER_ALIASES[upper], "")]
    if t in _JOKER_ALIASES:
        return _INTERNED[(_JOKER_ALIASES[t], "")]
    suit_char = t[-1]
    suit = _SUIT_ALIASES.get(suit_char, suit_char.lower())
    rank = t[:-1].upper()
    if rank == "10":
        rank = "T"
    if rank in RANKS and suit in SUITS:
        return _INTERNED[(rank, suit)]
    raise InvalidCardError(f"无法识别的牌：{raw!r} / not a card: {raw!r}")


def parse_cards(text: str | Iterable[str | Card]) -> list[Card]:
    """Parse a play or a hand: a string of tokens separated by spaces or commas, or an iterable
    of tokens or cards. Order is kept (it matters: the wild card's position shows its reading).

    :raises InvalidCardError: naming the first bad token.
    """
    if isinstance(text, str):
        tokens: Iterable[str | Card] = [t for t in _SPLIT.split(text.strip()) if t]
    else:
        tokens = text
    return [t if isinstance(t, Card) else parse_card(t) for t in tokens]


def format_cards(cards: Iterable[Card]) -> str:
    """The notation of ``cards``, space separated, order kept."""
    return " ".join(str(c) for c in cards)


def power(rank: str, level: str) -> int:
    """Strength of a rank for singles, pairs, triples, full houses and bombs.

    Big joker > small joker > level card > A > K > … > 2. Sequences do not use this: they
    count every card at its natural rank.
    """
    if rank == "BJ":
        return 17
    if rank == "SJ":
        return 16
    if rank == level:
        return 15
    return NATURAL_VALUE[rank]


def sort_key(c: Card) -> tuple[int, int]:
    """Canonical order of cards inside a play: natural value, then suit (s h d c)."""
    return (NATURAL_VALUE[c.rank], SUIT_ORDER.get(c.suit, 4))


def sorted_cards(cards: Iterable[Card]) -> tuple[Card, ...]:
    """Cards in canonical order, as stored in :class:`~table_service.rules.patterns.Play`."""
    return tuple(sorted(cards, key=sort_key))


def card_name_zh(c: Card) -> str:
    """Chinese name of a card, e.g. ``红桃7``, ``大王``."""
    if c.is_joker:
        return RANK_NAMES_ZH[c.rank]
    return SUIT_NAMES_ZH[c.suit] + RANK_NAMES_ZH.get(c.rank, c.rank)


def cards_zh(cards: Iterable[str | Card], sep: str = " ") -> str:
    """Cards as a Chinese text says them (``红桃10 大王``): each by :func:`card_name_zh`, a token that is
    no card as written. Why: the Chinese half of a message named cards "Th" and "BJ" (audit s38)."""
    out = []
    for c in cards:
        try:
            out.append(card_name_zh(c if isinstance(c, Card) else parse_card(c)))
        except (InvalidCardError, AttributeError):
            out.append(str(c))
    return sep.join(out)


def full_deck() -> list[Card]:
    """The 108 cards of a competition deck: two standard 54-card decks."""
    return [c for c in DECK_FACES for _ in range(2)]


def check_level(level: str) -> str:
    """Validate a level (a rank 2…A; ``10`` and lower case as cards accept them)."""
    if not isinstance(level, str):
        raise ValueError(f"无此级数：{level!r}（应为 2…9、T、J、Q、K、A） / "
                         f"no such level: {level!r} (expected 2…9, T, J, Q, K, A)")
    level = level.strip().upper()
    if level == "10":
        level = "T"
    if level not in RANKS:
        raise ValueError(f"无此级数：{level!r}（应为 2…9、T、J、Q、K、A） / "
                         f"no such level: {level!r} (expected 2…9, T, J, Q, K, A)")
    return level


def check_possible(cards: Iterable[Card], *, max_cards: int | None = None) -> None:
    """Refuse what two decks cannot give: a face more than twice (每张牌只有两张), or more than
    ``max_cards`` cards (a hand holds at most 27).

    :raises ImpossibleCardsError: naming the face and its count, or the number of cards.
    """
    cs = list(cards)
    if max_cards is not None and len(cs) > max_cards:
        raise ImpossibleCardsError(f"牌数不可能：{len(cs)} 张，一手最多 {max_cards} 张 / impossible: {len(cs)} cards, a hand holds at most {max_cards}")
    counts: dict[Card, int] = {}
    for c in cs:
        n = counts.get(c, 0) + 1
        if n > COPIES:
            raise ImpossibleCardsError(
                f"牌不可能：{card_name_zh(c)} 出现 {sum(1 for x in cs if x == c)} 次（两副牌每张只有 {COPIES} 张） / "
                f"impossible cards: {c} appears {sum(1 for x in cs if x == c)} times (two decks hold {COPIES})"
            )
        counts[c] = n
