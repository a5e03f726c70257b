"""Checks a browser test runs in a page (``page.evaluate``): one text each, shared by the table's
overlay tests and the hub's standings overlay tests (``tests/`` is on ``sys.path``: the root conftest)."""

from __future__ import annotations


def outside_safe(selector: str) -> str:
    """JavaScript listing each visible element matched by ``selector`` that lies outside the
    title-safe area (the middle 90 % of the frame, 1 px of tolerance): a broadcast crops the rest."""
    return """() => {
  const SELECTOR = """ + repr(selector) + """;
  const W = window.innerWidth, H = window.innerHeight, tol = 1;
  const box = [W * 0.05 - tol, H * 0.05 - tol, W * 0.95 + tol, H * 0.95 + tol];
  const out = [];
  document.querySelectorAll(SELECTOR).forEach(e => {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height || getComputedStyle(e).visibility === 'hidden') return;
    if (r.left < box[0] || r.top < box[1] || r.right > box[2] || r.bottom > box[3])
      out.push((e.id || e.className) + ' ' + [r.left, r.top, r.right, r.bottom].map(Math.round).join(','));
  });
  return out;
}"""
