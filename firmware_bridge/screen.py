"""Typed API of the partition-screen controller: what the rest of the project uses.

:class:`ScreenController` turns calls such as ``set_countdown("E", 20)`` into protocol frames on a
:class:`~firmware_bridge.link.Link` and turns the controller's button frames into
:class:`ScreenButtonEvent` objects, delivered exactly once and in order through ``on_button`` and
:attr:`ScreenController.events`.

Display and lamp commands never fail because of the link: the controller keeps the *desired* state
(what every display and lamp should show) and the link delivers queued commands after a reconnect.
When the controller has restarted (a new boot id, its outputs blank) the whole desired state is
sent again, so the screen always ends up showing what the program last asked for. Only bad
arguments raise (``ValueError``), and :meth:`ScreenController.query_state`, which needs an answer.
"""

from __future__ import annotations

import logging
import math
import queue
import re
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field

from .errors import LinkError, QueryTimeoutError, VersionMismatchError
from .firmware import seg7
from .firmware.wire import (
    BUTTON,
    BUTTONS,
    BUZZ,
    DISPLAY_MODES,
    E_EVENTS_LOST,
    ERROR,
    ERROR_NAMES,
    LAMP_CODES,
    LAMP_MODES,
    QUERY_STATE,
    SEAT_LAMPS,
    SEATS,
    SET_BLINK,
    SET_COUNTDOWN,
    SET_LAMP,
    SHOW_OVERTIME,
    SHOW_TEXT,
    STATE,
    TABLE_WIDE,
    FrameError,
    pack_blink,
    pack_buzz,
    pack_countdown,
    pack_lamp,
    pack_overtime,
    pack_query,
    pack_text,
    unpack_button,
    unpack_error,
    unpack_state,
)
from .link import Link
from .link_values import LinkStatus, Message

__all__ = ["ScreenButtonEvent", "ScreenController"]

log = logging.getLogger(__name__)



def _plausible_gap(lost: int, elapsed_ms: int) -> bool:
    """Whether ``lost`` button events can lie between two presses ``elapsed_ms`` apart on the
    controller's clock: at most every button changing once a millisecond (a clock that wrapped,
    after 49 days, says nothing)."""
    return elapsed_ms < 0 or lost <= (elapsed_ms + 1) * len(SEATS) * len(BUTTONS)

#: Button frames remembered to tell a repeat from a misnumbered press (the controller's ring holds 256).
DELIVERED_KEPT = 512
#: The count in the controller's ``ERROR events_lost`` text ("ring buffer overflow: 144 button events lost").
_COUNT_RE = re.compile(r"[0-9]{1,6}")


@dataclass(frozen=True)
class ScreenButtonEvent:
    """A debounced button change reported by the controller.

    ``controller_ms`` is the controller's clock (ms since its boot) at the change; ``event_no``
    numbers events from 1 per controller boot and never repeats within one.

    ``hold``, called from ``on_button`` before it returns, keeps the press unacknowledged (the
    controller keeps it and sends it again to a restarted host) until the function it returns is
    called: the owner writing the press to its log in another thread releases it once written.
    """

    seat: str
    button: str
    pressed: bool
    controller_ms: int
    event_no: int
    hold: Callable[[], Callable[[], None]] | None = field(default=None, compare=False, repr=False)


#: Status kinds that are news, not trouble: logged at INFO; every other kind at WARNING.
_QUIET_KINDS = frozenset({"connected", "controller_new"})


def _now_ms() -> int:
    return int(time.time() * 1000)


class ScreenController:
    """The partition-screen controller on a serial port.

    :param url: pyserial URL of the controller (``/dev/ttyACM0``, ``spy://...``, the emulator's port).
    :param on_button: called with every :class:`ScreenButtonEvent` (on the link thread; be quick).
    :param on_status: called with every :class:`~firmware_bridge.link_values.LinkStatus` (connected,
        disconnected, controller_new, version_mismatch, controller_error, events_lost, ...).
    :param heartbeat_s: heartbeat interval (the link is down after three missed).
    :param reconnect_s: pause between attempts to reopen a vanished port.
    """

    def __init__(self, url: str, *, on_button: Callable[[ScreenButtonEvent], None] | None = None,
                 on_status: Callable[[LinkStatus], None] | None = None, heartbeat_s: float = 1.0,
                 reconnect_s: float = 0.1, ident: str = "guandan-table", link_options: dict | None = None) -> None:
        self.url = url
        self.on_button = on_button
        self.on_status = on_status
        #: Button events in order (also passed to ``on_button``).
        self.events: queue.Queue[ScreenButtonEvent] = queue.Queue()
        #: Recent status changes and controller errors, newest last.
        self.log: deque[LinkStatus] = deque(maxlen=200)
        self.link = Link(url, on_message=self._on_message, on_status=self._on_link_status, ident=ident,
                         heartbeat_s=heartbeat_s, reconnect_s=reconnect_s, **(link_options or {}))
        self._state_lock = threading.Lock()
        self._displays: dict[str, tuple] = {}
        self._blink: dict[str, bool] = {}
        self._lamps: dict[tuple[str | None, str], str] = {}
        self._resync = False
        self._last_event_no = 0
        self._last_ms = 0
        #: The last button frames delivered, by event number: a number seen again with the same frame
        #: is a repeat (dropped), with another a press the controller misnumbered (lost).
        self._delivered: OrderedDict[int, bytes] = OrderedDict()
        self._queries: dict[int, list] = {}
        self._token = 0
        self.duplicates_dropped = 0
        #: Button events the controller numbered that never arrived (a gap in the numbers), or that
        #: arrived numbered again (a controller fault: the link drops its own repeats): presses the
        #: host cannot log, which the service calls the referee for.
        self.events_lost = 0
        #: Events the controller says its ring lost (``ERROR events_lost``): where the host has no
        #: number to see a gap from (it restarted meanwhile), the only word of them.
        self.overflow_lost = 0
        #: Frames from the controller that passed the wire checks but were refused here (a button
        #: out of range, an impossible event number, a malformed payload): each one is also said
        #: as a ``controller_error`` status and logged.
        self.rejected = 0

    # ------------------------------------------------------------------ lifecycle
    def open(self) -> ScreenController:
        """Start the link (connecting happens in the background; see :meth:`wait_for_connected`)."""
        self.link.open()
        return self

    def close(self) -> None:
        self.link.close()

    def __enter__(self) -> ScreenController:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"ScreenController({self.url!r}, connected={self.is_connected})"

    @property
    def is_connected(self) -> bool:
        return self.link.is_connected

    def wait_for_connected(self, timeout: float | None = None) -> bool:
        return self.link.wait_for_connected(timeout)

    @property
    def last_error(self) -> str | None:
        """The latest problem (Chinese, then English), or None."""
        return self.link.last_error

    @property
    def controller_info(self) -> dict | None:
        """What the controller said in its HELLO (id, firmware, seats, boot id, clock).

        ``clock_ms`` is the controller's clock (ms since its boot, the clock of its presses'
        ``controller_ms``) when it sent that HELLO, and ``clock_host_ms`` the host's
        ``time.monotonic()`` in ms when the HELLO came in: together an upper bound of (host
        clock - controller clock), known from the moment the link is up, so a press the
        controller kept while the host was down can be dated even when it is the first one the
        host hears of. Both are None for firmware before 1.1.0, which sends no clock.
        """
        p = self.link.peer
        if p is None:
            return None
        clock = p.clock_ms
        return {"ident": p.ident, "firmware": p.fw_version, "protocol": p.protocol_version, "seats": p.seats,
                "boot_id": p.boot_id, "clock_ms": clock,
                "clock_host_ms": p.received_ticks if clock is not None else None}

    # ------------------------------------------------------------------ commands
    @staticmethod
    def _seat(seat: str) -> int:
        if seat not in SEATS:
            raise ValueError(f"未知座位 {seat!r}（应为 E S W N 之一） / "
                             f"unknown seat {seat!r} (expected one of E S W N)")
        return SEATS.index(seat)

    @staticmethod
    def _seconds(seconds: int) -> int:
        if isinstance(seconds, bool) or not isinstance(seconds, int) or not 0 <= seconds <= 9999:
            raise ValueError(f"秒数须为 0..9999 的整数，收到 {seconds!r} / "
                             f"seconds must be an integer 0..9999, got {seconds!r}")
        return seconds

    def _send(self, ftype: int, payload: bytes | Callable[[], bytes]) -> None:
        try:
            self.link.send(ftype, payload)
        except VersionMismatchError:
            pass  # kept in the desired state; sent when a compatible controller answers
        except LinkError as exc:
            log.warning("%s", exc)
            self._resync = True

    def set_countdown(self, seat: str, seconds: int, start_ms: int | None = None) -> None:
        """Count down ``seconds`` on ``seat``'s display, from ``start_ms`` (Unix epoch ms, the clock
        of engine events' ``t_ms``; default now). The controller is told how much has already
        elapsed when the frame leaves, so a late delivery still shows the right time."""
        i = self._seat(seat)
        seconds = self._seconds(seconds)
        if start_ms is not None and (isinstance(start_ms, bool) or not isinstance(start_ms, int | float)
                                     or not math.isfinite(start_ms)):
            raise ValueError(f"开始时间须为纪元毫秒数，收到 {start_ms!r} / "
                             f"start_ms must be epoch milliseconds, got {start_ms!r}")
        start = _now_ms() if start_ms is None else int(start_ms)
        with self._state_lock:
            self._displays[seat] = ("countdown", seconds, start)
        self._send(SET_COUNTDOWN, lambda: pack_countdown(i, seconds, _now_ms() - start))

    def show_overtime(self, seat: str, seconds: int) -> None:
        """Show how long ``seat`` is over its time (``-12``), counting up from ``seconds``."""
        i = self._seat(seat)
        seconds = self._seconds(seconds)
        with self._state_lock:
            self._displays[seat] = ("overtime", seconds, _now_ms())
        self._send(SHOW_OVERTIME, pack_overtime(i, seconds))

    def show_text(self, seat: str, text: str) -> None:
        """Show up to four characters (digits, most letters, ``-``, ``_``); ``""`` blanks it."""
        i = self._seat(seat)
        if not isinstance(text, str) or not seg7.can_show(text):
            raise ValueError(f"四位显示屏无法显示 {text!r}（最多 4 个：数字、除 K M Q V W X 外的 A-Z、- _ = 空格） / "
                             f"cannot show {text!r} on a 4-digit display "
                             "(at most 4 of: digits, A-Z without K M Q V W X, - _ = space)")
        with self._state_lock:
            self._displays[seat] = ("text", text.upper())
        self._send(SHOW_TEXT, pack_text(i, text.upper()))

    def clear(self, seat: str) -> None:
        """Blank ``seat``'s display."""
        self.show_text(seat, "")

    def set_blink(self, seat: str, on: bool) -> None:
        """Make ``seat``'s whole display blink (e.g. time nearly up)."""
        i = self._seat(seat)
        with self._state_lock:
            self._blink[seat] = bool(on)
        self._send(SET_BLINK, pack_blink(i, bool(on)))

    def set_lamp(self, seat_or_none: str | None, lamp: str, mode: str) -> None:
        """Switch a lamp: ``mode`` is ``"on"``, ``"off"`` or ``"blink"``.

        ``seat_or_none`` is a seat for its ``"report"`` or ``"turn"`` lamp, or None for the
        table-wide ``"referee"`` lamp.
        """
        if mode not in LAMP_MODES:
            raise ValueError(f"灯模式须为 on、off 或 blink，收到 {mode!r} / "
                             f"lamp mode must be on, off or blink, got {mode!r}")
        if seat_or_none is None:
            if lamp != "referee":
                raise ValueError(f"桌面灯只有 referee，收到 {lamp!r} / "
                                 f"the only table-wide lamp is 'referee', got {lamp!r}")
            seat_byte = TABLE_WIDE
        else:
            seat_byte = self._seat(seat_or_none)
            if lamp not in SEAT_LAMPS:
                raise ValueError(f"座位灯只有 report 和 turn，收到 {lamp!r} / "
                                 f"seat lamps are 'report' and 'turn', got {lamp!r}")
        with self._state_lock:
            self._lamps[(seat_or_none, lamp)] = mode
        self._send(SET_LAMP, pack_lamp(seat_byte, LAMP_CODES[lamp], LAMP_MODES.index(mode)))

    def buzz(self, ms: int) -> None:
        """Sound the buzzer for ``ms`` milliseconds (at most 5000). Not repeated after a restart."""
        if isinstance(ms, bool) or not isinstance(ms, int) or not 0 < ms <= 5000:
            raise ValueError(f"蜂鸣时长须为 1..5000 毫秒，收到 {ms!r} / buzz duration must be 1..5000 ms, got {ms!r}")
        if not self.is_connected:
            # A sound is for now: queued, it sounded when the cable came back, however much later,
            # in the middle of someone's turn. Displays and lamps are state, re-sent then; a buzz is not.
            log.info("screen %s offline: buzz of %d ms not sounded", self.url, ms)
            return
        self._send(BUZZ, pack_buzz(ms))

    def query_state(self, timeout: float = 2.0) -> dict:
        """Ask the controller what it shows now.

        :raises VersionMismatchError: the controller speaks another protocol version.
        :raises QueryTimeoutError: no answer within ``timeout`` seconds (link down).
        """
        with self._state_lock:
            self._token = (self._token + 1) & 0xFFFF
            token = self._token
            slot: list = [threading.Event(), None]
            self._queries[token] = slot
        try:
            self.link.send(QUERY_STATE, pack_query(token))
            if not slot[0].wait(timeout):
                why = (self.last_error if self.is_connected or self.last_error
                       else "未连接，控制器未应答 HELLO / not connected: no controller has answered the HELLO")
                # ``why`` may be "中文 / English" itself: each half to its own language's half.
                why_zh, sep, why_en = (why or "").partition(" / ")
                why_en = why_en if sep else why_zh
                raise QueryTimeoutError(f"查询超时：控制器 {timeout:g} 秒内未应答（{why_zh or '未报告错误'}） / "
                                        f"the controller did not answer within {timeout:g} s"
                                        f" ({why_en or 'no error reported'})")
        finally:
            with self._state_lock:
                self._queries.pop(token, None)
        return slot[1]

    # ------------------------------------------------------------------ desired state
    def desired_state(self) -> dict:
        """What the program last asked each display and lamp to show."""
        with self._state_lock:
            return {"displays": dict(self._displays), "blink": dict(self._blink),
                    "lamps": {f"{s or 'table'}.{lamp}": m for (s, lamp), m in self._lamps.items()}}

    def _push_state(self) -> None:
        """Send the whole desired state (after a controller restart or a queue overflow)."""
        with self._state_lock:
            displays = dict(self._displays)
            blink = dict(self._blink)
            lamps = dict(self._lamps)
            self._resync = False
        now = _now_ms()
        for seat, d in displays.items():
            i = SEATS.index(seat)
            if d[0] == "countdown":
                _, seconds, start = d
                self._send(SET_COUNTDOWN, lambda i=i, seconds=seconds, start=start:
                           pack_countdown(i, seconds, _now_ms() - start))
            elif d[0] == "overtime":
                self._send(SHOW_OVERTIME, pack_overtime(i, min(9999, d[1] + (now - d[2]) // 1000)))
            else:
                self._send(SHOW_TEXT, pack_text(i, d[1]))
        for seat, on in blink.items():
            self._send(SET_BLINK, pack_blink(SEATS.index(seat), on))
        for (seat, lamp), mode in lamps.items():
            self._send(SET_LAMP, pack_lamp(TABLE_WIDE if seat is None else SEATS.index(seat), LAMP_CODES[lamp],
                                           LAMP_MODES.index(mode)))

    # ------------------------------------------------------------------ incoming
    def _status(self, st: LinkStatus) -> None:
        # Logged as well as kept: the table service only watches ``is_connected``, so a refused
        # frame, lost presses or a version mismatch would otherwise reach no log at all.
        quiet = st.kind in _QUIET_KINDS or self.link.closing  # closing says "disconnected": no trouble
        log.log(logging.INFO if quiet else logging.WARNING, "screen %s: %s", self.url, st.message)
        self.log.append(st)
        if self.on_status is not None:
            try:
                self.on_status(st)
            except Exception:
                log.exception("on_status callback failed")

    def _on_link_status(self, st: LinkStatus) -> None:
        if st.kind == "controller_new":
            # A new controller boot: event numbers restart at 1 and its outputs are blank.
            self._last_event_no = 0
            self._last_ms = 0
            self._delivered.clear()
            self._push_state()
        elif st.kind == "connected" and self._resync:
            self._push_state()
        self._status(st)

    def _on_message(self, msg: Message) -> None:
        try:
            if msg.type == BUTTON:
                self._on_button(msg)
            elif msg.type == STATE:
                self._on_state(msg)
            elif msg.type == ERROR:
                code, text = unpack_error(msg.payload)
                kind = "events_lost" if code == E_EVENTS_LOST else "controller_error"
                if code == E_EVENTS_LOST:
                    m = _COUNT_RE.search(text)
                    self.overflow_lost += int(m.group(0)) if m else 1
                self._status(LinkStatus(kind, f"控制器报错（{ERROR_NAMES.get(code, code)}）：{text} / "
                                        f"controller error ({ERROR_NAMES.get(code, code)}): {text}",
                                        self.link.peer, (code, text)))
            else:  # a newer firmware's type: sequenced and acknowledged like any other, and said
                self.rejected += 1
                self._status(LinkStatus("controller_error", f"控制器发来未知帧类型 {msg.type:#x}（新版固件？） / "
                                        f"unknown frame type {msg.type:#x} from "
                                        "the controller (newer firmware?)", self.link.peer))
        except FrameError as exc:
            self.rejected += 1
            self._status(LinkStatus("controller_error", f"控制器发来无效数据（{exc}） / "
                                    f"malformed frame from controller: {exc}",
                                    self.link.peer))

    def _on_button(self, msg: Message) -> None:
        event_no, ms, seat, button, pressed = unpack_button(msg.payload)
        if seat >= len(SEATS) or button >= len(BUTTONS):
            raise FrameError(f"button {seat}/{button} out of range")
        if event_no <= self._last_event_no:
            self.duplicates_dropped += 1
            if self._delivered.get(event_no, bytes(msg.payload)) != bytes(msg.payload):
                # Another press under a number already delivered (a controller whose numbering
                # started again without a reboot: a fault): the host cannot place it. Said, and
                # counted as lost, so that the referee is called; the same press again is dropped.
                self.events_lost += 1
                self._status(LinkStatus("events_lost", f"控制器重复使用按键编号 {event_no}（控制器故障），该按键未记录 / "
                                        f"the controller numbered another press {event_no} again (a fault): not logged",
                                        self.link.peer, 1))
            return
        if self._last_event_no and not _plausible_gap(event_no - self._last_event_no - 1, ms - self._last_ms):
            # A number no table's buttons could reach (a controller fault): were it the new
            # high-water mark, every later press would be dropped as a repeat.
            raise FrameError(f"button event_no {event_no} after {self._last_event_no}, {ms - self._last_ms} ms later: "
                             "more presses than the buttons could make")
        if self._last_event_no and event_no > self._last_event_no + 1:
            lost = event_no - self._last_event_no - 1
            self.events_lost += lost
            self._status(LinkStatus("events_lost", f"丢失 {lost} 个按键事件 / {lost} button events lost",
                                    self.link.peer, lost))
        self._last_event_no = event_no
        self._last_ms = ms
        self._delivered[event_no] = bytes(msg.payload)
        while len(self._delivered) > DELIVERED_KEPT:
            self._delivered.popitem(last=False)
        ev = ScreenButtonEvent(SEATS[seat], BUTTONS[button], pressed, ms, event_no,
                               hold=lambda: self.link.hold_ack(msg))
        self.events.put(ev)
        if self.on_button is not None:
            try:
                self.on_button(ev)
            except Exception:
                log.exception("on_button callback failed")

    def _on_state(self, msg: Message) -> None:
        s = unpack_state(msg.payload)
        displays = {}
        lamps: dict = {}
        for k, (text, mode, blink, rep, turn) in enumerate(s["seats"]):
            seat = SEATS[k] if k < len(SEATS) else str(k)
            displays[seat] = {"text": text, "mode": DISPLAY_MODES[mode] if mode < len(DISPLAY_MODES) else mode,
                              "blink": blink}
            lamps[seat] = {"report": LAMP_MODES[rep % 3], "turn": LAMP_MODES[turn % 3]}
        lamps["referee"] = LAMP_MODES[s["referee"] % 3]
        peer = self.link.peer
        result = {
            "controller": {"ident": peer.ident if peer else None, "firmware": peer.fw_version if peer else None,
                           "boot_id": s["boot_id"], "uptime_ms": s["uptime_ms"]},
            "displays": displays, "lamps": lamps, "buzzer": s["buzzer"],
            "ring_pending": s["pending"], "events_lost": s["events_lost"], "rx_errors": s["rx_errors"],
            "next_event_no": s["next_event_no"],
        }
        with self._state_lock:
            slot = self._queries.get(s["token"])
        if slot is not None:
            slot[1] = result
            slot[0].set()

