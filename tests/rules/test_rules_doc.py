"""docs/rules.md maps every article to its enforcement and its test: every test it names exists,
and every flag rule and every ``Ruleset`` option is named in it."""

from __future__ import annotations

import ast
import dataclasses
import re
from pathlib import Path

from table_service.engine.flags import ARTICLES
from table_service.rules.ruleset import Ruleset

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef) and n.name.startswith("test")}


def test_every_named_test_exists() -> None:
    named = re.findall(r"(tests/[\w/]+\.py)::(\w+)", DOC)
    assert len(named) > 60
    missing = [f"{f}::{t}" for f, t in named if t not in _tests_in(ROOT / f)]
    assert missing == []


def test_every_flag_rule_is_mapped() -> None:
    assert [r for r in ARTICLES if f"`{r}`" not in DOC] == []


def test_every_ruleset_option_is_named() -> None:
    options = [f.name for f in dataclasses.fields(Ruleset) if f.name != "name"]
    prefixes = ("match_points_",)  # named together as `match_points_*`
    missing = [o for o in options if f"`{o}`" not in DOC and not o.startswith(prefixes)]
    assert missing == []


def test_every_article_has_chinese_and_english() -> None:
    heads = re.findall(r"^## \d+\. (.+)$", DOC, flags=re.M)
    assert len(heads) == 11
    assert all(re.search(r"[\u4e00-\u9fff]", h) and re.search(r"/ [A-Z]", h) for h in heads)
