"""A second enrolment start while questions are being answered threw every answer away unasked: it is
refused 409 unless it says ``{"discard": true}``; and an answer without ``"card"`` is a 400, not a skip
(the documented skip is ``"card": null``)."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np


def _asking(runner):
    from table_service.web import enroll as enroll_bp

    def frame():
        raise RuntimeError("no frame in this test")

    runner.camera_pipeline = SimpleNamespace(latest_frame=frame, enrollment_path="")
    card = SimpleNamespace(name=None, asked=False, likely=["Qh"], zone=np.zeros((4, 4, 3), np.uint8))
    s = enroll_bp._Session(status="asking", cards=[card])
    enroll_bp._sessions["1"] = s
    return enroll_bp, s, card


def test_a_second_start_keeps_the_answers_unless_told_to_discard(client, runner, h):
    enroll_bp, s, _card = _asking(runner)
    try:
        h.login(client, "chen")
        resp = h.post_json(client, "/api/tables/1/enroll/start", {})
        assert resp.status_code == 409, resp.get_json()
        assert resp.get_json()["asking"] is True and "finish or discard" in resp.get_json()["error"]
        assert "答完或放弃" in resp.get_json()["error"]
        assert enroll_bp._sessions["1"] is s
        assert h.post_json(client, "/api/tables/1/enroll/start", {"discard": "yes"}).status_code == 400
        assert h.post_json(client, "/api/tables/1/enroll/start", {"discard": True}).status_code == 202
        assert enroll_bp._sessions["1"] is not s
    finally:
        enroll_bp._sessions.pop("1", None)


def test_an_answer_without_card_is_400_not_a_skip(client, runner, h):
    enroll_bp, _s, card = _asking(runner)
    try:
        h.login(client, "chen")
        resp = h.post_json(client, "/api/tables/1/enroll/answer", {"id": 0})
        assert resp.status_code == 400 and not card.asked
        assert h.post_json(client, "/api/tables/1/enroll/answer", {"id": 0, "card": None}).status_code == 200
        assert card.asked and card.name is None
    finally:
        enroll_bp._sessions.pop("1", None)
