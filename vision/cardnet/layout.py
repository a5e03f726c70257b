"""Where cards can and cannot lie in a play zone: the fan's geometry, which the networks cannot see.

A player lays a play as one fanned row, left to right, each card's top-left corner 10–30 mm right of
the last; a card is 56–65 x 86–89 mm, tilted at most 7°.  From the corners read and the detector's
cover (where it sees cards' paper), these functions say where a card may hide (a gap in the row,
paper left of the first card read) and where none can lie (no paper where its body would be).
:mod:`vision.cardnet.read` turns them into the play's doubts.

Why apart from the reader: they are rules of the table's geometry, not of reading a card, and each
is tested on corners and covers made by hand.
"""

from __future__ import annotations

import numpy as np

from .detector import Corner, Detection
from .spec import MIN_CORNER_GAP_MM

#: No fan a player lays leaves more than this between two neighbouring corners (overlap of a
#: 52–65 mm card leaves 10–30 mm): a wider gap may hide a card.
MAX_STEP_MM = 40.0
#: A player fans a play evenly: a gap this many times the play's other steps is nearer two steps
#: than one (the midpoint of 1 and 2), and a card may be hidden or its corner missed there.
DOUBLE_STEP = 1.5

#: The band level with the first card's corner where paper left of it is looked for: from this far
#: above the corner to this far below, where a card tilted 7° keeps its left edge within 4 mm of its
#: corner (on clean plays of seven designs the paper began at most 3 mm left of the first corner;
#: where a rubbed first card was silently dropped, 11–24 mm: docs/performance.md).
PAPER_ABOVE_MM = 2.0
PAPER_BAND_MM = 30.0

#: Where the paper is followed left from: this far inside the first card, right of its corner (a
#: cover cell is 2.7 mm, so the corner's own cell may straddle the card's edge).
PAPER_INSIDE_MM = 3.0

#: Where a card whose top-left corner lay at a candidate would lie whatever its tilt (±7°) and size
#: (56–65 x 86–89 mm): this far right of the corner, and this far below it.  A candidate dropped as no
#: card where the detector sees no card's paper there over most of it (under ``ROOM_COVER``) is not
#: counted against the play (:func:`room_for_card`).
ROOM_RIGHT_MM = (35.0, 45.0)
ROOM_BELOW_MM = (10.0, 50.0)
ROOM_COVER = 0.5

#: A card hidden in a gap of the fan has its corner level with its two neighbours': within this
#: many mm of their mean height (a 7° tilt over the widest gap, 40 mm, moves a corner 5 mm).
GAP_ROW_MM = 7.0


def room_for_card(det: Detection, c: Corner, px_per_mm: float, zone_hw: tuple[int, int]) -> bool:
    """Whether a card could have its top-left corner at ``c``: False only where the part of the zone that
    card would cover whatever its tilt and size (:data:`ROOM_RIGHT_MM`, :data:`ROOM_BELOW_MM`) lies in the
    zone and the detector sees cards' paper on less than :data:`ROOM_COVER` of it.

    Why: a picture card's art (a joker's word at its top right, a queen's crown) holds spots the
    detector takes for a corner and the classifier reads as an index; dropped as no card, each still
    counted its small chance of being one against the play, and a lone joker or a pair of queens was
    asked.  A card needs its paper: where none lies, no card's corner does.  Where the zone ends first,
    nothing is known, and the chance is counted as before."""
    if not det.cover.size or det.cell_px <= 0:
        return True
    h, w = zone_hw
    x0, x1 = (c.x + d * px_per_mm for d in ROOM_RIGHT_MM)
    y0, y1 = (c.y + d * px_per_mm for d in ROOM_BELOW_MM)
    if x0 < 0 or y0 < 0 or x1 > w or y1 > h:
        return True
    cell = det.cell_px
    part = det.cover[int(y0 // cell):int(y1 // cell) + 1, int(x0 // cell):int(x1 // cell) + 1]
    return not part.size or float(part.mean()) >= ROOM_COVER


def paper_before_first(det: Detection, first: Corner, px_per_mm: float, reasons: list[str]) -> None:
    """Cards' paper left of the first card read, level with its corner: a card lies under it whose
    corner no one can read (worn, covered, face down), which would otherwise vanish from the play.

    Only the top of the row is looked at (``PAPER_BAND_MM`` below the corner), where the first
    card's own left edge stays within a few millimetres of its corner however it is tilted, and
    only paper joined to the first card's (a glare the cover mistakes for paper lies apart); paper
    further left than the closest two corners can be (``MIN_CORNER_GAP_MM``) is another card's.
    """
    if not det.cover.size or det.cell_px <= 0:
        return
    r0 = max(0, int((first.y - PAPER_ABOVE_MM * px_per_mm) // det.cell_px))
    r1 = min(det.cover.shape[0], int((first.y + PAPER_BAND_MM * px_per_mm) // det.cell_px) + 1)
    if r1 <= r0:
        return
    covered = det.cover[r0:r1].mean(axis=0) >= 0.5
    col = min(int((first.x + PAPER_INSIDE_MM * px_per_mm) // det.cell_px), len(covered) - 1)
    if col < 0 or not covered[col]:
        return  # the cover does not see the first card itself: nothing to measure from
    while col > 0 and covered[col - 1]:  # the paper joined to the first card's, not a far glare
        col -= 1
    before_mm = (first.x - col * det.cell_px) / px_per_mm
    if before_mm > MIN_CORNER_GAP_MM:
        reasons.append(f"第一张牌左侧还有牌面 {before_mm:.0f} 毫米，可能有牌未读到 / cards' paper {before_mm:.0f} mm "
                       f"left of the first card read: a card may lie under it unread")


def in_suspect_gap(corners: list[Corner], p_card: np.ndarray, px_per_mm: float) -> np.ndarray:
    """Which candidates lie where a card may hide between two cards read (:func:`suspect_gap`):
    clear of both neighbours' corners and level with them (within :data:`GAP_ROW_MM`).  Why: a
    corner the detector was unsure of (tango's wide "10", 1–2 mm off) is most often such a card,
    and the play is doubted there anyway; a look around it may read the card."""
    kept = sorted((c for c, p in zip(corners, p_card, strict=True) if p >= 0.5), key=lambda c: c.x)
    gap = suspect_gap([c.x / px_per_mm for c in kept])
    if gap is None:
        return np.zeros(len(corners), bool)
    left, right = next((a, b) for a, b in zip(kept, kept[1:], strict=False) if a.x / px_per_mm == gap[0])
    row_y = (left.y + right.y) / 2.0
    return np.array([left.x + MIN_CORNER_GAP_MM * px_per_mm <= c.x <= right.x - MIN_CORNER_GAP_MM * px_per_mm
                     and abs(c.y - row_y) <= GAP_ROW_MM * px_per_mm for c in corners], bool)


def suspect_gap(xs_mm: list[float]) -> tuple[float, float] | None:
    """The widest gap between neighbouring corners (left to right, in mm) when it is wider than any
    fan, or nearer two of the play's own steps than one: where a card may lie hidden, or its corner
    was missed.  None when the play's steps hold no such gap."""
    gaps = np.diff(xs_mm)
    if not len(gaps):
        return None
    widest = int(gaps.argmax())
    others = np.delete(gaps, widest)
    if float(gaps[widest]) > MAX_STEP_MM or (len(others) and float(gaps[widest]) > DOUBLE_STEP * float(np.median(others))):
        return xs_mm[widest], xs_mm[widest + 1]
    return None


def geometry_doubts(kept: list[Corner], px_per_mm: float, reasons: list[str]) -> None:
    """The play is doubted where :func:`suspect_gap` finds a gap that may hide a card."""
    xs_mm = [c.x / px_per_mm for c in kept]
    gap = suspect_gap(xs_mm)
    if gap is None:
        return
    width = gap[1] - gap[0]
    if width > MAX_STEP_MM:
        reasons.append(f"牌间距过大（{width:.0f} 毫米），可能有牌被遮 / a gap of {width:.0f} mm may hide a card")
        return
    others = np.delete(np.diff(xs_mm), int(np.argmax(np.diff(xs_mm))))
    reasons.append(f"牌间距不均，可能漏看一张：{width:.0f} 毫米的间距是扇形步距 {float(np.median(others)):.0f} 毫米的两倍 / "
                   f"a gap of {width:.0f} mm, twice the fan's "
                   f"{float(np.median(others)):.0f} mm steps, may hide a card")
