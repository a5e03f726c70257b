"""``guandan-table demo``: the simulated table (see :mod:`table_service.demo.table_demo`)."""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import signal
import socket
import sys
import threading
import time
from pathlib import Path
from typing import Any

from table_service.demo.bots import MISTAKE_KINDS
from table_service.demo.event_demo import CAMERA_TABLE_SPEED, EventDemo
from table_service.demo.event_demo import format_summary as format_event_summary
from table_service.demo.options import DemoOptions
from table_service.demo.scorecard import format_summary
from table_service.demo.table_demo import Demo, resolve_feed_delay
from table_service.engine.events import MAX_DEALS
from table_service.views.wire import is_host


def _number(value: str, kind: type[int] | type[float] = float) -> float:
    """``value`` as a number, or the bilingual usage error (argparse would name the checking function)."""
    try:
        return kind(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"须为{'整数' if kind is int else '数字'}：{value} / must be "
                                         f"{'a whole number' if kind is int else 'a number'}: {value}") from None


def _positive(value: str) -> float:
    v = _number(value)
    if not (v > 0 and math.isfinite(v)) or v > 1000:
        raise argparse.ArgumentTypeError(f"须为 0–1000 的正数，收到 {value}"
                                         f" / must be a positive number up to 1000: {value}")
    return v


def _check_data_folder(data: str | None, design: str, speed: float) -> None:
    """Refuse, in one line, what would otherwise fail half-way: a --data that is a file or cannot
    be written, an unknown --design, and a folder started at another --speed (its countdowns
    would be scaled by the other speed)."""
    from vision.artwork import ARTWORK_DIR  # lazy: vision loads OpenCV (cv2)

    if not design or "/" in design or not (ARTWORK_DIR / f"{design}.svgz").is_file():
        known = sorted(p.name[: -len(".svgz")] for p in ARTWORK_DIR.glob("*.svgz"))[:12]
        raise ValueError(f"未知牌面设计 {design!r}：没有 {ARTWORK_DIR}/{design}.svgz"
                         f"（例如 {', '.join(known) or 'apt install gnome-cards-data'}）"
                         f" / unknown card design {design!r}: no {ARTWORK_DIR}/{design}.svgz "
                         f"(e.g. {', '.join(known) or 'apt install gnome-cards-data'})")
    if data is None:
        return
    folder = Path(data)
    if folder.exists() and not folder.is_dir():
        raise ValueError(f"--data 须为文件夹：{folder} 是文件 / --data must be a folder: {folder} is a file")
    probe = folder if folder.exists() else next((p for p in folder.parents if p.exists()), Path("."))
    if not os.access(probe, os.W_OK | os.X_OK):
        raise ValueError(f"数据文件夹 {probe} 只读：演示须记录本桌"
                         f" / the data folder {probe} is read-only: the demo must record its table")
    clock = folder / "clock.json"
    if clock.is_file():
        try:
            old = float(json.loads(clock.read_text(encoding="utf-8"))["speed"])
        except (OSError, ValueError, KeyError, TypeError):
            return  # the clock's own loader reports a damaged file
        if abs(old - speed) > 1e-9:
            raise ValueError(f"文件夹 {folder} 以 --speed {old:g} 开始：请用 --speed {old:g} 重新开始，或换一个新的 "
                             f"--data 文件夹 / {folder} was started at --speed {old:g}: restart it "
                             f"with --speed {old:g}, or use a new --data folder")


def _rate(value: str) -> float:
    v = _number(value)
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"须在 0 到 1 之间：{value} / must be within 0..1: {value}")
    return v


def _seconds(value: str) -> float:
    try:
        v = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"须为秒数：{value} / must be a number of seconds: {value}") from None
    if not 0.0 <= v <= 3600.0:
        raise argparse.ArgumentTypeError(f"须在 0 到 3600 秒之间：{value} / must be within 0..3600 s: {value}")
    return v


#: The demo referee's pause before it answers a question or rules on a flag (real seconds), when a
#: panel is open: long enough for a person at the panel to act first.
DEFAULT_REFEREE_PAUSE_S = 8.0


def _deals(value: str) -> int:
    """1 to the most deals a round may be set to: a larger number was taken here and then refused by
    the engine once a second, for ever, with no deal played (the headless demo never ended)."""
    v = int(_number(value, int))
    if not 1 <= v <= MAX_DEALS:
        raise argparse.ArgumentTypeError(f"副数须为 1–{MAX_DEALS}：{value} / deals must be 1-{MAX_DEALS}: {value}")
    return v


#: The most tables the event demo runs on one machine: each is a bot table, a SQLite log and an
#: MQTT client in this process (100,000 took every core and ~40 GB before its first round).
#: A real event's 500 tables are measured by benchmarks/hub_bench.py instead.
MAX_DEMO_TABLES = 64


def _host(value: str) -> str:
    """An address this machine may serve on: an IP address or a host name (``999.1.1.1`` was taken, and
    the demo said "port in use?")."""
    if not is_host(value):
        raise argparse.ArgumentTypeError(f"不是有效的地址：{value!r} / not an address to serve on: {value!r}")
    try:
        socket.getaddrinfo(value, None)
    except (OSError, UnicodeError):
        raise argparse.ArgumentTypeError(f"本机无法解析此地址：{value!r} / this machine cannot resolve the address: "
                                         f"{value!r}") from None
    return value


def _tables(value: str) -> int:
    try:
        v = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"桌数须为整数：{value!r} / the number of tables must be a whole number: {value!r}") from None
    if not 1 <= v <= MAX_DEMO_TABLES:
        raise argparse.ArgumentTypeError(
            f"单机桌数须在 1 到 {MAX_DEMO_TABLES} 之间：{value}"
            f" / --tables must be 1-{MAX_DEMO_TABLES} on one machine: {value}")
    return v


def _seed(value: str) -> int:
    try:
        v = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"种子须为整数：{value!r}"
                                         f" / the seed must be a whole number: {value!r}") from None
    if not 0 <= v < 2**32:
        raise argparse.ArgumentTypeError(f"种子须为 0–4294967295：{value}"
                                         f" / the seed must be 0-4294967295: {value}")
    return v


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "demo",
        help="模拟比赛桌 / run a whole simulated table (bots, synthetic camera, emulated devices, panel)",
        description="模拟比赛桌：四个机器人出牌，合成摄像头画面由真实识别读取，模拟隔板屏与 GPIO，裁判面板。 / "
                    "A whole simulated table: four bots play, the synthetic camera's frames are read by the "
                    "real vision pipeline, the emulated screen controller and mock GPIO carry the buttons and "
                    "displays, and the referee panel serves on localhost.",
    )
    p.add_argument("--seed", type=_seed, default=None, help="随机种子 / random seed (default: random)")
    p.add_argument("--speed", type=_positive, default=None,
                   help="时间倍速 / time factor (default 1: real time; the event demo's camera table: 10)")
    p.add_argument("--deals", type=_deals, default=None, help="打 N 副后结束；赛事演示中为每轮副数 / stop after N deals (default: play on); "
                        "with --tables: deals per round (default 1)")
    p.add_argument("--mistakes", type=_rate, default=0.03,
                   help="机器人失误率 / chance that a bot's turn goes wrong (default 0.03)")
    p.add_argument("--headless", action="store_true",
                   help="不开网页，打完 --deals 副后输出总结 / no web panel; print a summary after --deals deals")
    p.add_argument("--port", type=int, default=8080, help="面板端口 / panel port (default 8080; 0: any free port)")
    p.add_argument("--host", type=_host, default="127.0.0.1", help="面板地址 / panel address (default 127.0.0.1)")
    p.add_argument("--data", default=None,
                   help="数据目录（同一目录可继续） / data folder (default: a temporary one; the same folder resumes)")
    p.add_argument("--design", default="anglo", help="牌面设计 / card design of the synthetic camera")
    p.add_argument("--mqtt", default=None, metavar="HOST:PORT",
                   help="把公开数据发到 MQTT 赛事中心 / publish the public feed to an MQTT hub")
    p.add_argument("--referee", choices=("auto", "human"), default="auto",
                   help="演示裁判：auto 自动回答识别存疑与标记；human 由面板用户处理 / the demo referee: auto answers "
                        "questions and rules on flags; human leaves them to you at the panel (default auto)")
    p.add_argument("--referee-pause", type=_seconds, default=None, metavar="S",
                   help=f"自动裁判回答前等待的秒数（真实时间，先让您操作；默认：有面板时 {DEFAULT_REFEREE_PAUSE_S:g}，"
                        f"--headless 时 0） / real seconds the auto referee waits before it "
                        f"answers, so you can act first (default {DEFAULT_REFEREE_PAUSE_S:g} with the panel, "
                        f"0 with --headless)")
    p.add_argument("--feed-delay", type=_seconds, default=None, metavar="S",
                   help="直播延时（牌桌秒） / broadcast delay of the public feed and overlay in table seconds "
                        "(default: GUANDAN_WEB_FEED_DELAY_S, else 10)")
    p.add_argument("--json", action="store_true", help="总结以 JSON 输出 / print the summary as JSON")
    p.add_argument("--tables", type=_tables, default=1,
                   help="N>1：整场赛事（私有 MQTT、赛事中心、N 桌机器人） / N>1: a whole event (see event_demo)")
    p.add_argument("--camera-tables", type=int, default=None, metavar="K",
                   help="赛事演示中走摄像头全流程的桌数（0 关闭） / event demo: how many tables (from table 1) "
                        "play through the full camera path, the rest feed events directly (default 1; 0: none)")
    p.add_argument("--rounds", type=int, default=None, help="赛事演示的轮数 / event demo: rounds, 2-9 (default 3)")
    p.add_argument("--verbose", "-v", action="store_true", help="详细日志 / verbose log")
    p.set_defaults(func=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    # Both demos: "" (an unset shell variable) is not "the default" (--data "" recorded the table in
    # the working folder, --mqtt "" published nowhere), and the event demo took any --port.
    for option, value in (("--data", args.data), ("--mqtt", args.mqtt)):
        if value is not None and not value.strip():
            raise ValueError(f"{option} 为空 / {option} is empty: give a value, or leave the option out")
    if not 0 <= args.port <= 65535:
        raise ValueError(f"端口无效：{args.port} / invalid port {args.port}")
    if args.tables > 1:
        return run_event_demo_cli(args)
    for option, value in (("--rounds", args.rounds), ("--camera-tables", args.camera_tables)):
        if value is not None:  # taken and ignored before: the table played as if it had not been given
            raise ValueError(f"{option} 只用于赛事演示（--tables N，N > 1） / {option} is for the event demo only "
                             f"(--tables N, N > 1)")
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.headless and args.deals is None:
        raise ValueError("--headless 需要 --deals N / --headless needs --deals N")
    if args.headless and args.referee == "human":
        raise ValueError("--referee human 需要面板（不能与 --headless 同用） / --referee human needs the panel "
                         "(not with --headless)")
    speed = args.speed if args.speed is not None else 1.0
    _check_data_folder(args.data, args.design, speed)
    seed = args.seed if args.seed is not None else int(time.time()) % 100000
    opts = demo_options(args, seed, speed, args.deals)
    demo = Demo(opts, args.data, headless=args.headless, port=args.port, host=args.host, design=args.design,
                mqtt=args.mqtt, feed_delay_s=args.feed_delay)
    stop = threading.Event()

    def _terminate(_sig: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _terminate)
    print("启动中 / starting …", flush=True)
    try:
        try:
            demo.start()
        except OSError as exc:
            raise ValueError(f"无法启动（端口 {args.port} 被占用？可用 --port 换一个）：{exc} / cannot start "
                             f"(port {args.port} in use? choose another with --port): {exc}") from exc
        print(demo.banner(), flush=True)
        assert demo.table is not None
        while not stop.is_set():
            if demo.table.wait_done(0.5):
                break
            if args.verbose:
                continue
        summary = _print_summary(demo, args.json, format_summary)
        if demo.table.done.is_set():
            return 0 if not summary or not summary["errors"] else 1
        return 0
    except KeyboardInterrupt:
        print("\n已停止 / stopped", file=sys.stderr)
        # Stopped by hand: the same closing report as a --headless run gives.
        _print_summary(demo, args.json, format_summary)
        return 130
    finally:
        demo.stop()


def demo_options(args: argparse.Namespace, seed: int, speed: float, deals: int | None) -> Any:
    """The simulated table's :class:`~table_service.demo.options.DemoOptions` from the command
    line: the one-table demo's, and the event demo's camera tables' (one place, so both tables
    are the same table)."""
    # A real table cannot run faster than its camera: at high speed the bots think less.
    think = (1.0, 3.0) if speed <= 4 else (0.6, 1.8)
    pause = args.referee_pause
    if pause is None:
        pause = 0.0 if args.headless else DEFAULT_REFEREE_PAUSE_S
    return DemoOptions(seed=seed, speed=speed, deals=deals, mistakes=args.mistakes, mistake_kinds=MISTAKE_KINDS,
                       think_s=think, referee_pause_s=pause, referee=args.referee)


def _print_summary(demo: Any, as_json: bool, fmt: Any) -> dict[str, Any] | None:
    """Print the demo's scorecard (nothing when it never got going)."""
    if demo.table is None or demo.service is None:
        return None
    try:
        summary = demo.summary()
    except Exception as exc:  # the report must not hide why the demo stopped
        print(f"总结失败：{exc} / no summary: {exc}", file=sys.stderr)
        return None
    print(json.dumps(summary, ensure_ascii=False) if as_json else fmt(summary), flush=True)
    return summary


def run_event_demo_cli(args: argparse.Namespace) -> int:
    """The ``--tables N`` branch of ``guandan-table demo``."""
    logging.basicConfig(level=logging.INFO if getattr(args, "verbose", False) else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    seed = args.seed if args.seed is not None else int(time.time()) % 100000
    rounds = 3 if getattr(args, "rounds", None) is None else int(args.rounds)
    if not 2 <= rounds <= 9:
        raise ValueError(f"轮数须在 2 到 9 之间，收到 {rounds} / --rounds must be 2-9, got {rounds}")
    if args.headless and args.referee == "human":
        raise ValueError("--referee human 需要面板（不能与 --headless 同用） / --referee human needs the panel "
                         "(not with --headless)")
    speed = args.speed if args.speed is not None else CAMERA_TABLE_SPEED
    _check_data_folder(None, args.design, speed)  # the card design of the camera tables
    demo = EventDemo(args.tables, rounds=rounds, seed=seed, data=args.data, web=not args.headless,
                     host=args.host, port=args.port if args.port != 8080 else 8090,
                     step_s=0.0 if args.headless else 0.02,
                     camera_tables=1 if getattr(args, "camera_tables", None) is None else int(args.camera_tables),
                     camera_options=demo_options(args, seed, speed, None), design=args.design,
                     deals=args.deals or 1, feed_delay_s=resolve_feed_delay(args.feed_delay))
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print("启动中 / starting …", flush=True)
    try:
        try:
            demo.start()
        except OSError as exc:
            raise ValueError(f"无法启动（端口被占用？可用 --port 换一个）：{exc} / cannot start (port in use? try --port): "
                             f"{exc}") from exc
        print(demo.banner(), flush=True)
        demo.run_rounds(pause_s=0.0 if args.headless else 10.0, stop=stop)
        if stop.is_set():
            print("已停止 / stopped", file=sys.stderr, flush=True)
        summary = demo.summary()
        print(json.dumps(summary, ensure_ascii=False) if args.json else format_event_summary(summary), flush=True)
        if not args.headless and not stop.is_set():
            print("比赛结束，页面仍在服务，Ctrl-C 退出 / event over; pages still served, Ctrl-C to quit", flush=True)
            while not stop.wait(0.5):
                pass
        return 0 if not summary["errors"] else 1
    except KeyboardInterrupt:
        print("\n已停止 / stopped", file=sys.stderr)
        return 130
    finally:
        demo.stop()
