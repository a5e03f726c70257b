"""The table service: the table's devices, camera and web panel wired to one engine thread.

The table's flow, as code::

    camera frames ─► CameraPipeline (vision) ─┐
    screen / GPIO buttons (hardware) ─────────┼─► TableRunner.submit ─► one engine thread ─► SQLite log
    web panel (table_service.web) ────────────┘                              │
    clock ticks (TableClock) ─────────────────┘                              ▼ effects
                        displays, lamps, buzzer (DeviceDriver)  ◄────────────┤
                        referee panel SSE, public feed, MQTT    ◄────────────┘

Everything but the engine thread only *submits* events; what each input becomes as an event is
:mod:`table_service.table.inputs`. Effects come back from the engine thread
and are handed to a device worker thread at once, so a slow serial link never holds up the
engine. Timer deadlines live in the engine's state (event time), so after a restart the service
asks the runner for ``device_effects()`` and every countdown resumes at the same deadline.

Device outages are events (``device_status_changed``): the panel shows them and the table keeps
going — with the camera down, the referee enters plays at the panel; with the screen controller
down, its buttons' presses wait in the controller's ring buffer and arrive when it is back.

:class:`TableClock` is the one clock of the service. In production it is the wall clock
(Unix epoch ms, as the event log wants). The demo compresses time by a speed factor; the clock's
origin is kept in the data folder, so a restarted demo continues on the same time line and its
countdowns resume where they were.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from table_service.table.camera_health import LAG_GRACE_S
from table_service.table.camera_pipeline import CameraPipeline
from table_service.table.camera_watcher import lawful_shape, possible_cards
from table_service.table.clock import TableClock
from table_service.table.config import DEFAULT_CAMERA_GRACE_S, ServiceConfig
from table_service.table.deck import drop_deck, load_saved_deck, take_deck
from table_service.table.driver import DeviceDriver
from table_service.table.inputs import BUTTON_EVENTS, camera_event, sighting_event, witnessed_t_ms
from table_service.table.runner import TableRunner
from table_service.table.ticker import run_ticker
from table_service.views.camera_note import camera_noted
from table_service.web.app import create_app
from table_service.web.config import build as build_web_settings
from table_service.web.secret_key import kept_secret_key
from table_service.web.server import serve
from table_service.web.tables import attach_table, web_state

log = logging.getLogger(__name__)

#: Seconds within which lost presses are one loss for the referee: the controller's report of its
#: ring's overflow and the gap in its numbers arrive apart, and one call is enough.
LOST_PRESS_MERGE_S = 10.0

# ---------------------------------------------------------------------------- the service


class TableService:
    """One table: runner, devices, camera pipeline, clock ticks, web panel, MQTT.

    :param config: a :class:`ServiceConfig`.
    :param devices: a ``hardware.TableDevices`` to use (the demo builds its own); built from the
        config when ``None``.
    :param clock: the :class:`TableClock` (default: wall clock).
    :param camera: a camera pipeline object with ``start(submit_observation)``/``stop()`` and a
        ``status`` (see :class:`CameraPipeline`); ``None``: built from the config, if it has a camera.
    :param web: serve the referee panel (``[web]``); the demo's headless mode turns it off.
    """

    def __init__(self, config: ServiceConfig, *, devices: Any = None, clock: TableClock | None = None,
                 camera: Any = None, web: bool | None = None, mqtt: bool | None = None,
                 pin_factory: Any = None) -> None:
        self.config = config
        self.clock = clock or TableClock(float(config.service.get("speed", 1.0)), config.clock_path)
        self._own_devices = devices is None
        self.devices = devices
        self.camera = camera
        self.want_web = bool(config.web.get("enabled", True)) if web is None else web
        self.want_mqtt = bool(config.mqtt.get("enabled", bool(config.mqtt))) if mqtt is None else mqtt
        self._pin_factory = pin_factory
        self.runner: TableRunner | None = None
        self.driver: DeviceDriver | None = None
        self.app: Any = None
        self.server: Any = None
        self.mqtt: Any = None
        self._stop = threading.Event()
        #: Device -> the reason last logged with its status (see :meth:`_device_status`).
        self._device_why: dict[str, str | None] = {}
        self._threads: list[threading.Thread] = []
        self._unsubs: list[Callable[[], None]] = []
        self.observations: list[dict[str, Any]] = []  # camera observations and what became of them
        self._obs_lock = threading.Lock()
        #: Screen-controller presses already in the log, as "boot:event_no": the controller replays
        #: presses the Pi had not acknowledged, so after a Pi restart one can arrive twice.
        self._presses: set[str] = set()
        self._press_lock = threading.Lock()
        #: Per controller boot: the least (host monotonic ms - controller ms) seen, from the
        #: controller's HELLO and from presses delivered at once (see _pressed_at).
        self._screen_offsets: dict[str, float] = {}
        self.submit_errors: list[str] = []

    # -------------------------------------------------------------------------- lifecycle

    def start(self) -> TableService:
        """Open everything; returns self. Devices that are absent are reported, not fatal."""
        self.config.data_dir.mkdir(parents=True, exist_ok=True)
        self.runner = TableRunner(self.config.db_path, clock=self.clock.now_ms).start()
        # Accepted and refused alike: a press the engine refused is decided, and in the log; the
        # controller sending it again after a restart must not have it decided (maybe otherwise) twice.
        self._presses = {e["data"]["press"] for e in [*self.runner.events(), *self.runner.rejected()]
                         if isinstance(e.get("data"), dict) and isinstance(e["data"].get("press"), str)}
        if self.devices is None:
            from hardware.table import TableDevices  # lazy: hardware's camera loads OpenCV (cv2)

            self.devices = TableDevices(self.config.hardware, pin_factory=self._pin_factory,
                                        on_camera_status=self._on_camera_status)
            # Listening before the link opens: the presses a controller kept while the Pi was down
            # are sent the moment it connects, and acknowledged once handed over.
            self._unsubs.append(self.devices.on_button(self._on_button))
            self.devices.open(wait=True)
        else:
            self._unsubs.append(self.devices.on_button(self._on_button))
        self.driver = DeviceDriver(self.devices, self.clock).start()
        self._unsubs.append(self.runner.subscribe_effects(lambda fx, _ev: self.driver.submit(fx)))
        # Resume: every display and lamp to the state in the log (countdowns at their deadlines).
        self.driver.submit(self.runner.device_effects())
        with contextlib.suppress(Exception):
            self.devices.status_led.set("on")
        self._spawn(self._tick_loop, "clock-ticks")
        if getattr(self.devices, "screen", None) is not None:
            self._spawn(self._screen_monitor, "screen-monitor")
        if self.camera is None and self.config.hardware.camera.source != "none":
            self.camera = CameraPipeline.from_config(self.config, self.devices, self._on_camera_status,
                                                     possible=self.possible, lawful=self.lawful)
        if self.camera is not None:
            if getattr(self.camera, "clock", False) is None:
                self.camera.clock = self.clock  # frames go on the service's time line
            if getattr(self.camera, "on_sighting", False) is None:
                self.camera.on_sighting = self.sighting
            self.camera.start(self.observe)
            if callable(getattr(self.camera, "health", None)):
                # The panel's ``camera`` health (docs/api.md), read by the web's state endpoint,
                # and the pipeline itself for enrolling a deck from the table (web/enroll.py).
                self.runner.camera_health = self.camera.health  # type: ignore[attr-defined]
                self.runner.camera_pipeline = self.camera  # type: ignore[attr-defined]
                if getattr(self.camera, "enrollment_path", False) is None:
                    self.camera.enrollment_path = str(self.config.enrollment_file)
                if load_saved_deck(self.camera):
                    self._note_camera(f"读牌用保存的牌组 {self.camera.enrollment_path} / "
                                      f"reading with the saved deck {self.camera.enrollment_path}")
            if callable(getattr(self.camera, "learn_from", None)):
                # The referee's answers to the camera's questions teach the reader this deck.
                self._unsubs.append(self.runner.subscribe_effects(self._teach_camera))
        else:
            self._device_status("camera", "offline", "没有摄像头 / no camera configured")
        if self.want_web:
            self._start_web()
        if self.want_mqtt:
            from table_service.table.mqtt_bridge import (  # lazy: paho-mqtt, only for a table with [mqtt]
                announced_panel_url,
                bridge_from_config,
            )

            entry = web_state(self.app).tables[self.config.table_id] if self.app is not None else None
            feed = entry.feed if entry is not None else None
            mqtt_cfg = dict(self.config.mqtt)
            if not mqtt_cfg.get("panel_url") and self.server is not None:
                mqtt_cfg["panel_url"] = announced_panel_url(self.server.host, self.server.port, self.config.table_id,
                                                            broker=str(mqtt_cfg.get("host", "127.0.0.1")))
            # Without the panel the bridge makes its own feed: delayed and held exactly as the panel's
            # would be (the same settings, environment included), never a live one.
            public = build_web_settings(self._web_settings())
            self.mqtt = bridge_from_config(self.runner, mqtt_cfg, table_id=self.config.table_id,
                                           clock=self.clock.now_ms, feed=feed,
                                           delay_s=float(public["FEED_DELAY_S"]),
                                           duplicate=bool(public["FEED_DUPLICATE"]),
                                           # the hub's event accounts become the panel's logins
                                           users_db=self.app.config["USERS_DB"] if self.app is not None else None)
            if self.camera is not None:  # the event's deck, enrolled once and handed down by the hub
                self.mqtt.deck_listeners.append(self._take_hub_deck)
                self.mqtt.deck_withdrawn_listeners.append(self._drop_hub_deck)
            self.mqtt.start()  # after the listener: the retained deck comes with the connection
            if entry is not None:
                entry.hub_link = self.mqtt  # the panel's assignment card and one-tap start
        return self

    def _web_settings(self) -> dict[str, Any]:
        """The web app's settings from table.toml's ``[web]``: only what it says, so that otherwise the
        documented GUANDAN_WEB_FEED_DELAY_S / GUANDAN_WEB_FEED_DUPLICATE apply (a default here used to
        override them with 0 / false)."""
        web = self.config.web
        settings: dict[str, Any] = {
            "USERS_DB": str(self.config.users_db_path),
            "FEED_CLOCK": self.clock.now_ms,
        }
        if "feed_delay_s" in web:
            settings["FEED_DELAY_S"] = float(web["feed_delay_s"])
        if "duplicate" in web:
            settings["FEED_DUPLICATE"] = bool(web["duplicate"])
        # A restart keeps the referees logged in: the key is kept in the data folder when table.toml names none.
        key = web.get("secret_key") or kept_secret_key(self.config.data_dir)
        if key:
            settings["SECRET_KEY"] = key
        return settings

    def _start_web(self) -> None:
        web = self.config.web
        self.app = create_app(self._web_settings())
        attach_table(self.app, self.config.table_id, self.runner)
        self.server = serve(self.app, str(web.get("host", "127.0.0.1")), int(web.get("port", 8080)))

    def stop(self) -> None:
        """Stop inputs first, then the engine, then outputs (idempotent)."""
        if self._stop.is_set():
            return
        self._stop.set()
        if self.camera is not None:
            with contextlib.suppress(Exception):
                self.camera.stop()
        screen = getattr(self.devices, "screen", None) if self._own_devices else None
        if screen is not None:  # no press acknowledged from here on that no one would log
            with contextlib.suppress(Exception):
                screen.close()
        for unsub in self._unsubs:
            with contextlib.suppress(Exception):
                unsub()
        for t in self._threads:
            t.join(3)
        if self.mqtt is not None:
            with contextlib.suppress(Exception):
                self.mqtt.stop()
        if self.server is not None:
            with contextlib.suppress(Exception):
                self.server.stop()
        if self.runner is not None:
            self.runner.stop()
        if self.driver is not None:
            self.driver.stop()
        if self._own_devices and self.devices is not None:
            self.devices.close()

    def __enter__(self) -> TableService:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _spawn(self, fn: Callable[[], None], name: str) -> None:
        t = threading.Thread(target=fn, name=name, daemon=True)
        t.start()
        self._threads.append(t)

    @property
    def url(self) -> str | None:
        """The panel's base URL, when serving."""
        return self.server.url if self.server is not None else None

    # ----------------------------------------------------------------------------- inputs

    def submit(self, event: dict[str, Any], wait: bool = True, timeout: float = 5.0,
               on_done: Callable[[Any], None] | None = None) -> Any:
        """Submit one event to the engine (every input goes through here)."""
        assert self.runner is not None
        res = self.runner.submit(event, wait=wait, timeout=timeout, on_done=on_done)
        if wait and not res.accepted and not res.queued:  # queued: still to be decided
            self._note_rejected(event, res)
        return res

    def _note_rejected(self, event: dict[str, Any], res: Any) -> None:
        msg = f"{event.get('type')} {event.get('data')}: {res.error}"
        log.warning("event rejected: %s", msg)
        if len(self.submit_errors) < 1000:
            self.submit_errors.append(msg)

    def _on_button(self, ev: Any) -> None:
        """A button edge from any backend (its own thread): presses become events."""
        if not ev.pressed:
            return
        etype = BUTTON_EVENTS.get(ev.button)
        if etype is None:
            return
        data: dict[str, Any] = {"seat": ev.seat}
        if etype == "referee_called":
            data["reason"] = "按钮 / button"
        source = "screen" if ev.source == "screen" else "gpio"
        numbered = source == "screen" and getattr(ev, "event_no", None) is not None
        t_ms = self._pressed_at(ev, data["seat"]) if numbered else None
        if numbered:
            key = f"{self._screen_boot_id()}:{ev.event_no}"
            with self._press_lock:
                if key in self._presses:
                    log.info("repeated screen press %s ignored (already in the log)", key)
                    return
                self._presses.add(key)
            data["press"] = key
        event = {"type": etype, "source": source, "data": data}
        if t_ms is not None:
            event["t_ms"] = t_ms
        if not numbered:
            self.submit(event, wait=False)
            return
        # A numbered press is acknowledged to the controller only once it is in the log: a Pi dying
        # before leaves it in the controller's queue, sent again when the service is back. The
        # link's reader does not wait for the engine (it would stop reading the controller's
        # heartbeats): the acknowledgement is held, and released when the press is written.
        hold = getattr(ev, "hold", None)
        release = hold() if hold is not None else None

        def written(res: Any) -> None:
            if not res.accepted:
                self._note_rejected(event, res)
            if res.seq is None:
                # Not in the log (the store failed: a full card, an I/O error): not acknowledged, so the
                # controller keeps it and sends it again to the restarted service, which logs it then.
                log.error("隔板屏按键 %s 未写入记录（%s）：暂不确认，下次启动时重发 / screen press %s not logged (%s): "
                          "kept unacknowledged for the next start", key, res.error, key, res.error)
                with self._press_lock:
                    self._presses.discard(key)
                return
            if release is not None:
                release()

        self.submit(event, wait=False, on_done=written)

    def _pressed_at(self, ev: Any, seat: str) -> int | None:
        """A press the controller kept through an outage, on the table's time line: stamped back
        to the seat's deadline when it was made by then (:func:`witnessed_t_ms`, as a camera play
        is), else None ("now").

        When it was made: its controller time plus the smallest gap yet seen between the host's
        clock and that controller boot's. Each sample (a frame's arrival on the host minus its
        controller time) can only overstate the gap, by the frame's delay, so the least is the
        best: a press is never dated earlier than it was made. The controller's HELLO gives one
        sample as the link comes up (``clock_ms``/``clock_host_ms`` of ``controller_info``); without
        it a Pi that restarted took the first press it heard of as the gap itself, so a press the
        controller had kept for 40 s was dated "now" and a pass made in time was flagged time_over.
        Firmware before 1.1.0 sends no clock: then only the presses give samples, as before."""
        ms = getattr(ev, "controller_ms", None)
        if not isinstance(ms, int) or self.runner is None:
            return None
        host_ms = time.monotonic() * 1000.0  # the controller counts real milliseconds, as this does
        info = self._screen_info()  # read once: the boot and its clock from the same HELLO
        boot = str(info.get("boot_id", "?")) if info is not None else "?"
        offset = min(self._screen_offsets.get(boot, host_ms - ms), host_ms - ms)
        if info is not None:
            clock, at = info.get("clock_ms"), info.get("clock_host_ms")
            if isinstance(clock, int) and isinstance(at, (int, float)):
                offset = min(offset, at - clock)
        self._screen_offsets[boot] = offset
        late_s = max(0.0, host_ms - (ms + offset)) / 1000.0
        now = self.clock.now_ms()
        return witnessed_t_ms(self.runner.state(), seat, int(now - self.clock.table_s(late_s) * 1000.0), now)

    def _note_camera(self, detail: str) -> None:
        """Which deck the camera reads with goes into the log (views.camera_note says why)."""
        if self.runner is not None:
            self.submit(camera_noted(self.runner.state(), detail), wait=False)

    def _log_camera(self, detail: str) -> bool:
        """:meth:`_note_camera` waiting for the verdict: True once the note is in the log. For a change of
        deck, logged before the deck is used (``take_deck``'s ``note``)."""
        if self.runner is None:
            return True  # nothing to log into (a camera check without a match)
        return bool(self.submit(camera_noted(self.runner.state(), detail), wait=True).accepted)

    def _take_hub_deck(self, data: bytes, sha: str, _meta: Any) -> bool:
        detail = f"读牌用赛事中心的牌组 {sha[:12]} / reading with the hub's deck {sha[:12]}"
        noted: list[bool] = []
        taken = take_deck(self.camera, data, sha, note=lambda: noted.append(self._log_camera(detail)) or noted[-1])
        if taken and not noted:  # the deck taken before (a reconnect's retained copy): said again, as before
            self._note_camera(detail)
        return taken

    def _drop_hub_deck(self, sha: str) -> bool:
        dropped = drop_deck(self.camera, sha)
        if dropped:
            self._note_camera(f"赛事中心收回牌组 {sha[:12]}，边打边学 / the hub withdrew deck {sha[:12]}: reading unenrolled")
        return dropped

    def _screen_info(self) -> dict[str, Any] | None:
        """What the screen controller said in its latest HELLO (boot id, clock), or None."""
        screen = getattr(self.devices, "screen", None) if self.devices is not None else None
        controller = getattr(screen, "controller", None)
        info = getattr(controller, "controller_info", None)  # a property: the HELLO's fields, or None
        return info if isinstance(info, dict) else None

    def _screen_boot_id(self) -> str:
        """The screen controller's boot id (its event numbers restart with each boot)."""
        info = self._screen_info()
        return str(info.get("boot_id", "?")) if info is not None else "?"

    def _teach_camera(self, _fx: Any, ev: dict[str, Any]) -> None:
        """An answer to a camera question is learned off the engine thread (a refit takes ~0.2 s)."""
        if ev.get("type") in ("play_confirmed", "play_corrected"):
            threading.Thread(target=self.camera.learn_from, args=(ev,), name="camera-learn", daemon=True).start()

    def observe(self, seat: str, cards: list[str], confidence: list[float] | None = None, uncertain: bool = False,
                *, frame_t: float | None = None, frame_wall: float | None = None,
                extra: dict[str, Any] | None = None, placed_ms: int | None = None) -> Any:
        """A settled play seen in ``seat``'s zone (called by the camera pipeline's thread).

        ``placed_ms``: table time of the first frame in which the play was being put down (the
        camera is the witness). A play put down by the seat's deadline but read after it is
        stamped at the deadline (:func:`witnessed_t_ms`), so the engine counts it in time; any
        other play keeps the time it is submitted, so the next seat's clock starts when the
        engine learns of the play, as before.
        """
        assert self.runner is not None
        state = self.runner.state()
        if cards:
            ev = camera_event(state, seat, cards, confidence, uncertain, extra=extra)
        else:
            ev = {"type": "referee_called", "source": "camera",
                  "data": {"seat": seat, "reason": "牌区有牌但无法识别 / cards in the zone could not be read"}}
        if ev is not None and ev["type"] != "referee_called":
            t = witnessed_t_ms(state, seat, placed_ms, self.clock.now_ms())
            if t is not None:
                ev["t_ms"] = t
        rec = {"seat": seat, "cards": list(cards), "uncertain": uncertain, "frame_t": frame_t,
               "frame_wall": frame_wall, "observed_wall": time.time(), "event": ev["type"] if ev else None,
               "placed_ms": placed_ms, "seq": None}
        res = None
        if ev is not None:
            res = self.submit(ev)
            rec["seq"] = res.seq if res.accepted else None
            rec["accepted_wall"] = time.time()
        with self._obs_lock:
            self.observations.append(rec)
        return res

    def sighting(self, sighting: Any, zone_centres: dict[str, tuple[float, float]] | None = None) -> Any:
        """An exposed card or a hand over a zone seen by the camera (its pipeline's thread):
        submitted as ``card_exposed`` / ``zone_obstructed`` when the phase allows, else only logged."""
        assert self.runner is not None
        ev = sighting_event(self.runner.state(), sighting, zone_centres)
        if ev is None:
            log.info("camera sighting (no event now): %s", getattr(sighting, "to_json", lambda: sighting)())
            return None
        return self.submit(ev)

    def possible(self, _seat: str) -> list[str] | None:
        """Cards still possible this deal (the watcher's ``possible`` hook)."""
        if self.runner is None:
            return None
        return possible_cards(self.runner.state())

    def lawful(self, _seat: str) -> Callable[[list[str]], bool] | None:
        """Whether cards form a pattern at this deal's level (the watcher's ``lawful`` hook)."""
        if self.runner is None:
            return None
        return lawful_shape(self.runner.state())

    def _device_status(self, device: str, status: str, detail: str | None = None) -> None:
        if self.runner is None:
            return
        # The same status for another reason is logged too (a camera offline for a covered lens, then
        # for a device gone): the log and the panel show why now, not why first.
        if self.runner.state().get("devices", {}).get(device) == status and \
                self._device_why.get(device) == detail:
            return
        self._device_why[device] = detail
        data: dict[str, Any] = {"device": device, "status": status}
        if detail:
            data["detail"] = detail
        self.submit({"type": "device_status_changed", "source": "system", "data": data}, wait=False)

    def _on_camera_status(self, status: Any) -> None:
        connected = bool(getattr(status, "connected", False))
        detail = getattr(status, "error", None)
        self._device_status("camera", "online" if connected else "offline", detail)

    def _screen_monitor(self) -> None:
        screen = self.devices.screen
        last: bool | None = None
        # From 0, not from the count at start: the controller's report of presses its ring lost while
        # the Pi was down arrives as the link comes up, before this first looks.
        lost_seen = 0
        called_at = -60.0
        while not self._stop.wait(0.25):
            up = bool(screen.is_connected)
            if up != last:
                self._device_status("screen", "online" if up else "offline",
                                    None if up else "隔板屏控制器未连接 / screen controller not connected")
                last = up
            lost = _presses_lost(screen)
            if lost > lost_seen and self.runner is not None:
                # A press the controller numbered but the host never got (its buffer overflowed, a
                # frame was lost for good): a pass, a report or a call the log does not hold. Only
                # the players know which: the referee is called, as a player's press would. Once for
                # one loss: the controller's own report and the gap in its numbers may both say it.
                if time.monotonic() - called_at > LOST_PRESS_MERGE_S:
                    presses = max(1, (lost - lost_seen + 1) // 2)  # a press is two events: down and up
                    self.submit({"type": "referee_called", "source": "screen", "data": {
                        "reason": f"隔板屏丢失约 {presses} 次按键（过牌、报牌或呼叫），请向选手核实 / the partition "
                                  f"screen lost about {presses} button press(es) (pass, report or call): check with "
                                  "the players"}}, wait=False)
                    called_at = time.monotonic()
                lost_seen = lost

    def _tick_loop(self) -> None:
        grace = float(self.config.service.get("camera_grace_s", DEFAULT_CAMERA_GRACE_S))
        # Past the grace the tick still waits for a camera that is behind (frames up to the
        # deadline not read yet), for at most LAG_GRACE_S more: the machine's delay must not put
        # a player over time (issue #18 item 9). Beyond that the camera is "not reading" (offline).
        run_ticker(lambda: self.runner, self.clock, self._stop, witness=self.camera_witness,
                   grace_s=grace + LAG_GRACE_S, paused=self.screen_dark)

    def screen_dark(self, state: dict[str, Any]) -> str | None:
        """Why no one can be over time now: this table's partition screen (its countdowns and pass
        buttons) is offline. None at a table without a screen, or with it online."""
        if getattr(self.devices, "screen", None) is None:
            return None
        if (state.get("devices") or {}).get("screen") == "offline":
            return "隔板屏离线，倒计时与过牌键不可用 / the partition screen is offline: no countdown, no pass button"
        return None

    def camera_witness(self, state: dict[str, Any], seat: str, deadline_ms: int) -> str | None:
        """Why a tick at ``seat``'s deadline should wait for the camera, or None.

        The camera is the witness of when a play was made: while it is online, a tick that would
        put ``seat`` over time waits (a) until the pipeline has handled the frames taken up to the
        deadline, (b) while a play it saw start by the deadline is still being put down or read,
        and (c) while such a play, read uncertain, is a question to the referee. All bounded by
        ``camera_grace_s``. A camera that is offline (or none) holds nothing: the referee enters
        plays then.
        """
        cam = self.camera
        if cam is None or (state.get("devices") or {}).get("camera") != "online":
            return None
        grace_ms = self.clock.table_s(float(self.config.service.get("camera_grace_s", DEFAULT_CAMERA_GRACE_S))) * 1000
        past_grace = self.clock.now_ms() - deadline_ms >= grace_ms
        hold = getattr(cam, "holds", None)
        if past_grace:  # only a camera still behind the deadline holds now (see _tick_loop)
            return hold(seat, deadline_ms, lag_only=True) if hold is not None else None
        # (c) the camera saw the play in time but could not read it for sure: the referee is
        # being asked what it is, not when it was made.
        for q in (state.get("deal") or {}).get("questions") or ():
            if q.get("seat") == seat and int(q.get("t_ms") or 0) <= deadline_ms:
                return "出牌待裁判确认 / a play seen in time awaits the referee"
        return hold(seat, deadline_ms) if hold is not None else None

    # ------------------------------------------------------------------------ round set-up

    def round_event(self, players: dict[str, str] | None = None, *, levels: dict[str, str] | None = None) -> dict[str, Any]:
        """The ``round_set_up`` event the config describes (the referee submits it at the panel;
        the demo submits it itself)."""
        svc = self.config.service
        fmt_kind = svc.get("format", "past_a")
        fmt: dict[str, Any] = {"kind": fmt_kind}
        if fmt_kind == "deals":
            fmt["deals"] = int(svc["deals"])
        elif fmt_kind == "time":
            fmt["minutes"] = int(svc["minutes"])
        data: dict[str, Any] = {"players": players or dict(self.config.hardware.seat_names),
                                "ruleset": svc.get("ruleset", "jiangsu"), "format": fmt}
        if levels:
            data["levels"] = levels
        return {"type": "round_set_up", "source": "panel", "role": "referee", "data": data}


def _presses_lost(screen: object) -> int:
    """Button presses the partition screen's controller numbered and the host never received (the
    screen link's count; 0 for a screen without one)."""
    controller = getattr(screen, "controller", None)
    counts = (getattr(controller, "events_lost", 0), getattr(controller, "overflow_lost", 0))
    return sum(n for n in counts if isinstance(n, int))
