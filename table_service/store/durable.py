"""Small files written so that a kill or a power cut leaves the old file or the new, never a torn one.

The event log is SQLite (its own journal); beside it the service keeps a few files a restart reads:
the table clock's origin, the enrolled deck, which hub deck was taken, the broker's last
acknowledgement, the session key, the hub's copy of the event deck. Each is written here: a
temporary file in the same folder, ``fsync``, ``os.replace`` over the old one, ``fsync`` of the
folder. A rename alone survives a ``kill -9`` but not a power cut: the data blocks may not have
reached the card when the rename did, and the file reads back empty.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path


def write_durably(path: str | Path, data: bytes, *, mode: int = 0o644) -> None:
    """Put ``data`` at ``path`` whole, or leave what was there (see the module's docstring).

    ``mode``: the file's permissions, set before a byte is written (a secret, 0o600, is never
    readable by others, not even for a moment).

    :raises OSError: the folder cannot be written (the old file is untouched, no temporary left).
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
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
