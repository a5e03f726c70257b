"""Card decks from the npm packages' SVG files (training variety; never at run time).

The issue names three npm packages; two ship one SVG file per card:

* ``@heruka_urgyen/react-playing-cards``: ``src/images/{2color,2color-bf,4color,4color-bf}/KD.svg``
  (rank ``A 2-9 T J Q K``, suit letter; four designs: two index fonts, two or four suit colours);
* ``@younestouati/playing-cards-standard-deck``: ``cards/12s.svg`` (rank 1-13, suit letter).

``@letele/playing-cards`` ships Adrian Kennard's deck inside JavaScript only: ``letele_svgs.mjs`` (node)
writes it out as per-card files, both jokers included (``BJ.svg`` red, ``SJ.svg`` black).  Fetch the
packages with ``npm pack PACKAGE && tar xzf PACKAGE.tgz`` into one folder and point ``--svg-decks`` at it.
The other two decks' jokers are left out: they have one joker (or none), so it cannot be told small from big.

A machine without ``rsvg-convert`` (a lent GPU machine) reads the same decks from per-card raster
files (``KD.webp``/``.png`` with alpha, one folder a deck, named as the deck): :func:`save_rasters`
writes them where the SVG files render.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

import cv2
import numpy as np

from vision.artwork import CARD_HEIGHT_MM, FACE_PX_PER_MM, Deck
from vision.cards import RANKS

_SUITS = {"S": "s", "H": "h", "D": "d", "C": "c"}
_NUM_RANK = {str(i + 1): r for i, r in enumerate(["A", "2", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K"])}


def _card_of(stem: str) -> str | None:
    s = stem.upper()
    if s in ("BJ", "SJ"):
        return s
    if len(s) >= 2 and s[-1] in _SUITS:
        rank = s[:-1]
        rank = _NUM_RANK.get(rank, rank)
        if rank in RANKS:
            return rank + _SUITS[s[-1]]
    return None


def _render(svg: Path, height_px: int, tmp: Path) -> np.ndarray | None:
    out = tmp / (svg.stem + ".png")
    r = subprocess.run([shutil.which("rsvg-convert") or "rsvg-convert", "-h", str(height_px), "-o", str(out), str(svg)],
                       capture_output=True, timeout=60)
    if r.returncode != 0:
        return None
    img = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if img is None or img.ndim != 3 or img.shape[2] != 4:
        return None
    ys, xs = np.nonzero(img[:, :, 3] > 8)
    return img[ys.min():ys.max() + 1, xs.min():xs.max() + 1] if len(xs) else None


#: Per-card raster files :func:`save_rasters` writes and :func:`deck_from_rasters` reads.
RASTER_SUFFIXES = (".webp", ".png")


def deck_from_svgs(folder: Path, name: str) -> Deck | None:
    """A deck from one folder of per-card SVG files (None: fewer than 40 cards found)."""
    h = int(round(CARD_HEIGHT_MM * FACE_PX_PER_MM))
    faces: dict[str, np.ndarray] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for svg in sorted(folder.glob("*.svg")):
            card = _card_of(svg.stem)
            if card is None:
                continue
            img = _render(svg, h, Path(tmp))
            if img is not None:
                faces[card] = img
    return _deck(faces, name)


def deck_from_rasters(folder: Path) -> Deck | None:
    """A deck from one folder of per-card BGRA rasters, named as the folder (None: fewer than 40)."""
    faces: dict[str, np.ndarray] = {}
    for f in sorted(p for p in folder.iterdir() if p.suffix in RASTER_SUFFIXES):
        card = _card_of(f.stem)
        img = cv2.imread(str(f), cv2.IMREAD_UNCHANGED) if card else None
        if card and img is not None and img.ndim == 3 and img.shape[2] in (3, 4):
            # A face with no transparent pixel is stored without alpha (WebP drops an opaque one).
            faces[card] = img if img.shape[2] == 4 else cv2.cvtColor(img, cv2.COLOR_BGR2BGRA)
    return _deck(faces, folder.name)


def save_rasters(decks: list[Deck], root: Path) -> None:
    """Each deck's faces as lossless WebP files under ``root/<deck>/`` (read by :func:`deck_from_rasters`)."""
    for d in decks:
        folder = Path(root) / d.design
        folder.mkdir(parents=True, exist_ok=True)
        for card, face in d.faces.items():
            cv2.imwrite(str(folder / f"{card}.webp"), face, [cv2.IMWRITE_WEBP_QUALITY, 101])


def _deck(faces: dict[str, np.ndarray], name: str) -> Deck | None:
    if len(faces) < 40:
        return None
    h = int(round(CARD_HEIGHT_MM * FACE_PX_PER_MM))
    w = int(round(float(np.median([f.shape[1] * h / f.shape[0] for f in faces.values()]))))
    out = {c: cv2.resize(f, (w, h), interpolation=cv2.INTER_AREA) for c, f in faces.items()}
    return Deck(name, out, (w / FACE_PX_PER_MM, float(CARD_HEIGHT_MM)))


def svg_decks(root: Path) -> list[Deck]:
    """Every per-card deck under ``root``: folders of SVG files, or of rasters (each at least 40 cards)."""
    decks = []
    for folder in sorted({p.parent for p in Path(root).rglob("*.svg")}):
        d = deck_from_svgs(folder, f"svg-{folder.parent.name}-{folder.name}")
        if d is not None:
            decks.append(d)
    for folder in sorted({p.parent for ext in RASTER_SUFFIXES for p in Path(root).rglob("*" + ext)}):
        d = deck_from_rasters(folder)
        if d is not None:
            decks.append(d)
    return decks
