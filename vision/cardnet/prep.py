"""Turning images into network input: one function each, shared by training and play."""

from __future__ import annotations

import cv2
import numpy as np

from .spec import DET_PPM


def warp_at_scale(zone_bgr: np.ndarray, m: np.ndarray, size: tuple[int, int], px_per_mm: float, out_ppm: float,
                  box: tuple[float, float, float, float]) -> np.ndarray:
    """``zone_bgr`` through the 2x3 affine ``m`` (output pixels -> zone pixels) into a ``size`` (w, h) image
    sampled at ``out_ppm``; ``box`` (x0, y0, x1, y1, zone pixels) holds what the output can see.

    Why the blur: ``warpAffine`` has no area filter, so a zone finer than the output by more than 1.2x
    is blurred first (σ = 0.45 × the ratio), and only inside ``box`` (a card's crop, not the whole zone).
    An aliased glyph or pip is not the one the networks learned.
    """
    flags, border = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, cv2.BORDER_REPLICATE
    if px_per_mm > out_ppm * 1.2:
        x0, y0 = int(max(box[0], 0)), int(max(box[1], 0))
        x1, y1 = int(min(box[2], zone_bgr.shape[1])), int(min(box[3], zone_bgr.shape[0]))
        if x1 > x0 and y1 > y0:
            part = cv2.GaussianBlur(zone_bgr[y0:y1, x0:x1], (0, 0), 0.45 * px_per_mm / out_ppm)
            m = m.copy()
            m[:, 2] -= (x0, y0)
            return cv2.warpAffine(part, m, size, flags=flags, borderMode=border)
    return cv2.warpAffine(zone_bgr, m, size, flags=flags, borderMode=border)


def crops_to_input(crops: np.ndarray) -> np.ndarray:
    """(N, H, W, 3) uint8 BGR crops -> (N, 3, H, W) float32, each crop standardised on its own.

    Why per crop: light, glare, paper tint and camera gain change a crop's level and contrast,
    not its ink; dividing them out leaves the network the shapes and the colour ratios.
    """
    x = crops.astype(np.float32)
    m = x.mean(axis=(1, 2, 3), keepdims=True)
    s = x.std(axis=(1, 2, 3), keepdims=True)
    x = (x - m) / np.maximum(s, 8.0)
    return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


def at_detector_scale(zone_bgr: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The zone at DET_PPM, what the detector sees (uint8 BGR): an area resize, made in two steps where the
    zone is at least twice as fine, a whole factor first.

    Why two steps: OpenCV's area resize by a whole factor is its fast path, by any other factor a slow
    one (a 10-card zone at 4 px/mm: 4.3 ms in one step, 1.9 ms in two, 0.75 of a grey level apart on
    average).  The whole step replicates the zone's last row and column up to a multiple of its factor k
    (fewer than k pixels, under 2/3 mm at any scale), so the scale stays the one the caller maps corners
    back with.
    """
    s = DET_PPM / px_per_mm
    h, w = zone_bgr.shape[:2]
    size = (max(int(round(w * s)), 8), max(int(round(h * s)), 8))
    k = int(1.0 / s + 1e-9)
    if k >= 2 and abs(1.0 / s - k) > 1e-9:
        ph, pw = (-h) % k, (-w) % k
        img = np.pad(zone_bgr, ((0, ph), (0, pw), (0, 0)), mode="edge") if ph or pw else zone_bgr
        zone_bgr = cv2.resize(img, ((w + pw) // k, (h + ph) // k), interpolation=cv2.INTER_AREA)
    return cv2.resize(zone_bgr, size, interpolation=cv2.INTER_AREA)


def zone_to_input(zone_det: np.ndarray) -> np.ndarray:
    """(H, W, 3) uint8 BGR zone at DET_PPM -> (1, 3, H', W') float32 in [-1, 1], padded to a multiple of 4.

    The pad replicates the border (a zero pad would look like a dark table edge).
    """
    h, w = zone_det.shape[:2]
    ph, pw = (-h) % 4, (-w) % 4
    if ph or pw:
        zone_det = np.pad(zone_det, ((0, ph), (0, pw), (0, 0)), mode="edge")
    x = zone_det.astype(np.float32) / 127.5 - 1.0
    return np.ascontiguousarray(x.transpose(2, 0, 1)[None])
