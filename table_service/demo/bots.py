"""Bot players and a dealer for the simulated table (``guandan-table demo``) and for tests.

The bots play *sensible* Guandan rather than random legal noise, because the demo exists to
show the referee machinery working on realistic play: a bot follows with the cheapest play that
beats, keeps its bombs for when an opponent is about to go out, leads low, does not overtake
its partner without need, pays tribute with its highest card (never the heart level card) and
returns a small card.

They also make **mistakes** on purpose, at a configurable rate, so that the engine's flags have
something to catch: playing out of turn, forgetting the report card, playing too slowly, and
playing a hand that does not beat the trick. Every injected mistake is recorded in a
:class:`TruthLog`, which is what the demo's summary and the service tests compare the
engine's flags against. The decision logic here is pure (no I/O, no clock); the demo's driver
turns decisions into physical actions (cards in a camera zone, button presses).
"""

from __future__ import annotations

import random
import threading
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from table_service.rules.cards import NATURAL_VALUE, Card, full_deck, power, sort_key
from table_service.rules.legal import legal_plays
from table_service.rules.patterns import SEQUENCE_KINDS, Play, strength
from table_service.rules.reading import reading_for
from table_service.rules.ruleset import Ruleset
from table_service.rules.seats import PLAY_ORDER, partner
from table_service.rules.tribute import return_candidates, tribute_candidates

#: The kinds of mistake a bot can make, each matching one automatic flag of the engine.
MISTAKE_KINDS: tuple[str, ...] = ("out_of_turn", "missed_report", "slow", "non_beating")


# ---------------------------------------------------------------------------------------- dealer


@dataclass
class Dealer:
    """Seeded shuffle of the 108 cards into four hands of 27.

    Deal ``n`` of a seed is always the same hands, so a demo run (and a test) can be repeated
    exactly; the deals of one seed differ from each other.
    """

    seed: int = 0

    def shuffled(self, deal_no: int) -> list[Card]:
        """The shuffled deck of deal ``deal_no`` (top card first)."""
        deck = full_deck()
        random.Random(f"guandan-deal:{self.seed}:{deal_no}").shuffle(deck)
        return deck

    def deal(self, deal_no: int, first: str = "E") -> dict[str, list[Card]]:
        """The four hands of deal ``deal_no``, drawn one card at a time counter-clockwise
        starting with ``first``; each hand sorted for convenience."""
        deck = self.shuffled(deal_no)
        order = list(PLAY_ORDER)
        i = order.index(first)
        seats = order[i:] + order[:i]
        hands: dict[str, list[Card]] = {s: [] for s in seats}
        for k, c in enumerate(deck):
            hands[seats[k % 4]].append(c)
        return {s: sorted(h, key=sort_key) for s, h in hands.items()}


# ------------------------------------------------------------------------------------- truth log


@dataclass
class TruthLog:
    """What the bots really did: every play, pass, report press, tribute and mistake.

    The engine only ever sees the table through the camera and the buttons; this log is the
    ground truth the demo compares the engine's record with (recognition accuracy, flags
    raised against mistakes injected). Thread-safe because bot actions run on timers.
    """

    entries: list[dict[str, Any]] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def record(self, what: str, **data: Any) -> dict[str, Any]:
        """Append one entry (``what`` is deal/play/pass/report/tribute/return/question/mistake)."""
        entry = {"what": what, **data}
        with self._lock:
            entry["n"] = len(self.entries)
            self.entries.append(entry)
        return entry

    def of_kind(self, what: str) -> list[dict[str, Any]]:
        """Entries of one kind, in order."""
        with self._lock:
            return [e for e in self.entries if e["what"] == what]

    @property
    def mistakes(self) -> list[dict[str, Any]]:
        """Every injected mistake."""
        return self.of_kind("mistake")

    @property
    def plays(self) -> list[dict[str, Any]]:
        """Every physical play (including mistaken ones)."""
        return self.of_kind("play")


# -------------------------------------------------------------------------------------- decisions


@dataclass(frozen=True)
class Decision:
    """What a bot does on its turn."""

    action: str
    """``"play"`` or ``"pass"``."""
    cards: tuple[Card, ...] = ()
    """The cards, in the left-to-right row the bot lays them (wild card where its face sits)."""
    play: Play | None = None
    """The reading the bot intends (``None`` for a pass or a deliberately illegal play)."""
    report: bool = False
    """Press the report button after the play (it leaves the bot with ≤ 10 cards)."""
    mistake: str | None = None
    """The mistake this decision injects, if any (one of :data:`MISTAKE_KINDS`)."""

    def __str__(self) -> str:
        if self.action == "pass":
            return "pass" + (f" [{self.mistake}]" if self.mistake else "")
        row = " ".join(str(c) for c in self.cards)
        tags = (" +report" if self.report else "") + (f" [{self.mistake}]" if self.mistake else "")
        return f"play {row}{tags}"


def layout(play: Play) -> tuple[Card, ...]:
    """The row a player lays for ``play``: left to right by rank, each wild card where the rank
    it stands for would sit (the rules' convention; the camera reports this order)."""
    pairs = list(zip(play.cards, play.faces, strict=True))

    def key(pair: tuple[Card, Card]) -> tuple[int, tuple[int, int]]:
        c, face = pair
        if play.kind in SEQUENCE_KINDS:
            v = NATURAL_VALUE[face.rank]
            width = {"straight": 5, "straight_flush": 5, "three_pairs": 3, "two_triples": 2}[play.kind]
            if v == 14 and NATURAL_VALUE[play.rank] - width + 1 <= 1:
                v = 1
        else:
            v = power(face.rank, play.level)
        return (v, sort_key(c))

    return tuple(c for c, _ in sorted(pairs, key=key))


def _remove(hand: list[Card], cards: Iterable[Card]) -> list[Card]:
    rest = list(hand)
    for c in cards:
        rest.remove(c)
    return rest


@dataclass
class BotPlayer:
    """One seat's bot: holds the hand, decides plays, tribute and return.

    ``mistake_rate`` is the chance, per opportunity, of each kind of mistake (an out-of-turn
    play is offered when another seat is to act; a forgotten report card when one is due; a
    slow play and a non-beating play on the bot's own turns). ``rng`` makes a run repeatable.
    """

    seat: str
    level: str = "2"
    mistake_rate: float = 0.0
    rng: random.Random = field(default_factory=random.Random)
    hand: list[Card] = field(default_factory=list)
    report_threshold: int = 10
    reported: bool = False
    mistake_kinds: tuple[str, ...] = MISTAKE_KINDS

    # ------------------------------------------------------------------------- hand keeping

    def receive(self, hand: Sequence[Card], level: str) -> None:
        """A new deal: take the 27 cards and the deal's level."""
        self.hand = sorted(hand, key=sort_key)
        self.level = level
        self.reported = False

    def remove(self, cards: Iterable[Card]) -> None:
        """Cards left the hand (played, tribute or return given).

        :raises ValueError: when a card is not in the hand (the driver's bookkeeping is wrong).
        """
        self.hand = _remove(self.hand, cards)

    def add(self, c: Card) -> None:
        """A card arrived (tribute or return received)."""
        self.hand.append(c)
        self.hand.sort(key=sort_key)

    def _chance(self, kind: str) -> bool:
        return kind in self.mistake_kinds and self.mistake_rate > 0 and self.rng.random() < self.mistake_rate

    # ----------------------------------------------------------------------------- evaluation

    def _bomb_ranks(self) -> set[str]:
        """Ranks held four or more times (natural cards): breaking them wastes a bomb."""
        counts = Counter(c.rank for c in self.hand if not c.is_wild(self.level) and not c.is_joker)
        return {r for r, n in counts.items() if n >= 4}

    def _cost(self, play: Play, *, leading: bool) -> float:
        """How much it hurts to spend ``play`` now: low is good. Rank first; then wild cards,
        jokers and level cards used, bombs broken, pairs/triples split; when leading, playing
        more cards at once is worth something (fewer tricks left to win)."""
        lv = self.level
        counts = Counter(self.hand)
        rank_counts = Counter(c.rank for c in self.hand)
        used = Counter(c.rank for c in play.cards)
        if play.kind in SEQUENCE_KINDS:
            base = NATURAL_VALUE[play.rank]
        else:
            base = power(play.rank, lv)
        cost = 10.0 * base
        cost += 0.4 * sum(power(c.rank, lv) for c in play.cards)
        cost += 60.0 * play.wild_count
        bomb_ranks = self._bomb_ranks()
        for r, n in used.items():
            if r in bomb_ranks:
                cost += 50.0
            left = rank_counts[r] - n
            if left > 0 and play.kind in ("single", "pair", "triple"):
                cost += 6.0 * left  # splitting a group
        if leading:
            cost -= 8.0 * play.size
        del counts
        return cost

    def _options(self, previous: Play | None) -> list[Play]:
        return legal_plays(self.hand, self.level, previous)

    # ------------------------------------------------------------------------------- choices

    def decide(
        self,
        previous: Play | None,
        previous_seat: str | None,
        counts: dict[str, int],
    ) -> Decision:
        """The bot's action on its turn.

        ``previous`` is the play to beat (``None`` when the bot leads), ``previous_seat`` who
        made it, ``counts`` the cards left per seat (to see an opponent about to go out).
        """
        leading = previous is None
        if not leading and self._chance("non_beating"):
            wrong = self._non_beating(previous)
            if wrong is not None:
                return self._with_report(Decision("play", layout(wrong), None, mistake="non_beating"))
        choice = self._choose(previous, previous_seat, counts)
        if choice is None:
            return Decision("pass")
        return self._with_report(Decision("play", layout(choice), choice))

    def _with_report(self, d: Decision) -> Decision:
        left = len(self.hand) - len(d.cards)
        due = not self.reported and 0 < left <= self.report_threshold
        if not due:
            return d
        if d.mistake is None and self._chance("missed_report"):
            return Decision(d.action, d.cards, d.play, report=False, mistake="missed_report")
        return Decision(d.action, d.cards, d.play, report=True, mistake=d.mistake)

    def _choose(self, previous: Play | None, previous_seat: str | None, counts: dict[str, int]) -> Play | None:
        options = self._options(previous)
        if not options:
            return None
        n = len(self.hand)
        finishing = [p for p in options if p.size == n]
        if finishing:
            return min(finishing, key=lambda p: strength(p, self.level))
        plain = [p for p in options if not p.is_bomb]
        bombs = [p for p in options if p.is_bomb]
        if previous is None:
            if plain:
                return min(plain, key=lambda p: self._cost(p, leading=True))
            return min(bombs, key=lambda p: strength(p, self.level))
        mate = partner(self.seat)
        if previous_seat == mate:
            # Don't overtake the partner: let their play stand unless it is small and ours
            # is cheap (a low single/pair over a low partner lead keeps control cheaply).
            return None
        if plain:
            best = min(plain, key=lambda p: self._cost(p, leading=False))
            expensive = self._cost(best, leading=False) >= 10.0 * 15 + 60.0
            threat = previous_seat is not None and counts.get(previous_seat, 27) <= 10
            if not expensive or threat or n <= 8:
                return best
        if bombs and self._bomb_now(previous_seat, counts, bombs):
            return min(bombs, key=lambda p: strength(p, self.level))
        return None

    def _bomb_now(self, previous_seat: str | None, counts: dict[str, int], bombs: list[Play]) -> bool:
        """Keep bombs: use one only when an opponent is close to going out, or when it nearly
        finishes our own hand, or when the hand is nothing but bombs."""
        if previous_seat is None:
            return False
        opp_threat = counts.get(previous_seat, 27) <= 8
        smallest = min(bombs, key=lambda p: strength(p, self.level))
        near_done = len(self.hand) - smallest.size <= 4
        return opp_threat or near_done

    def _non_beating(self, previous: Play) -> Play | None:
        """A deliberately wrong play: same kind as the trick but not higher (else any play that
        does not beat). ``None`` when the hand has nothing that fails to beat.

        Fails to beat as the referee reads it: the row as laid, with every reading of a wild card
        its place leaves (:func:`reading_for`). 4h 4d 5h 6s 6s at level 5 meant as 444+66 is also
        666+44 (the wild card sits between the 4s and the 6s): it beats 444+22, so it is no mistake."""
        lv = self.level
        all_plays = [p for p in legal_plays(self.hand, lv, None)
                     if not p.is_bomb and reading_for(layout(p), lv, previous).play is None]
        same = [p for p in all_plays if p.kind == previous.kind]
        pool = same or [p for p in all_plays if p.size <= 5]
        if not pool:
            return None
        # Don't empty the hand with a mistake: the deal would end on a wrong play.
        pool = [p for p in pool if p.size < len(self.hand)]
        if not pool:
            return None
        return min(pool, key=lambda p: self._cost(p, leading=False))

    def out_of_turn(self) -> Decision | None:
        """Maybe play out of turn (a mistake): the cheapest single, or ``None`` (no mistake).

        Called by the driver when another seat is about to act."""
        if len(self.hand) <= 1 or not self._chance("out_of_turn"):
            return None
        singles = [p for p in legal_plays(self.hand, self.level, None) if p.kind == "single"]
        if not singles:
            return None
        p = min(singles, key=lambda p: self._cost(p, leading=False))
        return self._with_report(Decision("play", layout(p), p, mistake="out_of_turn"))

    def slow(self) -> bool:
        """Maybe take too long this turn (a mistake)."""
        return self._chance("slow")

    def note_played(self, d: Decision) -> None:
        """The decision was carried out: the cards left the hand, the report (if pressed)
        is spent for this deal."""
        if d.action == "play":
            self.remove(d.cards)
            left = len(self.hand)
            if 0 < left <= self.report_threshold:
                # Due now; pressed or forgotten, the report card is used up for the deal
                # (a forgotten one is flagged, and nobody reports twice).
                self.reported = True

    # ------------------------------------------------------------------------ tribute/return

    def tribute(self) -> Card:
        """进贡: the highest card, the heart level card excluded (the rules' candidates; a
        non-heart suit first when there is a choice)."""
        cands = tribute_candidates(self.hand, self.level)
        if not cands:
            raise ValueError(f"{self.seat}: 无可进贡的牌 / nothing to give as tribute")
        return cands[0]

    def return_card(self, ruleset: Ruleset, *, to_partner: bool = False) -> Card:
        """还贡: a small card the rules allow, preferably one that breaks no pair or bomb."""
        cands = return_candidates(self.hand, self.level, ruleset, to_partner=to_partner)
        if not cands:
            raise ValueError(f"{self.seat}: 无可还贡的牌 / nothing to return")
        counts = Counter(c.rank for c in self.hand)
        return min(cands, key=lambda c: (counts[c.rank] > 1, counts[c.rank], power(c.rank, self.level), sort_key(c)))


def make_bots(
    seed: int = 0, mistake_rate: float = 0.0, mistake_kinds: Sequence[str] = MISTAKE_KINDS
) -> dict[str, BotPlayer]:
    """The four bots of a table, each with its own seeded random stream."""
    unknown = set(mistake_kinds) - set(MISTAKE_KINDS)
    if unknown:
        raise ValueError(f"未知错误类型：{sorted(unknown)}（已知：{MISTAKE_KINDS}）"
                         f" / unknown mistake kind(s): {sorted(unknown)} (known: {MISTAKE_KINDS})")
    if not 0.0 <= mistake_rate <= 1.0:
        raise ValueError(f"错误率须在 0 到 1 之间，收到 {mistake_rate}"
                         f" / mistake rate must be within 0..1, got {mistake_rate}")
    return {
        s: BotPlayer(s, mistake_rate=mistake_rate, rng=random.Random(f"bot:{seed}:{s}"), mistake_kinds=tuple(mistake_kinds))
        for s in PLAY_ORDER
    }
