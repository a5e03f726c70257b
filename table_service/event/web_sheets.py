"""The hub's sheets: the results and the standings as files (``RESULTS.jsonl``, a spreadsheet's
CSV) and each round's printed pairing and results sheets, for a viewer and up.

Why apart from :mod:`.web`: these are read-only copies of the hub's state made to leave it (on
paper, in the organiser's report), not its live pages or the forms that change it; their URLs stay
under ``/hub`` and their OpenAPI ids are the ones published before the move (:mod:`.openapi_hub`).
"""

from __future__ import annotations

import csv
import io
from typing import Any

from flask import Blueprint, Flask, Response, abort, render_template
from werkzeug.exceptions import HTTPException

from table_service.event.config import FIRST_ROUND_WORDS, scoring_of
from table_service.event.draw import bye_note
from table_service.event.model import parse_result
from table_service.event.moves import moved_from
from table_service.event.standings import compute_standings
from table_service.event.state import byes_of
from table_service.event.web_access import http_error, hub, hub_role

sheets_bp = Blueprint("hub_sheets", __name__, url_prefix="/hub")
sheets_bp.register_error_handler(HTTPException, http_error)


@sheets_bp.get("/results.jsonl")
@hub_role("viewer")
def export_results() -> Any:
    return Response(hub().export_results(), mimetype="application/x-ndjson",
                    headers={"Content-Disposition": "attachment; filename=RESULTS.jsonl"})


#: The standings sheet's columns: (standings JSON key, heading, Chinese first).
_STANDINGS_CSV = (("rank", "名次 / rank"), ("team", "队号 / team"), ("name", "队名 / name"),
                  ("match_points", "比赛分 / match points"), ("progressive", "累进分 / progressive"),
                  ("rounds_won", "胜轮 / rounds won"), ("level_points", "级差分 / level points"),
                  ("levels_gained", "升级数 / levels gained"), ("withdrawn", "退赛（自第几轮） / withdrawn from round"))


@sheets_bp.get("/standings.csv")
@hub_role("viewer")
def export_standings() -> Any:
    """The standings as a spreadsheet opens them (the organiser's report, the federation's form):
    UTF-8 with a byte-order mark, so a spreadsheet shows the Chinese names, one row a team in rank
    order, the same figures as the board and ``event export --standings``."""
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\r\n")
    w.writerow([h for _, h in _STANDINGS_CSV])
    for row in hub().standings_json()["standings"]:
        w.writerow(["" if row.get(k) is None else row[k] for k, _ in _STANDINGS_CSV])
    return Response("\ufeff" + out.getvalue(), mimetype="text/csv",
                    headers={"Content-Disposition": "attachment; filename=standings.csv"})


@sheets_bp.get("/print/draw/<int:rnd>")
@hub_role("viewer")
def print_draw(rnd: int) -> Any:
    h = hub()
    with h.lock:
        d = h.core.draws.get(rnd)
        if d is None:
            abort(404, description=f"第 {rnd} 轮尚未编排 / round {rnd} has not been drawn")
        names = {t["id"]: t for t in h.core.cfg["teams"]}
        stale = h.core.stale_words(rnd)  # a draft drawn before a result changed: said on the sheet too
        # Round 1 says how it was drawn (a round 1 logged before the option: nothing said)
        first = FIRST_ROUND_WORDS.get(d.get("first_round") or "")
        # A no-show (forfeited the round before) passed over for the bye, or why it has it: the draw's own words
        note = bye_note(d.get("method") or "swiss", rnd, d.get("info") or {}, h.core.team_names())
        return render_template("hub_print_draw.html", ev=h.core.cfg["event"], rnd=rnd, draw=d, teams=names,
                               moved=moved_from(d),
                               sides=h.core.sheet_sides(rnd), byes=byes_of(d),
                               stale=f"{stale[0]} / {stale[1]}" if stale else None,
                               first_round=f"{first[0]} / {first[1]}" if first else None,
                               bye_note=f"{note[0]} / {note[1]}" if note else None)


@sheets_bp.get("/print/results/<int:rnd>")
@hub_role("viewer")
def print_results(rnd: int) -> Any:
    h = hub()
    with h.lock:
        d = h.core.draws.get(rnd)
        if d is None or not d["published"]:
            abort(404, description=f"第 {rnd} 轮没有公布的编排 / round {rnd} has no published draw")

        rows = []
        for t in d["tables"]:
            tr = h.core.results.get((rnd, t["table"]))
            rows.append({**t, "result": tr.line if tr else None, "source": tr.source if tr else None,
                         "t_ms": tr.t_ms if tr else None, "history": tr.history if tr else [],
                         "ldp": parse_result(tr.line, stored=True).level_points() if tr else None})
        # The standings after this round (a sheet printed later still shows that round's table); a round
        # not complete yet has none (the running total counted twice, as HubState.standings says): the
        # sheet says so and shows the standings after the last complete round before it.
        upto = rnd if h.core.round_complete(rnd) else min(rnd - 1, h.core.last_complete_round())
        st = compute_standings(h.core.result_objects(upto=upto), h.core.teams, scoring_of(h.core.cfg),
                               seed=h.core.cfg["event"]["seed"], recorded_lots=h.core.lots).to_json()
        sides = h.core.sheet_sides(rnd)
        names = h.core.team_names()  # then the names that round was published with:
        names.update({t[side.lower()]: sides[t["table"]][side]["name"] for t in d["tables"] for side in ("NS", "EW")})
        for row in st["standings"]:
            row["name"] = names.get(row["team"], row["team"])
            # 退赛 by the next round: not drawn after this one (its results stand)
            w = h.core.withdrawn.get(row["team"])
            row["withdrawn"] = w["from_round"] if w and w["from_round"] <= rnd + 1 else None
        return render_template("hub_print_results.html", ev=h.core.cfg["event"], rnd=rnd, rows=rows, draw=d,
                               byes=byes_of(d), sides=sides, moved=moved_from(d),
                               standings=st["standings"], standings_after=upto,
                               published=h.core.results_published.get(rnd))


def register_sheets(app: Flask) -> None:
    """Add the sheets' routes to the hub's app (:func:`~.web.create_hub_app`)."""
    app.register_blueprint(sheets_bp)
