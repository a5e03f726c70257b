"""vision: the overhead camera — calibration, settle detection, card reading, synthetic scenes.

Public API (kept exactly; used by checks outside the project)::

    from vision import read_play, enroll
    r = read_play(zone_bgr, px_per_mm=3.0, enrollment=None, possible=None)
    r.cards, r.confidence, r.uncertain
    e = enroll({"Ah": img, ..., "BJ": img}, px_per_mm=3.0)

Also: :class:`vision.watcher.TableWatcher` (frames -> observations) and :mod:`vision.synth`
(scenes rendered from the real gnome-cards-data artwork).  See docs/architecture.md.
``vision`` imports nothing from ``table_service``.

These four names are the package's one published entry point (the reader itself lives in
:mod:`vision.cardnet`); the project's own code imports them from their modules.
"""

from .cardnet.deckfile import Enrollment
from .cardnet.enrol import enroll
from .cardnet.read import PlayReading, read_play

__all__ = ["Enrollment", "PlayReading", "enroll", "read_play"]
