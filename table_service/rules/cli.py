"""``guandan-table rules …``: classify plays and list legal plays from the command line."""

from __future__ import annotations

import argparse

from table_service.rules.cards import format_cards, parse_cards
from table_service.rules.legal import legal_plays
from table_service.rules.patterns import KINDS, classify
from table_service.rules.reading import reading_for


def _cards_arg(values: list[str]) -> list:
    cards = parse_cards(" ".join(values))
    if not cards:  # "" (an unset shell variable) read as no cards: "not a pattern" or "0 plays", exit 0
        raise ValueError("没有给出牌 / no cards given (e.g. 7h 5s 6s 8s 9s)")
    return cards


def _print_plays(plays: list) -> None:
    for p in plays:
        print(f"{p.describe_zh():<28} {format_cards(p.cards):<32} = {format_cards(p.faces)}")


def _classify(args: argparse.Namespace) -> int:
    cards = _cards_arg(args.cards)
    plays = classify(cards, args.level)
    if not plays:
        print(f"不成牌型：{format_cards(cards)} / not a pattern: {format_cards(cards)}")
        return 1
    _print_plays(plays)
    if len(plays) > 1:
        r = reading_for(cards, args.level)
        print(f"→ {r.play.describe_zh() if r.play else '-'}  ({r.reason})")
    return 0


def _legal(args: argparse.Namespace) -> int:
    hand = _cards_arg(args.hand)
    previous = None
    if args.previous is not None and not args.previous.strip():
        raise ValueError("--previous 为空 / --previous is empty: give the play to beat, or leave it out to lead")
    if args.previous:
        readings = classify(parse_cards(args.previous), args.level)
        if not readings:
            raise ValueError(f"上家出牌不成牌型：{args.previous} / previous play is not a pattern: {args.previous}")
        previous = reading_for(args.previous, args.level).play
    plays = legal_plays(hand, args.level, previous)
    if args.kind:
        plays = [p for p in plays if p.kind == args.kind]
    _print_plays(plays)
    print(f"共 {len(plays)} 种 / {len(plays)} plays")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``rules classify`` and ``rules legal``."""
    p = subparsers.add_parser("rules", help="牌型与合法出牌 / patterns and legal plays",
                              description="按本桌规则列出一手牌的读法，或手牌中所有合法出牌 / every reading of a "
                                          "play, or every legal play from a hand, by the table's rules")
    sub = p.add_subparsers(dest="rules_command", metavar="SUBCOMMAND", required=True)
    c = sub.add_parser("classify", help="列出一手牌的所有读法 / every reading of a play")
    c.add_argument("--level", required=True, help="本副级数 / the deal's level, e.g. 7")
    c.add_argument("cards", nargs="+", help="牌, 如 / cards, e.g. 7h 5s 6s 8s 9s")
    c.set_defaults(func=_classify)
    lg = sub.add_parser("legal", help="列出手牌中所有合法出牌 / every legal play from a hand")
    lg.add_argument("--level", required=True, help="本副级数 / the deal's level, e.g. 7")
    lg.add_argument("--previous", default=None, help="上家出的牌 / the play to beat, e.g. \"8s 8d\"")
    lg.add_argument("--kind", choices=KINDS, default=None, help="只看某种牌型 / only this kind")
    lg.add_argument("hand", nargs="+", help="手牌 / the hand, e.g. 3s 3d 4h 5c 6s 7s")
    lg.set_defaults(func=_legal)
