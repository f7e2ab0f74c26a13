"""The ten core models: each compiled once, run at 3+ sizes (range minimum, one large), vs eager."""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

from e2e_harness import check_model, randn


class Broadcast(nn.Module):
    """Two independent dynamic dims broadcast against each other, plus a static 1."""

    def forward(self, x, y):
        return x * y + torch.relu(x) - y / 2


def test_broadcast_elementwise():
    a, b = Dim("a", min=2, max=512), Dim("b", min=2, max=512)
    check_model("broadcast", Broadcast(), (randn(3, 1, 4), randn(1, 5, 4)),
                ({0: a}, {1: b}),
                [(randn(2, 1, 4), randn(1, 2, 4)), (randn(7, 1, 4), randn(1, 3, 4)),
                 (randn(300, 1, 4), randn(1, 129, 4))])


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.fc1, self.fc2 = nn.Linear(16, 64), nn.Linear(64, 8)

    def forward(self, x):
        return self.fc2(F.gelu(self.fc1(x)))


def test_mlp():
    b = Dim("b", min=2, max=4096)
    check_model("mlp", MLP(), (randn(4, 16),), ({0: b},),
                [(randn(2, 16),), (randn(9, 16),), (randn(3000, 16),)])


class ViewComputed(nn.Module):
    """Reshape with computed sizes: (b, s, 8) -> (b*s, 8) -> (b, s, 2, 4) -> (b, s//1, 8)."""

    def forward(self, x):
        b, s, d = x.shape
        y = x.reshape(b * s, d) * 2
        z = y.view(b, s, 2, d // 2).transpose(2, 3)
        return z.reshape(b, -1, d) + 1, y.view(-1)


def test_view_computed_sizes():
    b, s = Dim("b", min=2, max=64), Dim("s", min=2, max=1024)
    check_model("view_reshape", ViewComputed(), (randn(2, 3, 8),), ({0: b, 1: s},),
                [(randn(2, 2, 8),), (randn(3, 5, 8),), (randn(4, 700, 8),)])


class SliceSymbolic(nn.Module):
    """Slices whose bounds are symbolic: halves, a middle window, strided."""

    def forward(self, x):
        n = x.shape[1]
        first = x[:, : n // 2]
        last = x[:, n // 2:]
        mid = x[:, 1: n - 1]
        strided = x[:, ::2]
        return first * 2, last + 1, mid.sum(1), strided


def test_slicing_symbolic_bounds():
    # `n // 2` as a slice bound makes torch.export guard on parity; a derived even dim states it.
    n = 2 * Dim("h", min=2, max=2048)
    check_model("slicing", SliceSymbolic(), (randn(2, 10),), ({1: n},),
                [(randn(2, 4),), (randn(2, 22),), (randn(2, 4096),)])


class CatSplit(nn.Module):
    """cat of inputs with different dynamic sizes, split back by the input sizes."""

    def forward(self, x, y):
        z = torch.cat([x, y], dim=1) * 3
        a, b = torch.split(z, [x.shape[1], y.shape[1]], dim=1)
        return a - x, b + y, z


def test_cat_split_by_input_sizes():
    n, m = Dim("n", min=2, max=1024), Dim("m", min=2, max=1024)
    check_model("cat_split", CatSplit(), (randn(3, 4), randn(3, 6)), ({1: n}, {1: m}),
                [(randn(3, 2), randn(3, 2)), (randn(3, 5), randn(3, 9)),
                 (randn(3, 1000), randn(3, 513))])


class ArangePositions(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.pos = nn.Embedding(2048, 8)

    def forward(self, x):
        s = x.shape[1]
        p = torch.arange(s)
        return x + self.pos(p)[None], p * 2


def test_arange_positions():
    b, s = Dim("b", min=2, max=32), Dim("s", min=2, max=2048)
    check_model("arange_positions", ArangePositions(), (randn(2, 5, 8),), ({0: b, 1: s},),
                [(randn(2, 2, 8),), (randn(3, 17, 8),), (randn(2, 2048, 8),)])


class Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1), torch.log_softmax(x, dim=0)


def test_softmax():
    b, n = Dim("b", min=2, max=256), Dim("n", min=2, max=8192)
    check_model("softmax", Softmax(), (randn(3, 7),), ({0: b, 1: n},),
                [(randn(2, 2),), (randn(5, 33),), (randn(4, 8192),)])


class ConvBatch(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(2)
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        return torch.relu(self.conv(x))


def test_conv_dynamic_batch():
    b = Dim("b", min=2, max=128)
    check_model("conv_batch", ConvBatch(), (randn(2, 3, 8, 8),), ({0: b},),
                [(randn(2, 3, 8, 8),), (randn(3, 3, 8, 8),), (randn(33, 3, 8, 8),)])


class Attention(nn.Module):
    def __init__(self, d=32, h=4):
        super().__init__()
        torch.manual_seed(3)
        self.h = h
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        q, k, v = (t.view(b, s, self.h, d // self.h).transpose(1, 2) for t in (q, k, v))
        att = (q @ k.transpose(-2, -1)) / (d // self.h) ** 0.5
        y = torch.softmax(att, dim=-1) @ v
        return self.out(y.transpose(1, 2).reshape(b, s, d))


def test_attention_dynamic_batch_seq():
    b, s = Dim("b", min=2, max=32), Dim("s", min=2, max=1024)
    check_model("attention", Attention(), (randn(2, 6, 32),), ({0: b, 1: s},),
                [(randn(2, 2, 32),), (randn(3, 7, 32),), (randn(2, 513, 32),)])


class PadToMultiple(nn.Module):
    def forward(self, x):
        n = x.shape[-1]
        return F.pad(x, (0, (8 - n % 8) % 8)) * 2


def test_pad_to_multiple():
    n = Dim("n", min=2, max=4096)
    check_model("pad_multiple", PadToMultiple(), (randn(2, 5),), ({1: n},),
                [(randn(2, 2),), (randn(2, 8),), (randn(2, 13),), (randn(2, 4001),)])
