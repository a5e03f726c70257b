"""Run the real controller firmware on the host, on a pseudo-terminal, with fault injection.

:class:`ScreenEmulator` starts :class:`~firmware_bridge.firmware.controller.Controller` (the code
that runs on the Pico) over :class:`SimHal`, a simulated board whose USB serial is the master side
of an ``os.openpty()`` pair. The slave side is reached through a stable symlink (``.port``) that is
re-pointed when the emulator is "replugged", so a client configured with that path behaves as it
would with ``/dev/ttyACM0`` and a real cable.

Control API: :meth:`~ScreenEmulator.press`, :meth:`~ScreenEmulator.read_display`,
:meth:`~ScreenEmulator.read_lamp`; faults: :attr:`~ScreenEmulator.drop_rate`,
:attr:`~ScreenEmulator.flip_rate`, :attr:`~ScreenEmulator.delay_ms`, :meth:`~ScreenEmulator.garbage`,
:meth:`~ScreenEmulator.unplug`/:meth:`~ScreenEmulator.replug`, :meth:`~ScreenEmulator.reboot`.
"""

from __future__ import annotations

import collections
import contextlib
import os
import random
import re
import select
import tempfile
import threading
import time
import tty
from collections.abc import Callable
from dataclasses import dataclass

from .firmware import seg7
from .firmware.controller import FIRMWARE_VERSION, LAMP_NAMES, Config, Controller
from .firmware.hal import Hal
from .firmware.wire import BUTTONS, PROTOCOL_VERSION, SEATS

_LAMP_MODES = ("off", "on", "blink")


@dataclass(frozen=True)
class GeneratedEvent:
    """A button event as the controller numbered it (the ground truth for delivery tests)."""

    boot_id: int
    event_no: int
    seat: str
    button: str
    pressed: bool


class SimHal(Hal):
    """A simulated Pico: pty serial with faults, scripted button contacts, recorded outputs.

    Buttons are scripted per contact as a queue of raw samples (with bounce), consumed one per
    firmware scan, so a press goes through the firmware's real debouncer without real-time waits.
    """

    def __init__(self, emulator: ScreenEmulator) -> None:
        self.emu = emulator
        self.scripts: list[collections.deque[bool]] = [collections.deque() for _ in range(len(SEATS) * 3)]
        self.levels = [False] * (len(SEATS) * 3)
        self.segments = [bytes(4)] * len(SEATS)
        self.outputs: dict[str, bool] = {}
        #: Recent output changes as (monotonic time, name, on), for checking blinks and beeps.
        self.output_log: collections.deque[tuple[float, str, bool]] = collections.deque(maxlen=10_000)
        self.rng = random.Random()

    def ticks_ms(self) -> int:
        return int(time.monotonic() * 1000)

    def random_u32(self) -> int:
        return random.getrandbits(32)

    def serial_connected(self) -> bool:
        return self.emu._master is not None

    def serial_read(self) -> bytes:
        return self.emu._read_in()

    def serial_write(self, data: bytes) -> None:
        self.emu._write_out(data)

    def read_buttons(self) -> list[bool]:
        with self.emu._lock:
            for i, script in enumerate(self.scripts):
                if script:
                    self.levels[i] = script.popleft()
            return list(self.levels)

    def scripts_pending(self) -> bool:
        return any(self.scripts)

    def write_display(self, seat: int, segments: bytes) -> None:
        self.segments[seat] = bytes(segments)

    def set_output(self, name: str, on: bool) -> None:
        self.outputs[name] = on
        self.output_log.append((time.monotonic(), name, on))

    def wait(self, ms: int) -> None:
        self.emu._wait(ms)


class ScreenEmulator:
    """The screen controller, emulated on a pseudo-terminal.

    :param port_path: where the stable symlink to the pty goes (default: a fresh temp dir).
    :param protocol_version: what the emulated firmware speaks (set another to test mismatches).
    :param heartbeat_ms: heartbeat interval of the firmware (1000 on the real board).
    :param seed: seed for fault injection, so a failing run can be repeated.
    :param hello_clock: put the controller's clock into its HELLO, as firmware 1.1.0 on does;
        False behaves as older firmware, which sends none (the host must do without it).
    """

    def __init__(self, port_path: str | None = None, *, controller_id: str = "EMU-SCREEN-1",
                 firmware_version: str = FIRMWARE_VERSION, protocol_version: int = PROTOCOL_VERSION,
                 ring_size: int = 256, heartbeat_ms: int = 1000, debounce_samples: int = 3,
                 seed: int | None = None, hello_clock: bool = True) -> None:
        if port_path is None:
            self._tmpdir: str | None = tempfile.mkdtemp(prefix="guandan-screen-")
            port_path = os.path.join(self._tmpdir, "ttyScreen0")
        else:
            self._tmpdir = None
        self.port = os.path.abspath(port_path)
        if os.path.lexists(self.port) and not os.path.islink(self.port):
            raise ValueError(f"端口路径 {self.port} 已存在且不是符号链接（模拟器只替换自己的链接） / "
                             f"{self.port} exists and is not a symlink; "
                             "the emulator only replaces its own symlinks")
        if os.path.islink(self.port) and not re.fullmatch(r"/dev/pts/\d+", os.readlink(self.port)):
            # Any symlink was replaced, then deleted on exit: a mistyped /dev/serial/by-id/… was lost.
            raise ValueError(f"端口路径是指向 {os.readlink(self.port)} 的链接，不是模拟器的伪终端，不替换 / "
                             f"{self.port} is a link to {os.readlink(self.port)}, not an emulator's "
                             "pseudo-terminal: not replaced (give another --port)")
        self.config = Config(controller_id=controller_id, firmware_version=firmware_version,
                             protocol_version=protocol_version, ring_size=ring_size,
                             debounce_samples=debounce_samples, heartbeat_ms=heartbeat_ms)
        #: Whether each boot's HELLO carries its clock (False: firmware before 1.1.0).
        self.hello_clock = hello_clock
        #: Probability that a byte (either direction) is lost.
        self.drop_rate = 0.0
        #: Probability that a byte (either direction) has one bit flipped.
        self.flip_rate = 0.0
        #: Extra one-way latency added to every byte, in milliseconds.
        self.delay_ms = 0
        self._rng = random.Random(seed)
        self._lock = threading.RLock()
        self._master: int | None = None
        self._slave: int | None = None
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_r, False)
        os.set_blocking(self._wake_w, False)
        self._in_line: collections.deque[tuple[float, bytes]] = collections.deque()
        self._out_line: collections.deque[tuple[float, bytes]] = collections.deque()
        self._out_buf = bytearray()
        self._thread: threading.Thread | None = None
        self._stop = False
        self._reboot_config: Config | None = None
        self.hal = SimHal(self)
        self.controller: Controller | None = None
        self._booted = threading.Condition(self._lock)
        self.boots = 0
        #: Every command the firmware applied: (boot_id, type, args), in order.
        self.applied: list[tuple[int, int, tuple]] = []
        #: Every button event the firmware numbered, in order.
        self.generated: list[GeneratedEvent] = []
        self.bytes_in = 0
        self.bytes_out = 0
        self.faults = collections.Counter()
        #: Called (from the firmware thread) after each applied command / generated event.
        self.on_applied: Callable[[int, tuple], None] | None = None

    # ------------------------------------------------------------------ lifecycle
    def start(self) -> ScreenEmulator:
        """Plug in (create the pty and symlink) and boot the firmware thread."""
        self._plug()
        self._stop = False
        self._thread = threading.Thread(target=self._run, name="screen-emulator", daemon=True)
        self._thread.start()
        with self._booted:
            self._booted.wait_for(lambda: self.controller is not None, timeout=5)
        return self

    def stop(self) -> None:
        """Stop the firmware and remove the pty and symlink."""
        self._stop = True
        self._wake()
        if self._thread is not None:
            self._thread.join(5)
            self._thread = None
        self._unplug()
        for fd in (self._wake_r, self._wake_w):
            with contextlib.suppress(OSError):
                os.close(fd)
        self._wake_r = self._wake_w = -1
        if self._tmpdir is not None:
            with contextlib.suppress(OSError):
                os.rmdir(self._tmpdir)

    close = stop

    def __enter__(self) -> ScreenEmulator:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"ScreenEmulator(port={self.port!r}, plugged={self.plugged})"

    # ------------------------------------------------------------------ pty plumbing
    @property
    def plugged(self) -> bool:
        return self._master is not None

    @property
    def device(self) -> str | None:
        """The pty the symlink currently points to (None while unplugged)."""
        return os.readlink(self.port) if os.path.islink(self.port) else None

    def _plug(self) -> None:
        with self._lock:
            if self._master is not None:
                return
            master, slave = os.openpty()
            # Raw mode before anyone opens it: no echo, no line editing, no CR/LF translation,
            # otherwise the firmware would read back its own output.
            tty.setraw(slave)
            os.set_blocking(master, False)
            self._master, self._slave = master, slave
            self._in_line.clear()
            self._out_line.clear()
            self._out_buf = bytearray()
            tmp = self.port + ".new"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            os.symlink(os.ttyname(slave), tmp)
            os.replace(tmp, self.port)
        self._wake()

    def _unplug(self) -> None:
        with self._lock:
            for fd in (self._master, self._slave):
                if fd is not None:
                    with contextlib.suppress(OSError):
                        os.close(fd)
            self._master = self._slave = None
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.port)
        self._wake()

    def unplug(self) -> None:
        """Pull the USB cable: the pty closes (the host sees an I/O error) and the symlink goes.

        The controller keeps running (the screen has its own supply), so presses go to the ring.
        """
        self._unplug()

    def replug(self) -> None:
        """Plug the cable back in: a new pty, the symlink re-pointed to it."""
        self._plug()

    def reboot(self, **config: object) -> None:
        """Reset the controller (watchdog, power blip): a new boot id, empty ring, blank outputs.

        Keyword arguments replace fields of the firmware :class:`Config` ("reflash"), e.g.
        ``reboot(protocol_version=1)``.
        """
        cfg = Config(**{**self.config.__dict__, **config})
        with self._lock:
            self.config = cfg
            self._reboot_config = cfg
            n = self.boots
        self._wake()
        with self._booted:
            self._booted.wait_for(lambda: self.boots > n, timeout=5)

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._wake_w, b"x")

    def _fault(self, data: bytes, direction: str) -> bytes:
        if not (self.drop_rate or self.flip_rate):
            return data
        out = bytearray()
        rng = self._rng
        for b in data:
            if self.drop_rate and rng.random() < self.drop_rate:
                self.faults["dropped_" + direction] += 1
                continue
            if self.flip_rate and rng.random() < self.flip_rate:
                b ^= 1 << rng.randrange(8)
                self.faults["flipped_" + direction] += 1
            out.append(b)
        return bytes(out)

    def _read_in(self) -> bytes:
        with self._lock:
            master = self._master
            if master is None:
                return b""
            try:
                data = os.read(master, 4096)
            except (BlockingIOError, InterruptedError):
                data = b""
            except OSError:
                data = b""  # nobody has the slave open at the moment
            if data:
                self.bytes_in += len(data)
                data = self._fault(data, "in")
            if self.delay_ms:
                now = time.monotonic()
                if data:
                    self._in_line.append((now + self.delay_ms / 1000, data))
                out = bytearray()
                while self._in_line and self._in_line[0][0] <= now:
                    out += self._in_line.popleft()[1]
                return bytes(out)
            if self._in_line:
                data = b"".join(d for _, d in self._in_line) + data
                self._in_line.clear()
            return data

    def _write_out(self, data: bytes) -> None:
        with self._lock:
            if self._master is None:
                return  # USB gone: the Pico's CDC driver drops what it cannot send
            data = self._fault(data, "out")
            if self.delay_ms:
                self._out_line.append((time.monotonic() + self.delay_ms / 1000, data))
            else:
                self._out_buf += data
            self._flush_out()

    def _flush_out(self) -> None:
        now = time.monotonic()
        while self._out_line and self._out_line[0][0] <= now:
            self._out_buf += self._out_line.popleft()[1]
        if self._out_buf and self._master is not None:
            try:
                n = os.write(self._master, self._out_buf)
                self.bytes_out += n
                del self._out_buf[:n]
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                self._out_buf.clear()
            if len(self._out_buf) > 65536:  # a host that never reads: drop like a full USB FIFO
                self.faults["overflow_out"] += len(self._out_buf) - 65536
                del self._out_buf[:len(self._out_buf) - 65536]

    def _wait(self, ms: int) -> None:
        with self._lock:
            if self.hal.scripts_pending() or self._reboot_config is not None or self._stop:
                return
            self._flush_out()
            timeout = ms / 1000
            now = time.monotonic()
            for line in (self._in_line, self._out_line):
                if line:
                    timeout = min(timeout, max(0.0, line[0][0] - now))
            rlist = [self._wake_r]
            wlist = []
            if self._master is not None:
                rlist.append(self._master)
                if self._out_buf:
                    wlist.append(self._master)
        try:
            select.select(rlist, wlist, [], timeout)
        except (OSError, ValueError):
            time.sleep(min(timeout, 0.01))  # an fd closed under us by unplug(): just loop
        try:
            while os.read(self._wake_r, 512):
                pass
        except (BlockingIOError, OSError):
            pass

    # ------------------------------------------------------------------ firmware thread
    def _boot(self, cfg: Config) -> Controller:
        hal = self.hal
        hal.outputs.clear()
        ctrl = Controller(hal, cfg)
        if not self.hello_clock:
            ctrl.endpoint.clock_ms = None  # an older firmware's HELLO, which ends at ident
        boot_id = ctrl.boot_id

        def applied(ftype: int, args: tuple) -> None:
            self.applied.append((boot_id, ftype, args))
            if self.on_applied is not None:
                self.on_applied(ftype, args)

        def button(no: int, _ms: int, seat: int, btn: int, pressed: bool) -> None:
            self.generated.append(GeneratedEvent(boot_id, no, SEATS[seat], BUTTONS[btn], pressed))

        ctrl.on_applied = applied
        ctrl.on_button = button
        with self._booted:
            self.controller = ctrl
            self.boots += 1
            self._booted.notify_all()
        return ctrl

    def _run(self) -> None:
        ctrl = self._boot(self.config)
        while not self._stop:
            if self._reboot_config is not None:
                with self._lock:
                    cfg, self._reboot_config = self._reboot_config, None
                    for script in self.hal.scripts:
                        script.clear()
                    self.hal.levels = [False] * len(self.hal.levels)
                ctrl = self._boot(cfg)
            wait = ctrl.step()
            self.hal.wait(wait)

    # ------------------------------------------------------------------ control API
    def _index(self, seat: str, button: str) -> int:
        if seat not in SEATS:
            raise ValueError(f"未知座位 {seat!r}（应为 {', '.join(SEATS)} 之一） / "
                             f"unknown seat {seat!r} (expected one of {', '.join(SEATS)})")
        if button not in BUTTONS:
            raise ValueError(f"未知按钮 {button!r}（应为 {', '.join(BUTTONS)} 之一） / "
                             f"unknown button {button!r} (expected one of {', '.join(BUTTONS)})")
        return SEATS.index(seat) * 3 + BUTTONS.index(button)

    def press(self, seat: str, button: str, *, bounce: bool = True) -> None:
        """Press and release a button, with contact bounce on both edges (one press event and one
        release event come out of the firmware's debouncer)."""
        i = self._index(seat, button)
        n = self.config.debounce_samples
        down = ([True, False, True] if bounce else []) + [True] * (n + 1)
        up = ([False, True, False] if bounce else []) + [False] * (n + 1)
        with self._lock:
            self.hal.scripts[i].extend(down + up)
        self._wake()

    def set_button(self, seat: str, button: str, down: bool) -> None:
        """Hold a button down (or let it go) until told otherwise."""
        i = self._index(seat, button)
        with self._lock:
            self.hal.scripts[i].extend([down] * (self.config.debounce_samples + 1))
        self._wake()

    def read_display(self, seat: str) -> str:
        """The four characters the display of ``seat`` shows right now (blank while blinking off)."""
        if seat not in SEATS:
            raise ValueError(f"未知座位 {seat!r} / unknown seat {seat!r}")
        return seg7.decode(self.hal.segments[SEATS.index(seat)])

    def read_lamp(self, seat: str | None, lamp: str) -> str:
        """The mode the firmware drives a lamp in: ``"on"``, ``"off"`` or ``"blink"``.

        ``seat`` None means the table-wide referee lamp.
        """
        ctrl = self.controller
        assert ctrl is not None
        if seat is None:
            if lamp != "referee":
                raise ValueError(f"{lamp!r} 灯属于座位 / lamp {lamp!r} belongs to a seat")
            return _LAMP_MODES[ctrl.lamps["referee"]]
        if seat not in SEATS or lamp not in LAMP_NAMES or lamp == "referee":
            raise ValueError(f"未知灯 {seat!r}.{lamp!r} / unknown lamp {seat!r}.{lamp!r}")
        return _LAMP_MODES[ctrl.lamps[f"{seat}.{lamp}"]]

    def lamp_is_lit(self, name: str) -> bool:
        """The physical level of an output right now (``"E.report"``, ``"referee"``, ``"buzzer"``)."""
        return bool(self.hal.outputs.get(name, False))

    @property
    def buzzer_on(self) -> bool:
        return self.lamp_is_lit("buzzer")

    def output_changes(self, name: str) -> list[tuple[float, bool]]:
        """When output ``name`` switched on or off, oldest first (times from ``time.monotonic``)."""
        return [(t, on) for t, n, on in list(self.hal.output_log) if n == name]

    def garbage(self, n: int, *, to_host: bool = True, to_controller: bool = False) -> None:
        """Inject ``n`` random bytes (line noise, a confused device) towards the host and/or into
        the controller's input."""
        junk = bytes(self._rng.getrandbits(8) for _ in range(n))
        with self._lock:
            if to_host and self._master is not None:
                self._out_buf += junk
                self._flush_out()
            if to_controller:
                self._in_line.append((0.0, junk))
        self._wake()

    def controller_events(self) -> list[GeneratedEvent]:
        """A copy of :attr:`generated`."""
        with self._lock:
            return list(self.generated)

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 5.0) -> bool:
        """Poll ``predicate`` until true or ``timeout`` (for tests: the firmware runs on its own thread)."""
        deadline = time.monotonic() + timeout
        while True:
            if predicate():
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(0.005)
