"""The event's deck handed down by the hub (or withdrawn by it), or kept from before a restart, taken
into use by this table's camera.

Why here and not in the MQTT bridge: the bridge only carries bytes (it must not load OpenCV for a
table without a camera); what the deck is for — the camera's reader — is the pipeline's.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table_service.engine.errors import halves
from table_service.store.durable import write_durably

log = logging.getLogger(__name__)


def take_deck(pipe: Any, data: bytes, sha: str, note: Callable[[], bool] | None = None) -> bool:
    """Check the enrolment file ``data``, save it where this table keeps its deck and read with it
    from the next play on. Returns False (and changes nothing) for a table without a camera or a
    file that is not an enrolment this version reads.

    ``note``: logs that the table now reads with this deck, and says whether the log kept it. Called
    once the deck is checked and written whole beside its place, before it is renamed into place and
    read with; when it returns False nothing changes. Why first: the log must say which deck each
    play was read with, and a deck used before its note (sent without waiting) could read plays the
    log attributes to the deck before, or, the note lost, to none (the durability audit, finding 6).
    """
    path = getattr(pipe, "enrollment_path", None)
    watcher = getattr(pipe, "watcher", None)
    if not path or watcher is None:
        log.info("deck %s from the hub: this table has no camera to read with it", sha[:12])
        return False
    from vision.cardnet.deckfile import Enrollment  # lazy: vision loads OpenCV (cv2)

    taken = _hub_sha_path(path)
    if taken.is_file() and taken.read_text(encoding="ascii", errors="replace").strip() == sha:
        # The hub's retained deck again (a restart, a reconnect): taken before. If the table enrolled
        # its own deck since, that one stays; the hub's next *new* deck replaces it.
        if _file_sha(path) != sha:
            log.info("deck %s from the hub taken before; the deck enrolled at this table since is kept", sha[:12])
            return False
        if getattr(watcher, "enrollment", None) is None:
            load_saved_deck(pipe)
        return True
    tmp = Path(f"{path}.hub.tmp")
    tmp.parent.mkdir(parents=True, exist_ok=True)
    try:
        write_durably(tmp, data)  # whole on the card: after the note it only has to be renamed
        try:
            enrollment = Enrollment.load(tmp)
        except ValueError as exc:
            why = halves(str(exc))
            log.warning("赛事中心发来的牌组 %s 不可用：%s / deck %s from the hub refused: %s", sha[:12], why[0], sha[:12],
                        why[1])
            return False
        if note is not None and not note():
            log.warning("赛事中心发来的牌组 %s 未采用：记录未能写入其说明 / deck %s from the hub not taken: the log did "
                        "not keep its note", sha[:12], sha[:12])
            return False
        os.replace(tmp, path)  # the file a restart reads is whole, old or new
    finally:
        tmp.unlink(missing_ok=True)
    write_durably(taken, (sha + "\n").encode("ascii"))  # which hub deck was taken outlives a restart (and syncs the rename)
    _read_with(watcher, enrollment, f"deck {sha[:12]} from the hub in use ({path})")
    return True


def _hub_sha_path(path: str | Path) -> Path:
    """Beside the deck file: the SHA-256 of the last deck taken from the hub."""
    return Path(f"{path}.hub-sha256")


def _file_sha(path: str | Path) -> str | None:
    try:
        return hashlib.sha256(Path(path).read_bytes()).hexdigest()
    except OSError:
        return None


def _read_with(watcher: Any, enrollment: Any, what: str) -> None:
    """The camera reads with ``enrollment`` from the next play on; the log says what the fan check said."""
    from vision.cardnet.fancheck import verdict  # lazy: vision loads OpenCV (cv2)

    watcher.enrollment = enrollment
    warn, text = verdict(enrollment.check)
    (log.warning if warn else log.info)("%s: %s", what, text)


def load_saved_deck(pipe: Any) -> bool:
    """Read with the deck this table saved before it stopped (enrolled at the panel or handed down by
    the hub), when its config names none: a Pi that reboots mid-event must not fall back to reading
    zero-shot without a word. An unreadable file is logged and left; the camera reads zero-shot.
    """
    path = getattr(pipe, "enrollment_path", None)
    watcher = getattr(pipe, "watcher", None)
    if not path or watcher is None or getattr(watcher, "enrollment", None) is not None or not Path(path).is_file():
        return False
    from vision.cardnet.deckfile import Enrollment  # lazy: vision loads OpenCV (cv2)

    try:
        enrollment = Enrollment.load(path)
    except ValueError as exc:
        why = halves(str(exc))
        log.warning("已保存的牌组 %s 不可用，不用它读牌：%s / saved deck %s not used, reading without it: %s",
                    path, why[0], path, why[1])
        return False
    _read_with(watcher, enrollment, f"saved deck {path} in use")
    return True


def drop_deck(pipe: Any, sha: str) -> bool:
    """The hub withdrew the event's deck ``sha``: if the file this table reads with is that deck,
    delete it and read unenrolled (learning the deck in play). A deck of the table's own (enrolled
    at its panel after the hub's) is another file and is kept. Returns True when dropped."""
    path = getattr(pipe, "enrollment_path", None)
    watcher = getattr(pipe, "watcher", None)
    if not path or watcher is None:
        return False
    ours = _file_sha(path)
    if ours is None or ours != sha:
        return False  # no saved deck, or the table's own: nothing of the hub's to drop
    Path(path).unlink(missing_ok=True)  # first: a restart must not read the withdrawn deck again
    watcher.enrollment = None
    log.warning("赛事中心撤回了牌组 %s：按未登记牌组读牌（已删除 %s） / deck %s withdrawn by the hub: reading "
                "unenrolled (%s removed)", sha[:12], path, sha[:12], path)
    return True
