"""A deck's enrolment: what the reader learns once from the faces of the deck in use.

Split from :mod:`vision.reader` (which re-exports every name here), because enrolment is a
separate job with its own life cycle: it runs once per deck, minutes before play, fits the
per-deck models (:mod:`vision.deck_model`) and the corner templates (:mod:`vision.corner_match`),
and is saved to a ``.npz`` file that the reader loads without pickle. The reader only reads an
:class:`Enrollment`; the helpers it shares with enrolment (input checks, the shipped models, the
one-BLAS-thread guard) stay in the reader and are imported where they are called, so importing
either module first works.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from .candidates import (
    PATCH_H,
    PATCH_W,
    WORK_PPM,
    Analysis,
    Candidate,
    analyse,
    patch_feature,
)
from .cards import ALL_CARDS, CARD_INDEX, RANKS, check_card
from .corner_match import CornerTemplates, corner_templates
from .deck_model import DeckClassifier, fit_deck_models
from .pip import PipModel, get_pip_model

if TYPE_CHECKING:
    from .reader import IndexModel



@dataclass
class Enrollment:
    """The deck in use: one index template per face, plus the card size."""

    templates: np.ndarray  # (54, PATCH_W*PATCH_H), zero-mean unit-norm
    present: np.ndarray  # (54,) bool: a template could be made
    size_mm: tuple[float, float]
    glyph_h_mm: float
    #: The index classifier for this deck, chosen at enrolment (see :mod:`vision.deck_model`): the
    #: shipped MLP fine-tuned on the deck's faces, or the shipped MLP itself when that reads the
    #: deck's validation rows better.  None (a face missing): shipped MLP plus template doubt.
    classifier: DeckClassifier | IndexModel | None = None
    #: (54,) mm from each face's left edge to its rank glyph (nan: face missing).  Gaps between
    #: card edges, not between indices, are then compared: a "10" sits closer to the edge than a "J".
    anchor_x_mm: np.ndarray | None = None
    #: The pip suit model for this deck, chosen the same way (the shipped one fine-tuned on the
    #: deck's pips, or the shipped one); None: the shipped one.
    pip_model: DeckClassifier | PipModel | None = None
    #: (54,) mm from each face's left edge to the "0" of its "10" (nan: not a ten, or none found).
    #: Where the reader finds a ten's "0" but not its "1" (the next card's border runs through
    #: the "1", or it merges with a printed border: tango), it reads the index from here.
    digit_x_mm: np.ndarray | None = None
    #: The faces' index corners, for the second opinion of :mod:`vision.corner_match` (None: an
    #: enrolment file written before it; the reader then goes without).
    corners: CornerTemplates | None = None
    #: Faces given to :func:`enroll` it could not learn, with why (card -> reason).  Those cards
    #: are read zero-shot; one bad face never costs the whole deck.  Not saved: a report.
    skipped: dict[str, str] = field(default_factory=dict)

    def save(self, path: str | Path) -> None:
        """Write the enrolment to an ``.npz`` file, so that the table service reads with it after a
        restart without refitting (``guandan-table vision enroll``; ``[vision] enrollment``).

        A per-deck model is stored whole (weights, normalisation, temperature); "the shipped model
        was better for this deck" is stored as that choice, and loads as the shipped model.
        """
        out: dict[str, np.ndarray] = {
            "format": np.array(ENROLLMENT_FORMAT), "templates": self.templates, "present": self.present,
            "size_mm": np.array(self.size_mm, np.float64), "glyph_h_mm": np.array(self.glyph_h_mm),
            "anchor_x_mm": self.anchor_x_mm if self.anchor_x_mm is not None else np.full(len(ALL_CARDS), np.nan),
            "digit_x_mm": self.digit_x_mm if self.digit_x_mm is not None else np.full(len(ALL_CARDS), np.nan)}
        if self.corners is not None:
            out.update(corner_grey=self.corners.grey, corner_offset=self.corners.offset,
                       corner_ppm=np.array(self.corners.ppm), corner_glyph=self.corners.glyph)
        for key, model in (("index", self.classifier), ("pip", self.pip_model)):
            kind = "none" if model is None else "own" if isinstance(model, DeckClassifier) else "shipped"
            out[f"{key}_kind"] = np.array(kind)
            if isinstance(model, DeckClassifier):
                for name in ("mean", "std", "w1", "b1", "w2", "b2"):
                    out[f"{key}_{name}"] = getattr(model, name)
                out[f"{key}_temperature"] = np.array(model.temperature)
        # Written beside and renamed into place: a crash mid-write never leaves half a file that
        # the service would refuse at its next start.
        tmp = Path(f"{path}.tmp")
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, **out)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | Path) -> Enrollment:
        """Read a file written by :meth:`save`.

        :raises ValueError: not an enrolment file, or one this version cannot read.
        """
        try:
            with np.load(path, allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
        except (OSError, ValueError, EOFError) as exc:
            # numpy's own text would suggest allow_pickle for a file that is not ours: an enrolment
            # file must never be loaded with pickle, so say what it is instead.
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a .npz enrolment file"
            raise ValueError(f"无法读取登记文件 / cannot read enrolment file {path}: {why}") from None
        if "format" not in data or str(data["format"]) != ENROLLMENT_FORMAT:
            raise ValueError(f"不是登记文件 / not an enrolment file (format {ENROLLMENT_FORMAT}): {path}")
        from .reader import get_model

        try:
            models: dict[str, object | None] = {}
            for key, shipped in (("index", get_model), ("pip", get_pip_model)):
                kind = str(data[f"{key}_kind"])
                if kind == "own":
                    models[key] = DeckClassifier(*(data[f"{key}_{n}"] for n in ("mean", "std", "w1", "b1", "w2", "b2")),
                                                 float(data[f"{key}_temperature"]))
                else:
                    models[key] = shipped() if kind == "shipped" else None
            size = data["size_mm"]
            return cls(data["templates"].astype(np.float32), data["present"].astype(bool),
                       (float(size[0]), float(size[1])), float(data["glyph_h_mm"]), models["index"],  # type: ignore[arg-type]
                       data["anchor_x_mm"].astype(np.float64), models["pip"],  # type: ignore[arg-type]
                       data["digit_x_mm"].astype(np.float64) if "digit_x_mm" in data else None,
                       CornerTemplates(data["corner_grey"].astype(np.uint8), data["corner_offset"].astype(np.float64),
                                       float(data["corner_ppm"]), data["corner_glyph"].astype(np.float64))
                       if "corner_grey" in data else None)
        except (KeyError, IndexError, TypeError, ValueError) as exc:
            raise ValueError(f"登记文件不完整 / enrolment file incomplete or damaged: {path}: {exc}") from exc


#: Version tag of :meth:`Enrollment.save` files.
ENROLLMENT_FORMAT = "guandan-table-enrollment-1"


def _unit(v: np.ndarray) -> np.ndarray:
    v = v - v.mean(axis=-1, keepdims=True)
    return v / np.maximum(np.linalg.norm(v, axis=-1, keepdims=True), 1e-6)


#: A blob starting within this distance (mm) of both the top and the left edge of a face is the
#: rounded corner of a printed border (what is left of it in the padded view), not an index.
CORNER_MM = 1.5


def face_anchor(face_bgr: np.ndarray, ppm: float = WORK_PPM) -> Candidate | None:
    """The rank glyph of a flat, upright card face (whole image = the card).

    The face is looked at twice: as it is, and padded with felt as a zone shows it (the card's
    edge, and with it a printed border drawn close to the edge, is then eroded away).  An index
    touching the printed border (tango's "10", 1.3 mm from the edge) merges with it in the first
    view, which then offers the suit pip below as the top-left glyph.  The index is the top-most
    glyph of the corner, so the padded view wins when its glyph sits higher by more than half a
    glyph; otherwise the first view decides (the two agree within 0.3 mm on the training designs).
    """
    h, w = face_bgr.shape[:2]
    found: list[Candidate] = []
    for pad in (0, int(12 * ppm)):
        if pad:
            felt = cv2.copyMakeBorder(face_bgr, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=(40, 110, 40))
            an = analyse(felt, ppm, second_pass=False)
        else:
            an = analyse(face_bgr, ppm, whole_card=True, second_pass=False)
        best = _top_left_glyph(an, pad, w, h, ppm)
        if best is not None:
            best.feature = patch_feature(an.ink, best)
            best.x -= pad
            best.y -= pad
            found.append(best)
    if not found:
        return None
    first = found[0]
    return next((c for c in found[1:] if c.y < first.y - 0.5 * first.h), first)


def _top_left_glyph(an: Analysis, pad: int, w: int, h: int, ppm: float) -> Candidate | None:
    best = None
    for c in an.candidates:
        cx, cy = c.x - pad, c.y - pad
        if cx < 0 or cy < 0 or (cx < CORNER_MM * ppm and cy < CORNER_MM * ppm) or cx > 0.22 * w or cy > 0.22 * h:
            continue
        if best is None or cy < best.y - pad - 1.0 * ppm or (abs(cy - (best.y - pad)) <= 1.0 * ppm and cx < best.x - pad):
            best = c
    return best


def second_digit(face_bgr: np.ndarray, anchor: Candidate, ppm: float = WORK_PPM) -> Candidate | None:
    """The "0" of a "10" on a flat, upright face whose rank glyph ``anchor`` :func:`face_anchor` found.

    The leftmost glyph right of the anchor's start (by more than 1 mm) with the anchor's top and
    height, within the anchor's box or just after it: the "0" printed apart from the "1", or cut
    from a "10" printed joined (tango) by the reader's strict second pass.  None when the face
    shows no such glyph.
    """
    an = analyse(face_bgr, ppm, whole_card=True, second_pass=True)
    best = None
    for c in an.candidates:
        if (c.x > anchor.x + 1.0 * ppm and abs(c.y - anchor.y) <= 0.15 * anchor.h
                and 0.7 * anchor.h <= c.h <= 1.3 * anchor.h and c.x <= anchor.x + anchor.w + 0.35 * anchor.h
                and (best is None or c.x < best.x)):
            best = c
    return best


#: A face's rank glyph this close (mm) to its rank's median place on the other faces is at that place.
RANK_PLACE_MM = 1.0


def enroll(faces: Mapping[str, np.ndarray], px_per_mm: float = 3.0) -> Enrollment:
    """Learn the deck in use from its faces (54, 52 without jokers, or any subset), each photographed
    flat and upright, cropped to the card.

    A face it cannot learn (no index found, an unreadable image) is reported in
    :attr:`Enrollment.skipped` and read zero-shot; the rest are enrolled.

    :raises ValueError: not a mapping of card names, a name that is not a card, or no face at all
        could be learnt.
    """
    from .reader import one_blas_thread

    with one_blas_thread():
        return _enroll(faces, px_per_mm)


def _enroll(faces: Mapping[str, np.ndarray], px_per_mm: float) -> Enrollment:
    from .reader import _as_bgr, _to_work, get_model

    if not isinstance(faces, Mapping) or not faces:
        raise ValueError("需要牌面字典 / enroll needs a dict of card name -> face image")
    templates = np.zeros((len(ALL_CARDS), PATCH_W * PATCH_H), np.float32)
    present = np.zeros(len(ALL_CARDS), bool)
    sizes, glyphs = [], []
    work_faces: dict[str, np.ndarray] = {}
    anchors: dict[str, tuple[float, float, float]] = {}
    digits: dict[str, float] = {}
    widths: dict[str, float] = {}
    skipped: dict[str, str] = {}
    for name, img in faces.items():
        card = check_card(name)
        try:
            bgr = _as_bgr(img, px_per_mm)
            work = _to_work(bgr, px_per_mm)
            c = face_anchor(work)
        except (ValueError, cv2.error) as exc:
            skipped[card] = f"牌面图像无效 / unusable face image: {exc}"
            continue
        if c is None:
            skipped[card] = f"在 {card} 上找不到角标 / no index found on the face of {card}"
            continue
        templates[CARD_INDEX[card]] = _unit(c.feature[: PATCH_W * PATCH_H])
        present[CARD_INDEX[card]] = True
        sizes.append((bgr.shape[1] / px_per_mm, bgr.shape[0] / px_per_mm))
        glyphs.append(c.h / WORK_PPM)
        work_faces[card] = work
        anchors[card] = (c.x / WORK_PPM, c.y / WORK_PPM, c.h / WORK_PPM)
        widths[card] = c.w / WORK_PPM
        d = second_digit(work, c) if card[0] == "T" else None
        if d is not None:
            digits[card] = d.x / WORK_PPM
    if not work_faces:
        raise ValueError("没有可登记的牌面 / no face could be enrolled: " + "; ".join(skipped.values()))
    size = tuple(float(v) for v in np.median(np.array(sizes), axis=0))
    # A ten whose "1" merged with a printed border offers its "0" as the rank glyph (tango 10c at
    # 2 px/mm: 8.7 mm from the edge, the other tens 1.3-2.0 mm): its "1" is where the other
    # tens' is.  Left so, the deck's model learnt the "0" as that ten and the corner expert
    # compared its corner 7 mm off (four 10c read 10s, certain, in 2,000 plays).
    tens = [c for c in anchors if c[0] == "T"]
    for card in tens:
        others = [anchors[c] for c in tens if c != card]
        if len(others) >= 2 and anchors[card][0] - float(np.median([a[0] for a in others])) > 3.0:
            digits.setdefault(card, anchors[card][0])
            ax = float(np.median([a[0] for a in others]))
            anchors[card] = (ax, anchors[card][1], anchors[card][2])
            widths[card] = float(np.median([widths[c] for c in tens if c != card]))
    # One rank's index is printed at one place on every suit: where a face's glyph box lies
    # within RANK_PLACE_MM of its rank's median, the difference is the glyph finder's (tango's
    # 10c at 3 px/mm took 0.7 mm of its border: its corner, compared 2 px off, lost to 10s's
    # 0.85 against 0.93 and a hidden 10c was read 10s, certain).
    for rank in RANKS:
        same = [c for c in anchors if c[0] == rank]
        if len(same) < 3:
            continue
        mx, my = (float(np.median([anchors[c][k] for c in same])) for k in (0, 1))
        for card in same:
            ax, ay, ah = anchors[card]
            if abs(ax - mx) <= RANK_PLACE_MM and abs(ay - my) <= RANK_PLACE_MM:
                anchors[card] = (mx, my, ah)
    # The per-deck classifier is fitted on whatever faces were learnt (52 without jokers, or
    # fewer): rows are rendered from those faces only, so a missing face is never taught as
    # "not an index"; its class keeps the shipped model's weights.  A deck enrolled without its
    # jokers and fitted no model read worse enrolled than not (issue #21).
    classifier, pip_model = fit_deck_models(get_model(), get_pip_model(), work_faces, anchors, WORK_PPM)
    anchor_x = np.full(len(ALL_CARDS), np.nan)
    for card, (ax, _ay, _ah) in anchors.items():
        anchor_x[CARD_INDEX[card]] = ax
    # The four tens share one "10": where the "0" could not be cut from a face's "10" (tango's
    # 10s, 10h and 10d are one blob at any threshold), it lies where it does on the other tens.
    digit_x = np.full(len(ALL_CARDS), np.nan)
    if digits:
        dx = float(np.median([x - anchors[card][0] for card, x in digits.items()]))
        for card in anchors:
            if card[0] == "T":
                digit_x[CARD_INDEX[card]] = digits.get(card, anchors[card][0] + dx)
    return Enrollment(templates, present, (size[0], size[1]), float(np.median(glyphs)), classifier, anchor_x,
                      pip_model, digit_x, corner_templates(work_faces, anchors, WORK_PPM, widths), skipped)
