"""The enrolment file: a deck's classifier head, as the hub hands it to every table and a table loads it.

Its own small module (below :mod:`vision.cardnet.read`, which reads with it, and
:mod:`vision.cardnet.enrol`, which makes it).
"""

from __future__ import annotations

import json
import os
import zipfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.cards import ALL_CARDS, check_card

from .head import Head

#: Version tag of :meth:`Enrollment.save` files (1 was the glyph-blob reader's: enrol again).
ENROLLMENT_FORMAT = "guandan-table-enrollment-2"


@dataclass
class Enrollment:
    """The deck in use: the classifier head fitted to its faces, and the faces it could not use."""

    head: Head
    #: The cards whose faces were enrolled (the others are read with the shipped knowledge).
    cards: tuple[str, ...] = ()
    #: Faces given to :func:`enroll` it could not learn, with why (card -> reason); read zero-shot.
    skipped: dict[str, str] = field(default_factory=dict)
    #: How the reader did on plays rendered from the deck's faces (:mod:`vision.cardnet.fancheck`);
    #: None where no check was made.
    check: dict[str, Any] | None = None

    @property
    def not_enrolled(self) -> list[str]:
        """The cards without a face in this enrolment (read as the shipped head reads them)."""
        return [c for c in ALL_CARDS if c not in self.cards]

    def save(self, path: str | Path) -> None:
        """Write the enrolment (the head's weights and temperature) beside and rename it into place:
        a crash mid-write never leaves half a file that the service would refuse at its next start."""
        tmp = Path(f"{path}.tmp")
        with open(tmp, "wb") as fh:
            np.savez_compressed(fh, format=np.array(ENROLLMENT_FORMAT), head=np.frombuffer(self.head.to_bytes(), np.uint8),
                                cards=np.array(" ".join(self.cards)), check=np.array(json.dumps(self.check)))
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | Path) -> Enrollment:
        """Read a file written by :meth:`save`.

        :raises ValueError: not an enrolment file, or one this version cannot read.
        """
        try:
            with np.load(path, allow_pickle=False) as z:
                data = {k: z[k] for k in z.files}
        except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:  # a zip's header on other bytes
            why = exc.strerror if isinstance(exc, OSError) and exc.strerror else "not a .npz enrolment file"
            raise ValueError(f"无法读取登记文件 / cannot read enrolment file {path}: {why}") from None
        fmt = str(data.get("format", ""))
        if fmt == "guandan-table-enrollment-1":
            raise ValueError(f"登记文件是旧版识牌器的，请重新登记 / enrolment file {path} was made for the "
                             "previous card reader: enrol the deck again")
        if fmt != ENROLLMENT_FORMAT or "head" not in data:
            raise ValueError(f"不是登记文件 / not an enrolment file (format {ENROLLMENT_FORMAT}): {path}")
        try:
            cards = tuple(str(data["cards"]).split()) if "cards" in data else ()
            for c in cards:
                check_card(c)
            check = json.loads(str(data["check"])) if "check" in data else None
            if check is not None and not isinstance(check, dict):
                raise ValueError("fan check is not a JSON object")
            head = Head.from_bytes(data["head"].tobytes())
            if head.known is None and cards:
                # A file written before heads kept their known faces: its cards are the faces it was fitted on.
                head = head.knowing_cards(cards)
            return cls(head, cards, check=check)
        except ValueError as exc:  # json.JSONDecodeError is a ValueError
            raise ValueError(f"登记文件不完整 / enrolment file incomplete or damaged: {path}: {exc}") from exc

