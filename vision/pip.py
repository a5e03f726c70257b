"""The suit read from the index pip alone (a second opinion on spade↔club, heart↔diamond).

Why: the index classifier sees the rank glyph and the pip in one patch scaled by the glyph's
height, so the pip gets ~10×10 pixels and its suit is the classifier's most frequent confusion
(a suit pair of one colour).  Pip shapes are far more alike across decks than rank fonts are, so
a small model on the pip cut out and scaled by its *own* box generalises better to unseen decks.
The reader multiplies its suit odds within a rank by this model's (a product of experts); where no
pip is found the index classifier decides alone.

The pip is the largest ink blob under the rank glyph (between 0.8 and 2.5 glyph heights below
its top, within the glyph's column); its box is scaled to ``PIP_SIZE`` × ``PIP_SIZE``.
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from .deck_model import flush_denormals

PIP_SIZE = 16
PIP_FEATURE_DIM = PIP_SIZE * PIP_SIZE + 2
#: Classes of the pip model, in this order.
PIP_SUITS = ("s", "c", "h", "d")
PIP_MODEL_PATH = Path(__file__).with_name("models") / "pip_mlp.npz"


def pip_feature(ink: np.ndarray, x: float, y: float, w: float, h: float,
                glyph_h: float | None = None) -> np.ndarray | None:
    """Feature of the pip under the rank glyph whose box is (x, y, w, h) in ``ink``; None if no pip.

    ``ink``: the reader's 0..1 ink map.  The feature is the pip's ink scaled to its own box, plus
    its aspect ratio and its height relative to the glyph's.  ``glyph_h`` (an enrolled deck's
    rank-glyph height, px): a glyph found shorter than 90 % of it had its top cut off (a tango
    "1" parted from its border), and the pip is looked for below its foot at the deck's height;
    from the short box only the pip's top was in reach.
    """
    if glyph_h is not None and h < 0.9 * glyph_h:
        y, h = y + h - glyph_h, glyph_h
    x0 = int(max(x - 0.4 * h, 0))
    x1 = int(min(x + max(w, 0.7 * h) + 0.5 * h, ink.shape[1]))
    y0 = int(max(y + 0.8 * h, 0))
    y1 = int(min(y + 2.5 * h, ink.shape[0]))
    if x1 - x0 < 3 or y1 - y0 < 3:
        return None
    roi = ink[y0:y1, x0:x1]
    mask = (roi > 0.45).astype(np.uint8)
    n, lab, st, _ = cv2.connectedComponentsWithStats(mask, connectivity=8)
    best, best_a = -1, 0.06 * h * h
    for i in range(1, n):
        bx, by, bw, bh, a = (int(v) for v in st[i])
        # A pip is compact, starts near the glyph's foot and is not a card edge (tall and thin,
        # or running along the whole region).
        if a <= best_a or bh > 1.3 * h or bw > 1.3 * h or bh < 0.25 * h or bw < 0.25 * h:
            continue
        if by + y0 > y + 1.7 * h:
            continue
        best, best_a = i, a
    if best < 0:
        return None
    bx, by, bw, bh, _ = (int(v) for v in st[best])
    sel = (lab[by:by + bh, bx:bx + bw] == best).astype(np.float32) * roi[by:by + bh, bx:bx + bw]
    side = max(bw, bh)
    sq = np.zeros((side, side), np.float32)
    sq[(side - bh) // 2:(side - bh) // 2 + bh, (side - bw) // 2:(side - bw) // 2 + bw] = sel
    patch = cv2.resize(sq, (PIP_SIZE, PIP_SIZE), interpolation=cv2.INTER_AREA)
    return np.concatenate([patch.ravel(), np.array([bw / bh, bh / h], np.float32)]).astype(np.float32)


class PipModel:
    """The trained pip MLP (numpy weights in ``vision/models/pip_mlp.npz``)."""

    def __init__(self, path: Path = PIP_MODEL_PATH) -> None:
        with np.load(path) as z:
            self.mean, self.std = z["mean"].astype(np.float32), z["std"].astype(np.float32)
            self.w1, self.b1 = flush_denormals(z["w1"]), flush_denormals(z["b1"])
            self.w2, self.b2 = flush_denormals(z["w2"]), flush_denormals(z["b2"])
            self.temperature = float(z["temperature"])

    def probs(self, x: np.ndarray) -> np.ndarray:
        """(n, 4) probabilities of spade, club, heart, diamond."""
        z = ((x - self.mean) / self.std).astype(np.float32)
        hdn = np.maximum(z @ self.w1 + self.b1, 0.0)
        lo = (hdn @ self.w2 + self.b2).astype(np.float64) / self.temperature
        lo -= lo.max(axis=1, keepdims=True)
        e = np.exp(lo)
        return e / e.sum(axis=1, keepdims=True)


_pip_model: PipModel | None = None


def get_pip_model() -> PipModel | None:
    """The shipped pip model, or None when the file is absent (the index classifier then decides alone)."""
    global _pip_model
    if _pip_model is None and PIP_MODEL_PATH.exists():
        _pip_model = PipModel()
    return _pip_model
