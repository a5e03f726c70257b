"""A card's suit read again from its index at a finer scale, where the classifier left the suit in doubt.

Why (issue 25): the zero-shot reader's questions on the readable designs are suits between twins read
from the index's small pip: plastic's ♣/♠, tango's ♦/♥.  The classifier sees the corner at
:data:`spec.CROP_PPM` (2.5 px/mm), so a zone the camera gives at 3–4 px/mm loses the pip's shape on
the way in; plastic asked as often at 4 px/mm as at 2.  A small network on the same corner at
:data:`spec.PIP_PPM`, trained on the suit alone (:mod:`vision.training.body_suit`, ``--region index``),
gives P(suit | the index); the reader multiplies each face by the likelihood ratio 4 · P(its suit),
then gives each rank back the share the classifier gave it: the network says which suit, never which rank.
A corner that prints no suit (tango_nuevo's) was taught as "any suit"; the network calls such a corner
a joker's (no suit either), and that share is spread over the four suits alike.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from vision.cards import ALL_CARDS, RANKS, SUITS

from . import nets
from .body import LOOK_BELOW, suit_net_probs
from .prep import warp_at_scale
from .spec import NONE_CLASS, PIP_H, PIP_PPM, PIP_W, PIP_X_MM, PIP_Y_MM

#: A card the classifier reads as a jack or a joker, or gives this much of a joker, is left as it is: a
#: joker's index is a word that begins with a J (tango's "Joker" under a J as large as a jack's), the
#: network's joker class also means "no suit here", and it saw a club in that word: a lone small joker the
#: classifier read J♣ at 0.947 (asked) was J♣ at 0.996 with it weighed (silent).  The far corner leaves
#: jacks and jokers alone for the same reason (:data:`vision.cardnet.read.FAR_WEIGHED_RANKS`).
JOKER_DOUBT = 0.01
#: (54, 15) one-hot: each face's rank (the two jokers each their own), to keep a rank's share.
_RANK_OF = np.eye(len(RANKS) + 2)[[(RANKS.index(c[0]) if c not in ("SJ", "BJ") else len(RANKS) + (c == "BJ"))
                                    for c in ALL_CARDS]]
_JACK_OR_JOKER = np.array([c[0] == "J" or c in ("SJ", "BJ") for c in ALL_CARDS])
#: Each face's suit as a column of the network's four suit classes; -1 for the jokers.
_FACE_SUIT = np.array([SUITS.index(c[1]) if c not in ("SJ", "BJ") else -1 for c in ALL_CARDS])


def index_crop(zone_bgr: np.ndarray, corner_px: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """The PIP_H x PIP_W corner of the card whose top-left corner lies at ``corner_px`` (training and play
    cut it here alone)."""
    s = px_per_mm / PIP_PPM
    x0, y0 = corner_px[0] + PIP_X_MM[0] * px_per_mm, corner_px[1] + PIP_Y_MM[0] * px_per_mm
    pad = 4 * 0.45 * s + 2
    box = (x0 - pad, y0 - pad, corner_px[0] + PIP_X_MM[1] * px_per_mm + pad + 1,
           corner_px[1] + PIP_Y_MM[1] * px_per_mm + pad + 1)
    m = np.array([[s, 0.0, x0], [0.0, s, y0]], np.float64)
    return warp_at_scale(zone_bgr, m, (PIP_W, PIP_H), px_per_mm, PIP_PPM, box)


def suit_probs(zone_bgr: np.ndarray, corners_px: Sequence[tuple[float, float]], px_per_mm: float) -> np.ndarray:
    """(N, 5) calibrated P(class | the index) of each card, in :data:`vision.cardnet.spec.BODY_CLASSES`' order (the four
    suits, then a joker); the temperature is in the model."""
    return suit_net_probs(nets.index_suit, index_crop, zone_bgr, corners_px, px_per_mm)


def weigh_index_suits(faces_p: np.ndarray, zone_bgr: np.ndarray, corners_px: Sequence[tuple[float, float]],
                      px_per_mm: float) -> np.ndarray:
    """``faces_p`` (N, 54 or more: each card's face probabilities, left to right) with the index's suit
    read again for every card the classifier left in doubt (:data:`body.LOOK_BELOW`) among a rank's suits,
    reads as neither a jack nor a joker and does not take for a joker (:data:`JOKER_DOUBT`); the jokers'
    faces, and the other cards, unchanged."""
    faces = faces_p[:, :NONE_CLASS]
    total = np.maximum(faces.sum(axis=1), 1e-300)
    joker = faces[:, _FACE_SUIT < 0].sum(axis=1) / total
    jack_read = _JACK_OR_JOKER[faces.argmax(axis=1)]
    # The network moves only what each rank's faces share among suits: where that is under what
    # LOOK_BELOW leaves (a doubt between ranks, each rank's suit plain), no face could move by more.
    suit_doubt = 1.0 - (faces[:, :, None] * _RANK_OF[None]).max(axis=1).sum(axis=1) / total
    look = np.flatnonzero((faces.max(axis=1) / total < LOOK_BELOW) & (suit_doubt >= 1.0 - LOOK_BELOW)
                          & (joker < JOKER_DOUBT) & ~jack_read)
    if not len(look):
        return faces_p
    q = suit_probs(zone_bgr, [corners_px[k] for k in look], px_per_mm)
    # The joker class is what the network says of a corner with no suit in it (a joker's, or one that
    # prints none: tango_nuevo's, which it never saw, it mostly calls a joker's): no word on the suit.
    p = q[:, :len(SUITS)] + q[:, len(SUITS):] / len(SUITS)
    ratio = np.where(_FACE_SUIT >= 0, len(SUITS) * p[:, np.maximum(_FACE_SUIT, 0)], 1.0)
    before = faces[look].astype(np.float64)
    after = before * ratio
    # A witness of the suit only: each rank keeps the classifier's share, its suits shared anew.  (A
    # network sure of a suit would otherwise hand the card to any face of that suit, whatever its rank.)
    rank_before = before @ _RANK_OF
    rank_after = after @ _RANK_OF
    scale = np.divide(rank_before, rank_after, out=np.ones_like(rank_before), where=rank_after > 0)
    out = faces_p.astype(np.float64, copy=True)
    out[look, :NONE_CLASS] = after * (scale @ _RANK_OF.T)
    return out
