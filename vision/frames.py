"""Whether a camera frame can be read at all: its pixel type, that it holds a picture, that it is
the view the table was calibrated on.

Why (a camera audit, 2026-12-06): the watcher took every 3-channel frame as a picture of the table.
An over-exposed frame (all white) read as paper everywhere, and the engine logged exposed cards
against three players; a covered lens (all black) or a 1 × 1 frame read as every zone obstructed; a
buffer cut short (800 rows of 1,296) was cut with the calibration's map and read as cards lying
outside the zones. None of them is a picture of the table. Each is refused here with why, as a
corrupt frame is (a ``ValueError``): the camera pipeline counts a run of them as the camera offline,
with the reason, and the referee enters plays meanwhile.
"""

from __future__ import annotations

import cv2
import numpy as np

#: A frame whose grey levels (the 0.1th to the 99.9th percentile of its low-resolution grey) span less
#: than this shows nothing. The table's corner markers are black squares on white paper, a span of well
#: over a hundred levels under any light they can be found in; the percentiles are that far out because
#: the markers may be a small part of the view (four 60 mm markers seen 2 m wide: 0.6 % of the frame),
#: while a covered lens or a blown-out frame is one level give or take its noise everywhere (a few
#: levels); bare felt, its texture, noise and the lens's fall-off, spans more than this.
MIN_SPAN = 12
#: The share of pixels at each end the span leaves out (a few hot or dead pixels).
TAIL = 0.001
#: A frame whose width over height differs from the calibration's by more than this share is another
#: view (a buffer cut short, another sensor mode), not the same view at another size.
ASPECT_TOLERANCE = 0.02


def check_pixels(frame: np.ndarray) -> None:
    """Refuse a frame that is not 8-bit: OpenCV's own error named the C++ source line instead.

    :raises ValueError: Chinese, then English, naming the type.
    """
    if frame.dtype != np.uint8:
        raise ValueError(f"摄像头画面格式错误：{frame.dtype}，不是 8 位 BGR / camera frame is {frame.dtype}, not 8-bit BGR")


def check_picture(grey: np.ndarray) -> None:
    """Refuse a frame with nothing in it: all black, all white, one colour, or a few pixels.

    :raises ValueError: Chinese, then English.
    """
    if grey.size < 64:
        raise ValueError(f"摄像头画面过小（{grey.size} 像素） / camera frame of {grey.size} pixels")
    # The percentiles from the histogram: 0.5 ms a 1280 × 720 frame, where np.percentile took 15
    # (every frame at 15 fps: a fifth of a core on this machine, more on a Pi).
    counts = np.cumsum(cv2.calcHist([np.ascontiguousarray(grey, np.uint8)], [0], None, [256], [0, 256]).ravel())
    lo, hi = (int(np.searchsorted(counts, q * counts[-1])) for q in (TAIL, 1.0 - TAIL))
    if hi - lo < MIN_SPAN:
        what = "全黑" if hi < 32 else "全白" if lo > 224 else "单色"
        raise ValueError(f"画面无内容（{what}，灰度 {lo:.0f}–{hi:.0f}）：镜头被遮、灯灭或过曝？ / "
                         f"the frame shows nothing (grey levels {lo:.0f}–{hi:.0f}): "
                         "lens covered, lights off or over-exposed?")


def check_view(size: tuple[int, int], calibrated: tuple[int, int]) -> None:
    """Refuse a frame whose shape is not the calibrated view's (the same view at another size is fine).

    :raises ValueError: Chinese, then English, with both sizes.
    """
    w, h = size
    cw, ch = calibrated
    if w <= 0 or h <= 0 or abs((w / h) / (cw / ch) - 1.0) > ASPECT_TOLERANCE:
        raise ValueError(f"画面尺寸 {w}×{h} 与校准的 {cw}×{ch} 不符：摄像头模式变了就重新校准 / "
                         f"the frame is {w}×{h}, the calibrated view {cw}×{ch}: "
                         "recalibrate if the camera's mode changed")
