"""Chinese-first labels with an English toggle: which half of :data:`.words.STRINGS` a page shows.

The language comes from the ``lang`` cookie (set by the toggle in the page, client-side) or the
``DEFAULT_LANG`` setting; a broadcast overlay takes it from its address alone.
"""

from __future__ import annotations

import re

from flask import current_app, g, has_request_context, request

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
