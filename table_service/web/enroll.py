"""The panel's "enrol the deck from the table" (issue #21 §2): the chief referee lays the deck face up
in rows, presses the button; the table's camera frame is searched for cards (``vision.enroll_table``),
the cards the reader is unsure of come back as questions with their picture, and "finish" enrols
the named faces into the running watcher (and saves them for the next start). The chief's, not a
table referee's: the deck is what every read of the table is made with.

The web knows a table by its runner; the service hangs its camera pipeline on it
(``runner.camera_pipeline``). A table without one answers 409.

    POST /api/tables/<t>/enroll/start        chief    {}            -> 202 (a frame is taken, cards found)
    GET  /api/tables/<t>/enroll              viewer                 -> {"status", "found", "named", "questions": [...]}
    GET  /api/tables/<t>/enroll/card/<i>.png viewer                 -> the card's picture
    POST /api/tables/<t>/enroll/answer       chief    {"id", "card"} ("card": null skips it)
    POST /api/tables/<t>/enroll/finish       chief    {}            -> 202 (enrolment runs; status "done" when saved)
    GET  /api/tables/<t>/enroll/deck.npz     chief                  -> the deck file the table reads with
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
from flask import Blueprint, Response, abort, jsonify, request, send_file

from table_service.engine.errors import halves
from table_service.views.camera_note import camera_noted

from .api import _json_body
from .auth import require_role
from .tables import get_table

log = logging.getLogger(__name__)

bp = Blueprint("enroll", __name__, url_prefix="/api/tables")


@dataclass
class _Session:
    """One enrolment at one table: the cards found, the answers given, where it stands."""

    status: str = "finding"  # finding | asking | enrolling | done | failed
    cards: list[Any] = field(default_factory=list)
    #: What the operator is told of cards touching or overlapping (none of them enrolled), or "".
    joined: str = ""
    error: str | None = None
    result: dict[str, Any] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)


_sessions: dict[str, _Session] = {}


def _pipeline(table_id: str) -> Any:
    pipe = getattr(get_table(table_id).runner, "camera_pipeline", None)
    if pipe is None or not callable(getattr(pipe, "latest_frame", None)):
        abort(409, description="此桌没有摄像头 / this table has no camera to enrol from")
    return pipe


def _session(table_id: str) -> _Session:
    get_table(table_id)
    s = _sessions.get(table_id)
    if s is None:
        abort(404, description="没有进行中的登记 / no enrolment started at this table")
    return s


def _find(table_id: str, s: _Session, pipe: Any) -> None:
    from vision.enroll_table import find_cards, joined_text  # lazy: vision loads OpenCV (cv2)

    try:
        health = pipe.health(with_deck=False) if callable(getattr(pipe, "health", None)) else {"state": "reading"}
        if health.get("state") not in ("reading", "lagging"):
            # The newest frame may be minutes old, or one the camera could not see: not a deck to enrol.
            # ``text`` is itself "中文 / English": each half goes to its own language's half.
            why_zh, why_en = halves(str(health.get("text")))
            raise ValueError(f"摄像头未在读牌，无法登记（{why_zh}） / the camera is not reading, cannot enrol: {why_en}")
        frame = pipe.latest_frame()
        if frame is None:
            raise ValueError("摄像头还没有画面 / no camera frame yet")
        watcher = pipe.watcher
        found = find_cards(frame, getattr(watcher, "layout", None), getattr(watcher, "lens", None))
        joined = joined_text([(0, p) for p in found.joined]) if found.joined else ""
        if not found.cards:
            raise ValueError("桌上没有找到牌 / no card found on the table: lay the deck face up in rows"
                             + (f" ({joined})" if joined else ""))
        with s.lock:
            s.cards, s.joined, s.status = found.cards, joined, "asking"
    except Exception as exc:  # shown to the referee; the table goes on
        log.warning("enrolment from the table failed: %s", exc)
        with s.lock:
            s.status, s.error = "failed", str(exc)


def _view(s: _Session) -> dict[str, Any]:
    with s.lock:
        return {"status": s.status, "error": s.error, "found": len(s.cards), "joined": s.joined,
                "named": sum(c.name is not None for c in s.cards),
                "questions": [{"id": i, "likely": c.likely, "answered": c.asked}
                              for i, c in enumerate(s.cards) if c.name is None or c.asked],
                "result": s.result}


@bp.post("/<table_id>/enroll/start")
@require_role("chief")
def start(table_id: str) -> Any:
    """Take the camera's newest frame and look for the cards laid out (in the background).

    ``{"discard": true}`` starts over while questions are being answered (the answers given are
    thrown away); without it that start is refused 409, ``"asking": true``."""
    pipe = _pipeline(table_id)
    body = _json_body() if request.get_data(cache=True) else {}
    unknown = sorted(set(body) - {"discard"})
    if unknown or not isinstance(body.get("discard", False), bool):
        abort(400, description='需要 {} 或 {"discard": true} / expected {} or {"discard": true}'
                               + (f"; unknown field(s): {', '.join(unknown)[:80]}" if unknown else ""))
    old = _sessions.get(table_id)
    if old is not None and old.status in ("finding", "enrolling"):
        abort(409, description="登记进行中 / an enrolment is already running")
    if old is not None and old.status == "asking" and not body.get("discard"):
        # A second start replaced the session and threw away every answer given, unasked.
        return jsonify(error="已有登记在问答中，答完或放弃后再开始 / an enrolment is waiting for answers: "
                             "finish or discard it first", status=409, asking=True), 409
    s = _sessions[table_id] = _Session()
    threading.Thread(target=_find, args=(table_id, s, pipe), name=f"enrol-{table_id}", daemon=True).start()
    return jsonify(_view(s)), 202


@bp.get("/<table_id>/enroll")
@require_role("viewer")
def status(table_id: str) -> Any:
    return jsonify(_view(_session(table_id)))


@bp.get("/<table_id>/enroll/deck.npz")
@require_role("chief")
def deck_file(table_id: str) -> Any:
    """The deck file this table reads with, to hand to every table from the hub's organiser page
    (比赛用牌): enrolled once at one table, given to all without a command line."""
    pipe = _pipeline(table_id)
    path = Path(getattr(pipe, "enrollment_path", None) or "")
    if not path.name or not path.is_file():
        abort(404, description="此桌没有登记的牌组 / this table reads with no enrolled deck")
    return send_file(path, mimetype="application/octet-stream", as_attachment=True,
                     download_name=f"deck-table-{table_id}.npz", max_age=0)


@bp.get("/<table_id>/enroll/card/<int:card_id>.png")
@require_role("viewer")
def picture(table_id: str, card_id: int) -> Any:
    s = _session(table_id)
    with s.lock:
        if not 0 <= card_id < len(s.cards):
            abort(404, description=f"没有这张牌：{card_id} / no card {card_id}")
        ok, png = cv2.imencode(".png", s.cards[card_id].zone)
    if not ok:
        abort(500, description="图像编码失败 / cannot encode the picture")
    return Response(png.tobytes(), mimetype="image/png", headers={"Cache-Control": "no-store"})


@bp.post("/<table_id>/enroll/answer")
@require_role("chief")
def answer(table_id: str) -> Any:
    """``{"id": n, "card": "Qh"}`` names card ``n``; ``"card": null`` leaves it to the zero-shot reader."""
    from vision.cards import check_card  # lazy: vision loads OpenCV (cv2)

    s = _session(table_id)
    # The API's own reader: a key given twice (``{"id": 0, "id": 7}`` named card 7, the last), bad
    # UTF-8 or a body nested too deep is a 400 naming it, as for every other action.
    body = _json_body()
    unknown = sorted(set(body) - {"id", "card"})
    # The skip is "card": null; a body without "card" is no answer (it was taken as a skip).
    if unknown or "card" not in body or isinstance(body.get("id"), bool) or not isinstance(body.get("id"), int) \
            or not isinstance(body.get("card"), str | None):
        abort(400, description='需要 {"id": 数字, "card": 牌名或 null} / expected {"id": int, "card": name or null}'
                               + (f"; unknown field(s): {', '.join(unknown)[:80]}" if unknown else ""))
    card = body.get("card")
    try:
        name = None if card is None else check_card(card if len(card) <= 8 else card[:8] + "…")
    except ValueError as exc:
        abort(400, description=str(exc))
    with s.lock:
        if s.status != "asking":
            abort(409, description="此时不能回答 / nothing to answer now")
        if not 0 <= body["id"] < len(s.cards):
            # An unknown card, as the picture route says it: not "nothing to answer now".
            abort(404, description=f"没有这张牌：{str(body['id'])[:24]} / no card {str(body['id'])[:24]}")
        c = s.cards[body["id"]]
        c.name, c.asked = name, True
    return jsonify(_view(s))


def _enrol(runner: Any, s: _Session, pipe: Any, out: Path) -> None:
    from vision.cardnet.enrol import enroll  # lazy: vision loads OpenCV (cv2)
    from vision.cardnet.fancheck import verdict  # lazy: vision loads OpenCV (cv2)
    from vision.enroll_table import TABLE_PPM, faces_of, self_check  # lazy: vision loads OpenCV (cv2)

    try:
        faces = faces_of(s.cards)
        if not faces:
            raise ValueError("没有可登记的牌面 / no named card to enrol")
        e = enroll(faces, px_per_mm=TABLE_PPM)
        check = self_check(s.cards, e)
        if not check.ok:
            raise ValueError(f"登记后读错 {check.wrong} 张自己的牌（{', '.join(check.wrong_cards)}），未启用"
                             f" / the enrolment misreads {check.wrong} of "
                             f"its own cards ({', '.join(check.wrong_cards)}): not used")
        out.parent.mkdir(parents=True, exist_ok=True)
        staged = out.with_name(out.name + ".enrolled")
        try:
            e.save(staged)  # whole on the card first: after the note it only has to be renamed
            # The note is in the log before the deck is used (the durability audit, finding 6): sent
            # without waiting, plays could be read with a deck the log did not name yet, or ever.
            res = runner.submit(camera_noted(runner.state(), f"读牌用本桌登记的牌组（{len(e.cards)} 张，{out}）"
                                                             " / reading with "
                                                             f"the deck enrolled at this table ({len(e.cards)} faces, "
                                                             f"{out})"), wait=True)
            if not res.accepted:
                raise ValueError(f"日志未能记下换用牌组（{res.error}），未启用"
                                 f" / the log did not keep the deck's note ({res.error}): "
                                 "not used")
            os.replace(staged, out)
        finally:
            staged.unlink(missing_ok=True)
        pipe.watcher.enrollment = e  # read with it from the next play on
        with s.lock:
            s.status = "done"
            warn, text = verdict(e.check)
            s.result = {"faces": len(faces), "enrolled": len(e.cards), "file": str(out),
                        "not_enrolled": e.not_enrolled,
                        "skipped": e.skipped, "check": e.check, "check_warn": warn, "check_text": text}
    except Exception as exc:
        log.warning("enrolment failed: %s", exc)
        with s.lock:
            s.status, s.error = "failed", str(exc)


@bp.post("/<table_id>/enroll/finish")
@require_role("chief")
def finish(table_id: str) -> Any:
    """Enrol the named faces (in the background: minutes on a Pi, as ``vision.cardnet.enrol.ENROL_ROWS`` says)."""
    s = _session(table_id)
    pipe = _pipeline(table_id)
    with s.lock:
        if s.status != "asking":
            abort(409, description="此时不能完成登记 / nothing to enrol now")
        s.status = "enrolling"
    out = Path(getattr(pipe, "enrollment_path", None) or "deck-enrollment.npz")
    threading.Thread(target=_enrol, args=(get_table(table_id).runner, s, pipe, out), name=f"enrol-fit-{table_id}",
                     daemon=True).start()
    return jsonify(_view(s)), 202
