"""A candidate, not shipped: a card's suit read from the strip of its body below the index.

Why (issue 25): what the zero-shot reader still asks on is a suit between twins, ♣/♠ on plastic and
♦/♥ on tango, read from the index's small pip.  A fanned card shows more of itself than its index:
the strip left of the next card, 10–30 mm wide and the card's height, where a number card's pips lie
large.  The shipped embedding, which learned indices, reads a suit there no better than 55 % of the
time on designs it never saw (docs/performance.md, 2026-12-05, fourth session); this small network,
trained on the strip alone (below the index, so that the two would be separate evidence), reads it
far better on some designs.  It is kept here, with the figures, to go on from: the reader does not
use it yet (how its word and the index's combine has to be measured on whole plays first).

    python -m vision.training.body_suit data --zones 2500 --seed 1 --out BODY     # training designs + font decks
    python -m vision.training.body_suit data --held-out --zones 600 --seed 9 --out BODY
    python -m vision.training.body_suit train BODY --epochs 5 --out body_suit.pt    # ~15 min on 2 cores
    python -m vision.training.body_suit evaluate BODY body_suit.pt

``candidates/body_suit_2026-12-05.pt`` is what that gave (two ``data`` runs of 2,500 zones, seeds 1 and 2:
21,096 crops; 5 epochs, 856 s on two cores shared with other work); ``candidates/body_suit_small_2026-12-05.pt``
the same with ``--small`` (8 epochs, 627 s).
"""

from __future__ import annotations

import argparse
import pickle
import time
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from vision.artwork import HELD_OUT_DESIGNS, load_deck, training_designs
from vision.cardnet.prep import crops_to_input
from vision.cards import SUITS
from vision.synth import Realism, reprint

from .calibrate import CALIBRATION_DESIGNS
from .data import TRAIN_REALISM, deck_pool, render_sample

#: The strip read, in mm from the card's top-left corner: below the index (which ends ~30 mm down on
#: every design here), as wide as the narrowest fan leaves a card, to the card's foot.
BODY_X_MM = (-1.0, 19.0)
BODY_Y_MM = (30.0, 86.0)
#: The strip's scale: pips are 5–15 mm, so 2 px/mm keeps them and the network small.
BODY_PPM = 2.0
BODY_W = int(round((BODY_X_MM[1] - BODY_X_MM[0]) * BODY_PPM))
BODY_H = int(round((BODY_Y_MM[1] - BODY_Y_MM[0]) * BODY_PPM))
#: Classes: the four suits, then a joker.
BODY_CLASSES: tuple[str, ...] = (*SUITS, "joker")
#: Font decks in each training shard's pool, beside the 23 training designs (each re-printed twice).
FONT_DECKS = 24


def body_crop(zone_bgr: np.ndarray, corner_px: tuple[float, float], px_per_mm: float) -> np.ndarray:
    """The BODY_H x BODY_W strip of the card whose top-left corner lies at ``corner_px``."""
    s = px_per_mm / BODY_PPM
    m = np.array([[s, 0.0, corner_px[0] + BODY_X_MM[0] * px_per_mm],
                  [0.0, s, corner_px[1] + BODY_Y_MM[0] * px_per_mm]], np.float64)
    img = zone_bgr
    if px_per_mm > BODY_PPM * 1.2:  # warpAffine has no area filter: blur first, as cardnet.crops does
        img = cv2.GaussianBlur(zone_bgr, (0, 0), 0.45 * px_per_mm / BODY_PPM)
    return cv2.warpAffine(img, m, (BODY_W, BODY_H), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                          borderMode=cv2.BORDER_REPLICATE)


def body_label(card: str) -> int:
    return len(SUITS) if card in ("SJ", "BJ") else SUITS.index(card[1])


def render_strips(held_out: bool, zones: int, seed: int) -> dict[str, np.ndarray]:
    """Strips of ``zones`` rendered rows (corners known, ±1.5 mm off as the detector leaves them), with
    each card's label, rank, design and the room to the next card (mm; 99 for the last)."""
    rng = np.random.default_rng(seed)
    if held_out:
        decks, realism = [load_deck(d) for d in HELD_OUT_DESIGNS], Realism()
    else:
        base = deck_pool(training_designs(), FONT_DECKS, font_seed0=2000 + 100 * seed)
        decks = list(base) + [reprint(d, rng) for d in base[:len(training_designs())] for _ in range(2)]
        realism = TRAIN_REALISM
    x, y, rank, design, room = [], [], [], [], []
    for _ in range(zones):
        deck = decks[rng.integers(len(decks))]
        z = render_sample(deck, rng, realism=realism)
        ppm = z.px_per_mm
        order = np.argsort(z.corners_px[:, 0])
        for i, k in enumerate(order):
            cx, cy = z.corners_px[k] + rng.uniform(-1.5, 1.5, 2) * ppm
            x.append(body_crop(z.image, (cx, cy), ppm))
            y.append(body_label(z.cards[k]))
            rank.append(z.cards[k][0])
            design.append(deck.design)
            room.append((z.corners_px[order[i + 1], 0] - z.corners_px[k, 0]) / ppm if i + 1 < len(order) else 99.0)
    return {"x": np.stack(x), "y": np.array(y), "rank": np.array(rank), "design": np.array(design),
            "room": np.array(room)}


def _cbr(cin: int, cout: int, stride: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class BodyNet(nn.Module):
    """3x3 convolutions and poolings, then the mean over the strip: a pip counts wherever the design puts
    it (layouts differ; a court's art holds none).  The full network is ~160 MFLOP a strip; ``small``
    (a strided first layer, fewer channels) ~20, what a Pi could afford for every card of a play."""

    def __init__(self, small: bool = False) -> None:
        super().__init__()
        if small:
            self.features = nn.Sequential(_cbr(3, 16, 2), _cbr(16, 24), nn.MaxPool2d(2), _cbr(24, 32), _cbr(32, 32),
                                          nn.MaxPool2d(2), _cbr(32, 48))
        else:
            self.features = nn.Sequential(_cbr(3, 24), _cbr(24, 24), nn.MaxPool2d(2), _cbr(24, 48), _cbr(48, 48),
                                          nn.MaxPool2d(2), _cbr(48, 64), _cbr(64, 64), nn.MaxPool2d(2), _cbr(64, 96))
        self.out = nn.Linear(self.features[-1][0].out_channels, len(BODY_CLASSES))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.features(x).mean(dim=(2, 3)))


def _load(folder: Path, held_out: bool) -> dict[str, np.ndarray]:
    parts = [pickle.loads(p.read_bytes()) for p in sorted(folder.glob(f"{'held' if held_out else 'train'}-*.pkl"))]
    if not parts:
        raise SystemExit(f"no {'held-out' if held_out else 'training'} strips in {folder}")
    return {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}


def train(data: dict[str, np.ndarray], epochs: int, out: Path, seed: int = 0, small: bool = False) -> BodyNet:
    """AdamW with one cycle, label smoothing, mirrored strips (every pip is symmetric left to right);
    saved after each epoch (a session may end mid-run)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = BodyNet(small)
    x, y = data["x"], data["y"]
    n = len(y)
    opt = torch.optim.AdamW(net.parameters(), 2e-3, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, 3e-3, total_steps=epochs * (n // 128))
    t0 = time.time()
    for epoch in range(epochs):
        net.train()
        perm = rng.permutation(n)
        for s in range(0, n - 127, 128):
            idx = perm[s:s + 128]
            xb = torch.from_numpy(crops_to_input(x[idx]))
            if rng.random() < 0.5:
                xb = xb.flip(3)
            loss = F.cross_entropy(net(xb), torch.from_numpy(y[idx]).long(), label_smoothing=0.05)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        torch.save(net.state_dict(), out)
        print(f"epoch {epoch}: loss {loss.item():.3f}, {time.time() - t0:.0f} s", flush=True)
    return net


def evaluate(net: BodyNet, data: dict[str, np.ndarray]) -> None:
    """Per held-out design: number cards and the others apart; the temperature fitted on the
    calibration designs only, as the reader's is."""
    net.eval()
    with torch.no_grad():
        logits = torch.cat([net(torch.from_numpy(crops_to_input(data["x"][i:i + 512])))
                            for i in range(0, len(data["y"]), 512)]).numpy().astype(np.float64)
    y = data["y"]
    cal = np.isin(data["design"], CALIBRATION_DESIGNS)

    def probs(t: float) -> np.ndarray:
        z = logits / t
        e = np.exp(z - z.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    temps = np.exp(np.linspace(np.log(0.3), np.log(8.0), 80))
    t = min(temps, key=lambda t: float(-np.log(probs(t)[cal, y[cal]] + 1e-12).mean()))
    p = probs(t)
    right = p.argmax(axis=1) == y
    sure = p.max(axis=1) >= 0.9
    number = np.isin(data["rank"], list("23456789T"))
    print(f"temperature {t:.3f} (calibration designs {', '.join(CALIBRATION_DESIGNS)})")
    for d in sorted(set(data["design"].tolist())):
        for name, which in (("2-10", number), ("A, courts, jokers", ~number)):
            m = (data["design"] == d) & which
            s = m & sure
            print(f"{d:22s} {name:18s} right {right[m].mean():6.1%} of {m.sum():4d}; at p >= 0.9: "
                  f"{s.sum() / max(m.sum(), 1):5.1%} of them, {right[s].mean() if s.any() else float('nan'):6.1%} right")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data")
    d.add_argument("--held-out", action="store_true")
    d.add_argument("--zones", type=int, default=2500)
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--out", type=Path, required=True)
    t = sub.add_parser("train")
    t.add_argument("data", type=Path)
    t.add_argument("--epochs", type=int, default=5)
    t.add_argument("--out", type=Path, default=Path("body_suit.pt"))
    t.add_argument("--small", action="store_true", help="the ~20 MFLOP network (BodyNet(small=True))")
    e = sub.add_parser("evaluate")
    e.add_argument("data", type=Path)
    e.add_argument("model", type=Path)
    e.add_argument("--small", action="store_true")
    a = ap.parse_args()
    cv2.setNumThreads(1)
    if a.cmd == "data":
        a.out.mkdir(parents=True, exist_ok=True)
        strips = render_strips(a.held_out, a.zones, a.seed)
        (a.out / f"{'held' if a.held_out else 'train'}-{a.seed}.pkl").write_bytes(pickle.dumps(strips, protocol=5))
        print(f"{len(strips['y'])} strips")
    elif a.cmd == "train":
        torch.set_num_threads(2)
        train(_load(a.data, False), a.epochs, a.out, small=a.small)
    else:
        net = BodyNet(a.small)
        net.load_state_dict(torch.load(a.model, map_location="cpu"))
        evaluate(net, _load(a.data, True))


if __name__ == "__main__":
    main()
