"""The hub without MQTT: organiser actions, deadlines, refusals, replay, and its pages."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import EventInputError


class Clock:
    def __init__(self) -> None:
        self.now = 1_795_000_000_000

    def __call__(self) -> int:
        return self.now

    def minutes(self, m: float) -> None:
        self.now += int(m * 60_000)


def event_cfg(n: int = 8, rounds: int = 3, **ev: Any) -> dict[str, Any]:
    return validate({"event": {"id": "t1", "name": "测试赛", "rounds": rounds, "seed": 3, **ev},
                     "teams": [{"id": f"T{i}", "players": [f"p{i}a", f"p{i}b"]} for i in range(1, n + 1)]})


def line_for(t: dict[str, Any], rnd: int, a: int, b: int) -> dict[str, Any]:
    return {"round": rnd, "table": t["table"], "ns": t["ns"], "ew": t["ew"], "ns_levels": a, "ew_levels": b}


def play_round(hub: HubService, rnd: int) -> None:
    hub.draw_next("org", "referee")
    hub.publish_draw(rnd, "org", "referee")
    for i, t in enumerate(hub.core.draws[rnd]["tables"]):
        hub.hand_result(line_for(t, rnd, (i * 5 + rnd) % 14, (i * 3 + 2 * rnd) % 14), "org", "referee")


def test_rounds_replay_to_the_same_standings(tmp_path: Path) -> None:
    clock = Clock()
    hub = HubService(event_cfg(), tmp_path, clock_ms=clock, connect=False)
    for rnd in (1, 2, 3):
        play_round(hub, rnd)
        hub.publish_results(rnd, "org", "referee")
    before = hub.standings_json()
    exported = hub.export_results()
    hub.stop()
    again = HubService(event_cfg(), tmp_path, clock_ms=clock, connect=False)
    assert again.standings_json() == before
    assert again.export_results() == exported
    # No rematch over three Swiss rounds of eight teams.
    pairs = [frozenset((t["ns"], t["ew"])) for d in again.core.draws.values() for t in d["tables"]]
    assert len(pairs) == len(set(pairs)) == 12
    with pytest.raises(EventInputError, match="all 3 rounds"):
        again.draw_next("org", "referee")


def test_published_draw_is_final_and_corrections_never_change_it(tmp_path: Path) -> None:
    clock = Clock()
    hub = HubService(event_cfg(), tmp_path, clock_ms=clock, connect=False)
    play_round(hub, 1)
    draw = json.dumps(hub.core.draws[1], sort_keys=True)
    with pytest.raises(EventInputError, match="final"):
        hub.publish_draw(1, "org", "referee")
    t = hub.core.draws[1]["tables"][0]
    bad = {**line_for(t, 1, 3, 3), "ns": t["ew"], "ew": t["ns"]}
    with pytest.raises(EventInputError, match="cannot change"):
        hub.correct(1, t["table"], bad, "swap", "org", "referee")
    clock.minutes(5)
    ev = hub.correct(1, t["table"], line_for(t, 1, 13, 0), "录入错误 / typo", "org", "referee")
    assert ev["data"]["late"] is False and ev["data"]["kind"] == "entry"
    assert json.dumps(hub.core.draws[1], sort_keys=True) == draw
    res = hub.core.results[(1, t["table"])]
    assert res.source == "correction" and [h["source"] for h in res.history] == ["hand", "correction"]


def test_deadlines_need_the_chief_referee_when_late(tmp_path: Path) -> None:
    clock = Clock()
    hub = HubService(event_cfg(), tmp_path, clock_ms=clock, connect=False)
    play_round(hub, 1)
    t = hub.core.draws[1]["tables"][1]
    clock.minutes(11)
    with pytest.raises(EventInputError, match="10-minute"):
        hub.correct(1, t["table"], line_for(t, 1, 1, 0), "late typo", "rita", "referee")
    ev = hub.correct(1, t["table"], line_for(t, 1, 1, 0), "late typo", "chen", "chief")
    assert ev["data"]["late"] is True
    hub.publish_results(1, "org", "referee")
    clock.minutes(19)
    assert hub.correct(1, t["table"], line_for(t, 1, 2, 0), "published typo", "rita", "referee")["data"]["kind"] \
        == "published"
    clock.minutes(2)
    with pytest.raises(EventInputError, match="20-minute"):
        hub.correct(1, t["table"], line_for(t, 1, 3, 0), "too late", "rita", "referee")
    # Appeals: 30 minutes after the table's round; later only the chief referee.
    with pytest.raises(EventInputError, match="30-minute"):
        hub.file_appeal(1, t["table"], t["ns"], "申诉理由", "rita", "referee")
    ap = hub.file_appeal(1, t["table"], t["ns"], "申诉理由", "chen", "chief")
    assert ap["data"]["late"] is True
    with pytest.raises(EventInputError, match="chief"):
        hub.decide_appeal(1, "dismissed", "", "rita", "referee")
    hub.decide_appeal(1, "dismissed", "规则适用正确", "chen", "chief")
    with pytest.raises(EventInputError, match="final"):
        hub.decide_appeal(1, "upheld", "", "chen", "chief")


def test_next_round_waits_for_every_result_and_viewer_cannot_act(tmp_path: Path) -> None:
    hub = HubService(event_cfg(n=5), tmp_path, connect=False)
    with pytest.raises(EventInputError, match="referee"):
        hub.draw_next("vera", "viewer")
    hub.draw_next("org", "referee")
    hub.draw_next("org", "referee")  # a draft may be drawn again
    hub.publish_draw(1, "org", "referee")
    assert hub.core.draws[1]["bye"] is not None
    with pytest.raises(EventInputError, match="lacks"):
        hub.draw_next("org", "referee")
    t = hub.core.draws[1]["tables"][0]
    hub.hand_result(line_for(t, 1, 5, 2), "org", "referee")
    with pytest.raises(EventInputError, match="already has"):
        hub.hand_result(line_for(t, 1, 5, 2), "org", "referee")


def test_table_messages_dedupe_and_refuse(tmp_path: Path) -> None:
    hub = HubService(event_cfg(), tmp_path, connect=False)
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    t = hub.core.draws[1]["tables"][0]
    msg = json.dumps({"result_id": "r1-s90", "result": line_for(t, 1, 9, 4), "wall_ms": 1}).encode()
    hub.handle_batch([(t["table"], "result", msg, False), (t["table"], "result", msg, True)])
    hub.handle_batch([(t["table"], "result", msg, False)])
    assert hub.core.results[(1, t["table"])].source == "table" and hub.duplicates == 2
    other = json.dumps({"result_id": "r2-s5", "result": line_for(t, 2, 9, 4)}).encode()
    hub.handle_batch([(t["table"], "result", other, False), (t["table"], "result", other, False)])
    assert len(hub.core.refusals) == 1 and "round 2" in hub.core.refusals[0]["reason"]
    stray = json.dumps({"result_id": "x", "result": {**line_for(t, 1, 1, 1), "table": "99"}}).encode()
    hub.handle_batch([("99", "result", stray, False)])
    assert "not drawn" in hub.core.refusals[-1]["reason"]
    ov = hub.overview()
    assert len(ov["refusals"]) == 2
    hub.acknowledge_refusal(ov["refusals"][0]["seq"], "chen", "chief")
    assert len(hub.overview()["refusals"]) == 1


def _refused(t: dict[str, Any], rid: str, rnd: int = 2) -> bytes:
    """A well-formed result the hub refuses (``rnd`` has no published draw)."""
    return json.dumps({"result_id": rid, "result": line_for(t, rnd, 3, 1)}).encode()


def test_an_open_refusal_is_never_pushed_off_the_chiefs_list(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One table's credential sending more bad results than the hub keeps once pushed another
    table's open refusal off the chief referee's list: it could no longer be seen nor cleared."""
    import table_service.event.state as core

    monkeypatch.setattr(core, "MAX_REFUSALS_KEPT", 5)  # the same rule as 500, with a test-sized flood
    monkeypatch.setattr("table_service.event.table_messages.MAX_OPEN_REFUSALS_PER_TABLE", 100)  # listed, all 20
    hub = HubService(event_cfg(), tmp_path, connect=False)
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    victim, spammer = hub.core.draws[1]["tables"][:2]
    swapped = json.dumps({"result_id": "r1-s77", "result": {**line_for(victim, 1, 4, 0), "ns": victim["ew"],
                                                            "ew": victim["ns"]}}).encode()
    hub.handle_batch([(victim["table"], "result", swapped, True)])
    open_seq = next(r["seq"] for r in hub.overview()["refusals"] if r["table"] == victim["table"])
    hub.handle_batch([(spammer["table"], "result", _refused(spammer, f"spam{i}"), False) for i in range(20)])
    ov = hub.overview()
    assert [r["seq"] for r in ov["refusals"] if r["table"] == victim["table"]] == [open_seq]
    assert len(ov["refusals"]) == 21 and ov["faults"] == {victim["table"]: 1, spammer["table"]: 20}
    hub.acknowledge_refusal(open_seq, "chen", "chief")  # still there to be cleared
    assert not [r for r in hub.overview()["refusals"] if r["table"] == victim["table"]]
    # Cleared, it is no longer the table's fault on the overview (its tile stayed yellow all event).
    assert hub.overview()["faults"][victim["table"]] == 0
    with pytest.raises(EventInputError, match="no open refusal"):
        hub.acknowledge_refusal(open_seq, "chen", "chief")  # cleared twice: refused, counted off once
    assert hub.overview()["faults"][victim["table"]] == 0 and hub.core.faults[spammer["table"]] == 20
    # Cleared refusals are what the hub may forget (the log keeps them): at most MAX_REFUSALS_KEPT.
    for r in hub.overview()["refusals"]:
        hub.acknowledge_refusal(r["seq"], "chen", "chief")
    assert len(hub.core.refusals) == 5 and all(r["acknowledged"] for r in hub.core.refusals)
    hub.stop()
    again = HubService(event_cfg(), tmp_path, connect=False)
    assert len(again.core.refusals) == 5 and again.core.faults == hub.core.faults


def test_a_redelivered_refused_result_is_one_fault_however_many_came_since(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The duplicate check looked only at the refusals kept in memory: after that many others, the
    same retained message (redelivered on every hub reconnect) was logged and counted again."""
    import table_service.event.state as core

    monkeypatch.setattr(core, "MAX_REFUSALS_KEPT", 5)
    hub = HubService(event_cfg(), tmp_path, connect=False)
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    t, other = hub.core.draws[1]["tables"][:2]
    retained = (t["table"], "result", _refused(t, "r2-s99"), True)
    hub.handle_batch([retained])
    hub.handle_batch([(other["table"], "result", _refused(other, f"x{i}"), False) for i in range(20)])
    for r in hub.overview()["refusals"]:  # cleared refusals may leave memory, never the duplicate check
        hub.acknowledge_refusal(r["seq"], "chen", "chief")
    seq = hub.core.last_seq
    assert hub.core.faults[t["table"]] == 0  # cleared
    hub.handle_batch([retained])
    assert hub.core.last_seq == seq and hub.core.faults[t["table"]] == 0  # not logged nor counted again
    hub.stop()
    again = HubService(event_cfg(), tmp_path, connect=False)  # and after a restart
    again.handle_batch([retained])
    assert again.core.last_seq == seq and again.core.faults[t["table"]] == 0


def test_an_import_is_logged_whole_or_not_at_all(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each imported line was its own transaction: a hub killed after two of four lines kept two,
    and importing the same file again was refused at its first line."""
    from table_service.event.store import HubStore

    hub = HubService(event_cfg(), tmp_path, connect=False)
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    text = "\n".join(json.dumps(line_for(t, 1, 5, 2)) for t in hub.core.draws[1]["tables"]) + "\n"
    real_append = HubStore.append
    appended: list[str] = []

    def dies_on_the_third(self: HubStore, etype: str, data: dict[str, Any], **kw: Any) -> dict[str, Any]:
        if etype == "result_recorded" and len(appended) == 2:
            raise KeyboardInterrupt("the hub is stopped half-way through the import")
        appended.append(etype)
        return real_append(self, etype, data, **kw)

    monkeypatch.setattr(HubStore, "append", dies_on_the_third)
    with pytest.raises(KeyboardInterrupt):
        hub.import_results(text, "rita", "referee")
    monkeypatch.undo()
    assert appended == ["result_recorded"] * 2 and not hub.core.results
    hub.stop()
    again = HubService(event_cfg(), tmp_path, connect=False)
    assert not again.core.results, "nothing of the interrupted import is in the log"
    assert again.import_results(text, "rita", "referee") == (4, 0)  # imported, skipped as already recorded
    assert all(tr.source == "hand" and tr.by == "rita" for tr in again.core.results.values())
    ids = [tr.result_id for tr in again.core.results.values()]
    assert len(set(ids)) == 4
    again.stop()
    assert HubService(event_cfg(), tmp_path, connect=False).core.results.keys() == again.core.results.keys()


def test_an_import_names_the_line_it_refuses_and_logs_nothing(tmp_path: Path) -> None:
    hub = HubService(event_cfg(), tmp_path, connect=False)
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    ts = sorted(hub.core.draws[1]["tables"], key=lambda t: t["table"])
    bad = {**line_for(ts[0], 1, 5, 2), "ns": ts[0]["ew"], "ew": ts[0]["ns"]}  # sides swapped
    text = "\n".join([json.dumps(line_for(ts[1], 1, 5, 2)), "", json.dumps(bad)]) + "\n"
    seq = hub.core.last_seq
    with pytest.raises(EventInputError, match="line 3: .*teams do not match") as refused:
        hub.import_results(text, "rita", "referee")
    # Each half whole: it read "import 第 3 行 line 3: <the whole bilingual reason>", then "…：第 3 行：
    # 队伍与编排不符… / teams do not match…", each line's two languages between the halves' heads.
    zh, _, en = str(refused.value).partition(" / ")
    assert "第 3 行：队伍与编排不符" in zh and "teams" not in zh
    assert en.startswith("nothing imported") and "line 3: teams do not match" in en and "队伍" not in en
    assert hub.core.last_seq == seq and not hub.core.results
    with pytest.raises(EventInputError, match="requires role referee"):
        hub.import_results(json.dumps(line_for(ts[1], 1, 5, 2)), "vera", "viewer")
    assert hub.core.last_seq == seq


def _hub_log(tmp_path: Path) -> Path:
    """A hub's folder whose log spans several pages, closed."""
    hub = HubService(event_cfg(), tmp_path, connect=False)
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    with hub.store.transaction():
        for i in range(300):
            hub.edit_team("T1", f"name{i}", ["a" * 30, "b" * 30], "org", "referee")
    hub.stop()
    return tmp_path / "hub-events.sqlite3"


def test_a_hub_log_of_a_newer_version_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    """The hub stamped schema 1 on any log: one written by a newer version was read as if it were
    its own and re-stamped."""
    import sqlite3

    from table_service.event.store import HubStore, HubStoreError

    db = _hub_log(tmp_path)
    c = sqlite3.connect(db)
    c.execute("PRAGMA user_version = 2")
    c.close()
    before = db.read_bytes()
    for open_it in (lambda: HubService(event_cfg(), tmp_path, connect=False), lambda: HubStore(db, readonly=True)):
        with pytest.raises(HubStoreError, match=r"newer than this program's 1") as exc:
            open_it()
        assert str(db) in str(exc.value) and "版本过新" in str(exc.value)
    assert db.read_bytes() == before
    c = sqlite3.connect(db)
    assert c.execute("PRAGMA user_version").fetchone()[0] == 2
    c.close()


def test_a_damaged_hub_log_is_refused_by_the_hub_and_by_export(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A damaged page gave "internal error (DatabaseError …)" from the hub and "not a hub event
    log" from ``event export``."""
    from table_service.cli import main
    from table_service.event.store import HubStoreError

    db = _hub_log(tmp_path)
    raw = bytearray(db.read_bytes())
    assert len(raw) > 4 * 4096 and not db.with_name(db.name + "-wal").exists()
    raw[3 * 4096:3 * 4096 + 200] = b"\x55" * 200
    db.write_bytes(bytes(raw))
    with pytest.raises(HubStoreError, match="is damaged") as exc:
        HubService(event_cfg(), tmp_path, connect=False)
    assert str(db) in str(exc.value) and "损坏" in str(exc.value)
    assert db.read_bytes() == bytes(raw), "nothing is written to a damaged log"
    assert main(["event", "export", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "is damaged" in err and str(db) in err and "not a hub event log" not in err


def test_another_events_folder_is_refused_once_drawn(tmp_path: Path) -> None:
    """EVENT.toml of event "y" over the folder of event "x" after its first draw: refused in words
    (it served x's draws under y's name); before the first draw the file may still change, id and all."""
    hub = HubService(event_cfg(id="x"), tmp_path, connect=False)
    hub.stop()
    renamed = HubService(event_cfg(id="x2"), tmp_path, connect=False)  # no draw yet: the file wins
    assert renamed.event_id == "x2"
    renamed.draw_next("org", "referee")
    renamed.stop()
    with pytest.raises(ValueError, match="holds event 'x2'.*EVENT.toml is event 'y'"):
        HubService(event_cfg(id="y"), tmp_path, connect=False)
    again = HubService(event_cfg(id="x2"), tmp_path, connect=False)
    assert again.event_id == "x2" and again.core.draws


@pytest.mark.parametrize("text", ["", "   \n\n"])
def test_an_empty_import_is_refused_not_zero_imported(tmp_path: Path, text: str) -> None:
    hub = HubService(event_cfg(), tmp_path, connect=False)
    before = hub.core.last_seq
    with pytest.raises(EventInputError, match="nothing to import"):
        hub.import_results(text, "rita", "referee")
    assert hub.core.last_seq == before


def test_the_hub_banner_says_where_its_logins_live_and_how_to_make_the_first(tmp_path: Path) -> None:
    """``user add`` without ``--db`` wrote the table's database, and the organiser's hub login failed."""
    from table_service.event.hub_command import _accounts_hint
    from table_service.web import users

    db = tmp_path / "hub" / "web-users.sqlite3"
    db.parent.mkdir()
    first = _accounts_hint(db)
    assert str(db) in first and f"user add NAME --role chief --db {db}" in first and first.startswith("账号")
    conn = users.connect(db)
    users.add_user(conn, "chen", "correct-horse-9", "chief")
    conn.close()
    assert "(1)" in _accounts_hint(db) and "/accounts/" in _accounts_hint(db)


def test_a_bad_message_leaves_the_overview_after_half_an_hour(tmp_path: Path) -> None:
    """An ill-formed message asks for no action (the table's fault count stays on its card): shown on the
    chief's overview for 30 minutes, it no longer stays at the top all day."""
    clock = Clock()
    hub = HubService(event_cfg(), tmp_path, clock_ms=clock, connect=False)
    hub.handle_batch([("1", "result", b"{not json", False)])
    assert [m["table"] for m in hub.overview()["bad_messages"]] == ["1"]
    clock.minutes(31)
    ov = hub.overview()
    assert ov["bad_messages"] == [] and ov["faults"] == {"1": 1} and len(hub.core.bad_messages) == 1
    hub.stop()


def test_a_table_s_result_is_public_only_once_its_delayed_broadcast_has_shown_it(tmp_path: Path) -> None:
    """The hall's board, the overlay and the public standings told who won while the table's own
    broadcast (60 s behind) still showed the last deal being played. A table's result now goes
    public its ``feed_delay_s`` after it arrived; the organiser's views see it at once."""
    from table_service.event.web import create_hub_app

    clock = Clock()
    hub = HubService(event_cfg(n=4, rounds=2), tmp_path, clock_ms=clock, connect=False)
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    tables = hub.core.draws[1]["tables"]
    hub.hand_result(line_for(tables[0], 1, 3, 1), "org", "referee")  # entered by hand: public at once
    msg = json.dumps({"result_id": "r1-s90", "result": line_for(tables[1], 1, 9, 4), "wall_ms": clock.now,
                      "feed_delay_s": 60}).encode()
    hub.handle_batch([(tables[1]["table"], "result", msg, False)])
    assert hub.core.round_complete(1)
    board = create_hub_app(hub, users_db=str(tmp_path / "users.sqlite3")).test_client()

    def shown() -> dict[str, Any]:
        return {t["table"]: t["result"] for t in board.get("/hub/api/board").get_json()["tables"]}

    # Nothing of the round before the chief publishes its results (公布成绩): the hand entry is
    # "finished", its score held back.
    assert shown() == {tables[0]["table"]: None, tables[1]["table"]: None}
    assert [t["finished"] for t in board.get("/hub/api/board").get_json()["tables"]] == [True, False]
    hub.publish_results(1, "org", "referee")
    assert shown()[tables[0]["table"]] is not None and shown()[tables[1]["table"]] is None
    assert board.get("/hub/api/standings").get_json()["rounds"] == 0  # no standings after round 1 yet
    assert hub.standings_json()["rounds"] == 1  # the organiser's own view has it
    clock.now += 59_000
    assert shown()[tables[1]["table"]] is None
    clock.now += 1_000
    assert shown()[tables[1]["table"]] is not None
    assert board.get("/hub/api/standings").get_json() == hub.standings_json()
    hub.stop()
    again = HubService(event_cfg(n=4, rounds=2), tmp_path, clock_ms=clock, connect=False)  # from the log
    assert again.core.results[(1, tables[1]["table"])].public_ms == clock.now
    again.stop()


def test_an_earlier_round_s_hidden_result_keeps_the_public_standings_back(tmp_path: Path) -> None:
    """Round 1's table under an hour's delay was on the public standings once round 2, played without
    one, was all public: every round up to the one shown must be public (the audit of 2026-12-06)."""
    clock = Clock()
    hub = HubService(event_cfg(n=4, rounds=3), tmp_path, clock_ms=clock, connect=False)
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    late, other = hub.core.draws[1]["tables"]
    msg = json.dumps({"result_id": "r1-late", "result": line_for(late, 1, 9, 0), "wall_ms": clock.now,
                      "feed_delay_s": 3600}).encode()
    hub.handle_batch([(late["table"], "result", msg, False)])
    hub.hand_result(line_for(other, 1, 1, 0), "org", "referee")
    hub.publish_results(1, "org", "referee")
    clock.minutes(5)
    hub.draw_next("org", "referee")
    hub.publish_draw(2, "org", "referee")
    for t in hub.core.draws[2]["tables"]:
        hub.hand_result(line_for(t, 2, 2, 0), "org", "referee")
    hub.publish_results(2, "org", "referee")
    clock.minutes(5)
    assert hub.core.last_complete_round() == 2 and hub.core.public_round(clock.now) == 0
    assert hub.standings_json(public=True)["rounds"] == 0 and hub.standings_json()["rounds"] == 2
    clock.minutes(55)
    assert hub.core.public_round(clock.now) == 2
    hub.stop()


@pytest.mark.parametrize("delay", [-1, 3601, "60", True, None])
def test_a_result_with_a_bad_feed_delay_is_refused(tmp_path: Path, delay: Any) -> None:
    hub = HubService(event_cfg(n=4, rounds=2), tmp_path, connect=False)
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    t = hub.core.draws[1]["tables"][0]
    msg = json.dumps({"result_id": "r1-s9", "result": line_for(t, 1, 9, 4), "feed_delay_s": delay}).encode()
    hub.handle_batch([(t["table"], "result", msg, False)])
    if delay is None:  # null: as absent
        assert (1, t["table"]) in hub.core.results
    else:
        assert (1, t["table"]) not in hub.core.results
    hub.stop()


def test_a_penalty_score_an_earlier_hub_logged_still_ranks_and_prints(tmp_path: Path) -> None:
    """The review: the stricter penalty-loss check was also applied to lines read back from the log,
    so a hub upgraded mid-event, whose log held a 17 : 9 an earlier release took (the winner 7 levels
    up: the rules give 20 : 6), could not rank, show the board or print. Logged lines are read as logged;
    new ones are held to the rules."""
    from table_service.event.web import create_hub_app

    clock = Clock()
    hub = HubService(event_cfg(n=4, rounds=2), tmp_path, clock_ms=clock, connect=False)
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    ts = hub.core.draws[1]["tables"]
    old = {**line_for(ts[0], 1, 9, 2), "ns_score": 17, "ew_score": 9}
    hub.store.append("result_recorded", {"result": old, "source": "hand", "result_id": "hand-9"},
                     t_ms=clock.now, actor="org", role="referee")  # as a hub of an earlier release logged it
    hub.stop()
    again = HubService(event_cfg(n=4, rounds=2), tmp_path, clock_ms=clock, connect=False)
    with pytest.raises(EventInputError, match="penalty loss"):
        again.hand_result({**line_for(ts[1], 1, 9, 2), "ns_score": 17, "ew_score": 9}, "org", "referee")
    again.hand_result(line_for(ts[1], 1, 3, 1), "org", "referee")
    rows = {r["team"]: r for r in again.standings_json()["standings"]}
    assert rows[ts[0]["ns"]]["level_points"] == 17 and rows[ts[0]["ew"]]["level_points"] == 9
    users_db = str(tmp_path / "users.sqlite3")
    assert create_hub_app(again, users_db=users_db).test_client().get("/hub/api/board").status_code == 200
    again.stop()


def test_a_table_both_of_whose_teams_are_absent_is_entered_and_the_event_goes_on(tmp_path: Path) -> None:
    """Both sides over 10 minutes late: only "ns" or "ew" could forfeit, so the table never had a result
    and the next round could not be drawn (the standings audit of 2026-12-06). Both forfeit: 0 : 0,
    no match points and no round won to either, in the standings and in words on the sheet."""
    from table_service.event.refusal_words import score_words

    hub = HubService(event_cfg(n=4, rounds=2), tmp_path, connect=False)
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    absent, played = hub.core.draws[1]["tables"]
    line = {"round": 1, "table": absent["table"], "ns": absent["ns"], "ew": absent["ew"], "forfeit": "both"}
    hub.hand_result(line, "org", "referee")
    hub.hand_result(line_for(played, 1, 5, 2), "org", "referee")
    assert hub.core.round_complete(1)
    rows = {r["team"]: r for r in hub.standings_json()["standings"]}
    for team in (absent["ns"], absent["ew"]):
        assert (rows[team]["match_points"], rows[team]["level_points"]) == (0, 0), rows[team]
    assert rows[played["ns"]]["match_points"] == 2
    assert "双方弃权" in score_words(line)[0] and "both sides forfeit" in score_words(line)[1]
    hub.draw_next("org", "referee")  # the event goes on
    assert 2 in hub.core.draws
    hub.stop()


def _round_entered(hub: HubService, rnd: int) -> None:
    """Round ``rnd`` drawn, published and every table's result entered by hand (3 : 1), not published."""
    hub.draw_next("org", "referee")
    hub.publish_draw(rnd, "org", "referee")
    for t in hub.core.draws[rnd]["tables"]:
        hub.hand_result(line_for(t, rnd, 3, 1), "org", "referee")


def test_the_public_standings_wait_for_the_chief_to_publish_the_round(tmp_path: Path) -> None:
    """The board showed "after round 4" and every table's score while the chief had published rounds
    1-3 only (the usability walk of 2026-12-06): a hand entry or an appeal under review reached the
    hall. The public standings now stop at the last round published, the organiser's do not."""
    hub = HubService(event_cfg(n=4, rounds=3), tmp_path, connect=False)
    for rnd in (1, 2):
        _round_entered(hub, rnd)
        if rnd == 1:
            hub.publish_results(1, "org", "referee")
    assert hub.standings_json()["rounds"] == 2 and hub.standings_json(public=True)["rounds"] == 1
    hub.publish_results(2, "org", "referee")
    assert hub.standings_json(public=True)["rounds"] == 2
    hub.stop()


def test_one_table_flooding_bad_messages_or_results_is_counted_not_logged_without_bound(tmp_path: Path) -> None:
    """One table's credential sent 155,000 distinct bad summaries (a 40 MB log, a 324 MB hub) and 5,000
    forged results (5,005 refusals to clear one tap each): the security audit of 2026-12-06. Past the
    limits they are counted on the table's card, not logged or listed one by one; another table's
    bad message and refused result are still logged and listed."""
    from table_service.event.state import FLOOD_LIMIT, FLOOD_WINDOW_MS, MAX_OPEN_REFUSALS_PER_TABLE

    clock = Clock()
    hub = HubService(event_cfg(), tmp_path, clock_ms=clock, connect=False)
    hub.draw_next("org", "referee")
    hub.publish_draw(1, "org", "referee")
    victim, spammer = hub.core.draws[1]["tables"][:2]
    hub.handle_batch([(spammer["table"], "summary", b'{"bad": %d}' % i, False) for i in range(FLOOD_LIMIT + 70)])
    logged = [m for m in hub.core.bad_messages if m["table"] == spammer["table"]]
    assert len(logged) == FLOOD_LIMIT
    assert hub.overview()["faults"][spammer["table"]] == FLOOD_LIMIT + 70  # every one counted on the card
    hub.handle_batch([(victim["table"], "summary", b"{not json", False)])
    assert [m["table"] for m in hub.core.bad_messages][-1] == victim["table"]
    clock.now += FLOOD_WINDOW_MS  # a new window: logged again
    hub.handle_batch([(spammer["table"], "summary", b'{"late": 1}', False)])
    assert len([m for m in hub.core.bad_messages if m["table"] == spammer["table"]]) == FLOOD_LIMIT + 1

    hub.handle_batch([(spammer["table"], "result", _refused(spammer, f"forged{i}"), False) for i in range(25)])
    swapped = json.dumps({"result_id": "r1-s77", "result": {**line_for(victim, 1, 4, 0), "ns": victim["ew"],
                                                            "ew": victim["ns"]}}).encode()
    hub.handle_batch([(victim["table"], "result", swapped, False)])
    listed = [r["table"] for r in hub.overview()["refusals"]]
    assert listed.count(spammer["table"]) == MAX_OPEN_REFUSALS_PER_TABLE and listed.count(victim["table"]) == 1
    hub.stop()


def test_rounds_results_are_published_in_order(tmp_path: Path) -> None:
    """Round 2 published before round 1 put round 2's scores on the board beside standings of no round
    (the public standings stop before the first round not published): the review of 2026-12-06."""
    hub = HubService(event_cfg(n=4, rounds=3), tmp_path, connect=False)
    for rnd in (1, 2):
        _round_entered(hub, rnd)
    with pytest.raises(EventInputError, match="publish round 1's results first"):
        hub.publish_results(2, "org", "referee")
    hub.publish_results(1, "org", "referee")
    hub.publish_results(2, "org", "referee")
    assert hub.standings_json(public=True)["rounds"] == 2
    hub.stop()
