"""The hub's pages: the chief referee's overview, the results board, printable sheets, and a
form for every organiser action (no curl, no typed event numbers).

A blueprint on the table panel's own Flask app (same login, roles, CSRF and look): the
overview and forms need a login (viewer to watch, referee to act, chief referee for late
corrections, appeal decisions and refused results); the results board and its JSON are public,
as they go on the hall's big screen.
"""

from __future__ import annotations

from typing import Any

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)

from table_service.event.model import EventInputError
from table_service.web.auth import require_role

bp = Blueprint("hub", __name__, url_prefix="/hub")


def hub() -> Any:
    """The :class:`~table_service.event.hub.HubService` this app serves."""
    h = current_app.extensions.get("guandan_hub")
    if h is None:
        abort(404, description="本服务没有赛事中心 / this server runs no event hub")
    return h


@bp.get("/")
@require_role("viewer")
def overview() -> Any:
    return render_template("hub_overview.html", ov=hub().overview())


@bp.get("/api/overview")
@require_role("viewer")
def api_overview() -> Any:
    return jsonify(hub().overview())


@bp.get("/board")
def board() -> Any:
    """The hall's big screen (public): standings and the current round's tables, paging itself."""
    h = hub()
    return render_template("hub_board.html", ev=h.core.cfg["event"])


@bp.get("/overlay")
def overlay() -> Any:
    """Broadcast scoreboard overlay (public, transparent): ``?top=N`` teams."""
    top = request.args.get("top", "8")
    return render_template("hub_overlay.html", ev=hub().core.cfg["event"],
                           top=int(top) if top.isdigit() and 0 < int(top) <= 64 else 8)


@bp.get("/api/board")
def api_board() -> Any:
    h = hub()
    ov = h.overview()
    public_tables = [{k: t[k] for k in ("table", "ns", "ew", "online", "deal", "levels", "finished", "result")}
                     for t in ov["tables"]]
    return jsonify(standings=h.standings_json(), round=ov["round"], rounds=ov["rounds"], tables=public_tables,
                   bye=ov["bye"], event=ov["event"]["name"] if ov["event"] else None)


@bp.get("/api/standings")
def api_standings() -> Any:
    return jsonify(hub().standings_json())


@bp.get("/results.jsonl")
@require_role("viewer")
def export_results() -> Any:
    return Response(hub().export_results(), mimetype="application/x-ndjson",
                    headers={"Content-Disposition": "attachment; filename=RESULTS.jsonl"})


@bp.get("/print/draw/<int:rnd>")
@require_role("viewer")
def print_draw(rnd: int) -> Any:
    h = hub()
    with h.lock:
        d = h.core.draws.get(rnd)
        if d is None:
            abort(404, description=f"第 {rnd} 轮尚未编排 / round {rnd} has not been drawn")
        names = {t["id"]: t for t in h.core.cfg["teams"]}
        return render_template("hub_print_draw.html", ev=h.core.cfg["event"], rnd=rnd, draw=d, teams=names)


@bp.get("/print/results/<int:rnd>")
@require_role("viewer")
def print_results(rnd: int) -> Any:
    h = hub()
    with h.lock:
        d = h.core.draws.get(rnd)
        if d is None or not d["published"]:
            abort(404, description=f"第 {rnd} 轮没有公布的编排 / round {rnd} has no published draw")
        from table_service.event.config import scoring_of
        from table_service.event.model import parse_result
        from table_service.event.standings import compute_standings

        rows = []
        for t in d["tables"]:
            tr = h.core.results.get((rnd, t["table"]))
            rows.append({**t, "result": tr.line if tr else None, "source": tr.source if tr else None,
                         "t_ms": tr.t_ms if tr else None, "history": tr.history if tr else [],
                         "ldp": parse_result(tr.line).level_points() if tr else None})
        # The standings after this round (a sheet printed later still shows that round's table).
        st = compute_standings(h.core.result_objects(upto=rnd), h.core.teams, scoring_of(h.core.cfg),
                               seed=h.core.cfg["event"]["seed"], recorded_lots=h.core.lots).to_json()
        names = {t["id"]: t["name"] for t in h.core.cfg["teams"]}
        for row in st["standings"]:
            row["name"] = names.get(row["team"], row["team"])
        return render_template("hub_print_results.html", ev=h.core.cfg["event"], rnd=rnd, rows=rows, draw=d,
                               standings=st["standings"], published=h.core.results_published.get(rnd))


@bp.get("/admin")
@require_role("referee")
def admin() -> Any:
    h = hub()
    with h.lock:
        core = h.core
        open_tables, done_tables = [], []
        for rnd in core.published_rounds:
            for t in core.draws[rnd]["tables"]:
                item = {"round": rnd, **t}
                tr = core.results.get((rnd, t["table"]))
                if tr is None:
                    open_tables.append(item)
                else:
                    done_tables.append({**item, "result": tr.line, "source": tr.source})
        ctx = {"ov": h.overview(), "open_tables": open_tables, "done_tables": done_tables[::-1],
               "appeals": list(core.appeals), "refusals": [r for r in core.refusals if not r["acknowledged"]],
               "complete_unpublished": [r for r in core.published_rounds if core.round_complete(r)
                                        and r not in core.results_published],
               "can_draw": _can_draw(core), "teams": core.cfg["teams"], "rounds": core.published_rounds,
               "presets": _presets(), "event": core.cfg["event"]}
    return render_template("hub_admin.html", **ctx)


def _presets() -> list[str]:
    from table_service.rules.ruleset import PRESETS

    return sorted(PRESETS)


def _can_draw(core: Any) -> str | None:
    try:
        core.check_draw("chief")
    except EventInputError as exc:
        return str(exc)
    return None


def _int(name: str, lo: int = 0, hi: int = 10**9) -> int:
    raw = request.form.get(name, "")
    try:
        v = int(raw)
    except ValueError:
        raise EventInputError(f"{name} 须为整数 / {name} must be a whole number (got {raw!r})") from None
    if not lo <= v <= hi:
        raise EventInputError(f"{name} 须在 {lo}–{hi} / {name} must be {lo}-{hi}")
    return v


def _slot() -> tuple[int, str]:
    raw = request.form.get("slot", "")
    rnd, _, table = raw.partition("|")
    if not rnd.isdigit() or not table:
        raise EventInputError("请选择轮次与桌号 / choose a round and table")
    return int(rnd), table


def _line(rnd: int, table: str) -> dict[str, Any]:
    h = hub()
    t = h.core.table_of(rnd, table)
    if t is None:
        raise EventInputError(f"第 {rnd} 轮没有 {table} 号桌 / no table {table} in round {rnd}")
    line: dict[str, Any] = {"round": rnd, "table": table, "ns": t["ns"], "ew": t["ew"]}
    forfeit = request.form.get("forfeit") or None
    if forfeit:
        line["forfeit"] = forfeit
    line["ns_levels"] = _int("ns_levels", 0, 13) if request.form.get("ns_levels") else 0
    line["ew_levels"] = _int("ew_levels", 0, 13) if request.form.get("ew_levels") else 0
    if not forfeit and not (request.form.get("ns_levels") and request.form.get("ew_levels")):
        raise EventInputError("请填写双方升级数 / enter both sides' levels gained")
    if request.form.get("ns_score") or request.form.get("ew_score"):
        line["ns_score"], line["ew_score"] = _int("ns_score", 0, 26), _int("ew_score", 0, 26)
    return line


ACTIONS = ("draw", "publish", "hand_result", "correct", "publish_results", "appeal", "decide", "acknowledge",
           "import", "edit_team", "edit_event")


@bp.post("/action/<name>")
@require_role("referee")
def action(name: str) -> Any:
    """Every organiser action; the hub's verdict comes back as a message on the admin page."""
    if name not in ACTIONS:
        abort(404)
    h, who, role = hub(), g.user.name, g.user.role
    try:
        if name == "draw":
            ev = h.draw_next(who, role)
            msg = f"第 {ev['data']['round']} 轮已编排（草案）/ round {ev['data']['round']} drawn (draft)"
        elif name == "publish":
            rnd = _int("round", 1)
            h.publish_draw(rnd, who, role)
            msg = f"第 {rnd} 轮编排已公布并下发各桌 / round {rnd} published and sent to the tables"
        elif name == "hand_result":
            rnd, table = _slot()
            h.hand_result(_line(rnd, table), who, role)
            msg = f"已录入第 {rnd} 轮 {table} 号桌成绩 / result of table {table}, round {rnd} entered"
        elif name == "correct":
            rnd, table = _slot()
            ev = h.correct(rnd, table, _line(rnd, table), request.form.get("reason", ""), who, role)
            late = "（逾期，裁判长更正）/ (late: chief referee)" if ev["data"]["late"] else ""
            msg = f"已更正第 {rnd} 轮 {table} 号桌 / table {table}, round {rnd} corrected {late}"
        elif name == "publish_results":
            rnd = _int("round", 1)
            h.publish_results(rnd, who, role)
            msg = f"第 {rnd} 轮成绩已公布 / round {rnd} results published"
        elif name == "appeal":
            rnd, table = _slot()
            ev = h.file_appeal(rnd, table, request.form.get("team", ""), request.form.get("text", ""), who, role)
            msg = f"申诉 #{ev['data']['id']} 已登记 / appeal #{ev['data']['id']} filed"
        elif name == "decide":
            aid = _int("appeal", 1)
            h.decide_appeal(aid, request.form.get("decision", ""), request.form.get("note", ""), who, role)
            msg = f"申诉 #{aid} 已裁决 / appeal #{aid} decided"
        elif name == "acknowledge":
            seq = _int("refusal", 1)
            h.acknowledge_refusal(seq, who, role)
            msg = f"拒收 #{seq} 已处理 / refusal #{seq} cleared"
        elif name == "edit_event":
            kind = request.form.get("kind", "")
            fmt: dict[str, Any] = {"kind": kind}
            if kind == "deals":
                fmt["deals"] = _int("deals", 1, 99)
            elif kind == "time":
                fmt["minutes"] = _int("minutes", 1, 600)
            h.edit_event(request.form.get("name", ""), request.form.get("ruleset", ""), fmt, who, role)
            msg = "赛事设置已修改，自下一次公布编排起生效 / event settings changed (from the next published draw)"
        elif name == "edit_team":
            team = request.form.get("team", "")
            players = [p for p in request.form.get("players", "").replace("，", ",").split(",")]
            h.edit_team(team, request.form.get("name", ""), players, who, role)
            msg = f"队伍 {team} 已修改，自下一次公布编排起生效 / team {team} changed (from the next published draw)"
        else:
            n = h.import_results(request.form.get("lines", ""), who, role)
            msg = f"已导入 {n} 条成绩 / {n} result(s) imported"
    except EventInputError as exc:
        if request.accept_mimetypes.best == "application/json":
            return jsonify(ok=False, error=str(exc)), 400
        flash(str(exc), "error")
        return redirect(url_for("hub.admin"))
    if request.accept_mimetypes.best == "application/json":
        return jsonify(ok=True, message=msg)
    flash(msg, "ok")
    return redirect(url_for("hub.admin"))


def create_hub_app(hub_service: Any, *, users_db: str, secret_key: str | None = None) -> Any:
    """The table panel's app (login, roles, CSRF) with the hub blueprint and ``hub_service``."""
    from table_service.web import create_app

    settings: dict[str, Any] = {"USERS_DB": users_db}
    if secret_key:
        settings["SECRET_KEY"] = secret_key
    app = create_app(settings)
    app.extensions["guandan_hub"] = hub_service
    app.register_blueprint(bp)

    @app.template_filter("hhmm")
    def _hhmm(ms: int | None) -> str:
        import time as _t

        return _t.strftime("%H:%M:%S", _t.localtime(ms / 1000)) if ms else ""

    return app


def serve_hub(hub_service: Any, *, host: str = "127.0.0.1", port: int = 8090, users_db: str,
              secret_key: str | None = None) -> Any:
    """Serve the hub's pages (cheroot, background thread); returns the server handle."""
    from table_service.web.server import serve

    return serve(create_hub_app(hub_service, users_db=users_db, secret_key=secret_key), host, port)
