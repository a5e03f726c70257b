"""The event's deck: enrolled once, checked at the hub, handed over a real Mosquitto (with the event's
users and ACL) to every table, taken into use by each table's camera, and shown to the organiser."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import paho.mqtt.client as mqtt
import pytest

from table_service.event.hub import HubService
from table_service.event.model import EventInputError
from table_service.table.deck import drop_deck, take_deck
from table_service.views.deck_wire import (
    deck_message,
    deck_topic,
    read_deck_message,
    read_withdrawal,
    sha256_hex,
    withdrawal_message,
)

from .test_hub_mqtt import cfg_for, tables, wait_for


@pytest.fixture(scope="module")
def deck_file(small_deck_file: bytes) -> bytes:
    """A real enrolment file (tests/conftest.py makes it once a session)."""
    return small_deck_file


def _stop(ts: list[Any], hub: HubService) -> None:
    for t in ts:
        t.stop()
    hub.stop()


def _core_after_restart(broker: Any, n_tables: int, folder: Path) -> Any:
    """The hub's state as a restarted hub reads it back from its log."""
    again = HubService(cfg_for(broker, n_tables), folder, connect=False)
    try:
        return again.core
    finally:
        again.stop()


def _camera(tmp: Path) -> Any:
    """What :func:`take_deck` needs of a camera pipeline: where the deck lives and the watcher."""
    return SimpleNamespace(enrollment_path=str(tmp / "table-deck.npz"), watcher=SimpleNamespace(enrollment=None))


def test_the_hub_hands_the_deck_to_every_table_and_sees_them_read_with_it(tmp_path: Path, broker: Any,
                                                                            deck_file: bytes) -> None:
    hub = HubService(cfg_for(broker, 2), tmp_path / "hub").start()
    ts = tables(tmp_path, broker, 2)
    cams = [_camera(tmp_path / f"t{t.table_id}") for t in ts]
    for t, cam in zip(ts, cams, strict=True):
        (tmp_path / f"t{t.table_id}").mkdir()
        t.bridge.deck_listeners.append(lambda data, sha, _m, cam=cam: take_deck(cam, data, sha))
    try:
        assert hub.wait_connected(10)
        hub.draw_next("o", "chief")
        hub.publish_draw(1, "o", "chief")
        with pytest.raises(EventInputError, match="requires role chief"):
            hub.publish_deck(deck_file, "r", "referee")
        with pytest.raises(EventInputError, match="requires role chief"):  # refused before the file is read
            hub.publish_deck(b"PK\x03\x04 not a deck", "r", "referee")
        with pytest.raises(EventInputError, match="enrolment file"):
            hub.publish_deck(b"PK\x03\x04 not a deck", "o", "chief")
        assert hub.core.deck is None  # refused: nothing logged, nothing sent
        ev = hub.publish_deck(deck_file, "o", "chief")
        sha = sha256_hex(deck_file)
        with pytest.raises(EventInputError, match="already the event's deck"):  # a second tap, a second desk
            hub.publish_deck(deck_file, "o2", "chief")
        assert ev["type"] == "deck_published" and ev["data"]["sha256"] == sha and ev["data"]["meta"]["cards"] == 2
        # The organiser is told which cards have no face in the file (read zero-shot at every table).
        not_enrolled = ev["data"]["meta"]["not_enrolled"]
        assert len(not_enrolled) == 52 and "Ah" not in not_enrolled and "7c" not in not_enrolled
        for t in ts:  # the tables come up after it: the retained message waits for them
            t.start()
        wait_for(lambda: all(c.watcher.enrollment is not None for c in cams), what="decks taken into use")
        for c in cams:
            assert Path(c.enrollment_path).read_bytes() == deck_file  # kept for the table's restart
            assert set(c.watcher.enrollment.cards) == {"Ah", "7c"}
        ov = wait_for(lambda: (o := hub.overview()) and all(r["deck"] == sha for r in o["tables"]) and o,
                      what="the overview shows each table reading with the deck")
        assert ov["deck"]["sha256"] == sha and ov["deck"]["by"] == "o"
    finally:
        _stop(ts, hub)
    # The hub's log holds the deck: a restarted hub hands the same file on.
    core = _core_after_restart(broker, 2, tmp_path / "hub")
    assert core.deck is not None and core.deck["sha256"] == sha
    assert (tmp_path / "hub" / core.deck["file"]).read_bytes() == deck_file


def test_only_the_hub_may_hand_out_a_deck(tmp_path: Path, broker: Any, deck_file: bytes) -> None:
    """A table's credential cannot publish the event's deck (the ACL drops it): no table reads it."""
    seen: list[bytes] = []
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="listener")
    c.username_pw_set(*broker.login("ev", "2"))
    c.on_message = lambda _c, _u, msg: seen.append(bytes(msg.payload))
    c.connect("127.0.0.1", broker.port)
    c.subscribe(deck_topic("ev"), 1)
    c.loop_start()
    rogue = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="rogue")
    rogue.username_pw_set(*broker.login("ev", "1"))
    rogue.connect("127.0.0.1", broker.port)
    rogue.loop_start()
    try:
        rogue.publish(deck_topic("ev"), deck_message(deck_file, {}), qos=1, retain=True).wait_for_publish(5)
        hub = HubService(cfg_for(broker, 2), tmp_path / "hub").start()
        try:
            assert hub.wait_connected(10)
            hub.publish_deck(deck_file, "o", "chief")
            wait_for(lambda: seen, what="the hub's deck")
            assert len(seen) == 1 and json.loads(seen[0])["sha256"] == sha256_hex(deck_file)
        finally:
            hub.stop()
    finally:
        for cl in (c, rogue):
            cl.loop_stop()
            cl.disconnect()


@pytest.mark.parametrize("payload, why", [
    (b"\xff\xfe", "not JSON"),
    (b"[" * 100_000, "not JSON"),  # RecursionError escaped the handler: paho's thread ended
    (b'{"sha256": NaN, "file": "aGVsbG8="}', "not JSON"),
    (b"[]", "lacks file"),
    (json.dumps({"sha256": "0" * 64, "file": "!!"}).encode(), "not base64"),
    (json.dumps({"sha256": "0" * 64, "file": "aGVsbG8="}).encode(), "does not match"),
    (json.dumps({"sha256": "0" * 64, "file": ""}).encode(), "size"),
])
def test_a_bad_deck_message_is_refused_with_why(payload: bytes, why: str) -> None:
    with pytest.raises(ValueError, match=why):
        read_deck_message(payload)


def test_a_table_refuses_a_file_that_is_no_enrolment_and_keeps_its_deck(tmp_path: Path, deck_file: bytes) -> None:
    cam = _camera(tmp_path)
    assert take_deck(cam, deck_file, sha256_hex(deck_file)) is True
    before = cam.watcher.enrollment
    assert take_deck(cam, b"garbage", sha256_hex(b"garbage")) is False
    assert cam.watcher.enrollment is before and Path(cam.enrollment_path).read_bytes() == deck_file
    assert take_deck(SimpleNamespace(), deck_file, "x" * 64) is False  # a table without a camera
    data, sha, meta = read_deck_message(deck_message(deck_file, {"cards": 2}))
    assert data == deck_file and sha == sha256_hex(deck_file) and meta == {"cards": 2}


def _listen(t: Any, cam: Any) -> None:
    t.bridge.deck_listeners.append(lambda data, sha, _m, cam=cam: take_deck(cam, data, sha))
    t.bridge.deck_withdrawn_listeners.append(lambda sha, cam=cam: drop_deck(cam, sha))


def test_the_chief_withdraws_the_deck_and_every_table_drops_it(tmp_path: Path, broker: Any, deck_file: bytes) -> None:
    """Withdrawn: each table that reads with the hub's deck deletes its copy and reads unenrolled; a
    table that enrolled its own deck at its panel keeps it; a table that was down hears the retained
    withdrawal when it comes up; a restarted hub still says so."""
    hub = HubService(cfg_for(broker, 3), tmp_path / "hub").start()
    ts = tables(tmp_path, broker, 3)
    cams = [_camera(tmp_path / f"t{t.table_id}") for t in ts]
    for t, cam in zip(ts, cams, strict=True):
        (tmp_path / f"t{t.table_id}").mkdir()
        _listen(t, cam)
    sha = sha256_hex(deck_file)
    try:
        assert hub.wait_connected(10)
        hub.draw_next("o", "chief")
        hub.publish_draw(1, "o", "chief")
        with pytest.raises(EventInputError, match="no event deck"):
            hub.withdraw_deck("o", "chief")
        hub.publish_deck(deck_file, "o", "chief")
        for t in ts:
            t.start()
        wait_for(lambda: all(c.watcher.enrollment is not None for c in cams), what="decks taken into use")
        def decks() -> dict[str, Any]:
            return {r["table"]: r["deck"] for r in hub.overview()["tables"]}

        wait_for(lambda: decks() == {"1": sha, "2": sha, "3": sha}, what="summaries name the deck")
        ts[2].stop()  # table 3 is down while the deck is withdrawn; its copy of the hub's deck stays on disk
        own = b"the table's own deck, enrolled at its panel"
        Path(cams[1].enrollment_path).write_bytes(own)  # table 2 enrolled its own since
        with pytest.raises(EventInputError, match="requires role chief"):
            hub.withdraw_deck("r", "referee")
        ev = hub.withdraw_deck("o", "chief")
        assert ev["type"] == "deck_withdrawn" and ev["data"]["sha256"] == sha
        wait_for(lambda: cams[0].watcher.enrollment is None, what="table 1 drops the deck")
        assert not Path(cams[0].enrollment_path).exists()  # a restart does not read it again
        wait_for(lambda: decks()["1"] is None, what="table 1's summary names no deck")
        assert cams[1].watcher.enrollment is not None and Path(cams[1].enrollment_path).read_bytes() == own
        ov = hub.overview()
        assert ov["deck"] is None and ov["deck_withdrawn"] == sha
        assert Path(cams[2].enrollment_path).read_bytes() == deck_file
        late = tables(tmp_path, broker, 3)[2]  # table 3's Pi comes back up
        _listen(late, cams[2])
        late.start()
        ts[2] = late
        # Its file and the camera's deck both go (one after the other: waited for, not assumed at once).
        wait_for(lambda: not Path(cams[2].enrollment_path).exists() and cams[2].watcher.enrollment is None,
                 what="the late table drops its copy")
    finally:
        _stop(ts, hub)
    core = _core_after_restart(broker, 3, tmp_path / "hub")
    assert core.deck is None and core.deck_withdrawn == sha


def test_a_withdrawal_message_names_one_deck() -> None:
    sha = "ab" * 32
    assert read_withdrawal(withdrawal_message(sha)) == sha
    for other in (deck_message(b"x", {}), b"", b"\xff", b'{"withdrawn": "not a digest"}', b'{"withdrawn": 3}', b"[]"):
        assert read_withdrawal(other) is None
    with pytest.raises(ValueError, match="SHA-256"):
        withdrawal_message("../etc")
    assert drop_deck(SimpleNamespace(), sha) is False  # a table without a camera
