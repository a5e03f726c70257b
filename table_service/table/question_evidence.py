"""What a doubtful camera read carries for the referee: the picture, the reasons, the candidates.

An uncertain read becomes a question on the panel (``cards_played`` with ``uncertain: true``).
The referee answers it by looking at the cards, so the event carries what the camera saw: the
zone as read (a JPEG ``data:`` URL, served as ``GET /api/tables/<id>/events/<seq>/crop``), why
the reader doubts (its ``reasons``, Chinese then English) and the likely readings as whole plays
(``candidates``: the read first, then the likeliest other readings once the play's shape is
weighed, or each doubtful card swapped for the reader's second choice), which the panel offers as
one-tap answers.

Only doubtful reads carry the picture: a zone crop is tens of kB, and a certain read of every
play would grow the event log on the Pi's SD card by megabytes a round.
"""

from __future__ import annotations

import base64
import logging
import re
from typing import Any

log = logging.getLogger(__name__)

#: Longest side of the stored picture (px): enough to read the indices, small enough for the log.
MAX_SIDE_PX = 720
JPEG_QUALITY = 80
#: At most this many candidate readings are offered.
MAX_CANDIDATES = 4


def crop_data_url(crop: Any, max_side: int = MAX_SIDE_PX, quality: int = JPEG_QUALITY) -> str | None:
    """The zone picture (a BGR ``numpy`` image) as a JPEG ``data:`` URL, or None when there is none."""
    if crop is None:
        return None
    try:
        import cv2

        h, w = crop.shape[:2]
        if h == 0 or w == 0:
            return None
        scale = min(1.0, max_side / float(max(h, w)))
        img = crop if scale >= 1.0 else cv2.resize(crop, (max(1, int(w * scale)), max(1, int(h * scale))),
                                                   interpolation=cv2.INTER_AREA)
        ok, jpg = cv2.imencode(".jpg", img, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    except (AttributeError, ValueError, TypeError) as exc:  # not an image: the question goes without it
        log.warning("zone picture not encoded: %s", exc)
        return None
    if not ok:
        return None
    return "data:image/jpeg;base64," + base64.b64encode(jpg.tobytes()).decode("ascii")


def candidate_readings(cards: list[str], confidence: list[float] | None,
                       alternatives: list[str | None] | None, limit: int = MAX_CANDIDATES) -> list[list[str]]:
    """Whole-play readings to offer: the read itself, then one per doubtful card (least sure first)
    with that card replaced by the reader's second choice, then both of the two least sure swapped."""
    out: list[list[str]] = [list(cards)] if cards else []
    alts = list(alternatives or [])
    conf = list(confidence or [])
    swaps = [(conf[i] if i < len(conf) else 1.0, i, a) for i, a in enumerate(alts[: len(cards)]) if a and a != cards[i]]
    swaps.sort()
    for _c, i, a in swaps:
        alt = list(cards)
        alt[i] = a
        if alt not in out:
            out.append(alt)
    if len(swaps) >= 2:
        both = list(cards)
        for _c, i, a in swaps[:2]:
            both[i] = a
        if both not in out:
            out.append(both)
    return out[:limit]


def _readings(candidates: Any, n: int) -> list[list[str]]:
    """The whole-play readings of ``candidates`` that are ``n`` card names each, once each, in order;
    anything else is passed over (a question is never lost for its answers)."""
    out: list[list[str]] = []
    if not isinstance(candidates, list | tuple):
        return out
    for c in candidates:
        cards = list(c) if isinstance(c, list | tuple) else None
        if cards is not None and len(cards) == n and cards not in out \
                and all(isinstance(x, str) and _CARD_RE.fullmatch(x) for x in cards):
            out.append(cards)
    return out


_CARD_RE = re.compile(r"(?<![A-Za-z0-9])(?:[2-9TJQKA][shdc]|SJ|BJ)(?![A-Za-z0-9])")


def rivals_from_reasons(cards: list[str], reasons: list[str]) -> dict[int, str]:
    """Second choices the reader named in its reasons ("suit of 7h in doubt (7d?)", "the corner of
    Qh looks like Qd", "the classifier read 9s"): card position -> rival card."""
    out: dict[int, str] = {}
    for why in reasons:
        english = why.split(" / ", 1)[-1]
        found = _CARD_RE.findall(english)
        if len(found) < 2 or found[0] not in cards:
            continue
        i = cards.index(found[0])
        rival = next((c for c in found[1:] if c != found[0]), None)
        if rival is not None and i not in out:
            out[i] = rival
    return out


def question_extra(observation: Any) -> dict[str, Any] | None:
    """The extra ``cards_played`` data of a camera observation: picture, reasons and candidates for
    an uncertain read, nothing for a certain one."""
    if not getattr(observation, "uncertain", False):
        return None
    out: dict[str, Any] = {}
    url = crop_data_url(getattr(observation, "crop", None))
    if url is not None:
        out["crop"] = url
    reasons = [str(r) for r in (getattr(observation, "reasons", None) or [])][:6]
    if reasons:
        out["reasons"] = reasons
    cards = list(getattr(observation, "cards", None) or [])
    alts: list[str | None] = list(getattr(observation, "alternatives", None) or [])
    alts += [None] * (len(cards) - len(alts))
    for i, rival in rivals_from_reasons(cards, reasons).items():
        alts[i] = rival  # what the reader said it doubted between comes first
    weighed = _readings(getattr(observation, "candidates", None), len(cards))
    if len(weighed) > 1 and weighed[0] == cards:
        cands = weighed[:MAX_CANDIDATES]  # the likeliest readings once the play's shape was weighed
    else:
        cands = candidate_readings(cards, list(getattr(observation, "confidence", None) or []), alts)
    if len(cands) > 1:
        out["candidates"] = cands
    return out or None
