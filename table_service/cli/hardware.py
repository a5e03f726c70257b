"""``guandan-table config check`` and ``guandan-table selftest``: both read a whole table.toml (hardware and
``[service] [web] [mqtt] [vision]``), so they live in the table service's command line, not in ``hardware``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from firmware_bridge.firmware.wire import SEATS
from hardware.backends.gpio import resolve_pin_factory
from hardware.config_model import DEVICE_KINDS, DEVICE_NAMES, TableConfig
from hardware.errors import HardwareError
from hardware.selftest import STEPS, CheckResult, SelfTest, SelfTestReport
from hardware.table import TableDevices
from table_service.table.config import ServiceConfig, load_service_config, service_warnings
from table_service.table.placement import config_report
from table_service.table.placement import meter as placement_meter
from table_service.table.preflight import check_before_start, start_checks
from vision.calibration import LensCalibration, detect_markers
from vision.geometry import TableLayout


def _between(lo: float, hi: float, kind: type = float) -> Callable[[str], Any]:
    """An argparse type: a finite ``kind`` within ``lo``–``hi`` (a negative wait would fail every button
    and blame the hardware; nan or a billion-second countdown never ends)."""
    def parse(text: str) -> Any:
        try:
            v = kind(text)
        except ValueError:
            zh, en = ("整数", "a whole number") if kind is int else ("数字", "a number")
            raise argparse.ArgumentTypeError(f"须为{zh}（收到 {text[:40]!r}） / must be {en}, got {text[:40]!r}") from None
        if not (lo <= v <= hi):  # nan fails this too
            raise argparse.ArgumentTypeError(f"须在 {lo}–{hi} 之间（收到 {text[:40]}） / must be within {lo}-{hi}, "
                                             f"got {text[:40]}")
        return v
    return parse


def register(subparsers: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    """Add the hardware sub-commands to the ``guandan-table`` parser."""
    config = subparsers.add_parser("config", help="检查 table.toml / check a table.toml",
                                   description="硬件配置 / table hardware configuration")
    config_sub = config.add_subparsers(dest="config_command", metavar="ACTION", required=True)
    check = config_sub.add_parser("check", help="校验配置文件 / validate a table.toml",
                                  description="校验 table.toml，列出所有错误 / validate table.toml, listing every problem")
    check.add_argument("path", help="桌配置文件 / the table's config to check (table.toml)")
    check.add_argument("--offline", action="store_true",
                       help="不检查串口/摄像头/文件是否存在（为另一台机器写的配置） / skip checking that ports, "
                            "cameras and files exist (a file written for another machine)")
    check.set_defaults(func=cmd_config_check)

    st = subparsers.add_parser("selftest", help="桌面设备自检 / self-test the table's devices",
                               description="先做 run 启动前的检查（只读），再逐个点亮指示灯、倒计时、按钮、摄像头四角标记 / "
                                           "run's start-up checks (read only), then lamps, displays, buttons, "
                                           "buzzer and camera markers, one by one")
    st.add_argument("--config", required=True, help="桌配置文件 / the table's config (table.toml)")
    st.add_argument("--skip", action="append", default=[], choices=STEPS,
                    help="跳过某步 / skip a step (repeatable)")
    st.add_argument("--button-timeout", type=_between(0.1, 600.0), default=15.0, metavar="S",
                    help="每个按钮的等待秒数 / seconds to wait for each button (15)")
    st.add_argument("--camera-timeout", type=_between(0.1, 600.0), default=10.0, metavar="S",
                    help="等待摄像头画面的秒数 / seconds to wait for a camera frame (10)")
    st.add_argument("--countdown-from", type=_between(1, 99, int), default=3, metavar="N", help="倒计时起点 / count down from N (3)")
    st.add_argument("--lamp-seconds", type=_between(0.0, 60.0), default=0.5, metavar="S", help="每盏灯亮多久 / seconds per lamp")
    st.add_argument("--displays-together", action="store_true", help="所有显示同时倒数 / count all displays at once")
    st.add_argument("--mock-gpio", action="store_true",
                    help="GPIO 设备用模拟引脚（无硬件演练） / run GPIO devices on gpiozero mock pins (dry run)")
    st.set_defaults(func=cmd_selftest)


def describe(cfg: TableConfig) -> str:
    """Human summary of a valid config (what ``config check`` prints)."""
    lines = [
        f"配置有效 / config OK: {cfg.path}",
        f"  桌号 / table id: {cfg.table_id}",
        "  座位 / seats: " + "  ".join(f"{s}={cfg.seat_names[s]}" for s in SEATS),
        f"  数据目录 / data folder: {cfg.data_dir}",
    ]
    if cfg.screen is not None:
        lines.append(f"  隔板屏 / screen controller: {cfg.screen.url}")
    if cfg.uses("gpio") and cfg.gpio.pin_factory:
        lines.append(f"  GPIO 驱动 / pin factory: {cfg.gpio.pin_factory}")
    lines.append("  设备 / devices:")
    for kind in DEVICE_KINDS:
        backend = cfg.backends[kind]
        where = ""
        if backend == "gpio":
            if kind == "countdown":
                where = " ".join(f"{s}:{p.clk}/{p.dio}" for s, p in cfg.gpio.displays.items())
            else:
                where = " ".join(f"{s or '*'}:{pin}" for (s, k), pin in cfg.gpio.pins.items() if k == kind)
            where = f"  BCM {where}"
        zh = DEVICE_NAMES[kind].split(" / ")[0]
        lines.append(f"    {zh}{' ' * (13 - 2 * len(zh))}{kind:<15} {backend:<7}{where}".rstrip())
    cam = cfg.camera
    if cam.source == "none":
        lines.append("  摄像头 / camera: 无 / none")
    else:
        what = cam.device if cam.source == "device" else (cam.path or cam.renderer or "标记板 / marker board")
        if cam.backend == "picamera2":
            size = f"{cam.width}x{cam.height}" if cam.size_given else "传感器全幅 / sensor full size"
            lines.append(f"  摄像头 / camera: picamera2 camera {cam.camera_num} {size} + "
                         f"{cam.lores[0]}x{cam.lores[1]} YUV@{cam.fps:g}")
        else:
            lines.append(f"  摄像头 / camera: {cam.source} {what} {cam.width}x{cam.height}@{cam.fps:g}")
    for w in cfg.warnings:
        lines.append(f"  警告 / warning: {w}")
    return "\n".join(lines)


def _load_table_toml(path: str, *, check_devices: bool, check_files: bool = True) -> TableConfig:
    """The whole ``table.toml`` checked by the one schema ``guandan-table run`` uses too: the
    hardware part here, ``[service] [web] [mqtt] [vision]`` by :mod:`table_service.table.config`.

    :raises ValueError: every problem, each naming its section and key.
    """
    return load_service_config(path, check_devices=check_devices, check_files=check_files).hardware


def cmd_config_check(args: argparse.Namespace) -> int:
    """Check a ``table.toml`` as ``run`` does: the file (every section), then, unless ``--offline``,
    what ``run`` opens before it starts (the event log, the users database, the clock, the panel's
    address: :func:`check_before_start`), reading only, so nothing is written or made. Exit 1 for
    either, each said as what it is."""
    try:
        svc = load_service_config(args.path, check_devices=not args.offline, check_files=not args.offline)
        # The camera's px/mm over the play zones, from its mounting (or the lens calibration).
        lines, warnings = config_report(svc)
        warnings = [*warnings, *service_warnings(svc)]
    except ValueError as exc:
        print(f"配置无效 / config invalid: {exc}", file=sys.stderr)
        return 1
    if not args.offline:  # a file written for another machine: its files are there, not here
        try:
            warnings += check_before_start(svc, web=_serves_panel(svc), busy_port_ok=True)
        except ValueError as exc:
            print(f"配置有效，但本桌无法启动 / the config is valid, but run would refuse to start: {exc}", file=sys.stderr)
            return 1
    print(describe(svc.hardware))
    for line in lines:
        print(f"  {line}")
    for w in warnings:
        print(f"  警告 / warning: {w}")
    return 0


def _serves_panel(svc: ServiceConfig) -> bool:
    """Whether ``run`` would serve the panel from this config (and so check its address and users)."""
    return bool(svc.web.get("enabled", True))


def _startup_checks(svc: ServiceConfig) -> list[tuple[str, bool, str]]:
    """``run``'s start-up checks as the self-test lists them: a port in use passes with its warning
    (the table itself may be running), each problem names its file."""
    return [(c.item, c.problem is None, c.problem or c.warning or c.target)
            for c in start_checks(svc, web=_serves_panel(svc), busy_port_ok=True)]


def _vision_files(svc: object) -> tuple[object, object]:
    """``[vision]``'s table layout and lens calibration (None where not set), paths from the toml."""
    vision = getattr(svc, "vision", None) or {}
    base = getattr(svc, "path", None)

    def where(value: str) -> Path:
        p = Path(value)
        return p if p.is_absolute() or base is None else Path(base).parent / p

    layout = TableLayout.load(where(vision["layout"])) if vision.get("layout") else None
    lens = LensCalibration.load(where(vision["calibration"])) if vision.get("calibration") else None
    return layout, lens


def cmd_selftest(args: argparse.Namespace) -> int:
    try:
        # Missing devices (camera unplugged, no serial port) are what the self-test is for: they
        # show up as failures in its table instead of stopping it here.
        svc = load_service_config(args.config, check_devices=False)
        cfg = svc.hardware
        # Without a camera nothing reads [vision] (config check and run pass it over): neither does the test.
        layout, lens = _vision_files(svc) if cfg.camera.source != "none" else (None, None)
    except ValueError as exc:
        print(f"配置无效 / config invalid: {exc}", file=sys.stderr)
        return 1
    pin_factory = None
    if args.mock_gpio:
        pin_factory = resolve_pin_factory("mock")
    try:
        table = TableDevices(cfg, pin_factory=pin_factory)
    except HardwareError as exc:
        print(f"设备无法打开 / cannot open devices: {exc}", file=sys.stderr)
        if "startup" not in args.skip:
            # The start-up checks need no device: a technician whose screen controller is unplugged
            # still learns, in the same run, whether the table's files would let it start.
            report = SelfTestReport(svc.table_id)
            report.results.extend(CheckResult("startup", item, ok, detail) for item, ok, detail in _startup_checks(svc))
            print(report.format())
        return 1
    with table:
        test = SelfTest(table, steps=[s for s in STEPS if s not in args.skip], lamp_s=args.lamp_seconds,
                        countdown_from=args.countdown_from, displays_together=args.displays_together,
                        button_timeout_s=args.button_timeout,
                        camera_timeout_s=args.camera_timeout, marker_detector=detect_markers,
                        measure_placement=placement_meter(layout, lens),
                        startup_checks=lambda: _startup_checks(svc))
        report = test.run()
    return 0 if report.ok else 1
