"""The index classifiers' output space: 27 index shapes and "not an index", and card colours.

Every index classifier (the shipped MLP, the CNN of :mod:`vision.index_cnn`, an enrolment's
per-deck classifier) answers in these 28 classes; colour (redness of the glyph) then names the
card.  Split out of ``reader.py`` (issue 21).
"""

from __future__ import annotations

import numpy as np

from .cards import ALL_CARDS, RANKS, is_red

#: Shape classes: rank*2 + (0 spade/heart, 1 club/diamond); joker; background.
N_SHAPES = 27
JOKER_CLASS = 26
BG_CLASS = 27
N_CLASSES = 28
#: The other suit of the same colour and rank (the reader's hardest confusion).
SUIT_PAIR: dict[str, str] = {r + a: r + b for r in RANKS for a, b in (("s", "c"), ("c", "s"), ("h", "d"), ("d", "h"))}
#: Colour from the glyph's redness (red minus max(green, blue) of the paper-normalised image),
#: measured on the training designs: black <= 0.03, red >= 0.15 after JPEG chroma subsampling;
#: between RED_LO and RED_HI the colour itself is in doubt.
RED_LO, RED_HI = 0.06, 0.12
#: Which of ALL_CARDS are red (hearts, diamonds, the big joker), in ALL_CARDS order.
RED_CARDS = np.array([is_red(c) for c in ALL_CARDS], bool)


def shape_class(card: str) -> int:
    """Class id of ``card``'s index shape (colour decides the rest)."""
    if card in ("SJ", "BJ"):
        return JOKER_CLASS
    return RANKS.index(card[0]) * 2 + (0 if card[1] in "sh" else 1)


def card_from_shape(cls: int, red: bool) -> str:
    if cls == JOKER_CLASS:
        return "BJ" if red else "SJ"
    rank = RANKS[cls // 2]
    suit = ("h" if red else "s") if cls % 2 == 0 else ("d" if red else "c")
    return rank + suit
