"""Camera geometry: lens undistortion (ChArUco, one-off) and the table homography (ArUco, per frame).

* The **lens** is calibrated once per camera with a ChArUco board (``guandan-table vision
  calibrate``) and saved as JSON; frames are undistorted with it before anything else.
* The **table** carries four ArUco markers (``DICT_4X4_50``, ids 0–3, clockwise from the
  corner the camera sees top-left).  Their 16 corners give the homography from table
  millimetres to frame pixels; two markers (8 points) are enough, so a hand covering one
  corner does not stop the table.
* Each seat's zone is then warped from the frame so that it is upright for that seat, at the
  requested pixels per millimetre: the input of :func:`vision.read_play`.

OpenCV >= 4.7 object API (``cv2.aruco.ArucoDetector``, ``CharucoDetector``); tested with the
pinned opencv-python-headless 5.0.0.93.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from .files import read_small_text
from .geometry import TableLayout, Zone

TABLE_DICT = cv2.aruco.DICT_4X4_50
TABLE_MARKER_IDS = (0, 1, 2, 3)
#: The lens board uses another dictionary so its markers are never mistaken for table corners.
BOARD_DICT = cv2.aruco.DICT_5X5_100


def _check_frame(frame: object) -> np.ndarray:
    if not isinstance(frame, np.ndarray) or frame.size == 0:
        raise ValueError("帧为空或无效 / frame is empty or not an image")
    if frame.ndim == 3 and frame.shape[2] in (3, 4):
        return frame[:, :, :3] if frame.shape[2] == 4 else frame
    if frame.ndim == 2:
        return frame
    raise ValueError(f"帧形状无效：{frame.shape} / bad frame shape {frame.shape}")


def _gray(frame: np.ndarray) -> np.ndarray:
    frame = _check_frame(frame)
    return frame if frame.ndim == 2 else cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY)


_detectors: dict[int, cv2.aruco.ArucoDetector] = {}


def detect_markers(frame: np.ndarray, dictionary: int = TABLE_DICT) -> dict[int, np.ndarray]:
    """ArUco markers in ``frame``: id -> 4x2 corner pixels (TL, TR, BR, BL of the marker)."""
    det = _detectors.get(dictionary)
    if det is None:
        params = cv2.aruco.DetectorParameters()
        params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        det = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(dictionary), params)
        _detectors[dictionary] = det
    gray = _gray(frame)
    # A margin of the frame's median grey around it: without one, OpenCV's detector missed
    # markers whose quiet zone came within ~40 px of the frame's edge although they were whole
    # and sharp (the demo camera found 1 of its 3 visible corner markers on 7 of 17 renders, so
    # it never calibrated). A camera framed tight on the table puts its markers exactly there.
    pad = MARKER_PAD_PX
    padded = cv2.copyMakeBorder(gray, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=int(np.median(gray[::8, ::8])))
    corners, ids, _ = det.detectMarkers(padded)
    out: dict[int, np.ndarray] = {}
    if ids is not None:
        for c, i in zip(corners, ids.ravel(), strict=True):
            out[int(i)] = c.reshape(4, 2).astype(np.float64) - pad
    return out


#: Grey margin (px) added around a frame before marker detection (``detect_markers`` says why).
MARKER_PAD_PX = 40


# --------------------------------------------------------------------------- lens


def write_whole(path: Path, data: bytes) -> None:
    """``data`` at ``path`` so that a kill or a power cut leaves the old file or the new, never a torn one:
    a temporary file in the same folder, ``fsync``, ``os.replace``, ``fsync`` of the folder. (The table
    service's ``store.durable.write_durably`` does the same; ``vision`` is below it and cannot import it.)
    A temporary an earlier kill left (``.<name>.*.tmp``) is removed."""
    for stale in path.parent.glob(f".{path.name}.*.tmp"):
        with contextlib.suppress(OSError):
            stale.unlink()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)


@dataclass
class LensCalibration:
    """Intrinsics and distortion of one camera (from a ChArUco board)."""

    camera_matrix: np.ndarray
    dist_coeffs: np.ndarray
    image_size: tuple[int, int]  # (width, height)
    rms_px: float = 0.0
    _maps: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = field(default_factory=dict, repr=False)

    def to_json(self) -> dict:
        return {"camera_matrix": self.camera_matrix.tolist(), "dist_coeffs": self.dist_coeffs.ravel().tolist(),
                "image_size": list(self.image_size), "rms_px": self.rms_px}

    def save(self, path: str | Path) -> None:
        """Write the calibration whole or leave the one there (:func:`write_whole`): a torn file makes the
        table refuse to start ("bad lens calibration file")."""
        write_whole(Path(path), json.dumps(self.to_json(), indent=2).encode("utf-8"))

    @classmethod
    def load(cls, path: str | Path) -> LensCalibration:
        try:
            text = read_small_text(path)  # a folder, /dev/zero or a FIFO: its own clear error
        except FileNotFoundError as exc:
            raise ValueError(f"找不到镜头标定文件：{path} / lens calibration file not found: {path}") from exc
        try:
            d = json.loads(text)
            k = np.array(d["camera_matrix"], np.float64).reshape(3, 3)
            dist = np.array(d["dist_coeffs"], np.float64).ravel()
            size = (int(d["image_size"][0]), int(d["image_size"][1]))
        except (KeyError, TypeError, ValueError, RecursionError) as exc:  # a JSONDecodeError is a ValueError
            raise ValueError(f"镜头标定文件 {path} 损坏（{exc}） / "
                             f"bad lens calibration file {path}: {exc}") from exc
        return cls(k, dist, size, float(d.get("rms_px", 0.0)))

    def _scaled_k(self, size: tuple[int, int]) -> np.ndarray:
        sx, sy = size[0] / self.image_size[0], size[1] / self.image_size[1]
        return np.diag([sx, sy, 1.0]) @ self.camera_matrix

    def distort_points(self, pts_px: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """Where undistorted pixels ``pts_px`` (N x 2, of a frame of ``size``) lie in the raw frame.

        The inverse of :meth:`undistort`, point-wise: what a per-zone map needs to sample the raw
        frame directly instead of undistorting all of it first.
        """
        k = self._scaled_k(size)
        p = np.asarray(pts_px, np.float64).reshape(-1, 2)
        norm = np.linalg.solve(k, np.vstack([p.T, np.ones(len(p))])).T  # rays of the pinhole camera
        out, _ = cv2.projectPoints(norm.reshape(-1, 1, 3), np.zeros(3), np.zeros(3), k, self.dist_coeffs)
        return out.reshape(-1, 2)

    def undistort(self, frame: np.ndarray) -> np.ndarray:
        """The frame as a pinhole camera would see it (any resolution of the same camera)."""
        h, w = frame.shape[:2]
        maps = self._maps.get((w, h))
        if maps is None:
            k = self._scaled_k((w, h))
            maps = cv2.initUndistortRectifyMap(k, self.dist_coeffs, None, k, (w, h), cv2.CV_16SC2)
            self._maps[(w, h)] = maps
        return cv2.remap(frame, maps[0], maps[1], cv2.INTER_LINEAR)


def charuco_board(squares: tuple[int, int] = (7, 5), square_mm: float = 30.0, marker_mm: float = 22.0) -> cv2.aruco.CharucoBoard:
    return cv2.aruco.CharucoBoard(squares, square_mm, marker_mm, cv2.aruco.getPredefinedDictionary(BOARD_DICT))


def calibrate_lens(images: Iterable[np.ndarray], board: cv2.aruco.CharucoBoard | None = None,
                   min_views: int = 4) -> LensCalibration:
    """Calibrate intrinsics from photos of a ChArUco board in varied poses."""
    board = board or charuco_board()
    det = cv2.aruco.CharucoDetector(board)
    obj_pts, img_pts = [], []
    size = None
    for img in images:
        g = _gray(img)
        if size is None:
            size = (g.shape[1], g.shape[0])
        elif size != (g.shape[1], g.shape[0]):
            raise ValueError("标定照片尺寸不一致 / calibration photos differ in size")
        ch_corners, ch_ids, _, _ = det.detectBoard(g)
        if ch_ids is None or len(ch_ids) < 6:
            continue
        o, p = board.matchImagePoints(ch_corners, ch_ids)
        if o is None or len(o) < 6:
            continue
        obj_pts.append(o.astype(np.float32))
        img_pts.append(p.astype(np.float32))
    if size is None:
        raise ValueError("没有标定照片 / no calibration photos given")
    if len(obj_pts) < min_views:
        raise ValueError(f"可用的标定板照片不足：只有 {len(obj_pts)} 张拍到 ChArUco 标定板（需 {min_views} 张以上） / "
                         f"only {len(obj_pts)} photos show the ChArUco board "
                         f"(need {min_views}+)")
    rms, k, dist, _, _ = cv2.calibrateCamera(obj_pts, img_pts, size, None, None)
    return LensCalibration(k, dist.ravel(), size, float(rms))


# --------------------------------------------------------------------------- table


@dataclass
class TableCalibration:
    """Homography from table millimetres to (undistorted) frame pixels at ``frame_size``."""

    H: np.ndarray
    frame_size: tuple[int, int]
    markers_seen: tuple[int, ...]
    error_mm: float

    @property
    def H_inv(self) -> np.ndarray:
        return np.linalg.inv(self.H)

    def scaled(self, size: tuple[int, int]) -> TableCalibration:
        """The same calibration for another resolution of the same stream (e.g. the low-res one)."""
        s = np.diag([size[0] / self.frame_size[0], size[1] / self.frame_size[1], 1.0])
        return TableCalibration(s @ self.H, size, self.markers_seen, self.error_mm)

    def to_frame(self, pts_mm: np.ndarray) -> np.ndarray:
        p = np.asarray(pts_mm, np.float64).reshape(-1, 2)
        return cv2.perspectiveTransform(p[None], self.H)[0]

    def to_table(self, pts_px: np.ndarray) -> np.ndarray:
        p = np.asarray(pts_px, np.float64).reshape(-1, 2)
        return cv2.perspectiveTransform(p[None], self.H_inv)[0]

    def zone_matrix(self, zone: Zone, px_per_mm: float) -> np.ndarray:
        """3x3 map from frame pixels to the zone image (upright for its seat) at ``px_per_mm``."""
        a = np.vstack([zone.zone_to_table_affine(), [0, 0, 1]])
        s = np.diag([px_per_mm, px_per_mm, 1.0])
        return s @ np.linalg.inv(a) @ self.H_inv

    def warp_zone(self, frame: np.ndarray, zone: Zone, px_per_mm: float = 3.0) -> np.ndarray:
        frame = _check_frame(frame)
        w, h = int(round(zone.size_mm[0] * px_per_mm)), int(round(zone.size_mm[1] * px_per_mm))
        m = self.zone_matrix(zone, px_per_mm)
        if frame.shape[1] != self.frame_size[0] or frame.shape[0] != self.frame_size[1]:
            m = m @ np.diag([self.frame_size[0] / frame.shape[1], self.frame_size[1] / frame.shape[0], 1.0])
        return cv2.warpPerspective(frame, m, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def zone_maps(self, zone: Zone, px_per_mm: float, frame_size: tuple[int, int],
                  lens: LensCalibration | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``cv2.remap`` maps that cut ``zone`` at ``px_per_mm`` straight out of a *raw* frame of
        ``frame_size``: zone pixel -> table mm -> undistorted pixel (this homography) -> raw pixel
        (the lens), folded into one lookup, computed once.

        Why: undistorting every full frame cost 71-78 ms at 4K (issue #21), more than a core at
        15 fps, for the ~10 % of the frame that is ever read. One remap of the zone's pixels
        costs what the zone's size does (see docs/performance.md).
        """
        w, h = int(round(zone.size_mm[0] * px_per_mm)), int(round(zone.size_mm[1] * px_per_mm))
        m = self.zone_matrix(zone, px_per_mm)
        if tuple(frame_size) != tuple(self.frame_size):
            m = m @ np.diag([self.frame_size[0] / frame_size[0], self.frame_size[1] / frame_size[1], 1.0])
        return _maps_for(np.linalg.inv(m), (w, h), frame_size, lens)

    def table_maps(self, layout: TableLayout, px_per_mm: float, frame_size: tuple[int, int],
                   lens: LensCalibration | None = None) -> tuple[np.ndarray, np.ndarray]:
        """As :meth:`zone_maps`, for the whole table top-down (exposed cards, enrolment)."""
        m = np.diag([px_per_mm, px_per_mm, 1.0]) @ self.H_inv
        if tuple(frame_size) != tuple(self.frame_size):
            m = m @ np.diag([self.frame_size[0] / frame_size[0], self.frame_size[1] / frame_size[1], 1.0])
        size = (int(round(layout.table_mm[0] * px_per_mm)), int(round(layout.table_mm[1] * px_per_mm)))
        return _maps_for(np.linalg.inv(m), size, frame_size, lens)

    def warp_table(self, frame: np.ndarray, layout: TableLayout, px_per_mm: float) -> np.ndarray:
        """The whole table top-down at ``px_per_mm`` (table mm origin at the top-left)."""
        frame = _check_frame(frame)
        m = np.diag([px_per_mm, px_per_mm, 1.0]) @ self.H_inv
        if frame.shape[1] != self.frame_size[0] or frame.shape[0] != self.frame_size[1]:
            m = m @ np.diag([self.frame_size[0] / frame.shape[1], self.frame_size[1] / frame.shape[0], 1.0])
        size = (int(round(layout.table_mm[0] * px_per_mm)), int(round(layout.table_mm[1] * px_per_mm)))
        return cv2.warpPerspective(frame, m, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)

    def px_per_mm_at(self, pt_mm: tuple[float, float]) -> float:
        """Frame pixels per table millimetre around ``pt_mm`` (how sharp a zone can be read)."""
        p = self.to_frame(np.array([pt_mm, (pt_mm[0] + 10, pt_mm[1]), (pt_mm[0], pt_mm[1] + 10)]))
        (ax, ay), (bx, by) = p[1] - p[0], p[2] - p[0]
        return float(math.sqrt(abs(ax * by - ay * bx)) / 10.0)


def _maps_for(out_to_frame: np.ndarray, out_size: tuple[int, int], frame_size: tuple[int, int],
              lens: LensCalibration | None) -> tuple[np.ndarray, np.ndarray]:
    """Fixed-point remap maps: output pixel -> (undistorted) frame pixel via ``out_to_frame``, then
    through the lens to the raw frame. CV_16SC2 maps remap about twice as fast as float ones."""
    w, h = out_size
    xs, ys = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    pts = np.stack([xs.ravel(), ys.ravel()], axis=1)
    frame_pts = cv2.perspectiveTransform(pts[None], out_to_frame)[0]
    if lens is not None:
        frame_pts = lens.distort_points(frame_pts, frame_size)
    fx = frame_pts[:, 0].reshape(h, w).astype(np.float32)
    fy = frame_pts[:, 1].reshape(h, w).astype(np.float32)
    return cv2.convertMaps(fx, fy, cv2.CV_16SC2)


def remap(frame: np.ndarray, maps: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """Apply :meth:`TableCalibration.zone_maps` / ``table_maps`` to a raw frame."""
    return cv2.remap(_check_frame(frame), maps[0], maps[1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def calibrate_table(frame: np.ndarray, layout: TableLayout, lens: LensCalibration | None = None,
                    min_markers: int = 2) -> TableCalibration:
    """Find the corner markers in ``frame`` (already undistorted if a lens is used) and fit the homography."""
    frame = _check_frame(frame)
    del lens  # frames are undistorted by the caller (the watcher) before this point
    found = detect_markers(frame)
    known = layout.marker_corners_mm()
    ids = [i for i in TABLE_MARKER_IDS if i in found]
    if len(ids) < min_markers:
        raise ValueError(f"找不到桌角标记：0–3 号中只见到 {sorted(found)}，至少需 {min_markers} 个 / "
                         f"table corner markers not found: saw {sorted(found)} of ids 0–3, "
                         f"need at least {min_markers}")
    src = np.vstack([known[i] for i in ids]).astype(np.float64)
    dst = np.vstack([found[i] for i in ids]).astype(np.float64)
    H, _ = cv2.findHomography(src, dst, 0)
    if H is None:
        raise ValueError("标记位置不一致 / marker positions are inconsistent, cannot fit the table")
    back = cv2.perspectiveTransform(dst[None], np.linalg.inv(H))[0]
    err = float(np.sqrt(((back - src) ** 2).sum(axis=1)).max())
    if err > 15.0:
        raise ValueError(f"标记位置相差 {err:.1f} 毫米（标记被移动或布局文件不对？） / markers disagree by {err:.1f} mm "
                         "(moved marker or wrong layout?)")
    return TableCalibration(H, (frame.shape[1], frame.shape[0]), tuple(ids), err)
