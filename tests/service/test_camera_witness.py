"""The camera is the witness of when a play was made: a play put down before the deadline but
read after it is in time; one put down after it is over time; a hand held over the zone holds
the clock tick for no longer than ``[service] camera_grace_s``.

Real parts throughout: the synthetic overhead camera films cards from real artwork, the real
vision watcher settles and reads them, the real service and engine run on a sped-up table
clock. The camera is made slow by a source that hands each frame on late (the latency of a
busy Pi), which is exactly the delay the witness rule must not count against the player.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import table_service.table.service as service_module
from table_service.demo.scene import SceneCamera
from table_service.table import camera_health
from table_service.table.camera_pipeline import CameraPipeline
from table_service.table.camera_watcher import make_watcher
from table_service.table.clock import ActorClock, TableClock
from table_service.table.config import parse_service_config
from table_service.table.inputs import sighting_event, witnessed_t_ms
from table_service.table.service import TableService
from table_service.table.ticker import held_for

SPEED = 40.0  # 40 s to lead = 1 s real


@pytest.fixture(autouse=True)
def camera_not_reading_after_minutes(monkeypatch: pytest.MonkeyPatch) -> None:
    """A loaded 2-core CI machine has left this slowed camera 10 s without a read (the product's
    "not reading" threshold, after which the camera counts offline and holds nothing, so a play
    put down in time was flagged). That threshold is tests/service/test_camera_health.py's
    subject; here the camera must stay a witness however slow the machine is."""
    monkeypatch.setattr(camera_health, "NOT_READING_S", 600.0)
    monkeypatch.setattr(service_module, "LAG_GRACE_S", 600.0)


class LateFrames:
    """A frame source that hands each of ``camera``'s frames on ``delay_s`` real seconds after it
    was taken (the frame's capture instant, ``frame_wall``, stays the camera's). With ``hover``
    set to a seat, every frame from then on shows a hand moving over that seat's zone."""

    def __init__(self, camera: SceneCamera, delay_s: float) -> None:
        self.camera = camera
        self.delay_s = delay_s
        self.hover: str | None = None
        self.status = camera.status

    def frame_wall(self, t: float) -> float | None:
        return self.camera.frame_wall(t)

    def frames(self) -> Iterator[tuple[float, Any]]:
        n = 0
        for t, frame in self.camera.frames():
            time.sleep(self.delay_s)
            if self.hover is not None:
                n += 1
                frame = self.camera._arm(frame, [self.hover], 0.35 + 0.3 * (n % 2))
            yield t, frame

    def close(self) -> None:
        self.camera.close()


@pytest.fixture(scope="module")
def renderer() -> Any:
    from vision.geometry import default_layout
    from vision.synth import CameraView, TableRenderer

    return TableRenderer(default_layout(zone_mm=(280.0, 130.0)), camera=CameraView(size=(2400, 1800), px_per_mm=2.0),
                         design="anglo", seed=5)


class Table:
    """A service with sim devices and the slow synthetic camera, its round started.

    The table runs on the demo's :class:`ActorClock`, which runs freely like the production
    clock except where a test places a hold: the clock stands still from the round's start until
    the test's player acts (:meth:`lay_at`, :meth:`run_clock`), so the player acts at exactly
    the table time the test means whatever the machine's load (at x40 a thread descheduled for
    25 ms used to put a play "1 s before the deadline" after it). The camera's lag is never held:
    it is real time, on the free-running clock, as on a real table.
    """

    def __init__(self, tmp_path: Path, renderer: Any, *, wait_for: Any, delay_s: float, grace_s: float = 3.0,
                 read_s: float = 0.0) -> None:
        self.wait_for = wait_for
        cfg = parse_service_config({
            "table_id": "T7", "data_dir": str(tmp_path / "data"),
            "seats": {"E": "e", "S": "s", "W": "w", "N": "n"},
            "devices": {"default": "sim"}, "camera": {"source": "none"},
            "web": {"enabled": False}, "service": {"camera_grace_s": grace_s},
        })
        self.clock = ActorClock(SPEED, tmp_path / "clock.json")
        self._freeze: int | None = None
        # read_s: every frame's read takes that long (a loaded machine); the camera then films
        # in real time and the pipeline reads the newest frame, as on a real table.
        self.camera = SceneCamera(renderer, fps=15.0, realtime=read_s > 0, seed=5)
        self.source = LateFrames(self.camera, delay_s)
        holder: dict[str, Any] = {}
        watcher = make_watcher(cfg.vision, possible=lambda seat: holder["svc"].possible(seat), settle_s=0.25,
                               read_frames=1)
        if read_s > 0:
            feed = watcher.feed

            def slow_feed(frame: Any, t: float, lowres: Any = None) -> Any:
                time.sleep(read_s)
                return feed(frame, t, lowres=lowres)

            watcher.feed = slow_feed
        self.pipeline = CameraPipeline(self.source, watcher)
        self.pipeline.drop_stale = read_s > 0
        self.svc = TableService(cfg, clock=self.clock, camera=self.pipeline, web=False, mqtt=False)
        holder["svc"] = self.svc

    def __enter__(self) -> Table:
        svc = self.svc.start()
        svc._device_status("camera", "online")
        self.wait_for(lambda: svc.runner.state()["devices"]["camera"] == "online", what="camera online")
        # The first frame renders the table from artwork: seconds on a loaded 2-core machine.
        self.wait_for(lambda: self.pipeline.seen_ms is not None, timeout=300, what="first frame processed")
        self._freeze = self.clock.hold()  # stands still until the test's player acts
        for ev in (svc.round_event(), {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
                   {"type": "drawing_finished", "source": "panel", "data": {}}):
            assert svc.submit(ev).accepted, ev
        st = svc.runner.state()
        self.turn = st["deal"]["turn"]
        self.deadline = int(st["deal"]["timers"][self.turn]["deadline_ms"])
        return self

    def __exit__(self, *exc: object) -> None:
        self.run_clock()
        self.svc.stop()

    def run_clock(self) -> None:
        """Let the clock run freely from where it stands (the round's start)."""
        self.clock.release(self._freeze)
        self._freeze = None

    def lay_at(self, table_ms: int, cards: list[str]) -> int:
        """Put ``cards`` in the turn seat's zone at table time ``table_ms``; returns when it happened."""
        token = self.clock.hold(table_ms)  # placed while the clock stands: ahead of it
        self.run_clock()
        self.wait_for(lambda: self.clock.now_ms() >= table_ms, what="the moment to play")
        at = self.clock.now_ms()
        self.camera.set_zones({self.turn: list(cards)})
        self.clock.release(token)
        return at

    def ceiling(self, table_ms: int) -> int:
        """Stop the clock at ``table_ms`` (before it gets there) until released: a bound on the
        table time an assertion may see, which a loaded machine cannot push past."""
        assert self.clock.now_ms() < table_ms
        return self.clock.hold(table_ms)

    def time_over(self) -> list[dict[str, Any]]:
        return [f for f in self.svc.runner.state()["flags"] if f["rule"] == "time_over"]

    def camera_play(self) -> dict[str, Any] | None:
        return next((e for e in self.svc.runner.events() if e["type"] == "cards_played"
                     and e["source"] == "camera" and e["data"]["seat"] == self.turn), None)


def test_play_put_down_before_the_deadline_but_read_after_it_is_in_time(wait_for: Any, tmp_path: Path, renderer: Any) -> None:
    # Each frame reaches the watcher 0.1 s late: the read comes ~1 s real (~40 table s) after
    # the cards went down, 1 table second before the deadline.
    with Table(tmp_path, renderer, wait_for=wait_for, delay_s=0.1) as tb:
        # The clock stops 60 table s past the deadline (1.5 s real, inside the 3 s grace): on a
        # loaded machine the read may come later than that, and it must still be in time.
        ceiling = tb.ceiling(tb.deadline + 60_000)
        placed = tb.lay_at(tb.deadline - 1000, ["9h"])
        ev = wait_for(tb.camera_play, what="the camera's read of the play")
        if ev["data"].get("uncertain"):  # a question: the referee looks and confirms at once
            assert tb.svc.submit({"type": "play_confirmed", "source": "panel", "role": "referee",
                                  "data": {"ref": ev["seq"]}}).accepted
        # the pipeline records its observation just after the engine has the event: wait for it
        read_at = wait_for(lambda: next((o["observed_wall"] for o in tb.svc.observations
                                         if o["event"] == "cards_played"), None), what="the observation record")
        assert tb.clock.at_wall(read_at) > tb.deadline + 2000, "the read really came after the deadline"
        assert ev["data"]["cards"] == ["9h"]
        # Witnessed in time: stamped at the deadline (in time), not when it was read.
        assert ev["t_ms"] == tb.deadline, (placed, ev["t_ms"], tb.deadline)
        rec = next(o for o in tb.svc.observations if o["event"] == "cards_played")
        assert placed - 300 <= rec["placed_ms"] <= placed + 300, (placed, rec["placed_ms"])
        # The play stopped the seat's clock; a tick at its deadline would have come before it.
        assert tb.svc.runner.state()["deal"]["turn"] != tb.turn
        # (only this seat: with the test's ~40x table clock and its slowed camera, the next seat's
        # 20 s may already run out before this line, which is not what is tested here)
        mine = [f for f in tb.time_over() if f["seat"] == tb.turn]
        assert mine == [], (mine, tb.svc.runner.events())
        plays = tb.svc.runner.state()["deal"]["trick"]["plays"]
        assert [p["overtime_ms"] for p in plays] == [0], plays
        tb.clock.release(ceiling)


def test_a_camera_lagging_past_the_grace_does_not_put_the_player_over_time(wait_for: Any, tmp_path: Path, renderer: Any) -> None:
    """Issue #18 item 9: the machine's delay must not flag a player. Every read takes 0.9 s (a
    loaded Pi), so the camera reads the newest frame about a second after it was taken, and the
    play (cards down, the arm withdrawing over 0.7 s) settles in frames read over seconds, past
    the 1 s grace: the tick still waits while the camera is behind the deadline or still
    watching the play settle, and the play put down in time is in time. On a machine loaded past
    its cores (the s39 full run at load 14) the frames read lay further apart than twice the
    settle time, and the tick went before the play settled: it now also waits until the camera
    has read as many frames of the play as the watcher needs to settle one (SETTLE_FRAMES)."""
    with Table(tmp_path, renderer, wait_for=wait_for, delay_s=0.0, grace_s=1.0, read_s=0.9) as tb:
        # The read comes some frames after the cards go down (the arm withdraws, the zone
        # settles): bound the wait by this machine's own frame time, 0.9 s by design and several
        # seconds on an oversubscribed one, not by a fixed time that assumes the design's pace.
        frames, since = tb.pipeline.frames, time.monotonic()
        wait_for(lambda: tb.pipeline.frames >= frames + 3, timeout=600, what="three frames read")
        frame_s = (time.monotonic() - since) / 3
        tb.lay_at(tb.deadline - 2000, ["9h"])
        ev = wait_for(tb.camera_play, timeout=max(60.0, 40 * frame_s), what="the camera's read of the play")
        if ev["data"].get("uncertain"):
            assert tb.svc.submit({"type": "play_confirmed", "source": "panel", "role": "referee",
                                  "data": {"ref": ev["seq"]}}).accepted
        read_at = wait_for(lambda: next((o["observed_wall"] for o in tb.svc.observations
                                         if o["event"] == "cards_played"), None), what="the observation record")
        grace_ms = 1.0 * SPEED * 1000
        assert tb.clock.at_wall(read_at) > tb.deadline + grace_ms, "the read really came past the grace"
        rec = next(o for o in tb.svc.observations if o["event"] == "cards_played")
        assert ev["t_ms"] == tb.deadline, (rec, tb.deadline, ev["t_ms"], tb.time_over())
        mine = [f for f in tb.time_over() if f["seat"] == tb.turn]
        assert mine == [], mine


def test_a_doubtful_read_reaches_the_referee_with_its_picture_and_reasons(wait_for: Any, tmp_path: Path,
                                                                         renderer: Any) -> None:
    """A read the camera doubts goes to the referee as a question with the zone as the camera saw
    it, why, and the readings to choose from (the demo once asked with no picture: ``404 event
    #106 has no camera image``). Three 9♥ of a two-deck game: the third cannot be, whatever the
    reader's skill, so the question is certain."""
    with Table(tmp_path, renderer, wait_for=wait_for, delay_s=0.0) as tb:
        tb.lay_at(tb.deadline - 10_000, ["9h", "9h", "9h"])
        ev = wait_for(tb.camera_play, what="the camera's read of the play")
        data = ev["data"]
        assert data.get("uncertain") is True, data
        assert str(data.get("crop", "")).startswith("data:image/jpeg;base64,")
        assert any("not possible" in r for r in data.get("reasons", [])), data.get("reasons")
        assert data.get("candidates") and all(len(c) == len(data["cards"]) for c in data["candidates"])
        assert tb.svc.runner.state()["deal"]["questions"][0]["seq"] == ev["seq"]


def test_play_put_down_after_the_deadline_is_over_time(wait_for: Any, tmp_path: Path, renderer: Any) -> None:
    with Table(tmp_path, renderer, wait_for=wait_for, delay_s=0.1) as tb:
        tb.lay_at(tb.deadline + 3000, ["9h"])
        flag = wait_for(tb.time_over, what="time_over flag")[0]
        assert flag["seat"] == tb.turn
        ev = wait_for(tb.camera_play, what="the camera's read of the play")
        assert ev["t_ms"] > tb.deadline
        assert len(tb.time_over()) == 1


def test_a_hand_held_over_the_zone_holds_the_tick_no_longer_than_the_grace(wait_for: Any, tmp_path: Path, renderer: Any) -> None:
    grace_s = 0.5  # real seconds = 20 table seconds at x40
    with Table(tmp_path, renderer, wait_for=wait_for, delay_s=0.02, grace_s=grace_s) as tb:
        tb.source.hover = tb.turn  # a hand reaches in before the deadline and stays, moving
        since = wait_for(lambda: tb.pipeline.busy_since_ms.get(tb.turn), what="zone busy")
        assert since <= tb.deadline
        grace_ms = grace_s * SPEED * 1000
        # No longer than the grace (plus a poll): the clock stands still there, so a machine that
        # is slow to tick cannot carry the flag past it; a tick held for the hand never comes.
        ceiling = tb.ceiling(tb.deadline + int(grace_ms) + 4000)
        tb.run_clock()
        flag = wait_for(tb.time_over, what="time_over flag after the grace")[0]
        assert flag["seat"] == tb.turn
        assert tb.pipeline.busy_since_ms.get(tb.turn) is not None, "the hand was still there"
        over = flag["t_ms"] - tb.deadline
        # Held (a tick would have gone at +1 ms), but no longer than the grace (plus a poll).
        assert grace_ms <= over <= grace_ms + 4000, over
        tb.clock.release(ceiling)


def test_held_for_asks_only_about_unflagged_timers_within_the_grace() -> None:
    asked: list[tuple[str, int]] = []

    def witness(_state: dict[str, Any], seat: str, deadline: int) -> str | None:
        asked.append((seat, deadline))
        return "busy"

    state = {"deal": {"phase": "play", "timers": {
        "E": {"deadline_ms": 1000, "flagged": False},
        "N": {"deadline_ms": 500, "flagged": True},
        "W": {"deadline_ms": 5000, "flagged": False}}}}
    assert held_for(state, 1500, witness, 3000) == "E: busy"
    assert asked == [("E", 1000)]
    assert held_for(state, 4001, witness, 3000) is None, "E past its grace, W not yet due"
    assert held_for(state, 1500, None, 3000) is None
    assert held_for(state, 1500, lambda *_: None, 3000) is None
    assert held_for({"deal": {"phase": "over", "timers": state["deal"]["timers"]}}, 1500, witness, 3000) is None


def test_only_a_play_put_down_in_time_and_read_late_is_stamped_back() -> None:
    state = {"deal": {"phase": "play", "timers": {"E": {"deadline_ms": 1000}}}}
    assert witnessed_t_ms(state, "E", 900, 1500) == 1000, "in time, read late: at the deadline"
    assert witnessed_t_ms(state, "E", 900, 950) is None, "read in time: stamped when read"
    assert witnessed_t_ms(state, "E", 1100, 1500) is None, "put down late"
    assert witnessed_t_ms(state, "E", None, 1500) is None
    assert witnessed_t_ms(state, "N", 900, 1500) is None, "no clock running for the seat"


def test_camera_grace_must_be_a_sane_number(tmp_path: Path) -> None:
    base = {"table_id": "T7", "data_dir": str(tmp_path), "seats": {"E": "e", "S": "s", "W": "w", "N": "n"},
            "devices": {"default": "sim"}, "camera": {"source": "none"}}
    assert parse_service_config({**base, "service": {"camera_grace_s": 2}}).service["camera_grace_s"] == 2
    for bad in (-1, "3", 600, True):
        with pytest.raises(ValueError, match="camera_grace_s"):
            parse_service_config({**base, "service": {"camera_grace_s": bad}})


def test_no_hold_while_the_camera_is_offline(wait_for: Any, tmp_path: Path, renderer: Any) -> None:
    with Table(tmp_path, renderer, wait_for=wait_for, delay_s=0.02, grace_s=10.0) as tb:
        tb.source.hover = tb.turn
        wait_for(lambda: tb.pipeline.busy_since_ms.get(tb.turn), what="zone busy")
        st = tb.svc.runner.state()
        assert tb.svc.camera_witness(st, tb.turn, tb.deadline) is not None
        tb.svc._device_status("camera", "offline", "test")
        wait_for(lambda: tb.svc.runner.state()["devices"]["camera"] == "offline", what="camera offline")
        assert tb.svc.camera_witness(tb.svc.runner.state(), tb.turn, tb.deadline) is None
        # The clock stands 20 table s past the deadline: a tick held for the zone never comes.
        ceiling = tb.ceiling(tb.deadline + 20_000)
        tb.run_clock()
        flag = wait_for(tb.time_over, what="time_over at the deadline")[0]
        # A tick at the deadline (not after the 400 table seconds of grace the zone would get).
        assert flag["t_ms"] - tb.deadline <= 20000
        tb.clock.release(ceiling)



# ------------------------------------------------------------------ the camera's other sightings


def test_sightings_become_engine_events_when_the_phase_allows(tmp_path: Path) -> None:
    from vision.geometry import default_layout
    from vision.watcher import ExposedCardSighting, HandInZoneSighting

    layout = default_layout()
    centres = {s: tuple(float(v) for v in z.corners_table_mm().mean(axis=0)) for s, z in layout.zones.items()}
    sx, sy = centres["S"]
    exposed = ExposedCardSighting((sx + 150.0, sy), (63.0, 88.0), 12.0)
    hand = HandInZoneSighting("W", 11.5, 12.0)
    assert sighting_event({"deal": None}, exposed, centres) is None, "no deal in progress"
    assert sighting_event({"round": {}, "deal": {"phase": "tribute"}}, hand, centres) is None, "play phase only"
    ev = sighting_event({"round": {}, "deal": {"phase": "play"}}, exposed, centres)
    assert ev == {"type": "card_exposed", "source": "camera",
                  "data": {"position_mm": [round(sx + 150.0, 1), round(sy, 1)], "seat": "S"}}

    cfg = parse_service_config({
        "table_id": "T7", "data_dir": str(tmp_path / "data"), "seats": {"E": "e", "S": "s", "W": "w", "N": "n"},
        "devices": {"default": "sim"}, "camera": {"source": "none"}, "web": {"enabled": False}})
    with TableService(cfg, clock=TableClock(1.0), web=False, mqtt=False) as svc:
        assert svc.sighting(hand, centres) is None  # before the round: logged only
        for e in (svc.round_event(), {"type": "first_cut_recorded", "source": "panel", "data": {"card": "7s"}},
                  {"type": "drawing_finished", "source": "panel", "data": {}}):
            assert svc.submit(e).accepted
        assert svc.sighting(hand, centres).accepted
        assert svc.sighting(exposed, centres).accepted
        flags = {f["rule"]: f for f in svc.runner.state()["flags"]}
        assert flags["zone_obstructed"]["seat"] == "W" and flags["zone_obstructed"]["evidence"]["seconds"] == 11.5
        assert flags["exposed_card"]["seat"] == "S"
        assert flags["exposed_card"]["evidence"]["position_mm"] == [round(sx + 150.0, 1), round(sy, 1)]


def test_vision_enrollment_in_the_config_reaches_the_watcher(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``[vision] enrollment`` (from ``guandan-table vision enroll``) is loaded at start and read with;
    a file that is not an enrolment is an error naming it."""
    from vision.artwork import load_deck
    from vision.cardnet.enrol import enroll

    deck = load_deck("anglo")
    monkeypatch.setattr("vision.cardnet.enrol.ENROL_STEPS", 50)
    enroll({"Ah": deck.bgr("Ah")}, px_per_mm=6.0, rows=4, check_plays=0).save(tmp_path / "deck.npz")  # one face, a short fit
    cfg = parse_service_config({"table_id": "T7", "data_dir": str(tmp_path / "data"), "seats": {"E": "e", "S": "s", "W": "w", "N": "n"},
                                "devices": {"default": "sim"}, "camera": {"source": "none"},
                                "vision": {"enrollment": str(tmp_path / "deck.npz")}})
    watcher = make_watcher(cfg.vision)
    assert watcher.enrollment is not None and watcher.enrollment.cards == ("Ah",)
    (tmp_path / "bad.npz").write_text("x")
    with pytest.raises(ValueError, match="bad.npz"):
        make_watcher({"enrollment": str(tmp_path / "bad.npz")})
