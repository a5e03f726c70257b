"""Referee web panel and public broadcast feeds (Flask).

``create_app(test_config=None)`` builds the app; the service attaches its TableRunners with
:func:`table_service.web.tables.attach_table` and serves it with :func:`table_service.web.server.serve` (cheroot, on a
background thread). Blueprints: ``auth`` (login), ``panel`` (HTML pages), ``api`` (JSON + the
panel's SSE stream), ``feed`` (public, read-only, delayed).

The panel never changes table state itself: every referee action becomes an engine event through
``TableRunner.submit``.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from . import config as _config
from .security import LoginLimiter, check_csrf, csp_nonce, csrf_token, security_headers
from .tables import WebState, attach_table

log = logging.getLogger(__name__)


def create_app(test_config: Mapping[str, Any] | None = None, *, config_file: str | None = None) -> Flask:
    """Build the Flask app.

    Settings: defaults, then the TOML file (``config_file`` or ``GUANDAN_WEB_CONFIG``), then
    ``GUANDAN_WEB_*`` environment variables, then ``test_config``. ``TABLES`` in the settings
    (``{"1": runner}``) attaches runners right away.

    :raises table_service.web.config.ConfigError: for an unknown key or a bad value.
    """
    settings = _config.build(test_config, config_file)
    tables = settings.pop("TABLES", None) or {}
    app = Flask(__name__)
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

    from . import api, assignment, auth, broadcast, enroll, panel
    from .i18n import current_lang, strings_for_js, tr

    app.before_request(check_csrf)
    auth.init_app(app)
    app.register_blueprint(auth.bp)
    app.register_blueprint(panel.bp)
    app.register_blueprint(api.bp)
    app.register_blueprint(broadcast.bp)
    app.register_blueprint(assignment.bp)
    app.register_blueprint(enroll.bp)

    @app.context_processor
    def _template_globals() -> dict[str, Any]:
        return {"t": tr, "csrf_token": csrf_token, "csp_nonce": csp_nonce, "lang": current_lang(),
                "i18n": strings_for_js()}

    app.after_request(security_headers)  # CSP, Referrer-Policy, nosniff, framing

    @app.errorhandler(HTTPException)
    def _http_error(exc: HTTPException) -> Any:
        code = exc.code or 500
        message = exc.description or exc.name
        if request.path.startswith(("/api/", "/feed/")) or request.accept_mimetypes.best == "application/json":
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
