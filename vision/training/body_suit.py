"""The recipe of the two suit networks: the body strip's and the index's (read by :mod:`vision.cardnet.body`, :mod:`vision.cardnet.index_suit`).

Why (issue 25): what the zero-shot reader still asks on is a suit between twins, ♣/♠ on plastic and
♦/♥ on tango, read from the index's small pip.  A fanned card shows more of itself than its index:
the strip left of the next card, 10–30 mm wide and the card's height, where a number card's pips lie
large.  The shipped embedding, which learned indices, reads a suit there no better than 55 % of the
time on designs it never saw (docs/performance.md, 2026-12-05, fourth session); a small network
trained on the strip alone (below the index, so that the two are separate evidence) reads it far
better, and the reader weighs its word where the index left doubt.

    python -m vision.training.body_suit data --zones 2500 --seed 1 --out BODY     # training designs + font decks
    python -m vision.training.body_suit data --zones 2500 --seed 2 --out BODY
    python -m vision.training.body_suit data --held-out --zones 600 --seed 9 --out BODY
    python -m vision.training.body_suit train BODY --size lite --epochs 8 --out body_lite.pt   # ~10 min, 2 cores
    python -m vision.training.body_suit export BODY body_lite.pt --size lite --out vision/models/cardnet_body.onnx

The index's suit network (``models/cardnet_index_suit.onnx``, read by :mod:`vision.cardnet.index_suit`) is the
same network on the card's corner at a finer scale (``--region index``): its data adds :data:`SUITLESS_DECKS`
font decks whose corner prints no suit, taught as any suit alike (:data:`NO_SUIT`):

    python -m vision.training.body_suit data --region index --zones 2500 --seed 1 --out INDEX
    python -m vision.training.body_suit data --region index --zones 2500 --seed 2 --out INDEX
    python -m vision.training.body_suit data --region index --held-out --zones 600 --seed 9 --out INDEX
    python -m vision.training.body_suit train INDEX --size lite --epochs 8 --out index_lite.pt   # ~19 min, 2 cores
    python -m vision.training.body_suit export INDEX index_lite.pt --size lite --region index \
        --out vision/models/cardnet_index_suit.onnx

The shipped body network is what that gave on 2026-12-06 (21,096 strips; 8 epochs, 585 s on two cores; temperature
0.884 on the calibration designs).  Measured and not shipped (docs/performance.md): ``--size full``
(``candidates/body_suit_2026-12-05.pt``, 2.3 times the cost, asked as often within half a point), ``mid`` and
``small`` (``candidates/body_suit_small_2026-12-05.pt``), a strided first layer, which read tango's ♦/♥ worse.
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
from vision.cardnet.body import body_crop
from vision.cardnet.index_suit import index_crop
from vision.cardnet.prep import crops_to_input
from vision.cardnet.spec import BODY_CLASSES, BODY_H, BODY_W, PIP_H, PIP_W, body_class
from vision.cards import SUITS
from vision.synth import Realism, reprint

from .calibrate import CALIBRATION_DESIGNS
from .data import TRAIN_REALISM, deck_pool, render_sample

#: Font decks in each training shard's pool, beside the 23 training designs (each re-printed twice).
FONT_DECKS = 24
#: For the index network: font decks whose corner prints no suit, added to each shard's pool (the pool's
#: own 24 hold three or four), so that "no suit here" is learned from as many looks as a suit is.
SUITLESS_DECKS = 8


#: What each region's network reads: where it cuts a card, and its input's size (h, w).
REGIONS = {"body": (body_crop, (BODY_H, BODY_W)), "index": (index_crop, (PIP_H, PIP_W))}
#: A label meaning "this card shows no suit here" (a corner that prints none): taught as every suit alike.
NO_SUIT = -1


def suitless_font_seeds(n: int, start: int) -> list[int]:
    """The first ``n`` font-deck seeds from ``start`` whose corner prints no suit (:func:`corner_shows_no_suit`)."""
    out: list[int] = []
    k = start
    while len(out) < n:
        if corner_shows_no_suit(f"font-{k}"):
            out.append(k)
        k += 1
    return out


def corner_shows_no_suit(deck_name: str) -> bool:
    """Whether a font deck prints its suit beside the card's top edge, not under the rank (its style's
    draw, replayed from the deck's seed): its corner shows no suit."""
    if not deck_name.startswith("font-"):
        return False
    from vision.models.font_decks import _Style, index_fonts  # Pillow + fonts: training only

    return _Style(np.random.default_rng(int(deck_name[5:])), index_fonts()).pip_beside


def render_strips(held_out: bool, zones: int, seed: int, region: str = "body") -> dict[str, np.ndarray]:
    """Strips of ``zones`` rendered rows (corners known, ±1.5 mm off as the detector leaves them), with
    each card's label, rank, design and the room to the next card (mm; 99 for the last).  ``region``
    "index": the corner at the index network's scale; a corner that prints no suit is labelled
    :data:`NO_SUIT`."""
    crop = REGIONS[region][0]
    rng = np.random.default_rng(seed)
    if held_out:
        decks, realism = [load_deck(d) for d in HELD_OUT_DESIGNS], Realism()
    else:
        base = deck_pool(training_designs(), FONT_DECKS, font_seed0=2000 + 100 * seed)
        decks = list(base) + [reprint(d, rng) for d in base[:len(training_designs())] for _ in range(2)]
        if region == "index":  # corners that print no suit, with and without a large pip below
            from vision.models.font_decks import font_deck  # Pillow + fonts: training only

            decks += [font_deck(k) for k in suitless_font_seeds(SUITLESS_DECKS, 9000 + 1000 * seed)]
        realism = TRAIN_REALISM
    x, y, rank, design, room = [], [], [], [], []
    for _ in range(zones):
        deck = decks[rng.integers(len(decks))]
        z = render_sample(deck, rng, realism=realism)
        ppm = z.px_per_mm
        order = np.argsort(z.corners_px[:, 0])
        blind = region == "index" and corner_shows_no_suit(deck.design)
        for i, k in enumerate(order):
            cx, cy = z.corners_px[k] + rng.uniform(-1.5, 1.5, 2) * ppm
            x.append(crop(z.image, (cx, cy), ppm))
            joker = z.cards[k] in ("SJ", "BJ")
            y.append(NO_SUIT if blind and not joker else body_class(z.cards[k]))
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
    it (layouts differ; a court's art holds none).  Multiply-adds a strip: ``full`` 83 M, ``lite`` (the
    shipped one: full resolution for one layer, then pooled at once) 36 M, ``mid`` 23 M and ``small`` 10 M
    (a strided first layer, which reads tango's ♦/♥, alike in colour, worse)."""

    def __init__(self, size: str = "full") -> None:
        super().__init__()
        if size == "small":
            self.features = nn.Sequential(_cbr(3, 16, 2), _cbr(16, 24), nn.MaxPool2d(2), _cbr(24, 32), _cbr(32, 32),
                                          nn.MaxPool2d(2), _cbr(32, 48))
        elif size == "lite":
            self.features = nn.Sequential(_cbr(3, 24), nn.MaxPool2d(2), _cbr(24, 48), nn.MaxPool2d(2), _cbr(48, 64),
                                          _cbr(64, 64), nn.MaxPool2d(2), _cbr(64, 96))
        elif size == "mid":
            self.features = nn.Sequential(_cbr(3, 24, 2), _cbr(24, 32), nn.MaxPool2d(2), _cbr(32, 48), _cbr(48, 48),
                                          nn.MaxPool2d(2), _cbr(48, 64), _cbr(64, 64))
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


def train(data: dict[str, np.ndarray], epochs: int, out: Path, seed: int = 0, size: str = "full") -> BodyNet:
    """AdamW with one cycle, label smoothing, mirrored strips (every pip is symmetric left to right);
    saved after each epoch (a session may end mid-run)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    net = BodyNet(size)
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
            loss = _loss(net(xb), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
        torch.save(net.state_dict(), out)
        print(f"epoch {epoch}: loss {loss.item():.3f}, {time.time() - t0:.0f} s", flush=True)
    return net


def _loss(logits: torch.Tensor, y: np.ndarray) -> torch.Tensor:
    """Cross-entropy with label smoothing; a :data:`NO_SUIT` strip's target is the four suits alike."""
    k = len(BODY_CLASSES)
    target = np.full((len(y), k), 0.05 / k, np.float32)
    known = y >= 0
    target[np.flatnonzero(known), y[known]] += 0.95
    target[~known, :len(SUITS)] = 1.0 / len(SUITS)
    target[~known, len(SUITS):] = 0.0
    return -(torch.from_numpy(target) * F.log_softmax(logits, dim=1)).sum(dim=1).mean()


def _logits(net: BodyNet, x: np.ndarray) -> np.ndarray:
    net.eval()
    with torch.no_grad():
        return torch.cat([net(torch.from_numpy(crops_to_input(x[i:i + 512]))) for i in range(0, len(x), 512)]
                         ).numpy().astype(np.float64)


def _softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def temperature(logits: np.ndarray, data: dict[str, np.ndarray]) -> float:
    """The temperature that makes the calibration designs' strips likeliest (never the training designs',
    on which the network is over-sure; nor the other held-out designs', on which it is judged)."""
    y, cal = data["y"], np.isin(data["design"], CALIBRATION_DESIGNS) & (data["y"] >= 0)
    temps = np.exp(np.linspace(np.log(0.3), np.log(8.0), 80))
    return float(min(temps, key=lambda t: float(-np.log(_softmax(logits[cal] / t)[np.arange(cal.sum()), y[cal]]
                                                         + 1e-12).mean())))


def evaluate(net: BodyNet, data: dict[str, np.ndarray]) -> float:
    """Per held-out design: number cards and the others apart; returns the temperature."""
    logits = _logits(net, data["x"])
    t = temperature(logits, data)
    y = data["y"]
    p = _softmax(logits / t)
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
    return t


class _Scaled(nn.Module):
    """The network with its temperature inside, as the reader loads it (one file, nothing to pair)."""

    def __init__(self, net: BodyNet, t: float) -> None:
        super().__init__()
        self.net, self.t = net, t

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x) / self.t


def add_feature_map(path: Path) -> None:
    """Give the ONNX file at ``path`` a second output, ``m``: its last convolution's map (after the ReLU)
    before the mean over the strip.

    Why: an enrolled deck's own suit head (:mod:`vision.cardnet.deck_body`) reads where on the strip
    a feature lies (the pips low or high, a court's art), which the mean loses; one run gives both.
    The body network shipped on 2026-12-06 had it added so (its ``y`` unchanged, bit for bit)."""
    import onnx  # lazy: the train extra's, needed by this step alone
    from onnx import TensorProto, helper

    model = onnx.load(str(path))
    if any(o.name == "m" for o in model.graph.output):
        return
    pool = next(n for n in model.graph.node if n.op_type == "ReduceMean")
    model.graph.node.append(helper.make_node("Identity", [pool.input[0]], ["m"], name="feature_map"))
    model.graph.output.append(helper.make_tensor_value_info("m", TensorProto.FLOAT, ["n", None, None, None]))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))


def export(net: BodyNet, t: float, out: Path, region: str = "body") -> None:
    """ONNX for OpenCV's ``dnn`` (opset 13, the batch free), checked against torch on random strips."""
    h, w = REGIONS[region][1]
    import warnings

    scaled = _Scaled(net, t).eval()  # the export restores the mode it found, recursively: eval before
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(scaled, torch.zeros(1, 3, h, w), str(out), input_names=["x"], output_names=["y"],
                          dynamic_axes={"x": {0: "n"}}, dynamo=False, opset_version=13)
    if region == "body":
        add_feature_map(out)
    x = np.random.default_rng(0).standard_normal((7, 3, h, w)).astype(np.float32)
    d = cv2.dnn.readNetFromONNX(str(out), engine=cv2.dnn.ENGINE_CLASSIC)
    d.setInput(x)
    with torch.no_grad():
        diff = float(np.abs(np.array(d.forward("y")) - scaled(torch.from_numpy(x)).numpy()).max())
    if diff > 1e-3:
        raise SystemExit(f"the exported network differs from torch's by {diff}")
    print(f"{out}: {out.stat().st_size} bytes, temperature {t:.3f}, OpenCV within {diff:.1e} of torch")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    d = sub.add_parser("data")
    d.add_argument("--held-out", action="store_true")
    d.add_argument("--zones", type=int, default=2500)
    d.add_argument("--seed", type=int, default=1)
    d.add_argument("--out", type=Path, required=True)
    d.add_argument("--region", choices=tuple(REGIONS), default="body", help="where the strip is cut")
    t = sub.add_parser("train")
    t.add_argument("data", type=Path)
    t.add_argument("--epochs", type=int, default=5)
    t.add_argument("--out", type=Path, default=Path("body_suit.pt"))
    t.add_argument("--size", choices=("full", "lite", "mid", "small"), default="lite", help="BodyNet's size")
    e = sub.add_parser("evaluate")
    e.add_argument("data", type=Path)
    e.add_argument("model", type=Path)
    e.add_argument("--size", choices=("full", "lite", "mid", "small"), default="lite")
    x = sub.add_parser("export", help="temperature on the calibration designs, then ONNX for the reader")
    x.add_argument("data", type=Path)
    x.add_argument("model", type=Path)
    x.add_argument("--size", choices=("full", "lite", "mid", "small"), default="lite")
    x.add_argument("--out", type=Path, required=True)
    x.add_argument("--region", choices=tuple(REGIONS), default="body")
    a = ap.parse_args()
    cv2.setNumThreads(1)
    if a.cmd == "data":
        a.out.mkdir(parents=True, exist_ok=True)
        strips = render_strips(a.held_out, a.zones, a.seed, a.region)
        (a.out / f"{'held' if a.held_out else 'train'}-{a.seed}.pkl").write_bytes(pickle.dumps(strips, protocol=5))
        print(f"{len(strips['y'])} strips")
    elif a.cmd == "train":
        torch.set_num_threads(2)
        train(_load(a.data, False), a.epochs, a.out, size=a.size)
    else:
        net = BodyNet(a.size)
        net.load_state_dict(torch.load(a.model, map_location="cpu"))
        t = evaluate(net, _load(a.data, True))
        if a.cmd == "export":
            export(net, t, a.out, a.region)


if __name__ == "__main__":
    main()
