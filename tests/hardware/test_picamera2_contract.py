"""The fake ``Picamera2`` and the backend against the installed ``picamera2`` package's source.

``picamera2`` cannot be imported here (it needs libcamera, which only Raspberry Pi OS has), so
its source is read with ``ast``: every method and property the fake offers must exist in the real
``Picamera2`` / ``CompletedRequest`` with the same kind, the same parameters in the same order and
the same literal defaults; every call the backend (``hardware/backends/picamera2_camera.py``) makes on the
camera or a request must fit the real signature; the stream formats and sensor keys it configures
must be ones the library accepts. A picamera2 release that renames or drops something the table
uses fails here, not at a venue.

The source comes from ``pip install --no-deps picamera2==0.3.38`` (``scripts/install.sh --test``
does it: with its dependencies it cannot install off a Pi, python-prctl needs libcap headers).
"""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
FAKE = ROOT / "hardware" / "backends" / "fake_picamera2.py"
BACKEND = ROOT / "hardware" / "backends" / "picamera2_camera.py"
#: The fake's own test hooks (not part of picamera2's interface).
HOOKS = {"reset_controls", "held"}


def _package_dir() -> Path | None:
    try:
        spec = importlib.util.find_spec("picamera2")  # finds without importing (no libcamera needed)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    d = Path(next(iter(spec.submodule_search_locations)))
    return d if (d / "picamera2.py").is_file() and (d / "request.py").is_file() else None


PKG = _package_dir()
pytestmark = pytest.mark.skipif(
    PKG is None, reason="picamera2 的源码未安装 / picamera2 source not installed: run "
    "`.venv/bin/pip install --no-deps picamera2==0.3.38` (scripts/install.sh --test does)")


class Member:
    """A class member as the source declares it: kind and parameters with their defaults."""

    def __init__(self, node: ast.FunctionDef) -> None:
        decos = {d.id if isinstance(d, ast.Name) else getattr(d, "attr", "") for d in node.decorator_list}
        self.kind = "property" if "property" in decos else "static" if "staticmethod" in decos else "method"
        a = node.args
        names = [x.arg for x in a.posonlyargs + a.args]
        if self.kind != "static":
            names = names[1:]  # self
        self.params = names
        self.kwonly = [x.arg for x in a.kwonlyargs]
        defaults: dict[str, Any] = {}
        for name, d in zip(names[len(names) - len(a.defaults):] if a.defaults else [], a.defaults, strict=True):
            try:
                defaults[name] = ast.literal_eval(d)
            except ValueError:
                defaults[name] = ast.unparse(d)  # e.g. libcamera.Transform(): not comparable literally
        self.defaults = defaults
        self.varkw = a.kwarg is not None


def _members(path: Path, cls: str) -> dict[str, Member]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == cls:
            out: dict[str, Member] = {}
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    decos = {getattr(d, "id", getattr(d, "attr", "")) for d in item.decorator_list}
                    if "overload" in decos or (item.name in out and "setter" in decos):
                        continue  # typing overloads; the implementation is the last def
                    out[item.name] = Member(item)
            return out
    raise AssertionError(f"class {cls} not found in {path}")


@pytest.fixture(scope="module")
def real() -> dict[str, dict[str, Member]]:
    assert PKG is not None
    return {"Picamera2": _members(PKG / "picamera2.py", "Picamera2"),
            "CompletedRequest": _members(PKG / "request.py", "CompletedRequest")}


@pytest.mark.parametrize(("fake_cls", "real_cls"), [("Picamera2", "Picamera2"),
                                                    ("FakeCompletedRequest", "CompletedRequest")])
def test_fake_members_match_the_real_ones(real, fake_cls, real_cls):
    # A request is made by the camera, never by the application: its constructor is not interface.
    keep_init = fake_cls == "Picamera2"
    fake = {k: v for k, v in _members(FAKE, fake_cls).items() if not k.startswith("_") or (k == "__init__" and keep_init)}
    theirs = real[real_cls]
    problems = []
    for name, mine in fake.items():
        if name in HOOKS:
            continue
        if name not in theirs:
            problems.append(f"{name}: not in picamera2's {real_cls}")
            continue
        ref = theirs[name]
        if mine.kind != ref.kind:
            problems.append(f"{name}: {mine.kind} here, {ref.kind} in picamera2")
        if mine.params != ref.params:
            problems.append(f"{name}: parameters {mine.params} here, {ref.params} in picamera2")
        for p, d in ref.defaults.items():
            if p in mine.defaults and isinstance(d, str) and "(" in d:
                continue  # a constructed default (libcamera.Transform()); the fake takes None
            if mine.defaults.get(p, "<none>") != d:
                problems.append(f"{name}({p}=…): default {mine.defaults.get(p, '<none>')!r} here, {d!r} in picamera2")
    assert not problems, "\n".join(problems)
    assert {"capture_request", "create_video_configuration", "set_controls", "sensor_modes"} <= set(fake) or \
        {"make_array", "get_metadata", "release"} <= set(fake)


def _backend_calls() -> list[tuple[str, str, ast.Call]]:
    """``(receiver, method, call)`` for every call the backend makes on the camera or a request."""
    tree = ast.parse(BACKEND.read_text(encoding="utf-8"))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
            recv = node.func.value
            name = recv.id if isinstance(recv, ast.Name) else ast.unparse(recv)
            if name in ("cam", "self._cam", "cls", "request", "self._request"):
                out.append((name, node.func.attr, node))
    return out


def test_backend_calls_fit_the_real_signatures(real):
    calls = _backend_calls()
    assert len(calls) >= 8, calls  # the backend really is looked at
    problems = []
    for recv, method, call in calls:
        cls = "CompletedRequest" if "request" in recv else "Picamera2"
        if cls == "Picamera2" and recv == "cls" and method not in real[cls]:
            continue
        ref = real[cls].get(method)
        if ref is None:
            problems.append(f"{recv}.{method}: no such method in picamera2's {cls}")
            continue
        if len(call.args) > len(ref.params):
            problems.append(f"{recv}.{method}: {len(call.args)} positional arguments, picamera2 takes {len(ref.params)}")
        for kw in call.keywords:
            if kw.arg is not None and kw.arg not in ref.params + ref.kwonly and not ref.varkw:
                problems.append(f"{recv}.{method}({kw.arg}=…): picamera2 has no such parameter")
    assert not problems, "\n".join(problems)


def test_backend_attributes_exist(real):
    tree = ast.parse(BACKEND.read_text(encoding="utf-8"))
    used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
            and n.value.id == "cam"}
    props = {k for k, m in real["Picamera2"].items() if m.kind == "property"}
    assert {"camera_properties", "sensor_modes", "camera_controls"} <= used
    assert used - set(real["Picamera2"]) == set(), used - set(real["Picamera2"])
    assert {"camera_properties", "sensor_modes", "camera_controls"} <= props


def test_streams_and_sensor_keys_are_ones_picamera2_accepts():
    assert PKG is not None
    fmt_tree = ast.parse((PKG / "formats.py").read_text(encoding="utf-8"))
    formats: set[str] = set()
    for node in fmt_tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Set):
            formats |= set(ast.literal_eval(node.value))
    cfg_tree = ast.parse((PKG / "configuration.py").read_text(encoding="utf-8"))
    sensor_keys: set[str] = set()
    for node in ast.walk(cfg_tree):
        if isinstance(node, ast.ClassDef) and node.name == "SensorConfiguration":
            for item in node.body:
                if isinstance(item, ast.Assign) and getattr(item.targets[0], "id", "") == "_ALLOWED_FIELDS":
                    sensor_keys = set(ast.literal_eval(item.value))
    assert "YUV420" in formats and sensor_keys, (formats, sensor_keys)
    call = next(c for r, m, c in _backend_calls() if m == "create_video_configuration")
    kw = {k.arg: k.value for k in call.keywords}
    for stream in ("main", "lores"):
        fmt = next(v for k, v in zip(kw[stream].keys, kw[stream].values, strict=True)
                   if isinstance(k, ast.Constant) and k.value == "format")
        assert isinstance(fmt, ast.Constant) and fmt.value in formats, (stream, ast.unparse(fmt))
    sensor = {k.value for k in kw["sensor"].keys if isinstance(k, ast.Constant)}
    assert sensor <= sensor_keys, sensor - sensor_keys
    # The lores stream must be YUV on a Pi 4 (its ISP gives RGB only on main): the Y plane is the grey.
    lores_fmt = next(v.value for k, v in zip(kw["lores"].keys, kw["lores"].values, strict=True)
                     if isinstance(k, ast.Constant) and k.value == "format")
    assert lores_fmt == "YUV420"


def test_fake_video_configuration_defaults_match(real):
    """The defaults the fake fills in for main and lores are the real ones (their sizes decide the frames)."""
    assert PKG is not None
    tree = ast.parse((PKG / "picamera2.py").read_text(encoding="utf-8"))
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "create_video_configuration")
    initial = {}
    for node in ast.walk(fn):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "_make_initial_stream_config" and isinstance(node.args[1], ast.Name)):
            d = node.args[0]
            initial[node.args[1].id] = {k.value: ast.unparse(v) for k, v in zip(d.keys, d.values, strict=True)}
    assert initial["main"]["format"] == "'XBGR8888'" and initial["main"]["size"] == "(1280, 720)", initial
    assert initial["lores"]["size"] == "main['size']", initial
    from hardware.backends.fake_picamera2 import Picamera2

    cam = Picamera2()
    cfg = cam.create_video_configuration(lores={})
    assert cfg["main"]["format"] == "XBGR8888" and cfg["main"]["size"] == (1280, 720)
    assert cfg["lores"]["size"] == cfg["main"]["size"] and cfg["buffer_count"] == real["Picamera2"][
        "create_video_configuration"].defaults["buffer_count"]
