"""A second opinion on an enrolled card: its whole index corner compared with the deck's own faces.

Why: the index classifier reads a patch scaled by the rank glyph's own height.  Its mistakes on
an unseen design are suit pairs of one colour and ranks of a similar outline (tango: 10♠/10♣,
J♥/J♦, 8♣/6♣), made where the glyph box was cut or the pip lay under the next card.  The
enrolled faces show exactly what that corner looks like: rank, pip, printed border and the
first column of the card's art, down to 2.5 glyph heights below the glyph.  A normalised
cross-correlation of that corner with each face, searched over the card's rotation (±7.5°) and
over ±2 mm of position, errs elsewhere: on the 2,177 index candidates of 300 held-out plays
(seed 77) the classifier's 13 mistakes were all ranked right by the correlation, and the
correlation's 15 mistakes were all cards the classifier held at 0.95 or more; multiplied, one
mistake was left.  :func:`vision.reader.read_play` multiplies the two (see ``CORNER_WEIGHT`` there).

Grey levels, not colour: red against black is the ink's redness, measured apart.  The search is
coarse to fine (half resolution over 7 angles, then full resolution around the best one) so one
card costs well under a millisecond.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from .cards import ALL_CARDS, CARD_INDEX

#: The corner compared, from the card's left edge (mm): the edge itself is left out (felt or the
#: previous card lies beyond it), and 11 mm stays clear of the next card at the shortest steps (12 mm).
CORNER_X_MM = (0.8, 11.0)
#: Top of the corner (mm from the card's top edge), and its bottom in glyph heights below the glyph's top.
CORNER_TOP_MM = 0.8
CORNER_GLYPHS = 2.5
#: Position search either side of where the rank glyph puts the corner (mm), and the rotations tried.
SEARCH_MM = 2.0
COARSE_ANGLES = np.arange(-7.5, 7.51, 2.5)
FINE_OFFSETS = (-1.25, 0.0, 1.25)
FIND_ANGLES = np.arange(-6.0, 6.01, 3.0)
#: The least of a corner compared when the next card covers the rest (mm from the template's left).
MIN_VISIBLE_MM = 5.0
#: The least height (mm) of the part below the rank glyph compared for the suit (``scores(pip=True)``).
PIP_MIN_MM = 4.0


@dataclass(frozen=True)
class CornerTemplates:
    """Grey corners of the enrolled faces, all one size, with the rank glyph's place in each."""

    grey: np.ndarray  # (54, th, tw) uint8; rows of absent faces are 0
    offset: np.ndarray  # (54, 2) float: rank glyph top-left inside the corner, px (nan: face absent)
    ppm: float
    #: (54, 2) float: the rank glyph's width and height on the face, px (nan: face absent).
    glyph: np.ndarray | None = None

    def __post_init__(self) -> None:
        # Half-resolution copies for the coarse search (derived, not stored).
        small = np.stack([cv2.resize(g, None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA) for g in self.grey])
        object.__setattr__(self, "_small", small.astype(np.float32))
        object.__setattr__(self, "_full", self.grey.astype(np.float32))

    @property
    def present(self) -> np.ndarray:
        return ~np.isnan(self.offset[:, 0])

    def scores(self, grey: np.ndarray, x: float, y: float, cards: Iterable[str],
               visible: float | None = None, pip: bool = False) -> dict[str, float]:
        """Best normalised correlation (-1..1) of each of ``cards`` with the corner whose rank glyph
        starts at (``x``, ``y``) in ``grey`` (work px, float32), over rotation and ±2 mm of position.

        ``visible``: how far right of the glyph's left (px) the card shows before the next card
        covers it.  Only that part of each face is compared: the covered part (the right half of
        a pip under the next card's edge) matches the faces at random and decided a tango 10♠
        for 10♣ at 0.93 against 0.87.

        ``pip``: the corner is aligned as a whole, then compared below the rank glyph only (where
        the pip is).  Two suits of one colour differ in the pip alone, and the whole corner of a
        tango ten (a 15 mm "10" over a small pip) told 10♣ from 10♠ by 0.00-0.02 only.
        """
        out: dict[str, float] = {}
        idx = [CARD_INDEX[c] for c in cards if self.present[CARD_INDEX[c]]]
        if not idx:
            return out
        th, tw = self.grey.shape[1:]
        s = int(round(SEARCH_MM * self.ppm))
        min_cols = int(round(MIN_VISIBLE_MM * self.ppm))

        def cols(k: int) -> int:
            """Template columns compared for class ``k`` (all of them when nothing covers it)."""
            if visible is None:
                return tw
            return int(np.clip(self.offset[k, 0] + visible, min_cols, tw))

        def window(k: int, angle: float, scale: float, dx: int = 0, dy: int = 0, slack: int = 0,
                   row0: int = 0) -> np.ndarray:
            """``grey`` turned by ``angle`` about the glyph and scaled, cut to class ``k``'s corner
            (from its template row ``row0`` down) at its expected place moved by (dx, dy) px, with
            ``slack`` px more on every side."""
            m = cv2.getRotationMatrix2D((float(x), float(y)), float(angle), 1.0)
            m[:, 2] -= (x - self.offset[k, 0] + dx - slack, y - self.offset[k, 1] + dy + row0 - slack)
            m *= scale
            size = (int((cols(k) + 2 * slack) * scale), int((th - row0 + 2 * slack) * scale))
            return cv2.warpAffine(grey, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

        def match(region: np.ndarray, t: np.ndarray) -> tuple[float, tuple[int, int]]:
            _, v, _, loc = cv2.minMaxLoc(cv2.matchTemplate(region, t, cv2.TM_CCOEFF_NORMED))
            return float(v), loc

        # Coarse (half resolution, 7 angles, ±2 mm): where and how turned the corner lies, found
        # with the first class (the caller's likeliest); the suit and rank pairs that matter differ
        # in a pip or a stroke, not in where the card is.
        k0 = idx[0]
        small = self._small[k0][:, : cols(k0) // 2]
        best = (-2.0, 0.0, 0, 0)
        for a in COARSE_ANGLES:
            reg = window(k0, a, 0.5, slack=s)
            if reg.shape[0] < small.shape[0] or reg.shape[1] < small.shape[1]:
                continue
            v, loc = match(reg, small)
            if v > best[0]:
                best = (v, float(a), 2 * loc[0] - s, 2 * loc[1] - s)
        if best[0] < -1.5:
            return out
        # Fine (full resolution, ±2 px around the coarse place): the angle is settled with the
        # first class among the best coarse one and its neighbours; the others are compared at
        # that angle only.
        _, a0, dx, dy = best
        top, angle = max((match(window(k0, a0 + d, 1.0, dx, dy, 2), self._full[k0][:, : cols(k0)])[0], a0 + d)
                         for d in FINE_OFFSETS)
        if pip:
            if self.glyph is None:
                return out
            for k in idx:
                # From the rank glyph's foot down, at least PIP_MIN_MM of rows.
                r0 = int(np.clip(self.offset[k, 1] + self.glyph[k, 1], 0, th - PIP_MIN_MM * self.ppm))
                out[ALL_CARDS[k]] = match(window(k, angle, 1.0, dx, dy, 2, r0), self._full[k][r0:, : cols(k)])[0]
            return out
        out[ALL_CARDS[k0]] = top
        for k in idx[1:]:
            out[ALL_CARDS[k]] = match(window(k, angle, 1.0, dx, dy, 2), self._full[k][:, : cols(k)])[0]
        return out

    def find(self, grey: np.ndarray, xs: tuple[float, float], ys: tuple[float, float]) -> tuple[float, str, float, float] | None:
        """Where a card's corner lies whose rank glyph starts within ``xs`` x ``ys`` (work px), if
        anywhere: (best correlation with any face's corner, that face, glyph x, glyph y), or None
        when the area is empty.

        Why: a card whose index the glyph finder missed (its "10" joined to a printed border, a
        glare spot) still shows its corner; the count checks say where to look.  Real faces
        are tried, not their mean: the mean blurs the glyph that tells a corner from the paper
        around it, and found hidden tango cards at 0.6 only.
        """
        if xs[1] < xs[0] or ys[1] < ys[0]:
            return None
        th, tw = self.grey.shape[1:]
        # One face of each suit pair locates the corner (their corners differ in a pip only),
        # at five angles: the faces' own search (scores) then settles angle and card.
        pair = {"s": "c", "c": "s", "h": "d", "d": "h"}
        ks = [k for k, card in enumerate(ALL_CARDS) if self.present[k]
              and (card[1] in "shJ" or not self.present[CARD_INDEX[card[0] + pair[card[1]]]])]
        if not ks:
            return None
        mox, moy = float(self.offset[ks, 0].max()), float(self.offset[ks, 1].max())
        # The searched area in template top-left coordinates, with room for every face's offset.
        x0, y0 = xs[0] - mox, ys[0] - moy
        w = xs[1] - xs[0] + tw + (mox - float(self.offset[ks, 0].min()))
        h = ys[1] - ys[0] + th + (moy - float(self.offset[ks, 1].min()))
        cx, cy = x0 + w / 2, y0 + h / 2
        best: tuple[float, str, float, float] | None = None
        for a in FIND_ANGLES:
            m = cv2.getRotationMatrix2D((float(cx), float(cy)), float(a), 1.0)
            m[:, 2] -= (x0, y0)
            reg = cv2.warpAffine(grey, m * 0.5, (int(w * 0.5), int(h * 0.5)), flags=cv2.INTER_LINEAR,
                                 borderMode=cv2.BORDER_REPLICATE)
            inv = None
            for k in ks:
                small = self._small[k]
                if reg.shape[0] < small.shape[0] or reg.shape[1] < small.shape[1]:
                    continue
                _, v, _, loc = cv2.minMaxLoc(cv2.matchTemplate(reg, small, cv2.TM_CCOEFF_NORMED))
                if best is None or v > best[0]:
                    # The glyph's place in the turned region, back in the image.
                    inv = cv2.invertAffineTransform(m) if inv is None else inv
                    gx, gy = inv @ np.array([2 * loc[0] + self.offset[k, 0], 2 * loc[1] + self.offset[k, 1], 1.0])
                    best = (float(v), ALL_CARDS[k], float(gx), float(gy))
        return best


def corner_templates(work_faces: Mapping[str, np.ndarray], anchors: Mapping[str, tuple[float, float, float]],
                     ppm: float, widths: Mapping[str, float] | None = None) -> CornerTemplates:
    """The corners of flat, upright faces at ``ppm`` px/mm; ``anchors``: card -> rank glyph (x, y, h)
    in mm; ``widths``: card -> the glyph's width in mm (kept to read a found corner's glyph)."""
    if not anchors:
        raise ValueError("no face to make corner templates from")
    glyph_h = float(np.median([a[2] for a in anchors.values()]))
    top_y = float(np.median([a[1] for a in anchors.values()]))
    y0, y1 = CORNER_TOP_MM, top_y + CORNER_GLYPHS * glyph_h
    x0, x1 = CORNER_X_MM
    th, tw = int(round((y1 - y0) * ppm)), int(round((x1 - x0) * ppm))
    grey = np.zeros((len(ALL_CARDS), th, tw), np.uint8)
    offset = np.full((len(ALL_CARDS), 2), np.nan)
    glyph = np.full((len(ALL_CARDS), 2), np.nan)
    for card, (ax, ay, ah) in anchors.items():
        face = work_faces[card]
        g = cv2.cvtColor(face, cv2.COLOR_BGR2GRAY) if face.ndim == 3 else face
        crop = g[int(round(y0 * ppm)):int(round(y0 * ppm)) + th, int(round(x0 * ppm)):int(round(x0 * ppm)) + tw]
        if crop.shape != (th, tw):
            continue
        k = CARD_INDEX[card]
        grey[k] = crop
        offset[k] = ((ax - x0) * ppm, (ay - y0) * ppm)
        glyph[k] = ((widths or {}).get(card, 0.8 * ah) * ppm, ah * ppm)
    return CornerTemplates(grey, offset, ppm, glyph)
