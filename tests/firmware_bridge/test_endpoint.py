"""The link state machine both ends run, on a simulated noisy wire with a simulated clock.

Deterministic (seeded) and fast: thousands of frames each way, with corruption, loss, outages,
a restarting peer, a full ring buffer.
"""

from __future__ import annotations

import random

import pytest

from firmware_bridge.firmware.endpoint import Endpoint
from firmware_bridge.firmware.wire import BUTTON, SET_LAMP, SHOW_TEXT


class Wire:
    """Two endpoints joined by a lossy, corrupting, delaying byte pipe, with one fake clock."""

    def __init__(self, seed: int = 1, flip: float = 0.0, drop: float = 0.0, latency: int = 1) -> None:
        self.now = 0
        self.rng = random.Random(seed)
        self.flip = flip
        self.drop = drop
        self.latency = latency
        self.queue: list[tuple[int, str, bytes]] = []
        self.connected = True
        self.got: dict[str, list] = {"host": [], "ctrl": []}
        self.events: dict[str, list] = {"host": [], "ctrl": []}
        self.host = self._make("host", controller=False, boot=0x1111)
        self.ctrl = self._make("ctrl", controller=True, boot=0x2222)

    def _make(self, name: str, controller: bool, boot: int, capacity: int = 256) -> Endpoint:
        other = "ctrl" if name == "host" else "host"

        def write(data: bytes) -> None:
            if not self.connected:
                return
            out = bytearray()
            for b in data:
                if self.rng.random() < self.drop:
                    continue
                if self.rng.random() < self.flip:
                    b ^= 1 << self.rng.randrange(8)
                out.append(b)
            self.queue.append((self.now + self.latency, other, bytes(out)))

        ep = Endpoint(write, lambda: self.now, lambda a, b: a - b, boot, "t", name, controller=controller,
                      active=not controller, drop_on_new_peer=not controller, capacity=capacity)
        ep.on_message = lambda t, p: self.got[name].append((t, p))
        ep.on_event = lambda n, d: self.events[name].append(n)
        ep.transport_opened()
        return ep

    def reboot_ctrl(self, boot: int, capacity: int = 256) -> None:
        self.queue = [q for q in self.queue if q[1] != "ctrl"]
        self.ctrl = self._make("ctrl", controller=True, boot=boot, capacity=capacity)

    def run(self, ms: int) -> None:
        end = self.now + ms
        while self.now < end:
            due = [q for q in self.queue if q[0] <= self.now]
            self.queue = [q for q in self.queue if q[0] > self.now]
            for _, dst, data in due:
                (self.host if dst == "host" else self.ctrl).feed(data)
            self.host.poll()
            self.ctrl.poll()
            self.now += 1

    def run_until(self, cond, limit: int = 60_000) -> None:
        start = self.now
        while not cond():
            assert self.now - start < limit, "condition not reached in simulated time"
            self.run(1)


def test_handshake_and_exactly_once_over_noise() -> None:
    w = Wire(seed=3, flip=0.01, drop=0.002)
    w.run_until(lambda: w.host.synced and w.ctrl.synced)
    n = 3000
    sent_up = [b"up%05d" % i for i in range(n)]
    sent_down = [b"dn%05d" % i for i in range(n // 3)]
    i = j = 0
    while len(w.got["host"]) < n or len(w.got["ctrl"]) < len(sent_down):
        while i < n and w.ctrl.queued_count() < 200:
            assert w.ctrl.send(BUTTON, sent_up[i])
            i += 1
        while j < len(sent_down) and w.host.queued_count() < 50:
            assert w.host.send(SHOW_TEXT, sent_down[j])
            j += 1
        w.run(1)
        assert w.now < 600_000
    assert [p for _, p in w.got["host"]] == sent_up
    assert [p for _, p in w.got["ctrl"]] == sent_down
    assert w.ctrl.counters["retransmits"] > 0  # the noise did bite
    assert w.host.decoder.errors > 0


def test_outage_replays_queued_frames_once() -> None:
    w = Wire(seed=5)
    w.run_until(lambda: w.host.synced)
    for k in range(10):
        w.ctrl.send(BUTTON, b"a%d" % k)
    w.run(20)
    w.connected = False  # cable pulled: both sides notice on the next heartbeats
    for k in range(100):
        w.ctrl.send(BUTTON, b"b%d" % k)
        w.host.send(SET_LAMP, b"c%d" % k)
    w.run(4000)
    assert not w.host.synced and not w.ctrl.synced
    assert "down" in w.events["host"] and "down" in w.events["ctrl"]
    w.connected = True
    w.run_until(lambda: len(w.got["host"]) == 110 and len(w.got["ctrl"]) == 100)
    w.run(500)
    assert [p for _, p in w.got["host"]] == [b"a%d" % k for k in range(10)] + [b"b%d" % k for k in range(100)]
    assert [p for _, p in w.got["ctrl"]] == [b"c%d" % k for k in range(100)]


def test_controller_reboot_is_a_new_peer_and_host_drops_stale_commands() -> None:
    w = Wire(seed=7)
    w.run_until(lambda: w.host.synced)
    w.connected = False
    for k in range(5):
        w.host.send(SET_LAMP, b"old%d" % k)
    w.reboot_ctrl(0x3333)
    w.connected = True
    w.run_until(lambda: w.host.synced and w.ctrl.synced and w.host.peer.boot_id == 0x3333)
    assert "queue_dropped" in w.events["host"]
    w.host.send(SET_LAMP, b"new")
    w.run_until(lambda: len(w.got["ctrl"]) == 1)
    assert w.got["ctrl"] == [(SET_LAMP, b"new")]


def test_ring_overflow_drops_oldest_unsent_without_a_hole() -> None:
    w = Wire(seed=9)
    w.run_until(lambda: w.host.synced)
    w.connected = False
    w.run(4000)
    dropped = 0
    for k in range(300):
        if not w.ctrl.send(BUTTON, b"%d" % k):
            assert w.ctrl.drop_oldest_pending() is not None
            dropped += 1
            assert w.ctrl.send(BUTTON, b"%d" % k)
    assert dropped == 300 - 256
    w.connected = True
    w.run_until(lambda: len(w.got["host"]) == 256)
    assert [p for _, p in w.got["host"]] == [b"%d" % k for k in range(44, 300)]


def test_version_mismatch_is_reported_with_both_versions() -> None:
    w = Wire(seed=11)
    w.ctrl.version = 2
    w.run(500)
    assert not w.host.synced
    assert w.host.mismatch == (2, "t")
    assert "version_mismatch" in w.events["host"]


def test_sequence_numbers_wrap() -> None:
    w = Wire(seed=13)
    w.ctrl.tx_next = 0xFFF0
    w.run_until(lambda: w.host.synced)
    for k in range(40):
        w.ctrl.send(BUTTON, b"%d" % k)
    w.run_until(lambda: len(w.got["host"]) == 40)
    assert [p for _, p in w.got["host"]] == [b"%d" % k for k in range(40)]


@pytest.mark.slow
def test_long_noisy_soak() -> None:
    w = Wire(seed=17, flip=0.02, drop=0.01)
    w.run_until(lambda: w.host.synced)
    sent = [b"%06d" % i for i in range(30_000)]
    i = 0
    while len(w.got["host"]) < len(sent):
        while i < len(sent) and w.ctrl.queued_count() < 200:
            w.ctrl.send(BUTTON, sent[i])
            i += 1
        w.run(1)
    assert [p for _, p in w.got["host"]] == sent
