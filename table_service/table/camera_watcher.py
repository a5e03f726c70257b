"""The table's card watcher, and the rules' word it reads with (moved out of ``camera_pipeline``).

``make_watcher`` builds the vision package's watcher from ``[vision]`` of the table's config; the
two hooks give it what only the rules know: the cards still possible this deal (a third copy is
never read as certain) and whether cards form a shape a player may lay now (a reading no player
would lay is weighed against the lawful ones near it). Vision imports nothing of the rules: the
table passes them in.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table_service.rules.cards import DECK_FACES
from table_service.rules.patterns import is_pattern

log = logging.getLogger(__name__)


def make_watcher(vision_cfg: dict[str, Any], *, possible: Callable[[str], Any] | None = None,
                 lawful: Callable[[str], Any] | None = None, settle_s: float | None = None, read_frames: int = 3,
                 learn_store: str | Path | None = None) -> Any:
    """The vision package's per-table watcher for ``[vision]`` of the config.

    Keys: ``layout`` (table layout JSON; default the standard 900 mm table), ``calibration`` (lens
    calibration file from ``guandan-table vision calibrate``), ``px_per_mm`` (reading scale),
    ``enrollment`` (the deck in use, from ``guandan-table vision enroll``, see docs/performance.md),
    ``learn`` (default true: the reader learns the deck from its sure reads and the referee's answers).
    ``learn_store``: the file what was learned is kept in, so a restart mid-session resumes it.
    ``possible`` / ``lawful``: per seat, the table's word on the cards still possible and on the shapes
    a player may lay now (:func:`possible_cards`, :func:`lawful_shape`).

    :raises ValueError: a layout, calibration or enrolment file that cannot be read.
    """
    from vision.calibration import LensCalibration  # lazy: vision loads OpenCV (cv2)
    from vision.cardnet.deckfile import Enrollment  # lazy: vision loads OpenCV (cv2)
    from vision.geometry import TableLayout, default_layout  # lazy: vision loads OpenCV (cv2)
    from vision.settle import SettleConfig  # lazy: vision loads OpenCV (cv2)
    from vision.watcher import TableWatcher  # lazy: vision loads OpenCV (cv2)

    layout = TableLayout.load(vision_cfg["layout"]) if vision_cfg.get("layout") else default_layout()
    lens = LensCalibration.load(vision_cfg["calibration"]) if vision_cfg.get("calibration") else None
    enrollment = Enrollment.load(vision_cfg["enrollment"]) if vision_cfg.get("enrollment") else None
    if enrollment is not None:
        from vision.cardnet.fancheck import verdict  # lazy: vision loads OpenCV (cv2)

        warn, text = verdict(enrollment.check)
        (log.warning if warn else log.info)("deck %s: %s", vision_cfg["enrollment"], text)
    settle = SettleConfig(settle_s=settle_s) if settle_s is not None else None
    return TableWatcher(layout, lens=lens, read_px_per_mm=float(vision_cfg.get("px_per_mm", 3.0)),
                        settle=settle, enrollment=enrollment, possible=possible, lawful=lawful,
                        read_frames=read_frames,
                        learn=bool(vision_cfg.get("learn", True)), learn_store=learn_store)


def possible_cards(state: dict[str, Any]) -> list[str] | None:
    """The cards that may still appear this deal (each face twice, less what was seen): narrows
    the card reader, so a third copy is never read as certain."""
    deal = state.get("deal")
    if not deal or deal.get("phase") == "over":
        return None

    seen = deal.get("seen") or {}
    return [str(c) for c in DECK_FACES for _ in range(max(0, 2 - int(seen.get(str(c), 0))))]


@functools.lru_cache(maxsize=16384)
def _is_pattern_at(cards: tuple[str, ...], level: str) -> bool:
    """``is_pattern``, remembered: the watcher reads each settled zone on up to three frames, and
    the reader asks about the same readings of the same cards on each (up to 256 a read)."""
    return is_pattern(cards, level)


def lawful_shape(state: dict[str, Any]) -> Callable[[list[str]], bool] | None:
    """Whether cards form a pattern at this deal's level (the wild card is the level's heart), for
    the card reader to weigh a reading against the readings no player would lay; None outside a
    deal in play."""
    deal = state.get("deal")
    if not deal or deal.get("phase") == "over" or not deal.get("level"):
        return None
    level = str(deal["level"])
    return lambda cards: _is_pattern_at(tuple(cards), level)
