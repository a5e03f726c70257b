"""Canonical crops at a card's corner: the classifier's input, cut the same way in training and play.

Why one function for both: a crop that training cut 0.5 mm differently from play is a quiet
loss of accuracy nobody sees; :func:`crop_at` is the only place the geometry of
:mod:`vision.cardnet.spec` is turned into pixels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from .prep import warp_at_scale
from .spec import CROP_H, CROP_MARGIN_MM, CROP_PPM, CROP_W


def crop_matrix(corner_px: tuple[float, float], px_per_mm: float, angle_deg: float = 0.0) -> np.ndarray:
    """2x3 affine from crop pixels to zone pixels for a corner at ``corner_px`` turned ``angle_deg``."""
    s = px_per_mm / CROP_PPM
    a = math.radians(angle_deg)
    c, si = math.cos(a) * s, math.sin(a) * s
    off = -CROP_MARGIN_MM * CROP_PPM
    x0, y0 = corner_px
    # crop (u, v) -> zone: corner + R * s * ((u, v) + off)
    return np.array([[c, -si, x0 + c * off - si * off], [si, c, y0 + si * off + c * off]], np.float64)


def crop_at(zone_bgr: np.ndarray, corner_px: tuple[float, float], px_per_mm: float,
            angle_deg: float = 0.0) -> np.ndarray:
    """The CROP_H x CROP_W BGR crop whose top-left lies CROP_MARGIN_MM up-left of ``corner_px``."""
    x, y = corner_px
    box = (x - 4 * px_per_mm, y - 4 * px_per_mm, x + 24 * px_per_mm, y + 34 * px_per_mm)
    return warp_at_scale(zone_bgr, crop_matrix(corner_px, px_per_mm, angle_deg), (CROP_W, CROP_H), px_per_mm,
                         CROP_PPM, box)


def crops_at(zone_bgr: np.ndarray, corners_px: Sequence[tuple[float, float]], px_per_mm: float,
             angles_deg: Sequence[float] | None = None) -> np.ndarray:
    """(N, CROP_H, CROP_W, 3) uint8 crops, one per corner."""
    angles = angles_deg if angles_deg is not None else [0.0] * len(corners_px)
    if not corners_px:
        return np.zeros((0, CROP_H, CROP_W, 3), np.uint8)
    return np.stack([crop_at(zone_bgr, c, px_per_mm, a) for c, a in zip(corners_px, angles, strict=True)])
