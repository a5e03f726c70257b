"""A camera frame still in its MJPEG bytes (:class:`MjpegFrame`), and a frame decoded whatever its form.

Apart from :mod:`hardware.camera` (the frame sources) because this is a frame, not a source: the
USB camera hands these out, and the layers above (the table service's camera pipeline, vision's
watcher, the benchmarks) take them as they come, decoding only as far as they use them. Nothing
here opens a device or keeps state beyond the one frame.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np


def jpeg_size(data: np.ndarray | bytes) -> tuple[int, int] | None:
    """(width, height) from a JPEG's frame header, without decoding it (None: not a JPEG)."""
    buf = bytes(data[:65536]) if isinstance(data, np.ndarray) else data[:65536]
    if buf[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 < len(buf):
        if buf[i] != 0xFF:
            i += 1
            continue
        marker = buf[i + 1]
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7 or marker == 0xFF:
            i += 1 if marker == 0xFF else 2
            continue
        length = int.from_bytes(buf[i + 2:i + 4], "big")
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):  # a start-of-frame
            return int.from_bytes(buf[i + 7:i + 9], "big"), int.from_bytes(buf[i + 5:i + 7], "big")
        i += 2 + length
    return None


_REDUCED = ((8, cv2.IMREAD_REDUCED_GRAYSCALE_8, cv2.IMREAD_REDUCED_COLOR_8),
            (4, cv2.IMREAD_REDUCED_GRAYSCALE_4, cv2.IMREAD_REDUCED_COLOR_4),
            (2, cv2.IMREAD_REDUCED_GRAYSCALE_2, cv2.IMREAD_REDUCED_COLOR_2),
            (1, cv2.IMREAD_GRAYSCALE, cv2.IMREAD_COLOR))


class MjpegFrame:
    """A camera frame still in its MJPEG bytes, decoded only as far as it is used.

    Why: the table's reading scale needs the full sensor (4K over a 900 mm table: ~2.1 px/mm,
    the shipped 1080p gives 1.07, too few), but decoding every 4K frame costs more than a Pi core
    at 15 fps. Settling needs only a small grey picture, which a JPEG gives at 1/2, 1/4 or 1/8
    scale for a fraction of the cost (the DCT is scaled, not the pixels); the full colour frame
    is decoded only for the frames a zone is read from (issue #21: "settle on the low-res
    stream, read the settled zone at full resolution").
    """

    __slots__ = ("data", "_full", "_size")

    def __init__(self, data: np.ndarray | bytes) -> None:
        self.data = np.frombuffer(data, np.uint8) if isinstance(data, bytes | bytearray) else np.ravel(data)
        self._full: np.ndarray | None = None
        self._size = jpeg_size(self.data)

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) of the full frame."""
        if self._size is None:
            self._size = (self.full().shape[1], self.full().shape[0])
        return self._size

    def full(self) -> np.ndarray:
        """The full-resolution BGR frame (decoded once)."""
        if self._full is None:
            img = cv2.imdecode(self.data, cv2.IMREAD_COLOR)
            if img is None:
                raise ValueError("摄像头画面无法解码 / camera frame is not a decodable JPEG")
            self._full = img
        return self._full

    def _reduced(self, max_width: int, colour: bool) -> np.ndarray:
        # The coarsest decode still ≥ 3/4 of the width asked for, used as it comes: a 4K frame
        # asked for 1280 gives 960 (1/4 scale). Resizing 1920 to 1280 cost as much as decoding
        # (an area filter at 1.5x is the slow path); the settle stream needs ~1 px/mm, not 1280 px.
        w = self.size[0]
        factor, grey_flag, colour_flag = next(r for r in _REDUCED if r[0] == 1 or w // r[0] >= 0.75 * max_width)
        if factor == 1:
            img = self.full() if colour else cv2.cvtColor(self.full(), cv2.COLOR_BGR2GRAY)
        else:
            img = cv2.imdecode(self.data, colour_flag if colour else grey_flag)
            if img is None:
                raise ValueError("摄像头画面无法解码 / camera frame is not a decodable JPEG")
        if img.shape[1] > 1.5 * max_width:  # only when no coarser decode came near (a small frame)
            img = cv2.resize(img, (max_width, int(round(img.shape[0] * max_width / img.shape[1]))),
                             interpolation=cv2.INTER_AREA)
        return img

    def grey(self, max_width: int) -> np.ndarray:
        """The frame in grey, about ``max_width`` wide (3/4 to 3/2 of it: the settle stream)."""
        return self._reduced(max_width, False)

    def colour(self, max_width: int) -> np.ndarray:
        """The frame in colour, about ``max_width`` wide (exposed cards at 0.5 px/mm)."""
        return self._reduced(max_width, True)


def full_frame(frame: Any) -> np.ndarray:
    """A frame as a BGR array, whether it came decoded, as an :class:`MjpegFrame` or as a
    two-speed frame (``hardware.backends.picamera2_camera.TwoSpeedFrame``)."""
    full = getattr(frame, "full", None)
    return full() if callable(full) else frame
