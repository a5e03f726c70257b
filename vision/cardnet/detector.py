"""Card corners from the detector's heatmap: peaks, their sub-cell position, and the card cover.

The detector (:mod:`vision.training.nets.CornerNet`) marks every card's top-left corner whatever
the artwork; a court card or a lone joker is a corner like any other.  This module only turns
its output into millimetre-true points and says how much of the zone is covered by cards (so an
empty-looking reading of a zone with cards in it is a question, never a silent "nothing").
"""

from __future__ import annotations

from dataclasses import dataclass, field

import cv2
import numpy as np

from . import nets
from .prep import at_detector_scale, zone_to_input
from .spec import DET_PPM, DET_STRIDE, MIN_CORNER_GAP_MM

#: Peaks weaker than this are not even candidates (the classifier judges the rest).
CANDIDATE_MIN = 0.08


@dataclass(frozen=True)
class Corner:
    """A candidate card corner in zone pixels, with the detector's belief that it is one."""

    x: float
    y: float
    score: float


@dataclass(frozen=True)
class Detection:
    corners: list[Corner]
    #: Area of the zone the detector sees covered by cards, in mm².
    cover_mm2: float
    #: Where it sees cards: one cell per ``cell_px`` zone pixels (row, column from the top left).
    cover: np.ndarray = field(default_factory=lambda: np.zeros((0, 0), bool))
    cell_px: float = 0.0


def detect(zone_bgr: np.ndarray, px_per_mm: float) -> Detection:
    """Candidate corners (strongest first, none closer than MIN_CORNER_GAP_MM) and the card cover."""
    s = DET_PPM / px_per_mm
    out = nets.detector(zone_to_input(at_detector_scale(zone_bgr, px_per_mm)))[0]
    heat, off, cover = out[0], out[1:3], out[3]
    peaks = (heat == cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= CANDIDATE_MIN)
    ys, xs = np.nonzero(peaks)
    order = np.argsort(-heat[ys, xs])
    cell_mm = DET_STRIDE / DET_PPM
    chosen: list[Corner] = []
    for k in order:
        i, j = ys[k], xs[k]
        x_det = (j + off[0, i, j]) * DET_STRIDE
        y_det = (i + off[1, i, j]) * DET_STRIDE
        c = Corner(x_det / s, y_det / s, float(heat[i, j]))
        if all(np.hypot(c.x - o.x, c.y - o.y) >= MIN_CORNER_GAP_MM * px_per_mm for o in chosen):
            chosen.append(c)
    covered = cover > 0.5
    cover_mm2 = float(covered.sum()) * cell_mm * cell_mm
    return Detection(chosen, cover_mm2, covered, DET_STRIDE / s)
