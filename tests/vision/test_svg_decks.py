"""The npm SVG decks of the training recipe: file names read as cards, and @letele's compiled React
components written back out as SVG files that render (the recipe's node step)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from vision.training.svg_decks import _card_of, deck_from_svgs

LETELE_MJS = Path(__file__).resolve().parents[2] / "vision" / "training" / "letele_svgs.mjs"


@pytest.mark.parametrize(("stem", "card"), [
    ("KD", "Kd"), ("10H", "Th"), ("1s", "As"), ("12s", "Qs"), ("TC", "Tc"),
    ("BJ", "BJ"), ("SJ", "SJ"),
    ("2J", None), ("joker", None), ("B1", None), ("1B", None), ("", None),
])
def test_file_names_read_as_cards(stem: str, card: str | None) -> None:
    assert _card_of(stem) == card


# What the package ships (SVGR output), cut down to one card, its joker and its back.
_COMPILED = """import _extends from '@babel/runtime/helpers/extends';
import * as React from 'react';

const make = (fill) => _ref => {
  let { title, titleId, ...props } = _ref;
  return React.createElement("svg", _extends({
    xmlns: "http://www.w3.org/2000/svg",
    xmlnsXlink: "http://www.w3.org/1999/xlink",
    className: "card",
    height: 336,
    preserveAspectRatio: "none",
    viewBox: "-120 -168 240 336",
    width: 240,
    "aria-labelledby": titleId
  }, props), title ? React.createElement("title", { id: titleId }, title) : null,
  React.createElement("defs", null, React.createElement("symbol", { id: "s", viewBox: "-500 -500 1000 1000" },
    React.createElement("path", { d: "M-400-400h800v800h-800Z", fill: fill }))),
  React.createElement("rect", { width: 239, height: 335, x: -119.5, y: -167.5, rx: 12, fill: "#fff", stroke: "#000",
    strokeWidth: 2 }),
  React.createElement("use", { xlinkHref: "#s", height: 40, width: 40, x: -110, y: -160 }),
  React.createElement("text", { x: 0, y: 0, fontSize: 20 }, "a < b & c"));
};
const SvgS2 = make("#000");
const SvgJ1 = make("red");
const SvgB1 = make("#44F");
export { SvgS2 as S2, SvgJ1 as J1, SvgB1 as B1 };
"""


@pytest.mark.skipif(shutil.which("node") is None, reason="node (the recipe's npm step) is not installed")
def test_letele_components_are_written_out_as_svg_files(tmp_path: Path) -> None:
    src = tmp_path / "index.esm.js"
    src.write_text(_COMPILED)
    out = tmp_path / "letele" / "cards"
    r = subprocess.run(["node", str(LETELE_MJS), str(src), str(out)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert sorted(p.name for p in out.iterdir()) == ["2S.svg", "BJ.svg"]  # the back is left out
    svg = (out / "2S.svg").read_text()
    # SVG's own attribute names, markup unescaped, text escaped, React-only props dropped.
    assert 'xlink:href="#s"' in svg and 'xmlns:xlink=' in svg and 'class="card"' in svg
    assert 'viewBox="-120 -168 240 336"' in svg and 'stroke-width="2"' in svg and 'font-size="20"' in svg
    assert "<defs><symbol" in svg and "a &lt; b &amp; c" in svg and "aria" not in svg
    if shutil.which("rsvg-convert"):
        assert deck_from_svgs(out, "t") is None  # two cards are no deck (40 needed)
        img = subprocess.run(["rsvg-convert", "-h", "60", str(out / "2S.svg")], capture_output=True, timeout=60)
        assert img.returncode == 0 and img.stdout[:4] == b"\x89PNG"


def test_letele_script_says_how_to_call_it(tmp_path: Path) -> None:
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    r = subprocess.run(["node", str(LETELE_MJS)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 2 and "usage" in r.stderr
