"""The small files a table's camera is set up with (table layout, lens calibration), read without
trusting what a path names.

Why: ``Path.read_text`` on /dev/zero reads one endless line until memory runs out (``vision enroll
--layout /dev/zero`` held 5 GB after 20 s), and on a FIFO waits for a writer forever.  vision may
not import :mod:`hardware` (whose ``errors.not_regular_file`` the table's config uses), so the check
is here for vision's own readers.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

#: The largest layout or calibration file read: both are a few hundred bytes of JSON.
MAX_SMALL_FILE_BYTES = 1024 * 1024


def read_small_text(path: str | os.PathLike[str]) -> str:
    """The UTF-8 text of the regular file ``path``, at most :data:`MAX_SMALL_FILE_BYTES`.

    :raises FileNotFoundError: no such file (callers word it for their file).
    :raises ValueError: a folder, a device or FIFO, a file too large or not UTF-8; one line, Chinese first.
    """
    p = Path(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise
    except (OSError, ValueError) as exc:
        raise ValueError(f"无法读取 {p}（{exc}） / cannot read {p}: {exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise ValueError(f"是文件夹：{p} / is a folder: {p}")
    if not stat.S_ISREG(st.st_mode):
        raise ValueError(f"不是普通文件：{p} / not a regular file: {p}")
    if st.st_size > MAX_SMALL_FILE_BYTES:
        raise ValueError(f"文件过大：{p} 有 {st.st_size} 字节（至多 {MAX_SMALL_FILE_BYTES}） / "
                         f"file too large: {p} holds {st.st_size} bytes (at most {MAX_SMALL_FILE_BYTES})")
    try:
        with open(p, "rb") as fh:
            data = fh.read(MAX_SMALL_FILE_BYTES + 1)
    except FileNotFoundError:
        raise
    except OSError as exc:
        raise ValueError(f"无法读取 {p}（{exc.strerror or exc}） / cannot read {p}: {exc.strerror or exc}") from None
    if len(data) > MAX_SMALL_FILE_BYTES:  # grew after the stat
        raise ValueError(f"文件过大：{p}（至多 {MAX_SMALL_FILE_BYTES} 字节） / "
                         f"file too large: {p} (at most {MAX_SMALL_FILE_BYTES} bytes)")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{p} 不是 UTF-8 文本（{exc}） / {p} is not UTF-8 text: {exc}") from None
