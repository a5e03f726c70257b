"""``guandan-table run --config table.toml``: the production table service (see
:mod:`table_service.table.service`)."""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import threading
from typing import Any

from table_service.table.config import load_service_config
from table_service.table.preflight import check_before_start
from table_service.table.service import TableService


def register(subparsers: Any) -> None:
    p = subparsers.add_parser(
        "run",
        help="运行比赛桌服务 / run the table service (devices, camera, engine, panel)",
        description="运行比赛桌服务：设备、摄像头、裁判引擎、面板与 MQTT。 / Run the table service: devices, "
                    "camera, referee engine, web panel and (optionally) the MQTT bridge.",
    )
    p.add_argument("--config", required=True, help="桌配置文件 / the table's config (table.toml)")
    p.add_argument("--no-web", action="store_true", help="不开裁判面板 / do not serve the referee panel")
    p.add_argument("--verbose", "-v", action="store_true", help="详细日志 / verbose log")
    p.set_defaults(func=run_service)


def run_service(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s", stream=sys.stderr)
    config = load_service_config(args.config)
    # Before anything is made: what the service would refuse half-way (the log, the users database,
    # the panel's address), the same checks ``config check`` makes (table_service.table.preflight).
    check_before_start(config, web=not args.no_web and bool(config.web.get("enabled", True)))
    for w in getattr(config.hardware, "warnings", ()):
        print(f"注意 / note: {w}", file=sys.stderr)
    stop = threading.Event()

    def _terminate(_sig: int, _frame: Any) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, _terminate)
    service = TableService(config, web=False if args.no_web else None)
    try:
        service.start()
        print(f"比赛桌 {config.table_id} 已启动 / table {config.table_id} is running", flush=True)
        print(f"  事件库 / event log: {config.db_path}", flush=True)
        if service.url:
            print(f"  裁判面板 / referee panel: {service.url}/", flush=True)
        if service.mqtt is not None:
            print(f"  MQTT: {service.mqtt.host}:{service.mqtt.port} {service.mqtt.prefix}", flush=True)
        while not stop.wait(1.0):
            pass
        return 0
    except KeyboardInterrupt:
        return 130
    finally:
        service.stop()
