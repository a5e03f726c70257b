"""Each shared constant is written once: a module that needs it imports it, or derives it, from the
module that defines it (a copy drifted: the table id rule existed three times with three values, the
public feed spelt the seats "ESWN", the hub its own forfeit score). Where the layers forbid the import
(hardware and vision may not import each other), the two copies are held equal here."""

from __future__ import annotations

import ast
from pathlib import Path

import cv2
import numpy as np

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("table_service", "hardware", "vision", "firmware_bridge")

#: Constant names and the only modules that may write their value as a literal.
SOURCES: dict[str, set[str]] = {
    "FORFEIT_SCORE": {"table_service/rules/scoring.py"},
    "MAX_TEXT": {"table_service/engine/events.py"},
    "CARD_HEIGHT_MM": {"vision/artwork.py"},
    "SEATS": {"table_service/rules/seats.py", "firmware_bridge/firmware/wire.py"},
    "SIDES": {"table_service/rules/seats.py"},
    "_SIDES": set(),
    "ID_SEGMENT_RE": {"hardware/config_model.py"},
    "SEGMENT_RE": set(),
    "_TABLE_ID_RE": set(),
}
#: Spellings of the seats as a literal.
SEAT_LITERALS = ("ESWN", ("E", "S", "W", "N"))


def _literal(node: ast.AST) -> bool:
    """Whether ``node`` is a value written out (a constant, a tuple/list/set of them, or one passed to
    ``re.compile``/``frozenset``/``tuple``) rather than taken from another name."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Tuple | ast.List | ast.Set):
        return all(_literal(e) for e in node.elts)
    if isinstance(node, ast.Call) and ast.unparse(node.func) in ("re.compile", "frozenset", "tuple"):
        return all(_literal(a) for a in node.args)
    return False


def _modules() -> list[tuple[str, ast.Module]]:
    return [(str(p.relative_to(REPO)), ast.parse(p.read_text(encoding="utf-8")))
            for pkg in PACKAGES for p in sorted((REPO / pkg).rglob("*.py"))]


def test_each_constant_is_written_in_one_module() -> None:
    written: dict[str, set[str]] = {name: set() for name in SOURCES}
    for path, tree in _modules():
        for node in tree.body:
            target = node.target if isinstance(node, ast.AnnAssign) else (
                node.targets[0] if isinstance(node, ast.Assign) and len(node.targets) == 1 else None)
            value = node.value if isinstance(node, ast.AnnAssign | ast.Assign) else None
            if isinstance(target, ast.Name) and target.id in SOURCES and value is not None and _literal(value):
                written[target.id].add(path)
    assert written == SOURCES


def test_the_seats_are_spelt_only_where_they_are_defined() -> None:
    spelt = set()
    for path, tree in _modules():
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant | ast.Tuple) and _literal(node):
                value = ast.literal_eval(node)
                if value in SEAT_LITERALS:
                    spelt.add(path)
    assert spelt == SOURCES["SEATS"]


def test_the_derived_constants_have_the_values_of_their_source() -> None:
    from table_service.engine.events import MAX_TEXT
    from table_service.event import intake, model
    from table_service.rules.scoring import FORFEIT_SCORE
    from table_service.rules.seats import SEATS, SIDES
    from vision.geometry import SEATS as VISION_SEATS

    assert model.MAX_TEXT == MAX_TEXT
    assert model.parse_result({"round": 1, "table": "1", "ns": "A", "ew": "B", "forfeit": "ns"}).level_points() \
        == FORFEIT_SCORE[::-1]
    assert set(intake._SIDES) == set(SIDES) and intake._SIDES[0] == "NS"  # the hub's order: NS first
    assert VISION_SEATS == SEATS


def test_hardware_and_vision_read_the_same_image_files(tmp_path: Path) -> None:
    """An image folder the camera replays is one the vision commands read (``.webp`` was the camera's
    only); OpenCV decodes each of them."""
    from hardware.camera import IMAGE_SUFFIXES as CAMERA_SUFFIXES
    from vision.cli import IMAGE_SUFFIXES, _read_image

    assert IMAGE_SUFFIXES == CAMERA_SUFFIXES
    img = np.full((8, 12, 3), 90, np.uint8)
    for suffix in sorted(IMAGE_SUFFIXES):
        path = tmp_path / f"a{suffix}"
        assert cv2.imwrite(str(path), img), suffix
        assert _read_image(path).shape == img.shape, suffix



def test_a_team_name_the_hub_takes_is_one_every_table_takes() -> None:
    """``round_set_up``'s ``team_names`` (the engine) and the hub's rule for a team's name
    (``views.wire.control_character``, which ``event.config.team_name`` applies) refuse the same
    characters: the engine may not import the views, so the rule is written twice and held equal here."""
    from table_service.engine.names import is_team_name
    from table_service.views.wire import control_character

    for code in range(0x10000):
        if 0xD800 <= code <= 0xDFFF:
            continue
        text = f"队{chr(code)}名"
        assert is_team_name(text) == (control_character(text) is None), hex(code)


def test_the_reader_names_a_card_in_chinese_as_the_engine_does() -> None:
    """The card reader's reasons say the cards in their Chinese half (``红桃10``, ``大王``, not ``Th``,
    ``BJ``) as the engine's messages do: vision may not import the rules, so the names are held equal here."""
    from table_service.rules.cards import DECK_FACES, card_name_zh, cards_zh
    from vision.cards import ALL_CARDS, card_zh

    assert {c: card_zh(c) for c in ALL_CARDS} == {str(c): card_name_zh(c) for c in DECK_FACES}
    assert card_zh("Th") == "红桃10" and card_zh("BJ") == "大王" and card_zh("??") == "??"
    assert cards_zh(["Th", "SJ", "x9"]) == "红桃10 小王 x9"
