"""Login, logout and the role checks used by the panel and the API."""

from __future__ import annotations

import functools
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from flask import (
    Blueprint,
    abort,
    current_app,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    session,
    url_for,
)

from . import users
from .i18n import tr
from .security import csrf_token
from .tables import web_state
from .words import STRINGS

bp = Blueprint("auth", __name__, url_prefix="/auth")

F = TypeVar("F", bound=Callable[..., Any])


def get_db() -> sqlite3.Connection:
    """The user database connection of this app context (opened on first use, closed on teardown)."""
    if "users_db" not in g:
        g.users_db = users.connect(current_app.config["USERS_DB"])
    return g.users_db


def close_db(_exc: BaseException | None = None) -> None:
    """``teardown_appcontext`` hook."""
    db = g.pop("users_db", None)
    if db is not None:
        db.close()


def load_user() -> None:
    """``before_request`` hook: put the logged-in user (re-read from the DB) into ``g.user``.

    The cookie holds only a session token; the server's ``sessions`` table says whose it is.
    Re-reading on every request means a logout, a password change, removing a user or changing a
    role takes effect at once — a cookie saved before is worth nothing afterwards.
    """
    g.user = None
    token = session.get("sid")
    if token:
        user = users.session_user(get_db(), token)
        if user is None:
            session.pop("sid", None)
        g.user = user


#: How often an open live stream asks the user database whether its login still holds (seconds).
SESSION_RECHECK_S = 2.0


def session_holds(role: str) -> Callable[[], bool]:
    """For a response that outlives its request (the panel's live stream): a check that the login
    which opened it still holds at ``role`` — not logged out, expired, demoted or removed.

    Why: ``load_user`` checks each request, but a stream is one request that lasts hours; without
    this a viewer demoted or logged out would keep receiving the live view. It re-reads the user
    database at most every :data:`SESSION_RECHECK_S`, from the stream's thread (own connection).
    """
    token, path = session.get("sid"), current_app.config["USERS_DB"]
    last = [0.0, True]

    def holds() -> bool:
        now = time.monotonic()
        if now - last[0] >= SESSION_RECHECK_S:
            try:  # read-only, no schema script: a stream never waits behind a writer for its check
                conn = sqlite3.connect(f"{Path(path).resolve().as_uri()}?mode=ro", uri=True, timeout=1.0)
                conn.row_factory = sqlite3.Row
                try:
                    user = users.session_user(conn, token)
                finally:
                    conn.close()
            except (users.UserError, sqlite3.Error):
                user = None  # the stream ends; the browser reconnects and its request is checked afresh
            last[:] = [now, user is not None and user.can(role)]
        return bool(last[1])

    return holds


def _wants_json() -> bool:
    return request.path.startswith("/api/") or request.accept_mimetypes.best == "application/json"


def require_role(role: str) -> Callable[[F], F]:
    """Decorator: 401 (or a redirect to the login page) when logged out, 403 when the role is too low."""
    users.role_rank(role)

    def decorate(view: F) -> F:
        @functools.wraps(view)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if g.user is None:
                if _wants_json():
                    abort(401, description="请先登录 / login required")
                if request.method not in ("GET", "HEAD"):
                    # A form sent after the login ended (a page left open overnight): it was not
                    # done. Back to the page it came from, saying so — following the form's own URL
                    # after login would GET an action and answer 405.
                    return redirect(url_for("auth.login", next=_page_of_referrer(), ended="1"))
                return redirect(url_for("auth.login", next=request.full_path.rstrip("?")))
            if not g.user.can(role):
                abort(403, description=f"权限不足，需要{users.role_label(role)[0]} / requires role {role}")
            return view(*args, **kwargs)

        return wrapped  # type: ignore[return-value]

    return decorate


def _page_of_referrer() -> str:
    """The path of the page a form was sent from, when it is one of this site's (else the index)."""
    ref = urlsplit(request.referrer or "")
    if ref.netloc == request.host and ref.path.startswith("/"):
        return ref.path + (f"?{ref.query}" if ref.query else "")
    return url_for("panel.index")


def _safe_next(target: str | None) -> str:
    """Only same-site relative paths are followed after login (no open redirect).

    A control character (a CR/LF would split the Location header) or a backslash (browsers read
    ``/\\host`` as ``//host``) is never followed either."""
    if target and target.isprintable() and "\\" not in target:
        parts = urlsplit(target)
        if not parts.scheme and not parts.netloc and target.startswith("/") and not target.startswith("//"):
            return target
    return url_for("panel.index")


@bp.route("/login", methods=["GET", "POST"])
def login() -> Any:
    """Show the login form; on POST check the password, subject to the failed-login limiter."""
    error = None
    status = 200
    headers: dict[str, str] = {}
    if request.method == "POST":
        name = (request.form.get("username") or "").strip()
        password = request.form.get("password") or ""
        limiter = web_state().limiter
        address = request.remote_addr or "?"
        wait = limiter.retry_after(address, name)
        if wait > 0:
            error = tr("login_locked").format(s=int(wait) + 1)
            status = 429
            headers["Retry-After"] = str(int(wait) + 1)
        else:
            user = users.authenticate(get_db(), name, password)
            if user is None:
                limiter.failed(address, name)
                error = tr("login_failed")
                status = 401
            else:
                limiter.succeeded(address, name)
                token = session.get("csrf")
                session.clear()  # no session fixation: a fresh session for the new identity
                session["sid"] = users.open_session(get_db(), user.name)
                if token:
                    session["csrf"] = token
                session.permanent = True
                if _wants_json():
                    return jsonify(user=user.name, role=user.role, csrf_token=csrf_token())
                return redirect(_safe_next(request.args.get("next") or request.form.get("next")))
        if _wants_json():
            # docs/api.md: an API error is {"error": "中文 / English", "status"}, whatever the page's language.
            both = STRINGS["login_locked" if status == 429 else "login_failed"][0].format(s=headers.get("Retry-After", ""))
            return jsonify(error=both, status=status), status, headers
    if error is None and request.args.get("ended") == "1":
        error = tr("login_ended_action")
    return render_template("login.html", error=error, next=request.args.get("next", "")), status, headers


@bp.route("/logout", methods=["POST"])
def logout() -> Any:
    """End the session on the server, then in the browser (POST with CSRF token, so a foreign
    page cannot log a referee out). A copy of the cookie kept elsewhere stops working too."""
    users.close_session(get_db(), session.get("sid"))
    session.clear()
    return redirect(url_for("auth.login"))


@bp.route("/whoami")
def whoami() -> Any:
    """Who is logged in, and the CSRF token scripts need for POSTs."""
    user = g.user
    return jsonify(user=user.name if user else None, role=user.role if user else None,
                   csrf_token=csrf_token())


def init_app(app: Any) -> None:
    """Register hooks and make sure the user DB exists."""
    app.teardown_appcontext(close_db)
    app.before_request(load_user)
    users.connect(app.config["USERS_DB"]).close()
