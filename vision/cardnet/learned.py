"""What a table has learned of its deck, kept on disk so that a restart does not forget it.

Why: an unenrolled deck is learned deal by deal (:class:`vision.cardnet.online.PlayLearner`): the
referee answers half the plays in the first deal and one in twenty by the fourth.  A Pi that reboots
mid-session (a pulled plug, an update) would otherwise start that over, and the referee would answer
the first deal's questions again.  The file holds the referee's answers and the sure reads (as the
crop features the head reads), the faces of the cards seen whole, and the heads learned from them.

What is kept out: the crops rendered from the faces (tens of megabytes; they are rendered again
from the faces the next time faces are rendered).  What is refused: a file of another start head
(the table enrolled a deck since, or the shipped head changed: what was learned is about another
head's features), of another format, too old (:data:`RESUME_WITHIN_S`), or damaged — each logged,
and the table learns afresh.  The file is replaced whole (written beside it, then renamed), so a
kill at any moment leaves the old one or the new one.
"""

from __future__ import annotations

import hashlib
import io
import logging
import os
import time
import zipfile
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.cards import ALL_CARDS

from .head import Head
from .spec import FEATURE_DIM, N_CLASSES

LEARNED_FORMAT = "guandan-table/cardnet-learned/1"
#: A table restarted within this long resumes what it learned (a reboot mid-session); an older
#: file is from another session, perhaps another deck, and is not used.  Six hours is a session
#: of a day's rounds; the next morning starts afresh.
RESUME_WITHIN_S = 6 * 3600.0

log = logging.getLogger(__name__)


def head_key(head: Head) -> str:
    """Which start head a learned state belongs to: the hash of its file."""
    return hashlib.sha256(head.to_bytes()).hexdigest()


@dataclass
class LearnedState:
    """A learner's memory, as saved: labels (features, class, given by the referee or not), the faces
    seen whole, the heads learned, the counts the panel shows."""

    key: str
    emb: np.ndarray  # (n, FEATURE_DIM) float32
    lab: np.ndarray  # (n,) int
    told: np.ndarray  # (n,) bool
    faces: dict[str, np.ndarray] = field(default_factory=dict)
    head: Head | None = None  # the head the table reads with (None: the start head)
    base: Head | None = None  # what refits start from (None: the start head)
    answers: int = 0
    sure: int = 0
    saved_at: float = 0.0


def save_state(path: str | Path, state: LearnedState) -> None:
    """Write ``state`` to ``path`` whole: beside it first, then renamed over it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    arrays: dict[str, np.ndarray] = {
        "format": np.array(LEARNED_FORMAT), "key": np.array(state.key),
        # Half precision: the features are ReLU outputs of a few units; a head reads them the same.
        "emb": np.asarray(state.emb, np.float16).reshape(-1, FEATURE_DIM),
        "lab": np.asarray(state.lab, np.int16), "told": np.asarray(state.told, np.bool_),
        "counts": np.array([state.answers, state.sure], np.int64), "saved_at": np.float64(state.saved_at or time.time()),
    }
    for name, head in (("head", state.head), ("base", state.base)):
        if head is not None:
            arrays[name] = np.frombuffer(head.to_bytes(), np.uint8)
    for card, face in state.faces.items():
        ok, png = cv2.imencode(".png", face)  # lossless, a tenth of the raw image
        if ok:
            arrays[f"face_{card}"] = png.reshape(-1)
    tmp = path.with_name(f"{path.name}.tmp")
    with open(tmp, "wb") as f:
        np.savez(f, **arrays)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def load_state(path: str | Path, key: str, *, now: float | None = None) -> LearnedState | None:
    """The state saved at ``path`` for the start head ``key``; None (logged) when there is none to
    resume: no file, another head's, too old, or unreadable."""
    path = Path(path)
    if not path.is_file():
        return None
    try:
        state = _read(path.read_bytes())
    except (OSError, ValueError) as exc:
        log.warning("learned deck %s not resumed, learning afresh: %s", path, exc)
        return None
    if state.key != key:
        log.info("learned deck %s is of another start head (a deck enrolled since): learning afresh", path)
        return None
    age = (time.time() if now is None else now) - state.saved_at
    if not 0 <= age <= RESUME_WITHIN_S:
        log.info("learned deck %s saved %.1f h ago, not resumed: learning afresh", path, age / 3600)
        return None
    return state


def _read(data: bytes) -> LearnedState:
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            if str(z["format"]) != LEARNED_FORMAT:
                raise ValueError(f"format {z['format']!r}")
            emb = z["emb"].astype(np.float32)
            lab, told = z["lab"].astype(np.int64), z["told"].astype(np.bool_)
            if emb.ndim != 2 or emb.shape[1] != FEATURE_DIM or not len(lab) == len(told) == len(emb) \
                    or not np.isfinite(emb).all() or (len(lab) and not (lab.min() >= 0 and lab.max() < N_CLASSES)):
                raise ValueError("labels do not fit the reader")
            heads = {n: Head.from_bytes(z[n].tobytes()) if n in z.files else None for n in ("head", "base")}
            faces = {}
            for card in ALL_CARDS:
                if f"face_{card}" in z.files:
                    face = cv2.imdecode(z[f"face_{card}"], cv2.IMREAD_COLOR)
                    if face is None:
                        raise ValueError(f"face {card} unreadable")
                    faces[card] = face
            answers, sure = (int(v) for v in z["counts"])
            return LearnedState(str(z["key"]), emb, lab, told, faces, heads["head"], heads["base"], answers, sure,
                                float(z["saved_at"]))
    except (KeyError, EOFError, zipfile.BadZipFile, TypeError, cv2.error) as exc:
        raise ValueError(f"不是已学牌组文件（{exc}） / not a learned-deck file: {exc}") from exc
