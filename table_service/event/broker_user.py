"""Who the provisioned Mosquitto runs as, and handing it the files it reads (security audit, finding 1).

Mosquitto 2 started as root changes to its ``user`` (default ``mosquitto``) *before* it opens the
password file, the ACL, the TLS key and certificates, its log file and its persistence folder
(``mosquitto.conf(5)``, ``user``; checked against 2.0.11). Provision used to write ``user root``
when it ran as root, so the broker never dropped root; and files a normal user provisioned (mode
0600) could not be read by a broker started as root, which became ``mosquitto``. Here:

* provisioned as root: the broker runs as ``mosquitto`` and those files are given to it (owner and
  group), but only when that account exists and can enter every folder on the way to them; else
  it stays root (as before) and :attr:`RunAs.note` says why and what to do;
* provisioned as a normal user: ``user <that user>``. Run as that user the line changes nothing;
  started as root, Mosquitto becomes the files' owner instead of ``mosquitto``.
"""

from __future__ import annotations

import os
import pwd
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

#: The unprivileged account Mosquitto's packages make and Mosquitto changes to by default.
BROKER_USER = "mosquitto"


@dataclass
class RunAs:
    """The ``user`` line of ``mosquitto.conf`` (None: none), the comment above it, and a line for
    the command's output when the broker has to stay root."""

    user: str | None
    comment: list[str] = field(default_factory=list)
    note: str | None = None


def _as_root(reason_zh: str, reason_en: str, fix_zh: str, fix_en: str) -> RunAs:
    """The fallback: the broker stays root (what provision did before), said in the config and the output."""
    return RunAs("root", [f"# 以 root 运行：{reason_zh}；{fix_zh}。", f"# Runs as root: {reason_en}; {fix_en}."],
                 f"注意：{reason_zh}，代理配置为以 root 运行；{fix_zh} / note: {reason_en}, so the broker is set to "
                 f"run as root; {fix_en}")


def first_closed(uid: int, gid: int, folders: Sequence[Path]) -> Path | None:
    """The first of ``folders`` and their parents (from ``/`` down) that ``uid`` may not enter, else
    None. Asked of the kernel, as that user (``[ -x ]`` in a child process): mode bits, groups and
    POSIX ACLs as Mosquitto will meet them. Needs root (the child changes its user)."""
    chain: list[Path] = []
    for folder in folders:
        for p in (*reversed(folder.parents), folder):
            if p not in chain:
                chain.append(p)
    name = pwd.getpwuid(uid).pw_name
    done = subprocess.run(["/bin/sh", "-c", 'for d do [ -x "$d" ] || { printf %s "$d"; exit 1; }; done', "sh",
                           *map(str, chain)], user=uid, group=gid, extra_groups=os.getgrouplist(name, gid),
                          capture_output=True, text=True, timeout=60)
    if done.returncode == 0:
        return None
    return Path(done.stdout) if done.stdout else chain[0]


def settle_owner(files: Sequence[Path], folders_written: Sequence[Path]) -> RunAs:
    """Decide who the broker runs as and, provisioning as root, give it ``files`` (read) and
    ``folders_written`` (its persistence folder: written)."""
    if os.geteuid() != 0:
        try:
            me = pwd.getpwuid(os.geteuid()).pw_name
        except KeyError:  # a uid without a name (a container): no line can name it
            return RunAs(None, ["# provision 以无名账号运行：请以同一账号启动 Mosquitto（不要以 root）。",
                                f"# provision ran as uid {os.geteuid()}, which has no name: start Mosquitto as that "
                                "uid, not as root (root would become `mosquitto`, which cannot read these files)."])
        return RunAs(me, [f"# provision 以 {me} 运行，下列文件属于 {me}（0600）：请以 {me} 启动 Mosquitto；"
                          f"以 root 启动时它换成 {me}（本行）。",
                          f"# provision ran as {me}: the files below are {me}'s (mode 0600). Start Mosquitto as {me};",
                          f"# started as root it becomes {me} (this line; without it Mosquitto 2 becomes `mosquitto`,",
                          f"# which cannot read them). Where no user {me} exists, Mosquitto started as root refuses to",
                          "# start: provision on the broker's machine instead."])
    try:
        account = pwd.getpwnam(BROKER_USER)
    except KeyError:
        return _as_root(f"本机没有 {BROKER_USER} 账号", f"this machine has no `{BROKER_USER}` account",
                        "请安装 Mosquitto（apt install mosquitto 会建立该账号）后加 --force 重新生成",
                        "install Mosquitto (apt install mosquitto makes the account), then provision again with --force")
    uid, gid = account.pw_uid, account.pw_gid
    closed = first_closed(uid, gid, sorted({f.parent for f in files} | set(folders_written)))
    if closed is not None:
        return _as_root(f"{BROKER_USER} 账号进不了 {closed}，读不到代理的文件",
                        f"the `{BROKER_USER}` account cannot enter {closed}, so it could not read the broker's files",
                        f"请加 --force 重新生成到它进得去的目录（如 --out /srv/guandan-<赛事>），或放行：setfacl -m "
                        f"u:{BROKER_USER}:x {closed}",
                        f"provision again with --force into a folder it can reach (e.g. --out /srv/guandan-<event>), "
                        f"or let it through: setfacl -m u:{BROKER_USER}:x {closed}")
    try:
        for p in (*files, *folders_written):
            os.chown(p, uid, gid)
    except OSError as exc:
        return _as_root(f"无法把代理的文件交给 {BROKER_USER} 账号（{exc}）",
                        f"the broker's files could not be given to `{BROKER_USER}` ({exc})",
                        "请在本地磁盘上重新生成（--force）", "provision again on a local disk (--force)")
    return RunAs(BROKER_USER, [f"# 以 {BROKER_USER} 账号运行：以 root 启动时 Mosquitto 先换成此账号再读下列文件（已交给它，0600）。",
                               f"# Runs as {BROKER_USER}: started as root, Mosquitto becomes this user before it "
                               "reads any file below;", f"# provision (as root) gave them to it (owner {BROKER_USER}, "
                               "mode 0600)."])
