"""HTML pages of the referee panel. They only render; live data comes over the SSE stream and
actions go to the JSON API (with the CSRF header), so the pages themselves change nothing.

Also the table clock the pages count down on (``/api/tables/<id>/clock``) and the favicon.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from flask import Blueprint, current_app, g, jsonify, render_template, send_from_directory

from table_service.rules.breaches import NAMED_BREACHES

from .auth import require_role
from .tables import TableEntry, get_table, table_sort_key, web_state

bp = Blueprint("panel", __name__)


def _wall_ms() -> int:
    return int(time.time() * 1000)


def table_clock(entry: TableEntry) -> tuple[Callable[[], float], float]:
    """The clock that stamps the table's events, and its speed (table ms per wall ms).

    The service hands its ``TableClock.now_ms`` to the app (``FEED_CLOCK``); the demo's runs
    faster than the wall, so a page must know the speed to count down between two readings.
    Without it: the runner's own clock, else the wall clock, at speed 1.
    """
    fn = current_app.config.get("FEED_CLOCK") or getattr(entry.runner, "_clock", None) or _wall_ms
    speed = getattr(getattr(fn, "__self__", None), "speed", 1.0)
    try:
        speed = float(speed)
    except (TypeError, ValueError):
        speed = 1.0
    return fn, (speed if speed > 0 else 1.0)


@bp.get("/")
@require_role("spectator")
def index() -> Any:
    """List of tables, in the order people count them (2 before 10); a spectator gets only the
    delayed broadcast pages, the overlay and the commentator's (everything else on this panel is live
    and needs ``viewer``)."""
    return render_template("index.html", tables=sorted(web_state().tables, key=table_sort_key),
                           spectator=not g.user.can("viewer"))


@bp.get("/favicon.ico")
def favicon() -> Any:
    """The tab icon (browsers ask for it at this path whatever the page says)."""
    assert current_app.static_folder is not None
    resp = send_from_directory(current_app.static_folder, "favicon.svg", mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "public, max-age=86400"
    return resp


@bp.get("/tables/<table_id>")
@require_role("viewer")
def table(table_id: str) -> Any:
    """The live table view with flags, questions and referee actions.

    ``has_camera``: the service hangs the camera pipeline on the runner where the table has one
    (as web/enroll.py finds it), so the camera's buttons (enrol the deck, recalibrate) show with
    the page, not only after the first clock reading.
    """
    entry = get_table(table_id)
    has_camera = getattr(entry.runner, "camera_pipeline", None) is not None
    return render_template("table.html", table_id=table_id, user=g.user, has_camera=has_camera,
                           duplicate=entry.feed.duplicate, board=entry.feed.holds_deals(), delay_s=entry.feed.delay_ms / 1000.0,
                           breaches=NAMED_BREACHES, hub=entry.hub_link is not None)


@bp.get("/api/tables/<table_id>/clock")
@require_role("viewer")
def clock(table_id: str) -> Any:
    """The table's time now (``now_ms``, event milliseconds), how fast it runs (``speed``) and,
    where the table has a camera pipeline, the camera's health (``camera``, docs/api.md).

    The panel counts a countdown down from the engine's ``deadline_ms`` against this clock, not
    from the last event's time (which, after a reload mid-countdown, is seconds old).
    """
    entry = get_table(table_id)
    fn, speed = table_clock(entry)
    out: dict[str, Any] = {"now_ms": int(fn()), "speed": speed}
    # The camera's health changes without an event (lagging, not reading): the page polls it here.
    health = getattr(entry.runner, "camera_health", None)
    if callable(health):
        out["camera"] = health()
    resp = jsonify(out)
    resp.headers["Cache-Control"] = "no-store"
    return resp


@bp.get("/tables/<table_id>/scoresheet")
@require_role("viewer")
def scoresheet(table_id: str) -> Any:
    """The deal-by-deal score sheet, signed by both sides.

    ``hub``: where the table has one, the page reads its assignment for the teams' names (the round
    keeps the hub's team ids), so the sheet names the sides by team as the panel does.
    """
    entry = get_table(table_id)
    return render_template("scoresheet.html", table_id=table_id, user=g.user, hub=entry.hub_link is not None)
