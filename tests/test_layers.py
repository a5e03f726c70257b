"""The architecture's layers hold (import-linter contracts in pyproject.toml), and the contract
check fails on one wrong import; an import inside a function says why it is not at the top."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("table_service", "hardware", "vision", "firmware_bridge")
LINT = Path(sys.executable).with_name("lint-imports")


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    """``lint-imports`` on the packages under ``root`` (found first on the path, before any
    installed copy)."""
    env = dict(os.environ, PYTHONPATH=str(root))
    return subprocess.run([str(LINT), "--no-cache", str(root / "pyproject.toml")], cwd=root, env=env,
                          capture_output=True, text=True, timeout=600)


def _copy(tmp: Path) -> Path:
    """The packages' Python sources and pyproject.toml, copied to ``tmp``."""
    for pkg in PACKAGES:
        shutil.copytree(REPO / pkg, tmp / pkg, ignore=lambda _d, names: [
            n for n in names if not n.endswith(".py") and not (Path(_d) / n).is_dir() or n == "__pycache__"])
    shutil.copy(REPO / "pyproject.toml", tmp / "pyproject.toml")
    return tmp


def test_the_layers_are_kept() -> None:
    res = _lint(REPO)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert "0 broken" in res.stdout


def test_one_import_against_the_layers_breaks_the_contract(tmp_path: Path) -> None:
    """The engine importing the web layer (a lower layer reaching up) is refused, by name."""
    root = _copy(tmp_path)
    apply_py = root / "table_service" / "engine" / "apply.py"
    apply_py.write_text(apply_py.read_text(encoding="utf-8") + "\nimport table_service.web.tables  # wrong\n",
                        encoding="utf-8")
    res = _lint(root)
    assert res.returncode != 0, res.stdout[-3000:]
    assert "table_service.engine.apply -> table_service.web.tables" in res.stdout, res.stdout[-3000:]


def test_one_import_between_hardware_and_vision_breaks_the_contract(tmp_path: Path) -> None:
    root = _copy(tmp_path)
    geometry = root / "vision" / "geometry.py"
    geometry.write_text(geometry.read_text(encoding="utf-8") + "\nimport hardware.camera  # wrong\n",
                        encoding="utf-8")
    res = _lint(root)
    assert res.returncode != 0 and "vision.geometry -> hardware.camera" in res.stdout, res.stdout[-3000:]


def test_imports_inside_functions_say_why() -> None:
    """A project import inside a function is there only to keep a heavy optional module (OpenCV,
    paho-mqtt, torch) out of a caller that does not need it, and its comment says so
    (``# lazy: …``); anything else belongs at the top of the module, where the layers see it."""
    bare = []
    for pkg in ("table_service", "hardware", "firmware_bridge"):
        for path in sorted((REPO / pkg).rglob("*.py")):
            lines = path.read_text(encoding="utf-8").splitlines()
            tree = ast.parse("\n".join(lines))
            for fn in ast.walk(tree):
                if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                    continue
                for node in ast.walk(fn):
                    if isinstance(node, ast.ImportFrom):
                        names = ["." * node.level + (node.module or "")]
                    elif isinstance(node, ast.Import):
                        names = [a.name for a in node.names]
                    else:
                        continue
                    if not any(n.startswith(".") or n.split(".")[0] in PACKAGES for n in names):
                        continue
                    text = " ".join(lines[node.lineno - 1:node.end_lineno])
                    if "# lazy:" not in text:
                        bare.append(f"{path.relative_to(REPO)}:{node.lineno}: {names[0]}")
    assert not bare, "imports inside functions without a '# lazy: <why>' reason:\n" + "\n".join(bare)
