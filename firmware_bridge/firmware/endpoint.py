"""One end of the reliable link: handshake, sequence numbers, ACK/SACK, retransmit, heartbeats.

Both the Pico firmware and the Pi side run this same state machine (the Pi wraps it in a lock and
two threads), so the two ends cannot disagree about the rules. It is single-threaded and does no
I/O of its own: bytes come in through :meth:`Endpoint.feed`, go out through the ``write``
callable, and time comes from the injected ``ticks_ms``/``ticks_diff`` (MicroPython's ticks wrap).

Why a stream that survives reconnects instead of one per connection: every reliable frame keeps
its sequence number until the peer acknowledges it, and HELLO tells the peer which of our frames
it already has (``rx_boot``/``rx_seq``) and where our stream resumes (``tx_base``). A button press
queued during an outage is therefore sent late, exactly once; a command the controller applied
just before the cable was pulled is not applied again. The controller's send queue is its ring
buffer of numbered button events: frames get a sequence number only when first transmitted, so
the oldest untransmitted events can be dropped on overflow without leaving a hole in the stream.
"""

from .wire import (
    ACK,
    HEARTBEAT,
    HELLO,
    HELLO_CONTROLLER,
    HELLO_REQUEST,
    PROTOCOL_VERSION,
    RELIABLE_TYPES,
    TYPE_NAMES,
    Decoder,
    FrameError,
    HelloInfo,
    encode_frame,
    pack_ack,
    pack_hello,
    seq_diff,
    unpack_ack,
    unpack_hello,
    unpack_hello_prefix,
)

# tx entry fields (lists, not objects: cheaper on MicroPython)
_SEQ = 0
_TYPE = 1
_PAYLOAD = 2
_SENT = 3
_TRIES = 4
_SACKED = 5


class Endpoint:
    """Link state machine for one end.

    Callbacks (attributes, set by the owner):

    * ``on_message(ftype, payload)``: a reliable frame delivered in order, exactly once;
    * ``on_event(name, detail)``: ``"up"`` (HelloInfo), ``"down"`` (reason str), ``"peer_new"``
      ((new HelloInfo, previous HelloInfo or None)), ``"version_mismatch"`` ((peer_version, peer_fw)), ``"queue_dropped"``
      (count), ``"skipped"`` (count of peer frames the peer gave up on).

    ``clock_ms``: a callable giving this end's clock (ms since its boot) to put into every HELLO it
    sends, or None to send none. The controller passes the clock of its BUTTON events, so that the
    host learns where that clock stands *now* on the host's own clock: after a host restart the
    first press the controller kept through the outage can be placed at the moment it was made,
    not at the moment it arrived. A peer's HelloInfo carries ``received_ticks`` (our ticks when it
    came) beside its ``clock_ms``.
    """

    def __init__(self, write, ticks_ms, ticks_diff, boot_id, fw_version, ident, seats=4, controller=False,
                 version=PROTOCOL_VERSION, heartbeat_ms=1000, window=32, rx_window=64, capacity=256,
                 rto_min_ms=30, rto_max_ms=2000, hello_min_ms=50, hello_max_ms=500, active=True,
                 drop_on_new_peer=False, clock_ms=None):
        self.write = write
        self.ticks_ms = ticks_ms
        self.ticks_diff = ticks_diff
        self.boot_id = boot_id & 0xFFFFFFFF
        self.fw_version = fw_version
        self.ident = ident
        self.seats = seats
        self.controller = controller
        self.version = version
        self.heartbeat_ms = heartbeat_ms
        self.window = window
        self.rx_window = rx_window
        self.capacity = capacity
        self.rto_min_ms = rto_min_ms
        self.rto_max_ms = rto_max_ms
        self.hello_min_ms = hello_min_ms
        self.hello_max_ms = hello_max_ms
        self.active = active
        self.drop_on_new_peer = drop_on_new_peer
        self.clock_ms = clock_ms
        self.on_message = None
        self.on_event = None
        self.decoder = Decoder()

        self.open = False
        self.synced = False
        self.peer = None
        self.mismatch = None
        self.rx_boot = 0
        self.rx_last = 0
        # None: every frame sent acknowledges what was received (the controller). A number: what
        # the owner has handled so far (the host's link sets it once its callbacks have returned),
        # so that no frame this end sends tells the peer to forget what is not yet written down.
        self.ack_upto = None
        self.rx_buf = {}
        self.tx = []
        self.inflight = 0
        self.tx_next = 1
        now = ticks_ms()
        self.last_rx = now
        self.last_tx = now
        self.next_hello = now
        self.hello_interval = hello_min_ms
        self.hello_pending = False
        self.srtt = 0
        self.rttvar = 0
        self.rto = max(rto_min_ms, 100)
        self.need_ack = False
        self.last_rtx = None
        self.counters = {
            "tx_frames": 0, "rx_frames": 0, "retransmits": 0, "duplicates": 0, "out_of_window": 0,
            "unsynced_drops": 0, "version_errors": 0, "delivered": 0, "hellos_sent": 0, "hellos_received": 0,
            "heartbeats_missed": 0, "bad_payloads": 0,
        }

    # ------------------------------------------------------------------ transport
    def transport_opened(self):
        """The port (re)appeared: forget partial input and say HELLO at once."""
        self.open = True
        self.decoder.reset()
        self.synced = False
        now = self.ticks_ms()
        self.last_rx = now
        self.hello_interval = self.hello_min_ms
        self.next_hello = now
        self.hello_pending = True

    def transport_closed(self, reason="port closed"):
        """The port went away; queued frames stay queued for the next connection."""
        was = self.synced
        self.open = False
        self.synced = False
        if was:
            self._event("down", reason)

    # ------------------------------------------------------------------ sending
    def send(self, ftype, payload):
        """Queue a reliable frame. ``payload`` is bytes or a callable returning bytes at each
        transmission. Returns False if the queue is full (nothing queued)."""
        if len(self.tx) >= self.capacity:
            return False
        self.tx.append([-1, ftype, payload, None, 0, False])
        self._pump()
        return True

    def pending_count(self):
        """Frames queued but never transmitted."""
        return len(self.tx) - self.inflight

    def queued_count(self):
        return len(self.tx)

    def drop_oldest_pending(self):
        """Drop the oldest never-transmitted frame; returns its (type, payload) or None."""
        if self.inflight < len(self.tx):
            e = self.tx.pop(self.inflight)
            return e[_TYPE], e[_PAYLOAD]
        return None

    def tx_base(self):
        return self.tx[0][_SEQ] if self.inflight else self.tx_next

    def _emit(self, ftype, seq, payload):
        if not self.open:
            return
        ack = self._ack() if self.peer is not None else 0
        try:
            data = encode_frame(ftype, seq, ack, payload, self.version)
        except FrameError:
            self.counters["bad_payloads"] += 1
            return
        self.last_tx = self.ticks_ms()
        self.counters["tx_frames"] += 1
        self.write(data)

    def _send_hello(self, request):
        flags = (HELLO_REQUEST if request else 0) | (HELLO_CONTROLLER if self.controller else 0)
        info = HelloInfo(self.version, self.fw_version, flags, self.boot_id, self.rx_boot,
                         self._ack() if self.peer is not None else 0, self.tx_base(), self.seats, self.ident,
                         self.clock_ms() if self.clock_ms is not None else None)
        self.counters["hellos_sent"] += 1
        self._emit(HELLO, 0, pack_hello(info))

    def _ack(self):
        """The last received frame this end acknowledges (see ``ack_upto``)."""
        return self.rx_last if self.ack_upto is None else self.ack_upto

    def handled(self, upto=None):
        """The owner has handled every frame delivered so far (or up to and including ``upto``, a
        frame it still holds comes next): acknowledge them from now on. Never moves backwards."""
        if self.ack_upto is None:
            return
        if upto is None or seq_diff(upto, self.rx_last) > 0:
            upto = self.rx_last
        if seq_diff(upto, self.ack_upto) > 0:
            self.ack_upto = upto
            self.need_ack = True

    def _send_ack(self):
        # The selective bits count from the acknowledged frame, as the peer reads them: received
        # frames past it (handed over but not yet handled, or waiting for a gap) are marked there.
        sack = 0
        ack = self._ack()
        base = ack + 2
        if self.rx_buf or ack != self.rx_last:
            for i in range(32):
                s = (base + i) & 0xFFFF
                if s in self.rx_buf or seq_diff(s, self.rx_last) <= 0:
                    sack |= 1 << i
        self.need_ack = False
        self._emit(ACK, 0, pack_ack(sack))

    def _transmit(self, e, now):
        if e[_SENT] is not None:
            self.counters["retransmits"] += 1
            self.last_rtx = now
        e[_SENT] = now
        e[_TRIES] += 1
        p = e[_PAYLOAD]
        self._emit(e[_TYPE], e[_SEQ], p() if callable(p) else p)

    def _pump(self):
        """Number and transmit queued frames while the window has room."""
        if not (self.synced and self.open):
            return
        now = self.ticks_ms()
        tx = self.tx
        while self.inflight < len(tx) and self.inflight < self.window:
            e = tx[self.inflight]
            e[_SEQ] = self.tx_next
            self.tx_next = (self.tx_next + 1) & 0xFFFF
            self.inflight += 1
            self._transmit(e, now)
        for i in range(self.inflight):
            if tx[i][_SENT] is None:
                self._transmit(tx[i], now)

    # ------------------------------------------------------------------ receiving
    def feed(self, data):
        """Process received bytes (any amount, any garbage)."""
        for frame in self.decoder.feed(data):
            self._handle(frame)
        if self.need_ack and self.synced:
            self._send_ack()
        self._pump()

    def handle_frame(self, frame):
        """Process one decoded frame (the Pi side's reader calls this from its frame hook)."""
        self._handle(frame)

    def flush(self):
        """Send the pending ACK and any queued frames (after a batch of :meth:`handle_frame`)."""
        if self.need_ack and self.synced:
            self._send_ack()
        self._pump()

    def _event(self, name, detail):
        if self.on_event is not None:
            self.on_event(name, detail)

    def _handle(self, frame):
        self.counters["rx_frames"] += 1
        if frame.type == HELLO:
            self._on_hello(frame)
            return
        if frame.version != self.version:
            self.counters["version_errors"] += 1
            return
        if not self.synced or self.peer is None:
            self.counters["unsynced_drops"] += 1
            # The controller rebooted (or the host restarted) behind our back: ask for a HELLO.
            if self.open and not self.active and not self.hello_pending:
                self.hello_pending = True
            return
        self.last_rx = self.ticks_ms()
        if frame.type == ACK:
            try:
                sack = unpack_ack(frame.payload)
            except FrameError:
                self.counters["bad_payloads"] += 1
                return
            self._on_ack(frame.ack, sack)
            return
        self._on_ack(frame.ack, 0)
        if frame.type == HEARTBEAT:
            return
        if frame.type in RELIABLE_TYPES or frame.type not in TYPE_NAMES:
            # A type this end does not know (the other runs newer code) is sequenced and delivered
            # like any other, so it is acknowledged and said (the controller answers it with an
            # ``unknown_type`` error; the host reports it); left out of the sequence, it would hold
            # back every frame after it for good.
            self._on_reliable(frame)
        else:
            self.counters["bad_payloads"] += 1

    def _on_hello(self, frame):
        self.counters["hellos_received"] += 1
        try:
            peer_version, peer_fw = unpack_hello_prefix(frame.payload)
        except FrameError:
            self.counters["bad_payloads"] += 1
            return
        if frame.version != self.version or peer_version != self.version:
            first = self.mismatch is None
            self.mismatch = (peer_version, peer_fw)
            was = self.synced
            self.synced = False
            if was:
                self._event("down", "version mismatch")
            if first:
                self._event("version_mismatch", self.mismatch)
            if self.controller:
                # Tell the host who we are, so that its error can name both versions.
                self._send_hello(False)
            return
        try:
            h = unpack_hello(frame.payload)
        except FrameError:
            self.counters["bad_payloads"] += 1
            return
        self.mismatch = None
        self.last_rx = self.ticks_ms()
        h.received_ticks = self.last_rx  # beside the peer's clock_ms: both clocks at one moment
        tx_changed = False
        if self.peer is None or h.boot_id != self.rx_boot:
            known_before = self.peer
            self.rx_boot = h.boot_id
            self.rx_last = (h.tx_base - 1) & 0xFFFF
            if self.ack_upto is not None:  # a new peer: nothing of its is waiting to be handled
                self.ack_upto = self.rx_last
            self.rx_buf = {}
            if self.drop_on_new_peer and self.tx:
                dropped = len(self.tx)
                self.tx = []
                self.inflight = 0
                tx_changed = True
                self._event("queue_dropped", dropped)
            self.peer = h
            self._event("peer_new", (h, known_before))
        else:
            skip = seq_diff(h.tx_base, (self.rx_last + 1) & 0xFFFF)
            if skip > 0:
                # The peer gave up on frames we never got (it dropped its queue): move on.
                self.rx_last = (h.tx_base - 1) & 0xFFFF
                if self.ack_upto is not None and seq_diff(self.rx_last, self.ack_upto) > 0:
                    self.ack_upto = self.rx_last  # none of those reached us to be handled
                for s in list(self.rx_buf):
                    if seq_diff(s, self.rx_last) <= 0:
                        del self.rx_buf[s]
                self._drain()
                self._event("skipped", skip)
            self.peer = h
        if h.rx_boot == self.boot_id:
            self._release(h.rx_seq)
        # Everything still unacknowledged goes out again on the fresh connection.
        for i in range(self.inflight):
            self.tx[i][_SENT] = None
            self.tx[i][_SACKED] = False
        was = self.synced
        self.synced = True
        self.hello_pending = False
        self.hello_interval = self.hello_min_ms
        if h.flags & HELLO_REQUEST or tx_changed:
            self._send_hello(False)
        if not was:
            self._event("up", h)
        self._pump()

    def _release(self, ack):
        """Drop frames up to and including ``ack`` from the send queue."""
        if not self.inflight:
            return
        first = self.tx[0][_SEQ]
        n = seq_diff(ack, first) + 1
        if n <= 0 or n > self.inflight:
            return  # stale or bogus
        # RTT from the newest frame this ACK covers, if it went out once and after the last
        # retransmission (Karn's rule; an ACK held back by a hole would inflate the estimate).
        e = self.tx[n - 1]
        if not e[_SACKED]:
            self._sample(e)
        del self.tx[:n]
        self.inflight -= n

    def _sample(self, e):
        sent = e[_SENT]
        if e[_TRIES] == 1 and sent is not None and (self.last_rtx is None or self.ticks_diff(sent, self.last_rtx) > 0):
            self._rtt_sample(self.ticks_diff(self.ticks_ms(), sent))

    def _rtt_sample(self, r):
        if r < 0:
            return
        if self.srtt == 0:
            self.srtt = r
            self.rttvar = r // 2
        else:
            self.rttvar = (3 * self.rttvar + abs(self.srtt - r)) // 4
            self.srtt = (7 * self.srtt + r) // 8
        self.rto = min(self.rto_max_ms, max(self.rto_min_ms, self.srtt + 4 * self.rttvar))

    def _on_ack(self, ack, sack):
        self._release(ack)
        if not sack or not self.inflight:
            return
        base = (ack + 2) & 0xFFFF
        highest = -1
        for i in range(self.inflight):
            e = self.tx[i]
            k = seq_diff(e[_SEQ], base)
            if 0 <= k < 32 and (sack >> k) & 1:
                if not e[_SACKED]:
                    e[_SACKED] = True
                    self._sample(e)
                highest = i
        if highest < 0:
            return
        # Selective repeat: frames the peer skipped over are missing; resend them once an RTT
        # has passed since their last transmission (so one loss costs one extra frame).
        now = self.ticks_ms()
        guard = max(2, self.srtt + self.srtt // 2)
        for i in range(highest):
            e = self.tx[i]
            if not e[_SACKED] and e[_SENT] is not None and self.ticks_diff(now, e[_SENT]) >= guard:
                self._transmit(e, now)

    def _on_reliable(self, frame):
        self.need_ack = True
        s = frame.seq
        d = seq_diff(s, (self.rx_last + 1) & 0xFFFF)
        if d == 0:
            self.rx_last = s
            self._deliver(frame.type, frame.payload)
            self._drain()
        elif d < 0:
            self.counters["duplicates"] += 1
        elif d < self.rx_window:
            if s in self.rx_buf:
                self.counters["duplicates"] += 1
            else:
                self.rx_buf[s] = (frame.type, frame.payload)
        else:
            self.counters["out_of_window"] += 1

    def _drain(self):
        while self.rx_buf:
            nxt = (self.rx_last + 1) & 0xFFFF
            item = self.rx_buf.pop(nxt, None)
            if item is None:
                break
            self.rx_last = nxt
            self._deliver(item[0], item[1])

    def _deliver(self, ftype, payload):
        self.counters["delivered"] += 1
        if self.on_message is not None:
            self.on_message(ftype, payload)

    # ------------------------------------------------------------------ timers
    def poll(self):
        """Run timers (HELLO retries, heartbeats, link-down detection, retransmits).

        Returns the number of milliseconds until it next needs to run.
        """
        if not self.open:
            return 1000
        now = self.ticks_ms()
        diff = self.ticks_diff
        if not self.synced:
            due = diff(now, self.next_hello) >= 0
            if due and (self.hello_pending or self.active):
                self._send_hello(True)
                self.hello_pending = False
                self.next_hello = now + self.hello_interval
                self.hello_interval = min(self.hello_max_ms, self.hello_interval * 2)
            if self.active or self.hello_pending:
                return max(1, diff(self.next_hello, now))
            return self.heartbeat_ms
        # Down after three missed heartbeats (plus half an interval for scheduling jitter).
        silent = diff(now, self.last_rx)
        if silent > 3 * self.heartbeat_ms + self.heartbeat_ms // 2:
            self.counters["heartbeats_missed"] += 3
            self.synced = False
            self.hello_interval = self.hello_min_ms
            self.next_hello = now
            self._event("down", f"no heartbeat for {silent} ms")
            return 1
        if self.need_ack:
            self._send_ack()
        if diff(now, self.last_tx) >= self.heartbeat_ms:
            self._emit(HEARTBEAT, 0, b"")
        wait = self.heartbeat_ms - diff(now, self.last_tx)
        wait = min(wait, 3 * self.heartbeat_ms + self.heartbeat_ms // 2 - silent + 1)
        # A frame below the highest SACKed one is known to be missing: it is resent after about
        # one RTT instead of a full RTO (loss on a noisy line then costs milliseconds, not a stall).
        hole = -1
        for i in range(self.inflight):
            if self.tx[i][_SACKED]:
                hole = i
        fast = max(3, self.srtt + 2 * self.rttvar + 2)
        for i in range(self.inflight):
            e = self.tx[i]
            if e[_SACKED]:
                continue
            if e[_SENT] is None:
                self._transmit(e, now)
                continue
            base = fast if i < hole else self.rto
            timeout = min(self.rto_max_ms, base << min(e[_TRIES] - 1, 6))
            left = timeout - diff(now, e[_SENT])
            if left <= 0:
                self._transmit(e, now)
                left = min(self.rto_max_ms, base << min(e[_TRIES] - 1, 6))
            if left < wait:
                wait = left
        return max(1, wait)

    def status(self):
        """A small dict for diagnostics (both ends report it)."""
        return {
            "synced": self.synced, "open": self.open, "queued": len(self.tx), "inflight": self.inflight,
            "rto_ms": self.rto, "srtt_ms": self.srtt, "rx_errors": self.decoder.errors,
            "crc_errors": self.decoder.crc_errors, "oversize": self.decoder.oversize,
        }
