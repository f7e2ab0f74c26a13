"""Indexing on operands with `?` axes: the forms IREE 3.13 rejects as emitted (dynamic_gather,
real_dynamic_slice with static result axes) and symhlo-lower-dynamic-indexing-for-iree rewrites.

One compiled module covers index_select / advanced indexing / torch.gather along either dynamic
axis, with a dynamic number of indices, and slices whose result has static axes (`x[:, -1]`,
`x[:, 1:2]`, `narrow` at a symbolic start); it runs at the range minimum, a middle and a large size.
"""

from __future__ import annotations

import torch
import torch.nn as nn
from torch.export import Dim

from e2e_harness import check_model, randint, randn


class DynamicIndexing(nn.Module):
    def forward(self, x, idx):
        b, s, d = x.shape
        n = idx.shape[0]
        along_s = idx % s                                   # index values depend on the sizes
        along_b = idx % b
        sel1 = torch.index_select(x, 1, along_s)            # (b, n, 8): dynamic_gather
        sel0 = torch.index_select(x, 0, along_b)            # (n, s, 8)
        adv = x[:, along_s]                                 # aten.index.Tensor
        g = torch.gather(x, 1, along_s[None, :, None].expand(b, n, d))
        last = x[:, -1]                                     # (b, 8)
        one = x[:, 1:2].expand(b, s, d)                     # static axis from dynamic bounds
        mid = x.narrow(1, s - 2, 1) * 3                     # symbolic start
        cols = x[:, :, 2:5] + 1                             # static slice of a static axis
        return sel1, sel0, adv, g, last, one, mid, cols


def test_dynamic_indexing_on_dynamic_operands():
    b, s, n = Dim("b", min=2, max=64), Dim("s", min=2, max=2048), Dim("n", min=2, max=4096)
    sizes = [(randn(2, 2, 8), randint(1000, 2)), (randn(3, 9, 8), randint(1000, 5)),
             (randn(5, 700, 8), randint(1000, 1500))]
    check_model("dynamic_indexing", DynamicIndexing(), (randn(3, 4, 8), randint(1000, 3)),
                ({0: b, 1: s}, {0: n}), sizes, rtol=0, atol=0)
