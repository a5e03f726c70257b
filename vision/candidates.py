"""Where an index might be: paper against felt, ink against paper, glyph-sized blobs (candidates).

The reader's front end, before any classifier: :func:`analyse` turns a zone brought to
``WORK_PPM`` into :class:`Analysis` (ink, redness, card rows, candidates), and
:func:`patch_feature` turns a candidate into the fixed-size patch every index classifier reads
(the MLP, the CNN of :mod:`vision.index_cnn`, an enrolment's per-deck classifier).  The training
data (:mod:`vision.models.index_data`) is made by these same functions, so a classifier sees at
read time exactly what it was trained on.  Split out of ``reader.py`` (issue 21): the decisions
on what was read live in the reader, the image processing here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

#: Working resolution: every zone is brought to this scale first.
WORK_PPM = 3.0
PATCH_W, PATCH_H = 24, 40
#: Patch box relative to the glyph box, in units of the glyph's height.
PATCH_X0, PATCH_X1 = -0.3, 1.5
PATCH_Y0, PATCH_Y1 = -0.25, 2.6
#: Widest blob (mm) proposed as a glyph.  The shipped classifier was trained with this limit and
#: reads only what it produces; it is just over tango's "10" (16.0 mm on the face), so a "10"
#: widened by blur or scale error was not proposed at all.
MAX_GLYPH_W_MM = 16.0
#: The limit when a per-deck classifier reads: that one is fitted on rows analysed with it.
ENROLLED_GLYPH_W_MM = 20.0


@dataclass
class Candidate:
    """A blob of ink that might be the rank glyph of a card index."""

    x: float  # top-left of the glyph box, work px
    y: float
    w: float
    h: float
    redness: float
    component: int
    feature: np.ndarray | None = None
    #: A hypothesis made from another candidate (see _ten_hypotheses): that one's position; else -1.
    source: int = -1


@dataclass
class Analysis:
    ink: np.ndarray
    red: np.ndarray
    cards_mask: np.ndarray
    components: list[tuple[int, int, int, int]]  # row blobs: x, y, w, h in work px
    candidates: list[Candidate]
    labels: np.ndarray
    #: Near-vertical long ink lines (card edges, printed borders) of the region at ``lines_at``
    #: (x, y); None: there are none.
    upright_lines: np.ndarray | None = None
    lines_at: tuple[int, int] = (0, 0)
    _pip_ink: np.ndarray | None = field(default=None, init=False, repr=False)

    @property
    def pip_ink(self) -> np.ndarray:
        """The ink with near-vertical lines erased, to cut pips from (computed once, on demand).

        Why: where the next card covers part of a pip, its border line joins the pip into one
        tall blob that is no pip, and the suit expert had nothing to read (tango's 13 mm pips
        reach under the next card at the shortest steps).  Only near-vertical lines: pips of
        neighbouring cards touching in a row can make a "horizontal line" through a pip.
        """
        if self.upright_lines is None:
            return self.ink
        if self._pip_ink is None:
            x0, y0 = self.lines_at
            h, w = self.upright_lines.shape
            self._pip_ink = self.ink.copy()
            self._pip_ink[y0:y0 + h, x0:x0 + w][cv2.dilate(self.upright_lines, np.ones((3, 3), np.uint8)) > 0] = 0.0
        return self._pip_ink


def card_mask(bgr: np.ndarray, ppm: float = WORK_PPM) -> tuple[np.ndarray, np.ndarray, float]:
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


def analyse(bgr: np.ndarray, ppm: float = WORK_PPM, whole_card: bool = False, second_pass: bool = True,
            max_glyph_w_mm: float = MAX_GLYPH_W_MM) -> Analysis:
    """Card rows, ink maps and index candidates of a zone at ``ppm`` px/mm.

    ``whole_card``: the image is one card face cropped to the card (enrolment), no table around.
    ``max_glyph_w_mm``: widest blob proposed as a candidate (see :data:`ENROLLED_GLYPH_W_MM`).
    """
    if whole_card:
        mask = np.full(bgr.shape[:2], 255, np.uint8)
        search, contrast = mask, 255.0
    else:
        mask, search, contrast = card_mask(bgr, ppm)
    # Row blobs from the mask at half resolution (stats scaled back): a third of the cost.
    n, labels, stats, _ = cv2.connectedComponentsWithStats(mask[::2, ::2], connectivity=8)
    min_area = 1500.0 * ppm * ppm / 4  # ~30 % of the smallest card, in half-res pixels
    comps = []
    keep = np.zeros(n, bool)
    if contrast >= 40:
        for members, (x, y, w, h), a in _paper_pieces(stats, ppm):
            if a >= min_area and 2 * h >= 45 * ppm and 2 * w >= 25 * ppm:
                comps.append((2 * x, 2 * y, 2 * w, 2 * h))
                keep[members] = True
    ink = np.zeros(bgr.shape[:2], np.float32)
    red = np.zeros(bgr.shape[:2], np.float32)
    if not comps:
        return Analysis(ink, red, np.zeros_like(mask), [], [], labels)
    cards = cv2.bitwise_and(mask, mask, mask=cv2.resize(keep[labels].astype(np.uint8), (mask.shape[1], mask.shape[0]),
                                                        interpolation=cv2.INTER_NEAREST))
    # Ink only where the cards are (plus a margin): most of a zone is felt.
    m = int(6 * ppm)
    x0 = max(min(c[0] for c in comps) - m, 0)
    y0 = max(min(c[1] for c in comps) - m, 0)
    x1 = min(max(c[0] + c[2] for c in comps) + m, bgr.shape[1])
    y1 = min(max(c[1] + c[3] for c in comps) + m, bgr.shape[0])
    roi = bgr[y0:y1, x0:x1]
    # Local paper white per channel: max filter over 5 mm, then smoothed.
    k = int(5 * ppm) | 1
    white = cv2.blur(cv2.dilate(roi, cv2.getStructuringElement(cv2.MORPH_RECT, (k, k))), (k, k))
    norm = cv2.divide(roi.astype(np.float32), cv2.max(white, 20).astype(np.float32))
    nb, ng, nr = cv2.split(norm)
    mn = cv2.min(cv2.min(nb, ng), nr)
    ink_roi = np.clip((0.92 - mn) * (1 / 0.6), 0.0, 1.0)
    red_roi = np.clip(nr - cv2.max(nb, ng), 0.0, 1.0)
    ink[y0:y1, x0:x1] = ink_roi
    red[y0:y1, x0:x1] = red_roi
    cards_roi = cards[y0:y1, x0:x1]
    inner = cv2.bitwise_and(cv2.erode(cards_roi, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (int(1.6 * ppm) | 1,) * 2)),
                            search[y0:y1, x0:x1])
    ink_mask = ((ink_roi > 0.45) & (inner > 0)).astype(np.uint8)
    # Top boundary of the card rows, per column, to keep only blobs near the top.
    top = np.full(x1 - x0, 10 ** 6, np.int32)
    has = cards_roi.any(axis=0)
    top[has] = np.argmax(cards_roi[:, has] > 0, axis=0)
    cands: list[Candidate] = []
    ctx = (red_roi, top, labels, keep, ppm, x0, y0, max_glyph_w_mm)
    _add_candidates(cands, ink_mask, *ctx)
    # Second pass: glyphs touching a long straight line (a face card's frame, the edge of the
    # next card) are cut free by removing the lines, then proposed again.
    # The stricter ink threshold also parts glyphs joined by a blurred halo (paris's thick border).
    found = _long_lines(ink_mask, ppm) if second_pass else None
    lines, upright = found if found is not None else (None, None)
    if second_pass:
        strict = ((ink_roi > 0.7) & (inner > 0)).astype(np.uint8)
        if lines is not None:
            # One pixel more on each side: a glyph 1 mm from a printed border (tango's "10") is
            # otherwise still joined to it by the border's blurred fringe or its rounded corner.
            strict[cv2.dilate(lines, np.ones((3, 3), np.uint8)) > 0] = 0
        _add_candidates(cands, strict, *ctx)
    return Analysis(ink, red, cards, comps, cands, labels, upright, (x0, y0))


def _paper_pieces(stats: np.ndarray, ppm: float) -> list[tuple[list[int], tuple[int, int, int, int], int]]:
    """Paper blobs (half-resolution ``stats`` of the card mask) with pieces of one card joined.

    Full-colour court art that reaches the printed frame on both sides (paris's kings and
    queens) cuts a lone card's paper into two to four pieces, each under the size of a card,
    and the card was not seen at all (102 of 120 lone paris court cards): pieces whose boxes
    are at most 5 mm apart are one blob.  Returns (labels, box, area) per blob; specks under
    100 mm² are left out.
    """
    hp = ppm / 2  # half-resolution px per mm
    pieces = [([i], tuple(int(v) for v in stats[i][:4]), int(stats[i][4])) for i in range(1, len(stats))
              if stats[i][4] >= 100 * hp * hp]
    merged = True
    while merged:
        merged = False
        for a in range(len(pieces)):
            for b in range(a + 1, len(pieces)):
                (ax, ay, aw, ah), (bx, by, bw, bh) = pieces[a][1], pieces[b][1]
                x_gap = max(ax, bx) - min(ax + aw, bx + bw)
                y_gap = max(ay, by) - min(ay + ah, by + bh)
                if x_gap <= 5 * hp and y_gap <= 5 * hp:
                    x0, y0 = min(ax, bx), min(ay, by)
                    box = (x0, y0, max(ax + aw, bx + bw) - x0, max(ay + ah, by + bh) - y0)
                    pieces[a] = (pieces[a][0] + pieces[b][0], box, pieces[a][2] + pieces[b][2])
                    del pieces[b]
                    merged = True
                    break
            if merged:
                break
    return pieces


_LINE_KERNELS: dict[int, list[np.ndarray]] = {}
#: A straight ink run at least this long (mm) is a card edge or an art frame.  It must exceed the
#: tallest index glyph (14.3 mm, tango's J): with 9 mm the stems of large fonts (K, 1, 4, J) and the
#: bars of bold ones were taken for lines and cut away, which lost ~20 % of tango's indices.
LINE_MIN_MM = 17.0


def _line_kernels(length: int) -> list[np.ndarray]:
    ks = _LINE_KERNELS.get(length)
    if ks is None:
        ks = []
        for ang in (-6.0, -3.0, 0.0, 3.0, 6.0):
            for vertical in (True, False):
                k = np.zeros((length, length), np.uint8)
                c = (length - 1) / 2
                dx, dy = math.sin(math.radians(ang)) * c, math.cos(math.radians(ang)) * c
                if not vertical:
                    dx, dy = dy, dx
                cv2.line(k, (round(c - dx), round(c - dy)), (round(c + dx), round(c + dy)), 1, 1)
                ys, xs = np.nonzero(k)
                ks.append(k[ys.min():ys.max() + 1, xs.min():xs.max() + 1].copy())
        _LINE_KERNELS[length] = ks
    return ks


def _long_lines(ink_mask: np.ndarray, ppm: float) -> tuple[np.ndarray, np.ndarray | None] | None:
    """Straight ink lines longer than any index glyph (card edges, art frames): (all of them, the
    near-vertical ones or None); None if there are none."""
    x0, y0, w, h = cv2.boundingRect(ink_mask)  # much cheaper than np.nonzero on the whole mask
    if w == 0:
        return None
    roi = ink_mask[y0:y0 + h, x0:x0 + w]
    acc = np.zeros_like(roi)
    vert = np.zeros_like(roi)
    for n, k in enumerate(_line_kernels(int(LINE_MIN_MM * ppm) | 1)):
        opened = cv2.morphologyEx(roi, cv2.MORPH_OPEN, k)
        acc |= opened
        if n % 2 == 0:  # kernels alternate vertical, horizontal
            vert |= opened
    if not acc.any():
        return None
    out = np.zeros_like(ink_mask)
    out[y0:y0 + h, x0:x0 + w] = acc
    if not vert.any():
        return out, None
    out_v = np.zeros_like(ink_mask)
    out_v[y0:y0 + h, x0:x0 + w] = vert
    return out, out_v


def _add_candidates(cands: list[Candidate], ink_mask: np.ndarray, red: np.ndarray, top: np.ndarray,
                    labels: np.ndarray, keep: np.ndarray, ppm: float, ox: int, oy: int, max_w_mm: float) -> None:
    """Glyph-sized ink blobs near the top of a card row, skipping ones already proposed.

    ``ink_mask``/``red``/``top`` cover the region of interest at offset (ox, oy); ``labels``
    are the half-resolution row blobs.
    """
    nc, cl, cst, _ = cv2.connectedComponentsWithStats(ink_mask, connectivity=8)
    lo_h, hi_h, lo_w, hi_w, min_a, max_dy = 2.5 * ppm, 22.0 * ppm, 0.3 * ppm, max_w_mm * ppm, 4 * ppm, 26 * ppm
    for i in range(1, nc):
        x, y, w, h, a = (int(v) for v in cst[i])
        if not (lo_h <= h <= hi_h and lo_w <= w <= hi_w) or a < min_a:
            continue
        if y - int(top[min(x + w // 2, len(top) - 1)]) > max_dy:
            continue
        gx, gy = x + ox, y + oy
        if any(abs(c.x - gx) <= 1 and abs(c.y - gy) <= 1 and abs(c.w - w) <= 1 and abs(c.h - h) <= 1 for c in cands):
            continue
        sel = cl[y:y + h, x:x + w] == i
        rd = float(red[y:y + h, x:x + w][sel].mean())
        lab = labels[min((gy + h // 2) // 2, labels.shape[0] - 1), min((gx + w // 2) // 2, labels.shape[1] - 1)]
        comp = int(lab) if keep[lab] else -1
        cands.append(Candidate(float(gx), float(gy), float(w), float(h), rd, comp))


def patch_feature(ink: np.ndarray, c: Candidate) -> np.ndarray:
    """Fixed-size patch of ink around a candidate, scaled by the glyph's own height."""
    s = c.h
    x0 = c.x + PATCH_X0 * s
    y0 = c.y + PATCH_Y0 * s
    sx = (PATCH_X1 - PATCH_X0) * s / PATCH_W
    sy = (PATCH_Y1 - PATCH_Y0) * s / PATCH_H
    m = np.array([[sx, 0, x0 + sx / 2 - 0.5], [0, sy, y0 + sy / 2 - 0.5]], np.float32)
    p = cv2.warpAffine(ink, m, (PATCH_W, PATCH_H), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP,
                       borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    if sx > 1.5:  # strong down-scaling: average instead of sampling
        small = cv2.resize(ink[max(int(y0), 0):max(int(y0 + PATCH_H * sy), 1), max(int(x0), 0):max(int(x0 + PATCH_W * sx), 1)],
                           (PATCH_W, PATCH_H), interpolation=cv2.INTER_AREA) if x0 >= 0 and y0 >= 0 else p
        if small.shape == p.shape:
            p = small
    extra = np.array([c.h / (8.0 * WORK_PPM), c.w / c.h, c.redness], np.float32)
    return np.concatenate([p.ravel(), extra])


FEATURE_DIM = PATCH_W * PATCH_H + 3
