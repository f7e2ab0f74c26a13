"""Reflect padding and nearest interpolation to a given size with `?` dims, one compiled module each.

Reflect padding by symbolic amounts (`(4 - n % 4) % 4`) or by constants along a `?` axis goes
through symhlo.frontend.decompositions.basic.reflection_pad (index_select + cat; torch's
decomposition feeds the SymInt size to `aten.sub.Tensor`, which torch-mlir's importer emits on a
`!torch.int`). Nearest interpolation with `size=` (derived from the input's sizes, or another
tensor's shape) and with short binary fractional scale factors (1.5, 2.5) goes through
symhlo.frontend.decompositions.basic.upsample_nearest_sized: a power-of-two ratio that holds for
every size repeats elements, anything else gathers the source index torch's kernel computes in
float32. Other fractional scales (1.3) raise UnsupportedOpError naming the op and the source line.
Sizes include each range's minimum, sizes not a multiple of the padding's 4 / 8, and a large one.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.export import Dim

import symhlo
from e2e_harness import check_model, check_not_specialized, randn


class ReflectPads(nn.Module):
    """Reflect padding to a multiple of 4 / 8 (symbolic amounts, both sides in 2-D), by constants
    along `?` axes, and inside a conv with padding_mode="reflect"."""

    def __init__(self):
        super().__init__()
        torch.manual_seed(5)
        self.conv = nn.Conv2d(3, 4, 3, padding=1, padding_mode="reflect")

    def forward(self, seq, img):
        n = seq.shape[-1]
        to4 = F.pad(seq, (0, (4 - n % 4) % 4), mode="reflect")         # (b, 3, n + p)
        const1 = F.pad(seq, (2, 3), mode="reflect")                     # (b, 3, n + 5)
        h, w = img.shape[-2:]
        ph, pw = (8 - h % 8) % 8, (8 - w % 8) % 8
        to8 = F.pad(img, (pw // 2, pw - pw // 2, ph // 2, ph - ph // 2), mode="reflect")
        const2 = F.pad(img, (1, 2, 3, 1), mode="reflect")
        return to4, const1, to8, const2, self.conv(img)


def test_reflect_pad_symbolic_amounts():
    b = Dim("b", min=1, max=16)
    n = Dim("n", min=4, max=4096)
    h, w = Dim("h", min=8, max=512), Dim("w", min=8, max=512)
    check_model("reflect_pad", ReflectPads(), (randn(2, 3, 10), randn(2, 3, 12, 9)),
                ({0: b, 2: n}, {0: b, 2: h, 3: w}),
                [(randn(1, 3, 4), randn(1, 3, 8, 8)),                # range minimum; n % 4 == 0
                 (randn(3, 3, 7), randn(3, 3, 16, 13)),              # h % 8 == 0, w % 8 == 5
                 (randn(2, 3, 1001), randn(2, 3, 130, 97))],
                rtol=1e-5, atol=1e-5)
    check_not_specialized(ReflectPads(), (randn(2, 3, 10), randn(2, 3, 12, 9)),
                          (randn(3, 3, 13), randn(3, 3, 17, 11)), ({0: b, 2: n}, {0: b, 2: h, 3: w}))


class NearestBySize(nn.Module):
    """interpolate(mode="nearest") with size= from the input's own sizes, from another tensor's
    shape, and with fractional scale factors."""

    def forward(self, x, skip, seq):
        h, w = x.shape[-2:]
        up2 = F.interpolate(x, size=(2 * h, 2 * w), mode="nearest")      # repeat path
        odd = F.interpolate(x, size=(h + 3, 3 * w), mode="nearest")      # gather path
        like = F.interpolate(x, size=skip.shape[-2:], mode="nearest")    # independent sizes
        frac = F.interpolate(x, scale_factor=(1.5, 2.5), mode="nearest")
        line = F.interpolate(seq, size=2 * seq.shape[-1] - 1, mode="nearest")
        return up2, odd, like + skip, frac, line


def test_nearest_interpolate_to_symbolic_size():
    b = Dim("b", min=1, max=16)
    h, w = Dim("h", min=2, max=256), Dim("w", min=2, max=256)
    h2, w2 = Dim("h2", min=1, max=512), Dim("w2", min=1, max=512)
    n = Dim("n", min=2, max=2048)
    check_model("nearest_size", NearestBySize(), (randn(2, 3, 6, 5), randn(2, 3, 9, 13), randn(2, 4, 7)),
                ({0: b, 2: h, 3: w}, {0: b, 2: h2, 3: w2}, {0: b, 2: n}),
                [(randn(1, 3, 2, 2), randn(1, 3, 1, 1), randn(1, 4, 2)),   # range minimum
                 (randn(3, 3, 2, 11), randn(3, 3, 82, 5), randn(3, 4, 41)),  # 2 -> 82 differs
                 (randn(2, 3, 101, 64), randn(2, 3, 300, 17), randn(2, 4, 1500))],  # in int math
                rtol=0, atol=0)
    check_not_specialized(NearestBySize(), (randn(2, 3, 6, 5), randn(2, 3, 9, 13), randn(2, 4, 7)),
                          (randn(3, 3, 4, 7), randn(3, 3, 5, 8), randn(3, 4, 11)),
                          ({0: b, 2: h, 3: w}, {0: b, 2: h2, 3: w2}, {0: b, 2: n}))


class ScaleOneFifteen(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=1.15, mode="nearest")  # floor(100 * 1.15) = 114


def test_nearest_interpolate_non_binary_fraction_is_rejected_by_name():
    dims = ({0: Dim("b", min=1, max=16), 2: Dim("h", min=2, max=256), 3: Dim("w", min=2, max=256)},)
    with pytest.raises(symhlo.UnsupportedOpError,
                       match=r"unsupported op 'torch\.aten\.upsample_nearest2d\.vec' at "
                             r"loc\(\".*test_gaps_pad_interp\.py\":\d+.*scale factor 1\.15"):
        symhlo.export(ScaleOneFifteen(), (randn(2, 3, 6, 5),), dynamic_shapes=dims)
