"""How many pixels per table millimetre the camera gives over the play zones, before and after fitting.

Why: the card reader needs about 2.5 px/mm on the zones to read designs it was not trained on
(docs/performance.md), and a camera mounted too high or with too wide a lens is found out at a
venue only when reads go wrong. ``config check`` works it out from where the camera is
(``[camera] mount_height_mm`` and ``lens``/``hfov_deg``, or the lens calibration's focal length
and distortion); the self-test measures it from the table's corner markers in a real frame.

The camera is taken to hang over the table centre looking straight down (the mounting the guide
asks for); with a lens calibration each zone's corners are projected through its distortion, so a
wide lens's squeezed edges count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from hardware.config_model import LENSES
from hardware.selftest import PlacementMeter, PlacementReading
from table_service.rules.seats import seat_zh
from vision.calibration import LensCalibration, calibrate_table
from vision.cardnet.nets import SLOW_RUNTIME_WARNING, fast_runtime_installed
from vision.geometry import TableLayout, default_layout

#: Below this the reader misses cards of an unseen design (issue #27: warn under 2.5 px/mm).
MIN_PX_PER_MM = 2.5


@dataclass(frozen=True)
class Placement:
    """What a mounting gives: px/mm per seat's zone (the worst point of it) and the field of view."""

    zone_px_per_mm: dict[str, float]
    view_mm: tuple[float, float]
    how: str

    @property
    def worst(self) -> float:
        return min(self.zone_px_per_mm.values()) if self.zone_px_per_mm else float("nan")


def focal_px(width_px: int, hfov_deg: float) -> float:
    """Focal length in pixels of a lens whose horizontal field of view is ``hfov_deg`` over ``width_px``."""
    return (width_px / 2.0) / math.tan(math.radians(hfov_deg) / 2.0)


def height_for(px_per_mm: float, width_px: int, hfov_deg: float) -> float:
    """Mount height (lens above the table top, mm) that gives ``px_per_mm`` at the centre."""
    return focal_px(width_px, hfov_deg) / px_per_mm


def from_mount(layout: Any, frame_size: tuple[int, int], mount_height_mm: float, *, hfov_deg: float | None = None,
               lens: Any = None) -> Placement:
    """px/mm over ``layout``'s zones for a camera ``mount_height_mm`` above the table centre.

    ``lens``: a ``vision.calibration.LensCalibration`` (its camera matrix and distortion, scaled
    to ``frame_size``); else a distortion-free lens of ``hfov_deg``.
    """
    w, h = frame_size
    if lens is not None:
        k = lens._scaled_k((w, h))
        dist = np.asarray(lens.dist_coeffs, np.float64).ravel()
        how = "镜头标定 / lens calibration"
    elif hfov_deg is not None:
        f = focal_px(w, hfov_deg)
        k = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]], np.float64)
        dist = np.zeros(5)
        how = f"视角 {hfov_deg:g}° / field of view {hfov_deg:g}°"
    else:
        raise ValueError("需要镜头 / need a lens: [camera] lens, hfov_deg or [vision] calibration")
    tw, th = layout.table_mm
    centre = np.array([tw / 2, th / 2])

    def project(pts_mm: np.ndarray) -> np.ndarray:
        obj = np.column_stack([pts_mm - centre, np.full(len(pts_mm), float(mount_height_mm))])
        px, _ = cv2.projectPoints(obj.astype(np.float64), np.zeros(3), np.zeros(3), k, dist)
        return px.reshape(-1, 2)

    out: dict[str, float] = {}
    for seat, zone in layout.zones.items():
        corners = zone.corners_table_mm()
        pts = np.vstack([corners, corners.mean(axis=0, keepdims=True)])
        worst = math.inf
        for p in pts:  # the local scale, 1 mm steps along both table axes
            a = project(np.array([p, p + (1.0, 0.0), p + (0.0, 1.0)]))
            worst = min(worst, float(np.linalg.norm(a[1] - a[0])), float(np.linalg.norm(a[2] - a[0])))
        out[seat] = worst
    fx, fy = k[0, 0], k[1, 1]
    view = (w / fx * mount_height_mm, h / fy * mount_height_mm)
    return Placement(out, view, how)


def from_calibration(calibration: Any, layout: Any) -> Placement:
    """px/mm over the zones measured by a table calibration (markers fitted in a real frame)."""
    out: dict[str, float] = {}
    for seat, zone in layout.zones.items():
        corners = zone.corners_table_mm()
        pts = [tuple(p) for p in np.vstack([corners, corners.mean(axis=0, keepdims=True)])]
        out[seat] = min(calibration.px_per_mm_at(p) for p in pts)
    w, h = calibration.frame_size
    c = calibration.px_per_mm_at((layout.table_mm[0] / 2, layout.table_mm[1] / 2))
    return Placement(out, (w / c, h / c), "桌角标记 / table markers")


def judge(placement: Placement, layout: Any) -> list[str]:
    """Warnings about a placement: too few px/mm to read by, or the table not all in view."""
    warnings: list[str] = []
    worst = placement.worst
    if worst < MIN_PX_PER_MM:
        seat = min(placement.zone_px_per_mm, key=placement.zone_px_per_mm.get)  # type: ignore[arg-type]
        warnings.append(f"出牌区像素密度 {worst:.2f} px/mm（{seat_zh(seat)}区）低于 {MIN_PX_PER_MM}：请把摄像头装低些、"
                        f"换视角更窄的镜头或更高的分辨率（见 deploy/README.md 摄像头高度） / play zones get "
                        f"{worst:.2f} px/mm ({seat} zone), under {MIN_PX_PER_MM}: mount the camera lower, use a "
                        f"narrower lens or a higher resolution (docs: deploy/README.md, camera height)")
    tw, th = layout.table_mm
    vw, vh = placement.view_mm
    if vw < tw or vh < th:
        warnings.append(f"视野 {vw:.0f}×{vh:.0f} mm 装不下 {tw:.0f}×{th:.0f} mm 的桌面与四角标记：请把摄像头装高些"
                        f"或换广角镜头 / the view "
                        f"({vw:.0f}×{vh:.0f} mm) does not hold the {tw:.0f}×{th:.0f} mm table and its corner "
                        "markers: mount the camera higher or use a wider lens")
    return warnings


def describe(placement: Placement) -> str:
    zones = "  ".join(f"{s}={v:.2f}" for s, v in placement.zone_px_per_mm.items())
    return (f"出牌区像素密度（{placement.how.split(' / ')[0]}）：{zones}；"
            f"视野 {placement.view_mm[0]:.0f}×{placement.view_mm[1]:.0f} 毫米 / "
            f"px/mm on the play zones ({placement.how}): {zones}; "
            f"视野 / view {placement.view_mm[0]:.0f}×{placement.view_mm[1]:.0f} mm")


def meter(layout: Any = None, lens: Any = None) -> PlacementMeter:
    """The self-test's px/mm measurement for ``[vision]``'s layout and lens (hardware knows neither)."""
    table = layout or default_layout()

    def measure(frame: Any) -> PlacementReading:
        img = lens.undistort(frame) if lens is not None else frame
        placement = from_calibration(calibrate_table(img, table), table)
        verdict = (f"< {MIN_PX_PER_MM}: 读牌不可靠 / too few to read reliably"
                   if placement.worst < MIN_PX_PER_MM else None)
        return PlacementReading(placement.worst, describe(placement),
                                [w for w in judge(placement, table) if "px/mm" in w], verdict)

    return measure


def config_report(config: Any) -> tuple[list[str], list[str]]:
    """``config check``'s lines and warnings about the camera's placement, for a service config
    (``table_service.table.config.ServiceConfig``: ``[camera]`` and ``[vision]``)."""
    cam = config.hardware.camera
    if cam.source != "device":
        return [], []
    vision = config.vision or {}
    base = config.path.parent if getattr(config, "path", None) else None

    def where(value: str) -> str:
        from pathlib import Path

        p = Path(value)
        return str(p if p.is_absolute() or base is None else base / p)

    layout = TableLayout.load(where(vision["layout"])) if vision.get("layout") else default_layout()
    lens = LensCalibration.load(where(vision["calibration"])) if vision.get("calibration") else None
    hfov = cam.hfov_deg
    width, height = cam.width, cam.height
    if cam.lens is not None:
        lens_hfov, full = LENSES[cam.lens]
        hfov = hfov or lens_hfov
        if cam.backend == "picamera2" and not cam.size_given:  # the sensor's largest mode is used
            width, height = full
    if cam.mount_height_mm is None or (lens is None and hfov is None):
        # A warning, not a note: a camera whose px/mm nobody worked out is how a venue ends up with
        # 1920x1080 over the table (1.07 px/mm) and a reader that misses half the cards of a deck.
        return [], [f"出牌区像素密度未知：读牌需至少 {MIN_PX_PER_MM} px/mm，请给出 [camera] mount_height_mm 与 lens"
                    "（或 hfov_deg），或运行 selftest 实测 / px/mm on the play zones unknown: the card reader needs "
                    f"at least {MIN_PX_PER_MM} px/mm; give [camera] mount_height_mm and lens (or hfov_deg), or run "
                    "selftest to measure it (deploy/README.md, camera height)", *runtime_warnings()]
    placement = from_mount(layout, (width, height), cam.mount_height_mm, hfov_deg=hfov, lens=lens)
    return [describe(placement)], judge(placement, layout) + runtime_warnings()


def runtime_warnings() -> list[str]:
    """What ``config check`` says of the card reader's runtime for a table with a camera: nothing where ONNX
    Runtime is installed; where it is not, that reads take ~1.5× as long (vision.cardnet.nets)."""
    return [] if fast_runtime_installed() else [SLOW_RUNTIME_WARNING]
