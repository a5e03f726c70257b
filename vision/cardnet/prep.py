"""Turning images into network input: one function each, shared by training and play."""

from __future__ import annotations

import numpy as np


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
