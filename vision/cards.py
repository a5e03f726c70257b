"""Card names in the project's notation, and the layout of the aisleriot artwork sheets.

Kept separate from ``table_service.rules`` on purpose: ``vision`` imports nothing of the
engine (architecture rule), so it carries its own tiny copy of the 54 names.
"""

from __future__ import annotations

RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A")
SUITS: tuple[str, ...] = ("s", "h", "d", "c")
RED_SUITS = frozenset({"h", "d"})

#: All 54 faces: 52 suited cards then the small and the big joker. Index = class id.
ALL_CARDS: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS) + ("SJ", "BJ")
CARD_INDEX: dict[str, int] = {c: i for i, c in enumerate(ALL_CARDS)}


#: A card's Chinese name (``红桃10``, ``大王``): the reader's reasons name the cards in their Chinese half
#: as the engine's do (``table_service.rules.cards.card_name_zh``; ``tests/test_one_source.py`` holds
#: the two equal: vision may not import the table service).
_SUIT_ZH = {"s": "黑桃", "h": "红桃", "d": "方块", "c": "梅花"}


def card_zh(card: str) -> str:
    """``card``'s Chinese name, or ``card`` as it is where it is none of the 54."""
    if card in ("SJ", "BJ"):
        return "小王" if card == "SJ" else "大王"
    if card not in CARD_INDEX:
        return card
    return _SUIT_ZH[card[1]] + ("10" if card[0] == "T" else card[0])


def is_red(card: str) -> bool:
    """Red ink: hearts, diamonds and the big joker (whose mark is coloured)."""
    return card == "BJ" or (len(card) == 2 and card[1] in RED_SUITS)


def check_card(card: str) -> str:
    """Return ``card`` if it is one of the 54 names, else raise a clear ValueError."""
    if card not in CARD_INDEX:
        raise ValueError(f"未知的牌：{card!r} / unknown card name: {card!r}")
    return card


# Aisleriot sheets are a 13 x 5 grid: rows clubs, diamonds, hearts, spades (ace first,
# then 2 … 10, jack, queen, king), and a last row with the black joker, the red joker
# and the back.  In Guandan the black (uncoloured) joker is the small one.
_SHEET_SUIT_ROW = {"c": 0, "d": 1, "h": 2, "s": 3}
_SHEET_RANK_COL = {"A": 0, "2": 1, "3": 2, "4": 3, "5": 4, "6": 5, "7": 6, "8": 7, "9": 8, "T": 9,
                   "J": 10, "Q": 11, "K": 12}


def sheet_cell(card: str) -> tuple[int, int]:
    """(row, column) of ``card`` in an aisleriot 13 x 5 sheet."""
    check_card(card)
    if card == "SJ":
        return 4, 0
    if card == "BJ":
        return 4, 1
    return _SHEET_SUIT_ROW[card[1]], _SHEET_RANK_COL[card[0]]


def sheet_element_id(card: str) -> str:
    """The SVG element id of ``card`` in the gnome-cards-data sheets (for documentation/debug)."""
    check_card(card)
    if card == "SJ":
        return "joker_black"
    if card == "BJ":
        return "joker_red"
    suit = {"s": "spade", "h": "heart", "d": "diamond", "c": "club"}[card[1]]
    rank = {"A": "1", "T": "10", "J": "jack", "Q": "queen", "K": "king"}.get(card[0], card[0])
    return f"{suit}_{rank}"
