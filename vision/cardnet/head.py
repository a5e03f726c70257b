"""The classifier's last layer over the crop embedding: shipped, enrolled for one deck, or learned in play.

Why only the last layer moves: the backbone learned what a rank and a suit look like over many
designs; one deck's faces are too few to retrain it, but they are plenty to place that deck's 54
classes in the embedding (a few hundred crops, seconds of numpy).  The head is one small file,
so the organiser enrols the event's deck once and the hub hands the file to every table.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .spec import EMBED_DIM, N_CLASSES

HEAD_FORMAT = "guandan-table/cardnet-head/1"


@dataclass(frozen=True)
class Head:
    """Logits = embedding @ w + b; probabilities = softmax(logits / temperature)."""

    w: np.ndarray  # (EMBED_DIM, N_CLASSES)
    b: np.ndarray  # (N_CLASSES,)
    temperature: float = 1.0
    #: What this head was fitted on (``shipped``, or the deck's name), shown to the referee.
    origin: str = "shipped"

    def __post_init__(self) -> None:
        if self.w.shape != (EMBED_DIM, N_CLASSES) or self.b.shape != (N_CLASSES,):
            raise ValueError(f"识牌模型尺寸不符 / head has shape {self.w.shape}/{self.b.shape}, "
                             f"expected ({EMBED_DIM}, {N_CLASSES})/({N_CLASSES},)")
        if not (np.isfinite(self.w).all() and np.isfinite(self.b).all()) or not 0.05 <= self.temperature <= 20:
            raise ValueError("识牌模型数值无效 / head holds non-finite weights or a temperature out of 0.05–20")

    def logits(self, emb: np.ndarray) -> np.ndarray:
        return emb @ self.w + self.b

    def probs(self, emb: np.ndarray) -> np.ndarray:
        z = self.logits(emb) / self.temperature
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def with_temperature(self, t: float) -> Head:
        return Head(self.w, self.b, float(t), self.origin)

    def to_bytes(self) -> bytes:
        buf = io.BytesIO()
        np.savez(buf, format=np.array(HEAD_FORMAT), w=self.w, b=self.b, temperature=np.float32(self.temperature),
                 origin=np.array(self.origin))
        return buf.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> Head:
        try:
            with np.load(io.BytesIO(data), allow_pickle=False) as z:
                if str(z["format"]) != HEAD_FORMAT:
                    raise ValueError(f"format {z['format']!r}")
                return cls(z["w"].astype(np.float32), z["b"].astype(np.float32), float(z["temperature"]),
                           str(z["origin"]))
        except (OSError, KeyError, ValueError, EOFError) as e:
            raise ValueError(f"不是识牌模型文件 / not a card-reader head file: {e}") from e

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.to_bytes())

    @classmethod
    def load(cls, path: str | Path) -> Head:
        return cls.from_bytes(Path(path).read_bytes())


def shipped_head(path: Path) -> Head:
    with np.load(path) as z:
        return Head(z["w"].astype(np.float32), z["b"].astype(np.float32), float(z["temperature"]))


def fit_head(emb: np.ndarray, labels: np.ndarray, start: Head, *, epochs: int = 60, lr: float = 0.05,
             l2_to_start: float = 1e-3, origin: str = "enrolled", seed: int = 0) -> Head:
    """Refit the last layer on ``emb``/``labels`` by softmax regression from ``start``.

    The pull towards ``start`` keeps classes with few examples where the shipped head had them,
    so a deck enrolled without its jokers still reads jokers as before.
    """
    if len(emb) != len(labels) or len(emb) == 0:
        raise ValueError("没有可学习的样本 / nothing to learn from")
    rng = np.random.default_rng(seed)
    w, b = start.w.astype(np.float64).copy(), start.b.astype(np.float64).copy()
    w0, b0 = w.copy(), b.copy()
    x = emb.astype(np.float64)
    y = labels.astype(np.int64)
    n = len(y)
    # Adam on the full softmax-regression loss, in mini-batches.
    mw, vw, mb, vb = np.zeros_like(w), np.zeros_like(w), np.zeros_like(b), np.zeros_like(b)
    t = 0
    batch = min(256, n)
    for _ in range(epochs):
        perm = rng.permutation(n)
        for s in range(0, n, batch):
            idx = perm[s:s + batch]
            z = x[idx] @ w + b
            z -= z.max(axis=1, keepdims=True)
            p = np.exp(z)
            p /= p.sum(axis=1, keepdims=True)
            p[np.arange(len(idx)), y[idx]] -= 1.0
            gw = x[idx].T @ p / len(idx) + l2_to_start * (w - w0)
            gb = p.mean(axis=0) + l2_to_start * (b - b0)
            t += 1
            for g, m, v, par in ((gw, mw, vw, w), (gb, mb, vb, b)):
                m *= 0.9
                m += 0.1 * g
                v *= 0.999
                v += 0.001 * g * g
                par -= lr * (m / (1 - 0.9**t)) / (np.sqrt(v / (1 - 0.999**t)) + 1e-8)
    return Head(w.astype(np.float32), b.astype(np.float32), start.temperature, origin)


def fit_temperature(logits: np.ndarray, labels: np.ndarray) -> float:
    """The temperature that minimises the negative log-likelihood of ``labels`` (grid + refine)."""
    def nll(t: float) -> float:
        z = logits / t
        z = z - z.max(axis=1, keepdims=True)
        lse = np.log(np.exp(z).sum(axis=1))
        return float((lse - z[np.arange(len(labels)), labels]).mean())

    grid = np.exp(np.linspace(np.log(0.3), np.log(8.0), 60))
    best = min(grid, key=nll)
    for step in (0.9, 0.97, 0.99):
        cands = [best * step, best, best / step]
        best = min(cands, key=nll)
    return float(best)


