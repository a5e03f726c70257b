"""Settle detection for one play zone on the low-resolution stream.

A play is read once, after the player has put it down and taken the hand away:

* **motion**: a fraction of the zone's pixels changed since the previous low-res frame;
* **hand/object over the zone**: something crosses the zone's border band (an arm must
  cross the zone edge to reach in; cards at rest lie inside), judged against the last
  settled picture of the zone, so a still hand resting across the edge still counts;
* **settled**: no motion and no hand for ``settle_s``, and the zone looks materially
  different from the last settled picture -> one read.

Colour-free on purpose (felt colours, skin tones and lighting vary); it runs on ~1 px/mm
grey zone images, a few hundred microseconds per zone.
"""

from __future__ import annotations

from dataclasses import dataclass

import cv2
import numpy as np


@dataclass(frozen=True)
class SettleConfig:
    settle_s: float = 0.8
    hand_timeout_s: float = 10.0
    #: grey-level step that counts as a change (0–255) and fractions of the zone that count.
    pixel_threshold: int = 22
    motion_fraction: float = 0.004
    border_fraction: float = 0.02
    change_fraction: float = 0.01
    border_mm: float = 10.0


@dataclass
class SettleEvent:
    """``kind``: "settled" (read now), "hand_too_long" (report), "activity" (something moved)."""

    kind: str
    t: float
    still_since: float = 0.0
    seconds: float = 0.0


class ZoneSettler:
    """State machine for one zone; feed it the zone's low-res grey image every frame."""

    def __init__(self, config: SettleConfig | None = None, px_per_mm: float = 1.0) -> None:
        self.cfg = config or SettleConfig()
        self.ppm = px_per_mm
        self.prev: np.ndarray | None = None
        self.reference: np.ndarray | None = None
        self.last_activity = -1e9
        self.pending = False
        self.hand_since: float | None = None
        self.hand_reported = False
        self.hand = False
        self.moving = False
        self._band: np.ndarray | None = None

    def _border(self, shape: tuple[int, int]) -> np.ndarray:
        if self._band is None or self._band.shape != shape:
            b = max(int(self.cfg.border_mm * self.ppm), 2)
            band = np.zeros(shape, bool)
            band[:b, :] = band[-b:, :] = True
            band[:, :b] = band[:, -b:] = True
            self._band = band
        return self._band

    def reset_reference(self, zone: np.ndarray) -> None:
        self.reference = zone.copy()

    def update(self, zone: np.ndarray, t: float) -> list[SettleEvent]:
        """Advance with the zone's grey image at time ``t`` (seconds); returns what happened."""
        cfg = self.cfg
        events: list[SettleEvent] = []
        zone = cv2.GaussianBlur(zone, (3, 3), 0)
        if self.prev is None or self.prev.shape != zone.shape:
            self.prev = zone
            self.reference = zone.copy()
            self.last_activity = t
            return events
        thr = cfg.pixel_threshold
        moved = cv2.absdiff(zone, self.prev) > thr
        self.prev = zone
        self.moving = float(np.count_nonzero(moved)) > cfg.motion_fraction * moved.size
        changed = cv2.absdiff(zone, self.reference) > thr
        band = self._border(zone.shape)
        self.hand = float(np.count_nonzero(changed & band)) > cfg.border_fraction * np.count_nonzero(band)
        if self.moving or self.hand:
            if not self.pending:
                events.append(SettleEvent("activity", t))
            self.last_activity = t
            self.pending = True
        if self.hand:
            if self.hand_since is None:
                self.hand_since = t
            elif not self.hand_reported and t - self.hand_since >= cfg.hand_timeout_s:
                self.hand_reported = True
                events.append(SettleEvent("hand_too_long", t, seconds=t - self.hand_since))
        else:
            self.hand_since = None
            self.hand_reported = False
        if self.pending and not self.moving and not self.hand and t - self.last_activity >= cfg.settle_s:
            self.pending = False
            if float(np.count_nonzero(changed)) > cfg.change_fraction * changed.size:
                events.append(SettleEvent("settled", t, still_since=self.last_activity))
            self.reference = zone.copy()
        return events
