"""Table geometry in millimetres: markers, seats and their play zones.

Table coordinates: origin at the table corner the camera sees top-left, x to the right,
y downwards (as in the image).  South sits at the bottom edge, north at the top, east at the
right, west at the left; play goes E → N → W → S, counter-clockwise seen from above.

A zone has its own upright coordinates (u to the right, v towards the seat) as its seat sees
it: a row laid left to right by that player reads left to right in the zone image.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from firmware_bridge.firmware.wire import SEATS as WIRE_SEATS
from vision.files import read_small_text

#: The seats, in the order the rest of the project lists them. Vision may not import
#: table_service (whose ``rules.seats.SEATS`` the table service uses), so it takes them, as hardware
#: does, from the lowest package, the screen controller's wire format (a string there, for
#: MicroPython): one spelling of the seats below the table service.
SEATS: tuple[str, ...] = tuple(WIRE_SEATS)

#: (u direction, v direction) in table coordinates for each seat's upright view.
_AXES: dict[str, tuple[tuple[float, float], tuple[float, float]]] = {
    "S": ((1.0, 0.0), (0.0, 1.0)),
    "N": ((-1.0, 0.0), (0.0, -1.0)),
    "E": ((0.0, -1.0), (1.0, 0.0)),
    "W": ((0.0, 1.0), (-1.0, 0.0)),
}


@dataclass(frozen=True)
class Zone:
    """One seat's play zone: a rectangle centred at ``centre_mm``, ``size_mm`` = (along row, depth)."""

    seat: str
    centre_mm: tuple[float, float]
    size_mm: tuple[float, float]

    def __post_init__(self) -> None:
        if self.seat not in _AXES:
            raise ValueError(f"未知座位：{self.seat!r}（E S W N） / unknown seat: {self.seat!r} (E S W N)")
        if self.size_mm[0] <= 0 or self.size_mm[1] <= 0:
            raise ValueError(f"区域尺寸无效：{self.size_mm} / bad zone size: {self.size_mm}")

    def zone_to_table_affine(self) -> np.ndarray:
        """2x3 affine: zone mm (u, v) -> table mm."""
        (ux, uy), (vx, vy) = _AXES[self.seat]
        w, h = self.size_mm
        ox = self.centre_mm[0] - ux * w / 2 - vx * h / 2
        oy = self.centre_mm[1] - uy * w / 2 - vy * h / 2
        return np.array([[ux, vx, ox], [uy, vy, oy]], np.float64)

    def to_table(self, pts_zone_mm: np.ndarray) -> np.ndarray:
        m = self.zone_to_table_affine()
        return np.asarray(pts_zone_mm, np.float64) @ m[:, :2].T + m[:, 2]

    def corners_table_mm(self) -> np.ndarray:
        """Zone corners in table mm, in zone order (top-left, top-right, bottom-right, bottom-left)."""
        w, h = self.size_mm
        return self.to_table(np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64))

    def contains(self, pts_table_mm: np.ndarray, margin_mm: float = 0.0) -> np.ndarray:
        m = self.zone_to_table_affine()
        inv = np.linalg.inv(np.vstack([m, [0, 0, 1]]))[:2]
        p = np.asarray(pts_table_mm, np.float64) @ inv[:, :2].T + inv[:, 2]
        w, h = self.size_mm
        return ((p[:, 0] >= -margin_mm) & (p[:, 0] <= w + margin_mm)
                & (p[:, 1] >= -margin_mm) & (p[:, 1] <= h + margin_mm))


@dataclass(frozen=True)
class TableLayout:
    """Where the markers and zones are on a given table (the ``vision`` part of table config)."""

    table_mm: tuple[float, float] = (900.0, 900.0)
    marker_mm: float = 60.0
    marker_inset_mm: float = 15.0
    zones: dict[str, Zone] = field(default_factory=dict)

    def marker_corners_mm(self) -> dict[int, np.ndarray]:
        """ArUco ids 0–3 clockwise from top-left; corners in ArUco order (TL, TR, BR, BL)."""
        tw, th = self.table_mm
        s, i = self.marker_mm, self.marker_inset_mm
        origins = {0: (i, i), 1: (tw - i - s, i), 2: (tw - i - s, th - i - s), 3: (i, th - i - s)}
        return {k: np.array([[x, y], [x + s, y], [x + s, y + s], [x, y + s]], np.float64)
                for k, (x, y) in origins.items()}

    def to_json(self) -> dict:
        return {"table_mm": list(self.table_mm), "marker_mm": self.marker_mm, "marker_inset_mm": self.marker_inset_mm,
                "zones": {s: {"centre_mm": list(z.centre_mm), "size_mm": list(z.size_mm)} for s, z in self.zones.items()}}

    @classmethod
    def from_json(cls, data: dict) -> TableLayout:
        """Build from config; a typo gives a clear error instead of a wrong table."""
        if not isinstance(data, dict) or not isinstance(data.get("zones", {}), dict):
            raise ValueError("桌面布局须为 JSON 对象，zones 为对象 / the table layout must be a JSON object "
                             "whose 'zones' is an object")
        unknown = sorted(set(data) - {"table_mm", "marker_mm", "marker_inset_mm", "zones"})
        bad_seats = sorted(set(data.get("zones", {})) - set(SEATS))
        if unknown or bad_seats:
            raise ValueError(f"桌面布局有未知项 {unknown} 或未知座位 {bad_seats}"
                             f"（项：table_mm, marker_mm, marker_inset_mm, zones；座位：{', '.join(SEATS)}） / "
                             f"the table layout has unknown keys {unknown} or seats {bad_seats} "
                             f"(keys: table_mm, marker_mm, marker_inset_mm, zones; seats: {', '.join(SEATS)})")
        try:
            zones = {s: Zone(s, tuple(map(float, z["centre_mm"])), tuple(map(float, z["size_mm"])))
                     for s, z in data.get("zones", {}).items()}
            return cls(tuple(map(float, data.get("table_mm", (900, 900)))), float(data.get("marker_mm", 60.0)),
                       float(data.get("marker_inset_mm", 15.0)), zones or default_layout().zones)
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"桌面布局配置错误（{exc}） / bad table layout config: {exc}") from exc

    @classmethod
    def load(cls, path: str | Path) -> TableLayout:
        text = read_small_text(path)  # a folder, /dev/zero or a FIFO: a clear error, not a hang
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as exc:
            raise ValueError(f"桌面布局文件 {path} 不是 JSON（{str(exc)[:120]}） / "
                             f"the table layout {path} is not JSON: {str(exc)[:120]}") from None
        try:
            return cls.from_json(data)
        except ValueError as exc:
            raise ValueError(f"{path}: {exc}") from None


def default_layout(table_mm: float = 900.0, zone_mm: tuple[float, float] = (320.0, 150.0),
                   zone_offset_mm: float = 240.0) -> TableLayout:
    """A square table with one zone per seat, ``zone_offset_mm`` from the centre towards the seat."""
    c = table_mm / 2
    centres = {"S": (c, c + zone_offset_mm), "N": (c, c - zone_offset_mm),
               "E": (c + zone_offset_mm, c), "W": (c - zone_offset_mm, c)}
    return TableLayout((table_mm, table_mm), zones={s: Zone(s, centres[s], zone_mm) for s in SEATS})
