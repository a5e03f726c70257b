"""The table side of the protocol: the result line built from a real table log (a round played by
bots through a real TableRunner), forfeit and penalty-loss forms, and the overview summary."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from table_service.engine.flags import raise_flag
from table_service.engine.self_play import SelfPlayTable
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.model import parse_result
from table_service.table.mqtt_bridge import table_summary
from table_service.table.runner import TableRunner
from table_service.views.wire import table_result


def test_signed_round_becomes_a_results_line(tmp_path: Path) -> None:
    with TableRunner(tmp_path / "t.sqlite3") as runner:
        setup = {"players": {"N": "n", "S": "s", "E": "e", "W": "w"}, "teams": {"NS": "T1", "EW": "T2"},
                 "round": 4, "ruleset": {"preset": "jiangsu-2013", "options": {}}, "format": {"kind": "deals", "deals": 1}}
        assert runner.submit({"type": "round_set_up", "source": "panel", "role": "referee", "data": setup}).accepted
        bots = SelfPlayTable(3, step_ms=(5, 20))
        bots.state = copy.deepcopy(runner.raw_state())
        while runner.state()["result"] is None:
            for ev in bots.deal():
                res = runner.submit({"type": ev["type"], "source": ev["source"], "role": ev.get("role"),
                                     "data": ev["data"]})
                assert res.accepted, res.error
        assert table_result(runner.state(), "7") is None  # not signed yet
        summary = table_summary(runner.state(), "7", "http://pi7:8080")
        assert summary["finished"] and summary["round"] == 4 and summary["panel"] == "http://pi7:8080"
        for side in ("NS", "EW"):
            runner.submit({"type": "score_sheet_signed", "source": "panel", "role": "referee", "data": {"side": side}})
        msg = table_result(runner.state(), "7")
        assert msg is not None
        line = parse_result(msg["result"]).to_dict()
        gained = runner.state()["result"]["gained"]
        assert line == {"round": 4, "table": "7", "ns": "T1", "ew": "T2", "ns_levels": gained["NS"],
                        "ew_levels": gained["EW"]}
        assert msg["result_id"] == f"r4-s{runner.state()['result']['seq']}"
        assert runner.log_id and table_result(runner.state(), "7", log=runner.log_id)["result_id"] == (  # type: ignore[index]
            f"r4-s{runner.state()['result']['seq']}-{runner.log_id[:8]}")


def test_forfeit_and_penalty_loss_forms() -> None:
    base = {"round": {"no": 2, "teams": {"NS": "A", "EW": "B"}}, "signatures": {"NS": True, "EW": True}}
    forfeit = {**base, "result": {"reason": "forfeit", "winner": "EW", "gained": {"NS": 0, "EW": 0},
                                  "level_points": {"NS": 0, "EW": 17}, "seq": 9}}
    line = table_result(forfeit, "3")["result"]  # type: ignore[index]
    assert line["forfeit"] == "ns" and parse_result(line).level_points() == (0, 17)
    loss = {**base, "result": {"reason": "loss", "winner": "NS", "gained": {"NS": 3, "EW": 5},
                               "level_points": {"NS": 17, "EW": 9}, "seq": 12}}
    line = table_result(loss, "3")["result"]  # type: ignore[index]
    assert (line["ns_score"], line["ew_score"]) == (17, 9) and parse_result(line).outcome() == ("win", "loss")


def test_the_summary_counts_open_time_over_flags_as_clocks_over() -> None:
    """``clocks_over`` is running clocks past their deadline plus open ``time_over`` flags
    (docs/hub-protocol.md); a flag record names its rule under ``rule``, as the engine writes it."""
    state: dict[str, Any] = {"t_ms": 1000, "flags": [], "deal": {"no": 3, "phase": "over", "timers": {}}}
    fx: list[dict[str, Any]] = []
    raise_flag(state, {"seq": 7}, "time_over", "E", {"overtime_ms": 500}, fx)
    raise_flag(state, {"seq": 8}, "out_of_turn", "S", {}, fx)
    raise_flag(state, {"seq": 9}, "time_over", "W", {"overtime_ms": 900}, fx)
    state["flags"][2]["status"] = "dismissed"
    summary = table_summary(state, "7", None)
    assert summary["open_flags"] == 2 and summary["clocks_over"] == 1
    # A running clock past its deadline counts too.
    state["deal"] = {"no": 3, "phase": "play", "timers": {"N": {"deadline_ms": 400}, "S": {"deadline_ms": 5000}}}
    assert table_summary(state, "7", None)["clocks_over"] == 2


def test_a_replacement_pis_refused_result_is_not_taken_for_the_old_pis(tmp_path: Path) -> None:
    """A replacement Pi's log numbers its seqs from 1 again. The old Pi's result of round 1 was
    refused (its sides swapped); the new Pi's, at the same seq of its own log and refused too (it
    was set up the same wrong way), is a refusal of its own on the chief's list, not answered
    "refused" as a redelivery of the old one and never shown: the id carries the log."""
    hub = HubService(validate({"event": {"id": "ev", "name": "换机", "rounds": 2},
                               "teams": [{"id": f"T{i}"} for i in range(1, 5)]}), tmp_path / "hub", connect=False)
    try:
        hub.draw_next("org", "chief")
        hub.publish_draw(1, "org", "chief")
        t = hub.core.draws[1]["tables"][0]
        swapped = {"round": {"no": 1, "teams": {"NS": t["ew"], "EW": t["ns"]}}, "signatures": {"NS": True, "EW": True},
                   "result": {"reason": "deals", "winner": "NS", "gained": {"NS": 3, "EW": 0}, "seq": 40}}

        def send(state: dict[str, Any], log: str) -> None:
            msg = table_result(state, t["table"], log=log)
            hub.handle_batch([(t["table"], "result", json.dumps(msg).encode(), True)])

        send(swapped, "1111111111111111")  # the old Pi's
        assert len(hub.core.refusals) == 1
        send({**swapped, "result": {**swapped["result"], "gained": {"NS": 2, "EW": 0}}}, "2222222222222222")
        assert len(hub.core.refusals) == 2, "the replacement's refusal is listed for the chief"
        send(swapped, "1111111111111111")  # the old Pi's again (a redelivery): not a third
        assert len(hub.core.refusals) == 2 and (1, t["table"]) not in hub.core.results
    finally:
        hub.stop()
