"""A restarted table goes on after what the broker acknowledged: the MQTT bridge's acknowledged
mark (``table_service/table/mqtt_acked.py``).

Before it, every process started the ``events`` topic at seq 0, so a Pi rebooted mid-event sent
its whole public history again (3,000 events: 3,000 messages, ~220 KB, in one burst). Now what the
broker acknowledged (PUBACK) before the restart is not sent again, and what it never acknowledged
is — even when the broker is down at the restart; a missing or damaged mark means "from 0", never
a table that does not start.
"""

from __future__ import annotations

import json
import logging
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from table_service.event.broker import free_port, wait_port
from table_service.table.mqtt_acked import AckedEvents, acked_file_for
from table_service.table.mqtt_bridge import MqttBridge
from table_service.table.runner import TableRunner

REPO = Path(__file__).resolve().parents[2]
HANG = 60.0  # bounds a hang only; a true condition returns at once


class Broker:
    """Mosquitto on one fixed port that the test stops and starts again, with persistence on, so a
    watcher's persistent session (and what is queued for it) outlives the broker's restart."""

    def __init__(self, folder: Path) -> None:
        exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
        if not Path(exe).exists():
            pytest.skip("mosquitto is not installed (bash scripts/install.sh --test)")
        self.exe, self.folder, self.port = exe, folder, free_port()
        self.conf = folder / "mosquitto.conf"
        self.conf.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence true\n"
                             f"persistence_location {folder}/\n")
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> Broker:
        with (self.folder / "mosquitto.log").open("ab") as log:
            self.proc = subprocess.Popen([self.exe, "-c", str(self.conf)], stdout=log, stderr=subprocess.STDOUT)
        if not wait_port(self.port):
            raise RuntimeError("mosquitto did not start: " + (self.folder / "mosquitto.log").read_text())
        return self

    def stop(self) -> None:
        """SIGTERM: Mosquitto saves its sessions and goes."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(10)
        self.proc = None


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    b = Broker(tmp_path).start()
    try:
        yield b
    finally:
        b.stop()


class Watcher:
    """A broadcast-graphics subscriber on a persistent session: what is published while it (or the
    broker) is away is queued for it. Keeps ``(seq, dup)`` of every event it gets."""

    def __init__(self, port: int, topic: str) -> None:
        self.got: list[tuple[int, bool]] = []
        self.lock = threading.Lock()
        self.subscribed = threading.Event()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="watch-resume", clean_session=False)
        self.client.on_connect = lambda c, *_: c.subscribe(topic, qos=1)
        self.client.on_subscribe = lambda *_: self.subscribed.set()
        self.client.on_message = self._on_message
        self.client.reconnect_delay_set(min_delay=1, max_delay=2)
        self.client.connect("127.0.0.1", port)
        self.client.loop_start()
        assert self.subscribed.wait(HANG), "subscription not acknowledged"

    def _on_message(self, _c: Any, _u: Any, msg: mqtt.MQTTMessage) -> None:
        with self.lock:
            self.got.append((int(json.loads(msg.payload)["seq"]), bool(msg.dup)))

    def seqs(self, *, fresh_only: bool = True) -> list[int]:
        """Seqs received; ``fresh_only`` leaves out the broker's own redelivery to this watcher
        (DUP set) of a message it had already handed over — that is the watcher's session, not a
        table sending again."""
        with self.lock:
            return [s for s, dup in self.got if not (fresh_only and dup)]

    def clear(self) -> None:
        with self.lock:
            self.got.clear()

    def close(self) -> None:
        self.client.loop_stop()
        self.client.disconnect()


# The table's Pi: a process of its own, killed with SIGKILL (a power cut: no clean stop, no last
# write). Phase 1 plays four events; phase 2 (after the test stopped the broker) plays three more:
# handed to paho, never acknowledged. It reads nothing of the bridge but what every version has, so
# the same test shows what a bridge without the acknowledged mark does.
PI = textwrap.dedent("""
    import json, sys, time
    from table_service.table.runner import TableRunner
    from table_service.table.mqtt_bridge import MqttBridge

    db, port = sys.argv[1], int(sys.argv[2])
    r = TableRunner(db).start()
    b = MqttBridge(r, port=port, event_id="ev1", table_id="R1").start()
    assert b.wait_connected(60)

    def submit(etype, data, **kw):
        res = r.submit({"type": etype, "source": kw.pop("source", "panel"), "data": data, **kw})
        assert res.accepted, res.error
        return int(res.seq)

    def until(pred):
        deadline = time.monotonic() + 60
        while not pred():
            assert time.monotonic() < deadline, "timed out"
            time.sleep(0.01)

    seqs = [submit("round_set_up", {"players": {"E": "e", "S": "s", "W": "w", "N": "n"}, "ruleset": "jiangsu",
                                    "format": {"kind": "deals", "deals": 2}}, role="referee"),
            submit("first_cut_recorded", {"card": "7s"}), submit("drawing_finished", {})]
    leader = r.state()["deal"]["turn"]
    seqs.append(submit("cards_played", {"seat": leader, "cards": ["3s"], "confidence": [0.99]}, source="camera"))
    print("played", json.dumps(seqs, separators=(",", ":")), flush=True)

    assert sys.stdin.readline().strip() == "broker down"
    until(lambda: not b.is_connected)
    later = [submit("passed", {"seat": r.state()["deal"]["turn"]}, source="screen") for _ in range(3)]
    until(lambda: b.published_events == len(seqs) + len(later))
    time.sleep(1.5)  # a checkpoint is due by now: the mark must still be the acknowledged one
    print("queued", json.dumps(later, separators=(",", ":")), flush=True)
    time.sleep(600)
""")


def _mark(db: Path) -> int | None:
    try:
        return int(json.loads(acked_file_for(db).read_text())["seq"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _holds_within(pred: Callable[[], bool], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while not pred():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_a_restarted_table_sends_only_what_the_broker_never_acknowledged(
        broker: Broker, tmp_path: Path, wait_for: Callable[..., Any]) -> None:
    """The Pi dies (SIGKILL) after the broker acknowledged four events and while three more wait
    in paho's memory, the broker being down; the table comes back while the broker is still down.
    The new process publishes exactly those three, once the broker is back, and none of the four.
    (The facts about the mark's file are checked last, so that a bridge without it fails on what
    the watcher receives: all seven again.)"""
    db = tmp_path / "R1.sqlite3"
    watcher = Watcher(broker.port, "guandan/ev1/R1/events")
    pi = subprocess.Popen([sys.executable, "-c", PI, str(db), str(broker.port)], cwd=REPO, text=True,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    bridge: MqttBridge | None = None
    runner: TableRunner | None = None
    try:
        assert pi.stdin is not None and pi.stdout is not None
        word, played = pi.stdout.readline().split(" ")
        assert word == "played", word
        acked_seqs = json.loads(played)
        wait_for(lambda: sorted(watcher.seqs()) == acked_seqs, HANG, "the watcher has the first four events")
        # Delivered to the watcher, so the broker has them (and answered the table at once).
        marked_before = _holds_within(lambda: _mark(db) == acked_seqs[-1], HANG)

        broker.stop()
        pi.stdin.write("broker down\n")
        pi.stdin.flush()
        word, later = pi.stdout.readline().split(" ")
        assert word == "queued", word
        later_seqs = json.loads(later)
        pi.send_signal(signal.SIGKILL)  # the power cut
        pi.wait(HANG)
        mark_after_kill = _mark(db)

        # The Pi is back before the broker is.
        watcher.clear()
        runner = TableRunner(db).start()
        bridge = MqttBridge(runner, port=broker.port, event_id="ev1", table_id="R1").start()
        wait_for(lambda: bridge.published_events >= len(later_seqs), HANG, "the unacknowledged events queued")
        assert not bridge.is_connected

        broker.start()
        assert bridge.wait_connected(HANG)
        wait_for(lambda: later_seqs[-1] in watcher.seqs(), HANG, "the watcher got the last event")
        # One publisher, one connection, in order: had the table sent the first four again, they
        # would have reached the watcher before the last one.
        assert watcher.seqs() == later_seqs, "the restarted table sent again what the broker had acknowledged"
        assert bridge.published_events == len(later_seqs)
        assert marked_before, "the broker's acknowledgement of the first four was saved"
        assert mark_after_kill == acked_seqs[-1], "only what the broker acknowledged is marked"
        wait_for(lambda: bridge.acked_seq == later_seqs[-1], HANG, "the broker acknowledged the three")
        bridge, stopping = None, bridge
        stopping.stop()
        assert _mark(db) == later_seqs[-1], "a clean stop saves the mark"
    finally:
        if pi.poll() is None:
            pi.kill()
            pi.wait(HANG)
        if bridge is not None:
            bridge.stop()
        if runner is not None:
            runner.stop()
        watcher.close()


# ------------------------------------------------------------------ the mark's file, no broker


def play(runner: TableRunner) -> list[int]:
    """Four public events; their seqs."""
    def submit(etype: str, data: dict, **kw: Any) -> int:
        res = runner.submit({"type": etype, "source": kw.pop("source", "panel"), "data": data, **kw})
        assert res.accepted, res.error
        return int(res.seq)

    seqs = [submit("round_set_up", {"players": {"E": "e", "S": "s", "W": "w", "N": "n"}, "ruleset": "jiangsu",
                                    "format": {"kind": "deals", "deals": 2}}, role="referee"),
            submit("first_cut_recorded", {"card": "7s"}), submit("drawing_finished", {})]
    leader = runner.state()["deal"]["turn"]
    seqs.append(submit("cards_played", {"seat": leader, "cards": ["3s"], "confidence": [0.99]}, source="camera"))
    return seqs


def offline_bridge(runner: TableRunner, **kw: Any) -> MqttBridge:
    """A bridge never started: ``publish_due`` hands events to paho, which queues them (no broker),
    so what it would send is what ``publish_due`` returns."""
    return MqttBridge(runner, port=free_port(), event_id="ev1", table_id="F1", **kw)


def good_mark(runner: TableRunner, seq: int, **over: Any) -> dict[str, Any]:
    ev = next(e for e in runner.events() if e["seq"] == seq)
    port = over.pop("port", None)
    return {"version": 1, "event": "ev1", "table": "F1", "broker": f"127.0.0.1:{port}", "seq": seq,
            "t_ms": ev["t_ms"], "type": ev["type"], "wall_ms": 0, **over}


def test_a_sound_mark_resumes_after_it(runner: TableRunner, tmp_path: Path) -> None:
    seqs = play(runner)
    port = free_port()
    acked_file_for(runner.db_path).write_text(json.dumps(good_mark(runner, seqs[1], port=port)))
    bridge = MqttBridge(runner, port=port, event_id="ev1", table_id="F1")
    assert bridge.acked_seq == seqs[1]
    assert bridge.publish_due() == 2  # the two after the mark, not the four


@pytest.mark.parametrize("what, content", [
    ("absent", None),
    ("empty", b""),
    ("not JSON", b"\x00\xff garbage"),
    ("cut short by a power cut", b'{"version":1,"event":"ev1","tab'),
    ("not an object", b"[1, 2]"),
    ("another version", {"version": 2}),
    ("seq a text", {"seq": "2"}),
    ("seq zero", {"seq": 0}),
    ("seq past the log's end (the log was replaced by a shorter one)", {"seq": 999}),
    ("another event at that seq (the log was replaced)", {"t_ms": 1}),
    ("another event", {"event": "ev2"}),
    ("another table", {"table": "F2"}),
    ("another broker", {"broker": "10.0.0.9:1883"}),
])
def test_a_missing_or_unusable_mark_means_from_the_start(runner: TableRunner, caplog: pytest.LogCaptureFixture,
                                                         what: str, content: Any) -> None:
    """Never a table that does not start: everything public goes out again (as before the mark
    existed), and the log says why."""
    seqs = play(runner)
    path = acked_file_for(runner.db_path)
    port = free_port()
    if isinstance(content, dict):
        path.write_text(json.dumps({**good_mark(runner, seqs[1], port=port), **content}))
    elif content is not None:
        path.write_bytes(content)
    with caplog.at_level(logging.INFO, logger="table_service.table.mqtt_acked"):
        bridge = MqttBridge(runner, port=port, event_id="ev1", table_id="F1")
    assert bridge.acked_seq == 0
    assert bridge.publish_due() == len(seqs), what
    assert any("from the start" in r.getMessage() for r in caplog.records), caplog.text


def test_a_mark_that_cannot_be_written_does_not_stop_the_table(runner: TableRunner, tmp_path: Path,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    """A full disk or a read-only folder: said once in the log, and the events still go out."""
    seqs = play(runner)
    bridge = offline_bridge(runner, acked_file=tmp_path / "no such folder" / "acked.json")
    assert bridge.publish_due() == len(seqs)
    a = AckedEvents(tmp_path / "no such folder" / "acked.json", event_id="e", table_id="t", broker="b:1")
    for seq in (1, 2):
        a.sent(ev(seq), seq)
    with caplog.at_level(logging.WARNING, logger="table_service.table.mqtt_acked"):
        a.on_publish(1)
        assert a.checkpoint(force=True) is False
        a.on_publish(2)
        assert a.checkpoint(force=True) is False
    assert a.advance().seq == 2  # type: ignore[union-attr]
    assert sum("cannot write" in r.getMessage() for r in caplog.records) == 1, "said once, not every second"


# ------------------------------------------------------------------ the mark itself


def ev(seq: int) -> dict[str, Any]:
    return {"seq": seq, "t_ms": 1000 + seq, "type": "passed"}


def test_the_mark_never_covers_an_event_the_broker_did_not_acknowledge(tmp_path: Path) -> None:
    """Acknowledged out of order (a reconnect, paho's in-flight window), early (before ``publish()``
    returned its id), or among other topics' acknowledgements: the mark moves only over an
    unbroken run of acknowledged events."""
    a = AckedEvents(tmp_path / "m.json", event_id="e", table_id="t", broker="b:1")
    a.on_publish(12)  # the PUBACK of seq 3 came before the bridge registered it
    for seq, mid in ((1, 10), (2, 11), (3, 12), (4, 13)):
        a.sent(ev(seq), mid)
    a.on_publish(99)  # a state or summary message: matches nothing
    a.on_publish(11)
    assert a.advance() is None and a.waiting == 4
    a.on_publish(10)
    assert a.advance().seq == 3 and a.waiting == 1  # type: ignore[union-attr]
    a.on_publish(13)
    assert a.advance().seq == 4 and a.waiting == 0  # type: ignore[union-attr]


def test_the_file_is_written_at_most_once_a_second_and_at_once_on_a_clean_stop(tmp_path: Path) -> None:
    now = [100.0]
    path = tmp_path / "m.json"
    a = AckedEvents(path, event_id="e", table_id="t", broker="b:1", clock=lambda: now[0])
    for seq in (1, 2, 3):
        a.sent(ev(seq), seq)
    a.on_publish(1)
    assert a.checkpoint() and json.loads(path.read_text())["seq"] == 1
    a.on_publish(2)
    now[0] += 0.5
    assert not a.checkpoint() and json.loads(path.read_text())["seq"] == 1
    now[0] += 0.6
    assert a.checkpoint() and json.loads(path.read_text())["seq"] == 2
    a.on_publish(3)
    assert a.checkpoint(force=True) and json.loads(path.read_text())["seq"] == 3
    assert not a.checkpoint(force=True), "an unchanged mark is not written again"
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"], "no temporary file left behind"
    data = json.loads(path.read_text())
    assert {k: data[k] for k in ("version", "event", "table", "broker", "seq", "t_ms", "type")} == \
        {"version": 1, "event": "e", "table": "t", "broker": "b:1", "seq": 3, "t_ms": 1003, "type": "passed"}


def test_events_the_feed_no_longer_holds_are_never_skipped_silently(runner: TableRunner,
                                                                     caplog: pytest.LogCaptureFixture) -> None:
    """A broker away for longer than the feed keeps public events: the bridge says, in the log, from
    where to where it could not send (views.feed.PUBLIC_EVENTS_KEPT holds a table's whole day)."""
    from table_service.views.feed import PUBLIC_EVENTS_KEPT, FeedView

    assert PUBLIC_EVENTS_KEPT >= 10_000
    seqs = play(runner)
    feed = FeedView(runner, delay_s=0, buffer=2, kept=2, pump_thread=False)
    try:
        assert feed.evicted_seq == seqs[1] and [e["seq"] for e in feed.events()] == seqs[2:]
        bridge = offline_bridge(runner, feed=feed)
        with caplog.at_level(logging.ERROR, logger="table_service.table.mqtt_bridge"):
            assert bridge.publish_due() == 2
            bridge.publish_due()
        said = [r.getMessage() for r in caplog.records if "no longer held" in r.getMessage()]
        assert len(said) == 1 and f"after 0 up to {seqs[1]}" in said[0]
    finally:
        feed.close()
