"""Carry the training set's sources to a machine that can render zones but not artwork
(``python -m vision.training.carry pack|unpack``): a lent GPU machine has numpy, OpenCV, Pillow and
torch, but no ``rsvg-convert``, no gnome-cards-data and no font packages, and it takes at most
64 MiB with it.

``pack`` writes, here, where the artwork renders:

* each training design's rendered sheet, scaled by ``--scale`` (0.7: 4.9 px/mm, above the 4.3 px/mm
  the training zones are drawn at) as lossless WebP;
* the fonts, two files a family (the smallest and one drawn at random: the font decks draw a family
  as often as another, so a family's other weights add little) and the joker's star fonts, as one
  ``tar.xz`` of their absolute paths (the font decks look for them where Debian installs them);
* the per-card npm decks as rasters (:func:`vision.training.svg_decks.save_rasters`).

``unpack`` restores them there: the sheets at full width into the artwork cache (where
:func:`vision.artwork.load_deck` finds a sheet before it would render one), the fonts under ``/``,
and prints the designs, for ``make_data --designs``.  Held-out designs are never packed.
"""

from __future__ import annotations

import argparse
import random
import tarfile
from pathlib import Path

import cv2

from vision.artwork import SHEET_WIDTH_PX, held_out_among, load_deck, sheet_path, training_designs

SHEETS = "sheets"
FONTS = "fonts.tar.xz"
DECKS = "decks"


def pack(out: Path, designs: list[str], svg_root: Path | None, scale: float, fonts: bool = True, seed: int = 0) -> None:
    """Write the sheets, fonts and npm decks under ``out`` (see the module's docstring)."""
    from vision.models.font_decks import FONT_DIRS, STAR_FONTS, font_families, index_fonts

    bad = held_out_among(designs)
    if bad:
        raise ValueError(f"held-out designs are never trained on: {bad}")
    (out / SHEETS).mkdir(parents=True, exist_ok=True)
    for d in designs:
        load_deck(d)  # renders and caches the sheet
        sheet = cv2.imread(str(sheet_path(d)), cv2.IMREAD_UNCHANGED)
        small = cv2.resize(sheet, None, fx=scale, fy=scale, interpolation=cv2.INTER_AREA)
        cv2.imwrite(str(out / SHEETS / f"{d}.webp"), small, [cv2.IMWRITE_WEBP_QUALITY, 101])
    chosen: set[Path] = set()
    if fonts:
        rng = random.Random(seed)
        chosen = {FONT_DIRS[0] / name for name in STAR_FONTS}
        for family in font_families(tuple(index_fonts())):
            by_size = sorted(family, key=lambda p: p.stat().st_size)
            chosen |= {by_size[0], *rng.sample(by_size[1:], min(1, len(by_size) - 1))}
        with tarfile.open(out / FONTS, "w:xz") as tar:
            for p in sorted(chosen):
                tar.add(p, arcname=str(p).lstrip("/"))
    n_decks = 0
    if svg_root is not None:
        from .svg_decks import save_rasters, svg_decks

        decks = svg_decks(svg_root)
        save_rasters(decks, out / DECKS)
        n_decks = len(decks)
    print(f"{len(designs)} sheets, {len(chosen)} fonts, {n_decks} npm decks -> {out}")


def unpack(src: Path, font_root: Path = Path("/")) -> list[str]:
    """Restore what :func:`pack` wrote; returns the designs whose sheets are now cached."""
    designs = []
    for f in sorted((src / SHEETS).glob("*.webp")):
        small = cv2.imread(str(f), cv2.IMREAD_UNCHANGED)
        if small is None or small.ndim != 3 or small.shape[2] != 4:
            raise ValueError(f"unreadable sheet: {f}")
        h = int(round(small.shape[0] * SHEET_WIDTH_PX / small.shape[1]))
        sheet = cv2.resize(small, (SHEET_WIDTH_PX, h), interpolation=cv2.INTER_CUBIC)
        cv2.imwrite(str(sheet_path(f.stem)), sheet, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        designs.append(f.stem)
    if (src / FONTS).exists():
        with tarfile.open(src / FONTS) as tar:
            tar.extractall(font_root, filter="data")
    return designs


def main() -> None:
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("pack")
    p.add_argument("out", type=Path)
    p.add_argument("--svg-decks", type=Path, default=None, metavar="DIR", help="the npm packages, unpacked")
    p.add_argument("--scale", type=float, default=0.7)
    p.add_argument("--designs", nargs="+", default=None)
    u = sub.add_parser("unpack")
    u.add_argument("src", type=Path)
    u.add_argument("--font-root", type=Path, default=Path("/"), help="where the fonts' absolute paths begin")
    a = ap.parse_args()
    if a.cmd == "pack":
        pack(a.out, a.designs or training_designs(), a.svg_decks, a.scale)
    else:
        print(" ".join(unpack(a.src, a.font_root)))


if __name__ == "__main__":
    main()
