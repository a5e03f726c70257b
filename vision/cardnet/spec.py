"""The fixed geometry shared by the card-first reader and its training recipe (one source).

Why fixed millimetres: a zone arrives at whatever px/mm the camera gives (2–4.5 px/mm), but a
card's index is a physical thing (7–10 mm tall, 3–6 mm from the corner).  Both networks see
the table at one scale, so a model trained at one camera height reads at any other.
"""

from __future__ import annotations

from vision.cards import ALL_CARDS, SUITS

#: The corner detector sees the zone at this scale (px per mm).
DET_PPM = 1.5
#: Its heatmap has one cell per DET_STRIDE input pixels (2.67 mm at DET_PPM).
DET_STRIDE = 4
#: Two corners closer than this are one card (the tightest fan a player lays is ~10 mm).
MIN_CORNER_GAP_MM = 7.0

#: The classifier's crop: this many mm right and down from a point CROP_MARGIN_MM up and left of
#: the corner, sampled at CROP_PPM: the rank and the whole suit pip under it on every design here
#: (28 mm cut tango's diamond in half, and its diamonds read as hearts).
CROP_PPM = 2.5
CROP_MARGIN_MM = 1.5
CROP_W_MM = 20.0
CROP_H_MM = 36.0
CROP_W = int(round(CROP_W_MM * CROP_PPM))
CROP_H = int(round(CROP_H_MM * CROP_PPM))

#: Classes of the classifier: the 54 faces, then "no card corner here".
CLASSES: tuple[str, ...] = (*ALL_CARDS, "none")
NONE_CLASS = len(ALL_CARDS)
N_CLASSES = len(CLASSES)
#: The convolutional features of a crop (96 channels x 6 x 3 cells, where the index and the pip lie):
#: what the exported network gives and what the head reads.
FEATURE_DIM = 1728
#: Hidden layer of the head (features -> hidden -> 55 classes).
HIDDEN_DIM = 96

#: The body strip (:mod:`vision.cardnet.body`), in mm from a card's top-left corner: below the index
#: (which ends ~30 mm down on every design here, so the two are separate evidence), as wide as the
#: narrowest fan leaves a card, to the card's foot; sampled at BODY_PPM (pips are 5–15 mm).
BODY_X_MM = (-1.0, 19.0)
BODY_Y_MM = (30.0, 86.0)
BODY_PPM = 2.0
BODY_W = int(round((BODY_X_MM[1] - BODY_X_MM[0]) * BODY_PPM))
BODY_H = int(round((BODY_Y_MM[1] - BODY_Y_MM[0]) * BODY_PPM))
#: The body strip's classes (its network's, and an enrolled deck's own head's): the four suits, then a joker.
BODY_CLASSES: tuple[str, ...] = (*SUITS, "joker")


def body_class(card: str) -> int:
    """``card``'s class of :data:`BODY_CLASSES`: its suit, or a joker."""
    return len(SUITS) if card in ("SJ", "BJ") else SUITS.index(card[1])

#: The index's suit (:mod:`vision.cardnet.index_suit`), in mm from a card's top-left corner: the rank and
#: the suit pip under it (the classifier's crop, a little narrower), sampled finer than the crop (CROP_PPM),
#: so a zone seen at 3–4 px/mm keeps the pip's shape that the crop's scale blurs away (plastic's ♣ and ♠).
PIP_X_MM = (-1.5, 12.5)
PIP_Y_MM = (-1.5, 34.5)
PIP_PPM = 3.5
PIP_W = int(round((PIP_X_MM[1] - PIP_X_MM[0]) * PIP_PPM))
PIP_H = int(round((PIP_Y_MM[1] - PIP_Y_MM[0]) * PIP_PPM))
