"""Synthetic card decks drawn from system fonts: font variety for the index classifier.

Why: the five training designs are five index fonts, and a classifier trained on five fonts
reads an unseen one badly (tango 23 %, neoclassical 85 % per card before this module).  Real
decks differ mainly in the index glyphs (font, weight, width, outline), the pip shapes, the
paper tint and the printed border; the geometry (index at the top-left corner, pip under the
rank, the same index turned 180° at the bottom-right) is fixed by convention (a few decks print
the suit at the top-right instead, and so does one deck in seven here).  So
:func:`font_deck` draws a full 54-card deck with a random typeface (every installed font that
draws the index, a family as often as another: sans, serif, mono, condensed, bold, italic),
random index size and position, suits drawn as shapes (:class:`PipShape`, three decks in five)
or taken from a font that has them, outline, colours, border and body art, and the training
script renders rows of it exactly as it renders the real designs.  Jokers get a stacked "JOKER"
(or "Joker") or a star, red for the big joker and black for the small one, as most decks do.

Needs Pillow and fonts (training only; the reader itself never imports this module): at least
``fonts-dejavu-core`` and ``fonts-liberation``; the candidates of 2026-12-03 (later) were trained
with the font packages docs/performance.md lists (340 fonts; the shipped classifier predates them).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import cv2
import numpy as np

from vision.artwork import CARD_HEIGHT_MM, FACE_PX_PER_MM, Deck
from vision.cards import ALL_CARDS

FONT_DIRS = (Path("/usr/share/fonts/truetype/dejavu"), Path("/usr/share/fonts/truetype/liberation"))
#: Where Debian's font packages install their fonts: every typeface there that draws an index is
#: used (``fonts-noto-core``, ``fonts-urw-base35``, ``fonts-texgyre``... the more, the better the
#: reader reads a deck nobody trained on; DejaVu and Liberation alone are the minimum).
FONT_ROOTS = (Path("/usr/share/fonts"), Path("/usr/share/texmf/fonts/opentype"))
#: What an index font must draw: the ranks, and the joker's word in capitals and small letters.
INDEX_CHARS = "0123456789AJQKOERoker"
#: Fonts whose letters are not letters (symbol and dingbat fonts map "A" to α or to a shape) or
#: that no card prints: never index fonts.
NOT_INDEX_FONTS = ("Math", "math", "Symbol", "D050000L", "Dingbat", "Nushu")
#: The four filled suit symbols (U+2660, 2663, 2665, 2666): a font that draws them gives pips.
SUIT_CHARS = "\u2660\u2663\u2665\u2666"
#: Those of them that draw the joker's star (U+2605); the serif ones print a missing-glyph box.
STAR_FONTS = ("DejaVuSans.ttf", "DejaVuSans-Bold.ttf", "DejaVuSansMono.ttf", "DejaVuSansCondensed.ttf")
PIP_CHAR = {"s": "\u2660", "h": "\u2665", "d": "\u2666", "c": "\u2663"}
RANK_TEXT = {"T": "10"}
#: Share of deck styles whose pips are drawn as shapes (:func:`drawn_pip`) rather than taken from
#: a font: the fonts installed here hold only a handful of suit designs, real decks many more.
DRAWN_PIPS = 0.6
PX = FACE_PX_PER_MM


def draws(path: Path, chars: str) -> bool:
    """Whether the font at ``path`` draws each of ``chars`` (not its missing-glyph box, not nothing)."""
    from PIL import ImageFont

    try:
        f = ImageFont.truetype(str(path), 48)
        missing = f.getmask("\U0010fffd")
        blank = (missing.size, bytes(missing))
        for ch in chars:
            m = f.getmask(ch)
            if m.size[0] * m.size[1] == 0 or (m.size, bytes(m)) == blank or not any(bytes(m)):
                return False
    except (OSError, ValueError):
        return False
    return True


@lru_cache(maxsize=4)
def _fonts_drawing(chars: str, exclude: tuple[str, ...] = ()) -> tuple[Path, ...]:
    found = sorted({p for root in FONT_ROOTS if root.is_dir() for ext in ("*.ttf", "*.otf")
                    for p in root.rglob(ext) if not any(x in p.name for x in exclude)})
    return tuple(p for p in found if draws(p, chars))


def index_fonts() -> list[Path]:
    """Every installed TrueType/OpenType font that draws an index (math and symbol fonts aside)."""
    out = list(_fonts_drawing(INDEX_CHARS, NOT_INDEX_FONTS))
    if not out:
        raise FileNotFoundError("找不到字体 / no fonts found (apt install fonts-dejavu-core fonts-liberation)")
    return out


def pip_fonts() -> list[Path]:
    """Every installed font that draws the four suits (DejaVu's, FreeFont's, URW's symbol font...)."""
    return list(_fonts_drawing(SUIT_CHARS))


@lru_cache(maxsize=4)
def font_families(fonts: tuple[Path, ...]) -> tuple[tuple[Path, ...], ...]:
    """``fonts`` grouped by family (optical sizes together: "LM Roman 10" and "LM Roman 12" are one),
    so a family of seventy files is drawn as often as a family of one."""
    import re

    from PIL import ImageFont

    groups: dict[str, list[Path]] = {}
    for p in fonts:
        try:
            family = ImageFont.truetype(str(p), 12).getname()[0] or p.stem
        except OSError:
            continue
        groups.setdefault(re.sub(r"[\s\d]+$", "", family), []).append(p)
    return tuple(tuple(v) for _, v in sorted(groups.items()))


@lru_cache(maxsize=256)
def _font(path: str, size_px: int):
    from PIL import ImageFont

    return ImageFont.truetype(path, size_px)


def _glyph(text: str, font_path: str, height_px: float, colour: tuple[int, int, int], stroke: int,
           stroke_colour: tuple[int, int, int], squeeze: float) -> np.ndarray:
    """``text`` rendered tight to its ink, scaled to ``height_px`` tall: straight-alpha RGBA (PIL order)."""
    from PIL import Image, ImageDraw

    f = _font(font_path, 96)
    box = f.getbbox(text, stroke_width=stroke * 4)
    w, h = box[2] - box[0] + 8, box[3] - box[1] + 8
    img = Image.new("RGBA", (w, h), (0, 0, 0, 0))
    ImageDraw.Draw(img).text((4 - box[0], 4 - box[1]), text, font=f, fill=colour + (255,),
                             stroke_width=stroke * 4, stroke_fill=stroke_colour + (255,))
    a = np.asarray(img)
    ys, xs = np.nonzero(a[:, :, 3] > 20)
    a = a[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    s = height_px / a.shape[0]
    size = (max(int(round(a.shape[1] * s * squeeze)), 1), max(int(round(height_px)), 1))
    return cv2.resize(a, size, interpolation=cv2.INTER_AREA)


def _paste(face: np.ndarray, glyph: np.ndarray, x: float, y: float) -> None:
    """Alpha-composite an RGBA glyph onto the RGB face at (x, y), clipped to the face."""
    h, w = glyph.shape[:2]
    x0, y0 = int(round(x)), int(round(y))
    x1, y1 = min(x0 + w, face.shape[1]), min(y0 + h, face.shape[0])
    gx0, gy0 = max(-x0, 0), max(-y0, 0)
    x0, y0 = max(x0, 0), max(y0, 0)
    if x1 <= x0 or y1 <= y0:
        return
    g = glyph[gy0:gy0 + (y1 - y0), gx0:gx0 + (x1 - x0)].astype(np.float32)
    al = g[:, :, 3:4] / 255.0
    region = face[y0:y1, x0:x1].astype(np.float32)
    face[y0:y1, x0:x1] = (g[:, :, :3] * al + region * (1 - al)).astype(np.uint8)


def _colour(rng: np.random.Generator, red: bool) -> tuple[int, int, int]:
    if red:
        return int(rng.integers(150, 235)), int(rng.integers(0, 45)), int(rng.integers(0, 55))
    v = int(rng.integers(0, 55))
    return v, v, min(v + int(rng.integers(0, 40)), 255)


@dataclass(frozen=True)
class PipShape:
    """One deck's suit shapes, as numbers: lobes, points, stems and waists differ from deck to deck.

    Why drawn: a classifier that saw a handful of suit designs tells a club from a spade by those
    designs (gnome's plastic clubs read as spades); shapes drawn from these ranges cover the ways
    printed suits differ, not the few that fonts carry.
    """

    lobe: float  # heart/spade lobe radius (unit: half the shape's height)
    lobe_gap: float  # distance of each lobe's centre from the axis
    belly: float  # how far a heart's sides bow out on their way to the point
    club_r: float  # club leaf radius
    club_spread: float  # side leaves' distance from the axis and below the top leaf, over their radius
    stem_top: float  # stem half-width where it meets the body
    stem_foot: float  # stem half-width at its foot
    stem_long: float  # stem length
    diamond_w: float  # diamond half-width over half-height
    diamond_bow: float  # <0: sides curve in; >0: out
    squeeze: float  # the whole shape's width over its drawn width

    @classmethod
    def random(cls, rng: np.random.Generator) -> PipShape:
        return cls(lobe=float(rng.uniform(0.40, 0.56)), lobe_gap=float(rng.uniform(0.34, 0.5)),
                   belly=float(rng.uniform(-0.05, 0.18)), club_r=float(rng.uniform(0.36, 0.46)),
                   club_spread=float(rng.uniform(0.95, 1.3)), stem_top=float(rng.uniform(0.03, 0.1)),
                   stem_foot=float(rng.uniform(0.12, 0.34)), stem_long=float(rng.uniform(0.35, 0.6)),
                   diamond_w=float(rng.uniform(0.55, 0.82)), diamond_bow=float(rng.uniform(-0.16, 0.08)),
                   squeeze=float(rng.uniform(0.85, 1.15)))


def _bow(a: np.ndarray, b: np.ndarray, bow: float, n: int = 24) -> np.ndarray:
    """Points from ``a`` to ``b`` along a quadratic curve bowed ``bow`` × their distance to the left."""
    d = b - a
    ctrl = (a + b) / 2 + bow * np.array([d[1], -d[0]])
    t = np.linspace(0.0, 1.0, n)[:, None]
    return (1 - t) ** 2 * a + 2 * (1 - t) * t * ctrl + t**2 * b


def _tangent(tip: np.ndarray, centre: np.ndarray, r: float, outer_sign: float) -> np.ndarray:
    """Where a line from ``tip`` touches the circle, on the side away from the axis."""
    v = tip - centre
    dist = float(np.hypot(*v))
    if dist <= r:
        return centre + np.array([outer_sign * r, 0.0])
    a = float(np.arccos(r / dist))
    base = np.arctan2(v[1], v[0])
    cands = [centre + r * np.array([np.cos(base + s * a), np.sin(base + s * a)]) for s in (1, -1)]
    return max(cands, key=lambda q: outer_sign * q[0])


def _suit_polys(suit: str, sh: PipShape) -> tuple[list[np.ndarray], list[tuple[np.ndarray, float]]]:
    """The suit as polygons and circles in unit coordinates (y down, about −1..1)."""
    polys: list[np.ndarray] = []
    circles: list[tuple[np.ndarray, float]] = []
    if suit == "d":
        top, right, bottom, left = (np.array(p, float) for p in ((0, -1), (sh.diamond_w, 0), (0, 1), (-sh.diamond_w, 0)))
        polys.append(np.concatenate([_bow(top, right, sh.diamond_bow), _bow(right, bottom, sh.diamond_bow),
                                     _bow(bottom, left, sh.diamond_bow), _bow(left, top, sh.diamond_bow)]))
        return polys, circles
    if suit in "hs":
        # A heart: two lobes and a point; a spade is the same turned over, on a stem.
        up = suit == "s"
        tip = np.array([0.0, -1.0 if up else 1.0])
        # A heart's lobes touch the top; a spade's sit above its stem.
        y0 = 1.0 - sh.stem_long * 0.6 - sh.lobe if up else -1.0 + sh.lobe
        cl, cr = np.array([-sh.lobe_gap, y0]), np.array([sh.lobe_gap, y0])
        circles += [(cl, sh.lobe), (cr, sh.lobe)]
        tl, tr = _tangent(tip, cl, sh.lobe, -1), _tangent(tip, cr, sh.lobe, 1)
        bow = -sh.belly if up else sh.belly  # _bow bends to the left of its way: outwards here
        polys.append(np.concatenate([_bow(tr, tip, bow), _bow(tip, tl, bow), [cl, cr]]))
        if not up:
            return polys, circles
        body_bottom = y0 + sh.lobe * 0.5
    else:
        r = sh.club_r
        top = np.array([0.0, -1 + r])
        side_x, side_y = r * sh.club_spread, top[1] + r * (0.4 + sh.club_spread)
        circles += [(top, r), (np.array([-side_x, side_y]), r), (np.array([side_x, side_y]), r)]
        polys.append(np.array([top, [-side_x, side_y], [side_x, side_y]]))
        body_bottom = side_y
    # The stem, flaring to its foot along curved sides.
    foot_y = 1.0
    tt, ft = np.array([sh.stem_top, body_bottom - 0.1]), np.array([sh.stem_foot, foot_y])
    right = _bow(tt, ft, -0.12)
    left = right[::-1] * np.array([-1.0, 1.0])
    polys.append(np.concatenate([right, left]))
    return polys, circles


def drawn_pip(suit: str, shape: PipShape, height_px: float, colour: tuple[int, int, int]) -> np.ndarray:
    """The suit drawn from ``shape``, ``height_px`` tall, tight to its ink: straight-alpha RGBA (PIL order)."""
    size, half = 384, 150.0
    mask = np.zeros((size, size), np.uint8)
    polys, circles = _suit_polys(suit, shape)

    def px(p: np.ndarray) -> np.ndarray:
        return np.round((np.asarray(p) * np.array([shape.squeeze, 1.0]) * half + size / 2) * 4).astype(np.int32)

    for poly in polys:
        cv2.fillPoly(mask, [px(poly).reshape(-1, 1, 2)], 255, cv2.LINE_AA, shift=2)
    for c, r in circles:
        cv2.ellipse(mask, tuple(int(v) for v in px(c)), (int(r * half * shape.squeeze * 4), int(r * half * 4)), 0, 0, 360,
                    255, -1, cv2.LINE_AA, shift=2)
    ys, xs = np.nonzero(mask > 20)
    mask = mask[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    s = height_px / mask.shape[0]
    out_size = (max(int(round(mask.shape[1] * s)), 1), max(int(round(height_px)), 1))
    alpha = cv2.resize(mask, out_size, interpolation=cv2.INTER_AREA)
    rgba = np.empty(alpha.shape + (4,), np.uint8)
    rgba[..., :3] = colour
    rgba[..., 3] = alpha
    return rgba


class _Style:
    """One deck's look, drawn once: every card of the deck shares it."""

    def __init__(self, rng: np.random.Generator, fonts: list[Path]) -> None:
        families = font_families(tuple(fonts))
        family = families[int(rng.integers(len(families)))]
        self.font = str(family[int(rng.integers(len(family)))])
        pips = pip_fonts()
        self.pip_font = str(pips[int(rng.integers(len(pips)))]) if pips else None
        self.pip_shape = PipShape.random(rng) if self.pip_font is None or rng.random() < DRAWN_PIPS else None
        self.width_mm = float(rng.uniform(56.0, 65.0))
        self.rank_h = float(rng.uniform(4.5, 14.0))  # mm, glyph height (tango: 11–14)
        self.pip_h = self.rank_h * float(rng.uniform(0.55, 1.0))
        self.x = float(rng.uniform(1.5, 5.0))
        self.y = float(rng.uniform(2.0, 6.0))
        self.gap = float(rng.uniform(0.3, 2.0))
        self.pip_centred = bool(rng.random() < 0.7)
        self.squeeze = float(rng.uniform(0.75, 1.15))
        self.ten_squeeze = float(rng.uniform(0.6, 1.0))
        self.outline = int(rng.integers(1, 3)) if rng.random() < 0.2 else 0
        self.paper = tuple(int(v) for v in np.clip(255 - rng.uniform(0, 18, 3) * np.array([1, rng.random(), 1]), 0, 255))
        self.border = rng.random() < 0.5
        self.border_inset = float(rng.uniform(0.0, 3.0))
        self.border_px = int(rng.integers(1, 6))
        if self.border:
            # Printed indices keep clear of the printed border, as on real cards.
            inner = self.border_inset + self.border_px / PX + 0.8
            self.x, self.y = max(self.x, inner), max(self.y, inner)
        self.border_colour = tuple(int(v) for v in rng.integers(60, 200, 3))
        self.corner = float(rng.uniform(2.0, 4.5))
        self.red = _colour(rng, True)
        self.black = _colour(rng, False)
        self.joker_star = bool(rng.random() < 0.4)
        # The stacked word is printed "JOKER" or "Joker" (a capital J over small letters, as many
        # shop decks do): a J over a small o must read as a joker, not as the jack it starts like.
        self.joker_word = "JOKER" if rng.random() < 0.5 else "Joker"
        self.joker_first = float(rng.uniform(1.0, 1.7))  # the first letter's size over the others'
        self.star_font = str(FONT_DIRS[0] / STAR_FONTS[int(rng.integers(len(STAR_FONTS)))])
        # Some decks print the suit not under the rank but across the card, at the top-right
        # (gnome's tango_nuevo): the corner then shows no suit, and the classifier must learn
        # that it cannot know one there rather than guess it from the rank's colour.
        self.pip_beside = bool(rng.random() < 0.15)
        # Half of those print one large pip across the body instead of a layout of pips (tango_nuevo
        # again): its top reaches down into the corner's crop, where a network reading the index's suit
        # must not take it for the index's pip.  Drawn only for such decks: every other deck is as before.
        self.big_pip = self.pip_beside and bool(rng.random() < 0.5)

    def pip(self, suit: str, height_px: float, colour: tuple[int, int, int]) -> np.ndarray:
        """This deck's suit symbol, ``height_px`` tall (RGBA, PIL order)."""
        if self.pip_shape is not None:
            return drawn_pip(suit, self.pip_shape, height_px, colour)
        return _glyph(PIP_CHAR[suit], self.pip_font, height_px, colour, 0, colour, 1.0)


def _draw_index(face: np.ndarray, card: str, st: _Style, rng: np.random.Generator) -> None:
    red = card[-1] in "hd" or card == "BJ"
    col = st.red if red else st.black
    stroke_col = tuple(max(v - 90, 0) for v in col) if st.outline else col
    fill = tuple(min(v + 90, 255) for v in col) if st.outline else col
    if card in ("SJ", "BJ"):
        if st.joker_star:
            g = _glyph("\u2605", st.star_font, st.rank_h * PX, fill, st.outline, stroke_col, 1.0)
            _paste(face, g, st.x * PX, st.y * PX)
        else:
            y = st.y * PX
            for i, ch in enumerate(st.joker_word):
                size = st.rank_h * 0.6 * (st.joker_first if i == 0 else 1.0)
                g = _glyph(ch, st.font, size * PX, fill, st.outline, stroke_col, 1.0)
                _paste(face, g, st.x * PX, y)
                y += g.shape[0] + st.gap * PX * 0.6
        return
    text = RANK_TEXT.get(card[0], card[0])
    squeeze = st.squeeze * (st.ten_squeeze if len(text) > 1 else 1.0)
    g = _glyph(text, st.font, st.rank_h * PX, fill, st.outline, stroke_col, squeeze)
    x, y = st.x * PX, st.y * PX
    _paste(face, g, x, y)
    p = st.pip(card[1], st.pip_h * PX, col)
    if st.pip_beside:
        _paste(face, p, face.shape[1] - x - p.shape[1], y)
        return
    px = x + (g.shape[1] - p.shape[1]) / 2 if st.pip_centred else x
    _paste(face, p, px, y + g.shape[0] + st.gap * PX)


def _draw_body(face: np.ndarray, card: str, st: _Style, rng: np.random.Generator) -> None:
    """Centre art: pips for number cards, a framed picture for court cards and jokers."""
    h, w = face.shape[:2]
    red = card[-1] in "hd" or card == "BJ"
    col = st.red if red else st.black
    rank = card[0]
    if card not in ("SJ", "BJ") and rank in "23456789TA" and st.big_pip:
        # As wide as the card, or nearly (tango_nuevo's): its flank lies in the corner's crop too.
        pip = st.pip(card[1], float(rng.uniform(46, 60)) * PX, col)
        _paste(face, pip, w * 0.5 - pip.shape[1] / 2, h * float(rng.uniform(0.56, 0.64)) - pip.shape[0] / 2)
        return
    if card not in ("SJ", "BJ") and rank in "23456789TA":
        n = 1 if rank == "A" else (10 if rank == "T" else int(rank))
        size = (float(rng.uniform(9, 14)) if n > 1 else float(rng.uniform(18, 30))) * PX
        pip = st.pip(card[1], size, col)
        if n <= 3:
            columns = [(0.5, n)]
        elif n == 9:
            columns = [(0.3, 4), (0.5, 1), (0.7, 4)]
        else:
            columns = [(0.3, (n + 1) // 2), (0.7, n // 2)]
        for cx, m in columns:
            for j in range(m):
                cy = 0.22 + 0.56 * (j + 0.5) / m
                _paste(face, pip if cy < 0.5 else pip[::-1, ::-1], cx * w - pip.shape[1] / 2, cy * h - pip.shape[0] / 2)
        return
    x0, y0 = int(rng.uniform(9, 13) * PX), int(rng.uniform(14, 20) * PX)
    x1, y1 = w - x0, h - y0
    cv2.rectangle(face, (x0, y0), (x1, y1), tuple(int(v) for v in rng.integers(0, 200, 3)), int(rng.integers(1, 4)))
    for _ in range(int(rng.integers(6, 16))):
        c = tuple(int(v) for v in rng.integers(0, 256, 3))
        cx, cy = int(rng.integers(x0, x1)), int(rng.integers(y0, y1))
        ax = (int(rng.integers(3, 40)), int(rng.integers(3, 60)))
        cv2.ellipse(face, (cx, cy), ax, float(rng.uniform(0, 180)), 0, 360, c, -1 if rng.random() < 0.6 else 3)
    for _ in range(int(rng.integers(3, 10))):
        c = tuple(int(v) for v in rng.integers(0, 256, 3))
        p0 = (int(rng.integers(x0, x1)), int(rng.integers(y0, y1)))
        p1 = (int(rng.integers(x0, x1)), int(rng.integers(y0, y1)))
        cv2.line(face, p0, p1, c, int(rng.integers(2, 10)))


def font_deck(seed: int, fonts: list[Path] | None = None) -> Deck:
    """A whole 54-card deck in one random font style (deterministic for a seed)."""
    rng = np.random.default_rng(seed)
    st = _Style(rng, fonts or index_fonts())
    w, h = int(round(st.width_mm * PX)), int(round(CARD_HEIGHT_MM * PX))
    alpha = np.zeros((h, w), np.uint8)
    r = int(st.corner * PX)
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 255, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 255, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 255, -1, cv2.LINE_AA)
    faces = {}
    for card in ALL_CARDS:
        face = np.empty((h, w, 3), np.uint8)
        face[:] = st.paper
        if st.border:
            i = int(st.border_inset * PX) + st.border_px // 2
            cv2.rectangle(face, (i, i), (w - 1 - i, h - 1 - i), st.border_colour, st.border_px)
        _draw_body(face, card, st, rng)
        _draw_index(face, card, st, rng)
        # The same index turned half a turn at the bottom-right, as on a real card.
        turned = face[::-1, ::-1].copy()
        _draw_index(turned, card, st, rng)
        face = turned[::-1, ::-1].copy()
        # PIL draws RGB; the project's faces are BGR(A).
        faces[card] = np.dstack([face[:, :, ::-1], alpha])
    return Deck(f"font-{seed}", faces, (w / PX, h / PX))
