"""The two networks of the card-first reader, as torch modules (training only; run time is ONNX).

Sizes are chosen for a Raspberry Pi core, not for a benchmark: the detector is ~0.35 GFLOP on a
320 x 150 mm zone, the classifier ~30 MFLOP a crop.
"""

from __future__ import annotations

import torch
from torch import nn

from vision.cardnet.spec import FEATURE_DIM, HIDDEN_DIM, N_CLASSES, NONE_CLASS
from vision.cards import ALL_CARDS, RANKS, SUITS

#: The factorised labels of the training-only heads: a face's rank (13, the two jokers, none) and its
#: suit (4, joker, none). Class id -> rank id / suit id.
RANK_OF = tuple([RANKS.index(c[0]) if c[1] in SUITS else 13 + ("SJ", "BJ").index(c) for c in ALL_CARDS] + [15])
SUIT_OF = tuple([SUITS.index(c[1]) if c[1] in SUITS else 4 for c in ALL_CARDS] + [5])
assert len(RANK_OF) == len(SUIT_OF) == N_CLASSES and RANK_OF[NONE_CLASS] == 15


def _cbr(cin: int, cout: int, stride: int = 1, dil: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, padding=dil, dilation=dil, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class CornerNet(nn.Module):
    """Heatmap of card top-left corners at stride 4, the corner's offset inside its cell, card cover.

    Output channels: 0 corner logit, 1–2 offset (x, y) in cells, 3 card-cover logit.  Dilations
    1-2-4-8 give a receptive field of ~90 mm: enough to tell a card's corner from a pip's.
    """

    def __init__(self, width: int = 24) -> None:
        super().__init__()
        self.body = nn.Sequential(
            _cbr(3, 16, 2), _cbr(16, width, 2),
            _cbr(width, width, 1, 1), _cbr(width, width, 1, 2), _cbr(width, width, 1, 4), _cbr(width, width, 1, 8),
        )
        self.head = nn.Conv2d(width, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


def card_body(widths: tuple[int, int, int, int]) -> nn.Sequential:
    """The crop network's convolutions: three pooled stages and a strided last one to 96 x 6 x 3
    features (:data:`~vision.cardnet.spec.FEATURE_DIM`); ``widths`` are the first four layers' channels
    (the shipped network's 16-32-64-96; a smaller student's, :mod:`vision.training.distill`, fewer)."""
    a, b, c, d = widths
    return nn.Sequential(
        _cbr(3, a), nn.MaxPool2d(2),
        _cbr(a, b), nn.MaxPool2d(2),
        _cbr(b, c), nn.MaxPool2d(2),
        _cbr(c, d), _cbr(d, 96, 2),
        nn.Flatten(),
    )


class CardNet(nn.Module):
    """One crop at a corner -> 54 faces + "none".

    Exported in two parts: ``body`` (the convolutions, to ONNX) and the head (``embed`` + ``out``,
    a two-layer perceptron, to an .npz) that enrolment and play fine-tune in numpy.
    """

    def __init__(self, factorised: bool = False) -> None:
        super().__init__()
        self.body = card_body((16, 32, 64, 96))
        self.embed = nn.Sequential(nn.Linear(FEATURE_DIM, HIDDEN_DIM), nn.ReLU(inplace=True))
        self.out = nn.Linear(HIDDEN_DIM, N_CLASSES)
        #: Training only (never exported): rank and suit read apart from the same hidden layer, so it
        #: learns a deck's "5" and its "♣" as two things an unseen deck may combine in its own style.
        self.rank = nn.Linear(HIDDEN_DIM, 16) if factorised else None
        self.suit = nn.Linear(HIDDEN_DIM, 6) if factorised else None

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.out(self.embed(self.body(x)))

    def forward_all(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        """The face logits and, when factorised, the rank and suit logits."""
        h = self.embed(self.body(x))
        if self.rank is None or self.suit is None:
            return self.out(h), None, None
        return self.out(h), self.rank(h), self.suit(h)
