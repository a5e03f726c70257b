"""The enrolment file: a deck's classifier head, as the hub hands it to every table and a table loads it.

Its own small module (below :mod:`vision.cardnet.read`, which reads with it, and
:mod:`vision.cardnet.enrol`, which makes it).
"""

from __future__ import annotations

import io
import json
import lzma
import math
import os
import zipfile
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from vision.cards import ALL_CARDS, check_card

from .head import Head

#: Version tag of :meth:`Enrollment.save` files (1 was the glyph-blob reader's: enrol again).
ENROLLMENT_FORMAT = "guandan-table-enrollment-2"
#: The most an enrolment file, and each member of it (and of the head inside it), may inflate to;
#: a file claiming more in its zip directory is refused before a byte of it is inflated.
#: Measured: a real enrolment (all 54 anglo faces and a fan check) inflates to 688,952 bytes (~734 kB
#: since the head carries the deck's own suit head), and its largest member, the head, to 687,264 (float32 weights 1728x96 and 96x55 in an uncompressed .npz;
#: the other members are under 1 kB). A float64 head would be 1.37 MB. 8 MiB is 12 times the real
#: head and 6 times a float64 one, yet without a bound a 1.46 MB upload inflated to 1.5 GB (3 GB at
#: peak) before it was refused, and the 4 MiB upload limit allows ~4 GB.
MAX_INFLATED_BYTES = 8 * 1024 * 1024
#: Members of an enrolment file (4: format, head, cards, check) or of the head inside it (7, 8 with
#: its known faces, 16 with the deck's own suit head and far index, :mod:`vision.cardnet.deck_body`):
#: twice the larger, room for members added later (16 had left none).
MAX_MEMBERS = 32


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
            fh.flush()
            os.fsync(fh.fileno())  # on the card before the rename: a power cut leaves the old file or this one
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | Path) -> Enrollment:
        """Read a file written by :meth:`save`.

        Why every failure is one ValueError: the file comes from an SD card, a USB stick or an upload,
        and each caller (the hub's upload, a table's saved deck, ``config check``, the CLI) answers a
        ValueError with its message and goes on; anything else escaped as "internal error" (a table
        whose saved deck was damaged could not start at all).

        :raises ValueError: not an enrolment file, one this version cannot read, one that is damaged
            (bad compressed data, a bad member, an ill-formed fan check) or one that would inflate
            beyond :data:`MAX_INFLATED_BYTES`; the message is Chinese first, then English.
        """
        if os.path.exists(path) and not os.path.isdir(path) and not os.path.isfile(path):
            # /dev/zero was searched for a zip directory without end, a FIFO waited for a writer
            raise ValueError(f"不是普通文件：{path} / not a regular file: {path}")
        try:
            zf = zipfile.ZipFile(path)
        except OSError as exc:
            if exc.strerror:  # no such file, a folder, no permission: the system's own word
                raise ValueError(f"无法读取登记文件 {path}（{exc.strerror}） / "
                                 f"cannot read enrolment file {path}: {exc.strerror}") from None
            raise _not_enrolment(path) from exc
        except (zipfile.BadZipFile, *_UNREADABLE) as exc:  # no zip directory: other bytes, or cut short
            raise _not_enrolment(path) from exc
        try:
            with zf:
                data = _read_members(zf)
        except _TooLarge as exc:
            raise ValueError(f"{exc.zh} / {exc.en}: {path}") from None
        except (zipfile.BadZipFile, *_UNREADABLE) as exc:  # a bad CRC, a damaged deflate stream, a bad member
            raise _damaged(path, exc) from exc
        fmt = str(data.get("format", ""))
        if fmt == "guandan-table-enrollment-1":
            raise ValueError(f"登记文件 {path} 是旧版识牌器的，请重新登记 / "
                             f"enrolment file {path} was made for the "
                             "previous card reader: enrol the deck again")
        prefix = ENROLLMENT_FORMAT.rsplit("-", 1)[0] + "-"
        if fmt.startswith(prefix) and fmt != ENROLLMENT_FORMAT and fmt[len(prefix):].isdigit() \
                and int(fmt[len(prefix):]) > int(ENROLLMENT_FORMAT[len(prefix):]):
            raise ValueError(f"登记文件 {path} 由更新版本的软件生成（{fmt}；本机读 {ENROLLMENT_FORMAT}），"
                             f"请先升级本机软件 / enrolment file {path} was made by a newer "
                             f"version ({fmt}; this one reads {ENROLLMENT_FORMAT}): update the software")
        if fmt != ENROLLMENT_FORMAT or "head" not in data:
            raise ValueError(f"不是登记文件（格式 {ENROLLMENT_FORMAT}）：{path} / "
                             f"not an enrolment file (format {ENROLLMENT_FORMAT}): {path}")
        try:
            check = json.loads(str(data["check"])) if "check" in data else None
        except (ValueError, RecursionError) as exc:  # json.JSONDecodeError is a ValueError
            check, problem = None, f"not JSON: {str(exc)[:80]}"
        else:
            problem = fan_check_problem(check)
        if problem is not None:
            # verdict() reads every figure of it; at the hub the organiser decides on what it says.
            raise ValueError(f"登记文件 {path} 不完整：扇形检查记录无效（{problem}），请重新登记 / "
                             f"enrolment file incomplete or damaged: "
                             f"its fan check record is ill-formed (enrol the deck again): {path}: {problem}")
        try:
            cards = tuple(str(data["cards"]).split()) if "cards" in data else ()
            for c in cards:
                check_card(c)
            head_bytes = data["head"].tobytes()
            with zipfile.ZipFile(io.BytesIO(head_bytes)) as inner:
                # The head is a .npz inside the file: a bomb, or a header declaring terabytes, could hide
                # there too. Read here with the same checks (a few ms) before Head reads it its own way.
                _read_members(inner)
            head = Head.from_bytes(head_bytes)
            if head.known is None and cards:
                # A file written before heads kept their known faces: its cards are the faces it was fitted on.
                head = head.knowing_cards(cards)
            return cls(head, cards, check=check)
        except _TooLarge as exc:
            raise ValueError(f"{exc.zh} / {exc.en} (in its head): {path}") from None
        except ValueError as exc:
            raise ValueError(f"登记文件 {path} 不完整（{exc}） / "
                             f"enrolment file incomplete or damaged: {path}: {exc}") from exc
        except (*_UNREADABLE, zipfile.BadZipFile) as exc:
            raise _damaged(path, exc) from exc


#: What reading damaged or foreign bytes raises on the way from the zip to a :class:`Head`, beyond
#: ValueError: zlib.error (a deflate stream damaged under an intact zip directory, the commonest
#: SD-card damage), lzma.LZMAError, OSError (bz2), EOFError, NotImplementedError (a compression
#: method zipfile lacks), RuntimeError (an encrypted member), TypeError/KeyError/IndexError/OverflowError
#: (numpy on a member of the wrong shape or type, a head without one of its arrays), MemoryError.
#: Named one by one rather than ``Exception``: a bug of ours must still surface as one.
_UNREADABLE: tuple[type[BaseException], ...] = (
    ValueError, OSError, EOFError, zlib.error, lzma.LZMAError, NotImplementedError, RuntimeError, TypeError,
    KeyError, IndexError, OverflowError, MemoryError)


class _TooLarge(Exception):
    """A zip whose members are not what an enrolment holds (they would inflate beyond it, or hold
    Python objects rather than numbers): refused before reading them, in words (Chinese, English)."""

    def __init__(self, zh: str, en: str) -> None:
        super().__init__(en)
        self.zh, self.en = zh, en


def _not_enrolment(path: str | Path) -> ValueError:
    """The one message for bytes that are no zip at all (a photo, a text, an upload cut short)."""
    return ValueError(f"无法读取登记文件 {path}：不是登记文件，或文件不完整 / "
                      f"cannot read enrolment file {path}: not a .npz "
                      "enrolment file, or one cut short")


def _damaged(path: str | Path, exc: BaseException) -> ValueError:
    """The one message for a file that opens as a zip but whose contents cannot be read."""
    why = f"{type(exc).__module__}.{type(exc).__name__}" if type(exc).__module__ not in ("builtins", "zipfile") \
        else type(exc).__name__
    detail = str(exc)[:120]
    return ValueError(f"登记文件 {path} 已损坏（{why}{'：' + detail if detail else ''}），请重新复制或重新登记 / "
                      f"enrolment file damaged (copy it again or enrol the "
                      f"deck again): {path}: {why}{': ' + detail if detail else ''}")


def _check_members(zf: zipfile.ZipFile) -> None:
    """Refuse, from the zip's directory alone, a file that would inflate beyond what an enrolment
    holds (:data:`MAX_INFLATED_BYTES`, :data:`MAX_MEMBERS`) before a byte of it is inflated.

    Why the directory is enough: :mod:`zipfile` stops a member at its recorded ``file_size`` (and the
    CRC check refuses one cut short), so a member cannot inflate past what the directory says.
    """
    infos = zf.infolist()
    if len(infos) > MAX_MEMBERS:
        raise _TooLarge(f"登记文件含 {len(infos)} 个成员（最多 {MAX_MEMBERS} 个），不是登记文件",
                        f"{len(infos)} members in the file (at most {MAX_MEMBERS}): not an enrolment file")
    total = 0
    for info in infos:
        total += info.file_size
        if info.file_size > MAX_INFLATED_BYTES or total > MAX_INFLATED_BYTES:
            raise _TooLarge(f"登记文件解压后超过 {MAX_INFLATED_BYTES // 1024 ** 2} MiB（{info.filename} 为 "
                            f"{info.file_size} 字节），可能是压缩炸弹，不是登记文件",
                            f"the file would inflate beyond {MAX_INFLATED_BYTES // 1024 ** 2} MiB ({info.filename}: "
                            f"{info.file_size} bytes): a zip bomb or no enrolment file")


def _read_members(zf: zipfile.ZipFile) -> dict[str, np.ndarray]:
    """The arrays of a ``.npz`` (as :func:`numpy.load` names them), each checked before it is read:
    its size in the zip's directory (:func:`_check_members`), then its ``.npy`` header against that
    size (numpy allocates the array the header declares before it reads a byte of it)."""
    _check_members(zf)
    data: dict[str, np.ndarray] = {}
    for info in zf.infolist():
        name = info.filename.removesuffix(".npy")
        if name in data:
            raise ValueError(f"member {name!r} twice")
        with zf.open(info) as fp:
            version = np.lib.format.read_magic(fp)
            if version == (1, 0):
                shape, _fortran, dtype = np.lib.format.read_array_header_1_0(fp)
            elif version == (2, 0):
                shape, _fortran, dtype = np.lib.format.read_array_header_2_0(fp)
            else:  # numpy writes 1.0 for everything an enrolment holds (2.0 for headers over 64 KiB)
                raise ValueError(f"member {name!r}: .npy version {version}")
            if dtype.hasobject:  # a pickle: numpy refuses it in an English sentence about allow_pickle
                raise _TooLarge(f"登记文件的 {name} 含 Python 对象，不是登记文件",
                                f"member {name!r} holds Python objects, not numbers: not an enrolment file")
            count = math.prod(shape)
            if any(n < 0 for n in shape) or count > info.file_size or count * dtype.itemsize > info.file_size:
                raise ValueError(f"member {name!r} declares {shape} of {dtype}, more than its {info.file_size} bytes")
        with zf.open(info) as fp:
            data[name] = np.lib.format.read_array(fp, allow_pickle=False)
    return data


#: The counts every fan check records (:func:`vision.cardnet.fancheck.check_fans`).
_CHECK_COUNTS = ("plays", "asked", "silent", "cards", "cards_right")
#: Counts recorded since (older files lack them): checked when present.
_CHECK_OPTIONAL_COUNTS = ("faces", "doubts", "suit_only_doubts")
#: A count no check reaches (90 plays by default, a few hundred cards): beyond it a record is not a check's, and
#: its thousand-digit numbers would only swell the organiser's message.
MAX_CHECK_COUNT = 10**9
#: Doubted pairs a record may name: check_fans names the 5 most doubted; 64 leaves room, bounds the message.
MAX_CHECK_PAIRS = 64


def fan_check_problem(check: Any) -> str | None:
    """Why ``check`` is not a fan-check record as :func:`vision.cardnet.fancheck.check_fans` writes
    it (None when it is one, or is None: no check made).

    Why a file with an ill-formed record is refused rather than loaded without it: ``save`` writes
    only what ``check_fans`` made, so such a record means the file was not written by this program
    (or not whole), and its head is no more to be trusted; and dropping the record would tell the
    organiser "no fan check made" of a deck whose check may have warned (a corner without its suit).
    ``faces``, ``doubts``, ``suit_only_doubts`` and ``doubted_pairs`` may be missing (files made
    before they were recorded); the five counts every check has may not.
    """
    if check is None:
        return None
    if not isinstance(check, dict):
        return f"not a JSON object but {type(check).__name__}"
    # {"plays": 0}: no play was checked, and the figures of none may be left out.
    required = ("plays",) if check.get("plays") == 0 else _CHECK_COUNTS
    for key in (*_CHECK_COUNTS, *_CHECK_OPTIONAL_COUNTS):
        if key not in check and key not in required:
            continue
        v = check.get(key)
        if not (isinstance(v, int) and not isinstance(v, bool) and 0 <= v <= MAX_CHECK_COUNT):
            return f"{key} {'= ' + repr(v)[:20] if key in check else 'missing'}, not a count 0–{MAX_CHECK_COUNT}"
    for part, whole in (("asked", "plays"), ("silent", "plays"), ("cards_right", "cards"),
                        ("suit_only_doubts", "doubts")):
        if part in check and whole in check and check[part] > check[whole]:
            return f"{part} {check[part]} is more than {whole} {check[whole]}"
    if check.get("faces", 0) > len(ALL_CARDS):
        return f"faces {check['faces']} is more than {len(ALL_CARDS)}"
    pairs = check.get("doubted_pairs", [])
    if not isinstance(pairs, list) or len(pairs) > MAX_CHECK_PAIRS:
        return f"doubted_pairs is not a list of at most {MAX_CHECK_PAIRS}"
    for p in pairs:
        if not (isinstance(p, list) and len(p) == 3 and all(isinstance(c, str) and c in ALL_CARDS for c in p[:2])
                and isinstance(p[2], int) and not isinstance(p[2], bool) and 0 <= p[2] <= MAX_CHECK_COUNT):
            return f"doubted pair {str(p)[:40]} is not [card, card, count]"
    return None
