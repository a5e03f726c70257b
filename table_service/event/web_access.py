"""Who may open a hub page, and how a hub route's error is answered: shared by the hub's
blueprints (:mod:`.web`'s pages and forms, :mod:`.web_sheets`' exports and printed sheets).

Why its own module: :mod:`.web` builds the hub's app and so imports every other blueprint's module
to register it; a blueprint that took these from :mod:`.web` would import it back (a cycle).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from flask import abort, current_app, g, jsonify, render_template, request
from werkzeug.exceptions import HTTPException

from table_service.web.app import plain_message
from table_service.web.auth import require_role


def _json_route() -> bool:
    """The hub's JSON routes (and any client that asks for JSON) get JSON errors, never a page."""
    return request.path.startswith("/hub/api/") or request.accept_mimetypes.best == "application/json"


def hub_role(role: str) -> Callable[[Any], Any]:
    """:func:`require_role`, but a logged-out script polling ``/hub/api/…`` gets 401 JSON rather
    than a redirect to the login page (the table app only does that for ``/api/``)."""

    def decorate(view: Any) -> Any:
        guarded = require_role(role)(view)

        @functools.wraps(view)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if g.user is None and _json_route():
                abort(401, description="请先登录 / login required")
            return guarded(*args, **kwargs)

        return wrapped

    return decorate


def http_error(exc: HTTPException) -> Any:
    """Errors of the hub's routes: JSON ``{"error", "status"}`` for its JSON routes, the error page
    otherwise (as the table app's own handler). Each hub blueprint registers it for
    :class:`HTTPException` (a blueprint's handler covers only its own routes)."""
    code = exc.code or 500
    message = plain_message(exc)
    if _json_route():
        resp = jsonify(error=message, status=code)
        resp.status_code = code
        return resp
    return render_template("error.html", code=code, message=message), code


def hub() -> Any:
    """The :class:`~table_service.event.hub.HubService` this app serves."""
    h = current_app.extensions.get("guandan_hub")
    if h is None:
        abort(404, description="本服务没有赛事中心 / this server runs no event hub")
    return h
