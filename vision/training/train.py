"""Train the card-first reader's two networks and export them to ONNX (``python -m vision.training.train``).

The recipe (runs on a 2-core CPU in about an hour; a GPU only makes it faster).  ``vision/models``
holds what it produced on 2026-12-02 (docs/performance.md):

1. ``python -m vision.training.make_data --zones 3200 --shards 16 --out DATA`` renders the
   training zones from every French-suited gnome-cards design except the held-out ones, each
   re-printed, and synthetic font decks (``fonts-dejavu-core``, ``fonts-liberation``);
   ``npm pack @heruka_urgyen/react-playing-cards @younestouati/playing-cards-standard-deck
   @letele/playing-cards`` and ``tar xzf`` each into SVG/, ``node vision/training/letele_svgs.mjs
   SVG/…/letele…/package/dist/index.esm.js SVG/letele/cards`` (that deck ships as JavaScript), then
   ``make_data --svg-decks SVG --zones 1500 --shards 5 --out SVGDATA``;
   ``make_data --fonts-only --fonts 8 --zones 1600 --shards 8 --seed 800 --out FONTDATA`` renders
   64 more font decks (one in seven with the suit at the top-right);
   ``make_data --held-out --zones 600 --shards 4 --out CAL`` renders the held-out designs.
2. ``python -m vision.training.train detector DATA --epochs 12`` and
   ``python -m vision.training.train classifier DATA SVGDATA FONTDATA --epochs 10 --vary`` write
   ``cardnet_detector.onnx``, ``cardnet_embed.onnx`` and ``cardnet_head.npz`` (``--out``).
   ``--vary`` prints each crop anew per step (:func:`vision.training.data.vary_crops`: index size,
   ink weight, blur, hue, and since 2026-12-03 all ink in one random colour for 15 % of crops);
   the shipped classifier (2026-12-02, later) was trained so, before @letele, the JOKER/Joker
   font decks and the ink recolour (the candidates trained with them, 2026-12-03, read more cards
   right but were not shipped: docs/performance.md).
3. ``python -m vision.training.calibrate CAL`` fits the temperature and the corner model on the
   calibration designs and prints the play bar's curve.

Font decks draw from every installed typeface (``vision.models.font_decks``): for the candidates
of 2026-12-03 (later) ``apt-get install`` the font packages docs/performance.md lists (340 fonts
in 81 families) before ``make_data --fonts-only --fonts 32 --zones 3200 --shards 8 --seed 900``.

On a lent GPU machine (no rsvg-convert, no fonts, at most 64 MiB carried; 16 cores): here,
``python -m vision.training.carry pack .train --svg-decks SVG`` (the training sheets scaled to 0.7 as
WebP, two fonts a family, the npm decks as rasters: ~45 MB); there, ``carry unpack .train`` and three
``make_data --classifier-only --seconds S`` at once (gnome designs with 4 font decks a shard, the npm
decks, 40 font decks a shard; 15 shards, one a core), then ``train classifier ... --vary --device cuda
--workers 15 --batch 256 --minutes M`` (the learning rate's cycle follows the clock; each epoch is
exported). The crops' printing in the loader workers, not the GPU, sets the pace: ~10,000 crops/s.
``vision/training/lent_machine.sh`` is that run as one script (what made the candidate below).

``vision/training/candidates/cardnet_g2_2026-12-04.pt`` is the classifier such a run gave on an H200
(218,132 crops rendered there in 200 s, 8 epochs in 3 min, then ``--init`` it, ``--lr 1.5e-3``, 11
epochs in 4.3 min). It reads unseen designs better zero-shot (98.5 against 97.3 % a card, 35 against
40 % of plays asked) but a table learning an unenrolled deck with it asked 17.5 % of the 4th deal's
plays against 5.6 %, so it is not shipped (docs/performance.md, 2026-12-04, evening). It is kept to go
on from (``--init``): a CPU session cannot afford its 19 epochs.

Debian's ``pokerth-data`` (named by issue 25 as training artwork) was looked at on 2026-12-05 and
not used: its three decks (``gfx/cards/default``, ``default4c``, ``default_800x480``) are 48 × 76 px
rasters, about 0.85 px/mm, under the camera's 2 px/mm; a crop drawn from them is an upscaled blur,
not a glyph style a table's camera would see.

To try more data without training from scratch: ``make_data --fonts-only`` renders font decks alone,
and ``train classifier DATA... --init cardnet_classifier.pt --lr 3e-4 --epochs 2 --out DIR`` goes on
from a saved classifier (the font experiment in docs/performance.md was run so; it was not shipped).
Write to ``--out`` elsewhere than ``vision/models`` until the benchmark says the result is better.
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F

from vision.cardnet.prep import crops_to_input, zone_to_input
from vision.cardnet.spec import CROP_H, CROP_W, DET_STRIDE, N_CLASSES

from .data import vary_crops
from .make_data import load_shards
from .nets import RANK_OF, SUIT_OF, CardNet, CornerNet

MODELS = Path(__file__).resolve().parent.parent / "models"


# --------------------------------------------------------------------------- detector


def _targets(img_hw: tuple[int, int], corners: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, ...]:
    """Heatmap (gaussian, sigma 0.8 cells), offsets and their weight, cover — all at stride 4."""
    h, w = img_hw[0] // DET_STRIDE, img_hw[1] // DET_STRIDE
    heat = np.zeros((h, w), np.float32)
    off = np.zeros((2, h, w), np.float32)
    offw = np.zeros((h, w), np.float32)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    for x, y in corners:
        cx, cy = x / DET_STRIDE, y / DET_STRIDE
        if not (-1 <= cx < w + 1 and -1 <= cy < h + 1):
            continue
        g = np.exp(-((xx + 0.5 - cx) ** 2 + (yy + 0.5 - cy) ** 2) / (2 * 0.8**2))
        np.maximum(heat, g, out=heat)
        j, i = int(np.floor(cx)), int(np.floor(cy))
        if 0 <= i < h and 0 <= j < w:
            heat[i, j] = 1.0
            off[:, i, j] = (cx - j, cy - i)
            offw[i, j] = 1.0
    cover = mask[: h * DET_STRIDE, : w * DET_STRIDE].reshape(h, DET_STRIDE, w, DET_STRIDE).mean(axis=(1, 3))
    return heat, off, offw, cover.astype(np.float32)


def _det_batch(data: dict, idx: np.ndarray, rng: np.random.Generator, ch: int, cw: int):
    xs, hs, os_, ows, cs = [], [], [], [], []
    for k in idx:
        img, corners, mask = data["det_x"][k], data["det_y"][k], data["det_m"][k]
        h, w = img.shape[:2]
        if len(corners) and rng.random() < 0.8:
            c = corners[rng.integers(len(corners))]
            x0 = int(np.clip(c[0] - rng.uniform(0.2, 0.8) * cw, 0, max(w - cw, 0)))
            y0 = int(np.clip(c[1] - rng.uniform(0.1, 0.6) * ch, 0, max(h - ch, 0)))
        else:
            x0, y0 = int(rng.integers(0, max(w - cw, 0) + 1)), int(rng.integers(0, max(h - ch, 0) + 1))
        x0 -= x0 % DET_STRIDE
        y0 -= y0 % DET_STRIDE
        crop = img[y0:y0 + ch, x0:x0 + cw]
        m = mask[y0:y0 + ch, x0:x0 + cw]
        if crop.shape[0] < ch or crop.shape[1] < cw:
            crop = np.pad(crop, ((0, ch - crop.shape[0]), (0, cw - crop.shape[1]), (0, 0)), mode="edge")
            m = np.pad(m, ((0, ch - m.shape[0]), (0, cw - m.shape[1])))
        # Colour and level jitter: felt and light of venues nobody rendered.
        crop = np.clip(crop.astype(np.float32) * rng.uniform(0.7, 1.2, 3) + rng.uniform(-20, 20), 0, 255).astype(np.uint8)
        heat, off, offw, cover = _targets((ch, cw), corners - (x0, y0), m)
        xs.append(zone_to_input(crop)[0])
        hs.append(heat)
        os_.append(off)
        ows.append(offw)
        cs.append(cover)
    t = torch.from_numpy
    return t(np.stack(xs)), t(np.stack(hs)), t(np.stack(os_)), t(np.stack(ows)), t(np.stack(cs))


def focal_loss(logit: torch.Tensor, heat: torch.Tensor) -> torch.Tensor:
    """CenterNet's penalty-reduced focal loss (few positives among thousands of cells)."""
    p = torch.sigmoid(logit).clamp(1e-4, 1 - 1e-4)
    pos = heat.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(p) * (1 - p) ** 2 * pos
    neg_loss = torch.log(1 - p) * p**2 * (1 - heat) ** 4 * neg
    n = pos.sum().clamp(min=1)
    return -(pos_loss.sum() + neg_loss.sum()) / n


def train_detector(data: dict, epochs: int, out: Path, seed: int = 0, batch: int = 16,
                   crop: tuple[int, int] = (160, 256)) -> None:
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = CornerNet()
    n = len(data["det_x"])
    steps = epochs * (n // batch)
    opt = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    net.train()
    t0 = time.time()
    step = 0
    for ep in range(epochs):
        perm = rng.permutation(n)
        tot = 0.0
        for b in range(n // batch):
            x, heat, off, offw, cover = _det_batch(data, perm[b * batch:(b + 1) * batch], rng, *crop)
            y = net(x)
            loss = (focal_loss(y[:, 0], heat)
                    + (F.l1_loss(torch.sigmoid(y[:, 1:3]), off, reduction="none").sum(1) * offw).sum() / offw.sum().clamp(min=1)
                    + 0.5 * F.binary_cross_entropy_with_logits(y[:, 3], cover))
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            step += 1
            tot += loss.item()
        print(f"detector epoch {ep + 1}/{epochs} loss {tot / max(n // batch, 1):.4f} {time.time() - t0:.0f} s", flush=True)
    net.eval()
    export(net, out, (1, 3, 228, 480), {"x": {2: "h", 3: "w"}})


class _Sigmoid01(torch.nn.Module):
    """The exported detector gives probabilities and offsets in cells, not logits."""

    def __init__(self, net: torch.nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.net(x))


# --------------------------------------------------------------------------- classifier


def _classifier_input(x: np.ndarray, rng: np.random.Generator, vary: bool) -> np.ndarray:
    """One batch of uint8 crops as the network's input, printed anew (``vary``) and lit anew."""
    xb = vary_crops(x, rng) if vary else x.astype(np.float32)
    # Light, cast and sensor noise per crop, on top of what the renderer drew.
    xb = xb * rng.uniform(0.75, 1.2, (len(x), 1, 1, 3)) + rng.normal(0, 3, xb.shape)
    return crops_to_input(np.clip(xb, 0, 255))


class _Batches(torch.utils.data.Dataset):
    """Batch ``k`` of an epoch's permutation, prepared in a loader worker (the crops' printing and
    lighting are numpy and OpenCV work: on a GPU machine they, not the network, set the pace)."""

    def __init__(self, x: np.ndarray, y: np.ndarray, perm: np.ndarray, batch: int, seed: int, vary: bool) -> None:
        self.x, self.y, self.perm, self.batch, self.seed, self.vary = x, y, perm, batch, seed, vary

    def __len__(self) -> int:
        return len(self.perm) // self.batch

    def __getitem__(self, k: int) -> tuple[torch.Tensor, torch.Tensor]:
        idx = np.sort(self.perm[k * self.batch:(k + 1) * self.batch])
        rng = np.random.default_rng((self.seed, k))
        return torch.from_numpy(_classifier_input(self.x[idx], rng, self.vary)), torch.from_numpy(self.y[idx])


def _lr_at(frac: float, peak: float, warm: float = 0.15) -> float:
    """One cycle over the run's progress ``frac`` (steps or seconds): a linear warm-up, a cosine down."""
    if frac < warm:
        return peak * (0.04 + 0.96 * frac / warm)
    return peak * (0.5 * (1 + math.cos(math.pi * min((frac - warm) / (1 - warm), 1.0))) + 1e-3)


def train_classifier(data: dict, epochs: int, out: Path, seed: int = 0, batch: int = 128,
                     init: Path | None = None, lr: float = 3e-3, vary: bool = False,
                     factorised: bool = False, device: str = "cpu", workers: int = 0,
                     minutes: float | None = None) -> CardNet:
    """Train (or, from ``init``'s state dict, go on training) the crop classifier and export it.

    ``factorised``: two more heads read the rank and the suit apart (loss weight 0.5 each; not
    exported), so the hidden layer holds them as two features rather than 54 glyph pictures.
    ``minutes``: the learning rate's cycle runs over wall time and training stops when it is spent
    (a lent machine's minutes are counted; ``epochs`` is then only an upper bound); the networks are
    exported after every epoch, so a run cut short still leaves its last whole epoch.
    """
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    x_all = np.concatenate(data["cls_x"])
    y_all = np.concatenate(data["cls_y"]).astype(np.int64)
    net = CardNet(factorised=factorised)
    if init is not None:
        net.load_state_dict(torch.load(init, weights_only=True), strict=not factorised)
    net.to(device)
    rank_of, suit_of = torch.tensor(RANK_OF, device=device), torch.tensor(SUIT_OF, device=device)
    n = len(y_all)
    steps = epochs * (n // batch)
    opt = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=5e-4)
    t0 = time.time()
    step = 0
    print(f"classifier: {n} crops, batch {batch}, on {device}, {workers} loader workers", flush=True)
    for ep in range(epochs):
        net.train()
        loader = torch.utils.data.DataLoader(_Batches(x_all, y_all, rng.permutation(n), batch, seed * 1000 + ep, vary),
                                             batch_size=None, shuffle=False, num_workers=workers,
                                             pin_memory=device != "cpu", prefetch_factor=4 if workers else None)
        tot, right, seen, done = 0.0, 0, 0, False
        for xb, yb in loader:
            frac = (time.time() - t0) / (60 * minutes) if minutes else step / steps
            if frac >= 1.0:
                done = True
                break
            for g in opt.param_groups:
                g["lr"] = _lr_at(frac, lr)
            x, y = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
            logit, rank, suit = net.forward_all(x)
            loss = F.cross_entropy(logit, y, label_smoothing=0.02)
            if rank is not None and suit is not None:
                loss = loss + 0.5 * (F.cross_entropy(rank, rank_of[y]) + F.cross_entropy(suit, suit_of[y]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            tot += loss.item()
            right += int((logit.argmax(1) == y).sum())
            seen += len(y)
        print(f"classifier epoch {ep + 1}/{epochs} loss {tot / max(seen // batch, 1):.4f} "
              f"train acc {right / max(seen, 1):.4f} {time.time() - t0:.0f} s", flush=True)
        if done or ep + 1 == epochs:
            break
        if minutes:  # a lent machine may be taken back: each whole epoch is kept
            net.eval()
            export_classifier(net.to("cpu"), out)
            net.to(device)
    net.eval()
    net.to("cpu")
    export_classifier(net, out)
    return net


def export_classifier(net: CardNet, out: Path) -> None:
    """The convolutions to ONNX (crop -> features); the two-layer head to an .npz (enrolment and
    play fine-tune it); the whole state dict beside them, to retrain from."""
    export(net.body, out / "cardnet_embed.onnx", (1, 3, CROP_H, CROP_W), {"x": {0: "n"}})
    lin1, lin2 = net.embed[0], net.out
    np.savez(out / "cardnet_head.npz",
             w1=lin1.weight.detach().numpy().T.astype(np.float32), b1=lin1.bias.detach().numpy().astype(np.float32),
             w2=lin2.weight.detach().numpy().T.astype(np.float32), b2=lin2.bias.detach().numpy().astype(np.float32),
             temperature=np.float32(1.0), n_classes=np.int32(N_CLASSES))
    torch.save(net.state_dict(), out / "cardnet_classifier.pt")


def export(net: torch.nn.Module, path: Path, shape: tuple[int, ...], dynamic: dict) -> None:
    import warnings

    if path.name.startswith("cardnet_detector") or "detector" in str(path):
        net = _Sigmoid01(net)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(net, torch.zeros(*shape), str(path), input_names=["x"], output_names=["y"],
                          dynamic_axes=dynamic, dynamo=False, opset_version=13)
    print("wrote", path, flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("what", choices=["detector", "classifier"])
    ap.add_argument("data", nargs="+", help="folders of shards (make_data --out)")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--out", default=str(MODELS))
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--init", type=Path, default=None, help="classifier: go on from this state dict (.pt)")
    ap.add_argument("--lr", type=float, default=3e-3, help="peak learning rate (one-cycle)")
    ap.add_argument("--vary", action="store_true", help="classifier: vary each crop as other decks print (vary_crops)")
    ap.add_argument("--factorised", action="store_true", help="classifier: also learn rank and suit apart (training-only heads)")
    ap.add_argument("--device", default="cpu", help="classifier: torch device (cuda where a GPU is lent)")
    ap.add_argument("--workers", type=int, default=0, help="classifier: loader processes printing the crops")
    ap.add_argument("--batch", type=int, default=128, help="classifier: crops a step")
    ap.add_argument("--minutes", type=float, default=None,
                    help="classifier: train for this wall time (the learning rate's cycle follows it)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    data = load_shards(a.data[0])
    for extra in a.data[1:]:
        more = load_shards(extra)
        for k in data:
            data[k] += more[k]
    out = Path(a.out)
    if a.what == "detector":
        train_detector(data, a.epochs, out / "cardnet_detector.onnx")
    else:
        train_classifier(data, a.epochs, out, init=a.init, lr=a.lr, vary=a.vary, factorised=a.factorised,
                         device=a.device, workers=a.workers, batch=a.batch, minutes=a.minutes)


if __name__ == "__main__":
    main()
