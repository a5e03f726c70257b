"""Two decks: each face at most twice, a hand at most 27 cards. The rules API refuses anything
else with a clear error (Chinese, then English), and the command line exits non-zero."""

from __future__ import annotations

import pytest

from table_service.cli import main
from table_service.rules.cards import parse_cards
from table_service.rules.errors import ImpossibleCardsError
from table_service.rules.legal import legal_plays
from table_service.rules.patterns import classify


def test_classify_refuses_a_third_copy() -> None:
    # Each half names the card and the count (the Chinese half had said only "牌不可能").
    with pytest.raises(ImpossibleCardsError, match=r"^牌不可能：黑桃3 出现 3 次（两副牌每张只有 2 张） / impossible cards: "
                                                   r"3s appears 3 times"):
        classify("3s 3s 3s", "5")
    assert [p.kind for p in classify("3s 3s 3d", "5")] == ["triple"]  # two of a face is fine


def test_legal_plays_refuses_a_third_copy_and_a_28_card_hand() -> None:
    with pytest.raises(ImpossibleCardsError, match="^牌数不可能：28 张，一手最多 27 张 / impossible: 28 cards, a hand "
                                                   "holds at most 27"):
        legal_plays(["3s"] * 28, "5")
    with pytest.raises(ImpossibleCardsError, match="3s appears 3 times"):
        legal_plays("3s 3s 3s 4d", "5")
    hand28 = parse_cards(" ".join(f"{r}{s}" for r in "3456789" for s in "shdc"))  # 28 distinct faces
    with pytest.raises(ImpossibleCardsError, match="28 cards, a hand holds at most 27"):
        legal_plays(hand28, "5")
    assert legal_plays(hand28[:27], "5")  # 27 is a full hand


@pytest.mark.parametrize(
    "argv",
    [
        ["rules", "classify", "--level", "5", "3s", "3s", "3s"],
        ["rules", "legal", "--level", "5", *(["3s"] * 28)],
    ],
)
def test_cli_refuses_impossible_cards(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) != 0
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "impossible" in text and "三同张" not in text and "炸弹" not in text
