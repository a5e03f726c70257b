"""The event hub service: the hub's log, its MQTT session and the organiser's actions.

Every change is first an event in the hub's SQLite log (:mod:`.store`), then applied to the
in-memory :class:`~.core.HubCore`; the web pages and MQTT only ever read that state. Live table
status (online/offline, summary counts) is not logged: it is what the broker says right now, and
the broker keeps it retained.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import logging
import os
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_service.event.config import load_event
from table_service.event.core import HubCore, _can, byes_of
from table_service.event.deck import deck_meta
from table_service.event.intake import BadMessage, check_message, panel_link
from table_service.event.model import (
    EventInputError,
    parse_result,
    parse_results_text,
    results_to_jsonl,
    reused_id_reason,
)
from table_service.event.mqtt import HubMqtt, Message
from table_service.event.store import HubStore
from table_service.event.web import serve_hub
from table_service.views.deck_wire import deck_message, sha256_hex, withdrawal_message
from table_service.web import users
from table_service.web.secret_key import kept_secret_key

log = logging.getLogger(__name__)


def _dumps(obj: Any) -> bytes:
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@dataclass
class TableLive:
    """What the broker last said about one table."""

    table: str
    online: bool | None = None
    status_ms: int | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    panel: str | None = None


def _event_part(cfg: dict[str, Any] | None) -> dict[str, Any] | None:
    """The part of EVENT.toml that is the event (not where its broker and pages run)."""
    return None if cfg is None else {k: v for k, v in cfg.items() if k not in ("mqtt", "hub")}


class HubService:
    """One event's hub. ``connect=False`` runs without MQTT (hand entry only, tests of the core)."""

    def __init__(self, cfg: dict[str, Any], data_dir: str | Path, *, clock_ms: Callable[[], int] | None = None,
                 connect: bool = True) -> None:
        self.clock_ms = clock_ms or (lambda: int(time.time() * 1000))
        self.data_dir = Path(data_dir)
        self.store = HubStore(self.data_dir / "hub-events.sqlite3")
        self.lock = threading.RLock()
        self.core = HubCore().replay(self.store.events())
        self.mqtt: HubMqtt | None = None
        self.config_note: str | None = None
        if self.core.cfg is None or (_event_part(self.core.loaded_cfg) != _event_part(cfg) and not self.core.draws):
            # The broker's password is deployment, not event state: it stays out of the hub's log.
            logged = {**cfg, "mqtt": {k: v for k, v in (cfg.get("mqtt") or {}).items() if k != "password"}}
            self._commit("event_loaded", {"config": logged}, actor="EVENT.toml", role="chief")
        elif self.core.cfg["event"]["id"] != (cfg.get("event") or {}).get("id"):
            # Another event's folder: serving the logged event under this file's name would send the
            # wrong event's draws to the tables, and the banner would name the other.
            raise ValueError(f"数据文件夹 {self.data_dir} 属于赛事 {self.core.cfg['event']['id']!r}，EVENT.toml 是赛事 "
                             f"{(cfg.get('event') or {}).get('id')!r}：请用该赛事自己的文件夹 / the data folder "
                             f"{self.data_dir} holds event {self.core.cfg['event']['id']!r} (drawn already), "
                             f"EVENT.toml is event {(cfg.get('event') or {}).get('id')!r}: give each event its own folder")
        elif _event_part(self.core.loaded_cfg) != _event_part(cfg):
            self.config_note = ("EVENT.toml 已改动，但已有编排：沿用日志中的配置 / EVENT.toml changed after the first "
                                "draw: the logged configuration stays in force")
            log.warning(self.config_note)
        assert self.core.cfg is not None
        self.event_id = self.core.cfg["event"]["id"]
        self.live: dict[str, TableLive] = {}
        self.lags_ms: deque[int] = deque(maxlen=100_000)
        self.duplicates = 0
        if connect:
            m = cfg["mqtt"]  # where the broker is today (deployment, not event state: from the file)
            self.mqtt = HubMqtt(self.event_id, self.handle_batch, host=m["host"], port=m["port"],
                                username=m.get("username"), password=m.get("password"),
                                keepalive=m.get("keepalive", 15), on_connected=self._republish,
                                ca_file=m.get("ca_file"))

    # ---------------------------------------------------------------- lifecycle

    def start(self) -> HubService:
        if self.mqtt is not None:
            self.mqtt.start()
        return self

    def stop(self) -> None:
        if self.mqtt is not None:
            self.mqtt.stop()
        self.store.close()

    def wait_connected(self, timeout: float = 10.0) -> bool:
        return self.mqtt is not None and self.mqtt.connected.wait(timeout)

    # ---------------------------------------------------------------- logging

    def _commit(self, etype: str, data: dict[str, Any], *, actor: str | None, role: str | None) -> dict[str, Any]:
        """Log, then apply (the only way the hub's state changes)."""
        with self.lock:
            ev = self.store.append(etype, data, t_ms=self.clock_ms(), actor=actor, role=role)
            self.core.apply(ev)
        self._after(ev)
        return ev

    def _after(self, ev: dict[str, Any]) -> None:
        """Side effects of a committed event (MQTT publishing; nothing that changes state)."""
        if self.mqtt is None:
            return
        if ev["type"] == "round_published":
            for table, a in ev["data"]["assignments"].items():
                self.mqtt.publish(table, "assignment", _dumps({**a, "hub_seq": ev["seq"]}))
            self._clear_idle_assignments(ev["data"]["assignments"])
        elif ev["type"] == "deck_published":
            self._publish_deck(ev["data"])
        elif ev["type"] == "deck_withdrawn":
            self.mqtt.publish_deck(withdrawal_message(ev["data"]["sha256"]))

    def _republish(self) -> None:
        """On (re)connect: every table's assignment of the latest published round again (retained
        and idempotent, so a table that was down picks it up)."""
        with self.lock:
            deck, withdrawn = self.core.deck, self.core.deck_withdrawn
            rnd = self.core.current_round()
            assignments = dict(self.core.draws[rnd]["assignments"]) if rnd else {}
        if deck is not None:
            self._publish_deck(deck)
        elif withdrawn is not None:
            self.mqtt.publish_deck(withdrawal_message(withdrawn))
        for table, a in assignments.items():
            assert self.mqtt is not None
            self.mqtt.publish(table, "assignment", _dumps(a))
        if rnd:
            self._clear_idle_assignments(assignments)

    def _clear_idle_assignments(self, assignments: dict[str, Any]) -> None:
        """Clear the retained assignment of every table an earlier round used and this one does not
        (an empty retained payload: docs/hub-protocol.md). Why: after a withdrawal a round needs fewer
        tables, and the table left out kept its old round's assignment, retained: its panel showed
        that round as still to play, and a Pi restarted there was offered it again."""
        assert self.mqtt is not None
        with self.lock:
            used = {t for d in self.core.draws.values() if d["published"] for t in d["assignments"]}
        for table in sorted(used - set(assignments)):
            self.mqtt.publish(table, "assignment", b"")

    # ---------------------------------------------------------------- the event's deck

    def publish_deck(self, data: bytes, actor: str, role: str) -> dict[str, Any]:
        """The organiser's enrolment file (``guandan-table vision enroll``, or a table's panel),
        checked, kept in the hub's folder and handed to every table (docs/hub-protocol.md).

        :raises EventInputError: not the chief referee, or not an enrolment file this version reads.
        """
        meta = deck_meta(data)
        sha = sha256_hex(data)
        name = f"deck-{sha[:16]}.npz"
        with self.lock:
            etype, ev_data = self.core.check_deck(sha, len(data), name, meta, role)  # the role: the core's rule
            path = self.data_dir / name
            tmp = path.with_suffix(".tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)  # on disk before the log names it: a replay never names a missing file
            return self._commit(etype, ev_data, actor=actor, role=role)

    def withdraw_deck(self, actor: str, role: str) -> dict[str, Any]:
        """Withdraw the event's deck: logged, then the tables are told (a retained withdrawal) and
        each drops the file it saved of it (docs/hub-protocol.md). The file stays in the hub's folder.

        :raises EventInputError: not the chief referee, or no deck handed out.
        """
        with self.lock:
            etype, ev_data = self.core.check_withdraw_deck(role)
            return self._commit(etype, ev_data, actor=actor, role=role)

    def _publish_deck(self, deck: dict[str, Any]) -> None:
        if self.mqtt is None:
            return
        try:
            data = (self.data_dir / deck["file"]).read_bytes()
        except OSError as exc:
            log.error("hub: the event's deck file %s cannot be read (%s): not handed to the tables", deck["file"], exc)
            return
        self.mqtt.publish_deck(deck_message(data, deck.get("meta") or {}))

    # ---------------------------------------------------------------- table messages

    def handle_batch(self, messages: list[Message]) -> None:
        """Results are logged in one transaction; status and summaries update the live view.

        Every message is first checked field by field (:mod:`.intake`). One that fails is logged
        once (``message_refused``, that table's fault on the overview) and acknowledged with the
        rest: it is never delivered again and blocks nothing. Only a failure of the hub's own log
        (SQLite) leaves the batch unacknowledged, to be delivered again."""
        acks: list[tuple[str, dict[str, Any]]] = []
        now = self.clock_ms()
        with self.lock:
            tables = frozenset(t["id"] for t in (self.core.cfg or {}).get("tables", [])) or None
            applied: list[dict[str, Any]] = []
            # (round, table, id) and (round, table) of results logged in this batch, not yet
            # applied; ("fault", table, digest) of bad messages and ("refused", table, id) of
            # refused results logged in this batch
            pending: set[tuple[Any, ...]] = set()
            with self.store.transaction():
                for table, name, payload, _retained in messages:
                    if not payload:
                        continue  # a cleared retained message
                    try:
                        clean = check_message(table, name, payload, tables, self.event_id)
                    except BadMessage as exc:
                        self._bad_message(table, name, payload, str(exc), now, applied, pending)
                        continue
                    try:
                        if name == "result":
                            ack = self._table_result(table, clean, now, applied, pending)
                            if ack is not None:
                                acks.append((table, ack))
                        elif name == "status":
                            self._status(table, clean)
                        else:
                            self._summary(table, clean)
                    except sqlite3.Error:
                        raise  # the hub's own log failed: nothing is acknowledged, all comes again
                    except Exception as exc:  # a hub bug on one message must not block the others
                        log.exception("hub: message on %s/%s could not be handled", table, name)
                        self._bad_message(table, name, payload, f"赛事中心无法处理 / the hub could not handle it "
                                          f"({type(exc).__name__})", now, applied, pending)
            for ev in applied:
                self.core.apply(ev)
        if self.mqtt is not None:
            for table, ack in acks:
                self.mqtt.publish(table, "result_ack", _dumps(ack))

    def _bad_message(self, table: str, name: str, payload: bytes, reason: str, now: int,
                     applied: list[dict[str, Any]], pending: set[tuple[Any, ...]]) -> None:
        """Log a bad message once (the same bytes again, e.g. a retained message redelivered on
        every reconnect, are counted as a duplicate and not logged again)."""
        digest = hashlib.sha256(name.encode("utf-8", "replace") + b"\0" + payload).hexdigest()[:16]
        table = table[:64]
        key = ("fault", table, digest)
        if (table, digest) in self.core.fault_digests or key in pending:
            self.duplicates += 1
            return
        pending.add(key)
        applied.append(self.store.append("message_refused", {
            "table": table, "topic": name[:32], "reason": reason[:300], "digest": digest, "size": len(payload),
            "received_ms": now}, t_ms=now, actor=f"table:{table}", role=None))
        log.warning("hub: message on %s/%s refused: %s", table, name, reason)

    def _status(self, table: str, data: dict[str, Any]) -> None:
        live = self.live.setdefault(table, TableLive(table))
        live.online = data["status"] == "online"
        live.status_ms = data["wall_ms"]
        if data["panel"]:
            live.panel = data["panel"]

    def _summary(self, table: str, data: dict[str, Any]) -> None:
        live = self.live.setdefault(table, TableLive(table))
        old = live.summary

        def order(d: dict[str, Any]) -> tuple[int, int]:
            return (d.get("round") or 0, d.get("last_seq") or 0)

        # Newer by (round, seq) wins; a message a minute newer wins anyway (a Pi replaced mid-round
        # starts its seqs again).
        if not old or order(data) >= order(old) or (data["wall_ms"] or 0) > (old.get("wall_ms") or 0) + 60_000:
            live.summary = data
        if data["panel"]:
            live.panel = data["panel"]

    def _table_result(self, table: str, msg: dict[str, Any], now: int, applied: list[dict[str, Any]],
                      pending: set[tuple[Any, ...]] | None = None) -> dict[str, Any] | None:
        """Accept, drop as duplicate, or refuse (logged, shown to the chief referee) a result
        message that :func:`~.intake.check_result` found well formed."""
        rid = msg["result_id"]
        refusal_id = rid
        line = msg["result"]
        if pending is None:
            pending = set()
        said = json.dumps(line, sort_keys=True)
        if (line["round"], table, rid) in pending:  # logged in this batch: the same result, or another one
            same = (line["round"], table, rid, said) in pending
            verdict, reason = ("duplicate", None) if same else ("refuse", reused_id_reason(rid))
        else:
            verdict, reason = self.core.classify_result(line, rid, agreeing_is_duplicate=True)
            if verdict == "accept" and (line["round"], table) in pending:
                verdict, reason = (("duplicate", None) if ("said", line["round"], table, said) in pending else
                                   ("refuse", "同一桌本轮已有成绩 / the table already has a result for this round"))
        if verdict == "duplicate":
            # Acknowledged again as accepted: a table that sends its result twice (reconnect, QoS 1
            # redelivery) must not see its retained "accepted" turn into something else.
            self.duplicates += 1
            return {"result_id": rid, "status": "accepted", "round": line["round"], "duplicate": True}
        if verdict == "refuse":
            # Against every refusal ever logged (not the chief's list, which forgets cleared ones):
            # a redelivery is never a second entry nor a second fault.
            if (table, refusal_id) in self.core.refused_ids or ("refused", table, refusal_id) in pending:
                self.duplicates += 1
                return {"result_id": rid, "status": "refused", "round": line["round"], "reason": reason}
            pending.add(("refused", table, refusal_id))
            applied.append(self.store.append("result_refused", {
                "table": table, "result_id": refusal_id, "reason": reason, "result": line,
                "received_ms": now}, t_ms=now, actor=f"table:{table}", role=None))
            log.warning("hub: result from table %s refused: %s", table, reason)
            # The round goes with every answer: the table shows it under that round's card only.
            return {"result_id": rid, "status": "refused", "round": line["round"], "reason": reason}

        clean = parse_result(line).to_dict()
        ev = self.store.append("result_recorded", {"result": clean, "source": "table", "result_id": rid,
                                                   "table_seq": msg.get("table_seq"), "received_ms": now},
                               t_ms=now, actor=f"table:{table}", role=None)
        applied.append(ev)
        said = json.dumps(clean, sort_keys=True)
        pending.update({(clean["round"], table, rid), (clean["round"], table), (clean["round"], table, rid, said),
                        ("said", clean["round"], table, said)})
        sent = msg.get("wall_ms")
        if isinstance(sent, int):
            self.lags_ms.append(max(0, self.clock_ms() - sent))
        return {"result_id": rid, "status": "accepted", "round": clean["round"], "hub_seq": ev["seq"]}

    # ---------------------------------------------------------------- organiser actions

    def draw_next(self, actor: str, role: str) -> dict[str, Any]:
        with self.lock:
            etype, data = self.core.check_draw(role)
            return self._commit(etype, data, actor=actor, role=role)

    def edit_team(self, team: str, name: str, players: list[str], actor: str, role: str) -> dict[str, Any]:
        with self.lock:
            etype, data = self.core.check_team_edit(team, name, players, role)
            return self._commit(etype, data, actor=actor, role=role)

    def edit_event(self, name: str, ruleset: str, fmt: dict[str, Any], actor: str, role: str) -> dict[str, Any]:
        with self.lock:
            etype, data = self.core.check_event_edit(name, ruleset, fmt, role)
            return self._commit(etype, data, actor=actor, role=role)

    def publish_draw(self, rnd: int, actor: str, role: str) -> dict[str, Any]:
        with self.lock:
            etype, data = self.core.check_publish(rnd, role)
            return self._commit(etype, data, actor=actor, role=role)

    def withdraw_team(self, team: str, reason: str, actor: str, role: str) -> dict[str, Any]:
        """A team withdraws (退赛): logged (who, when, from which round), then never drawn again.

        :raises EventInputError: not the chief referee, no such team, already withdrawn, or too few left.
        """
        with self.lock:
            etype, data = self.core.check_withdraw_team(team, reason, role)
            return self._commit(etype, data, actor=actor, role=role)

    def reinstate_team(self, team: str, actor: str, role: str) -> dict[str, Any]:
        """Undo a withdrawal before a round is published without the team.

        :raises EventInputError: not the chief referee, not withdrawn, or a round published since.
        """
        with self.lock:
            etype, data = self.core.check_reinstate_team(team, role)
            return self._commit(etype, data, actor=actor, role=role)

    def hand_result(self, line: dict[str, Any], actor: str, role: str) -> dict[str, Any]:
        """A result entered at the hub (a table without a Pi, or a failed one)."""
        if not _can(role, "referee"):
            raise EventInputError("录入成绩需要裁判权限 / entering a result requires role referee")
        with self.lock:
            rid = f"hand-{self.core.last_seq + 1}"
            verdict, reason = self.core.classify_result(line, rid)
            if verdict != "accept":
                raise EventInputError(reason or "重复 / duplicate")
            clean = parse_result(line).to_dict()
            return self._commit("result_recorded", {"result": clean, "source": "hand", "result_id": rid,
                                                    "received_ms": self.clock_ms()}, actor=actor, role=role)

    def correct(self, rnd: int, table: str, line: dict[str, Any], reason: str, actor: str, role: str
                ) -> dict[str, Any]:
        with self.lock:
            etype, data = self.core.check_correction(rnd, table, line, reason, role, self.clock_ms())
            return self._commit(etype, data, actor=actor, role=role)

    def publish_results(self, rnd: int, actor: str, role: str) -> dict[str, Any]:
        """Publish a round's results; ties decided by lot are recorded with the drawn order."""
        with self.lock:
            etype, data = self.core.check_results_published(rnd, role)
            ev = self._commit(etype, data, actor=actor, role=role)
            for lot in self.core.standings().lots:
                if tuple(lot["teams"]) not in self.core.lots:
                    self._commit("lots_drawn", {"teams": lot["teams"], "order": lot["order"], "round": rnd},
                                 actor=actor, role=role)
            return ev

    def file_appeal(self, rnd: int, table: str, team: str, text: str, actor: str, role: str) -> dict[str, Any]:
        with self.lock:
            etype, data = self.core.check_appeal(rnd, table, team, text, role, self.clock_ms())
            return self._commit(etype, data, actor=actor, role=role)

    def decide_appeal(self, appeal_id: int, decision: str, note: str, actor: str, role: str) -> dict[str, Any]:
        with self.lock:
            etype, data = self.core.check_appeal_decision(appeal_id, decision, note, role)
            return self._commit(etype, data, actor=actor, role=role)

    def acknowledge_refusal(self, seq: int, actor: str, role: str) -> dict[str, Any]:
        if not _can(role, "chief"):
            raise EventInputError("须裁判长处理 / only the chief referee clears a refused result")
        with self.lock:
            if not any(r["seq"] == seq and not r["acknowledged"] for r in self.core.refusals):
                raise EventInputError(f"没有待处理的拒收 #{seq} / no open refusal #{seq}")
            return self._commit("refusal_acknowledged", {"seq": seq}, actor=actor, role=role)

    def import_results(self, text: str, actor: str, role: str) -> int:
        """RESULTS lines entered by hand in bulk; byes are the draw's and are skipped.

        All or nothing: every line is checked before the first is logged (a bad one refuses the
        import, naming its line), then all are logged in one store transaction and only then
        applied. A hub killed half-way has logged none of them, so the same file imports again.
        """
        if not _can(role, "referee"):
            raise EventInputError("导入成绩需要裁判权限 / importing results requires role referee")
        dup = bool((self.core.cfg or {}).get("event", {}).get("scoring", {}).get("duplicate"))
        if not text.strip():
            # An empty box answered "0 results imported": a paste that did not take looked done.
            raise EventInputError("没有可导入的成绩行 / nothing to import: paste the RESULTS lines")
        lines = [r.to_dict() for r in parse_results_text(text, "import", duplicate=dup) if r.ew is not None]
        where = _line_numbers(text)
        with self.lock:
            for line in lines:
                verdict, reason = self.core.classify_result(line, "import-check")
                if verdict != "accept":
                    n = where.get((line["round"], line["table"]), 0)
                    raise EventInputError(f"import 第 {n} 行 line {n}: {reason}")
            now = self.clock_ms()
            logged: list[dict[str, Any]] = []
            with self.store.transaction():
                for line in lines:
                    # the id hand entry gives a result: "hand-" and the seq it is logged at
                    rid = f"hand-{self.core.last_seq + len(logged) + 1}"
                    logged.append(self.store.append("result_recorded", {
                        "result": line, "source": "hand", "result_id": rid, "received_ms": now},
                        t_ms=now, actor=actor, role=role))
            for ev in logged:
                self.core.apply(ev)
        return len(lines)

    def export_results(self) -> str:
        with self.lock:
            return results_to_jsonl(self.core.result_objects())

    # ---------------------------------------------------------------- views

    def overview(self) -> dict[str, Any]:
        """The chief referee's overview: one entry per table of the current round (``tables``), then
        every other table the hub knows — EVENT.toml's ``[[tables]]`` and any that spoke to the
        broker — that is not in it (``others``), so tables can be watched coming online before the
        first draw is published. ``started``: the table's summary is of this round (before that its
        levels are the panel's defaults, not play); ``published_ms`` and ``now_ms`` (the hub's
        clock) tell how long ago the round went out."""
        with self.lock:
            core = self.core
            rnd = core.current_round()
            draw = core.draws.get(rnd) if rnd else None
            cfg_panels = {t["id"]: t.get("panel") for t in (core.cfg or {}).get("tables", [])}
            names = {t["id"]: t["name"] for t in (core.cfg or {}).get("teams", [])}
            rows = []
            for t in (draw or {}).get("tables", []):
                live = self.live.get(t["table"], TableLive(t["table"]))
                res = core.results.get((rnd, t["table"]))
                started = bool(rnd) and live.summary.get("round") == rnd
                s = live.summary if started or live.summary.get("round") is None else {}
                rows.append({"table": t["table"], "ns": t["ns"], "ew": t["ew"], "online": live.online,
                             "ns_name": names.get(t["ns"], t["ns"]), "ew_name": names.get(t["ew"], t["ew"]),
                             "round": s.get("round"), "started": started,
                             "deal": s.get("deal") if started else None,
                             "levels": s.get("levels") if started else None,
                             "open_flags": s.get("open_flags", 0), "doubts": s.get("doubts", 0),
                             "clocks_over": s.get("clocks_over", 0), "penalties": s.get("penalties"),
                             "finished": bool(s.get("finished")),
                             "panel": panel_link(t["table"], cfg_panels.get(t["table"]), live.panel),
                             "deck": live.summary.get("deck"), "camera": live.summary.get("camera"),
                             "faults": core.faults.get(t["table"], 0),
                             "result": res.line if res else None, "source": res.source if res else None,
                             "result_ms": res.t_ms if res else None})
            drawn = {r["table"] for r in rows}
            others = []
            for tid in sorted((set(cfg_panels) | set(self.live)) - drawn, key=_table_order):
                live = self.live.get(tid, TableLive(tid))
                others.append({"table": tid, "online": live.online, "status_ms": live.status_ms,
                               "round": live.summary.get("round"), "deal": live.summary.get("deal"),
                               "finished": bool(live.summary.get("finished")),
                               "panel": panel_link(tid, cfg_panels.get(tid), live.panel),
                               "deck": live.summary.get("deck"), "faults": core.faults.get(tid, 0),
                               "in_config": tid in cfg_panels})
            return {"event": core.cfg["event"] if core.cfg else None, "round": rnd,
                    "rounds": (core.cfg or {}).get("event", {}).get("rounds"),
                    "bye": (draw or {}).get("bye"), "byes": byes_of(draw) if draw else [],
                    "tables": rows, "others": others,
                    "published_ms": (draw or {}).get("published_ms"), "now_ms": self.clock_ms(),
                    "refusals": [r for r in core.refusals if not r["acknowledged"]],
                    "bad_messages": [{k: m[k] for k in ("seq", "table", "topic", "reason", "t_ms")}
                                     for m in core.bad_messages[-20:]],
                    "faults": dict(core.faults),
                    "appeals": [a for a in core.appeals if not a["decision"]],
                    "draft": self._draft(),
                    "withdrawn": {t: dict(w) for t, w in core.withdrawn.items()},
                    "connected": bool(self.mqtt and self.mqtt.connected.is_set()),
                    "deck": ({k: core.deck[k] for k in ("sha256", "size", "meta", "t_ms", "by")}
                             if core.deck else None),
                    "deck_withdrawn": core.deck_withdrawn,
                    "config_note": self.config_note}

    def _draft(self) -> dict[str, Any] | None:
        """The unpublished draw, if any, with ``stale``: what changed since it was drawn (results,
        withdrawals; empty when it is current) and ``stale_text`` saying so ("中文 / English")."""
        core = self.core
        rnd = next((r for r, d in sorted(core.draws.items()) if not d["published"]), None)
        if rnd is None:
            return None
        words = core.stale_words(rnd)
        return {"round": rnd, **core.draws[rnd], "stale": core.draft_changes(rnd),
                "stale_text": f"{words[0]} / {words[1]}" if words else None}

    def standings_json(self) -> dict[str, Any]:
        """The standings with team names; computed once per change of the log (every board on
        the hall's screens polls it)."""
        with self.lock:
            cached = getattr(self, "_standings_cache", None)
            if cached is not None and cached[0] == self.core.last_seq:
                return copy.deepcopy(cached[1])
            st, out = self.core.standings_marked()
            names = {t["id"]: t["name"] for t in (self.core.cfg or {}).get("teams", [])}
            for row in out["standings"]:
                row["name"] = names.get(row["team"], row["team"])
            result = {**out, "rounds": st.rounds, "lots": st.lots,
                      "published_rounds": sorted(self.core.results_published)}
            self._standings_cache = (self.core.last_seq, result)
            return copy.deepcopy(result)


def _table_order(tid: str) -> tuple[int, int, str]:
    """Table ids as people count them (2 before 10), then the others by name (the overview's order)."""
    return (0, int(tid), tid) if tid.isdigit() and tid.isascii() else (1, 0, tid)


def _line_numbers(text: str) -> dict[tuple[Any, Any], int]:
    """``(round, table)`` → its line number in a RESULTS text that :func:`parse_results_text`
    accepted (which sorts the lines), so a refusal names the line the organiser typed."""
    out: dict[tuple[Any, Any], int] = {}
    for n, raw in enumerate(text.splitlines(), 1):
        obj = json.loads(raw) if raw.strip() else None
        if isinstance(obj, dict):
            out.setdefault((obj.get("round"), obj.get("table")), n)
    return out


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
    where = f"账号 / accounts: {users_db}"
    if n == 0:
        return (f"{where} — 还没有账号，先建裁判长 / no account yet, make the chief referee's first: "
                f"guandan-table user add NAME --role chief --db {users_db}")
    return f"{where} ({n}); 在「账号」页管理 / managed on the accounts page (/accounts/)"


def run_hub_command(args: argparse.Namespace) -> int:
    """``guandan-table hub --event EVENT.toml``: serve until Ctrl-C / SIGTERM."""
    import signal


    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    cfg = load_event(args.event)
    base = Path(args.event).resolve().parent
    data = Path(args.data) if args.data else base / (cfg["hub"].get("data") or f"hub-{cfg['event']['id']}")
    if data.exists() and not data.is_dir():
        raise ValueError(f"赛事中心数据目录是文件 / the hub's data folder {data} is a file "
                         f"([hub] data in {args.event}, or --data): give a folder")
    hub = HubService(cfg, data).start()
    host = args.host or cfg["hub"]["host"]
    port = cfg["hub"]["port"] if args.port is None else args.port
    try:
        # A restarted hub keeps its chiefs and referees logged in (web/secret_key.py says why).
        handle = serve_hub(hub, host=host, port=port, users_db=str(data / "web-users.sqlite3"),
                           secret_key=kept_secret_key(data))
    except OSError as exc:
        hub.stop()
        raise ValueError(f"无法启动网页（端口 {port} 被占用？）/ cannot serve on port {port}: {exc}") from exc
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    print(f"赛事中心 / event hub {cfg['event']['id']}: {handle.url}/hub/  (MQTT {cfg['mqtt']['host']}:"
          f"{cfg['mqtt']['port']}, log {hub.store.path})", flush=True)
    if cfg["mqtt"].get("source"):
        print(f"MQTT 凭据取自 / MQTT credential from {cfg['mqtt']['source']}", flush=True)
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
