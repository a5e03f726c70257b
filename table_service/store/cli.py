"""``guandan-table replay DB`` and ``guandan-table export DB``.

``export`` writes the match record as JSON lines: a header line, then every accepted event in
order (``--all`` adds the rejected ones, marked). ``replay`` reads either a table database or
such an export, folds it with the engine and prints deal by deal what happened, Chinese then
English. Reading never writes: a damaged database is reported, naming the file, and left as it is.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, TextIO

from table_service.engine.apply import replay
from table_service.engine.events import DATA_SCHEMAS, EVENT_TYPES
from table_service.engine.ladder import LEVEL_ZH
from table_service.engine.scoring import describe_result
from table_service.engine.state import PHASE_ZH, state_to_json
from table_service.rules.cards import RANK_NAMES_ZH
from table_service.rules.seats import SEAT_NAMES_ZH, SEATS, seat_zh, side_zh
from table_service.store.event_log import SQLITE_HEADER, EventStore, is_utf8_text

EXPORT_FORMAT = "guandan-table-match"
EXPORT_VERSION = 1

#: A flag's status and a deal's phase, Chinese then English (the replay printed "[confirmed]" and "tribute").
STATUS_WORDS = {"open": "待处理 / open", "confirmed": "已确认 / confirmed", "dismissed": "已驳回 / dismissed",
                "withdrawn": "已撤回 / withdrawn"}
PHASE_WORDS = {phase: f"{zh} / {phase}" for phase, zh in PHASE_ZH.items()}


def read_events(path: Path, *, include_rejected: bool = False) -> list[dict[str, Any]]:
    """Events of a table database or of an export file.

    :raises ValueError: the file is missing, damaged, or not a match record (message names it).
    """
    if not path.exists():
        raise ValueError(f"文件不存在：{path} / no such file: {path}")
    if path.is_dir():
        raise ValueError(f"{path} 是文件夹，请给出数据库或导出文件 / "
                         f"{path} is a folder: give a table database "
                         "or an export file")
    if not path.is_file():  # /dev/zero was read as one endless line; a FIFO waited for a writer forever
        raise ValueError(f"{path} 不是普通文件，请给出数据库或导出文件 / "
                         f"{path} is not a regular file: give a table database or an export file")
    try:
        with path.open("rb") as fh:
            head = fh.read(16)
    except OSError as exc:
        raise ValueError(f"无法读取 {path}（{exc.strerror or exc}） / "
                         f"cannot read {path}: {exc.strerror or exc}") from None
    if not head:
        raise ValueError(f"{path} 是空文件，不是比赛记录 / "
                         f"{path} is empty: not a table database nor a match export")
    if head == SQLITE_HEADER:
        uri_store = EventStore(path, readonly=True)
        try:
            return uri_store.events(include_rejected=include_rejected)
        finally:
            uri_store.close()
    try:
        return _read_export(path, include_rejected)
    except UnicodeDecodeError:
        raise ValueError(f"{path} 不是比赛记录（既非本桌数据库也非比赛导出） / "
                         f"{path} is neither a table database nor a match export") from None


def _read_export(path: Path, include_rejected: bool) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    declared: Any = None
    lines = 0  # event lines present, rejected ones included (the header counts what was written)
    with path.open(encoding="utf-8") as fh:
        for lineno, line in enumerate(fh, 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                if lineno == 1:
                    raise ValueError(f"{path} 不是比赛记录（既非本桌数据库也非比赛导出） / "
                                     f"{path} is neither a table database nor a match export") from None
                raise ValueError(f"导出文件 {path} 第{lineno}行无法解析 / {path}:{lineno}: not JSON") from None
            if lineno == 1:
                if not isinstance(obj, dict) or obj.get("format") != EXPORT_FORMAT:
                    raise ValueError(f"{path} 不是比赛记录（既非本桌数据库也非比赛导出） / "
                                     f"{path} is neither a table database nor a match export")
                declared = obj.get("events")
                continue
            if not isinstance(obj, dict) or "type" not in obj:
                raise ValueError(f"导出文件 {path} 第{lineno}行不是事件 / {path}:{lineno}: not an event")
            if "\\ud" in line.lower() and not is_utf8_text(json.dumps(obj, ensure_ascii=False)):
                # A lone surrogate escape (\ud800) is JSON but no text: printing or exporting it failed
                # half-way, in English, after the output file had been emptied.
                raise ValueError(f"导出文件 {path} 第{lineno}行含无效文字（单个代理码） / "
                                 f"{path}: line {lineno} holds text that "
                                 "is not valid Unicode (a lone surrogate escape)")
            lines += 1
            if "rejected" not in obj and (problem := _malformed(obj)):
                # Passed over by replay as "does not apply under this release", exit 0: a damaged
                # record is said as one (a rules refusal of a well-formed old event still is not).
                raise ValueError(f"导出文件 {path} 第{lineno}行事件格式错误（{problem}），记录已损坏 / "
                                 f"{path}: line {lineno} is a "
                                 f"malformed event ({problem}): the record is damaged")
            if "rejected" in obj and not include_rejected:
                continue
            events.append(obj)
    if isinstance(declared, int) and not isinstance(declared, bool) and declared != lines:
        raise ValueError(f"导出文件 {path} 不完整：文件头记 {declared} 个事件，实有 {lines} 个 / "
                         f"{path} is cut short or padded: its header says {declared} events, "
                         f"{lines} are present")
    return events


def _malformed(obj: dict[str, Any]) -> str | None:
    """What makes an accepted event of an export ill-formed, or None. Only what no release ever
    logged: an unknown type, a seq or t_ms that is not a whole number, data that is not an object
    (or null where the type needs fields); never a rule a newer release refuses. A seq or t_ms left
    out (an export edited by hand) is still passed over and named (tests/engine/test_cli.py)."""
    etype = obj.get("type")
    if etype not in EVENT_TYPES:
        return f"unknown type {str(etype)[:40]!r}"
    for key, low in (("seq", 1), ("t_ms", 0)):
        value = obj.get(key)
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < low):
            return f"{key} = {str(value)[:40]!r} is not a whole number from {low}"
    data = obj.get("data")
    schema = DATA_SCHEMAS.get(etype, {})
    if data is None and any(spec.required for spec in schema.values()):
        return f"{etype} without its data"
    if data is not None and not isinstance(data, dict):
        return "data is not an object"
    return None


def export(path: Path, out: TextIO, *, include_rejected: bool = False) -> int:
    """Write the match record of ``path`` to ``out``; returns the number of events."""
    return _write_export(path, read_events(path, include_rejected=include_rejected), out)


def _write_export(path: Path, events: list[dict[str, Any]], out: TextIO) -> int:
    out.write(json.dumps({"format": EXPORT_FORMAT, "version": EXPORT_VERSION, "source": path.name, "events": len(events)}, ensure_ascii=False) + "\n")
    for ev in events:
        out.write(json.dumps(ev, ensure_ascii=False, sort_keys=True) + "\n")
    return len(events)


def _seat(s: str) -> str:
    return f"{SEAT_NAMES_ZH[s]}{s}"


def _level(rank: str) -> str:
    """A level as both languages write it: 10, not the notation's T."""
    return RANK_NAMES_ZH.get(rank, rank)


def _describe_deal(rec: dict[str, Any], sheet: dict[str, Any] | None, out: TextIO) -> None:
    out.write(f"\n第{rec['deal']}副 / deal {rec['deal']}  级牌 / level {_level(rec['level'])}\n")
    if rec.get("anti_tribute"):
        out.write(f"  抗贡 / anti-tribute: {' '.join(rec['anti_tribute']['seats'])}\n")
    for t in rec["tributes"]:
        out.write(f"  进贡 / tribute {_seat(t['from'])} → {_seat(t['to'])}: {t['card']}\n")
    for r in rec["returns"]:
        out.write(f"  还贡 / return {_seat(r['from'])} → {_seat(r['to'])}: {r['card']}\n")
    for i, trick in enumerate(rec["tricks"], 1):
        parts = [f"{p['seat']} {'过 / pass' if p.get('pass') else ' '.join(p['cards'])}" for p in trick]
        out.write(f"  第{i}圈 / trick {i}: " + " | ".join(parts) + "\n")
    order = " ".join(_seat(s) for s in rec["finish_order"])
    out.write(f"  名次 / finish: {order}\n")
    if sheet:
        gain = sheet["gain"]
        end = {"play": "", "foul": "（犯规结束 / ended by a foul）"}.get(sheet["ended_by"], f"({sheet['ended_by']})")
        after = sheet["levels_after"]
        out.write(
            f"  {side_zh(gain['side'])}升 {gain['levels']} 级 / {gain['side']} up {gain['levels']}{end}; "
            f"级数 东西 {_level(after['EW'])} 南北 {_level(after['NS'])} / levels EW {_level(after['EW'])} "
            f"NS {_level(after['NS'])}"
            + (f"; {side_zh(sheet['past_a'])}过A / {sheet['past_a']} past A" if sheet.get("past_a") else "")
            + "\n"
        )


def _describe_round(rnd: dict[str, Any], sheet: list[dict[str, Any]], records: list[dict[str, Any]],
                    flags: list[dict[str, Any]], penalties: dict[str, Any], result: dict[str, Any] | None, out: TextIO) -> None:
    players = " ".join(f"{_seat(s)} {rnd['players'][s]}" for s in SEATS)
    fmt = rnd["format"]
    fmt_s = {"past_a": "打过A / to past A", "deals": f"{fmt.get('deals')}副 / {fmt.get('deals')} deals",
             "time": f"限时{fmt.get('minutes')}分钟 / {fmt.get('minutes')} min"}[fmt["kind"]]
    out.write(f"=== 第{rnd['no']}轮 / round {rnd['no']} — {players}; {fmt_s}; 规则 / rules {rnd['ruleset']['name']}\n")
    by_deal = {s["deal"]: s for s in sheet}
    for rec in records:
        _describe_deal(rec, by_deal.get(rec["deal"]), out)
    if flags:
        out.write("\n标记 / flags:\n")
        for f in flags:
            status = STATUS_WORDS.get(f["status"], f["status"])
            seat = _seat(f["seat"]) if f["seat"] in SEATS else "-"
            out.write(f"  {f['id']} [{status}] 第{f['deal']}副 / deal {f['deal']} {seat}: {f['article']}\n")
    records_p = penalties.get("records", [])
    if records_p:
        out.write("\n处罚 / penalties:\n")
        for p in records_p:
            seat_both = (f" {seat_zh(p['seat'])}", f" {p['seat']}") if p["seat"] else ("", "")
            auto = ("（自动）", " (automatic)") if p["auto"] else ("", "")
            out.write(f"  {side_zh(p['side'])}{seat_both[0]} {LEVEL_ZH.get(p['level'], p['level'])}{auto[0]} / "
                      f"{p['side']}{seat_both[1]} {p['level']}{auto[1]}: {p['article']}\n")
    if result:
        out.write(f"\n结果 / result: {describe_result(result)}\n")


def describe(events: list[dict[str, Any]], out: TextIO) -> dict[str, Any]:
    """Fold ``events`` and print the match deal by deal; returns the final state view."""
    # As the table starts from it (engine.apply.replay): an event an older release logged that these
    # rules refuse is passed over, and said so at the end.
    view = state_to_json(replay(events))
    for old in view["rounds"]:
        _describe_round(old["round"], old["score_sheet"], old["deal_records"], old["flags"], old["penalties"], old["result"], out)
        out.write("\n")
    if view["round"] is not None:
        _describe_round(view["round"], view["score_sheet"], view["deal_records"], view["flags"], view["penalties"], view["result"], out)
        deal = view["deal"]
        if deal is not None and deal["phase"] != "over":
            counts = " ".join(f"{s}:{deal['counts'][s]}" for s in SEATS)
            phase = PHASE_WORDS.get(deal["phase"], deal["phase"])
            turn = _seat(deal["turn"]) if deal["turn"] in SEATS else "-"
            out.write(f"\n进行中 / in progress: 第{deal['no']}副 / deal {deal['no']}, {phase}, 轮到 / turn {turn}, "
                      f"剩余 / cards {counts}\n")
    for gone in view["not_applied"]:
        out.write(f"\n按本版本规则不再适用 / does not apply under this release: #{gone['seq'] if gone['seq'] is not None else '?'} {gone['type']}: "
                  f"{gone['error']}")
    if view["not_applied"]:
        out.write("\n")
    out.write(f"\n共 {len(events)} 个事件 / {len(events)} events\n")
    return view


def _db_path(text: str) -> Path:
    """The DB argument; "" (an unset shell variable) is refused, not read as this folder (Path("") is ".")."""
    if not text:
        raise ValueError("文件名为空 / empty path: give a table database or an export file")
    return Path(text)


def _cmd_replay(args: argparse.Namespace) -> int:
    events = read_events(_db_path(args.db))
    describe(events, sys.stdout)
    return 0


def _cmd_export(args: argparse.Namespace) -> int:
    path = _db_path(args.db)
    if args.output == "":  # an unset shell variable: it wrote to standard output and said nothing
        raise ValueError("-o 为空 / -o is empty: give a file name, or - for standard output")
    if args.output and args.output != "-":
        out_path = Path(args.output)
        if out_path.resolve() == path.resolve():
            raise ValueError(f"不能覆盖数据库 {path} / refusing to overwrite the database {path}")
        if out_path.is_dir():
            raise ValueError(f"输出 {out_path} 是文件夹，请给出文件名 / "
                             f"the output {out_path} is a folder: give a file name")
        if out_path.exists() and not out_path.is_file():  # a FIFO or /dev/stdout: reading its head hung
            raise ValueError(f"输出 {out_path} 不是普通文件，请给出文件名或 - / "
                             f"the output {out_path} is not a regular file: give a file name, "
                             "or - for standard output")
        if not out_path.parent.is_dir():
            raise ValueError(f"输出 {out_path} 所在的文件夹不存在 / the folder of the output {out_path} does not exist")
        if not _replaceable(out_path):
            # A typo in -o must not turn the accounts database or another table's log into an export.
            raise ValueError(f"输出文件 {out_path} 已存在且不是比赛记录导出，不覆盖 / "
                             f"the output {out_path} exists and is not a "
                             "match export: not overwritten (remove it or choose another name)")
        events = read_events(path, include_rejected=args.all)  # read fully before creating the output
        # Written beside and renamed into place: a write that fails (a full disk) leaves an earlier
        # export as it was, not emptied.
        tmp = out_path.with_name(f".{out_path.name}.tmp")
        try:
            with tmp.open("w", encoding="utf-8") as fh:
                n = _write_export(path, events, fh)
            os.replace(tmp, out_path)
        except OSError as exc:
            raise ValueError(f"无法写入 {out_path}（{exc.strerror or exc}） / "
                             f"cannot write {out_path}: {exc.strerror or exc}") from None
        finally:
            tmp.unlink(missing_ok=True)
        print(f"已导出 {n} 个事件到 {out_path} / exported {n} events to {out_path}", file=sys.stderr)
    else:
        export(path, sys.stdout, include_rejected=args.all)
    return 0


def _replaceable(path: Path) -> bool:
    """Whether ``export -o`` may write over ``path``: nothing there, an empty file, or an earlier export."""
    try:
        with path.open("rb") as fh:
            first = fh.readline(4096)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    if not first.strip():
        return True
    try:
        head = json.loads(first)
    except ValueError:
        return False
    return isinstance(head, dict) and head.get("format") == EXPORT_FORMAT


def register(subparsers: Any) -> None:
    """Add ``replay`` and ``export`` to the ``guandan-table`` command."""
    p = subparsers.add_parser("replay", help="按副重放比赛记录 / print a table's record deal by deal")
    p.add_argument("db", help="桌面数据库或导出文件 / table database or export (JSON lines)")
    p.set_defaults(func=_cmd_replay)
    p = subparsers.add_parser("export", help="导出比赛记录为 JSON lines / export the match record as JSON lines")
    p.add_argument("db", help="桌面数据库 / table database")
    p.add_argument("-o", "--output", help="输出文件（默认标准输出） / output file (default stdout)")
    p.add_argument("--all", action="store_true", help="包括被拒绝的事件 / include rejected events")
    p.set_defaults(func=_cmd_export)
