"""What a panel tap expected of the table (``expect``, web/expect.py): a double tap or a second referee
does the thing once; the refusal is logged and said in words."""

from __future__ import annotations

import pytest

from table_service.web.expect import ExpectError, parse_expect


def _pass(client, h, seat, turn):
    return h.post_json(client, "/api/tables/1/actions",
                       {"type": "passed", "data": {"seat": seat}, "expect": {"turn": turn}})


def test_a_pass_entered_twice_is_done_once(client, h, runner):
    """Two referees (or a double tap) enter W's pass while the page shows W to act: the second is
    refused 409 and logged as rejected; no out-of-turn flag, one pass."""
    h.setup_deal(runner)
    lead = runner.state()["deal"]["turn"]
    runner.submit({"type": "cards_played", "source": "camera", "data": {"seat": lead, "cards": ["3s"]}})
    seat = runner.state()["deal"]["turn"]
    h.login(client, "rita")
    first = _pass(client, h, seat, seat)
    assert first.status_code == 200, first.get_json()
    second = _pass(client, h, seat, seat)
    body = second.get_json()
    assert second.status_code == 409 and body["stale"] is True and body["accepted"] is False
    assert body["error"].startswith("局面已变") and "moved on" in body["error"]
    passes = [p for p in runner.state()["deal"]["trick"]["plays"] if p.get("pass") and p["seat"] == seat]
    assert len(passes) == 1
    assert not [f for f in runner.state()["flags"] if f["rule"] == "out_of_turn"]
    assert runner.rejected()[-1]["seq"] == body["seq"]  # the refused tap is in the log


def test_a_play_out_of_turn_the_referee_saw_is_still_entered(client, h, runner):
    """``expect.turn`` is the turn the page showed, not the seat acting: a real out-of-turn play is
    entered (and flagged by the engine)."""
    h.setup_deal(runner)
    turn = runner.state()["deal"]["turn"]
    other = next(s for s in "ESWN" if s != turn)
    h.login(client, "rita")
    resp = h.post_json(client, "/api/tables/1/actions", {"type": "cards_played", "data": {"seat": other, "cards": ["9s"]},
                                                          "expect": {"turn": turn}})
    assert resp.status_code == 200, resp.get_json()
    assert [f["seat"] for f in runner.state()["flags"] if f["rule"] == "out_of_turn"] == [other]


def test_a_question_answered_twice_is_answered_once(client, h, runner):
    h.setup_deal(runner)
    seat = runner.state()["deal"]["turn"]
    read = runner.submit({"type": "cards_played", "source": "camera", "data": {
        "seat": seat, "cards": ["5c"], "uncertain": True, "confidence": [0.5]}}).seq
    h.login(client, "rita")
    ok = h.post_json(client, "/api/tables/1/actions", {"type": "play_confirmed", "data": {"ref": read},
                                                        "expect": {"question": read}})
    assert ok.status_code == 200, ok.get_json()
    late = h.post_json(client, "/api/tables/1/actions", {"type": "play_corrected", "data": {"ref": read, "cards": ["5s"]},
                                                          "expect": {"question": read}})
    assert late.status_code == 409 and "is not open" in late.get_json()["error"]
    assert f"识别存疑 #{read} 已不在待答之列" in late.get_json()["error"]  # the camera question's word (not 摄像头问题)
    play = [p for p in runner.state()["deal"]["trick"]["plays"] if p.get("seq") == read][0]
    assert play["cards"] == ["5c"]


@pytest.mark.parametrize("expect", [[], "N", {"turn": "X"}, {"question": -1}, {"question": True},
                                    {"question": "7"}, {"turn": "N", "when": 1}])
def test_a_malformed_expect_is_refused_before_the_engine(client, h, runner, expect):
    h.setup_deal(runner)
    h.login(client, "rita")
    before = h.logged_rows(runner)
    resp = h.post_json(client, "/api/tables/1/actions", {"type": "passed", "data": {"seat": "N"}, "expect": expect})
    assert resp.status_code == 400 and "expect" in resp.get_json()["error"]
    assert h.logged_rows(runner) == before
    with pytest.raises(ExpectError):
        parse_expect(expect)


def test_a_stale_tap_retried_after_a_restart_is_still_said_as_stale(tmp_path, h):
    """The runner remembers a refused tap's verdict over a restart (its id is logged); a refusal for a
    table that had moved on stays that (409 at the API, "not done" at the panel), not a plain refusal."""
    from table_service.table.runner import TableRunner
    from table_service.web.expect import parse_expect

    path = tmp_path / "t.sqlite3"
    with TableRunner(path) as r:
        h.setup_deal(r)
        first = r.submit({"type": "passed", "source": "panel", "role": "referee", "data": {"seat": "W"}},
                         key="rita:t1", precondition=parse_expect({"turn": "W"}))
        assert first.stale
    with TableRunner(path) as r:
        again = r.submit({"type": "passed", "source": "panel", "role": "referee", "data": {"seat": "W"}},
                         key="rita:t1", precondition=parse_expect({"turn": "W"}))
        assert again.stale and again.seq == first.seq


def test_an_action_id_reused_for_another_action_is_a_conflict(client, h, runner):
    """The probe: a play under action_id "abc", then a penalty under "abc" was answered 200
    "accepted" with the play's seq, and no penalty was given. Now 409, in words, nothing done."""
    h.setup_deal(runner)
    seat = runner.state()["deal"]["turn"]
    h.login(client, "chen")
    play = h.post_json(client, "/api/tables/1/actions", {"type": "cards_played", "data": {"seat": seat, "cards": ["3s"]},
                                                          "action_id": "abc", "expect": {"turn": seat}})
    assert play.status_code == 200, play.get_json()
    pen = h.post_json(client, "/api/tables/1/actions", {"type": "penalty_given", "action_id": "abc",
                                                         "data": {"side": "NS", "level": "warning", "article": "x"}})
    body = pen.get_json()
    assert pen.status_code == 409 and body["conflict"] is True and body["accepted"] is False
    assert "已用于另一操作" in body["error"] and "different action" in body["error"]
    assert runner.state()["penalties"]["records"] == []


def test_a_body_not_in_utf8_or_an_article_of_invisible_text_is_refused(client, h, runner):
    """The probe: a UTF-16 body was applied (docs/api.md says UTF-8 only), and a warning whose article
    was a zero-width space was logged with an article nobody can read on the score sheet."""
    h.setup_deal(runner)
    h.login(client, "rita")
    body = '{"type": "penalty_given", "data": {"side": "NS", "level": "warning", "article": "x"}}'.encode("utf-16")
    r = client.post("/api/tables/1/actions", data=body, content_type="application/json",
                    headers={"X-CSRF-Token": h.csrf_of(client)})
    assert r.status_code == 400 and "JSON" in r.get_json()["error"]
    for blank in ("\u200b", " \u3000 ", "\u200d\u2060"):
        r = h.post_json(client, "/api/tables/1/actions", {"type": "penalty_given", "data": {
            "side": "NS", "level": "warning", "article": blank}})
        assert r.status_code == 422 and "article" in r.get_json()["error"], blank
    assert runner.state()["penalties"]["records"] == []
