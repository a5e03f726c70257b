"""The hub's deck upload (``POST /hub/action/deck``) answers a damaged, ill-formed or oversized
enrolment file with 400 and why, Chinese first, and changes nothing.

Why: it answered 500 with an English-only message for a deflate stream damaged under an intact zip
directory and for a fan-check record the verdict could not read, and inflated a 1.46 MB zip bomb to
1.5 GB before refusing it. Every bad file is made here from a real enrolment.
"""

from __future__ import annotations

import io
import json
import re
import sqlite3
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hub_accounts import login, users_db

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.web import create_hub_app

CJK = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(scope="module")
def real(small_deck_file: bytes) -> bytes:
    """A real enrolment file (tests/conftest.py makes it once a session)."""
    return small_deck_file


def _zlib_damaged(data: bytes) -> bytes:
    """Bytes of the head's deflate stream changed, the zip directory intact (SD-card damage)."""
    b = bytearray(data)
    off = zipfile.ZipFile(io.BytesIO(data)).getinfo("head.npy").header_offset
    start = off + 30 + int.from_bytes(b[off + 26:off + 28], "little") + int.from_bytes(b[off + 28:off + 30], "little")
    for i in range(start + 10, start + 60):
        b[i] ^= 0x5A
    return bytes(b)


def _bad_check(data: bytes) -> bytes:
    """The fan-check record replaced by one the verdict cannot read (``asked`` and the rest missing)."""
    with np.load(io.BytesIO(data), allow_pickle=False) as z:
        m = {k: z[k] for k in z.files}
    m["check"] = np.array(json.dumps({"plays": 1}))
    buf = io.BytesIO()
    np.savez_compressed(buf, **m)
    return buf.getvalue()


def _bomb(_data: bytes) -> bytes:
    """An enrolment's format tag and a head member of 64 MiB of zeros (~64 KB deflated)."""
    fmt, hdr = io.BytesIO(), io.BytesIO()
    np.save(fmt, np.array("guandan-table-enrollment-2"))
    n = 64 * 1024 * 1024
    np.lib.format.write_array_header_1_0(hdr, {"descr": "|u1", "fortran_order": False, "shape": (n,)})
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as zf:
        zf.writestr("format.npy", fmt.getvalue())
        with zf.open("head.npy", "w", force_zip64=True) as m:
            m.write(hdr.getvalue())
            for _ in range(n // (1 << 20)):
                m.write(b"\0" * (1 << 20))
    return buf.getvalue()


def _objects(_real: bytes) -> bytes:
    """A .npz whose member is a pickled Python object (numpy said so in an English sentence about
    ``allow_pickle``)."""
    buf = io.BytesIO()
    np.savez(buf, format=np.array("guandan-table-enrollment-2"), head=np.array([{"a": 1}], dtype=object))
    return buf.getvalue()


BAD = {"zlib-damaged": (_zlib_damaged, "damaged"), "bad fan check": (_bad_check, "fan check"),
       "zip bomb": (_bomb, "zip bomb"), "python objects": (_objects, "Python objects")}


@pytest.fixture
def hub_app(tmp_path: Path) -> Any:
    cfg = validate({"event": {"id": "w1", "name": "网页赛", "rounds": 2},
                    "teams": [{"id": f"T{i}"} for i in range(1, 5)]})
    hub = HubService(cfg, tmp_path / "hub", connect=False)
    app = create_hub_app(hub, users_db=users_db(tmp_path / "users.sqlite3", {"chen": "chief"}))
    app.config["TESTING"] = True
    app.config["PROPAGATE_EXCEPTIONS"] = False  # a failure answers 500, as in service, not a traceback here
    yield app, hub
    hub.stop()


def _upload(client: Any, token: str, blob: bytes, *, as_json: bool = True) -> Any:
    return client.post("/hub/action/deck", data={"csrf_token": token, "deck": (io.BytesIO(blob), "deck.npz")},
                       content_type="multipart/form-data", headers={"Accept": "application/json"} if as_json else {})


def _state(hub: HubService) -> tuple[Any, int, list[str]]:
    """What an upload may change: the deck the core holds, the log's rows, the deck files kept."""
    conn = sqlite3.connect(f"file:{hub.data_dir / 'hub-events.sqlite3'}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT COUNT(*) FROM hub_events").fetchone()[0]
    finally:
        conn.close()
    return hub.core.deck, rows, sorted(p.name for p in hub.data_dir.glob("deck-*"))


@pytest.mark.parametrize("case", sorted(BAD))
def test_a_damaged_deck_upload_is_a_400_with_why_and_changes_nothing(hub_app: Any, real: bytes, case: str) -> None:
    app, hub = hub_app
    make, needle = BAD[case]
    blob = make(real)
    c = app.test_client()
    tok = login(c, "chen")
    before = _state(hub)
    r = _upload(c, tok, blob)
    assert r.status_code == 400, (r.status_code, r.get_data(as_text=True)[:300])
    msg = r.get_json()["error"]
    assert CJK.match(msg) and " / " in msg and needle in msg.split(" / ", 1)[1], msg
    assert "(uploaded)" in msg and str(hub.data_dir) not in msg and "/tmp" not in msg
    assert _state(hub) == before and hub.core.deck is None
    # The form (no JSON asked for): back to the admin page with the message, not a 500.
    r = _upload(c, tok, blob, as_json=False)
    assert r.status_code == 302 and _state(hub) == before
    assert needle in c.get("/hub/admin").get_data(as_text=True)


def test_the_real_file_is_still_taken_after_the_refusals(hub_app: Any, real: bytes) -> None:
    app, hub = hub_app
    c = app.test_client()
    tok = login(c, "chen")
    for make, _needle in BAD.values():
        assert _upload(c, tok, make(real)).status_code == 400
    r = _upload(c, tok, real)
    assert r.status_code == 200 and r.get_json()["ok"] is True
    assert hub.core.deck is not None and hub.core.deck["meta"]["cards"] == 2
