"""vision: the overhead camera — calibration, settle detection, card reading, synthetic scenes.

Public API (kept exactly; used by checks outside the project)::

    from vision import read_play, enroll
    r = read_play(zone_bgr, px_per_mm=3.0, enrollment=None, possible=None)
    r.cards, r.confidence, r.uncertain
    e = enroll({"Ah": img, ..., "BJ": img}, px_per_mm=3.0)

Also: :class:`vision.watcher.TableWatcher` (frames -> observations) and :mod:`vision.synth`
(scenes rendered from the real gnome-cards-data artwork).  See docs/architecture.md.
``vision`` imports nothing from ``table_service``.
"""

from .cardnet.deckfile import Enrollment
from .cardnet.enrol import enroll
from .cardnet.read import PlayReading, read_play

__all__ = ["Enrollment", "PlayReading", "enroll", "read_play"]
