"""The Flask app of the referee panel and the public feeds: settings, blueprints, error pages.

Its own module (not the package's ``__init__``) so that every blueprint is imported at the top and
nothing in the package has to import the package back.
"""


from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

from flask import Flask, current_app, has_request_context, jsonify, render_template, request, url_for
from werkzeug.exceptions import HTTPException
from werkzeug.routing import IntegerConverter

from . import accounts, api, assignment, auth, broadcast, camera, enroll, panel, record
from . import config as _config
from .i18n import current_lang, serve_words_script, strings_for_js, tr, words_script_url
from .security import (
    LoginLimiter,
    check_csrf,
    csp_nonce,
    csrf_token,
    referrer_path,
    refuse_repeated_fields,
    security_headers,
    whole_chunked_body,
)
from .tables import WebState, attach_table

log = logging.getLogger(__name__)


class AsciiInt(IntegerConverter):
    """``<int:…>`` in a path: ASCII digits only. Why: Werkzeug's ``\\d+`` matches any script's digits,
    so ``/hub/print/draw/١`` printed round 1's sheet, while the same digits in a query or a form are
    refused (400); a path with them is now no page (404), as ``/hub/print/draw/x`` is."""

    regex = r"[0-9]+"


def create_app(test_config: Mapping[str, Any] | None = None, *, config_file: str | None = None) -> Flask:
    """Build the Flask app.

    Settings: defaults, then the TOML file (``config_file`` or ``GUANDAN_WEB_CONFIG``), then
    ``GUANDAN_WEB_*`` environment variables, then ``test_config``. ``TABLES`` in the settings
    (``{"1": runner}``) attaches runners right away.

    :raises table_service.web.config.ConfigError: for an unknown key or a bad value.
    """
    settings = _config.build(test_config, config_file)
    tables = settings.pop("TABLES", None) or {}
    # Named as the package, as before the app had a module of its own: same logger, same root path.
    app = Flask("table_service.web")
    app.url_map.converters["int"] = AsciiInt  # before any rule is added: each binds its converter then
    app.config.from_mapping(settings)
    app.config.update(
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_NAME="guandan_session",
        PERMANENT_SESSION_LIFETIME=timedelta(hours=12),
        JSON_AS_ASCII=False,
    )
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    app.extensions["guandan"] = WebState(
        limiter=LoginLimiter(int(app.config["LOGIN_MAX_FAILURES"]), float(app.config["LOGIN_WINDOW_S"]))
    )

    app.before_request(whole_chunked_body)  # before anything reads the body
    app.before_request(refuse_repeated_fields)  # first of the form checks: a repeated csrf_token is a repeated field too
    app.before_request(check_csrf)
    auth.init_app(app)
    app.register_blueprint(auth.bp)
    app.register_blueprint(panel.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(broadcast.bp)
    app.register_blueprint(assignment.bp)
    app.register_blueprint(enroll.bp)
    app.register_blueprint(camera.bp)
    app.register_blueprint(accounts.bp)
    app.register_blueprint(record.bp)
    # The pages' words as one script a browser keeps (i18n.words_script): not an API, as static/ is not.
    app.add_url_rule("/i18n/<digest>.js", endpoint="words_script", view_func=serve_words_script)

    @app.context_processor
    def _template_globals() -> dict[str, Any]:
        return {"t": tr, "csrf_token": csrf_token, "csp_nonce": csp_nonce, "lang": current_lang(),
                "i18n": strings_for_js(), "words_script_url": words_script_url, "back_url": back_url}

    app.after_request(security_headers)  # CSP, Referrer-Policy, nosniff, framing

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        code = exc.code or 500
        message = plain_message(exc)
        # The hub's JSON routes too (event/web.py: "JSON routes get JSON errors, never a page"), also
        # where no route or method matched, which its own handler never sees.
        if request.path.startswith(("/api/", "/feed/", "/hub/api/")) or \
                request.accept_mimetypes.best == "application/json":
            resp = jsonify(error=message, status=code)
            resp.status_code = code
            for key, value in exc.get_headers():
                if key.lower() not in ("content-type", "content-length"):
                    resp.headers[key] = value
            return resp
        return render_template("error.html", code=code, message=message), code

    for table_id, runner in dict(tables).items():
        attach_table(app, table_id, runner)
    return app


def back_url() -> str:
    """Where the error page's 返回 / Back leads: the page of this server the user came from (the
    request's Referer, a path on this host other than the page that failed), else the app's home
    (``app.extensions["guandan_home"]``: the hub names its own; the table panel's is its list of
    tables). A bare "/" led a hub's referee nowhere useful; another site's address is never used."""
    back = referrer_path()
    if back is not None and urlsplit(back).path != request.path:
        return back
    home = current_app.extensions.get("guandan_home")
    return str(home()) if home else url_for("panel.index")


#: Our words for werkzeug's own (English-only) errors: a route not found, a method not allowed, a
#: body too large (``{kib}``: the limit that applied to this request), said when the code gave no
#: message of its own.
PLAIN_ERRORS = {400: "请求无效 / bad request", 404: "没有该页面或资源 / no such page or resource",
                405: "不支持该方法 / method not allowed",
                413: "请求内容过大（最多 {kib} KiB） / request body too large (at most {kib} KiB)"}
#: A 413 when no byte limit is known (raised by code, no limit set): no number rather than a wrong one.
TOO_LARGE_NO_LIMIT = "请求内容过大 / request body too large"


def _body_limit() -> int | None:
    """The body limit that applied: the request's own (a route may set a larger one, as the hub's deck
    upload does through ``request.max_content_length``), else the app's ``MAX_CONTENT_LENGTH``.
    Naming the app's limit for a route with its own told an organiser a 4 MiB deck must fit 64 KiB."""
    if has_request_context():
        return request.max_content_length
    return current_app.config.get("MAX_CONTENT_LENGTH") if current_app else None


def plain_message(exc: HTTPException) -> str:
    """The message of ``exc`` for a person: its own, or ours in place of werkzeug's English default."""
    code = exc.code or 500
    message = exc.description or exc.name
    if message == type(exc).description and code in PLAIN_ERRORS:
        if code == 413:
            limit = _body_limit()
            return PLAIN_ERRORS[413].format(kib=int(limit) // 1024) if limit else TOO_LARGE_NO_LIMIT
        message = PLAIN_ERRORS[code]
    return message
