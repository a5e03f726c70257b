"""What the vision tests share: the render-seed shift and two ways to make faces.

Why one module: the seed shift is how every bound is checked on other renders
(``VISION_SEED_SHIFT=1 pytest tests/vision``), so it must be read the same way by each test.
"""

from __future__ import annotations

import os

import cv2
import numpy as np

from vision.artwork import load_deck
from vision.cards import ALL_CARDS, CARD_INDEX

#: Added to every render seed of the vision tests: their bounds must hold on any renders.
SHIFT = int(os.environ.get("VISION_SEED_SHIFT", "0"))


def half_size_faces(design: str) -> dict[str, np.ndarray]:
    """The 54 faces of ``design`` at half their sheet's size, as a photographed deck is enrolled."""
    deck = load_deck(design)
    return {c: cv2.resize(deck.bgr(c), None, fx=0.5, fy=0.5, interpolation=cv2.INTER_AREA) for c in ALL_CARDS}


def face_probs(floor: float = 1e-4, **p: float) -> np.ndarray:
    """A row of the 54 faces' probabilities: ``p`` where named (``Jc=0.7``, ``**{"7c": 0.6}``), ``floor`` elsewhere."""
    out = np.full(len(ALL_CARDS), floor)
    for card, v in p.items():
        out[CARD_INDEX[card]] = v
    return out
