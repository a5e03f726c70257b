"""The event broker's log kept to a bounded size, and the files the broker writes kept writable by it.

The provisioned broker logs at Mosquitto's ``debug`` level: in Mosquitto 2.0 (2.0.11 as installed)
``Denied PUBLISH from <user> …`` is logged at ``debug`` and at no other type (``log_type all`` is the
only other setting that shows it, and it includes ``debug``), and ``debug`` also writes about two
lines for every packet. Measured with the provisioned configuration (``benchmarks/broker_log_bench.py``,
``docs/performance.md``): 18 MB an hour at 50 tables, 188 MB an hour at 500. Nothing rotated it. So
:class:`~table_service.event.broker.EventBroker` (``guandan-table event broker``) runs Mosquitto as its
child and, when ``mosquitto.log`` passes :data:`LOG_MAX_BYTES`, renames it ``mosquitto.log.1`` (…
``.N``, the oldest dropped), makes a new empty log the broker may write, and sends ``SIGHUP``, on which
Mosquitto closes its log and opens it again (``mosquitto.conf(5)``, ``log_dest``). What the broker
writes between the rename and the signal goes on into ``.1``: nothing is lost.

A broker that once ran as root (before provision wrote ``user mosquitto``, or started by hand) left its
log, and with persistence its ``mosquitto.db``, owned by root (0600). Mosquitto now running as
``mosquitto`` then cannot open the log — it says so once on stderr and runs on with no log, so a
forged result leaves no trace — and silently starts without its retained messages.
:func:`settle_written` gives those files back to the broker's user when run as root, and otherwise
refuses, saying which file and what to do, in both languages.
"""

from __future__ import annotations

import os
import pwd
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: ``mosquitto.log`` is rotated once it holds this much (``--log-max-mb``). With :data:`LOG_KEEP`
#: older files the broker's logs hold at most 500 MiB: at 500 tables (188 MB an hour) the last 2.8
#: hours, at 50 tables (18 MB an hour) the last 28.
LOG_MAX_BYTES = 100 * 1024 * 1024
#: How many rotated logs are kept (``mosquitto.log.1`` newest … ``.4`` oldest; ``--log-keep``).
LOG_KEEP = 4
#: How often the log's size is looked at. The log may pass the limit by what the broker writes in
#: this time: about 50 kB a second at 500 tables.
CHECK_S = 1.0
#: Mosquitto's persistence file when ``persistence_file`` does not name another.
DB_FILE = "mosquitto.db"
#: The account Mosquitto 2 started as root becomes when its config names none.
DEFAULT_USER = "mosquitto"


class BrokerFilesError(ValueError):
    """A file the broker writes that it could not write, and this process cannot give it (not root)."""


@dataclass(frozen=True)
class BrokerConf:
    """What of a ``mosquitto.conf`` says where the broker writes and as whom."""

    log: Path | None
    """``log_dest file <path>``: the log that is rotated (None: no log file, nothing to rotate)."""
    user: str | None
    """``user``: who Mosquitto becomes when started as root (None: its default, ``mosquitto``)."""
    persistence: Path | None
    """``persistence_location`` when ``persistence true`` (None: no persistence, or in the working folder)."""
    persistence_file: str = DB_FILE

    @property
    def db_files(self) -> list[Path]:
        """The persistence file and the one Mosquitto writes before renaming it over, where they exist."""
        if self.persistence is None:
            return []
        db = self.persistence / self.persistence_file
        return [p for p in (db, db.with_name(db.name + ".new")) if p.exists()]


def read_conf(conf: Path) -> BrokerConf:
    """The lines of ``conf`` that say where the broker writes and as whom (``key value``, ``#`` comments)."""
    log = user = location = None
    persistence, db_file = False, DB_FILE
    for raw in conf.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(" ")
        value = value.strip()
        if key == "log_dest" and value.startswith("file "):
            log = Path(value[5:].strip())
        elif key == "user":
            user = value
        elif key == "persistence":
            persistence = value == "true"
        elif key == "persistence_location":
            location = Path(value)
        elif key == "persistence_file":
            db_file = value
    return BrokerConf(log, user, location if persistence else None, db_file)


def rotated(log: Path, n: int) -> Path:
    """The ``n``-th rotated log (``mosquitto.log.1`` is the newest)."""
    return log.with_name(f"{log.name}.{n}")


def rotated_logs(log: Path) -> list[Path]:
    """Every ``mosquitto.log.<n>`` beside ``log``, newest first (those :func:`rotate_log` keeps, and any an
    earlier, larger ``--log-keep`` left)."""
    pattern = re.compile(re.escape(log.name) + r"\.(\d+)")
    found = [(int(m.group(1)), p) for p in log.parent.glob(log.name + ".*") if (m := pattern.fullmatch(p.name))]
    return [p for _n, p in sorted(found)]


def new_log(log: Path, owner: tuple[int, int] | None) -> None:
    """An empty log file (0600) given to ``owner`` (uid, gid) when this process is root: Mosquitto opens
    its log after it has become its ``user``, who may not create files in ``broker/`` (root's)."""
    fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        os.fchmod(fd, 0o600)
        if owner is not None and os.geteuid() == 0:
            os.fchown(fd, *owner)
    finally:
        os.close(fd)


def rotate_log(log: Path, keep: int, owner: tuple[int, int] | None) -> None:
    """``log`` → ``log.1`` → … → ``log.<keep>`` (the oldest, and any numbered past ``keep``, deleted), then a
    new empty ``log`` for ``owner``. The caller signals the broker (``SIGHUP``) to reopen it; until then
    it writes on into ``log.1``."""
    for old in rotated_logs(log):
        if int(old.name.rsplit(".", 1)[1]) >= keep:
            old.unlink(missing_ok=True)
    for n in range(keep - 1, 0, -1):
        if rotated(log, n).exists():
            os.replace(rotated(log, n), rotated(log, n + 1))
    if log.exists():
        os.replace(log, rotated(log, 1))
    new_log(log, owner)


def broker_account(conf: BrokerConf) -> pwd.struct_passwd | None:
    """The account the broker runs as when this process starts it: its ``user`` when root (None when
    that is root itself, or no such account: Mosquitto then refuses to start and says why); this
    process's own otherwise."""
    if os.geteuid() != 0:
        try:
            return pwd.getpwuid(os.geteuid())
        except KeyError:
            return None
    name = conf.user or DEFAULT_USER
    if name == "root":
        return None
    try:
        return pwd.getpwnam(name)
    except KeyError:
        return None


def _owner_name(path: Path) -> str:
    uid = path.stat().st_uid
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def unwritable(files: Sequence[Path], folders: Sequence[Path] = ()) -> list[Path]:
    """Those of ``files`` (existing ones: read and written) and ``folders`` (written in) this process may
    not use, as the kernel answers (``os.access``: mode bits, groups, ACLs)."""
    bad = [f for f in files if f.exists() and not _may(f, os.R_OK | os.W_OK)]
    return bad + [d for d in folders if d.exists() and not _may(d, os.W_OK | os.X_OK)]


def _may(path: Path, mode: int) -> bool:
    """``os.access`` for this process's effective user (who the broker started by it will be), not its real one."""
    return os.access(path, mode, effective_ids=os.access in os.supports_effective_ids)


def refusal(paths: Sequence[Path], me: str) -> BrokerFilesError:
    """Why the broker cannot start here, and what to do (Chinese first)."""
    names = ", ".join(f"{p}（{_owner_name(p)}）" for p in paths)
    names_en = ", ".join(f"{p} (owned by {_owner_name(p)})" for p in paths)
    files = " ".join(str(p) for p in paths)
    return BrokerFilesError(
        f"代理以 {me} 运行，写不了 {names}：多半是之前以 root 运行的代理留下的。请 sudo chown {me} {files}，"
        f"或以 root 运行本命令（会把它们交给代理的账号） / the broker runs as {me} and cannot write {names_en}: most "
        f"likely left by an earlier broker that ran as root. Run sudo chown {me} {files}, or run this command as "
        "root (it gives them to the broker's account)")


def settle_written(conf: BrokerConf) -> list[Path]:
    """Make the files the broker writes — its log, its persistence file and folder — usable by the account
    it runs as. As root: each one another account owns is given to it (returned, to be said). Not root:
    :class:`BrokerFilesError` naming each one this process, which the broker will run as, cannot use.
    A missing log is made now, for the same reason as :func:`new_log`."""
    files = ([conf.log] if conf.log is not None else []) + conf.db_files
    folders = [conf.persistence] if conf.persistence is not None else []
    if os.geteuid() != 0:
        bad = unwritable(files, folders)
        if conf.log is not None and not conf.log.exists() and not _may(conf.log.parent, os.W_OK | os.X_OK):
            bad.append(conf.log.parent)
        if bad:
            me = broker_account(conf)
            raise refusal(bad, me.pw_name if me is not None else str(os.geteuid()))
        if conf.log is not None:
            new_log(conf.log, None)
        return []
    account = broker_account(conf)
    if account is None:  # stays root, or an account that does not exist (Mosquitto says so itself)
        return []
    owner = (account.pw_uid, account.pw_gid)
    if conf.log is not None and not conf.log.exists():
        new_log(conf.log, owner)
    given = []
    for p in (*files, *folders):
        if p.exists() and p.stat().st_uid != account.pw_uid:
            os.chown(p, *owner)
            given.append(p)
    return given
