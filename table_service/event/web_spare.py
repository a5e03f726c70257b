"""The organiser page's part for a failed table: move its match to a spare table (the form posts
``/hub/action/move_match``, one of :data:`~.admin_actions.ACTIONS`), and download what a
replacement Pi needs (the table's MQTT credential; the broker's CA under TLS).

Why apart from :mod:`.web`: the pages' other routes are not this one fault's, and the credential
routes are the only hub pages that hand out a secret: chief only (the organiser's account), never
cached, and each download said in the hub's log (who fetched which table's password).
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, Flask, Response, abort, g, request

from table_service.engine.ruleset import resolve_ruleset
from table_service.event.model import EventInputError, table_order
from table_service.event.moves import LEVEL_CHOICES, level_words, reported_standing
from table_service.event.spare import (
    SPARE_ROLE,
    ca_certificate,
    credential_tables,
    last_summary,
    table_credential,
)
from table_service.event.web_access import hub
from table_service.web.auth import require_role

log = logging.getLogger(__name__)

spare_bp = Blueprint("hub_spare", __name__, url_prefix="/hub")


def _secret(body: bytes | str, name: str, mimetype: str) -> Response:
    """A download that must not stay in a cache or a proxy: ``no-store``, an attachment."""
    resp = Response(body, mimetype=mimetype)
    resp.headers["Content-Disposition"] = f'attachment; filename="{name}"'
    resp.headers["Cache-Control"] = "no-store"
    return resp


@spare_bp.get("/table-mqtt.toml")
@require_role(SPARE_ROLE)
def table_mqtt() -> Any:
    """The ``[mqtt]`` a replacement Pi of the table ``?table=`` pastes into its ``table.toml`` (a query
    parameter: the page's one form picks the table, no script builds the address)."""
    h = hub()
    table = request.args.get("table", "")
    try:
        text = table_credential(getattr(h, "provision_dir", None), table)
    except EventInputError as exc:
        abort(404, description=str(exc))
    log.warning("hub: table %s's MQTT credential downloaded by %s", table, g.user.name)
    return _secret(text, f"table-{table}-mqtt.toml", "application/toml")


@spare_bp.get("/ca.crt")
@require_role(SPARE_ROLE)
def ca_crt() -> Any:
    """The broker's CA certificate (TLS), which a replacement Pi's ``ca_file`` names."""
    try:
        body = ca_certificate(getattr(hub(), "provision_dir", None))
    except EventInputError as exc:
        abort(404, description=str(exc))
    return _secret(body, "ca.crt", "application/x-pem-file")


def spare_view() -> dict[str, Any]:
    """What the organiser page's 换桌与换机 part shows: the current round's matches still to play (each
    may move), the idle tables they may move to (the event's tables no match of the round uses), the
    moves made, and, for the chief, the tables with a credential and whether there is a CA.
    ``standing``: the move form's prefill for the match picked (``?slot=<round>|<table>``, else the
    first), from its table's last report (:func:`prefill`)."""
    h = hub()
    with h.lock:
        core = h.core
        rnd = core.current_round()
        draw = core.draws.get(rnd) if rnd else None
        names = core.team_names()
        open_matches = [{**t, "ns_name": names.get(t["ns"], t["ns"]), "ew_name": names.get(t["ew"], t["ew"])}
                        for t in (draw or {}).get("tables", []) if (rnd, t["table"]) not in core.results]
        used = {t["table"] for t in (draw or {}).get("tables", [])}
        listed = [t["id"] for t in (core.cfg or {}).get("tables", [])]
        known = listed or sorted(set(h.live) | set(credential_tables(getattr(h, "provision_dir", None))), key=table_order)
        idle = [{"table": t, "online": getattr(h.live.get(t), "online", None)} for t in known if t not in used]
        moves = list((draw or {}).get("moves", ()))
        picked = next((t for t in open_matches if f"{rnd}|{t['table']}" == request.args.get("slot")),
                      open_matches[0] if open_matches else None)
        standing = None if picked is None else prefill(
            reported_standing(last_summary(h, picked["table"]), rnd, picked),
            (draw["assignments"].get(picked["table"]) or {}).get("ruleset"), picked["table"])
    folder = getattr(h, "provision_dir", None)
    chief = g.user is not None and g.user.can(SPARE_ROLE)
    return {"round": rnd, "open": open_matches, "idle": idle, "moves": moves, "picked": picked,
            "standing": standing, "level_choices": LEVEL_CHOICES,
            "credentials": credential_tables(folder) if chief else [],
            "ca": bool(chief and folder is not None and (folder / "ca.crt").is_file())}


def prefill(report: dict[str, Any] | None, ruleset: Any, table: str) -> dict[str, Any]:
    """The move form's values: the old table's last report, else the round's start (nothing is known
    to have been played there), and the line that says which (``note``: Chinese, English), for the
    chief to check against the table's score sheet before the tap."""
    if report is None:
        start = resolve_ruleset(ruleset).start_level
        return {"levels": {"NS": start, "EW": start}, "deals": 0, "next_side": None,
                "note": (f"{table} 号桌未报告过本场比赛：默认从本轮开始（{start} 级）",
                         f"table {table} never reported this match: the default is the round's start (level {start})")}
    deal = report.get("deal") or 0
    lv = {side: level_words(v) for side, v in report["levels"].items()}
    return {"levels": dict(report["levels"]), "deals": report.get("deals", 0), "next_side": report.get("next_side"),
            "note": (f"{table} 号桌最后报告：第 {deal} 副，南北 {lv['NS']}，东西 {lv['EW']}",
                     f"table {table}'s last report: deal {deal}, NS {lv['NS']}, EW {lv['EW']}")}


def register_spare(app: Flask) -> None:
    """Add the routes and the page's data to the hub's app (:func:`~.web.create_hub_app`)."""
    app.register_blueprint(spare_bp)
    app.template_filter("level")(level_words)
    app.template_global("spare_view")(spare_view)
