"""The event's deck at the hub: an enrolment file checked before it is handed to every table.

Why the hub reads the file itself: a file the tables would refuse (another version's, a
truncated upload, a photo sent by mistake) must be refused to the organiser at the upload, with
why, not discovered at 500 tables one by one.
"""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

from table_service.event.model import EventInputError
from table_service.views.deck_wire import MAX_DECK_BYTES


def deck_meta(data: bytes) -> dict[str, Any]:
    """What the overview shows of an enrolment file (cards enrolled, the head's origin, the fan
    check's verdict), once it has been read as the tables will read it.

    :raises EventInputError: empty, too large, or not an enrolment file this version reads.
    """
    if not isinstance(data, bytes) or not data:
        raise EventInputError("没有收到登记文件 / no enrolment file received")
    if len(data) > MAX_DECK_BYTES:
        raise EventInputError(f"登记文件过大（最多 {MAX_DECK_BYTES // 1024} KiB） / enrolment file larger than "
                              f"{MAX_DECK_BYTES // 1024} KiB")
    from vision.cardnet.deckfile import Enrollment  # lazy: vision loads OpenCV (cv2)
    from vision.cardnet.fancheck import verdict  # lazy: vision loads OpenCV (cv2)

    with tempfile.TemporaryDirectory(prefix="guandan-deck-") as d:
        path = Path(d) / "deck.npz"
        path.write_bytes(data)
        try:
            # Enrollment.load refuses every unreadable, damaged, ill-formed or oversized file with a
            # ValueError (Chinese first); the verdict is read here too, so that nothing of the file
            # can reach the organiser as a 500 instead of a 400 with why.
            e = Enrollment.load(path)
            warn, text = verdict(e.check)
        except ValueError as exc:
            raise EventInputError(str(exc).replace(str(path), "(uploaded)")) from None
    # The cards without a face in the file are read zero-shot at every table: the organiser is told which.
    return {"cards": len(e.cards), "origin": e.head.origin, "warn": warn, "verdict": text,
            "not_enrolled": e.not_enrolled}
