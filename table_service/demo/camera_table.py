"""A table of the event demo on the full camera path: the one-table demo's table, driven by the hub.

The event demo's other tables feed their bots' events straight to the engine (cheap, so many
tables fit on one machine). This one is :class:`~table_service.demo.table_demo.Demo` itself — the same
bots laying cards in a synthetic scene filmed from real card artwork, the same vision reader,
emulated screen controller, mock GPIO, ActorClock and demo referee — with two differences
that make it a table of the event: its MQTT bridge (the service's own, from ``[mqtt]``) talks
to the event's broker, and its rounds are not the bots' own but the hub's assignment, set up as
the panel's one-tap button does (:func:`~table_service.views.assignment.set_up_data`); when a
round ends the referee has both sides sign, and the bridge sends the result to the hub.
"""

from __future__ import annotations

import logging
from collections import Counter
from pathlib import Path
from typing import Any

from table_service.demo.options import DemoOptions
from table_service.demo.table_demo import Demo
from table_service.views.assignment import set_up_data, started

log = logging.getLogger(__name__)


def camera_counts(events: list[dict[str, Any]]) -> dict[str, int]:
    """How the table's plays reached its log: read by the camera without doubt, read by the
    camera and put to the referee as a question, or entered by hand at the panel (the camera
    called the referee, or saw nothing). Counted from the log, not from the bots' truth, so it
    says what the engine was told."""
    plays = [e for e in events if e["type"] == "cards_played"]
    answers = Counter(e["type"] for e in events if e["type"] in ("play_confirmed", "play_corrected"))
    camera = [e for e in plays if e.get("source") == "camera"]
    asked = sum(1 for e in camera if (e.get("data") or {}).get("uncertain"))
    return {"plays": len(plays), "camera_read": len(camera) - asked, "camera_asked": asked,
            "by_hand": len(plays) - len(camera), "confirmed": answers["play_confirmed"],
            "corrected": answers["play_corrected"]}


class CameraEventTable:
    """One table of the event demo played through the camera (see the module doc).

    Offers what the event demo asks of a table (``table_id``, ``runner``, ``bridge``,
    ``rounds_played``, ``errors``, ``start``/``stop``) like
    :class:`~table_service.demo.event_demo.BotEventTable`.

    :param options: the simulated table's options (``deals`` is ignored: the hub's rounds say how
        many deals are played).
    :param port: the event's broker (on this machine).
    """

    camera = True

    def __init__(self, table_id: str, data_dir: Path, *, port: int, options: DemoOptions,
                 design: str = "anglo", login: tuple[str, str] | None = None, feed_delay_s: float = 0.0) -> None:
        from dataclasses import replace

        self.table_id = table_id
        self.rounds_played: list[int] = []
        self._errors: list[str] = []
        # Headless: the event demo serves this table's panel in its own tables app (one login). The
        # hub's overview reads the table's undelayed summary whatever the broadcast delay.
        self.demo = Demo(replace(options, deals=None), str(data_dir), headless=True, port=0, design=design,
                         mqtt=f"127.0.0.1:{port}", feed_delay_s=feed_delay_s, table_id=table_id, mqtt_login=login,
                         next_round=self._next_round)

    # ------------------------------------------------------------------ what the event demo uses

    @property
    def runner(self) -> Any:
        return self.demo.service.runner

    @property
    def bridge(self) -> Any:
        return self.demo.service.mqtt

    @property
    def errors(self) -> list[str]:
        table = self.demo.table
        return list(self._errors) + [f"table {self.table_id}: {e}" for e in (table.errors if table else [])]

    def start(self) -> CameraEventTable:
        self.demo.start()
        return self

    def stop(self) -> None:
        self.demo.stop()

    # ----------------------------------------------------------------------------- the rounds

    def _next_round(self, st: dict[str, Any]) -> dict[str, Any] | None:
        """The bot driver asks between rounds: sign a finished round, then the hub's next one."""
        if st.get("result") is not None and st.get("round"):
            signed = st.get("signatures") or {}
            for side in ("NS", "EW"):
                if not signed.get(side):
                    res = self.demo.service.submit({"type": "score_sheet_signed", "source": "panel",
                                                    "role": "referee", "data": {"side": side}})
                    if not getattr(res, "accepted", False):
                        self._errors.append(f"table {self.table_id}: score_sheet_signed {side} refused: "
                                            f"{getattr(res, 'error', res)}")
                        return None
            no = int(st["round"].get("no") or 0)
            if no not in self.rounds_played:
                self.rounds_played.append(no)
        bridge = self.bridge
        a = bridge.assignment if bridge is not None else None
        if not a or started(st, a):
            return None
        return set_up_data(a)

    # ------------------------------------------------------------------------------ summary

    def summary(self) -> dict[str, Any]:
        """The camera's part of the event demo's summary: the log's counts (:func:`camera_counts`)
        and the one-table demo's scorecard against the bots' truth."""
        s = self.demo.summary()
        out: dict[str, Any] = {"table": self.table_id, **camera_counts(self.runner.events())}
        for k in ("read_right", "wrong_certain", "missing", "card_accuracy", "deals", "referee_entered",
                  "rejected_events", "frames", "renders", "clock_held_s"):
            out[k] = s.get(k)
        out["speed"] = self.demo.options.speed
        return out


def format_camera_summary(c: dict[str, Any]) -> str:
    """One line per camera table for the event demo's closing report."""
    return (f"  第 {c['table']} 桌（摄像头）出牌 {c['plays']}：摄像头读出 {c['camera_read']}，询问裁判 {c['camera_asked']}，"
            f"手工录入 {c['by_hand']}，无声读错 {c['wrong_certain']}（{c['deals']} 副，×{c['speed']:g}）"
            f" / table {c['table']} (camera) plays "
            f"{c['plays']}: read by the camera {c['camera_read']}, asked the referee {c['camera_asked']}, "
            f"entered by hand {c['by_hand']}, wrong without doubt {c['wrong_certain']} "
            f"({c['deals']} deals at ×{c['speed']:g})")
