"""``guandan-table user add/remove/passwd/list``: manage the referee panel's accounts.

In the command line's top layer, not in ``web``: ``--config table.toml`` reads the whole file with
the one schema ``run`` reads it with (:func:`table_service.table.config.load_service_config`), which
the web layer may not import. Only ``[web]`` was read before, so a table.toml that ``run`` refuses
(a typo in ``[service]``) was taken, the account added, and the organiser told nothing.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from table_service.store.event_log import is_utf8_text
from table_service.table.config import load_service_config
from table_service.web import config, event_accounts, users


def _db_path(args: argparse.Namespace) -> str:
    """``--db``, else USERS_DB from the web settings (file, environment, defaults); ``--config
    table.toml`` gives the database the table's service opens (``[web] users_db``, else
    ``<data_dir>/web-users.sqlite3``: :attr:`ServiceConfig.users_db_path`), so the chief added here
    can log in to its panel, once the whole file has passed run's checks of its settings.

    :raises ValueError: an empty or doubled option, or the file's problems."""
    # "" (an unset shell variable) fell through to the default: the account went into data/ of
    # whatever folder the command ran in, and the organiser was told "added".
    for option, value in (("--db", args.db), ("--config", args.config)):
        if value is not None and not value.strip():
            raise ValueError(f"{option} 为空 / {option} is empty: give a file path, or leave the option out")
    if args.db and args.config is not None:
        # Both given: --db won and the settings file was never read, so a typo in it (or a file
        # that does not exist) passed unsaid, exit 0.
        raise ValueError("--db 与 --config 只能给一个（--config 的 USERS_DB 即数据库） / give --db or --config, "
                         "not both (--config names the database by its USERS_DB)")
    if args.db:
        return args.db
    if args.config is not None and config.is_table_toml(args.config):
        # The whole file, by run's schema. Not its devices or the files beside it (a screen unplugged, a
        # CA file on the Pi): accounts are added before the table is wired, or on the laptop the file was
        # written on; ``config check`` is the check of those.
        return str(load_service_config(args.config, check_devices=False, check_files=False).users_db_path)
    settings = config.build(config_file=args.config)
    if args.config is not None and "USERS_DB" not in config.load_file(args.config) \
            and "USERS_DB" not in config.from_environment():
        # A web settings file that names no database (an empty file, one with only a port): the
        # default, data/ of whatever folder the command ran in, took the account and said "added".
        raise ValueError(f"{args.config} 未设 USERS_DB，账号库不明（不会写入当前文件夹的 data/） / {args.config} sets no "
                         "USERS_DB: which users database is meant? (nothing is written to data/ of this folder); "
                         "add USERS_DB to it, or give --db")
    return str(settings["USERS_DB"])


def _password(args: argparse.Namespace) -> str:
    """The new password from stdin (``--password-stdin``) or typed twice at the terminal, checked by
    :func:`users.check_password` (the accounts page's rule: 8 to :data:`users.MAX_PASSWORD` characters).

    :raises ValueError: not UTF-8, no terminal, the two differ, too short or too long.
    """
    if args.password_stdin:
        # Keep no more than a too-long password needs to be seen as too long (a 5 MB line was taken);
        # the rest of the line is read and dropped, so the program writing it gets no broken pipe.
        line = sys.stdin.readline(users.MAX_PASSWORD + 3)
        rest, drained = line, 0
        while rest and not rest.endswith("\n"):
            if drained > 16 * 1024 * 1024:  # /dev/zero has no end of line: not drained forever, and the
                break                       # line kept is over the limit, refused as too long below
            rest = sys.stdin.readline(64 * 1024)
            drained += len(rest)
        line = line.rstrip("\r\n")
        if not is_utf8_text(line):  # bytes that are not UTF-8 arrive as surrogates
            raise ValueError("密码须为 UTF-8 文本 / the password on stdin is not UTF-8 text")
        users.check_password(line)
        return line
    if not sys.stdin.isatty():
        raise ValueError("无终端，请用 --password-stdin / no terminal: use --password-stdin")
    first = getpass.getpass("密码 / password: ")
    second = getpass.getpass("再次输入 / repeat: ")
    if first != second:
        raise ValueError("两次输入的密码不一致 / the passwords differ")
    users.check_password(first)
    return first


def cmd_add(args: argparse.Namespace) -> int:
    """Add an account; the name and password are checked before the database is opened, so a refused
    one creates no file."""
    users.check_name(args.name)
    password = _password(args)
    conn = users.connect(_db_path(args))
    try:
        user = users.add_user(conn, args.name, password, args.role)
    finally:
        conn.close()
    role_zh, role_en = users.role_label(user.role)
    print(f"已添加 {user.name}（{role_zh}） / added: {user.name} ({role_en})")
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    conn = users.connect(_db_path(args), create=False)
    try:
        users.remove_user(conn, args.name)
        came = event_accounts.resync(conn)  # at a table: the hub's account it shadowed comes in
    finally:
        conn.close()
    print(f"已删除：{args.name} / removed: {args.name}")
    if came is not None and came.added:
        print(f"赛事中心的同名账号 {', '.join(came.added)} 现已生效"
              f" / the event hub's account {', '.join(came.added)} now holds here")
    return 0


def cmd_passwd(args: argparse.Namespace) -> int:
    """Set a new password; every open panel session of that account ends at once."""
    conn = users.connect(_db_path(args), create=False)
    try:
        users.set_password(conn, args.name, _password(args))
    finally:
        conn.close()
    print(f"已修改 {args.name} 的密码，该账号的登录已全部失效 / password changed; every session of {args.name} has ended")
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    conn = users.connect(_db_path(args), create=False)
    try:
        rows = users.list_users(conn)
        scopes = users.scopes(conn)
    finally:
        conn.close()
    if not rows:
        print("（无用户 / no users）")
    for u in rows:
        print(f"{u.name}\t{u.role}\t{users.ROLE_NAMES[u.role]}{_SCOPE_NOTE.get(scopes.get(u.name, ''), '')}")
    return 0


#: What ``user list`` adds after an account that is not this server's alone.
_SCOPE_NOTE = {"event": "\t赛事账号，在每张比赛桌有效 / event account, valid at every table",
               "hub": "\t来自赛事中心，只读 / from the event hub, read-only"}


def register(subparsers: Any) -> None:
    """Add ``user`` with ``add``/``remove``/``list`` to the ``guandan-table`` command."""
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--db", help="用户数据库 / users SQLite file (default: the web config's USERS_DB)")
    common.add_argument("--config", help="比赛桌的 table.toml（其数据目录中的账号库）或 web 配置文件 / the table's "
                                         "table.toml (the accounts its service reads) or a web settings TOML file")
    p = subparsers.add_parser("user", help="裁判台账号 / referee panel accounts",
                              description="添加、删除、列出裁判台的账号，修改密码 / add, remove and list the "
                                          "referee panel's accounts, change a password")
    sub = p.add_subparsers(dest="user_command", metavar="ACTION", required=True)
    a = sub.add_parser("add", parents=[common], help="添加账号 / add an account")
    a.add_argument("name", help="用户名 / the user name (1-64 letters, digits, . _ -)")
    # Every choice, with its name, from the one list of roles (a role added there shows here too).
    roles = "; ".join(f"{r} = {' / '.join(users.role_label(r))}" for r in users.ROLES)
    a.add_argument("--role", choices=users.ROLES, default="referee",
                   help=f"角色，由低到高 / role, least to most powerful: {roles} (默认 / default: %(default)s)")
    a.add_argument("--password-stdin", action="store_true", help="从标准输入读密码 / read the password from stdin")
    a.set_defaults(func=cmd_add)
    r = sub.add_parser("remove", parents=[common], help="删除账号 / remove an account")
    r.add_argument("name", help="要删除的用户名 / the user name to remove")
    r.set_defaults(func=cmd_remove)
    pw = sub.add_parser("passwd", parents=[common], help="修改密码并注销其登录 / change a password (ends its sessions)")
    pw.add_argument("name", help="要修改密码的用户名 / the user whose password changes")
    pw.add_argument("--password-stdin", action="store_true", help="从标准输入读密码 / read the password from stdin")
    pw.set_defaults(func=cmd_passwd)
    ls = sub.add_parser("list", parents=[common], help="列出账号 / list accounts")
    ls.set_defaults(func=cmd_list)
