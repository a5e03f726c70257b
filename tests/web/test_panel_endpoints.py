"""The panel's and the overlay's small endpoints: the table clock the countdowns run on, the
public clock of the delayed feed, the favicon, and the overlay's language by query."""

from __future__ import annotations

import time

import numpy as np

from table_service.table.question_evidence import candidate_readings, question_extra, rivals_from_reasons


def test_table_clock_is_the_runners_clock_now(client, h):
    h.login(client, "vera")
    before = time.time() * 1000
    j = client.get("/api/tables/1/clock").get_json()
    after = time.time() * 1000
    assert before - 5 <= j["now_ms"] <= after + 5 and j["speed"] == 1.0
    assert client.get("/api/tables/9/clock").status_code == 404


def test_table_clock_needs_a_login(client):
    assert client.get("/api/tables/1/clock").status_code in (302, 401)


def test_table_clock_runs_at_the_service_clocks_speed(make_app, runner, h):
    from table_service.table.clock import TableClock

    clock = TableClock(10.0)
    app = make_app(TABLES={"1": runner}, FEED_CLOCK=clock.now_ms)
    c = app.test_client()
    h.login(c, "vera")
    # The clock read before and after the request bounds the answer (at x10 a thread descheduled
    # for 20 ms moves the clock 200 ms: a fixed tolerance fails on a loaded machine).
    before = clock.now_ms()
    j = c.get("/api/tables/1/clock").get_json()
    after = clock.now_ms()
    assert j["speed"] == 10.0 and before <= j["now_ms"] <= after


def test_public_clock_is_now_minus_the_delay(make_app, runner, h):
    fake = h.FakeClockMs()
    app = make_app(TABLES={"1": runner}, FEED_DELAY_S=20.0, FEED_CLOCK=fake)
    j = app.test_client().get("/feed/1/clock.json").get_json()
    assert j == {"now_ms": fake() - 20_000, "speed": 1.0, "delay_s": 20.0}


def test_favicon_and_overlay_language(client):
    r = client.get("/favicon.ico")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml" and b"<svg" in r.data
    en = client.get("/feed/1/overlay?lang=en").get_data(as_text=True)
    zh = client.get("/feed/1/overlay").get_data(as_text=True)
    assert 'window.LANG = "en"' in en and '<html lang="en">' in en
    assert 'window.LANG = "zh"' in zh


def test_question_evidence_candidates_from_reasons_and_second_choices():
    assert rivals_from_reasons(["7h", "8s"], ["7h 花色存疑 / suit of 7h in doubt (7d?)"]) == {0: "7d"}
    assert rivals_from_reasons(["Qh"], ["Qh 角部像 Qd / the corner of Qh looks like Qd"]) == {0: "Qd"}
    assert candidate_readings(["7h", "8s"], [0.6, 0.9], ["7d", "8c"]) == [
        ["7h", "8s"], ["7d", "8s"], ["7h", "8c"], ["7d", "8c"]]

    class Obs:
        uncertain = True
        cards = ["7h"]
        confidence = [0.99]
        reasons = ["7h 花色存疑 / suit of 7h in doubt (7d?)"]
        alternatives = [None]
        crop = np.full((300, 800, 3), 40, dtype="uint8")

    extra = question_extra(Obs())
    assert extra["crop"].startswith("data:image/jpeg;base64,") and extra["candidates"] == [["7h"], ["7d"]]
    assert extra["reasons"] == Obs.reasons
    Obs.uncertain = False
    assert question_extra(Obs()) is None


def test_question_evidence_offers_the_readings_the_shape_made_likeliest():
    """A read weighed by its shape carries its likeliest readings: offered as they came (the read
    first), not the per-card swaps; a list that does not start with the read is not trusted."""

    class Obs:
        uncertain = True
        cards = ["3s", "4h", "3d", "6c", "7s"]
        confidence = [0.99, 0.99, 0.6, 0.99, 0.99]
        reasons = ["识别把握不足 / low confidence"]
        alternatives = [None, None, "8d", None, None]
        candidates = [["3s", "4h", "3d", "6c", "7s"], ["3s", "4h", "5d", "6c", "7s"], ["3s", "4h", "5h", "6c", "7s"]]
        crop = None

    assert question_extra(Obs())["candidates"] == Obs.candidates
    Obs.candidates = [["3s", "4h", "5d", "6c", "7s"], Obs.cards]
    assert question_extra(Obs())["candidates"] == [Obs.cards, ["3s", "4h", "8d", "6c", "7s"]]

    # Whatever a reader hands over, the question goes with card names only, each reading once.
    swapped = [Obs.cards, ["3s", "4h", "8d", "6c", "7s"]]
    for bad in (5, "abc", None, [Obs.cards, ["3s", 7, None, "6c", "7s"]], [Obs.cards, "3s4h3d6c7s"],
                [Obs.cards, {"a": 1}], [Obs.cards, Obs.cards]):
        Obs.candidates = bad
        assert question_extra(Obs())["candidates"] == swapped, bad
    Obs.candidates = [Obs.cards, Obs.cards, ["3s", "4h", "5d", "6c", "7s"], ["3s", "4h", "xx", "6c", "7s"]]
    assert question_extra(Obs())["candidates"] == [Obs.cards, ["3s", "4h", "5d", "6c", "7s"]]
