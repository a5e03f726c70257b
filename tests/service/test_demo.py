"""The whole simulated table through the whole stack: bots → synthetic camera → real vision →
service → engine; buttons through the emulated screen controller (pty) and mock GPIO; displays
back out. Plus a restart of the demo process in the middle of a deal."""

from __future__ import annotations

import os
import re
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from table_service.demo.options import DemoOptions
from table_service.demo.scorecard import MISTAKE_FLAGS, NEUTRAL_FLAGS
from table_service.demo.table_demo import Demo
from table_service.engine.apply import fold
from table_service.engine.state import state_to_json

REPO = Path(__file__).resolve().parents[2]
SEED = 21
#: Two deals: the second opens with tribute (or anti-tribute), and their plays (at least 60) judge the
#: camera (three cost ~30 s more of the suite for nothing these tests check).
DEALS = 2


@pytest.fixture(scope="module")
def demo_run(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Two headless deals with mistakes, sampled while they run.

    Where its time went (threads sampled every 20 ms, three runs, 2026-12-07, docs/performance.md):
    90–100 s of CPU, the camera's thread 35–39 s (rendering each change about half, reading the
    frames the rest) and the reader learning the deck in play 33–35 s on a thread of its own; the
    clock is held for ~90 % of the wall, waiting for the camera path. The pauses are the rest, and
    most of them the 0.05 s real floor under each (``min_gap_real_s``), not table time: ×20 instead
    of ×10, or a 0.02 s floor, left the CPU and the unheld wall (16–20 s) as they were.
    So the reader does not learn here (``learn=False``, ``[vision] learn = false``): a learned head
    is used only once 20 of the referee's answers are held out to judge it, and these deals ask few
    questions or none (without learning: 134 of 134 plays read right, none asked, 61 s of CPU), so
    learning took no part in the reads these tests check. Learning in play on this path is the
    event demo's camera table's (tests/event/test_event_demo.py) and test_cardnet_learning's."""
    data = tmp_path_factory.mktemp("demo")
    # stuck_real_s: an action the camera has not read within 60 real seconds counts as missed
    # (the demo's 12 s referee patience failed a CI run where a 4x oversubscribed machine read a
    # lone big joker late, not wrong: how fast the camera reads is a benchmark, not this test).
    # A deck the reader never trained on (a held-out design). It may ask nothing in its deals
    # (a CI run read all 184 plays right), so that a question carries its picture is
    # test_camera_witness's, where the question is certain.
    demo = Demo(DemoOptions(seed=SEED, speed=10.0, deals=DEALS, mistakes=0.03, think_s=(0.2, 0.6), referee_s=(0.5, 1.0),
                            stuck_real_s=60.0),
                str(data),
                headless=True, design="tigullio", learn=False)
    samples: list[dict[str, Any]] = []
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.1):
            st = demo.service.runner.state()
            deal = st.get("deal") or {}
            turn = deal.get("turn")
            timer = (deal.get("timers") or {}).get(turn) if turn else None
            if deal.get("phase") != "play" or timer is None:
                continue
            left = (timer["deadline_ms"] - demo.service.clock.now_ms()) / 1000.0
            shown = {s: demo.emulator.read_display(s) for s in "ESWN"}
            # the clock again after the displays were read: on a loaded machine the reads take
            # long enough at x10 for the time left to move by seconds
            left_after = (timer["deadline_ms"] - demo.service.clock.now_ms()) / 1000.0
            samples.append({"turn": turn, "left": left, "left_after": left_after, "shown": shown})

    demo.start()
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        # Only a hang bound: two deals take ~75 s on a free 2-core machine (three took ~100) and returned at once
        # when done; 400 s ran out in a clean-clone CI run with the machine 4x oversubscribed.
        finished = demo.table.wait_done(900)
        stop.set()
        sampler.join(2)
        runner = demo.service.runner
        out = {
            "finished": finished,
            "summary": demo.summary(),
            "events": runner.events(),
            "state": runner.state(),
            "truth": demo.table.truth,
            "entered": list(demo.table.referee_entered),
            "samples": samples,
            "presses": list(demo.table.actuator.presses),
            "display_log": list(demo.display_log),
        }
    finally:
        stop.set()
        demo.stop()
    return out


def test_the_deals_are_played_to_the_end(demo_run: dict[str, Any]) -> None:
    assert demo_run["finished"], demo_run["summary"]
    assert demo_run["summary"]["deals"] == DEALS
    assert len(demo_run["state"]["deal_records"]) == DEALS
    # The only error a run may have is a camera miss the referee then entered (checked, and
    # counted against the camera, in the next test): a lone big joker laid as tribute went unseen
    # for 60 s in 1 of 4 clean-clone runs (the reader has no "a card lies here" model, issue 21).
    errors = demo_run["summary"]["errors"]
    assert [e for e in errors if "not seen by the engine" not in e] == [], errors


def test_every_bot_play_is_the_camera_read_or_a_referee_question(demo_run: dict[str, Any]) -> None:
    events = demo_run["events"]
    by_seq = {e["seq"]: e for e in events}
    answers = {e["data"]["ref"]: e for e in events if e["type"] in ("play_confirmed", "play_corrected")}
    plays = demo_run["truth"].plays
    assert len(plays) >= 60
    asked = 0
    for p in plays:
        ev = by_seq.get(p.get("seq"))
        assert ev is not None and ev["type"] == "cards_played", p
        data = ev["data"]
        if ev["source"] == "camera" and not data.get("uncertain"):
            assert data["cards"] == p["cards"], (p, ev)  # read right, without doubt
            continue
        asked += 1
        if ev["source"] == "camera":
            ans = answers.get(ev["seq"])
            assert ans is not None, f"question {ev['seq']} never answered"
            final = data["cards"] if ans["type"] == "play_confirmed" else ans["data"]["cards"]
            assert final == p["cards"]
        else:
            # The reader saw cards it could not make out: the camera called the referee, who
            # entered the play at the panel.
            assert ev["source"] == "panel" and data["cards"] == p["cards"]
            calls = [e for e in events if e["type"] == "referee_called" and e["source"] == "camera"
                     and e["data"].get("seat") == p["seat"] and e["seq"] < ev["seq"]]
            assert calls, p
    # A card the camera never saw (no read, no question) is entered by the referee: honest, not
    # silent — the engine has exactly the bot's cards from the panel, and it counts as a miss.
    missed = [e for e in demo_run["entered"] if e["why"] != "unreadable"]
    for m in missed:
        assert m["why"] == "not_seen" and m["kind"] in ("play", "tribute", "return"), m
        etype, key = {"play": ("cards_played", "cards"), "tribute": ("tribute_given", "card"),
                      "return": ("return_given", "card")}[m["kind"]]
        got = [e for e in events if e["type"] == etype and e["source"] == "panel" and e["data"]["seat"] == m["seat"]
               and (e["data"][key] == m["cards"] if key == "cards" else [e["data"][key]] == m["cards"])]
        assert got, m
    assert demo_run["summary"]["wrong_certain"] == 0
    assert asked + len(missed) <= len(plays) * 0.25


def test_flags_raised_exactly_for_the_injected_mistakes(demo_run: dict[str, Any]) -> None:
    s = demo_run["summary"]
    assert sum(s["mistakes"].values()) >= 3 and len(s["mistakes"]) >= 2, s["mistakes"]
    assert s["flag_match"], {k: s[k] for k in ("mistakes", "unmatched")}
    # Each mistake's flag names the seat that made it.
    flags = [f for f in demo_run["state"]["flags"] if f["rule"] not in NEUTRAL_FLAGS]
    by_seat = Counter((f["rule"], f["seat"]) for f in flags)

    expected = Counter((MISTAKE_FLAGS[m["mistake"]], m["seat"]) for m in demo_run["truth"].mistakes)
    assert by_seat == expected


def test_the_emulated_displays_showed_the_right_seats_countdown(demo_run: dict[str, Any]) -> None:
    samples = [s for s in demo_run["samples"] if s["left"] > 1.5]
    assert len(samples) >= 30
    good = 0
    for s in samples:
        text = s["shown"][s["turn"]].strip()
        others_blank = all(not re.fullmatch(r"\d+", s["shown"][o].strip() or "x") for o in "ESWN" if o != s["turn"])
        if text.isdigit() and s["left_after"] - 2.5 <= int(text) <= s["left"] + 2.5 and others_blank:
            good += 1
    assert good / len(samples) >= 0.85, (good, len(samples), samples[:5])
    seats_counting = {seat for _t, seat, text in demo_run["display_log"] if text.strip().isdigit()}
    assert seats_counting == {"E", "S", "W", "N"}


def test_buttons_came_through_the_screen_controller_and_gpio(demo_run: dict[str, Any]) -> None:
    backends = Counter(p[3] for p in demo_run["presses"])
    assert backends["screen"] > 0 and backends["gpio"] > 0  # report on the screen, pass on GPIO
    sources = Counter((e["type"], e["source"]) for e in demo_run["events"])
    assert sources[("passed", "gpio")] > 0 and sources[("report_pressed", "screen")] > 0


# ------------------------------------------------------------------------------- restart


def _read_events(db: Path) -> list[dict[str, Any]]:
    """Accepted events from the demo's log, read-only while the demo writes it."""
    import json

    if not db.exists():
        return []
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=2)
        rows = conn.execute("SELECT seq, t_ms, type, source, role, data FROM events "
                            "WHERE status = 'accepted' ORDER BY seq").fetchall()
        conn.close()
    except sqlite3.Error:
        return []
    return [{"seq": r[0], "t_ms": r[1], "type": r[2], "source": r[3], "role": r[4], "data": json.loads(r[5])}
            for r in rows]


def test_restart_mid_deal_goes_on_from_the_same_state_and_timers(wait_for: Any, tmp_path: Path) -> None:
    db = tmp_path / "DEMO.sqlite3"
    cmd = [sys.executable, "-m", "table_service", "demo", "--headless", "--deals", "2", "--speed", "4",
           "--seed", "5", "--mistakes", "0", "--data", str(tmp_path)]
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    first = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        def mid_deal() -> list[dict[str, Any]] | None:
            evs = _read_events(db)
            plays = [e for e in evs if e["type"] == "cards_played"]
            return evs if len(plays) >= 8 else None

        wait_for(mid_deal, 120, "eight plays of the first deal")
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()
    before = _read_events(db)
    state_before = state_to_json(fold(before))
    deal = state_before["deal"]
    assert deal is not None and deal["phase"] == "play"
    turn = deal["turn"]
    deadline = deal["timers"][turn]["deadline_ms"]
    last = before[-1]["seq"]

    second = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(second.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        def moved_on() -> list[dict[str, Any]] | None:
            evs = _read_events(db)
            acts = [e for e in evs if e["seq"] > last and e["type"] in ("cards_played", "passed")]
            return evs if len(acts) >= 4 else None

        after = wait_for(moved_on, 120, "four more actions after the restart")
    finally:
        second.send_signal(signal.SIGINT)
        try:
            second.wait(120)
        except subprocess.TimeoutExpired:
            second.kill()
        reader.join(30)
    # The log before the restart is untouched, and the deal went on: no new deal, no new round.
    assert after[: len(before)] == before
    new = [e for e in after if e["seq"] > last]
    assert not [e for e in new if e["type"] in ("round_set_up", "round_ended", "drawing_finished")]
    state_after = state_to_json(fold(after))
    assert state_after["deal"]["no"] == deal["no"]
    assert sum(state_after["deal"]["counts"].values()) < sum(deal["counts"].values())
    # The first action after the restart is the seat whose turn it was, judged against the deadline
    # from before the restart (the same countdown, not a fresh one).
    if deal["questions"]:
        # Killed while the referee was being asked about a read: the restarted referee answers it.
        refs = {e["data"]["ref"] for e in new if e["type"] in ("play_confirmed", "play_corrected")}
        assert {q["seq"] for q in deal["questions"]} <= refs
    else:
        first_act = next(e for e in new if e["type"] in ("cards_played", "passed"))
        assert first_act["data"]["seat"] == turn
        pre = state_to_json(fold([e for e in after if e["seq"] < first_act["seq"]]))
        assert pre["deal"]["timers"][turn]["deadline_ms"] == deadline
    # The restarted demo showed that countdown on the emulated display, from the log's deadline.
    out = "".join(lines)
    m = re.search(r"resumed deal (\d+) .*seat (\w) \w+ deadline_ms=(\d+) left=(-?[\d.]+)s display='([^']*)'", out)
    assert m, out
    assert int(m.group(1)) == deal["no"] and m.group(2) == turn and int(m.group(3)) == deadline
    left, shown = float(m.group(4)), m.group(5)
    print("resumed:", m.group(0))
    if left > 1:
        assert shown.isdigit() and abs(int(shown) - left) <= 2.5, (shown, left)


# ------------------------------------------------------------- the person at the panel (issue 18)


def test_feed_delay_comes_from_the_command_line_then_the_variable_then_a_visible_default() -> None:
    from table_service.demo.table_demo import DEMO_FEED_DELAY_S, resolve_feed_delay

    assert DEMO_FEED_DELAY_S > 0
    assert resolve_feed_delay(None, {}) == DEMO_FEED_DELAY_S
    assert resolve_feed_delay(None, {"GUANDAN_WEB_FEED_DELAY_S": "20"}) == 20.0
    assert resolve_feed_delay(0.0, {"GUANDAN_WEB_FEED_DELAY_S": "20"}) == 0.0
    with pytest.raises(ValueError, match="直播延时"):
        resolve_feed_delay(None, {"GUANDAN_WEB_FEED_DELAY_S": "soon"})
    with pytest.raises(ValueError, match="0-3600"):
        resolve_feed_delay(5000.0, {})


def _bot_table(tmp_path: Path, **opts: Any) -> tuple[Any, Any, list[dict[str, Any]]]:
    """A BotTable on a real runner with a deal in play and one open camera question (N's read)."""
    from table_service.demo.bot_table import BotTable
    from table_service.table.clock import TableClock
    from table_service.table.runner import TableRunner

    clock = TableClock(1.0)
    runner = TableRunner(tmp_path / "t.sqlite3", clock=clock.now_ms).start()
    for ev in ({"type": "round_set_up", "source": "panel", "role": "referee",
                "data": {"players": {"E": "e", "S": "s", "W": "w", "N": "n"}, "ruleset": "jiangsu"}},
               {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
               {"type": "drawing_finished", "source": "panel", "data": {}},
               {"type": "cards_played", "source": "camera",
                "data": {"seat": "N", "cards": ["3s"], "confidence": [0.4], "uncertain": True}}):
        assert runner.submit(ev).accepted
    submitted: list[dict[str, Any]] = []

    def submit(ev: dict[str, Any]) -> Any:
        submitted.append(ev)
        return runner.submit(ev)

    class Zones:
        def zone(self, seat: str) -> list[str]:
            return ["3s"]

    table = BotTable(submit, runner.state, runner.subscribe, Zones(), clock, DemoOptions(seed=1, **opts))
    return table, runner, submitted


def test_human_referee_leaves_questions_and_flags_to_the_panel(tmp_path: Path) -> None:
    table, runner, submitted = _bot_table(tmp_path, referee="human")
    try:
        runner.submit({"type": "cards_played", "source": "camera", "data": {"seat": "E", "cards": ["9c"]}})
        st = runner.state()
        assert st["deal"]["questions"] and [f for f in st["flags"] if f["status"] == "open"]
        table._referee_duties(st)
        assert not [j for j in table._jobs if j.key[:2] in (("ref", "q"), ("ref", "flag"))]
    finally:
        runner.stop()


def test_auto_referee_pauses_and_yields_to_the_panel(tmp_path: Path) -> None:
    table, runner, submitted = _bot_table(tmp_path, referee_pause_s=6.0, referee_s=(1.0, 1.0))
    try:
        st = runner.state()
        q = st["deal"]["questions"][0]
        before = table.clock.now_ms()
        table._referee_duties(st)
        job = next(j for j in table._jobs if j.key[:2] == ("ref", "q"))
        # Jobs are due in table ms (the clock is the players' time, see ActorClock).
        assert (job.due - before) / 1000.0 >= 6.9, "1 s of its own plus the 6 s pause for the person at the panel"
        # The person at the panel answers first: the demo referee then enters nothing.
        assert runner.submit({"type": "play_confirmed", "source": "panel", "role": "referee",
                              "data": {"ref": q["seq"]}}).accepted
        table._answer(q)
        assert submitted == [] and table.errors == []
    finally:
        runner.stop()


def test_demo_with_panel_uses_the_documented_delay_and_reports_on_ctrl_c(wait_for: Any, tmp_path: Path) -> None:
    """``GUANDAN_WEB_FEED_DELAY_S=20 guandan-table demo``: the feed is 20 s behind, the banner says
    so, and Ctrl-C prints the same closing report as ``--headless``."""
    import json
    import urllib.request

    cmd = [sys.executable, "-m", "table_service", "demo", "--port", "0", "--speed", "4", "--seed", "3",
           "--data", str(tmp_path)]
    env = dict(os.environ, PYTHONUNBUFFERED="1", GUANDAN_WEB_FEED_DELAY_S="20")
    # Started as a background job of a script would be (SIGINT ignored, inherited): Ctrl-C must
    # still reach the demo (tests/test_ctrl_c.py; the suite run so lost the report before).
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stdout.readline, "")), daemon=True)
    reader.start()
    try:
        wait_for(lambda: any("Ctrl-C" in x for x in lines), 300, "the banner")
        out = "".join(lines)
        assert "直播延时 / broadcast delay: 20 s" in out, out
        assert "演示裁判 / demo referee: auto" in out and "8 s" in out, out
        url = re.search(r"referee panel: (http://\S+)/", out).group(1)
        with urllib.request.urlopen(f"{url}/feed/") as resp:
            feeds = json.load(resp)["tables"]
        assert feeds == [{"id": "DEMO", "delay_s": 20.0, "duplicate": False, "overlay": "/feed/DEMO/overlay?lang=zh",
                          "commentator": "/feed/DEMO/commentator"}]
        with urllib.request.urlopen(f"{url}/favicon.ico") as resp:
            assert resp.headers["Content-Type"].startswith("image/svg+xml")
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(120)  # only bounds a hang: the closing report may take a while under load
        except subprocess.TimeoutExpired:
            proc.kill()
        reader.join(30)
    out = "".join(lines)
    assert "演示结束 / demo finished" in out and "识别准确率 / recognition accuracy" in out, out


def test_a_bot_action_behind_an_open_question_does_not_stop_the_clock(tmp_path: Path) -> None:
    # The action in flight is a camera question, answered by the referee later in table time. A
    # bot job due before that answer waits for it; if it kept its hold, the clock would stand at
    # the job's moment, short of the answer, for ever (the demo hung so at an uncertain read).
    from table_service.table.clock import ActorClock

    table, runner, _submitted = _bot_table(tmp_path)
    try:
        clock = ActorClock(50.0)
        table.clock, table._hold_fn, table._release_fn = clock, clock.hold, clock.release
        q = runner.state()["deal"]["questions"][0]
        table._inflight = {"seat": "N", "types": {"cards_played"}, "kind": "play", "deal": 1, "question": q["seq"],
                           "since": time.monotonic(), "truth": 0}
        ran: list[str] = []
        table._schedule(("bot", "next", 1), 1.0, lambda: ran.append("bot"))
        table._schedule(("ref", "q", q["seq"]), 5.0, lambda: ran.append("referee"))
        due_bot, due_ref = sorted(j.due for j in table._jobs)
        deadline = time.monotonic() + 20  # 5 table seconds are 0.1 s at x50; 20 s bounds a hang
        while clock.now_ms() < due_ref and time.monotonic() < deadline:
            table._run_due()  # the driver's loop, as often as it runs
            time.sleep(0.01)
        assert clock.now_ms() >= due_ref, "the clock stood still short of the referee's answer"
        table._run_due()
        assert ran == ["referee"]  # the bot job still waits for the answer
        table._inflight = None  # the answer came: the waiting job runs at once
        table._run_due()
        assert ran == ["referee", "bot"]
    finally:
        runner.stop()


def test_a_relative_data_folder_holds_the_table_database_itself(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``demo --data d`` put the log in d/d/DEMO.sqlite3 (the folder read again relative to itself):
    the same folder given by its full path then resumed the clock and seed over a fresh, empty log."""
    monkeypatch.chdir(tmp_path)
    demo = Demo(DemoOptions(seed=3, speed=10.0, deals=1), "rel", headless=True, port=0)
    try:
        demo.start()
    finally:
        demo.stop()
    assert (tmp_path / "rel" / "DEMO.sqlite3").is_file()
    assert not (tmp_path / "rel" / "rel").exists()
