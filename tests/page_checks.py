"""Checks a browser test runs in a page (``page.evaluate``): one text each, shared by the table's
overlay tests and the hub's standings overlay tests (``tests/`` is on ``sys.path``: the root conftest)."""

from __future__ import annotations


def outside_safe(selector: str, margin: float = 0.05) -> str:
    """JavaScript listing each visible element matched by ``selector`` that lies outside the
    title-safe area (the middle 90 % of the frame, 1 px of tolerance): a broadcast crops the rest.
    ``margin``: the share of the frame kept clear at each edge; 0 for a screen shown whole (the
    hall's board), where an element need only lie within the window."""
    return """() => {
  const SELECTOR = """ + repr(selector) + """, M = """ + repr(float(margin)) + """;
  const W = window.innerWidth, H = window.innerHeight, tol = 1;
  const box = [W * M - tol, H * M - tol, W * (1 - M) + tol, H * (1 - M) + tol];
  const out = [];
  document.querySelectorAll(SELECTOR).forEach(e => {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(e).visibility === 'hidden') return;
    if (r.left < box[0] || r.top < box[1] || r.right > box[2] || r.bottom > box[3])
      out.push((e.id || e.className) + ' ' + [r.left, r.top, r.right, r.bottom].map(Math.round).join(','));
  });
  return out;
}"""
