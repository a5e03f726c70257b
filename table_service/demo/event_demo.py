"""``guandan-table demo --tables N``: a whole small event on one machine.

A private Mosquitto on a free port (started and stopped here), the event hub with its pages, and
N bot tables. Each table is a real :class:`~table_service.table.runner.TableRunner` (its own SQLite
log) behind a real :class:`~table_service.table.mqtt_bridge.MqttBridge`; it receives its assignment
over MQTT, starts the round from it exactly as the panel's one-tap button does, plays, both
sides sign, and the bridge sends the result back. The first ``camera_tables`` tables (one by
default) are the one-table demo's table on the full camera path
(:class:`~table_service.demo.camera_table.CameraEventTable`: bots lay cards in a scene rendered
from real card artwork, the vision reader reads them, the demo referee answers its questions);
on the others four bots feed events straight to the runner, which keeps the CPU low. The hub
draws, publishes, collects and ranks ≥ 2 rounds. The tables' panels are served too, so the
chief referee's overview links into each table.
"""

from __future__ import annotations

import copy
import logging
import secrets
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from table_service.demo.camera_table import CameraEventTable, format_camera_summary
from table_service.demo.options import DemoOptions
from table_service.engine.self_play import SelfPlayTable
from table_service.event.broker import PrivateBroker
from table_service.event.cli import format_standings
from table_service.event.config import validate
from table_service.event.hub import HubService
from table_service.event.provision import provision
from table_service.event.reconcile import compare
from table_service.event.web import serve_hub
from table_service.table.mqtt_bridge import MqttBridge
from table_service.table.runner import TableRunner
from table_service.views.assignment import set_up_data, started
from table_service.web import users
from table_service.web.app import create_app
from table_service.web.server import serve
from table_service.web.tables import attach_table

log = logging.getLogger(__name__)


#: The camera table's time factor unless the command line says: a deal takes about half a minute
#: of a 2-core machine (the camera's render-and-read is the cost), the bot tables a second.
CAMERA_TABLE_SPEED = 10.0


class BotEventTable:
    """One table of the event demo whose bots feed events straight to the runner (see the module doc)."""

    camera = False

    def __init__(self, table_id: str, data_dir: Path, *, port: int, event_id: str, seed: int,
                 panel_url: str | None = None, step_s: float = 0.0, auto: bool = True,
                 login: tuple[str, str] | None = None, ca_file: str | None = None, host: str = "127.0.0.1",
                 feed_delay_s: float = 0.0) -> None:
        self.table_id = table_id
        self.feed_delay_s = feed_delay_s  # the public feed and the MQTT state/events, as the tables app's
        self.seed = seed
        self.step_s = step_s
        self.auto = auto
        self.port, self.event_id, self.panel_url = port, event_id, panel_url
        self.login, self.ca_file, self.host = login, ca_file, host
        self.runner = TableRunner(data_dir / f"table-{table_id}.sqlite3")
        self.bridge = self._bridge()
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.rounds_played: list[int] = []
        self.errors: list[str] = []
        self.bridge.assignment_listeners.append(lambda _a: self._wake.set())

    def start(self) -> BotEventTable:
        self.runner.start()
        self.bridge.start()
        if self.auto:
            self._thread = threading.Thread(target=self._run, name=f"bots-{self.table_id}", daemon=True)
            self._thread.start()
        return self

    def reconnect(self) -> None:
        """The Pi's network is back: a fresh bridge (same client id) on the same runner."""
        self.bridge = self._bridge()
        self.bridge.assignment_listeners.append(lambda _a: self._wake.set())
        self.bridge.start()

    def _bridge(self) -> Any:
        user, password = self.login or (None, None)
        return MqttBridge(self.runner, host=self.host, port=self.port, event_id=self.event_id,
                          table_id=self.table_id, panel_url=self.panel_url,
                          client_id=f"guandan-{self.event_id}-{self.table_id}", username=user, password=password,
                          ca_file=self.ca_file, delay_s=self.feed_delay_s)

    def play_assigned(self) -> None:
        """Play the round of the assignment this table holds (manual mode)."""
        assert self.bridge.assignment is not None, "no assignment"
        self.play_round(set_up_data(self.bridge.assignment))

    def stop(self) -> None:
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(10)
        self.bridge.stop()
        self.runner.stop()

    def _submit(self, etype: str, data: dict[str, Any], source: str = "panel", role: str | None = "referee") -> None:
        res = self.runner.submit({"type": etype, "source": source, "role": role, "data": data})
        if not res.accepted:
            raise RuntimeError(f"table {self.table_id}: {etype} refused: {res.error}")

    def _run(self) -> None:
        while not self._stop.is_set():
            self._wake.wait(0.5)
            self._wake.clear()
            a = self.bridge.assignment
            if not a:
                continue

            if started(self.runner.state(), a):
                continue
            try:
                self.play_round(set_up_data(a))
            except Exception as exc:  # shown in the summary; the hub sees no result from this table
                log.exception("table %s failed", self.table_id)
                self.errors.append(str(exc))

    def play_round(self, setup: dict[str, Any]) -> None:
        """Set up from the assignment, let the bots play to the round's end, sign both sides."""
        self._submit("round_set_up", setup)
        bots = SelfPlayTable(self.seed * 1000 + int(setup["round"]), step_ms=(5, 20))
        bots.state = copy.deepcopy(self.runner.raw_state())
        guard = 0
        while self.runner.state()["result"] is None and not self._stop.is_set():
            guard += 1
            if guard > 60:
                raise RuntimeError(f"table {self.table_id}: round did not end")
            for ev in bots.deal():
                self._submit(ev["type"], ev["data"], source=ev["source"], role=ev.get("role"))
                if self.step_s:
                    time.sleep(self.step_s)
        for side in ("NS", "EW"):
            self._submit("score_sheet_signed", {"side": side})
        self.rounds_played.append(int(setup["round"]))


def demo_config(n_tables: int, rounds: int, port: int, *, seed: int, deals: int = 1,
                panel_base: str | None = None) -> dict[str, Any]:
    """The EVENT.toml the demo would write: 2·N teams of two, N tables."""
    surnames = "赵钱孙李周吴郑王冯陈褚卫蒋沈韩杨朱秦尤许何吕施张孔曹严华金魏陶姜"
    teams = [{"id": f"T{i:02d}", "name": f"{surnames[(i - 1) % len(surnames)]}家队 / Team {i}",
              "players": [f"P{i:02d}a", f"P{i:02d}b"]} for i in range(1, 2 * n_tables + 1)]
    tables = [{"id": str(i), **({"panel": f"{panel_base}/tables/{i}"} if panel_base else {})}
              for i in range(1, n_tables + 1)]
    return validate({"event": {"id": "demo", "name": "掼蛋演示赛 / Guandan demo event", "rounds": rounds,
                               "draw": "swiss", "format": {"kind": "deals", "deals": deals}, "seed": seed},
                     "mqtt": {"port": port}, "teams": teams, "tables": tables})


class EventDemo:
    """Broker, hub, tables, pages; :meth:`run_rounds` drives the organiser's side."""

    def __init__(self, n_tables: int, *, rounds: int = 3, seed: int = 1, data: str | Path | None = None,
                 web: bool = True, host: str = "127.0.0.1", port: int = 8090, step_s: float = 0.0,
                 camera_tables: int = 1, camera_options: Any = None, design: str = "anglo",
                 deals: int = 1, feed_delay_s: float = 0.0) -> None:
        if n_tables < 1:
            raise ValueError("至少一桌 / at least one table")
        if not 0 <= camera_tables <= n_tables:
            raise ValueError(f"摄像头桌数须在 0 到 {n_tables} 之间，收到 {camera_tables}"
                             f" / --camera-tables must be 0-{n_tables}, "
                             f"got {camera_tables}")
        self.camera_tables, self.design = camera_tables, design
        if camera_options is None:
            camera_options = DemoOptions(speed=CAMERA_TABLE_SPEED, think_s=(0.6, 1.8))
        self.camera_options = camera_options
        self._tmp = None if data else tempfile.TemporaryDirectory(prefix="guandan-event-")
        self.data = Path(data) if data else Path(self._tmp.name)  # type: ignore[union-attr]
        self.n, self.rounds, self.seed, self.web, self.host, self.port = n_tables, rounds, seed, web, host, port
        self.step_s = step_s
        self.deals = deals  # deals per round (the event's format: a round of N deals)
        #: Every table's broadcast delay (its public feed, overlay and MQTT state/events; the hub's board
        #: shows its results that much later): the command's ``--feed-delay``.
        self.feed_delay_s = feed_delay_s
        self.broker: Any = None
        self.creds: Any = None  # what event provision wrote (table_service.event.provision.Provisioned)
        self.hub: Any = None
        self.tables: list[Any] = []  # BotEventTable | CameraEventTable
        self.handles: list[Any] = []
        self.login = ("demo-chief", secrets.token_urlsafe(12))
        self.hub_url = self.tables_url = None

    def start(self) -> EventDemo:
        # The broker as a real event runs it (docs/security.md): a user and password for the hub
        # and each table, the ACL, no anonymous clients, client ids bound to usernames.
        self.creds = provision(demo_config(self.n, self.rounds, 1883, seed=self.seed, deals=self.deals),
                               self.data / "mqtt", force=True)
        self.broker = PrivateBroker(self.data / "broker", secure=self.creds).start()
        tables_handle = None
        if self.web:
            app = create_app({"USERS_DB": str(self.data / "table-users.sqlite3"), "FEED_DELAY_S": self.feed_delay_s})
            tables_handle = serve(app, self.host, 0 if self.port == 0 else self.port + 1)
            self.handles.append(tables_handle)
            self.tables_url = tables_handle.url
            self._add_login(app.config["USERS_DB"])
        cfg = demo_config(self.n, self.rounds, self.broker.port, seed=self.seed, deals=self.deals,
                          panel_base=self.tables_url)
        cfg["mqtt"].update(username=self.creds.hub.username, password=self.creds.hub.password)
        self.hub = HubService(cfg, self.data / "hub").start()
        if not self.hub.wait_connected(10):
            raise RuntimeError("赛事中心连不上 MQTT / the hub could not connect to the broker")
        for i in range(1, self.n + 1):
            t: Any
            if i <= self.camera_tables:
                t = CameraEventTable(str(i), self.data / "tables" / f"camera-{i}", port=self.broker.port,
                                     options=replace(self.camera_options, seed=self.seed * 100 + i),
                                     design=self.design, login=self._login(str(i)), feed_delay_s=self.feed_delay_s)
            else:
                t = BotEventTable(str(i), self.data / "tables", port=self.broker.port, event_id="demo",
                                  seed=self.seed * 100 + i, panel_url=self.tables_url, step_s=self.step_s,
                                  login=self._login(str(i)), feed_delay_s=self.feed_delay_s)
            self.tables.append(t.start())
            if tables_handle is not None:
                attach_table(tables_handle.app, str(i), t.runner, hub_link=t.bridge)
        for t in self.tables:
            t.bridge.wait_connected(10)
        if self.web:
            users_db = str(self.data / "hub-users.sqlite3")
            handle = serve_hub(self.hub, host=self.host, port=self.port, users_db=users_db)
            self.handles.append(handle)
            self.hub_url = handle.url
            self._add_login(users_db)
        return self

    def _login(self, table: str) -> tuple[str, str]:
        c = self.creds.tables[table]
        return (c.username, c.password)

    def _add_login(self, users_db: str) -> None:
        import contextlib


        conn = users.connect(users_db)
        try:
            with contextlib.suppress(users.UserError):
                users.remove_user(conn, self.login[0])
            users.add_user(conn, self.login[0], self.login[1], "chief")
        finally:
            conn.close()

    def run_rounds(self, *, timeout_s: float | None = None, pause_s: float = 0.0,
                   stop: threading.Event | None = None) -> None:
        """Draw, publish, wait for every result, publish results — round after round.

        ``timeout_s`` a round (default: 120 s, 900 s with a camera table, whose deal is read
        play by play)."""
        if timeout_s is None:
            timeout_s = 900.0 if self.camera_tables else 120.0
        who = self.login[0]
        core = self.hub.core
        for rnd in range(1, self.rounds + 1):
            if not (rnd in core.draws and core.draws[rnd]["published"]):  # a resumed demo skips what is done
                self.hub.draw_next(who, "chief")
                self.hub.publish_draw(rnd, who, "chief")
            deadline = time.monotonic() + timeout_s
            while not self.hub.core.round_complete(rnd):
                if stop is not None and stop.is_set():
                    return  # stopped on purpose (SIGTERM): what was played stays in the logs
                if time.monotonic() > deadline:
                    errors = [e for t in self.tables for e in t.errors]
                    raise RuntimeError(f"第 {rnd} 轮未按时完成，各桌错误：{errors[:3]}"
                                       f" / round {rnd} did not complete in time; "
                                       f"table errors: {errors[:3]}")
                time.sleep(0.05)
            if rnd not in core.results_published:
                self.hub.publish_results(rnd, who, "chief")
            if pause_s and rnd < self.rounds and stop is not None and stop.wait(pause_s):
                return

    def summary(self) -> dict[str, Any]:
        """``from_table_log``: the hub's results equal to the line in that table's own log
        (:mod:`table_service.event.reconcile`); ``differ`` names every one that is not."""
        st = self.hub.standings_json()
        with self.hub.lock:
            check = compare(dict(self.hub.core.results), [(t.table_id, t.runner.state()) for t in self.tables])
        return {"tables": self.n, "teams": 2 * self.n, "rounds": self.rounds,
                "results": len(self.hub.core.results), "from_table_log": check["agree"], "differ": check["differ"],
                "refused": len(self.hub.core.refusals), "standings": st["standings"], "lots": st["lots"],
                "errors": [e for t in self.tables for e in t.errors], "data": str(self.data),
                "camera": [t.summary() for t in self.tables if t.camera]}

    def banner(self) -> str:
        lines = ["掼蛋赛事演示 / guandan-table event demo",
                 f"  {self.n} 桌 {2 * self.n} 队 {self.rounds} 轮，MQTT 127.0.0.1:{self.broker.port}"
                 f" / tables, teams, rounds; MQTT 127.0.0.1:{self.broker.port}",
                 f"  数据目录 / data folder: {self.data}",
                 f"  直播延时 / broadcast delay: {self.feed_delay_s:g} s（牌桌时间 / table time）"]
        if self.camera_tables:
            o = self.camera_options
            lines.append(f"  摄像头全流程 / full camera path: 第 1–{self.camera_tables} 桌 / table(s) 1-{self.camera_tables}, "
                         f"×{o.speed:g}, 演示裁判 / demo referee {o.referee}"
                         + (f" (等待 / pauses {o.referee_pause_s:g} s)" if o.referee == "auto" else ""))
        if self.hub_url:
            lines += [f"  裁判长总览 / chief referee's overview: {self.hub_url}/hub/",
                      f"  成绩公告 / results board: {self.hub_url}/hub/board",
                      f"  各桌面板 / table panels: {self.tables_url}/",
                      f"  登录 / login: {self.login[0]}  密码 / password: {self.login[1]}"]
        return "\n".join(lines)

    def stop(self) -> None:
        for h in self.handles:
            h.stop()
        for t in self.tables:
            t.stop()
        if self.hub is not None:
            self.hub.stop()
        if self.broker is not None:
            self.broker.stop()
        if self._tmp is not None:
            self._tmp.cleanup()


def format_summary(s: dict[str, Any]) -> str:
    head = (f"{s['tables']} 桌 {s['teams']} 队 {s['rounds']} 轮，{s['results']} 个成绩（{s['from_table_log']} 个来自桌面记录），"
            f"拒收 {s['refused']} / {s['results']} results ({s['from_table_log']} from the tables' logs), "
            f"{s['refused']} refused")

    lines = [head]
    differ = s.get("differ") or []
    if differ:
        lines.append(f"与桌面记录不符 {len(differ)} 个 / {len(differ)} result(s) differ from the tables' own logs:")
        lines += ["  " + d["text"] for d in differ]
    else:
        lines.append("全部成绩与各桌记录一致 / every result equals the table's own log")
    lines += [format_camera_summary(c) for c in s.get("camera") or []]
    return "\n".join(lines) + "\n" + format_standings(s["standings"])
