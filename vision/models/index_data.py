"""Domain-randomised training data for the index classifiers (training only; needs Pillow).

Every sample is what the reader itself sees: the reader's own candidate finder
(:func:`vision.reader.analyse`) runs on rendered zones, and each candidate's patch feature
(:func:`vision.reader.patch_feature`) is labelled from the renderer's ground truth (the card
whose rank-glyph anchor lies within 1.6 mm, blob at least 75 % of the glyph's height; else
"not an index").  Variety, drawn at random per zone:

* design: any gnome-cards-data design of :data:`FRENCH_DESIGNS` (all the French-suited,
  two-colour decks that slice as a 13 x 5 sheet), each also **re-printed**
  (:func:`vision.synth.reprint`: card stock colour, ink strength, print blur) half of the time;
* synthetic font decks (:mod:`vision.models.font_decks`: the DejaVu and Liberation
  fonts, index sizes 4.5-14 mm, placements, pip styles, outlines, paper tints, borders);
* the scene: :func:`vision.synth.render_zone` realism (overlap 12-25 mm, rotation, lighting
  gradients, glare, colour cast, blur, noise, JPEG, rectification error) at 2.0-3.5 px/mm.

Samples are cached per design (``DIR/<design>.npz``) so that a leave-one-design-out fold is
only a choice of files (:mod:`vision.models.train_cnn`)::

    nice python -m vision.models.index_data --out /tmp/index-data --zones 300 --font-decks 120
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

from vision.artwork import Deck, load_deck
from vision.synth import reprint

#: French-suited, two-colour gnome-cards-data designs (checked 2026-12-01: every one slices as a
#: 13 x 5 sheet with :func:`vision.artwork.load_deck`, and a montage of 10♥ K♣ 9♦ Q♠ joker of each
#: was looked at).  Left out: the four-colour decks (``*_4_color``, ``atlasnye_skat``: a yellow
#: diamond or green club breaks the reader's red/black split, and no Guandan deck prints four
#: colours) and ``swiss-xvii`` (Swiss suits).  Some print their court ranks in another language
#: (R/D/V, Д/К/В); they are kept: the classifier learns a class from several glyphs.
FRENCH_DESIGNS: tuple[str, ...] = (
    "ancient_french", "anglo", "anglo_bitmap", "anglo_modern", "anglo_poker", "atlasnye", "bellot", "berlin",
    "dondorf", "gnomangelo", "gnomangelo_bitmap", "guyenne-classic", "lattmann", "neoclassical", "orell",
    "ornamental", "paris", "plastic", "rheinland", "simplistic", "slavic_costumes", "tango", "tango_nuevo",
    "tarocco", "tigullio", "Атласные",
)
#: Court ranks in English letters (J, Q, K): what a Guandan deck prints.  The others are in
#: the training set, but a rank letter no deck in training prints cannot be read zero-shot.
ENGLISH_INDEX = frozenset({
    "anglo", "anglo_bitmap", "anglo_modern", "anglo_poker", "atlasnye", "bellot", "dondorf", "gnomangelo",
    "gnomangelo_bitmap", "guyenne-classic", "neoclassical", "orell", "ornamental", "paris", "plastic",
    "simplistic", "tango", "tango_nuevo", "tigullio",
})
#: Leave-one-group-out folds: look-alike designs (anglo and its bitmap, gnomangelo; tango and
#: tango_nuevo; the German-pattern decks; the two Atlas decks) are held out together, so that a
#: held-out design has no near-copy in its fold's training set.
FOLDS: tuple[tuple[str, ...], ...] = (
    ("anglo", "anglo_bitmap", "gnomangelo", "gnomangelo_bitmap", "tango", "tango_nuevo", "orell"),
    ("anglo_modern", "atlasnye", "Атласные", "neoclassical", "paris", "lattmann", "tarocco"),
    ("anglo_poker", "bellot", "guyenne-classic", "plastic", "rheinland", "berlin", "slavic_costumes"),
    ("ancient_french", "dondorf", "ornamental", "simplistic", "tigullio"),
)

_anchors: dict[str, dict[str, tuple[float, float, float]]] = {}


def _deck_anchors(deck: Deck) -> dict[str, tuple[float, float, float]]:
    from vision.models.train_index import deck_anchors

    if deck.design not in _anchors:
        _anchors[deck.design] = deck_anchors(deck)
    return _anchors[deck.design]


def deck_zone_samples(deck: Deck, anchors: dict[str, tuple[float, float, float]], seed: int,
                      ppm: float) -> tuple[np.ndarray, np.ndarray]:
    """Features and labels of every candidate in one rendered zone of ``deck``."""
    from vision.models.train_index import random_play
    from vision.reader import BG_CLASS, FEATURE_DIM, WORK_PPM, _to_work, analyse, patch_feature, shape_class
    from vision.synth import render_zone

    rng = np.random.default_rng(seed)
    cards = random_play(rng)
    zr = render_zone(cards, deck, ppm, seed=rng)
    an = analyse(_to_work(zr.image, ppm))
    truth = []
    for p in zr.placements:
        if p.card not in anchors:
            continue
        ax, ay, ah = anchors[p.card]
        pt = zr.to_image(p.to_scene(np.array([(ax, ay)])))[0] * (WORK_PPM / ppm)
        truth.append((pt, shape_class(p.card), ah * WORK_PPM))
    feats, labels = [], []
    tol = 1.6 * WORK_PPM
    for c in an.candidates:
        lab = BG_CLASS
        for pt, cls, gh in truth:
            if abs(c.x - pt[0]) <= tol and abs(c.y - pt[1]) <= tol:
                if c.h >= 0.75 * gh:
                    lab = cls
                break
        feats.append(patch_feature(an.ink, c))
        labels.append(lab)
    if not feats:
        return np.zeros((0, FEATURE_DIM), np.float32), np.zeros(0, np.int64)
    return np.stack(feats).astype(np.float32), np.array(labels, np.int64)


def design_job(args: tuple[str, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """``n`` zones of one gnome design (half of them re-printed), seeds from ``seed``."""
    design, n, seed = args
    rng = np.random.default_rng(seed)
    base = load_deck(design)
    anchors = _deck_anchors(base)
    prints = [reprint(base, rng) for _ in range(3)]
    xs, ys = [], []
    for _ in range(n):
        deck = prints[int(rng.integers(3))] if rng.random() < 0.5 else base
        x, y = deck_zone_samples(deck, anchors, int(rng.integers(1 << 31)), float(rng.uniform(2.0, 3.5)))
        xs.append(x)
        ys.append(y)
    return np.concatenate(xs), np.concatenate(ys)


def font_job(args: tuple[int, int]) -> tuple[np.ndarray, np.ndarray]:
    """``rows`` zones of one synthetic font deck (deck seed ``seed``)."""
    from vision.models.font_decks import font_deck
    from vision.models.train_index import deck_anchors

    seed, rows = args
    deck = font_deck(seed)
    anchors = deck_anchors(deck)
    rng = np.random.default_rng(seed + 7)
    xs, ys = [], []
    for _ in range(rows):
        x, y = deck_zone_samples(deck, anchors, int(rng.integers(1 << 31)), float(rng.uniform(2.0, 3.5)))
        xs.append(x)
        ys.append(y)
    return np.concatenate(xs), np.concatenate(ys)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--designs", nargs="*", default=list(FRENCH_DESIGNS))
    ap.add_argument("--zones", type=int, default=300, help="rendered zones per design")
    ap.add_argument("--font-decks", type=int, default=120)
    ap.add_argument("--font-rows", type=int, default=8)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=2)
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    t0 = time.time()
    jobs = [(d, a.zones, a.seed * 1000 + k) for k, d in enumerate(a.designs) if not (a.out / f"{d}.npz").exists()]
    with ProcessPoolExecutor(a.workers) as ex:
        for (d, _, _), (x, y) in zip(jobs, ex.map(design_job, jobs), strict=True):
            np.savez_compressed(a.out / f"{d}.npz", x=x, y=y)
            print(f"{d}: {len(y)} samples, {int((y != 27).sum())} indices, {time.time() - t0:.0f} s", flush=True)
        if a.font_decks and not (a.out / "fonts.npz").exists():
            fj = [(a.seed * 100_000 + k, a.font_rows) for k in range(a.font_decks)]
            xs, ys = [], []
            for x, y in ex.map(font_job, fj, chunksize=4):
                xs.append(x)
                ys.append(y)
            x, y = np.concatenate(xs), np.concatenate(ys)
            # Each sample remembers its deck (for a held-out split of whole font decks).
            deck_id = np.concatenate([np.full(len(v), k, np.int32) for k, v in enumerate(ys)])
            np.savez_compressed(a.out / "fonts.npz", x=x, y=y, deck=deck_id)
            print(f"fonts: {len(y)} samples, {int((y != 27).sum())} indices, {time.time() - t0:.0f} s", flush=True)


if __name__ == "__main__":
    main()
