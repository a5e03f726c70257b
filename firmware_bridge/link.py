"""The Pi side of the serial link to the screen controller.

:class:`Link` opens any pyserial URL through :func:`serial.serial_for_url` (``/dev/ttyACM0``,
``hwgrep://2e8a:0005``, ``spy:///dev/ttyACM0?file=traffic.txt``, the emulator's symlink), runs a
reader thread that reopens the port whenever it disappears, and a timer thread for heartbeats and
retransmits. The protocol rules live in :class:`~firmware_bridge.firmware.endpoint.Endpoint`, the
same code the controller runs; this module adds the threads, the lock and the reconnect loop.

Received messages are handed out in order through :attr:`Link.messages` (a queue) and the
``on_message`` callback; link state changes through ``on_status``. Callbacks run on the link's own
threads, never under its lock, and must be quick.
"""

from __future__ import annotations

import contextlib
import logging
import os
import queue
import random
import threading
import time
from collections.abc import Callable

import serial

from .errors import LinkClosedError, LinkError, VersionMismatchError
from .firmware.endpoint import Endpoint
from .firmware.wire import (
    HELLO,
    HELLO_CONTROLLER,
    PROTOCOL_VERSION,
    Decoder,
    Frame,
    FrameError,
    HelloInfo,
    seq_diff,
    unpack_hello,
)
from .link_values import FrameProtocol, LinkStatus, Message

__all__ = ["Link"]

log = logging.getLogger(__name__)

HOST_VERSION = "gt-0.1.0"


class _LinkProtocol(FrameProtocol):
    def __init__(self, link: Link) -> None:
        super().__init__()
        self.link = link
        self.decoder = link.decoder  # one decoder for the link's lifetime: its counters accumulate

    def handle_frame(self, frame: Frame) -> None:
        self.link._handle_frame(frame)

    def frames_done(self, count: int) -> None:
        self.link._after_frames()
        self.link._log_rx_errors()


class Link:
    """Reliable, reconnecting link to one screen controller.

    :param url: any pyserial URL.
    :param on_message: called with each :class:`Message` (also put on :attr:`messages`).
    :param on_status: called with each :class:`LinkStatus`.
    :param heartbeat_s: heartbeat interval; the link is down after three missed.
    :param reconnect_s: pause between attempts to reopen a vanished port.
    :param capacity: how many commands may wait for a down link before :meth:`send` refuses.
    """

    def __init__(self, url: str, *, on_message: Callable[[Message], None] | None = None,
                 on_status: Callable[[LinkStatus], None] | None = None, ident: str = "guandan-table",
                 heartbeat_s: float = 1.0, reconnect_s: float = 0.1, capacity: int = 1024, window: int = 32,
                 rto_min_ms: int = 30, serial_options: dict | None = None) -> None:
        self.url = url
        self.on_message = on_message
        self.on_status = on_status
        self.messages: queue.Queue[Message] = queue.Queue()
        self.reconnect_s = reconnect_s
        # exclusive: a second program on the same port (``selftest`` while ``run`` serves the table)
        # split the byte stream with it, and each lost about half of the presses; now it is refused.
        self.serial_options = {"baudrate": 115200, "timeout": 0.5, "write_timeout": 0.5, "exclusive": True,
                               **(serial_options or {})}
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._serial: serial.SerialBase | None = None
        self._closing = False
        self._opened = False
        self._threads: list[threading.Thread] = []
        self._pending: list[tuple[str, object]] = []  # callbacks gathered under the lock
        self._dispatch_lock = threading.Lock()
        self.ep = Endpoint(self._write, self._ticks, _ticks_diff, random.getrandbits(32) or 1, HOST_VERSION, ident,
                           seats=4, controller=False, version=PROTOCOL_VERSION,
                           heartbeat_ms=int(heartbeat_s * 1000), window=window, capacity=capacity,
                           rto_min_ms=rto_min_ms, active=True, drop_on_new_peer=True)
        #: Frame decoder of the reader (its counters: frames, errors, crc_errors, oversize).
        self.decoder = Decoder()
        self.decoder.on_error = self._rx_refused
        self.ep.on_message = self._ep_message
        self.ep.on_event = self._ep_event
        # A frame is acknowledged once ``on_message`` has returned for it (_after_frames), never by
        # a heartbeat or command another thread sends meanwhile: a press is in the log first.
        self.ep.ack_upto = self.ep.rx_last
        #: Frames an owner is still writing down (:meth:`hold_ack`), oldest first: nothing from the
        #: oldest on is acknowledged until each is released.
        self._held: dict[int, None] = {}
        #: Counts the controller boots and sequence skips seen: a hold of an earlier numbering is void.
        self._peer_gen = 0
        #: The last frame whose ``on_message`` has returned (what may be acknowledged when nothing is held).
        self._handled_upto = self.ep.rx_last
        self.last_error: str | None = None
        #: The timer thread's last internal error (logged once while it repeats, whatever other errors
        #: the link meets meanwhile: a link said down between two of them did not make it a new error).
        self.timer_error: str | None = None
        self.peer: HelloInfo | None = None
        self.mismatch: tuple[int, str] | None = None
        self._down_since: float | None = time.monotonic()
        #: Seconds from losing the link (port gone or heartbeats missed) to being back up.
        self.recovery_times: list[float] = []
        self.port_opens = 0
        self.port_losses = 0
        self._connected_evt = threading.Event()
        self._up_dispatched = False
        #: HELLOs refused because a host, not a controller, sent them: our own frames echoed back
        #: (``loop://``, a loopback plug, a terminal with echo on, MicroPython's REPL).
        self.echoes = 0
        self._echo_said = False
        self._rx_reasons: dict[str, int] = {}  # why frames were refused since the last log line
        self._ep_refused_seen: dict[str, int] = {}
        self._rx_error_log_t = -1e9

    # ------------------------------------------------------------------ lifecycle
    def open(self) -> Link:
        """Start the reader and timer threads (the port itself may appear later)."""
        if self._opened:
            return self
        self._opened = True
        self._closing = False
        for name, target in (("link-reader", self._reader_loop), ("link-timer", self._timer_loop)):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)
        return self

    def close(self) -> None:
        """Stop the threads and close the port. Queued commands are discarded."""
        self._closing = True
        with self._cond:
            self._cond.notify_all()
            ser = self._serial
        if ser is not None:
            with contextlib.suppress(Exception):
                ser.cancel_read()
        for t in self._threads:
            t.join(3)
        self._threads = []
        self._close_port()
        self._opened = False

    def __enter__(self) -> Link:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Link({self.url!r}, connected={self.is_connected})"

    # ------------------------------------------------------------------ state
    @property
    def is_connected(self) -> bool:
        """True while the handshake is done and heartbeats arrive.

        It turns true only after the ``connected`` status has been handed to ``on_status`` (and,
        before it, ``controller_new``), so that a caller who waits for the connection never races
        the owner's reaction to a restarted controller.
        """
        return self.ep.synced and self._serial is not None and self._up_dispatched

    @property
    def closing(self) -> bool:
        """True once :meth:`close` has begun (a ``disconnected`` status then is the program's doing)."""
        return self._closing

    def wait_for_connected(self, timeout: float | None = None) -> bool:
        """Block until connected (True) or ``timeout`` seconds pass (False)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not self.is_connected:
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                return False
            self._connected_evt.wait(0.05 if left is None else min(left, 0.05))
        return True

    def stats(self) -> dict:
        """Counters for diagnostics and benchmarks."""
        with self._lock:
            d = dict(self.ep.counters)
            d.update(self.ep.status())
        dec = self.decoder
        d.update(rx_good_frames=dec.frames, rx_errors=dec.errors, crc_errors=dec.crc_errors, oversize=dec.oversize,
                 last_decode_error=dec.last_error)
        d.update(port_opens=self.port_opens, port_losses=self.port_losses,
                 recovery_times=list(self.recovery_times))
        return d

    # ------------------------------------------------------------------ sending
    def send(self, ftype: int, payload: bytes | Callable[[], bytes]) -> None:
        """Queue one reliable command; it is delivered exactly once, also across reconnects.

        :raises LinkClosedError: if the link is closed.
        :raises VersionMismatchError: if the controller speaks another protocol version.
        :raises LinkError: if :attr:`capacity` commands are already waiting.
        """
        if not self._opened or self._closing:
            raise LinkClosedError("链路已关闭 / link is closed")
        with self._cond:
            mismatch = self.ep.mismatch  # cleared by the endpoint as soon as a compatible HELLO arrives
            ok = mismatch is None and self.ep.send(ftype, payload)
            self._cond.notify_all()
        if mismatch is not None:
            raise VersionMismatchError(self._mismatch_text(mismatch))
        if not ok:
            raise LinkError(f"发送队列已满（{self.ep.capacity} 条命令等待控制器） / "
                            f"send queue full ({self.ep.capacity} commands waiting for the controller)")

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Block until every queued command has been acknowledged by the controller (True) or
        ``timeout`` seconds pass (False)."""
        with self._cond:
            return self._cond.wait_for(lambda: self.ep.queued_count() == 0, timeout)

    # ------------------------------------------------------------------ internals
    @staticmethod
    def _ticks() -> int:
        # time.monotonic() in ms: also the clock of a controller HELLO's ``received_ticks``, which
        # ScreenController.controller_info hands on as ``clock_host_ms`` (set against presses).
        return int(time.monotonic() * 1000)

    def _write(self, data: bytes) -> None:
        ser = self._serial
        if ser is None:
            return
        try:
            ser.write(data)
        except serial.SerialTimeoutException:
            pass  # the far end is not reading; the frame will be retransmitted
        except (serial.SerialException, OSError, TypeError, AttributeError) as exc:
            self._note_error(f"写入失败（{exc}） / write failed: {exc}")

    def _note_error(self, text: str) -> None:
        self.last_error = text

    def _ep_message(self, ftype: int, payload: bytes) -> None:
        # Under the lock, from the endpoint's delivery: its rx_last is this frame's number.
        self._pending.append(("message", Message(ftype, bytes(payload), self.ep.rx_last, self._peer_gen)))

    def _ep_event(self, name: str, detail: object) -> None:
        if name in ("peer_new", "skipped"):
            # The endpoint has moved its acknowledgement on by itself (a new numbering, or frames
            # the controller gave up on): holds of the old numbering mean nothing any more.
            self._peer_gen += 1
            self._held.clear()
            self._handled_upto = self.ep.rx_last
        self._pending.append(("event", (name, detail)))

    def hold_ack(self, msg: Message) -> Callable[[], None]:
        """Keep ``msg`` (and every frame after it) unacknowledged until the returned function is called.

        For an owner that hands the frame on to be written down elsewhere (the service queues a
        press for its event log) and must not block the reader meanwhile: the controller keeps the
        frame, and sends it again after a host restart, until it is released. Call it from
        ``on_message`` (before it returns); the release may come from any thread, and more than once.
        A message of an earlier controller boot, not received by this link, or already acknowledged
        (held after ``on_message`` returned) holds nothing."""
        with self._cond:
            if msg.seq < 0 or msg.peer_gen != self._peer_gen or (
                    self.ep.ack_upto is not None and seq_diff(msg.seq, self.ep.ack_upto) <= 0):
                return _nothing  # not ours to hold, or acknowledged already (held too late)
            self._held[msg.seq] = None
            gen = self._peer_gen

        def release() -> None:
            with self._cond:
                if gen != self._peer_gen or msg.seq not in self._held:
                    return
                del self._held[msg.seq]
                self._acknowledge_handled()
                self._cond.notify_all()  # the timer thread sends the acknowledgement

        return release

    def _acknowledge_handled(self) -> None:
        """Acknowledge what ``on_message`` has returned for, short of the oldest frame still held
        (call with the lock held)."""
        upto = self._handled_upto
        if self._held:
            oldest = next(iter(self._held))
            if seq_diff(oldest, upto) <= 0:
                upto = (oldest - 1) & 0xFFFF
        self.ep.handled(upto)

    def _handle_frame(self, frame: Frame) -> None:
        if frame.type == HELLO and _from_a_host(frame):
            # Without this the host took its own echoed HELLO for a controller's, said "connected"
            # and sent every command into the echo: nothing was shown and nothing was said.
            self.echoes += 1
            if not self._echo_said:
                self._echo_said = True
                self._status("port_error", f"串口 {self.url} 回显本机的帧（回环或终端回显），不是隔板屏控制器 / "
                                           f"{self.url} echoes the host's own frames (a loopback or a terminal echo), not a screen controller")
            return
        with self._lock:
            self.ep.handle_frame(frame)

    def _rx_refused(self, reason: str) -> None:
        key = reason.split(" (", 1)[0]  # "short frame (8 bytes)" and "(9 bytes)" are one reason
        self._rx_reasons[key] = self._rx_reasons.get(key, 0) + 1

    def _log_rx_errors(self, *, now_anyway: bool = False) -> None:
        """Log every refused frame's reason, at most one line a second (a noisy line or a flood of
        10,000 bad frames must not bury the log): how many of each since the last line. Frames
        whose CRC held but the endpoint refused (a malformed payload, a sequence number out of
        the window, another protocol version) are counted by the endpoint and said here too."""
        for counter, reason in _EP_REFUSALS:
            n = self.ep.counters[counter] - self._ep_refused_seen.get(counter, 0)
            if n > 0:
                self._ep_refused_seen[counter] = self.ep.counters[counter]
                self._rx_reasons[reason] = self._rx_reasons.get(reason, 0) + n
        now = time.monotonic()
        if not self._rx_reasons or (now - self._rx_error_log_t < 1.0 and not now_anyway):
            return
        reasons, self._rx_reasons = self._rx_reasons, {}
        self._rx_error_log_t = now
        n = sum(reasons.values())
        why = ", ".join(f"{k} ×{v}" for k, v in reasons.items())
        log.warning("串口 %s 丢弃 %d 个无效帧 / %d invalid frames dropped from %s: %s (total %d)",
                    self.url, n, n, self.url, why, self.decoder.errors)

    def _after_frames(self) -> None:
        # The frames are handed to ``on_message`` first and acknowledged after it returns: a press
        # the host has written to its log is one the controller may forget, and a host that dies
        # before writing it leaves it unacknowledged, so the controller sends it again.
        self._dispatch()
        with self._cond:
            self._handled_upto = self.ep.rx_last
            self._acknowledge_handled()  # only now may any frame sent (ACK, heartbeat, command) acknowledge them
            self.ep.flush()
            self._cond.notify_all()

    def _dispatch(self, wait: bool = True) -> bool:
        """Run gathered callbacks outside the endpoint lock, one thread at a time, in order.

        ``wait=False`` (the timer): return False at once when another thread is dispatching (its
        loop takes what was gathered meanwhile), so heartbeats go on while a callback runs."""
        if not self._dispatch_lock.acquire(blocking=wait):
            return False
        try:
            self._dispatch_all()
        finally:
            self._dispatch_lock.release()
        return True

    def _dispatch_all(self) -> None:
        while True:
            with self._lock:
                if not self._pending:
                    return
                items, self._pending = self._pending, []
            for kind, item in items:
                try:
                    if kind == "message":
                        assert isinstance(item, Message)
                        self.messages.put(item)
                        if self.on_message is not None:
                            self.on_message(item)
                    else:
                        name, detail = item  # type: ignore[misc]
                        self._on_event(name, detail)
                except Exception:
                    log.exception("link callback failed")

    def _status(self, kind: str, message: str, detail: object = None) -> None:
        st = LinkStatus(kind, message, self.peer, detail)
        if kind in ("port_error", "version_mismatch", "disconnected"):
            self.last_error = message
        if self.on_status is not None:
            try:
                self.on_status(st)
            except Exception:  # an owner's bug must not end the reader thread (no reconnects after it)
                log.exception("link on_status callback failed")

    @staticmethod
    def _mismatch_text(mismatch: tuple[int, str]) -> str:
        v, fw = mismatch
        return (f"协议版本不匹配：主机为 v{PROTOCOL_VERSION}，控制器为 v{v}（固件 {fw}） / "
                f"protocol version mismatch: host speaks v{PROTOCOL_VERSION}, "
                f"controller speaks v{v} (firmware {fw})")

    def _on_event(self, name: str, detail: object) -> None:
        if name == "up":
            assert isinstance(detail, HelloInfo)
            self.peer = detail
            self.mismatch = None
            if self._down_since is not None:
                self.recovery_times.append(time.monotonic() - self._down_since)
                self._down_since = None
            self._status("connected", f"已连接 {detail.ident}（固件 {detail.fw_version}） / "
                                      f"connected to {detail.ident} (firmware {detail.fw_version})")
            self._up_dispatched = True
            self._connected_evt.set()
        elif name == "down":
            if self._down_since is None:
                self._down_since = time.monotonic()
            self._up_dispatched = False
            self._connected_evt.clear()
            self._status("disconnected", f"未连接（{detail}） / not connected: {detail}")
        elif name == "peer_new":
            assert isinstance(detail, tuple)
            new, old = detail
            self.peer = new
            if old is None:
                text = (f"发现控制器 {new.ident}（固件 {new.fw_version}） / "
                        f"controller {new.ident} (firmware {new.fw_version}) found")
            else:
                text = (f"控制器 {new.ident} 已重启（启动号 {old.boot_id:#010x} -> {new.boot_id:#010x}） / "
                        f"controller {new.ident} restarted (boot {old.boot_id:#010x} -> {new.boot_id:#010x})")
            self._status("controller_new", text, old)
        elif name == "version_mismatch":
            assert isinstance(detail, tuple)
            self.mismatch = detail
            self._status("version_mismatch", self._mismatch_text(detail), detail)
        elif name == "queue_dropped":
            self._status("queue_dropped", f"控制器重启，丢弃 {detail} 条旧命令 / controller restarted: "
                                          f"{detail} queued commands dropped (state is re-sent)", detail)
        elif name == "skipped":
            self._status("skipped", f"跳过 {detail} 帧 / skipped {detail} frames the controller gave up on", detail)

    def _close_port(self) -> None:
        with self._lock:
            ser, self._serial = self._serial, None
            if ser is not None:
                self.ep.transport_closed("串口断开 / port lost")
        if ser is not None:
            with contextlib.suppress(Exception):
                ser.close()
        self._dispatch()

    def _reader_loop(self) -> None:
        last_open_error = None
        while not self._closing:
            try:
                ser = serial.serial_for_url(self.url, **self.serial_options)
            except Exception as exc:  # pyserial raises KeyError for some URL options (loop://?x=1)
                text = (f"无法打开串口 {self.url}（{type(exc).__name__}: {exc}） / "
                        f"cannot open {self.url}: {type(exc).__name__}: {exc}")
                if text != last_open_error:
                    last_open_error = text
                    self.last_error = text
                    if self.on_status is not None:
                        self._status("port_error", text)
                with self._cond:
                    self._cond.wait(self.reconnect_s)
                continue
            last_open_error = None
            self._echo_said = False
            proto = _LinkProtocol(self)
            with self._cond:
                self._serial = ser
                self.port_opens += 1
                self.ep.transport_opened()
                self.ep.poll()  # says HELLO straight away
                self._cond.notify_all()
            proto.connection_made(self)
            error: BaseException | None = None
            while not self._closing:
                try:
                    data = ser.read(ser.in_waiting or 1)
                except Exception as exc:  # a port that fails to read is a lost port, whatever it raised
                    error = exc
                    break
                if data:
                    try:
                        proto.data_received(data)
                    except Exception as exc:  # a bug, not a port problem: report and keep reading
                        log.exception("frame handling failed")
                        self.last_error = f"内部错误（{exc!r}） / internal error: {exc!r}"
            proto.connection_lost(error)
            self._log_rx_errors(now_anyway=True)  # what came before the port went is said too
            if not self._closing:
                self.port_losses += 1
                self.last_error = f"串口断开（{error}） / port lost: {error}"
                if self._down_since is None:
                    self._down_since = time.monotonic()
            self._close_port()
            if not self._closing:
                with self._cond:
                    self._cond.wait(self.reconnect_s)

    def _timer_loop(self) -> None:
        while not self._closing:
            with self._cond:
                try:
                    wait_ms = self.ep.poll()
                except Exception as exc:  # a bug: said once, and the heartbeats go on rather than stop for good
                    text = f"内部错误（{exc!r}） / internal error: {exc!r}"
                    if text != self.timer_error:
                        log.exception("link timer failed")
                    self.timer_error = self.last_error = text
                    wait_ms = 100
                if self._pending:
                    wait_ms = 0
                else:
                    self._cond.wait(min(wait_ms, 1000) / 1000)
            if not self._dispatch(wait=False):  # the reader is handing frames over: go on beating
                with self._cond:
                    self._cond.wait(0.01)


def _nothing() -> None:
    """The release of a hold that holds nothing."""


#: Endpoint counters of frames refused after the wire checks, with the reason the log gives.
_EP_REFUSALS: tuple[tuple[str, str], ...] = (
    ("bad_payloads", "malformed payload"), ("out_of_window", "sequence number out of window"),
    ("version_errors", "another protocol version"))


def _from_a_host(frame: Frame) -> bool:
    """A HELLO of this protocol version without the controller flag: a host sent it (our own echo).
    Other versions are left to the endpoint, which names both versions."""
    if frame.version != PROTOCOL_VERSION or not frame.payload or frame.payload[0] != PROTOCOL_VERSION:
        return False
    try:
        return not unpack_hello(frame.payload).flags & HELLO_CONTROLLER
    except FrameError:
        return False


def _ticks_diff(a: int, b: int) -> int:
    return a - b


def default_port() -> str:
    """The port named by ``GUANDAN_SCREEN_PORT``, else ``/dev/ttyACM0``."""
    return os.environ.get("GUANDAN_SCREEN_PORT", "/dev/ttyACM0")
