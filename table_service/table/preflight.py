"""What ``guandan-table run`` refuses before it starts, found without starting or writing anything.

One source for three commands: ``run`` calls :func:`check_before_start` before it makes its data
folder, so a table that cannot start creates nothing; ``config check`` calls it and stops there, so
a file it passes is one ``run`` starts with; ``selftest`` lists :func:`start_checks` one by one, as a
technician asks whether the table will start. Before this, ``config check`` passed a table whose event
log was garbage or whose users database was another program's, and ``run`` then refused it, after
making its log, clock and session key.

Each check is the refusal of the part that would open the file: the event log's
(:func:`table_service.store.event_log.check_store`), the users database's
(:func:`table_service.web.users_file.check_database`), the clock's (:func:`table_service.table.clock.read_time_line`)
and the panel address's (:func:`table_service.web.address.check_address`), each reading without writing.
None of them needs Flask, and this module imports none of it (nor the server, nor the app): ``config
check`` serves nothing, and the web layer's modules cost it over a second of CPU on a Pi
(``tests/service/test_config_parity.py`` holds it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from table_service.store.event_log import check_store
from table_service.table.clock import read_time_line
from table_service.table.config import ServiceConfig, check_database_path, check_folder_path
from table_service.web.address import AddressInUseError, check_address
from table_service.web.users_file import check_database


@dataclass(frozen=True)
class StartCheck:
    """One check ``run`` makes before it starts: what it checks (``中文 / English``), the file or
    address it read, and what it found: ``problem``, ``run`` refuses to start; ``warning``, it starts."""

    item: str
    target: str
    problem: str | None = None
    warning: str | None = None


def start_checks(config: ServiceConfig, *, web: bool, busy_port_ok: bool = False) -> list[StartCheck]:
    """Every check ``run`` makes of the files and address it opens as it starts, each with what it
    found, in the order ``run`` opens them; a check that does not apply (the clock at ``speed`` 1, the
    panel's two without it) is not listed. Reads only: nothing is written or made.

    ``web``: the panel will be served (``[web] enabled`` and no ``--no-web``): its address and its
    users database are checked then only, as ``run`` opens them then only.
    ``busy_port_ok``: a port in use is a warning, not a refusal (``config check``, ``selftest``: the
    table itself may be running and hold it; ``run`` refuses it).
    """
    checks: list[StartCheck] = []

    def check(item: str, target: object, *steps: tuple[Callable[..., object], tuple[object, ...]]) -> bool:
        for fn, args in steps:
            try:
                fn(*args)
            except ValueError as exc:
                checks.append(StartCheck(item, str(target), problem=str(exc)))
                return False
        checks.append(StartCheck(item, str(target)))
        return True

    # A file in a data folder that cannot be made is said once, as the folder.
    folder_ok = check("数据目录 / data folder", config.data_dir, (check_folder_path, ("data_dir", config.data_dir)))
    if folder_ok or config.service.get("db"):
        db_key = "[service].db" if config.service.get("db") else "data_dir"
        check("事件日志 / event log", config.db_path, (check_database_path, (db_key, config.db_path)),
              (check_store, (config.db_path,)))
    if float(config.service.get("speed", 1.0)) != 1.0 and folder_ok:  # only a faster clock keeps its time line
        check("时钟文件 / clock file", config.clock_path, (read_time_line, (config.clock_path,)))
    if web and (folder_ok or config.web.get("users_db")):
        users_key = "[web].users_db" if config.web.get("users_db") else "data_dir"
        check("用户数据库 / users database", config.users_db_path,
              (check_database_path, (users_key, config.users_db_path)), (check_database, (config.users_db_path,)))
    if web:
        checks.append(_panel_address(config, busy_port_ok))
    return checks


def _panel_address(config: ServiceConfig, busy_port_ok: bool) -> StartCheck:
    """The panel's address check: a port in use is a refusal, or (``busy_port_ok``) a warning."""
    host, port = str(config.web.get("host", "127.0.0.1")), int(config.web.get("port", 8080))
    item, target = "裁判面板地址 / panel address", f"{host}:{port}"
    try:
        check_address(host, port, ("裁判面板", "the referee panel"),
                      "[web] host, port in the config; --no-web runs without it")
    except AddressInUseError as exc:
        if not busy_port_ok:
            return StartCheck(item, target, problem=str(exc))
        return StartCheck(item, target, warning=(
            f"裁判面板的端口 {host}:{port} 此刻被占用（本桌若正在运行，即其面板占用；run 启动时须空出） / "
            f"the referee panel's port {host}:{port} is in use now (if this table is running, its "
            "own panel holds it; run needs it free)"))
    except ValueError as exc:
        return StartCheck(item, target, problem=str(exc))
    return StartCheck(item, target)


def check_before_start(config: ServiceConfig, *, web: bool, busy_port_ok: bool = False) -> list[str]:
    """Check every file and address ``run`` opens as it starts (:func:`start_checks`); return the warnings.

    :raises ValueError: every problem at once, each naming its file or setting ("; " between them).
    """
    checks = start_checks(config, web=web, busy_port_ok=busy_port_ok)
    problems = [c.problem for c in checks if c.problem]
    if problems:
        raise ValueError("; ".join(problems))
    return [c.warning for c in checks if c.warning]
