"""What the table's inputs become as engine events: a camera read, a camera sighting, a button.

Pure functions of the engine's state (no threads, no devices), so the service's wiring
(:mod:`table_service.table.service`), the demo's bots and the tests translate inputs one way.
"""

from __future__ import annotations

from typing import Any

from table_service.rules.cards import cards_zh

#: Button name -> engine event type.
BUTTON_EVENTS: dict[str, str] = {"report": "report_pressed", "pass": "passed", "referee": "referee_called"}


def camera_event(state: dict[str, Any], seat: str, cards: list[str], confidence: list[float] | None = None,
                 uncertain: bool = False, *, source: str = "camera", extra: dict[str, Any] | None = None
                 ) -> dict[str, Any] | None:
    """The engine event for cards seen settled in ``seat``'s play zone, given the table's phase.

    In the play phase it is ``cards_played`` (an uncertain read goes in as such: the engine opens
    a question instead of a play). In the tribute phase a single card in a payer's zone is the
    tribute, in the return phase a single card in a receiver's zone the return; an uncertain read
    of those cannot be a question (the engine asks only about plays), so it calls the referee with
    the camera's best reading (``card``) and its picture (``crop`` from ``extra``): the panel
    enters the card as read with one tap, or the referee picks another. More than one card where
    one is due calls the referee too (it used to mean nothing: no event at all).
    ``None`` when the cards mean nothing now (an empty zone, a seat owing nothing, cards between
    deals).
    """
    if not cards:
        return None
    deal = state.get("deal")
    phase = deal.get("phase") if deal else None
    data: dict[str, Any]
    if phase in ("tribute", "return"):
        plan = deal.get("tribute_plan") or {}
        if phase == "tribute":
            due = seat in (plan.get("payers") or []) and not any(t.get("from") == seat for t in deal.get("tributes") or [])
            etype, zh, en = "tribute_given", "进贡", "tribute"
        else:
            due = any(t.get("to") == seat for t in deal.get("tributes") or []) and not any(
                r.get("from") == seat for r in deal.get("returns") or [])
            etype, zh, en = "return_given", "还贡", "return"
        if not due:
            return None
        if len(cards) == 1 and not uncertain:
            return {"type": etype, "source": source, "data": {"seat": seat, "card": cards[0]}}
        # Doubted, or not one card where one is due: the referee looks (the camera's picture with
        # it); a single card read in doubt comes with the reading, for the panel's one-tap entry.
        if len(cards) == 1:
            called: dict[str, Any] = {"seat": seat, "card": cards[0],
                                      "reason": f"{zh}牌识别不确定：{cards_zh(cards)}？ / {en} card read uncertain: "
                                                f"{cards[0]}?"}
        else:
            called = {"seat": seat, "reason": f"{zh}区读到 {len(cards)} 张牌：{cards_zh(cards) or '无'} / {len(cards)} "
                                              f"cards read in the {en} zone: {' '.join(cards)}"}
        if extra and extra.get("crop"):
            called["crop"] = extra["crop"]
        return {"type": "referee_called", "source": source, "data": called}
    if phase != "play":
        return None
    data = {"seat": seat, "cards": list(cards)}
    if confidence is not None:
        data["confidence"] = [round(float(c), 4) for c in confidence]
    if uncertain:
        data["uncertain"] = True
    if extra:
        data.update(extra)
    return {"type": "cards_played", "source": source, "data": data}


def sighting_event(state: dict[str, Any], sighting: Any, zone_centres: dict[str, tuple[float, float]] | None = None
                   ) -> dict[str, Any] | None:
    """The engine event for one of the camera's other sightings, or None when it means nothing now.

    * an exposed card (``vision.watcher.ExposedCardSighting``: a card-sized paper at rest outside
      every play zone) -> ``card_exposed`` with ``position_mm`` and the ``seat`` whose play zone
      centre is nearest (``zone_centres``, table mm); the watcher does not read the card. Only
      while a deal is in progress (tribute, return or play), as the engine requires.
    * a hand or object over a zone too long (``HandInZoneSighting``) -> ``zone_obstructed``
      ``{seat, seconds}``, in the play phase only.
    * a bumped camera (``CameraMovedSighting``) -> ``referee_called`` (a flag) saying by how much
      and whether the zones followed; its device status is the camera pipeline's.
    * the camera's exposure, gain, white balance or focus changed after they were locked at
      calibration (``camera_pipeline.ControlsChangedSighting``) -> ``referee_called`` with what
      changed (the camera has locked them again; the referee may recalibrate from the panel).
    """
    deal = state.get("deal")
    phase = deal.get("phase") if deal else None
    if getattr(sighting, "kind", None) == "camera_moved":  # vision.watcher.CameraMovedSighting
        if state.get("round") is None:
            return None
        how = ("区域已重新标定 / zones recalibrated" if sighting.recalibrated
               else "读牌已停止 / reading stopped")
        return {"type": "referee_called", "source": "camera",
                "data": {"reason": f"摄像头被移动 {sighting.shift_mm:.0f} 毫米：{how.split(' / ')[0]} / camera moved "
                                   f"{sighting.shift_mm:.0f} mm: {how}"}}
    if getattr(sighting, "kind", None) == "camera_controls_changed":  # camera_pipeline.ControlsChangedSighting
        if state.get("round") is None:
            return None
        return {"type": "referee_called", "source": "camera", "data": {"reason": str(sighting.text)}}
    seat = getattr(sighting, "seat", None)
    seconds = getattr(sighting, "seconds", None)
    if seat is not None and seconds is not None:
        if phase != "play" or not float(seconds) > 0:
            return None
        return {"type": "zone_obstructed", "source": "camera",
                "data": {"seat": str(seat), "seconds": round(float(seconds), 1)}}
    pos = getattr(sighting, "position_mm", None)
    if pos is not None:
        if phase not in ("tribute", "return", "play") or state.get("round") is None:
            return None
        x, y = float(pos[0]), float(pos[1])
        data: dict[str, Any] = {"position_mm": [round(x, 1), round(y, 1)]}
        if zone_centres:
            data["seat"] = min(zone_centres, key=lambda s: (zone_centres[s][0] - x) ** 2 + (zone_centres[s][1] - y) ** 2)
        return {"type": "card_exposed", "source": "camera", "data": data}
    return None


def witnessed_t_ms(state: dict[str, Any], seat: str, placed_ms: int | None, now_ms: int) -> int | None:
    """The ``t_ms`` for a camera play of ``seat`` put down at ``placed_ms`` and read at ``now_ms``,
    or None for "now" (the runner's own stamp).

    Only a play put down by the seat's deadline and read after it is stamped back, and only to
    the deadline itself: the engine then counts it in time (``overtime_ms`` 0), and the next
    seat's clock, which starts at the play's time, loses no more than the read's lag past the
    deadline (bounded by the tick's hold). A play read in time, or put down late, is left alone.
    """
    if placed_ms is None:
        return None
    timer = (((state.get("deal") or {}).get("timers")) or {}).get(seat)
    if timer is None:
        return None
    deadline = int(timer["deadline_ms"])
    if placed_ms <= deadline < now_ms:
        return deadline
    return None
