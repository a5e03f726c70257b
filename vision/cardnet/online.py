"""A head that learns the deck while the table plays: the reads it was sure of, the referee's answers,
and the faces of the cards it saw whole.

No peer does this, and it is what makes an unenrolled deck cheap: every question the referee
answers labels exactly the crops the head was unsure of, so the same doubt is rarer in the next
deal.  Sure reads add the deck's ordinary cards.  A card played alone lies whole, and its face,
once named, is what an enrolment is made from: zones rendered from the faces seen (by a renderer
passed in) are fitted as an enrolment fits them, with the labels, and the next refits start from
that head (the learning bench's 4th deal over 18 seeds: 49 plays of 720 asked without the faces,
36 with them: docs/performance.md).
The head is refitted from the one it started from (shipped or enrolled) on everything learned so
far, a few times a deal, in well under a second; the starting head's knowledge is kept by
:func:`vision.cardnet.head.fit_head`'s pull towards it, so a card never seen at this table reads
much as before (faces never labelled, nine synced runs: 83 % right against the start head's 91 %;
a weaker pull answered fewer questions and was sometimes surely wrong: docs/performance.md).
On a deck nobody enrolled the learned head tells apart only the faces it was taught with their
twins (the same rank in the other suit of its colour, :func:`learned_faces`): taught the 7♠ and not
yet the 7♣, a head reads every black 7 as the 7♠, sure.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from vision.cards import ALL_CARDS, CARD_INDEX, check_card

from .head import LEARNED_IN_PLAY, SHIPPED, Head, fit_face_temperature, fit_head, keep_unknown_faces
from .learned import LearnedState, head_key, load_state, save_state
from .spec import NONE_CLASS

#: A card read at least this sure (and in a play that was not asked) is taken as a label.
SURE_LABEL = 0.995
#: Pull of the learned head towards the one it started from: a table sees only the cards played,
#: and a card it never saw must still read as the start head reads it.
L2_TO_START = 0.003
#: Refit after this many new labels.
REFIT_EVERY = 24
#: Keep at most this many labels (the newest): a long event must not grow the table's memory.
MAX_LABELS = 2000
#: A learned head is used once this many of the referee's answers are held out to judge it (about
#: half a deal's questions on a deck nobody enrolled), and only when it reads them at least as well
#: as the head it started from. It was 50 (about a deal's) while a head could learn one twin without
#: the other and be sure of the wrong suit; with :func:`learned_faces` the learning bench's tables
#: asked fewer plays in deals 1-3 at 20, with no silent play more (docs/performance.md, 2026-12-05).
VAL_MIN = 20
#: Optimisation steps of one refit (fixed cost: ~0.5 s here, a few seconds on a Pi, off the camera's thread).
REFIT_STEPS = 400
#: Zones are rendered from the faces seen whole once this many faces are new since the last render:
#: rendering costs about 0.15 s of CPU a row here (0.5 s on a Pi), off the camera's thread.
FACES_RENDER_EVERY = 6
#: Rows rendered for each new face (each row holds it among faces seen before): the whole deck seen
#: comes to 270 rows.  Fifteen (810, about what an enrolment renders, ``vision.cardnet.enrol.ENROL_ROWS``)
#: asked more in the 4th deal of the learning bench (plastic seeds 3–6: 15 plays of 160 against 9), at
#: three times the CPU (docs/performance.md, 2026-12-04, night).
ROWS_PER_FACE = 5
#: Steps of the fit on the rendered zones and the labels, as an enrolment's (``enrol.ENROL_STEPS``):
#: ~2 s here, once per six new faces.
FACES_FIT_STEPS = 1500

log = logging.getLogger(__name__)

#: ``render(faces, new, rows, rng) -> (embeddings, labels)``: crops of zones rendered from the faces
#: seen whole, each row holding one of ``new`` (:func:`vision.cardnet.enrol.seen_face_crops`).
Render = Callable[[Mapping[str, np.ndarray], Sequence[str], int, np.random.Generator], tuple[np.ndarray, np.ndarray]]


_TWIN_SUIT = {"c": "s", "s": "c", "h": "d", "d": "h"}


def twin(card: str) -> str:
    """The face most like ``card`` in print: the same rank in the other suit of its colour (♣/♠,
    ♥/♦), or the other joker."""
    if card in ("SJ", "BJ"):
        return "BJ" if card == "SJ" else "SJ"
    return card[0] + _TWIN_SUIT[card[1]]


#: Per face (``ALL_CARDS`` order), its twin's index.
_TWIN_INDEX = np.array([CARD_INDEX[twin(c)] for c in ALL_CARDS])


class PlayLearner:
    """Thread-safe: the camera thread reads with :attr:`head`, the service thread teaches it."""

    def __init__(self, start: Head, render: Render | None = None, store: str | Path | None = None) -> None:
        """``store``: the file what was learned is kept in (after each refit) and resumed from, so a
        restart mid-session does not forget the deck (:mod:`vision.cardnet.learned`)."""
        self.start = start
        self.head = start
        #: Renders zones from the faces seen whole (None: only the labels are learned).
        self.render = render
        #: One face per card seen whole (a lone card, named sure or by the referee), and the rendered
        #: crops of the faces rendered so far.
        self.faces: dict[str, np.ndarray] = {}
        #: The faces whose zones have been rendered and learned from.
        self.rendered: set[str] = set()
        self._rx: list[np.ndarray] = []
        self._ry: list[np.ndarray] = []
        self._rng = np.random.default_rng(0)
        #: What refits start from and are pulled towards: the start head, then the deck as the faces
        #: seen whole show it (refitted each time new faces are rendered).
        self._base = start
        self._emb: list[np.ndarray] = []
        self._lab: list[int] = []
        #: Per label: True when the referee gave it, False when it is a sure read of the head's own.
        self._told: list[bool] = []
        self._new = 0
        self._lock = threading.Lock()
        #: Held while the store is written, so that :meth:`retire` never races a save.
        self._save_lock = threading.Lock()
        self._fitting: threading.Thread | None = None
        #: How many labels came from the referee and from sure reads (for the panel and the benchmark).
        self.answers = 0
        self.sure = 0
        self.store = Path(store) if store is not None else None
        #: Labels taken over from before a restart (0: none, or nothing to resume).
        self.resumed = 0
        if self.store is not None:
            self._resume()

    def learn_read(self, embeddings: np.ndarray | None, cards: Sequence[str], confidence: Sequence[float],
                   uncertain: bool, face: np.ndarray | None = None) -> None:
        """A reading the table took without asking: its surest cards become labels, and a lone card's
        ``face`` (:attr:`vision.cardnet.read.PlayReading.face`) a face of the deck."""
        if uncertain or embeddings is None or len(embeddings) != len(cards):
            return
        keep = [i for i, p in enumerate(confidence) if p >= SURE_LABEL]
        if len(cards) == 1 and keep:
            self._add_face(cards[0], face)
        if keep:
            self._add(embeddings[keep], [CARD_INDEX[cards[i]] for i in keep], sure=True)

    def learn_answer(self, embeddings: np.ndarray | None, cards: Sequence[str],
                     none_embeddings: np.ndarray | None = None, face: np.ndarray | None = None) -> bool:
        """The referee said what a doubted play was; learned when the reading found as many cards.

        Then every candidate the reading dropped (``none_embeddings``) is known to be no card too:
        the spot of this deck's art that made the reader doubt is taught as "no corner".  A lone
        card's ``face`` becomes a face of the deck.
        """
        if embeddings is None or len(embeddings) != len(cards) or not len(cards):
            return False
        for c in cards:
            check_card(c)
        if len(cards) == 1:
            self._add_face(cards[0], face)
        labels = [CARD_INDEX[c] for c in cards]
        if none_embeddings is not None and len(none_embeddings):
            embeddings = np.concatenate([embeddings, none_embeddings])
            labels += [NONE_CLASS] * len(none_embeddings)
        self._add(embeddings, labels, sure=False)
        return True

    def _add_face(self, card: str, face: np.ndarray | None) -> None:
        """Keep the first face seen of each card (the renderer takes the deck from them)."""
        if self.render is None or face is None or not isinstance(face, np.ndarray) or face.ndim != 3:
            return
        with self._lock:
            self.faces.setdefault(card, face)

    def _add(self, emb: np.ndarray, labels: list[int], *, sure: bool) -> None:
        with self._lock:
            self._emb.extend(np.asarray(emb, np.float32))
            self._lab.extend(labels)
            self._told.extend([not sure] * len(labels))
            if sure:
                self.sure += len(labels)
            else:
                self.answers += len(labels)
            del self._emb[:-MAX_LABELS], self._lab[:-MAX_LABELS], self._told[:-MAX_LABELS]
            self._new += len(labels)
            if self._new < REFIT_EVERY:
                return
            if self._fitting is not None and self._fitting.is_alive():
                return  # the refit running now is followed by another when it ends (see _refit)
            self._new = 0
            self._fitting = threading.Thread(target=self._refit, name="cardnet-learn", daemon=True)
            self._fitting.start()

    def _refit(self) -> None:
        """In its own thread: a refit takes seconds on a Pi, and the camera must keep reading."""
        while True:
            rendered = self._render_new_faces()
            with self._lock:
                x, y, told = np.stack(self._emb), np.array(self._lab), np.array(self._told)
                rx = np.concatenate(self._rx) if self._rx else np.zeros((0, x.shape[1]), np.float32)
                ry = np.concatenate(self._ry) if self._ry else np.zeros(0, int)
            # Every fifth label is kept out of the fit to judge the learned head and set its
            # temperature: a head fitted on a table's own answers is surer of them than it should be.
            held = np.arange(len(y)) % 5 == 4
            if rendered:
                # The deck as the faces seen show it: fitted as an enrolment is (its steps, its
                # rendered zones), with the labels so far, from the start head. Refits start from
                # it and are pulled towards it until the next faces are rendered. The rendered crops
                # are fitted on, never judged on (the faces are this table's, the zones the renderer's).
                base = fit_head(np.concatenate([x[~held], rx]), np.concatenate([y[~held], ry]), self.start,
                                steps=FACES_FIT_STEPS, l2_to_start=L2_TO_START, origin=self.start.origin,
                                balance=True)
                with self._lock:
                    self._base = base
            # Balanced: the labels are the referee's answers to what was doubted, not the deck
            # (fit_head's docstring says why that matters).
            head = fit_head(x[~held], y[~held], self._base, steps=REFIT_STEPS, l2_to_start=L2_TO_START,
                            origin=self.start.origin + LEARNED_IN_PLAY, balance=True)
            base = None  # the head that reads the faces the learned one does not know (None: it knows all)
            if self.start.known is not None:
                # A deck enrolled without some faces: a face the referee has named here is the
                # table's own now (Head.known: the others stay the shipped head's to read).
                answered = np.zeros(NONE_CLASS, bool)
                answered[y[~held & told & (y != NONE_CLASS)]] = True
                answered[ry[ry != NONE_CLASS]] = True
                head = head.knowing(self.start.known | answered)
            elif self.start.origin == SHIPPED:
                # A deck nobody enrolled: the learned head decides only between faces it was taught
                # in pairs (learned_faces); the shipped head keeps its word on the rest.
                known = learned_faces(np.concatenate([y[~held], ry]))
                head, base = head.knowing(known) if known.any() else self.head, self.start
            # Judged on the referee's answers only: a sure read is the head's own word, which any
            # head that learned it agrees with, so it would judge a head by what the head taught
            # itself.
            val = held & told
            if val.sum() < VAL_MIN or head is self.head \
                    or _accuracy(head, x[val], y[val], base) < _accuracy(self.start, x[val], y[val], base):
                # Too few held-out labels to trust it yet, or it reads them worse than the head it
                # started from: a few answers made a head sure of the wrong suit (in the first
                # deal, a 7♣ read as 7♠ at 0.98 and a 9♣ as 9♠ at 0.99).
                head = self.head
            else:
                # Calibrated on every held-out label, answers and sure reads: the crops the head
                # will read are both kinds, and the answers alone are the hardest of them (tango
                # seed 4, `--sync`: on answers alone the temperature rose to 0.995 and the 4th deal
                # asked 14 of 40 plays; on both, 0.913 and 6). Never surer than the start head:
                # sure reads are taught back, so a head allowed a lower temperature came to read a
                # 5♣ as 5♠ at 1.00, deal after deal. Fitted on the faces, as the enrolment's is
                # (with every answer, plastic seed 3 asked 8 of 40 plays in the 4th deal; on
                # faces 3 of 40).
                head = head.with_temperature(fit_face_temperature(head, x[held], y[held], self.start.temperature))
            with self._lock:
                self.head = head
            # Kept after each refit, in this thread (a few megabytes; the camera's is not kept waiting):
            # a restart loses at most the labels of one refit.
            self.save()
            with self._lock:
                if self._new < REFIT_EVERY:
                    return
                self._new = 0

    def _render_new_faces(self) -> bool:
        """In the refit's thread: zones rendered from the faces seen whole, once enough are new
        (True: crops were added)."""
        with self._lock:
            # A face is rendered only with its twin (the same rank in the other suit of its colour,
            # or the other joker): rendered alone, Q♠ seen whole and Q♣ not, the head learned Q♠
            # in every light and read two Q♣ as Q♠, sure (docs/performance.md).
            faces = {c: f for c, f in self.faces.items() if twin(c) in self.faces}
            new = [c for c in faces if c not in self.rendered]
            if self.render is None or len(new) < FACES_RENDER_EVERY:
                return False
        try:
            rx, ry = self.render(faces, new, ROWS_PER_FACE * len(new), self._rng)
        except Exception as exc:  # a face the renderer cannot use must not stop the learning
            log.warning("rendering the deck from the faces seen failed (learning from the labels alone): %s", exc)
            rx, ry = np.zeros((0, 0), np.float32), np.zeros(0, int)
        with self._lock:
            self.rendered.update(new)
            if len(ry):
                self._rx.append(np.asarray(rx, np.float32))
                self._ry.append(np.asarray(ry))
        return bool(len(ry))

    def _resume(self) -> None:
        """Take over what this table learned before a restart, for this start head."""
        state = load_state(self.store, head_key(self.start))
        if state is None:
            return
        self._emb = list(state.emb[-MAX_LABELS:])
        self._lab = [int(v) for v in state.lab[-MAX_LABELS:]]
        self._told = [bool(v) for v in state.told[-MAX_LABELS:]]
        self.answers, self.sure, self.resumed = state.answers, state.sure, len(self._lab)
        if self.render is not None:
            # The rendered crops were not kept: the faces are rendered again at the next refit.
            self.faces = dict(state.faces)
        self._base = state.base or self.start
        self.head = state.head or self.start
        log.info("learned deck resumed from %s: %d labels, %d faces seen whole", self.store, self.resumed,
                 len(self.faces))

    def save(self) -> bool:
        """Keep what was learned in :attr:`store` (True when written); a disk that fails is logged,
        and the table goes on learning in memory."""
        with self._save_lock:
            if self.store is None:
                return False
            with self._lock:
                if not self._lab:
                    return False
                state = LearnedState(head_key(self.start), np.stack(self._emb), np.array(self._lab),
                                     np.array(self._told), dict(self.faces),
                                     None if self.head is self.start else self.head,
                                     None if self._base is self.start else self._base, self.answers, self.sure,
                                     time.time())
            try:
                save_state(self.store, state)
            except OSError as exc:
                log.warning("what the table learned of its deck could not be kept in %s: %s", self.store, exc)
                return False
            return True

    def retire(self) -> None:
        """Never write the store again (a refit still running included): the table forgot this
        learner, and its file may be deleted or taken by the next learner."""
        with self._save_lock:
            self.store = None

    def wait(self, timeout: float | None = None) -> None:
        """Until the refit under way (if any) has ended: for a camera that stops, tests and benchmarks."""
        t = self._fitting
        if t is not None:
            t.join(timeout)


def learned_faces(labels: np.ndarray) -> np.ndarray:
    """The faces a head learned at the table may tell apart: those labelled whose twin is labelled too.

    Why: labels come one face at a time (the reads it was sure of, the referee's answers), and a
    head taught the 7♠ but not yet the 7♣ learns "a black 7 is the 7♠": on the learning bench's
    first refit (plastic, seed 3) it read two held-out 7♣ as 7♠ at 1.00, and at the demo's table
    (plastic, seed 5) a T♠ as T♣, where the shipped head had both right.  Until both twins are
    taught, the shipped head's word on them is kept (:func:`vision.cardnet.head.keep_unknown_faces`).
    """
    seen = np.zeros(NONE_CLASS, bool)
    seen[labels[labels != NONE_CLASS]] = True
    return seen & seen[_TWIN_INDEX]


def _accuracy(head: Head, x: np.ndarray, y: np.ndarray, base: Head | None = None) -> float:
    """How often ``head`` reads ``x`` as ``y``, as the reader would: the faces it does not know
    read by ``base``."""
    if head.known is None or base is None:
        return float((head.logits(x).argmax(axis=1) == y).mean())
    probs = keep_unknown_faces(head.probs(x), base.probs(x), head.known)
    return float((probs.argmax(axis=1) == y).mean())
