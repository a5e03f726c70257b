"""The panel's "recalibrate camera" (issue #27): the referee presses it after the camera was moved,
refocused or the light changed for good. The table's camera pipeline then lets exposure, gain,
white balance and focus converge afresh, fits the table's corner markers again and locks the
controls once both are done (``CameraPipeline.recalibrate``). A change of the locked controls
between two recalibrations comes to the panel as a flag (``referee_called``) on its own.

    POST /api/tables/<t>/camera/recalibrate   referee  {}  -> 202 {"started": true}

A table without a camera answers 409.
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
    runner.submit(camera_noted(runner.state(), f"重新标定摄像头（{getattr(g.user, 'name', '?')}）/ camera recalibration "
                                               f"asked by {getattr(g.user, 'name', '?')}"), wait=False)
    again()
    return jsonify({"started": True}), 202
