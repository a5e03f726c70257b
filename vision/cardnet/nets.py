"""The shipped networks, loaded once and run by ONNX Runtime where it is installed, else by OpenCV's
``dnn`` module (no training framework at run time).

Why ONNX Runtime first: on one core here it runs the reader's networks in about half of OpenCV's time
(12 crops 4.5 against 8.4 ms, the detector 6.0 against 9.2 ms; outputs equal within 1.1e-5;
docs/performance.md), and a 10-card zone's read is mostly these networks.  Why OpenCV still: it is
already a dependency and runs the same files where ONNX Runtime has no wheel (32-bit Raspberry Pi OS).
A table reads one zone at a time, so one thread is what the live path gets on either.
"""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path
from typing import Any

import cv2
import numpy as np

MODELS = Path(__file__).resolve().parent.parent / "models"
DETECTOR_PATH = MODELS / "cardnet_detector.onnx"
EMBED_PATH = MODELS / "cardnet_embed.onnx"
HEAD_PATH = MODELS / "cardnet_head.npz"
CORNER_PATH = MODELS / "cardnet_corner.npz"
BODY_PATH = MODELS / "cardnet_body.onnx"
INDEX_SUIT_PATH = MODELS / "cardnet_index_suit.onnx"

#: What runs a network: ONNX Runtime where it imports, else OpenCV (``"auto"``); or OpenCV alone.
RUNTIMES = ("auto", "opencv")


def fast_runtime_installed() -> bool:
    """Whether ONNX Runtime is installed: found, not imported (``config check`` says so in a blink)."""
    return importlib.util.find_spec("onnxruntime") is not None


#: What ``config check`` says where it is not (a 32-bit system: no wheel).
SLOW_RUNTIME_WARNING = ("未安装 ONNX Runtime：识牌网络由 OpenCV 运行，每手读牌约慢 1.5 倍（32 位系统没有它的安装包，请用 64 位"
                        "树莓派系统并重新运行 scripts/install.sh） / ONNX Runtime is not installed: OpenCV runs the card "
                        "reader's networks, about 1.5× slower a play (a 32-bit system has no package of it: use the "
                        "64-bit Raspberry Pi OS and run scripts/install.sh again)")


def _ort_session(path: Path) -> Any | None:
    """ONNX Runtime's session for ``path`` on the calling thread alone, or None where it is not installed."""
    try:
        import onnxruntime as ort  # lazy: not installed where it has no wheel (32-bit ARM): OpenCV runs the nets
    except ImportError:
        return None
    so = ort.SessionOptions()
    so.intra_op_num_threads = 1  # the live path's one core (read.one_blas_thread holds BLAS to one as well)
    so.inter_op_num_threads = 1
    so.log_severity_level = 3  # errors only: its notes on graph rewrites are no operator's business
    # No memory plan kept per input shape: zones and far-corner cuts come in ever new sizes over a day,
    # and the plans piled up (4,500 sizes: 93 -> 95 MiB and growing; without them flat at 88 MiB, the
    # same CPU; docs/performance.md).
    so.enable_mem_pattern = False
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


class Runner:
    """One network behind a lock (``cv2.dnn.Net`` is not safe to run from two threads at once), loaded on
    first use by ONNX Runtime (``runtime="auto"``, where installed) or by OpenCV's ``engine``.

    ``outputs``: the names of the network's outputs, the one a call gives first (empty: it has one).
    Why named: OpenCV's classic engine gives a file's outputs in its own order, not the file's."""

    def __init__(self, path: Path, engine: int, runtime: str = "auto", outputs: tuple[str, ...] = ()) -> None:
        if runtime not in RUNTIMES:
            raise ValueError(f"未知的运行方式 {runtime!r}，可用：{'、'.join(RUNTIMES)} / "
                             f"unknown runtime {runtime!r}, one of {', '.join(RUNTIMES)}")
        self.path = path
        self.engine = engine
        self.runtime = runtime
        self.outputs = outputs
        self.lock = threading.Lock()
        self._run: Any = None
        #: What runs it once loaded: "onnxruntime" or "opencv".
        self.ran_by: str | None = None

    def _load(self) -> None:
        if not self.path.exists():
            raise FileNotFoundError(f"找不到识牌模型：{self.path}（请重新安装软件包） / "
                                    f"card-reader model missing: {self.path} (reinstall the package)")
        session = _ort_session(self.path) if self.runtime == "auto" else None
        if session is not None:
            name = session.get_inputs()[0].name
            outputs = list(self.outputs) or None
            self._run = lambda x, first: session.run(outputs[:1] if first and outputs else outputs, {name: x})
            self.ran_by = "onnxruntime"
            return
        # Both OpenCV engines run on the CPU by default (OpenCV 5 warns if a target is set).
        net = cv2.dnn.readNetFromONNX(str(self.path), engine=self.engine)

        def run(x: np.ndarray, first: bool) -> list[np.ndarray]:
            net.setInput(x)  # every output, even for the first alone: the default engine runs no fewer
            return list(net.forward(list(self.outputs))) if self.outputs else [net.forward()]

        self._run = run
        self.ran_by = "opencv"

    def _outputs(self, x: np.ndarray, first: bool) -> list[np.ndarray]:
        with self.lock:
            if self._run is None:
                self._load()
            return [np.array(o, np.float32) for o in self._run(x, first)]

    def __call__(self, x: np.ndarray) -> np.ndarray:
        """The network's (first) output for the batch ``x``."""
        return self._outputs(x, True)[0]

    def all_outputs(self, x: np.ndarray) -> list[np.ndarray]:
        """Every output named in :attr:`outputs`, in that order, from one run over ``x``."""
        return self._outputs(x, False)


#: Where ONNX Runtime is not installed, each network on the OpenCV engine that runs it faster, measured
#: one thread, one core here (OpenCV 5.0; outputs equal within 5e-6; docs/performance.md): the detector
#: on the default (graph) engine, 7.4 against 9.8 ms for a 10-card zone; the crop network on the classic
#: one, 0.64 against 1.0-1.6 ms a crop.
detector = Runner(DETECTOR_PATH, cv2.dnn.ENGINE_AUTO)
embedder = Runner(EMBED_PATH, cv2.dnn.ENGINE_CLASSIC)
#: The body strip's suit network (:mod:`vision.cardnet.body`), its temperature inside: the classic engine too.
#: Its second output is its last convolution's map, before the mean over the strip: what an enrolled deck's
#: own suit head reads (:mod:`vision.cardnet.deck_body`).
body = Runner(BODY_PATH, cv2.dnn.ENGINE_CLASSIC, outputs=("y", "m"))
#: The index's suit at a finer scale (:mod:`vision.cardnet.index_suit`), its temperature inside.
index_suit = Runner(INDEX_SUIT_PATH, cv2.dnn.ENGINE_CLASSIC)
