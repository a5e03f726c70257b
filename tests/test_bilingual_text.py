"""Every "中文 / English" text in the Python sources splits where the pages split it: at " / ", a space on
each side of the slash.

Why: the pages show one language by splitting a text at " / " (``GT.bi``, ``engine.errors.halves``).
A Chinese half that ended "）/ a violation: …" (no space before the slash) was not split, and the
panel showed both languages, English in the middle of the Chinese view (audit s38: the lose-turn
flag's rule, a round's unknown options, the camera's and the enrolment page's refusals, the 413).
The check reads every string literal (f-strings' pieces included, docstrings left out) that holds
Chinese, and refuses a slash written against a Chinese character or Chinese punctuation where the
English half follows, and " /English" (no space after). A slash that starts a path ("（/dev/videoN）",
"不以 /tables/ 开头") is a path, not a separator.
"""

from __future__ import annotations

import ast
import builtins
import re
from pathlib import Path

from table_service.engine.errors import halves

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("table_service", "hardware", "vision", "firmware_bridge", "benchmarks")

#: Chinese characters, and the CJK and full-width punctuation a Chinese half ends with (）。：，…).
_CJK = "\u3000-\u303f\u3400-\u9fff\uff00-\uffef"
#: A slash against Chinese on its left ("）/ a…", "名次/rank", "失去/ lose"), or after " " with Chinese
#: before the space and a letter straight after ("中文 /English"); a slash that starts a path is not one.
_BAD = re.compile(rf"[{_CJK}]/(?![\w.-]+/)(?=[ A-Za-z{{]) | [{_CJK}] /(?![\w.-]+/)(?=[A-Za-z{{])".replace(" | ", "|"))


def _docstrings(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def bad_separators(source: str, name: str = "<text>") -> list[str]:
    """``"line: excerpt"`` for each string literal of ``source`` whose Chinese and English halves are
    not split by " / "."""
    tree = ast.parse(source, name)
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            for m in _BAD.finditer(node.value):
                found.append(f"{node.lineno}: {node.value[max(0, m.start() - 20):m.end() + 20]!r}")
    return found


def test_the_check_finds_each_kind_and_passes_paths() -> None:
    assert bad_separators('X = "违例（确认即失去）/ a violation"')
    assert bad_separators('X = "名次/rank"')
    assert bad_separators('X = "牌 /cards"')
    assert bad_separators('X = f"第 {n} 行（{why}）/ line {n}"')
    assert not bad_separators('X = "违例（确认即失去） / a violation"')
    assert not bad_separators('X = "摄像头编号（/dev/videoN） / camera index"')
    assert not bad_separators('X = "地址不以 /tables/ 开头 / not under /tables/"')
    assert not bad_separators('X = "条款/原因"')
    assert not bad_separators('def f():\n    """说明（旧）/ old"""\n')


def test_every_bilingual_text_splits_at_space_slash_space() -> None:
    found = [f"{path.relative_to(REPO)}:{hit}"
             for pkg in PACKAGES for path in sorted((REPO / pkg).rglob("*.py"))
             for hit in bad_separators(path.read_text(encoding="utf-8"), str(path))]
    assert found == []


def test_a_text_an_older_release_logged_without_the_space_still_splits() -> None:
    # A camera note or a penalty's article in an old log keeps its "）/ " (logs are never rewritten):
    # the record page and the engine's wrapping split it where the new spelling would be split.
    assert halves("换牌，重新学牌（王，忘掉裁判答复 3 张）/ a different deck: learning starts again") == (
        "换牌，重新学牌（王，忘掉裁判答复 3 张）", "a different deck: learning starts again")
    assert halves("违例（确认即失去） / a violation") == ("违例（确认即失去）", "a violation")
    assert halves("条款/原因") == ("条款/原因", "条款/原因")
    assert halves("规则 rules/ruleset.py") == ("规则 rules/ruleset.py", "规则 rules/ruleset.py")


#: Warnings someone must act on, by module and a piece of their English half: each says it in Chinese
#: first (they were English only; a camera recovery was a warning with an English prefix).
OPERATOR_WARNINGS = (
    ("table_service/table/camera_pipeline.py", "and the table markers are not found"),
    ("table_service/table/camera_pipeline.py", "zones recalibrated"),
    ("table_service/table/service.py", "kept unacknowledged for the next start"),
    ("table_service/web/secret_key.py", "unreadable (%s): a new one is drawn"),
    ("table_service/web/secret_key.py", "is too short: a new one is drawn"),
    ("table_service/web/secret_key.py", "logins end when the service restarts"),
    ("table_service/event/hub.py", "not handed to the tables"),
    ("table_service/event/mqtt.py", "broker refused"),
    ("table_service/event/mqtt.py", "retrying"),
    ("table_service/table/mqtt_bridge.py", "refused the connection"),
    ("table_service/table/mqtt_bridge.py", "retrying"),
    ("table_service/table/deck.py", "from the hub refused"),
    ("table_service/table/deck.py", "the log did not keep its note"),
    ("table_service/table/deck.py", "not used, reading without it"),
    ("table_service/table/deck.py", "withdrawn by the hub"),
)


def _log_formats(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in ("warning", "error", "info") and node.args
            and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)]


def test_the_warnings_an_operator_acts_on_are_chinese_first() -> None:
    for module, english in OPERATOR_WARNINGS:
        (text,) = [t for t in _log_formats(REPO / module) if english in t]
        zh, sep, en = re.sub(r"^(hub )?mqtt: ", "", text).partition(" / ")
        assert sep and re.match(rf"[{_CJK}]", zh) and english in en, (module, text)


def _texts(source: str, name: str = "<text>") -> list[tuple[int, str, bool]]:
    """Each string literal of ``source`` (an f-string as one text, its values as ``{expr}``), with its
    line and whether it is an f-string; docstrings left out."""
    tree = ast.parse(source, name)
    skip = _docstrings(tree)
    parts = {id(v) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for v in node.values}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            # A literal brace ("{{EW: …}}") is not a value: written as ⦃ ⦄ here; a " / " in a value's code
            # (``x.split(' / ')[0]``) is not the text's separator: written as " ⁄ ".
            out.append((node.lineno, "".join(str(v.value).replace("{", "⦃").replace("}", "⦄") if isinstance(v, ast.Constant)
                                             else "{" + ast.unparse(v.value).replace(" / ", " ⁄ ") + "}" for v in node.values),
                        True))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip
              and id(node) not in parts):
            out.append((node.lineno, node.value, False))
    return out


_HAN = re.compile(r"[\u3400-\u9fff]")


def second_separators(source: str, name: str = "<text>") -> list[str]:
    """``"line: excerpt"`` for each text whose Chinese half holds a " / " of its own: the pages split
    at the first one, so "南北 7 / 东西 5 / NS 7 / EW 5" showed a Chinese reader "南北 7" alone and an
    English reader "东西 5 / NS 7 / EW 5" (the spare table's report line, s40)."""
    found = []
    for line, text, _ in _texts(source, name):
        zh, sep, en = text.partition(" / ")
        if sep and _HAN.search(zh) and _HAN.match(en.lstrip("{(（「“\"'")):
            found.append(f"{line}: {text[:80]!r}")
    return found


#: A bare Chinese label (no value in it) and the English label after it: "错误 / error: {exc}" prints
#: the value once, after both, for a line printed whole (the command line's reports and transcripts,
#: where both readers see the value).
_LABEL = re.compile(r"\s*[\u3400-\u9fff（）A-Za-z0-9 ]{1,12}")
_LABEL_EN = re.compile(r"[A-Za-z][\w '()-]{0,30}: ")


def _names(expr: str) -> set[str]:
    """The variables a value is made of (``' '.join(cards)`` → ``{'cards'}``), builtins left out: a
    Chinese half that shows the same variables in its own form (``cards_zh(cards)``, ``'、'.join(cards)``)
    names the value."""
    for code in (expr, expr.rsplit("!", 1)[0], expr.rsplit(":", 1)[0]):  # the value, then without !r or :.1f
        try:
            tree = ast.parse(code.replace(" ⁄ ", " / "), mode="eval")
            break
        except SyntaxError:
            continue
    else:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id not in dir(builtins)}


def _chinese_form(value: str) -> str:
    """The name a value's Chinese form goes by where the code keeps both: ``zh`` for ``en``,
    ``s_zh`` for ``s_en``, ``what[0]`` for ``what[1]``."""
    return re.sub(r"(?<![A-Za-z])en(?![A-Za-z])|_en(?![A-Za-z])", lambda m: m.group().replace("en", "zh"),
                  value).replace("[1]", "[0]")


def missing_values(source: str, name: str = "<text>") -> list[str]:
    """``"line: [values] excerpt"`` for each bilingual f-string whose English half names a value
    (``{expr}``) that its Chinese half does not: the Chinese half is what a referee or a technician
    reads, and "端口无效 / invalid port {port}" did not tell them which port was refused. A
    value the Chinese half shows in a form of its own (``{side_zh(x)}`` for ``{x}``,
    ``{why.split(' / ')[0]}``) counts as named."""
    found = []
    for line, text, formatted in _texts(source, name):
        zh, sep, en = text.partition(" / ")
        if not (formatted and sep and _HAN.search(zh) and "{" in en):
            continue
        if _LABEL.fullmatch(zh) and _LABEL_EN.match(en):
            continue  # "名次 / finish: {x}": a label in each language, then the value once for both readers
        shown = re.findall(r"\{([^{}]*)\}", zh)
        names_shown = {n for s in shown for n in _names(s)}
        missing = [v for v in dict.fromkeys(re.findall(r"\{([^{}]*)\}", en))
                   if not any(v in s or _chinese_form(v) in s for s in shown)
                   and not (_names(v) and all(n in names_shown or _chinese_form(n) in names_shown for n in _names(v)))]
        if missing:
            found.append(f"{line}: {missing} {text[:100]!r}")
    return found


def test_the_checks_find_a_second_separator_and_a_value_left_out() -> None:
    assert second_separators('X = f"南北 {a} / 东西 {b} / NS {a} / EW {b}"')
    assert not second_separators('X = f"南北 {a}，东西 {b} / NS {a}, EW {b}"')
    assert not second_separators('X = "轮次 / round"')
    assert missing_values('X = f"端口无效 / invalid port {port}"')
    assert missing_values('X = f"无法读取文件 / the file {path} cannot be read"')
    assert missing_values('X = f"端口 {port} 无效 / invalid port {port} on {host}"')
    assert not missing_values('X = f"文件不存在：{path} / no such file: {path}"')
    assert not missing_values('X = f"{side_zh(side)}过A / {side} past A"')
    assert not missing_values('X = f"{zh}须在 {lo}–{hi} / {en} must be {lo}-{hi}"')
    assert not missing_values('X = f"错误 / error: {exc}"')
    assert missing_values('X = f"无法读取文件 / cannot read the file {path}: {exc}"')
    assert not missing_values('X = f"{what[0]}须为文本 / {what[1]} must be text"')
    assert not missing_values('X = f"级数无效 / levels must be {{EW: 2…A, NS: 2…A}}"')
    assert not missing_values('X = "文件不存在 / no such file: {path}"')  # not an f-string: no value


def test_no_chinese_half_holds_a_separator_of_its_own() -> None:
    found = [f"{path.relative_to(REPO)}:{hit}"
             for pkg in PACKAGES for path in sorted((REPO / pkg).rglob("*.py"))
             for hit in second_separators(path.read_text(encoding="utf-8"), str(path))]
    assert found == []


#: Refusals whose Chinese half shows a value in a form of its own that the check cannot see: the flag's
#: status as a Chinese word (``said``), and the possible readings as Chinese pattern names.
SHOWN_IN_CHINESE = (
    ("table_service/engine/flags.py", "[\"flag['status']\"]"),
    ("table_service/engine/play.py", "['options']"),
)


def _refusal_lines(source: str) -> set[int]:
    """The lines of the f-strings in ``raise`` statements: a refusal is what a page shows split in
    halves (a line the command line prints whole shows its value to both readers)."""
    return {sub.lineno for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Raise) and node.exc is not None
            for sub in ast.walk(node.exc) if isinstance(sub, ast.JoinedStr)}


def test_every_refusal_names_its_values_in_chinese_too() -> None:
    found = []
    for pkg in PACKAGES[:-1]:  # benchmarks: a developer's tool
        for path in sorted((REPO / pkg).rglob("*.py")):
            source, rel = path.read_text(encoding="utf-8"), str(path.relative_to(REPO))
            refusals = _refusal_lines(source)
            found += [f"{rel}:{hit}" for hit in missing_values(source, rel) if int(hit.split(":")[0]) in refusals
                      and not any(rel == f and piece in hit for f, piece in SHOWN_IN_CHINESE)]
    assert found == []
