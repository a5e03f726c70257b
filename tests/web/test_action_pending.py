"""An action the engine has not decided within the wait is answered "pending" (202), not 503: it is
still queued and will be applied; a retry carrying the same ``action_id`` is not a second action
(a warning retried after a 503 was given twice, and the second escalated to a violation)."""

from __future__ import annotations

import threading
import time

WARNING = {"type": "penalty_given", "data": {"side": "EW", "level": "warning", "article": "x", "seat": "E"}}


def _engine_busy_for(runner, seconds: float) -> None:
    """The engine thread is held on one event (a slow SD card's fsync, a long subscriber)."""
    busy = threading.Event()

    def slow(ev, _state):
        if ev["type"] == "device_status_changed" and not busy.is_set():
            busy.set()
            time.sleep(seconds)

    runner.subscribe(slow)
    runner.submit({"type": "device_status_changed", "source": "system",
                   "data": {"device": "camera", "status": "offline"}}, wait=False)
    assert busy.wait(5)


def _warnings(runner) -> int:
    return sum(1 for e in runner.events() if e["type"] == "penalty_given")


def test_an_action_still_queued_is_pending_and_its_retry_is_the_same_action(make_app, runner, h):
    h.setup_deal(runner)
    client = make_app(TABLES={"1": runner}, ACTION_WAIT_S=0.3).test_client()
    h.login(client, "rita")
    _engine_busy_for(runner, 1.5)
    body = {**WARNING, "action_id": "a1b2-c3"}
    first = h.post_json(client, "/api/tables/1/actions", body)
    assert first.status_code == 202 and first.get_json()["pending"] is True
    # Each half says all of it (the Chinese hint had landed in the English half).
    assert first.get_json()["error"] == ("仍在处理，结果未知；请查看事件列表后再决定是否重试 / still queued for the engine: "
                                         "outcome not known yet; look at the event list before trying again")
    h.wait_for(lambda: _warnings(runner) == 1)
    again = h.post_json(client, "/api/tables/1/actions", body)  # the referee retries
    assert again.status_code == 200 and again.get_json()["seq"] == next(
        e["seq"] for e in runner.events() if e["type"] == "penalty_given")
    assert _warnings(runner) == 1 and runner.state()["penalties"]["EW"]["warnings"] == 1


def test_an_action_id_must_be_a_short_token(client, runner, h):
    h.setup_deal(runner)
    h.login(client, "rita")
    for bad in ("", "x" * 65, "a b", 7, "汉字"):
        resp = h.post_json(client, "/api/tables/1/actions", {**WARNING, "action_id": bad})
        assert resp.status_code == 400 and "action_id" in resp.get_json()["error"]
    assert _warnings(runner) == 0
