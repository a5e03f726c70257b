"""The screen-controller application: buttons, displays, lamps, buzzer, event ring, protocol.

Runs on the Pico under MicroPython and, unchanged, on CPython inside the emulator; it reaches the
hardware only through a :class:`~.hal.Hal`.
"""

from . import seg7
from .endpoint import Endpoint
from .wire import (
    BUTTON,
    BUTTONS,
    BUZZ,
    E_BAD_COMMAND,
    E_EVENTS_LOST,
    E_UNKNOWN_TYPE,
    ERROR,
    LAMP_NAMES,
    PROTOCOL_VERSION,
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
    pack_button,
    pack_error,
    pack_state,
    unpack_blink,
    unpack_buzz,
    unpack_countdown,
    unpack_lamp,
    unpack_overtime,
    unpack_query,
    unpack_text,
)

FIRMWARE_VERSION = "1.1.0"  # 1.1.0: HELLO carries the clock (clock_ms)

MODE_BLANK = 0
MODE_TEXT = 1
MODE_COUNTDOWN = 2
MODE_OVERTIME = 3

LAMP_OFF = 0
LAMP_ON = 1
LAMP_BLINK = 2
BLINK_MS = 500


class Config:
    """Build-time settings of one controller (a plain class: MicroPython has no dataclasses)."""

    def __init__(self, controller_id="SCREEN-1", firmware_version=FIRMWARE_VERSION,
                 protocol_version=PROTOCOL_VERSION, seats=4, ring_size=256, debounce_samples=4,
                 heartbeat_ms=1000, window=32):
        if ring_size < 256:
            raise ValueError("ring_size must be at least 256")
        self.controller_id = controller_id
        self.firmware_version = firmware_version
        self.protocol_version = protocol_version
        self.seats = seats
        self.ring_size = ring_size
        self.debounce_samples = debounce_samples
        self.heartbeat_ms = heartbeat_ms
        self.window = window


class Debouncer:
    """Integrating debouncer: the state flips only after ``n`` net samples agree, so a contact
    that bounces for a few samples produces exactly one press and one release."""

    def __init__(self, n):
        self.n = n
        self.count = 0
        self.pressed = False

    def sample(self, level):
        """Feed one raw sample; returns True/False on a debounced change, None otherwise."""
        if level:
            if self.count < self.n:
                self.count += 1
                if self.count == self.n and not self.pressed:
                    self.pressed = True
                    return True
        elif self.count > 0:
            self.count -= 1
            if self.count == 0 and self.pressed:
                self.pressed = False
                return False
        return None


class Display:
    """What one seat's 4-digit display should show."""

    def __init__(self):
        self.mode = MODE_BLANK
        self.text = ""
        self.seconds = 0
        self.start = 0
        self.blink = False

    def render(self, now, diff):
        """The four characters to show at ``now`` (before blinking)."""
        if self.mode == MODE_TEXT:
            return (self.text + "    ")[:4]
        if self.mode == MODE_COUNTDOWN:
            left_ms = self.seconds * 1000 - diff(now, self.start)
            left = (left_ms + 999) // 1000 if left_ms > 0 else 0
            return ("    " + str(min(left, 9999)))[-4:]
        if self.mode == MODE_OVERTIME:
            over = self.seconds + max(0, diff(now, self.start)) // 1000
            return ("    -" + str(min(over, 999)))[-4:]
        return "    "


class Controller:
    """One controller: call :meth:`step` in a loop (``run`` does, with ``hal.wait`` between)."""

    def __init__(self, hal, config=None):
        self.hal = hal
        self.config = config or Config()
        cfg = self.config
        self.boot_id = hal.random_u32() or 1
        self.boot_ticks = hal.ticks_ms()
        self.endpoint = Endpoint(
            hal.serial_write, hal.ticks_ms, hal.ticks_diff, self.boot_id, cfg.firmware_version,
            cfg.controller_id, seats=cfg.seats, controller=True, version=cfg.protocol_version,
            heartbeat_ms=cfg.heartbeat_ms, window=cfg.window, capacity=cfg.ring_size, active=True,
            clock_ms=self.uptime_ms)
        self.endpoint.on_message = self._on_message
        self.buttons = [Debouncer(cfg.debounce_samples) for _ in range(cfg.seats * len(BUTTONS))]
        self.displays = [Display() for _ in range(cfg.seats)]
        self.shown = [None] * cfg.seats
        self.lamps = {}
        for s in range(cfg.seats):
            for lamp in SEAT_LAMPS:
                self.lamps[SEATS[s] + "." + lamp] = LAMP_OFF
        self.lamps["referee"] = LAMP_OFF
        self.outputs = {}
        self.buzz_until = None
        self.next_event_no = 1
        self.events_lost = 0
        self.lost_unreported = 0
        self.connected = False
        #: Hook for the emulator/tests: called as ``on_applied(ftype, args)`` after a command took effect.
        self.on_applied = None
        #: Hook: called as ``on_button(event_no, ms, seat, button, pressed)`` when an event is queued.
        self.on_button = None
        for s in range(cfg.seats):
            hal.write_display(s, seg7.encode(""))
        for name in self.lamps:
            self._output(name, False)
        self._output("buzzer", False)
        self._output("status", False)

    def uptime_ms(self, now=None):
        """This boot's clock: ms since boot at ``now`` (default: now). BUTTON events and HELLO
        carry it, so that the host can set a kept press against the clock it read in HELLO."""
        hal = self.hal
        return hal.ticks_diff(hal.ticks_ms() if now is None else now, self.boot_ticks)

    # ------------------------------------------------------------------ commands
    def _on_message(self, ftype, payload):
        try:
            self._apply(ftype, payload)
        except (FrameError, ValueError, IndexError) as exc:
            self._error(E_BAD_COMMAND, f"{hex(ftype)}: {exc}")

    def _seat(self, seat):
        if seat >= self.config.seats:
            raise ValueError(f"no seat {seat}")
        return seat

    def _apply(self, ftype, payload):
        now = self.hal.ticks_ms()
        if ftype == SET_COUNTDOWN:
            seat, seconds, elapsed = unpack_countdown(payload)
            d = self.displays[self._seat(seat)]
            d.mode, d.seconds, d.start = MODE_COUNTDOWN, seconds, now - elapsed
            args = (SEATS[seat], seconds)
        elif ftype == SHOW_OVERTIME:
            seat, seconds = unpack_overtime(payload)
            d = self.displays[self._seat(seat)]
            d.mode, d.seconds, d.start = MODE_OVERTIME, seconds, now
            args = (SEATS[seat], seconds)
        elif ftype == SHOW_TEXT:
            seat, text = unpack_text(payload)
            if not seg7.can_show(text):
                raise ValueError(f"cannot show {text!r}")
            d = self.displays[self._seat(seat)]
            d.mode, d.text = (MODE_TEXT if text else MODE_BLANK), text.upper()
            args = (SEATS[seat], text)
        elif ftype == SET_BLINK:
            seat, on = unpack_blink(payload)
            self.displays[self._seat(seat)].blink = on
            args = (SEATS[seat], on)
        elif ftype == SET_LAMP:
            seat, lamp, mode = unpack_lamp(payload)
            if mode > LAMP_BLINK or lamp >= len(LAMP_NAMES):
                raise ValueError(f"bad lamp {lamp}/{mode}")
            if seat == TABLE_WIDE:
                if LAMP_NAMES[lamp] != "referee":
                    raise ValueError(f"lamp {LAMP_NAMES[lamp]} is per seat")
                name = "referee"
            else:
                if LAMP_NAMES[lamp] == "referee":
                    raise ValueError("the referee lamp is table-wide")
                name = SEATS[self._seat(seat)] + "." + LAMP_NAMES[lamp]
            self.lamps[name] = mode
            args = (name, mode)
        elif ftype == BUZZ:
            ms = min(unpack_buzz(payload), 5000)
            self.buzz_until = now + ms
            args = (ms,)
        elif ftype == QUERY_STATE:
            token = unpack_query(payload)
            self.endpoint.send(STATE, self._state_payload(token))
            args = (token,)
        else:
            self._error(E_UNKNOWN_TYPE, f"unknown type {hex(ftype)}")
            return
        if self.on_applied is not None:
            self.on_applied(ftype, args)

    def _state_payload(self, token):
        now = self.hal.ticks_ms()
        seats = []
        for s in range(self.config.seats):
            d = self.displays[s]
            seats.append((d.render(now, self.hal.ticks_diff), d.mode, d.blink, self.lamps[SEATS[s] + ".report"],
                          self.lamps[SEATS[s] + ".turn"]))
        return pack_state(token, self.boot_id, self.uptime_ms(now),
                          self.endpoint.pending_count(), self.events_lost, self.endpoint.decoder.errors,
                          self.next_event_no, seats, self.lamps["referee"], self.buzz_until is not None)

    def _error(self, code, text):
        self.endpoint.send(ERROR, pack_error(code, text))

    # ------------------------------------------------------------------ buttons
    def _scan(self):
        levels = self.hal.read_buttons()
        nb = len(BUTTONS)
        now = None
        for i in range(len(self.buttons)):
            change = self.buttons[i].sample(levels[i])
            if change is None:
                continue
            if now is None:
                now = self.hal.ticks_ms()
            self._queue_event(i // nb, i % nb, change, now)

    def _queue_event(self, seat, button, pressed, now):
        no = self.next_event_no
        self.next_event_no += 1
        payload = pack_button(no, self.uptime_ms(now), seat, button, pressed)
        ep = self.endpoint
        if not ep.send(BUTTON, payload):
            # Ring full (a long outage): give up the oldest event not yet sent, and say so.
            ep.drop_oldest_pending()
            self.events_lost += 1
            self.lost_unreported += 1
            ep.send(BUTTON, payload)
        if self.on_button is not None:
            self.on_button(no, now, seat, button, pressed)

    # ------------------------------------------------------------------ outputs
    def _output(self, name, on):
        if self.outputs.get(name) != on:
            self.outputs[name] = on
            self.hal.set_output(name, on)

    def _refresh(self, now):
        diff = self.hal.ticks_diff
        phase = (diff(now, self.boot_ticks) // BLINK_MS) % 2 == 0
        for s in range(self.config.seats):
            d = self.displays[s]
            text = d.render(now, diff)
            if d.blink and not phase:
                text = "    "
            if text != self.shown[s]:
                self.shown[s] = text
                self.hal.write_display(s, seg7.encode(text))
        for name, mode in self.lamps.items():
            self._output(name, mode == LAMP_ON or (mode == LAMP_BLINK and phase))
        if self.buzz_until is not None and diff(now, self.buzz_until) >= 0:
            self.buzz_until = None
        self._output("buzzer", self.buzz_until is not None)
        self._output("status", self.endpoint.synced or phase)

    # ------------------------------------------------------------------ main loop
    def step(self):
        """One pass of the main loop; returns how many ms the loop may sleep."""
        hal = self.hal
        ep = self.endpoint
        conn = hal.serial_connected()
        if conn != self.connected:
            self.connected = conn
            if conn:
                ep.transport_opened()
            else:
                ep.transport_closed("usb unplugged")
        if conn:
            data = hal.serial_read()
            if data:
                ep.feed(data)
        self._scan()
        if self.lost_unreported and ep.queued_count() < ep.capacity:
            n = self.lost_unreported
            self.lost_unreported = 0
            self._error(E_EVENTS_LOST, f"ring buffer overflow: {n} button events lost")
        wait = ep.poll()
        now = hal.ticks_ms()
        self._refresh(now)
        until_blink = BLINK_MS - hal.ticks_diff(now, self.boot_ticks) % BLINK_MS
        return max(1, min(wait, until_blink, 100))

    def run(self, should_stop=None):
        """Run forever (or until ``should_stop()`` is true)."""
        while should_stop is None or not should_stop():
            self.hal.wait(self.step())
