"""A CNN over `?` batch, H and W whose convolutions run channels-last while torch's model is NCHW:
symhlo-sink-transposes-for-iree moves each conv's transpose back to NCHW below its batch norm,
ReLU, residual add, clamp and pooling, where it meets the next conv's transpose to NHWC.

Checked: the numbers against eager at four sizes (odd ones included: the blocked convolutions
slice their last blocks), and in the IREE input that the only NCHW <-> NHWC transpose left is
the input's: the max pool with overlapping windows reads a transposed channels-last value and so
runs channels-last too, and the mean over H and W reduces the NHWC value; and that a conv reading
another's blocks gathers its halos from them.
"""

from __future__ import annotations

import re

import torch
from torch import nn
from torch.nn import functional as F
from torch.export import Dim

import symhlo
from symhlo.backend.compiler import prepare_for_iree
from e2e_harness import check_model, randomize_bn


class LayoutNet(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU())
        self.pool = nn.MaxPool2d(2)                                   # non-overlapping: on the blocks
        self.a = nn.Sequential(nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(),
                               nn.Conv2d(8, 8, 3, padding=1, bias=False), nn.BatchNorm2d(8))
        self.down = nn.Sequential(nn.Conv2d(8, 40, 3, stride=2, padding=1), nn.BatchNorm2d(40), nn.Hardtanh(-1, 2))
        self.b = nn.Sequential(nn.Conv2d(40, 40, 3, padding=1, bias=False), nn.BatchNorm2d(40))
        self.overlap = nn.MaxPool2d(3, stride=2, padding=1)           # overlapping windows
        self.head = nn.Linear(40, 5)
        randomize_bn(self, 1)

    def forward(self, x):
        y = self.pool(self.stem(x))
        y = torch.relu(self.a(y) + y)
        y = self.down(y)
        y = torch.relu(self.b(y) * 0.5 + y)
        y = self.overlap(y)
        return self.head(y.mean((2, 3)))


def _dims():
    return ({0: Dim("b", min=1, max=8), 2: Dim("h", min=16, max=256), 3: Dim("w", min=16, max=256)},)


def test_layout_net_matches_eager():
    sizes = [(torch.randn(1, 3, 16, 16),), (torch.randn(2, 3, 33, 47),), (torch.randn(3, 3, 64, 40),),
             (torch.randn(1, 3, 17, 70),)]
    check_model("conv layouts", LayoutNet(), (torch.randn(2, 3, 32, 32),), _dims(), sizes,
                rtol=1e-4, atol=1e-4)


def test_only_needed_transposes_are_left():
    prog = symhlo.export(LayoutNet().eval(), (torch.randn(2, 3, 32, 32),), dynamic_shapes=_dims())
    text = prepare_for_iree(prog.text)
    # transposes of activations (a `?` batch axis); the weights' static transposes are not counted
    acts = re.findall(r"stablehlo\.transpose %\S+, dims = \[([\d, ]+)\] : \(tensor<\?x[^)]*\)", text)
    # NCHW <-> NHWC: none (without the pass: one pair around each of the five convolutions and
    # the overlapping pool, which runs channels-last between transposes); the stem's halos are
    # gathered from the 3-channel NCHW image padded in its own layout (read_halo_in_input_layout)
    assert [a for a in acts if a.count(",") == 3] == [], acts
    assert len(re.findall(r"stablehlo\.pad %arg0, %\S+, low = \[0, 0, 1, 1\][^\n]*"
                          r": \(tensor<\?x3x\?x\?xf32>", text)) == 1
    # the blocks of a convolution (all five: at most 128 channels and filters, direct over
    # 8 x 8 blocks, 16 x 16 for those of at most 16 channels and filters) put back in order, channels last, where something other than the next
    # convolution reads them: the stem's pooled blocks (4 x 4: read by the residual add too),
    # the first residual add's conv input (the other, those pooled blocks, lie on another
    # grid) and the overlapping pool's pooled blocks. The second residual add and its ReLU run
    # on the blocks (both operands are a conv's blocks: elementwise_on_blocks), so neither its
    # conv's nor the Hardtanh'd blocks go back, and the pool gathers its windows from the sum's
    assert [a for a in acts if a.count(",") == 5] == ["0, 1, 3, 2, 4, 5"] * 3, acts
    # the convolutions after the stem's pooling, after the first ReLU and after the Hardtanh
    # gather their halos from those blocks (the block, row and column from the position:
    # tensor.extract in a linalg.generic), not from a padded NHWC copy, and the overlapping pool
    # reads its nine taps from the sum's blocks
    gathers = re.findall(r"tensor\.extract %\S+\[%\S+, %\S+, %\S+, %\S+\] : tensor<\?x(\d+)x(\d+)x(\d+)xf32>", text)
    assert gathers == [("8", "8", "8"), ("16", "16", "8"), ("8", "8", "40")] + [("8", "8", "40")] * 9, gathers
    # the 40 -> 5 head reads the mean over H and W: a broadcast product reduced over the 40
    # features (symhlo-narrow-matmuls-as-reductions-for-iree), no matmul that would pool in its pack
    assert "stablehlo.dot_general" not in text
    assert re.search(r"stablehlo\.multiply %\S+, %\S+ : tensor<\?x40x5xf32>", text), text[-3000:]


class WideNet(nn.Module):
    """Static height, `?` width: the direct convs (narrow ones) compute whole columns of 16 (no
    row blocks), and the second and third convs gather their halos from the previous blocks (one
    after a stride-(1, 2) conv with no height padding, one after a (1, 2) pool on the blocks)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 8, 3, padding=(0, 1), stride=(1, 2))
        self.c3 = nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x):
        y = self.c2(torch.relu(self.c1(x)))
        return self.c3(F.max_pool2d(y, (1, 2)))


def test_halos_from_column_blocks_over_a_dynamic_width():
    dims = ({0: Dim("b", min=1, max=8), 3: Dim("w", min=16, max=256)},)
    example = (torch.randn(2, 3, 12, 40),)
    text = prepare_for_iree(symhlo.export(WideNet().eval(), example, dynamic_shapes=dims).text)
    gathers = re.findall(r"tensor\.extract %\S+\[%\S+, %\S+, %\S+, %\S+\] : tensor<\?x(\d+)x(\d+)x(\d+)xf32>", text)
    assert gathers == [("12", "16", "8"), ("10", "8", "8")], gathers
    check_model("column blocks", WideNet(), example, dims,
                [(torch.randn(1, 3, 12, 16),), (torch.randn(3, 3, 12, 37),), (torch.randn(2, 3, 12, 70),)],
                rtol=1e-4, atol=1e-4)


class StemNet(nn.Module):
    """ResNet's stem: a strided 7 x 7 conv, batch norm, ReLU and a 3 x 3 / 2 max pool with
    padding (overlapping windows), then a 3 x 3 conv: the pool reads the nine taps of each window
    from the conv's blocks (-inf outside the map), the next conv's halos are gathered from the
    pooled blocks."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.stem = nn.Sequential(nn.Conv2d(3, 16, 7, stride=2, padding=3, bias=False), nn.BatchNorm2d(16),
                                  nn.ReLU(), nn.MaxPool2d(3, stride=2, padding=1))
        self.conv = nn.Conv2d(16, 8, 3, padding=1)
        randomize_bn(self, 1)

    def forward(self, x):
        return self.conv(self.stem(x))


def test_overlapping_pool_over_windows_gathered_from_conv_blocks():
    example = (torch.randn(2, 3, 64, 64),)
    text = prepare_for_iree(symhlo.export(StemNet().eval(), example, dynamic_shapes=_dims()).text)
    gathers = re.findall(r"tensor\.extract %\S+\[%\S+, %\S+, %\S+, %\S+\] : tensor<\?x(\d+)x(\d+)x(\d+)xf32>", text)
    assert gathers == [("16", "16", "16")] * 9 + [("8", "8", "16")], gathers
    assert "x17x17x16xf32>" not in text  # the windows are not copied
    check_model("stem", StemNet(), example, _dims(),
                [(torch.randn(1, 3, 16, 16),), (torch.randn(2, 3, 37, 53),), (torch.randn(3, 3, 90, 41),)],
                rtol=1e-4, atol=1e-4)


class ColumnResidual(nn.Module):
    """Static height, `?` width: a residual add and ReLU between direct convs over whole columns
    of 16 (narrow convs; no row blocks, the blocks' height the map's)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a = nn.Conv2d(3, 8, 3, padding=1)
        self.b = nn.Conv2d(8, 8, 3, padding=1)
        self.c = nn.Conv2d(8, 4, 3, padding=1)

    def forward(self, x):
        y = torch.relu(self.a(x))
        y = torch.relu(self.b(y) + y)
        return self.c(y)


def test_residual_add_over_column_blocks():
    """The residual add of two convs' column blocks runs on the blocks (elementwise_on_blocks),
    and the last conv gathers its halos from the sum's blocks; the numbers at widths that leave
    partial blocks."""
    dims = ({0: Dim("b", min=1, max=8), 3: Dim("w", min=16, max=256)},)
    example = (torch.randn(2, 3, 12, 40),)
    text = prepare_for_iree(symhlo.export(ColumnResidual().eval(), example, dynamic_shapes=dims).text)
    residual = re.findall(r"stablehlo\.add %\S+, %\S+ : tensor<\?x12x16x8xf32>", text)
    assert len(residual) == 3, residual  # the two biases and the residual add, all on blocks
    assert "stablehlo.add" not in re.sub(r"stablehlo\.add %\S+, %\S+ : tensor<\?x12x16x[48]xf32>",
                                         "", text)
    gathers = re.findall(r"tensor\.extract %\S+\[%\S+, %\S+, %\S+, %\S+\] : tensor<\?x(\d+)x(\d+)x(\d+)xf32>", text)
    assert gathers == [("12", "16", "8"), ("12", "16", "8")], gathers
    check_model("column residual", ColumnResidual(), example, dims,
                [(torch.randn(1, 3, 12, 16),), (torch.randn(3, 3, 12, 37),), (torch.randn(2, 3, 12, 70),)],
                rtol=1e-4, atol=1e-4)
