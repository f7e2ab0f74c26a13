"""CNN ops one at a time, with dynamic batch and spatial dims: compiled once, run at 3 sizes vs eager.

Each case checks (through check_model) that the StableHLO is pure, serializes as a portable
artifact, keeps every symbolic output dim `?`, and that IREE's results match eager PyTorch at the
range minimum, an odd size and a large one.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

from e2e_harness import check_model, randn


def _nchw(c: int, sizes=((1, 4, 4), (3, 17, 9), (2, 96, 130))):
    return [(randn(b, c, h, w),) for b, h, w in sizes]


def _dims_2d(min_hw: int = 4):
    return ({0: Dim("b", min=1, max=64), 2: Dim("h", min=min_hw, max=2048),
             3: Dim("w", min=min_hw, max=2048)},)


class Conv2d(nn.Module):
    def __init__(self, cin, cout, k, **kw):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv2d(cin, cout, k, **kw)

    def forward(self, x):
        return self.conv(x)


@pytest.mark.parametrize("name, cin, cout, k, kw", [
    ("conv2d_s2_p1", 3, 8, 3, dict(stride=2, padding=1)),
    ("conv2d_dilation2_p2", 3, 4, 3, dict(padding=2, dilation=2)),
    ("conv2d_groups2", 4, 6, 3, dict(padding=1, groups=2)),
    ("conv2d_depthwise", 4, 4, 3, dict(padding=1, groups=4, bias=False)),
    ("conv2d_5x3_nopad", 3, 4, (5, 3), dict(stride=(1, 2))),
])
def test_conv2d(name, cin, cout, k, kw):
    # torch.export refuses ranges where an output size could be 1 (it specializes 1): the
    # 5x3 unpadded kernel needs h >= 6.
    sizes = ((1, 6, 6), (3, 17, 9), (2, 96, 130))
    check_model(name, Conv2d(cin, cout, k, **kw), (randn(2, cin, 12, 10),), _dims_2d(6),
                _nchw(cin, sizes))


class ConvTranspose2d(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.up = nn.ConvTranspose2d(4, 3, 2, stride=2)

    def forward(self, x):
        return self.up(x)


def test_conv_transpose2d():
    check_model("conv_transpose2d", ConvTranspose2d(), (randn(2, 4, 8, 6),), _dims_2d(2),
                _nchw(4, ((1, 2, 2), (3, 7, 5), (2, 64, 90))))


class Conv1d(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.conv = nn.Conv1d(3, 5, 3, stride=2, padding=1)

    def forward(self, x):
        return F.relu(self.conv(x))


def test_conv1d_stride_padding():
    check_model("conv1d_s2_p1", Conv1d(), (randn(2, 3, 16),),
                ({0: Dim("b", min=1, max=64), 2: Dim("w", min=4, max=8192)},),
                [(randn(1, 3, 4),), (randn(3, 3, 33),), (randn(2, 3, 4000),)])


class Pool(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


@pytest.mark.parametrize("name, fn", [
    ("max_pool2d_k3_s2_p1", lambda x: F.max_pool2d(x, 3, stride=2, padding=1)),
    ("max_pool2d_k2", lambda x: F.max_pool2d(x, 2)),
    ("avg_pool2d_k2", lambda x: F.avg_pool2d(x, 2)),
    ("avg_pool2d_k3_p1_exclude_pad",
     lambda x: F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False)),
    ("adaptive_avg_pool2d_1x1", lambda x: F.adaptive_avg_pool2d(x, 1)),
])
def test_pooling(name, fn):
    check_model(name, Pool(fn), (randn(2, 3, 12, 10),), _dims_2d(4), _nchw(3))


def test_max_pool2d_dynamic_batch_only():
    """IREE 3.13 rejects reduce_window over a `?` batch too (unlike convolution)."""
    check_model("max_pool2d_batch_only", Pool(lambda x: F.max_pool2d(x, 2) + 1),
                (randn(2, 3, 12, 10),), ({0: Dim("b", min=1, max=64)},),
                [(randn(1, 3, 12, 10),), (randn(5, 3, 12, 10),), (randn(33, 3, 12, 10),)])


class BatchNormRelu(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.bn = nn.BatchNorm2d(3)
        self.bn.running_mean.uniform_(-0.5, 0.5)
        self.bn.running_var.uniform_(0.5, 2.0)
        self.bn.weight.data.uniform_(0.5, 1.5)
        self.bn.bias.data.uniform_(-0.5, 0.5)

    def forward(self, x):
        return F.relu(self.bn(x))


def test_batch_norm_inference():
    check_model("batch_norm2d", BatchNormRelu(), (randn(2, 3, 12, 10),), _dims_2d(4), _nchw(3))


class ConvBnReluPool(nn.Module):
    """conv -> batch norm -> ReLU -> 2x2 max pool, twice, then a 3x3 stride-2 average pool
    (windows that overlap: not moved onto the conv's blocks)."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.c1, self.c2 = nn.Conv2d(3, 8, 3, padding=1), nn.Conv2d(8, 16, 3, padding=1, bias=False)
        self.b1, self.b2 = nn.BatchNorm2d(8), nn.BatchNorm2d(16)
        for bn in (self.b1, self.b2):
            bn.running_mean.uniform_(-0.5, 0.5)
            bn.running_var.uniform_(0.5, 2.0)
            bn.weight.data.uniform_(0.5, 1.5)
            bn.bias.data.uniform_(-0.5, 0.5)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.b1(self.c1(x))), 2)
        x = F.max_pool2d(F.relu(self.b2(self.c2(x))), 2)
        return F.avg_pool2d(x, 3, stride=2, padding=1)


def test_conv_bn_relu_pool_over_blocks():
    """The few-channel convs are direct convs over 8 x 8 blocks, and each BN + ReLU + 2x2 max
    pool runs on the blocks before they go back to NCHW; odd H/W (17 x 35, 37 x 13) leave partial
    blocks and odd rows / columns that the pooling drops."""
    from symhlo.backend.compiler import prepare_for_iree

    from e2e_harness import op_names

    import symhlo

    model = ConvBnReluPool().eval()
    # torch.export specializes a pooled size of 1: H and W from 12
    example = (randn(2, 3, 40, 44),)
    prog = symhlo.export(model, example, dynamic_shapes=_dims_2d(12))
    iree = op_names(prepare_for_iree(prog.text, call_checks=False))
    assert "linalg.conv_2d_nhwc_hwcf" in iree and "linalg.pooling_nhwc_max" in iree
    check_model("conv_bn_relu_pool", model, example, _dims_2d(12),
                [(randn(1, 3, 12, 12),), (randn(3, 3, 17, 35),), (randn(2, 3, 37, 13),)])


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_interpolate_scale2(mode):
    fn = lambda x: F.interpolate(x, scale_factor=2, mode=mode)  # noqa: E731
    check_model(f"interpolate_{mode}_x2", Pool(fn), (randn(2, 3, 12, 10),), _dims_2d(2),
                _nchw(3, ((1, 2, 2), (3, 7, 5), (2, 64, 90))))


class UpCat(nn.Module):
    """Skip connection: upsample the coarse map, concat with the fine one along channels."""

    def __init__(self, mode: str):
        super().__init__()
        self.mode = mode

    def forward(self, coarse, fine):
        return torch.cat([F.interpolate(coarse, scale_factor=2, mode=self.mode), fine], dim=1)


@pytest.mark.parametrize("mode", ["nearest", "bilinear"])
def test_upsample_concat_skip(mode):
    h, w = Dim("h", min=2, max=1024), Dim("w", min=2, max=1024)
    b = Dim("b", min=1, max=16)
    check_model(f"upsample_{mode}_cat", UpCat(mode), (randn(2, 4, 6, 5), randn(2, 3, 12, 10)),
                ({0: b, 2: h, 3: w}, {0: b, 2: 2 * h, 3: 2 * w}),
                [(randn(1, 4, 2, 2), randn(1, 3, 4, 4)), (randn(3, 4, 7, 5), randn(3, 3, 14, 10)),
                 (randn(2, 4, 64, 80), randn(2, 3, 128, 160))])


def test_iree_input_lowers_dynamic_windows_to_linalg():
    """The portable StableHLO keeps convolution / reduce_window; only IREE's copy gets linalg
    (this few-channel convolution as a direct convolution over blocks of 16 output columns: a
    linalg.generic copying each block's input columns, then linalg.conv_2d_nhwc_hwcf; the 2x2
    max pool of its result runs on those blocks, channels-last)."""
    import symhlo
    from symhlo.backend.compiler import prepare_for_iree

    from e2e_harness import op_names

    model = Pool(lambda x: F.max_pool2d(F.conv2d(x, torch.ones(4, 3, 3, 3), padding=1), 2))
    prog = symhlo.export(model, (randn(2, 3, 12, 10),), dynamic_shapes=_dims_2d(4))
    pure = op_names(prog.text)
    assert "stablehlo.convolution" in pure and "stablehlo.reduce_window" in pure
    iree = op_names(prepare_for_iree(prog.text, call_checks=False))
    assert "linalg.generic" in iree and "linalg.conv_2d_nhwc_hwcf" in iree
    assert "linalg.pooling_nhwc_max" in iree
    assert "stablehlo.convolution" not in iree and "stablehlo.reduce_window" not in iree
