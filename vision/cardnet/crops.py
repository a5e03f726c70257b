"""Canonical crops at a card's corner: the classifier's input, cut the same way in training and play.

Why one function for both: a crop that training cut 0.5 mm differently from play is a quiet
loss of accuracy nobody sees; :func:`crop_at` is the only place the geometry of
:mod:`vision.cardnet.spec` is turned into pixels.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import cv2
import numpy as np

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
    m = crop_matrix(corner_px, px_per_mm, angle_deg)
    interp = cv2.INTER_AREA if px_per_mm > CROP_PPM * 1.2 else cv2.INTER_LINEAR
    if interp == cv2.INTER_AREA:
        # warpAffine has no area filter: pre-blur so a 4 px/mm zone is not aliased into the crop.
        sigma = 0.45 * px_per_mm / CROP_PPM
        x0 = int(max(corner_px[0] - 4 * px_per_mm, 0))
        y0 = int(max(corner_px[1] - 4 * px_per_mm, 0))
        x1 = int(min(corner_px[0] + 24 * px_per_mm, zone_bgr.shape[1]))
        y1 = int(min(corner_px[1] + 34 * px_per_mm, zone_bgr.shape[0]))
        if x1 > x0 and y1 > y0:
            part = cv2.GaussianBlur(zone_bgr[y0:y1, x0:x1], (0, 0), sigma)
            m = m.copy()
            m[:, 2] -= (x0, y0)
            return cv2.warpAffine(part, m, (CROP_W, CROP_H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                                  borderMode=cv2.BORDER_REPLICATE)
    return cv2.warpAffine(zone_bgr, m, (CROP_W, CROP_H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def crops_at(zone_bgr: np.ndarray, corners_px: Sequence[tuple[float, float]], px_per_mm: float,
             angles_deg: Sequence[float] | None = None) -> np.ndarray:
    """(N, CROP_H, CROP_W, 3) uint8 crops, one per corner."""
    angles = angles_deg if angles_deg is not None else [0.0] * len(corners_px)
    if not corners_px:
        return np.zeros((0, CROP_H, CROP_W, 3), np.uint8)
    return np.stack([crop_at(zone_bgr, c, px_per_mm, a) for c, a in zip(corners_px, angles, strict=True)])
