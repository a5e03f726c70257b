"""Synthetic training data for the card-first reader: zones rendered from card artwork, exact truth.

Artwork used (the issue's list, nothing else): the gnome-cards-data designs and synthetic decks
drawn from Debian's font packages (:mod:`vision.models.font_decks`).  Designs named in
:data:`vision.artwork.HELD_OUT_DESIGNS` and their colour variants are never trained on: they calibrate the
probabilities and are the benchmark's unseen decks.

Each rendered zone gives (a) a detector sample: the zone at DET_PPM and its card corners, and
(b) classifier samples: crops at every corner (jittered by up to 1.5 mm, as a detector places
them) labelled with the card, and crops elsewhere (card bodies, edges, felt, near misses)
labelled "none".
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.artwork import Deck, load_deck
from vision.cardnet.crops import crop_at
from vision.cardnet.prep import at_detector_scale
from vision.cardnet.spec import CROP_H, CROP_MARGIN_MM, CROP_PPM, CROP_W, NONE_CLASS
from vision.cards import ALL_CARDS, CARD_INDEX
from vision.synth import Realism, render_zone, reprint

#: Training realism: a little wider than play's, so play is inside what was seen.
TRAIN_REALISM = Realism(overlap_mm=(10.0, 30.0), rotation_deg=7.0, rectify_px=4.0)


def play_size(rng: np.random.Generator) -> int:
    """How many cards a zone holds: lone cards (tribute, singles) often, long rows sometimes."""
    r = rng.random()
    if r < 0.25:
        return 1
    if r < 0.55:
        return int(rng.integers(2, 5))
    if r < 0.8:
        return int(rng.integers(5, 7))
    return int(rng.integers(7, 11))


def random_cards(rng: np.random.Generator, n: int, faces: Sequence[str] = ALL_CARDS) -> list[str]:
    """``n`` cards of ``faces``, each at most twice (two decks), in a random order."""
    pool = list(faces) * 2
    idx = rng.choice(len(pool), size=n, replace=False)
    return [pool[i] for i in idx]


@dataclass
class ZoneSample:
    """One rendered zone: the image at its own px/mm and each card's top-left corner in its pixels."""

    image: np.ndarray
    px_per_mm: float
    cards: list[str]
    corners_px: np.ndarray  # (n, 2)
    angles_deg: np.ndarray  # (n,)
    design: str
    #: Each card's outline in image pixels (n, 4, 2): the detector also learns where cards lie.
    outlines_px: np.ndarray


def render_sample(deck: Deck, rng: np.random.Generator, ppm_range: tuple[float, float] = (1.9, 4.3),
                  realism: Realism = TRAIN_REALISM, n_cards: int | None = None) -> ZoneSample:
    ppm = float(rng.uniform(*ppm_range))
    n = n_cards if n_cards is not None else play_size(rng)
    cards = random_cards(rng, n, list(deck.faces))
    r = render_zone(cards, deck, px_per_mm=ppm, seed=rng, realism=realism)
    corners = np.array([r.to_image(p.to_scene(np.array([[0.0, 0.0]])))[0] for p in r.placements])
    angles = np.array([math.degrees(math.atan2(p.matrix[1, 0], p.matrix[0, 0])) for p in r.placements])
    outlines = np.array([r.to_image(p.corners_mm()) for p in r.placements]).reshape(-1, 4, 2)
    return ZoneSample(r.image, ppm, cards, corners.reshape(-1, 2), angles, r.design, outlines)


def detector_input(image: np.ndarray, px_per_mm: float) -> np.ndarray:
    """The zone at DET_PPM (what the detector sees), uint8 BGR: as play makes it (:func:`.prep.at_detector_scale`)."""
    return at_detector_scale(image, px_per_mm)


def classifier_samples(z: ZoneSample, rng: np.random.Generator, jitter_mm: float = 1.5,
                       n_neg: int | None = None) -> tuple[list[np.ndarray], list[int]]:
    """Crops at each corner (label: the card) and elsewhere (label: none)."""
    crops, labels = [], []
    ppm = z.px_per_mm
    for card, (x, y) in zip(z.cards, z.corners_px, strict=True):
        dx, dy = rng.uniform(-jitter_mm, jitter_mm, 2) * ppm
        crops.append(crop_at(z.image, (x + dx, y + dy), ppm, float(rng.normal(0, 1.5))))
        labels.append(CARD_INDEX[card])
    h, w = z.image.shape[:2]
    n_neg = n_neg if n_neg is not None else max(len(z.cards), 3)
    corners = z.corners_px
    for _ in range(n_neg):
        kind = rng.random()
        if kind < 0.45 and len(corners):
            # A near miss: a point 4–20 mm from a true corner (pips, the rank's own strokes, art).
            c = corners[rng.integers(len(corners))]
            d = rng.uniform(4.0, 20.0) * ppm
            a = rng.uniform(0, 2 * math.pi)
            p = (c[0] + d * math.cos(a), c[1] + d * math.sin(a))
        elif kind < 0.8 and len(corners):
            # Somewhere on the cards' bodies or edges.
            c = corners[rng.integers(len(corners))]
            p = (c[0] + rng.uniform(-5, 60) * ppm, c[1] + rng.uniform(-10, 85) * ppm)
        else:
            p = (rng.uniform(0, w), rng.uniform(0, h))
        if len(corners) and np.min(np.hypot(corners[:, 0] - p[0], corners[:, 1] - p[1])) < 3.5 * ppm:
            continue
        crops.append(crop_at(z.image, p, ppm, float(rng.normal(0, 3))))
        labels.append(NONE_CLASS)
    return crops, labels


def deck_pool(designs: Sequence[str], n_font: int, font_seed0: int = 1000) -> list[Deck]:
    """The decks to draw from: the named designs and ``n_font`` synthetic font decks."""
    out = [load_deck(d) for d in designs]
    if n_font:
        from vision.models.font_decks import font_deck  # Pillow + fonts: training only

        out += [font_deck(font_seed0 + k) for k in range(n_font)]
    return out


def varied(deck: Deck, rng: np.random.Generator) -> Deck:
    """Half the time the deck as another printer would print it (stock, ink, blur)."""
    return reprint(deck, rng) if rng.random() < 0.5 else deck


def vary_crops(xb: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each crop as another deck might print the same index: bigger or smaller, set further in or
    out, bolder or thinner, softer, another red, another colour altogether; ``xb`` (N, H, W, 3) uint8, returns float32.

    Why: the rendered designs are few, and the network learned them whole (train accuracy 100 %)
    while reading unseen decks at 65–99 %; the ways decks differ in their index are what it must
    not lean on.  Each change is drawn per crop with probability ~1/3, so most crops stay as drawn.
    """
    out = np.empty(xb.shape, np.float32)
    corner = CROP_MARGIN_MM * CROP_PPM  # the card's corner, in crop pixels
    for i, img in enumerate(xb):
        img = img.copy()
        if rng.random() < 0.4:
            # Index size differs by deck (7–10 mm tall): scale about the card's corner.
            s = float(np.exp(rng.uniform(np.log(0.82), np.log(1.22))))
            a = np.radians(rng.normal(0.0, 2.0))
            c, si = np.cos(a) * s, np.sin(a) * s
            tx, ty = rng.uniform(-1.5, 1.5, 2)
            m = np.array([[c, -si, corner - c * corner + si * corner + tx],
                          [si, c, corner - si * corner - c * corner + ty]], np.float32)
            img = cv2.warpAffine(img, m, (CROP_W, CROP_H), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        r = rng.random()
        if r < 0.15:
            img = cv2.erode(img, np.ones((2, 2), np.uint8))  # bolder ink
        elif r < 0.3:
            img = cv2.dilate(img, np.ones((2, 2), np.uint8))  # thinner ink
        if rng.random() < 0.25:
            img = cv2.GaussianBlur(img, (0, 0), float(rng.uniform(0.4, 1.0)))
        if rng.random() < 0.3:
            # Another printer's red or black: hue a little off, colour stronger or paler.
            hsv = cv2.cvtColor(img, cv2.COLOR_BGR2HSV).astype(np.int16)
            hsv[..., 0] = (hsv[..., 0] + int(rng.integers(-8, 9))) % 180
            hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.6, 1.3), 0, 255)
            img = cv2.cvtColor(hsv.astype(np.uint8), cv2.COLOR_HSV2BGR)
        if rng.random() < 0.15:
            # A deck printing its suits in other colours: four-colour decks disagree (gnome's prints
            # spades blue, others diamonds), so the suit is its shape, never its ink's colour.  All
            # ink, black or red, takes one colour drawn anew (a hue turn would leave black black
            # and teach that blue ink is a red suit).
            f = img.astype(np.float32)
            paper = np.percentile(f.max(axis=2), 90)
            ink = np.clip(1.0 - f.min(axis=2, keepdims=True) / max(paper, 1.0), 0.0, 1.0)
            colour = rng.uniform(0.0, 200.0, 3).astype(np.float32)
            img = np.clip(f * (1.0 - ink) + ink * colour * (f.mean(axis=2, keepdims=True) / max(paper, 1.0) + 0.5),
                          0, 255).astype(np.uint8)
        out[i] = img
    return out
