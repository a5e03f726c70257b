"""The SSE fan-out buffer: resume after Last-Event-ID, snapshots when a gap cannot be excluded."""

from __future__ import annotations

import json
import threading

from table_service.views.fanout import Broadcaster, parse_last_event_id, sse_message


def _ids(msgs):
    return [int(m.split(b"\n", 1)[0].split(b": ")[1]) for m in msgs]


def make(buffer=8):
    return Broadcaster(lambda: (0, {"last_seq": 0}), buffer)


def test_message_format_is_one_data_line():
    msg = sse_message({"text": "a\nb", "名": "东"}, event="update", msg_id=7)
    lines = msg.decode().split("\n")
    assert lines[0] == "id: 7" and lines[1] == "event: update"
    assert json.loads(lines[2][len("data: "):]) == {"text": "a\nb", "名": "东"}
    assert msg.endswith(b"\n\n")


def test_last_event_id_parsing():
    assert parse_last_event_id("42") == 42
    assert parse_last_event_id(" 7 ") == 7
    assert parse_last_event_id(None) is None
    assert parse_last_event_id("abc") is None
    assert parse_last_event_id("-3") is None


def test_resume_after_id_replays_the_rest():
    b = make()
    for seq in (1, 2, 4, 5):  # 3 was a rejected event: ids may skip
        b.publish(seq, {"seq": seq}, {"last_seq": seq})
    cur = b.cursor_after(2)
    msgs, cur2 = b.wait(cur, 0)
    assert _ids(msgs) == [4, 5]
    assert b.cursor_after(5) == cur2
    assert b.wait(cur2, 0) == ([], cur2)


def test_unknown_or_too_old_id_needs_snapshot():
    b = make(buffer=3)
    assert b.cursor_after(0) is None  # nothing published: cannot prove anything
    for seq in range(1, 8):
        b.publish(seq, {}, {"last_seq": seq})
    assert b.cursor_after(99) is None  # from the future (e.g. another log)
    assert b.cursor_after(2) is None   # 3 and 4 already left the buffer
    assert b.cursor_after(4) is not None
    seq, state, cursor = b.snapshot()
    assert seq == 7 and state == {"last_seq": 7}
    assert b.wait(cursor, 0) == ([], cursor)


def test_slow_stream_that_fell_out_of_the_buffer_gets_none():
    b = make(buffer=2)
    b.publish(1, {}, {"last_seq": 1})
    cur = b.cursor_after(1)
    for seq in range(2, 6):
        b.publish(seq, {}, {"last_seq": seq})
    assert b.wait(cur, 0) is None


def test_stream_sends_snapshot_then_updates_and_resumes():
    b = make()
    stop = threading.Event()
    gen = b.stream(None, heartbeat_s=0.05, stop=stop)
    assert next(gen) == b"retry: 1000\n\n"
    snap = next(gen)
    assert b"event: snapshot" in snap
    b.publish(1, {"n": 1}, {"last_seq": 1})
    assert b"id: 1\nevent: update" in next(gen)
    assert next(gen) == b": keep-alive\n\n"  # nothing new within the heartbeat
    b.publish(2, {"n": 2}, {"last_seq": 2})
    gen.close()
    # Reconnect with Last-Event-ID 1: gets exactly event 2, no snapshot.
    gen2 = b.stream(1, heartbeat_s=0.05, stop=stop)
    next(gen2)
    first = next(gen2)
    assert first.startswith(b"id: 2\nevent: update")
    stop.set()
    b.wake()
    assert list(gen2) in ([], [b": keep-alive\n\n"])


def test_waiting_stream_wakes_on_publish():
    b = make()
    b.publish(1, {}, {"last_seq": 1})
    cur = b.cursor_after(1)
    got = {}

    def waiter():
        got["r"] = b.wait(cur, 5.0)

    t = threading.Thread(target=waiter)
    t.start()
    b.publish(2, {}, {"last_seq": 2})
    t.join(2.0)
    assert not t.is_alive()
    assert _ids(got["r"][0]) == [2]


def test_close_ends_streams():
    b = make()
    gen = b.stream(None, heartbeat_s=5.0, stop=threading.Event())
    next(gen)
    next(gen)
    b.close()
    assert list(gen) == []


def test_buffer_is_bounded_in_bytes():
    b = Broadcaster(lambda: (0, {}), buffer=1000, max_bytes=2000)
    for seq in range(1, 51):
        b.publish(seq, {"pad": "x" * 200}, {"last_seq": seq})
    assert b.cursor_after(50) is not None
    assert b.cursor_after(30) is None  # evicted by size, not by count
    held = b.wait(b.cursor_after(45), 0)[0]
    assert _ids(held) == [46, 47, 48, 49, 50]
    assert sum(len(m) for m in b._msgs) <= 2000
