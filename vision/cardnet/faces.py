"""A lone card's whole face, cut from the zone it was played in: what a table enrols its deck from as it plays.

Why: a card played alone (a single, a tribute, a return) lies whole in its zone, so the table sees
that deck's face as an enrolment photograph shows it, only smaller.  Zones rendered from the faces
seen teach the learning head the deck itself, not only the crops the referee answered
(:class:`vision.cardnet.online.PlayLearner`).  Nothing here decides what the card is: the caller
names it (a sure reading or the referee's answer).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.paper import CARD_MM2, card_mask

#: A whole card's paper, in mm²: the card's (:data:`vision.paper.CARD_MM2`) give or take the blur of a
#: zone's edge; less is a card partly covered or cut by the zone's edge, more is two cards or a hand.
FACE_AREA_MM2 = (0.86 * CARD_MM2[0], 1.12 * CARD_MM2[1])
#: The detected corner must lie this near a corner of the paper's box (mm): else the paper is not
#: the card the reader read (a hand holding it, a glare joined to it).
CORNER_FIT_MM = 6.0


def lone_face(zone_bgr: np.ndarray, px_per_mm: float, corner_px: tuple[float, float]) -> np.ndarray | None:
    """The upright face of the one card lying in ``zone_bgr`` whose top-left corner the detector put
    at ``corner_px``, at the zone's own scale; None when the paper there is not one whole card."""
    mask, _, _ = card_mask(zone_bgr, px_per_mm)
    contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    if not contours:
        return None
    hull = cv2.convexHull(max(contours, key=cv2.contourArea))
    if not FACE_AREA_MM2[0] <= cv2.contourArea(hull) / px_per_mm ** 2 <= FACE_AREA_MM2[1]:
        return None
    box = cv2.boxPoints(cv2.minAreaRect(hull))
    h, w = zone_bgr.shape[:2]
    if box[:, 0].min() < 1 or box[:, 1].min() < 1 or box[:, 0].max() > w - 2 or box[:, 1].max() > h - 2:
        return None  # cut by the zone's edge
    near = np.hypot(box[:, 0] - corner_px[0], box[:, 1] - corner_px[1])
    i = int(near.argmin())
    if near[i] > CORNER_FIT_MM * px_per_mm:
        return None
    # The box's corner at the card's top-left; of its two neighbours the nearer is along the top.
    tl, a, b = box[i], box[(i + 1) % 4], box[(i - 1) % 4]
    top, side = (a, b) if np.hypot(*(a - tl)) < np.hypot(*(b - tl)) else (b, a)
    fw, fh = int(round(np.hypot(*(top - tl)))), int(round(np.hypot(*(side - tl))))
    if fw < 8 or fh < 8:
        return None
    m = cv2.getAffineTransform(np.float32([tl, top, side]), np.float32([[0, 0], [fw, 0], [0, fh]]))
    return cv2.warpAffine(zone_bgr, m, (fw, fh), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
