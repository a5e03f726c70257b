"""Which frame source ``[camera]`` asks for: the one place that chooses among the camera backends.

Above :mod:`hardware.camera` (the OpenCV sources) and :mod:`hardware.backends` (picamera2), so
neither needs to know of the other.
"""

from __future__ import annotations

from typing import Any

from hardware.backends.picamera2_camera import Picamera2Source
from hardware.camera import (
    CaptureDeviceSource,
    FrameSource,
    ImageFolderSource,
    StatusCallback,
    SyntheticSource,
    VideoFileSource,
    load_renderer,
)
from hardware.corner_markers import marker_board
from hardware.errors import CameraError


def open_source(camera: Any, *, on_status: StatusCallback | None = None) -> FrameSource | None:
    """Build the frame source ``[camera]`` of ``table.toml`` describes (``None`` for ``none``)."""
    src = camera.source
    if src == "none":
        return None
    if src == "device" and getattr(camera, "backend", "opencv") == "picamera2":
        return Picamera2Source(camera.camera_num, size=(camera.width, camera.height) if camera.size_given else None,
                               lores=camera.lores, fps=camera.fps, reconnect_s=camera.reconnect_s,
                               on_status=on_status)
    if src == "device":
        return CaptureDeviceSource(camera.device, width=camera.width, height=camera.height, fps=camera.fps,
                                   exposure=camera.exposure, fourcc=camera.fourcc, reconnect_s=camera.reconnect_s,
                                   on_status=on_status)
    if src == "file":
        return VideoFileSource(camera.path, loop=camera.loop, realtime=camera.realtime, on_status=on_status)
    if src == "folder":
        return ImageFolderSource(camera.path, fps=camera.fps, loop=camera.loop, realtime=camera.realtime,
                                 on_status=on_status)
    if src == "synthetic":
        if camera.renderer:
            render = load_renderer(camera.renderer, camera.width, camera.height)
        else:
            board = marker_board(camera.width, camera.height)
            render = lambda _i, _t: board  # noqa: E731 - a still table
        return SyntheticSource(render, fps=camera.fps, realtime=camera.realtime, on_status=on_status)
    raise CameraError(f"unknown camera source {src!r}")
