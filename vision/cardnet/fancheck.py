"""Before the event: how the reader will do with an enrolled deck, told to the organiser at enrolment.

Why: some decks cannot be read from a fan whatever the reader does.  A deck that prints the suit
beside the card instead of under the rank (gnome's tango_nuevo) shows only the rank at its corner where
cards overlap; its pip cards' bodies tell their suit (the enrolment's own suit head reads them,
:mod:`vision.cardnet.deck_body`), but a court under the next card shows its suit nowhere, to a person
reading the fan no more than to the camera.  Such a deck sends many plays to the referee, and the
organiser should learn it when the deck is enrolled, not in the first round.

The check is the real reader (:func:`vision.cardnet.read.read_play` with the new head) on plays
rendered from the deck's own faces as the table shows them (fanned 12–25 mm, tilted, glare, blur,
noise, 2/3/4 px/mm in turn): the share of plays it would ask, cards it read wrong, and the pairs
of cards it could not tell apart.  It runs on rows it was not fitted on (its own seed).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from vision.artwork import Deck
from vision.cards import ALL_CARDS
from vision.synth import Realism, render_zone

from .deckfile import fan_check_problem
from .head import Head
from .read import PLAY_BAR, read_play

#: Plays read by the check: ~10 s on one core, and enough to tell a deck asked on one play in ten
#: from one meeting the enrolled goal of 2 % (at 2 %, 10 or more asked plays of 90 has a chance
#: under 0.1 %).
FAN_CHECK_PLAYS = 90
#: The organiser is warned above this share of plays asked: five times the enrolled goal, beyond
#: what sampling 90 plays can make of a deck that meets it (see :data:`FAN_CHECK_PLAYS`).
ASKED_WARN = 0.10
#: Scales the check's plays cycle through (px/mm): the cameras' range.
CHECK_PPM = (2.0, 3.0, 4.0)
#: Cards in a checked play, drawn like the enrolment's rows (a quarter of Guandan plays are lone cards).
PLAY_SIZES = (1, 1, 2, 3, 4, 5, 6, 8, 10)
#: How many of the most doubted pairs the check names.
TOP_PAIRS = 5


def check_fans(deck: Deck, head: Head, plays: int = FAN_CHECK_PLAYS, seed: int = 1) -> dict[str, Any]:
    """Read ``plays`` rendered plays of ``deck`` with ``head``; the figures, JSON-ready (see :func:`verdict`)."""
    rng = np.random.default_rng(seed)
    names = list(deck.faces)
    asked = silent = cards = right = 0
    doubted: Counter[tuple[str, str]] = Counter()
    suit_only = 0
    for k in range(plays):
        n = min(int(rng.choice(PLAY_SIZES)), len(names))
        truth = [names[i] for i in rng.choice(len(names), size=n, replace=False)]
        ppm = CHECK_PPM[k % len(CHECK_PPM)]
        z = render_zone(truth, deck, px_per_mm=ppm, seed=rng, realism=Realism())
        r = read_play(z.image, ppm, head)
        asked += r.uncertain
        silent += (r.cards != truth) and not r.uncertain
        cards += len(truth)
        if len(r.cards) == len(truth):
            right += sum(a == b for a, b in zip(r.cards, truth, strict=True))
        for c, p, alt in zip(r.cards, r.confidence, r.alternatives, strict=True):
            if p < PLAY_BAR and alt is not None:
                doubted[(c, alt)] += 1
                suit_only += _same_rank(c, alt)
    n_doubts = sum(doubted.values())
    return {"plays": plays, "faces": len(names), "asked": asked, "silent": silent, "cards": cards, "cards_right": right,
            "doubted_pairs": [[a, b, n] for (a, b), n in doubted.most_common(TOP_PAIRS)],
            "suit_only_doubts": suit_only, "doubts": n_doubts}


def _same_rank(a: str, b: str) -> bool:
    """Two suited cards of one rank (the doubt a corner without its suit leaves)."""
    return len(a) == len(b) == 2 and a[0] == b[0] and a[1] != b[1] and a not in ("SJ", "BJ") and b not in ("SJ", "BJ")


def verdict(check: dict[str, Any] | None) -> tuple[bool, str]:
    """(warn, text): what the organiser is told of a check, Chinese first.

    Never raises: :meth:`Enrollment.load <vision.cardnet.deckfile.Enrollment.load>` refuses a file
    whose record is ill-formed, and a record made otherwise (in memory) that is ill-formed is said to
    be so with a warning (what it would have warned of is unknown) instead of failing the hub's
    upload page, a table's start or the CLI with a KeyError.
    """
    if not check or (isinstance(check, dict) and check.get("plays") == 0):
        return False, "未做扇形检查 / no fan check made"
    problem = fan_check_problem(check)
    if problem is not None:
        return True, (f"扇形检查记录无效（{problem}），无法判断此牌组，请重新登记 / "
                      f"the fan check record is ill-formed ({problem}): "
                      "nothing can be said of this deck; enrol it again")
    plays = int(check["plays"])
    share = check["asked"] / plays
    per_card = check["cards_right"] / max(int(check["cards"]), 1)
    zh = [f"扇形检查：{plays} 手中约 {share:.0%} 需裁判确认，逐张识别 {per_card:.1%}，未确认而读错 {check['silent']} 手"]
    en = [f"fan check: about {share:.0%} of {plays} plays go to the referee, {per_card:.1%} of cards read right, "
          f"{check['silent']} read wrong unasked"]
    warn = share > ASKED_WARN
    faces = check.get("faces")
    if isinstance(faces, int) and not isinstance(faces, bool) and 0 < faces < len(ALL_CARDS):
        # The plays were made of the enrolled faces only: the figures say nothing of the others.
        warn = True
        zh.append(f"只登记了 {faces} 张牌面，检查只用这些牌；其余 {len(ALL_CARDS) - faces} 张按未登记的牌读")
        en.append(f"only {faces} faces enrolled and checked; the other {len(ALL_CARDS) - faces} are read as on a "
                  "deck never enrolled")
    if warn:
        pairs = ", ".join(f"{a}/{b}" for a, b, _ in check.get("doubted_pairs") or [])
        if pairs:
            zh.append(f"常混淆 {pairs}")
            en.append(f"most doubted {pairs}")
        if check.get("doubts") and 2 * check.get("suit_only_doubts", 0) >= check["doubts"]:
            zh.append("多为同点数不同花色：这套牌的角标可能不印花色，叠放时人也看不出，建议换用角标带花色的牌")
            en.append("mostly one rank in two suits: this deck's corner may not print the suit, which no one can "
                      "see where cards overlap; a deck with the suit under the rank is advised")
    text = "。".join(zh) + " / " + "; ".join(en)
    return warn, text
