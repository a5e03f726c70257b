"""What the camera reads with, noted in the table's event log (below the table service and the panel).

Why in the log: a ruling on a misread, or an appeal, needs to know which deck file the camera read a
play with (the hub's, one enrolled at the panel, none) and when it was recalibrated; kept only in
memory, it was gone after a restart. The note is a ``device_status_changed`` of the camera that keeps
its status and says what changed in ``detail`` (docs/events.md).
"""

from __future__ import annotations

from typing import Any

#: ``detail`` is text of at most this many characters (the event schema's bound).
DETAIL_MAX = 500


def camera_noted(state: dict[str, Any], detail: str) -> dict[str, Any]:
    """The event noting ``detail`` about the camera, its online/offline status as ``state`` has it."""
    status = (state.get("devices") or {}).get("camera")
    return {"type": "device_status_changed", "source": "system",
            "data": {"device": "camera", "status": status if status in ("online", "offline") else "online",
                     "detail": detail[:DETAIL_MAX]}}
