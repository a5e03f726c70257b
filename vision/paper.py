"""Paper against felt: where cards lie on the table, by brightness without colour.

Used where a card's outline is all that is needed: cards lying outside the play zones (an exposed
card), and cutting each card out when a deck is enrolled from the table.  Reading a card is the
learned reader's (:mod:`vision.cardnet`).
"""

from __future__ import annotations

import cv2
import numpy as np

#: A playing card's paper, in mm²: poker and bridge cards are 57–65 x 88–90 mm.  The one source for
#: what a card-sized blob is (each user widens it by what its view may add or hide).
CARD_MM2 = (5000.0, 5900.0)


def card_mask(bgr: np.ndarray, ppm: float = 3.0) -> tuple[np.ndarray, np.ndarray, float]:
    """Mask of cards against the table: (filled mask, search mask, contrast of paper over table).

    Paper is found by brightness without colour.  Face-card art can touch a printed border
    (paris), so the paper blob is closed over ~8 mm before its holes are filled; of what that
    closing adds, the felt-coloured pixels of parts that open onto the table are dropped from
    the search mask, so the notches between tilted cards do not become fake ink.  Computed at
    half resolution (the mask needs no more) for speed.
    """
    full_hw = bgr.shape[:2]
    half = ppm > 2.0
    small = cv2.resize(bgr, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA) if half else bgr
    sp = ppm / 2 if half else ppm
    b, g, r = cv2.split(small)
    mx = cv2.max(cv2.max(b, g), r)
    mn = cv2.min(cv2.min(b, g), r)
    chroma = cv2.subtract(mx, mn)
    score = cv2.subtract(mx, cv2.add(chroma, chroma))
    score = cv2.GaussianBlur(score, (3, 3), 0)
    _, paper = cv2.threshold(score, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    hi = cv2.mean(score, mask=paper)[0] if cv2.countNonZero(paper) else 0.0
    lo = cv2.mean(score, mask=cv2.bitwise_not(paper))[0] if cv2.countNonZero(paper) < paper.size else 0.0
    paper = cv2.morphologyEx(paper, cv2.MORPH_OPEN, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)))
    k = int(8 * sp) | 1
    big = cv2.morphologyEx(paper, cv2.MORPH_CLOSE, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k)))
    contours, _ = cv2.findContours(big, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(big)
    cv2.drawContours(filled, contours, -1, 255, -1)
    added = cv2.bitwise_and(filled, cv2.bitwise_not(paper))
    search = filled.copy()
    if cv2.countNonZero(added):
        n, lab = cv2.connectedComponents(added, connectivity=4)
        edge = cv2.dilate(cv2.bitwise_not(filled), np.ones((3, 3), np.uint8))
        touching = np.unique(lab[(edge > 0) & (added > 0)])
        touching = touching[touching > 0]
        outside = filled[::2, ::2] == 0
        if len(touching) and np.count_nonzero(outside) > 50:
            lut = np.zeros(n, bool)
            lut[touching] = True
            ys, xs = np.nonzero(lut[lab])
            # The felt's chromaticity from every 4th table pixel of the 2x-subsampled image (its
            # median does not need more), then the added pixels' own: per pixel, not per box.
            felt_px = small[::2, ::2][outside][::4].astype(np.float32)
            felt_c = np.median(felt_px / (felt_px @ np.ones((3, 1), np.float32) + 1.0), axis=0)
            f = small[ys, xs].astype(np.float32)
            chrom = f / (f @ np.ones((3, 1), np.float32) + 1.0)
            felt_like = np.abs(chrom - felt_c) @ np.ones(3, np.float32) < 0.08
            search[ys[felt_like], xs[felt_like]] = 0
    if half:
        size = (full_hw[1], full_hw[0])
        filled = cv2.resize(filled, size, interpolation=cv2.INTER_NEAREST)
        search = cv2.resize(search, size, interpolation=cv2.INTER_NEAREST)
    return filled, search, hi - lo
