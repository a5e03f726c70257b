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
BODY_PATH = MODELS / "cardnet_body.onnx"
INDEX_SUIT_PATH = MODELS / "cardnet_index_suit.onnx"

_lock = threading.Lock()
_nets: dict[str, cv2.dnn.Net] = {}


def _load(path: Path, engine: int) -> cv2.dnn.Net:
    if not path.exists():
        raise FileNotFoundError(f"找不到识牌模型：{path}（请重新安装软件包） / "
                                f"card-reader model missing: {path} (reinstall the package)")
    # Both engines run on the CPU by default (OpenCV 5 warns if a target is set).
    return cv2.dnn.readNetFromONNX(str(path), engine=engine)


class Runner:
    """One network behind a lock: ``cv2.dnn.Net`` is not safe to run from two threads at once."""

    def __init__(self, path: Path, engine: int) -> None:
        self.path = path
        self.engine = engine
        self.lock = threading.Lock()
        self.net: cv2.dnn.Net | None = None

    def __call__(self, x: np.ndarray) -> np.ndarray:
        with self.lock:
            if self.net is None:
                self.net = _load(self.path, self.engine)
            self.net.setInput(x)
            return np.array(self.net.forward(), np.float32)


#: Each network on the engine that runs it faster, measured one thread, one core here (OpenCV 5.0;
#: outputs equal within 5e-6; docs/performance.md): the detector on the default (graph) engine, 7.4
#: against 9.8 ms for a 10-card zone; the crop network on the classic one, 0.64 against 1.0-1.6 ms a crop.
detector = Runner(DETECTOR_PATH, cv2.dnn.ENGINE_AUTO)
embedder = Runner(EMBED_PATH, cv2.dnn.ENGINE_CLASSIC)
#: The body strip's suit network (:mod:`vision.cardnet.body`), its temperature inside: the classic engine too.
body = Runner(BODY_PATH, cv2.dnn.ENGINE_CLASSIC)
#: The index's suit at a finer scale (:mod:`vision.cardnet.index_suit`), its temperature inside.
index_suit = Runner(INDEX_SUIT_PATH, cv2.dnn.ENGINE_CLASSIC)
