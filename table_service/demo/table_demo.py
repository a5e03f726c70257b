"""``guandan-table demo``: a whole simulated table, on any machine, with no hardware.

Four :mod:`bots <table_service.demo.bots>` sit at the table. They act only *physically*: a play is
cards laid in the seat's play zone of a synthetic overhead scene, which the synthetic camera
renders from real card artwork and the real vision pipeline reads; a pass, a report card or a call
for the referee is a button pressed on the emulated screen controller (on a pseudo-terminal) or on
mock GPIO pins. The engine therefore learns of the bots' cards exactly as it would at a real
table, through the camera — the demo never hands it the cards. A demo referee answers the
engine's questions (uncertain reads) by looking at the zone, as a person would, and rules on flags.

:class:`BotTable` is that driver: it watches the engine's state and makes the bots act, the
referee answer, and the dealer deal. What it touches goes through an :class:`Actuator`; the demo's
is :class:`SceneActuator`. Everything the bots really did is in :attr:`BotTable.truth`, which the
summary compares with the engine's log (recognition accuracy; flags raised against mistakes).
"""


from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from typing import Any

from firmware_bridge.emulator import ScreenEmulator
from table_service.demo.bot_table import BotTable
from table_service.demo.options import BOT_NAMES, DemoOptions
from table_service.demo.scene import SceneActuator, SceneCamera
from table_service.demo.scorecard import compare_with_log
from table_service.rules.seats import SEATS
from table_service.store.durable import write_durably
from table_service.table.camera_pipeline import CameraPipeline
from table_service.table.camera_watcher import make_watcher
from table_service.table.clock import ActorClock
from table_service.table.config import parse_service_config
from table_service.table.service import TableService
from table_service.web import users

DEMO_STATE_FILE = "demo.json"
#: The demo's broadcast delay (table seconds) unless ``--feed-delay`` or ``GUANDAN_WEB_FEED_DELAY_S``
#: says otherwise: not zero, so the overlay visibly runs behind the panel.
DEMO_FEED_DELAY_S = 10.0
FEED_DELAY_ENV = "GUANDAN_WEB_FEED_DELAY_S"


def resolve_feed_delay(explicit: float | None, environ: dict[str, str] | None = None) -> float:
    """The demo's broadcast delay: ``explicit`` (the command line), else the documented variable
    ``GUANDAN_WEB_FEED_DELAY_S``, else :data:`DEMO_FEED_DELAY_S`.

    :raises ValueError: a value that is not a number of seconds within 0–3600.
    """
    import os

    env = os.environ if environ is None else environ
    raw: Any = explicit if explicit is not None else env.get(FEED_DELAY_ENV)
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return DEMO_FEED_DELAY_S
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"直播延时无效：{raw!r}（秒，0–3600）"
                         f" / invalid broadcast delay {raw!r} (seconds, 0-3600)") from None
    if not 0.0 <= value <= 3600.0:
        raise ValueError(f"直播延时须在 0–3600 秒之间，收到 {value:g}"
                         f" / the broadcast delay must be 0-3600 s, got {value:g}")
    return value


def demo_table_toml(data_dir: str, screen_port: str, *, web_port: int, speed: float,
                    feed_delay_s: float = DEMO_FEED_DELAY_S) -> dict[str, Any]:
    """The table config of the simulated table (as ``table.toml`` would say it).

    The countdowns, lamps, buzzer and the report and call-referee buttons are on the emulated
    screen controller; the pass buttons and the status LED on (mock) GPIO pins, so both backends
    carry real traffic.
    """
    pins = {"E": 5, "S": 6, "W": 13, "N": 19}
    return {
        "table_id": "DEMO",
        "data_dir": data_dir,
        "seats": dict(BOT_NAMES),
        "devices": {"default": "screen", "pass_button": "gpio", "status_led": "gpio"},
        "screen": {"port": screen_port, "connect_timeout_s": 5.0},
        "gpio": {"pins": {"status_led": 18, **{s: {"pass_button": p} for s, p in pins.items()}}},
        "camera": {"source": "none"},
        "service": {"speed": speed},
        "web": {"host": "127.0.0.1", "port": web_port, "feed_delay_s": feed_delay_s},
    }


class Demo:
    """The whole simulated table: service, emulated screen controller, mock GPIO, synthetic camera,
    real vision, bots and the demo referee.

    :param data_dir: where the event log, the panel's users and the clock live; a fresh temporary
        folder when ``None``. Starting again on the same folder continues the same match.
    :param headless: no web panel.
    :param port: the panel's port (0: any free port).
    :param camera_size: synthetic frame size; the table spans about ``px_per_mm`` px per mm.
    :param table_id, next_round: the event demo's camera table (its id at the hub, and its
        rounds from the hub's assignment: see ``BotTable``).
    :param learn: the reader learns the deck in play (``[vision] learn``, the service's default).
        The two-deal test turns it off: a learned head is used only once 20 of the referee's answers
        are held out to judge it (``vision.cardnet.online.VAL_MIN``), and its deals ask few questions
        or none, so there learning was a third of the CPU and took no part in the reads
        (tests/service/test_demo.py).
    """

    def __init__(self, options: DemoOptions, data_dir: str | None = None, *, headless: bool = False,
                 port: int = 8080, host: str = "127.0.0.1", design: str = "anglo",
                 camera_size: tuple[int, int] = (2400, 1800), px_per_mm: float = 2.0, fps: float = 15.0,
                 realtime: bool | None = None, out: Callable[[str], None] = print,
                 mqtt: str | None = None, feed_delay_s: float | None = None, table_id: str = "DEMO",
                 mqtt_login: tuple[str, str] | None = None,
                 next_round: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None,
                 learn: bool = True) -> None:
        import json
        import tempfile
        from pathlib import Path

        self.options = options
        self._tmp = None
        if data_dir is None:
            self._tmp = tempfile.mkdtemp(prefix="guandan-demo-")
            data_dir = self._tmp
        # Absolute: the table config reads data_dir relative to this folder, so "d" made d/d/DEMO.sqlite3.
        self.data_dir = Path(data_dir).absolute()
        self.data_dir.mkdir(parents=True, exist_ok=True)
        state_file = self.data_dir / DEMO_STATE_FILE
        if state_file.exists():
            # A demo resumed on its data folder keeps the seed its hands were dealt from.
            try:
                saved = json.loads(state_file.read_text(encoding="utf-8"))
                self.options.seed = int(saved["seed"])
            except (OSError, ValueError, KeyError) as exc:
                raise ValueError(f"演示状态文件 {state_file} 无法读取：{exc}"
                                 f" / demo state {state_file} is unreadable: {exc}") from exc
        else:
            # Whole or not at all: a kill mid-write left a torn file, and every resume then refused it.
            write_durably(state_file, json.dumps({"seed": options.seed}).encode("utf-8"))
        self.headless = headless
        self.port, self.host = port, host
        self.design = design
        self.camera_size, self.px_per_mm, self.fps = camera_size, px_per_mm, fps
        self.realtime = (options.speed == 1.0) if realtime is None else realtime
        self.out = out
        self.mqtt = mqtt
        self.mqtt_login = mqtt_login
        self.table_id, self.next_round = table_id, next_round
        self.learn = learn
        self.feed_delay_s = resolve_feed_delay(feed_delay_s)
        self.service: Any = None
        self.emulator: Any = None
        self.devices: Any = None
        self.table: BotTable | None = None
        self.camera: SceneCamera | None = None
        self.pipeline: Any = None
        self.clock: Any = None
        self.login: tuple[str, str] | None = None
        self.display_log: list[tuple[float, str, str]] = []
        self._started = False

    def start(self) -> Demo:
        from gpiozero.pins.mock import MockFactory, MockPWMPin

        from hardware.table import TableDevices  # lazy: hardware's camera loads OpenCV (cv2)
        from vision.geometry import default_layout  # lazy: vision loads OpenCV (cv2)
        from vision.synth import CameraView, TableRenderer  # lazy: vision loads OpenCV (cv2)

        opt = self.options
        self.emulator = ScreenEmulator(seed=opt.seed).start()
        self.emulator.on_applied = self._on_screen_applied
        cfg_data = demo_table_toml(str(self.data_dir), self.emulator.port, web_port=self.port, speed=opt.speed,
                                   feed_delay_s=self.feed_delay_s)
        cfg_data["web"]["host"] = self.host
        cfg_data["table_id"] = self.table_id
        if not self.learn:
            cfg_data.setdefault("vision", {})["learn"] = False
        if self.mqtt:
            host, _, port = self.mqtt.rpartition(":")
            if not host or not port.isdigit():
                raise ValueError(f"--mqtt 应为 主机:端口，收到 {self.mqtt!r}"
                                 f" / --mqtt must be HOST:PORT, got {self.mqtt!r}")
            cfg_data["mqtt"] = {"enabled": True, "host": host, "port": int(port), "event": "demo"}
            if self.mqtt_login is not None:  # the event demo's broker knows each table by its own user
                cfg_data["mqtt"]["username"], cfg_data["mqtt"]["password"] = self.mqtt_login
        cfg = parse_service_config(cfg_data, base_dir=self.data_dir)
        # The players are simulated: the clock waits for them, not they for the machine
        # (ActorClock's docstring says why).
        clock = ActorClock(opt.speed, self.data_dir / "clock.json")
        self.clock = clock
        self.devices = TableDevices(cfg.hardware, pin_factory=MockFactory(pin_class=MockPWMPin))
        self.devices.open(wait=True)
        # Tidy players: the synthetic rows lie in the inner part of each play zone (the watcher
        # watches the full zone, whose border band tells a hand reaching in from cards at rest).
        renderer = TableRenderer(default_layout(zone_mm=(280.0, 130.0)),
                                 camera=CameraView(size=self.camera_size, px_per_mm=self.px_per_mm),
                                 design=self.design, seed=opt.seed)
        self.camera = SceneCamera(renderer, fps=self.fps, realtime=self.realtime, seed=opt.seed)
        holder: dict[str, Any] = {}
        watcher = make_watcher(cfg.vision, possible=lambda seat: holder["svc"].possible(seat),
                               lawful=lambda seat: holder["svc"].lawful(seat),
                               settle_s=None if self.realtime else 0.25,
                               # A still synthetic table repeats one frame: voting over copies of
                               # it would read the same picture three times.
                               read_frames=3 if self.realtime else 1)
        self.pipeline = CameraPipeline(self.camera, watcher)
        self.service = TableService(cfg, devices=self.devices, clock=clock, camera=self.pipeline,
                                    web=not self.headless, mqtt=bool(self.mqtt))
        holder["svc"] = self.service
        self.service.start()
        self.pipeline.on_status = self.service._on_camera_status
        self.service._device_status("camera", "online")
        if not self.headless:
            self.login = self._make_login()
        actuator = SceneActuator(self.camera, self.devices, self.emulator)
        runner = self.service.runner
        self.table = BotTable(self.service.submit, runner.state, runner.subscribe, actuator, clock, opt,
                              events=runner.events, next_round=self.next_round)
        self.table.start()
        self._started = True
        self.resumed = self._resume_report(runner.state(), clock)
        return self

    def _resume_report(self, st: dict[str, Any], clock: Any) -> str | None:
        """After a restart on a data folder with a deal in progress: what the table resumed
        (the countdown comes from the log's deadline, shown on the emulated display)."""
        deal = st.get("deal")
        if not deal or deal.get("phase") in (None, "over") or not deal.get("timers"):
            return None
        self.service.driver.wait_idle(3.0)
        seat, timer = next(iter(sorted(deal["timers"].items())))
        left = (int(timer["deadline_ms"]) - clock.now_ms()) / 1000.0
        ok = self.emulator.wait_for(lambda: self.emulator.read_display(seat).strip() != "", 2.0)
        shown = self.emulator.read_display(seat) if ok else ""
        return (f"继续第 {deal['no']} 副：序号 {st.get('last_seq')}，座位 {seat} {timer['phase']}"
                f" deadline_ms={timer['deadline_ms']}，剩余 {left:.1f} 秒，显示 {shown.strip()!r}"
                f" / resumed deal {deal['no']} at seq {st.get('last_seq')}: "
                f"seat {seat} {timer['phase']} deadline_ms={timer['deadline_ms']} left={left:.1f}s "
                f"display={shown.strip()!r}")

    def _on_screen_applied(self, _boot: int, _args: tuple) -> None:
        # Sample the displays as the firmware applies commands (tests check the countdowns).
        if self.emulator is None or len(self.display_log) > 200000:
            return
        for seat in SEATS:
            text = self.emulator.read_display(seat)
            if not self.display_log or self.display_log[-1][1:] != (seat, text):
                self.display_log.append((time.time(), seat, text))

    def _make_login(self) -> tuple[str, str]:
        import secrets


        app = self.service.app
        conn = users.connect(app.config["USERS_DB"])
        try:
            name = "demo-referee"
            password = secrets.token_urlsafe(12)
            with contextlib.suppress(users.UserError):
                users.remove_user(conn, name)
            users.add_user(conn, name, password, "chief")
        finally:
            conn.close()
        return name, password

    def banner(self) -> str:
        """What the demo prints when it is up."""
        lines = [
            "掼蛋裁判桌演示 / guandan-table demo",
            f"  数据目录 / data folder: {self.data_dir}",
            f"  隔板屏模拟器 / emulated screen controller: {self.emulator.port}",
            f"  速度 / speed: ×{self.options.speed:g}   种子 / seed: {self.options.seed}   "
            f"失误率 / mistake rate: {self.options.mistakes:g}",
            f"  演示裁判 / demo referee: {self.options.referee}"
            + (f"  （等待 / pauses {self.options.referee_pause_s:g} s）" if self.options.referee == "auto" else
               "  （识别存疑与标记由面板用户处理 / questions and flags are yours at the panel）"),
        ]
        if self.service.url:
            table = self.service.config.table_id
            lines += [
                f"  裁判面板 / referee panel: {self.service.url}/",
                f"  登录 / login: {self.login[0]}  密码 / password: {self.login[1]}",
                f"  直播叠加页 / overlay: {self.service.url}/feed/{table}/overlay  (English: ?lang=en)",
                f"  直播延时 / broadcast delay: {self.feed_delay_s:g} s"
                + (f" (牌桌时间，实际 {self.feed_delay_s / self.options.speed:.3g} 秒 / table time, "
                   f"{self.feed_delay_s / self.options.speed:.3g} s real)" if self.options.speed != 1.0 else ""),
                f"  公开数据流 / public feed: {self.service.url}/feed/{table}/stream "
                f"({self.service.url}/feed/{table}/state.json)",
            ]
        if getattr(self, "resumed", None):
            lines.append(f"  {self.resumed}")
        if self.service.mqtt is not None:
            m = self.service.mqtt
            lines.append(f"  MQTT: {m.host}:{m.port} {m.prefix}/state|events|status")
        lines.append("  按 Ctrl-C 结束 / press Ctrl-C to stop")
        return "\n".join(lines)

    def stop(self) -> None:
        if self.table is not None:
            self.table.stop()
        if self.service is not None:
            self.service.stop()
        if self.devices is not None:
            with contextlib.suppress(Exception):
                self.devices.close()
        if self.emulator is not None:
            with contextlib.suppress(Exception):
                self.emulator.stop()
        if self._tmp is not None:
            import shutil

            shutil.rmtree(self._tmp, ignore_errors=True)

    def __enter__(self) -> Demo:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def summary(self) -> dict[str, Any]:
        """Deals, plays, recognition against the bots' truth, flags raised against mistakes."""
        runner = self.service.runner
        st = runner.state()
        assert self.table is not None
        out = compare_with_log(self.table.truth, runner.events(), st.get("flags") or [])
        out["deals"] = self.table.deals_done
        out["referee_entered"] = len(self.table.referee_entered)
        out["errors"] = list(self.table.errors)
        out["rejected_events"] = len(self.service.submit_errors)
        out["frames"] = self.pipeline.frames if self.pipeline else 0
        out["renders"] = self.camera.renders if self.camera else 0
        out["clock_held_s"] = round(float(getattr(self.clock, "held_real_s", 0.0)), 2)
        out["clock_holds"] = int(getattr(self.clock, "holds", 0))
        out["speed"] = self.options.speed
        return out
