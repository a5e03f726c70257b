"""A card's suit read from its body, where its index leaves the suit in doubt.

Why (issue 25): what the zero-shot reader still asks on is a suit between twins, ♣/♠ on plastic and
♦/♥ on tango, read from the index's small pip.  A fanned card shows more of itself than its index:
the strip left of the next card, the card's height, where a number card from 4 to 10 has a column of
large pips (a 2 or a 3 has its pips in the middle, out of the strip; an ace's, a court's or a
joker's art tells no suit there).  A small network trained on that strip alone, on the training
designs and font decks (:mod:`vision.training.body_suit`), gives P(suit | strip); the reader
multiplies each face 4–10 by the likelihood ratio 4 · P(its suit) (the network was trained with the
four suits equally likely) and leaves every other face as it was.

The strip is read only for cards whose index left doubt (:data:`LOOK_BELOW`): a card named at 0.999
is not moved under any bar by it, and a 10-card zone of such cards costs no more than before.
"""

from __future__ import annotations

from collections.abc import Sequence

import cv2
import numpy as np

from vision.cards import ALL_CARDS, SUITS

from . import nets
from .prep import crops_to_input
from .spec import BODY_H, BODY_PPM, BODY_W, BODY_X_MM, BODY_Y_MM, NONE_CLASS

#: The network's classes: the four suits (as :data:`vision.cards.SUITS`), then a joker.
BODY_CLASSES: tuple[str, ...] = (*SUITS, "joker")
#: The faces whose suit the strip shows: ranks 4 to 10 (columns of pips at the card's left).
BODY_RANKS = "456789T"
#: A card whose index names one face at this or more is not looked at again (see the module docstring).
LOOK_BELOW = 0.999
#: Each face's suit, as a column of the network's four suit classes (-1: the strip tells nothing).
_FACE_SUIT = np.array([SUITS.index(c[1]) if c[0] in BODY_RANKS else -1 for c in ALL_CARDS])


def body_crop(zone_bgr: np.ndarray, corner_px: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """The BODY_H x BODY_W strip of the card whose top-left corner lies at ``corner_px`` (training and
    play cut it here alone).  Above 2.4 px/mm the card's region is blurred first: ``warpAffine`` has
    no area filter, and an aliased pip is not the pip the network learned."""
    s = px_per_mm / BODY_PPM
    x0, y0 = corner_px[0] + BODY_X_MM[0] * px_per_mm, corner_px[1] + BODY_Y_MM[0] * px_per_mm
    img = zone_bgr
    if px_per_mm > BODY_PPM * 1.2:
        sigma = 0.45 * s
        pad = int(np.ceil(4 * sigma)) + 2
        h, w = zone_bgr.shape[:2]
        ax, ay = max(int(x0) - pad, 0), max(int(y0) - pad, 0)
        bx = min(int(corner_px[0] + BODY_X_MM[1] * px_per_mm) + pad + 1, w)
        by = min(int(corner_px[1] + BODY_Y_MM[1] * px_per_mm) + pad + 1, h)
        if bx > ax and by > ay:
            img = cv2.GaussianBlur(zone_bgr[ay:by, ax:bx], (0, 0), sigma)
            x0, y0 = x0 - ax, y0 - ay
        else:
            img = cv2.GaussianBlur(zone_bgr, (0, 0), sigma)
    m = np.array([[s, 0.0, x0], [0.0, s, y0]], np.float64)
    return cv2.warpAffine(img, m, (BODY_W, BODY_H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def suit_probs(zone_bgr: np.ndarray, corners_px: Sequence[tuple[float, float]], px_per_mm: float) -> np.ndarray:
    """(N, 5) calibrated P(♣ ♦ ♥ ♠ joker | the strip) of each card (the temperature is in the model)."""
    if not len(corners_px):
        return np.zeros((0, len(BODY_CLASSES)))
    strips = np.stack([body_crop(zone_bgr, c, px_per_mm) for c in corners_px])
    z = nets.body(crops_to_input(strips)).astype(np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def weigh_suits(faces_p: np.ndarray, zone_bgr: np.ndarray, corners_px: Sequence[tuple[float, float]],
                px_per_mm: float) -> np.ndarray:
    """``faces_p`` (N, 54 or more: each card's face probabilities) with the strip's word weighed in on
    the faces 4–10 of every card whose index left doubt; the other cards and faces unchanged."""
    faces = faces_p[:, :NONE_CLASS]
    top = faces.max(axis=1) / np.maximum(faces.sum(axis=1), 1e-300)
    number = faces[:, _FACE_SUIT >= 0].sum(axis=1) / np.maximum(faces.sum(axis=1), 1e-300)
    look = np.flatnonzero((top < LOOK_BELOW) & (number > 1.0 - LOOK_BELOW))
    if not len(look):
        return faces_p
    p = suit_probs(zone_bgr, [corners_px[k] for k in look], px_per_mm)[:, :len(SUITS)]
    p = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-300)
    out = faces_p.astype(np.float64, copy=True)
    ratio = np.where(_FACE_SUIT >= 0, len(SUITS) * p[:, np.maximum(_FACE_SUIT, 0)], 1.0)
    out[look, :NONE_CLASS] *= ratio
    return out
