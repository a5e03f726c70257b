"""The ``guandan-table`` command: :func:`main` collects each area's sub-commands.

Each area of the project owns its sub-commands in its own module, which exposes
``register(subparsers)``; this module only collects them, so that adding a command
never means editing another team's code. Top layer of ``table_service``: the commands here may
import every layer below, and nothing imports them.
"""

from __future__ import annotations

import argparse
import importlib
import os
import signal
import sys
import threading
from collections.abc import Sequence
from typing import NoReturn

#: Modules that contribute sub-commands, in the order they appear in ``--help``.
COMMAND_MODULES: tuple[str, ...] = (
    "table_service.cli.demo",
    "table_service.cli.run",
    "table_service.rules.cli",
    "table_service.store.cli",
    "table_service.web.cli",
    "table_service.event.cli",
    "firmware_bridge.cli",
    "table_service.cli.hardware",
    "table_service.cli.vision",
)


#: The Chinese for argparse's own usage errors (its words are English), by the start of its message.
_USAGE_ZH: tuple[tuple[str, str], ...] = (
    ("the following arguments are required", "缺少必需的参数"),
    ("unrecognized arguments", "无法识别的参数"),
    ("invalid choice", "无效的选项"),
    ("expected one argument", "该选项需要一个值"),
    ("invalid ", "值无效"),
    ("not allowed with argument", "两个选项不能同时使用"),
)


class BilingualParser(argparse.ArgumentParser):
    """argparse, with its usage errors said in Chinese first: referees and organisers read the
    command's errors as they read every other message of the table (one line, Chinese / English)."""

    def error(self, message: str) -> NoReturn:
        said = message.split(": ", 1)[1] if message.startswith("argument ") and ": " in message else message
        zh = next((z for en, z in _USAGE_ZH if said.startswith(en)), "命令行参数有误")
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: 错误 / error: {zh} / {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """Build the argument parser with every available sub-command registered."""
    parser = BilingualParser(
        prog="guandan-table",
        description="掼蛋比赛裁判桌 / Officiated Guandan competition table",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            # Only a module that does not exist yet is skipped; a broken import inside
            # an existing module must surface, not silently drop its commands.
            if exc.name != name:
                raise
            continue
        module.register(subparsers)
    return parser


def _honour_ctrl_c() -> None:
    """Make Ctrl-C (SIGINT) stop the command with its closing report, whatever the parent did.

    A process started in the background of a non-interactive shell (``cmd &`` in a script, a CI
    step, a test runner started so) inherits SIGINT *ignored*, and Python then installs no
    KeyboardInterrupt handler: the demo, ``run`` or ``hub`` ignored Ctrl-C (or ``kill -INT``) and
    never printed its report. Every long command here promises "Ctrl-C to stop", so it takes
    SIGINT back. Only the main thread may set a handler (an in-process caller on another thread
    keeps its own).
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status."""
    _honour_ctrl_c()
    parser = build_parser()
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        result = func(args)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    except ValueError as exc:
        print(f"错误 / error: {exc}", file=sys.stderr)
        return 2
    except RecursionError:  # a JSON input of 100,000 "[" is the input's fault, not the program's
        print("错误 / error: 输入嵌套过深，无法读取 / an input is nested too deeply to read", file=sys.stderr)
        return 2
    except OSError as exc:  # a file or device problem the command did not word itself
        where = f" {exc.filename}" if getattr(exc, "filename", None) else ""
        print(f"错误 / error: 文件或设备错误 / file or device error{where}: {exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # never a traceback for the operator; GUANDAN_DEBUG=1 shows it
        if os.environ.get("GUANDAN_DEBUG"):
            raise
        first = str(exc).splitlines()[0][:200] if str(exc) else ""
        print(f"错误 / error: 内部错误 / internal error ({type(exc).__name__}: {first}); "
              "GUANDAN_DEBUG=1 shows the traceback", file=sys.stderr)
        return 3
    return int(result or 0)


if __name__ == "__main__":
    raise SystemExit(main())
