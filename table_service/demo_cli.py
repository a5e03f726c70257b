"""``guandan-table demo``: the simulated table (see :mod:`table_service.demo`)."""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
import time
from typing import Any

from table_service.bots import MISTAKE_KINDS


def _positive(value: str) -> float:
    v = float(value)
    if not v > 0:
        raise argparse.ArgumentTypeError(f"须为正数 / must be positive: {value}")
    return v


def _rate(value: str) -> float:
    v = float(value)
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"须在 0 到 1 之间 / must be within 0..1: {value}")
    return v


def _deals(value: str) -> int:
    v = int(value)
    if v < 1:
        raise argparse.ArgumentTypeError(f"至少一副 / at least one deal: {value}")
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
    p.add_argument("--seed", type=int, default=None, help="随机种子 / random seed (default: random)")
    p.add_argument("--speed", type=_positive, default=1.0, help="时间倍速 / time factor (default 1: real time)")
    p.add_argument("--deals", type=_deals, default=None, help="打 N 副后结束 / stop after N deals (default: play on)")
    p.add_argument("--mistakes", type=_rate, default=0.03,
                   help="机器人失误率 / chance that a bot's turn goes wrong (default 0.03)")
    p.add_argument("--headless", action="store_true",
                   help="不开网页，打完 --deals 副后输出总结 / no web panel; print a summary after --deals deals")
    p.add_argument("--port", type=int, default=8080, help="面板端口 / panel port (default 8080; 0: any free port)")
    p.add_argument("--host", default="127.0.0.1", help="面板地址 / panel address (default 127.0.0.1)")
    p.add_argument("--data", default=None,
                   help="数据目录（同一目录可继续）/ data folder (default: a temporary one; the same folder resumes)")
    p.add_argument("--design", default="anglo", help="牌面设计 / card design of the synthetic camera")
    p.add_argument("--mqtt", default=None, metavar="HOST:PORT",
                   help="把公开数据发到 MQTT 赛事中心 / publish the public feed to an MQTT hub")
    p.add_argument("--json", action="store_true", help="总结以 JSON 输出 / print the summary as JSON")
    p.add_argument("--verbose", "-v", action="store_true", help="详细日志 / verbose log")
    p.set_defaults(func=run_demo)


def run_demo(args: argparse.Namespace) -> int:
    from table_service.demo import Demo, DemoOptions, format_summary

    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.headless and args.deals is None:
        raise ValueError("--headless 需要 --deals N / --headless needs --deals N")
    if not 0 <= args.port <= 65535:
        raise ValueError(f"端口无效 / invalid port {args.port}")
    seed = args.seed if args.seed is not None else int(time.time()) % 100000
    # A real table cannot run faster than its camera: at high speed the bots think less.
    think = (1.0, 3.0) if args.speed <= 4 else (0.6, 1.8)
    opts = DemoOptions(seed=seed, speed=args.speed, deals=args.deals, mistakes=args.mistakes,
                       mistake_kinds=MISTAKE_KINDS, think_s=think)
    demo = Demo(opts, args.data, headless=args.headless, port=args.port, host=args.host, design=args.design,
                mqtt=args.mqtt)
    stop = threading.Event()

    def _terminate(_sig: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _terminate)
    print("启动中 / starting …", flush=True)
    try:
        try:
            demo.start()
        except OSError as exc:
            raise ValueError(f"无法启动（端口 {args.port} 被占用？可用 --port 换一个）/ cannot start "
                             f"(port {args.port} in use? choose another with --port): {exc}") from exc
        print(demo.banner(), flush=True)
        assert demo.table is not None
        while not stop.is_set():
            if demo.table.wait_done(0.5):
                break
            if args.verbose:
                continue
        if demo.table.done.is_set():
            summary = demo.summary()
            print(json.dumps(summary, ensure_ascii=False) if args.json else format_summary(summary), flush=True)
            return 0 if not summary["errors"] else 1
        return 0
    except KeyboardInterrupt:
        print("\n已停止 / stopped", file=sys.stderr)
        return 130
    finally:
        demo.stop()
