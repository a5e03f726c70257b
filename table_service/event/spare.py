"""A failed table, handled from the hub's pages: its match moved to a spare table, and what a
replacement Pi needs (the table's MQTT credential as ``event provision`` wrote it).

Why a room of its own: both are the organiser's answer to one fault (a table's Pi or partition
screen fails mid-event), beside the service's other actions (:mod:`.hub`) and the draws' fold
(:mod:`.moves`, which the hub's state folds a move with).
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from table_service.event.core import need_role
from table_service.event.hub import HubService, assignment_payload
from table_service.event.model import EventInputError, table_order
from table_service.event.moves import MOVE_EVENT, check_move
from table_service.views.wire import SEGMENT_RE

log = logging.getLogger(__name__)

#: Who may move a match and fetch a table's credential: the chief referee (the organiser's account).
SPARE_ROLE = "chief"


def move_match(h: HubService, rnd: int, frm: str, to: str, reason: str, who: str | None,
               role: str | None, correction: dict[str, Any] | None = None) -> dict[str, Any]:
    """Move round ``rnd``'s match at table ``frm`` to the spare table ``to``: logged first
    (``match_moved``, :func:`~.moves.check_move` refuses what cannot be), then the assignment goes
    to the new table (retained, ``hub_seq`` the move's seq) and the old table's is withdrawn (an
    empty retained payload: its panel no longer offers the round, and a Pi restarted there is not
    given it again). The match goes on from the old table's last summary (the hub holds it in memory
    only: the move's data keeps what was carried), ``correction`` the chief's reading of its score
    sheet (:func:`~.moves.carried_standing`). Returns the logged event."""
    need_role(role, SPARE_ROLE, "换桌")
    with h.lock:
        core = h.core
        assert core.cfg is not None
        data = check_move(core.draws, core.results, core.cfg, rnd, frm, to, reason, core.team_names(),
                          last_summary(h, frm), correction)
        ev = h._commit(MOVE_EVENT, data, actor=who, role=role)
    if h.mqtt is not None:
        h.mqtt.publish(to, "assignment", assignment_payload(data["assignment"], ev["seq"]))
        h.mqtt.publish(frm, "assignment", b"")
    log.warning("hub: round %d's match moved from table %s to table %s by %s", rnd, frm, to, who)
    return ev


def last_summary(h: HubService, table: str) -> dict[str, Any] | None:
    """The last summary the hub took from ``table`` (None: it never reported)."""
    live = h.live.get(table)
    return dict(live.summary) if live is not None and live.summary else None


def provision_folder(cfg: dict[str, Any], event_path: str | Path | None = None) -> Path | None:
    """Where ``event provision`` wrote the event's credentials: the folder of the ``hub.toml`` the hub
    took its own from (``[mqtt] source``), else ``mqtt-<event>`` beside EVENT.toml (``event_path``);
    None when neither is known."""
    source = (cfg.get("mqtt") or {}).get("source")
    if source:
        return Path(source).parent
    if event_path is not None:
        return Path(event_path).resolve().parent / f"mqtt-{cfg['event']['id']}"
    return None


def credential_tables(folder: Path | None) -> list[str]:
    """The tables whose credential ``event provision`` wrote (``tables/<id>.toml``), in table order."""
    if folder is None or not (folder / "tables").is_dir():
        return []
    ids = [p.stem for p in (folder / "tables").glob("*.toml") if SEGMENT_RE.match(p.stem)]
    return sorted(ids, key=table_order)


def table_credential(folder: Path | None, table: str) -> str:
    """What a replacement Pi of ``table`` needs from the hub: the ``[mqtt]`` section ``event provision``
    wrote for it (host, port, event, its user and password, the CA file under TLS), with a header
    saying what it is and that it holds a secret. Only a table of :func:`credential_tables`.

    :raises EventInputError: no provision known, or no credential for that table."""
    if folder is None or not (folder / "tables").is_dir():
        raise EventInputError("找不到 event provision 写下的凭据（EVENT.toml 旁的 mqtt-<赛事>/） / the credentials "
                              "event provision wrote were not found (mqtt-<event>/ beside EVENT.toml)")
    if table not in credential_tables(folder):
        raise EventInputError(f"没有 {table[:40]} 号桌的凭据 / no credential for table {table[:40]}")
    text = (folder / "tables" / f"{table}.toml").read_text(encoding="utf-8")
    head = [f"# {table} 号桌的 [mqtt]：含该桌的 MQTT 密码，请保密，勿转发；粘贴到新 Pi 的 table.toml",
            f"# table {table}'s [mqtt]: holds the table's MQTT password — keep it secret, do not forward it;"
            " paste it into the replacement Pi's table.toml"]
    if "ca_file" in text:
        head.append("# 另需 ca.crt（同页下载），放在 table.toml 旁 / also needs ca.crt (same page), beside table.toml")
    return "\n".join(head) + "\n" + text


def ca_certificate(folder: Path | None) -> bytes:
    """The broker's CA certificate a table checks it by (``ca.crt``, provisioned with ``--tls``).

    :raises EventInputError: none (the broker was provisioned without TLS)."""
    path = None if folder is None else folder / "ca.crt"
    if path is None or not path.is_file():
        raise EventInputError("没有 ca.crt：经纪服务器未启用 TLS / no ca.crt: the broker was provisioned without TLS")
    return path.read_bytes()
