"""The panel's "recalibrate camera" (issue #27): the referee presses it after the camera was moved,
refocused or the light changed for good. The table's camera pipeline then lets exposure, gain,
white balance and focus converge afresh, fits the table's corner markers again and locks the
controls once both are done (``CameraPipeline.recalibrate``). A change of the locked controls
between two recalibrations comes to the panel as a flag (``referee_called``) on its own.

    POST /api/tables/<t>/camera/recalibrate   referee  {}  -> 202 {"started": true}

And its "learn afresh" (重新学牌): a different deck was brought to the table, so what the reader
learned of the old one in play (kept over a restart too) would misread the new one; the reader
forgets it and learns the new deck from its next plays.

    POST /api/tables/<t>/camera/relearn       referee  {}  -> 200 {"forgot": {"answers": n, "sure": n, "faces": n}}

A table without a camera, or whose reader does not learn, answers 409.
"""

from __future__ import annotations

import logging
from typing import Any

from flask import Blueprint, abort, g, jsonify

from table_service.views.camera_note import camera_noted

from .auth import require_role
from .tables import get_table

log = logging.getLogger(__name__)

bp = Blueprint("camera", __name__, url_prefix="/api/tables")


@bp.post("/<table_id>/camera/recalibrate")
@require_role("referee")
def recalibrate(table_id: str) -> Any:
    pipe = getattr(get_table(table_id).runner, "camera_pipeline", None)
    again = getattr(pipe, "recalibrate", None)
    if not callable(again):
        abort(409, description="此桌没有摄像头 / this table has no camera to recalibrate")
    log.info("table %s: camera recalibration asked by %s", table_id, getattr(g.user, "name", "?"))
    runner = get_table(table_id).runner
    runner.submit(camera_noted(runner.state(), f"重新标定摄像头（{getattr(g.user, 'name', '?')}） / camera recalibration "
                                               f"asked by {getattr(g.user, 'name', '?')}"), wait=False)
    again()
    return jsonify({"started": True}), 202


@bp.post("/<table_id>/camera/relearn")
@require_role("referee")
def relearn(table_id: str) -> Any:
    runner = get_table(table_id).runner
    forget = getattr(getattr(runner, "camera_pipeline", None), "relearn", None)
    if not callable(forget):
        abort(409, description="此桌没有摄像头 / this table has no camera")
    forgot = forget()
    if forgot is None:
        abort(409, description="此桌摄像头不边打边学（[vision] learn = false） / this table's reader does not learn "
                               "in play ([vision] learn = false)")
    who = getattr(g.user, "name", "?")
    log.info("table %s: the reader's learning of the deck started afresh by %s (%s)", table_id, who, forgot)
    runner.submit(camera_noted(runner.state(), f"换牌，重新学牌（{who}，忘掉裁判答复 {forgot['answers']} 张） / a different "
                                               f"deck: learning started afresh by {who} ({forgot['answers']} answers "
                                               f"forgotten)"), wait=False)
    return jsonify({"forgot": forgot})
