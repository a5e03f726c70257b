"""Synthetic scenes rendered from the real gnome-cards-data artwork.

Two products:

* :func:`render_zone` — one seat's play zone, rectified and upright for that seat, the input
  of :func:`vision.read_play`, with the realism that breaks readers (overlap 12–25 mm,
  rotation ±6°, lighting gradients, glare, colour cast, blur, noise, JPEG, rectification
  error).  Tests, the training script and the benchmark use it.
* :func:`render_table` — the overhead camera frame of a whole table: ArUco markers at the
  corners, the four zones with whatever lies in them, hands reaching in, loose (exposed)
  cards, seen through a slightly tilted camera.  The demo's synthetic camera uses it.

Everything is drawn in table millimetres and only converted to pixels at the end, so the
ground truth (where each card and each index lies) is exact.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import cv2
import numpy as np

from .artwork import Deck, load_deck
from .cards import check_card
from .geometry import SEATS, TableLayout, default_layout

#: Zone size used by :func:`render_zone` (width along the row, depth towards the player).
ZONE_MM: tuple[float, float] = (320.0, 150.0)

#: Felt colours (BGR) of real tables: green, blue, teal, wine, brown.
FELTS: tuple[tuple[int, int, int], ...] = (
    (52, 110, 38), (120, 70, 30), (100, 100, 25), (45, 35, 115), (40, 75, 110), (70, 120, 60),
)
SKINS: tuple[tuple[int, int, int], ...] = ((150, 180, 225), (110, 140, 190), (80, 105, 150), (60, 80, 120))


@dataclass(frozen=True)
class Realism:
    """Ranges of the nuisances drawn per scene; :meth:`clean` switches them all off."""

    overlap_mm: tuple[float, float] = (12.0, 25.0)
    rotation_deg: float = 6.0
    jitter_mm: float = 2.5
    gradient: tuple[float, float] = (0.6, 1.12)
    glare_prob: float = 0.4
    glare_strength: tuple[float, float] = (20.0, 80.0)
    cast: float = 0.12
    blur_px: tuple[float, float] = (0.0, 1.0)
    noise_sigma: tuple[float, float] = (1.0, 5.0)
    jpeg_quality: tuple[int, int] = (55, 95)
    rectify_px: float = 4.0
    scale_error: float = 0.025
    shadow: float = 0.35

    @classmethod
    def clean(cls) -> Realism:
        """No nuisance at all except the geometry of a real row (still overlapped)."""
        return cls(rotation_deg=0.0, jitter_mm=0.0, gradient=(1.0, 1.0), glare_prob=0.0, cast=0.0,
                   blur_px=(0.0, 0.0), noise_sigma=(0.0, 0.0), jpeg_quality=(100, 100), rectify_px=0.0,
                   scale_error=0.0)


@dataclass
class Placement:
    """Where one card lies: ``matrix`` maps card-face millimetres to scene millimetres."""

    card: str
    matrix: np.ndarray  # 2x3 affine, face mm -> scene mm
    size_mm: tuple[float, float]

    def corners_mm(self) -> np.ndarray:
        w, h = self.size_mm
        pts = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float64)
        return pts @ self.matrix[:, :2].T + self.matrix[:, 2]

    def to_scene(self, pts_mm: np.ndarray) -> np.ndarray:
        return np.asarray(pts_mm, np.float64) @ self.matrix[:, :2].T + self.matrix[:, 2]


@dataclass
class ZoneRender:
    """A rendered zone image and its ground truth."""

    image: np.ndarray
    cards: list[str]
    placements: list[Placement]
    px_per_mm: float
    design: str
    #: 3x3 homography from ideal zone pixels to the delivered (mis-rectified) pixels.
    rectify: np.ndarray = field(default_factory=lambda: np.eye(3))

    def to_image(self, pts_mm: np.ndarray) -> np.ndarray:
        """Scene millimetres -> pixels of :attr:`image` (rectification error included)."""
        p = np.asarray(pts_mm, np.float64) * self.px_per_mm
        p = np.hstack([p, np.ones((len(p), 1))]) @ self.rectify.T
        return p[:, :2] / p[:, 2:3]


def _rng(seed: int | np.random.Generator | None) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _affine(angle_deg: float, tx: float, ty: float, cx: float, cy: float) -> np.ndarray:
    """Rotation by ``angle_deg`` about the face point (cx, cy), which lands on (tx, ty)."""
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    rot = np.array([[c, -s], [s, c]])
    t = np.array([tx, ty]) - rot @ np.array([cx, cy])
    return np.hstack([rot, t[:, None]])


def layout_row(cards: Sequence[str], deck: Deck, rng: np.random.Generator, realism: Realism,
               area_mm: tuple[float, float]) -> list[Placement]:
    """Lay ``cards`` left to right as a player does: one row, each card over the previous one."""
    for c in cards:
        check_card(c)
    n = len(cards)
    if n == 0:
        return []
    w, h = deck.size_mm
    lo, hi = realism.overlap_mm
    base = rng.uniform(lo, hi)
    steps = [float(np.clip(base + rng.normal(0, 1.5), lo, hi)) for _ in range(n - 1)]
    # Steps are measured between the cards' top-left corners, where the indices are: that is
    # what a player keeps visible when fanning a play.  Rotation turns each card about that corner.
    row_w = sum(steps) + w + 10.0
    free = max(area_mm[0] - row_w - 10.0, 0.0)
    x0 = 10.0 + rng.uniform(0, free)
    y0 = max((area_mm[1] - h) / 2 + rng.uniform(-8, 8), 6.0)
    row_angle = rng.uniform(-realism.rotation_deg, realism.rotation_deg) * 0.5
    out = []
    x = x0
    for i, card in enumerate(cards):
        ang = float(np.clip(row_angle + rng.normal(0, realism.rotation_deg / 3 + 1e-9),
                            -realism.rotation_deg, realism.rotation_deg)) if realism.rotation_deg else 0.0
        jy = rng.uniform(-realism.jitter_mm, realism.jitter_mm) if realism.jitter_mm else 0.0
        # The row itself may be slanted: corner height follows the row angle.
        ty = y0 + jy + math.tan(math.radians(row_angle)) * (x - x0)
        m = _affine(ang, x, ty, 0.0, 0.0)
        out.append(Placement(card, m, (w, h)))
        if i < n - 1:
            x += steps[i]
    return out


def _blend_layer(canvas: np.ndarray, layer: np.ndarray, alpha: np.ndarray) -> None:
    """canvas = layer*alpha + canvas*(1-alpha), in place; ``alpha`` float32 HxW in 0..1."""
    a = alpha[:, :, None]
    canvas[:] = layer * a + canvas * (1.0 - a)


def draw_cards(canvas: np.ndarray, deck: Deck, placements: Sequence[Placement], px_per_mm: float,
               offset_mm: tuple[float, float] = (0.0, 0.0), shadow: float = 0.35,
               to_canvas: np.ndarray | None = None) -> None:
    """Draw faces (in order, later on top) onto a float32 BGR ``canvas``.

    ``to_canvas`` (2x3, scene mm -> canvas px) overrides the plain scale + offset, so the
    table renderer can draw a seat's zone rotated.
    """
    hc, wc = canvas.shape[:2]
    if to_canvas is None:
        to_canvas = np.array([[px_per_mm, 0, -offset_mm[0] * px_per_mm],
                              [0, px_per_mm, -offset_mm[1] * px_per_mm]], np.float64)
    face_scale = 1.0 / deck_px_per_mm(deck)
    for p in placements:
        face = deck.faces[p.card]
        # face px -> face mm -> scene mm -> canvas px
        s = np.array([[face_scale, 0, 0], [0, face_scale, 0], [0, 0, 1]])
        m3 = np.vstack([p.matrix, [0, 0, 1]])
        c3 = np.vstack([to_canvas, [0, 0, 1]])
        full = (c3 @ m3 @ s)[:2]
        corners = np.array([[0, 0], [face.shape[1], 0], [face.shape[1], face.shape[0]], [0, face.shape[0]]],
                           np.float64) @ full[:, :2].T + full[:, 2]
        pad = 12 * px_per_mm / 3 + 4
        x0 = int(max(math.floor(corners[:, 0].min() - pad), 0))
        y0 = int(max(math.floor(corners[:, 1].min() - pad), 0))
        x1 = int(min(math.ceil(corners[:, 0].max() + pad), wc))
        y1 = int(min(math.ceil(corners[:, 1].max() + pad), hc))
        if x1 <= x0 or y1 <= y0:
            continue
        local = full.copy()
        local[:, 2] -= (x0, y0)
        size = (x1 - x0, y1 - y0)
        rgb = cv2.warpAffine(face[:, :, :3], local, size, flags=cv2.INTER_AREA if px_per_mm < 6 else cv2.INTER_LINEAR,
                             borderMode=cv2.BORDER_REPLICATE).astype(np.float32)
        alpha = cv2.warpAffine(face[:, :, 3], local, size, flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32) / 255.0
        roi = canvas[y0:y1, x0:x1]
        if shadow > 0:
            # Cards have thickness: a soft shadow falls on what lies below, offset away from the light.
            k = max(int(1.5 * px_per_mm) | 1, 3)
            sh = cv2.GaussianBlur(alpha, (k * 2 + 1, k * 2 + 1), 0)
            dx, dy = int(round(0.6 * px_per_mm)), int(round(0.9 * px_per_mm))
            sh = np.roll(np.roll(sh, dy, axis=0), dx, axis=1)
            roi *= (1.0 - shadow * sh)[:, :, None]
        _blend_layer(roi, rgb, alpha)


def deck_px_per_mm(deck: Deck) -> float:
    # Any face: all of a deck's faces share one size (an enrolled deck may lack the As).
    return next(iter(deck.faces.values())).shape[0] / deck.size_mm[1]


def felt(shape: tuple[int, int], rng: np.random.Generator, colour: tuple[int, int, int] | None = None) -> np.ndarray:
    """A felt table surface: a base colour with a fine fibre texture (float32 BGR)."""
    h, w = shape
    base = np.array(colour if colour is not None else FELTS[rng.integers(len(FELTS))], np.float32)
    base = base * rng.uniform(0.85, 1.15)
    tex = cv2.GaussianBlur(rng.normal(0, 1, (h, w)).astype(np.float32), (0, 0), 1.2) * 6.0
    return np.clip(base[None, None, :] + tex[:, :, None], 0, 255)


def draw_hand(canvas: np.ndarray, rng: np.random.Generator, tip: tuple[float, float], from_edge: tuple[float, float],
              px_per_mm: float, colour: tuple[int, int, int] | None = None) -> None:
    """A hand and forearm reaching from ``from_edge`` to ``tip`` (both in canvas px)."""
    col = np.array(colour if colour is not None else SKINS[rng.integers(len(SKINS))], np.float32)
    h_c, w_c = canvas.shape[:2]
    tx, ty = tip
    fx, fy = from_edge
    ang = math.atan2(ty - fy, tx - fx)
    reach = 110 * px_per_mm
    x0 = int(max(min(tx, fx) - reach, 0))
    y0 = int(max(min(ty, fy) - reach, 0))
    x1 = int(min(max(tx, fx) + reach, w_c))
    y1 = int(min(max(ty, fy) + reach, h_c))
    if x1 <= x0 or y1 <= y0:
        return
    mask = np.zeros((y1 - y0, x1 - x0), np.float32)
    tx, ty, fx, fy = tx - x0, ty - y0, fx - x0, fy - y0
    arm_w = int(70 * px_per_mm)
    cv2.line(mask, (int(fx), int(fy)), (int(tx - math.cos(ang) * 60 * px_per_mm), int(ty - math.sin(ang) * 60 * px_per_mm)),
             1.0, arm_w)
    palm_c = (int(tx - math.cos(ang) * 45 * px_per_mm), int(ty - math.sin(ang) * 45 * px_per_mm))
    cv2.ellipse(mask, palm_c, (int(50 * px_per_mm), int(42 * px_per_mm)), math.degrees(ang), 0, 360, 1.0, -1)
    for k in range(4):  # fingers
        off = (k - 1.5) * 18 * px_per_mm
        bx = palm_c[0] + -math.sin(ang) * off
        by = palm_c[1] + math.cos(ang) * off
        ln = (70 - abs(k - 1.5) * 10) * px_per_mm
        cv2.line(mask, (int(bx), int(by)), (int(bx + math.cos(ang) * ln), int(by + math.sin(ang) * ln)), 1.0,
                 int(15 * px_per_mm))
    mask = cv2.GaussianBlur(mask, (0, 0), max(px_per_mm, 0.8))
    small = rng.uniform(0.8, 1.05, (max(mask.shape[0] // 40, 2), max(mask.shape[1] // 40, 2))).astype(np.float32)
    shade = cv2.resize(small, (mask.shape[1], mask.shape[0]), interpolation=cv2.INTER_CUBIC)
    layer = col[None, None, :] * shade[:, :, None]
    _blend_layer(canvas[y0:y1, x0:x1], layer, mask)


def apply_lighting(img: np.ndarray, rng: np.random.Generator, realism: Realism) -> np.ndarray:
    """Lighting gradient, glare and colour cast on a float32 image (returns a new array)."""
    h, w = img.shape[:2]
    lo, hi = realism.gradient
    out = img
    if hi > lo:
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        a, b = rng.uniform(lo, hi, 2)
        c = rng.uniform(lo, hi)
        field_ = a + (b - a) * (xx / max(w - 1, 1)) + (c - (a + b) / 2) * (yy / max(h - 1, 1))
        out = out * field_[:, :, None]
    if realism.cast > 0:
        out = out * rng.uniform(1 - realism.cast, 1 + realism.cast, 3).astype(np.float32)[None, None, :]
    if realism.glare_prob > 0 and rng.random() < realism.glare_prob:
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        sx, sy = rng.uniform(0.05, 0.2) * w, rng.uniform(0.1, 0.4) * h
        yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
        g = np.exp(-(((xx - cx) / sx) ** 2 + ((yy - cy) / sy) ** 2) / 2)
        out = out + rng.uniform(*realism.glare_strength) * g[:, :, None]
    return out


def apply_sensor(img: np.ndarray, rng: np.random.Generator, realism: Realism) -> np.ndarray:
    """Blur, noise and JPEG; float32 (or uint8) in, uint8 BGR out."""
    out = img.astype(np.float32, copy=False)
    b = rng.uniform(*realism.blur_px)
    if b > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), b)
    n = rng.uniform(*realism.noise_sigma)
    if n > 0:
        noise = np.empty(out.shape, np.float32)
        cv2.setRNGSeed(int(rng.integers(1 << 30)))
        cv2.randn(noise, 0.0, float(n))
        out = cv2.add(out, noise)
    out = np.clip(out, 0, 255).astype(np.uint8)
    q = int(rng.integers(realism.jpeg_quality[0], realism.jpeg_quality[1] + 1))
    if q < 100:
        ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, q])
        out = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return out


def reprint(deck: Deck, rng: np.random.Generator) -> Deck:
    """The same design as another printer would print it: card stock colour, ink strength and
    print blur drawn at random (domain randomisation for training and the benchmark's variety).

    Why: the gnome-cards designs are all printed on white with crisp ink; a table's deck may be
    cream or grey stock, faded or heavy ink, soft print.  Geometry is untouched, so the index
    anchors of the original design still hold.  Stock: paper (near white) pixels are multiplied
    by a tint of 0.80-1.0 per channel; ink: pixels' darkness scaled by 0.75-1.15; print blur:
    Gaussian sigma 0-0.25 mm.
    """
    tint = rng.uniform(0.80, 1.0, 3).astype(np.float32)
    tint /= max(float(tint.max()), 1e-6) / float(rng.uniform(0.9, 1.0))
    ink = float(rng.uniform(0.75, 1.15))
    sigma = float(rng.uniform(0.0, 0.25)) * 6.0  # faces are stored at 6 px/mm
    faces = {}
    for card, face in deck.faces.items():
        bgr = face[:, :, :3].astype(np.float32)
        if sigma > 0.3:
            bgr = cv2.GaussianBlur(bgr, (0, 0), sigma)
        bgr = 255.0 - (255.0 - bgr) * ink
        bgr = bgr * tint[None, None, :]
        faces[card] = np.dstack([np.clip(bgr, 0, 255).astype(np.uint8), face[:, :, 3]])
    return Deck(deck.design, faces, deck.size_mm)


#: Share of a card's width and height from each index corner that :func:`rub_indices` rubs off
#: (an anglo index with its suit pip spans about 16 x 32 mm of a 57 x 88 mm card).
RUBBED_CORNER: tuple[float, float] = (0.28, 0.36)
#: Millimetres of a card's edge that :func:`rub_indices` leaves as printed (its outline).
RUBBED_INSET_MM = 1.2


def rub_indices(deck: Deck, cards: Sequence[str]) -> Deck:
    """The deck with the corner indices of ``cards`` rubbed off (an old deck, or a sticker over
    the corner): what no reader can name.

    Why: the tests need a card the camera must ask about whatever the reader's skill (a good
    reader names every clean card of a clean deck), and a damaged deck is a case to measure
    (``benchmarks/damaged_cards_bench.py``; docs/performance.md, "cards with their indices gone").  The top-left and bottom-right
    corners (the indices of every design here), inside the card's outline, are painted with the
    face's own paper colour, the brightest quarter of its pixels.
    """
    faces = dict(deck.faces)
    for card in cards:
        face = faces[check_card(card)].copy()
        h, w = face.shape[:2]
        bgr, alpha = face[:, :, :3], face[:, :, 3]
        inside = bgr[alpha == 255].reshape(-1, 3).astype(np.float32)
        light = inside.sum(axis=1)
        paper = np.median(inside[light >= np.percentile(light, 75)], axis=0).astype(np.uint8)
        cw, ch = int(round(w * RUBBED_CORNER[0])), int(round(h * RUBBED_CORNER[1]))
        m = int(round(RUBBED_INSET_MM * w / deck.size_mm[0]))  # the card's outline stays
        for ys, xs in ((slice(m, ch), slice(m, cw)), (slice(h - ch, h - m), slice(w - cw, w - m))):
            bgr[ys, xs][alpha[ys, xs] > 0] = paper
        faces[card] = face
    return Deck(deck.design, faces, deck.size_mm)


def render_zone(cards: Sequence[str], design: str | Deck = "anglo", px_per_mm: float = 3.0,
                seed: int | np.random.Generator | None = None, realism: Realism | None = None,
                zone_mm: tuple[float, float] = ZONE_MM, hand: bool = False,
                felt_colour: tuple[int, int, int] | None = None) -> ZoneRender:
    """Render one rectified play zone, upright for its seat, with ``cards`` left to right.

    ``design``: a gnome-cards-data design name, or a :class:`Deck` itself (a synthetic font deck
    or a design re-printed by :func:`reprint`, for training and the leave-one-design-out benchmark).
    """
    rng = _rng(seed)
    realism = realism or Realism()
    deck = design if isinstance(design, Deck) else load_deck(design)
    placements = layout_row(list(cards), deck, rng, realism, zone_mm)
    # Render at the final scale through the rectification error.
    w, h = int(round(zone_mm[0] * px_per_mm)), int(round(zone_mm[1] * px_per_mm))
    canvas = felt((h, w), rng, felt_colour)
    draw_cards(canvas, deck, placements, px_per_mm, shadow=realism.shadow)
    if hand:
        tip = (rng.uniform(0.25, 0.75) * w, rng.uniform(0.3, 0.6) * h)
        draw_hand(canvas, rng, tip, (tip[0] + rng.uniform(-60, 60) * px_per_mm, h + 200 * px_per_mm), px_per_mm)
    rect = np.eye(3)
    if realism.rectify_px > 0 or realism.scale_error > 0:
        src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
        s = 1 + rng.uniform(-realism.scale_error, realism.scale_error)
        ang = math.radians(rng.uniform(-1.0, 1.0))
        c, si = math.cos(ang), math.sin(ang)
        ctr = np.array([w / 2, h / 2])
        dst = np.array([ctr + s * np.array([c * (x - ctr[0]) - si * (y - ctr[1]), si * (x - ctr[0]) + c * (y - ctr[1])])
                        for x, y in src], np.float32)
        dst += rng.uniform(-realism.rectify_px, realism.rectify_px, dst.shape).astype(np.float32)
        rect = cv2.getPerspectiveTransform(src, dst.astype(np.float32))
        canvas = cv2.warpPerspective(canvas, rect, (w, h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT)
    canvas = apply_lighting(canvas, rng, realism)
    image = apply_sensor(canvas, rng, realism)
    return ZoneRender(image, list(cards), placements, px_per_mm, deck.design, rect)


# --------------------------------------------------------------------------- whole table


@dataclass(frozen=True)
class CameraView:
    """A synthetic overhead camera: frame size, how much of the table it sees, tilt."""

    size: tuple[int, int] = (4000, 3000)
    #: Pixels per table millimetre at the table centre.
    px_per_mm: float = 3.0
    #: Perspective: corner displacement in pixels (camera not exactly above the centre).
    tilt_px: float = 40.0
    rotation_deg: float = 1.5
    seed: int = 7

    def homography(self, layout: TableLayout) -> np.ndarray:
        """3x3 map from table millimetres to frame pixels."""
        rng = np.random.default_rng(self.seed)
        tw, th = layout.table_mm
        w, h = self.size
        ang = math.radians(self.rotation_deg)
        c, s = math.cos(ang), math.sin(ang)
        src = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], np.float32)
        ctr = np.array([tw / 2, th / 2])
        dst = []
        for x, y in src:
            d = np.array([x, y]) - ctr
            d = np.array([c * d[0] - s * d[1], s * d[0] + c * d[1]]) * self.px_per_mm
            dst.append(np.array([w / 2, h / 2]) + d)
        dst = np.array(dst, np.float32) + rng.uniform(-self.tilt_px, self.tilt_px, (4, 2)).astype(np.float32)
        return cv2.getPerspectiveTransform(src, dst)


@dataclass
class Hand:
    """A hand reaching from ``seat``'s edge; ``reach`` 0..1 is how far into its zone."""

    seat: str
    reach: float = 0.6
    across_mm: float = 0.0


@dataclass
class LooseCard:
    """A card lying face up outside the zones (an exposed card), in table mm."""

    card: str
    x_mm: float
    y_mm: float
    angle_deg: float = 0.0


@dataclass
class TableScene:
    """What lies on the table: plays per seat (left to right as that seat sees them), hands, loose cards."""

    plays: Mapping[str, Sequence[str]] = field(default_factory=dict)
    hands: Sequence[Hand] = ()
    loose: Sequence[LooseCard] = ()


class TableRenderer:
    """Renders overhead frames of one table; keeps each zone's card layout stable between frames.

    The demo calls :meth:`render` every frame; a play keeps its random layout until the cards in
    that zone change, so a still table gives still frames (the watcher then settles).
    ``worn``: cards of the deck whose indices are rubbed off (:func:`rub_indices`).
    """

    def __init__(self, layout: TableLayout | None = None, design: str = "anglo", camera: CameraView | None = None,
                 realism: Realism | None = None, seed: int = 0, render_px_per_mm: float | None = None,
                 worn: Sequence[str] = ()) -> None:
        self.layout = layout or default_layout()
        self.deck = rub_indices(load_deck(design), worn) if worn else load_deck(design)
        self.design = design
        self.camera = camera or CameraView()
        self.realism = realism or replace(Realism(), rectify_px=0.0, scale_error=0.0, glare_prob=0.0)
        self.rng = np.random.default_rng(seed)
        self.seed = seed
        self.ppm = render_px_per_mm or min(max(self.camera.px_per_mm * 1.25, 1.0), 4.0)
        self._layouts: dict[str, tuple[tuple[str, ...], list[Placement]]] = {}
        self._base: np.ndarray | None = None
        self._light: np.ndarray | None = None
        self.H = self.camera.homography(self.layout)

    def _table_base(self) -> np.ndarray:
        if self._base is None:
            tw, th = self.layout.table_mm
            w, h = int(round(tw * self.ppm)), int(round(th * self.ppm))
            rng = np.random.default_rng(self.seed + 1)
            base = felt((h, w), rng)
            for mid, corners in self.layout.marker_corners_mm().items():
                self._draw_marker(base, mid, corners)
            self._base = base
        return self._base

    def _draw_marker(self, canvas: np.ndarray, marker_id: int, corners_mm: np.ndarray) -> None:
        side = self.layout.marker_mm
        quiet = side * 0.25
        n = 240
        aruco = cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50)
        img = cv2.aruco.generateImageMarker(aruco, marker_id, n)
        pad = int(n * quiet / side)
        img = cv2.copyMakeBorder(img, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=255)
        img = cv2.cvtColor(img, cv2.COLOR_GRAY2BGR).astype(np.float32) * 0.93
        scale = (side + 2 * quiet) / img.shape[0] * self.ppm
        x0, y0 = corners_mm[0]
        m = np.array([[scale, 0, (x0 - quiet) * self.ppm], [0, scale, (y0 - quiet) * self.ppm]], np.float64)
        h, w = canvas.shape[:2]
        warped = cv2.warpAffine(img, m, (w, h), flags=cv2.INTER_AREA)
        alpha = cv2.warpAffine(np.ones(img.shape[:2], np.float32), m, (w, h), flags=cv2.INTER_LINEAR)
        _blend_layer(canvas, warped, alpha)

    def _placements(self, seat: str, cards: Sequence[str]) -> list[Placement]:
        key = tuple(cards)
        cached = self._layouts.get(seat)
        if cached is not None and cached[0] == key:
            return cached[1]
        zone = self.layout.zones[seat]
        pl = layout_row(list(cards), self.deck, self.rng, self.realism, zone.size_mm)
        self._layouts[seat] = (key, pl)
        return pl

    def table_image(self, scene: TableScene) -> np.ndarray:
        """Top-down image of the table in millimetres (at ``self.ppm``), float32 BGR."""
        canvas = self._table_base().copy()
        for seat in SEATS:
            cards = scene.plays.get(seat, ())
            if not cards:
                self._layouts.pop(seat, None)
                continue
            pl = self._placements(seat, cards)
            to_canvas = self.layout.zones[seat].zone_to_table_affine() * 1.0
            to_canvas = to_canvas * self.ppm
            draw_cards(canvas, self.deck, pl, self.ppm, shadow=self.realism.shadow, to_canvas=to_canvas)
        for lc in scene.loose:
            w, h = self.deck.size_mm
            m = _affine(lc.angle_deg, lc.x_mm, lc.y_mm, w / 2, h / 2)
            draw_cards(canvas, self.deck, [Placement(check_card(lc.card), m, (w, h))], self.ppm,
                       shadow=self.realism.shadow)
        for hd in scene.hands:
            zone = self.layout.zones[hd.seat]
            zw, zh = zone.size_mm
            tip_zone = np.array([[zw / 2 + hd.across_mm, zh * (1 - hd.reach)]])
            edge_zone = np.array([[zw / 2 + hd.across_mm, zh + 400.0]])
            tip = zone.to_table(tip_zone)[0] * self.ppm
            edge = zone.to_table(edge_zone)[0] * self.ppm
            draw_hand(canvas, np.random.default_rng(self.seed + 99), tuple(tip), tuple(edge), self.ppm)
        return canvas

    def render(self, scene: TableScene, seed: int | None = None, *, size: tuple[int, int] | None = None) -> np.ndarray:
        """The camera frame (uint8 BGR) of ``scene``; ``seed`` varies only the sensor noise."""
        rng = np.random.default_rng(seed)
        top = np.clip(self.table_image(scene), 0, 255).astype(np.uint8)
        s = np.diag([1.0 / self.ppm, 1.0 / self.ppm, 1.0])
        H = self.H @ s
        out_size = self.camera.size
        frame = cv2.warpPerspective(top, H, out_size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT,
                                    borderValue=(45, 45, 50))
        if self._light is None:
            lrng = np.random.default_rng(self.seed + 5)
            self._light = apply_lighting(np.ones((out_size[1], out_size[0], 3), np.float32), lrng,
                                         replace(self.realism, glare_prob=0.0))
        lit = cv2.multiply(frame, self._light, dtype=cv2.CV_32F)
        still = replace(self.realism, blur_px=(0.0, 0.0))
        img = apply_sensor(lit, rng, still)
        if size is not None and size != out_size:
            img = cv2.resize(img, size, interpolation=cv2.INTER_AREA)
        return img


def render_table(plays: Mapping[str, Sequence[str]], design: str = "anglo", *, hands: Sequence[Hand] = (),
                 loose: Sequence[LooseCard] = (), layout: TableLayout | None = None, camera: CameraView | None = None,
                 seed: int = 0) -> np.ndarray:
    """One overhead frame of a table with ``plays`` (seat -> cards left to right for that seat)."""
    r = TableRenderer(layout, design, camera, seed=seed)
    return r.render(TableScene(plays, hands, loose), seed=seed)
