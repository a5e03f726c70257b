"""The hub's polled public JSON (the board, the standings): made once per change, sent as little as
can be.

Why: at 200 tables the board's JSON is ~100 KB, and every phone in the hall polls it every 3 s; made
afresh for each poll, 120 phones took the hub's one Python thread at a time and the chief's own
pages took 1–3 s to answer (the s39 audit). Here a document is made once per *version* of what it is
made of (the hub log's ``last_seq``, the tables' online status: :meth:`HubService.board_version`) and
kept, with the moment it would change by the clock alone (a result becoming public once its table's
delayed broadcast has shown it); each answer carries a weak ETag of its bytes, a poll that names it
gets ``304 Not Modified`` and nothing more, and a client that accepts gzip gets the bytes gzipped
(werkzeug and Flask compress nothing; gzip is the standard library's). No secret is in these
documents, so compressing them lets no one guess one (BREACH needs a secret beside what an attacker
sends).
"""

from __future__ import annotations

import gzip
import hashlib
import json
import threading
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any

from flask import Response, request

#: The gzip level: 6 (zlib's default) makes the 100 KB board ~12 KB in ~2 ms, once per change.
GZIP_LEVEL = 6


@dataclass(frozen=True)
class Encoded:
    """One document's JSON bytes, gzipped once, and its ETag (of the bytes, so equal documents made
    from different versions still match a phone's tag)."""

    raw: bytes
    gz: bytes
    etag: str

    @classmethod
    def of(cls, doc: Any) -> Encoded:
        raw = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
        return cls(raw, gzip.compress(raw, GZIP_LEVEL, mtime=0), hashlib.sha256(raw).hexdigest()[:32])


class Polled:
    """One polled document, kept per version.

    ``make()`` returns ``(document, until_ms)``: ``until_ms`` is the hub clock's moment the document
    would change with nothing logged (None: never). One thread makes it while the others wait for
    it, rather than each making its own copy when a change meets a hundred polls."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._key: Hashable = None
        self._until: int | None = None
        self._body: Encoded | None = None

    def get(self, key: Hashable, now_ms: int, make: Callable[[], tuple[Any, int | None]]) -> Encoded:
        with self._lock:
            if (self._body is None or key != self._key
                    or (self._until is not None and now_ms >= self._until)):
                doc, self._until = make()
                self._body, self._key = Encoded.of(doc), key
            return self._body


def answer_fresh(doc: Any) -> Response:
    """A document made for this request alone (the chief's overview carries the hub's clock, so no
    two polls are alike): no ETag, but gzipped for a client that accepts it (~86 KB at 200 tables,
    ~10 KB so) at the fastest level, as it is compressed once per poll."""
    raw = json.dumps(doc, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    if request.accept_encodings["gzip"]:
        resp = Response(gzip.compress(raw, 1, mtime=0), mimetype="application/json")
        resp.headers["Content-Encoding"] = "gzip"
    else:
        resp = Response(raw, mimetype="application/json")
    resp.vary.add("Accept-Encoding")
    return resp


def answer(body: Encoded) -> Response:
    """``body`` as the client asked: ``304`` when its ``If-None-Match`` names the ETag, gzipped when
    it accepts gzip and that is smaller (not the log's seq alone), as is otherwise. ``no-cache``: a browser may keep it but asks each time (its
    ``fetch`` then sends the tag itself, and a 304 gives the page the kept copy)."""
    if request.if_none_match.contains_weak(body.etag):
        resp = Response(status=304)
    elif request.accept_encodings["gzip"] and len(body.gz) < len(body.raw):  # gzip makes 17 bytes 37
        resp = Response(body.gz, mimetype="application/json")
        resp.headers["Content-Encoding"] = "gzip"
    else:
        resp = Response(body.raw, mimetype="application/json")
    resp.set_etag(body.etag, weak=True)  # weak: the same tag for the plain and the gzipped bytes
    resp.headers["Cache-Control"] = "no-cache"
    resp.vary.add("Accept-Encoding")
    return resp
