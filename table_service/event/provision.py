"""``guandan-table event provision``: the event's broker with identities and access rules.

An event's MQTT network must let only the hub and each table speak for themselves (issue 26):
an anonymous client on the venue network once forged a table's result, handed a table a forged
assignment and took the hub's session. This writes, from EVENT.toml, everything Mosquitto needs
to refuse that:

``broker/passwd``
    one user per table (``<event>-table-<id>``), one for the hub (``<event>-hub``), and read-only
    watchers for broadcast graphics (``<event>-watch``, ``<event>-watch-2`` … with ``--watchers N``:
    one per graphics machine, as a user's second connection ends its first), hashed by
    ``mosquitto_passwd -U``;
``broker/acl``
    a table writes only its own topics and reads only its own assignment, acknowledgement and
    release, and the event-wide deck and accounts; only the hub writes those (``docs/security.md``);
``broker/mosquitto.conf``
    ``allow_anonymous false``, the two files above, and on every listener
    ``use_username_as_clientid true``: a client's session is its user's, so no one takes the
    hub's (or a table's) session by choosing its client id; the ``user`` the broker runs as
    (:mod:`~table_service.event.broker_user`: ``mosquitto`` when provisioned as root, never root
    unless that account cannot read the files); a log with the ACL's refusals;
``broker/mosquitto.log``
    the broker's log, ACL refusals included (``Denied PUBLISH from <user>``: Mosquitto 2.0 logs
    them only at its ``debug`` level, so that level is on); ``guandan-table event broker`` runs the
    broker and rotates it by size (:mod:`~table_service.event.broker_log`);
``broker/data/`` (``event provision``'s persistence, :data:`PERSISTENCE_DIR`)
    Mosquitto's ``mosquitto.db``: retained messages (assignments, releases, the deck, the accounts)
    and what is queued for a client that is away, kept across a restart of the broker (it saves on
    SIGTERM and every :data:`AUTOSAVE_S` seconds, not Mosquitto's default 30 minutes); owned as the log is;
``broker/tls/`` (with ``--tls HOST``)
    the server's certificate and key for the TLS listener and the CA's certificate (``openssl``);
``ca/ca.key`` (with ``--tls``)
    the CA's private key, beside ``broker/`` and not in it: ``broker/`` is what goes to the broker's
    machine, the CA key stays with the organiser (it was in ``broker/tls/``: a re-provision moves it);
``tables/<id>.toml``, ``hub.toml``, ``watch.toml`` (``watch-2.toml`` …), ``ca.crt``
    the ``[mqtt]`` section each one pastes into its ``table.toml`` / ``EVENT.toml`` / graphics
    client.

Credentials are written with mode 0600 and never printed. Running again refuses to overwrite
(a new password for a table that is already set up would lock it out) unless ``--force``, which
also deletes the credential files of tables and watchers the event no longer has (their users
are gone from the password file: a stale file only looked valid).
"""

from __future__ import annotations

import ipaddress
import os
import re
import secrets
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from table_service.event.broker_log import BrokerConf, broker_account, refusal, unwritable
from table_service.event.broker_user import RunAs, settle_owner
from table_service.event.core import HubCore
from table_service.event.model import EventInputError
from table_service.store.durable import write_durably
from table_service.views.deck_wire import MAX_DECK_BYTES, deck_topic
from table_service.web.event_accounts import accounts_topic

#: The topics a table writes (``guandan/<event>/<table>/<name>``; docs/hub-protocol.md).
TABLE_WRITES = ("state", "events", "status", "summary", "result")
#: The topics only the hub writes, each table reading its own (``release``: a duplicate board's deals
#: both rooms have ended, which the table then logs as released; the watcher never reads it).
HUB_WRITES = ("assignment", "result_ack", "release")
#: What the hub reads (every table), and what the read-only watcher reads (public only).
HUB_READS = ("result", "status", "summary", "state", "events")
WATCH_READS = ("state", "events", "status")
#: Mosquitto's ``max_packet_size``: a client sending a larger packet is disconnected as soon as the
#: broker reads the packet's length, before the payload, so no credential can make the broker (or
#: the hub, which reads its tables' retained messages) hold hundreds of megabytes. The largest
#: message anyone may send is the hub's event deck (``guandan/<event>/deck``): an enrolment file of
#: at most ``MAX_DECK_BYTES`` (4 MiB, what the hub's upload takes) as base64 (4/3: 5,592,408 bytes)
#: in JSON with its digest and the hub's verdict, about 5.6 MB. A real enrolled deck is far less:
#: all 54 faces enrolled (``vision.enroll``, 6 px/mm) make a 640,953-byte file and an 855,064-byte
#: message. Twice the file's limit, 8 MiB, is also the limit a table applies to a deck message
#: (``read_deck_message``), and leaves 2.7 MB over the largest possible deck message for the JSON
#: around it and the MQTT header (``tests/event/test_event_network.py`` sends one through). A
#: table's own messages are tiny beside it (a summary ~400 bytes; the hub reads at most 16 KiB).
MAX_PACKET_BYTES = 2 * MAX_DECK_BYTES
#: Mosquitto's ``max_queued_bytes``: what the broker keeps, per client that is away, of the messages
#: it is owed. ``max_packet_size`` bounds one message; this bounds their sum, or one table's own
#: credential could queue 8 MiB messages for a stopped hub until the broker held gigabytes (the
#: security audit of 2026-12-06: 1.6 GB after 200). A table away is owed the most: the event's
#: deck (at most 5.6 MB as a message; a real one 0.86 MB), replaced or withdrawn while it was away,
#: and its assignment and acks (a few KB). 64 MiB keeps eleven of the largest decks. Mosquitto
#: drops the newest message over the limit, and everything that matters is also retained.
MAX_QUEUED_BYTES = 64 * 1024 * 1024


#: How often the provisioned broker saves its persistence file (seconds): what a broker killed loses.
AUTOSAVE_S = 60
#: The persistence folder ``event provision`` gives the broker, in ``broker/`` (what goes to the broker's
#: machine). Without one a restart of the broker lost every retained message and queued QoS-1 message.
PERSISTENCE_DIR = "data"


@dataclass
class Credential:
    username: str
    password: str


#: How many read-only watcher credentials ``--watchers`` may ask for.
MAX_WATCHERS = 100


@dataclass
class Provisioned:
    """What :func:`provision` wrote (paths) and for whom (usernames; passwords stay in the files)."""

    folder: Path
    event: str
    hub: Credential
    watchers: list[Credential] = field(default_factory=list)
    """The read-only watchers, one per graphics client: ``use_username_as_clientid`` makes a user's
    second connection end its first, so two machines sharing one credential throw each other off."""
    tables: dict[str, Credential] = field(default_factory=dict)
    port: int = 1883
    tls_port: int | None = None
    run_as: RunAs | None = None
    """Who the broker runs as (the config's ``user`` line) and, when it must stay root, why."""
    removed: list[str] = field(default_factory=list)
    """The stale credential files ``--force`` deleted (``tables/7.toml``, ``watch-2.toml``)."""
    moved: list[str] = field(default_factory=list)
    """What ``--force`` moved out of ``broker/`` (a CA key where older versions kept it)."""

    @property
    def watch(self) -> Credential:
        """The first watcher (``<event>-watch``, ``watch.toml``)."""
        return self.watchers[0]

    @property
    def conf(self) -> Path:
        return self.folder / "broker" / "mosquitto.conf"

    @property
    def log(self) -> Path:
        """The broker's log (ACL refusals: ``Denied PUBLISH from <user>``)."""
        return self.folder / "broker" / "mosquitto.log"

    @property
    def ca_file(self) -> Path | None:
        p = self.folder / "ca.crt"
        return p if p.exists() else None


def table_ids(cfg: dict[str, Any]) -> list[str]:
    """The event's tables: ``[[tables]]`` when listed, else the ids the draw gives its tables
    (round 1 of a fresh hub core: every round has as many)."""
    if cfg.get("tables"):
        return [t["id"] for t in cfg["tables"]]
    core = HubCore().replay([{"seq": 1, "type": "event_loaded", "t_ms": 0, "actor": None, "role": None,
                              "data": {"config": cfg}}])
    _etype, data = core.check_draw("chief")
    return [t["table"] for t in data["tables"]]


def watch_name(event: str, n: int) -> tuple[str, str]:
    """The ``n``-th watcher's username and file name (1: ``<event>-watch``, ``watch.toml``)."""
    suffix = "" if n == 1 else f"-{n}"
    return f"{event}-watch{suffix}", f"watch{suffix}.toml"


def acl_text(event: str, hub: str, watchers: Sequence[str], tables: dict[str, str]) -> str:
    """Mosquitto's ACL: ``tables`` maps table id → username. Nothing is allowed that is not listed."""
    base = f"guandan/{event}"
    lines = ["# guandan-table event provision: written from EVENT.toml; regenerate, do not edit.",
             "# A table writes only its own topics and reads only its own assignment, acknowledgement,",
             "# release, the event's deck and its accounts; only the hub writes those (docs/security.md).", "",
             f"user {hub}"]
    lines += [f"topic read {base}/+/{name}" for name in HUB_READS]
    lines += [f"topic write {base}/+/{name}" for name in HUB_WRITES]
    lines += [f"topic write {deck_topic(event)}"]  # the event's deck, one message for every table
    # The event accounts (names, roles, salted hashes): one set for every table, no table's own.
    lines += [f"topic write {accounts_topic(event)}"]
    for watch in watchers:
        lines += ["", f"user {watch}"] + [f"topic read {base}/+/{name}" for name in WATCH_READS]
    for table, user in tables.items():
        lines += ["", f"user {user}"]
        lines += [f"topic write {base}/{table}/{name}" for name in TABLE_WRITES]
        lines += [f"topic read {base}/{table}/{name}" for name in HUB_WRITES]
        lines += [f"topic read {deck_topic(event)}", f"topic read {accounts_topic(event)}"]
    return "\n".join(lines) + "\n"


#: The log types of a provisioned broker. Mosquitto 2.0 logs a publish its ACL refuses only at
#: ``debug`` ("Denied PUBLISH from ev-table-2 (d0, q1, r1, m1, 'guandan/ev/1/result', ... (93
#: bytes))"; ``mosquitto.conf(5)``, 2.0.11 as installed): without it a forged result left no trace.
#: ``debug`` also logs every packet's header (client, topic, size; never a payload or password):
#: a received publish and its acknowledgement, two more for each one the hub is sent, the keepalive
#: pings; 18 MB an hour at 50 tables, 188 MB at 500 (``benchmarks/broker_log_bench.py``), which is why
#: ``event broker`` rotates it (:mod:`~table_service.event.broker_log`). ``subscribe`` names
#: what each client asks to read (a refused read is not logged otherwise: it is simply not delivered).
LOG_TYPES = ("error", "warning", "notice", "information", "subscribe", "debug")


def conf_text(folder: Path, *, port: int, bind: str | None, tls_port: int | None, tls_dir: Path | None,
              persistence: Path | None = None, run_as: RunAs | None = None, log_file: Path | None = None) -> str:
    """A complete ``mosquitto.conf``: no anonymous clients, passwords, ACL, client id = username,
    packets of at most :data:`MAX_PACKET_BYTES`; the ``user`` of ``run_as`` with the comment saying
    why; with ``log_file``, the log (:data:`LOG_TYPES`) to that file only: a copy on stderr carried every
    packet's line again, to a terminal or the system journal, where no rotation bounds it (Mosquitto
    still prints there what it cannot log: a bad config, a log file it cannot open)."""
    # With TLS the plain listener serves this machine only (the hub beside the broker), whatever
    # --bind says: the venue's network gets the TLS one (--bind 0.0.0.0 once put both on it).
    plain_bind = "127.0.0.1" if tls_port is not None else bind
    listen = f"listener {port}" + (f" {plain_bind}" if plain_bind else "")
    lines = ["# guandan-table event provision (docs/security.md)", "per_listener_settings false",
             "allow_anonymous false", f"password_file {folder / 'passwd'}", f"acl_file {folder / 'acl'}",
             "max_queued_messages 100000", f"max_queued_bytes {MAX_QUEUED_BYTES}",
             f"max_packet_size {MAX_PACKET_BYTES}", "", listen,
             "use_username_as_clientid true"]
    if tls_port is not None and tls_dir is not None:
        lines += ["", f"listener {tls_port}" + (f" {bind}" if bind else ""), "use_username_as_clientid true",
                  f"cafile {tls_dir / 'ca.crt'}", f"certfile {tls_dir / 'server.crt'}",
                  f"keyfile {tls_dir / 'server.key'}", "tls_version tlsv1.2"]
    if persistence is not None:
        # Saved each minute (Mosquitto's default: 30): a broker killed loses a minute of what it queued.
        lines += ["", "persistence true", f"persistence_location {persistence}/", f"autosave_interval {AUTOSAVE_S}"]
    if log_file is not None:
        lines += ["", "# 日志（含 ACL 拒绝：grep 'Denied PUBLISH'） / the log, ACL refusals included "
                      "(grep 'Denied PUBLISH'): Mosquitto 2.0 logs them at debug only",
                  "# 由 guandan-table event broker 按大小轮换（mosquitto.log.1 …） / rotated by size by "
                  "guandan-table event broker (mosquitto.log.1 …)",
                  f"log_dest file {log_file}", "log_timestamp_format %Y-%m-%dT%H:%M:%S"]
        lines += [f"log_type {t}" for t in LOG_TYPES]
    if run_as is not None and (run_as.user or run_as.comment):
        lines += ["", *run_as.comment] + ([f"user {run_as.user}"] if run_as.user else [])
    return "\n".join(lines) + "\n"


def _write_secret(path: Path, text: str, *, replaces: Path | None = None) -> None:
    """``text`` at ``path`` whole or not at all (:func:`write_durably`: a kill or power cut once left a
    torn credential), mode 0600 from the first byte (``--force`` over a 0644 file too). As root, a file
    that was someone else's (``hub.toml`` given to the hub's user, as §6 says) stays theirs: the owner of
    ``replaces`` (the file a staged one will be renamed over; default ``path``) is kept."""
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        old = (replaces or path).stat()
    except FileNotFoundError:
        old = None
    write_durably(path, text.encode("utf-8"), mode=0o600)
    if old is not None and os.geteuid() == 0 and (old.st_uid, old.st_gid) != (0, 0):
        os.chown(path, old.st_uid, old.st_gid)


def _toml_str(value: str) -> str:
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def mqtt_section(event: str, cred: Credential, host: str, port: int, ca_file: str | None, *, hub: bool) -> str:
    who = "EVENT.toml" if hub else "table.toml"
    lines = [f"# [mqtt] for {who} — keep secret (mode 0600); written by guandan-table event provision", "[mqtt]",
             f"host = {_toml_str(host)}", f"port = {port}"]
    if not hub:
        lines.append(f"event = {_toml_str(event)}")
    lines += [f"username = {_toml_str(cred.username)}", f"password = {_toml_str(cred.password)}"]
    if ca_file:
        lines.append(f"ca_file = {_toml_str(ca_file)}")
    return "\n".join(lines) + "\n"


def _hash_passwords(passwd: Path) -> None:
    exe = shutil.which("mosquitto_passwd") or "/usr/bin/mosquitto_passwd"
    if not Path(exe).exists():
        raise EventInputError("找不到 mosquitto_passwd（请运行 bash scripts/install.sh） / mosquitto_passwd not found "
                              "(run bash scripts/install.sh)")
    done = subprocess.run([exe, "-U", str(passwd)], capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise EventInputError(f"mosquitto_passwd 失败：{done.stderr.strip()[:200]} / mosquitto_passwd failed: "
                              f"{done.stderr.strip()[:200]}")


def make_tls(tls_dir: Path, hosts: list[str], days: int = 400, *, ca_dir: Path | None = None) -> None:
    """A CA and a server certificate for ``hosts`` (names or IP addresses), with ``openssl``: the
    broker's files in ``tls_dir``, the CA's key in ``ca_dir`` (mode 0700; default ``tls_dir``), which
    is not copied to the broker's machine: whoever holds it can make a certificate every table trusts."""
    exe = shutil.which("openssl")
    if exe is None:
        raise EventInputError("找不到 openssl / openssl not found (apt install openssl)")
    tls_dir.mkdir(parents=True, exist_ok=True)
    ca_dir = ca_dir or tls_dir
    ca_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
    if ca_dir != tls_dir:
        os.chmod(ca_dir, 0o700)  # mkdir's mode is for a new folder
    ca_key = ca_dir / "ca.key"
    sans = []
    for h in hosts:
        try:
            ipaddress.ip_address(h)
            sans.append(f"IP:{h}")
        except ValueError:
            sans.append(f"DNS:{h}")
    ext = tls_dir / "server.ext"
    write_durably(ext, f"subjectAltName={','.join(sans)}\nbasicConstraints=CA:FALSE\nkeyUsage=digitalSignature,"
                  "keyEncipherment\nextendedKeyUsage=serverAuth\n".encode())

    def run(*args: str) -> None:
        done = subprocess.run([exe, *args], capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            raise EventInputError(f"openssl 失败：{done.stderr.strip()[:300]} / openssl failed: "
                                  f"{done.stderr.strip()[:300]}")

    run("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", str(days), "-subj", "/CN=guandan-table event CA",
        "-keyout", str(ca_key), "-out", str(tls_dir / "ca.crt"))
    os.chmod(ca_key, 0o600)
    run("req", "-newkey", "rsa:2048", "-nodes", "-subj", f"/CN={hosts[0]}", "-keyout", str(tls_dir / "server.key"),
        "-out", str(tls_dir / "server.csr"))
    run("x509", "-req", "-in", str(tls_dir / "server.csr"), "-CA", str(tls_dir / "ca.crt"), "-CAkey",
        str(ca_key), "-CAcreateserial", "-days", str(days), "-extfile", str(ext),
        "-out", str(tls_dir / "server.crt"))
    os.chmod(tls_dir / "server.key", 0o600)
    for name in ("server.csr", "server.ext", "ca.srl"):
        (tls_dir / name).unlink(missing_ok=True)


def provision(cfg: dict[str, Any], folder: str | Path, *, host: str | None = None, port: int | None = None,
              bind: str | None = None, tls_hosts: list[str] | None = None, tls_port: int = 8883,
              force: bool = False, persistence: Path | None = None, watchers: int = 1) -> Provisioned:
    """Write the broker's and every participant's files for the event ``cfg`` (validated EVENT.toml).

    :param host: the broker's address as the tables reach it (default EVENT.toml ``[mqtt] host``; with
        TLS, one of ``tls_hosts``: the first when EVENT.toml's is not one of them).
    :param port: the plain listener (default EVENT.toml ``[mqtt] port``).
    :param bind: the address Mosquitto listens on (default: every interface; with TLS the plain
        listener only on 127.0.0.1).
    :param tls_hosts: names/addresses for the TLS listener's certificate; tables then connect with TLS.
    :param watchers: read-only credentials for broadcast graphics, one per client machine (1–100).
    :raises EventInputError: an existing provision (without ``force``), a missing tool, a bad count, a
        folder that is a file, a TLS port that is the plain one."""
    if isinstance(watchers, bool) or not isinstance(watchers, int) or not 1 <= watchers <= MAX_WATCHERS:
        raise EventInputError(f"观看账号数须为 1–{MAX_WATCHERS}，收到 {watchers!r} / --watchers must be "
                              f"1-{MAX_WATCHERS}, got {watchers!r}")
    folder = Path(folder).resolve()  # mosquitto.conf names its files by this path: relative, it broke elsewhere
    # The folder, or the first of its parents that exists, must be a folder ("Not a directory" said nothing).
    found = next(p for p in (folder, *folder.parents) if p.exists())
    if not found.is_dir():
        raise EventInputError(f"输出目录 {folder} 无法建立：{found} 是文件（--out） / the output folder {folder} cannot be made: {found} is "
                              "a file, not a folder (--out)")
    broker = folder / "broker"
    if (broker / "passwd").exists() and not force:
        if interrupted(folder):
            raise EventInputError(str(interrupted_error(folder)))
        raise EventInputError(f"{folder} 已有密码文件；重新生成会锁住已配置的桌，确需请加 --force / {folder} is already "
                              "provisioned: new passwords would lock out tables already set up (use --force)")
    event = cfg["event"]["id"]
    if tls_hosts and host is not None and host not in tls_hosts:
        raise EventInputError(f"--host {host} 不在证书的名称中（--tls {' --tls '.join(tls_hosts)}），各桌无法凭它核验代理 / --host {host} is not one of the certificate's names "
                              f"(--tls {' --tls '.join(tls_hosts)}): no table could check the broker by it")
    # With TLS the tables reach the broker by a name its certificate carries: EVENT.toml's host (often
    # 127.0.0.1, the hub's own view) is kept only when it is one of them.
    host = host or (cfg["mqtt"]["host"] if not tls_hosts or cfg["mqtt"]["host"] in tls_hosts else tls_hosts[0])
    port = int(port if port is not None else cfg["mqtt"]["port"])
    if tls_hosts and tls_port == port:
        # Two `listener <port>` lines: Mosquitto refuses to start.
        raise EventInputError(f"TLS 端口 --tls-port {tls_port} 与明文端口相同（--port 或 EVENT.toml [mqtt] port），"
                              f"Mosquitto 不能在同一端口监听两次 / --tls-port {tls_port} is the plain listener's port too "
                              "(--port, or EVENT.toml [mqtt] port): Mosquitto cannot listen twice on one port")
    _check_broker_writes(_broker_writes(folder, persistence))
    creds = Provisioned(folder=folder, event=event, port=port,
                        hub=Credential(f"{event}-hub", secrets.token_urlsafe(24)),
                        watchers=[Credential(watch_name(event, n)[0], secrets.token_urlsafe(24))
                                  for n in range(1, watchers + 1)],
                        tables={t: Credential(f"{event}-table-{t}", secrets.token_urlsafe(24)) for t in table_ids(cfg)},
                        tls_port=tls_port if tls_hosts else None)
    broker.mkdir(parents=True, exist_ok=True)
    for left in _staged(folder):  # staged by a run killed before its renames: never put in place
        left.unlink(missing_ok=True)
    try:
        _write_all(folder, creds, host, port, bind, tls_hosts, persistence)
    except BaseException:
        # A failure half-way (openssl refusing a certificate) leaves no password file: the retry is
        # not refused as "already provisioned" (a kill leaves none either: it is put in place last).
        (broker / PASSWD_NEW).unlink(missing_ok=True)
        for staged in _staged(folder):
            staged.unlink(missing_ok=True)
        raise
    return creds


#: The password file while it is being written and hashed; renamed to ``passwd`` as the last step, so
#: that a ``passwd`` means a whole provision (a kill half-way made the next run refuse "already
#: provisioned" with the broker's files missing, and once left the passwords in clear text).
PASSWD_NEW = "passwd.new"
#: What a file is staged as until every file of a provision is written (``acl.new``, ``hub.toml.new`` …).
STAGED = ".new"


#: Written before a provision puts its staged files in place, deleted after the last rename.
RENAMING = "provision-renaming"


def interrupted(folder: Path) -> bool:
    """Whether a provision was killed while putting its files in place (:data:`RENAMING` is left): some
    files may then be the new provision's and the password file the old one's, whose passwords the new
    credentials do not carry. A kill before (while writing, hashing, making certificates) leaves the
    earlier provision whole, and only staged files beside it."""
    return (folder / "broker" / RENAMING).exists()


def interrupted_error(folder: Path) -> EventInputError:
    """What ``event provision`` (without ``--force``) and ``event broker`` say on :func:`interrupted`."""
    return EventInputError(
        f"{folder} 的上一次 event provision 在替换文件时被中断（留下 broker/{RENAMING}）：凭据与密码文件可能不一致。"
        "请再运行一次 event provision --force，并把新凭据发给各桌与赛事中心 / the last event provision in "
        f"{folder} was interrupted while putting its files in place (broker/{RENAMING} is left): the credentials and the password file may not "
        "match. Run event provision --force again and hand the new credentials to every table and the hub")


def _staged(folder: Path) -> list[Path]:
    """Files a provision staged (``*.new``, not yet in place) and left: a failure, or a kill."""
    found = [p for d in (folder, folder / "broker", folder / "tables") if d.is_dir()
             for p in d.glob("*" + STAGED) if p.name != PASSWD_NEW]
    return sorted(found)


def _write_all(folder: Path, creds: Provisioned, host: str, port: int, bind: str | None,
               tls_hosts: list[str] | None, persistence: Path | None) -> None:
    """Every file of :func:`provision`, so that a kill at any moment leaves a consistent set.

    Each file is first written whole beside its place (``acl.new``, ``hub.toml.new`` … and ``passwd.new``,
    hashed: :data:`STAGED`); only when all are, the renames follow at once, the password file last.
    Before, ``--force`` rewrote the ACL and every credential in place while ``mosquitto_passwd`` and
    ``openssl`` ran, the password file renamed last: a kill in between left the old passwords beside the
    new credentials, everyone locked out. The renames themselves are not one step: a kill among them
    leaves ``passwd.new``, which ``event broker`` and ``event provision`` then name (:func:`interrupted`)."""
    broker = folder / "broker"
    event = creds.event
    everyone = [creds.hub, *creds.watchers, *creds.tables.values()]
    staged: list[Path] = []

    def stage(path: Path, text: str, mode: int = 0o600) -> Path:
        tmp = path.with_name(path.name + STAGED)
        if mode == 0o600:
            _write_secret(tmp, text, replaces=path)
        else:
            write_durably(tmp, text.encode("utf-8"), mode=mode)
        staged.append(tmp)
        return tmp

    _write_secret(broker / PASSWD_NEW, "".join(f"{c.username}:{c.password}\n" for c in everyone))
    _hash_passwords(broker / PASSWD_NEW)
    acl = stage(broker / "acl", acl_text(event, creds.hub.username, [w.username for w in creds.watchers],
                                         {t: c.username for t, c in creds.tables.items()}))
    creds.moved += _move_old_ca_key(folder)
    tls_dir = None
    broker_reads = [broker / PASSWD_NEW, acl, _open_log(creds.log)]
    if tls_hosts:
        tls_dir = broker / "tls"
        make_tls(tls_dir, tls_hosts, ca_dir=folder / CA_DIR)
        shutil.copyfile(tls_dir / "ca.crt", folder / "ca.crt")
        broker_reads += [tls_dir / "ca.crt", tls_dir / "server.crt", tls_dir / "server.key"]
    if persistence is not None:
        persistence.mkdir(parents=True, exist_ok=True)
    # An earlier broker run as root left its persistence file root's (0600): the broker, now `mosquitto`,
    # would start without its retained messages and say nothing. Given to it with the rest.
    broker_reads += _broker_writes(folder, persistence).db_files
    creds.run_as = settle_owner(broker_reads, [persistence] if persistence is not None else [])
    stage(broker / "mosquitto.conf", conf_text(broker, port=port, bind=bind, tls_port=creds.tls_port,
                                               tls_dir=tls_dir, persistence=persistence,
                                               run_as=creds.run_as, log_file=creds.log), 0o644)
    use_port = creds.tls_port or port
    ca = "ca.crt" if tls_hosts else None
    stage(folder / "hub.toml", mqtt_section(event, creds.hub, host, use_port, ca, hub=True))
    for n, w in enumerate(creds.watchers, 1):
        stage(folder / watch_name(event, n)[1], mqtt_section(event, w, host, use_port, ca, hub=True))
    for t, c in creds.tables.items():
        stage(folder / "tables" / f"{t}.toml", mqtt_section(event, c, host, use_port, ca, hub=False))
    write_durably(broker / RENAMING, b"event provision: putting its files in place (docs/security.md section 6)\n")
    for tmp in staged:
        os.replace(tmp, tmp.with_name(tmp.name[: -len(STAGED)]))
    creds.removed += _remove_stale(folder, creds)
    os.replace(broker / PASSWD_NEW, broker / "passwd")
    for d in {folder, broker, folder / "tables"}:
        _fsync_dir(d)
    (broker / RENAMING).unlink()


def _fsync_dir(folder: Path) -> None:
    """The renames in ``folder`` on the disk (a power cut otherwise may undo some and not others)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


#: Beside ``broker/``, never in it: the CA's private key (``ca/ca.key``, folder 0700, key 0600).
CA_DIR = "ca"


def _move_old_ca_key(folder: Path) -> list[str]:
    """A folder provisioned before the CA key had its own place kept it in ``broker/tls/``, the folder
    that goes to the broker's machine: move it to ``ca/`` (a provision with ``--tls`` then writes
    its new CA over it; one without keeps it there, out of what is copied)."""
    old = folder / "broker" / "tls" / "ca.key"
    if not old.exists():
        return []
    ca_dir = folder / CA_DIR
    ca_dir.mkdir(mode=0o700, exist_ok=True)
    os.chmod(ca_dir, 0o700)
    os.replace(old, ca_dir / "ca.key")
    os.chmod(ca_dir / "ca.key", 0o600)
    return [f"broker/tls/ca.key → {CA_DIR}/ca.key"]


def _broker_writes(folder: Path, persistence: Path | None) -> BrokerConf:
    """Where the provisioned broker writes: its log and, with ``persistence``, its persistence file."""
    return BrokerConf(folder / "broker" / "mosquitto.log", None, persistence)


def _check_broker_writes(writes: BrokerConf) -> None:
    """Provisioning as a normal user, for whom the broker will run: refuse, before anything is written,
    a log or persistence file it could not write (an earlier broker run as root left it root's, 0600).
    The broker would run with no log — a refused publish leaving no trace — or lose its retained
    messages; before, provision itself stopped half-way on the log with a bare permission error.
    As root these files are given to the broker's account instead (:func:`settle_owner`)."""
    if os.geteuid() == 0:
        return
    bad = unwritable([p for p in (writes.log,) if p is not None] + writes.db_files,
                     [writes.persistence] if writes.persistence is not None else [])
    if bad:
        me = broker_account(writes)
        raise EventInputError(str(refusal(bad, me.pw_name if me is not None else str(os.geteuid()))))


def _open_log(log: Path) -> Path:
    """The broker's log file, made now (0600; an existing one is kept, appended to): Mosquitto opens it
    after it has become its ``user``, who may not create files in ``broker/``."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    os.fchmod(fd, 0o600)
    os.close(fd)
    return log


#: The credential files of tables and of the second and later watchers.
_WATCH_FILE = re.compile(r"watch-(\d+)\.toml")


def _remove_stale(folder: Path, creds: Provisioned) -> list[str]:
    """Delete the credential files of tables and watchers this provision did not write (a ``--force``
    for fewer of them): their users are no longer in the password file, and a file that still looks
    like a credential sends someone setting up a Pi to the wrong one."""
    gone = [p for p in sorted((folder / "tables").glob("*.toml")) if p.stem not in creds.tables]
    gone += [p for p in sorted(folder.glob("watch-*.toml"))
             if (m := _WATCH_FILE.fullmatch(p.name)) and int(m.group(1)) > len(creds.watchers)]
    for p in gone:
        p.unlink()
    return [str(p.relative_to(folder)) for p in gone]
