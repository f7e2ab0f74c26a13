"""CNN models with dynamic batch and spatial dims: each compiled once, run at 3+ sizes vs eager.

The convolutions and pools here have `?` spatial dims, which IREE 3.13 rejects as StableHLO; they
reach IREE through symhlo-lower-dynamic-windows-for-iree, while the portable artifact stays pure.
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

from e2e_harness import check_model, randn, randomize_bn


class BasicBlock(nn.Module):
    """conv3x3-bn-relu-conv3x3-bn + shortcut (1x1 conv + bn when the shape changes), relu."""

    def __init__(self, cin: int, cout: int, stride: int):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Identity()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride=stride, bias=False),
                                          nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return F.relu(y + self.shortcut(x))


class ResNetSmall(nn.Module):
    """ResNet-style: 7x7/2 stem, bn, relu, 3x3/2 max pool, 3 basic blocks, global avg pool, fc."""

    def __init__(self, num_classes: int = 10):
        super().__init__()
        torch.manual_seed(0)
        self.stem = nn.Conv2d(3, 16, 7, stride=2, padding=3, bias=False)
        self.bn = nn.BatchNorm2d(16)
        self.layers = nn.Sequential(BasicBlock(16, 16, 1), BasicBlock(16, 32, 2),
                                    BasicBlock(32, 32, 1))
        self.fc = nn.Linear(32, num_classes)
        randomize_bn(self, 1)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn(self.stem(x))), 3, stride=2, padding=1)
        x = self.layers(x)
        x = F.adaptive_avg_pool2d(x, 1).flatten(1)
        return self.fc(x)


def test_resnet_dynamic_batch_and_hw():
    b = Dim("b", min=1, max=64)
    h, w = Dim("h", min=16, max=1024), Dim("w", min=16, max=1024)
    check_model("resnet_small", ResNetSmall(), (randn(2, 3, 32, 40),), ({0: b, 2: h, 3: w},),
                [(randn(1, 3, 16, 16),), (randn(3, 3, 37, 50),), (randn(2, 3, 224, 288),)],
                rtol=1e-4, atol=1e-4)


def _conv_bn_relu(cin: int, cout: int) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.ReLU())


class UNetSmall(nn.Module):
    """U-Net-style, two levels: max-pool down, nearest / bilinear x2 up, skip concats."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.enc1, self.enc2 = _conv_bn_relu(3, 8), _conv_bn_relu(8, 16)
        self.mid = _conv_bn_relu(16, 32)
        self.dec2, self.dec1 = _conv_bn_relu(32 + 16, 16), _conv_bn_relu(16 + 8, 8)
        self.head = nn.Conv2d(8, 2, 1)
        randomize_bn(self, 2)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.avg_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([F.interpolate(m, scale_factor=2, mode="nearest"), e2], dim=1))
        up = F.interpolate(d2, scale_factor=2, mode="bilinear", align_corners=False)
        d1 = self.dec1(torch.cat([up, e1], dim=1))
        return self.head(d1)


def test_unet_derived_hw():
    b = Dim("b", min=1, max=16)
    h, w = Dim("h", min=2, max=256), Dim("w", min=2, max=256)
    check_model("unet_small", UNetSmall(), (randn(2, 3, 16, 24),),
                ({0: b, 2: 4 * h, 3: 4 * w},),
                [(randn(1, 3, 8, 8),), (randn(2, 3, 20, 36),), (randn(1, 3, 128, 160),)],
                rtol=1e-4, atol=1e-4)


class UNetOneClass(UNetSmall):
    """The U-Net above with a one-class head (a 1x1 conv to a single channel, binary masks)."""

    def __init__(self):
        super().__init__()
        self.head = nn.Conv2d(8, 1, 1)


def test_unet_one_class_head():
    # Regression: the one-filter head's `? x 8` by `8 x 1` product reached iree-compile as a
    # dot_general that IREE 3.13 turned into a `stablehlo.reshape` to `?x1` and then rejected
    # ('result #0 must be statically shaped'); it is now a linalg.matmul.
    b = Dim("b", min=1, max=16)
    h, w = Dim("h", min=2, max=256), Dim("w", min=2, max=256)
    check_model("unet_one_class", UNetOneClass(), (randn(2, 3, 16, 24),),
                ({0: b, 2: 4 * h, 3: 4 * w},),
                [(randn(1, 3, 8, 8),), (randn(3, 3, 20, 36),), (randn(2, 3, 68, 44),)],
                rtol=1e-4, atol=1e-4)


class DeepBlocksNet(nn.Module):
    """A 64-filter conv (8-row blocks), a 128-filter residual block after it (deep: 4-row
    blocks, reading the 8-row ones), a max pool, then a 64-filter conv reading the 4-row blocks."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.stem = nn.Conv2d(3, 64, 3, padding=1, bias=False)
        self.block = BasicBlock(64, 128, 2)
        self.post = nn.Conv2d(128, 64, 3, padding=1)
        self.fc = nn.Linear(64, 5)
        randomize_bn(self, 2)

    def forward(self, x):
        x = F.relu(self.stem(x))
        x = F.max_pool2d(self.block(x), 3, stride=2, padding=1)
        x = F.relu(self.post(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def test_deep_convs_in_four_row_blocks_equal_eager():
    """Direct convs with at least 128 filters compute 4-row blocks (`deep-block-rows`), the others
    8: the halos and the pool gathered across the two grids equal eager at sizes that fill no
    block evenly."""
    import symhlo
    from symhlo.backend.compiler import prepare_for_iree

    b, h, w = Dim("b", min=1, max=8), Dim("h", min=8, max=512), Dim("w", min=8, max=512)
    shapes = ({0: b, 2: h, 3: w},)
    prog = symhlo.export(DeepBlocksNet().eval(), (randn(2, 3, 32, 40),), dynamic_shapes=shapes)
    iree_input = prepare_for_iree(prog.text)
    assert "x4x8x128xf32>" in iree_input and "x8x8x64xf32>" in iree_input
    check_model("deep_blocks", DeepBlocksNet(), (randn(2, 3, 32, 40),), shapes,
                [(randn(1, 3, 8, 8),), (randn(2, 3, 37, 50),), (randn(1, 3, 61, 45),)],
                rtol=1e-4, atol=1e-4)


class WideTapsNet(nn.Module):
    """Convolutions over `?` H / W (and a `?` length) with at least 64 input channels whose
    im2col is unblocked (more than 128 channels, or no padding on the last axis): strided,
    dilated, a (3, 1) window, a strided 1 x 1, a dilated 1-D conv."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.down = nn.Conv2d(144, 160, 3, stride=2, padding=1)
        self.dilated = nn.Conv2d(160, 96, 3, padding=2, dilation=2)
        self.rows = nn.Conv2d(160, 24, (3, 1), padding=(1, 0))
        self.point = nn.Conv2d(96, 16, 1, stride=2, bias=False)
        self.seq = nn.Conv1d(64, 8, 3, dilation=2, stride=2)

    def forward(self, x, s):
        y = F.relu(self.down(x))
        return self.point(F.relu(self.dilated(y))), self.rows(y), self.seq(s)


def test_wide_convs_patches_as_tap_slices_equal_eager():
    """Patches of a `?` row count with >= 64 channels are copied as one strided slice per window
    tap (symhlo-lower-dynamic-windows-for-iree's tap-slices-min-channels), concatenated along the
    channels: equal to eager at sizes where strides leave a remainder."""
    import symhlo
    from symhlo.backend.compiler import prepare_for_iree

    b, h, w, n = (Dim("b", min=1, max=8), Dim("h", min=5, max=256), Dim("w", min=5, max=256),
                  Dim("n", min=7, max=256))
    shapes = ({0: b, 2: h, 3: w}, {0: b, 2: n})
    example = (randn(2, 144, 12, 10), randn(2, 64, 20))
    prog = symhlo.export(WideTapsNet().eval(), example, dynamic_shapes=shapes)
    iree_input = prepare_for_iree(prog.text)
    assert "-> tensor<?x?x?x1440xf32>" in iree_input      # down: 9 taps of 144 channels
    assert "-> tensor<?x?x?x480xf32>" in iree_input       # rows: 3 taps of 160
    assert "-> tensor<?x?x192xf32>" in iree_input         # seq: 3 taps of 64
    assert "x3x3x144xf32>" not in iree_input              # no generic patch copy
    check_model("wide_tap_slices", WideTapsNet(), example, shapes,
                [(randn(1, 144, 9, 9), randn(1, 64, 7)), (randn(3, 144, 17, 12), randn(3, 64, 31)),
                 (randn(2, 144, 5, 30), randn(2, 64, 64))],
                rtol=1e-4, atol=1e-4)
