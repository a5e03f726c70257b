"""Count checks: does the number of indices read fit the paper seen?

Each card shows its index within a few millimetres of its top-left corner, and a player fans
a play at steps of 12-25 mm; so a paper margin wider than one step before the first index, a
gap of two steps, a gap far under the others, or a last card wider than one card mean a card
may be hidden or read twice.  Geometry only, no classifier: the reader asks these after
choosing its indices, and (with an enrolment) searches where they point for a hidden corner.
Split out of ``reader.py`` (issue 21); every bar carries what it was measured on.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from .candidates import WORK_PPM, Analysis, Candidate
from .cards import CARD_INDEX

if TYPE_CHECKING:
    from .reader import Enrollment

#: The count checks' reasons that a card may be hidden (see _spacing_doubts).
MISSING_REASONS = ("行首可能漏牌 / a card may be missing at the left",
                   "两张之间可能漏牌 / a card may be missing between two indices",
                   "行尾可能漏牌 / a card may be missing at the right")
#: The count checks' reason that a blob of paper shows no index at all.
NO_INDEX_REASON = "有牌但无角标 / a card row without a readable index"


#: Count checks (mm), measured on the training designs' rows: see _row_ends.
LEFT_MAX_MM = 10.0
GAP_MAX_MM = 29.0
#: A gap wider than the typical one by this much (or by half of it, if more) hides a card.
GAP_EXTRA_MM = 6.5
TAIL_RANGE_MM = (40.0, 64.0)
TAIL_ENROLLED_MM = (-14.0, 4.0)  # tail minus the enrolled card width
#: How far a row's blob may reach beyond its ends at the indices' height: a card tilted by 6°
#: moves its foot 9 mm sideways.
ROW_FOOT_MM = 12.0
#: Where art cuts the paper at the last index's height, the blob's right end may pass the enrolled
#: card's width by this much (mm) before a card may hide there (see _spacing_doubts).
TAIL_CUT_MAX_MM = 3.0


def _row_ends(c: Candidate, cards: np.ndarray, ppm: float) -> tuple[float, float]:
    """Left and right end of the paper in a band around index ``c``'s height (the card tops)."""
    y0 = max(int(c.y - 10 * ppm), 0)
    y1 = min(int(c.y + 5 * ppm), cards.shape[0])
    band = cards[y0:y1]
    cols = np.nonzero(band.any(axis=0))[0]
    if len(cols) == 0:
        return c.x, c.x
    # Only the run of columns connected to the index column: other rows do not count.
    xi = int(np.clip(c.x, cols[0], cols[-1]))
    gaps = np.nonzero(np.diff(cols) > 1)[0]
    starts = np.concatenate([[cols[0]], cols[gaps + 1]])
    ends = np.concatenate([cols[gaps], [cols[-1]]])
    k = int(np.searchsorted(ends, xi))
    k = min(k, len(starts) - 1)
    return float(starts[k]), float(ends[k] + 1)


def _rows(chosen: list[Candidate], an: Analysis) -> Iterator[tuple[tuple[int, int, int, int], list[Candidate]]]:
    """Each blob of paper (x, y, w, h) with the chosen indices lying in it, left to right."""
    for comp in an.components:
        x, w = comp[0], comp[2]
        yield comp, sorted((c for c in chosen if x - 2 <= c.x <= x + w), key=lambda c: c.x)


def _row_gaps(inside: list[Candidate], chosen: list[Candidate], cards: list[str],
              enrollment: Enrollment | None) -> list[float]:
    """The steps (mm) between neighbouring indices of one row; card edge to card edge (each index
    less its own card's offset from the edge) where the enrolment knows the offsets."""
    gaps = [(b.x - a.x) / WORK_PPM for a, b in zip(inside, inside[1:], strict=False)]
    if enrollment is not None and enrollment.anchor_x_mm is not None:
        offset = {id(c): enrollment.anchor_x_mm[CARD_INDEX[card]] for c, card in zip(chosen, cards, strict=True)}
        gaps = [g - float(np.nan_to_num(offset[id(b)] - offset[id(a)]))
                for g, a, b in zip(gaps, inside, inside[1:], strict=False)]
    return gaps


#: A gap the count checks pass is still searched for a hidden corner when it is at least this
#: wide (mm; two steps of >= 12 mm, less a turned card's shift) and, with other gaps in the
#: row, PROBE_RATIO times the narrowest: three plays of 1,000 held-out ones (seed 88) hid a card
#: silently there (7h 9h 4h 2h fanned at 12 mm with the 9 and the 2 under their neighbours read
#: as gaps of 24, 24 and 13 mm, whose narrower half's median passed both).  The ratio was 1.6
#: until a 10♠ 3♣ 6♣ 5♦ row stepped 18, 12 and 18 mm hid its 3♣ in a gap 1.44 times the other.
PROBE_GAP_MM = 20.0
PROBE_RATIO = 1.35


def _probe_gaps(chosen: list[Candidate], an: Analysis, enrollment: Enrollment | None,
                cards: list[str]) -> list[tuple[Candidate, Candidate]]:
    """Neighbouring indices (a, b) whose gap could hold a card the count checks let pass: the
    reader looks there for a corner, and doubts nothing if none is found."""
    out = []
    for _, inside in _rows(chosen, an):
        gaps = _row_gaps(inside, chosen, cards, enrollment)
        if not gaps:
            continue
        least = min(gaps)
        out += [(a, b) for a, b, g in zip(inside, inside[1:], gaps, strict=False)
                if g >= PROBE_GAP_MM and (len(gaps) == 1 or g >= PROBE_RATIO * least)]
    return out


def _spacing_doubts(chosen: list[Candidate], an: Analysis, enrollment: Enrollment | None,
                    cards: list[str]) -> list[str]:
    """Count checks: the row's left end, the gaps between indices and the last card's width.

    Each card shows its index within a few millimetres of its top-left corner, and the steps
    between corners are 12–25 mm; so a paper margin wider than one step before the first index,
    a gap of two steps, or a last card wider than one card means a card may be hidden.
    """
    out: list[str] = []
    ppm = WORK_PPM
    for (x, _y, w, _h), inside in _rows(chosen, an):
        if not inside:
            out.append(NO_INDEX_REASON)
            continue
        left, _ = _row_ends(inside[0], an.cards_mask, ppm)
        # The ends are measured at the indices' height; where the blob reaches much further
        # (more than a tilted card's foot does), paper there was lost to full-colour art and
        # that end cannot be measured: a card may be hiding there.
        if (inside[0].x - left) / ppm > LEFT_MAX_MM or (left - x) / ppm > ROW_FOOT_MM:
            out.append("行首可能漏牌 / a card may be missing at the left")
        gaps = _row_gaps(inside, chosen, cards, enrollment)
        # A player fans a play evenly: one gap much wider than the others hides a card.  The
        # typical step is the median gap, or with only two gaps the smaller one (one of two may
        # be the double).  On 965 rightly read plays of the training designs a gap was at most
        # 1.41 times the median.
        typical = float(np.median(gaps)) if len(gaps) >= 3 else min(gaps) if len(gaps) == 2 else None
        # Against wide gaps, the step is the median of the narrower half: two hidden cards in a
        # row of ten raise the median itself (tango, 14.4 -> 16.4 mm), and a doubled gap passed.
        step = float(np.median(sorted(gaps)[:(len(gaps) + 1) // 2])) if typical is not None and len(gaps) >= 3 else typical
        for g in gaps:
            if g > GAP_MAX_MM or (step is not None and g > step + max(GAP_EXTRA_MM, 0.5 * step)):
                out.append("两张之间可能漏牌 / a card may be missing between two indices")
            # And one much narrower than the median: a blob of art read as one more card (the
            # narrowest gap of 614 rightly read training-design plays was 29 % under the median).
            if len(gaps) >= 3 and typical is not None and g < typical - max(GAP_EXTRA_MM, 0.5 * typical):
                out.append("两张之间可能多读一张 / two indices too close: a card may be read twice")
        _, right = _row_ends(inside[-1], an.cards_mask, ppm)
        tail = (right - inside[-1].x) / ppm
        if enrollment is not None:
            lo, hi = (enrollment.size_mm[0] + d for d in TAIL_ENROLLED_MM)
        else:
            lo, hi = TAIL_RANGE_MM
        foot = (x + w - right) / ppm
        if enrollment is not None and foot > ROW_FOOT_MM:
            # The paper at the index's height ends early: full-colour art (a court figure's hat,
            # paris) cuts it.  The last card's width is then judged on the whole blob, which
            # also holds the card's tilted foot: on 994 rightly read training-design plays it
            # was at most 5.7 mm over the card's width (0.3 where the paper was cut), with the
            # last index left out (a card hidden at the right) at least 6.0 mm over.
            comp_tail = (x + w - inside[-1].x) / ppm - enrollment.size_mm[0]
            if comp_tail > TAIL_CUT_MAX_MM:
                out.append("行尾可能漏牌 / a card may be missing at the right")
        elif not lo <= tail <= hi or foot > ROW_FOOT_MM:
            out.append("行尾可能漏牌 / a card may be missing at the right")
    return out
