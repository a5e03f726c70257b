"""The command's own usage errors are said as every other message is: Chinese first, one line, exit 2."""

from __future__ import annotations

import argparse
import re

import pytest

from table_service.cli import build_parser, main


@pytest.mark.parametrize("argv, zh", [
    (["user", "add"], "缺少必需的参数"),
    (["nosuch"], "无效的选项"),
    (["demo", "--nosuch"], "无法识别的参数"),
    (["demo", "--deals", "x"], "须为整数"),
    (["demo", "--deals", "10001"], "副数须为 1–10000"),  # taken, then refused by the engine once a second, for ever
    (["demo", "--deals", "١٢"], "数字须用半角 0–9 书写"),  # int() reads any script's digits: 12 deals
    (["emulate-screen", "--duration", "１２"], "数字须用半角 0–9 书写"),
    (["selftest", "--countdown-from", "1.5"], "须为整数"),
    (["demo", "--speed", "nan"], "须为 0–1000 的正数"),
    (["emulate-screen", "--duration", "-1"], "须为 0 到 86400 之间的秒数"),
    (["emulate-screen", "--duration", "nan"], "须为 0 到 86400 之间的秒数"),
    (["demo", "--host", "999.1.1.1"], "本机无法解析此地址"),
    (["demo", "--host", "a b"], "不是有效的地址"),
])
def test_a_usage_error_is_chinese_first(argv: list[str], zh: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert "错误 / error:" in err and zh in err and "Traceback" not in err


def test_the_event_demo_refuses_zero_rounds_instead_of_playing_three(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--tables", "2", "--rounds", "0", "--headless"]) == 2
    assert "--rounds must be 2-9, got 0" in capsys.readouterr().err


@pytest.mark.parametrize("option", ["--rounds", "--camera-tables"])
def test_the_event_demo_s_options_are_refused_without_tables(option: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Given to the one-table demo they were taken and ignored: it played as if they were not there."""
    assert main(["demo", "--headless", "--deals", "1", option, "4"]) == 2
    assert f"{option} is for the event demo only" in capsys.readouterr().err


@pytest.mark.parametrize("hb", ["10", "10000", "99999999999"])
def test_an_emulator_heartbeat_the_host_cannot_follow_is_refused(hb: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Above 3000 ms the host (down after 3.5 s without a frame) dropped and re-made the link every
    few seconds; the command ran and said nothing of it."""
    assert main(["emulate-screen", "--heartbeat-ms", hb, "--duration", "0.1"]) == 2
    err = capsys.readouterr().err
    assert "--heartbeat-ms must be 50-3000" in err and hb in err and "Traceback" not in err


def _helps(parser: argparse.ArgumentParser, path: str) -> list[tuple[str, str, str]]:
    """Every help text of ``parser`` and its sub-commands: (command, option, text)."""
    out = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            out += [(path, choice.dest, choice.help or "") for choice in action._choices_actions]
            for name, sub in action.choices.items():
                out += _helps(sub, f"{path} {name}")
        elif not isinstance(action, argparse._HelpAction) and action.help not in (None, argparse.SUPPRESS):
            out.append((path, "/".join(action.option_strings) or action.dest, action.help))
    return out


def test_every_option_is_explained_in_chinese_first() -> None:
    """Referees and organisers read ``--help`` as they read the panel: each command's and option's
    help says it in Chinese (then English); eleven were English only, six a bare file name."""
    missing = [f"{cmd} {opt}: {text!r}" for cmd, opt, text in _helps(build_parser(), "guandan-table")
               if not re.search(r"[\u4e00-\u9fff]", text)]
    assert not missing, "\n".join(missing)


def _parsers(parser: argparse.ArgumentParser, path: str) -> list[tuple[str, argparse.ArgumentParser]]:
    out = [(path, parser)]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out += _parsers(sub, f"{path} {name}")
    return out


def test_argparse_own_words_are_chinese_first_in_every_help() -> None:
    """argparse's "usage:", "positional arguments:", "options:" and "show this help message and exit"
    were English in every ``-h`` (only its errors went through the bilingual parser)."""
    for path, parser in _parsers(build_parser(), "guandan-table"):
        text = parser.format_help()
        assert text.startswith("用法 / usage: "), path
        assert "\n选项 / options:\n" in text, path
        assert re.search(r"-h, --help\s+显示帮助并退出 / show this help message and exit", text), path
        lines = text.splitlines()
        assert not any(line.startswith(("usage:", "options:", "positional arguments:")) for line in lines), path
        assert "show this help message and exit" not in text.replace(
            "显示帮助并退出 / show this help message and exit", ""), path


def test_every_argument_has_help_and_every_command_group_a_description() -> None:
    """``rules legal --level`` and ``hand``, ``user add NAME`` … had no help; ``rules``, ``user`` and
    ``vision`` listed their sub-commands with no word of what the group is for."""
    missing = []
    for path, parser in _parsers(build_parser(), "guandan-table"):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                if not parser.description or not re.search(r"[\u4e00-\u9fff]", parser.description):
                    missing.append(f"{path}: no description")
            elif action.help is None:
                missing.append(f"{path} {'/'.join(action.option_strings) or action.dest}: no help")
    assert not missing, "\n".join(missing)


@pytest.mark.parametrize("argv, line", [
    # The argument's name and the type's own words in each half (it read "错误 / error: 命令行参数有误 /
    # argument --speed: 须为数 / must be a number: abc").
    (["demo", "--speed", "abc"],
     "guandan-table demo: 错误 / error: 参数 --speed：须为数字：abc / argument --speed: must be a number: abc"),
    (["selftest", "--config", "t.toml", "--button-timeout", "x"],
     "guandan-table selftest: 错误 / error: 参数 --button-timeout：须为数字（收到 'x'） / argument "
     "--button-timeout: must be a number, got 'x'"),
    # An invalid choice names the argument, the value and the choices in Chinese too.
    (["event", "pair", "r.jsonl", "--teams", "t.txt", "--method", "knockout"],
     "guandan-table event pair: 错误 / error: 参数 --method：无效的选项 'knockout'（可选：'swiss', 'round-robin'） / "
     "argument --method: invalid choice: 'knockout' (choose from 'swiss', 'round-robin')"),
    (["user", "add"],
     "guandan-table user add: 错误 / error: 缺少必需的参数：name / the following arguments are required: name"),
    (["rules", "classify", "--level", "7", "7h", "--bogus"],
     "guandan-table: 错误 / error: 无法识别的参数：--bogus / unrecognized arguments: --bogus"),
])
def test_a_usage_error_says_the_same_in_each_half(argv: list[str], line: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    assert capsys.readouterr().err.strip().splitlines()[-1] == line


def test_a_command_line_builds_only_its_own_commands_parser() -> None:
    """``main`` imports only the module owning the command named (``COMMANDS_OF``: each CLI process
    in the suite and on a Pi spent over a second importing every command's layers). The table must
    say what each module registers, or a command would be refused or built from another module."""
    import importlib

    from table_service.cli import COMMAND_MODULES, COMMANDS_OF, BilingualParser, modules_for

    assert tuple(COMMANDS_OF) == COMMAND_MODULES
    for name in COMMAND_MODULES:
        subparsers = BilingualParser(prog="x").add_subparsers(dest="command")
        importlib.import_module(name).register(subparsers)
        assert tuple(subparsers.choices) == COMMANDS_OF[name], name
        for command in COMMANDS_OF[name]:
            assert modules_for([command, "--help"]) == (name,)
    for argv in ([], ["--help"], ["nosuch"], None):
        assert modules_for(argv) == COMMAND_MODULES
    whole = build_parser()._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    assert set(whole) == {c for commands in COMMANDS_OF.values() for c in commands}
