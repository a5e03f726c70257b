"""The event hub service: the hub's log and the organiser's actions, and what it publishes.

Every change is first an event in the hub's SQLite log (:mod:`.store`), then applied to the
in-memory :class:`~.core.HubCore`; the web pages and MQTT only ever read that state. Live table
status (online/offline, summary counts) is not logged: it is what the broker says right now, and
the broker keeps it retained. What the tables send is taken in by :class:`~.table_messages.TableMessages`;
the ``guandan-table hub`` command that serves all this is :mod:`.hub_command`.
"""

from __future__ import annotations

import copy
import json
import logging
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from table_service.event.core import HubCore, _can, need_role
from table_service.event.deck import deck_meta
from table_service.event.intake import panel_link
from table_service.event.model import (
    EventInputError,
    RoleRefused,
    parse_result,
    results_to_jsonl,
    table_order,
)
from table_service.event.moves import assignment_seq, moved_from
from table_service.event.mqtt import HubMqtt
from table_service.event.release import ReleaseBook
from table_service.event.result_import import check_results_import
from table_service.event.state import byes_of
from table_service.event.store import HubStore
from table_service.event.table_messages import TableLive, TableMessages
from table_service.event.team_import import check_teams_import
from table_service.store.durable import write_durably
from table_service.views.deck_wire import deck_message, sha256_hex, withdrawal_message
from table_service.web import users
from table_service.web.event_accounts import outgoing

log = logging.getLogger(__name__)

#: How long a table's refused, ill-formed message stays on the chief's overview (ms): it asks for no
#: action (the table's fault count stays on its card), and one refused in the morning hid the afternoon's.
BAD_MESSAGES_SHOWN_MS = 30 * 60 * 1000


def _event_part(cfg: dict[str, Any] | None) -> dict[str, Any] | None:
    """The part of EVENT.toml that is the event (not where its broker and pages run)."""
    return None if cfg is None else {k: v for k, v in cfg.items() if k not in ("mqtt", "hub")}


class HubService(TableMessages):
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
        said: list[tuple[str, str]] = []
        if self.core.cfg is None or (_event_part(self.core.loaded_cfg) != _event_part(cfg) and not self.core.draws):
            # The broker's password is deployment, not event state: it stays out of the hub's log.
            logged = {**cfg, "mqtt": {k: v for k, v in (cfg.get("mqtt") or {}).items() if k != "password"}}
            etype, data = self.core.check_reload(logged)  # a reload: the hub's own edits merged onto the file
            self._commit(etype, data, actor="EVENT.toml", role="chief")
            if data.get("kept"):
                n = len(data["kept"])
                said.append((f"EVENT.toml 已改动并重新载入，保留了赛事中心的 {n} 项修改",
                             f"EVENT.toml changed and was loaded again; {n} edit(s) made at the hub kept"))
        elif self.core.cfg["event"]["id"] != (cfg.get("event") or {}).get("id"):
            # Another event's folder: serving the logged event under this file's name would send the
            # wrong event's draws to the tables, and the banner would name the other.
            raise ValueError(f"数据文件夹 {self.data_dir} 属于赛事 {self.core.cfg['event']['id']!r}，EVENT.toml 是赛事 "
                             f"{(cfg.get('event') or {}).get('id')!r}：请用该赛事自己的文件夹 / the data folder "
                             f"{self.data_dir} holds event {self.core.cfg['event']['id']!r} (drawn already), "
                             f"EVENT.toml is event {(cfg.get('event') or {}).get('id')!r}: give each event its own folder")
        elif _event_part(self.core.loaded_cfg) != _event_part(cfg):
            said.append(("EVENT.toml 已改动，但已有编排：沿用日志中的配置",
                         "EVENT.toml changed after the first draw: the logged configuration stays in force"))
        # What the last reload did not keep of the hub's edits stays said until the next one.
        said += [(zh, en) for zh, en in self.core.load_notes]
        if said:
            self.config_note = f"{'；'.join(z for z, _ in said)} / {'; '.join(e for _, e in said)}"
            log.warning(self.config_note)
        assert self.core.cfg is not None
        self.event_id = self.core.cfg["event"]["id"]
        self.live: dict[str, TableLive] = {}
        self.lags_ms: deque[int] = deque(maxlen=100_000)
        self.duplicates = 0
        self.flooded: dict[str, int] = {}
        self._flood_said: dict[str, int] = {}
        self.release_book = ReleaseBook()
        self.releases_sent: dict[str, dict[str, Any]] = {}
        self.status_seq = 0
        #: The hub's users database, whose event accounts go to every table; set by the hub's web
        #: app (:func:`~table_service.event.web.create_hub_app`), which holds the accounts page.
        self.accounts_db: str | None = None
        #: Where ``event provision`` wrote the tables' credentials (a replacement Pi's, on the organiser
        #: page: :mod:`.spare`); set by whoever knows EVENT.toml's place (``guandan-table hub``), else None.
        self.provision_dir: Path | None = None
        self._accounts_lock = threading.Lock()
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
        if ev["type"] == "result_recorded" and self.note_results([ev]):
            self.publish_releases()  # a room's result entered at the hub: it is done with that round
        elif ev["type"] == "round_published":
            for table, a in ev["data"]["assignments"].items():
                self.mqtt.publish(table, "assignment", assignment_payload(a, ev["seq"]))
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
            draw = self.core.draws[rnd] if rnd else {}
            assignments = dict(draw.get("assignments") or {})
            seqs = {t: assignment_seq(draw, t) for t in assignments}  # a moved match's: the move's seq
        if deck is not None:
            self._publish_deck(deck)
        elif withdrawn is not None:
            self.mqtt.publish_deck(withdrawal_message(withdrawn))
        for table, a in assignments.items():
            assert self.mqtt is not None
            # Byte for byte the message :meth:`_after` sent at the publish, ``hub_seq`` included: a
            # restart must not change the retained assignment the tables and the audit read.
            self.mqtt.publish(table, "assignment", assignment_payload(a, seqs[table]))
        if rnd:
            self._clear_idle_assignments(assignments)
        self.publish_releases(again=True)  # a duplicate board's deals both rooms have ended
        self.publish_accounts()  # the event accounts (a change made while the hub was away included)

    def _clear_idle_assignments(self, assignments: dict[str, Any]) -> None:
        """Clear the retained assignment of every table an earlier round used and this one does not
        (an empty retained payload: docs/hub-protocol.md). Why: after a withdrawal a round needs fewer
        tables, and the table left out kept its old round's assignment, retained: its panel showed
        that round as still to play, and a Pi restarted there was offered it again."""
        assert self.mqtt is not None
        with self.lock:
            used = {t for d in self.core.draws.values() if d["published"] for t in d["assignments"]}
            used |= {m["from"] for d in self.core.draws.values() for m in d.get("moves", ())}  # a match moved off it
        for table in sorted(used - set(assignments)):
            self.mqtt.publish(table, "assignment", b"")

    # ---------------------------------------------------------------- the event accounts

    def publish_accounts(self) -> int | None:
        """Send the event accounts (赛事账号) to every table: one retained message on
        ``guandan/<event>/accounts`` with the set as the hub's users database holds it now, numbered
        one more when it changed (docs/hub-protocol.md). Called after every change on the accounts
        page and on every (re)connect. Returns the version sent, or None (no broker, no database,
        or a database that cannot be read: logged; the page's change itself stands)."""
        if self.mqtt is None or self.accounts_db is None:
            return None
        with self._accounts_lock:  # one number per set, whichever thread asks
            try:
                conn = users.connect(self.accounts_db)
                try:
                    got, changed = outgoing(conn, self.event_id)
                finally:
                    conn.close()
            except (users.UserError, sqlite3.Error, OSError) as exc:
                log.error("hub: 赛事账号未能发出 / the event accounts were not sent: %s", exc)
                return None
            self.mqtt.publish_accounts(got.payload())
        if changed:
            log.info("hub: event accounts version %s sent (%d account(s))", got.version, len(got.accounts))
        return got.version

    # ---------------------------------------------------------------- the event's deck

    def publish_deck(self, data: bytes, actor: str, role: str) -> dict[str, Any]:
        """The organiser's enrolment file (``guandan-table vision enroll``, or a table's panel),
        checked, kept in the hub's folder and handed to every table (docs/hub-protocol.md).

        :raises EventInputError: not the chief referee, or not an enrolment file this version reads.
        """
        need_role(role, "chief", "发布比赛用牌")  # before reading the file: a referee's upload is not parsed
        meta = deck_meta(data)
        sha = sha256_hex(data)
        name = f"deck-{sha[:16]}.npz"
        with self.lock:
            etype, ev_data = self.core.check_deck(sha, len(data), name, meta, role)  # the role: the core's rule
            # On disk, synced, before the log names it: a replay never names a missing file.
            write_durably(self.data_dir / name, data)
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
            log.error("赛事中心：比赛用牌文件 %s 无法读取（%s），未发给各桌 / hub: the event's deck file %s cannot be "
                      "read (%s): not handed to the tables", deck["file"], exc, deck["file"], exc)
            return
        self.mqtt.publish_deck(deck_message(data, deck.get("meta") or {}))

    # ---------------------------------------------------------------- organiser actions

    def draw_next(self, actor: str, role: str) -> dict[str, Any]:
        with self.lock:
            etype, data = self.core.check_draw(role)
            return self._commit(etype, data, actor=actor, role=role)

    def edit_team(self, team: str, name: str, players: list[str], actor: str, role: str, *,
                  seen: int | None = None) -> dict[str, Any]:
        """``seen``: the log's seq the caller's page showed (refused when the team was edited since)."""
        with self.lock:
            etype, data = self.core.check_team_edit(team, name, players, role, seen)
            return self._commit(etype, data, actor=actor, role=role)

    def add_team(self, team: str, name: str, players: list[str], actor: str, role: str) -> dict[str, Any]:
        """A late entry: a team added at the hub, drawn from round 1 (refused once a round is published).

        :raises EventInputError: a referee's role too low, the id taken or ill-formed, a bad name or
            players, too few tables listed, or a round already published.
        """
        with self.lock:
            etype, data = self.core.check_add_team(team, name, players, role)
            return self._commit(etype, data, actor=actor, role=role)

    def import_teams(self, text: str, actor: str, role: str, *, preview: bool = False) -> list[dict[str, Any]]:
        """The entry list pasted or uploaded on the organiser page (a table with a header row:
        :mod:`.team_import`), before round 1 is published: every row checked, then, unless this is
        the ``preview``, one ``team_added`` a team, logged in one store transaction and only then
        applied — all or nothing, as the results import. Returns the teams (``line``, ``team``,
        ``name``, ``players``).

        :raises LinesRefused: every bad row, each named (nothing logged).
        :raises EventInputError: not the chief referee, a round published, nothing to import.
        """
        with self.lock:
            teams = check_teams_import(self.core, text, role)
            if preview:
                return teams
            now = self.clock_ms()
            with self.store.transaction():
                logged = [self.store.append("team_added", {k: t[k] for k in ("team", "name", "players")},
                                            t_ms=now, actor=actor, role=role) for t in teams]
            for ev in logged:
                self.core.apply(ev)
            return teams

    def edit_event(self, name: str, ruleset: str, fmt: dict[str, Any], actor: str, role: str, *,
                   seen: int | None = None, rounds: int | None = None, draw: str | None = None,
                   match_points: str | None = None) -> dict[str, Any]:
        """``seen``: as for :meth:`edit_team`, for the event's settings. ``rounds``, ``draw`` and
        ``match_points``: None leaves each as it is (:func:`~.settings.check_settings`)."""
        with self.lock:
            etype, data = self.core.check_event_edit(name, ruleset, fmt, role, seen, rounds=rounds, draw=draw,
                                                     match_points=match_points)
            return self._commit(etype, data, actor=actor, role=role)

    def publish_draw(self, rnd: int, actor: str, role: str, *, draft: int | None = None) -> dict[str, Any]:
        """Publish round ``rnd``'s draft and send each table its assignment; ``draft``: the seq of the draw
        the caller checked (refused when the round has been drawn again since)."""
        with self.lock:
            etype, data = self.core.check_publish(rnd, role, draft=draft)
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
            raise RoleRefused("录入成绩需要裁判权限 / entering a result requires role referee")
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
            raise RoleRefused("须裁判长处理 / only the chief referee clears a refused result")
        with self.lock:
            if not any(r["seq"] == seq and not r["acknowledged"] for r in self.core.refusals):
                raise EventInputError(f"没有待处理的拒收 #{seq} / no open refusal #{seq}")
            return self._commit("refusal_acknowledged", {"seq": seq}, actor=actor, role=role)

    def import_results(self, text: str, actor: str, role: str) -> tuple[int, int]:
        """RESULTS lines or a results table (CSV, tabs) entered in bulk: ``(imported, skipped)``;
        byes are the draw's and are passed over, and a line identical to a recorded result is
        skipped (:func:`~.result_import.check_results_import`).

        All or nothing: every line is checked before the first is logged (bad ones refuse the
        import, each named by its line: :class:`~.bulk_text.LinesRefused`), then all are logged in
        one store transaction and only then applied. A hub killed half-way has logged none of them,
        so the same file imports again.
        """
        if not _can(role, "referee"):
            raise RoleRefused("导入成绩需要裁判权限 / importing results requires role referee")
        if not text.strip():
            # An empty box answered "0 results imported": a paste that did not take looked done.
            raise EventInputError("没有可导入的成绩行 / nothing to import: paste the RESULTS lines")
        with self.lock:
            lines = check_results_import(self.core, text)
            now = self.clock_ms()
            logged: list[dict[str, Any]] = []
            with self.store.transaction():
                for line in lines.lines:
                    # the id hand entry gives a result: "hand-" and the seq it is logged at
                    rid = f"hand-{self.core.last_seq + len(logged) + 1}"
                    logged.append(self.store.append("result_recorded", {
                        "result": line, "source": "hand", "result_id": rid, "received_ms": now},
                        t_ms=now, actor=actor, role=role))
            for ev in logged:
                self.core.apply(ev)
            self.note_results(logged)
        if logged:
            self.publish_releases()  # as for one result entered at the hub (:meth:`_after`)
        return len(lines.lines), lines.skipped

    def export_results(self) -> str:
        with self.lock:
            return results_to_jsonl(self.core.result_objects())

    # ---------------------------------------------------------------- views

    def overview(self) -> dict[str, Any]:
        """The chief referee's overview: one entry per table of the current round (``tables``), then
        every other table the hub knows — EVENT.toml's ``[[tables]]`` and any that spoke to the
        broker — that is not in it (``others``), so tables can be watched coming online before the
        first draw is published. ``started``: the table's summary is of this round (before that its
        levels are the panel's defaults, not play); ``connected``: the Pi is connected now
        (:attr:`TableLive.connected`, the one liveness rule: the page says 未连接 / not connected
        otherwise, never playing); ``published_ms`` and ``now_ms`` (the hub's clock) tell how long
        ago the round went out."""
        with self.lock:
            core = self.core
            rnd = core.current_round()
            draw = core.draws.get(rnd) if rnd else None
            cfg_panels = {t["id"]: t.get("panel") for t in (core.cfg or {}).get("tables", [])}
            names = core.team_names()
            moved = moved_from(draw or {})
            rows = []
            for t in (draw or {}).get("tables", []):
                live = self.live.get(t["table"], TableLive(t["table"]))
                res = core.results.get((rnd, t["table"]))
                started = bool(rnd) and live.summary.get("round") == rnd
                s = live.summary if started or live.summary.get("round") is None else {}
                rows.append({"table": t["table"], "ns": t["ns"], "ew": t["ew"], "online": live.online,
                             "connected": live.connected,
                             "ns_name": names.get(t["ns"], t["ns"]), "ew_name": names.get(t["ew"], t["ew"]),
                             "round": s.get("round"), "started": started,
                             "deal": s.get("deal") if started else None,
                             "levels": s.get("levels") if started else None,
                             "open_flags": s.get("open_flags", 0), "doubts": s.get("doubts", 0),
                             "clocks_over": s.get("clocks_over", 0), "penalties": s.get("penalties"),
                             "finished": bool(s.get("finished")),
                             "panel": panel_link(t["table"], cfg_panels.get(t["table"]), live.panel),
                             "deck": live.summary.get("deck"), "camera": live.summary.get("camera"),
                             "faults": core.faults.get(t["table"], 0) + self.flooded.get(t["table"], 0),
                             "result": res.line if res else None, "source": res.source if res else None,
                             "result_ms": res.t_ms if res else None, "moved_from": moved.get(t["table"])})
            drawn = {r["table"] for r in rows}
            others = []
            for tid in sorted((set(cfg_panels) | set(self.live)) - drawn, key=table_order):
                live = self.live.get(tid, TableLive(tid))
                others.append({"table": tid, "online": live.online, "connected": live.connected,
                               "status_ms": live.status_ms,
                               "round": live.summary.get("round"), "deal": live.summary.get("deal"),
                               "finished": bool(live.summary.get("finished")),
                               "panel": panel_link(tid, cfg_panels.get(tid), live.panel),
                               "deck": live.summary.get("deck"), "faults": core.faults.get(tid, 0) + self.flooded.get(tid, 0),
                               "in_config": tid in cfg_panels})
            now_ms = self.clock_ms()
            return {"event": core.cfg["event"] if core.cfg else None, "round": rnd,
                    "rounds": (core.cfg or {}).get("event", {}).get("rounds"),
                    "bye": (draw or {}).get("bye"), "byes": byes_of(draw) if draw else [],
                    "tables": rows, "others": others,
                    "published_ms": (draw or {}).get("published_ms"), "now_ms": now_ms,
                    "refusals": [r for r in core.refusals if not r["acknowledged"]],
                    # Nothing to act on (the table's fault count stays on its card): the last half hour's.
                    "bad_messages": [{k: m[k] for k in ("seq", "table", "topic", "reason", "t_ms")}
                                     for m in core.bad_messages[-20:] if m["t_ms"] >= now_ms - BAD_MESSAGES_SHOWN_MS],
                    # Logged faults plus those a flooding table had counted, not logged (:meth:`HubState.flooding`).
                    "faults": {t: core.faults.get(t, 0) + self.flooded.get(t, 0) for t in {*core.faults, *self.flooded}},
                    "appeals": [{**a, "team_name": names.get(a["team"], a["team"])}
                                for a in core.appeals if not a["decision"]],
                    "draft": self._draft(),
                    "withdrawn": {t: dict(w) for t, w in core.withdrawn.items()},
                    "connected": bool(self.mqtt and self.mqtt.connected.is_set()),
                    "deck": ({k: core.deck[k] for k in ("sha256", "size", "meta", "t_ms", "by")}
                             if core.deck else None),
                    "deck_withdrawn": core.deck_withdrawn,
                    "last_seq": core.last_seq,
                    "config_note": self.config_note}

    def board_version(self) -> tuple[int, int]:
        """What the public board is made of, as a version: the log's last event and the tables'
        status messages taken in (a summary changes nothing on it). A board kept under one version
        is the board of that version, but for the clock (:meth:`HubState.next_public_ms`)."""
        with self.lock:
            return (self.core.last_seq, self.status_seq)

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

    def standings_json(self, *, public: bool = False) -> dict[str, Any]:
        """The standings with team names; computed once per change of the log (every board on
        the hall's screens polls it). ``public``: as the public may see them now (the board, the
        overlay): up to :meth:`HubState.public_round`, never ahead of a table's delayed broadcast."""
        with self.lock:
            upto = self.core.public_round(self.clock_ms()) if public else self.core.last_complete_round()
            key = (self.core.last_seq, upto)
            # Two views can differ for a minute (the board's holds a round the organiser's has): one
            # entry each, or every poll of the hall's screens would recompute after each organiser page.
            cache: dict[tuple[int, int], dict[str, Any]] = self.__dict__.setdefault("_standings_cache", {})
            if key in cache:
                return copy.deepcopy(cache[key])
            st, out = self.core.standings_marked(upto)
            names = self.core.team_names()
            for row in out["standings"]:
                row["name"] = names.get(row["team"], row["team"])
            result = {**out, "rounds": st.rounds, "lots": st.lots,
                      "published_rounds": sorted(self.core.results_published)}
            if len(cache) >= 4:
                cache.clear()
            cache[key] = result
            return copy.deepcopy(result)


def assignment_payload(assignment: dict[str, Any], hub_seq: int | None) -> bytes:
    """A table's ``assignment`` message: the published draw's assignment and ``hub_seq``, the seq
    of the ``round_published`` event that made it (docs/hub-protocol.md). One function for the
    publish and every re-publish, so the retained message never differs between them: keys sorted,
    because the log gives a restarted hub the assignment back in its own key order; ``None`` (no
    seq known) leaves ``hub_seq`` out. Otherwise :func:`~.mqtt.json_payload`'s form."""
    msg = assignment if hub_seq is None else {**assignment, "hub_seq": hub_seq}
    return json.dumps(msg, ensure_ascii=False, separators=(",", ":"), sort_keys=True).encode("utf-8")
