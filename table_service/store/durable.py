"""Small files written so that a kill or a power cut leaves the old file or the new, never a torn one.

The event log is SQLite (its own journal); beside it the service keeps a few files a restart reads:
the table clock's origin, the enrolled deck, which hub deck was taken, the broker's last
acknowledgement, the session key, the hub's copy of the event deck. Each is written here: a
temporary file in the same folder, ``fsync``, ``os.replace`` over the old one, ``fsync`` of the
folder. A rename alone survives a ``kill -9`` but not a power cut: the data blocks may not have
reached the card when the rename did, and the file reads back empty.

A kill mid-write leaves its temporary (``.<name>.<pid>.<random>.tmp``): no ``finally`` runs. Each such
kill left one more (the hub's deck copies are megabytes), so each write first deletes those of the same
target whose writer is gone: its pid no longer runs (:func:`stale_temporaries`). One of a writer still
running — another thread of this process, another process — is left alone: its rename is still to come.
"""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import time
from pathlib import Path

#: What ``tempfile.mkstemp`` puts between prefix and suffix.
_RANDOM = r"[a-z0-9_]{8}"
#: A temporary of the format before the writer's pid was in the name is stale once this old (seconds):
#: no write of these small files takes a minute.
OLD_FORMAT_STALE_S = 60.0


def _running(pid: int) -> bool:
    """Whether process ``pid`` exists (this one does)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: it runs
        return True
    return True


def stale_temporaries(path: Path) -> list[Path]:
    """The temporaries of :func:`write_durably` for ``path`` that a killed writer left: this writer's own
    name pattern only (``.<name>.<pid>.<random>.tmp``, nothing else in the folder), its pid no longer
    running; and ones of the earlier pattern (``.<name>.<random>.tmp``) over a minute old."""
    own = re.compile(re.escape(f".{path.name}.") + r"(\d+)\." + _RANDOM + re.escape(".tmp"))
    older = re.compile(re.escape(f".{path.name}.") + _RANDOM + re.escape(".tmp"))
    found = []
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return []
    for p in entries:
        if (m := own.fullmatch(p.name)) is not None:
            if not _running(int(m.group(1))):
                found.append(p)
        elif older.fullmatch(p.name) is not None:
            with contextlib.suppress(OSError):
                if time.time() - p.lstat().st_mtime > OLD_FORMAT_STALE_S:
                    found.append(p)
    return sorted(found)


def write_durably(path: str | Path, data: bytes, *, mode: int = 0o644) -> None:
    """Put ``data`` at ``path`` whole, or leave what was there (see the module's docstring).

    ``mode``: the file's permissions, set before a byte is written (a secret, 0o600, is never
    readable by others, not even for a moment).

    :raises OSError: the folder cannot be written (the old file is untouched, no temporary left).
    """
    path = Path(path)
    for stale in stale_temporaries(path):
        with contextlib.suppress(OSError):
            stale.unlink()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.{os.getpid()}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    with contextlib.suppress(OSError):  # the rename itself survives a power cut (not on every OS)
        dfd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dfd)
        finally:
            os.close(dfd)
