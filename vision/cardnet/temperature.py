"""A temperature fitted to labelled logits: how every head of the reader is calibrated (one source)."""

from __future__ import annotations

import numpy as np


def fit_temperature(logits: np.ndarray, labels: np.ndarray, hi: float = 8.0, prior: np.ndarray | None = None) -> float:
    """The temperature in 0.3–``hi`` that minimises the negative log-likelihood of ``labels`` (grid + refine).

    ``hi``: a head whose word may be worth nothing on some cards (an enrolled deck's body strip on a
    court's art, :mod:`vision.cardnet.deck_body`) needs room to say so; a classifier's stays at 8.
    ``prior``: the classes' prior, outside the tempering (``softmax(log prior + logits / t)``): then
    ``logits`` are the evidence alone, and a large temperature gives back the prior, not even odds."""
    offset = 0.0 if prior is None else np.log(prior)

    def nll(t: float) -> float:
        z = offset + logits / t
        z = z - z.max(axis=1, keepdims=True)
        lse = np.log(np.exp(z).sum(axis=1))
        return float((lse - z[np.arange(len(labels)), labels]).mean())

    points = 60 if hi <= 8.0 else 60 + int(round(12 * np.log(hi / 8.0)))  # as dense as up to 8
    grid = np.exp(np.linspace(np.log(0.3), np.log(hi), points))
    best = min(grid, key=nll)
    for step in (0.9, 0.97, 0.99):
        cands = [best * step, best, best / step]
        best = min(cands, key=nll)
    return float(best)
