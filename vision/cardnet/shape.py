"""A play's shape as evidence: players lay the shapes the rules allow.

Why: the classifier reads each card alone, so a five-card straight with one card at 95 % is a
play at 95 %, although the readings that 5 % stands for (a 3 where the 5 lies: "3 4 3 6 7") are
shapes no player lays.  Given the caller's test of a shape (``lawful``: is this a pattern at the
deal's level; the rules live in the table service, not here), the reading's probability is
re-weighed over the readings near it:

    P(R | image) = q(R) w(R) / sum over R' of q(R') w(R'),   w = 1 for a lawful shape, else ODDS

where q is the product of the cards' own (calibrated) probabilities.  Nothing is fitted: ODDS is
the prior weight of a shape the rules forbid against a lawful one, and a reading the classifier
is sure of keeps its probability whatever its shape (an illegal play laid is read as laid, and the
referee engine flags it).  The reading itself is never changed here, only how sure it is: a lawful
reading next to unlawful ones is surer, an unlawful reading next to lawful ones less sure (a
misread that would flag a foul nobody made is asked instead).

Readings are enumerated likeliest first, at most :data:`MAX_READINGS`; the mass left out is counted
as lawful, which can only make the chosen reading less sure.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from vision.cards import ALL_CARDS

#: The prior weight of a reading whose shape the rules forbid, against a lawful one.  Why this
#: value: competition players lay an unlawful shape far less than once in a hundred plays, and the
#: weight is per reading, while most readings of two or more cards are no pattern, so 0.01
#: undersells the evidence; docs/performance.md has the benchmark at 0.1, 0.01 and 0.001.
ODDS = 0.01
#: At most this many readings are tested (each a call to the rules, 6-20 µs): 512 asked one play fewer in
#: 1,080 and cost a 10-card bomb 4 ms more (docs/performance.md).
MAX_READINGS = 256
#: Readings are enumerated until those left out could move the chosen one's probability by at most
#: this share of itself (they are counted lawful, which only lowers it).
REST = 1e-3
#: How many of the likeliest weighed readings are kept (the panel offers four answers).
LIKELIEST = 4
#: Faces less likely than this for their card are never enumerated (their mass stays counted lawful).
#: Why so low: a reading that is no pattern weighs ODDS, so what is left out must be under ODDS x REST
#: of it for a foul read surely to stay sure; REST and MAX_READINGS end the search long before.
MIN_FACE_P = 1e-9

Lawful = Callable[[Sequence[str]], bool]


@dataclass(frozen=True)
class ShapeEvidence:
    """The chosen reading re-weighed by shape: its probability and each card's marginal."""

    #: P(the whole reading | image, shapes): the faces, and with ``weigh(present=)`` each card's
    #: presence too (without it, a card's presence is not in it).
    joint: float
    #: P(card i is the face chosen | image, shapes), per card (its presence included likewise).
    marginals: tuple[float, ...]
    #: Whether the chosen reading is itself a lawful shape.
    lawful: bool
    #: The likeliest readings once shapes are weighed (face indices per card, and probability), at
    #: most :data:`LIKELIEST`, likeliest first: the answers to offer the referee when the play is asked.
    likeliest: tuple[tuple[tuple[int, ...], float], ...] = ()


def _likeliest(p: np.ndarray, chosen: tuple[int, ...], weight: float) -> tuple[list[tuple[int, ...]], np.ndarray]:
    """The readings in order of their probability, the chosen one among them, and each one's
    probability: until the mass left out could move the chosen reading's weighed probability by
    at most :data:`REST` of itself (``weight``: the chosen reading's own, 1 or the odds), or
    :data:`MAX_READINGS` are taken.

    Best-first over each card's faces sorted by probability: a reading's successors raise one
    card, at or after the last one raised, to its next face, so each reading is reached once.
    """
    n = len(chosen)
    order = []
    for i in range(n):
        o = np.argsort(-p[i])
        order.append(o[: max(1, int((p[i, o] >= MIN_FACE_P).sum()))])
    vals = [p[i, order[i]] for i in range(n)]
    heap: list[tuple[float, tuple[int, ...], int]] = [(-float(np.prod([v[0] for v in vals])), (0,) * n, 0)]
    chosen_q = float(np.prod(p[np.arange(n), list(chosen)]))
    floor = REST * chosen_q * weight  # what the chosen reading weighs
    out: list[tuple[int, ...]] = [chosen]
    qs = [chosen_q]
    covered = chosen_q
    while heap and len(out) < MAX_READINGS and 1.0 - covered > floor:
        neg, at, last = heapq.heappop(heap)
        reading = tuple(int(order[i][at[i]]) for i in range(n))
        if reading != chosen:
            out.append(reading)
            qs.append(-neg)
            covered += -neg
        for i in range(last, n):
            if at[i] + 1 < len(order[i]):
                nxt = at[:i] + (at[i] + 1,) + at[i + 1:]
                heapq.heappush(heap, (neg / vals[i][at[i]] * vals[i][at[i] + 1], nxt, i))
    return out, np.array(qs)


#: In a reading, the index that stands for "no card lies at this corner" (after the 54 faces).
ABSENT = len(ALL_CARDS)


def weigh(faces_p: np.ndarray, chosen: Sequence[int], lawful: Lawful, odds: float | None = None,
          present: Sequence[float] | None = None) -> ShapeEvidence:
    """The chosen reading's probability once shapes are weighed (module docstring).

    ``faces_p``: (n, 54) each card's face probabilities given that a card lies there (rows sum to
    1); ``chosen``: the face index read for each card; ``lawful``: the caller's test of a shape.
    ``present``: each card's probability that a card lies there at all. Given, "no card here"
    (:data:`ABSENT`) is weighed beside the faces and ``joint`` and ``marginals`` include the cards'
    presence. Why: a spot of a deck's art read as a card makes a bomb of four tens five cards that
    are no pattern whatever that card's face (the learning bench, plastic seed 8: ``Tc 9c Ts Tc Ts``
    at 0.98, silent); weighing the faces alone could not doubt it, the four tens without it can.
    """
    odds = ODDS if odds is None else odds
    p = np.asarray(faces_p, np.float64)
    n = len(chosen)
    if n == 0:
        return ShapeEvidence(1.0, (), True, ((), 1.0))
    p = p / np.maximum(p.sum(axis=1, keepdims=True), 1e-300)
    if present is not None:
        there = np.clip(np.asarray(present, np.float64).reshape(n, 1), 0.0, 1.0)
        p = np.hstack([p * there, 1.0 - there])
    chosen_t = tuple(int(c) for c in chosen)
    tested: dict[tuple[str, ...], bool] = {}

    def is_lawful(idx: tuple[int, ...]) -> bool:
        key = tuple(sorted(ALL_CARDS[k] for k in idx if k != ABSENT))
        if key not in tested:
            tested[key] = bool(key) and bool(lawful(list(key)))  # no card at all is no play
        return tested[key]

    readings, q = _likeliest(p, chosen_t, 1.0 if is_lawful(chosen_t) else odds)
    w = np.array([1.0 if is_lawful(r) else odds for r in readings])
    qw = q * w
    # Readings not enumerated are counted lawful and keeping no chosen face: the chosen reading
    # and each card can only come out less sure for them.
    z = float(qw.sum()) + max(0.0, 1.0 - float(q.sum()))
    if z <= 0.0:
        return ShapeEvidence(0.0, tuple(0.0 for _ in chosen), bool(w[0] == 1.0))
    agree = ((np.array(readings) == np.array(chosen_t)) * qw[:, None]).sum(axis=0) / z
    top = np.argsort(-qw, kind="stable")[:LIKELIEST]
    return ShapeEvidence(float(qw[0]) / z, tuple(float(a) for a in agree), bool(w[0] == 1.0),
                         tuple((readings[k], float(qw[k]) / z) for k in top))
