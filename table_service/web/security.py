"""CSRF tokens and the failed-login rate limiter.

CSRF: every state-changing request (anything but GET/HEAD/OPTIONS) must carry the session's token,
either as the form field ``csrf_token`` or the ``X-CSRF-Token`` header. The session cookie is
SameSite=Strict as well, but the token is what guarantees that a page from another origin cannot
make a referee's browser confirm a flag or log in as someone else (login CSRF).
"""

from __future__ import annotations

import hmac
import math
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from flask import abort, g, redirect, request, session, url_for
from werkzeug.wrappers import Response

SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

#: Content-Security-Policy of every page. Scripts and styles come from this server only (the pages'
#: words too: ``/i18n/<digest>.js``); the two inline ``<script>`` blocks (the page's language) carry
#: the request's nonce. No inline event handlers
#: (``onclick=``), no inline styles, no plugins, no ``<base>``, forms post only here. ``data:``
#: images are the camera crops. The broadcast overlay may be framed by any origin (OBS, vMix);
#: every other page by none. The public feed also takes inline styles: OBS's "custom CSS" of a
#: browser source is injected as a style element, and a public page holds nothing to steal.
CSP = ("default-src 'self'; script-src 'self' 'nonce-{nonce}'; style-src {styles}; img-src 'self' data:; "
       "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; "
       "frame-ancestors {frames}")
#: Never send the panel's URLs (table ids, event numbers) to another site.
REFERRER_POLICY = "same-origin"


def csp_nonce() -> str:
    """This request's script nonce (templates: ``<script nonce="{{ csp_nonce() }}">``)."""
    nonce = g.get("csp_nonce")
    if nonce is None:
        nonce = g.csp_nonce = secrets.token_urlsafe(18)
    return nonce


#: Public, read-only pages made to be embedded by broadcast software or the hall's screen
#: system: the table's feed and overlay, and the hub's scoreboard overlay and results board.
EMBEDDABLE_PAGES = ("/hub/overlay", "/hub/board")


def security_headers(resp: Any) -> Any:
    """``after_request`` hook: CSP, Referrer-Policy, nosniff, and no framing but for the public
    broadcast pages (:data:`EMBEDDABLE_PAGES` and the feed)."""
    feed = request.path.startswith("/feed/") or request.path in EMBEDDABLE_PAGES
    resp.headers.setdefault("Content-Security-Policy",
                            CSP.format(nonce=csp_nonce(), frames="*" if feed else "'none'",
                                       styles="'self' 'unsafe-inline'" if feed else "'self'"))
    resp.headers.setdefault("Referrer-Policy", REFERRER_POLICY)
    resp.headers.setdefault("X-Content-Type-Options", "nosniff")
    if not feed:
        # The overlay is meant to be embedded by broadcast software; the panel never is.
        resp.headers.setdefault("X-Frame-Options", "DENY")
    if getattr(g, "user", None) is not None:
        # What a login shows (the panel's JSON, camera evidence, a question's picture) stays out of
        # the browser's cache: a tablet handed on after logout must not show it from there.
        resp.headers.setdefault("Cache-Control", "no-store")
    return resp
CSRF_FIELD = "csrf_token"
CSRF_HEADER = "X-CSRF-Token"


def csrf_token() -> str:
    """The session's CSRF token, created on first use (exposed to templates as ``csrf_token()``)."""
    token = session.get("csrf")
    if not token:
        token = secrets.token_urlsafe(32)
        session["csrf"] = token
    return token


def check_csrf() -> Response | None:
    """``before_request`` hook: abort with 400 when a state-changing request lacks a valid token.

    A page's form sent after its login ended (logged out in another tab: the session, and its token,
    are gone) is not a forgery to report in raw words: the browser is sent to the login page, which
    says the action was not done, and back to the page it came from (whose script puts back what was
    typed). Nothing is done either way."""
    if request.method in SAFE_METHODS or request.routing_exception is not None:
        return None  # a request that matches no route gets its 404/405, which changes nothing
    expected = session.get("csrf")
    sent = request.headers.get(CSRF_HEADER) or request.form.get(CSRF_FIELD)
    # Compared as UTF-8 bytes: compare_digest raises TypeError on a str with non-ASCII characters
    # (a token of "é" in a form or header answered 500 before the login check).
    if not expected or not sent or not hmac.compare_digest(str(expected).encode(), str(sent).encode()):
        if sent and "sid" not in session and request.endpoint != "auth.login" and _a_page_s_form():
            nxt = referrer_path()
            return redirect(url_for("auth.login", ended=1, **({"next": nxt} if nxt else {})))
        abort(400, description="CSRF 令牌缺失或无效，请刷新页面 / missing or invalid CSRF token, reload the page")
    return None


def referrer_path() -> str | None:
    """The page of this server the request came from (its Referer), as a path with its query; None
    for another site's, a scheme-relative or backslash path, or none. Where a page leads back to."""
    ref = urlsplit(request.referrer or "")
    if (ref.scheme in ("http", "https") and ref.netloc == request.host and ref.path.startswith("/")
            and ref.path[1:2] not in ("/", "\\")):
        return ref.path + (f"?{ref.query}" if ref.query else "")
    return None


def _a_page_s_form() -> bool:
    """A form a page posted (not a script's JSON, nor a call with the token header). :func:`check_csrf`
    also asks that it carry a token, as a page's form does (the one its page was given cannot be told
    from any other once the session is gone): a form with none is refused in words as before, one with
    a token it cannot check goes to the login page. Neither is done. Never a JSON API's path: no page
    posts a form there, and its callers read a status, not a login page (a 302 is none of its answers)."""
    return (not request.path.startswith(("/api/", "/hub/api/")) and request.mimetype in ("application/x-www-form-urlencoded", "multipart/form-data")
            and CSRF_HEADER not in request.headers and request.accept_mimetypes.best != "application/json")


def whole_chunked_body() -> None:
    """``before_request`` hook: a chunked body (no ``Content-Length``) over the body limit is refused
    413, as a body that says its length is.

    Why: werkzeug reads a chunked body up to the limit and stops without a word, so a 200 KB action
    was cut at 64 KiB and then applied (its trailing spaces gone) or answered "JSON invalid" for a
    body the sender never wrote. Read here, whole or refused; the form and JSON parsers then read
    the copy kept (``get_data(cache=True)``)."""
    if request.content_length is not None or "chunked" not in request.headers.get("Transfer-Encoding", "").lower() \
            or request.routing_exception is not None:  # no route: answered unread, the connection closed (server.py)
        return
    limit = request.max_content_length
    data = request.get_data(cache=True)
    if limit is not None and len(data) >= limit and request.environ["wsgi.input"].read(1):
        abort(413)


def refuse_repeated_fields() -> None:
    """``before_request`` hook: a state-changing form that sends one field twice is refused (400).

    ``request.form.get`` takes the first of a repeated field, so ``role=viewer&role=chief`` made an
    account a viewer, ``name=vera&name=rita`` removed vera, and a proxy or log that reads the last
    copy saw another request than the one carried out. No form of the panel or the hub repeats a
    field; JSON bodies are held to the same rule by ``views.wire.no_duplicate_keys``."""
    if request.method in SAFE_METHODS or request.routing_exception is not None:
        return
    for key, values in request.form.lists():
        if len(values) > 1:
            shown = key if len(key) <= 40 else key[:40] + "…"
            abort(400, description=f"字段 {shown!r} 重复发送了 {len(values)} 次，每个字段只能发送一次"
                                   f" / field {shown!r} was sent "
                                   f"{len(values)} times; send each field once")


#: How many more failures lock an address as a whole than lock one name there: several referees
#: behind one NAT can still log in, a password sprayer trying many names is still stopped.
ADDRESS_FACTOR = 4


class LoginLimiter:
    """Sliding-window counter of failed logins per key (client address + user name, and address alone).

    Kept in memory: the Pi runs one process, and a restart clearing the counters is acceptable
    (an attacker cannot restart it). ``clock`` is injectable so tests need not wait real minutes.
    """

    def __init__(self, max_failures: int, window_s: float, clock: Callable[[], float] = time.monotonic):
        """:raises ValueError: ``max_failures`` under 1 or a window that is not a positive number of
            seconds: such a limiter would lock nobody out (or everybody), so it is refused here as
            the web settings refuse it (``LOGIN_MAX_FAILURES``, ``LOGIN_WINDOW_S``)."""
        if isinstance(max_failures, bool) or not isinstance(max_failures, int) or max_failures < 1:
            raise ValueError(f"登录失败次数上限须为正整数，收到 {max_failures!r} / max_failures must be a positive integer, "
                             f"got {max_failures!r}")
        if not (isinstance(window_s, int | float) and math.isfinite(window_s) and window_s > 0):
            raise ValueError(f"登录失败计数窗口须为正秒数，收到 {window_s!r}"
                             " / window_s must be a positive number of seconds, "
                             f"got {window_s!r}")
        self.max_failures = max_failures
        self.window_s = window_s
        self._clock = clock
        self._failures: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _keys(self, address: str, name: str) -> tuple[str, str]:
        # The per-address key allows more attempts so that several referees behind one NAT can
        # still log in, but a password sprayer trying many names is still stopped.
        return (f"{address}|{name.lower()}", f"{address}|*")

    def _prune(self, key: str, now: float) -> deque[float]:
        q = self._failures.setdefault(key, deque())
        while q and now - q[0] > self.window_s:
            q.popleft()
        return q

    def _wait(self, q: deque[float], limit: int, now: float) -> float:
        """Seconds until the failures in ``q`` are under ``limit`` again (0: under it now).

        A limit under 1 counts as 1: locked after one failure, not a crash (``q[len(q) - 0]`` is
        past the end; a limit of 0 answered every login 500) and not the limiter turned off."""
        limit = max(int(limit), 1)
        if len(q) < limit:
            return 0.0
        return max(self.window_s - (now - q[len(q) - limit]), 0.0)

    def retry_after(self, address: str, name: str) -> float:
        """Seconds until another attempt is allowed; 0 when one is allowed now."""
        now = self._clock()
        limits = (self.max_failures, self.max_failures * ADDRESS_FACTOR)
        wait = 0.0
        with self._lock:
            for key, limit in zip(self._keys(address, name), limits, strict=True):
                wait = max(wait, self._wait(self._prune(key, now), limit, now))
        return wait

    def failed(self, address: str, name: str) -> None:
        """Record one failed attempt."""
        now = self._clock()
        with self._lock:
            for key in self._keys(address, name):
                self._prune(key, now).append(now)

    def lockouts(self) -> tuple[dict[str, tuple[int, float]], dict[str, tuple[int, float]]]:
        """``(by_name, by_address)``: failures within the window and seconds until the lock-out
        ends (0: not locked), per lower-cased name (over every address) and per address (its
        address-wide count)."""
        now = self._clock()
        by_name: dict[str, tuple[int, float]] = {}
        by_address: dict[str, tuple[int, float]] = {}
        with self._lock:
            for key in list(self._failures):
                q = self._prune(key, now)
                if not q:
                    del self._failures[key]
                    continue
                address, _, name = key.partition("|")
                if name == "*":
                    limit, out, who = self.max_failures * ADDRESS_FACTOR, by_address, address
                else:
                    limit, out, who = self.max_failures, by_name, name
                wait = self._wait(q, limit, now)
                failures, longest = out.get(who, (0, 0.0))
                out[who] = (failures + len(q), max(longest, wait))
        return by_name, by_address

    def unlock(self, name: str) -> int:
        """Forget the failed logins of ``name`` from every address; returns how many keys held some."""
        with self._lock:
            keys = [k for k in self._failures if k.partition("|")[2] == name.lower()]
            for k in keys:
                del self._failures[k]
        return len(keys)

    def unlock_address(self, address: str) -> int:
        """Forget every failed login from ``address`` (its own count and each name's there)."""
        with self._lock:
            keys = [k for k in self._failures if k.partition("|")[0] == address]
            for k in keys:
                del self._failures[k]
        return len(keys)

    def succeeded(self, address: str, name: str) -> None:
        """Forget the failures for this user from this address (the address-wide count stays)."""
        with self._lock:
            self._failures.pop(self._keys(address, name)[0], None)
