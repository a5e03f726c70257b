"""Enrolment: fit the classifier's last layer to one deck, from that deck's own faces.

From the faces (photographed flat, or found on the table by :mod:`vision.enroll_table`), zones
of *that* deck are rendered exactly as the training zones were — fanned rows at 1.9–4.3 px/mm,
overlap, tilt, light, glare, blur, noise, JPEG — and the head is refitted on the crops' embeddings
(:func:`vision.cardnet.head.fit_head`).  The same rows' body strips fit the deck's own suit head
(:mod:`vision.cardnet.deck_body`: a deck whose corner prints no suit), and lone cards rendered from the
faces tell whether it prints an index at its far corner.  About 1.7 minutes of one core here; the
result is one small file.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import cv2
import numpy as np

from vision.artwork import CARD_HEIGHT_MM, FACE_PX_PER_MM, Deck
from vision.cards import ALL_CARDS, CARD_INDEX, check_card
from vision.synth import Realism, render_zone

from . import fancheck
from .body import strips_at
from .deck_body import card_group, fit_deck_body
from .deckfile import Enrollment
from .detector import detect
from .head import Head, fit_face_temperature, fit_head
from .read import as_bgr, default_head, embed, far_corner
from .spec import NONE_CLASS, body_class

#: The enrolment renders fanned rows like the training set (a little wider than play).
ENROL_REALISM = Realism(overlap_mm=(10.0, 30.0), rotation_deg=7.0, rectify_px=4.0)
#: Rows fitted on per enrolment (each 1–10 cards; a quarter as many more are rendered to calibrate):
#: ~10,000 labelled crops, 3,800 of them cards; with the rest, 80–111 s of CPU here (a Pi 4 or 5:
#: 3–7 min, within the 10 minutes an enrolment may take).  The fit runs a fixed number of steps, so
#: more rows are fewer passes over each crop (18 at 800 rows, 56 at 260).  Over six benchmark seeds
#: 260 rows asked 2.50 % of enrolled plays (6.00 % on the worst seed) and 800 asked 1.72 % (2.83 %);
#: 1,600 asked 36 plays on the two seeds tried, against 27 at 800 (docs/performance.md, 2026-12-04, night).
ENROL_ROWS = 800
#: Optimisation steps of the enrolment's fit (~4 s here).  500 left plastic's clubs at 0.92–0.97 (candidate F)
#: where 1,500 reads them sure: a deck's own crops are worth the full fit.
ENROL_STEPS = 1500


def deck_from_faces(faces: Mapping[str, np.ndarray], skipped: dict[str, str]) -> Deck:
    """A renderable :class:`Deck` from photographed faces (opaque, one common size, ~6 px/mm)."""
    if not isinstance(faces, Mapping) or not faces:
        raise ValueError("需要牌面字典 / enroll needs a dict of card name -> face image")
    good: dict[str, np.ndarray] = {}
    for card, img in faces.items():
        check_card(card)
        try:
            bgr = as_bgr(img, 1.0)
        except ValueError as e:
            skipped[card] = str(e)
            continue
        h, w = bgr.shape[:2]
        if not 0.5 <= w / h <= 0.9:
            skipped[card] = f"不像一张竖放的牌（{w}x{h} 像素） / not an upright card face ({w}x{h} px)"
            continue
        good[card] = bgr
    if not good:
        raise ValueError("没有可登记的牌面 / no face could be enrolled: " + "; ".join(f"{k}: {v}" for k, v in skipped.items()))
    ratio = float(np.median([f.shape[1] / f.shape[0] for f in good.values()]))
    # Photographed faces scaled to the card height and the face resolution of the rendered decks.
    h = int(round(CARD_HEIGHT_MM * FACE_PX_PER_MM))
    w = int(round(h * ratio))
    out = {c: np.dstack([cv2.resize(f, (w, h), interpolation=cv2.INTER_AREA), np.full((h, w), 255, np.uint8)])
           for c, f in good.items()}
    return Deck("enrolled", out, (w / FACE_PX_PER_MM, float(CARD_HEIGHT_MM)))


def enrol_head(faces: Mapping[str, np.ndarray], *, base: Head | None = None, rows: int | None = None,
               seed: int = 0, name: str = "enrolled") -> tuple[Head, dict[str, str]]:
    """The deck's own head, and the faces that could not be used (card -> why)."""
    skipped: dict[str, str] = {}
    deck = deck_from_faces(faces, skipped)
    return fit_deck_head(deck, base=base, rows=rows, seed=seed, name=name), skipped


def fit_deck_head(deck: Deck, *, base: Head | None = None, rows: int | None = None, seed: int = 0,
                  name: str = "enrolled") -> Head:
    """The head fitted to crops of ``deck`` rendered as a table shows them, calibrated on other rows, with
    the deck's own suit head and whether it prints a far index (the shipped head where it reads the deck
    better, as it is)."""
    base = base or default_head()
    rng = np.random.default_rng(seed)
    rows = rows if rows is not None else ENROL_ROWS  # read at call time: tests shorten it
    # The strips' own stream: the head is fitted on the very crops it was before strips were cut.
    strip_rng = np.random.default_rng([seed, 1])
    fit = _rendered_crops(deck, rows, rng, strip_rng=strip_rng)
    val = _rendered_crops(deck, max(rows // 4, 2), rng, strip_rng=strip_rng)
    head = fit_head(fit.emb, fit.labels, base, origin=name, seed=seed, steps=ENROL_STEPS)  # read now: tests shorten it
    # The faces it never saw stay the shipped head's to read (Head.known says why).
    head = head.knowing_cards(deck.faces.keys())
    # Calibrated on rows it was not fitted on, over the faces; never surer than the shipped head
    # was on unseen designs (the enrolment's rows are cleaner than a table: the faces are the deck's own).
    head = head.with_temperature(fit_face_temperature(head, val.emb, val.labels, base.temperature))
    if _accuracy(base, val.emb, val.labels) > _accuracy(head, val.emb, val.labels):
        return base  # the shipped head already reads this deck better
    body = fit_deck_body(fit.strips, fit.strip_cls, val.strips, val.strip_cls, val.strip_group, deck.size_mm[0],
                         seed=seed, known=np.array([c in deck.faces for c in ALL_CARDS]))
    head = replace(head, body=body)
    return replace(head, far_index=prints_far_index(deck, head, strip_rng))


#: Lone cards read to learn whether a deck prints an index at its far corner (:func:`prints_far_index`).
FAR_INDEX_CARDS = 18


def prints_far_index(deck: Deck, head: Head, rng: np.random.Generator, cards: int = FAR_INDEX_CARDS) -> bool | None:
    """Whether ``deck`` prints an index at a card's far (bottom-right) corner, turned: the far corner of
    lone cards rendered from its faces is found on most of them; None where none could be looked at.

    Why a majority and no finer bar: a deck prints that index on every card or on none, and the
    reader finds it on nearly every lone card of a deck that prints it."""
    names = list(deck.faces)
    seen = looked = 0
    for _ in range(cards):
        ppm = float(rng.uniform(2.0, 4.0))
        r = render_zone([names[int(rng.integers(len(names)))]], deck, px_per_mm=ppm, seed=rng, realism=ENROL_REALISM)
        x, y = r.to_image(r.placements[0].to_scene(np.array([[0.0, 0.0]])))[0]
        near = [c for c in detect(r.image, ppm).corners if math.hypot(c.x - x, c.y - y) <= 4.0 * ppm]
        if not near:
            continue
        far = far_corner(r.image, ppm, head, near[0])
        looked += far.looked
        seen += far.looked and far.face is not None
    return None if not looked else 2 * seen > looked


def seen_face_crops(faces: Mapping[str, np.ndarray], new: Sequence[str], rows: int,
                    rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Embeddings and labels of ``rows`` rows rendered from the faces a table has seen whole, each row
    holding one of the ``new`` faces (the ones not rendered before): what
    :class:`vision.cardnet.online.PlayLearner` learns the deck from besides its labels (the watcher
    passes this in; the learner sits below the renderer)."""
    deck = deck_from_faces(faces, {})
    got = _rendered_crops(deck, rows, rng, must=[c for c in new if c in deck.faces])
    return got.emb, got.labels


@dataclass
class _Rows:
    """What an enrolment learns from rendered rows: crops' embeddings and labels, and where asked, each
    card's body strip (:mod:`vision.cardnet.deck_body`) with its class and calibration group."""

    emb: np.ndarray
    labels: np.ndarray
    strips: np.ndarray
    strip_cls: np.ndarray
    strip_group: np.ndarray


def _rendered_crops(deck: Deck, rows: int, rng: np.random.Generator, must: Sequence[str] = (),
                    strip_rng: np.random.Generator | None = None) -> _Rows:
    """Embeddings and labels of crops from ``rows`` fanned rows of ``deck`` rendered as a table shows
    them; with ``must``, each row holds one of those faces.  With ``strip_rng``, each card's body
    strip too, cut within 1 mm of its corner (the detector's 90th percentile) drawn from that stream."""
    names = list(deck.faces)
    embs, labels = [], []
    strips, strip_cls, strip_group = [], [], []
    for k in range(rows):
        n = int(rng.choice([1, 1, 2, 3, 4, 5, 6, 8, 10]))
        cards = [names[i] for i in rng.choice(len(names), size=min(n, len(names)), replace=False)]
        if must:
            first = must[k % len(must)]
            cards = [c for c in cards if c != first][: max(len(cards) - 1, 0)]
            cards.insert(int(rng.integers(len(cards) + 1)), first)
        ppm = float(rng.uniform(1.9, 4.3))
        r = render_zone(cards, deck, px_per_mm=ppm, seed=rng, realism=ENROL_REALISM)
        corners = [tuple(r.to_image(p.to_scene(np.array([[0.0, 0.0]])))[0]) for p in r.placements]
        pts = [(x + rng.uniform(-1.5, 1.5) * ppm, y + rng.uniform(-1.5, 1.5) * ppm) for x, y in corners]
        labs = [CARD_INDEX[c] for c in cards]
        # "No corner here" examples on this deck's own art: near misses around a corner, and the
        # bodies of the cards, above all the last card's, which lies whole in view (its top-right
        # and its turned index are where an enrolled head first took art for a corner).
        for k in range(4):
            i = len(corners) - 1 if k % 2 == 0 else int(rng.integers(len(corners)))
            c = corners[i]
            if k < 2:
                d, a = rng.uniform(5.0, 25.0) * ppm, rng.uniform(0, 2 * math.pi)
                p = (c[0] + d * math.cos(a), c[1] + abs(d * math.sin(a)))
            else:
                p = (c[0] + rng.uniform(-5.0, deck.size_mm[0]) * ppm, c[1] + rng.uniform(-10.0, deck.size_mm[1]) * ppm)
            if min(math.hypot(p[0] - q[0], p[1] - q[1]) for q in corners) > 4.0 * ppm:
                pts.append(p)
                labs.append(NONE_CLASS)
        # And every spot of this deck the detector itself takes for a corner and is none: the
        # spots that, unlearned, leave a play in doubt at the table (a court's art, a wide "10").
        for c in detect(r.image, ppm).corners:
            if min(math.hypot(c.x - q[0], c.y - q[1]) for q in corners) > 4.0 * ppm:
                pts.append((c.x, c.y))
                labs.append(NONE_CLASS)
        embs.append(embed(r.image, pts, ppm))
        labels += labs
        if strip_rng is not None:
            at = [(x + strip_rng.uniform(-1.0, 1.0) * ppm, y + strip_rng.uniform(-1.0, 1.0) * ppm) for x, y in corners]
            last = [i == len(cards) - 1 for i in range(len(cards))]
            strips.append(strips_at(r.image, at, ppm, last, deck.size_mm[0]))
            strip_cls += [body_class(c) for c in cards]
            strip_group += [card_group(c, is_last) for c, is_last in zip(cards, last, strict=True)]
    return _Rows(np.concatenate(embs), np.array(labels), np.concatenate(strips) if strips else np.zeros((0, 0), np.float32),
                 np.array(strip_cls, np.int64), np.array(strip_group, np.int64))


def _accuracy(head: Head, x: np.ndarray, y: np.ndarray) -> float:
    return float((head.logits(x).argmax(axis=1) == y).mean())


def enroll(faces: Mapping[str, np.ndarray], px_per_mm: float = 3.0, *, rows: int | None = None,
           seed: int = 0, check_plays: int | None = None) -> Enrollment:
    """Learn the deck in use from its faces (54, 52 without jokers, or any subset), each photographed
    flat and upright, cropped to the card.

    A face it cannot use (an unreadable image, not card-shaped) is reported in
    :attr:`Enrollment.skipped`; that card is still read by the shipped head's knowledge.
    ``check_plays`` plays rendered from the faces are then read with the new head
    (:mod:`vision.cardnet.fancheck`, :attr:`Enrollment.check`): what the organiser is told of the
    deck before the event; None: :data:`vision.cardnet.fancheck.FAN_CHECK_PLAYS`; 0 makes no check.

    :raises ValueError: not a mapping of card names, a name that is not a card, or no usable face.
    """
    if isinstance(px_per_mm, bool) or not isinstance(px_per_mm, int | float) or not 0.5 <= px_per_mm <= 50:
        raise ValueError(f"px_per_mm 超出范围：{px_per_mm!r} / px_per_mm out of range: {px_per_mm!r}")
    check_plays = fancheck.FAN_CHECK_PLAYS if check_plays is None else check_plays  # read now: tests shorten it
    if isinstance(check_plays, bool) or not isinstance(check_plays, int) or not 0 <= check_plays <= 10_000:
        raise ValueError(f"check_plays 须为 0–10000，收到 {check_plays!r} / "
                         f"check_plays must be 0-10000, got {check_plays!r}")
    skipped: dict[str, str] = {}
    deck = deck_from_faces(faces, skipped)
    head = fit_deck_head(deck, rows=rows, seed=seed)
    check = fancheck.check_fans(deck, head, check_plays, seed=seed + 1) if check_plays else None
    return Enrollment(head, tuple(c for c in faces if c not in skipped), skipped, check)
