"""Smaller networks taught by the shipped ones (``python -m vision.training.distill``): the read-time goal.

Why (issue 25): a 10-card zone must be read in at most 30 ms of one core here (a Raspberry Pi's core
is 2-4x slower).  The shipped crop network costs ~0.8 ms a crop (17 M multiply-adds; OpenCV's classic
engine runs near what the core gives) and the detector ~8 ms a zone, so the reads' time is the
networks', and only smaller networks make it shorter.  A smaller network trained from scratch would
read differently from the shipped one, and every fitted figure downstream of it (the head's
temperature, the corner model, each event's enrolment file, the table's learning) would have to be
fitted again.  A student taught to give the shipped network's *outputs* keeps them: the crop
network's student reproduces the 1,728 features the head reads (so the shipped head, the corner model
and an enrolment's head read its features as the teacher's), the detector's its heatmap, offsets and
card cover (so the peaks and the cover the reader uses mean what they meant).

Recipe (CPU, two cores; a GPU only makes it faster):
``python -m vision.training.make_data --zones 5000 --shards 2 --out DATA`` (training designs only),
then ``python -m vision.training.distill crop DATA --minutes M --out DIR`` and
``python -m vision.training.distill detector DATA --minutes M --out DIR``.  The teacher is read from
the shipped ONNX file itself (its convolutions, batch norm folded in), so nothing but the package is
needed to go on from it.  Write to ``--out`` elsewhere than ``vision/models`` until the benchmark says
the student reads as well.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from vision.cardnet.spec import CROP_H, CROP_W

from .make_data import load_shards
from .nets import CornerNet, card_body
from .train import MODELS, _classifier_input, _det_batch, _lr_at, export, focal_loss


class SmallCardNet(nn.Module):
    """The crop network's student: the teacher's convolutions (:func:`~vision.training.nets.card_body`,
    the same 96 x 6 x 3 features) with channels ``widths`` instead of 16-32-64-96, and no head."""

    def __init__(self, widths: tuple[int, int, int, int] = (8, 16, 32, 64)) -> None:
        super().__init__()
        self.body = card_body(widths)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.body(x)


def teacher_from_onnx(path: Path) -> nn.Sequential:
    """The shipped network as torch modules, from its ONNX file (Conv with folded batch norm, Relu,
    MaxPool, Flatten; a final Sigmoid is left off: the detector's student learns its logits)."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(path))
    weights = {i.name: torch.from_numpy(numpy_helper.to_array(i).copy()) for i in model.graph.initializer}
    layers: list[nn.Module] = []
    for node in model.graph.node:
        attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
        if node.op_type == "Conv":
            w = weights[node.input[1]]
            conv = nn.Conv2d(w.shape[1], w.shape[0], tuple(w.shape[2:]), stride=tuple(attrs.get("strides", (1, 1))),
                             padding=tuple(attrs.get("pads", (0, 0, 0, 0))[:2]),
                             dilation=tuple(attrs.get("dilations", (1, 1))), bias=len(node.input) > 2)
            conv.weight.data.copy_(w)
            if conv.bias is not None:
                conv.bias.data.copy_(weights[node.input[2]])
            layers.append(conv)
        elif node.op_type == "Relu":
            layers.append(nn.ReLU())
        elif node.op_type == "MaxPool":
            layers.append(nn.MaxPool2d(tuple(attrs["kernel_shape"]), tuple(attrs.get("strides", attrs["kernel_shape"]))))
        elif node.op_type == "Flatten":
            layers.append(nn.Flatten())
        elif node.op_type == "Sigmoid":
            continue
        else:
            raise ValueError(f"{path.name}: {node.op_type} is not a layer the teacher is read with")
    net = nn.Sequential(*layers).eval()
    for p in net.parameters():
        p.requires_grad_(False)
    return net


def _head_logits(feats: torch.Tensor, head: dict[str, torch.Tensor]) -> torch.Tensor:
    return torch.relu(feats @ head["w1"] + head["b1"]) @ head["w2"] + head["b2"]


def _on_the_clock(opt: torch.optim.Optimizer, t0: float, minutes: float, lr: float) -> bool:
    """Set the learning rate where the run's one cycle is on the wall clock; False once ``minutes`` are spent."""
    frac = (time.time() - t0) / (60 * minutes)
    if frac >= 1.0:
        return False
    for g in opt.param_groups:
        g["lr"] = _lr_at(frac, lr)
    return True


def distill_crop(data: dict, out: Path, minutes: float, widths: tuple[int, int, int, int], seed: int = 0,
                 batch: int = 128, lr: float = 3e-3) -> SmallCardNet:
    """Teach :class:`SmallCardNet` the shipped crop network's features on the training crops, each printed
    anew per step (as the teacher was trained); the loss is the features' error in units of their
    spread, plus the shipped head's read of them (KL at temperature 2: where the faces' order is decided)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    teacher = teacher_from_onnx(MODELS / "cardnet_embed.onnx")
    z = np.load(MODELS / "cardnet_head.npz")
    head = {k: torch.from_numpy(z[k].astype(np.float32)) for k in ("w1", "b1", "w2", "b2")}
    x_all = np.concatenate(data["cls_x"])
    n = len(x_all)
    student = SmallCardNet(widths)
    opt = torch.optim.AdamW(student.parameters(), lr=lr, weight_decay=1e-4)
    with torch.no_grad():
        probe = torch.from_numpy(_classifier_input(x_all[rng.choice(n, min(n, 512), replace=False)], rng, True))
        spread = teacher(probe).var(dim=0).mean().clamp(min=1e-6)
    t0, ep = time.time(), 0
    print(f"crop student {widths}: {n} crops, feature spread {float(spread):.4f}", flush=True)
    while True:
        perm = rng.permutation(n)
        tot_f = tot_k = agree = seen = 0.0
        for b in range(n // batch):
            if not _on_the_clock(opt, t0, minutes, lr):
                break
            x = torch.from_numpy(_classifier_input(x_all[np.sort(perm[b * batch:(b + 1) * batch])], rng, True))
            with torch.no_grad():
                ft = teacher(x)
                lt = _head_logits(ft, head)
            student.train()
            fs = student(x)
            ls = _head_logits(fs, head)
            loss_f = F.mse_loss(fs, ft) / spread
            loss_k = F.kl_div(F.log_softmax(ls / 2, 1), F.log_softmax(lt / 2, 1), log_target=True, reduction="batchmean") * 4
            loss = loss_f + loss_k
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot_f += loss_f.item()
            tot_k += loss_k.item()
            agree += (ls.argmax(1) == lt.argmax(1)).sum().item()
            seen += len(x)
        ep += 1
        k = max(seen / batch, 1)
        print(f"crop epoch {ep}: feature error {tot_f / k:.4f}, head KL {tot_k / k:.4f}, agrees with the teacher "
              f"{agree / max(seen, 1):.4f}, {time.time() - t0:.0f} s", flush=True)
        student.eval()
        export(student, out / "cardnet_embed.onnx", (1, 3, CROP_H, CROP_W), {"x": {0: "n"}})
        torch.save(student.state_dict(), out / "cardnet_embed_student.pt")
        if time.time() - t0 >= 60 * minutes:
            return student


def distill_detector(data: dict, out: Path, minutes: float, width: int, seed: int = 0, batch: int = 16,
                     crop: tuple[int, int] = (160, 256), lr: float = 3e-3) -> CornerNet:
    """Teach a narrower :class:`~vision.training.nets.CornerNet` the shipped detector's outputs (its corner and cover probabilities as
    soft targets, its offsets where it sees a corner) beside the true corners' loss it was trained on."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    teacher = teacher_from_onnx(MODELS / "cardnet_detector.onnx")
    student = CornerNet(width)
    opt = torch.optim.AdamW(student.parameters(), lr=lr, weight_decay=1e-4)
    n = len(data["det_x"])
    t0, ep = time.time(), 0
    print(f"detector student width {width}: {n} zones", flush=True)
    while True:
        perm = rng.permutation(n)
        tot = 0.0
        nb = 0
        for b in range(n // batch):
            if not _on_the_clock(opt, t0, minutes, lr):
                break
            x, heat, off, offw, cover = _det_batch(data, perm[b * batch:(b + 1) * batch], rng, *crop)
            with torch.no_grad():
                pt = torch.sigmoid(teacher(x))
            student.train()
            y = student(x)
            seen = (pt[:, 0] > 0.1).float()
            loss = (focal_loss(y[:, 0], heat)
                    + 4 * F.binary_cross_entropy_with_logits(y[:, 0], pt[:, 0], weight=1 + 20 * pt[:, 0])
                    + (F.l1_loss(torch.sigmoid(y[:, 1:3]), pt[:, 1:3], reduction="none").sum(1) * seen).sum()
                    / seen.sum().clamp(min=1)
                    + 0.5 * F.binary_cross_entropy_with_logits(y[:, 3], pt[:, 3]))
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
            nb += 1
        ep += 1
        print(f"detector epoch {ep}: loss {tot / max(nb, 1):.4f}, {time.time() - t0:.0f} s", flush=True)
        student.eval()
        export(student, out / "cardnet_detector.onnx", (1, 3, 228, 480), {"x": {2: "h", 3: "w"}})
        torch.save(student.state_dict(), out / "cardnet_detector_student.pt")
        if time.time() - t0 >= 60 * minutes:
            return student


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["crop", "detector"])
    ap.add_argument("data", help="a folder of shards (make_data --out)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--minutes", type=float, default=20.0)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--widths", type=int, nargs=4, default=(8, 16, 32, 64), help="crop: the student's channels")
    ap.add_argument("--width", type=int, default=16, help="detector: the student's channels")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    a.out.mkdir(parents=True, exist_ok=True)
    data = load_shards(a.data)
    if a.what == "crop":
        distill_crop(data, a.out, a.minutes, tuple(a.widths))
    else:
        distill_detector(data, a.out, a.minutes, a.width)


if __name__ == "__main__":
    main()
