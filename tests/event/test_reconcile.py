"""The event demo's summary sets the hub's results against the tables' own logs and names every
difference (issue 26: it printed "4 results (4 from the tables' logs)" with a forged one)."""

from __future__ import annotations

from pathlib import Path

from table_service.demo.event_demo import EventDemo, format_summary


def test_summary_names_a_result_that_differs_from_the_tables_log(tmp_path: Path) -> None:
    demo = EventDemo(2, rounds=1, seed=5, data=tmp_path / "demo", web=False, camera_tables=0).start()
    try:
        demo.run_rounds()
        s = demo.summary()
        assert s["results"] == 2 and s["from_table_log"] == 2 and s["differ"] == []
        assert "every result equals the table's own log" in format_summary(s)
        # What the forgery did, here through the hub's own correction form: the hub's
        # line for table 1 is no longer what table 1 played and signed.
        cur = demo.hub.core.results[(1, "1")].line
        forged = {**cur, "ns_levels": 13, "ew_levels": 0} if cur["ns_levels"] != 13 else {**cur, "ns_levels": 0}
        demo.hub.correct(1, "1", forged, "伪造 / forged", "chen", "chief")
        s = demo.summary()
        assert s["from_table_log"] == 1 and len(s["differ"]) == 1
        d = s["differ"][0]
        assert (d["round"], d["table"], d["source"]) == (1, "1", "correction")
        assert d["table_log"] == cur and d["hub"] == forged
        text = format_summary(s)
        assert "1 result(s) differ from the tables' own logs" in text and "round 1 table 1" in text
    finally:
        demo.stop()
