"""CNN ops beyond the scale-2 / 1x1 cases (adaptive pooling to other sizes, group_norm), with `?`
batch and H/W, one compiled module each.

adaptive_avg_pool2d to sizes other than 1x1 goes through symhlo's matmul decomposition
(symhlo.frontend.decompositions.basic.adaptive_avg_pool2d): torch's specializes H/W to the example's
(Python branches on the SymInt sizes; see test_gaps_gather.py). Sizes include H/W not divisible by
the output and H/W smaller than it (overlapping windows). group_norm goes through
symhlo.frontend.decompositions.basic.native_group_norm (torch's uses as_strided with symbolic
sizes).
"""

from __future__ import annotations

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

from e2e_harness import check_model, randn


class AdaptiveAvg(nn.Module):
    def forward(self, x):
        return (F.adaptive_avg_pool2d(x, (2, 3)), F.adaptive_avg_pool2d(x, 7),
                F.adaptive_avg_pool2d(x, (1, 4)), F.adaptive_avg_pool2d(x, 1))


def test_adaptive_avg_pool2d_other_sizes():
    b = Dim("b", min=1, max=64)
    h, w = Dim("h", min=4, max=1024), Dim("w", min=4, max=1024)
    check_model("adaptive_avg_pool2d", AdaptiveAvg(), (randn(2, 3, 12, 10),),
                ({0: b, 2: h, 3: w},),
                [(randn(1, 3, 4, 4),), (randn(3, 3, 13, 29),), (randn(2, 3, 224, 97),)],
                rtol=1e-4, atol=1e-5)


class GroupNorms(nn.Module):
    """nn.GroupNorm (random affine) after a conv on NCHW, and F.group_norm on NCL."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(3)
        self.conv = nn.Conv2d(3, 8, 3, padding=1)
        self.gn = nn.GroupNorm(4, 8)
        self.gn.weight.data.uniform_(0.5, 1.5)
        self.gn.bias.data.uniform_(-0.5, 0.5)

    def forward(self, x):
        y = F.relu(self.gn(self.conv(x)))
        line = x.flatten(2)                                 # (b, 3, H*W)
        return y, F.group_norm(line, 3, eps=1e-3), F.group_norm(x, 1)


def test_group_norm():
    b = Dim("b", min=1, max=64)
    h, w = Dim("h", min=2, max=1024), Dim("w", min=2, max=1024)
    check_model("group_norm", GroupNorms(), (randn(2, 3, 12, 10),), ({0: b, 2: h, 3: w},),
                [(randn(1, 3, 2, 2),), (randn(3, 3, 13, 29),), (randn(2, 3, 160, 97),)],
                rtol=1e-4, atol=1e-4)
