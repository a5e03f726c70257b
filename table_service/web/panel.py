"""HTML pages of the referee panel. They only render; live data comes over the SSE stream and
actions go to the JSON API (with the CSRF header), so the pages themselves change nothing."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, g, render_template

from .auth import require_role
from .tables import get_table, web_state

bp = Blueprint("panel", __name__)


@bp.get("/")
@require_role("viewer")
def index() -> Any:
    """List of tables."""
    return render_template("index.html", tables=sorted(web_state().tables))


@bp.get("/tables/<table_id>")
@require_role("viewer")
def table(table_id: str) -> Any:
    """The live table view with flags, questions and referee actions."""
    entry = get_table(table_id)
    return render_template("table.html", table_id=table_id, user=g.user,
                           duplicate=entry.feed.duplicate, delay_s=entry.feed.delay_ms / 1000.0)


@bp.get("/tables/<table_id>/scoresheet")
@require_role("viewer")
def scoresheet(table_id: str) -> Any:
    """The deal-by-deal score sheet, signed by both sides."""
    get_table(table_id)
    return render_template("scoresheet.html", table_id=table_id, user=g.user)
