"""``guandan-table hub``: the command that starts one event's hub and serves its pages until stopped.

Why apart: the service (:mod:`.hub`) is what tests, the demo and benchmarks build; this is the
one place that reads EVENT.toml from the command line, picks the data folder and port, starts
the web server and says where the logins live.
"""

from __future__ import annotations

import argparse
import logging
import sqlite3
import threading
from pathlib import Path

from table_service.event.config import load_event
from table_service.event.hub import HubService
from table_service.event.spare import provision_folder
from table_service.event.web import serve_hub
from table_service.web import users
from table_service.web.address import check_address
from table_service.web.secret_key import kept_secret_key


def _accounts_hint(users_db: Path) -> str:
    """Where the hub's logins live, and the one command that makes the first (the organiser's first
    step: ``user add`` without ``--db`` wrote the table's database, and the hub's login then failed)."""
    try:
        conn = users.connect(users_db)
        try:
            n = len(users.list_users(conn))
        finally:
            conn.close()
    except (sqlite3.Error, OSError, ValueError):  # the login page reports an unusable database; this only guides
        n = -1
    if n == 0:
        add = f"guandan-table user add NAME --role chief --db {users_db}"
        return (f"账号：{users_db} — 还没有账号，先建裁判长：{add} / accounts: {users_db} — no account yet, make the "
                f"chief referee's first: {add}")
    return (f"账号：{users_db}（{n}），在「账号」页管理 / accounts: {users_db} ({n}); managed on the accounts page "
            "(/accounts/)")


def run_hub_command(args: argparse.Namespace) -> int:
    """``guandan-table hub --event EVENT.toml``: serve until Ctrl-C / SIGTERM."""
    import signal


    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    cfg = load_event(args.event)
    base = Path(args.event).resolve().parent
    data = Path(args.data) if args.data is not None else base / (cfg["hub"].get("data") or f"hub-{cfg['event']['id']}")
    if data.exists() and not data.is_dir():
        raise ValueError(f"赛事中心数据目录 {data} 是文件（{args.event} 的 [hub] data 或 --data）：请给出目录 / "
                         f"the hub's data folder {data} is a file "
                         f"([hub] data in {args.event}, or --data): give a folder")
    host = cfg["hub"]["host"] if args.host is None else args.host
    port = cfg["hub"]["port"] if args.port is None else args.port
    check_address(host, port, ("赛事中心网页", "the hub's pages"), "--host/--port, or [hub] host, port in EVENT.toml")
    hub = HubService(cfg, data)
    hub.provision_dir = provision_folder(cfg, args.event)  # a replacement Pi's credential, on the organiser page
    hub.start()
    try:
        # A restarted hub keeps its chiefs and referees logged in (web/secret_key.py says why).
        handle = serve_hub(hub, host=host, port=port, users_db=str(data / "web-users.sqlite3"),
                           secret_key=kept_secret_key(data))
    except OSError as exc:
        hub.stop()
        raise ValueError(f"无法在端口 {port} 启动网页（被占用？）：{exc} / cannot serve on port {port}: {exc}") from exc
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    mqtt = f"{cfg['mqtt']['host']}:{cfg['mqtt']['port']}"
    print(f"赛事中心 {cfg['event']['id']}：{handle.url}/hub/（MQTT {mqtt}，日志 {hub.store.path}） / "
          f"event hub {cfg['event']['id']}: {handle.url}/hub/  (MQTT {mqtt}, log {hub.store.path})", flush=True)
    if cfg["mqtt"].get("source"):
        print(f"MQTT 凭据取自 {cfg['mqtt']['source']} / MQTT credential from {cfg['mqtt']['source']}", flush=True)
    print(_accounts_hint(data / "web-users.sqlite3"), flush=True)
    try:
        while not stop.wait(0.5):
            pass
    except KeyboardInterrupt:
        pass
    finally:
        handle.stop()
        hub.stop()
    return 0
