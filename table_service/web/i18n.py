"""Chinese-first labels with an English toggle: which half of :data:`.words.STRINGS` a page shows.

The language comes from the ``lang`` cookie (set by the toggle in the page, client-side) or the
``DEFAULT_LANG`` setting; a broadcast overlay takes it from its address alone.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import json
import re

from flask import Response, abort, current_app, g, has_request_context, request, url_for

from .words import EVENT_NAMES, STRINGS

#: The head of an engine refusal's English half: the event type that refused ("round_set_up: ").
_EVENT_HEAD = re.compile(r"^([a-z]+(?:_[a-z]+)+): ")


def in_words(half: str, lang: str) -> str:
    """One language's half of an engine message with the event's internal name at its head said in
    words (``round_set_up: …`` -> ``New round: …``); any other text as it is."""
    m = _EVENT_HEAD.match(half)
    names = EVENT_NAMES.get(m.group(1)) if m else None
    if m is None or names is None:
        return half
    word = names[0] if lang == "zh" else names[1][:1].upper() + names[1][1:]
    return f"{word}{'：' if lang == 'zh' else ': '}{half[m.end():]}"


def language_from_address() -> None:
    """This request's page takes its language from its address alone (``?lang=``, else
    ``DEFAULT_LANG``), never the ``lang`` cookie: a broadcast overlay, whose OBS browser sources all
    share one cookie store, so one English click on a panel once turned every table's overlay
    English on air (the hub's overlay has always ignored the cookie)."""
    g.lang_from_address = True


def current_lang() -> str:
    """``zh`` or ``en`` for this request: ``?lang=`` (the overlay's browser source), else the
    ``lang`` cookie (not on a page that :func:`language_from_address`), else ``DEFAULT_LANG``."""
    lang = None
    if has_request_context():
        lang = request.args.get("lang")
        if lang not in ("zh", "en") and not g.get("lang_from_address"):
            lang = request.cookies.get("lang")
    if lang not in ("zh", "en"):
        lang = current_app.config.get("DEFAULT_LANG", "zh")
    return lang


def tr(key: str) -> str:
    """The label ``key`` in the request's language (the key itself if unknown, so gaps show)."""
    pair = STRINGS.get(key)
    if pair is None:
        return key
    return pair[0] if current_lang() == "zh" else pair[1]


def strings_for_js() -> dict[str, list[str]]:
    """Both languages of every label, for the page scripts."""
    return {k: list(v) for k, v in STRINGS.items()}


#: How long a browser keeps the words' script: a year, and never asks again (``immutable``): its
#: address names its content, so new words come with a new address.
WORDS_SCRIPT_CACHE = "public, max-age=31536000, immutable"


@functools.cache
def words_script() -> tuple[bytes, bytes, str]:
    """Every page's words as one script, ``window.I18N = {…};``: its bytes, gzipped, and the hash of
    its content that its address carries. Inlined in every page it was ~40 KB of each (the hub's
    overview, the board a phone polls, each of the table panel's pages); served once at an address
    that changes only with the words (:data:`WORDS_SCRIPT_CACHE`), a browser fetches it once. By the
    app itself, never a CDN: a table's panel has no internet. STRINGS is complete once words.py is
    imported, so it is made once."""
    body = ("window.I18N = " + json.dumps(strings_for_js(), ensure_ascii=False, separators=(",", ":"))
            + ";\n").encode("utf-8")
    return body, gzip.compress(body, 9, mtime=0), hashlib.sha256(body).hexdigest()[:16]


def words_script_url() -> str:
    """The words' script's address for a page (``base.html``, ``overlay.html``)."""
    return url_for("words_script", digest=words_script()[2])


def serve_words_script(digest: str) -> Response:
    """``GET /i18n/<digest>.js``: the words' script, kept by the browser for good; another digest
    (a page of an older version of the words) is not found, rather than old words under a new name."""
    body, gz, current = words_script()
    if digest != current:
        abort(404, description="没有该版本的界面文字 / no such version of the pages' words")
    if request.accept_encodings["gzip"]:
        resp = Response(gz, mimetype="text/javascript")
        resp.headers["Content-Encoding"] = "gzip"
    else:
        resp = Response(body, mimetype="text/javascript")
    resp.headers["Cache-Control"] = WORDS_SCRIPT_CACHE  # before security_headers' no-store for a login
    resp.vary.add("Accept-Encoding")
    return resp
