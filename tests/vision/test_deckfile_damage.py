"""A damaged, ill-formed or oversized enrolment file is refused with one clear ValueError, never an
internal error, and never after inflating it whole.

Why: the file lives on an SD card, a USB stick, or comes as an upload. A deflate stream damaged under
an intact zip directory (the commonest SD-card damage) raised ``zlib.error``, which no caller catches:
a table whose saved deck was damaged could not start, ``config check`` said "internal error". A fan
check record ``verdict`` could not read loaded, then failed the table's start with a KeyError. And a
1.46 MB file inflated to 1.5 GB (3 GB at peak, 8 s) before it was refused.

Every bad file here is made from a real enrolment (a short fit on two anglo faces with a fan check).
"""

from __future__ import annotations

import io
import json
import logging
import random
import re
import tracemalloc
import zipfile
import zlib
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from table_service.cli import main
from table_service.table.deck import load_saved_deck, take_deck
from vision.cardnet.deckfile import MAX_INFLATED_BYTES, MAX_MEMBERS, Enrollment
from vision.cardnet.fancheck import verdict

CJK = re.compile(r"[\u4e00-\u9fff]")


def chinese_first(text: str) -> bool:
    """The message opens in Chinese and goes on in English after " / "."""
    zh, sep, en = text.partition(" / ")
    return bool(sep) and bool(CJK.match(text.lstrip())) and bool(re.search(r"[A-Za-z]{4,}", en))


@pytest.fixture(scope="module")
def real(small_deck_file: bytes) -> bytes:
    """A real enrolment file (tests/conftest.py makes it once a session)."""
    return small_deck_file


def members(data: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        return {k: z[k] for k in z.files}


def npz(arrays: dict[str, np.ndarray]) -> bytes:
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


def with_check(data: bytes, check_json: str) -> bytes:
    """The real file with its fan-check record replaced (as an older or foreign writer might leave it)."""
    return npz({**members(data), "check": np.array(check_json)})


def zlib_damaged(data: bytes) -> bytes:
    """The real file with bytes of the head's deflate stream changed, its zip directory intact."""
    b = bytearray(data)
    info = zipfile.ZipFile(io.BytesIO(data)).getinfo("head.npy")
    off = info.header_offset
    start = off + 30 + int.from_bytes(b[off + 26:off + 28], "little") + int.from_bytes(b[off + 28:off + 30], "little")
    for i in range(start + 10, start + 60):
        b[i] ^= 0x5A
    with pytest.raises(zlib.error):  # the damage is in the compressed data, as on a worn SD card
        zlib.decompressobj(-15).decompress(bytes(b[start:start + info.compress_size]))
    return bytes(b)


def npy_bytes(a: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def zeros_member(zf: zipfile.ZipFile, name: str, n: int) -> None:
    """A .npy member of ``n`` zero bytes, written in chunks: deflates ~1000:1."""
    hdr = io.BytesIO()
    np.lib.format.write_array_header_1_0(hdr, {"descr": "|u1", "fortran_order": False, "shape": (n,)})
    with zf.open(name, "w", force_zip64=True) as m:
        m.write(hdr.getvalue())
        chunk = b"\0" * (1 << 20)
        for _ in range(n // len(chunk)):
            m.write(chunk)
        m.write(b"\0" * (n % len(chunk)))


def bomb(inflated: int = 64 * 1024 * 1024) -> bytes:
    """A zip bomb: an enrolment's format tag and a head member inflating to ``inflated`` bytes."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("format.npy", npy_bytes(np.array("guandan-table-enrollment-2")))
        zeros_member(zf, "head.npy", inflated)
    return buf.getvalue()


def write(tmp: Path, data: bytes, name: str = "deck.npz") -> Path:
    p = tmp / name
    p.write_bytes(data)
    return p


def load_peak(path: Path) -> tuple[Exception | None, int]:
    """What loading ``path`` raised, and the most memory it held on the way (tracemalloc sees numpy's)."""
    tracemalloc.start()
    try:
        Enrollment.load(path)
        err = None
    except Exception as exc:  # the test says what was raised
        err = exc
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return err, peak


# --- defect 1: every damaged or ill-formed file is one ValueError with a Chinese-first message -----------

def test_a_damaged_deflate_stream_is_a_clear_value_error(tmp_path: Path, real: bytes) -> None:
    with pytest.raises(ValueError) as exc:
        Enrollment.load(write(tmp_path, zlib_damaged(real)))
    assert chinese_first(str(exc.value)) and "损坏" in str(exc.value) and "damaged" in str(exc.value)


BAD_CHECKS = {
    "asked missing": json.dumps({"plays": 1}),
    "plays a word": json.dumps({"plays": "many", "asked": 0, "silent": 0, "cards": 1, "cards_right": 1}),
    "plays true": json.dumps({"plays": True, "asked": 0, "silent": 0, "cards": 1, "cards_right": 1}),
    "asked beyond plays": json.dumps({"plays": 3, "asked": 9, "silent": 0, "cards": 6, "cards_right": 6}),
    "a float count": json.dumps({"plays": 3, "asked": 0.5, "silent": 0, "cards": 6, "cards_right": 6}),
    "a pair of one card": json.dumps({"plays": 3, "asked": 1, "silent": 0, "cards": 6, "cards_right": 6,
                                      "doubted_pairs": [["Ah"]]}),
    "a pair not of cards": json.dumps({"plays": 3, "asked": 1, "silent": 0, "cards": 6, "cards_right": 6,
                                       "doubted_pairs": [["<b>", "Ah", 1]]}),
    "doubts a word": json.dumps({"plays": 3, "asked": 1, "silent": 0, "cards": 6, "cards_right": 6, "doubts": "x"}),
    "a list": "[1, 2]",
    "not JSON": "{plays",
}


@pytest.mark.parametrize("case", sorted(BAD_CHECKS))
def test_a_fan_check_verdict_cannot_read_refuses_the_file(tmp_path: Path, real: bytes, case: str) -> None:
    """Refused, not loaded without it: a record ``save`` never writes means the file is not this
    program's (or not whole), and dropping it would tell the organiser "no fan check made"."""
    with pytest.raises(ValueError) as exc:
        Enrollment.load(write(tmp_path, with_check(real, BAD_CHECKS[case])))
    assert chinese_first(str(exc.value)) and "扇形检查" in str(exc.value) and "fan check" in str(exc.value)


@pytest.mark.parametrize("case", sorted(c for c in BAD_CHECKS if c != "not JSON"))
def test_verdict_never_raises_on_an_ill_formed_record(case: str) -> None:
    warn, text = verdict(json.loads(BAD_CHECKS[case]))
    assert warn is True and chinese_first(text) and "ill-formed" in text


def test_real_records_still_load_and_read(tmp_path: Path, real: bytes) -> None:
    e = Enrollment.load(write(tmp_path, real))
    assert set(e.cards) == {"Ah", "7c"} and e.check is not None and e.check["plays"] == 3
    assert verdict(e.check)[1].startswith("扇形检查")
    # A file from before "faces" was recorded, and one enrolled without a check, still load.
    older = {k: v for k, v in e.check.items() if k != "faces"}
    assert Enrollment.load(write(tmp_path, with_check(real, json.dumps(older)), "older.npz")).check == older
    assert Enrollment.load(write(tmp_path, with_check(real, "null"), "nocheck.npz")).check is None


def test_damage_anywhere_in_a_real_file_is_refused_with_a_value_error(tmp_path: Path, real: bytes) -> None:
    """Bytes changed at random (300 files, a fixed seed): each loads (a timestamp changed) or is a
    ValueError, and what loads gives a verdict. Most changes land in the head's deflate stream."""
    rng = random.Random(26)
    path = tmp_path / "deck.npz"
    escaped: list[str] = []
    refused = 0
    for _ in range(300):
        b = bytearray(real)
        for _ in range(rng.choice((1, 2, 8))):
            b[rng.randrange(len(b))] = rng.randrange(256)
        path.write_bytes(bytes(b))
        try:
            verdict(Enrollment.load(path).check)
        except ValueError as exc:
            refused += 1
            assert chinese_first(str(exc)), str(exc)
        except Exception as exc:  # what must never escape
            escaped.append(f"{type(exc).__name__}: {exc}")
    assert not escaped, escaped[:5]
    assert refused > 200


# --- defect 2: a file that would inflate beyond an enrolment is refused before it is inflated -------------

def test_a_zip_bomb_is_refused_before_it_is_inflated(tmp_path: Path) -> None:
    path = write(tmp_path, bomb())
    err, peak = load_peak(path)
    assert isinstance(err, ValueError), repr(err)
    assert chinese_first(str(err)) and "zip bomb" in str(err) and "8 MiB" in str(err)
    assert peak < MAX_INFLATED_BYTES, f"held {peak / 2**20:.0f} MiB while refusing a 64 MiB bomb"


def test_a_bomb_inside_the_head_is_refused_before_it_is_inflated(tmp_path: Path, real: bytes) -> None:
    """The head is itself a .npz inside the file: a small head member may hide a bomb too."""
    inner = io.BytesIO()
    with zipfile.ZipFile(inner, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("format.npy", npy_bytes(np.array("guandan-table/cardnet-head/1")))
        zeros_member(zf, "w1.npy", 64 * 1024 * 1024)
    m = members(real)
    m["head"] = np.frombuffer(inner.getvalue(), np.uint8)
    err, peak = load_peak(write(tmp_path, npz(m)))
    assert isinstance(err, ValueError) and chinese_first(str(err)) and "zip bomb" in str(err), repr(err)
    assert peak < MAX_INFLATED_BYTES, f"held {peak / 2**20:.0f} MiB"


def test_a_member_declaring_more_than_it_holds_is_refused_unallocated(tmp_path: Path, real: bytes) -> None:
    """numpy allocates the array a .npy header declares before reading it: 10**15 bytes declared in a
    100-byte member is refused, not a MemoryError."""
    hdr = io.BytesIO()
    np.lib.format.write_array_header_1_0(hdr, {"descr": "|u1", "fortran_order": False, "shape": (10**15,)})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("format.npy", npy_bytes(np.array("guandan-table-enrollment-2")))
        zf.writestr("head.npy", hdr.getvalue() + b"\0" * 100)
    with pytest.raises(ValueError) as exc:
        Enrollment.load(write(tmp_path, buf.getvalue()))
    assert chinese_first(str(exc.value))


def test_a_file_of_many_members_is_refused(tmp_path: Path, real: bytes) -> None:
    m = members(real)
    m.update({f"extra{i}": np.zeros(1) for i in range(MAX_MEMBERS)})
    with pytest.raises(ValueError) as exc:
        Enrollment.load(write(tmp_path, npz(m)))
    assert chinese_first(str(exc.value)) and "members" in str(exc.value)


# --- the callers: a table with a damaged saved deck starts and reads without it; config check refuses it ---

@pytest.mark.parametrize("damage", ["zlib", "check"])
def test_a_table_whose_saved_deck_is_damaged_starts_and_reads_zero_shot(tmp_path: Path, real: bytes, damage: str,
                                                                        caplog: pytest.LogCaptureFixture) -> None:
    from table_service.table.clock import TableClock
    from table_service.table.config import parse_service_config
    from table_service.table.service import TableService

    bad = zlib_damaged(real) if damage == "zlib" else with_check(real, json.dumps({"plays": 1}))
    (tmp_path / "data").mkdir()
    saved = write(tmp_path / "data", bad, "deck-enrollment.npz")
    cfg = parse_service_config({
        "table_id": "T-8", "data_dir": str(tmp_path / "data"), "seats": {"E": "e", "S": "s", "W": "w", "N": "n"},
        "devices": {"default": "sim"}, "camera": {"source": "none"}})
    from hardware.camera import SyntheticSource
    from table_service.table.camera_pipeline import CameraPipeline
    from table_service.table.camera_watcher import make_watcher

    cam = CameraPipeline(SyntheticSource.from_frames([np.zeros((48, 64, 3), np.uint8)]), make_watcher({}))
    with caplog.at_level(logging.WARNING), TableService(cfg, clock=TableClock(1.0), camera=cam, web=False):
        assert cam.watcher.enrollment is None  # reading zero-shot
    assert "saved deck" in caplog.text and "not used" in caplog.text
    assert saved.read_bytes() == bad  # logged and left, for the chief to look at
    # The function the service calls, directly: the same, and the hub's copy of the damage is refused.
    cam = SimpleNamespace(enrollment_path=str(saved), watcher=SimpleNamespace(enrollment=None))
    assert load_saved_deck(cam) is False and cam.watcher.enrollment is None
    assert take_deck(cam, bad, "ab" * 32) is False and cam.watcher.enrollment is None


@pytest.mark.parametrize("damage", ["zlib", "check", "bomb"])
def test_config_check_and_run_refuse_a_damaged_vision_enrollment(tmp_path: Path, real: bytes, damage: str,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    bad = {"zlib": zlib_damaged, "check": lambda d: with_check(d, json.dumps({"plays": 1})),
           "bomb": lambda _d: bomb(16 * 1024 * 1024)}[damage](real)
    write(tmp_path, bad)
    toml = tmp_path / "table.toml"
    toml.write_text('table_id = "T7"\ndata_dir = "data"\n[seats]\nE = "e"\nS = "s"\nW = "w"\nN = "n"\n'
                    '[devices]\ndefault = "sim"\n[camera]\nsource = "synthetic"\n[vision]\nenrollment = "deck.npz"\n',
                    encoding="utf-8")
    assert main(["config", "check", str(toml)]) == 1
    assert main(["run", "--config", str(toml), "--no-web"]) not in (0, 3)  # 3: internal error
    err = capsys.readouterr().err
    assert err.count("[vision].enrollment: 登记文件") == 2, err
    assert "internal error" not in err
    assert not (tmp_path / "data").exists(), "run created its data folder before refusing the file"
