"""The ``guandan-table`` command: :func:`main` collects each area's sub-commands.

Each area of the project owns its sub-commands in its own module, which exposes
``register(subparsers)``; this module only collects them, so that adding a command
never means editing another team's code. Top layer of ``table_service``: the commands here may
import every layer below, and nothing imports them.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import re
import signal
import sys
import threading
from collections.abc import Sequence
from typing import Any, NoReturn

#: Modules that contribute sub-commands, in the order they appear in ``--help``.
COMMAND_MODULES: tuple[str, ...] = (
    "table_service.cli.demo",
    "table_service.cli.run",
    "table_service.rules.cli",
    "table_service.store.cli",
    "table_service.cli.user",
    "table_service.event.cli",
    "firmware_bridge.cli",
    "table_service.cli.hardware",
    "table_service.cli.vision",
)


#: argparse's own words in ``--help`` (its words are English): Chinese first, as every text of the table.
USAGE_PREFIX = "用法 / usage: "
POSITIONALS_TITLE = "参数 / positional arguments"
OPTIONS_TITLE = "选项 / options"
HELP_HELP = "显示帮助并退出 / show this help message and exit"
#: The Chinese of argparse's usage errors, each with what it names (the argument, the value, the
#: choices): a pattern on its English message and the Chinese made of the pattern's groups.
_USAGE_ZH: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(en, re.S), zh) for en, zh in (
    (r"the following arguments are required: (?P<a>.*)", "缺少必需的参数：{a}"),
    (r"unrecognized arguments: (?P<a>.*)", "无法识别的参数：{a}"),
    (r"invalid choice: (?P<v>.*) \(choose from (?P<c>.*)\)", "无效的选项 {v}（可选：{c}）"),
    (r"invalid int value: (?P<v>.*)", "{v} 无效：须为整数"),
    (r"invalid float value: (?P<v>.*)", "{v} 无效：须为数字"),
    (r"invalid (?P<t>.*) value: (?P<v>.*)", "{v} 无效"),
    (r"expected one argument", "该选项需要一个值"),
    (r"expected at least one argument", "该选项至少需要一个值"),
    (r"expected (?P<n>\d+) arguments?", "该选项需要 {n} 个值"),
    (r"not allowed with argument (?P<a>.*)", "不能与 {a} 同时使用"),
    (r"ambiguous option: (?P<o>\S+) could match (?P<m>.*)", "选项 {o} 有歧义，可指：{m}"),
    (r"ignored explicit argument (?P<v>.*)", "多余的值 {v}"),
))


def _said_in_two(message: str) -> tuple[str, str]:
    """A usage error's Chinese and English: its own halves where a type check wrote both
    ("须为数字 / must be a number: abc"), else argparse's English with its Chinese from :data:`_USAGE_ZH`."""
    zh, sep, en = message.partition(" / ")
    if sep:
        return zh, en
    for pattern, words in _USAGE_ZH:
        m = pattern.fullmatch(message)
        if m:
            return words.format(**m.groupdict()), message
    return "命令行参数有误", message


class BilingualFormatter(argparse.HelpFormatter):
    """argparse's help with its "usage:" said in Chinese first."""

    def add_usage(self, usage: str | None, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, USAGE_PREFIX if prefix is None else prefix)


class BilingualParser(argparse.ArgumentParser):
    """argparse, with its own words said in Chinese first: referees and organisers read the command's
    help and errors as they read every other message of the table ("中文 / English").

    One place for the whole command: every sub-command's parser is one of these (``add_parser``
    makes its parsers of the parent's class). The help's "usage:" (:class:`BilingualFormatter`), its
    two sections and ``-h``'s own help are set here; a usage error is one line, each half whole
    ("错误 / error: 参数 --speed：须为数字 / argument --speed: must be a number: abc"), where the
    argument's name and argparse's English had been put between a generic Chinese and the rest."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", BilingualFormatter)
        super().__init__(*args, **kwargs)
        # After super(): ``parents`` (plain parsers, English titles) were merged by their titles then.
        self._positionals.title = POSITIONALS_TITLE
        self._optionals.title = OPTIONS_TITLE
        for action in self._actions:
            if isinstance(action, argparse._HelpAction):
                action.help = HELP_HELP

    def _get_value(self, action: argparse.Action, arg_string: str) -> Any:
        """The option's value as its type reads it; a number written in other than ASCII digits
        ("١٢", full-width "１２") is refused. Why here, for every option of every command: Python's
        ``int`` and ``float`` read any script's digits, so ``--port=١٢`` listened on port 12 and
        ``--duration=١٢`` ran twelve seconds, while the pages refuse such digits (``form_int``)."""
        value = super()._get_value(action, arg_string)
        if isinstance(value, int | float) and not isinstance(value, bool) and not arg_string.isascii():
            raise argparse.ArgumentError(action, f"数字须用半角 0–9 书写：{arg_string} / "
                                                 f"write numbers in ASCII digits 0-9: {arg_string}")
        return value

    def error(self, message: str) -> NoReturn:
        m = re.fullmatch(r"argument (?P<name>.+?): (?P<said>.*)", message, re.S)
        if m:
            zh, en = _said_in_two(m["said"])
            zh, en = f"参数 {m['name']}：{zh}", f"argument {m['name']}: {en}"
        else:
            zh, en = _said_in_two(message)
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: 错误 / error: {zh} / {en}\n")


#: The sub-commands each module of :data:`COMMAND_MODULES` registers (tests/test_cli_usage.py holds
#: this to what they register). A command line naming one of these builds that module's parser only:
#: every module imports its own layers (Flask, OpenCV, the demo: over a second of CPU, seconds on a
#: Pi) and a command needs only its own. ``--help``, no command or an unknown one builds them all.
COMMANDS_OF: dict[str, tuple[str, ...]] = {
    "table_service.cli.demo": ("demo",),
    "table_service.cli.run": ("run",),
    "table_service.rules.cli": ("rules",),
    "table_service.store.cli": ("replay", "export"),
    "table_service.cli.user": ("user",),
    "table_service.event.cli": ("event", "hub"),
    "firmware_bridge.cli": ("emulate-screen",),
    "table_service.cli.hardware": ("config", "selftest"),
    "table_service.cli.vision": ("vision",),
}


def modules_for(argv: Sequence[str] | None) -> tuple[str, ...]:
    """The command modules a parser for ``argv`` needs: the one owning its sub-command, or every one."""
    command = next(iter(argv), None) if argv is not None else None
    owner = [name for name in COMMAND_MODULES if command in COMMANDS_OF.get(name, ())]
    return tuple(owner) if len(owner) == 1 else COMMAND_MODULES


def build_parser(modules: Sequence[str] = COMMAND_MODULES) -> argparse.ArgumentParser:
    """Build the argument parser with the sub-commands of ``modules`` (every one by default) registered."""
    parser = BilingualParser(
        prog="guandan-table",
        description="掼蛋比赛裁判桌 / Officiated Guandan competition table",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in modules:
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


#: The Ctrl-Cs (SIGINT) this command has had, counted by the handler :func:`_honour_ctrl_c` installs.
_ctrl_c_count = 0

#: The exit status of a command stopped by Ctrl-C (128 + SIGINT, as a shell reports it), whatever the
#: command returned on its way out: a script or a service manager reads "interrupted", never "done" (0)
#: or "failed" (1).
CTRL_C_EXIT = 130


def _on_ctrl_c(_sig: int, _frame: object) -> None:
    """SIGINT: counted (:data:`_ctrl_c_count`), then Python's own KeyboardInterrupt, so every command's
    ``finally`` (and its closing report) runs as before."""
    global _ctrl_c_count
    _ctrl_c_count += 1
    raise KeyboardInterrupt


def _honour_ctrl_c() -> None:
    """Make Ctrl-C (SIGINT) stop the command with its closing report and exit 130, whatever the
    parent did and whatever the command returns.

    A process started in the background of a non-interactive shell (``cmd &`` in a script, a CI
    step, a test runner started so) inherits SIGINT *ignored*, and Python then installs no
    KeyboardInterrupt handler: the demo, ``run`` or ``hub`` ignored Ctrl-C (or ``kill -INT``) and
    never printed its report. Every long command here promises "Ctrl-C to stop", so it takes
    SIGINT back. The handler also notes the Ctrl-C: commands that end their loop on
    KeyboardInterrupt and return (``hub``, ``event broker``, ``emulate-screen``) exited 0, others
    130; :func:`main` now answers 130 for all. Only the main thread may set a handler (an
    in-process caller on another thread keeps its own).
    """
    global _ctrl_c_count
    if threading.current_thread() is threading.main_thread():
        _ctrl_c_count = 0
        signal.signal(signal.SIGINT, _on_ctrl_c)


def _quit_at_once(_sig: int = 0, _frame: object = None) -> None:
    """Out now, quiet and 130: a further Ctrl-C once the command has ended on one, or a command whose
    clean-up a second Ctrl-C cut short.

    Python winds down after :func:`main` returns (the threads it waits for, the modules it frees: a
    second or more after the demo); a KeyboardInterrupt then printed a traceback or ended the process
    by the signal itself (status -2). After a clean-up cut short, threads it would have stopped
    (the camera's, OpenCV's) held the process, or aborted it as it freed them ("terminate called
    without an active exception", -6). Whatever was written is already written: the event log commits
    each event whole before it is accepted, so leaving now loses none."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(CTRL_C_EXIT)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit status (:data:`CTRL_C_EXIT` after a Ctrl-C)."""
    _honour_ctrl_c()
    try:
        status = _run(argv)
    except KeyboardInterrupt:  # a second Ctrl-C inside _run's own error handling
        status = CTRL_C_EXIT
    if _ctrl_c_count > 1:  # Ctrl-C again while the command cleaned up: the user wants out, now
        _quit_at_once()
    if _ctrl_c_count:  # the command may have taken the Ctrl-C as its stop and returned 0: interrupted all the same
        signal.signal(signal.SIGINT, _quit_at_once)  # counted only by the main thread's handler, so on the main thread
        return CTRL_C_EXIT
    return status


def _run(argv: Sequence[str] | None) -> int:
    """Parse ``argv`` and run its command; an error becomes one line and an exit status, never a traceback."""
    try:  # building the parser imports the command's modules (Flask, OpenCV: seconds on a Pi): Ctrl-C there too
        parser = build_parser(modules_for(sys.argv[1:] if argv is None else argv))
        args = parser.parse_args(argv)
    except KeyboardInterrupt:
        return CTRL_C_EXIT
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help()
        return 2
    try:
        result = func(args)
    except KeyboardInterrupt:
        return CTRL_C_EXIT
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
        print(f"错误 / error: 文件或设备错误{where}：{exc.strerror or exc} / file or device error{where}: "
              f"{exc.strerror or exc}", file=sys.stderr)
        return 2
    except Exception as exc:  # never a traceback for the operator; GUANDAN_DEBUG=1 shows it
        if os.environ.get("GUANDAN_DEBUG"):
            raise
        first = str(exc).splitlines()[0][:200] if str(exc) else ""
        print(f"错误 / error: 内部错误（{type(exc).__name__}：{first}），设 GUANDAN_DEBUG=1 可显示回溯"
              f" / internal error ({type(exc).__name__}: {first}); GUANDAN_DEBUG=1 shows the traceback",
              file=sys.stderr)
        return 3
    return int(result or 0)


if __name__ == "__main__":
    raise SystemExit(main())
