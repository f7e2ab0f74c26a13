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


class BlockDiagNewZeros(nn.Module):
    """block_diag of `?`-sized blocks (torch's decomposition builds its zero blocks with
    new_zeros -> empty_strided, here of a zero-width `[b0, 0]` block too), new_zeros / new_full
    with symbolic sizes, and a masked var (empty_strided with strides torch-mlir cannot check)."""

    def forward(self, a, b, v):                 # (n, m), (k, l), (k,)
        d = torch.block_diag(a, b, v)           # (n + k + 1, m + l + k)
        z = a.new_zeros((a.shape[0], b.shape[1])) + 1
        f = b.new_full((b.shape[0], 0), 2.0)
        var = torch.masked.var(a, 1)
        return d, z, f, var


def test_block_diag_new_zeros_masked_var():
    ex = (randn(3, 4), randn(2, 5), randn(2))
    check_model("block_diag_new_zeros", BlockDiagNewZeros(), ex,
                ({0: AUTO, 1: AUTO}, {0: AUTO, 1: AUTO}, {0: AUTO}),
                [(randn(4, 6), randn(3, 2), randn(3)), (randn(2, 2), randn(5, 7), randn(5)),
                 (randn(9, 3), randn(2, 4), randn(2))])


class PinnedSplit(nn.Module):
    """split(x, 2) along an axis torch.export pins to its example size (the number of pieces is
    a Python int): the argument's axis becomes static, the other axes stay `?`."""

    def forward(self, x):                       # (5, n, m)
        p, q, r = torch.split(x, 2)
        return p * 2, q + r.sum(0, keepdim=True)


def test_split_on_a_pinned_axis():
    check_model("pinned_split", PinnedSplit(), (randn(5, 4, 6),), ({0: AUTO, 1: AUTO, 2: AUTO},),
                [(randn(5, 3, 2),), (randn(5, 9, 7),), (randn(5, 2, 33),)])
