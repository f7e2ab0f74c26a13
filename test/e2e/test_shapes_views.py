"""Structural ops over `?` dims (slices, splits, views, copies, diagonals, scatters, windows), one
compiled module per test, compared with eager PyTorch at three or more sizes.

Dims are `Dim.AUTO`, as a user exporting without naming them gets: torch.export then guards its
own size arithmetic (`n - 3 != 1`, `n - 3 >= 1` for `x[:, 1:-2]`), and the decompositions run
before import guard again (`n - 3 > 1` in a contiguity check). symhlo.importer accepts a
decomposition's guard only where no sizes within the ranges and torch.export's guards (which
the call-time checks enforce) break it.
"""

from __future__ import annotations

import torch
import torch.nn as nn
from torch.export import Dim

from e2e_harness import check_model, randn

AUTO = Dim.AUTO


class SlicesSplits(nn.Module):
    """Slices with a negative end and a step, hsplit at indices, chunk along a `?` axis."""

    def forward(self, x):                       # (b, n, m)
        a = x[:, 1:-2] * 2                      # n - 3
        s = x[:, 1:-2:3]                        # (n - 2) // 3 rounded up
        h = torch.hsplit(x, [1, 2, 3])          # 1, 1, 1, n - 3
        c = torch.chunk(x, 3, dim=2)            # 3 chunks of ceil(m / 3) (the last not 1)
        return a, s, h[0] + h[1], h[3], c[0], c[2]


def test_slices_splits_chunks_auto_dims():
    check_model("slices_splits", SlicesSplits(), (randn(2, 7, 9),), ({0: AUTO, 1: AUTO, 2: AUTO},),
                [(randn(3, 9, 8),), (randn(2, 12, 10),), (randn(4, 31, 12),)], rtol=0, atol=0)
