"""Train the index CNN of :mod:`vision.index_cnn` (torch on the CPU, training only).

Needs the ``[train]`` extra (``pip install torch==2.13.0``); the reader never imports torch: the
weights are exported to ``.npz`` and run in numpy (:class:`vision.index_cnn.IndexCNN`).

Data: the per-design sample files of :mod:`vision.models.index_data` (every French-suited
gnome-cards-data design, re-printed half of the time, plus synthetic font decks), minus the
designs named by ``--leave-out`` (a leave-one-group-out fold of ``benchmarks/vision_lodo.py``).
Font decks are split by deck: 85 % train, 15 % are the unseen decks the softmax temperature is
fitted on (without font decks: 15 % of the training designs, whole, are kept for it) (as for the MLP: fitted on the training designs it sharpened, and the model was
confidently wrong on unseen decks).

Augmentation per minibatch (cheap, in torch): ±1 px shift, bolder or thinner strokes (3 x 3
max-filter or min-filter blended in), ink gain 0.8-1.2, small noise.

One thread (``torch.set_num_threads(1)``: the dev VM's two cores are shared), Adam with a
one-cycle learning rate, minibatches of 64, batch norm after each convolution (folded into it at
export).  The shipped ``index_cnn.npz`` (2026-12-01, ~20 min on a busy shared VM; 56,153 samples:
26 designs x 150 zones, 68 font decks x 8 zones, background share 0.35; temperature 1.1 fitted on
12 unseen font decks)::

    nice python -m vision.models.index_data --out /tmp/index-data --zones 150 --font-decks 80 --font-rows 8
    nice python -m vision.models.train_cnn --data /tmp/index-data --out vision/models/index_cnn.npz \
        --epochs 4 --bg-keep 0.35

The leave-one-group-out models of ``benchmarks/vision_lodo.py`` are the same command with
``--leave-out <the fold's designs>`` and ``--out DIR/fold<k>.npz``.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from vision.index_cnn import CNN_PATH, PATCH_H, PATCH_W

N_CLASSES = 28
BG_CLASS = 27
CHANNELS = (8, 16, 32)
HIDDEN = 96


def load_data(data: Path, leave_out: set[str], calib_share: float = 0.15, seed: int = 0,
              bg_keep: float = 1.0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Training samples (designs not left out + most font decks) and calibration samples
    (unseen font decks), and the designs used.  ``bg_keep``: share of "not an index" training
    samples kept (three quarters of all candidates are background, mostly easy; on this shared
    CPU an epoch costs what it holds)."""
    xs, ys, used = [], [], []
    names = [f.stem for f in sorted(data.glob("*.npz")) if f.stem != "fonts" and f.stem not in leave_out]
    fonts = data / "fonts.npz"
    calib_designs: set[str] = set()
    if not fonts.exists():
        # No font decks: the temperature is fitted on a few whole designs kept out of training.
        rng = np.random.default_rng(seed)
        calib_designs = set(rng.choice(names, max(1, int(round(len(names) * calib_share))), replace=False).tolist())
    xcs, ycs = [], []
    for name in names:
        with np.load(data / f"{name}.npz") as z:
            (xcs if name in calib_designs else xs).append(z["x"])
            (ycs if name in calib_designs else ys).append(z["y"])
        used.append(name if name not in calib_designs else f"({name}: temperature only)")
    xc = np.concatenate(xcs) if xcs else None
    yc = np.concatenate(ycs) if ycs else None
    if fonts.exists():
        with np.load(fonts) as z:
            x, y, deck = z["x"], z["y"], z["deck"]
        decks = np.unique(deck)
        rng = np.random.default_rng(seed)
        calib = set(rng.choice(decks, max(1, int(len(decks) * calib_share)), replace=False).tolist())
        m = np.isin(deck, list(calib))
        xs.append(x[~m])
        ys.append(y[~m])
        xc, yc = x[m], y[m]
        used.append(f"fonts ({len(decks) - len(calib)} decks)")
    x, y = np.concatenate(xs), np.concatenate(ys)
    if bg_keep < 1.0:
        keep = (y != BG_CLASS) | (np.random.default_rng(seed + 1).random(len(y)) < bg_keep)
        x, y = x[keep], y[keep]
    return x, y, xc, yc, used


def build_model():
    import torch.nn as nn

    c1, c2, c3 = CHANNELS

    class Net(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            # Batch norm after each convolution (folded into the convolution at export): without
            # it the net learnt slowly (2 designs, 4 epochs: 77 % train accuracy, against 99 % in 3
            # epochs with it and minibatches of 64).
            self.features = nn.Sequential(
                nn.Conv2d(1, c1, 3, padding=1), nn.BatchNorm2d(c1), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(c1, c2, 3, padding=1), nn.BatchNorm2d(c2), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(c2, c3, 3, padding=1), nn.BatchNorm2d(c3), nn.ReLU(), nn.MaxPool2d(2),
            )
            flat = c3 * (PATCH_H // 8) * (PATCH_W // 8)
            self.fc1 = nn.Linear(flat + 3, HIDDEN)
            self.fc2 = nn.Linear(HIDDEN, N_CLASSES)
            self.drop = nn.Dropout(0.2)

        def forward(self, img, extra):
            import torch

            h = self.features(img).flatten(1)
            h = torch.relu(self.fc1(torch.cat([h, extra], 1)))
            return self.fc2(self.drop(h))

    return Net()


def augment(img, rng: np.random.Generator):
    """±1 px shift, bolder/thinner strokes, ink gain and a little noise (torch, in place of a copy)."""
    import torch
    import torch.nn.functional as F

    n = img.shape[0]
    dx, dy = int(rng.integers(-1, 2)), int(rng.integers(-1, 2))
    img = torch.roll(img, shifts=(dy, dx), dims=(2, 3))
    r = rng.random()
    if r < 0.25:
        img = 0.5 * (img + F.max_pool2d(img, 3, 1, 1))
    elif r < 0.5:
        img = 0.5 * (img - F.max_pool2d(-img, 3, 1, 1))
    gain = torch.from_numpy(rng.uniform(0.8, 1.2, (n, 1, 1, 1)).astype(np.float32))
    img = img * gain + 0.03 * torch.randn_like(img)
    return img


def fit_temperature(logits: np.ndarray, y: np.ndarray) -> float:
    """The temperature (0.5-4) with the lowest log-loss on index-like samples (true indices and
    blobs taken for one): the reader's doubt thresholds compare probabilities, so they must be
    honest ones on decks the model has not seen."""
    keep = (y != BG_CLASS) | (logits.argmax(1) != BG_CLASS)
    lo, yy = logits[keep].astype(np.float64), y[keep]
    best, best_nll = 1.0, np.inf
    for t in np.linspace(0.5, 4.0, 36):
        z = lo / t
        z -= z.max(1, keepdims=True)
        nll = float(-(z[np.arange(len(yy)), yy] - np.log(np.exp(z).sum(1))).mean())
        if nll < best_nll:
            best, best_nll = float(t), nll
    return best


def export(net, extra_mean: np.ndarray, extra_std: np.ndarray, temperature: float) -> dict[str, np.ndarray]:
    """Weights in :class:`vision.index_cnn.IndexCNN`'s layout: conv (9*C, K) ordered (dy, dx, c)."""
    out: dict[str, np.ndarray] = {}
    layers = list(net.features)
    convs = [(m, layers[i + 1]) for i, m in enumerate(layers) if m.__class__.__name__ == "Conv2d"]
    for k, (conv, bn) in enumerate(convs, 1):
        # Batch norm folded in (eval statistics): w * g / sqrt(var + eps), (b - mean) * that + beta.
        scale = (bn.weight / (bn.running_var + bn.eps).sqrt()).detach().numpy()
        w = conv.weight.detach().numpy() * scale[:, None, None, None]  # (K, C, 3, 3)
        b = (conv.bias.detach().numpy() - bn.running_mean.detach().numpy()) * scale + bn.bias.detach().numpy()
        out[f"conv{k}_w"] = w.transpose(2, 3, 1, 0).reshape(9 * w.shape[1], w.shape[0]).astype(np.float32)
        out[f"conv{k}_b"] = b.astype(np.float32)
    out["fc1_w"] = net.fc1.weight.detach().numpy().T.astype(np.float32)
    out["fc1_b"] = net.fc1.bias.detach().numpy().astype(np.float32)
    out["fc2_w"] = net.fc2.weight.detach().numpy().T.astype(np.float32)
    out["fc2_b"] = net.fc2.bias.detach().numpy().astype(np.float32)
    out["extra_mean"] = extra_mean.astype(np.float32)
    out["extra_std"] = extra_std.astype(np.float32)
    out["temperature"] = np.array(temperature, np.float32)
    return out


def train(x: np.ndarray, y: np.ndarray, xc: np.ndarray | None, yc: np.ndarray | None, epochs: int = 12,
          seed: int = 0, batch: int = 64, budget_s: float = 1500.0) -> dict[str, np.ndarray]:
    import torch
    import torch.nn.functional as F

    torch.set_num_threads(1)
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    npx = PATCH_W * PATCH_H
    img = torch.from_numpy(x[:, :npx].reshape(-1, 1, PATCH_H, PATCH_W).copy())
    extra_np = x[:, npx:]
    extra_mean, extra_std = extra_np.mean(0), extra_np.std(0) + 1e-3
    extra = torch.from_numpy(((extra_np - extra_mean) / extra_std).astype(np.float32))
    yt = torch.from_numpy(y.astype(np.int64))
    net = build_model()
    opt = torch.optim.Adam(net.parameters(), lr=2e-3, weight_decay=1e-5)
    steps = epochs * ((len(y) + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    t0 = time.time()
    for ep in range(epochs):
        net.train()
        perm = torch.from_numpy(rng.permutation(len(y)))
        tot = correct = 0
        for s in range(0, len(y), batch):
            idx = perm[s:s + batch]
            xb = augment(img[idx], rng)
            eb = extra[idx] + 0.05 * torch.randn(len(idx), 3)
            logits = net(xb, eb)
            loss = F.cross_entropy(logits, yt[idx], label_smoothing=0.02)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += len(idx)
            correct += int((logits.argmax(1) == yt[idx]).sum())
        print(f"epoch {ep + 1}: train acc {correct / tot:.4f}, {time.time() - t0:.0f} s", flush=True)
        if time.time() - t0 > budget_s:
            print("time budget reached", flush=True)
            break
    net.eval()
    temperature = 1.0
    if xc is not None and yc is not None and len(yc):
        with torch.no_grad():
            ic = torch.from_numpy(xc[:, :npx].reshape(-1, 1, PATCH_H, PATCH_W).copy())
            ec = torch.from_numpy(((xc[:, npx:] - extra_mean) / extra_std).astype(np.float32))
            lc = net(ic, ec).numpy()
        temperature = fit_temperature(lc, yc)
        acc = float((lc.argmax(1) == yc).mean())
        idx_acc = float((lc.argmax(1) == yc)[yc != BG_CLASS].mean())
        print(f"unseen decks: acc {acc:.4f}, index acc {idx_acc:.4f}, temperature {temperature:.2f}", flush=True)
    return export(net, extra_mean, extra_std, temperature)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True)
    ap.add_argument("--out", type=Path, default=CNN_PATH)
    ap.add_argument("--leave-out", nargs="*", default=[])
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget-s", type=float, default=1500.0, help="stop after the epoch that passes this")
    ap.add_argument("--bg-keep", type=float, default=0.4, help="share of background samples trained on")
    ap.add_argument("--batch", type=int, default=64)
    a = ap.parse_args()
    x, y, xc, yc, used = load_data(a.data, set(a.leave_out), seed=a.seed, bg_keep=a.bg_keep)
    print(f"designs: {', '.join(used)}; left out: {', '.join(a.leave_out) or 'none'}")
    print(f"samples: {len(y)} ({int((y != BG_CLASS).sum())} indices)", flush=True)
    model = train(x, y, xc, yc, epochs=a.epochs, seed=a.seed, batch=a.batch, budget_s=a.budget_s)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(a.out, **model)
    print(f"saved {a.out} ({a.out.stat().st_size / 1024:.0f} KiB)")


if __name__ == "__main__":
    main()
