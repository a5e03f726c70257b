"""The bots and their driver through the real engine (no camera): legal, sensible play; every
injected mistake raises exactly its flag."""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

import pytest

from table_service.demo.bot_table import BotTable
from table_service.demo.bots import Dealer, make_bots
from table_service.demo.options import DemoOptions
from table_service.demo.scorecard import compare_with_log
from table_service.rules.cards import full_deck, parse_cards
from table_service.rules.patterns import beats, classify
from table_service.table.clock import ActorClock
from table_service.table.inputs import BUTTON_EVENTS, camera_event
from table_service.table.runner import TableRunner
from table_service.table.ticker import run_ticker


class DirectActuator:
    """Lays cards by telling the engine what lies in the zone, certainly (source ``bot``): the
    camera-free path, to test the bots and the driver apart from vision."""

    def __init__(self, runner: TableRunner) -> None:
        self.runner = runner
        self.zones: dict[str, list[str]] = {s: [] for s in "ESWN"}
        self.lock = threading.Lock()

    def lay(self, seat: str, cards: list[str]) -> None:
        self.zones[seat] = list(cards)
        ev = camera_event(self.runner.state(), seat, cards, [1.0] * len(cards), False, source="bot")
        assert ev is not None, (seat, cards, (self.runner.state().get("deal") or {}).get("phase"),
                                (self.runner.state().get("round") or {}).get("status"))
        self.runner.submit(ev, wait=False)

    def clear(self, seats: list[str] | None = None) -> None:
        for s in seats or "ESWN":
            self.zones[s] = []

    def press(self, seat: str, button: str) -> None:
        self.runner.submit({"type": BUTTON_EVENTS[button], "source": "bot", "data": {"seat": seat}}, wait=False)

    def zone(self, seat: str) -> list[str]:
        return list(self.zones[seat])


def run_table(tmp_path: Path, *, deals: int, mistakes: float, seed: int, speed: float = 100.0) -> tuple[BotTable, TableRunner]:
    # The demo's clock: it waits for the simulated players, so a busy machine's lag is no bot's
    # lateness and the only late turns are the injected slow ones (table_clock.ActorClock).
    clock = ActorClock(speed)
    runner = TableRunner(tmp_path / "bots.sqlite3", clock=clock.now_ms).start()
    stop = threading.Event()
    threading.Thread(target=run_ticker, args=(lambda: runner, clock, stop), daemon=True).start()
    act = DirectActuator(runner)
    table = BotTable(lambda ev: runner.submit(ev), runner.state, runner.subscribe, act, clock,
                     DemoOptions(seed=seed, speed=speed, deals=deals, mistakes=mistakes, stuck_real_s=60.0, min_gap_real_s=0.005,
                                think_s=(0.3, 1.0)))
    table.start()
    try:
        # generous bounds: an action a loaded machine takes seconds to apply is not "stuck"
        assert table.wait_done(300), f"table did not finish: {table.errors} {runner.state()['round']}"
    finally:
        table.stop()
        stop.set()
    return table, runner


def test_dealer_deals_108_cards_27_each_and_is_repeatable() -> None:
    hands = Dealer(5).deal(0)
    assert sorted(len(h) for h in hands.values()) == [27] * 4
    assert Counter(c for h in hands.values() for c in h) == Counter(full_deck())
    assert Dealer(5).deal(0) == hands and Dealer(5).deal(1) != hands


def test_bot_follows_with_the_lowest_beating_play_and_keeps_bombs() -> None:
    bot = make_bots(1)["E"]
    bot.receive(parse_cards("3s 5h 6d 9c 9d Kc 7s 7h 7d 7c"), "2")
    top = next(p for p in classify(parse_cards("4s"), "2"))
    d = bot.decide(top, "N", {"E": 10, "N": 20, "W": 20, "S": 20})
    assert d.action == "play" and [str(c) for c in d.cards] == ["5h"]
    # Nothing but the bomb beats an ace: an opponent far from finishing is not worth it.
    ace = next(p for p in classify(parse_cards("As"), "2"))
    assert bot.decide(ace, "N", {"E": 10, "N": 20, "W": 20, "S": 20}).action == "pass"
    # ...but an opponent about to go out is.
    d = bot.decide(ace, "N", {"E": 10, "N": 3, "W": 20, "S": 20})
    assert d.play is not None and d.play.kind == "bomb"
    # The partner's play is left alone.
    assert bot.decide(top, "W", {"E": 10, "N": 20, "W": 20, "S": 20}).action == "pass"


def test_bot_leads_low_and_reports_at_ten() -> None:
    bot = make_bots(2)["S"]
    bot.receive(parse_cards("3c 8s 8d Jc Qs Qd Kh Ah As Ad SJ"), "2")
    d = bot.decide(None, None, {"E": 20, "N": 20, "W": 20, "S": 11})
    assert d.action == "play" and [str(c) for c in d.cards] == ["3c"]
    assert d.report  # 11 - 1 = 10 cards left: the report card is due


def test_bot_tribute_is_highest_not_wild_and_return_is_small() -> None:
    bot = make_bots(3)["N"]
    bot.receive(parse_cards("2h 2h 4s 4d 9c Jd Ks As"), "2")
    assert str(bot.tribute()) == "2d" or str(bot.tribute()) == "As"
    bot.receive(parse_cards("2h 4s 4d 9c Jd Ks As 2d"), "2")
    assert str(bot.tribute()) == "2d"  # level card above A; the heart 2 (wild) is excluded
    from table_service.rules.ruleset import get_ruleset

    assert str(bot.return_card(get_ruleset("jiangsu-2013"))) == "9c"  # ≤ 10, breaks no pair


def test_bots_play_legal_deals_without_a_single_flag(tmp_path: Path) -> None:
    table, runner = run_table(tmp_path, deals=2, mistakes=0.0, seed=11)
    st = runner.state()
    try:
        assert table.errors == []
        assert len(st["score_sheet"]) == 2
        assert [f for f in st["flags"]] == []
        # Every play the bots made beat the trick (the engine agreed) and every card was played once.
        assert all(not p.get("flagged") for rec in st["deal_records"] for t in rec["tricks"] for p in t)
        # The second deal began with tribute and return (or anti-tribute), through the bots.
        second = st["deal_records"][1]
        assert second["tributes"] and second["returns"] or st["deal"]["anti_tribute"]
        summary = compare_with_log(table.truth, runner.events(), st["flags"])
        assert summary["flag_match"] and summary["missing"] == 0
    finally:
        runner.stop()


@pytest.mark.parametrize("seed", [3])
def test_every_injected_mistake_raises_its_flag(tmp_path: Path, seed: int) -> None:
    table, runner = run_table(tmp_path, deals=2, mistakes=0.06, seed=seed)
    st = runner.state()
    try:
        summary = compare_with_log(table.truth, runner.events(), st["flags"])
        assert sum(summary["mistakes"].values()) >= 3, summary
        assert summary["flag_match"], {k: summary[k] for k in ("mistakes", "flags", "expected_flags")}
        assert table.errors == []
    finally:
        runner.stop()


def test_bots_never_play_an_illegal_or_non_beating_hand_by_accident() -> None:
    bots = make_bots(7)
    hands = Dealer(7).deal(0)
    for seat, bot in bots.items():
        bot.receive(hands[seat], "2")
    top = None
    for _ in range(40):
        for seat in "ENWS":
            d = bots[seat].decide(top, "X", {s: len(b.hand) for s, b in bots.items()})
            if d.action == "play":
                assert d.play is not None and (top is None or beats(d.play, top, "2"))
                bots[seat].note_played(d)
                top = d.play if len(bots[seat].hand) else None
        if all(not b.hand for b in bots.values()):
            break


def test_a_non_beating_mistake_is_one_the_referee_reads_as_not_beating() -> None:
    """A bot's deliberate non-beating play must not beat as the engine reads the row: 4h 4d 5h 6s 6s
    at level 5 meant as 444+66 also reads 666+44 (the wild card lies between the 4s and the 6s),
    which beats 444+22, so the demo counted a mistake the engine rightly did not flag."""
    from table_service.demo.bots import BotPlayer, layout
    from table_service.rules.reading import reading_for

    previous = reading_for(parse_cards("2s 2d 4s 4d 5h"), "5").play
    assert previous is not None and previous.kind == "full_house"
    bot = BotPlayer("S", level="5")
    bot.receive(parse_cards("4h 4d 5h 6s 6s 9c Jd"), "5")
    wrong = bot._non_beating(previous)
    assert wrong is None or reading_for(layout(wrong), "5", previous).play is None
    for seed in range(40):  # and on whole hands: never a "mistake" that beats as read
        bots = make_bots(seed)
        hands = Dealer(seed).deal(0)
        for lv in ("2", "5", "T"):
            b = bots["S"]
            b.receive(hands["S"], lv)
            for top in classify(parse_cards("3c 3d 3h 5c 5d"), lv) + classify(parse_cards("7c"), lv):
                w = b._non_beating(top)
                assert w is None or reading_for(layout(w), lv, top).play is None, (seed, lv, top, w)
