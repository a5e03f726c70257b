"""The corner expert's decisions (enrolled decks only): what the faces' corners say about a read.

:mod:`vision.corner_match` compares a glyph's surroundings with the enrolled faces' corners
(normalised cross-correlation); these functions turn those scores into decisions: a card's odds
re-weighed, a suit settled, a card disowned or read from the corner alone, a hidden card found
where the count checks (:mod:`vision.row_count`) say one may be.  Every bar below carries what
it was measured on (docs/architecture.md, vision section, lists them with their reasons).
Split out of ``reader.py`` (issue 21).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

import numpy as np

from .candidates import WORK_PPM, Analysis, Candidate, patch_feature
from .cards import ALL_CARDS, CARD_INDEX
from .corner_match import CORNER_X_MM, CornerTemplates
from .index_classes import BG_CLASS, N_SHAPES, RED_CARDS, RED_HI, RED_LO, SUIT_PAIR, shape_class
from .row_count import MISSING_REASONS, NO_INDEX_REASON, _row_ends, _rows

if TYPE_CHECKING:
    from .deck_model import DeckClassifier
    from .reader import Enrollment, IndexModel

#: The corner expert (:mod:`vision.corner_match`): log-odds per unit of correlation, and the share
#: of the likeliest card's probability a card needs to be compared at all.  Chosen on index
#: candidates of 300 plays of the five training designs (seed 5): at 60, cards ranked wrong
#: 5 -> 2 of 2,138 and cards under 0.9 confidence 14 -> 6 (20: 5 and 10; 100: 2 and 4).  Raised
#: to 100 once the corner was compared only where it shows: 1,000 training-design plays (seed 5)
#: unchanged (12 uncertain, 0 silent), 600 held-out plays (seed 77) 18 -> 15 uncertain.
CORNER_WEIGHT = 100.0
CORNER_MIN_MASS = 1e-4
#: A card held at this share by the classifier and the pip is not compared (see read_play).
CORNER_SURE = 0.999
#: A suit doubt is settled when the corner sides with the card over its suit pair by this much.
CORNER_CLEAR = 0.02
#: A card whose corner trails another card's by this much is in doubt, however sure the classifier,
#: and so is one whose own corner correlates under CORNER_OWN_MIN.  On the training designs
#: (1,000 plays, seed 5) no rightly read card was under either bar (own corner >= 0.876, never
#: trailing by 0.02); the held-out designs' silent errors included 9c read 4c (own corner 0.50)
#: and 5s read Ks (trailing 9s by 0.03).
CORNER_VETO = 0.02
CORNER_OWN_MIN = 0.8
#: A corner ahead of its suit pair's by this much settles the suit (see _corner_settles_suit).
CORNER_SETTLE = 0.04
#: A chosen index the classifier partly takes for no index (p > BG_ASK) is one when the read
#: card's own corner correlates there at least CORNER_IS_INDEX (true corners: 1st percentile
#: 0.83-0.92 by design; a "0", a pip or a piece of art, where no corner starts: under 0.75).
BG_ASK = 0.001
CORNER_IS_INDEX = 0.9


#: Where a row without an index read is searched for its first card's glyph: this far (mm) right of
#: and below the blob's top-left.
UNREAD_ROW_MM = (16.0, 14.0)
#: A hidden card's glyph lies at least this far (mm) from its neighbours' (steps are >= 12 mm
#: between card edges, and glyphs sit 1-4 mm from the edge).
HIDDEN_MIN_STEP_MM = 7.0
#: ... and a corner found closer than this (mm) right of a ten read is that ten's "0", not a
#: hidden card (the "0" is 7.7 mm on in tango; other neighbours need only HIDDEN_MIN_STEP_MM).
HIDDEN_MIN_GAP_MM = 10.0
#: A corner found in such a place counts when the search (one face of each suit pair) finds it
#: at this correlation, and its best face then correlates this well.  See docs/performance.md.
FOUND_LOCATE_MIN = 0.7
FOUND_FACE_MIN = 0.85
#: Below this a doubtful blob is no card's corner (true corners: 1st percentile 0.83-0.92 by design).
BLOB_NOT_CORNER = 0.75


def _recover_hidden(corners: CornerTemplates, grey: np.ndarray, an: Analysis, chosen: list[Candidate],
                    names: list[str], enrollment: Enrollment, spacing: list[str],
                    classifier: DeckClassifier | IndexModel, probe: Iterable[tuple[Candidate, Candidate]] = (),
                    suspects: list[str] | None = None) -> list[tuple[Candidate, np.ndarray, dict[str, float]]]:
    """Cards whose corner is found where the count checks say one may hide, with their card
    probabilities: the index classifier's on the glyph box the corner puts there, times the
    corner expert's odds (colour from the ink); the corner's alone where the classifier takes
    that box for no index.  ``names``: the cards ``chosen`` read as; ``probe``: neighbouring pairs
    of ``chosen`` whose gap is searched too (see _probe_gaps); ``suspects``: gets the count checks'
    reason for each probed gap holding a corner too unclear to read there.
    """
    ppm = WORK_PPM
    step = HIDDEN_MIN_STEP_MM * ppm
    gh = enrollment.glyph_h_mm * ppm
    read = sorted(zip(chosen, names, strict=True), key=lambda t: t[0].x)
    row = [c for c, _ in read]
    # (x range, y range, only probed: no count check asked for a card there)
    areas: list[tuple[tuple[float, float], tuple[float, float], bool]] = []
    if NO_INDEX_REASON in spacing:
        # A blob of paper with no index read: its first card's glyph lies within reach of the
        # blob's top-left (a card turned 6° puts its foot 9 mm left of its top-left corner and
        # its far top corner 7 mm above it).
        for (x, y, _w, _h), inside in _rows(row, an):
            if not inside:
                areas.append(((x, x + UNREAD_ROW_MM[0] * ppm), (y, y + UNREAD_ROW_MM[1] * ppm), False))
    if MISSING_REASONS[0] in spacing:
        left, _ = _row_ends(row[0], an.cards_mask, ppm)
        areas.append(((left, row[0].x - step), (row[0].y - 5 * ppm, row[0].y + 5 * ppm), False))
    probed = {(id(a), id(b)) for a, b in probe}
    for a, b in zip(row, row[1:], strict=False):
        if (MISSING_REASONS[1] in spacing or (id(a), id(b)) in probed) and b.x - a.x >= 2 * step:
            areas.append(((a.x + step, b.x - step), (min(a.y, b.y) - 4 * ppm, max(a.y, b.y) + 4 * ppm),
                          MISSING_REASONS[1] not in spacing))
    if MISSING_REASONS[2] in spacing:
        _, right = _row_ends(row[-1], an.cards_mask, ppm)
        last_edge = right - (enrollment.size_mm[0] - 12.0) * ppm
        areas.append(((row[-1].x + step, last_edge), (row[-1].y - 5 * ppm, row[-1].y + 5 * ppm), False))
    found: list[tuple[Candidate, np.ndarray, dict[str, float]]] = []
    for xs, ys, only_probed in areas:
        if xs[1] < xs[0]:
            continue
        hit = corners.find(grey, xs, ys)
        if hit is None or hit[0] < FOUND_LOCATE_MIN:
            continue
        _, lead, gx, gy = hit
        known = read + [(f[0], ALL_CARDS[int(np.argmax(f[1]))]) for f in found]
        if any(abs(gy - c.y) < 10 * ppm and (abs(gx - c.x) < step or (name[0] == "T" and 0 < gx - c.x < HIDDEN_MIN_GAP_MM * ppm))
               for c, name in known):
            # A card already read: the area's edge leaves room for the faces' offsets, and a
            # ten's corner correlates well where its "0" is (7.7 mm on, tango).  Closer than
            # one step otherwise: a hidden card's glyph was 7.2-9.3 mm from a neighbour's in
            # 6 of 8 held-out tango plays the search missed with a 10 mm guard for every card.
            continue
        right = [(c, name) for c, name in known if c.x > gx + step]
        nxt = min(right, key=lambda t: t[0].x) if right else None
        vis = _visible_width(corners, gx, nxt[0], CARD_INDEX[nxt[1]]) if nxt else None
        sc = corners.scores(grey, gx, gy, [lead] + [c for c in ALL_CARDS if c != lead], vis)
        if sc and max(sc, key=sc.__getitem__) != lead:
            # Compared again aligned with the best face (the lead is one face of its suit pair).
            lead = max(sc, key=sc.__getitem__)
            sc = corners.scores(grey, gx, gy, [lead] + [c for c in ALL_CARDS if c != lead], vis)
        if not sc or max(sc.values()) < FOUND_FACE_MIN:
            continue
        if only_probed and not _corner_stands_out(sc):
            # Where no count check asked for a card, the corner must carry it alone (a plastic
            # joker's corner, 0.855 and 0.849 for the other joker, was found in a 5♥'s art and
            # read, certain); a corner that does not is a doubt, not a card (a tango 3♣ with 3.7 mm
            # visible: 0.889 against 3♦'s 0.858).
            if suspects is not None:
                suspects.append(MISSING_REASONS[1])
            continue
        # Colour: the redness of the ink where the glyph is.
        y0, x0 = max(int(gy), 0), max(int(gx), 0)
        box_ink = an.ink[y0:y0 + int(gh), x0:x0 + int(0.8 * gh)] > 0.45
        rd = float(an.red[y0:y0 + int(gh), x0:x0 + int(0.8 * gh)][box_ink].mean()) if box_ink.any() else 0.0
        p_red = float(np.clip((rd - RED_LO) / (RED_HI - RED_LO), 0.0, 1.0))
        best = max(sc, key=sc.__getitem__)
        k, kl = CARD_INDEX[best], CARD_INDEX[lead]
        gw, gh_k = corners.glyph[k] if corners.glyph is not None else (0.8 * gh, gh)
        # The best face's own glyph box, moved from the lead face's by their offsets.
        c = Candidate(gx + float(corners.offset[k, 0] - corners.offset[kl, 0]),
                      gy + float(corners.offset[k, 1] - corners.offset[kl, 1]), float(gw), float(gh_k), rd, -1, source=-2)
        probs = classifier.probs(patch_feature(an.ink, c)[None])[0]
        card_p = np.ones(len(ALL_CARDS))
        if probs[BG_CLASS] < 0.5:
            shape_p = probs[:N_SHAPES] / max(float(probs[:N_SHAPES].sum()), 1e-12)
            card_p = np.array([shape_p[shape_class(cd)] for cd in ALL_CARDS])
        p = np.zeros(len(ALL_CARDS))
        for red, share in ((True, p_red), (False, 1.0 - p_red)):
            ks = [CARD_INDEX[cd] for cd in sc if RED_CARDS[CARD_INDEX[cd]] == red]
            if not ks or share <= 0:
                continue
            v = np.array([sc[ALL_CARDS[j]] for j in ks])
            e = card_p[ks] * np.exp(CORNER_WEIGHT * (v - v.max()))
            if e.sum() > 0:
                p[ks] = share * e / e.sum()
        found.append((c, p, sc))
    return found


#: Left of the next card's edge kept out of a corner's comparison (mm): its border line and shadow,
#: and the two cards' different turns over the corner's height (±6° each, 2° apart typically).
VISIBLE_MARGIN_MM = 2.0


def _visible_width(corners: CornerTemplates, x: float, nxt: Candidate, k: int) -> float:
    """How far right of ``x`` (a glyph's left, work px) a card shows before the next card, whose
    glyph is ``nxt`` and likeliest class ``k``, covers it (less ``VISIBLE_MARGIN_MM``)."""
    present = corners.present
    off = float(corners.offset[k, 0]) if present[k] else (
        float(np.median(corners.offset[present, 0])) if present.any() else 0.0)
    edge = nxt.x - off - CORNER_X_MM[0] * WORK_PPM
    return edge - x - VISIBLE_MARGIN_MM * WORK_PPM


def _corner_settles_suit(card: str, sc: Mapping[str, float]) -> bool:
    """Whether the corner scores ``sc`` settle the suit of ``card`` against its suit pair: the
    card's own corner is the best compared, at least FOUND_FACE_MIN, and ahead of the pair's by
    CORNER_SETTLE."""
    own, pair = sc.get(card), sc.get(SUIT_PAIR[card])
    return (own is not None and pair is not None and own >= FOUND_FACE_MIN and own >= max(sc.values())
            and own - pair >= CORNER_SETTLE)


def _corner_disowns(card: str, sc: Mapping[str, float]) -> bool:
    """Whether the corner scores ``sc`` say the glyph is not ``card``: its own corner is under
    CORNER_OWN_MIN, or another face's (at least FOUND_FACE_MIN) leads it by CORNER_VETO."""
    if card not in sc:
        return False
    top = max(sc.values())
    return sc[card] < CORNER_OWN_MIN or (top >= FOUND_FACE_MIN and top - sc[card] >= CORNER_VETO)


#: A card the classifier gave under this share, read from the corner compared with every face, is
#: in doubt (see _read_play) unless the corner reads it alone (see _corner_reads).
OVERRULED_MASS = 0.01
#: ... by this much ahead of every other face.
CORNER_READS_LEAD = 0.03


def _corner_stands_out(sc: Mapping[str, float]) -> bool:
    """Whether the best face of ``sc`` (every face compared) correlates at least CORNER_IS_INDEX and
    leads every face but its suit pair (its own suit is the pip's to settle) by CORNER_READS_LEAD."""
    best = max(sc, key=sc.__getitem__)
    others = [v for k, v in sc.items() if k not in (best, SUIT_PAIR.get(best))]
    return sc[best] >= CORNER_IS_INDEX and (not others or sc[best] - max(others) >= CORNER_READS_LEAD)


def _corner_reads(card: str, sc: Mapping[str, float], pip_sc: Mapping[str, float]) -> bool:
    """Whether the corner alone reads ``card``: compared with every face (``sc``), its own corner
    correlates at least CORNER_IS_INDEX and leads every other face by CORNER_READS_LEAD, and for a
    suited card the part below the glyph settles its suit (see _pip_settles_suit).

    Why: where the classifier all but ruled the card out, the corner has to carry it alone.  On
    held-out plays of seeds 77 and 88 the corner read so the right card every time (tango 5s and
    3s read as 10s by the classifier: the corner led by 0.03-0.10), and the one it read wrong
    (a tango 5♠ at 0.883) is under the bar.
    """
    own = sc.get(card)
    if own is None or own < CORNER_IS_INDEX or len(sc) < 2:
        return False
    if own - max(v for k, v in sc.items() if k != card) < CORNER_READS_LEAD:
        return False
    return card not in SUIT_PAIR or _pip_settles_suit(card, pip_sc)
#: Share of a candidate's probability every card keeps when the corner is compared with every
#: face (see _with_every_corner): a corner must lead by ln(1/EVERY_FLOOR)/CORNER_WEIGHT (0.07)
#: to overrule the classifier.
EVERY_FLOOR = 1e-3


def _with_every_corner(corners: CornerTemplates, grey: np.ndarray, c: Candidate, p: np.ndarray,
                       visible: float | None) -> tuple[np.ndarray, dict[str, float]]:
    """``p`` re-weighed by the corner compared with every enrolled face, for a glyph whose corner
    disowns the classifier's card (see _corner_disowns).

    Why: there the classifier's mistake is a rank (tango 5 read as 10, 9 as 4, 5 as K), so the
    right card is not among those :func:`_with_corner` compares.  Every card keeps EVERY_FLOOR of
    the mass, so a corner clearly ahead can overrule a classifier that gave the card nothing.
    Each rank's faces are aligned on their own (its likeliest face leads the search): aligned
    with the classifier's wrong card, a tango 5 mostly under the next card matched no face
    better than 0.67.
    """
    mass = float(p.sum())
    present = [ALL_CARDS[k] for k in np.argsort(p)[::-1] if corners.present[k]]
    if mass <= 0 or len(present) < 2:
        return p, {}
    ranks: dict[str, list[str]] = {}
    for card in present:  # likeliest first within each rank
        ranks.setdefault("joker" if card in ("SJ", "BJ") else card[0], []).append(card)
    # A box much shorter than the deck's glyphs is a piece of one (the top of a 5 whose bowl is
    # under the next card): its glyph may also start as far above as the missing height.
    gh = float(np.nanmedian(corners.glyph[:, 1])) if corners.glyph is not None else c.h
    sc: dict[str, float] = {}
    for y in (c.y, c.y + c.h - gh) if c.h < 0.85 * gh else (c.y,):
        for faces in ranks.values():
            for card, v in corners.scores(grey, c.x, y, faces, visible).items():
                sc[card] = max(v, sc.get(card, -1.0))
    if len(sc) < 2:
        return p, sc
    top = max(sc.values())
    w = np.zeros(len(p))
    for card, v in sc.items():
        w[CARD_INDEX[card]] = math.exp(CORNER_WEIGHT * (v - top))
    # The floor is shared within each colour by that colour's mass: the ink's redness stays the
    # judge of colour (a black 9 whose pip was rubbed out matched a 9♥'s corner best).
    floor = EVERY_FLOOR * np.where(RED_CARDS, float(p[RED_CARDS].sum()), float(p[~RED_CARDS].sum()))
    q = (p + floor) * w
    if float(q.sum()) <= 0:
        return p, sc
    return q * (mass / float(q.sum())), sc


#: The pip below the rank glyph settles a suit when the card's corner there leads its suit pair's
#: by PIP_SETTLE and correlates at least PIP_OWN_MIN (see _pip_settles_suit).
PIP_SETTLE = 0.03
PIP_OWN_MIN = 0.8


def _with_pip_corner(corners: CornerTemplates, grey: np.ndarray, c: Candidate, p: np.ndarray,
                     visible: float | None) -> tuple[np.ndarray, dict[str, float]]:
    """``p`` with the split between the likeliest card and its suit pair re-weighed by their
    corners compared below the rank glyph (``CornerTemplates.scores(pip=True)``), and those scores.

    Why: two suits of one colour differ only in the pip, which is a small part of the whole
    corner; on tango's tens the whole corner told 10♣ from 10♠ by 0.00-0.02 and left the suit in
    doubt, while the part below the glyph led by 0.02 or more on 99 % of suited cards.
    """
    card = ALL_CARDS[int(np.argmax(p))]
    pair = SUIT_PAIR[card]
    sc = corners.scores(grey, c.x, c.y, [card, pair], visible, pip=True)
    if card not in sc or pair not in sc:
        return p, sc
    a, b = CARD_INDEX[card], CARD_INDEX[pair]
    mass = p[a] + p[b]
    wa, wb = p[a], p[b] * math.exp(CORNER_WEIGHT * (sc[pair] - sc[card]))
    if wa + wb <= 0:
        return p, sc  # neither suit holds any probability: nothing to split
    q = p.copy()
    q[a], q[b] = mass * wa / (wa + wb), mass * wb / (wa + wb)
    return q, sc


def _pip_settles_suit(card: str, sc: Mapping[str, float]) -> bool:
    """Whether the pip-part corner scores ``sc`` (see _with_pip_corner) settle ``card``'s suit."""
    own, pair = sc.get(card), sc.get(SUIT_PAIR.get(card, ""))
    return own is not None and pair is not None and own >= PIP_OWN_MIN and own - pair >= PIP_SETTLE


def _corner_there(corners: CornerTemplates, grey: np.ndarray, c: Candidate, p: np.ndarray) -> bool:
    """Whether a card's corner may start at blob ``c``: its three likeliest cards' corners (by
    ``p``) correlate there at least ``BLOB_NOT_CORNER``."""
    likely = [ALL_CARDS[k] for k in np.argsort(p)[::-1][:3]]
    sc = corners.scores(grey, c.x, c.y, likely)
    return not sc or max(sc.values()) >= BLOB_NOT_CORNER


def _with_corner(corners: CornerTemplates, grey: np.ndarray, c: Candidate,
                 p: np.ndarray, visible: float | None = None) -> tuple[np.ndarray, dict[str, float]]:
    """``p`` (one candidate's card probabilities) times the corner expert's odds, and the
    correlations (card -> r) behind them.

    The cards compared are those holding at least ``CORNER_MIN_MASS`` of the likeliest one's
    probability, and the likeliest one's suit pair (the commonest confusion).  Each is weighted
    by exp(CORNER_WEIGHT * correlation); cards not compared count as the worst compared one.
    """
    mass = float(p.sum())
    if mass <= 0:
        return p, {}
    order = np.argsort(p)[::-1]
    keep = [ALL_CARDS[k] for k in order if p[k] >= CORNER_MIN_MASS * p[order[0]]]
    pair = SUIT_PAIR.get(keep[0])
    if pair is not None and pair not in keep:
        keep.append(pair)
    if len(keep) < 2:
        return p, {}
    sc = corners.scores(grey, c.x, c.y, keep, visible)
    if len(sc) < 2:
        return p, sc
    top, low = max(sc.values()), min(sc.values())
    w = np.full(len(p), math.exp(CORNER_WEIGHT * (low - top)))
    for card, v in sc.items():
        w[CARD_INDEX[card]] = math.exp(CORNER_WEIGHT * (v - top))
    q = p * w
    return q * (mass / float(q.sum())), sc
