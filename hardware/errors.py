"""Errors of the ``hardware`` package.

One base, :class:`HardwareError`, so the service can catch everything this package raises in one
place; each error also inherits the matching builtin (gpiozero's style) so generic callers that
only know ``ValueError`` or ``OSError`` still handle them sensibly.  Messages are Chinese first,
then English, because they reach referees and technicians at the table.
"""

from __future__ import annotations

import os
import stat


class HardwareError(Exception):
    """Base of every error raised by :mod:`hardware`."""


class ConfigError(HardwareError, ValueError):
    """``table.toml`` is malformed or inconsistent.

    Carries every problem found (not just the first), so one ``config check`` run lists them all.
    ``table_service.cli`` prints any ``ValueError`` as a clear error, which this is.
    """

    def __init__(self, problems: list[str] | str, path: str | None = None) -> None:
        if isinstance(problems, str):
            problems = [problems]
        self.problems: list[str] = list(problems)
        self.path = path
        where = f"{path}: " if path else ""
        if len(self.problems) == 1:
            message = where + self.problems[0]
        else:
            lines = "\n".join(f"  - {p}" for p in self.problems)
            message = f"{where}配置有 {len(self.problems)} 处错误 / {len(self.problems)} problems:\n{lines}"
        super().__init__(message)


class DeviceError(HardwareError, OSError):
    """A device could not be opened or driven (pin busy, port gone, display not acknowledging)."""


class DisplayNotAcknowledged(DeviceError):
    """The TM1637 did not pull DIO low in the ack slot: wrong wiring, wrong pins or no power."""


class CameraError(HardwareError, OSError):
    """A frame source could not be opened or read (no such device, unreadable file or folder)."""


def not_regular_file(path: str | os.PathLike[str]) -> str | None:
    """Why ``path`` cannot be read as an input file, or None when it is a regular file or cannot be
    looked at (the reader's own open then says why: no such file, no permission).

    A reader given /dev/zero read one endless line until memory ran out, and one given a FIFO
    waited for a writer forever: every input file is checked with this before it is opened.
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return f"是文件夹：{path} / is a folder: {path}"
    return f"不是普通文件：{path} / not a regular file: {path}"
