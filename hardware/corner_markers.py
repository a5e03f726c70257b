"""The four table-corner ArUco markers: drawing a board of them, and finding them in a frame.

Apart from :mod:`hardware.camera` (the frame sources) because the markers are the table's, not
a camera's: :mod:`hardware.sources` paints a board of them as the synthetic camera's default
picture, and :mod:`hardware.selftest` looks for them in a frame to tell that the camera sees the
whole table. Neither is a frame source's business.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

import cv2
import numpy as np

#: The four table-corner markers: ArUco DICT_4X4_50, ids 0–3.
CORNER_MARKER_IDS: tuple[int, ...] = (0, 1, 2, 3)


def marker_board(width: int = 1280, height: int = 960, *, marker_px: int | None = None,
                 ids: Iterable[int] = CORNER_MARKER_IDS) -> np.ndarray:
    """A plain table top with the four corner ArUco markers (DICT_4X4_50, ids 0–3 clockwise from
    top-left), for the synthetic camera and the self-test when vision's renderer is not wired in."""
    frame = np.full((height, width, 3), (40, 110, 40), np.uint8)  # green felt
    side = marker_px or max(40, min(width, height) // 8)
    pad = max(6, side // 10)  # white quiet zone around the black border
    inset = pad + max(16, side // 3)  # detectors distrust markers hugging the image edge
    dictionary = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
    spots = [(inset, inset), (width - side - inset, inset), (width - side - inset, height - side - inset),
             (inset, height - side - inset)]
    for mid, (x, y) in zip(ids, spots, strict=False):
        img = cv2.aruco.generateImageMarker(dictionary, mid, side)
        frame[y - pad:y + side + pad, x - pad:x + side + pad] = 255
        frame[y:y + side, x:x + side] = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR)
    return frame


def find_corner_markers(frame: np.ndarray,
                        detect: Callable[[np.ndarray], Mapping[int, Any]] | None = None) -> dict[int, np.ndarray]:
    """ArUco markers of DICT_4X4_50 in ``frame``: ``{id: 4x2 corner array}``.

    ``detect`` is the detector of the layer above when it has one (the table service passes
    vision's calibration detector, so the self-test checks exactly what calibration will see);
    without it, OpenCV's ``ArucoDetector`` directly. Hardware does not import vision.
    """
    if detect is not None:
        found = detect(frame)
        return {int(k): np.asarray(v, np.float32).reshape(-1, 2) for k, v in dict(found).items()}
    gray = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50),
                                       cv2.aruco.DetectorParameters())
    corners, ids, _rejected = detector.detectMarkers(gray)
    if ids is None:
        return {}
    return {int(i): c.reshape(-1, 2) for i, c in zip(ids.flatten(), corners, strict=True)}
