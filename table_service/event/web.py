"""The hub's pages: the chief referee's overview, the results board, and a form for every
organiser action (no curl, no typed event numbers); the exports and printable sheets are
:mod:`.web_sheets`', who may open a page :mod:`.web_access`'.

A blueprint on the table panel's own Flask app (same login, roles, CSRF and look): the
overview and forms need a login (viewer to watch, referee to act, chief referee for late
corrections, appeal decisions and refused results); the results board and its JSON are public,
as they go on the hall's big screen.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any
from urllib.parse import quote, urlsplit, urlunsplit

from flask import (
    Blueprint,
    current_app,
    flash,
    g,
    jsonify,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.exceptions import HTTPException

from table_service.event.admin_actions import ACTIONS, Shown
from table_service.event.bulk_text import LinesRefused, line_words
from table_service.event.config import FIRST_ROUND_WORDS, scoring_of
from table_service.event.intake import panel_link
from table_service.event.model import (
    EventInputError,
    RoleRefused,
    table_order,
)
from table_service.event.openapi_hub import HUB_INFO, HUB_OPERATIONS
from table_service.event.polled import Polled, answer, answer_fresh
from table_service.event.refusal_words import hhmm, who_text
from table_service.event.web_access import http_error, hub, hub_role
from table_service.event.web_sheets import register_sheets
from table_service.event.web_spare import register_spare
from table_service.rules.ruleset import PRESETS
from table_service.views.deck_wire import MAX_DECK_BYTES
from table_service.web.app import create_app
from table_service.web.server import serve

bp = Blueprint("hub", __name__, url_prefix="/hub")
bp.register_error_handler(HTTPException, http_error)


@bp.get("/")
@hub_role("viewer")
def overview() -> Any:
    h = hub()
    return render_template("hub_overview.html", ov=h.overview(), names=h.core.team_names())


@bp.get("/broadcast")
@hub_role("viewer")
def broadcast() -> Any:
    """直播 / Broadcast: each table's overlay and public feed on its own Pi, for the producers,
    built from the panel address the hub knows (see :func:`broadcast_rows`)."""
    h = hub()
    with h.lock:
        return render_template("hub_broadcast.html", rows=broadcast_rows(h),
                               ev=(h.core.cfg or {}).get("event") or {}, rnd=h.core.current_round())


#: Said of a table whose panel address the hub does not know.
UNKNOWN_PANEL = ("面板地址未知：该桌尚未上报，EVENT.toml 的 [[tables]] 也未写 panel / panel address unknown: "
                 "the table has not announced it, and EVENT.toml's [[tables]] gives none")


def feed_links(table: str, panel: str | None) -> tuple[dict[str, str] | None, str | None]:
    """The public feed's addresses of ``table`` on its own Pi, from its panel address
    (``http(s)://host[:port][/prefix]/tables/<table>``, or the Pi's root): ``(links, None)``, or
    ``(None, why)`` when they cannot be told from it."""
    if not panel:
        return None, UNKNOWN_PANEL
    parts = urlsplit(panel)
    tid = quote(table, safe="")
    if parts.scheme not in ("http", "https") or not parts.netloc:
        return None, UNKNOWN_PANEL
    if parts.path.endswith(f"/tables/{tid}"):
        prefix = parts.path[: -len(f"/tables/{tid}")]
    elif parts.path in ("", "/"):
        prefix = ""
    else:
        return None, (f"面板地址 {panel} 不以 /tables/{table} 结尾，无法得出直播地址 / the panel address {panel} "
                      f"does not end in /tables/{table}: the feed's address cannot be told from it")
    feed = urlunsplit((parts.scheme, parts.netloc, f"{prefix}/feed/{tid}", "", ""))
    # The overlay's language said in its address: OBS's browser sources share one cookie store, and
    # a link without ?lang= once showed whatever a producer last clicked on a panel.
    return {"panel": panel, "overlay": f"{feed}/overlay?lang=zh", "overlay_en": f"{feed}/overlay?lang=en",
            "commentator": f"{feed}/commentator",
            "state": f"{feed}/state.json", "events": f"{feed}/events.json", "stream": f"{feed}/stream"}, None


def broadcast_rows(h: Any) -> list[dict[str, Any]]:
    """One row per table the hub knows — the current round's, then EVENT.toml's ``[[tables]]``,
    then any other that announced itself — with its teams (when drawn), whether it is connected
    (``connected``: :attr:`TableLive.connected`, the hub's one liveness rule, as on the overview;
    ``online``: its last status, None before any, which tells "went offline" from "never heard from"),
    its broadcast's delay and whether it holds deals for release (what the table's summary said:
    ``delay_s`` None until one came; a duplicate match's room holds them whatever it said), and
    its feed's addresses (:func:`feed_links`) or why there are none."""
    with h.lock:
        core = h.core
        rnd = core.current_round()
        draw = core.draws.get(rnd) if rnd else None
        cfg = core.cfg or {}
        cfg_panels = {t["id"]: t.get("panel") for t in cfg.get("tables", [])}
        names = core.team_names()
        drawn = {t["table"]: t for t in (draw or {}).get("tables", [])}
        ids = list(drawn) + sorted((set(cfg_panels) | set(h.live)) - set(drawn), key=table_order)
        rows = []
        for tid in ids:
            live = h.live.get(tid)
            links, why = feed_links(tid, panel_link(tid, cfg_panels.get(tid), live.panel if live else None))
            t = drawn.get(tid)
            summary = live.summary if live else {}
            rows.append({"table": tid, "online": live.online if live else None,
                         "connected": bool(live and live.connected), "links": links, "why": why,
                         "ns": names.get(t["ns"], t["ns"]) if t else None,
                         "ew": names.get(t["ew"], t["ew"]) if t else None,
                         "delay_s": float(summary.get("feed_delay_s") or 0) if summary else None,
                         "holds": bool(summary.get("feed_holds")) or bool(t and t.get("room")),
                         "room": t.get("room") if t else None})
        return rows


@bp.get("/api/broadcast")
@hub_role("viewer")
def api_broadcast() -> Any:
    """The 直播 page's rows as JSON (:func:`broadcast_rows`), which the page polls to keep each
    table's online status, delay and hold current while a producer watches it."""
    h = hub()
    with h.lock:
        return answer_fresh({"round": h.core.current_round(), "tables": broadcast_rows(h)})


@bp.get("/api/overview")
@hub_role("viewer")
def api_overview() -> Any:
    h = hub()
    with h.lock:  # each result's seq, read with it: the basis a correction names (POST /hub/action/correct)
        ov = h.overview()
        for t in ov["tables"]:
            tr = h.core.results.get((ov["round"], t["table"]))
            t["result_seq"] = tr.seq if tr is not None else None
    return answer_fresh(ov)


@bp.get("/api/last-seq")
@hub_role("viewer")
def api_last_seq() -> Any:
    """The hub log's last event, alone: all the organiser page asks every 5 s to know that it is
    out of date (it polled the whole overview for it, ~100 KB at 200 tables). Kept per seq
    (:mod:`.polled`), so a poll with nothing new is a ``304`` with no body."""
    h = hub()
    with h.lock:
        seq = h.core.last_seq
    return answer(polled("last_seq").get(seq, h.clock_ms(), lambda: ({"last_seq": seq}, None)))


@bp.get("/board")
def board() -> Any:
    """The hall's big screen (public): standings and the current round's tables, paging itself."""
    h = hub()
    return render_template("hub_board.html", ev=h.core.cfg["event"])


#: Where the standings panel may sit on the stage (``?pos=``): the first is the default.
OVERLAY_POSITIONS = ("right", "left", "bottom-right", "bottom-left")


@bp.get("/overlay")
def overlay() -> Any:
    """Broadcast scoreboard overlay (public, transparent): ``?top=N`` teams, ``?lang=en`` for
    English (Chinese otherwise: one language per view, never the panel's cookie, since a browser
    source on the producer's machine shares the panel's cookies). The column after match points
    is the event's own next tie-break key, so a preset that ranks differently shows its column.

    ``?pos=`` places the panel (:data:`OVERLAY_POSITIONS`): ``right`` (top right, the default) or
    ``left`` for a scene of its own; ``bottom-right`` / ``bottom-left`` a short panel (4 teams a
    page) in the gaps a table overlay leaves below its side plates, so both stack in one scene.

    A withdrawn team (退赛) in the top N is shown, marked under its name (已退赛 / WITHDRAWN): its results stand and the rules
    rank it there, so leaving it out would either skip a rank on air or renumber the teams below it
    into places the board, the printed sheet and the export do not give them."""
    top = request.args.get("top", "8")
    n = int(top) if re.fullmatch(r"[0-9]{1,2}", top) else 0  # ASCII digits only: int("²") fails
    pos = request.args.get("pos", OVERLAY_POSITIONS[0])
    h = hub()
    # The first key after match points that the standings JSON carries (head-to-head has no column).
    tiebreak = next((_TIEBREAK_JSON[k] for k in scoring_of(h.core.cfg).tiebreak if k in _TIEBREAK_JSON),
                    "progressive")
    return render_template("hub_overlay.html", ev=h.core.cfg["event"], top=n if 0 < n <= 64 else 8,
                           lang="en" if request.args.get("lang") == "en" else "zh", tiebreak=tiebreak,
                           pos=pos if pos in OVERLAY_POSITIONS else OVERLAY_POSITIONS[0])


#: A ruleset's tie-break key -> the standings JSON column that holds it.
_TIEBREAK_JSON = {"progressive_points": "progressive", "rounds_won": "rounds_won",
                  "level_difference_points": "level_points", "levels_gained": "levels_gained"}


@bp.get("/api/board")
def api_board() -> Any:
    """The public board (:func:`board_json`), made once per version of the hub (every phone in the
    hall polls it), with an ETag and gzip (:mod:`.polled`)."""
    h = hub()
    now = h.clock_ms()
    return answer(polled("board").get(h.board_version(), now, lambda: board_json(h, now)))


def board_json(h: Any, now: int) -> tuple[dict[str, Any], int | None]:
    """The public board: standings, the round's tables and each table's signed result, once the
    chief has published the round's results (before: ``finished``, the score held back); and the
    moment it would next change by the clock alone (:meth:`HubState.next_public_ms`).

    Nothing live goes public here: a table's levels and deal as it plays come from its undelayed
    summary (for the chief referee's overview, behind a login), while broadcasts are delayed. In
    duplicate play (复式) a table's result waits until the other room has played the same deals:
    room B's players can see the hall's screen.
    """
    with h.lock:  # a table's result once its delayed broadcast has shown the deal that decided it
        ov = h.overview()
        finished = {t["table"] for t in ov["tables"]
                    if t["result"] and (tr := h.core.results.get((ov["round"], t["table"]))) is not None
                    and tr.public_ms <= now}
        published = ov["round"] in h.core.results_published  # the chief's 公布成绩: reviewed, official
        standings, until = h.standings_json(public=True), h.core.next_public_ms(now)
    signed = Counter(frozenset((t["ns"], t["ew"])) for t in ov["tables"] if t["table"] in finished)
    both_rooms = 2 if scoring_of(h.core.cfg).duplicate else 1
    public_tables = [{**{k: t[k] for k in ("table", "ns", "ew", "ns_name", "ew_name", "online", "moved_from")},
                      "finished": t["table"] in finished,
                      "result": t["result"] if published and t["table"] in finished
                      and signed[frozenset((t["ns"], t["ew"]))] >= both_rooms else None}
                     for t in ov["tables"]]
    return {"standings": standings, "round": ov["round"], "rounds": ov["rounds"], "tables": public_tables,
            "bye": ov["bye"], "byes": ov["byes"], "event": ov["event"]["name"] if ov["event"] else None}, until


@bp.get("/api/standings")
def api_standings() -> Any:
    """The standings as the public may see them now (as on the board), kept as the board is."""
    h = hub()
    now = h.clock_ms()

    def make() -> tuple[dict[str, Any], int | None]:
        with h.lock:
            return h.standings_json(public=True), h.core.next_public_ms(now)

    return answer(polled("standings").get(h.board_version()[0], now, make))


def polled(name: str) -> Polled:
    """This app's kept copy of the polled document ``name`` (one per app: a test's second hub app
    starts with none)."""
    return current_app.extensions["guandan_hub_polled"].setdefault(name, Polled())


@bp.get("/admin")
@hub_role("referee")
def admin() -> Any:
    return render_template("hub_admin.html", **admin_context(hub()))


def admin_context(h: Any, **shown: Any) -> dict[str, Any]:
    """What the organiser page shows; ``shown``: what an answer adds to it (a refused import's lines,
    a teams import's preview)."""
    with h.lock:
        core = h.core
        open_tables, done_tables = [], []
        for rnd in core.published_rounds:
            for t in core.draws[rnd]["tables"]:
                item = {"round": rnd, **t}
                tr = core.results.get((rnd, t["table"]))
                if tr is None:
                    # A table still playing this round (online, its summary of this round, not finished):
                    # the hand-entry form asks before a result is entered over its play.
                    live = h.live.get(t["table"])
                    s = live.summary if live is not None and live.connected else {}
                    item["playing_deal"] = (s.get("deal") or 1) if s.get("round") == rnd and not s.get("finished") else None
                    open_tables.append(item)
                else:
                    done_tables.append({**item, "result": tr.line, "source": tr.source, "basis": tr.seq,
                                        "by": tr.by, "t_ms": tr.t_ms})
        # The correction's list: every finished table of every published round, a group a round (the
        # latest first), tables in the draw's order (the s36 audit: an earlier round's was out of reach).
        correct_rounds = [(rnd, [t for t in done_tables if t["round"] == rnd])
                          for rnd in sorted({t["round"] for t in done_tables}, reverse=True)]
        ctx = {"ov": h.overview(), "open_tables": open_tables, "done_tables": done_tables[::-1],
               "correct_rounds": correct_rounds,
               "appeals": list(core.appeals), "refusals": [r for r in core.refusals if not r["acknowledged"]],
               "complete_unpublished": [r for r in core.published_rounds if core.round_complete(r)
                                        and r not in core.results_published],
               "can_draw": _can_draw(core), "teams": core.cfg["teams"], "rounds": core.published_rounds,
               "withdrawn": core.withdrawn, "next_round": core.next_round(),
               "presets": _presets(), "event": core.cfg["event"], "seen": core.last_seq,
               # The settings' rules (event/settings.py), said beside their controls
               "drawn_rounds": max(core.draws, default=0),
               "min_rounds": max(1, max(core.draws, default=0)), "method_now": core.method_now(),
               "draw_fixed": bool(core.published_rounds), "points_fixed": min(core.published_rounds, default=None),
               "names": core.team_names(), "new_team_id": next_team_id(core.teams),
               "first_round_words": FIRST_ROUND_WORDS}
        deck = ctx["ov"]["deck"]
        ctx["deck_tables"] = sum(1 for t in ctx["ov"]["tables"] if deck and t.get("deck") == deck["sha256"])
    return {**ctx, **shown}


def next_team_id(ids: list[str]) -> str:
    """The id the add-team form offers: the next number after the highest of the ids that end in
    one, with their prefix and width ("T08" after "T07"), so a late entry at the desk is a name and
    players typed, not an id invented; "" when the ids have no number to go on."""
    numbered = [m for m in (re.fullmatch(r"(.*?)([0-9]{1,9})", i) for i in ids) if m]
    if not numbered:
        return ""
    top = max(numbered, key=lambda m: int(m.group(2)))
    n, width = int(top.group(2)), len(top.group(2))
    while True:
        n += 1
        guess = f"{top.group(1)}{n:0{width}d}"
        if guess not in ids:
            return guess


def _presets() -> list[str]:
    return sorted(PRESETS)


def _can_draw(core: Any) -> str | None:
    try:
        core.check_draw("chief")
    except EventInputError as exc:
        return str(exc)
    return None




#: The deck upload's body limit: the file and the form around it (the app's own limit is 64 KiB).
DECK_UPLOAD_BYTES = MAX_DECK_BYTES + 64 * 1024
#: The results import's: a round of 500 tables is ~45 KB of lines, ~130 KB form-encoded (64 KiB
#: refused it, and the organiser's pasted text was gone with the error page).
IMPORT_BYTES = 4 * 1024 * 1024


def deck_upload_limit() -> None:
    """``before_request``, ahead of the CSRF check that reads the form: the deck upload's and the
    import's own limits."""
    if request.endpoint == "hub.action":
        name = (request.view_args or {}).get("name")
        if name in ("deck", "import", "import_teams"):  # a list of 1,000 teams in Chinese, form-encoded: ~200 KB
            request.max_content_length = DECK_UPLOAD_BYTES if name == "deck" else IMPORT_BYTES


@hub_role("referee")
def action(name: str) -> Any:
    """Every organiser action; the hub's verdict comes back as a message on the admin page (or
    as JSON ``{"ok", "message"|"error"}`` to a client that asks for JSON)."""
    h, who, role = hub(), g.user.name, g.user.role
    try:  # a field sent twice never gets here (web.security.refuse_repeated_fields, every app's)
        msg = ACTIONS[name](h, who, role)
    except LinesRefused as exc:
        # Every bad line, each named: in the JSON, and on the organiser page drawn at once (a list of
        # 400 lines does not fit the session's cookie a redirect would carry it in), the text pasted
        # back in its box as typed.
        problems = [{"line": n, "error": why} for n, why in exc.problems]
        if request.accept_mimetypes.best == "application/json":
            return jsonify(ok=False, error=str(exc), problems=problems), 400
        flash(exc.head, "error")
        return render_template("hub_admin.html", **admin_context(h, refused={
            "form": name, "problems": exc.problems, "text": request.form.get("lines", "")})), 400
    except EventInputError as exc:
        if request.accept_mimetypes.best == "application/json":
            return jsonify(ok=False, error=str(exc)), 403 if isinstance(exc, RoleRefused) else 400
        flash(str(exc), "error")
        return redirect(url_for("hub.admin"))
    if isinstance(msg, Shown):  # a preview: the page drawn at once with it
        if request.accept_mimetypes.best == "application/json":
            return jsonify(ok=True, message=msg.message, **msg.data)
        flash(msg.message, "ok")
        return render_template("hub_admin.html", **admin_context(h, **msg.context))
    if request.accept_mimetypes.best == "application/json":
        return jsonify(ok=True, message=msg)
    flash(msg, "ok")
    return redirect(url_for("hub.admin"))


for _name in ACTIONS:  # one URL per action; url_for("hub.action", name=…) picks its rule
    bp.add_url_rule(f"/action/{_name}", endpoint="action", view_func=action, methods=["POST"],
                    defaults={"name": _name})


def hub_home() -> Any:
    """``/`` on the hub's app (and so where a login without ``next`` lands): the hub's overview.
    The table panel's home lists the tables served by this app, and the hub serves none: it would
    show an empty list ("尚无比赛桌") with no way to the hub. A spectator, who may not see the
    overview, goes to the public board; a visitor not logged in to the login page (then the overview)."""
    if g.user is None:
        return redirect(url_for("auth.login", next=url_for("hub.overview")))
    if not g.user.can("viewer"):
        return redirect(url_for("hub.board"))
    return redirect(url_for("hub.overview"))


def hub_home_url() -> str:
    """The hub's home for the person asking (as :func:`hub_home` decides it): the overview for an
    account that may see it, the public board otherwise."""
    user = getattr(g, "user", None)  # an error raised before the login was read has none
    return url_for("hub.overview") if user is not None and user.can("viewer") else url_for("hub.board")


def _sent_nowhere() -> None:
    """The event accounts' sender of a hub app that has no hub service (tests of its pages)."""
    return None


#: The hub's session cookie (the table panel's is ``guandan_session``).
HUB_SESSION_COOKIE = "guandan_hub_session"


def create_hub_app(hub_service: Any, *, users_db: str, secret_key: str | None = None) -> Any:
    """The table panel's app (login, roles, CSRF) with the hub blueprint and ``hub_service``;
    its ``/`` leads to the hub (:func:`hub_home`)."""
    settings: dict[str, Any] = {"USERS_DB": users_db}
    if secret_key:
        settings["SECRET_KEY"] = secret_key
    app = create_app(settings)
    # Its own cookie: a hub and a table panel served from one host (the event demo, a one-machine
    # event) shared "guandan_session", and opening a table from the overview logged the hub out.
    app.config["SESSION_COOKIE_NAME"] = HUB_SESSION_COOKIE
    app.extensions["guandan_hub"] = hub_service
    app.extensions["guandan_hub_polled"] = {}  # the board's and the standings' kept JSON (polled.py)
    app.config["GUANDAN_TITLE_KEY"] = "hub_title"  # base.html: the login page says whose it is
    app.extensions["guandan_openapi"] = HUB_OPERATIONS  # the hub's routes in /api/openapi.json
    app.extensions["guandan_openapi_info"] = HUB_INFO
    app.register_blueprint(bp)
    register_sheets(app)  # the results and standings as files, the printed sheets
    register_spare(app)  # a failed table: its match moved to a spare, a replacement Pi's credential
    app.view_functions["panel.index"] = hub_home  # same rule "/", so the OpenAPI document still holds
    app.extensions["guandan_home"] = hub_home_url  # where the error page's 返回 / Back leads
    # The accounts page marks event accounts here (this is the hub) and sends them to the tables
    # after every change; the hub sends them again on every (re)connect.
    publish = getattr(hub_service, "publish_accounts", None)
    if callable(publish):
        hub_service.accounts_db = users_db
        publish()
    else:  # a hub app without its service (tests of the pages): marked, not sent
        publish = _sent_nowhere
    app.extensions["guandan_event_accounts"] = publish
    app.before_request_funcs.setdefault(None, []).insert(0, deck_upload_limit)  # before the CSRF check

    app.template_filter("hhmm")(hhmm)
    app.template_global("line_words")(line_words)  # a refused line as the refusal names it
    app.template_filter("who")(who_text)  # a table's own result: "16 号桌 / table 16", not "table:16"

    return app


def serve_hub(hub_service: Any, *, host: str = "127.0.0.1", port: int = 8090, users_db: str,
              secret_key: str | None = None) -> Any:
    """Serve the hub's pages (cheroot, background thread); returns the server handle."""
    return serve(create_hub_app(hub_service, users_db=users_db, secret_key=secret_key), host, port)
