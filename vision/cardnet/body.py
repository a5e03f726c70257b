"""A card's suit read from its body, where its index leaves the suit in doubt.

Why (issue 25): what the zero-shot reader still asks on is a suit between twins, ♣/♠ on plastic and
♦/♥ on tango, read from the index's small pip.  A fanned card shows more of itself than its index:
the strip left of the next card, the card's height, where a number card from 4 to 10 has a column of
large pips (a 2 or a 3 has its pips in the middle, out of the strip; an ace's, a court's or a
joker's art tells no suit there).  A small network trained on that strip alone, on the training
designs and font decks (:mod:`vision.training.body_suit`), gives P(suit | strip); the reader
multiplies each face 4–10 by the likelihood ratio 4 · P(its suit) (the network was trained with the
four suits equally likely) and leaves every other face as it was.

The last card of a play lies whole (the next card covers part of every other one): its strip is cut
through its middle instead, where a 2 or a 3 has its pips too (:data:`MIDDLE_MM`).

The strip is read only for cards whose index left doubt (:data:`LOOK_BELOW`): a card named at 0.999
is not moved under any bar by it, and a 10-card zone of such cards costs no more than before.

An enrolled deck's head reads the same strips with its own suit head instead (:func:`weigh_deck_suits`,
:mod:`vision.cardnet.deck_body`): the network's suits are other designs', its feature map is general.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from vision.cards import ALL_CARDS, SUITS

from . import nets
from .deck_body import DeckBody, strip_features
from .prep import crops_to_input, warp_at_scale
from .spec import BODY_CLASSES, BODY_H, BODY_PPM, BODY_W, BODY_X_MM, BODY_Y_MM, NONE_CLASS

#: The faces whose suit the strip shows: ranks 4 to 10 (columns of pips at the card's left).
BODY_RANKS = "456789T"
#: A card whose index names one face at this or more is not looked at again (see the module docstring).
LOOK_BELOW = 0.999
#: The last card's strip lies this far right of its corner (mm): 20–40 mm from the card's left edge, the
#: middle of any card from 56 to 65 mm wide, where 2 to 10 have pips (an ace's one pip, often drawn as
#: art, was read sure and wrong there: aces are left out).
MIDDLE_MM = 21.0
MIDDLE_RANKS = "23456789T"
#: The last card lies whole, its top-right corner too: the strip cut this far from the card's top-right
#: corner (mm; the deck's width is the enrolment's) covers its right-hand 20 mm, 1–57 mm down, where a deck
#: that prints the suit beside the rank (tango_nuevo) prints it.  Read by an enrolled deck's own suit head
#: only (:func:`strips_at`): what lies there differs from deck to deck, and the shipped network never learned it.
TOP_RIGHT_MM = (-20.0, -29.0)


def _suit_columns(ranks: str) -> np.ndarray:
    """Each face's suit as a column of the network's four suit classes; -1 where the strip tells nothing."""
    return np.array([SUITS.index(c[1]) if c[0] in ranks else -1 for c in ALL_CARDS])


_FACE_SUIT = _suit_columns(BODY_RANKS)
_MIDDLE_SUIT = _suit_columns(MIDDLE_RANKS)


def body_crop(zone_bgr: np.ndarray, corner_px: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """The BODY_H x BODY_W strip of the card whose top-left corner lies at ``corner_px`` (training and
    play cut it here alone; blurred within the strip's own region above 2.4 px/mm, as a crop is)."""
    s = px_per_mm / BODY_PPM
    x0, y0 = corner_px[0] + BODY_X_MM[0] * px_per_mm, corner_px[1] + BODY_Y_MM[0] * px_per_mm
    pad = 4 * 0.45 * s + 2  # four of the blur's σ: the strip's edge sees what it would in a zone blurred whole
    box = (x0 - pad, y0 - pad, corner_px[0] + BODY_X_MM[1] * px_per_mm + pad + 1,
           corner_px[1] + BODY_Y_MM[1] * px_per_mm + pad + 1)
    m = np.array([[s, 0.0, x0], [0.0, s, y0]], np.float64)
    return warp_at_scale(zone_bgr, m, (BODY_W, BODY_H), px_per_mm, BODY_PPM, box)


def suit_probs(zone_bgr: np.ndarray, corners_px: Sequence[tuple[float, float]], px_per_mm: float) -> np.ndarray:
    """(N, 5) calibrated P(class | the strip) of each card, in :data:`BODY_CLASSES`' order (the four suits
    of :data:`vision.cards.SUITS`, then a joker); the temperature is in the model."""
    return suit_net_probs(nets.body, body_crop, zone_bgr, corners_px, px_per_mm)


def suit_net_probs(net: Callable[[np.ndarray], np.ndarray], cut: Callable[..., np.ndarray], zone_bgr: np.ndarray,
                   corners_px: Sequence[tuple[float, float]], px_per_mm: float) -> np.ndarray:
    """(N, 5) P(class) from a suit network (its temperature inside) over what ``cut`` cuts at each corner:
    the body strip's and the index's (:mod:`vision.cardnet.index_suit`) networks alike."""
    if not len(corners_px):
        return np.zeros((0, len(BODY_CLASSES)))
    z = net(crops_to_input(np.stack([cut(zone_bgr, c, px_per_mm) for c in corners_px]))).astype(np.float64)
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def weigh_suits(faces_p: np.ndarray, zone_bgr: np.ndarray, corners_px: Sequence[tuple[float, float]],
                px_per_mm: float) -> np.ndarray:
    """``faces_p`` (N, 54 or more: each card's face probabilities, left to right) with the body's word on
    the suit weighed in for every card whose index left doubt; the other cards and faces unchanged.

    Each card but the last: the strip below its index, on the faces 4–10.  The last card lies whole
    (the reader's far corner rests on the same fact): its strip is cut through its middle
    (:data:`MIDDLE_MM`), where a 2 or a 3 has its pips as well, on the faces 2–10.  One strip a card:
    two strips of one card's pips are not two witnesses."""
    faces = faces_p[:, :NONE_CLASS]
    total = np.maximum(faces.sum(axis=1), 1e-300)
    top = faces.max(axis=1) / total
    n = len(faces)
    suit_of = np.repeat(_FACE_SUIT[None], n, axis=0)  # (N, 54): the suit class each card's faces show, or -1
    if n:
        suit_of[-1] = _MIDDLE_SUIT
    shown = (faces * (suit_of >= 0)).sum(axis=1) / total
    look = np.flatnonzero((top < LOOK_BELOW) & (shown > 1.0 - LOOK_BELOW))
    if not len(look):
        return faces_p
    at = [(corners_px[k][0] + MIDDLE_MM * px_per_mm, corners_px[k][1]) if k == n - 1 else corners_px[k]
          for k in look]
    p = suit_probs(zone_bgr, at, px_per_mm)[:, :len(SUITS)]
    p = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-300)
    out = faces_p.astype(np.float64, copy=True)
    which = suit_of[look]
    ratio = np.where(which >= 0, len(SUITS) * np.take_along_axis(p, np.maximum(which, 0), axis=1), 1.0)
    out[look, :NONE_CLASS] *= ratio
    return out


def strips_at(zone_bgr: np.ndarray, corners_px: Sequence[tuple[float, float]], px_per_mm: float,
              last: Sequence[bool], width_mm: float) -> np.ndarray:
    """(N, 2F): what an enrolled deck's suit head reads of each card (F features a strip:
    :func:`vision.cardnet.deck_body.strip_features`): its strip below its index, or through its middle
    (:data:`MIDDLE_MM`) where it lies ``last``; then, for the last card, its top-right strip
    (:data:`TOP_RIGHT_MM` from the corner of a card ``width_mm`` wide), NaN for the others (covered by
    the next card)."""
    if not len(corners_px):
        return np.zeros((0, 0), np.float32)
    at = [(x + MIDDLE_MM * px_per_mm, y) if is_last else (x, y) for (x, y), is_last in zip(corners_px, last, strict=True)]
    whole = [k for k, is_last in enumerate(last) if is_last]
    dx, dy = (width_mm + TOP_RIGHT_MM[0]) * px_per_mm, TOP_RIGHT_MM[1] * px_per_mm
    at += [(corners_px[k][0] + dx, corners_px[k][1] + dy) for k in whole]
    feats = strip_features(nets.body.all_outputs(crops_to_input(np.stack([body_crop(zone_bgr, c, px_per_mm) for c in at])))[1])
    n, f = len(corners_px), feats.shape[1]
    out = np.full((n, 2 * f), np.nan, np.float32)
    out[:, :f] = feats[:n]
    out[whole, f:] = feats[n:]
    return out


def weigh_deck_suits(faces_p: np.ndarray, body: DeckBody, zone_bgr: np.ndarray,
                     corners_px: Sequence[tuple[float, float]], px_per_mm: float) -> np.ndarray:
    """``faces_p`` (N, 54 or more, left to right) with an enrolled deck's own word on each card's suit
    (:class:`vision.cardnet.deck_body.DeckBody`) weighed in for every card whose faces leave it in doubt
    (:data:`LOOK_BELOW`); the other cards unchanged.  The last card's strips are cut through its middle and
    at its top right (it lies whole), the others' below their index (:func:`strips_at`)."""
    faces = faces_p[:, :NONE_CLASS]
    top = faces.max(axis=1) / np.maximum(faces.sum(axis=1), 1e-300)
    look = np.flatnonzero(top < LOOK_BELOW)
    if not len(look):
        return faces_p
    last = [int(k) == len(faces_p) - 1 for k in look]
    out = faces_p.astype(np.float64, copy=True)
    strips = strips_at(zone_bgr, [corners_px[k] for k in look], px_per_mm, last, body.width_mm)
    out[look, :NONE_CLASS] *= body.likelihood(strips, last)
    return out
