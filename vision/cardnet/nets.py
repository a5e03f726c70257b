"""The shipped networks, loaded once and run by OpenCV's ``dnn`` module (no training framework at run time).

Why OpenCV: it is already a dependency, runs ONNX on a Raspberry Pi's ARM cores, and a table
reads one zone at a time, so one thread is what the live path gets.
"""

from __future__ import annotations

import threading
from pathlib import Path

import cv2
import numpy as np

MODELS = Path(__file__).resolve().parent.parent / "models"
DETECTOR_PATH = MODELS / "cardnet_detector.onnx"
EMBED_PATH = MODELS / "cardnet_embed.onnx"
HEAD_PATH = MODELS / "cardnet_head.npz"
CORNER_PATH = MODELS / "cardnet_corner.npz"

_lock = threading.Lock()
_nets: dict[str, cv2.dnn.Net] = {}


def _load(path: Path) -> cv2.dnn.Net:
    if not path.exists():
        raise FileNotFoundError(f"找不到识牌模型 / card-reader model missing: {path} (reinstall the package)")
    # OpenCV 5's graph engine runs on the CPU by default (it warns if a target is set).
    return cv2.dnn.readNetFromONNX(str(path))


class _Runner:
    """One network behind a lock: ``cv2.dnn.Net`` is not safe to run from two threads at once."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.net: cv2.dnn.Net | None = None

    def __call__(self, x: np.ndarray) -> np.ndarray:
        with self.lock:
            if self.net is None:
                self.net = _load(self.path)
            self.net.setInput(x)
            return np.array(self.net.forward(), np.float32)


detector = _Runner(DETECTOR_PATH)
embedder = _Runner(EMBED_PATH)
