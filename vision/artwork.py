"""Real card faces from Debian's ``gnome-cards-data`` artwork, rendered once and cached.

Why a whole-sheet render: ``rsvg-convert --export-id`` gives wrong boxes on these sheets,
and every design used here lays its faces out as an exact 13 x 5 grid (checked: every
cell's alpha box fills the cell, tango leaves a small margin).  So one render of the whole
sheet, sliced by the grid and trimmed by alpha, gives all 54 faces for one ``rsvg-convert``
call (~1 s) instead of 54.  The PNG is cached under ``~/.cache/guandan-table`` (or
``$GUANDAN_TABLE_CACHE``) so tests and the demo pay that once per machine.
"""

from __future__ import annotations

import gzip
import os
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from .cards import ALL_CARDS, sheet_cell

ARTWORK_DIR = Path(os.environ.get("GUANDAN_CARDS_DIR", "/usr/share/aisleriot/cards"))

#: gnome-cards-data designs that are not French-suited (Swiss suits): a Guandan table never sees them.
NOT_FRENCH: tuple[str, ...] = ("swiss-xvii",)
#: Never trained on (their colour variants count as the design): the card reader's calibration
#: (tigullio, plastic) and the benchmark's unseen decks (neoclassical, tango and their variants).
HELD_OUT_DESIGNS: tuple[str, ...] = (
    "neoclassical", "neoclassical_4_color", "tango", "tango_nuevo", "tigullio", "plastic",
)

#: Sheet render width in pixels: 400 px per card column, about 7 px/mm on a 57 mm card.
SHEET_WIDTH_PX = 5200
#: Faces are stored at this resolution in memory (enough for 3 px/mm scenes with margin).
FACE_PX_PER_MM = 6.0
#: Physical card height; width follows each design's aspect ratio (56–65 mm).
CARD_HEIGHT_MM = 88.0

_lock = threading.Lock()
_decks: dict[str, Deck] = {}


def installed_designs() -> list[str]:
    """Every French-suited gnome-cards-data design installed here."""
    return sorted(n for n in (p.name[: -len(".svgz")] for p in ARTWORK_DIR.glob("*.svgz")) if n not in NOT_FRENCH)


def training_designs() -> list[str]:
    """The installed designs the card reader may be trained on."""
    return [d for d in installed_designs() if d not in HELD_OUT_DESIGNS]


def held_out_among(designs: list[str]) -> list[str]:
    """The designs of ``designs`` that are held out (never trained on): what the recipe refuses."""
    return sorted(set(designs) & set(HELD_OUT_DESIGNS))


def cache_dir() -> Path:
    """Where rendered artwork is cached (git-ignored: outside the repository by default)."""
    base = os.environ.get("GUANDAN_TABLE_CACHE")
    path = Path(base) if base else Path.home() / ".cache" / "guandan-table"
    path.mkdir(parents=True, exist_ok=True)
    return path


@dataclass(frozen=True)
class Deck:
    """The 54 faces of one design as straight-alpha BGRA images at ``FACE_PX_PER_MM``."""

    design: str
    faces: dict[str, np.ndarray]
    size_mm: tuple[float, float]  # (width, height)

    def bgr(self, card: str, background: tuple[int, int, int] = (255, 255, 255)) -> np.ndarray:
        """The face composited on a plain background (what a photographed face looks like)."""
        face = self.faces[card]
        alpha = face[:, :, 3:4].astype(np.float32) / 255.0
        bg = np.array(background, np.float32)
        return (face[:, :, :3].astype(np.float32) * alpha + bg * (1 - alpha)).astype(np.uint8)


def _svg_path(design: str) -> Path:
    path = ARTWORK_DIR / f"{design}.svgz"
    if not path.exists():
        raise FileNotFoundError(
            f"找不到牌面图案：{path}（apt install gnome-cards-data） / "
            f"card artwork not found: {path} (apt install gnome-cards-data)")
    return path


def sheet_path(design: str) -> Path:
    """Where the design's rendered sheet is cached (:func:`load_deck` slices it; the training
    recipe carries it to a machine that cannot render it, ``vision.training.carry``)."""
    return cache_dir() / f"sheet-{design}-{SHEET_WIDTH_PX}.png"


def _render_sheet(design: str) -> Path:
    """Render the whole sheet to a cached PNG and return its path."""
    out = sheet_path(design)
    if out.exists():
        return out
    exe = shutil.which("rsvg-convert")
    if exe is None:
        raise FileNotFoundError("找不到 rsvg-convert / rsvg-convert not found (apt install librsvg2-bin)")
    svg = gzip.decompress(_svg_path(design).read_bytes())
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "sheet.svg"
        src.write_bytes(svg)
        part = Path(tmp) / "sheet.png"
        subprocess.run([exe, "-w", str(SHEET_WIDTH_PX), "-o", str(part), str(src)],
                       check=True, capture_output=True, timeout=120)
        # Atomic publish: concurrent test workers may render the same sheet.
        tmp_out = out.with_suffix(f".{os.getpid()}.tmp")
        shutil.copyfile(part, tmp_out)
        os.replace(tmp_out, out)
    return out


def _slice(sheet: np.ndarray, design: str) -> Deck:
    h, w = sheet.shape[:2]
    cw, ch = w / 13.0, h / 5.0
    raw: dict[str, np.ndarray] = {}
    for card in ALL_CARDS:
        r, c = sheet_cell(card)
        cell = sheet[int(round(r * ch)):int(round((r + 1) * ch)), int(round(c * cw)):int(round((c + 1) * cw))]
        ys, xs = np.nonzero(cell[:, :, 3] > 8)
        if len(xs) == 0 or (xs.max() - xs.min()) < 0.8 * cw or (ys.max() - ys.min()) < 0.8 * ch:
            # Not the 13 x 5 grid this slicer relies on: refuse rather than render wrong faces.
            raise ValueError(f"牌面图案 {design} 布局不符：不是 13 x 5 网格（格 {card}） / "
                             f"{design}: sheet is not a 13 x 5 grid (cell of {card})")
        raw[card] = cell[ys.min():ys.max() + 1, xs.min():xs.max() + 1]
    # One physical size per design: the median face box.
    fw = float(np.median([f.shape[1] for f in raw.values()]))
    fh = float(np.median([f.shape[0] for f in raw.values()]))
    size_mm = (CARD_HEIGHT_MM * fw / fh, CARD_HEIGHT_MM)
    out_w = int(round(size_mm[0] * FACE_PX_PER_MM))
    out_h = int(round(size_mm[1] * FACE_PX_PER_MM))
    faces = {}
    for card, face in raw.items():
        # Premultiply before resizing so transparent borders do not bleed dark fringes.
        f = face.astype(np.float32)
        f[:, :, :3] *= f[:, :, 3:4] / 255.0
        f = cv2.resize(f, (out_w, out_h), interpolation=cv2.INTER_AREA)
        a = np.maximum(f[:, :, 3:4], 1e-3)
        f[:, :, :3] = np.where(f[:, :, 3:4] > 0.5, f[:, :, :3] * 255.0 / a, 255.0)
        faces[card] = np.clip(f, 0, 255).astype(np.uint8)
    return Deck(design, faces, size_mm)


def load_deck(design: str) -> Deck:
    """The 54 faces of ``design`` (rendered on first use, then cached on disk and in memory)."""
    with _lock:
        deck = _decks.get(design)
        if deck is not None:
            return deck
    cached = cache_dir() / f"faces-{design}-{FACE_PX_PER_MM:g}.npz"
    deck = None
    if cached.exists():
        try:
            with np.load(cached) as z:
                faces = {c: z[c] for c in ALL_CARDS}
                size = tuple(float(v) for v in z["__size_mm"])
            deck = Deck(design, faces, (size[0], size[1]))
        except (OSError, KeyError, ValueError):
            deck = None  # a damaged cache is simply rebuilt
    if deck is None:
        sheet = cv2.imread(str(_render_sheet(design)), cv2.IMREAD_UNCHANGED)
        if sheet is None or sheet.ndim != 3 or sheet.shape[2] != 4:
            raise ValueError(f"无法读取 {design} 的渲染结果 / cannot read rendered sheet for {design}")
        deck = _slice(sheet, design)
        tmp = cached.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(tmp, __size_mm=np.array(deck.size_mm), **deck.faces)
        os.replace(tmp, cached)
    with _lock:
        _decks[design] = deck
    return deck
