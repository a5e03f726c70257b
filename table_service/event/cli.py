"""``guandan-table event …`` (standings and the draw from a RESULTS file) and ``guandan-table hub``.

The event commands serve scripts and events without a Pi: they read the same RESULTS lines the
hub imports and exports, and print either a table for people or the JSON documented in
``docs/hub-protocol.md``. Bad input is one line on stderr and exit status 2 (the top-level
``main`` turns every ``ValueError`` into that).
"""

from __future__ import annotations

import argparse
import ipaddress
import json
import shutil
import signal
import sys
from pathlib import Path
from typing import Any

from table_service.engine.errors import halves
from table_service.event.broker import EventBroker
from table_service.event.broker_log import LOG_KEEP, LOG_MAX_BYTES
from table_service.event.broker_ports import taken_port_warning, taken_ports
from table_service.event.config import load_event
from table_service.event.core import HubCore
from table_service.event.draw import FIRST_ROUND, bye_note, make_draw
from table_service.event.model import EventInputError, load_results, load_teams, results_to_jsonl
from table_service.event.provision import (
    MAX_WATCHERS,
    PERSISTENCE_DIR,
    interrupted,
    interrupted_error,
    provision,
    watch_name,
)
from table_service.event.standings import (
    MATCH_POINT_SCHEMES,
    ScoringOptions,
    compute_standings,
    duplicate_matches,
)
from table_service.event.store import HubStore
from table_service.rules.ruleset import get_ruleset
from table_service.views.wire import is_host


def _address(text: str) -> str:
    """An argparse type: an IP address (what Mosquitto's ``listener`` takes; a name it cannot load)."""
    try:
        return str(ipaddress.ip_address(text.strip()))
    except ValueError:
        raise argparse.ArgumentTypeError(f"须为 IP 地址，收到 {text[:60]!r} / must be an IP address, got {text[:60]!r}") from None


def _host(text: str) -> str:
    """An argparse type: a host name or an IP address (it goes into a certificate and every table's config)."""
    if not is_host(text.strip()):
        raise argparse.ArgumentTypeError(f"须为主机名或 IP 地址，收到 {text[:60]!r} / must be a host name or an IP "
                                         f"address, got {text[:60]!r}")
    return text.strip()


def _given(what: str) -> Any:
    """An argparse type: a path or name that is not empty (``""`` fell back to a default or the
    working folder, silently)."""

    def parse(text: str) -> str:
        if not text.strip():
            raise argparse.ArgumentTypeError(f"{what}为空 / must not be empty")
        return text

    return parse


def _seed(text: str) -> str:
    """An argparse type: the lots' seed, printable text of at most 64 characters (as EVENT.toml's
    ``seed``). A byte that is not UTF-8 (``$'\\xff'``) failed only when lots were drawn."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise argparse.ArgumentTypeError(f"抽签种子不是 UTF-8 文本：{text[:40]!r} / is not UTF-8 text, "
                                         f"got {text[:40]!r}") from None
    if len(text) > 64 or not text.isprintable():
        raise argparse.ArgumentTypeError(f"抽签种子须为至多 64 个可打印字符，收到 {text[:40]!r} / "
                                         f"must be at most 64 printable characters, got {text[:40]!r}")
    return text


def _int_in(lo: int, hi: int, what: str) -> Any:
    """An argparse type: a whole number ``lo``–``hi`` (argparse then says which option, in one line)."""

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{what}须为整数，收到 {text[:40]!r} / must be a whole number, "
                                             f"got {text[:40]!r}") from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"{what}须为 {lo}–{hi}，收到 {v} / must be {lo}-{hi}, got {v}")
        return v

    return parse


def _add_scoring(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preset", default="jiangsu-2013", help="规则预设 / ruleset preset (default jiangsu-2013)")
    p.add_argument("--match-points", default=None, choices=("2-1-0", "3-2-1-0"),
                   help="比赛分方案 / match-point scheme (default: the preset's, 2-1-0)")
    p.add_argument("--bye-points", type=_int_in(0, 3, "轮空得分"), default=None,
                   help="轮空得分 / match points for a bye (0-3, at most a win's)")
    p.add_argument("--seed", type=_seed, default="0",
                   help="抽签种子 / seed of the lots that break full ties (default 0)")
    p.add_argument("--duplicate", default=None, choices=("levels", "level_points"),
                   help="复式：每场两室（A/B，换方向）合并比较 / duplicate team matches: rooms A and B compared "
                        "together by total levels or total level-difference points")


def scoring_from_args(args: argparse.Namespace) -> Any:
    try:
        rs = get_ruleset(args.preset)
    except (KeyError, ValueError) as exc:
        # The error names the preset in both languages: its Chinese half is this message's.
        raise EventInputError(f"{halves(str(exc))[0]} / unknown preset {args.preset!r}: {exc}") from None
    opts: dict[str, Any] = {}
    if args.match_points:
        opts.update(MATCH_POINT_SCHEMES[args.match_points])
    if args.bye_points is not None:
        win = opts.get("win", rs.match_points_win)
        if args.bye_points > win:
            raise EventInputError(f"轮空得分须为 0–{win}（胜一轮得 {win} 分） / --bye-points must be 0-{win} (a win is worth {win})")
        opts["bye"] = args.bye_points
    if args.duplicate:
        opts["duplicate"] = args.duplicate
    return ScoringOptions.from_ruleset(rs, **opts)


def register(subparsers: Any) -> None:
    p = subparsers.add_parser("event", help="赛事：排名与编排 / event: standings and the draw from results",
                              description="赛事计算：由成绩文件（每行一桌一轮）得出排名或下一轮编排。 / "
                                          "Event arithmetic from a RESULTS.jsonl file (one table's round a line).")
    sub = p.add_subparsers(dest="event_command", metavar="SUBCOMMAND")
    s = sub.add_parser("standings", help="排名 / standings with every tie-break column")
    s.add_argument("results", type=_given("成绩文件路径"), help="成绩文件 / the results file (RESULTS.jsonl, one result a line)")
    s.add_argument("--teams", type=_given("队名单路径"), default=None,
                   help="队名单（每行一个） / TEAMS.txt, one team id a line (optional)")
    s.add_argument("--json", action="store_true", help="JSON 输出 / print JSON")
    _add_scoring(s)
    s.set_defaults(func=run_standings)
    q = sub.add_parser("pair", help="下一轮编排 / the next round's draw")
    q.add_argument("results", type=_given("成绩文件路径"), help="成绩文件（第 1 轮可为空） / RESULTS.jsonl (may be empty: round 1)")
    q.add_argument("--teams", type=_given("队名单路径"), required=True,
                   help="队名单（每行一个） / TEAMS.txt, one team id a line")
    q.add_argument("--method", default="swiss", choices=("swiss", "round-robin"),
                   help="编排方法 / draw method (default swiss)")
    q.add_argument("--first-round", default="lots", choices=FIRST_ROUND,
                   help="首轮编排：lots 按 --seed 抽签（默认，与赛事中心相同），order 按队名单顺序；循环赛的轮转顺序亦同 / "
                        "round 1 (and a round robin's circle): lots drawn from --seed (default, as the hub draws "
                        "them), or order: as TEAMS lists them")
    q.add_argument("--json", action="store_true", help="JSON 输出 / print JSON")
    _add_scoring(q)
    q.set_defaults(func=run_pair)
    x = sub.add_parser("export", help="从赛事中心日志导出成绩 / RESULTS.jsonl from a hub's event log")
    x.add_argument("data", type=_given("数据目录"),
                   help="赛事中心数据目录 / the hub's data folder (holds hub-events.sqlite3)")
    x.add_argument("--standings", action="store_true", help="改为输出排名 JSON / print the standings JSON instead")
    x.set_defaults(func=run_export)
    v = sub.add_parser("provision", help="赛事 MQTT 的账号与权限 / the event broker's users, ACL and TLS",
                       description="为 Mosquitto 写出密码文件、ACL、配置，并为赛事中心和每张桌写出 [mqtt] 凭据（docs/security.md）。"
                                   " / Writes Mosquitto's password file, ACL and config, and an [mqtt] credential "
                                   "for the hub and each table (docs/security.md).")
    v.add_argument("--event", required=True, help="赛事配置文件 / the event's config (EVENT.toml)")
    v.add_argument("--out", type=_given("输出目录"), default=None,
                   help="输出目录 / output folder (default: mqtt-<event> beside EVENT.toml)")
    v.add_argument("--host", type=_host, default=None, help="各桌连接的代理地址 / the broker's address as tables reach it "
                                                "(default: EVENT.toml [mqtt] host)")
    v.add_argument("--port", type=_int_in(1, 65535, "端口"), default=None,
                   help="明文监听端口 / plain listener port (default: EVENT.toml [mqtt] port)")
    v.add_argument("--bind", type=_address, default=None,
                   help="代理监听地址 / address Mosquitto listens on (default: all)")
    v.add_argument("--tls", type=_host, action="append", default=None, metavar="HOST",
                   help="启用 TLS，证书含此主机名或 IP（可重复） / TLS listener, certificate for HOST (repeatable)")
    v.add_argument("--tls-port", type=_int_in(1, 65535, "端口"), default=8883, help="TLS 端口 / TLS port (8883)")
    v.add_argument("--watchers", type=_int_in(1, MAX_WATCHERS, "观看账号数"), default=1, metavar="N",
                   help="只读观看账号数，每台直播图文机一个（同一账号同时只能连一台） / read-only credentials for "
                        "broadcast graphics, one per machine (a credential serves one client at a time; default 1)")
    v.add_argument("--force", action="store_true", help="覆盖已有凭据 / overwrite existing credentials")
    v.set_defaults(func=run_provision)
    b = sub.add_parser("broker", help="运行赛事代理（日志按大小轮换） / run the event's broker, its log rotated by size",
                       description="以 provision 写出的配置运行 Mosquitto（mosquitto -c broker/mosquitto.conf），"
                                   "日志满上限即轮换为 mosquitto.log.1 …；之前以 root 运行的代理留下的文件交还给代理账号。 / "
                                   "Runs Mosquitto on the config event provision wrote (mosquitto -c "
                                   "broker/mosquitto.conf), rotating its log to mosquitto.log.1 … at the limit; files "
                                   "an earlier broker run as root left are given back to the broker's account.")
    b.add_argument("--event", required=True, help="赛事配置文件 / the event's config (EVENT.toml)")
    b.add_argument("--out", type=_given("provision 的输出目录"), default=None,
                   help="provision 的输出目录 / the folder event provision wrote (default: mqtt-<event> beside EVENT.toml)")
    b.add_argument("--log-max-mb", type=_int_in(1, 100_000, "日志上限"), default=LOG_MAX_BYTES // 2**20, metavar="MB",
                   help=f"日志满此大小即轮换（MiB，默认 {LOG_MAX_BYTES // 2**20}） / rotate the log at this size in MiB (default {LOG_MAX_BYTES // 2**20})")
    b.add_argument("--log-keep", type=_int_in(1, 100, "保留份数"), default=LOG_KEEP, metavar="N",
                   help=f"保留的旧日志份数（默认 {LOG_KEEP}） / rotated logs kept (default {LOG_KEEP})")
    b.set_defaults(func=run_broker)
    p.set_defaults(func=lambda _a: (p.print_help(), 2)[1])

    h = subparsers.add_parser("hub", help="赛事中心服务 / the event hub (MQTT + pages + event log)",
                              description="赛事中心：编排下发到各桌，收集成绩，排名，裁判长总览。 / The event hub: "
                                          "sends each table its assignment, collects results, ranks, and serves the "
                                          "chief referee's pages.")
    h.add_argument("--event", required=True, help="赛事配置文件 / the event's config (EVENT.toml)")
    h.add_argument("--data", type=_given("数据目录"), default=None,
                   help="数据目录 / data folder (default: beside EVENT.toml)")
    h.add_argument("--port", type=_int_in(0, 65535, "端口"), default=None,
                   help="网页端口 / web port (default: EVENT.toml [hub] port)")
    h.add_argument("--host", type=_given("网页地址"), default=None, help="网页地址 / web address")
    h.add_argument("--verbose", "-v", action="store_true", help="详细日志 / verbose log")
    h.set_defaults(func=run_hub)


def run_standings(args: argparse.Namespace) -> int:
    results = load_results(args.results, duplicate=bool(args.duplicate))
    teams = load_teams(args.teams) if args.teams is not None else []
    if teams:
        unknown = {t for r in results for t in (r.ns, r.ew) if t is not None} - set(teams)
        if unknown:
            raise EventInputError(f"成绩中的队不在队名单中：{sorted(unknown)} / team(s) not in the teams list: "
                                  f"{sorted(unknown)}")
    if args.duplicate:
        _warn_single_rooms(results)
    st = compute_standings(results, teams, scoring_from_args(args), seed=args.seed)
    if args.json:
        print(json.dumps(st.to_json(), ensure_ascii=False))
        return 0
    print(format_standings(st.to_json()["standings"]))
    for lot in st.lots:
        print(f"抽签 / lots: {' = '.join(lot['teams'])} -> {' > '.join(lot['order'])}")
    return 0


def _warn_single_rooms(results: list[Any]) -> None:
    """A duplicate match counts once both rooms are in: say which have one room only (on stderr), and
    refuse a file where none has two (ordinary results read as duplicate ones ranked nobody)."""
    matches = duplicate_matches(results)
    single = sorted((rnd, sorted(teams)) for (rnd, teams), tables in matches.items() if len(tables) != 2)
    if matches and len(single) == len(matches):
        raise EventInputError("没有一场复式比赛两室成绩齐全：这些是复式成绩吗？ / no duplicate match has both rooms' "
                              "results: are these duplicate results? (without --duplicate each table is a match)")
    for rnd, (a, b) in single[:10]:
        print(f"注意 / note: 第 {rnd} 轮 {a}–{b} 只有一室成绩，未计入 / round {rnd} {a} v {b} has one room's "
              "result only: not counted yet", file=sys.stderr)
    if len(single) > 10:
        print(f"注意 / note: 另有 {len(single) - 10} 场 / and {len(single) - 10} more", file=sys.stderr)


#: Each draw method as the output says it.
DRAW_METHODS = {"swiss": ("瑞士制", "Swiss"), "round-robin": ("循环赛", "round robin")}


def format_standings(rows: list[dict[str, Any]]) -> str:
    head = ("名次 / rank", "队 / team", "比赛分 / MP", "累进分 / prog", "胜轮 / won", "级差分 / LDP", "升级 / levels")
    keys = ("rank", "team", "match_points", "progressive", "rounds_won", "level_points", "levels_gained")
    table = [head] + [tuple(str(r[k]) for k in keys) for r in rows]
    widths = [max(len(row[i]) for row in table) for i in range(len(head))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in table)


def run_pair(args: argparse.Namespace) -> int:
    results = load_results(args.results, duplicate=bool(args.duplicate))
    teams = load_teams(args.teams)
    _check_rounds_complete(results, teams)
    draw = make_draw(args.method, teams, results, scoring_from_args(args), seed=args.seed,
                     first_round=args.first_round)
    if args.json:
        print(json.dumps(draw.to_json(), ensure_ascii=False))
        return 0
    zh, en = DRAW_METHODS.get(draw.method, (draw.method, draw.method))
    print(f"第 {draw.round} 轮编排（{zh}） / round {draw.round} draw ({en})")
    if draw.info.get("first_round") == "lots":
        print(f"  首轮抽签（种子 {args.seed}） / round 1 by lots (seed {args.seed})")
    for t, ns, ew in draw.tables:
        print(f"  {t:>4}  南北 / NS {ns}  vs  东西 / EW {ew}")
    print(f"  轮空 / bye: {draw.bye if draw.bye else '无 / none'}")
    if note := bye_note(draw.method, draw.round, draw.info):  # a no-show passed over, or why it has the bye
        print(f"  {note[0]} / {note[1]}")
    return 0


def _check_rounds_complete(results: list[Any], teams: list[str]) -> None:
    """The next draw follows complete rounds only (the hub refuses the same): rounds 1…n each
    present, and every team of TEAMS in the last one (a table or a bye). A file cut short or a
    typo in a round number would otherwise give a draw from the wrong history."""
    rounds = sorted({r.round for r in results})
    missing = sorted(set(range(1, rounds[-1] + 1)) - set(rounds)) if rounds else []
    if missing:
        raise EventInputError(f"成绩缺第 {missing[0]} 轮（现有第 {', '.join(map(str, rounds[:10]))} 轮） / RESULTS has no line for round {missing[0]} "
                              f"(rounds {', '.join(map(str, rounds[:10]))} are there)")
    if rounds:
        last = rounds[-1]
        seen = {t for r in results if r.round == last for t in (r.ns, r.ew) if t is not None}
        absent = [t for t in teams if t not in seen]
        unknown = sorted(seen - set(teams))
        if unknown:
            raise EventInputError(f"第 {last} 轮成绩中的队 {unknown[0]!r} 不在队名单中 / team {unknown[0]!r} of round "
                                  f"{last} is not in the teams list")
        if absent:
            raise EventInputError(f"第 {last} 轮不完整：缺 {', '.join(absent[:5])} 的成绩或轮空 / round {last} is "
                                  f"incomplete: no result or bye for {', '.join(absent[:5])}"
                                  + (f" (+{len(absent) - 5} more)" if len(absent) > 5 else ""))


def run_export(args: argparse.Namespace) -> int:
    """Read a hub's log (never written to) and print its results or standings."""

    if Path(args.data).exists() and not Path(args.data).is_dir():
        raise EventInputError(f"须为赛事中心数据目录，不是文件：{args.data} / expected the hub's data folder, "
                              f"not a file: {args.data}")
    db = Path(args.data) / "hub-events.sqlite3"
    if not db.exists():
        raise EventInputError(f"找不到赛事日志：{db} / no hub event log at {db}")
    import sqlite3

    try:
        store = HubStore(db, readonly=True)
        try:
            core = HubCore().replay(store.events())
        finally:
            store.close()
    except sqlite3.DatabaseError as exc:
        raise EventInputError(f"不是赛事日志：{db}（{exc}） / not a hub event log: {db} ({exc})") from None
    if core.cfg is None:
        raise EventInputError(f"赛事日志为空：{db} / the hub log is empty: {db}")
    if args.standings:
        print(json.dumps(core.standings_marked()[1], ensure_ascii=False))
    else:
        print(results_to_jsonl(core.result_objects()), end="")
    return 0


def run_provision(args: argparse.Namespace) -> int:
    """``guandan-table event provision``: files for the broker, the hub and each table."""
    cfg = load_event(args.event, provisioned=False)
    out = Path(args.out) if args.out is not None else Path(args.event).resolve().parent / f"mqtt-{cfg['event']['id']}"
    # Persistence on: without it a restart of the broker lost every retained message (assignments,
    # releases, the deck, the accounts) and what it queued for a client away (the durability audit, finding 3).
    persistence = out.resolve() / "broker" / PERSISTENCE_DIR
    done = provision(cfg, out, host=args.host, port=args.port, bind=args.bind, tls_hosts=args.tls,
                     tls_port=args.tls_port, force=args.force, watchers=args.watchers, persistence=persistence)
    files = ", ".join(watch_name(done.event, n)[1] for n in range(1, len(done.watchers) + 1))
    # Debian puts mosquitto in /usr/sbin, on root's PATH only: the command as a normal user types it.
    exe = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    print(f"已写出 / written: {out}\n"
          f"  Mosquitto: {done.conf}  ({exe} -c {done.conf})\n"
          f"    运行（日志按大小轮换） / run it, its log rotated by size: guandan-table event broker --event {args.event}"
          + (f" --out {out}" if args.out is not None else "") + "\n"
          f"  赛事中心 / hub: {out / 'hub.toml'} (EVENT.toml 的 [mqtt] 未写用户时自动使用 / used by the hub "
          f"when EVENT.toml's [mqtt] names no user)\n"
          f"  各桌 / tables ({len(done.tables)}): {out / 'tables'}/<id>.toml → table.toml [mqtt]\n"
          f"  直播图文只读 / broadcast graphics, read-only ({len(done.watchers)}): {out}/{{{files}}}\n"
          f"    每个账号同时只能连一台机器（第二台会把第一台挤下线），多台请用 --watchers N / each serves one "
          f"client at a time (a second one throws the first off): for more machines, --watchers N"
          + (f"\n  CA: {out / 'ca.crt'} → 与各桌、赛事中心的 toml 放在一起 / beside each table.toml and EVENT.toml"
             f"\n  CA 私钥 / the CA's key: {out / 'ca' / 'ca.key'} → 留在本机，不要随 broker/ 拷走 / stays here, "
             "never copied with broker/" if done.tls_port else "")
          + f"\n  代理日志（含 ACL 拒绝） / broker log, ACL refusals included: {done.log}  (grep 'Denied PUBLISH' "
            f"{done.log}*)"
          + f"\n  代理持久化（保留消息、离线队列） / the broker's persistence (retained messages, queues): {persistence}")
    run_as = done.run_as.user if done.run_as is not None else None
    if run_as:
        print(f"  代理运行账号（mosquitto.conf 的 user） / the broker runs as (mosquitto.conf's user): {run_as}")
    for what in done.removed:
        print(f"  已删除过期凭据（其账号已不在密码文件中） / deleted a stale credential (its user is no longer in the "
              f"password file): {what}")
    for what in done.moved:
        print(f"  已把 CA 私钥移出 broker/ / moved the CA's key out of broker/: {what}")
    if done.run_as is not None and done.run_as.note:
        print(done.run_as.note, file=sys.stderr)
    taken = taken_ports(done, args.bind)
    if taken:
        print(taken_port_warning(taken), file=sys.stderr)
    return 0


def run_broker(args: argparse.Namespace) -> int:
    """``guandan-table event broker``: the provisioned Mosquitto until it ends, or Ctrl-C / SIGTERM."""
    cfg = load_event(args.event, provisioned=False)
    out = Path(args.out) if args.out is not None else Path(args.event).resolve().parent / f"mqtt-{cfg['event']['id']}"
    conf = out / "broker" / "mosquitto.conf"
    if not conf.is_file():
        raise EventInputError(f"找不到代理配置 {conf}，请先运行 guandan-table event provision / no broker config at {conf}: "
                              "run guandan-table event provision first")
    if interrupted(out):
        raise interrupted_error(out)
    broker = EventBroker(conf, log_max_bytes=args.log_max_mb * 2**20, log_keep=args.log_keep)
    # Before the start: a stop asked for while it starts ends the broker too, never leaves it orphaned.
    signal.signal(signal.SIGTERM, lambda *_: broker.terminate())
    broker.start()
    for p in broker.given:
        print(f"已把之前以 root 运行的代理留下的文件交给代理账号 / gave a file an earlier broker left to the broker's "
              f"account: {p}", flush=True)
    log = broker.conf.log
    print(f"赛事代理 / event broker: mosquitto -c {conf} (pid {broker.proc.pid if broker.proc else '?'})", flush=True)
    if log is not None:
        print(f"  日志 / log: {log}（满 {args.log_max_mb} MiB 轮换，保留 {args.log_keep} 份旧日志 / rotated at "
              f"{args.log_max_mb} MiB, {args.log_keep} older kept: grep 'Denied PUBLISH' {log}*）", flush=True)
    try:
        rc = broker.wait()
    except KeyboardInterrupt:
        rc = 0
    finally:
        broker.stop()
    if rc not in (0, -signal.SIGTERM, -signal.SIGINT):
        print(f"Mosquitto 已退出（{rc}），见 {log} / Mosquitto ended ({rc}): see {log}", file=sys.stderr)
        return 1
    return 0


def run_hub(args: argparse.Namespace) -> int:
    """``guandan-table hub``: the event hub's service and pages (event/hub_command.py)."""
    if args.data is not None and Path(args.data).exists() and not Path(args.data).is_dir():
        raise EventInputError(f"--data 是文件，不是目录：{args.data} / --data is a file, not a folder: {args.data}")
    from table_service.event.hub_command import (
        run_hub_command,  # lazy: the hub's pages load Flask and OpenCV (a second of CPU) no other event command needs
    )

    return run_hub_command(args)
