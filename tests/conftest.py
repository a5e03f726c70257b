"""Shared pytest fixtures. Area-specific fixtures live in the area's own conftest or test module.

The browser fixtures live here because five browser test modules in two areas (web, event) drive
the same headless Chromium: one launch recipe means one place to change a flag or the binary."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

# Test helpers shared across areas (page_checks) are imported by name, as tests/event's are.
sys.path.insert(0, str(Path(__file__).parent))

if os.environ.get("PYTEST_XDIST_WORKER"):
    # One worker per core (pyproject's addopts): a worker's numpy and OpenCV must not each start a
    # thread per core too. OpenBLAS's spinning threads, two workers' worth on two cores, made the
    # head fits 3-5x slower (a 6 s test took 28 s). Read when the libraries load, which is after
    # this file: no test module is imported before the root conftest.
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "OPENCV_FOR_THREADS_NUM"):
        os.environ.setdefault(_var, "1")

#: Debian's headless shell first (what the tests need: no browser UI, a third less CPU a page than the
#: full browser: 167 browser tests 218 against 319 s, docs/performance.md), then the full browser a
#: machine installed before the shell was on the list, then Playwright's own build (Ubuntu).
CHROMIUMS = ("/usr/bin/chromium-headless-shell", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Debian's Chromium headless shell (Playwright's own build where there is none: Ubuntu), driven by
    Playwright; one launch per test process (each test still gets a fresh context, :func:`open_page`).

    Why not one per module: Playwright's start, Chromium's launch and first page cost ~2.5 s, and 47
    modules drive the browser (60-95 s of the workers' time, docs/performance.md)."""
    from playwright import sync_api  # a test dependency: its absence is an install error, not a skip

    with sync_api.sync_playwright() as p:
        binary = next((c for c in CHROMIUMS if Path(c).exists()), p.chromium.executable_path)
        if not Path(binary).exists():
            # In CI a missing browser is a broken install step, never a quiet skip.
            (pytest.fail if os.environ.get("CI") else pytest.skip)(
                "chromium not installed (bash scripts/install.sh --test)")
        b = p.chromium.launch(executable_path=binary, headless=True, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def open_page(browser: Any) -> Iterator[Callable[..., tuple[Any, list[str]]]]:
    """``open_page(width, height, *, bypass_csp=True, timeout_ms=60_000, mobile=False) -> (page, errors)``: a page in
    a fresh zh-CN context; ``errors`` collects uncaught JavaScript errors for the test to assert on.
    Every context opened is closed at teardown.

    bypass_csp: ``wait_for_function`` evaluates its string with eval, which the page's CSP refuses
    (the policy itself is tested in test_api_security_headers.py); a test that needs no eval can
    keep the CSP on.

    timeout_ms: how long a wait for a selector or a function may take before the test fails; it
    only bounds a hang (a loaded 2-core CI machine can take seconds to render a page).

    mobile: a phone's browser (its viewport meta tag honoured, touch events), as the tap audits used."""
    contexts: list[Any] = []

    def _open(width: int = 1280, height: int = 1000, *, bypass_csp: bool = True,
              timeout_ms: int = 60_000, mobile: bool = False) -> tuple[Any, list[str]]:
        ctx = browser.new_context(viewport={"width": width, "height": height}, locale="zh-CN",
                                  bypass_csp=bypass_csp, is_mobile=mobile, has_touch=mobile)
        contexts.append(ctx)
        pg = ctx.new_page()
        pg.set_default_timeout(timeout_ms)
        errors: list[str] = []
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        return pg, errors

    yield _open
    for ctx in contexts:
        ctx.close()


@pytest.fixture
def page(open_page: Callable[..., tuple[Any, list[str]]]) -> Iterator[Any]:
    """A 1280×1000 page (CSP bypassed); the test fails if the page threw a JavaScript error."""
    pg, errors = open_page()
    yield pg
    assert errors == [], f"JavaScript errors: {errors}"


@pytest.fixture(scope="session")
def small_deck_file(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real enrolment file, made once a session: two faces of a real deck, a short fit and a short
    fan check (so ``check`` is a real record). For the tests of deck files at the hub and the table:
    the file is kept, handed over, damaged and loaded, never read with, so its head is fitted for 50
    steps, not the product's 1500 (about 1.5 s of CPU less in each process that makes it)."""
    from vision import enroll
    from vision.artwork import load_deck

    deck = load_deck("anglo")
    path = tmp_path_factory.mktemp("deck") / "deck.npz"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr("vision.cardnet.enrol.ENROL_STEPS", 50)
        enroll({c: deck.bgr(c) for c in ("Ah", "7c")}, px_per_mm=6.0, rows=4, check_plays=3).save(path)
    return path.read_bytes()


#: What a finger hits, measured on the page: every link, button, field, list, ``<summary>`` and
#: ``role=button`` shown, each at least 44 × 44 CSS px. A checkbox or radio button is hit through its
#: label (the label is measured; one with no label is measured itself). ``scope``: a CSS selector of
#: the part of the page measured (the whole page by default); ``heightOnly``: controls measured for
#: height alone (the card pickers' 13 cards a row: 54 cards 44 px wide would not fit the side column).
SMALL_CONTROLS_JS = r"""([scope, heightOnly]) => {
  const out = [];
  const root = scope ? document.querySelector(scope) : document;
  if (!root) return [["no such part of the page", scope, 0, 0]];
  const sel = 'a[href], button, input:not([type=hidden]), select, textarea, summary, [role=button], label';
  for (const e of root.querySelectorAll(sel)) {
    const box = e.tagName === 'INPUT' && (e.type === 'checkbox' || e.type === 'radio') ? e.closest('label') : null;
    if (box) continue;  // measured as its label
    if (e.tagName === 'LABEL' && !e.querySelector('input[type=checkbox], input[type=radio]')) continue;
    const r = e.getBoundingClientRect(), cs = getComputedStyle(e);
    if (r.width === 0 || r.height === 0 || cs.visibility === 'hidden' || cs.display === 'none') continue;
    if ((r.width < 43.5 && !(heightOnly && e.matches(heightOnly))) || r.height < 43.5) {
      const what = (e.id ? '#' + e.id : '') + (e.name ? '[name=' + e.name + ']' : '');
      out.push([e.tagName.toLowerCase() + what, (e.innerText || e.value || e.placeholder || '').trim().slice(0, 24),
                Math.round(r.width), Math.round(r.height)]);
    }
  }
  return out;
}"""

#: The viewports the tap audits measure at: a tablet on the referee's table and a phone.
TABLET = (1024, 768)
PHONE = (390, 844)


@pytest.fixture
def small_controls() -> Callable[..., list[list[Any]]]:
    """``small_controls(page, scope=None, height_only=None)``: the controls of ``page`` (or of its part
    ``scope``) under 44 CSS px either way (``height_only``: a selector of those measured for height
    alone), as ``[tag#id, text, width, height]``: empty when every one is big enough."""

    def _measure(page: Any, scope: str | None = None, height_only: str | None = None) -> list[list[Any]]:
        return page.evaluate(SMALL_CONTROLS_JS, [scope, height_only])

    return _measure


#: A bar's items, each as [top, height, lines of its text]: one line is every item in a common height
#: band and no item's text broken over lines (a flex row keeps its items side by side but, squeezed,
#: broke the brand in two and stacked 退出 a letter a line).
BAR_JS = """els => els.filter(e => e.getBoundingClientRect().width * e.getBoundingClientRect().height > 0).map(e => {
  const lines = new Set(), walk = document.createTreeWalker(e, NodeFilter.SHOW_TEXT);
  for (let t = walk.nextNode(); t; t = walk.nextNode()) {
    if (!t.data.trim()) continue;
    const range = document.createRange();
    range.selectNodeContents(t);
    Array.from(range.getClientRects()).forEach(r => lines.add(Math.round(r.bottom)));
  }
  return [e.getBoundingClientRect().top, e.getBoundingClientRect().height, lines.size];
})"""


@pytest.fixture
def one_line() -> Callable[[Any, str], str | None]:
    """``one_line(page, bar)``: None when the bar's items keep one line (every item in a common height
    band, items being centred, and no item's text broken over lines), else what wrapped, to assert on."""

    def _check(page: Any, bar: str) -> str | None:
        rows = page.eval_on_selector_all(f"{bar} > *", BAR_JS)
        if max(top for top, _, _ in rows) >= min(top + hgt for top, hgt, _ in rows):
            return f"{bar}: wrapped {rows}"
        if {lines for _, _, lines in rows} != {1}:
            return f"{bar}: an item broken over lines {rows}"
        return None

    return _check
